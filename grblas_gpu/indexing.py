"""Index arguments of extract and assign: ints, lists, arrays, slices and ``ALL``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .exceptions import DomainMismatch, IndexOutOfBound, InvalidIndex
from .limits import require_bytes


class _All:
    """Every index of a dimension (GrB_ALL)."""

    def __repr__(self) -> str:
        return "ALL"


ALL = _All()


def resolve_scalar_index(i: Any, size: int, what: str = "index") -> int:
    """One index as a Python int, checked against ``size`` (negative counts from the end)."""
    i = _scalar_key(i)
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
    key = _scalar_key(key)
    if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
        return np.array([resolve_scalar_index(key, size, what)], dtype=np.int64), True
    if isinstance(key, tuple):  # python-graphblas's rule: a tuple is a position, never a list of indices
        raise DomainMismatch(f"Invalid type for index: {what} cannot be a tuple; use a list, an array or a slice")
    if isinstance(key, list):
        key = [_scalar_key(k) for k in key]
    arr = _to_host(key)
    if arr.ndim != 1:  # python-graphblas's class (a TypeError) and words
        raise DomainMismatch(f"Invalid number of dimensions for index: {arr.ndim}; the {what} list must be "
                             f"one-dimensional, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        raise DomainMismatch(f"Invalid dtype for index: {arr.dtype}; the {what} list must hold integers")
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) >= size:
        raise IndexOutOfBound(f"{what} {int(arr.max())} is out of range for size {size}")
    arr = arr.astype(np.int64)
    if arr.size and arr.min() < 0:  # negative indices count from the end, as Python's
        arr = np.where(arr < 0, arr + size, arr)
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


def _scalar_key(key: Any) -> Any:
    """A Scalar used as an index: its integer value (python-graphblas's ``v[Scalar(1)]``)."""
    if getattr(key, "kind", None) != "Scalar" or not hasattr(key, "dtype"):
        return key
    if not key.dtype.is_integer:
        raise DomainMismatch(f"An integer is required for indexing, got a Scalar of type {key.dtype}")
    if hasattr(key, "new") and not hasattr(key, "require_value"):
        key = key.new()
    return int(key.require_value())


def _to_host(key: Any) -> np.ndarray:
    if hasattr(key, "get") and type(key).__module__.startswith("cupy"):
        return key.get()
    if getattr(key, "kind", None) in ("Vector", "Matrix") or hasattr(key, "parent"):
        # python-graphblas's TypeError: a Vector key is not a list of indices (nor a mask)
        raise DomainMismatch(f"Invalid type for index: {type(key).__name__}. Use a list or array of indices; "
                             "mask with v(M.S)[...] or v[...](M.S)")
    return np.asarray(key)
