"""python-graphblas's hypersparse exchange forms: ``A.to_dcsr()``, ``Matrix.from_dcsr(...)`` and
their column forms.  DCSR lists only the rows that hold entries: (compressed_rows, indptr,
col_indices, values), with ``indptr`` of length ``len(compressed_rows) + 1``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .dtypes import lookup_dtype


def to_dcsr(A: Any, dtype: Any = None, *, sort: bool = True) -> tuple[np.ndarray, ...]:
    """(compressed_rows, indptr, col_indices, values) as NumPy arrays (int64 indices; always
    sorted, whatever ``sort`` says)."""
    indptr, cols, vals = A.to_csr(copy=True)
    counts = np.diff(indptr)
    rows = np.flatnonzero(counts).astype(np.int64)
    ptr = np.concatenate([[0], np.cumsum(counts[rows])]).astype(np.int64)
    if dtype is not None:
        vals = vals.astype(lookup_dtype(dtype).np_type)
    return rows, ptr, cols, vals


def to_dcsc(A: Any, dtype: Any = None, *, sort: bool = True) -> tuple[np.ndarray, ...]:
    """(compressed_cols, indptr, row_indices, values): the DCSR of the transpose."""
    return to_dcsr(A.T.new(), dtype, sort=sort)


def from_dcsr(cls: Any, compressed_rows: Any, indptr: Any, col_indices: Any, values: Any = 1.0,
              nrows: int | None = None, ncols: int | None = None, *, dtype: Any = None,
              backend: str | None = None, name: str | None = None) -> Any:
    """A Matrix from DCSR arrays; ``nrows`` defaults to the last listed row + 1, ``ncols`` to
    the largest column + 1 (0 when there are none)."""
    rows, cols = _expanded(compressed_rows, indptr, col_indices)
    nrows = _extent(nrows, compressed_rows)
    ncols = _extent(ncols, cols)
    return cls.from_coo(rows, cols, values, nrows=nrows, ncols=ncols, dtype=dtype, backend=backend, name=name)


def from_dcsc(cls: Any, compressed_cols: Any, indptr: Any, row_indices: Any, values: Any = 1.0,
              nrows: int | None = None, ncols: int | None = None, *, dtype: Any = None,
              backend: str | None = None, name: str | None = None) -> Any:
    """A Matrix from DCSC arrays (the column form of :func:`from_dcsr`)."""
    cols, rows = _expanded(compressed_cols, indptr, row_indices)
    ncols = _extent(ncols, compressed_cols)
    nrows = _extent(nrows, rows)
    return cls.from_coo(rows, cols, values, nrows=nrows, ncols=ncols, dtype=dtype, backend=backend, name=name)


def _expanded(compressed: Any, indptr: Any, minor: Any) -> tuple[np.ndarray, np.ndarray]:
    from .exceptions import InvalidValue

    major = np.asarray(compressed, dtype=np.int64)
    ptr = np.asarray(indptr, dtype=np.int64)
    minor = np.asarray(minor, dtype=np.int64)
    if ptr.ndim != 1 or len(ptr) != len(major) + 1 or (len(ptr) and (ptr[0] != 0 or ptr[-1] != len(minor))):
        raise InvalidValue(f"indptr must have {len(major) + 1} entries from 0 to {len(minor)}")
    counts = np.diff(ptr)
    if counts.size and counts.min() < 0:
        raise InvalidValue("indptr must not decrease")
    return np.repeat(major, counts), minor


def _extent(given: int | None, indices: Any) -> int:
    if given is not None:
        return given
    arr = np.asarray(indices)
    return int(arr.max()) + 1 if arr.size else 0
