"""Infix forms, as in python-graphblas: ``A @ B``, ``u @ A``, ``A | B``, ``A & B``, and
an operator applied to them: ``semiring.min_plus(A @ B)``, ``binary.max(A | B)``.

``@`` is mxm / mxv / vxm / inner with plus_times, ``|`` is ewise_add with plus and
``&`` is ewise_mult with times, until an operator is applied to the expression.

An operator called on objects (:func:`grblas_gpu.operator_calls.call_operator`) is
python-graphblas's shorthand too:
``unary.abs(v)`` applies, ``binary.plus(A, 1)`` / ``binary.minus(v, right=15)`` apply with a
bound scalar, ``select.triu(A, 1)`` selects, ``indexunary.rowindex(A)`` applies with a thunk,
``binary.plus(A | B, left_default=0, right_default=0)`` is an ewise_union.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._operations import operations
from .exceptions import DomainMismatch


def matmul(left: Any, right: Any, op: Any = "plus_times") -> Any:
    """The product of two collections by their kinds, over the semiring ``op``."""
    lk, rk = getattr(left, "kind", None), getattr(right, "kind", None)
    if lk == "Matrix" and rk == "Matrix":
        expr = left.mxm(right, op)
    elif lk == "Matrix" and rk == "Vector":
        expr = left.mxv(right, op)
    elif lk == "Vector" and rk == "Matrix":
        expr = left.vxm(right, op)
    elif lk == "Vector" and rk == "Vector":
        expr = left.inner(right, op)
    else:
        if (lk in _COLLECTIONS and _scalar_like(right)) or (rk in _COLLECTIONS and _scalar_like(left)):
            raise TypeError(f"Bad type for argument of `@`: {type(left).__name__} @ {type(right).__name__}; "
                            "a product takes a Vector or Matrix on each side")
        return NotImplemented
    return tag(expr, "matmul", left, right)


_COLLECTIONS = ("Matrix", "Vector")


def _scalar_like(x: Any) -> bool:
    return getattr(x, "kind", None) == "Scalar" or (isinstance(x, (int, float, bool, np.generic))
                                                   and not hasattr(x, "kind"))


def ewise(kind: str, left: Any, right: Any, op: Any) -> Any:
    """``left | right`` (kind "add") or ``left & right`` (kind "mult") with operator ``op``;
    Scalars (and numbers) with a Scalar combine as Scalars; a Scalar with a Vector or Matrix
    raises TypeError, as in python-graphblas."""
    lk, rk = getattr(left, "kind", None), getattr(right, "kind", None)
    if lk not in _COLLECTIONS or rk not in _COLLECTIONS:
        if lk in _COLLECTIONS or rk in _COLLECTIONS:
            other, side = (right, "right") if lk in _COLLECTIONS else (left, "left")
            if _scalar_like(other):
                raise TypeError(
                    f"Bad type for argument `{side}` of `{'|' if kind == 'add' else '&'}`: {type(other).__name__}. "
                    f"A {lk if side == 'right' else rk} combines element-wise with a Vector or Matrix; "
                    "with a scalar use binary.plus(x, s) or x.apply(op, right=s)")
            return NotImplemented
        if (lk == "Scalar" or rk == "Scalar") and _scalar_like(left) and _scalar_like(right):
            return tag(operations.scalar_infix(kind, left, right, op), kind, left, right)
        return NotImplemented
    if lk != rk:
        expr = operations.broadcast_ewise(left, right, op, union=kind == "add")
    else:
        expr = left.ewise_add(right, op) if kind == "add" else left.ewise_mult(right, op)
    return tag(expr, kind, left, right)


def tag(expr: Any, kind: str, left: Any, right: Any) -> Any:
    """Remember how an infix expression was formed, so an operator can be applied to it."""
    expr._infix = (kind, left, right)
    return expr


def apply_operator(op: Any, expr: Any) -> Any:
    """``op(expr)`` for an infix expression: recompute it with ``op``."""
    infix = getattr(expr, "_infix", None)
    if infix is None:
        raise TypeError(
            f"Bad type when calling {op!r}.  Got type: {type(expr).__name__}.\n"
            "Expected an infix expression or an apply with a Vector or Matrix and a scalar:\n"
            f"    - {op!r}(A & B)\n    - {op!r}(A, 1)\n    - {op!r}(1, A)")
    kind, left, right = infix
    if kind != "matmul" and getattr(op, "kind", None) == "semiring":
        raise TypeError(f"Bad type when calling {op!r}: a semiring applies to a product such as {op!r}(A @ B)")
    # (A | B) | C, u @ (v @ A): the operator applies at every level of a chain of one kind.
    if (getattr(left, "_infix", None) or (None,))[0] == kind:
        left = apply_operator(op, left)
    if (getattr(right, "_infix", None) or (None,))[0] == kind:
        right = apply_operator(op, right)
    result = matmul(left, right, op) if kind == "matmul" else ewise(kind, left, right, op)
    if result is not NotImplemented:
        # its operator is given: an operator applied to a chain holding it leaves it as it is
        # (binary.plus(binary.times(A & x) & y) adds the products)
        result._infix = None
    return result


__all__ = ["matmul", "ewise", "tag", "apply_operator", "DomainMismatch"]
