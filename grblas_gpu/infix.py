"""Infix forms, as in python-graphblas: ``A @ B``, ``u @ A``, ``A | B``, ``A & B``, and
an operator applied to them: ``semiring.min_plus(A @ B)``, ``binary.max(A | B)``.

``@`` is mxm / mxv / vxm / inner with plus_times, ``|`` is ewise_add with plus and
``&`` is ewise_mult with times, until an operator is applied to the expression.
"""

from __future__ import annotations

from typing import Any

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
        return NotImplemented
    return tag(expr, "matmul", left, right)


def ewise(kind: str, left: Any, right: Any, op: Any) -> Any:
    """``left | right`` (kind "add") or ``left & right`` (kind "mult") with operator ``op``."""
    if getattr(right, "kind", None) not in ("Matrix", "Vector"):
        return NotImplemented
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
        raise DomainMismatch(f"{op!r} can only be applied to an infix expression such as A @ B or A | B")
    kind, left, right = infix
    if kind == "matmul":
        return matmul(left, right, op)
    return ewise(kind, left, right, op)
