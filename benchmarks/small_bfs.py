"""``python -m benchmarks.small_bfs``: where the start of a small BFS goes, piece by piece.

``bfs_levels(A, source)`` on the 1,024-vertex symmetric Kronecker graph of
``benchmarks.loops``' small-graph rows, written out as the algorithm's lines, each timed
with ``time.perf_counter`` (host microseconds; medians of ``--runs`` after a warm-up): the
checks, the one-entry ``Vector.from_coo`` of the source, its ``dup``, the loop's first
test of the frontier, the body's statement (on the GPU traced, not run), and the rest of
the loop (on the GPU ``device_form`` and the device run, which waits for the device; both
also apart).  The whole ``bfs_levels`` call is timed beside it.  ``--backend numpy`` runs
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


if __name__ == "__main__":
    main()
