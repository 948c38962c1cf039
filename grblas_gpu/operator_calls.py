"""An operator called on objects, python-graphblas's shorthand (bound for the operators,
which sit below the objects: bound in :mod:`._operations`): ``unary.abs(v)`` applies,
``binary.plus(A, 1)`` / ``binary.minus(v, right=15)`` apply with a bound scalar,
``select.triu(A, 1)`` selects, ``indexunary.rowindex(A)`` applies with a thunk,
``binary.plus(A | B, left_default=0, right_default=0)`` is an ewise_union."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _scalar_ops  # noqa: F401 - binds ``s | t`` of Scalars (scalar_infix)
from ._broadcast import broadcast_ewise
from ._operations import bind_operations
from .infix import apply_operator
from .scalar import Scalar

__all__ = ["call_operator"]


def _is_collection(x: Any) -> bool:
    return getattr(x, "kind", None) in ("Matrix", "Vector")


def call_operator(op: Any, left: Any, right: Any = None, *, left_default: Any = None,
                  right_default: Any = None, thunk: Any = None) -> Any:
    """``op(...)`` on objects, by the operator's kind (see the module's docstring)."""
    kind = getattr(op, "kind", None)
    if left_default is not None or right_default is not None:
        return _ewise_union_call(op, left, right, left_default, right_default)
    if kind not in ("indexunary", "select", "unary") and _scalars(left, right):
        a = left if isinstance(left, Scalar) else Scalar.from_value(left)
        return a.ewise_mult(right if isinstance(right, Scalar) else Scalar.from_value(right), op)
    if _is_number(left) and right is None:
        left = Scalar.from_value(left)
    if kind == "unary":
        if right is not None or not _is_collection(left) and getattr(left, "kind", None) != "Scalar":
            raise TypeError(f"Bad type when calling {op!r}: __call__ of a unary operator takes one Vector, Matrix or Scalar")
        return left.apply(op)
    if kind in ("indexunary", "select"):
        if _scalars(left, right) and kind == "select":
            return _select_scalar(op, left, right, thunk)
        if not _is_collection(left):
            raise TypeError(f"Bad type when calling {op!r}: expected a Vector or Matrix, got {type(left).__name__}")
        t = right if right is not None else thunk
        t = False if t is None else t
        return left.select(op, t) if kind == "select" else left.apply(op, t)
    if kind == "semiring":
        if right is not None:
            raise TypeError(f"Bad types when calling {op!r}.  Expected an infix expression, such as: {op!r}(A @ B)")
        return apply_operator(op, left)
    # binary operators and monoids
    if right is None and getattr(left, "_infix", None) is not None:
        return apply_operator(op, left)
    if _is_collection(left) and right is not None and not _is_collection(right):
        expr = left.apply(op, right=right)
        expr._applied = (getattr(op, "name", ""), left, right)  # for select.value(A > 0)
        return expr
    if _is_collection(right) and left is not None and not _is_collection(left):
        return right.apply(op, left=left)
    if _is_collection(left) and _is_collection(right):
        raise TypeError(f"Bad type for keyword argument `right=` when calling {op!r}: {type(right).__name__}. "
                        f"Two objects combine through an infix expression: {op!r}(A & B) or {op!r}(A | B)")
    raise TypeError(
        f"Bad type when calling {op!r}.  Got types: {type(left).__name__}, {type(right).__name__}.\n"
        "Expected an infix expression or an apply with a Vector or Matrix and a scalar:\n"
        f"    - {op!r}(A & B)\n    - {op!r}(A, 1)\n    - {op!r}(1, A)")


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, bool, np.generic))


def _scalars(left: Any, right: Any) -> bool:
    """Two scalar operands (numbers or Scalars), at least one of them a Scalar or both numbers."""
    return right is not None and all(_is_number(x) or isinstance(x, Scalar) for x in (left, right))


def _select_scalar(op: Any, left: Any, right: Any, thunk: Any) -> Any:
    """``select.valueeq(s, 5)`` (or ``(5, s)``): ``s`` where the operator keeps its value, else empty."""
    s, t = (left, right) if isinstance(left, Scalar) else (right, left)
    out = Scalar(s.dtype, backend=s.backend)
    if s.value is None:
        return out._as_expression()
    t = t if thunk is None else thunk
    t = t.value if isinstance(t, Scalar) else t
    typed = op if hasattr(op, "np_func") else op[s.dtype]
    zero = np.zeros(1, np.int64)
    if np.asarray(typed.np_func(np.asarray([s.value], s.dtype.np_type), zero, zero, t)).any():
        out.value = s.value
    return out._as_expression()


def _ewise_union_call(op: Any, left: Any, right: Any, left_default: Any, right_default: Any) -> Any:
    infix = getattr(left, "_infix", None)
    if left_default is None or right_default is None or right is not None or infix is None or infix[0] != "add":
        raise TypeError(
            "Specifying `left_default` or `right_default` keyword arguments implies performing "
            "`ewise_union` operation with infix notation.\nThere is only one valid way to do this:\n\n"
            f">>> {op!r}(x | y, left_default=0, right_default=0)\n\nwhere x and y are Vectors or Matrices, "
            "and left_default and right_default are scalars.")
    _, a, b = infix
    # (A | B) | C: every level of the chain is an ewise_union with the same defaults.
    if (getattr(a, "_infix", None) or (None,))[0] == "add":
        a = _ewise_union_call(op, a, None, left_default, right_default)
    if (getattr(b, "_infix", None) or (None,))[0] == "add":
        b = _ewise_union_call(op, b, None, left_default, right_default)
    if _is_number(a):
        a = Scalar.from_value(a)
    if _is_number(b):
        b = Scalar.from_value(b)
    if getattr(a, "kind", None) != getattr(b, "kind", None):
        return broadcast_ewise(a, b, op, True, (left_default, right_default))
    return a.ewise_union(b, op, left_default, right_default)


bind_operations(call_operator=call_operator)
