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

from typing import Any

import cupy
import cupyx
import numpy as np

from ...operators import TypedSemiring
from .loop_codegen import loop_module

__all__ = ["FrontierLoop"]

BATCHES = (8, 32, 128)
"""Iterations per graph launch: the first batch, the second, then every later one (a short
loop wastes few empty iterations, a long one reads the state rarely)."""
BLOCKS_PER_SM = 4
_BLOCK = 256
# Words of the state array (see the template): iteration, stop, finished blocks, three queue
# lengths, limit, handover length, handover request, three queues' entry counts, handover entries.
_IT, _STOP, _COUNT, _LIMIT, _HANDOVER, _EDGE_HANDOVER = 0, 1, 3, 6, 7, 12
_STATE_WORDS = 16


class FrontierLoop:
    """The buffers, kernel and graphs of one frontier loop over one matrix (kept with it)."""

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
        self._first = cupy.empty(max(n, 1), t)
        self._stamp = None if claim else cupy.empty(n, np.int32)
        self._state = cupy.zeros(_STATE_WORDS, np.int64)
        self._host = cupyx.empty_pinned(_STATE_WORDS, np.int64)
        self._stream = cupy.cuda.Stream(non_blocking=True)
        device = cupy.cuda.Device()
        self._blocks = int(device.attributes["MultiProcessorCount"]) * BLOCKS_PER_SM
        values = be._matvec_operand(semiring, values, vector_first, True)
        self._args = (ptr, idx, values, self.c_bits, self.c, self._queues[0], self._queues[1], self._first,
                      self._stamp, self._state)
        self._graphs: dict[int, Any] = {}

    def _graph(self, k: int) -> Any:
        """The graph of ``k`` iterations and a copy of the state to the host (captured once)."""
        graph = self._graphs.get(k)
        if graph is None:
            stream = self._stream
            with stream:
                stream.begin_capture()
                try:
                    for _ in range(k):
                        self._fn((self._blocks,), (_BLOCK,), self._args)
                    self._read_state(stream)
                finally:
                    graph = stream.end_capture()
            graph.upload(stream)
            self._graphs[k] = graph
        return graph

    def _read_state(self, stream: Any) -> None:
        cupy.cuda.runtime.memcpyAsync(self._host.ctypes.data, self._state.data.ptr, self._state.nbytes,
                                      cupy.cuda.runtime.memcpyDeviceToHost, stream.ptr)

    def run(self, c_bits: Any, c: Any, rows: Any, first: Any, limit: int,
            handover: tuple[int, int]) -> tuple[Any, Any, Any, int, bool]:
        """Run the loop from the output ``c`` (values; ``c_bits`` its presence for a claim) and
        the frontier ``rows`` with their values ``first``, until the frontier is empty,
        ``limit`` iterations have run, or the frontier has grown past ``handover`` (its entries,
        its rows' entries; then it stops after that iteration).  Returns (c_bits, c, the frontier's rows, as
        int32, in no order, the iterations run, whether it stopped for a large frontier): new
        arrays, the loop's own are kept for its next run."""
        m = int(rows.size)
        host = self._host
        host[:] = 0
        host[_COUNT], host[_LIMIT], host[_HANDOVER], host[_EDGE_HANDOVER] = m, limit, handover[0], handover[1]
        stream, current = self._stream, cupy.cuda.get_current_stream()
        ready = cupy.cuda.Event(disable_timing=True)
        ready.record(current)
        stream.wait_event(ready)
        with stream:  # copies into the loop's own buffers: no allocation on this stream
            self.c[...] = c
            if self.c_bits is not None:
                self.c_bits[...] = c_bits
            if self._stamp is not None:
                self._stamp.fill(0)
            self._queues[0][:m] = rows
            self._first[:m] = first
            cupy.cuda.runtime.memcpyAsync(self._state.data.ptr, host.ctypes.data, self._state.nbytes,
                                          cupy.cuda.runtime.memcpyHostToDevice, stream.ptr)
            for batch in _batches():
                self._graph(batch).launch(stream)
                stream.synchronize()
                it = int(host[_IT])
                count, stopped = int(host[_COUNT + it % 3]), bool(host[_STOP])
                if count == 0 or stopped or it >= limit:
                    break
        done = cupy.cuda.Event(disable_timing=True)
        done.record(stream)
        current.wait_event(done)
        front = self._queues[it & 1][:count].copy()
        bits = None if self.c_bits is None else self.c_bits.copy()
        return bits, self.c.copy(), front, it, stopped


def _batches() -> Any:
    """The batch sizes of one run: :data:`BATCHES`, the last one repeated."""
    yield from BATCHES[:-1]
    while True:
        yield BATCHES[-1]
