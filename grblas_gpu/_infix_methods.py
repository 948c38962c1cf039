"""Arithmetic, comparison and in-place infix operators, as python-graphblas defines them.

For two Vectors or Matrices: ``+ | ^`` are the union (ewise_add), ``-`` is ewise_union with
defaults 0, ``* / // % ** & == != < <= > >=`` are the intersection (ewise_mult).  With a
scalar on either side they apply the operator with the scalar bound (``2 * v``, ``A < 2``).
``-x`` is ``ainv``, ``abs(x)`` is ``abs``, ``~x`` (BOOL only) is ``lnot``.  ``x += y`` writes
``x + y`` into ``x`` (``x(binary.plus) << y`` when ``y`` is a Vector or Matrix of ``x``'s kind).
"""

from __future__ import annotations

from typing import Any

from ._operations import result_types
from .dtypes import BOOL
from .infix import ewise
from .operators import binary, unary


def _kind(x: Any) -> str | None:
    return getattr(x, "kind", None)


def _is_array_like(x: Any) -> bool:
    return _kind(x) in ("Matrix", "Vector")


def call_op(left: Any, right: Any, op: Any, *, outer: bool = False, union: bool = False) -> Any:
    """``left op right`` as python-graphblas computes it (see the module's docstring)."""
    Scalar = result_types.Scalar  # (the objects' class, bound as it loads)

    if _is_array_like(left):
        if _is_array_like(right):
            if outer:
                return left.ewise_add(right, op)
            if union:
                return left.ewise_union(right, op, False, False)
            return left.ewise_mult(right, op)
        if not _is_scalar_like(right):
            return NotImplemented
        return op(left, right)
    if _is_array_like(right):
        if not _is_scalar_like(left):
            return NotImplemented
        return op(left, right)
    if not (_is_scalar_like(left) and _is_scalar_like(right)):
        return NotImplemented
    a = left if isinstance(left, Scalar) or _kind(left) == "Scalar" else Scalar.from_value(left)
    if outer:
        return a.ewise_add(right, op)
    if union:
        return a.ewise_union(right, op, False, False)
    expr = a.ewise_mult(right, op)
    if isinstance(left, Scalar) and not _kind(right):
        expr._applied = (op.name, left, right)  # for select.value(s < 10)
    return expr


def _is_scalar_like(x: Any) -> bool:
    import numpy as np

    return _kind(x) == "Scalar" or isinstance(x, (int, float, bool, np.generic))


def _operator(op_name: str) -> Any:
    """``binary[name]``, or ``binary.numpy.mod`` for "numpy.mod" (python-graphblas's ``%``)."""
    if op_name.startswith("numpy."):
        return binary.numpy[op_name[6:]]  # type: ignore[attr-defined]
    return binary[op_name]


def _binary_method(op_name: str, *, outer: bool = False, union: bool = False, reflected: bool = False) -> Any:
    def method(self: Any, other: Any) -> Any:
        op = _operator(op_name)
        return call_op(other, self, op, outer=outer, union=union) if reflected else \
            call_op(self, other, op, outer=outer, union=union)

    method.__doc__ = f"``{'other' if reflected else 'self'} {op_name} ...``, as python-graphblas's infix form."
    return method


def _inplace_method(op_name: str, *, outer: bool = False, union: bool = False) -> Any:
    def method(self: Any, other: Any) -> Any:
        _writable(self, f"in-place {op_name}")
        if _kind(self) not in ("Matrix", "Vector", "Scalar") or not hasattr(self, "__lshift__"):
            raise TypeError(f"in-place {op_name} needs a Vector, Matrix or Scalar on the left, not an expression")
        expr = call_op(self, other, _operator(op_name), outer=outer, union=union)
        if expr is NotImplemented:
            return NotImplemented
        self << expr
        return self

    method.__doc__ = f"``self {op_name}= other``: the result written into ``self``."
    return method


class InfixMethods:
    """The infix operators of Vector, Matrix, Scalar and their expressions."""

    __slots__ = ()

    __add__ = _binary_method("plus", outer=True)
    __radd__ = _binary_method("plus", outer=True, reflected=True)
    __iadd__ = _inplace_method("plus", outer=True)
    __sub__ = _binary_method("minus", union=True)
    __rsub__ = _binary_method("minus", union=True, reflected=True)
    __isub__ = _inplace_method("minus", union=True)
    __mul__ = _binary_method("times")
    __rmul__ = _binary_method("times", reflected=True)
    __imul__ = _inplace_method("times")
    __truediv__ = _binary_method("truediv")
    __rtruediv__ = _binary_method("truediv", reflected=True)
    __itruediv__ = _inplace_method("truediv")
    __floordiv__ = _binary_method("floordiv")
    __rfloordiv__ = _binary_method("floordiv", reflected=True)
    __ifloordiv__ = _inplace_method("floordiv")
    __mod__ = _binary_method("numpy.mod")
    __rmod__ = _binary_method("numpy.mod", reflected=True)
    __imod__ = _inplace_method("numpy.mod")
    def __divmod__(self, other: Any) -> Any:
        """``divmod(x, y)``: ``(x // y, x % y)``, Python's floored pair."""
        return self // other, self % other  # type: ignore[operator]

    def __rdivmod__(self, other: Any) -> Any:
        return other // self, other % self  # type: ignore[operator]

    __pow__ = _binary_method("pow")
    __rpow__ = _binary_method("pow", reflected=True)
    __ipow__ = _inplace_method("pow")
    __lt__ = _binary_method("lt")
    __le__ = _binary_method("le")
    __gt__ = _binary_method("gt")
    __ge__ = _binary_method("ge")

    def __eq__(self, other: object) -> Any:  # type: ignore[override]
        """``x == y``: the element-wise comparison (an expression), as in python-graphblas;
        ``x.isequal(y)`` compares whole objects."""
        return call_op(self, other, binary.eq)

    def __ne__(self, other: object) -> Any:  # type: ignore[override]
        """``x != y``: the element-wise comparison (an expression)."""
        return call_op(self, other, binary.ne)

    __hash__ = None  # type: ignore[assignment]

    def __imatmul__(self, other: Any) -> Any:
        """``x @= A``: the product written into ``x``."""
        _writable(self, "__imatmul__")
        expr = self @ other
        if _kind(expr) != _kind(self):
            raise TypeError(f"'__imatmul__' not supported: {type(self).__name__} @ {type(other).__name__} "
                            f"gives a {_kind(expr)}, which cannot be written into a {_kind(self)}")
        self << expr  # type: ignore[operator]
        return self

    def __neg__(self) -> Any:
        return unary.ainv(self)

    def __abs__(self) -> Any:
        return unary.abs(self)

    def __invert__(self) -> Any:
        if self.dtype != BOOL:  # type: ignore[attr-defined]
            raise TypeError(f"The invert operator, `~`, is not supported for {self.dtype.name} dtype.  "  # type: ignore[attr-defined]
                            "It is only supported for BOOL dtype.")
        return unary.lnot(self)

    # ``|`` and ``&`` build infix expressions that an operator may still be applied to
    # (``monoid.max(A | B)``); without one they are the union with plus, the intersection with times.
    def __or__(self, other: Any) -> Any:
        return ewise("add", self, other, "plus")

    def __and__(self, other: Any) -> Any:
        return ewise("mult", self, other, "times")

    def __ror__(self, other: Any) -> Any:
        return ewise("add", other, self, "plus")

    def __rand__(self, other: Any) -> Any:
        return ewise("mult", other, self, "times")

    def __xor__(self, other: Any) -> Any:
        return _bool_only(call_op(self, other, binary.lxor, outer=True), "__xor__", "x ^ y", self, other)

    def __rxor__(self, other: Any) -> Any:
        return _bool_only(call_op(other, self, binary.lxor, outer=True), "__xor__", "x ^ y", self, other)

    def __ixor__(self, other: Any) -> Any:
        _writable(self, "__ixor__")
        self << _bool_only(call_op(self, other, binary.lxor, outer=True), "__ixor__", "x ^= y", self, other)  # type: ignore[operator]
        return self

    def __ior__(self, other: Any) -> Any:
        _writable(self, "__ior__")
        self << _bool_only(call_op(self, other, binary.lor, outer=True), "__ior__", "x |= y", self, other)  # type: ignore[operator]
        return self

    def __iand__(self, other: Any) -> Any:
        _writable(self, "__iand__")
        self << _bool_only(call_op(self, other, binary.land), "__iand__", "x &= y", self, other)  # type: ignore[operator]
        return self


def _writable(x: Any, name: str) -> None:
    """An in-place operator needs an object to write into: an expression raises TypeError
    (python-graphblas's words), a Scalar has no ``@=``."""
    if "Expression" in type(x).__name__ or (name == "__imatmul__" and _kind(x) == "Scalar"):
        raise TypeError(f"'{name}' not supported for {type(x).__name__}: compute it first with .new()")


def _bool_only(expr: Any, name: str, form: str, *operands: Any) -> Any:
    """``expr``, where every operand is BOOL (the logical infix operators are only for BOOL)."""
    for x in operands:
        t = getattr(x, "dtype", None)
        if t is None and isinstance(x, (int, float, complex)) and not isinstance(x, bool):
            from .dtypes import dtype_of_value

            t = dtype_of_value(x)  # a number other than True/False: not BOOL
        if t is not None and t != BOOL:
            raise TypeError(f"The {name} infix operator, `{form}`, is not supported for {t.name} dtype.  "
                            "It is only supported for BOOL dtype.")
    return expr
