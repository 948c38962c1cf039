"""COO helpers shared by the readers: the parsed form, duplicates, symmetrising, building a Matrix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dtypes import DataType, lookup_dtype
from ._text import cast_values

if TYPE_CHECKING:  # the Matrix class is imported lazily: this package loads without it
    from ..matrix import Matrix

__all__ = ["Coo", "keep_first", "mirror", "find_duplicate", "has_duplicates", "build_matrix", "map_ids"]


@dataclass
class Coo:
    """A matrix as plain NumPy arrays: 0-based ``rows``/``cols`` (int64), ``values`` of ``dtype``."""

    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    nrows: int
    ncols: int
    dtype: DataType

    @property
    def nvals(self) -> int:
        """Number of stored entries."""
        return len(self.rows)

    def cast(self, dtype: Any) -> Coo:
        """The same entries with values cast C-style to ``dtype`` (self when already of it)."""
        if dtype is None:
            return self
        t = lookup_dtype(dtype)
        if t == self.dtype:
            return self
        return Coo(self.rows, self.cols, cast_values(self.values, t), self.nrows, self.ncols, t)


def mirror(
    rows: np.ndarray, cols: np.ndarray, values: np.ndarray, order: np.ndarray | None, *, negate: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Add (j, i) for every off-diagonal (i, j); ``order`` (e.g. line numbers, or None) follows the copies."""
    off = rows != cols
    mirrored = -values[off] if negate else values[off]
    return (
        np.concatenate([rows, cols[off]]),
        np.concatenate([cols, rows[off]]),
        np.concatenate([values, mirrored]),
        None if order is None else np.concatenate([order, order[off]]),
    )


def _sorted_groups(rows: np.ndarray, cols: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A permutation sorting by (row, col, order), and a mask of each group's first element."""
    perm = np.lexsort((order, cols, rows))
    r, c = rows[perm], cols[perm]
    first = np.ones(len(perm), dtype=bool)
    first[1:] = (r[1:] != r[:-1]) | (c[1:] != c[:-1])
    return perm, first


def keep_first(
    rows: np.ndarray, cols: np.ndarray, values: np.ndarray, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Drop repeated (row, col) pairs, keeping the one with the smallest ``order`` (first in the file)."""
    if len(rows) < 2:
        return rows, cols, values
    perm, first = _sorted_groups(rows, cols, order)
    keep = perm[first]
    return rows[keep], cols[keep], values[keep]


def _strictly_increasing(key: np.ndarray) -> bool:
    return bool(np.all(key[1:] > key[:-1]))


def has_duplicates(rows: np.ndarray, cols: np.ndarray, nrows: int, ncols: int, *, by_column: bool = True) -> bool:
    """True when some (row, col) pair repeats.  O(n) for entries sorted by row (or by column,
    when ``by_column``: Matrix Market files are often written column by column)."""
    if len(rows) < 2:
        return False
    if nrows * ncols >= 2**62:
        return find_duplicate(rows, cols, np.arange(len(rows))) is not None
    by_row = rows * ncols
    by_row += cols  # (in place: one key array, not two)
    if _strictly_increasing(by_row):
        return False
    if by_column:
        by_col = cols * nrows
        by_col += rows
        if _strictly_increasing(by_col):
            return False
        del by_col
    by_row.sort()
    return bool(np.any(by_row[1:] == by_row[:-1]))


def find_duplicate(rows: np.ndarray, cols: np.ndarray, order: np.ndarray) -> tuple[int, int, int, int] | None:
    """The earliest repeated entry as ``(row, col, order_of_first, order_of_repeat)``, or None."""
    if len(rows) < 2:
        return None
    perm, first = _sorted_groups(rows, cols, order)
    repeats = np.flatnonzero(~first)
    if len(repeats) == 0:
        return None
    k = repeats[np.argmin(order[perm[repeats]])]
    start = k
    while not first[start]:
        start -= 1
    p, q = perm[start], perm[k]
    return int(rows[q]), int(cols[q]), int(order[p]), int(order[q])


def map_ids(ids: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of ``wanted`` in the sorted ``ids``, and a mask of those not found."""
    pos = np.searchsorted(ids, wanted)
    pos_clipped = np.minimum(pos, max(len(ids) - 1, 0))
    missing = (pos >= len(ids)) | (ids[pos_clipped] != wanted) if len(ids) else np.ones(len(wanted), bool)
    return pos_clipped.astype(np.int64), missing


def build_matrix(coo: Coo, *, dtype: Any = None, dup_op: Any = None, backend: str | None = None) -> Matrix:
    """A :class:`~grblas_gpu.matrix.Matrix` from ``coo`` (values cast C-style to ``dtype`` if given).

    Entries that come sorted by row (or by column, as Matrix Market files are often written),
    without repeats, become the CSR (or CSC) by one counting pass: no sort.  Others go
    through ``Matrix.from_coo``, which sorts them.
    """
    from ..matrix import Matrix

    coo = coo.cast(dtype)
    compressed = _compressed(coo)
    if compressed is not None:
        ptr, idx, by_row = compressed
        build = Matrix.from_csr if by_row else Matrix.from_csc
        return build(ptr, idx, coo.values, coo.ncols if by_row else coo.nrows, dtype=coo.dtype, backend=backend)
    return Matrix.from_coo(
        coo.rows,
        coo.cols,
        coo.values,
        nrows=coo.nrows,
        ncols=coo.ncols,
        dtype=coo.dtype,
        dup_op=dup_op,
        backend=backend,
    )


def _compressed(coo: Coo) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """(pointers, indices, True) of the CSR when ``coo``'s entries are sorted by row and then
    column with no repeat, (pointers, indices, False) of the CSC when sorted by column and
    then row; None otherwise (or where pointers would outnumber the entries by far)."""
    rows, cols, n = coo.rows, coo.cols, coo.nvals
    if n < 2 or coo.nrows * coo.ncols >= 2**62:
        return None
    for major, minor, n_major, n_minor, by_row in ((rows, cols, coo.nrows, coo.ncols, True),
                                                   (cols, rows, coo.ncols, coo.nrows, False)):
        if n_major > 8 * n + 2**20:
            continue
        key = major * n_minor
        key += minor
        if bool(np.all(key[1:] > key[:-1])):
            del key
            ptr = np.zeros(n_major + 1, dtype=np.int64)
            np.cumsum(np.bincount(major, minlength=n_major), out=ptr[1:])
            return ptr, minor.astype(np.int32) if n_minor < 2**31 else minor, by_row
    return None
