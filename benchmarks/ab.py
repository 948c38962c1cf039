"""Old code against new on one machine: ``python -m benchmarks.ab OLD_TREE [--scale 22]``.

Host speed differs between machines by up to 1.6x, and the loops of BFS, SSSP and the grid
are bound by host work, so figures from two runs on two machines do not show what a change
did.  This tool runs the same measurements in fresh processes, alternating the old code and
the working tree ``--rounds`` times, and prints one JSON line per process.

``OLD_TREE`` holds the old ``grblas_gpu`` package with its ``algorithms`` inside, as made by
``python -m benchmarks.ab --export REV OLD_TREE`` (``git archive`` of revision ``REV``).
Figures: on a GPU, a plus_times mxv of the directed Kronecker graph and cuSPARSE's SpMV of it
(us, by CUDA events, and their ratio); PageRank per iteration (20 iterations, FP32 and FP64), BFS and
SSSP from the top vertex of the symmetric Kronecker graph, BFS and SSSP on the ``--grid`` x ``--grid`` grid
(ms; 0 skips it), and a warm mxv on a 1,000-vertex graph (us); medians of a few runs each.
The working tree is measured as installed for development (``pip install -e .``).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def export(rev: str, dest: Path) -> None:
    """Write revision ``rev``'s package (with ``algorithms`` inside it) under ``dest``."""
    archive = subprocess.run(["git", "archive", rev, "grblas_gpu", "algorithms"], cwd=ROOT, check=True,
                             capture_output=True).stdout
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    (dest / "algorithms").rename(dest / "grblas_gpu" / "algorithms")


def _median_ms(fn: Callable[[], Any], sync: Callable[[], None], repeat: int, per: int = 1) -> float:
    fn()
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - start) / per)
    return round(statistics.median(times) * 1e3, 4)


def measure(scale: int, side: int) -> dict[str, Any]:
    """This process's figures (the ``grblas_gpu`` first on ``sys.path`` is the one measured)."""
    import numpy as np

    import grblas_gpu as gb
    from grblas_gpu import algorithms as alg
    from grblas_gpu import semiring

    from .graphs import grid, kronecker
    from .timing import device_sync

    directed, symmetric = kronecker(scale)
    A, S = (gb.Matrix.from_csr(g.indptr, g.indices, g.weights, ncols=g.n, dtype="FP32")
            for g in (directed, symmetric))
    src = symmetric.max_degree_vertex()
    rng = np.random.default_rng(3)
    small = gb.Matrix.from_coo(rng.integers(0, 1000, 16000), rng.integers(0, 1000, 16000), 1.0, nrows=1000,
                               ncols=1000, dtype="FP32", dup_op=gb.binary.min)
    x, w = gb.Vector.from_dense(np.ones(1000, np.float32)), gb.Vector(gb.FP32, 1000)

    def small_mxv() -> None:
        for _ in range(500):
            w << small.mxv(x, semiring.max_min)

    out: dict[str, Any] = {"package": str(Path(gb.__file__).parent)}
    if gb.backends.gpu_available():  # (the peer needs CuPy and a GPU)
        out.update(_mxv_against_cusparse(directed, A))
    for t in ("FP32", "FP64"):
        out[f"pagerank_{t.lower()}_ms"] = _median_ms(
            lambda t=t: alg.pagerank(A, tol=0, max_iter=20, weight=False, dtype=t), device_sync, 5, 20)
    out["bfs_ms"] = _median_ms(lambda: alg.bfs_levels(S, src), device_sync, 9)
    out["sssp_ms"] = _median_ms(lambda: alg.sssp(S, src), device_sync, 7)
    if side:
        roads = grid(side)
        G = gb.Matrix.from_csr(roads.indptr, roads.indices, roads.weights, ncols=roads.n, dtype="FP32")
        corner = side + 1  # vertex (1, 1), the benchmark's grid source
        out["grid_bfs_ms"] = _median_ms(lambda: alg.bfs_levels(G, corner), device_sync, 3)
        out["grid_sssp_ms"] = _median_ms(lambda: alg.sssp(G, corner), device_sync, 3)
    out["small_mxv_us"] = round(_median_ms(small_mxv, device_sync, 5, 500) * 1e3, 2)
    return out


def _mxv_against_cusparse(g: Any, A: Any) -> dict[str, float]:
    """A plus_times mxv of ``A`` (graph ``g``) with a dense vector and cuSPARSE's SpMV of the
    same, in this process, timed by CUDA events (us, medians of 30), and their ratio."""
    import grblas_gpu as gb
    from grblas_gpu import semiring

    from .ours import _mxv_runner, dense_x
    from .peers import cusparse_operands
    from .timing import measure

    x, w = gb.Vector.from_dense(dense_x(g.n)), gb.Vector(gb.FP32, g.n)
    peer, px = cusparse_operands(g)
    ours_s = measure(_mxv_runner(A, x, w, semiring.plus_times), gpu=True, warmup=5, repeat=30)["median_s"]
    peer_s = measure(lambda: peer @ px, gpu=True, warmup=5, repeat=30)["median_s"]
    return {"mxv_us": round(ours_s * 1e6, 1), "cusparse_us": round(peer_s * 1e6, 1),
            "mxv_ratio": round(ours_s / peer_s, 3)}


def main(argv: list[str] | None = None) -> int:
    """Alternate the old tree and the working tree, one fresh process each, and print their figures."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ab", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old_tree", type=Path)
    parser.add_argument("--scale", type=int, default=22)
    parser.add_argument("--grid", type=int, default=1000, help="side of the grid (0: none)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--export", metavar="REV", help="write REV's package to OLD_TREE and stop")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.export:
        export(args.export, args.old_tree)
        return 0
    if args.child:
        print(json.dumps(measure(args.scale, args.grid)))
        return 0
    if not (args.old_tree / "grblas_gpu" / "__init__.py").is_file():
        parser.error(f"{args.old_tree} holds no grblas_gpu package (make one with --export REV)")
    trees = (("old", args.old_tree.resolve()), ("new", ROOT))
    for round_ in range(args.rounds):
        for label, path in trees if round_ % 2 == 0 else trees[::-1]:  # neither always runs first
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), str(ROOT)])}
            child = [sys.executable, "-m", "benchmarks.ab", str(args.old_tree), "--child", "--scale", str(args.scale),
                     "--grid", str(args.grid)]
            # ``-m`` puts the working directory first on sys.path: the tree measured
            result = subprocess.run(child, cwd=path, env=env, check=True, capture_output=True, text=True)
            print(label, result.stdout.strip().splitlines()[-1], flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
