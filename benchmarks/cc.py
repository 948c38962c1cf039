"""connected_components before and after FastSV, in one process, through the public API.

Rows: the 4-neighbour grid (symmetric, and directed: only the right and down edges, the
same weak components) and kron graphs (directed and symmetric).  Columns: main's algorithm
(min-label propagation, kept below as it was), today's ``connected_components``
(``PROPAGATION_ROUNDS`` rounds of propagation, then FastSV), FastSV alone, and scipy's
``connected_components`` on the host.  Every result is checked against scipy's.  On
the GPU each run's memory peak beyond the matrix (and its kept transpose) is given in bytes a
vertex.

    python -m benchmarks.cc --backend cupy --grid 1000 --kron 20 22 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sps
from scipy.sparse import csgraph

from . import graphs
from .loops import _median_ms
from .timing import PeakMemory


def old_connected_components(A: Any) -> Any:
    """main's algorithm (34b93e3): label propagation, two statements a round for a directed A."""
    import grblas_gpu as gb
    from grblas_gpu.loops import frontier_loop

    n = A.nrows
    send = gb.semiring.min_second[gb.INT64]
    ids = np.arange(n, dtype=np.int64)
    labels = gb.Vector.from_coo(ids, ids, size=n, dtype=gb.INT64, backend=A.backend)
    frontier = labels.dup()
    if A.is_symmetric:
        for _ in frontier_loop(frontier, A):
            labels(gb.binary.min, changed=frontier) << A.mxv(frontier, send)
        return labels
    while frontier.nvals:
        sent = frontier
        frontier = A.mxv(sent, send).new()
        frontier(gb.binary.min) << A.T.mxv(sent, send)
        smaller = frontier.ewise_mult(labels, gb.binary.lt).new()
        frontier(smaller.V, replace=True) << frontier
        labels(gb.binary.min) << frontier
    return labels


def _scipy_labels(csr: sps.csr_matrix) -> np.ndarray:
    n = csr.shape[0]
    _, comp = csgraph.connected_components(csr, directed=True, connection="weak")
    smallest = np.full(comp.max() + 1 if n else 0, n)
    np.minimum.at(smallest, comp, np.arange(n))
    return smallest[comp]


def _directed_grid(side: int) -> graphs.Graph:
    g = graphs.grid(side)
    csr = sps.triu(sps.csr_matrix((g.weights, g.indices, g.indptr), shape=(g.n, g.n)), format="csr")
    return graphs.Graph(f"grid{side}-dir", "grid-directed", g.n, csr.indptr, csr.indices, csr.data,
                        symmetric=False)


def _row(g: graphs.Graph, backend: str, repeat: int) -> dict:
    from grblas_gpu.algorithms.connected_components import _fastsv, connected_components

    import grblas_gpu as gb

    n = g.n
    csr = sps.csr_matrix((g.weights, g.indices, g.indptr), shape=(n, n))
    A = gb.Matrix.from_csr(g.indptr, g.indices, g.weights, ncols=n, backend=backend, symmetric=g.symmetric)
    if not g.symmetric:
        A.is_symmetric  # noqa: B018  (found once, as the algorithms do; the transpose is kept)
    sync = (lambda: __import__("cupy").cuda.Device().synchronize()) if backend == "cupy" else (lambda: None)
    ids = np.arange(n, dtype=np.int64)

    def fastsv() -> Any:
        return _fastsv(A, gb.Vector.from_coo(ids, ids, size=n, dtype=gb.INT64, backend=backend))

    t0 = time.perf_counter()
    want = _scipy_labels(csr)
    scipy_ms = (time.perf_counter() - t0) * 1e3
    runs = {"old": lambda: old_connected_components(A), "new": lambda: connected_components(A),
            "fastsv": fastsv}
    row: dict[str, Any] = {"graph": g.name, "vertices": n, "edges": g.nnz, "symmetric": g.symmetric,
                           "backend": backend}
    for key, fn in runs.items():
        assert np.array_equal(fn().to_dense(), want), f"{g.name}: {key} differs from scipy"
        row[f"{key}_ms"] = round(_median_ms(fn, repeat, sync), 2)
        if backend == "cupy":
            row[f"{key}_peak_bytes_per_vertex"] = round(_peak_bytes(fn) / max(n, 1), 1)
    row["scipy_ms"] = round(scipy_ms, 2)  # one run, with the relabelling by smallest id
    return row


def _peak_bytes(fn: Callable[[], Any]) -> int:
    """The CuPy pool's used bytes above the start at their highest during ``fn()`` (the
    matrix and its kept transpose are there before: not counted)."""
    with PeakMemory().track() as mem:
        fn()
    return mem.peak_used - mem.base_used


def main(argv: list[str] | None = None) -> None:
    """Print one JSON row a graph."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", default="numpy")
    p.add_argument("--grid", type=int, nargs="*", default=[1000])
    p.add_argument("--kron", type=int, nargs="*", default=[20, 22])
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args(argv)
    for side in a.grid:
        for g in (graphs.grid(side), _directed_grid(side)):
            print(json.dumps(_row(g, a.backend, a.repeat)), flush=True)
    for scale in a.kron:
        for g in graphs.kronecker(scale):
            print(json.dumps(_row(g, a.backend, a.repeat)), flush=True)


if __name__ == "__main__":
    main()
