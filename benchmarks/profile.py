"""Where the time goes: ``python -m benchmarks.profile [--scale 20] [--top 25] [--what ...]``.

``--what algorithms`` (the default) runs PageRank, BFS and SSSP on a Kronecker graph under
cProfile.  On the GPU it sets ``CUDA_LAUNCH_BLOCKING=1`` (before CuPy starts), so each
kernel's time is charged to the Python call that launched it rather than to the next
synchronisation.  ``--what small`` profiles many warm mxv calls on a 1,000-vertex graph (host
overhead), and ``--what first-use`` the first mxv of a process.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import time
from typing import Any


def main(argv: list[str] | None = None) -> int:
    """Profile the algorithms and print the most expensive calls of each."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile", description=__doc__)
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--backend", default=None)
    parser.add_argument("--what", choices=("algorithms", "small", "first-use", "levels"), default="algorithms")
    args = parser.parse_args(argv)
    if args.what == "levels":
        return _profile_levels(args.scale)
    if args.what != "algorithms":
        return _profile_small(args.backend, args.top, first_use=args.what == "first-use")
    os.environ.setdefault("CUDA_LAUNCH_BLOCKING", "1")

    import grblas_gpu as gb
    from grblas_gpu import algorithms as alg

    from .graphs import kronecker

    directed, symmetric = kronecker(args.scale)
    backend = args.backend or gb.default_backend()

    def matrix(g: object) -> gb.Matrix:
        return gb.Matrix.from_csr(g.indptr, g.indices, g.weights, ncols=g.n, dtype="FP32", backend=backend)

    A, S = matrix(directed), matrix(symmetric)
    source = symmetric.max_degree_vertex()
    runs = {
        "pagerank (10 iterations)": lambda: alg.pagerank(A, tol=0, max_iter=10),
        "bfs_levels": lambda: alg.bfs_levels(S, source),
        "sssp": lambda: alg.sssp(S, source),
    }
    for name, run in runs.items():
        run()  # warm-up: compile kernels, build transposes
        profiler = cProfile.Profile()
        start = time.perf_counter()
        profiler.runcall(run)
        elapsed = time.perf_counter() - start
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(args.top)
        print(f"==== {name}: {elapsed * 1e3:.1f} ms (kernels synchronous) on {backend}, scale {args.scale}")
        print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:6000])
    return 0


def _profile_levels(scale: int) -> int:
    """BFS and SSSP on the symmetric Kronecker graph, each statement of their loops timed
    (synchronised) per level, with the frontier's size."""
    import grblas_gpu as gb
    from grblas_gpu import binary, semiring

    from .graphs import kronecker
    from .timing import device_sync

    d, g = kronecker(scale)
    S = gb.Matrix.from_csr(g.indptr, g.indices, g.weights, ncols=g.n, dtype="FP32")
    source, n = g.max_degree_vertex(), g.n

    def timed(label: str, fn: Any) -> Any:
        device_sync()
        t0 = time.perf_counter()
        out = fn()
        device_sync()
        print(f"  {label:34s} {(time.perf_counter() - t0) * 1e3:8.3f} ms")
        return out

    A = gb.Matrix.from_csr(d.indptr, d.indices, d.weights, ncols=d.n, dtype="FP32")
    scale_v = gb.Vector.from_scalar(0.5, n, gb.FP32)
    teleport_weight = gb.Vector.from_scalar(0.15, n, gb.FP32)
    x = p = gb.Vector.from_scalar(1.0 / n, n, gb.FP32)
    for it in range(3):  # PageRank's statements (the first iteration compiles)
        print(f"==== pagerank statements, iteration {it}")
        moving = timed("moving = x * scale", lambda: x.ewise_mult(scale_v, binary.times).new())
        c = timed("c = x . teleport_weight", lambda: x.inner(teleport_weight).new())
        x_next = timed("x_next = p * c", lambda: p.apply(binary.times, right=c).new())
        timed("x_next(plus) << A.T.mxv(moving)",
              lambda: x_next(binary.plus).update(A.T.mxv(moving, semiring.plus_second)))
        x = x_next
    for rep in range(2):  # the first compiles and builds the transposes
        print(f"==== bfs_levels, run {rep}")
        levels = gb.Vector(gb.INT64, n)
        frontier = gb.Vector.from_coo([source], [True], size=n, dtype=gb.BOOL)
        depth = 0
        while timed("frontier.nvals", lambda: frontier.nvals):
            print(f" level {depth}: frontier {frontier.nvals}")
            timed("levels(frontier.S) << depth", lambda: levels(frontier.S).update(depth))
            depth += 1
            timed("frontier << frontier.vxm(A)", lambda: frontier(~levels.S, replace=True).update(
                frontier.vxm(S, semiring.any_pair)))
        print(f"==== sssp, run {rep}")
        dist = gb.Vector.from_coo([source], [0], size=n, dtype=S.dtype)
        front = dist.dup()
        while timed("front.nvals", lambda: front.nvals):
            print(f" round: frontier {front.nvals}")
            front = timed("front.vxm(A, min_plus)", lambda: front.vxm(S, semiring.min_plus).new())
            shorter = timed("ewise_union lt", lambda: front.ewise_union(dist, binary.lt, 1e30, 1e30).new())
            timed("front(shorter.V, replace) << front", lambda: front(shorter.V, replace=True).update(front))
            timed("dist(min) << front", lambda: dist(binary.min).update(front))
    return 0


def _profile_small(backend: str | None, top: int, *, first_use: bool) -> int:
    """cProfile of the first mxv of the process (``first_use``) or of 2,000 warm ones."""
    import numpy as np

    import grblas_gpu as gb
    from grblas_gpu import semiring

    from .timing import device_sync

    rng = np.random.default_rng(3)
    n = 1000
    r, c = rng.integers(0, n, 16 * n), rng.integers(0, n, 16 * n)
    A = gb.Matrix.from_coo(r, c, 1.0, nrows=n, ncols=n, dtype="FP32", dup_op=gb.binary.min, backend=backend)
    x = gb.Vector.from_dense(np.ones(n, np.float32), backend=backend)
    w = gb.Vector(gb.FP32, n, backend=backend)

    def run(count: int) -> None:
        for _ in range(count):
            w << A.mxv(x, semiring.max_min)
        device_sync()

    if not first_use:
        run(50)
        start = time.perf_counter()
        run(2000)
        print(f"==== 2000 mxv, not profiled: {(time.perf_counter() - start) / 2000 * 1e6:.1f} us each")
    count = 1 if first_use else 2000
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.runcall(run, count)
    elapsed = time.perf_counter() - start
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative" if first_use else "tottime").print_stats(top)
    print(f"==== {count} mxv: {elapsed / count * 1e6:.1f} us each (profiled)")
    print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:8000])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
