"""The CuPy backend's pull SpMV (``A x`` row by row): one launch for a small matrix, the
merge-path schedule, or rows binned by length, as the matrix's :class:`SpmvPlan` says."""

from __future__ import annotations

import functools
from typing import Any

import cupy
import numpy as np

from ...dtypes import DataType
from ...operators.base import TypedSemiring
from ..operands import SPMV_RESULT, CsrOperand, RowMask, SpmvOutput, VectorOperand
from . import codegen, signatures
from .codegen import KernelModule
from .common import (
    _BLOCK,
    _ELEMENTWISE_BLOCKS_PER_SM,
    _FLAGS32,
    _NULL,
    _ZERO64,
    _bounded_blocks,
    _device_available,
    _group_size,
    _map_out_of_memory,
)
from .core import CupyCore, values_type
from .launch import PreparedLaunch, launch_kept
from .spmv_plans import ColumnCache, SpmvPlan, _class_table, _hot_columns

__all__ = ["PullOps"]

_EARLY_EXIT_LANES = 4
"""Lanes per row at most in a pull whose monoid stops at its first term (ANY) or at its
terminal value (LOR, LAND): most rows stop within their first entries, and more lanes read
entries for nothing (kron scale 22 BFS, its pulls' kernels per run by lanes per row at most:
32: 623 us, 16: 480, 8: 366, 4: 302, 2: 281, 1: 293; 4 keeps some parallel reads for rows
that find their terms later)."""
# The kernels' signatures (see signatures.py): the launches pack their arguments by name.  The
# one-launch pull's kept launch writes the vector's, the mask's and the result's arrays at each
# call, or the bare one only its values, vector and result; the binned and long rows' kernels
# take the same per-call arguments, as do the merge kernel and its column-cache form.
_VECTOR, _BARE = signatures.SPMV_VECTOR, signatures.SPMV_VECTOR_BARE
_MERGE, _FIXUP, _GATHER = signatures.SPMV_MERGE, signatures.SPMV_MERGE_FIXUP, signatures.SPMV_MERGE_GATHER


@functools.cache
def _shared_memory(device: int) -> tuple[int, int]:
    """(shared memory an SM may give its blocks, bytes the driver reserves per block) of a
    device, in bytes (asked once per device)."""
    attributes = cupy.cuda.Device(device).attributes
    return int(attributes["MaxSharedMemoryPerMultiprocessor"]), int(attributes.get("ReservedSharedMemoryPerBlock", 0))


def _leave_l1(fn: Any, blocks: int) -> None:
    """Ask for just the shared memory ``blocks`` blocks of ``fn`` need on an SM of the current
    device, the rest of the SM's memory being L1 (the driver, left to choose, keeps more shared
    memory than that: see the merge template's launch bounds)."""
    per_sm, reserved = _shared_memory(cupy.cuda.runtime.getDevice())
    fn.preferred_shared_memory_carveout = codegen.carveout_percent(int(fn.shared_size_bytes), blocks, per_sm, reserved)


def _pull_lanes(semiring: TypedSemiring) -> int:
    """The most lanes a pull gives one row: a warp, or :data:`_EARLY_EXIT_LANES` for monoids
    that stop early."""
    return _EARLY_EXIT_LANES if semiring.monoid.stops_early else 32


class _MergeCall:
    """A merge-path pull's launches, packed once per (plan, semiring, operand form): the gather
    into the column cache (or None), the main kernel and the fix-up (None without tiles), and
    the scratch presence for a caller that knows its result's (or None)."""

    def __init__(self, semiring: TypedSemiring, nrows: int, gather: PreparedLaunch | None,
                 main: PreparedLaunch | None, fixup: PreparedLaunch | None, scratch: cupy.ndarray | None) -> None:
        self.semiring, self.nrows = semiring, nrows
        self.gather, self.main, self.fixup, self.scratch = gather, main, fixup, scratch

    def run(self, values: Any, x: Any, x_present: Any, row_mask: Any,
            into: tuple[cupy.ndarray, cupy.ndarray] | None,
            out: cupy.ndarray | None) -> tuple[cupy.ndarray, cupy.ndarray | None]:
        """Launch on the current stream: see :meth:`CupyBackend._spmv_merge`."""
        if self.gather is not None:
            self.gather.launch(*_GATHER.pack_per_call(x=x, x_present=x_present))
        if into is not None:
            out, present = into[1], into[0]
        elif out is None:  # a new result, allocated while the gather runs
            out, present = _spmv_result(self.semiring, self.nrows)
        else:
            present = self.scratch
        if self.main is not None:
            self.main.launch(*_MERGE.pack_per_call(values=values, x=x, x_present=x_present, row_mask=row_mask,
                                                   out=out, present=present))
            self.fixup.launch(*_FIXUP.pack_per_call(out=out, present=present))  # type: ignore[union-attr]
        return out, None if self.scratch is not None else present


class PullOps(CupyCore):
    """Pull SpMV over CSR rows."""

    hot_columns = 1 << 18
    """Columns a :class:`ColumnCache` gathers (1 MB of FP32); made for matrices of at least
    ``hot_min_nnz`` entries and four times as many columns, whose hot columns hold at least
    ``hot_min_share`` of the entries (a power-law graph; a grid's or a road map's do not)."""

    hot_min_nnz = 1 << 22

    hot_min_share = 0.5

    @_map_out_of_memory
    def spmv(self, semiring: TypedSemiring, a: CsrOperand, u: VectorOperand, vector_first: bool,
             plan: SpmvPlan | None = None, mask: RowMask | None = None,
             output: SpmvOutput = SPMV_RESULT) -> tuple[cupy.ndarray, cupy.ndarray | None] | None:
        """Pull SpMV over CSR rows: ``out[r] = ADD_k MULT(A[r,k], x[k])`` for present ``x[k]``, ``x``
        the values of ``u``.

        ``vector_first`` computes ``MULT(x[k], A[r,k])`` instead (vxm through the transpose).
        Positions are (r, k, k, 0), or (0, k, k, r) when ``vector_first``.  Rows the ``mask``
        excludes are not computed.  Returns the dense result and a presence array.
        ``plan`` (from :meth:`spmv_plan` on the same ``a.indptr``) splits the work: merge-path
        tiles where the semiring allows, else rows binned by length.  With ``output.presence``
        False the caller has the presence already (every x[k] present, no mask: the nonempty
        rows), and the rows-by-length schedule returns None in its place, writing none.

        ``output.into`` (presence and values of the result's type, owned by the caller, no row
        mask) asks for the result to be added into them by the monoid instead (an accumulating
        write in the same pass), which the merge schedule does: the arrays are then returned.
        Where that schedule does not apply, nothing runs and None is returned.

        ``output.out`` (values of the result's type that the caller owns) may be written with
        the result in place of a new array, which the one-launch schedule of a small matrix and
        the merge schedule do when ``presence`` is False; the returned array is the result
        either way.

        ``output.claim`` (values of the result's type owned by the caller, the mask's bits their
        presence, complemented: the mask ``~C.S``) asks for each computed row's result to be
        written into C as well, in place, its presence set: ``C(~C.S) << A x`` in the pass that
        computes it, the returned result holding the entries added.  The one-launch schedule
        (rows in order) does it; where the merge schedule or rows binned by length would run,
        nothing runs and None is returned.
        """
        indptr, indices, values = a.indptr, a.indices, a.values
        x, x_present = u.values, u.present
        row_mask, complement = (None, False) if mask is None else (mask.bits, mask.complement)
        presence, into, out, claim = output.presence, output.into, output.out, output.claim
        if into is None and plan is not None and plan.tile_row is None:
            repeated = self._repeat_one_launch(semiring, plan, (indptr, indices, values, x, x_present, row_mask),
                                               vector_first, complement, out, presence, claim)
            if repeated is not None:
                return repeated
        ptr, idx = self._csr_arrays(indptr, indices)
        nrows = max(len(ptr) - 1, 0)
        merge = plan is not None and plan.tile_row is not None and codegen.merge_schedule_applies(semiring)
        if into is not None and (not merge or row_mask is not None or nrows == 0):
            return None
        if claim is not None and (not self.pull_claims(semiring, plan) or row_mask is None or not complement):
            return None
        if nrows == 0:
            return _spmv_result(semiring, 0)
        operands = (ptr, idx, self._stored_values(semiring, values, vector_first),
                    self._matvec_operand(semiring, x, vector_first, False))
        stored = getattr(operands[2], "dtype", None)  # (kernels and kept launches are per stored type)
        flags = (self._flag_array(x_present), self._flag_array(row_mask))
        if merge:
            if complement and row_mask is not None:  # the merge kernels take the allowed rows only
                flags = (flags[0], self.mask_allowed(flags[1], None, True))
            reuse = out if into is None and not presence and out is not None and out.size == nrows else None
            assert plan is not None  # (merge is chosen with a plan only)
            return self._spmv_merge(semiring, operands, flags, plan, bool(vector_first), nrows, into, reuse)
        # A small matrix's one launch is kept prepared for its own arrays (CuPy's conversion of
        # its 15 arguments costs more than the kernel), and may write into the caller's ``out``.
        own = plan is not None and plan.tile_row is None and ptr is plan.indptr and idx is plan.indices
        out, present = _one_launch_outputs(semiring, nrows, out if own else None, presence)
        claimed = (_NULL, _NULL)
        if claim is not None:  # C's presence goes as c_bits, read and written there (no row mask)
            claimed, flags = (claim, flags[1]), (flags[0], _NULL)
        lanes = _pull_lanes(semiring)

        def module() -> KernelModule:
            return codegen.spmv_module(semiring, idx.dtype, bool(vector_first), "vector", ptr.dtype,
                                       values_type(operands[2]))

        if plan is None or plan.classes is None:
            group = min(_group_size(idx.size, nrows), lanes)
            bare = _is_bare(x_present, row_mask, claim, presence, complement)
            args = _VECTOR.pack(indptr=ptr, indices=idx, values=operands[2], x=operands[3], x_present=flags[0],
                                row_mask=flags[1], mask_complement=_FLAGS32[bool(complement)], rows=_NULL,
                                nrows=np.int64(nrows), out=out, present=present, c=claimed[0], c_bits=claimed[1],
                                long_row=_ZERO64, group=np.int32(group))
            launch_kept(plan.derived if own and plan is not None else None,
                        _one_launch_key(semiring, vector_first, complement, bare, stored),
                        lambda: (self._function(module()), -(-nrows * group // _BLOCK), _BLOCK),
                        args, _BARE.changing if bare else _VECTOR.changing)
            return out, present
        # The length classes run in one launch (a launch a class cost a slow host 10-15 us
        # each, seven a pull), the long rows in another, both packed once per plan for its own
        # arrays: CuPy's conversion of their 15 arguments cost more than the driver's launch.
        key = ("binned call", semiring, bool(vector_first), bool(complement), stored)
        launches = plan.derived.get(key)
        if launches is None:
            launches = self._binned_launches(module(), plan, ptr, idx, lanes, complement)
            if ptr is plan.indptr and idx is plan.indices:
                plan.derived[key] = launches
        changes = signatures.SPMV_BINNED.pack_per_call(values=operands[2], x=operands[3], x_present=flags[0],
                                                       row_mask=flags[1], out=out, present=present, c=claimed[0],
                                                       c_bits=claimed[1])
        for launch in launches:
            launch.launch(*changes)
        return out, present

    def pull_claims(self, semiring: TypedSemiring, plan: SpmvPlan | None) -> bool:
        """Whether :meth:`spmv` takes ``claim`` with this plan: only in the one-launch schedule
        (rows in order).  Rows binned by length are written scattered, and c's 8-byte values
        and flags written so cost more than the join pass they replace (kron scale 22 BFS
        pulls: 477 -> 585 us against 73 us of joins); the merge schedule has no claim."""
        if plan is None:
            return True
        return plan.classes is None and not (plan.tile_row is not None and codegen.merge_schedule_applies(semiring))

    def _binned_launches(self, module: KernelModule, plan: SpmvPlan, ptr: cupy.ndarray, idx: cupy.ndarray,
                         lanes: int, complement: bool) -> list[PreparedLaunch]:
        """A binned pull's launches (every length class in one, then the long rows'), each
        taking (values, x, x_present, row_mask, out, present, c, c_bits) at launch."""
        matrix = {"indptr": ptr, "indices": idx, "mask_complement": _FLAGS32[bool(complement)]}
        launches = []
        table, blocks = _class_table(plan.classes or [], lanes)
        if blocks:
            args = signatures.SPMV_BINNED.arguments(**matrix, rows=plan.class_rows, table=table,
                                                    nclasses=np.int32(table.size // 4))
            launches.append(PreparedLaunch(self._function(module, "binned"), blocks, _BLOCK, args))
        if plan.long_rows is not None and plan.long_rows.size:
            args = signatures.SPMV_LONG.arguments(**matrix, rows=plan.long_rows)
            launches.append(PreparedLaunch(self._function(module, "long"), plan.long_rows.size, _BLOCK, args))
        return launches

    def _repeat_one_launch(self, semiring: TypedSemiring, plan: SpmvPlan, arrays: tuple[Any, ...], vector_first: bool,
                           complement: bool, out: cupy.ndarray | None, presence: bool,
                           claim: cupy.ndarray | None) -> tuple[cupy.ndarray, cupy.ndarray | None] | None:
        """A small matrix's one-launch pull through the launch an earlier call kept, without
        that call's setup (on a slow host it cost more than the launch): ``arrays`` are spmv's
        (indptr, indices, values, x, x_present, row_mask); ``out``, ``presence`` and ``claim``
        as spmv takes them.  Returns (values, presence), or None, with nothing done, where no launch
        is kept for them."""
        indptr, indices, values, x, x_present, row_mask = arrays
        nrows = indptr.size - 1
        bare = _is_bare(x_present, row_mask, claim, presence, complement)
        a = self._stored_values(semiring, values, vector_first)
        prepared = plan.derived.get(_one_launch_key(semiring, vector_first, complement, bare, getattr(a, "dtype", None)))
        if prepared is None or indptr is not plan.indptr or indices is not plan.indices:
            return None
        out, present = _one_launch_outputs(semiring, nrows, out, presence)
        if bare:  # the null pointers are packed in the launch: three arguments change
            prepared.launch(*_BARE.pack_per_call(values=a, x=self._matvec_operand(semiring, x, vector_first, False),
                                                 out=out))
            return out, None
        flags = self._flag_array(row_mask)
        row_mask, c_bits = (flags, None) if claim is None else (None, flags)  # (see spmv)
        prepared.launch(*_VECTOR.pack_per_call(
            values=a, x=self._matvec_operand(semiring, x, vector_first, False), x_present=self._flag_array(x_present),
            row_mask=row_mask, out=out, present=present, c=claim, c_bits=c_bits))
        return out, present

    def _spmv_merge(self, semiring: TypedSemiring, operands: tuple[Any, ...], flags: tuple[Any, Any], plan: SpmvPlan,
                    vector_first: bool, nrows: int, into: tuple[cupy.ndarray, cupy.ndarray] | None = None,
                    out: cupy.ndarray | None = None) -> tuple[cupy.ndarray, cupy.ndarray | None]:
        """The merge-path schedule: one block per tile, then the carries that cross tiles.
        ``operands`` are (indptr, indices, values, x), ``flags`` (x_present, row_mask); what the
        pull reads of x (values, presence) goes through the matrix's :class:`ColumnCache` if it
        has one.  Returns the result of ``nrows`` rows, allocated once the gather (the first
        kernel) is queued, so the GPU starts while the host allocates; or, with ``into``
        (presence, values), added into those and returned as (values, presence); or, with
        ``out`` (values the caller owns; the caller knows the presence), written into ``out``
        with no allocation at all, returned as (out, None): the main kernel then follows the
        gather at once (an allocation between them left the GPU idle 30 us of a 630 us
        product at scale 22)."""
        ptr, idx, values, x = operands
        x_present, row_mask = flags
        # A repeated call on the plan's own arrays takes the launches an earlier call kept,
        # with no other work between them (host work between two launches leaves the GPU idle).
        own = ptr is plan.indptr and idx is plan.indices
        key = ("merge call", semiring, vector_first, x is not _NULL, x_present is not _NULL, into is not None,
               out is not None, getattr(values, "dtype", None))
        call = plan.derived.get(key) if own else None
        if call is None:
            call = self._merge_call(semiring, ptr, idx, values_type(values), x, x_present, plan, vector_first, nrows,
                                    into is not None, out is not None)
            if own:
                plan.derived[key] = call
        return call.run(values, x, x_present, row_mask, into, out)

    def _merge_call(self, semiring: TypedSemiring, ptr: cupy.ndarray, idx: cupy.ndarray, stored: DataType | None,
                    x: Any, x_present: Any, plan: SpmvPlan, vector_first: bool, nrows: int, into: bool,
                    known: bool) -> _MergeCall:
        """The launches of a merge-path pull, packed with everything that stays the same from
        call to call on these arrays (``stored``: the type of the matrix's values, None where
        the product ignores them): see :meth:`_spmv_merge`."""
        module = codegen.spmv_module(semiring, idx.dtype, vector_first, "merge", ptr.dtype, stored)
        tile_row = plan.tile_row
        ntiles = tile_row.size - 1  # type: ignore[union-attr]
        hot, role, gather = (_NULL, _NULL), "main", None
        # Values of 8 bytes measured slower through the cache (kron scale 22, FP64: 0-15%).
        narrow = x is _NULL or x.itemsize <= 4
        columns = self._column_cache(plan) if narrow and (x is not _NULL or x_present is not _NULL) else None
        if columns is not None and ntiles:  # the pull reads x (values, presence) through the cache's buffers
            hot = (_NULL if x is _NULL else columns.buffer(x.dtype),
                   _NULL if x_present is _NULL else columns.buffer(None))
            idx, role = columns.indices, "hot"
            n = columns.hot.size
            gather = PreparedLaunch(self._function(module, "gather"), _bounded_blocks(n, _ELEMENTWISE_BLOCKS_PER_SM),
                                    _BLOCK, _GATHER.arguments(
                                        hot=columns.hot, n=np.int64(n), x_hot=hot[0], x_present_hot=hot[1]))
        carries = plan.carry_arrays(semiring.out_type.np_type)
        scratch = plan.scratch_presence(nrows) if known else None
        main = fixup = None
        if ntiles:
            kernel = self._function(module, role)
            _leave_l1(kernel, codegen.MERGE_BLOCKS_PER_SM)
            main_signature = signatures.SPMV_MERGE_HOT if role == "hot" else _MERGE
            main = PreparedLaunch(kernel, ntiles, codegen.MERGE_BLOCK, main_signature.arguments(
                indptr=ptr, indices=idx, x_hot=hot[0], x_present_hot=hot[1], tile_row=tile_row, nrows=np.int64(nrows),
                carry_row=carries[0], carry_value=carries[1], carry_valid=carries[2], accumulate=_FLAGS32[into]))
            fixup = PreparedLaunch(self._function(module, "fixup"), -(-ntiles // _BLOCK), _BLOCK,
                                   _FIXUP.arguments(carry_row=carries[0], carry_value=carries[1],
                                                    carry_valid=carries[2], ncarry=np.int64(ntiles)))
        return _MergeCall(semiring, nrows, gather, main, fixup, scratch)

    def _column_cache(self, plan: SpmvPlan) -> ColumnCache | None:
        """The plan's :class:`ColumnCache`, made on first request; None where the matrix is
        too small or too even to gain from one, or the copy of its indices would not fit."""
        if "columns" not in plan.derived:
            idx = plan.indices
            wanted = (idx is not None and idx.size >= self.hot_min_nnz and plan.ncols >= 4 * self.hot_columns
                      and idx.size * idx.itemsize * 4 <= (_device_available() or 0))
            plan.derived["columns"] = _hot_columns(idx, plan.ncols, self.hot_columns, self.hot_min_share) if wanted else None
        return plan.derived["columns"]


def _one_launch_key(semiring: TypedSemiring, vector_first: bool, complement: bool, bare: bool,
                    stored: Any) -> tuple[Any, ...]:
    """The key a small matrix's one-launch pull is kept under in its plan's ``derived``
    (``stored``: the dtype of the values the kernel reads, None where it reads none)."""
    return ("vector launch", semiring, bool(vector_first), bool(complement), bare, stored)


def _is_bare(x_present: Any, row_mask: Any, claim: Any, presence: bool, complement: bool) -> bool:
    """Whether a one-launch pull is of its commonest form (``w << A @ x`` in a loop): a full
    vector, no mask, no claim, and no presence to write.  Its kept launch has the null
    pointers packed, so that only the values, the vector and the result change."""
    return x_present is None and row_mask is None and claim is None and not presence and not complement


def _one_launch_outputs(semiring: TypedSemiring, nrows: int, out: cupy.ndarray | None,
                        presence: bool) -> tuple[cupy.ndarray, cupy.ndarray | None]:
    """(values, presence) a small matrix's one-launch pull writes: the caller's ``out``, with
    none, where given and no presence is asked for; else new arrays."""
    if out is not None and not presence:
        return out, None
    return _spmv_result(semiring, nrows, presence)


def _spmv_result(semiring: TypedSemiring, nrows: int, presence: bool = True) -> tuple[cupy.ndarray, cupy.ndarray | None]:
    """Uninitialised (values, presence) arrays for a pull of ``nrows`` rows (no presence
    array unless ``presence``)."""
    present = cupy.empty(nrows, dtype=np.bool_) if presence else None
    return cupy.empty(nrows, dtype=semiring.out_type.np_type), present
