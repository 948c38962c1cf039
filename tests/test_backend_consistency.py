"""Algorithms and the nvGRAPH layer work on the backend of their input, whatever the default is.

With a GPU, the default backend is CuPy; a user who builds a NumPy matrix explicitly must
get NumPy results (and no "different backends" error from objects created inside).
"""

from __future__ import annotations

import numpy as np
import pytest

import grblas_gpu as gb
from grblas_gpu import algorithms as alg
from grblas_gpu.backends import BACKENDS, gpu_available

pytestmark = pytest.mark.skipif(not gpu_available(), reason="needs a second backend (CuPy with a GPU)")

ROWS = [0, 0, 1, 2, 3, 3, 4]
COLS = [1, 2, 2, 3, 4, 0, 1]
VALS = [1.0, 4.0, 2.0, 1.0, 3.0, 2.0, 1.0]

ALGORITHMS = {
    "sssp": lambda A: alg.sssp(A, 0),
    "widest_path": lambda A: alg.widest_path(A, 0),
    "pagerank": lambda A: alg.pagerank(A),
    "bfs_levels": lambda A: alg.bfs_levels(A, 0),
    "bfs_parents": lambda A: alg.bfs_parents(A, 0),
    "connected_components": alg.connected_components,
    "local_clustering_coefficient": alg.local_clustering_coefficient,
    "cdlp": lambda A: alg.cdlp(A, 3),
    "betweenness_centrality": lambda A: alg.betweenness_centrality(A, [0, 1]),
    "core_number": alg.core_number,
    "k_truss": lambda A: alg.k_truss(A, 3),
    "jaccard": lambda A: alg.jaccard(A, [(0, 1), (2, 4)]),
    "multi_source_bfs": lambda A: alg.multi_source_bfs(A, [0, 3]),
    "strongly_connected_components": alg.strongly_connected_components,
    "louvain": lambda A: alg.louvain(A, seed=0),
    "leiden": lambda A: alg.leiden(A, seed=0),
    "sssp_delta": lambda A: alg.sssp(A, 0, method="delta"),
}


def _other(name: str) -> str:
    return next(b for b in BACKENDS if b != name)


@pytest.mark.parametrize("data_backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_algorithm_follows_input_backend(name: str, data_backend: str) -> None:
    A = gb.Matrix.from_coo(ROWS, COLS, VALS, nrows=5, ncols=5, backend=data_backend)
    with gb.use_backend(_other(data_backend)):
        result = ALGORITHMS[name](A)
    assert result.backend == data_backend


@pytest.mark.parametrize("data_backend", BACKENDS)
def test_triangle_count_follows_input_backend(data_backend: str) -> None:
    A = gb.Matrix.from_coo(ROWS, COLS, VALS, nrows=5, ncols=5, backend=data_backend)
    with gb.use_backend(_other(data_backend)):
        assert alg.triangle_count(A) == 2  # 0-1-2 and 0-2-3


@pytest.mark.parametrize("data_backend", BACKENDS)
def test_nvgraph_sssp_follows_input_arrays(data_backend: str) -> None:
    from grblas_gpu import nvgraph as nv

    xp = np if data_backend == "numpy" else __import__("cupy")
    # The same graph as CSC (by destination), the topology nvgraphSssp takes.
    offsets = xp.asarray(np.array([0, 1, 3, 5, 6, 7], np.int32))
    indices = xp.asarray(np.array([3, 0, 4, 0, 1, 2, 3], np.int32))
    weights = xp.asarray(np.array([2, 1, 1, 4, 2, 1, 3], np.float32))
    out = xp.zeros(5, dtype=np.float32)
    with gb.use_backend(_other(data_backend)):
        h = nv.nvgraphCreate()
        g = nv.nvgraphCreateGraphDescr(h)
        nv.nvgraphSetGraphStructure(h, g, nv.nvgraphCSCTopology32I_st(5, 7, offsets, indices), nv.NVGRAPH_CSC_32)
        nv.nvgraphAllocateVertexData(h, g, 1, [nv.CUDA_R_32F])
        nv.nvgraphAllocateEdgeData(h, g, 1, [nv.CUDA_R_32F])
        nv.nvgraphSetEdgeData(h, g, weights, 0)
        nv.nvgraphSssp(h, g, 0, 0, 0)
        nv.nvgraphGetVertexData(h, g, out, 0)
    assert np.allclose(np.asarray(out.get() if hasattr(out, "get") else out), [0, 1, 3, 4, 7])
