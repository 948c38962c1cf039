"""The expression of any pure Python function, found by running it on symbols.

Used where the function's source cannot be read (a lambda typed at a ``python`` prompt) or
holds more than one ``return`` statement (assignments, ``if``/``else``, early returns).  The
function is called with symbolic arguments whose operators record an expression tree; each
truth test of a symbol (an ``if``, ``and``/``or``, ``min``/``max``) is a branch, and every
path through the branches is run once, so the result is one expression of nested
``a if cond else b``.  ``math`` and ``numpy`` functions the function reads from its globals
(``math.sqrt``, ``np.exp``, ``from math import floor``) are replaced by symbolic ones.
"""

from __future__ import annotations

import ast
import math
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from ..exceptions import UdfParseError

_MAX_PATHS = 256
_SYMBOLIC_FUNCS = {"sqrt", "exp", "log", "log2", "log10", "exp2", "sin", "cos", "tan", "sinh", "cosh", "tanh",
                   "floor", "ceil", "trunc", "fabs", "expm1", "log1p", "cbrt", "atan2", "hypot", "abs",
                   "minimum", "maximum", "fmin", "fmax"}


class _NeedBranch(Exception):
    def __init__(self, condition: ast.expr) -> None:
        super().__init__("branch")
        self.condition = condition


class _Tracer:
    """The decisions of one run: taken in order; a test past them asks for a new branch."""

    def __init__(self, decisions: list[bool]) -> None:
        self.decisions = decisions
        self.at = 0

    def decide(self, condition: ast.expr) -> bool:
        if self.at < len(self.decisions):
            self.at += 1
            return self.decisions[self.at - 1]
        raise _NeedBranch(condition)


def _node(x: Any) -> ast.expr:
    if isinstance(x, _Sym):
        return x.node
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, (bool, int, float)):
        return ast.Constant(x)
    raise UdfParseError("Unable to parse function using Numba's rules: a user-defined operator may use "
                        f"numbers only, not {type(x).__name__}")


def _binop(op: ast.operator) -> tuple[Callable[..., Any], Callable[..., Any]]:
    def fwd(self: _Sym, other: Any) -> _Sym:
        return _Sym(ast.BinOp(self.node, op, _node(other)), self.tracer)

    def rev(self: _Sym, other: Any) -> _Sym:
        return _Sym(ast.BinOp(_node(other), op, self.node), self.tracer)

    return fwd, rev


def _cmp(op: ast.cmpop) -> Callable[..., Any]:
    def f(self: _Sym, other: Any) -> _Sym:
        return _Sym(ast.Compare(self.node, [op], [_node(other)]), self.tracer)

    return f


class _Sym:
    """A symbolic value: its expression so far."""

    __slots__ = ("node", "tracer")

    def __init__(self, node: ast.expr, tracer: _Tracer) -> None:
        self.node = node
        self.tracer = tracer

    __add__, __radd__ = _binop(ast.Add())
    __sub__, __rsub__ = _binop(ast.Sub())
    __mul__, __rmul__ = _binop(ast.Mult())
    __truediv__, __rtruediv__ = _binop(ast.Div())
    __floordiv__, __rfloordiv__ = _binop(ast.FloorDiv())
    __pow__, __rpow__ = _binop(ast.Pow())
    __mod__, __rmod__ = _binop(ast.Mod())
    __lt__, __le__ = _cmp(ast.Lt()), _cmp(ast.LtE())
    __gt__, __ge__ = _cmp(ast.Gt()), _cmp(ast.GtE())
    __eq__, __ne__ = _cmp(ast.Eq()), _cmp(ast.NotEq())  # type: ignore[assignment]
    __hash__ = None  # type: ignore[assignment]

    def __neg__(self) -> _Sym:
        return _Sym(ast.UnaryOp(ast.USub(), self.node), self.tracer)

    def __pos__(self) -> _Sym:
        return self

    def __abs__(self) -> _Sym:
        return _Sym(ast.Call(ast.Name("abs"), [self.node], []), self.tracer)

    def __bool__(self) -> bool:
        return self.tracer.decide(self.node)

    def __float__(self) -> float:
        raise UdfParseError("a user-defined operator cannot convert its argument with float() or call a function "
                            "that needs a plain number; use math or numpy functions on it directly")

    __int__ = __index__ = __float__  # type: ignore[assignment]


def _symbolic_function(name: str) -> Callable[..., Any]:
    def f(*args: Any) -> Any:
        syms = [a for a in args if isinstance(a, _Sym)]
        if not syms:
            return getattr(math, name, getattr(np, name, None))(*args)  # type: ignore[misc]
        return _Sym(ast.Call(ast.Name(name), [_node(a) for a in args], []), syms[0].tracer)

    return f


class _SymbolicModule:
    """``math`` or ``numpy`` as a function sees it while traced."""

    def __init__(self, real: types.ModuleType) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        if name in _SYMBOLIC_FUNCS:
            return _symbolic_function(name)
        return getattr(self._real, name)


def _symbolic_globals(func: types.FunctionType) -> dict[str, Any]:
    scope = dict(func.__globals__)
    for name in _names(func.__code__):
        value = scope.get(name)
        if value is math or value is np:
            scope[name] = _SymbolicModule(value)
        elif getattr(value, "__name__", None) in _SYMBOLIC_FUNCS and (
                getattr(value, "__module__", None) == "math" or isinstance(value, np.ufunc)):
            scope[name] = _symbolic_function(str(getattr(value, "__name__", "")))
    return scope


def _names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def traced_expression(func: Any, nargs: int) -> tuple[ast.expr, list[str]]:
    """The expression ``func`` computes, in terms of argument names ``a0, a1, ...``."""
    if not isinstance(func, types.FunctionType):
        raise UdfParseError(f"cannot read the operator function {func!r}: give a Python function or lambda")
    code = func.__code__
    if code.co_argcount != nargs:
        raise UdfParseError(f"the operator function must take {nargs} arguments, it takes {code.co_argcount}")
    traced = types.FunctionType(code, _symbolic_globals(func), func.__name__, func.__defaults__, func.__closure__)
    names = [f"a{k}" for k in range(nargs)]
    count = [0]

    def explore(decisions: list[bool]) -> ast.expr:
        count[0] += 1
        if count[0] > _MAX_PATHS:
            raise UdfParseError(f"the operator function has more than {_MAX_PATHS} paths (a loop over its "
                                "arguments?); write it without one")
        tracer = _Tracer(decisions)
        try:
            out = traced(*(_Sym(ast.Name(n), tracer) for n in names))
        except _NeedBranch as branch:
            return ast.IfExp(branch.condition, explore([*decisions, True]), explore([*decisions, False]))
        except UdfParseError:
            raise
        except Exception as exc:  # noqa: BLE001 - whatever the function did with a symbol it cannot do
            raise UdfParseError(f"cannot render the operator function {func.__name__}: {type(exc).__name__}: "
                                f"{exc}") from None
        return _node(out)

    return explore([]), names
