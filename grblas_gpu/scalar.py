"""Scalar: a GraphBLAS scalar that holds one value or none."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._infix_methods import InfixMethods
from ._operations import bind_result_type, operations
from .backends import PicklesBackendByName, get_backend
from .dtypes import FP64, DataType, cast_scalar, dtype_of_value, lookup_dtype
from .exceptions import EmptyObject
from .expressions import Expression, Updater, parse_output_args
from .storage import ScalarStore


class Scalar(InfixMethods, PicklesBackendByName):
    """A typed value that may be empty (``value is None``).

    A reduction's result stays where it was computed: on the GPU it is read back only when
    asked for (``value``, ``bool(s)``, ...), and an ``apply`` that binds it reads it on the
    device, so a loop of algebra that passes it on does not wait for the GPU.  A
    :class:`~grblas_gpu.storage.ScalarStore` holds the value.
    """

    kind = "Scalar"
    shape: tuple[int, ...] = ()

    def __init__(self, dtype: Any = FP64, *, backend: str | None = None, name: str | None = None,
                 is_cscalar: bool = False) -> None:
        """An empty Scalar of ``dtype``; ``is_cscalar`` (python-graphblas's storage choice) is
        accepted and has no effect."""
        self._dtype = lookup_dtype(dtype)
        self._be = get_backend(backend)
        self._store = ScalarStore()
        self.name = name

    @classmethod
    def from_value(cls, value: Any, dtype: Any = None, *, backend: str | None = None,
                   name: str | None = None) -> Scalar:
        """A Scalar holding ``value`` (None gives an empty Scalar)."""
        if isinstance(value, Scalar):
            value = value.value
        t = lookup_dtype(dtype) if dtype is not None else (dtype_of_value(value) if value is not None else FP64)
        s = cls(t, backend=backend, name=name)
        if value is not None:
            s._store.set(cast_scalar(value, t))
        return s

    @property
    def _value(self) -> Any:
        """The value as a NumPy scalar (read back from the device first if held there)."""
        return self._store.read(self._be)

    def _put(self, v: Any) -> None:
        """Hold ``v``, a NumPy scalar of this Scalar's type (None: empty)."""
        self._store.set(v)

    def _hold(self, values: Any) -> None:
        """Take the value from a 1-element array of this Scalar's type on its backend, without
        reading it back."""
        self._store.hold(values)

    def _take_value(self, src: Scalar) -> None:
        """Take ``src``'s value (or emptiness), cast to this Scalar's type; a value that is on
        the device stays there."""
        held = src._on_device()
        if held is not None and src._be is self._be:
            self._hold(self._be.cast(held, self._dtype).reshape(1))
        else:
            self._set_value(src._value, src.dtype)

    def _on_device(self) -> Any:
        """The value as a 0-d backend array when it has not been read back, else None."""
        return self._store.on_device()

    @property
    def dtype(self) -> DataType:
        """The Scalar's type."""
        return self._dtype

    @property
    def backend(self) -> str:
        """The backend of the objects this Scalar works with: ``"numpy"`` or ``"cupy"``."""
        return self._be.name

    @property
    def value(self) -> Any:
        """The value as a Python number, or None when empty."""
        return None if self._value is None else self._value.item()

    @value.setter
    def value(self, v: Any) -> None:
        self._store.set(None if v is None else cast_scalar(v, self._dtype))

    @property
    def is_empty(self) -> bool:
        """True when the Scalar holds no value."""
        return self._store.is_empty

    @property
    def nvals(self) -> int:
        """1 when it holds a value, else 0."""
        return 0 if self.is_empty else 1

    def clear(self) -> None:
        """Remove the value."""
        self._store.set(None)

    def dup(self, dtype: Any = None, *, clear: bool = False, name: str | None = None, **opts: Any) -> Scalar:
        """A copy, optionally cast to ``dtype``; ``clear=True``: an empty Scalar of the type."""
        return Scalar.from_value(None if clear else self.value, dtype or self._dtype, backend=self._be.name,
                                 name=name)

    @property
    def ndim(self) -> int:
        """0: a Scalar has no dimensions."""
        return 0

    @property
    def is_cscalar(self) -> bool:
        """False: python-graphblas's storage choice (C value or GrB_Scalar) has no meaning here."""
        return False

    _is_cscalar = is_cscalar

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """``np.array(s)``: a 0-d array of the value (of the Scalar's type unless ``dtype``);
        an empty Scalar raises EmptyObject."""
        return np.array(self.require_value(), dtype=self._dtype.np_type if dtype is None else dtype)

    def wait(self, how: str = "materialize") -> Scalar:
        """Nothing is pending on a Scalar; returns it (python-graphblas's ``s.wait()``)."""
        if how not in ("materialize", "complete"):
            raise ValueError(f'`how` argument must be "materialize" or "complete"; got {how!r}')
        return self

    def ewise_add(self, other: Any, op: Any = "plus") -> Any:
        """``op(self, other)``; the lone value where only one holds a value."""
        return operations.scalar_ewise(self, other, op, "ewise_add")

    def ewise_mult(self, other: Any, op: Any = "times") -> Any:
        """``op(self, other)``; empty unless both hold a value."""
        return operations.scalar_ewise(self, other, op, "ewise_mult")

    def ewise_union(self, other: Any, op: Any, left_default: Any, right_default: Any) -> Any:
        """``op(self, other)``, an empty side taking its default; empty when both are."""
        defaults = (operations.scalar_default(left_default), operations.scalar_default(right_default))
        return operations.scalar_ewise(self, other, op, "ewise_union", defaults)

    def apply(self, op: Any, right: Any = None, *, left: Any = None) -> Any:
        """``op(value)`` (a unary operator) or ``op(value, right)`` / ``op(left, value)``."""
        return operations.scalar_apply(self, op, right, left)

    def get(self, default: Any = None) -> Any:
        """The value, or ``default`` when empty."""
        return default if self._value is None else self.value

    def require_value(self) -> Any:
        """The value; raise EmptyObject when empty."""
        if self._value is None:
            raise EmptyObject(f"Scalar {self.name or ''} is empty".replace("  ", " "))
        return self._value

    def isequal(self, other: Any, *, check_dtype: bool = False) -> bool:
        """Same emptiness and value (and type when ``check_dtype``; a Python number takes this
        Scalar's type, as in python-graphblas)."""
        other = _as_scalar_like(other, self._dtype)
        if check_dtype and other.dtype != self.dtype:
            return False
        return self.value == other.value

    def isclose(self, other: Any, *, rel_tol: float = 1e-7, abs_tol: float = 0.0, check_dtype: bool = False) -> bool:
        """Same emptiness and values within tolerance."""
        other = _as_scalar_like(other, self._dtype)
        if check_dtype and other.dtype != self.dtype:
            return False
        if self.is_empty or other.is_empty:
            return self.is_empty and other.is_empty
        return bool(np.isclose(self.value, other.value, rtol=rel_tol, atol=abs_tol, equal_nan=True))

    def __call__(self, *args: Any, mask: Any = None, accum: Any = None, replace: bool = False,
                 input_mask: Any = None) -> Any:
        """The Scalar as an output with an accumulator, for ``<<``."""
        if input_mask is not None:
            raise TypeError("input_mask not allowed for Scalars: an input mask is for an extract into a Vector or Matrix")
        if replace or any(a is True or type(a).__name__ == "_Replace" for a in args):
            raise TypeError("'replace' argument may not be True for Scalar: a Scalar has no mask to replace by")
        return Updater(self, *parse_output_args(args, mask, accum, replace))

    def __lshift__(self, value: Any) -> None:
        self().update(value)

    def update(self, value: Any) -> None:
        """Same as ``self << value``."""
        self().update(value)

    def _set_value(self, value: Any, dtype: DataType) -> None:
        self._store.set(None if value is None else cast_scalar(value, self._dtype))

    def _as_expression(self) -> Any:
        return Expression("scalar", "Scalar", (), self._dtype, self._be, "value", (), (self,))

    def __eq__(self, other: object) -> bool:  # type: ignore[override] # python-graphblas compares values
        if isinstance(other, Scalar):
            return self.isequal(other)
        if getattr(other, "kind", None) == "Scalar":
            return self.isequal(other.new())  # type: ignore[attr-defined]
        return self.value == other

    def __ne__(self, other: object) -> bool:  # type: ignore[override]
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        """The value's truth; an empty Scalar is false (as in python-graphblas)."""
        return False if self.is_empty else bool(self._value)

    def __float__(self) -> float:
        return float(self.require_value())

    def __int__(self) -> int:
        return int(self.require_value())

    def __index__(self) -> int:
        if not (self._dtype.is_integer or self._dtype.is_bool):
            # python-graphblas's class and words: an index must be integral
            raise AttributeError(f"Scalar object only has `__index__` for integral dtypes, not {self._dtype.name}")
        return int(self.require_value())

    def __repr__(self) -> str:
        return f"Scalar({self.value!r}, dtype={self._dtype})"

    def _repr_html_(self) -> str:
        return f"<div><b>Scalar</b> {self._dtype}: <code>{self.value!r}</code></div>"


def _as_scalar_like(other: Any, dtype: DataType) -> Scalar:
    """``other`` as a Scalar to compare with one of ``dtype``: a Scalar or a Scalar expression
    as it is, a Python number in ``dtype`` (a NumPy number keeps its own type)."""
    if isinstance(other, Scalar):
        return other
    if getattr(other, "kind", None) == "Scalar" and hasattr(other, "new"):
        return other.new()
    if isinstance(other, (bool, int, float)) and not isinstance(other, np.generic):
        try:
            return Scalar.from_value(other, dtype)
        except Exception:  # noqa: BLE001 - out of range for dtype: compare in its own type
            return Scalar.from_value(other)
    return Scalar.from_value(other)


bind_result_type(Scalar)
