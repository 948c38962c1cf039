"""The CPU backend's matrix-product kernels: Gustavson's row-wise product and the masked dot
product, as vectorised NumPy over batches of product terms.

Both expand product terms in batches whose size is bounded by :data:`TERM_BUDGET` (a row too
long for one batch is split across batches, its partial result carried into the next), so
peak memory is the product plus one batch, never all the terms at once.  A batch drops the
terms its mask forbids, sorts the rest by (row, column) (stably: terms of one position are
combined in increasing ``k``, as the reference does) and reduces equal positions with the
monoid.  The dot form tests, for every mask position ``(i, j)``, the entries of the shorter
of ``A(i, :)`` and ``B(:, j)`` for membership in the other by binary search over sorted keys.

plus_times over the numeric types scipy multiplies goes to scipy's compiled product where
scipy is installed, when it drops no entry (scipy leaves out a sum that is exactly 0; a
missing entry is not zero, so such a product is recomputed here).

See :mod:`grblas_gpu.backends.operands` for the contract.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from ..dtypes import BOOL, DataType
from ..exceptions import OutOfMemory
from ..operators.base import Positions, TypedSemiring
from ..operators.cmath import cast_array
from .operands import CsrOperand, CsrProduct, MaskOperand

__all__ = ["gustavson", "dot", "available_memory", "check_fits", "TERM_BUDGET", "USE_SCIPY"]

TERM_BUDGET = 1 << 22
"""Product terms expanded at once (each costs some 40 bytes while a batch is processed)."""

USE_SCIPY = True
"""Whether plus_times may go to scipy's compiled product (tests turn it off to reach the
batched path with the same inputs)."""

_INT64_MAX = 2**63 - 1
_SCIPY_TYPES = frozenset(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                               np.uint32, np.uint64, np.float32, np.float64))
# Monoids for which combining a value with itself gives it back: a constant term (pair) is
# then the result as it is, whatever the number of terms.
_IDEMPOTENT = frozenset(("any", "min", "max", "lor", "land", "bor", "band"))


def available_memory() -> int | None:
    """Bytes of memory the system can still give (``MemAvailable``), or None where unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_fits(entries: int, value_type: DataType, index_bytes: int, what: str) -> None:
    """Raise OutOfMemory where ``entries`` product entries (a column index and a value each,
    twice over while the batches are joined) exceed the memory available now."""
    need = 2 * entries * (index_bytes + value_type.np_type.itemsize)
    free = available_memory()
    if free is not None and need > free:
        raise OutOfMemory(f"{what}: {entries} entries need about {need} bytes; {free} are available")


# ---------------------------------------------------------------------------- terms


@dataclass
class _Terms:
    """Product terms of a batch: the operands' entry positions and the term's (i, k, j)."""

    pa: Any  # position in a's entries
    pb: Any  # position in b's (or bt's) entries
    i: Any
    k: Any
    j: Any


def _expand(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(request, position) of every position of the ranges ``[starts[r], starts[r]+counts[r])``."""
    counts = counts.astype(np.int64, copy=False)
    total = int(counts.sum())
    request = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    offsets = np.cumsum(counts) - counts
    position = np.arange(total, dtype=np.int64) + np.repeat(starts.astype(np.int64) - offsets, counts)
    return request, position


def _constant_term(sr: TypedSemiring) -> Any:
    """The one value every term has where the multiply reads neither operand nor a position
    (``pair``, ``oneb``), else None."""
    mult = sr.mult
    if mult.positional or mult.reads("x") or mult.reads("y"):
        return None
    x, y = np.zeros(1, mult.x_type.np_type), np.zeros(1, mult.y_type.np_type)
    return cast_array(mult(x, y), sr.out_type)[0]


def _products(sr: TypedSemiring, a_vals: Any, b_vals: Any, t: _Terms, sel: Any = None) -> np.ndarray:
    """The terms' products in the semiring's type (only those ``sel`` picks, where given)."""
    mult = sr.mult
    pa, pb = (t.pa, t.pb) if sel is None else (t.pa[sel], t.pb[sel])
    n = len(pa)
    x = a_vals[pa] if a_vals is not None else np.broadcast_to(np.zeros((), mult.x_type.np_type), (n,))
    y = b_vals[pb] if b_vals is not None else np.broadcast_to(np.zeros((), mult.y_type.np_type), (n,))
    pos = None
    if mult.positional:
        i, k, j = (t.i, t.k, t.j) if sel is None else (t.i[sel], t.k[sel], t.j[sel])
        pos = Positions(i, k, k, j)
    return cast_array(mult(x, y, pos), sr.out_type)


def _reduce(be: Any, sr: TypedSemiring, a_vals: Any, b_vals: Any, t: _Terms, starts: np.ndarray,
            const: Any) -> np.ndarray:
    """One value per run of terms (runs begin at ``starts``, terms in their final order)."""
    out = sr.out_type
    monoid = sr.monoid
    n_runs = len(starts)
    if const is not None and (monoid.name in _IDEMPOTENT or out.is_bool):
        return np.full(n_runs, const, out.np_type)
    if const is not None and monoid.name == "plus" and (out.is_integer or (out.np_type == np.float64 and const == 1)):
        # Adding a constant ``c`` n times is n * c: exactly so for integers (wrapping alike),
        # and for 1.0 in FP64 while n < 2**53.
        counts = np.diff(np.append(starts, len(t.pa)))
        return cast_array(counts * np.asarray(const).astype(np.int64), out) if out.is_integer \
            else counts.astype(np.float64)
    if monoid.is_any:  # any term will do: the first of each run, the others never multiplied
        return _products(sr, a_vals, b_vals, t, starts)
    return be.segment_reduce(monoid, _products(sr, a_vals, b_vals, t), np.append(starts, len(t.pa)))


def _run_starts(keys: np.ndarray) -> np.ndarray:
    """Where each run of equal values of ``keys`` begins."""
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64)
    flag = np.empty(len(keys), dtype=bool)
    flag[0] = True
    np.not_equal(keys[1:], keys[:-1], out=flag[1:])
    return np.flatnonzero(flag)


def _isin_sorted(keys: np.ndarray, sorted_set: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(is each key in ``sorted_set``, its position there where it is)."""
    if len(sorted_set) == 0:
        return np.zeros(len(keys), dtype=bool), np.zeros(len(keys), dtype=np.int64)
    pos = np.searchsorted(sorted_set, keys)
    np.minimum(pos, len(sorted_set) - 1, out=pos)
    return sorted_set[pos] == keys, pos


class _PairKeys:
    """Sortable int64 keys of (row, col) pairs, rows counted from ``first_row``: ``row * ncols
    + col`` where that fits in int64, else column ranks among ``cols`` (a pair whose column is
    not among them gets key -1)."""

    def __init__(self, first_row: int, nrows: int, ncols: int, cols: np.ndarray) -> None:
        self.first = first_row
        self.universe = None if nrows * ncols <= _INT64_MAX else np.unique(cols.astype(np.int64))
        self.width = ncols if self.universe is None else max(1, len(self.universe))

    def __call__(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        local = rows.astype(np.int64) - self.first
        if self.universe is None:
            return local * self.width + cols
        found, rank = _isin_sorted(cols.astype(np.int64), self.universe)
        return np.where(found, local * self.width + rank, -1)


# ---------------------------------------------------------------------------- Gustavson


def gustavson(be: Any, sr: TypedSemiring, a: CsrOperand, b: CsrOperand, mask: MaskOperand | None = None,
              budget: int | None = None) -> CsrProduct:
    """``C<mask> = A B`` row by row, in batches of at most ``budget`` terms (see the module)."""
    budget = budget or TERM_BUDGET
    if mask is None and USE_SCIPY:
        done = _scipy_product(sr, a, b)
        if done is not None:
            return done
    term_counts = _term_counts(a, b, mask)
    cum = np.zeros(a.nvals + 1, dtype=np.int64)
    np.cumsum(term_counts, out=cum[1:])
    bound = min(int(cum[-1]), a.nrows * b.ncols)
    try:
        check_fits(bound, sr.out_type, 8, "mxm")
    except OutOfMemory:  # the bound may be far above the product: count its entries first
        counted = _gustavson_batches(be, sr, a, b, mask, cum, budget, count_only=True)
        check_fits(int(counted.indptr[-1]), sr.out_type, 8, "mxm")
    return _gustavson_batches(be, sr, a, b, mask, cum, budget)


def _term_counts(a: CsrOperand, b: CsrOperand, mask: MaskOperand | None) -> np.ndarray:
    """The number of terms each entry of A makes: the length of B's row it meets (0 in rows
    where the mask allows nothing)."""
    b_len = np.diff(b.indptr.astype(np.int64, copy=False))
    counts = b_len[a.indices]
    if mask is not None:
        m_len = np.diff(mask.indptr.astype(np.int64, copy=False))
        a_len = np.diff(a.indptr.astype(np.int64, copy=False))
        closed = m_len == b.ncols if mask.complement else m_len == 0
        if closed.any():
            counts[np.repeat(closed, a_len)] = 0
    return counts


def _batches(indptr: np.ndarray, cum: np.ndarray, budget: int) -> Iterator[tuple[int, int]]:
    """Ranges of A's entries holding at most ``budget`` terms each (at least one entry), cut
    at a row's start where one is in reach."""
    n = len(cum) - 1
    e = 0
    while e < n:
        end = int(np.searchsorted(cum, cum[e] + budget, side="right")) - 1
        end = max(end, e + 1)
        if end < n:
            row_start = int(indptr[np.searchsorted(indptr, end, side="right") - 1])
            if row_start > e:
                end = row_start
        yield e, end
        e = end


def _gustavson_batches(be: Any, sr: TypedSemiring, a: CsrOperand, b: CsrOperand, mask: MaskOperand | None,
                       cum: np.ndarray, budget: int, count_only: bool = False) -> CsrProduct:
    """The product, batch by batch; with ``count_only``, only its row pointers (the symbolic
    pass: no values are computed, no columns kept)."""
    a_ptr = a.indptr.astype(np.int64, copy=False)
    row_counts = np.zeros(a.nrows, dtype=np.int64)
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    carry: tuple[int, np.ndarray, np.ndarray] | None = None
    const = _constant_term(sr)
    for e0, e1 in _batches(a_ptr, cum, budget):
        if cum[e1] == cum[e0] and carry is None:
            continue
        r0 = int(np.searchsorted(a_ptr, e0, side="right")) - 1
        r1 = int(np.searchsorted(a_ptr, e1 - 1, side="right")) - 1
        rows, cs, vs = _gustavson_batch(be, sr, a, b, mask, e0, e1, r0, r1, const, carry, count_only)
        carry = None
        if e1 < a_ptr[r1 + 1] and len(rows) and rows[-1] == r1:  # r1 goes on in the next batch
            cut = int(np.searchsorted(rows, r1))
            carry = (r1, cs[cut:], vs[cut:])
            rows, cs, vs = rows[:cut], cs[:cut], vs[:cut]
        if len(rows):
            _add_counts(row_counts, rows)
        if not count_only:
            cols.append(cs)
            vals.append(vs)
    if carry is not None:
        row_counts[carry[0]] += len(carry[1])
        if not count_only:
            cols.append(carry[1])
            vals.append(carry[2])
    return _product(row_counts, cols, vals, b.ncols, sr.out_type)


def _add_counts(row_counts: np.ndarray, rows: np.ndarray) -> None:
    """``row_counts[r] += (number of r in rows)`` for sorted ``rows``."""
    lo, hi = int(rows[0]), int(rows[-1])
    row_counts[lo:hi + 1] += np.bincount(rows - lo, minlength=hi - lo + 1)


def _product(row_counts: np.ndarray, cols: list[np.ndarray], vals: list[np.ndarray], ncols: int,
             t: DataType) -> CsrProduct:
    """The product from each row's count of entries and the batches' columns and values."""
    indptr = np.zeros(len(row_counts) + 1, dtype=np.int64)
    np.cumsum(row_counts, out=indptr[1:])
    idx_type = np.int32 if ncols < 2**31 else np.int64
    indices = np.concatenate(cols).astype(idx_type, copy=False) if cols else np.zeros(0, idx_type)
    values = np.concatenate(vals) if vals else np.zeros(0, t.np_type)
    return CsrProduct(indptr, indices, values.astype(t.np_type, copy=False))


def _gustavson_batch(be: Any, sr: TypedSemiring, a: CsrOperand, b: CsrOperand, mask: MaskOperand | None,
                     e0: int, e1: int, r0: int, r1: int, const: Any,
                     carry: tuple[int, np.ndarray, np.ndarray] | None,
                     count_only: bool = False) -> tuple[np.ndarray, ...]:
    """The reduced entries (rows, cols, values; sorted) of A's entries ``e0:e1`` (rows ``r0``
    to ``r1``) times B, with a carried partial row prepended (values all 0 ``count_only``)."""
    a_ptr = a.indptr.astype(np.int64, copy=False)
    k = a.indices[e0:e1].astype(np.int64)
    b_ptr = b.indptr.astype(np.int64, copy=False)
    request, pb = _expand(b_ptr[k], b_ptr[k + 1] - b_ptr[k])
    entry_rows = np.repeat(np.arange(r0, r1 + 1, dtype=np.int64),
                           np.diff(np.clip(a_ptr[r0:r1 + 2], e0, e1)))
    t = _Terms(request + e0, pb, entry_rows[request], k[request], b.indices[pb].astype(np.int64))
    keys_of = _PairKeys(r0, r1 - r0 + 1, b.ncols, t.j if mask is None or b.ncols * (r1 - r0 + 1) <= _INT64_MAX
                        else np.concatenate([t.j, mask.indices[mask.indptr[r0]:mask.indptr[r1 + 1]]]))
    keys = keys_of(t.i, t.j)
    if mask is not None:
        keep = _mask_allows(mask, r0, r1, keys, keys_of)
        t = _Terms(t.pa[keep], t.pb[keep], t.i[keep], t.k[keep], t.j[keep])
        keys = keys[keep]
    order = np.argsort(keys, kind="stable")
    t = _Terms(t.pa[order], t.pb[order], t.i[order], t.k[order], t.j[order])
    keys = keys[order]
    starts = _run_starts(keys)
    if count_only:
        values = np.zeros(len(starts), sr.out_type.np_type)
    else:
        values = _reduce(be, sr, a.values, b.values, t, starts, const)
    rows, cols = t.i[starts], t.j[starts]
    if carry is not None:
        rows, cols, values = _merge_carry(be, sr, carry, rows, cols, values)
    return rows, cols, values


def _mask_allows(mask: MaskOperand, r0: int, r1: int, keys: np.ndarray, keys_of: _PairKeys) -> np.ndarray:
    """Which terms (by key) the mask allows, its rows ``r0`` to ``r1`` read."""
    m_ptr = mask.indptr.astype(np.int64, copy=False)
    lo, hi = int(m_ptr[r0]), int(m_ptr[r1 + 1])
    m_rows = np.repeat(np.arange(r0, r1 + 1, dtype=np.int64), np.diff(m_ptr[r0:r1 + 2]))
    m_keys = keys_of(m_rows, mask.indices[lo:hi].astype(np.int64))
    inside = _isin_sorted(keys, m_keys)[0]
    return ~inside if mask.complement else inside


def _merge_carry(be: Any, sr: TypedSemiring, carry: tuple[int, np.ndarray, np.ndarray], rows: np.ndarray,
                 cols: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, ...]:
    """A row's partial result from the batch before combined with this batch's (its first
    row): equal columns reduced by the monoid, the carried value first."""
    row, c_cols, c_vals = carry
    n_first = int(np.searchsorted(rows, row, side="right"))
    both_cols = np.concatenate([c_cols.astype(np.int64), cols[:n_first]])
    both_vals = np.concatenate([c_vals, values[:n_first]])
    order = np.argsort(both_cols, kind="stable")
    both_cols, both_vals = both_cols[order], both_vals[order]
    starts = _run_starts(both_cols)
    merged = be.segment_reduce(sr.monoid, both_vals, np.append(starts, len(both_cols)))
    merged_cols = both_cols[starts]
    return (np.concatenate([np.full(len(starts), row, np.int64), rows[n_first:]]),
            np.concatenate([merged_cols, cols[n_first:]]), np.concatenate([merged, values[n_first:]]))


# ---------------------------------------------------------------------------- dot


def dot(be: Any, sr: TypedSemiring, a: CsrOperand, bt: CsrOperand, mask: MaskOperand,
        budget: int | None = None) -> CsrProduct:
    """``C<M> = A B`` as one dot product per mask position (``bt``: B's columns as rows)."""
    budget = budget or TERM_BUDGET
    check_fits(mask.nvals, sr.out_type, 8, "mxm")
    m_ptr = mask.indptr.astype(np.int64, copy=False)
    m_rows = np.repeat(np.arange(len(m_ptr) - 1, dtype=np.int64), np.diff(m_ptr))
    m_cols = mask.indices.astype(np.int64)
    a_ptr, b_ptr = a.indptr.astype(np.int64, copy=False), bt.indptr.astype(np.int64, copy=False)
    a_len, b_len = np.diff(a_ptr)[m_rows], np.diff(b_ptr)[m_cols]
    from_a = a_len <= b_len  # expand A(i, :), search in B(:, j); else the other way
    cost = np.where(from_a, a_len, b_len)
    cum = np.zeros(len(cost) + 1, dtype=np.int64)
    np.cumsum(cost, out=cum[1:])
    keys = _DotKeys(a, bt)
    const = _constant_term(sr)
    hit_entries: list[np.ndarray] = []
    hit_vals: list[np.ndarray] = []
    e = 0
    while e < len(cost):
        end = max(int(np.searchsorted(cum, cum[e] + budget, side="right")) - 1, e + 1)
        sel = np.arange(e, end, dtype=np.int64)
        sel = sel[cost[e:end] > 0]
        if len(sel):
            entries, values = _dot_batch(be, sr, a, bt, a_ptr, b_ptr, m_rows[sel], m_cols[sel], from_a[sel],
                                         keys, const)
            hit_entries.append(sel[entries])
            hit_vals.append(values)
        e = end
    hits = np.concatenate(hit_entries) if hit_entries else np.zeros(0, np.int64)
    row_counts = np.bincount(m_rows[hits], minlength=len(m_ptr) - 1) if len(hits) else np.zeros(len(m_ptr) - 1,
                                                                                                   np.int64)
    return _product(row_counts, [mask.indices[hits]], hit_vals, bt.nrows, sr.out_type)


class _DotKeys:
    """Sorted keys ``row * K + k`` of A's and B'(bt)'s entries, each built on first need, with
    the column ranks that stand in for ``k`` where ``row * K`` would not fit in int64."""

    def __init__(self, a: CsrOperand, bt: CsrOperand) -> None:
        self.a, self.bt = a, bt
        width = a.ncols
        self.universe = None
        if max(a.nrows, bt.nrows) * max(width, 1) > _INT64_MAX:
            self.universe = np.unique(np.concatenate([a.indices, bt.indices]).astype(np.int64))
            width = max(1, len(self.universe))
        self.width = width
        self._made: dict[str, np.ndarray] = {}

    def col(self, k: np.ndarray) -> np.ndarray:
        """``k`` as the keys count it (its rank where ranks are used)."""
        return k if self.universe is None else np.searchsorted(self.universe, k)

    def of(self, which: str) -> np.ndarray:
        """The keys of operand ``"a"`` or ``"bt"``."""
        if which not in self._made:
            m = self.a if which == "a" else self.bt
            ptr = m.indptr.astype(np.int64, copy=False)
            rows = np.repeat(np.arange(m.nrows, dtype=np.int64), np.diff(ptr))
            self._made[which] = rows * self.width + self.col(m.indices.astype(np.int64))
        return self._made[which]


def _dot_batch(be: Any, sr: TypedSemiring, a: CsrOperand, bt: CsrOperand, a_ptr: np.ndarray, b_ptr: np.ndarray,
               i: np.ndarray, j: np.ndarray, from_a: np.ndarray, keys: _DotKeys,
               const: Any) -> tuple[np.ndarray, np.ndarray]:
    """(which of the batch's mask positions hold a result, their values)."""
    starts = np.where(from_a, a_ptr[i], b_ptr[j])
    counts = np.where(from_a, a_ptr[i + 1] - a_ptr[i], b_ptr[j + 1] - b_ptr[j])
    request, position = _expand(starts, counts)
    own_a = from_a[request]
    pa = np.zeros(len(request), dtype=np.int64)
    pb = np.zeros(len(request), dtype=np.int64)
    found = np.zeros(len(request), dtype=bool)
    k = np.empty(len(request), dtype=np.int64)
    for side, sel in (("a", own_a), ("bt", ~own_a)):
        if not sel.any():
            continue
        mine = position[sel]
        other = "bt" if side == "a" else "a"
        kk = (a.indices if side == "a" else bt.indices)[mine].astype(np.int64)
        other_rows = (j if side == "a" else i)[request[sel]]
        hit, at = _isin_sorted(other_rows * keys.width + keys.col(kk), keys.of(other))
        k[sel] = kk
        found[sel] = hit
        (pa if side == "a" else pb)[sel] = mine
        (pb if side == "a" else pa)[sel] = at
    keep = np.flatnonzero(found)
    req = request[keep]
    t = _Terms(pa[keep], pb[keep], i[req], k[keep], j[req])
    runs = _run_starts(req)
    return req[runs], _reduce(be, sr, a.values, bt.values, t, runs, const)


# ---------------------------------------------------------------------------- scipy


def _scipy_product(sr: TypedSemiring, a: CsrOperand, b: CsrOperand) -> CsrProduct | None:
    """plus_times by scipy's compiled product, where scipy takes the types and drops no entry
    (a sum of exactly 0 it leaves out); None where it cannot be used.

    scipy leaves each row's columns in the order they were first reached; sorting them costs
    more than the product.  So it computes ``C' = B' A'`` (A' and B' by one counting pass
    each) and transposes that, a counting pass that leaves every row sorted.  Each sum still
    runs over increasing ``k``.
    """
    mult, out = sr.mult, sr.out_type
    if (sr.monoid.name != "plus" or mult.name != "times" or mult.is_flipped or out.is_bool
            or a.values is None or b.values is None
            or not (mult.x_type == mult.y_type == out) or np.dtype(out.np_type) not in _SCIPY_TYPES
            or max(a.ncols, b.ncols) > 8 * (a.nvals + b.nvals) + 2**20):  # (scipy's work arrays span a row)
        return None
    try:
        from scipy.sparse import _sparsetools as kernels
    except ImportError:
        return None
    m, n = a.nrows, b.ncols
    try:
        idx = np.int64 if max(a.nvals, b.nvals, m, n, a.ncols) >= 2**31 - 1 else np.int32
        at = _scipy_transposed(kernels, a, idx)
        bt = _scipy_transposed(kernels, b, idx)
        nnz = int(kernels.csr_matmat_maxnnz(n, m, bt[0], bt[1], at[0], at[1]))
        if nnz >= 2**31 - 1 and idx is np.int32:
            return None  # (rare: the batched path takes it)
        check_fits(nnz, out, np.dtype(idx).itemsize, "mxm")
        ctp, cti, ctx = np.empty(n + 1, idx), np.empty(nnz, idx), np.empty(nnz, out.np_type)
        kernels.csr_matmat(n, m, bt[0], bt[1], bt[2], at[0], at[1], at[2], ctp, cti, ctx)
        if int(ctp[-1]) != nnz:  # an entry summed to exactly 0 and was dropped
            return None
        cp, ci, cx = np.empty(m + 1, idx), np.empty(nnz, idx), np.empty(nnz, out.np_type)
        kernels.csr_tocsc(n, m, ctp, cti, ctx, cp, ci, cx)
    except (AttributeError, TypeError, ValueError):  # a scipy whose private kernels differ
        return None
    return CsrProduct(cp.astype(np.int64), ci.astype(np.int32 if n < 2**31 else np.int64, copy=False), cx)


def _scipy_transposed(kernels: Any, x: CsrOperand, idx: Any) -> tuple[np.ndarray, ...]:
    """(indptr, indices, values) of x' in CSR, index arrays of type ``idx``."""
    tp, ti = np.empty(x.ncols + 1, idx), np.empty(x.nvals, idx)
    tx = np.empty(x.nvals, x.values.dtype)
    kernels.csr_tocsc(x.nrows, x.ncols, x.indptr.astype(idx, copy=False), x.indices.astype(idx, copy=False),
                      np.ascontiguousarray(x.values), tp, ti, tx)
    return tp, ti, tx
