"""The CuPy backend's reductions: counts and sums read back (or queued), segment and whole-array
reductions by a monoid, and the inner product of two vectors."""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from ...operators.base import TypedMonoid, TypedSemiring
from . import codegen, signatures
from .common import (
    _BLOCK,
    _ELEMENTWISE_BLOCKS_PER_SM,
    _NULL,
    _bounded_blocks,
    _contiguous,
    _group_size,
    _map_out_of_memory,
    _sm_count,
    occurrences,
)
from .core import CupyCore
from .counts import DeviceCount

__all__ = ["ReduceOps"]

_CHUNK = 4096  # segment reductions cut longer segments into chunks of this size
# The kernels' signatures (see signatures.py): a count read back and a queued one differ in the
# arguments their kept launches write at each call; a sum read back is not kept.
_COUNT, _COUNT_QUEUED, _SUM = signatures.COUNT_TRUE, signatures.COUNT_QUEUED, signatures.SUM_QUEUED
_SEGMENT, _STRIDED = signatures.SEGMENT_REDUCE["main"], signatures.SEGMENT_REDUCE["strided"]


class ReduceOps(CupyCore):
    """Reductions by a monoid, and the counts and sums the operations read."""

    def count_true(self, flags: Any) -> int:
        """The number of true values in a bool array (one kernel, one read back)."""
        arr = self._flag_array(flags)
        n = int(arr.size)
        return self._total(_COUNT, "main", _flag_threads(n), {"flags": arr, "n": np.int64(n)}, ("count", n))

    def occurrences(self, idx: Any, n: int) -> Any:
        """How many times each of ``0..n-1`` occurs in ``idx`` (int64; memory: the counts alone)."""
        return occurrences(idx, n)

    def count_true_queued(self, flags: Any) -> DeviceCount | None:
        """:meth:`count_true`, queued: a :class:`DeviceCount` that ``int()`` reads once the
        kernel has run (None where every count word of the stream is lent)."""
        arr = self._flag_array(flags)
        n = int(arr.size)
        return self._queued_total(_COUNT_QUEUED, "main", _flag_threads(n), {"flags": arr, "n": np.int64(n)},
                                  ("count queued", n))

    def count_ahead(self, count: Any, flags: Any) -> Any:
        """A vector's count ``count`` (an int, a :class:`DeviceCount`, or None: unknown; its
        presence ``flags``) made to be read without waiting for work queued after this call:
        a pending count marked where the stream stands, an unknown one queued now."""
        if count is None:
            count = self.count_true_queued(flags)
        if isinstance(count, DeviceCount):
            count.mark()
        return count

    def sum_selected(self, values: Any, flags: Any = None, rows: Any = None) -> int:
        """The sum of non-negative int64 ``values`` over the positions flagged true in ``flags``,
        or over the positions listed in ``rows`` (one kernel, one read back)."""
        args = self._sum_arguments(values, flags, rows)
        return self._total(_SUM, "sum", int(args["n"]), args)

    def sum_selected_queued(self, values: Any, flags: Any) -> DeviceCount | None:
        """:meth:`sum_selected` over ``flags``, queued: a :class:`DeviceCount` that ``int()``
        reads once the kernel has run (None where every count word of the stream is lent)."""
        args = self._sum_arguments(values, flags, None)
        return self._queued_total(_SUM, "sum", int(args["n"]), args, ("sum queued", int(args["n"])))

    def _sum_arguments(self, values: Any, flags: Any, rows: Any) -> dict[str, Any]:
        """The count module's ``sum`` arguments but the count's, by name: the values, the
        flags or the rows (the other null), and how many positions."""
        vals = self._index_array(values).astype(np.int64, copy=False)
        if rows is not None:
            return {"values": vals, "flags": _NULL, "rows": _contiguous(cupy.asarray(rows, dtype=np.int64)),
                    "n": np.int64(rows.shape[0])}
        return {"values": vals, "flags": self._flag_array(flags), "rows": _NULL, "n": np.int64(flags.shape[0])}

    @_map_out_of_memory
    def segment_reduce(self, monoid: TypedMonoid, values: Any, offsets: Any) -> cupy.ndarray:
        """Reduce ``values[offsets[s]:offsets[s+1]]`` with the monoid for every segment s.

        Every segment must be non-empty.  Long segments (a reduction to one scalar, say)
        are cut into chunks reduced in parallel, then the chunks' results are reduced.
        """
        offs = self._index_array(offsets)
        nseg = max(len(offs) - 1, 0)
        out = cupy.empty(nseg, dtype=monoid.type.np_type)
        if nseg == 0:
            return out
        vals = self._operand(values, monoid.type)
        if not monoid.is_any and vals.size > _CHUNK * 4 * nseg:  # long segments on average
            return self._chunked_reduce(monoid, vals, offs.astype(np.int64))
        fn = self._function(codegen.segment_reduce_module(monoid, offs.dtype))
        group = _group_size(vals.size, nseg)
        self._launch_groups(fn, nseg, group, _SEGMENT.pack(values=vals, offsets=offs, nseg=np.int64(nseg), out=out,
                                                           group=np.int32(group)))
        return out

    @_map_out_of_memory
    def reduce_all(self, monoid: TypedMonoid, values: Any) -> cupy.ndarray:
        """All of ``values`` (at least one) reduced with the monoid, as a 1-element array: a
        partial result per block of a grid that strides over them, then one block over those;
        no host synchronisation (4 M FP64 values: two kernels of under 5 us, against 58 + 9 us
        for chunks of 4,096 values a warp)."""
        vals = self._operand(values, monoid.type).reshape(-1)
        blocks = _bounded_blocks(vals.size, _ELEMENTWISE_BLOCKS_PER_SM)
        partial = cupy.empty(blocks, dtype=monoid.type.np_type)
        self._strided_reduce(monoid, vals, blocks, partial)
        return self._one_block_reduce(monoid, partial)

    def _strided_reduce(self, monoid: TypedMonoid, vals: cupy.ndarray, blocks: int, out: cupy.ndarray) -> None:
        """``out[b]``: the monoid over the values block b of a ``blocks``-block grid visits."""
        fn = self._function(codegen.segment_reduce_module(monoid, np.dtype(np.int64)), "strided")
        fn((blocks,), (_BLOCK,), _STRIDED.pack(values=vals, n=np.int64(vals.size), out=out))

    def _one_block_reduce(self, monoid: TypedMonoid, partial: cupy.ndarray) -> cupy.ndarray:
        """Per-block partial results (at most a few thousand) reduced by one block."""
        if partial.size == 1:
            return partial
        out = cupy.empty(1, dtype=partial.dtype)
        self._strided_reduce(monoid, partial, 1, out)
        return out

    @_map_out_of_memory
    def dot(self, semiring: TypedSemiring, x: Any, y: Any) -> cupy.ndarray:
        """The inner product of two full vectors' values (at least one; the multiplier not
        positional) over the semiring, as a 1-element array: products reduced as they are
        made (a partial per block, kept with the stream), then the partials by the block that
        finishes last; one launch, kept prepared, and no array of products."""
        mult, monoid = semiring.mult, semiring.monoid
        xa, ya = _flat(self._operand(x, mult.x_type)), _flat(self._operand(y, mult.y_type))
        n = int(xa.size)
        out = cupy.empty(1, dtype=monoid.type.np_type)
        counts = self._counts()
        most_blocks = _ELEMENTWISE_BLOCKS_PER_SM * _sm_count(cupy.cuda.runtime.getDevice())
        partial = counts.partials(monoid.type.np_type, most_blocks)
        self._launch_kept_elementwise(codegen.dot_module(semiring), "main", n, signatures.DOT.pack(
            x=xa, y=ya, n=np.int64(n), partial=partial, out=out, state=counts.state), signatures.DOT.changing)
        return out

    def _chunked_reduce(self, monoid: TypedMonoid, vals: cupy.ndarray, offs: cupy.ndarray) -> cupy.ndarray:
        """Segment reduce in two levels: chunks of at most ``_CHUNK`` values inside segments,
        then each segment's chunk results."""
        start, end = int(offs[0]), int(offs[-1])
        if offs.size == 2:  # one segment: a whole-array reduction of its values
            return self.reduce_all(monoid, vals[start:end])
        grid = cupy.arange(start, end, _CHUNK, dtype=np.int64)
        bounds = cupy.unique(cupy.concatenate([offs, grid]))
        partial = self.segment_reduce(monoid, vals, bounds)
        return self.segment_reduce(monoid, partial, cupy.searchsorted(bounds, offs))


def _flag_threads(n: int) -> int:
    """Threads of a count of ``n`` flags: 16 flags a thread."""
    return max(-(-n // 16), 16)


def _flat(a: cupy.ndarray) -> cupy.ndarray:
    """``a`` as one dimension (itself when it is: a view costs host time)."""
    return a if a.ndim == 1 else a.reshape(-1)
