"""``python -m benchmarks.bfs_ab ROUNDS TREE...``: BFS on the symmetric kron 22 graph (or
``--scale``) from its top vertex, old trees against new, in fresh processes.

The graph is generated once and saved (its CSR, under ``$TMPDIR/bfs_ab``); each tree's process
loads it, warms up, and prints the median and minimum of 15 BFS runs (ms) as a JSON line.
Trees alternate in order from round to round.  A tree is a folder holding a ``grblas_gpu``
package (``python -m benchmarks.ab --export REV TREE``) or a checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

SAVED = Path(os.environ.get("TMPDIR", "/tmp")) / "bfs_ab"


def child(tree: str) -> None:
    """Time BFS with the package of ``tree`` (first on sys.path)."""
    sys.path.insert(0, tree)
    import numpy as np

    import grblas_gpu as gb
    from grblas_gpu import algorithms as alg
    from grblas_gpu.backends import gpu_available

    indptr, indices = np.load(SAVED / "indptr.npy"), np.load(SAVED / "indices.npy")
    S = gb.Matrix.from_csr(indptr, indices, np.ones(indices.size, np.float32), ncols=indptr.size - 1, dtype="FP32")
    source = int(np.argmax(np.diff(indptr)))
    sync = __import__("cupy").cuda.Device().synchronize if gpu_available() else (lambda: None)
    for _ in range(3):
        alg.bfs_levels(S, source)
    sync()
    times = []
    for _ in range(15):
        start = time.perf_counter()
        alg.bfs_levels(S, source)
        sync()
        times.append(time.perf_counter() - start)
    print(json.dumps({"tree": tree, "package": gb.__file__, "bfs_ms": round(statistics.median(times) * 1e3, 4),
                      "min_ms": round(min(times) * 1e3, 4)}), flush=True)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bfs_ab", description=__doc__)
    p.add_argument("rounds", type=int)
    p.add_argument("trees", nargs="+")
    p.add_argument("--scale", type=int, default=22)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        child(a.trees[0])
        return
    import numpy as np

    from .graphs import kronecker_symmetric

    SAVED.mkdir(parents=True, exist_ok=True)
    g = kronecker_symmetric(a.scale)
    np.save(SAVED / "indptr.npy", g.indptr)
    np.save(SAVED / "indices.npy", g.indices)
    trees = [str(Path(t).resolve()) for t in a.trees]
    for r in range(a.rounds):
        for tree in trees if r % 2 == 0 else trees[::-1]:
            done = subprocess.run([sys.executable, "-m", "benchmarks.bfs_ab", "0", tree, "--child"], check=False,
                                  cwd=Path(__file__).parent.parent,
                                  capture_output=True, text=True, env={**os.environ, "PYTHONPATH": tree})
            print(done.stdout.strip() or done.stderr[-2000:], flush=True)


if __name__ == "__main__":
    main()
