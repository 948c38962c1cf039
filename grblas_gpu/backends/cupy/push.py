"""The CuPy backend's push SpMV (``x A`` from the frontier's rows): terms combined atomically
into a dense result, relaxed into the output in place, or claiming the output's gaps."""

from __future__ import annotations

import functools
from typing import Any

import cupy
import numpy as np

from ...dtypes import cast_scalar
from ...operators.base import TypedMonoid, TypedSemiring
from ..base import MatVecCapabilities
from ..operands import CsrOperand, ListedVector, PushOutput, RowMask, VectorOperand
from . import codegen, columns_codegen, signatures
from .codegen import KernelModule
from .common import (
    _BLOCK,
    _ELEMENTWISE_BLOCKS_PER_SM,
    _FLAGS32,
    _bounded_blocks,
    _contiguous,
    _group_size,
    _map_out_of_memory,
)
from .core import CupyCore, values_type
from .counts import DeviceCount
from .launch import launch_kept

__all__ = ["PushOps"]

_KEPT_REPORTS = 4  # clean report arrays kept for relax pushes (per device, stream, monoid, size), dropped beyond
_PUSH_BLOCKS_PER_SM = 16  # balanced and bitmap pushes: enough warps to fill the GPU; more stride
_PUSH_BITMAP_CHANGING = signatures.PUSH_BITMAP.changing
_RESET_CHANGING = signatures.PUSH_RESET.changing
_RELAX_CHANGING = signatures.PUSH_RELAX.changing
_LISTED, _BALANCED = signatures.PUSH_LISTED["main"], signatures.PUSH_LISTED["balanced"]
_BALANCED_CLAIM, _ENDS = signatures.PUSH_LISTED["balanced_claim"], signatures.PUSH_LISTED["ends"]
_ENDS_ONE_BLOCK = 4096  # balanced push: the row-length sums of up to this many rows in one block (<= 15 us)


class PushOps(CupyCore):
    """Push SpMV from a frontier (a list of rows, or a bitmap over all rows)."""

    matvec = MatVecCapabilities(push_positions=2**31, symmetry_before_columns=True)
    """The push kernels address rows and columns as 32-bit positions."""

    push_balance_row = 1024
    """Push from a listed frontier shares its entries among warps evenly when the matrix has
    a row longer than this (a group of lanes per row would leave a hub row to one warp)."""

    def pulls_by_columns(self, semiring: TypedSemiring) -> bool:
        """True when :meth:`spmv_columns` takes ``semiring`` (see :mod:`.columns`): ``u' A`` then
        needs no transpose of A."""
        return columns_codegen.columns_supported(semiring.monoid)

    @_map_out_of_memory
    def spmv_columns(self, semiring: TypedSemiring, a: CsrOperand, u: VectorOperand, mask: RowMask | None = None,
                     matrix_first: bool = False) -> tuple[cupy.ndarray, cupy.ndarray]:
        """``u' A`` (``A' u`` with ``matrix_first``) from A's own rows, no transpose (:mod:`.columns`)."""
        from .columns import spmv_columns

        col_mask, complement = (mask.bits, mask.complement) if mask is not None else (None, False)
        return spmv_columns(self, semiring, a.indptr, a.indices, a.values, u.values, u.present, col_mask, complement,
                            a.ncols, matrix_first)

    def pushes_atomically(self, semiring: TypedSemiring) -> bool:
        """True when ``spmspv`` combines a push into a dense result for ``semiring``."""
        return codegen.atomic_push_supported(semiring.monoid)

    @_map_out_of_memory
    def spmspv(self, semiring: TypedSemiring, a: CsrOperand, u: VectorOperand | ListedVector, size: int,
               vector_first: bool, mask: RowMask | None = None,
               launches: dict[Any, Any] | None = None) -> tuple[cupy.ndarray, cupy.ndarray, Any] | None:
        """Push: ``out[j] = ADD over frontier k of MULT(A[k, j], x[k])`` (operands swapped when
        ``vector_first``), combined atomically into a dense result.  The frontier ``u`` is a
        list of rows with their values (:class:`~..operands.ListedVector`), or a presence array
        over all rows with dense values (:class:`~..operands.VectorOperand`).  A listed
        frontier's ``longest_row`` above ``push_balance_row`` shares its entries evenly among
        warps, so one long row is not left to one group.  ``mask`` keeps only the positions j
        it allows.  ``launches`` (a dict the caller keeps with the matrix's arrays, dropped when
        they change) keeps the push of a bitmap frontier and the reset of the result prepared
        (:func:`launch_kept`), as a loop of levels repeats them.
        Returns (out, present, count), or None when the monoid has no atomic combine (the
        caller then sorts by key).  ``count`` is the number of positions present: a
        :class:`DeviceCount` the push of a bitmap frontier makes as it sets them (read when
        ``int()`` is asked, so no count pass follows), 0 for an empty list, else None (unknown)."""
        if not self.pushes_atomically(semiring):
            return None
        mask_bits, complement = (mask.bits, mask.complement) if mask is not None else (None, False)
        if isinstance(u, ListedVector):
            return self._spmspv(semiring, a.indptr, a.indices, a.values, u.rows, u.values, size, vector_first, False,
                                u.longest_row, mask_bits, complement, launches)
        return self._spmspv(semiring, a.indptr, a.indices, a.values, u.present, u.values, size, vector_first, True,
                            None, mask_bits, complement, launches)

    def _spmspv(self, semiring: TypedSemiring, indptr: Any, indices: Any, values: Any, frontier: Any,
                fvals: Any, size: int, vector_first: bool, dense: bool, longest_row: int | None, mask: Any,
                complement: bool, launches: dict[Any, Any] | None) -> tuple[cupy.ndarray, cupy.ndarray, Any]:
        """:meth:`spmspv` with the records' fields as arguments (``dense``: a bitmap frontier)."""
        ptr, idx = self._csr_arrays(indptr, indices)
        out, present = self._push_result(semiring.monoid, size, launches)
        head = (ptr, idx, self._stored_values(semiring, values, vector_first))  # (cast as the kernel reads them)
        tail = (self._flag_array(mask), _FLAGS32[bool(complement)], out, present)
        if dense:
            own = launches if ptr is indptr and idx is indices else None  # prepared for the matrix's own arrays
            count = self._push_bitmap(semiring, ptr, idx, head[2], frontier, fvals, bool(vector_first), tail, own)
            return out, present, count
        module = codegen.spmspv_module(semiring, idx.dtype, bool(vector_first), ptr.dtype, values_type(head[2]))
        nfront = int(frontier.shape[0])
        if nfront == 0:
            return out, present, 0
        rows = _contiguous(cupy.asarray(frontier, dtype=np.int64))
        xvals = self._matvec_operand(semiring, fvals, vector_first, False)
        mask_flags, complement_flag = tail[0], tail[1]
        if longest_row is not None and longest_row > self.push_balance_row:
            bound = min(nfront * longest_row, idx.size)  # at least the entries to push
            ends = self._row_ends(module, ptr, rows)
            self._launch_changing(module, "balanced", _balanced_blocks(bound), _BLOCK, _BALANCED.pack(
                indptr=ptr, indices=idx, values=head[2], frontier=rows, fvals=xvals, nfront=np.int64(nfront),
                ends=ends, mask=mask_flags, complement=complement_flag, out=out, present=present))
            return out, present, None
        group = _group_size(idx.size, max(ptr.size - 1, 1))
        self._function(module)((-(-nfront * group // _BLOCK),), (_BLOCK,), _LISTED.pack(
            indptr=ptr, indices=idx, values=head[2], frontier=rows, fvals=xvals, nfront=np.int64(nfront),
            mask=mask_flags, complement=complement_flag, out=out, present=present, group=np.int32(group)))
        return out, present, None

    def _push_result(self, monoid: TypedMonoid, size: int,
                     launches: dict[Any, Any] | None) -> tuple[cupy.ndarray, cupy.ndarray]:
        """(values, presence) of a push's result before its terms are combined in: no position
        present, values the monoid's identity (unset for ANY, which stores its terms): one
        pass, kept prepared in ``launches`` where given."""
        out, present = cupy.empty(size, monoid.type.np_type), cupy.empty(size, np.bool_)
        if not size:
            return out, present
        if monoid.is_any:
            present.data.memset_async(0, size)
            return out, present
        t = monoid.type
        launch_kept(launches, ("push reset", monoid, size),
                    lambda: (self._function(codegen.bitmap_module(t), "reset"),
                             _bounded_blocks(size, _ELEMENTWISE_BLOCKS_PER_SM), _BLOCK),
                    signatures.PUSH_RESET.pack(a=_identity(monoid), z=out, bits=present, n=np.int64(size)),
                    _RESET_CHANGING)
        return out, present

    def _push_bitmap(self, semiring: TypedSemiring, ptr: cupy.ndarray, idx: cupy.ndarray, values: Any, bits: Any,
                     fvals: Any, vector_first: bool, tail: tuple[Any, ...],
                     launches: dict[Any, Any] | None) -> DeviceCount | int | None:
        """The push of a frontier given as presence ``bits`` and dense values: warps of 32
        rows striding over them, each frontier row walked by the warp, or short ones by a lane
        each where that takes fewer steps.  ``tail`` is (mask, complement, out,
        present).  ``launches`` (or None) keeps the launch prepared, the pointers that change
        written at each call.  Returns the pending count of present positions (None where
        every count word of the stream is lent: unknown)."""
        n = int(bits.shape[0])
        if not n:
            return 0
        count, (state, counted) = self._pending_count()
        mask, complement, out, present = tail
        args = signatures.PUSH_BITMAP.pack(
            indptr=ptr, indices=idx, values=values, in_frontier=self._flag_array(bits),
            fvals=self._matvec_operand(semiring, fvals, vector_first, False), n=np.int64(n), mask=mask,
            complement=complement, out=out, present=present, state=state, counted=counted)
        stored = values_type(values)
        launch_kept(launches, ("push bitmap", semiring, vector_first, int(tail[1]), stored),
                    lambda: (self._function(codegen.spmspv_module(semiring, idx.dtype, vector_first, ptr.dtype, stored),
                                            "bitmap"), _bounded_blocks(n, _PUSH_BLOCKS_PER_SM), _BLOCK),
                    args, _PUSH_BITMAP_CHANGING)
        return count

    def relaxes(self, semiring: TypedSemiring, claim: bool = False) -> bool:
        """True when :meth:`push_relax` takes ``semiring``: to combine, a min or max monoid of a
        4- or 8-byte type (selective, so the best term that changes a value is the last); to
        ``claim`` positions, an ANY monoid (the first term to reach a position stays)."""
        monoid = semiring.monoid
        if claim:
            return monoid.is_any
        return monoid.name in ("min", "max") and monoid.type.itemsize in (4, 8)

    @_map_out_of_memory
    def push_relax(self, semiring: TypedSemiring, a: CsrOperand, u: VectorOperand, out: PushOutput,
                   vector_first: bool, consume: bool = False,
                   launches: dict[Any, Any] | None = None) -> tuple[cupy.ndarray, cupy.ndarray, Any]:
        """The push of a bitmap frontier ``u`` (presence ``u.present``, dense values) written
        straight into the output's values ``out.values`` (of the monoid's type, in place), in
        one kernel: its terms combined into them (a full output), or with ``out.bits`` (the
        output's presence) only where the output has no entry yet, each such position claimed
        by the first term to reach it.  Returns (presence, values, count) of the entries it
        changed (values: the output's new ones; count a :class:`DeviceCount`, or None where
        every count word is lent).  With ``consume`` (the frontier's arrays are the caller's to
        spend) the kernel leaves them clean, kept for a later call's report, so a loop of such
        pushes makes no array and runs nothing before them.  ``launches``: as for
        :meth:`spmspv`."""
        indptr, indices, values, bits, fvals = a.indptr, a.indices, a.values, u.present, u.values
        c, c_bits = out.values, out.bits
        monoid = semiring.monoid
        ptr, idx = self._csr_arrays(indptr, indices)
        flags, x = self._flag_array(bits), self._matvec_operand(semiring, fvals, vector_first, False)
        size, n = int(c.size), int(flags.size)
        # Only the frontier's own arrays, not copies, and only where they can serve as a report.
        consume = consume and flags is bits and x is fvals and n == size and fvals.dtype == monoid.type.np_type
        key = (cupy.cuda.runtime.getDevice(), cupy.cuda.get_current_stream().ptr, monoid.key, size)
        spare = self._clean_reports.pop(key, None)
        d_vals, d_bits = spare if spare is not None else self._push_result(monoid, size, launches)
        count, (state, counted) = self._pending_count()
        own = launches if ptr is indptr and idx is indices else None  # prepared for the matrix's own arrays
        a = self._stored_values(semiring, values, vector_first)  # (cast as the kernel reads them)
        stored = values_type(a)
        args = signatures.PUSH_RELAX.pack(
            indptr=ptr, indices=idx, values=a, in_frontier=flags, fvals=x, n=np.int64(n), c_bits=c_bits, c=c, d_bits=d_bits, d=d_vals,
            consume=_FLAGS32[consume], identity=_identity(monoid), state=state, counted=counted)
        launch_kept(own, ("push relax", semiring, vector_first, consume, c_bits is not None, stored),
                    lambda: (self._function(codegen.spmspv_module(semiring, idx.dtype, vector_first, ptr.dtype, stored),
                                            "relax"), _bounded_blocks(max(n, 1), _PUSH_BLOCKS_PER_SM), _BLOCK),
                    args, _RELAX_CHANGING)
        if consume:
            self._clean_reports[key] = (fvals, bits)
            while len(self._clean_reports) > _KEPT_REPORTS:  # the least recently kept go
                del self._clean_reports[next(iter(self._clean_reports))]
        return d_bits, d_vals, count

    @_map_out_of_memory
    def push_claim_listed(self, semiring: TypedSemiring, a: CsrOperand, u: ListedVector, out: PushOutput,
                          vector_first: bool) -> tuple[cupy.ndarray, cupy.ndarray, None]:
        """The push of a listed frontier ``u`` (rows and their values) balanced over its
        entries and written into the output where it has no entry (``out.bits`` false), each
        such position claimed by the first term to reach it (an ANY monoid, see
        :meth:`relaxes`), in place: :meth:`push_relax`'s claim for a frontier whose rows may be
        long.  Returns (presence, values, None) of the entries it added (their count is not
        made)."""
        values, rows, fvals, c_bits, c = a.values, u.rows, u.values, out.bits, out.values
        ptr, idx = self._csr_arrays(a.indptr, a.indices)
        size, n = int(c.size), int(rows.shape[0])
        d_vals, d_bits = cupy.empty(size, semiring.out_type.np_type), cupy.zeros(size, np.bool_)
        if n == 0:
            return d_bits, d_vals, None
        a = self._stored_values(semiring, values, vector_first)  # (cast as the kernel reads them)
        module = codegen.spmspv_module(semiring, idx.dtype, bool(vector_first), ptr.dtype, values_type(a))
        rows = _contiguous(cupy.asarray(rows, dtype=np.int64))
        ends = self._row_ends(module, ptr, rows)
        self._launch_changing(module, "balanced_claim", _balanced_blocks(idx.size), _BLOCK, _BALANCED_CLAIM.pack(
            indptr=ptr, indices=idx, values=a,
            frontier=rows, fvals=self._matvec_operand(semiring, fvals, vector_first, False), nfront=np.int64(n),
            ends=ends, c_bits=c_bits, c=c, d_bits=d_bits, d=d_vals))
        return d_bits, d_vals, None

    def _row_ends(self, module: KernelModule, ptr: cupy.ndarray, rows: cupy.ndarray) -> cupy.ndarray:
        """The inclusive prefix sums of the lengths of ``rows``: for a few rows one block of the
        push module (one launch instead of CuPy's take, subtract and scan, each costing more on
        the host than the block on the GPU); for many, CuPy's scan (the block would take longer:
        70 us for 20,000 rows)."""
        n = int(rows.shape[0])
        if n > _ENDS_ONE_BLOCK:
            return cupy.cumsum(ptr[rows + 1] - ptr[rows], dtype=np.int64)
        ends = cupy.empty(n, dtype=np.int64)
        self._launch_changing(module, "ends", 1, 1024, _ENDS.pack(indptr=ptr, frontier=rows, nfront=np.int64(n),
                                                                   ends=ends))
        return ends


def _balanced_blocks(bound: int) -> int:
    """Blocks of a push balanced over at most ``bound`` entries (a warp a tile of them)."""
    return _bounded_blocks(max(-(-bound * 32 // codegen.PUSH_TILE), 1), _PUSH_BLOCKS_PER_SM)


@functools.lru_cache(maxsize=1024)
def _identity(monoid: TypedMonoid) -> Any:
    """The monoid's identity as a scalar of its type (asked once per monoid)."""
    return cast_scalar(monoid.identity, monoid.type)
