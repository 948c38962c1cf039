"""The user's guide examples (examples/nvgraph/) run as scripts; output checked independently."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "nvgraph"
SRC = [2, 0, 2, 0, 4, 5, 2, 3, 3, 4]
DST = [0, 1, 1, 2, 3, 3, 4, 4, 5, 5]  # from destination_offsets {0, 1, 3, 4, 6, 8, 10}
W = [0.333333, 0.5, 0.333333, 0.5, 0.5, 1.0, 0.333333, 0.5, 0.5, 0.5]


def run(name: str) -> list[float]:
    """Run an example script; the numbers it prints."""
    proc = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"{name} failed:\n{proc.stderr}"
    out = proc.stdout
    return [float(v) for v in out.split(":", 1)[1].split()]


def test_pagerank_example() -> None:
    n, alpha = 6, 0.9
    P = np.zeros((n, n))
    P[SRC, DST] = W
    bookmark = np.array([0, 1, 0, 0, 0, 0.0])
    x = np.full(n, 1 / n)
    for _ in range(1000):
        x = alpha * P.T @ x + (alpha * bookmark @ x + (1 - alpha) * x.sum()) / n
    got = run("pagerank.py")
    assert np.allclose(got, x / x.sum(), atol=2e-5)
    G = nx.DiGraph(list(zip(SRC, DST)))  # same graph: networkx's Langville & Meyer test, alpha 0.9
    ref = nx.pagerank(G, alpha=0.9, tol=1e-10)
    assert np.allclose(got, [ref[v] for v in range(n)], atol=1e-4)


def test_sssp_example() -> None:
    G = nx.DiGraph()
    G.add_weighted_edges_from(zip(SRC, DST, W))
    ref = nx.single_source_dijkstra_path_length(G, 0)
    assert np.allclose(run("sssp.py"), [ref[v] for v in range(6)], rtol=1e-5)


def test_srspmv_example() -> None:
    offsets = [0, 2, 4, 7, 9, 10]
    cols = [0, 1, 1, 2, 0, 3, 4, 2, 4, 2]
    w = [1.0, 4.0, 2.0, 3.0, 5.0, 7.0, 8.0, 9.0, 6.0, 1.5]
    x = [1.1, 2.2, 3.3, 4.4, 5.5]
    want = [sum(w[k] * x[cols[k]] for k in range(offsets[i], offsets[i + 1])) for i in range(5)]
    assert np.allclose(run("srspmv.py"), want, rtol=1e-5)
