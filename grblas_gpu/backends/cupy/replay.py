"""The device side of :func:`grblas_gpu.loop_capture.converge`: an iteration's statements
captured once as a CUDA graph and replayed, the stop test and the commit on the device.

- **Warm-up.** The first iteration runs as written with the ordinary allocator (kernels
  compile, a matrix's kept forms are made); the second runs on the capture stream with a
  private memory pool, the *arena*, which so holds blocks of each size the iteration asks for.
- **Capture.** :data:`PER_GRAPH` iterations are captured with the arena as the allocator:
  each statement's outputs and temporaries come from the arena's free blocks, and no
  ``cudaMalloc`` happens inside a kept capture (the arena's size and the default pool's are
  compared before and after: where the arena grew, the graph is dropped and captured once more,
  the arena now holding the blocks; a second growth, or any change of the default pool or the
  staging ring, refuses the capture).  The arena is used by nothing
  else and lives as long as the graph, so no block the graph writes is ever handed to other
  work: that is what makes blocks that statements allocate and free safe to replay.  Anything
  the capture cannot take (a read back to the host, a copy from pageable memory, a copy
  through the staging ring) refuses it and the loop runs as written.
- **Commit.** After each captured iteration a one-thread kernel decides from the loop state
  (device memory: stopped, iterations done, commit) and the iteration's change whether it
  counts: not once the loop has stopped, else it counts, and stops the loop when the change
  is below the bound (compared in the change's type) or the iterations reach ``max_iter``;
  a second kernel copies ``x_next`` into ``x`` where it counts.  Iterations replayed after the
  stop recompute from the kept ``x`` and leave it alone, so a batch may overrun.
- **Batches.** The graph is launched :data:`LAUNCHES` times (fewer where that would pass
  ``max_iter``), then the state is read (one host read a batch) until it says the loop stopped.
"""

from __future__ import annotations

import threading
from typing import Any

import cupy
import numpy as np

from ...progress import tick
from ...vector import Vector
from . import staging

__all__ = ["LAUNCHES", "PER_GRAPH", "converge"]

PER_GRAPH = 4
"""Iterations captured in one graph."""
LAUNCHES = 2
"""Graph launches between two reads of the loop state."""

_STOPPED, _DONE, _COMMIT = 0, 1, 2
_CONVERGED, _EXHAUSTED = 1, 2

_decide = cupy.ElementwiseKernel(
    "raw T change, float64 bound, int32 max_iter, int32 tested", "raw int32 state",
    """
    if (state[0]) { state[2] = 0; }
    else {
        int done = state[1] + 1;
        state[1] = done;
        state[2] = 1;
        if (tested && change[0] < (T)bound) state[0] = 1;
        else if (done >= max_iter) state[0] = 2;
    }
    """, "grblas_replay_decide")
_commit = cupy.ElementwiseKernel(
    "T x_next, raw int32 state", "T x", "if (state[2]) x = x_next;", "grblas_replay_commit")


class Refused(Exception):
    """The iteration cannot be captured (the loop runs as written)."""


class Grew(Refused):
    """The capture took memory the arena did not hold yet (its graph is dropped)."""


def converge(step: Any, x: Vector, *, max_iter: int, bound: float | None,
             label: str = "converge", report: dict[str, Any] | None = None,
             plain: Any = None) -> tuple[Vector, bool] | None:
    """The loop of :func:`grblas_gpu.loop_capture.converge` replayed on the device; None
    (nothing run, ``x`` untouched) where the iteration cannot be captured before its first
    iteration counted, else ``plain`` (:func:`grblas_gpu.loop_capture.plain_converge`) goes on
    from there.  ``report`` gets how it ran (see :data:`grblas_gpu.loop_capture.last_run`)."""
    report = {} if report is None else report
    if max_iter < PER_GRAPH + 2:  # the warm-up and one graph's capture would not pay
        return None
    own = _owned_copy(x)
    state = cupy.zeros(3, np.int32)
    loop = _Loop(step, own, state, max_iter, bound, label)
    try:
        report["how"] = "eager"  # (until the capture: the loop may end in its first two iterations)
        first = loop.eager(allocator=None)
        if first is not None:
            return first
        stream = _capture_stream()
        cupy.cuda.get_current_stream().synchronize()
        with stream:
            arena = cupy.cuda.MemoryPool()
            try:
                return _replay(loop, stream, arena, report)
            finally:
                _let_go(arena)
    except Refused as e:
        report["how"] = f"refused: {e}"
        done = int(state[_DONE].get())
        if done == 0 or plain is None:
            return None
        return plain(loop.step, loop.x, max_iter=max_iter - done, bound=bound, label=label)


def _replay(loop: _Loop, stream: Any, arena: Any, report: dict[str, Any]) -> tuple[Vector, bool]:
    """The loop's second iteration with ``arena`` as the allocator, the capture, the batches."""
    second = loop.eager(allocator=arena.malloc)
    if second is not None:
        return second
    try:
        graph = loop.capture(stream, arena)
    except Grew:  # the arena now holds what the capture asked for: once more
        graph = loop.capture(stream, arena)
    pool = cupy.get_default_memory_pool()
    report.update(how="replayed", pool_before=(pool.used_bytes(), pool.total_bytes()))
    done = 2  # iterations counted so far while the loop has not stopped
    while True:  # (the device stops the loop at max_iter at the latest)
        launches = max(1, min(LAUNCHES, -(-(loop.max_iter - done) // PER_GRAPH)))  # (none past max_iter)
        for _ in range(launches):
            graph.launch(stream)
            for _ in range(PER_GRAPH):
                tick(loop.label, loop.max_iter)
        done += launches * PER_GRAPH
        stopped = int(loop.state[_STOPPED].get())
        if stopped:
            report["pool_after"] = (pool.used_bytes(), pool.total_bytes())
            return loop.x, stopped == _CONVERGED


class _Loop:
    """The loop's pieces: the step, the kept ``x`` (written only by the commit), the state."""

    def __init__(self, step: Any, x: Vector, state: Any, max_iter: int, bound: float | None, label: str) -> None:
        self.step, self.x, self.state, self.max_iter, self.bound = step, x, state, max_iter, bound
        self.label = label
        self.values = x._store.bitmap_form(x._be, x.size)[1]

    def iterate(self, check: bool = False) -> None:
        """One iteration: the step's statements, then the decision and the commit
        (``check``: and that the step's output is full, a read back)."""
        x_next, change = self.step(self.x)
        tested = self.bound is not None
        if x_next.dtype != self.x.dtype or x_next.size != self.x.size or (tested and change is None):
            raise Refused("the step's outputs do not match x")
        change_array = self.values  # (read by no kernel where nothing is tested)
        if tested:
            held = change._on_device()
            if held is None:
                raise Refused("the change was read back to the host")
            change_array = held.reshape(1)
        if check and x_next.nvals != self.x.size:
            raise Refused("the step's output is not full")
        _, next_values = x_next._store.bitmap_form(self.x._be, self.x.size)
        if next_values is self.values:
            raise Refused("the step returned x itself")
        _decide(change_array, float(self.bound or 0.0), self.max_iter,
                int(tested), self.state, size=1)
        _commit(next_values, self.state, self.values)

    def eager(self, allocator: Any) -> tuple[Vector, bool] | None:
        """One iteration run as written (with ``allocator``, None: the current one); its
        result where it ended the loop."""
        tick(self.label, self.max_iter)
        if allocator is None:
            self.iterate(check=True)
        else:
            with cupy.cuda.using_allocator(allocator):
                self.iterate(check=True)
        stopped = int(self.state[_STOPPED].get())
        return (self.x, stopped == _CONVERGED) if stopped else None

    def capture(self, stream: Any, arena: Any) -> Any:
        """:data:`PER_GRAPH` iterations captured on ``stream`` as one graph, their memory from
        ``arena`` alone; :class:`Refused` where the capture fails or would allocate."""
        pool = cupy.get_default_memory_pool()
        before = (arena.total_bytes(), pool.total_bytes(), pool.used_bytes(), staging.staged())
        try:
            stream.begin_capture()
            try:
                with cupy.cuda.using_allocator(arena.malloc):
                    for _ in range(PER_GRAPH):  # (each iteration's arrays freed before the next's)
                        self.iterate()
            finally:
                graph = stream.end_capture()
        except Refused:
            raise
        except Exception as e:  # a call the capture cannot take (a read back, a pageable copy)
            raise Refused(str(e)) from e
        after = (arena.total_bytes(), pool.total_bytes(), pool.used_bytes(), staging.staged())
        if after[1:] != before[1:]:
            raise Refused(f"the capture allocated from the default pool or staged: {before} -> {after}")
        if after[0] != before[0]:
            raise Grew(f"the capture allocated device memory: the arena {before[0]} -> {after[0]} bytes")
        return graph


_streams: dict[tuple[int, int], Any] = {}


def _capture_stream() -> Any:
    """The stream for captures of the current device and thread (one, reused: the backend
    keeps per-stream state, which a capture's statements write)."""
    key = (cupy.cuda.runtime.getDevice(), threading.get_ident())
    if key not in _streams:
        _streams[key] = cupy.cuda.Stream(non_blocking=True)
    return _streams[key]


_arenas: list[Any] = []  # arenas some of whose blocks were still in use when their loop ended


def _let_go(arena: Any) -> None:
    """Return ``arena``'s free blocks to the device; an arena with blocks still in use (an
    array made inside the loop and kept by something) is kept alive, as CuPy frees a pool's
    blocks with the pool."""
    arena.free_all_blocks()
    _arenas[:] = [a for a in _arenas if a.used_bytes()]
    if arena.used_bytes():
        _arenas.append(arena)


def _owned_copy(x: Vector) -> Vector:
    """A Vector of ``x``'s values in arrays of its own (the commit writes them in place)."""
    be = x._be
    bits, vals = x._store.bitmap_form(be, x.size)
    own = Vector(x.dtype, x.size, backend=x.backend)
    own._set_bitmap(bits.copy(), vals.copy(), x.size)
    return own
