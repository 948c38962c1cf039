"""Frontier loops run on the GPU without the host: small frontiers in one block, larger ones
as captured CUDA graphs of k iterations.

A loop ``while D.nvals: C(..., changed=D) << D' A`` (a BFS level, a Bellman-Ford round)
costs the host tens of microseconds a statement: on a road map or a mesh, thousands of
levels of a few hundred vertices each, that is all of its time.  Here an iteration is run by
the kernels of ``templates/loop_push.cu``, whose frontier is a queue in device memory and whose
loop state (queue lengths, stop flags, the iteration's place) is device memory too:

- while the frontier is small (at most :data:`BLOCK_ROWS` rows), one block runs iteration
  after iteration with a block barrier between them, the queue also held in shared memory:
  one launch for all of a mesh's levels, a level costing a few dependent memory accesses.  A
  claim of at most ``HELD_BITS`` positions (a small graph) has a block kernel of its own,
  which holds C's presence bits in shared memory (its atomics stay in the SM), pulls a level
  whose frontier holds a large share of the positions through the matrix's transpose, and
  shares a first frontier's long rows among all its warps;
- a claim's larger frontier, on a GPU with clusters of blocks (compute capability 9.0 and
  later), by the cluster kernel: :data:`CLUSTER_BLOCKS` blocks running iteration after
  iteration with the cluster's hardware barrier between them, C's presence held as bits in
  their shared memory (one launch for all the levels of a mesh; it takes frontiers from
  :data:`BLOCK_ROWS_BESIDE_CLUSTER` rows, fewer than the block kernel would);
- elsewhere, where the driver has cooperative launches, by the grid kernel: every
  block of the GPU resident at once, running iteration after iteration with a grid barrier
  between them (one launch for all the levels of a mesh's wide middle);
- elsewhere (or with :data:`GRID_KERNEL` off) by k launches of the grid-wide kernel captured
  once as a CUDA graph and replayed: a batch of k iterations costs one graph launch and one read of the
  state; a kernel that finds the frontier small again (half of :data:`BLOCK_ROWS`) or empty
  stops the batch, and the block kernel goes on.  (CuPy exposes no conditional graph nodes,
  which would spare the read: the batch is the fallback the driver always has.)

The block kernel works on the caller's arrays (its launch is packed once, its pointers
written per run); the graphs point at buffers sized once, when the loop is made for a matrix
and semiring, and kept with the matrix, which a run fills only when it reaches a large
frontier (and copies back at its end).  Nothing is allocated while the graph is captured or
replayed.  The grid-wide launch is fixed (a grid stride over the queue), reads nothing from
the host, and each kernel exits early when there is nothing to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import cupy
import cupyx
import numpy as np
from cupy.cuda import driver

from ...operators import TypedSemiring
from . import codegen
from .core import values_type
from .launch import PreparedLaunch
from .loop_codegen import (
    CLUSTER_BLOCKS,
    CLUSTER_THREADS,
    GRID_THREADS,
    HELD_BITS,
    STATE_WORDS,
    block_threads,
    loop_module,
)
from .signatures import LOOP, LOOP_BLOCK, LOOP_BLOCK_SMALL, LOOP_CLUSTER, LOOP_GRID

__all__ = ["BATCHES", "BLOCK_ROWS", "BLOCK_ROWS_BESIDE_CLUSTER", "BLOCK_ROWS_BESIDE_GRID", "CLUSTER_KERNEL",
           "GRID_BLOCKS", "GRID_KERNEL", "Entries", "FrontierLoop", "Run"]

BATCHES = (6, 36, 126)
"""Iterations per graph launch: the first batch, the second, then every later one (a short
stretch of large frontiers wastes few empty iterations, a long one reads the state rarely).
Multiples of 6: a kernel's queue (of 2) and queue length (of 3) follow from its place."""
BLOCK_ROWS = 1024
"""The longest frontier the block kernel takes (at most ``GB_LOOP_HELD``, 4096, in the
template: its queue is then held in shared memory too); the graphs hand back to it at half as
many.  On an H100 a block's level cost grows with the frontier past about a row a thread
(grid 2000 x 2000 BFS: 34.5 ms with 4096, 20.8 ms with 1024; SSSP on the grids 10-30% faster
with 1024; ``benchmarks/results/loops/block-rows.jsonl``)."""
BLOCK_ROWS_BESIDE_GRID = 512
"""The same where the grid kernel takes the larger frontiers (it hands back at half as many).
On an H100, grid 1000 x 1000 BFS: 7.23 ms with 128, 7.78 with 256, 6.85 with 512, 8.82 with
1,024, in one process (``benchmarks/results/loops/round4-block-rows.json``): the block kernel's
level costs more than the grid kernel's past a row for every two of its threads."""
BLOCK_ROWS_BESIDE_CLUSTER = 64
"""The same where the cluster kernel takes the larger frontiers, but for a small graph's claim
(at most ``HELD_BITS`` positions), whose block kernel pulls its wide levels (it keeps
:data:`BLOCK_ROWS_BESIDE_GRID`).  On an H100, grid 1000 x 1000 BFS: 5.87-6.25 ms with 0 (the
cluster kernel takes every level), 6.18-6.26 with 16, 6.25 with 64, 6.07-6.25 with 256,
6.61-6.74 with 512; grid 500: 2.52-2.63, 2.56-2.67, 2.54-2.67, 2.80-2.85, 3.69-3.72 (one
process); a path's level costs less in the block kernel."""
CLUSTER_KERNEL = True
"""A claim's larger frontiers go to the cluster kernel where the GPU has clusters (False: to
the grid kernel or the graphs, as a relax's do).  On an H100, BFS on grids of 500, 1000 and
2000 on a side: 2.35, 5.20 and 11.75 ms against 3.52, 6.99 and 15.06 with the grid kernel, in
one process (``benchmarks/results/loops/round9-loops.md``); a relax in the cluster kernel (SSSP
on the last two) took 67.7 and 428 ms against 31.7 and 107."""
GRID_KERNEL = True
"""Larger frontiers go to the grid kernel where the driver has cooperative launches (False:
to the captured graphs always)."""
GRID_BLOCKS = 0
"""Blocks of the grid kernel: one an SM (0), or this many (at most as many as the GPU holds
at once); a level ends at a barrier that every block reaches, which costs more with more
blocks."""
BLOCKS_PER_SM = 1
_BLOCK = 512
_MAX_DYNAMIC_SHARED_SIZE_BYTES, _NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 8, 14  # (the driver's function attributes)
# Words of the state array (see the template).
_STOP, _FRESH, _RAN, _COUNT, _HANDOVER, _BASE, _MOST, _SMALL, _BLOCK_LIMIT, _TOTAL = 0, 1, 2, 3, 6, 7, 8, 9, 10, 11
_FIRST, _SEED = 13, 15  # (words the kernels never write: a run's one-entry frontier and seed, row then value)
_STEP = LOOP["step"]
_D2D = cupy.cuda.runtime.memcpyDeviceToDevice
_D2H = cupy.cuda.runtime.memcpyDeviceToHost
_H2D = cupy.cuda.runtime.memcpyHostToDevice


Entries = tuple[Any, Any]
"""Entries given to :meth:`FrontierLoop.run`: (int64 positions, values) on the device, or one
entry on the host, (position, a NumPy array of its one value): a BFS's source, which reaches
the device within the run's copy of its state, without copies of its own."""


class Run(NamedTuple):
    """What :meth:`FrontierLoop.run` did: the iterations it ran, the frontier left (``front``,
    ``length`` rows of a queue of the loop's, int32 in no order; read it before the next run),
    and ``total``, the positions queued over the run (for a claim: C's new entries).  (A
    named tuple: made once a run, at a fraction of a frozen dataclass's cost.)"""

    ran: int
    front: Any
    length: int
    total: int


@dataclass(eq=False, init=False, repr=False)
class FrontierLoop:
    """The buffers, kernels and graphs of one frontier loop over one matrix (kept with it, and
    counted in its derived bytes through the fields below).  Its graphs are captured when it
    is made, so a driver that cannot capture them fails here, before anything has run."""

    c: Any
    c_bits: Any
    _queues: Any
    _first_rows: Any
    _first: Any
    _stamp: Any
    _state: Any
    _barrier: Any
    _ranges: Any
    _values: Any
    _spare: Any

    def __init__(self, be: Any, semiring: TypedSemiring, indptr: Any, indices: Any, values: Any,
                 vector_first: bool, claim: bool, transposed: tuple[Any, Any, Any] | None = None) -> None:
        ptr, idx = be._csr_arrays(indptr, indices)
        n = int(ptr.size) - 1
        t = semiring.monoid.type.np_type
        self.size, self.claim = n, claim
        values = be._stored_values(semiring, values, vector_first)  # (cast as the kernel reads them)
        module = loop_module(semiring, idx.dtype, vector_first, ptr.dtype, values_type(values))
        pulled = _pulled(be, semiring, vector_first, transposed, (ptr, idx, values))
        self._fn = be._function(module, "step")
        self.c = cupy.empty(n, t)
        self.c_bits = cupy.empty(n, np.bool_) if claim else None
        self._queues = (cupy.empty(max(n, 1), np.int32), cupy.empty(max(n, 1), np.int32))
        self._first_rows = cupy.empty(max(n, 1), np.int64)
        self._first = cupy.empty(max(n, 1), t)
        self._no_front = self._queues[0][:0]  # (an empty frontier, sliced once)
        self._stamp = None if claim else cupy.empty(n, np.int32)
        self._state = cupy.zeros(STATE_WORDS, np.int64)
        self.empty = (cupy.empty(0, np.int64), cupy.empty(0, t))  # an empty frontier (never written)
        self._host = cupyx.empty_pinned(STATE_WORDS, np.int64)
        self._host_address = self._host.ctypes.data
        self._host_bytes = self._host.view(np.uint8)  # (a value's bytes, in the low bytes of its word)
        self._stream = cupy.cuda.Stream(non_blocking=True)
        device = cupy.cuda.Device()
        self._blocks = int(device.attributes["MultiProcessorCount"]) * BLOCKS_PER_SM
        arrays = {"indptr": ptr, "indices": idx, "values": values, "q0": self._queues[0], "q1": self._queues[1],
                  "stamp": self._stamp, "state": self._state}
        self._args = dict(arrays, c_bits=self.c_bits, c=self.c, first_rows=self._first_rows, first=self._first)
        # The block kernel: C and the first frontier are the caller's arrays, given at each run.
        self._small = claim and n <= HELD_BITS  # (its block kernel holds C's presence in the SM, and pulls)
        block, entry = (LOOP_BLOCK_SMALL, "block_small") if self._small else (LOOP_BLOCK, "block")
        self._block = PreparedLaunch(be._function(module, entry), 1, block_threads(semiring), block.arguments(
            **arrays, size=np.int64(n), host_state=np.uint64(self._host_address), t_indptr=pulled[0],
            t_indices=pulled[1], t_values=pulled[2]))
        self._pulled = pulled  # (kept alive with the launch that points at them)
        self._barrier = cupy.zeros(1, np.uint32)
        self._ranges = (cupy.empty(max(n, 1), np.uint64), cupy.empty(max(n, 1), np.uint64))  # the queues' rows
        # A claim's queues carry C's values at their rows where the product reads them (the wide kernels'):
        carried = claim and codegen.vector_value_read(semiring, vector_first)
        self._values = (cupy.empty(max(n, 1), t), cupy.empty(max(n, 1), t)) if carried else (None, None)
        wide = dict(arrays, r0=self._ranges[0], r1=self._ranges[1], capacity=np.int32(max(n, 1)),
                    host_state=np.uint64(self._host_address), v0=self._values[0], v1=self._values[1])
        self._grid = _grid_launch(be._function(module, "grid"), self._blocks, LOOP_GRID.arguments(
            **wide, barrier=self._barrier))
        # (a claim's alone: a relax's frontiers are wider, and on 16 SMs took twice the grid kernel's time)
        self._cluster = _cluster_launch(be._function(module, "cluster"), n, LOOP_CLUSTER.arguments(
            **wide, size=np.int64(n))) if claim else None
        self._spare: tuple[Any, Any] | None = None  # (see `outputs`)
        self._spares = False
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
                        self._fn((self._blocks,), (_BLOCK,), _STEP.pack(**self._args, j=np.int32(j)))
                    _copy(self._host_address, self._state.data.ptr, self._state.nbytes, _D2H, stream.ptr)
                finally:
                    graph = stream.end_capture()
            graph.upload(stream)
            self._graphs[k] = graph
        return graph

    def _wide(self) -> Any:
        """The launch of the kernel that takes frontiers too large for the block kernel: the
        cluster kernel's, else the grid kernel's, or None (the captured graphs take them)."""
        if CLUSTER_KERNEL and self._cluster is not None:
            return self._cluster
        return self._grid if GRID_KERNEL else None

    def _block_limit(self, handover: int) -> int:
        """The longest frontier the block kernel takes."""
        wide = self._wide()
        rows = BLOCK_ROWS if wide is None else \
            BLOCK_ROWS_BESIDE_CLUSTER if wide is self._cluster and not self._small else BLOCK_ROWS_BESIDE_GRID
        return min(rows, handover)

    def block_takes(self, rows: int, handover: int) -> bool:
        """Whether a run from a frontier of ``rows`` rows starts in the block kernel."""
        return 0 < rows <= self._block_limit(handover)

    def outputs(self) -> tuple[Any, Any]:
        """New arrays for C's presence and values (the loop's size and type), for a run that
        makes C's bitmap from its entries (see :meth:`run`'s ``seed``): from then on each run
        makes the next pair while the device runs it, so a BFS's start allocates nothing."""
        spare, self._spare, self._spares = self._spare, None, True
        return spare or self._new_outputs()

    def _new_outputs(self) -> tuple[Any, Any]:
        """New arrays for C's presence and values (see :meth:`outputs`)."""
        return cupy.empty(self.size, np.bool_), cupy.empty(self.size, self.c.dtype)

    def run(self, c_bits: Any, c: Any, front: Entries, limit: int, handover: int,
            seed: Entries | None = None) -> Run:
        """Run the loop from the output ``c`` (values; ``c_bits`` its presence for a claim, None
        for a relax), both written in place, and the frontier ``front`` (see :data:`Entries`;
        values of c's type), until the frontier is empty, or grown past ``handover`` entries
        (it stops after that iteration), or ``limit`` iterations have run (or the graphs'
        batches would pass it), on the current stream.  ``seed``: for a claim whose run starts
        in the block kernel (:meth:`block_takes`), C's entries (see :data:`Entries`), from which
        that kernel makes ``c_bits`` and ``c`` (then unset)."""
        stream = cupy.cuda.get_current_stream()
        sp, host = stream.ptr, self._host
        state = self._state.data.ptr
        block_limit = self._block_limit(handover)
        host[:] = 0
        rows, first, m = self._given(front, _FIRST)
        sown = (None, None, 0) if seed is None else (rows, first, m) if seed is front else self._given(seed, _SEED)
        host[_FRESH], host[_COUNT], host[_HANDOVER] = 1, m, handover
        host[_SMALL], host[_BLOCK_LIMIT], host[_MOST] = block_limit // 2, block_limit, limit
        from_host = 0 < m <= block_limit  # (the block kernel starts, and reads the state from the host)
        if not from_host:
            _copy(state, self._host_address, self._state.nbytes, _H2D, sp)
        if self._stamp is not None:
            cupy.cuda.runtime.memsetAsync(self._stamp.data.ptr, 0, self._stamp.nbytes, sp)
        ran, place, count, held, batch = 0, 0, m, False, 0  # held: C is in the loop's buffers
        while ran < limit and 0 < count <= handover:
            wide = self._wide() if count > block_limit else None
            if ran and (wide is not None or count <= block_limit):  # (after a graph: BASE is where it began)
                host[_BASE], host[_MOST] = place, limit - ran
                _copy(state + 8 * _BASE, self._host_address + 8 * _BASE, 16, _H2D, sp)
            now_bits, now_c = (self.c_bits, self.c) if held else (c_bits, c)
            if count <= block_limit:
                self._block.launch(*LOOP_BLOCK.pack_per_call(  # (LOOP_BLOCK_SMALL's alike)
                    c_bits=now_bits, c=now_c, first_rows=rows, first=first, seed_rows=sown[0], seed=sown[1],
                    seeds=sown[2], from_host=int(from_host)))
                sown, from_host = (None, None, 0), False  # (the first launch only)
                if self._spares and self._spare is None:  # (made while the device runs)
                    self._spare = self._new_outputs()
            elif wide is None or not self._launch_wide(wide, LOOP_GRID.pack_per_call(  # (LOOP_CLUSTER's alike)
                    c_bits=now_bits, c=now_c, first_rows=rows, first=first)):  # (then the graphs take it)
                k = BATCHES[min(batch, len(BATCHES) - 1)]
                if ran + k > limit:
                    break
                if not held:
                    self._hold(c_bits, c, (rows, first, m) if ran == 0 else None, sp)
                    held = True
                self._graph(k).launch(stream)
                batch += 1
            stream.synchronize()
            done = int(host[_RAN])
            ran, place = ran + done, (place + done) % 6
            count = int(host[_COUNT + place % 3])
            if done == 0 and count > block_limit:
                break  # (a graph stopped at once: not expected; the caller goes on as usual)
        if held:
            _copy(c.data.ptr, self.c.data.ptr, c.nbytes, _D2D, sp)
            if c_bits is not None:
                _copy(c_bits.data.ptr, self.c_bits.data.ptr, c_bits.nbytes, _D2D, sp)
        return Run(ran, self._queues[place % 2][:count] if count else self._no_front, count, int(host[_TOTAL]))

    def _given(self, entries: Entries, word: int) -> tuple[int, int, int]:
        """(address of the rows, address of the values, how many) of entries given to a run:
        those of the arrays on the device, or, for one entry on the host, the state's words
        ``word`` and ``word + 1``, written here (the state reaches the device before the first
        iteration: the block kernel reads it from the host's words, or it is copied)."""
        rows, values = entries
        if rows.__class__ is int:
            self._host[word] = rows
            self._host_bytes[8 * word + 8:8 * word + 8 + values.itemsize] = values.view(np.uint8)
            address = self._state.data.ptr + 8 * word
            return address, address + 8, 1
        return rows.data.ptr, values.data.ptr, int(rows.size)

    def _launch_wide(self, wide: Any, pointers: tuple[Any, ...]) -> bool:
        """Launch the cluster or grid kernel (``wide``); where the launch fails (a cluster the
        GPU cannot place, a cooperative launch of too many blocks for the device as it is now)
        nothing ran, and this loop's larger frontiers go to the next kernel from then on (the
        grid kernel, then the captured graphs: the same results).  False where none launched."""
        try:
            wide.launch(*pointers)
        except driver.CUDADriverError:
            if wide is self._cluster:
                self._cluster = None
            else:
                self._grid = None
            then = self._wide()
            return then is not None and self._launch_wide(then, pointers)
        return True

    def _hold(self, c_bits: Any, c: Any, first: tuple[int, int, int] | None, stream: int) -> None:
        """Copy C (and ``first``, before the first iteration: the first frontier's addresses of
        rows and values and its length) into the buffers the graphs read."""
        _copy(self.c.data.ptr, c.data.ptr, c.nbytes, _D2D, stream)
        if c_bits is not None:
            _copy(self.c_bits.data.ptr, c_bits.data.ptr, c_bits.nbytes, _D2D, stream)
        if first is not None:
            rows, values, m = first
            _copy(self._first_rows.data.ptr, rows, 8 * m, _D2D, stream)
            _copy(self._first.data.ptr, values, self._first.itemsize * m, _D2D, stream)


class _CooperativeLaunch(PreparedLaunch):
    """A :class:`PreparedLaunch` through the driver's cooperative launch: all its blocks are
    resident at once (or the launch fails), as the grid kernel's barrier needs."""

    def launch(self, *pointers: Any) -> None:
        """Launch on the current stream with ``pointers`` in the places marked :data:`CHANGES`."""
        stream = cupy.cuda.get_current_stream().ptr
        with self._lock:
            words = self._words
            for i, a in zip(self._changing, pointers):
                words[i] = 0 if a is None else a if isinstance(a, int) else a.data.ptr
            driver.launchCooperativeKernel(self._function, self._grid, 1, 1, self._block, 1, 1, 0, stream,
                                           self._params_address)


def _grid_launch(fn: Any, sms: int, args: tuple[Any, ...]) -> _CooperativeLaunch | None:
    """The grid kernel's launch (:data:`GRID_BLOCKS` blocks, else one an SM, of
    :data:`GRID_THREADS`), or None where the driver or device has no cooperative launch."""
    device = cupy.cuda.Device()
    if not hasattr(driver, "launchCooperativeKernel") or not device.attributes.get("CooperativeLaunch", 0):
        return None
    kernel = getattr(fn, "kernel", fn)
    try:
        resident = sms * int(driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.ptr, GRID_THREADS, 0))
    except (AttributeError, driver.CUDADriverError):
        resident = sms
    blocks = min(GRID_BLOCKS or sms, resident)
    return _CooperativeLaunch(fn, blocks, GRID_THREADS, args) if blocks > 0 else None


def _cluster_launch(fn: Any, claimed: int, args: tuple[Any, ...]) -> PreparedLaunch | None:
    """The cluster kernel's launch (one cluster of :data:`CLUSTER_BLOCKS` blocks of
    :data:`CLUSTER_THREADS`; for a claim of ``claimed`` positions, its presence bits spread over
    the blocks' shared memory), or None where the GPU has no clusters (compute capability
    below 9.0), the bits would not fit, or the driver refuses the kernel's attributes."""
    device = cupy.cuda.Device()
    if int(device.compute_capability) < 90:
        return None
    held = 4 * -(-((claimed + 31) // 32) // CLUSTER_BLOCKS)  # (bytes a block: its share of the words)
    if held > int(device.attributes.get("MaxSharedMemoryPerBlockOptin", 48 * 1024)) - 1024:
        return None
    function = getattr(fn, "kernel", fn).ptr
    try:
        driver.funcSetAttribute(function, _NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)
        driver.funcSetAttribute(function, _MAX_DYNAMIC_SHARED_SIZE_BYTES, max(held, 48 * 1024))
    except (AttributeError, driver.CUDADriverError):
        return None
    return PreparedLaunch(fn, CLUSTER_BLOCKS, CLUSTER_THREADS, args, shared=held)


def _pulled(be: Any, semiring: TypedSemiring, vector_first: bool, transposed: tuple[Any, Any, Any] | None,
            walked: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
    """The arrays of the walked matrix's transpose (row pointers, columns, values as stored)
    for the block kernel's pull levels, laid out as the walked matrix's are (its kernel reads
    both); three null pointers where none was given (a relax, a larger graph: see
    ``loops._pulled``) or where the layouts differ."""
    if transposed is None:
        return None, None, None
    ptr, idx = be._csr_arrays(transposed[0], transposed[1])
    values = be._stored_values(semiring, transposed[2], vector_first)
    if (ptr.dtype, idx.dtype) != (walked[0].dtype, walked[1].dtype) or \
            getattr(values, "dtype", None) != getattr(walked[2], "dtype", None):
        return None, None, None
    return ptr, idx, values


def _copy(dst: int, src: int, nbytes: int, kind: int, stream: int) -> None:
    """An asynchronous copy of ``nbytes`` between addresses on ``stream``."""
    if nbytes:
        cupy.cuda.runtime.memcpyAsync(dst, src, nbytes, kind, stream)
