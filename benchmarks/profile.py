"""Where an algorithm's time goes: ``python -m benchmarks.profile [--scale 20] [--top 25]``.

Runs PageRank, BFS and SSSP on a Kronecker graph under cProfile.  On the GPU it sets
``CUDA_LAUNCH_BLOCKING=1`` (before CuPy starts), so each kernel's time is charged to the
Python call that launched it rather than to the next synchronisation.
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
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    raise SystemExit(main())
