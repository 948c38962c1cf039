"""``python -m benchmarks.small_bfs``: where the start of a small BFS goes, piece by piece.

``bfs_levels(A, source)`` on the 1,024-vertex symmetric Kronecker graph of
``benchmarks.loops``' small-graph rows, written out as the algorithm's lines, each timed
with ``time.perf_counter`` (host microseconds; medians of ``--runs`` after a warm-up): the
checks, the one-entry ``Vector.from_coo`` of the source, its ``dup``, the loop's first
test of the frontier, the body's statement (on the GPU traced, not run), and the rest of
the loop (on the GPU ``device_form`` and the device run, which waits for the device; both
also apart).  The whole ``bfs_levels`` call is timed beside it.  On the GPU it then prints the
device time of the loop's block kernel alone for the first 1, 2, ... levels (see
:func:`_kernel_levels`), so that a level's device cost reads apart from the host's.  ``--backend numpy`` runs
on the CPU (the loop is the plain ``while``).  Run as a file from another checkout
(``PYTHONPATH=. python3 OTHER/benchmarks/small_bfs.py``), it times that checkout's code.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks import graphs
from benchmarks.timing import device_sync


def _pieces(A: Any, source: int, sync: Callable[[], None], out: dict[str, list[float]]) -> None:
    """One BFS as ``algorithms.bfs.bfs_levels`` writes it, each line's time added to ``out``."""
    from grblas_gpu.algorithms._checks import check_numeric, check_source, check_square, check_vertex_memory
    from grblas_gpu.algorithms.bfs import next_level

    from grblas_gpu import INT64, Vector
    from grblas_gpu.loops import frontier_loop

    clock = time.perf_counter
    t0 = clock()
    check_square(A, "bfs_levels")
    source = check_source(A, source, "bfs_levels")
    check_numeric(A, "bfs_levels")
    check_vertex_memory(A, "bfs", 27)
    t1 = clock()
    levels = Vector.from_coo([source], [0], size=A.nrows, dtype=INT64, backend=A.backend)
    t2 = clock()
    frontier = levels.dup()
    t3 = clock()
    loop = frontier_loop(frontier, A)
    next(loop)
    t4 = clock()
    levels(~levels.S, changed=frontier) << frontier.vxm(A, next_level())
    t5 = clock()
    for _ in loop:
        levels(~levels.S, changed=frontier) << frontier.vxm(A, next_level())
    sync()
    t6 = clock()
    for key, a, b in (("checks", t0, t1), ("from_coo", t1, t2), ("dup", t2, t3), ("loop start", t3, t4),
                      ("first statement", t4, t5), ("rest of loop + sync", t5, t6), ("sum of pieces", t0, t6)):
        out[key].append((b - a) * 1e6)


_SLEEP = r"""
extern "C" __global__ void sleep_ns(long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < (unsigned long long)ns);
}"""


def _kernel_levels(A: Any, source: int, runs: int) -> dict[int, float]:
    """Device us of ``FrontierLoop.run`` limited to k levels, for k = 1 up to the BFS's levels
    (medians of ``runs``): the state's copy and the block kernel alone.  A kernel that sleeps
    300 us holds the stream while the host queues them, and an event is recorded right after
    the launch, so neither the host's time nor the wait for it is counted."""
    import cupy
    from grblas_gpu.algorithms.bfs import next_level

    from grblas_gpu.backends import get_backend
    from grblas_gpu.backends.cupy.capture import FrontierLoop
    from grblas_gpu.loops import _pulled

    sleep = cupy.RawKernel(_SLEEP, "sleep_ns")
    n = A.nrows
    loop = FrontierLoop(get_backend("cupy"), next_level(), A._indptr, A._indices, A._vals, True, True,
                        _pulled(A, next_level(), True, True))  # (as bfs_levels' loop is made)
    bits0, c0 = cupy.zeros(n, np.bool_), cupy.zeros(n, np.int64)
    bits0[source] = True
    rows, first = cupy.array([source], np.int64), cupy.zeros(1, np.int64)
    launch, ends = loop._block.launch, []

    def launch_and_mark(*pointers: Any) -> None:
        launch(*pointers)
        ends.append(cupy.cuda.Event())
        ends[-1].record()

    loop._block.launch = launch_and_mark  # type: ignore[method-assign]
    out, k = {}, 1
    while True:
        times = []
        for j in range(runs + 10):
            bits, c = bits0.copy(), c0.copy()
            sleep((1,), (1,), (np.int64(300_000),))
            start = cupy.cuda.Event()
            start.record()
            ends.clear()
            run = loop.run(bits, c, (rows, first), k, 1 << 30)
            if j >= 10 and len(ends) == 1:
                times.append(cupy.cuda.get_elapsed_time(start, ends[0]) * 1e3)
        if times:
            out[k] = statistics.median(times)
        if run.length == 0 or len(ends) != 1:
            return out
        k += 1


def _timed(module: Any, name: str, out: dict[str, list[float]], key: str) -> Callable[[], None]:
    """Wrap ``module.name`` to add its calls' times to ``out[key]``; returns the undo."""
    fn = getattr(module, name)

    def wrapper(*args: Any, **kw: Any) -> Any:
        t = time.perf_counter()
        try:
            return fn(*args, **kw)
        finally:
            out[key].append((time.perf_counter() - t) * 1e6)

    setattr(module, name, wrapper)
    return lambda: setattr(module, name, fn)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.small_bfs", description=__doc__)
    p.add_argument("--backend", choices=("numpy", "cupy"), default="cupy")
    p.add_argument("--runs", type=int, default=500)
    p.add_argument("--scale", type=int, default=10)
    a = p.parse_args(argv)

    from grblas_gpu.algorithms import bfs_levels

    import grblas_gpu as gb
    from grblas_gpu import loops

    g = graphs.kronecker_symmetric(a.scale)
    A = gb.Matrix.from_csr(g.indptr, g.indices, g.weights.astype(np.float64), ncols=g.n, backend=a.backend)
    source = g.max_degree_vertex()
    sync = device_sync if a.backend == "cupy" else (lambda: None)
    for _ in range(20):
        bfs_levels(A, source)
    sync()
    whole = []
    for _ in range(a.runs):
        t = time.perf_counter()
        bfs_levels(A, source)
        sync()
        whole.append((time.perf_counter() - t) * 1e6)
    pieces: dict[str, list[float]] = defaultdict(list)
    undo = [_timed(loops, "device_form", pieces, "  device_form"),
            _timed(loops, "_on_device", pieces, "  device run (_on_device)")]
    try:
        for _ in range(20):
            _pieces(A, source, sync, defaultdict(list))
        pieces.clear()
        for _ in range(a.runs):
            _pieces(A, source, sync, pieces)
    finally:
        for u in undo:
            u()
    print(f"BFS kron{a.scale}-sym ({g.n} vertices) on {a.backend}: host us, medians of {a.runs} runs")
    print(f"{'bfs_levels (whole call)':32s} {statistics.median(whole):9.1f}")
    for key, times in pieces.items():
        print(f"{key:32s} {statistics.median(times):9.1f}")
    if a.backend == "cupy":
        print("device us of the block kernel for the first k levels (its launch's share apart from the host):")
        for k, us in _kernel_levels(A, source, min(a.runs, 200)).items():
            print(f"  k = {k:<3d} {us:9.1f}")


if __name__ == "__main__":
    main()
