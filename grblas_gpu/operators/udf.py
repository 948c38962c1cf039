"""User-defined operators from one Python function that runs on both backends.

The function (any pure Python function of numbers: a lambda, a ``def`` of one ``return``
read from its source, or, where there is no source or several statements, traced by
:mod:`.udf_trace`) becomes one expression, rendered twice: vectorised NumPy for the CPU and a CUDA C expression for the
GPU kernels.  Supported: arithmetic (``+ - * / // **``), comparisons, ``and``/``or``/
``not``, ``a if cond else b``, ``abs``, ``min``, ``max``, and ``math``/``numpy``
functions such as ``sqrt``, ``exp``, ``log``, ``floor``; constants; the arguments.

>>> times2_plus = binary.register_anonymous(lambda x, y: x * 2 + y)
"""

from __future__ import annotations

import ast
import inspect
import math
import textwrap
from collections.abc import Callable
from typing import Any

import numpy as np

from ..dtypes import DataType, lookup_dtype
from ..exceptions import DomainMismatch, InvalidValue, NotImplementedException, UdfParseError
from . import cmath as cm
from .base import BinaryOp, IndexUnaryOp, TypedBinaryOp, TypedIndexUnaryOp, TypedUnaryOp, UnaryOp
from .udf_trace import traced_expression

_FUNCS = {"sqrt", "exp", "log", "log2", "log10", "exp2", "sin", "cos", "tan", "sinh", "cosh", "tanh",
          "floor", "ceil", "trunc", "fabs", "expm1", "log1p", "cbrt", "atan2", "hypot"}
_NP_NAMES = {"fabs": "abs"}
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_CONSTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan}


def _expression_of(func: Callable[..., Any] | str, nargs: int) -> tuple[ast.expr, list[str]]:
    """The function's single return expression and its argument names.

    ``func`` may also be the source text of a lambda (``"lambda x, y: x + 2 * y"``).
    """
    if isinstance(func, str):
        text = ast.parse(func.strip(), mode="eval").body
        if not isinstance(text, ast.Lambda) or len(text.args.args) != nargs:
            raise InvalidValue(f"expected the text of a lambda of {nargs} arguments, got {func!r}")
        return text.body, [a.arg for a in text.args.args]
    code = getattr(func, "__code__", None)
    names = list(code.co_varnames[: code.co_argcount]) if code is not None else []
    if code is not None and len(names) != nargs:
        raise UdfParseError(f"the operator function must take {nargs} arguments, it takes {len(names)}")
    try:
        tree = _parse_fragment(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, InvalidValue):
        return traced_expression(func, nargs)  # no source (a lambda typed at a prompt): run it on symbols
    free = set(code.co_freevars) if code is not None else set()
    for node in ast.walk(tree):
        found: ast.expr | None = None
        if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == names:
            found = node.body
        elif isinstance(node, ast.FunctionDef) and node.name == func.__name__:
            body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
                found = body[0].value
        else:
            continue
        # A closure's variables (``lambda y: y + x`` made by a parameterized operator) are
        # numbers known only when run: trace the function instead.
        if found is not None and not free & {n.id for n in ast.walk(found) if isinstance(n, ast.Name)}:
            return found, names
        break
    return traced_expression(func, nargs)  # several statements: run it on symbols


def _parse_fragment(src: str) -> ast.AST:
    """Parse source that may be a fragment of a larger statement (a lambda inside a call)."""
    for candidate in (src, "(" + src.strip().rstrip(",") + ")", src.strip().rstrip(",).")):
        try:
            return ast.parse(candidate)
        except SyntaxError:
            continue
    raise InvalidValue("could not parse the operator function's source; define it on its own line")


class _Renderer:
    """Renders an expression tree to NumPy source or CUDA C source."""

    def __init__(self, rename: dict[str, str], cuda: bool, int_args: bool) -> None:
        self.rename = rename
        self.cuda = cuda
        self.int_args = int_args

    def __call__(self, node: ast.expr) -> str:
        r = self
        if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
            return _literal(node.value, r.cuda)
        if isinstance(node, ast.Name):
            if node.id in r.rename:
                return r.rename[node.id]
            if node.id in ("True", "False"):
                return _literal(node.id == "True", r.cuda)
            raise InvalidValue(f"unknown name {node.id!r} in operator expression")
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr in _CONSTS:
            return _literal(_CONSTS[node.attr], r.cuda)
        if isinstance(node, ast.BinOp):
            return r._binop(node)
        if isinstance(node, ast.UnaryOp):
            x = r(node.operand)
            if isinstance(node.op, ast.USub):
                return f"(-{x})"
            if isinstance(node.op, ast.UAdd):
                return x
            if isinstance(node.op, ast.Not):
                return f"(!{x})" if r.cuda else f"np.logical_not({x})"
        if isinstance(node, ast.Compare):
            parts = []
            left = node.left
            for op, right in zip(node.ops, node.comparators):
                if type(op) not in _CMPOPS:
                    break
                parts.append(f"({r(left)} {_CMPOPS[type(op)]} {r(right)})")
                left = right
            else:
                return _join(parts, "&&" if r.cuda else "np.logical_and")
        if isinstance(node, ast.BoolOp):
            vals = [r(v) for v in node.values]
            if r.cuda:
                return "(" + (" && " if isinstance(node.op, ast.And) else " || ").join(vals) + ")"
            return _join(vals, "np.logical_and" if isinstance(node.op, ast.And) else "np.logical_or")
        if isinstance(node, ast.IfExp):
            c, a, b = r(node.test), r(node.body), r(node.orelse)
            return f"({c} ? {a} : {b})" if r.cuda else f"np.where({c}, {a}, {b})"
        if isinstance(node, ast.Call):
            return r._call(node)
        raise NotImplementedException(f"operator expressions cannot use {ast.dump(node)[:60]}")

    def _binop(self, node: ast.BinOp) -> str:
        a, b = self(node.left), self(node.right)
        if type(node.op) in _BINOPS:
            return f"({a} {_BINOPS[type(node.op)]} {b})"
        if isinstance(node.op, ast.Div):
            return f"((double)({a}) / (double)({b}))" if self.cuda and self.int_args else (
                f"({a} / {b})" if self.cuda else f"np.true_divide({a}, {b})")
        if isinstance(node.op, ast.FloorDiv):
            return f"floor((double)({a}) / (double)({b}))" if self.cuda else f"np.floor(np.true_divide({a}, {b}))"
        if isinstance(node.op, ast.Pow):
            return f"pow((double)({a}), (double)({b}))" if self.cuda else f"np.power(np.float64({a}), {b})"
        if isinstance(node.op, ast.Mod):  # Python's %: the result takes the divisor's sign
            if not self.cuda:
                return f"np.mod({a}, {b})"
            if not self.int_args:
                return f"(({a}) - floor((double)({a}) / (double)({b})) * ({b}))"
            r = f"(({a}) % ({b}))"
            return f"({r} + (({r} != 0 && (({r} < 0) != (({b}) < 0))) ? ({b}) : 0))"
        raise NotImplementedException(f"operator expressions cannot use {type(node.op).__name__}")

    def _call(self, node: ast.Call) -> str:
        fname = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        args = [self(a) for a in node.args]
        if fname == "abs" and len(args) == 1:
            return f"(({args[0]}) < 0 ? -({args[0]}) : ({args[0]}))" if self.cuda else f"np.abs({args[0]})"
        if fname in ("min", "max", "minimum", "maximum", "fmin", "fmax") and len(args) == 2:
            small = fname in ("min", "minimum", "fmin")
            if self.cuda:
                return f"(({args[0]}) {'<' if small else '>'} ({args[1]}) ? ({args[0]}) : ({args[1]}))"
            return f"np.{'minimum' if small else 'maximum'}({args[0]}, {args[1]})"
        if fname in _FUNCS:
            if self.cuda:
                return f"{fname}(" + ", ".join(f"(double)({a})" for a in args) + ")"
            return f"np.{_NP_NAMES.get(fname, fname)}(" + ", ".join(f"np.float64({a})" for a in args) + ")"
        raise NotImplementedException(f"operator expressions cannot call {fname or 'this'}()")


def _join(parts: list[str], op: str) -> str:
    if len(parts) == 1:
        return parts[0]
    if op in ("&&", "||"):
        return "(" + f" {op} ".join(parts) + ")"
    out = parts[0]
    for p in parts[1:]:
        out = f"{op}({out}, {p})"
    return out


def _literal(v: Any, cuda: bool) -> str:
    if isinstance(v, bool):
        return ("true" if v else "false") if cuda else repr(v)
    if isinstance(v, float) and not math.isfinite(v):
        if cuda:
            return cm.c_literal(v, lookup_dtype("FP64"))
        return "np.nan" if math.isnan(v) else ("np.inf" if v > 0 else "-np.inf")
    if isinstance(v, int) and cuda:
        return f"{v}LL"
    return repr(v)


def _numpy_function(expr: ast.expr, names: list[str], params: list[str]) -> Callable[..., Any]:
    body = _Renderer(dict(zip(names, params)), cuda=False, int_args=False)(expr)
    code = f"def _f({', '.join(params)}):\n    return {body}\n"
    scope: dict[str, Any] = {"np": np}
    exec(compile(code, "<user operator>", "exec"), scope)  # noqa: S102 - source built from a parsed AST
    return scope["_f"]


def _result_type(f: Callable[..., Any], arg_types: list[DataType]) -> DataType:
    samples = [np.ones(2, dtype=t.np_type) for t in arg_types]
    with np.errstate(all="ignore"):
        out = np.asarray(f(*samples))
    try:
        return lookup_dtype(out.dtype)
    except DomainMismatch:
        return lookup_dtype("FP64")


def unary_from_function(name: str, func: Callable[[Any], Any]) -> UnaryOp:
    """A UnaryOp from ``f(x)``."""
    expr, names = _expression_of(func, 1)
    f = _numpy_function(expr, names, ["x"])

    def build(t: DataType) -> TypedUnaryOp:
        z = _result_type(f, [t])
        cuda = _Renderer({names[0]: "x"}, cuda=True, int_args=not t.is_float)(expr)
        return TypedUnaryOp(name, t, z, lambda x: np.asarray(f(x)).astype(z.np_type), f"(Z)({cuda})")

    return UnaryOp(name, builder=build)


def binary_from_function(name: str, func: Callable[[Any, Any], Any]) -> BinaryOp:
    """A BinaryOp from ``f(x, y)``."""
    expr, names = _expression_of(func, 2)
    f = _numpy_function(expr, names, ["x", "y"])

    def build(t: DataType) -> TypedBinaryOp:
        z = _result_type(f, [t, t])
        cuda = _Renderer(dict(zip(names, ["x", "y"])), cuda=True, int_args=not t.is_float)(expr)
        return TypedBinaryOp(name, t, t, z, lambda x, y, pos: f(x, y), f"(Z)({cuda})")

    return BinaryOp(name, builder=build)


def indexunary_from_function(name: str, func: Callable[[Any, Any, Any, Any], Any]) -> IndexUnaryOp:
    """An IndexUnaryOp from ``f(x, i, j, thunk)``."""
    expr, names = _expression_of(func, 4)
    params = ["x", "i", "j", "thunk"]
    f = _numpy_function(expr, names, params)

    def build(t: DataType) -> TypedIndexUnaryOp:
        i64 = lookup_dtype("INT64")
        z = _result_type(f, [t, i64, i64, t])
        cuda = _Renderer(dict(zip(names, params)), cuda=True, int_args=not t.is_float)(expr)
        return TypedIndexUnaryOp(name, t, t, z, lambda x, i, j, s: f(x, np.asarray(i), np.asarray(j), s),
                                 f"(Z)({cuda})")

    return IndexUnaryOp(name, builder=build)
