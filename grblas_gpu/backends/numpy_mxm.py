"""The CPU backend's matrix-product kernels: Gustavson's row-wise product and the masked dot
product, as vectorised NumPy over batches of product terms.

Both expand product terms in batches of at most :data:`TERM_BUDGET` terms (a row too long for
one batch is split across batches, its partial result carried into the next), so peak memory
is the product plus one batch, never all the terms at once.

- Gustavson: a batch of A's entries meets B's rows; the terms a mask forbids are dropped; the
  rest are combined by position, through a dense slot per position of the batch's rows where
  those are few enough (the terms then combine in the order they were made, increasing ``k``),
  else by a stable sort of (row, column) keys and a segmented reduction.
- Dot: for every mask position ``(i, j)`` the entries of the shorter of ``A(i, :)`` and
  ``B(:, j)`` are searched in the other (binary search over sorted ``row * K + k`` keys).

plus_times over the numeric types goes to scipy's compiled product where scipy is installed
and drops nothing (:mod:`.scipy_product`).  See :mod:`.operands` for the contract.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..dtypes import DataType
from ..exceptions import OutOfMemory
from ..limits import require_bytes
from ..operators.base import Positions, TypedSemiring
from ..operators.cmath import cast_array
from . import scipy_product
from .operands import CsrOperand, CsrProduct, MaskOperand

__all__ = ["gustavson", "dot", "check_fits", "TERM_BUDGET", "USE_SCIPY", "DENSE_SLOTS"]

TERM_BUDGET = 1 << 22
"""Product terms expanded at once (each costs some 40 bytes while its batch is processed)."""

USE_SCIPY = True
"""Whether plus_times may go to scipy's product (tests turn it off to reach the batched path)."""

DENSE_SLOTS = 1 << 23
"""The most positions (rows of a batch x columns) given a dense slot each; a batch spanning
more, or more than 16 times its terms, is combined by sorting instead (a pass over a position
costs about a sixteenth of sorting a term)."""

_INT64_MAX = 2**63 - 1


def check_fits(entries: int, value_type: DataType, index_bytes: int, copies: int = 2) -> None:
    """Raise OutOfMemory where ``entries`` entries of a product (an index and a value each,
    ``copies`` times over: the batches' parts and the joined whole) do not fit in the host's
    available memory (see :func:`grblas_gpu.limits.require_bytes`)."""
    nbytes = copies * entries * (index_bytes + value_type.np_type.itemsize)
    require_bytes(nbytes, "numpy", f"a product of {entries:,} entries")
# Monoids for which combining a value with itself gives it back: a constant term (pair) is
# then the result as it is, whatever the number of terms.
_IDEMPOTENT = frozenset(("any", "min", "max", "lor", "land", "bor", "band"))


# ---------------------------------------------------------------------------- terms


@dataclass
class _Terms:
    """Product terms: each one's entry of A (``pa``) and of B or B' (``pb``), and, for a
    positional multiply only, its (i, k, j)."""

    pa: np.ndarray
    pb: np.ndarray
    ikj: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def take(self, sel: np.ndarray) -> _Terms:
        """The terms ``sel`` picks (a boolean or an index array)."""
        ikj = tuple(x[sel] for x in self.ikj) if self.ikj is not None else None
        return _Terms(self.pa[sel], self.pb[sel], ikj)  # type: ignore[arg-type]


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


def _products(sr: TypedSemiring, a_vals: Any, b_vals: Any, t: _Terms) -> np.ndarray:
    """The terms' products in the semiring's type."""
    mult = sr.mult
    n = len(t.pa)
    x = a_vals[t.pa] if a_vals is not None else np.broadcast_to(np.zeros((), mult.x_type.np_type), (n,))
    y = b_vals[t.pb] if b_vals is not None else np.broadcast_to(np.zeros((), mult.y_type.np_type), (n,))
    pos = None
    if mult.positional:
        assert t.ikj is not None
        i, k, j = t.ikj
        pos = Positions(i, k, k, j)
    return cast_array(mult(x, y, pos), sr.out_type)


def _by_constant(sr: TypedSemiring, const: Any, counts: Any) -> np.ndarray | None:
    """Each position's result where every term is ``const`` and ``counts`` (an array, or a
    function giving it) says how many there are; None where it takes the terms one by one."""
    out, monoid = sr.out_type, sr.monoid
    if const is None:
        return None
    n = counts() if callable(counts) else counts
    if monoid.name in _IDEMPOTENT or out.is_bool:
        return np.full(len(n), const, out.np_type)
    if monoid.name == "plus" and out.is_integer:  # n additions of c wrap as n * c does
        return cast_array(n.astype(np.int64) * np.asarray(const).astype(np.int64), out)
    if monoid.name == "plus" and out.np_type == np.float64 and const == 1:  # exact below 2**53
        return n.astype(np.float64)
    return None


def _reduce_runs(be: Any, sr: TypedSemiring, a_vals: Any, b_vals: Any, t: _Terms, starts: np.ndarray,
                 const: Any) -> np.ndarray:
    """One value per run of terms (runs begin at ``starts``, terms in their final order)."""
    ends = np.append(starts, len(t.pa))
    by_const = _by_constant(sr, const, lambda: np.diff(ends))
    if by_const is not None:
        return by_const
    if sr.monoid.is_any:  # any term will do: the first of each run, the others never multiplied
        return _products(sr, a_vals, b_vals, t.take(starts))
    return be.segment_reduce(sr.monoid, _products(sr, a_vals, b_vals, t), ends)


def _reduce_slots(sr: TypedSemiring, a_vals: Any, b_vals: Any, t: _Terms, slot: np.ndarray, n_slots: int,
                  const: Any) -> np.ndarray | None:
    """One value per slot, the terms (in the order made) combined by the monoid's ufunc into
    its exact identity; None where the monoid has no such pair (a user's: the caller sorts)."""
    by_const = _by_constant(sr, const, lambda: np.bincount(slot, minlength=n_slots))
    if by_const is not None:
        return by_const
    monoid = sr.monoid
    if monoid.is_any:  # any term will do: whichever of a slot's terms is written last
        pick = np.empty(n_slots, dtype=np.int64)
        pick[slot] = np.arange(len(slot), dtype=np.int64)
        return _products(sr, a_vals, b_vals, t.take(pick))
    identity = _exact_identity(sr)
    if monoid.ufunc is None or identity is None:
        return None
    out = np.full(n_slots, identity, dtype=sr.out_type.np_type)
    with np.errstate(all="ignore"):
        monoid.ufunc.at(out, slot, _products(sr, a_vals, b_vals, t))
    return out


# Values ``e`` with ``op(e, x) == x`` bit for bit for every float ``x`` (NaN, -0.0 included):
# the monoid's own identity is not so for floats (0.0 + -0.0 is 0.0; fmin(inf, NaN) is inf).
_FLOAT_IDENTITY = {np.add: -0.0, np.multiply: 1.0, np.fmin: np.nan, np.fmax: np.nan}


def _exact_identity(sr: TypedSemiring) -> Any:
    """A start value that the monoid's ufunc leaves every value as it is, or None."""
    monoid = sr.monoid
    if sr.out_type.is_float:
        return _FLOAT_IDENTITY.get(monoid.ufunc)
    return monoid.identity


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


def _product(row_counts: np.ndarray, cols: list[np.ndarray], vals: list[np.ndarray], ncols: int,
             t: DataType) -> CsrProduct:
    """The product from each row's count of entries and the batches' columns and values."""
    indptr = np.zeros(len(row_counts) + 1, dtype=np.int64)
    np.cumsum(row_counts, out=indptr[1:])
    idx_type = np.int32 if ncols < 2**31 else np.int64
    indices = np.concatenate(cols).astype(idx_type, copy=False) if cols else np.zeros(0, idx_type)
    values = np.concatenate(vals) if vals else np.zeros(0, t.np_type)
    return CsrProduct(indptr, indices, values.astype(t.np_type, copy=False))


# ---------------------------------------------------------------------------- Gustavson


def gustavson(be: Any, sr: TypedSemiring, a: CsrOperand, b: CsrOperand,
              mask: MaskOperand | None = None) -> CsrProduct:
    """``C<mask> = A B`` row by row, in batches of at most :data:`TERM_BUDGET` terms."""
    if mask is None and USE_SCIPY:
        done = scipy_product.product(sr, a, b)
        if done is not None:
            return done
    g = _Gustavson(be, sr, a, b, mask)
    try:
        check_fits(g.bound, sr.out_type, 8)
    except OutOfMemory:  # the bound may be far above the product: count its entries first
        check_fits(int(g.run(count_only=True).indptr[-1]), sr.out_type, 8)
    return g.run()


class _Gustavson:
    """One product ``C<mask> = A B`` by batches of A's entries."""

    def __init__(self, be: Any, sr: TypedSemiring, a: CsrOperand, b: CsrOperand, mask: MaskOperand | None) -> None:
        self.be, self.sr, self.a, self.b, self.mask = be, sr, a, b, mask
        self.a_ptr = a.indptr.astype(np.int64, copy=False)
        self.b_ptr = b.indptr.astype(np.int64, copy=False)
        self.m_ptr = mask.indptr.astype(np.int64, copy=False) if mask is not None else None
        self.const = _constant_term(sr)
        self.cum = np.zeros(a.nvals + 1, dtype=np.int64)
        np.cumsum(self._term_counts(), out=self.cum[1:])
        self.bound = min(int(self.cum[-1]), a.nrows * b.ncols)

    def _term_counts(self) -> np.ndarray:
        """The number of terms each entry of A makes: the length of B's row it meets (0 in
        rows where the mask allows nothing)."""
        counts = np.diff(self.b_ptr)[self.a.indices]
        if self.m_ptr is not None and self.mask is not None:  # (the one is set with the other)
            m_len = np.diff(self.m_ptr)
            closed = m_len == self.b.ncols if self.mask.complement else m_len == 0
            if closed.any():
                counts[np.repeat(closed, np.diff(self.a_ptr))] = 0
        return counts

    def _batches(self) -> Iterator[tuple[int, int]]:
        """Ranges of A's entries holding at most TERM_BUDGET terms each (at least one entry),
        cut at a row's start where one is in reach."""
        a_ptr, cum, n = self.a_ptr, self.cum, self.a.nvals
        e = 0
        while e < n:
            end = max(int(np.searchsorted(cum, cum[e] + TERM_BUDGET, side="right")) - 1, e + 1)
            if end < n:
                row_start = int(a_ptr[np.searchsorted(a_ptr, end, side="right") - 1])
                if row_start > e:
                    end = row_start
            yield e, end
            e = end

    def run(self, count_only: bool = False) -> CsrProduct:
        """The product; with ``count_only`` only its row pointers (no values computed)."""
        a_ptr, out_type = self.a_ptr, self.sr.out_type
        row_counts = np.zeros(self.a.nrows, dtype=np.int64)
        cols: list[np.ndarray] = []
        vals: list[np.ndarray] = []
        carry: tuple[int, np.ndarray, np.ndarray] | None = None  # a row's partial result
        for e0, e1 in self._batches():
            if self.cum[e1] == self.cum[e0] and carry is None:
                continue
            r0 = int(np.searchsorted(a_ptr, e0, side="right")) - 1
            r1 = int(np.searchsorted(a_ptr, e1 - 1, side="right")) - 1
            rows, cs, vs = self._batch(e0, e1, r0, r1, count_only)
            if carry is not None:
                rows, cs, vs = self._merge_carry(carry, rows, cs, vs)
                carry = None
            if e1 < a_ptr[r1 + 1] and len(rows) and rows[-1] == r1:  # row r1 goes on in the next batch
                cut = int(np.searchsorted(rows, r1))
                carry = (r1, cs[cut:], vs[cut:])
                rows, cs, vs = rows[:cut], cs[:cut], vs[:cut]
            if len(rows):
                lo, hi = int(rows[0]), int(rows[-1])
                row_counts[lo:hi + 1] += np.bincount(rows - lo, minlength=hi - lo + 1)
            if not count_only:
                cols.append(cs)
                vals.append(vs)
        if carry is not None:
            row_counts[carry[0]] += len(carry[1])
            if not count_only:
                cols.append(carry[1])
                vals.append(carry[2])
        return _product(row_counts, cols, vals, self.b.ncols, out_type)

    def _batch(self, e0: int, e1: int, r0: int, r1: int, count_only: bool) -> tuple[np.ndarray, ...]:
        """The combined entries (rows, cols, values; sorted) of A's entries ``e0:e1`` (rows
        ``r0`` to ``r1``) times B (values all 0 ``count_only``)."""
        a, b, sr = self.a, self.b, self.sr
        k = a.indices[e0:e1].astype(np.int64)
        request, pb = _expand(self.b_ptr[k], self.b_ptr[k + 1] - self.b_ptr[k])
        local_rows = np.repeat(np.arange(r1 - r0 + 1, dtype=np.int64), np.diff(np.clip(self.a_ptr[r0:r1 + 2], e0, e1)))
        li = local_rows[request]
        j = b.indices[pb].astype(np.int64)
        span = (r1 - r0 + 1) * b.ncols
        universe = None  # (columns ranked where row * ncols would pass int64)
        if span > _INT64_MAX:
            m_ptr = self.m_ptr
            m_cols = self.mask.indices[m_ptr[r0]:m_ptr[r1 + 1]] if self.mask is not None and m_ptr is not None else j[:0]
            universe = np.unique(np.concatenate([j, m_cols.astype(np.int64)]))
        width = b.ncols if universe is None else len(universe)
        keys = li * width + (j if universe is None else np.searchsorted(universe, j))
        dense = universe is None and span <= min(DENSE_SLOTS, max(16 * len(keys), 1 << 16))
        if self.mask is not None:
            keep = self._mask_allows(r0, r1, keys, width, universe, span if dense else None)
            request, pb, keys = request[keep], pb[keep], keys[keep]
            if sr.mult.positional:
                li, j = li[keep], j[keep]
        t = _Terms(request + e0, pb, (li + r0, k[request], j) if sr.mult.positional else None)
        values = None
        if dense:
            present = np.zeros(span, dtype=bool)
            present[keys] = True
            uniq = np.flatnonzero(present)
            slot_of = np.empty(span, dtype=np.int32 if span < 2**31 else np.int64)
            slot_of[uniq] = np.arange(len(uniq), dtype=slot_of.dtype)
            slot = slot_of[keys]
            values = np.zeros(len(uniq), sr.out_type.np_type) if count_only else \
                _reduce_slots(sr, a.values, b.values, t, slot, len(uniq), self.const)
        if values is None:
            order = np.argsort(keys, kind="stable")
            keys = keys[order]
            starts = _run_starts(keys)
            uniq = keys[starts]
            values = np.zeros(len(starts), sr.out_type.np_type) if count_only else \
                _reduce_runs(self.be, sr, a.values, b.values, t.take(order), starts, self.const)
        rows, cols = np.divmod(uniq, width) if width else (uniq, uniq)
        return rows + r0, (cols if universe is None else universe[cols]), values

    def _mask_allows(self, r0: int, r1: int, keys: np.ndarray, width: int, universe: Any,
                     span: int | None) -> np.ndarray:
        """Which terms (by key) the mask allows, its rows ``r0`` to ``r1`` read; through a
        dense bitmap of the batch's positions where ``span`` is given."""
        m_ptr, mask = self.m_ptr, self.mask
        assert m_ptr is not None and mask is not None  # called only with a mask
        lo, hi = int(m_ptr[r0]), int(m_ptr[r1 + 1])
        m_rows = np.repeat(np.arange(r1 - r0 + 1, dtype=np.int64), np.diff(m_ptr[r0:r1 + 2]))
        m_cols = mask.indices[lo:hi].astype(np.int64)
        m_keys = m_rows * width + (m_cols if universe is None else np.searchsorted(universe, m_cols))
        if span is not None:
            bits = np.zeros(span, dtype=bool)
            bits[m_keys] = True
            inside = bits[keys]
        else:
            inside = _isin_sorted(keys, m_keys)[0]
        return ~inside if mask.complement else inside

    def _merge_carry(self, carry: tuple[int, np.ndarray, np.ndarray], rows: np.ndarray, cols: np.ndarray,
                     values: np.ndarray) -> tuple[np.ndarray, ...]:
        """A row's partial result from the batch before combined with this batch's (its first
        row): equal columns reduced by the monoid, the carried value first."""
        row, c_cols, c_vals = carry
        n_first = int(np.searchsorted(rows, row, side="right"))
        both_cols = np.concatenate([c_cols.astype(np.int64), cols[:n_first].astype(np.int64)])
        both_vals = np.concatenate([c_vals, values[:n_first]])
        order = np.argsort(both_cols, kind="stable")
        both_cols, both_vals = both_cols[order], both_vals[order]
        starts = _run_starts(both_cols)
        merged = self.be.segment_reduce(self.sr.monoid, both_vals, np.append(starts, len(both_cols)))
        return (np.concatenate([np.full(len(starts), row, np.int64), rows[n_first:]]),
                np.concatenate([both_cols[starts], cols[n_first:]]), np.concatenate([merged, values[n_first:]]))


# ---------------------------------------------------------------------------- dot


def dot(be: Any, sr: TypedSemiring, a: CsrOperand, bt: CsrOperand, mask: MaskOperand) -> CsrProduct:
    """``C<M> = A B`` as one dot product per mask position (``bt``: B's columns as rows)."""
    check_fits(mask.nvals, sr.out_type, 8, copies=1)
    m_ptr = mask.indptr.astype(np.int64, copy=False)
    m_rows = np.repeat(np.arange(len(m_ptr) - 1, dtype=np.int64), np.diff(m_ptr))
    m_cols = mask.indices.astype(np.int64)
    a_ptr, b_ptr = a.indptr.astype(np.int64, copy=False), bt.indptr.astype(np.int64, copy=False)
    a_len, b_len = np.diff(a_ptr)[m_rows], np.diff(b_ptr)[m_cols]
    from_a = a_len <= b_len  # expand A(i, :) and search B(:, j); else the other way
    cost = np.where(from_a, a_len, b_len)
    cum = np.zeros(len(cost) + 1, dtype=np.int64)
    np.cumsum(cost, out=cum[1:])
    ctx = _Dot(be, sr, a, bt, a_ptr, b_ptr)
    hit_entries: list[np.ndarray] = []
    hit_vals: list[np.ndarray] = []
    e = 0
    while e < len(cost):
        end = max(int(np.searchsorted(cum, cum[e] + TERM_BUDGET, side="right")) - 1, e + 1)
        batch = np.arange(e, end, dtype=np.int64)[cost[e:end] > 0]
        parts = [ctx.side(side, batch[sel], m_rows[batch[sel]], m_cols[batch[sel]])
                 for side, sel in (("a", from_a[batch]), ("bt", ~from_a[batch])) if sel.any()]
        if len(parts) == 2:  # two sides' results, merged back into the mask's order
            entries = np.concatenate([p[0] for p in parts])
            order = np.argsort(entries)
            hit_entries.append(entries[order])
            hit_vals.append(np.concatenate([p[1] for p in parts])[order])
        elif parts:
            hit_entries.append(parts[0][0])
            hit_vals.append(parts[0][1])
        e = end
    hits = np.concatenate(hit_entries) if hit_entries else np.zeros(0, np.int64)
    row_counts = np.bincount(m_rows[hits], minlength=len(m_ptr) - 1)
    return _product(row_counts, [mask.indices[hits]], hit_vals, bt.nrows, sr.out_type)


class _Dot:
    """One dot-form product: the operands and the sorted keys ``row * K + k`` of their entries
    (each built on first need; column ranks stand in for ``k`` where ``row * K`` would pass
    int64)."""

    def __init__(self, be: Any, sr: TypedSemiring, a: CsrOperand, bt: CsrOperand, a_ptr: np.ndarray,
                 b_ptr: np.ndarray) -> None:
        self.be, self.sr, self.a, self.bt = be, sr, a, bt
        self.ptr = {"a": a_ptr, "bt": b_ptr}
        self.const = _constant_term(sr)
        self.universe = None
        width = a.ncols
        if max(a.nrows, bt.nrows) * max(width, 1) > _INT64_MAX:
            self.universe = np.unique(np.concatenate([a.indices, bt.indices]).astype(np.int64))
            width = len(self.universe)
        self.width = max(width, 1)
        self._keys: dict[str, np.ndarray] = {}

    def _col(self, k: np.ndarray) -> np.ndarray:
        return k if self.universe is None else np.searchsorted(self.universe, k)

    def keys(self, which: str) -> np.ndarray:
        """The sorted keys of operand ``"a"`` or ``"bt"``."""
        if which not in self._keys:
            m = self.a if which == "a" else self.bt
            rows = np.repeat(np.arange(m.nrows, dtype=np.int64), np.diff(self.ptr[which]))
            self._keys[which] = rows * self.width + self._col(m.indices.astype(np.int64))
        return self._keys[which]

    def side(self, own: str, entries: np.ndarray, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For the mask positions ``entries`` (rows ``i``, columns ``j``) expanded from operand
        ``own``'s rows and searched in the other's: (those holding a result, their values)."""
        mine = self.a if own == "a" else self.bt
        own_rows, other_rows = (i, j) if own == "a" else (j, i)
        ptr = self.ptr[own]
        request, position = _expand(ptr[own_rows], ptr[own_rows + 1] - ptr[own_rows])
        k = mine.indices[position].astype(np.int64)
        found, at = _isin_sorted(other_rows[request] * self.width + self._col(k),
                                 self.keys("bt" if own == "a" else "a"))
        hit = np.flatnonzero(found)
        request = request[hit]
        runs = _run_starts(request)
        held = entries[request[runs]]
        by_const = _by_constant(self.sr, self.const, lambda: np.diff(np.append(runs, len(request))))
        if by_const is not None:
            return held, by_const
        pa, pb = (position[hit], at[hit]) if own == "a" else (at[hit], position[hit])
        ikj = (i[request], k[hit], j[request]) if self.sr.mult.positional else None
        values = _reduce_runs(self.be, self.sr, self.a.values, self.bt.values, _Terms(pa, pb, ikj), runs, None)
        return held, values
