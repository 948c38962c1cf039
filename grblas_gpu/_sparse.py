"""Sparse glue shared by both backends, written once against the array module ``xp``.

Sets of entries are handled as sorted, unique int64 *keys* with a value array:
a vector's keys are its indices; a matrix's are ``row * ncols + col`` (or, when
that would overflow int64, ranks of the rows and columns that occur; see
:class:`KeySpace`).  Only element-wise operators and segment reductions are
backend kernels; everything here is sorting, scanning and gathering.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .backends import Backend
from .dtypes import DataType
from .operators.base import Positions, TypedBinaryOp, TypedMonoid

_INT64_MAX = INT64_MAX = 2**63 - 1


@dataclass
class Entries:
    """Sorted unique int64 keys and their values (one backend's arrays)."""

    keys: Any
    values: Any

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    def take(self, sel: Any) -> Entries:
        """The entries at positions or boolean selector ``sel``."""
        return Entries(self.keys[sel], self.values[sel])


def index_dtype(n: int) -> Any:
    """int32 when every index below ``n`` fits, else int64."""
    return np.int32 if n < 2**31 else np.int64


def arange(xp: Any, n: int) -> Any:
    """int64 0..n-1."""
    return xp.arange(n, dtype=np.int64)


def csr_rows(xp: Any, indptr: Any) -> Any:
    """Row index of every stored entry of a CSR structure."""
    nnz = int(indptr[-1]) if len(indptr) else 0
    return segment_ids(xp, indptr, nnz)


def segment_ids(xp: Any, offsets: Any, total: int) -> Any:
    """For positions 0..total-1, the segment s with offsets[s] <= p < offsets[s+1]."""
    if total == 0:
        return xp.zeros(0, dtype=np.int64)
    return xp.searchsorted(offsets[1:], arange(xp, total), side="right").astype(np.int64)


def rows_to_indptr(xp: Any, rows: Any, nrows: int) -> Any:
    """CSR row pointers from sorted row indices."""
    return xp.searchsorted(rows, arange(xp, nrows + 1), side="left").astype(np.int64, copy=False)


def isin_sorted(xp: Any, keys: Any, sorted_set: Any) -> Any:
    """Boolean: is each of ``keys`` in the sorted array ``sorted_set``."""
    if len(sorted_set) == 0 or len(keys) == 0:
        return xp.zeros(len(keys), dtype=bool)
    pos = xp.searchsorted(sorted_set, keys)
    pos = xp.minimum(pos, len(sorted_set) - 1)
    return sorted_set[pos] == keys


def lexsort_pairs(xp: Any, major: Any, minor: Any, stable_ties: bool = False) -> Any:
    """Permutation sorting by (major, minor); ties keep input order when ``stable_ties``."""
    n = len(major)
    if n == 0:
        return xp.zeros(0, dtype=np.int64)
    keys = [minor, major]
    if stable_ties:
        keys.insert(0, arange(xp, n))
    return xp.lexsort(xp.stack([xp.asarray(k, dtype=np.int64) for k in keys]))


def segment_starts(xp: Any, sorted_keys: Any) -> Any:
    """Offsets of the runs of equal values in ``sorted_keys`` (with the end appended)."""
    n = len(sorted_keys)
    if n == 0:
        return xp.zeros(1, dtype=np.int64)
    flag = xp.empty(n, dtype=bool)
    flag[0] = True
    flag[1:] = sorted_keys[1:] != sorted_keys[:-1]
    starts = xp.flatnonzero(flag).astype(np.int64)
    return xp.concatenate([starts, xp.asarray([n], dtype=np.int64)])


def reduce_by_key(be: Backend, monoid: TypedMonoid, keys: Any, values: Any) -> Entries:
    """Combine values with equal keys by the monoid; keys need not be sorted."""
    xp = be.xp
    if len(keys) == 0:
        return Entries(keys.astype(np.int64), values)
    order = xp.argsort(keys)
    keys, values = keys[order], values[order]
    offsets = segment_starts(xp, keys)
    return Entries(keys[offsets[:-1]], be.segment_reduce(monoid, values, offsets))


def expand_ranges(xp: Any, starts: Any, counts: Any) -> tuple[Any, Any]:
    """Every position of the ranges ``[starts[r], starts[r] + counts[r])``.

    Returns ``(request, position)``: for every position, the range r it came from
    and the position itself (e.g. the stored entries of some rows of a matrix).
    """
    starts = starts.astype(np.int64)
    offsets = xp.zeros(len(starts) + 1, dtype=np.int64)
    xp.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    request = segment_ids(xp, offsets, total)
    position = starts[request] + (arange(xp, total) - offsets[request])
    return request, position


def apply_binary(be: Backend, op: TypedBinaryOp, x: Any, y: Any, pos: Positions | None) -> Any:
    """``op(x, y)`` with both operands cast to the operator's input types."""
    if not op.positional:
        pos = None
    return be.binary(op, _cast_operand(be, x, op.x_type), _cast_operand(be, y, op.y_type), pos)


def _cast_operand(be: Backend, v: Any, t: DataType) -> Any:
    if isinstance(v, np.generic) or np.isscalar(v):
        from .dtypes import cast_scalar

        return cast_scalar(v, t)
    return be.cast(v, t)


def intersect(be: Backend, a: Entries, b: Entries) -> tuple[Any, Any, Any]:
    """Positions in ``a`` and ``b`` of the keys they share, and those keys."""
    xp = be.xp
    in_b = isin_sorted(xp, a.keys, b.keys)
    ia = xp.flatnonzero(in_b)
    keys = a.keys[ia]
    ib = xp.searchsorted(b.keys, keys)
    return ia, ib, keys


def merge_disjoint(be: Backend, parts: list[Entries], dtype: DataType) -> Entries:
    """Union of entry sets whose keys do not overlap, values cast to ``dtype``."""
    xp = be.xp
    parts = [Entries(p.keys, be.cast(p.values, dtype)) for p in parts if len(p)]
    if not parts:
        return Entries(xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=dtype.np_type))
    if len(parts) == 1:
        return parts[0]
    keys = xp.concatenate([p.keys for p in parts])
    values = xp.concatenate([p.values for p in parts])
    order = xp.argsort(keys)
    return Entries(keys[order], values[order])


def union(be: Backend, a: Entries, b: Entries, op: TypedBinaryOp, out: DataType,
          pos_of: Any = None, a_default: Any = None, b_default: Any = None) -> Entries:
    """Entries of ``a`` or ``b``: ``op`` where both exist, the lone value (cast) elsewhere.

    With ``a_default``/``b_default`` (eWiseUnion), a lone value is combined with the
    other side's default instead of passing through.
    """
    xp = be.xp
    ia, ib, both = intersect(be, a, b)
    only_a = xp.ones(len(a), dtype=bool)
    only_a[ia] = False
    only_b = xp.ones(len(b), dtype=bool)
    only_b[ib] = False
    parts = [Entries(both, be.cast(apply_binary(be, op, a.values[ia], b.values[ib], _pos(pos_of, both)), out))]
    a_rest, b_rest = a.take(only_a), b.take(only_b)
    if b_default is not None:
        a_rest = Entries(a_rest.keys, be.cast(apply_binary(be, op, a_rest.values, b_default, _pos(pos_of, a_rest.keys)), out))
    if a_default is not None:
        b_rest = Entries(b_rest.keys, be.cast(apply_binary(be, op, a_default, b_rest.values, _pos(pos_of, b_rest.keys)), out))
    parts += [Entries(a_rest.keys, be.cast(a_rest.values, out)), Entries(b_rest.keys, be.cast(b_rest.values, out))]
    return merge_disjoint(be, parts, out)


def intersection(be: Backend, a: Entries, b: Entries, op: TypedBinaryOp, pos_of: Any = None) -> Entries:
    """Entries in both ``a`` and ``b``, combined by ``op``."""
    ia, ib, keys = intersect(be, a, b)
    return Entries(keys, apply_binary(be, op, a.values[ia], b.values[ib], _pos(pos_of, keys)))


def _pos(pos_of: Any, keys: Any) -> Positions | None:
    return pos_of(keys) if pos_of is not None else None


class KeySpace:
    """Maps (row, col) pairs of a matrix shape to sortable int64 keys and back.

    Keys are ``row * ncols + col`` when that fits in int64.  For larger shapes,
    the rows and columns that occur in the operation are ranked, and keys are
    ``rank(row) * (number of such columns) + rank(col)``.
    """

    def __init__(self, xp: Any, nrows: int, ncols: int, rows: list[Any], cols: list[Any]) -> None:
        self.xp = xp
        self.ncols = ncols
        self.linear = nrows * ncols <= _INT64_MAX
        if not self.linear:
            self.row_universe = xp.unique(xp.concatenate([xp.asarray(r, dtype=np.int64) for r in rows] or [xp.zeros(0, np.int64)]))
            self.col_universe = xp.unique(xp.concatenate([xp.asarray(c, dtype=np.int64) for c in cols] or [xp.zeros(0, np.int64)]))

    def encode(self, rows: Any, cols: Any) -> Any:
        """Keys of (rows, cols); sorted pairs give sorted keys."""
        xp = self.xp
        rows = rows.astype(np.int64)
        cols = cols.astype(np.int64)
        if self.linear:
            return rows * self.ncols + cols
        r = xp.searchsorted(self.row_universe, rows).astype(np.int64)
        c = xp.searchsorted(self.col_universe, cols).astype(np.int64)
        return r * len(self.col_universe) + c

    def decode(self, keys: Any) -> tuple[Any, Any]:
        """(rows, cols) of keys."""
        if self.linear:
            return keys // self.ncols if self.ncols else keys * 0, keys % self.ncols if self.ncols else keys * 0
        n = len(self.col_universe)
        return self.row_universe[keys // n], self.col_universe[keys % n]
