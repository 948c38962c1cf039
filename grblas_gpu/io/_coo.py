"""COO helpers shared by the readers: the parsed form, duplicates, symmetrising, building a Matrix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dtypes import DataType, lookup_dtype
from ._text import cast_values

if TYPE_CHECKING:  # the Matrix class is imported lazily: this package loads without it
    from ..matrix import Matrix

__all__ = ["Coo", "keep_first", "mirror", "find_duplicate", "has_duplicates", "build_matrix", "map_ids",
           "sort_row_major", "sorted_coo", "Compressed", "compress", "matrix_of"]


@dataclass
class Coo:
    """A matrix as plain NumPy arrays: 0-based ``rows``/``cols`` (int64), ``values`` of ``dtype``."""

    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    nrows: int
    ncols: int
    dtype: DataType
    #: True when the entries are known sorted by row, then column, without repeats.
    row_major: bool = False

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
        return Coo(self.rows, self.cols, cast_values(self.values, t), self.nrows, self.ncols, t, self.row_major)


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
    """True when ``key`` strictly increases; its head is looked at first (an unsorted array
    usually fails there, without a pass over all of it)."""
    head = key[:4096]
    if not bool(np.all(head[1:] > head[:-1])):
        return False
    return bool(np.all(key[1:] > key[:-1]))


def _keys_increase(major: np.ndarray, minor: np.ndarray, n_minor: int) -> np.ndarray | None:
    """The keys of ``(major, minor)`` (:func:`_row_major_keys`) when they strictly increase, else
    None (made only where their head increases)."""
    if not _strictly_increasing(_row_major_keys(major[:4096], minor[:4096], n_minor)):
        return None
    key = _row_major_keys(major, minor, n_minor)
    return key if _strictly_increasing(key) else None


def has_duplicates(rows: np.ndarray, cols: np.ndarray, nrows: int, ncols: int, *, by_column: bool = True) -> bool:
    """True when some (row, col) pair repeats.  O(n) for entries sorted by row (or by column,
    when ``by_column``: Matrix Market files are often written column by column)."""
    if len(rows) < 2:
        return False
    if not keys_fit(nrows, ncols):
        return find_duplicate(rows, cols, np.arange(len(rows))) is not None
    by_row = _row_major_keys(rows, cols, ncols)
    if _strictly_increasing(by_row):
        return False
    if by_column and _keys_increase(cols, rows, nrows) is not None:
        return False
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
    """Positions of ``wanted`` in the sorted ``ids``, and a mask of those not found (their
    positions are of no use).

    Where the ids span no more than a few times as many numbers as there are ids and wanted
    ones, through a table of every id's position (a binary search per wanted id misses the
    cache at every step: 0.55 s for 2 M among 1 M ids, against 0.02 s)."""
    top = int(ids[-1]) if len(ids) else 0
    if ids.dtype == np.int64 and wanted.dtype == np.int64 and len(ids) and ids[0] >= 0 \
            and top < 4 * (len(ids) + len(wanted)) + 1024:
        table = np.full(top + 2, -1, dtype=np.int64)  # (the last place: every id past ``top``)
        table[ids] = np.arange(len(ids), dtype=np.int64)
        pos = table.take(np.clip(wanted, -1, top + 1))  # (-1: the last place too)
        missing = pos < 0
        return np.maximum(pos, 0), missing
    pos = np.searchsorted(ids, wanted)
    pos_clipped = np.minimum(pos, max(len(ids) - 1, 0))
    missing = (pos >= len(ids)) | (ids[pos_clipped] != wanted) if len(ids) else np.ones(len(wanted), bool)
    return pos_clipped.astype(np.int64), missing


def _bits(n: int) -> int:
    """The bits that hold every index below ``n``."""
    return max(n - 1, 1).bit_length()


def keys_fit(nrows: int, ncols: int) -> bool:
    """Whether the keys of :func:`_row_major_keys` fit 62 bits for this shape."""
    return _bits(nrows) + _bits(ncols) <= 62


def _row_major_keys(rows: np.ndarray, cols: np.ndarray, ncols: int) -> np.ndarray:
    """``row << b | col`` of every entry, ``b`` the bits of a column index (a fresh int64 array):
    ordered as ``row * ncols + col``, and split again by a shift and a mask, not a division."""
    key = rows.astype(np.int64)
    key <<= _bits(ncols)
    key |= cols
    return key


def _int64(a: np.ndarray) -> np.ndarray:
    return a.astype(np.int64, copy=False)


def _increasing(key: np.ndarray) -> bool:
    return len(key) < 2 or _strictly_increasing(key)


def sort_row_major(
    rows: np.ndarray, cols: np.ndarray, nrows: int, ncols: int, order: np.ndarray | None = None, *,
    track: bool = True, key: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray | None] | None:
    """The keys ``row << b | col`` (:func:`_row_major_keys`) in increasing order, equal keys in
    increasing ``order`` (default: the entries' positions), and the ``order`` of each sorted entry.

    The second part is None where ``track`` is off (the values are all alike, so only the
    keys matter).  Where key and order fit 64
    bits together, one sort of words packing the key above the order does it: NumPy sorts
    plain integers several times faster than it argsorts them.  None where the keys do not
    fit int64.  ``key`` is the entries' keys if already made (it is sorted in place).
    """
    n = len(rows)
    if not keys_fit(nrows, ncols):
        return None
    key = _row_major_keys(rows, cols, ncols) if key is None else key
    if not track:
        key.sort()
        return key, None
    src = np.arange(n, dtype=np.int64) if order is None else order
    shift = max(int(src.max()) if n else 0, 1).bit_length()
    if _bits(nrows) + _bits(ncols) + shift <= 64:
        packed = key.view(np.uint64)  # keys and order are >= 0: the same bits
        packed <<= np.uint64(shift)
        packed |= src.view(np.uint64) if src.dtype == np.int64 else src.astype(np.uint64)
        packed.sort()
        sorted_src = (packed & np.uint64((1 << shift) - 1)).view(np.int64)
        packed >>= np.uint64(shift)
        return packed.view(np.int64), sorted_src
    perm = np.lexsort((src, key))
    return key[perm], src[perm]


def sorted_coo(
    rows: np.ndarray, cols: np.ndarray, values: np.ndarray, nrows: int, ncols: int, dtype: DataType,
    order: np.ndarray | None = None, *, constant: bool = False, key: np.ndarray | None = None,
) -> tuple[Coo, bool] | None:
    """The entries sorted by row, then column, each repeat dropped but the first (smallest
    ``order``, default position), and whether there was a repeat.

    ``values[k]`` is the value of the entries whose ``order`` is ``k`` (``order`` None: of
    entry ``k``); ``constant`` says they are all alike (none is moved).  None where the
    keys do not fit int64, or where the rows outnumber the entries by far (a CSR would be
    mostly pointers).
    """
    n = len(rows)
    if n == 0 or nrows > 8 * n + 2**20 or not keys_fit(nrows, ncols):
        return None
    key = _row_major_keys(rows, cols, ncols) if key is None else key
    if _increasing(key):  # already in order, no repeat: nothing moves
        del key
        values = values if order is None else values.take(order)
        return Coo(_int64(rows), _int64(cols), values, nrows, ncols, dtype, row_major=True), False
    found = sort_row_major(rows, cols, nrows, ncols, order, track=not constant, key=key)
    if found is None:
        return None
    keys, src = found
    new = keys[1:] != keys[:-1]
    repeats = not bool(new.all())
    if repeats:
        keep = np.concatenate(([True], new))
        keys = keys[keep]
        src = None if src is None else src[keep]
    del new
    if constant:
        values = np.full(len(keys), values[0], dtype=values.dtype)
    elif src is not None:
        values = values.take(src)
    r = keys >> _bits(ncols)
    keys &= (1 << _bits(ncols)) - 1
    return Coo(r, keys, values, nrows, ncols, dtype, row_major=True), repeats


@dataclass
class Compressed:
    """Entries as CSR (``by_row``) or CSC: ``ptr``, ``idx`` (int32 where it fits), ``values``."""

    ptr: np.ndarray
    idx: np.ndarray
    values: np.ndarray
    by_row: bool


def compress(coo: Coo, *, constant: bool = False) -> Compressed | bool:
    """The CSR of ``coo`` (its CSC where the entries come sorted by column), or True when
    some entry repeats, False where neither is told (keys wider than int64, or far more rows
    than entries: :meth:`Matrix.from_coo` handles those).

    Entries sorted by row (or by column, as Matrix Market files are often written) become
    the CSR (CSC) by one counting pass; others are sorted first by one sort of packed keys
    (:func:`sort_row_major`; ``constant`` says the values are all alike, so none is moved).
    """
    if coo.row_major:
        return Compressed(_pointers(coo.rows, coo.nrows), _narrow(coo.cols, coo.ncols), coo.values, True)
    found = _compressed(coo)
    if isinstance(found, tuple):
        ptr, idx, by_row = found
        return Compressed(ptr, idx, coo.values, by_row)
    result = sorted_coo(coo.rows, coo.cols, coo.values, coo.nrows, coo.ncols, coo.dtype, constant=constant,
                        key=found)
    if result is None:
        return False
    if result[1]:
        return True
    return compress(result[0])


def matrix_of(c: Compressed, coo: Coo, backend: str | None) -> Matrix:
    """The Matrix holding ``c`` (of ``coo``'s shape and type).

    On the CPU a CSR the readers made (sorted, no repeat, their own arrays) is held as it is:
    ``from_csr``'s pass that checks a caller's arrays is not made again."""
    from ..backends import get_backend
    from ..matrix import Matrix

    if c.by_row:
        be = get_backend(backend)
        if be.xp is np:
            return Matrix._from_csr_parts(be, coo.dtype, coo.nrows, coo.ncols, c.ptr, c.idx, c.values)
        return Matrix.from_csr(c.ptr, c.idx, c.values, coo.ncols, dtype=coo.dtype, backend=backend)
    return Matrix.from_csc(c.ptr, c.idx, c.values, coo.nrows, dtype=coo.dtype, backend=backend)


def build_matrix(coo: Coo, *, dtype: Any = None, dup_op: Any = None, backend: str | None = None,
                 constant: bool = False) -> Matrix:
    """A :class:`~grblas_gpu.matrix.Matrix` from ``coo`` (values cast C-style to ``dtype`` if given).

    Without repeats the CSR (or CSC) is made here (see :func:`compress`; ``constant`` says
    the values are all alike); entries that repeat go through ``Matrix.from_coo``, which
    combines them by ``dup_op`` or reports them.
    """
    from ..matrix import Matrix

    coo = coo.cast(dtype)
    found = compress(coo, constant=constant)
    if isinstance(found, Compressed):
        return matrix_of(found, coo, backend)
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


def _pointers(major: np.ndarray, n_major: int) -> np.ndarray:
    """Row pointers of entries sorted by ``major`` (a counting pass)."""
    ptr = np.zeros(n_major + 1, dtype=np.int64)
    np.cumsum(np.bincount(major, minlength=n_major), out=ptr[1:])
    return ptr


def _narrow(idx: np.ndarray, n: int) -> np.ndarray:
    return idx.astype(np.int32) if n < 2**31 else idx


def _compressed(coo: Coo) -> tuple[np.ndarray, np.ndarray, bool] | np.ndarray | None:
    """(pointers, indices, True) of the CSR when ``coo``'s entries are sorted by row and then
    column with no repeat, (pointers, indices, False) of the CSC when sorted by column and
    then row; otherwise the row-major keys made on the way (for the sort), or None (where
    pointers would outnumber the entries by far, or keys do not fit)."""
    rows, cols, n = coo.rows, coo.cols, coo.nvals
    if n < 2 or not keys_fit(coo.nrows, coo.ncols):
        return None
    row_key = None
    for major, minor, n_major, n_minor, by_row in ((rows, cols, coo.nrows, coo.ncols, True),
                                                   (cols, rows, coo.ncols, coo.nrows, False)):
        if n_major > 8 * n + 2**20:
            continue
        if by_row:
            row_key = _row_major_keys(major, minor, n_minor)
            if not _increasing(row_key):
                continue
        elif _keys_increase(major, minor, n_minor) is None:
            continue
        return _pointers(major, n_major), _narrow(minor, n_minor), by_row
    return row_key
