"""Frontier loops replayed on the GPU: one iteration's kernel captured k times in a CUDA graph.

A loop ``while D.nvals: C(..., changed=D) << D' A`` (a BFS level, a Bellman-Ford round)
costs the host tens of microseconds a statement: on a road map or a mesh, thousands of
levels of a few hundred vertices each, that is all of its time.  Here the statement is one
kernel (``templates/loop_push.cu``) whose frontier is a queue in device memory and whose loop
state (iteration, queue lengths, stop flags) is device memory too, so k launches of it are
captured once as a CUDA graph and replayed: a batch of k iterations costs one graph launch
and one read of the state, and iterations after the frontier empties do nothing.  (CuPy
exposes no conditional graph nodes, which would spare the read: the batch is the fallback
the driver always has.)

Every buffer is sized once, when the loop is made for a matrix and semiring, and kept with
the matrix (its graphs point at them), so nothing is allocated while the graph is captured
or replayed.  The launch grid is fixed (a grid stride over the queue), read nothing from
the host, and each kernel exits early when there is nothing to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cupy
import cupyx
import numpy as np

from ...operators import TypedSemiring
from .loop_codegen import loop_module

__all__ = ["FrontierLoop"]

BATCHES = (6, 36, 126)
"""Iterations per graph launch: the first batch, the second, then every later one (a short
loop wastes few empty iterations, a long one reads the state rarely).  Multiples of 6: a
kernel's queue (of 2) and queue length (of 3) follow from its place in the batch."""
BLOCKS_PER_SM = 1
_BLOCK = 512
# Words of the state array (see the template): stop, fresh, kernels run in the last batch,
# three queue lengths, the handover length.
_STOP, _FRESH, _RAN, _COUNT, _HANDOVER = 0, 1, 2, 3, 6
_STATE_WORDS = 16
_D2D = cupy.cuda.runtime.memcpyDeviceToDevice


@dataclass(eq=False, init=False, repr=False)
class FrontierLoop:
    """The buffers, kernel and graphs of one frontier loop over one matrix (kept with it, and
    counted in its derived bytes through the fields below).  Its graphs are captured when it
    is made, so a driver that cannot capture them fails here, before anything has run."""

    c: Any
    c_bits: Any
    _queues: Any
    _first_rows: Any
    _first: Any
    _stamp: Any
    _state: Any

    def __init__(self, be: Any, semiring: TypedSemiring, indptr: Any, indices: Any, values: Any,
                 vector_first: bool, claim: bool) -> None:
        ptr, idx = be._csr_arrays(indptr, indices)
        n = int(ptr.size) - 1
        t = semiring.monoid.type.np_type
        self.size, self.claim = n, claim
        self._fn = be._function(loop_module(semiring, idx.dtype, vector_first, ptr.dtype), "step")
        self.c = cupy.empty(n, t)
        self.c_bits = cupy.empty(n, np.bool_) if claim else None
        self._queues = (cupy.empty(max(n, 1), np.int32), cupy.empty(max(n, 1), np.int32))
        self._first_rows = cupy.empty(max(n, 1), np.int64)
        self._first = cupy.empty(max(n, 1), t)
        self._stamp = None if claim else cupy.empty(n, np.int32)
        self._state = cupy.zeros(_STATE_WORDS, np.int64)
        self._host = cupyx.empty_pinned(_STATE_WORDS, np.int64)
        self._stream = cupy.cuda.Stream(non_blocking=True)
        self._ready, self._done = cupy.cuda.Event(disable_timing=True), cupy.cuda.Event(disable_timing=True)
        device = cupy.cuda.Device()
        self._blocks = int(device.attributes["MultiProcessorCount"]) * BLOCKS_PER_SM
        values = be._matvec_operand(semiring, values, vector_first, True)
        self._args = (ptr, idx, values, self.c_bits, self.c, self._queues[0], self._queues[1], self._first_rows,
                      self._first, self._stamp, self._state)
        self._graphs: dict[int, Any] = {}
        for k in BATCHES:
            self._graph(k)

    def _graph(self, k: int) -> Any:
        """The graph of ``k`` iterations and a copy of the state to the host (captured once)."""
        graph = self._graphs.get(k)
        if graph is None:
            stream = self._stream
            with stream:
                stream.begin_capture()
                try:
                    for j in range(k):
                        self._fn((self._blocks,), (_BLOCK,), self._args + (np.int32(j),))
                    self._copy(self._host.ctypes.data, self._state, cupy.cuda.runtime.memcpyDeviceToHost)
                finally:
                    graph = stream.end_capture()
            graph.upload(stream)
            self._graphs[k] = graph
        return graph

    def _copy(self, dst: Any, src: Any, kind: int, nbytes: int | None = None) -> None:
        """An asynchronous copy on the loop's stream (arrays or addresses)."""
        d = dst if isinstance(dst, int) else dst.data.ptr
        s = src if isinstance(src, int) else src.data.ptr
        size = nbytes if nbytes is not None else (src.nbytes if not isinstance(src, int) else dst.nbytes)
        cupy.cuda.runtime.memcpyAsync(d, s, size, kind, self._stream.ptr)

    def run(self, c_bits: Any, c: Any, rows: Any, first: Any, limit: int,
            handover: int) -> tuple[Any, Any, Any, int]:
        """Run the loop from the output ``c`` (values; ``c_bits`` its presence for a claim) and
        the frontier ``rows`` (int64) with their values ``first`` (of c's type), until the
        frontier is empty, or grown past ``handover`` entries (it stops after that iteration),
        or the batches would pass ``limit`` iterations.  Returns
        (c_bits, c, the frontier's rows, as int32 in no order, the iterations run): new arrays,
        the loop's own are kept for its next run."""
        c, c_bits = cupy.ascontiguousarray(c), None if c_bits is None else cupy.ascontiguousarray(c_bits)
        rows, first = cupy.ascontiguousarray(rows, np.int64), cupy.ascontiguousarray(first, self.c.dtype)
        m, stream, host = int(rows.size), self._stream, self._host
        host[:] = 0
        host[_FRESH], host[_COUNT], host[_HANDOVER] = 1, m, handover
        self._ready.record(cupy.cuda.get_current_stream())
        stream.wait_event(self._ready)
        self._copy(self.c, c, _D2D)
        if self.c_bits is not None:
            self._copy(self.c_bits, c_bits, _D2D)
        if self._stamp is not None:
            cupy.cuda.runtime.memsetAsync(self._stamp.data.ptr, 0, self._stamp.nbytes, stream.ptr)
        self._copy(self._first_rows, rows, _D2D, rows.nbytes)
        self._copy(self._first, first, _D2D, first.nbytes)
        self._copy(self._state, host.ctypes.data, cupy.cuda.runtime.memcpyHostToDevice, self._state.nbytes)
        ran, count = 0, m
        for batch in _batches(limit):
            self._graph(batch).launch(stream)
            stream.synchronize()
            done = int(host[_RAN])
            ran, count = ran + done, int(host[_COUNT + done % 3])
            if count == 0 or host[_STOP] or done < batch:
                break
        self._done.record(stream)
        cupy.cuda.get_current_stream().wait_event(self._done)
        front = self._queues[ran % 2][:count] if ran else None
        bits = None if self.c_bits is None else self.c_bits.copy()
        return bits, self.c.copy(), front, ran


def _batches(limit: int) -> Any:
    """The batch sizes of one run (:data:`BATCHES`, the last one repeated) while their sum
    stays within ``limit``."""
    total, i = 0, 0
    while total + BATCHES[i] <= limit:
        yield BATCHES[i]
        total += BATCHES[i]
        i = min(i + 1, len(BATCHES) - 1)
