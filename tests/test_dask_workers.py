"""The algorithms run SPMD over 3 and 4 CPU worker processes (partitions of unequal sizes,
the socket mesh of more than one pair): BFS, SSSP, PageRank and connected components against
the single-process results; BFS with each way of choosing a product's form (a sparse frontier
pushed from the workers' rows or gathered and pushed through their rows' transpose, a frontier
with many edges pulled)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("distributed")

import scipy.sparse as sps
from distributed import Client, LocalCluster
from grblas_gpu.algorithms import bfs_levels, connected_components, pagerank, sssp

import grblas_gpu as gb
import grblas_gpu.dask as gd

pytestmark = pytest.mark.usefixtures("spmd_path")  # (through tasks and through actors)

N = 300


@pytest.fixture(scope="module")
def client(monkeypatch_module: Any) -> Iterator[Client]:
    """Four worker processes of one thread on the NumPy backend."""
    monkeypatch_module.setenv("GRBLAS_GPU_BACKEND", "numpy")
    with LocalCluster(n_workers=4, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def monkeypatch_module() -> Iterator[pytest.MonkeyPatch]:
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def _graph(seed: int, symmetric: bool, density: float = 2.5 / N) -> gb.Matrix:
    """A sparse random graph with FP64 weights in [1, 51) (a few vertices unreachable)."""
    M = sps.random(N, N, density=density, random_state=seed, format="coo")
    if symmetric:
        M = (M + M.T).tocoo()
    return gb.Matrix.from_coo(M.row, M.col, M.data * 50 + 1, nrows=N, ncols=N, backend="numpy")


def _same(dist: Any, local: gb.Vector, exact: bool = True) -> None:
    got = dist.gather(backend="numpy")
    ok = got.isequal(local, check_dtype=True) if exact else got.isclose(local, rel_tol=1e-12, check_dtype=True)
    assert ok, (got, local)


def _levels_scipy(A: gb.Matrix, source: int) -> dict[int, int]:
    """BFS levels by scipy (independent of the algebra)."""
    from scipy.sparse.csgraph import breadth_first_order

    r, c, _ = A.to_coo()
    M = sps.csr_matrix((np.ones(len(r)), (r, c)), shape=(N, N))
    order, pred = breadth_first_order(M, source, directed=True, return_predecessors=True)
    level = {source: 0}
    for v in order[1:]:
        level[int(v)] = level[int(pred[v])] + 1
    return level


def _set_gather_push(client: Client, value: bool | None) -> None:
    def put(dask_worker: Any = None) -> None:
        from grblas_gpu.dask import objects

        objects.GATHER_PUSH = value

    client.run(put)


@pytest.mark.parametrize("parts", [3, 4])
@pytest.mark.parametrize("symmetric", [True, False])
def test_algorithms_match_one_process(client: Client, parts: int, symmetric: bool) -> None:
    A = _graph(parts * 10 + symmetric, symmetric)
    D = gd.distribute(A, client, npartitions=parts, backend="numpy")
    assert D.layout.nparts == parts
    for s in (0, 7):
        levels = bfs_levels(D, s)
        idx, lev = levels.to_coo()
        assert dict(zip(idx.tolist(), lev.tolist(), strict=True)) == _levels_scipy(A, s)
        _same(sssp(D, s), sssp(A, s))
    _same(pagerank(D, tol=1e-8), pagerank(A, tol=1e-8), exact=False)
    if symmetric:
        _same(connected_components(D), connected_components(A))


@pytest.mark.parametrize("gather_push", [True, False])
def test_bfs_forms_on_four_workers(client: Client, gather_push: bool) -> None:
    """A symmetric graph with a hub (one vertex joined to a third of the others) and a long
    path: its BFS levels take every form (a dense frontier pulled, sparse ones pushed, a sparse
    one with many edges pulled), with the gathered push on and off."""
    rng = np.random.default_rng(5)
    hub = rng.choice(np.arange(1, N), N // 3, replace=False)
    path = np.arange(N - 40, N - 1)
    rows = np.concatenate([np.zeros(len(hub), np.int64), path, rng.integers(0, N, 200)])
    cols = np.concatenate([hub, path + 1, rng.integers(0, N, 200)])
    M = sps.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(N, N)).tocsr()
    M = ((M + M.T) > 0).tocoo()
    A = gb.Matrix.from_coo(M.row, M.col, np.ones(M.nnz), nrows=N, ncols=N, backend="numpy")
    D = gd.distribute(A, client, npartitions=4, backend="numpy")
    D.is_symmetric = True
    _set_gather_push(client, gather_push)
    try:
        for s in (0, int(hub[0]), N - 1):
            idx, lev = bfs_levels(D, s).to_coo()
            assert dict(zip(idx.tolist(), lev.tolist(), strict=True)) == _levels_scipy(A, s)
    finally:
        _set_gather_push(client, None)
