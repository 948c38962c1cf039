"""Element-wise operations and apply on Scalars (python-graphblas's ``s.ewise_add(t)``,
``s + 1``, ``unary.abs(s)``): computed on the host from the two values."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._operations import bind_evaluator, bind_operations
from .dtypes import dtype_of_value, unify
from .exceptions import EmptyObject
from .expressions import Expression
from .operators import typed_binary
from .scalar import Scalar


def _as_scalar(x: Any) -> Scalar:
    if isinstance(x, Scalar):
        return x
    if getattr(x, "kind", None) == "Scalar" and hasattr(x, "new"):
        return x.new()
    if isinstance(x, (int, float, bool, np.generic)):
        return Scalar.from_value(x)
    raise TypeError(f"expected a Scalar, got {type(x).__name__}. Literal scalars also accepted")


def scalar_default(x: Any) -> Any:
    """A default of ``ewise_union``: a number, or a Scalar's value (an empty one raises EmptyObject)."""
    if getattr(x, "kind", None) == "Scalar":
        value = _as_scalar(x).value
        if value is None:
            raise EmptyObject("the default of ewise_union is an empty Scalar: give it a value")
        return value
    return _as_scalar(x).value


def scalar_ewise(a: Scalar, other: Any, op: Any, name: str,
                 defaults: tuple[Any, Any] | None = None) -> Expression:
    """``a op other`` for Scalars, as an expression of a Scalar."""
    b = _as_scalar(other)
    typed = typed_binary(op, unify(a.dtype, b.dtype))
    return Expression(name, "Scalar", (), typed.out_type, a._be, "scalar_ewise", (a, b), (typed, name, defaults))


def _scalar_ewise(expr: Expression, mask: Any) -> Scalar:
    """A ``scalar_ewise`` expression's result (``ewise_add``: a lone value passes through)."""
    (a, b), (typed, name, defaults) = expr.args, expr.params
    x, y = a.value, b.value
    if defaults is not None and (x is not None or y is not None):
        x = defaults[0] if x is None else x
        y = defaults[1] if y is None else y
    out = Scalar(typed.out_type, backend=a.backend)
    if x is None or y is None:
        lone = y if x is None else x
        if name == "ewise_add" and lone is not None:
            out.value = lone
        return out
    z = typed(np.asarray(x, dtype=typed.x_type.np_type), np.asarray(y, dtype=typed.y_type.np_type))
    out.value = z[()]
    return out


def _scalar_unary(expr: Expression, mask: Any) -> Scalar:
    """A ``scalar_unary`` expression's result: its unary operator on the Scalar's value."""
    (a,), (typed,) = expr.args, expr.params
    out = Scalar(typed.out_type, backend=a.backend)
    if a.value is not None:
        out.value = np.asarray(typed.np_func(np.asarray(a.value, dtype=typed.in_type.np_type)))[()]
    return out


def scalar_apply(a: Scalar, op: Any, right: Any, left: Any) -> Expression:
    """``op(a)``, ``op(a, right)`` or ``op(left, a)`` as an expression of a Scalar."""
    kind = getattr(op, "kind", None)
    if kind == "unary":
        typed = op if hasattr(op, "in_type") else op[a.dtype]
        return Expression(f"apply({typed.name})", "Scalar", (), typed.out_type, a._be, "scalar_unary", (a,), (typed,))
    bound = right if right is not None else left
    s = _as_scalar(bound) if not isinstance(bound, (int, float, bool)) else Scalar.from_value(
        bound, a.dtype if dtype_of_value(bound).is_integer == a.dtype.is_integer else None)
    return scalar_ewise(a, s, op, "ewise_mult") if right is not None else scalar_ewise(s, a, op, "ewise_mult")


def scalar_infix(kind: str, left: Any, right: Any, op: Any) -> Expression:
    """``s | t`` / ``s & t`` with Scalars or numbers (one a Scalar): ewise_add / ewise_mult."""
    a = _as_scalar(left)
    return scalar_ewise(a, right, op, "ewise_add" if kind == "add" else "ewise_mult")


bind_evaluator("scalar_ewise", _scalar_ewise)
bind_evaluator("scalar_unary", _scalar_unary)
bind_operations(scalar_ewise=scalar_ewise, scalar_default=scalar_default, scalar_apply=scalar_apply,
                scalar_infix=scalar_infix)
