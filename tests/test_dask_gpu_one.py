"""The algorithms SPMD on 2 CuPy workers sharing one GPU, their exchanges over the socket
mesh (device buffers staged through the host): the GPU path of every statement with 2 ranks,
against the single-GPU results, on a host of one GPU.  Skipped without a GPU."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("distributed")
pytest.importorskip("cupy")

import scipy.sparse as sps
from conftest import gpu_count, two_worker_client
from distributed import Client
from grblas_gpu.algorithms import bfs_levels, connected_components, pagerank, sssp, widest_path

import grblas_gpu as gb
import grblas_gpu.dask as gd

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("spmd_path"), pytest.mark.skipif(gpu_count() < 1, reason="needs a GPU")]

N = 3000


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """Two worker processes on GPU 0."""
    with two_worker_client("cupy") as c:
        yield c


def _graph(seed: int, symmetric: bool, dtype: Any = np.int64) -> gb.Matrix:
    M = sps.random(N, N, density=4 / N, random_state=seed, format="coo")
    if symmetric:
        M = (M + M.T).tocoo()
    return gb.Matrix.from_coo(M.row, M.col, (M.data * 50).astype(dtype) + 1, nrows=N, ncols=N, backend="cupy")


def _same(dist: Any, local: gb.Vector, exact: bool = True) -> None:
    got = dist.gather(backend="cupy")
    ok = got.isequal(local, check_dtype=True) if exact else got.isclose(local, rel_tol=1e-9, check_dtype=True)
    assert ok, (got, local)


@pytest.mark.parametrize("symmetric", [False, True])
def test_five_algorithms_on_two_ranks_of_one_gpu(client: Client, symmetric: bool) -> None:
    A = _graph(11, symmetric)
    D = gd.distribute(A, client, backend="cupy", exchange="dask")
    for s in (0, 7):
        _same(bfs_levels(D, s), bfs_levels(A, s))
        _same(sssp(D, s), sssp(A, s))
    F = A.dup(gb.FP64)
    DF = gd.distribute(F, client, backend="cupy", exchange="dask")
    _same(sssp(DF, 0), sssp(F, 0))
    _same(widest_path(DF, 0), widest_path(F, 0))
    _same(connected_components(D), connected_components(A))
    _same(pagerank(DF, tol=1e-7), pagerank(F, tol=1e-7), exact=False)


def test_kron_rows_made_on_the_gpu_are_rows_of_the_single_gpu_graph() -> None:
    """``benchmarks.graphs.kronecker_rows_gpu`` (a GPU worker's partition of the benchmark
    graph): uneven cuts, in row ranges of few keys too, equal the rows of ``kronecker_on_gpu``."""
    import cupy

    from benchmarks import graphs

    g = graphs.kronecker_on_gpu(12, seed=3)
    assert g is not None
    n = g.n
    for bucket in (graphs.BUCKET_KEYS, 5000):
        old, graphs.BUCKET_KEYS = graphs.BUCKET_KEYS, bucket
        try:
            for lo, hi in ((0, n), (0, 1000), (1000, 1000), (1000, 2500), (2500, n)):
                ptr, col, w = (cupy.asnumpy(a) for a in graphs.kronecker_rows_gpu(12, 3, lo, hi))
                a, b = int(g.indptr[lo]), int(g.indptr[hi])
                assert np.array_equal(ptr, g.indptr[lo:hi + 1] - a)
                assert np.array_equal(col, g.indices[a:b]) and np.array_equal(w, g.weights[a:b])
        finally:
            graphs.BUCKET_KEYS = old
