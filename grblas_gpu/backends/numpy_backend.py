"""The NumPy backend: the reference implementation of the hot kernels, on the CPU.

The kernel methods below are the whole interface a backend provides; the
sparse glue (sorting, scans, gathers) is written once against ``xp`` in
:mod:`grblas_gpu._sparse`.  The CuPy backend implements the same methods with
CUDA kernels generated from the operators.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..dtypes import BOOL, DataType, cast_scalar
from ..limits import require_bytes
from ..operators.base import Positions, TypedBinaryOp, TypedIndexUnaryOp, TypedMonoid, TypedSemiring, TypedUnaryOp
from ..operators.cmath import cast_array
from . import numpy_mxm
from .base import Backend
from .operands import (
    SPMV_RESULT,
    CsrOperand,
    CsrProduct,
    ListedVector,
    MaskOperand,
    RowMask,
    SpmvOutput,
    VectorOperand,
)

_PULL_BLOCK = 1 << 16  # entries: the least a block of the CPU pull takes (see NumpyBackend._pull)


def _row_blocks(indptr: np.ndarray, block: int) -> Iterator[tuple[int, int]]:
    """(first row, end row) of consecutive blocks of whole rows of about ``block`` entries each
    (at least one row a block)."""
    nrows, lo = len(indptr) - 1, 0
    while lo < nrows:
        hi = min(nrows, max(lo + 1, int(np.searchsorted(indptr, int(indptr[lo]) + block, side="right")) - 1))
        yield lo, hi
        lo = hi


class NumpyBackend(Backend):
    """Kernels as vectorised NumPy."""

    name = "numpy"
    xp = np

    # -------------------------------------------------------------- arrays
    def copy(self, x: np.ndarray) -> np.ndarray:
        """A copy of ``x``."""
        return x.copy()

    def asarray(self, x: Any, dtype: Any = None) -> np.ndarray:
        """``x`` as a NumPy array (copying from a GPU array if needed)."""
        if hasattr(x, "get") and type(x).__module__.startswith("cupy"):
            x = x.get()
        return np.asarray(x, dtype=dtype)

    def to_host(self, x: Any) -> np.ndarray:
        """The array on the host."""
        return np.asarray(x)

    def cast(self, x: Any, t: DataType) -> Any:
        """Cast C-style to ``t``."""
        return cast_array(x, t, np)

    def synchronize(self) -> None:
        """Wait for queued work (nothing to wait for on the CPU)."""

    # -------------------------------------------------------------- element-wise
    def unary(self, op: TypedUnaryOp, x: np.ndarray) -> np.ndarray:
        """``op(x)`` per element; ``x`` is of ``op.in_type``."""
        with np.errstate(all="ignore"):
            z = np.asarray(op.np_func(x))
        return z.astype(op.out_type.np_type, copy=False)

    def binary(self, op: TypedBinaryOp, x: Any, y: Any, pos: Positions | None = None) -> np.ndarray:
        """``op(x, y)`` per element; either side may be a scalar (a bound operand)."""
        return op(x, y, pos)

    def count_true(self, flags: np.ndarray) -> int:
        """The number of true values in a bool array."""
        return int(np.count_nonzero(flags))

    def occurrences(self, idx: np.ndarray, n: int) -> np.ndarray:
        """How many times each of ``0..n-1`` occurs in ``idx`` (int64; every index below ``n``)."""
        return np.bincount(idx, minlength=n).astype(np.int64, copy=False)

    def sum_selected(self, values: np.ndarray, flags: np.ndarray | None = None,
                     rows: np.ndarray | None = None) -> int:
        """The sum of non-negative int64 ``values`` over the positions flagged true in ``flags``,
        or over the positions listed in ``rows``."""
        picked = values[rows] if rows is not None else values[flags]
        return int(picked.sum(dtype=np.int64))

    def full(self, size: int, value: Any, t: DataType) -> np.ndarray:
        """An array of ``size`` elements of type ``t``, each ``value``."""
        require_bytes(size * t.itemsize, "numpy", f"an array of {size} {t} values")
        return np.full(size, cast_scalar(value, t), dtype=t.np_type)

    def bitmap_of(self, idx: np.ndarray, vals: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
        """(presence, dense values) of ``size`` positions holding the entries ``idx``, ``vals``
        (values elsewhere are 0 here; callers never read them)."""
        require_bytes(size * (1 + vals.dtype.itemsize), "numpy", f"a bitmap of {size} positions")
        bits = np.zeros(size, dtype=bool)
        dense = np.zeros(size, dtype=vals.dtype)
        bits[idx] = True
        dense[idx] = vals
        return bits, dense

    def mask_allowed(self, bits: np.ndarray, values: np.ndarray | None, complement: bool,
                     within: np.ndarray | None = None) -> np.ndarray:
        """The positions a mask allows: ``bits`` (and ``values`` as bools, for a value mask;
        None for a structural one), inverted where ``complement``, and-ed with ``within``."""
        allowed = bits if values is None else bits & self.cast(values, BOOL)
        if complement:
            allowed = ~allowed
        return allowed if within is None else allowed & within

    def select_bitmap(self, where: np.ndarray, a_bits: np.ndarray | None, a_vals: Any, c_bits: np.ndarray,
                      c_vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(presence, values): where ``where``, presence ``a_bits`` (everywhere when None) and
        values ``a_vals`` (an array or one scalar); elsewhere ``c_bits`` and ``c_vals``."""
        bits = where | c_bits if a_bits is None else np.where(where, a_bits, c_bits)
        return bits, np.where(where, a_vals, c_vals).astype(c_vals.dtype, copy=False)

    @staticmethod
    def owns_block(a: np.ndarray) -> bool:
        """Whether ``a`` owns its memory as one writeable C-ordered block (not a view of another
        array, nor a read-only buffer): what the in-place writes take."""
        return a.base is None and bool(a.flags.writeable and a.flags.c_contiguous)

    def set_where(self, where: np.ndarray, value: Any, bits: np.ndarray, vals: np.ndarray) -> None:
        """In place: ``bits`` true and ``vals`` ``value`` (of their type) wherever ``where``."""
        bits[where] = True
        vals[where] = value

    def ewise_union(self, op: TypedBinaryOp, x_bits: np.ndarray, x: np.ndarray, y_bits: np.ndarray, y: np.ndarray,
                    x_default: Any, y_default: Any,
                    out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """eWiseUnion of two bitmaps: ``op`` where both hold an entry, ``op`` with the other
        side's default where one does.  Returns (values, presence), copied into ``out``
        (values, presence) where given."""
        xs = np.where(x_bits, self.cast(x, op.x_type), cast_scalar(x_default, op.x_type))
        ys = np.where(y_bits, self.cast(y, op.y_type), cast_scalar(y_default, op.y_type))
        vals, bits = op(xs, ys, None), x_bits | y_bits
        if out is None:
            return vals, bits
        np.copyto(out[0], vals)
        np.copyto(out[1], bits)
        return out

    def ewise_add(self, op: TypedBinaryOp, x_bits: np.ndarray, x: np.ndarray, y_bits: np.ndarray,
                  y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """eWiseAdd of two bitmaps: ``op`` where both hold an entry, the lone value where one
        does.  Returns (values, presence); ``op`` as :meth:`Backend.adds_in_one_pass` says."""
        self.check_adds_in_one_pass(op)
        both = op(x, y, None)
        return np.where(x_bits & y_bits, both, np.where(x_bits, x, y)).astype(op.out_type.np_type), x_bits | y_bits

    def ewise_add_into(self, op: TypedBinaryOp, x_bits: np.ndarray, x: np.ndarray, y_bits: np.ndarray,
                       y: np.ndarray) -> None:
        """:meth:`ewise_add` written into ``x_bits`` and ``x`` (arrays of ``op``'s type that the
        caller owns; presence already true is not written, so ``x_bits`` may be shared where
        it is all true)."""
        self.check_adds_in_one_pass(op)
        both, lone = y_bits & x_bits, y_bits & ~x_bits
        x[both] = op(x[both], y[both], None)
        x[lone] = y[lone]
        if lone.any():
            x_bits[lone] = True

    def ewise_add_changes(self, op: TypedBinaryOp, x_bits: np.ndarray, x: np.ndarray, y_bits: np.ndarray,
                          y: np.ndarray, z: tuple[np.ndarray, np.ndarray] | None = None,
                          d: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[Any, ...]:
        """:meth:`ewise_add` of y into x, reporting what it changes.  The result goes to ``z``
        (presence, values: x's own arrays, written in place, or None for new arrays), and the
        entries it makes new or different from x's (a NaN matching a NaN) to ``d`` (presence,
        values of op's type; None for new arrays).  Returns (z_bits, z, d_bits, d, the
        number of entries in d)."""
        self.check_adds_in_one_pass(op)
        both = y_bits & x_bits
        now = y.astype(x.dtype, copy=True)
        now[both] = op(x[both], y[both], None)
        old = x[y_bits]
        fresh = now[y_bits]
        same = (fresh == old) | (np.isnan(fresh) & np.isnan(old)) if x.dtype.kind == "f" else fresh == old
        changed = y_bits.copy()
        changed[y_bits] = ~(x_bits[y_bits] & same)
        z_bits, z_vals = z if z is not None else (x_bits.copy(), x.copy())
        z_vals[y_bits] = fresh
        z_bits |= y_bits
        d_bits, d_vals = d if d is not None else (np.empty_like(changed), np.empty_like(x))
        d_bits[:] = changed
        d_vals[changed] = now[changed]
        return z_bits, z_vals, d_bits, d_vals, int(np.count_nonzero(changed))

    def indexunary(self, op: TypedIndexUnaryOp, x: np.ndarray, i: Any, j: Any, thunk: Any) -> np.ndarray:
        """``op(x, i, j, thunk)`` per element; ``i``/``j`` are int64 arrays or ints."""
        with np.errstate(all="ignore"):
            z = np.asarray(op.np_func(x, i, j, thunk))
        z = np.broadcast_to(z, x.shape) if z.shape != x.shape else z
        return z.astype(op.out_type.np_type)

    def spmspv(self, semiring: TypedSemiring, a: CsrOperand, u: VectorOperand | ListedVector, size: int,
               vector_first: bool, mask: RowMask | None = None, launches: dict[Any, Any] | None = None) -> None:
        """No atomic push on the CPU: the caller's expand-and-sort path is the reference."""
        return

    def spmv_plan(self, indptr: Any, indices: Any = None, ncols: int = 0) -> None:
        """No plan: the NumPy SpMV needs none."""
        return

    # -------------------------------------------------------------- matrix products
    def mxm_gustavson(self, semiring: TypedSemiring, a: CsrOperand, b: CsrOperand,
                      mask: MaskOperand | None = None) -> CsrProduct:
        """``C = A B`` row by row, in batches of product terms (see :mod:`.numpy_mxm`)."""
        return numpy_mxm.gustavson(self, semiring, a, b, mask)

    def mxm_dot(self, semiring: TypedSemiring, a: CsrOperand, bt: CsrOperand, mask: MaskOperand) -> CsrProduct:
        """``C<M> = A B`` as a dot product per mask position (see :mod:`.numpy_mxm`)."""
        return numpy_mxm.dot(self, semiring, a, bt, mask)

    # -------------------------------------------------------------- reductions
    def segment_reduce(self, monoid: TypedMonoid, values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Reduce ``values[offsets[s]:offsets[s+1]]`` with the monoid for every segment s.

        Every segment must be non-empty.
        """
        starts = np.asarray(offsets[:-1], dtype=np.int64)
        if len(starts) == 0:
            return np.empty(0, monoid.type.np_type)
        if monoid.is_any:
            return values[starts].copy()
        if monoid.ufunc is not None:
            t = monoid.type.np_type
            if values.dtype != t:  # a narrower type: widened a block at a time (no full-size copy)
                return self._widening_reduce(monoid.ufunc, values, np.asarray(offsets, dtype=np.int64), t)
            with np.errstate(all="ignore"):
                return monoid.ufunc.reduceat(values, starts).astype(t, copy=False)
        return self._pairwise_reduce(monoid.op, values, starts)

    @staticmethod
    def _widening_reduce(ufunc: Any, values: np.ndarray, offsets: np.ndarray, t: Any) -> np.ndarray:
        """``ufunc.reduceat`` of ``values`` cast to ``t``, over blocks of whole segments."""
        out = np.empty(len(offsets) - 1, dtype=t)
        i = 0
        while i < len(out):
            j = min(len(out), max(i + 1, int(np.searchsorted(offsets, offsets[i] + _PULL_BLOCK, side="right")) - 1))
            part = values[offsets[i]:offsets[j]].astype(t)
            with np.errstate(all="ignore"):
                out[i:j] = ufunc.reduceat(part, offsets[i:j] - offsets[i])
            i = j
        return out

    def reduce_all(self, monoid: TypedMonoid, values: np.ndarray) -> np.ndarray:
        """All of ``values`` (at least one) reduced with the monoid, as a 1-element array."""
        t = monoid.type.np_type
        if monoid.ufunc is not None and not monoid.is_any and values.dtype == t:
            # ufunc.reduce, not reduceat: the terms in order (pairwise for long arrays), as
            # SuiteSparse sums a short vector; reduceat's unrolled order differs in the last bit.
            # dtype=t: NumPy sums and multiplies small integers in its default int (no C wrap)
            with np.errstate(all="ignore"):
                return np.asarray([monoid.ufunc.reduce(values, dtype=t)], dtype=t)
        return self.segment_reduce(monoid, values, np.asarray([0, len(values)], dtype=np.int64))

    def dot(self, semiring: TypedSemiring, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The inner product of two full vectors' values (at least one; the multiplier not
        positional) over the semiring, as a 1-element array."""
        mult = semiring.mult
        prod = mult(self.cast(x, mult.x_type), self.cast(y, mult.y_type), None)
        return self.reduce_all(semiring.monoid, self.cast(prod, semiring.monoid.type))

    def _pairwise_reduce(self, op: TypedBinaryOp, values: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """Segmented reduction by any vectorised operator: halve every segment per round."""
        n = len(values)
        seg = np.zeros(n, dtype=np.int64)
        seg[starts[1:]] = 1
        seg = np.cumsum(seg)
        vals = values
        while len(vals) > len(starts):
            first = np.ones(len(vals), dtype=bool)
            first[1:] = seg[1:] != seg[:-1]
            idx = np.arange(len(vals))
            offset = idx - np.maximum.accumulate(np.where(first, idx, 0))
            even = offset % 2 == 0
            has_next = np.zeros(len(vals), dtype=bool)
            has_next[:-1] = seg[1:] == seg[:-1]
            pair = even & has_next
            left = np.flatnonzero(pair)
            merged = vals.copy()
            merged[left] = op(vals[left], vals[left + 1])
            vals, seg = merged[even], seg[even]
        return vals

    def spmv(self, semiring: TypedSemiring, a: CsrOperand, u: VectorOperand, vector_first: bool, plan: Any = None,
             mask: RowMask | None = None, output: SpmvOutput = SPMV_RESULT) -> tuple[np.ndarray, np.ndarray] | None:
        """Pull SpMV over CSR rows: ``out[r] = ADD_k MULT(A[r,k], x[k])`` for present ``x[k]``, ``x``
        the values of ``u``.

        ``vector_first`` computes ``MULT(x[k], A[r,k])`` instead (vxm through the transpose).
        Positions are (r, k, k, 0), or (0, k, k, r) when ``vector_first``.  Rows the ``mask``
        excludes are not computed.  Returns the dense result and a presence array (made here
        even when ``output.presence`` is False: the caller may then ignore it).
        ``output.into`` (presence and values of the result's type, owned by the caller, no row
        mask): the result is added into them by the monoid, and they are returned as (values,
        presence).  ``output.out`` (values the caller owns) may take the result; here a new
        array always does.  ``output.claim`` (values owned by the caller, the mask's bits their
        presence, complemented): each computed row's result is also written into them, its
        presence set (``C(~C.S) << A x``); the result holds the entries added.
        """
        indptr, indices, values = a.indptr, a.indices, a.values
        x, x_present = u.values, u.present
        row_mask, complement = (None, False) if mask is None else (mask.bits, mask.complement)
        into, claim = output.into, output.claim
        if into is not None:
            if row_mask is not None:
                return None
            out, present = self._pull(semiring, indptr, indices, values, x, x_present, None, vector_first, False)
            bits, vals = into
            self.ewise_add_into(semiring.monoid.op, bits, vals, present, out)
            return vals, bits
        if claim is not None:
            if row_mask is None or not complement:
                return None
            out, present = self._pull(semiring, indptr, indices, values, x, x_present, row_mask, vector_first, True)
            claim[present] = out[present]
            row_mask[present] = True
            return out, present
        return self._pull(semiring, indptr, indices, values, x, x_present, row_mask, vector_first, complement)

    def pulls_by_columns(self, semiring: TypedSemiring) -> bool:
        """True when :meth:`spmv_columns` takes ``semiring``: a monoid with a NumPy ufunc (plus,
        times, min, max, the logical ones), or ANY (a column keeps one of its terms: BFS's
        products go from A's own rows, and no transpose of A is built for them)."""
        m = semiring.monoid
        return m.is_any or m.ufunc is not None

    def spmv_columns(self, semiring: TypedSemiring, a: CsrOperand, u: VectorOperand, mask: RowMask | None = None,
                     matrix_first: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """``u' A`` from A's own CSR, without its transpose: ``out[c] = ADD_r MULT(x[r], A[r,c])``
        over the present ``x[r]`` (positions (0, r, r, c)), and the presence of each column.
        ``matrix_first``: ``A' u`` instead, ``MULT(A[r,c], x[r])`` at positions (c, r, r, 0).

        Each block of rows' terms is combined into the result by the monoid's ``ufunc.at``, in
        row order, so a column's terms meet in the order a pull of the transpose reads them
        (ANY's by a plain scatter: one of a column's terms, as any pull may keep).
        Temporaries are bounded by a block (about 40 bytes an entry of it); no transpose, which
        a loop of products would otherwise keep (as large as A), is built.  Columns outside
        ``mask`` (inside it, with its ``complement``) are not computed.
        """
        indptr, indices, values, ncols = a.indptr, a.indices, a.values, a.ncols
        x, x_present = u.values, u.present
        col_mask, complement = (mask.bits, mask.complement) if mask is not None else (None, False)
        if complement and col_mask is not None:
            col_mask = ~np.asarray(col_mask, dtype=bool)
        monoid, t = semiring.monoid, semiring.out_type
        out = np.full(ncols, monoid.identity, dtype=t.np_type)
        present = np.zeros(ncols, dtype=bool)
        for lo, hi in _row_blocks(indptr, max(_PULL_BLOCK, len(indices) >> 5)):
            self._push_rows(semiring, indptr, indices, values, x, x_present, col_mask, matrix_first, lo, hi,
                            out, present)
        if monoid.identity != 0:
            out[~present] = 0  # (as the pull leaves them: values where absent are not read)
        return out, present

    def _push_rows(self, semiring: TypedSemiring, indptr: np.ndarray, indices: np.ndarray, values: np.ndarray,
                   x: np.ndarray, x_present: np.ndarray | None, col_mask: np.ndarray | None, matrix_first: bool,
                   lo: int, hi: int, out: np.ndarray, present: np.ndarray) -> None:
        """:meth:`spmv_columns` for rows ``lo`` to ``hi``, combined into ``out`` and ``present``."""
        first, last = int(indptr[lo]), int(indptr[hi])
        cols, values = indices[first:last], values[first:last]
        lengths = np.diff(indptr[lo:hi + 1])
        mult = semiring.mult
        reads_a = mult.reads("x" if matrix_first else "y")
        # x, its presence and the row numbers repeated along the rows (no int64 row of each
        # entry unless the operator is positional), then the entries kept selected
        xv = np.repeat(x[lo:hi], lengths)
        rows = np.repeat(np.arange(lo, hi, dtype=np.int64), lengths) if mult.positional else None
        keep = None if x_present is None else np.repeat(x_present[lo:hi], lengths)
        if col_mask is not None:
            in_mask = col_mask[cols]
            keep = in_mask if keep is None else keep & in_mask
        if keep is not None:
            xv, cols = xv[keep], cols[keep]
            rows = None if rows is None else rows[keep]
            if reads_a:
                values = values[keep]
        cols = cols.astype(np.intp)  # (scatters by int32 indices convert them: three times slower)
        if reads_a:  # cast here, a block at a time (no full-size copy)
            values = cast_array(values, mult.x_type if matrix_first else mult.y_type)
        else:  # (a value the operator ignores)
            values = np.zeros(1, dtype=(mult.x_type if matrix_first else mult.y_type).np_type)
        if matrix_first:
            pos = Positions(cols, rows, rows, 0) if mult.positional else None
            prod = mult(values, xv, pos)
        else:
            pos = Positions(0, rows, rows, cols) if mult.positional else None
            prod = mult(xv, values, pos)
        prod = cast_array(prod, semiring.out_type)
        if semiring.monoid.is_any:  # any term will do: a plain scatter keeps one per column
            out[cols] = prod
        else:
            with np.errstate(all="ignore"):
                semiring.monoid.ufunc.at(out, cols, prod)
        present[cols] = True

    def _pull(self, semiring: TypedSemiring, indptr: np.ndarray, indices: np.ndarray, values: np.ndarray,
              x: np.ndarray, x_present: np.ndarray | None, row_mask: np.ndarray | None, vector_first: bool,
              complement: bool) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`spmv`'s product itself: (values, presence) of every row."""
        if complement and row_mask is not None:
            row_mask = ~np.asarray(row_mask, dtype=bool)
        nrows = len(indptr) - 1
        out = np.zeros(nrows, dtype=semiring.out_type.np_type)
        present = np.zeros(nrows, dtype=bool)
        # Blocks of whole rows, so that the temporaries (a dozen bytes and more per entry) are
        # bounded by a block, not by the matrix: the working memory stays a small share of it.
        for lo, hi in _row_blocks(indptr, max(_PULL_BLOCK, len(indices) >> 7)):
            self._pull_rows(semiring, indptr, indices, values, x, x_present, row_mask, vector_first, lo, hi,
                            out, present)
        return out, present

    def _pull_rows(self, semiring: TypedSemiring, indptr: np.ndarray, indices: np.ndarray, values: np.ndarray,
                   x: np.ndarray, x_present: np.ndarray | None, row_mask: np.ndarray | None, vector_first: bool,
                   lo: int, hi: int, out: np.ndarray, present: np.ndarray) -> None:
        """:meth:`_pull` for rows ``lo`` to ``hi``, into ``out`` and ``present``."""
        first, last = int(indptr[lo]), int(indptr[hi])
        indices, values = indices[first:last], values[first:last]
        keep = None if x_present is None else x_present.take(indices)  # (take: int32 indices unconverted)
        kept = np.flatnonzero(keep) if keep is not None and row_mask is None else None
        if kept is not None and len(kept) < (last - first) >> 2:  # a sparse x: the rows of its terms only
            rows = np.searchsorted(indptr[lo:hi + 1], kept + first, side="right") + (lo - 1)
            indices, values, keep = indices[kept], values[kept], None
        else:
            rows = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(indptr[lo:hi + 1]))
        if row_mask is not None:
            in_mask = row_mask[rows]
            keep = in_mask if keep is None else keep & in_mask
        if keep is not None:
            rows, indices, values = rows[keep], indices[keep], values[keep]
        cols = indices.astype(np.int64)
        xv = x[cols]
        mult = semiring.mult
        if mult.reads("y" if vector_first else "x"):  # cast here, a block at a time (no full-size copy)
            values = cast_array(values, mult.y_type if vector_first else mult.x_type)
        if vector_first:
            pos = Positions(0, cols, cols, rows) if mult.positional else None
            prod = mult(xv, values, pos)
        else:
            pos = Positions(rows, cols, cols, 0) if mult.positional else None
            prod = mult(values, xv, pos)
        prod = cast_array(prod, semiring.out_type)
        if len(rows):
            starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
            seg_rows = rows[starts]
            out[seg_rows] = self.segment_reduce(semiring.monoid, prod, np.r_[starts, len(rows)])
            present[seg_rows] = True
