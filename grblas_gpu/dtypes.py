"""The built-in GraphBLAS types and C-style casting between them.

A :class:`DataType` can be named by a ``DataType``, a NumPy dtype, a string
(``"FP64"``, ``"float64"``, ``"int32"``, ``"bool"``) or a Python type
(``bool``, ``int`` -> INT64, ``float`` -> FP64).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .exceptions import DomainMismatch

__all__ = [
    "DataType",
    "BOOL",
    "INT8",
    "INT16",
    "INT32",
    "INT64",
    "UINT8",
    "UINT16",
    "UINT32",
    "UINT64",
    "FP32",
    "FP64",
    "ALL_TYPES",
    "lookup_dtype",
    "unify",
]


@dataclass(frozen=True)
class DataType:
    """A GraphBLAS built-in type: its GraphBLAS name, NumPy dtype and CUDA C type."""

    name: str
    np_type: np.dtype
    c_type: str

    # python-graphblas's flag for user-defined (record) types, which are not provided here.
    _is_udt = False

    @property
    def is_bool(self) -> bool:
        """True for BOOL."""
        return self.np_type.kind == "b"

    @property
    def is_float(self) -> bool:
        """True for FP32 and FP64."""
        return self.np_type.kind == "f"

    @property
    def is_signed(self) -> bool:
        """True for the signed integer types."""
        return self.np_type.kind == "i"

    @property
    def is_unsigned(self) -> bool:
        """True for the unsigned integer types."""
        return self.np_type.kind == "u"

    @property
    def is_integer(self) -> bool:
        """True for signed and unsigned integer types (not BOOL)."""
        return self.np_type.kind in "iu"

    @property
    def itemsize(self) -> int:
        """Size of one value in bytes."""
        return self.np_type.itemsize

    @property
    def min(self) -> Any:
        """Smallest value (``-inf`` for floats, ``False`` for BOOL)."""
        if self.is_bool:
            return False
        if self.is_float:
            return -np.inf
        return np.iinfo(self.np_type).min

    @property
    def max(self) -> Any:
        """Largest value (``+inf`` for floats, ``True`` for BOOL)."""
        if self.is_bool:
            return True
        if self.is_float:
            return np.inf
        return np.iinfo(self.np_type).max

    def __eq__(self, other: object) -> bool:
        # The dataclass's comparison of field tuples, with the identity test first: the types
        # are the module's constants, compared several times per statement.
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            # As in python-graphblas: a type equals what names it ("FP64", float, np.float64).
            if isinstance(other, (str, type, np.dtype)):
                try:
                    return lookup_dtype(other) is self
                except DomainMismatch:
                    return False
            return NotImplemented
        return (self.name, self.np_type, self.c_type) == (other.name, other.np_type, other.c_type)

    def __hash__(self) -> int:
        # The name alone: equal types have equal names, and a string keeps its hash (the
        # dataclass's would hash the NumPy dtype each time, in cache keys of every statement).
        return hash(self.name)

    def __repr__(self) -> str:
        return self.name

    def __str__(self) -> str:
        return self.name


BOOL = DataType("BOOL", np.dtype(np.bool_), "bool")
INT8 = DataType("INT8", np.dtype(np.int8), "int8_t")
INT16 = DataType("INT16", np.dtype(np.int16), "int16_t")
INT32 = DataType("INT32", np.dtype(np.int32), "int32_t")
INT64 = DataType("INT64", np.dtype(np.int64), "int64_t")
UINT8 = DataType("UINT8", np.dtype(np.uint8), "uint8_t")
UINT16 = DataType("UINT16", np.dtype(np.uint16), "uint16_t")
UINT32 = DataType("UINT32", np.dtype(np.uint32), "uint32_t")
UINT64 = DataType("UINT64", np.dtype(np.uint64), "uint64_t")
FP32 = DataType("FP32", np.dtype(np.float32), "float")
FP64 = DataType("FP64", np.dtype(np.float64), "double")

ALL_TYPES: tuple[DataType, ...] = (
    BOOL, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, FP32, FP64,
)

_BY_NUMPY = {t.np_type: t for t in ALL_TYPES}
_BY_NAME: dict[str, DataType] = {}
for _t in ALL_TYPES:
    _BY_NAME[_t.name] = _t
    _BY_NAME[_t.name.lower()] = _t
    _BY_NAME[_t.np_type.name] = _t
_BY_NAME.update({"float": FP64, "int": INT64, "double": FP64, "bool_": BOOL})


def lookup_dtype(dtype: Any) -> DataType:
    """Return the :class:`DataType` named by ``dtype``; raise DomainMismatch if none is."""
    if isinstance(dtype, DataType):
        return dtype
    if dtype is bool:
        return BOOL
    if dtype is int:
        return INT64
    if dtype is float:
        return FP64
    if isinstance(dtype, str):
        found = _BY_NAME.get(dtype) or _BY_NAME.get(dtype.lower())
        if found is not None:
            return found
    try:
        np_dtype = np.dtype(dtype)
    except Exception:  # noqa: BLE001 - np.dtype raises TypeError, ValueError, even SyntaxError ("0123")
        np_dtype = None
    if np_dtype is not None and np_dtype in _BY_NUMPY:
        return _BY_NUMPY[np_dtype]
    raise DomainMismatch(
        f"unsupported type {dtype!r}: use one of "
        + ", ".join(t.name for t in ALL_TYPES)
        + " (as a name, a NumPy dtype or bool/int/float)"
    )


_UNIFIED: dict[tuple[DataType, DataType], DataType] = {}  # unify's answers (a statement's product asks once)


def unify(a: DataType, b: DataType) -> DataType:
    """The type in which an operator on ``a`` and ``b`` values computes (NumPy promotion).

    uint64 with a signed type promotes to FP64 as in NumPy; BOOL with BOOL stays BOOL.
    """
    if a is b or a == b:
        return a
    found = _UNIFIED.get((a, b))
    if found is None:
        found = _UNIFIED[(a, b)] = lookup_dtype(np.promote_types(a.np_type, b.np_type))
    return found


def dtype_of_value(value: Any) -> DataType:
    """The type a Python or NumPy scalar value naturally has."""
    if isinstance(value, (bool, np.bool_)):
        return BOOL
    if isinstance(value, np.generic):
        return lookup_dtype(value.dtype)
    if isinstance(value, int):
        if not -(2**63) <= value < 2**64:
            raise DomainMismatch(f"integer {value} fits no GraphBLAS type (INT64 or UINT64)")
        return INT64 if value < 2**63 else UINT64
    if isinstance(value, float):
        return FP64
    raise DomainMismatch(f"value {value!r} of type {type(value).__name__} is not a GraphBLAS scalar")


def cast_scalar(value: Any, dtype: DataType) -> Any:
    """Cast one value to ``dtype`` C-style (floats truncate toward zero; nonzero is true)."""
    if getattr(value, "kind", None) == "Scalar" and hasattr(value, "require_value"):
        value = value.require_value()  # a Scalar given where a number is expected
    exact = _cast_exact(value, dtype)
    if exact is not None:
        return exact
    arr = np.asarray(value)
    if arr.ndim != 0 or arr.dtype.kind not in "biuf":
        raise DomainMismatch(f"Bad type for argument `value`: {value!r} is not a number that can be cast to {dtype}")
    if arr.dtype.kind == "f" and dtype.is_integer:
        if not np.isfinite(arr):
            return np.array(0 if np.isnan(arr) else (dtype.max if arr > 0 else dtype.min), dtype.np_type)[()]
        arr = np.trunc(arr)
        if arr > dtype.max:
            return np.array(dtype.max, dtype.np_type)[()]
        if arr < dtype.min:
            return np.array(dtype.min, dtype.np_type)[()]
    with np.errstate(all="ignore"):
        return arr.astype(dtype.np_type)[()]


# The range of each integer type, and the Python ints each float type holds exactly.
_INT_RANGE = {t.np_type: (int(np.iinfo(t.np_type).min), int(np.iinfo(t.np_type).max))
              for t in ALL_TYPES if t.is_integer}
_EXACT_INT_LIMIT = {t.np_type: 2 ** (np.finfo(t.np_type).nmant + 1) for t in ALL_TYPES if t.is_float}
_FP32_MAX = float(np.finfo(np.float32).max)


def _cast_exact(value: Any, dtype: DataType) -> Any:
    """What :func:`cast_scalar` gives, for the common values whose cast has one possible
    result without NumPy's 0-d array path; None for every other value.

    NumPy's general path costs a few microseconds (an array, ``np.errstate``), paid per
    statement of a graph loop (``levels(frontier.S) << depth``)."""
    np_type = dtype.np_type
    cls = type(value)
    if cls is np_type.type:  # already a NumPy scalar of the type
        return value
    if cls is bool:
        return np_type.type(value)
    if cls is int:
        return _cast_int(value, np_type)
    if cls is float:
        return _cast_float(value, np_type)
    if isinstance(value, np.generic) and value.dtype.kind in "biu":
        return value.astype(np_type)  # the cast of a 0-d array, which never warns from these kinds
    return None


def _cast_int(value: int, np_type: np.dtype) -> Any:
    """A Python int cast to ``np_type`` where the result is exact, else None.

    Beyond the exact range NumPy casts from int64 to the float type directly, whereas
    ``np.float32(value)`` rounds through a Python float first: the two may differ."""
    if np_type.kind in "iu":
        low, high = _INT_RANGE[np_type]
        return np_type.type(value) if low <= value <= high else None
    if np_type.kind == "b":
        return np.bool_(value != 0) if -(2**63) <= value < 2**64 else None
    return np_type.type(value) if abs(value) <= _EXACT_INT_LIMIT[np_type] else None


def _cast_float(value: float, np_type: np.dtype) -> Any:
    """A Python float cast to a float type (rounded once, as by NumPy's cast); None for the
    other types, and where FP32 overflows from a finite value (NumPy's cast warns there)."""
    if np_type.kind != "f" or (np_type.itemsize == 4 and _FP32_MAX < abs(value) < math.inf):
        return None
    return np_type.type(value)
