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


def main(argv: list[str] | None = None) -> int:
    """Profile the algorithms and print the most expensive calls of each."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile", description=__doc__)
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--backend", default=None)
    parser.add_argument("--what", choices=("algorithms", "small", "first-use"), default="algorithms")
    args = parser.parse_args(argv)
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
