"""Index arguments of extract and assign: ints, lists, arrays, slices and ``ALL``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .exceptions import IndexOutOfBound, InvalidIndex
from .limits import require_bytes


class _All:
    """Every index of a dimension (GrB_ALL)."""

    def __repr__(self) -> str:
        return "ALL"


ALL = _All()


def resolve_scalar_index(i: Any, size: int, what: str = "index") -> int:
    """One index as a Python int, checked against ``size`` (negative counts from the end)."""
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
        raise InvalidIndex(f"{what} must be an integer, not {type(i).__name__}")
    i = int(i)
    if i < 0:
        i += size
    if not 0 <= i < size:
        raise IndexOutOfBound(f"{what} {i} is out of range for size {size}")
    return i


def resolve_index(key: Any, size: int, what: str = "index") -> tuple[np.ndarray | None, bool]:
    """An index argument as (int64 NumPy array, or None for all; whether it was a scalar)."""
    if key is ALL or (isinstance(key, slice) and key == slice(None)):
        return None, False
    if isinstance(key, slice):
        return _slice_indices(key, size, what), False
    if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
        return np.array([resolve_scalar_index(key, size, what)], dtype=np.int64), True
    arr = _to_host(key)
    if arr.ndim != 1:
        raise InvalidIndex(f"{what} list must be one-dimensional, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        raise InvalidIndex(f"{what} list must hold integers, not {arr.dtype}")
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) >= size:
        raise IndexOutOfBound(f"{what} {int(arr.max())} is out of range for size {size}")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= size):
        bad = int(arr[(arr < 0) | (arr >= size)][0])
        raise IndexOutOfBound(f"{what} {bad} is out of range for size {size}")
    return arr, False


def _slice_indices(key: slice, size: int, what: str) -> np.ndarray:
    """The indices a slice selects of ``size``: memory in the selected count, not ``size``."""
    for part in (key.start, key.stop, key.step):
        if part is not None and (isinstance(part, (bool, np.bool_)) or not isinstance(part, (int, np.integer))):
            raise InvalidIndex(f"{what} slice bounds must be integers or None, not {type(part).__name__}")
    if key.step is not None and key.step == 0:
        raise InvalidIndex(f"{what} slice step cannot be zero")
    r = range(size)[key]
    require_bytes(8 * len(r), "numpy", f"the {len(r)} indices of a {what} slice")
    return np.arange(r.start, r.stop, r.step, dtype=np.int64)


def _to_host(key: Any) -> np.ndarray:
    if hasattr(key, "get") and type(key).__module__.startswith("cupy"):
        return key.get()
    if hasattr(key, "to_coo") and hasattr(key, "size"):  # a Vector of indices: its values
        return np.asarray(key.to_coo()[1])
    return np.asarray(key)
