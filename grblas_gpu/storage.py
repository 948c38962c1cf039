"""Building sorted, duplicate-free storage from user-given coordinates and values."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _sparse as sp
from .backends import get_backend
from .dtypes import DataType, cast_scalar, dtype_of_value, lookup_dtype
from .exceptions import DimensionMismatch, IndexOutOfBound, InvalidIndex, InvalidValue
from .operators import TypedBinaryOp, catalog, get_binary, typed_binary


_HOST_BUILD_MAX = 1 << 16  # entries; larger inputs are sorted on the object's own backend


def building_backend(be: Any, *inputs: Any) -> Any:
    """The backend to validate, sort and deduplicate user input on: the CPU when every input
    is a small host object (a few NumPy calls instead of a dozen kernel launches and read
    backs; a BFS source is one entry), else ``be``.  The result is moved to ``be`` after."""
    if be.name == "numpy":
        return be
    on_host = all(not hasattr(x, "__cuda_array_interface__") and np.size(x) <= _HOST_BUILD_MAX for x in inputs)
    return get_backend("numpy") if on_host else be


def host_array(be: Any, x: Any, dtype: Any, what: str) -> Any:
    """``x`` as a 1-D integer array of the backend, validated."""
    arr = be.asarray(x)
    if arr.ndim != 1:
        raise InvalidIndex(f"{what} must be one-dimensional, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and bool(be.xp.all(arr == be.xp.trunc(arr))):
            return arr.astype(dtype)
        raise InvalidIndex(f"{what} must be integers, not {arr.dtype}")
    return arr.astype(dtype, copy=False)


def infer_dtype(values: Any, dtype: Any) -> DataType:
    """The type of new entries: ``dtype`` if given, else that of ``values``."""
    if dtype is not None:
        return lookup_dtype(dtype)
    if hasattr(values, "require_value"):  # a Scalar
        return values.dtype
    if isinstance(values, (bool, int, float, np.generic)):
        return dtype_of_value(values)
    return lookup_dtype(np.asarray(values).dtype if not hasattr(values, "dtype") else values.dtype)


def build_entries(be: Any, coords: list[Any], dims: list[int], values: Any, t: DataType,
                  dup_op: Any) -> tuple[Any, ...]:
    """Validate, sort and deduplicate coordinates; returns (*sorted coords, values).

    Duplicates are an error unless ``dup_op`` combines them (in input order).
    """
    xp = be.xp
    n = len(coords[0])
    for c, d, name in zip(coords, dims, ("index", "column") if len(coords) == 2 else ("index",)):
        if len(c) != n:
            raise DimensionMismatch(f"coordinate arrays have different lengths ({n} and {len(c)})")
        if n and (int(c.min()) < 0 or int(c.max()) >= d):
            bad = int(c[(c < 0) | (c >= d)][0])
            label = "row" if len(coords) == 2 and c is coords[0] else name
            raise IndexOutOfBound(f"{label} {bad} is out of range for dimension {d}")
    vals = _values_array(be, values, n, t)
    if n < 2:  # nothing to sort or combine (a BFS source); copies, as the sorted path makes
        return (*[c.astype(np.int64) for c in coords], vals.copy())
    if len(coords) == 1:
        order = sp.lexsort_pairs(xp, xp.zeros(n, dtype=np.int64), coords[0], stable_ties=True)
    else:
        order = sp.lexsort_pairs(xp, coords[0], coords[1], stable_ties=True)
    coords = [c[order].astype(np.int64) for c in coords]
    vals = vals[order]
    dup = xp.ones(n - 1, dtype=bool)
    for c in coords:
        dup &= c[1:] == c[:-1]
    if not bool(dup.any()):
        return (*coords, vals)
    if dup_op is None:
        first = int(xp.flatnonzero(dup)[0])
        where = tuple(int(c[first]) for c in coords)
        raise InvalidValue(f"duplicate entry at {where[0] if len(where) == 1 else where}; pass dup_op= to combine duplicates")
    return _combine_duplicates(be, coords, vals, dup, t, dup_op)


def _values_array(be: Any, values: Any, n: int, t: DataType) -> Any:
    xp = be.xp
    if hasattr(values, "require_value"):
        values = values.require_value()
    if isinstance(values, (bool, int, float, np.generic)):
        return xp.full(n, cast_scalar(values, t), dtype=t.np_type)
    arr = be.asarray(exact_list(values, t))
    if arr.ndim != 1 or len(arr) != n:
        raise DimensionMismatch(f"values must be a scalar or a 1-D array of length {n}, got shape {arr.shape}")
    return be.cast(arr, t)


def exact_list(values: Any, t: DataType) -> Any:
    """A Python list of ints as an array of integer type ``t`` directly (NumPy alone would
    pass ``[2**53 + 1, 2**64 - 2]`` through float64 and lose digits)."""
    if t.is_integer and isinstance(values, (list, tuple)) and all(isinstance(v, int) for v in values):
        try:
            return np.array(values, dtype=t.np_type)
        except OverflowError:
            return values
    return values


def _combine_duplicates(be: Any, coords: list[Any], vals: Any, dup: Any, t: DataType, dup_op: Any) -> tuple[Any, ...]:
    xp = be.xp
    n = len(vals)
    flag = xp.ones(n, dtype=bool)
    flag[1:] = ~dup
    starts = xp.flatnonzero(flag).astype(np.int64)
    offsets = xp.concatenate([starts, xp.asarray([n], dtype=np.int64)])
    typed = typed_binary(dup_op, t)
    out_coords = [c[starts] for c in coords]
    if typed.name == "first":
        return (*out_coords, vals[starts])
    if typed.name == "second":
        return (*out_coords, vals[offsets[1:] - 1])
    mon = catalog.MONOID.get(typed.name)
    builtin = not isinstance(dup_op, TypedBinaryOp) and mon is not None and mon.binop is get_binary(dup_op)
    if builtin and typed.out_type == t and typed.x_type == t:
        return (*out_coords, be.segment_reduce(mon[t], vals, offsets))
    return (*out_coords, _left_fold(be, typed, vals, offsets, t))


def _left_fold(be: Any, op: Any, vals: Any, offsets: Any, t: DataType) -> Any:
    """Fold each segment left to right with a (maybe non-associative) operator."""
    xp = be.xp
    starts, counts = offsets[:-1], offsets[1:] - offsets[:-1]
    acc = vals[starts]
    for r in range(1, int(counts.max())):
        live = xp.flatnonzero(counts > r)
        acc[live] = be.cast(be.binary(op, be.cast(acc[live], op.x_type), be.cast(vals[starts[live] + r], op.y_type)), t)
    return acc
