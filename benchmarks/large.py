"""PageRank and BFS on one large Kronecker graph, with peak GPU memory against the graph's size.

``python -m benchmarks.large --scale 26`` builds the directed graph of the GAP generator
(about 1 G edges at scale 26; the symmetric version has more than 2**31 and is not built),
loads it as an FP32 Matrix and runs PageRank (tol=0, unweighted) and BFS levels from the
highest-degree vertex, each under a peak-memory tracker.  Results go to ``large.json`` and
``large.md`` in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from . import graphs
from .timing import PeakMemory, device_sync


def build(scale: int, seed: int = 42) -> graphs.Graph:
    """The directed Kronecker graph of ``2**scale`` vertices."""
    t0 = time.perf_counter()
    n = 1 << scale
    keys = graphs.kronecker_keys(scale, seed)
    g = graphs.Graph(f"kron{scale}", "kron-directed", n, *graphs._csr_from_unique_keys(keys, n, scale, seed),
                     symmetric=False)
    g.build_s = time.perf_counter() - t0
    return g


def run(scale: int, pr_iters: int, out: Path) -> dict:
    """Load the graph, run PageRank and BFS, and write the results."""
    import cupy

    import grblas_gpu as gb
    from grblas_gpu import algorithms as alg

    g = build(scale)
    pool = cupy.get_default_memory_pool()
    t0 = time.perf_counter()
    A = gb.Matrix.from_csr(g.indptr, g.indices, g.weights, ncols=g.n, dtype="FP32", backend="cupy",
                           symmetric=g.symmetric)
    device_sync()
    loaded = {"load_s": time.perf_counter() - t0, "matrix_bytes": pool.used_bytes()}
    source = g.max_degree_vertex()
    runs = {"pagerank": lambda: alg.pagerank(A, tol=0, max_iter=pr_iters, weight=False),
            "bfs_levels": lambda: alg.bfs_levels(A, source)}
    results = {"graph": g.summary(), **loaded, "device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(),
               "date": time.strftime("%Y-%m-%dT%H:%M:%S"), "runs": []}
    del g
    for name, fn in runs.items():
        tracker = PeakMemory()
        t0 = time.perf_counter()
        with tracker.track():
            res = fn()
        row = {"algorithm": name, "seconds": time.perf_counter() - t0, **tracker.summary(),
               "nvals": res.nvals}
        if name == "pagerank":
            row["iterations"] = pr_iters
        else:
            row["levels"] = int(np.max(res.to_coo()[1])) + 1
        results["runs"].append(row)
        del res
        pool.free_all_blocks()
    out.mkdir(parents=True, exist_ok=True)
    (out / "large.json").write_text(json.dumps(results, indent=1))
    (out / "large.md").write_text(markdown(results))
    return results


def markdown(r: dict) -> str:
    """The results as a Markdown table."""
    gib = 1 << 30
    csr = r["graph"]["csr_bytes"]
    lines = [(f"# Large graph: {r['graph']['name']} ({r['graph']['vertices']:,} vertices, "
              f"{r['graph']['edges']:,} directed edges)"), "",
             f"Device: {r['device']}  ", f"Date: {r['date']}  ",
             (f"Host CSR (int64 indptr, int32 indices, float32 weights): {csr / gib:.2f} GiB; "
              f"built in {r['graph']['build_s']:.1f} s, loaded in {r['load_s']:.1f} s; "
              f"matrix on the GPU: {r['matrix_bytes'] / gib:.2f} GiB"), "",
             "| algorithm | time s | peak GPU memory GiB (pool, total) | peak above the loaded matrix GiB | peak / CSR | notes |",
             "|---|---|---|---|---|---|"]
    for row in r["runs"]:
        note = f"{row['iterations']} iterations" if "iterations" in row else f"{row['levels']} levels"
        lines.append(f"| {row['algorithm']} | {row['seconds']:.2f} | {row['peak_used_bytes'] / gib:.2f} | "
                     f"{row['peak_extra_bytes'] / gib:.2f} | {row['peak_used_bytes'] / csr:.1f}x | {note} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.large", description=__doc__)
    p.add_argument("--scale", type=int, default=26)
    p.add_argument("--pr-iters", type=int, default=10)
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    a = p.parse_args(argv)
    r = run(a.scale, a.pr_iters, a.out)
    print(markdown(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
