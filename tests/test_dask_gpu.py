"""grblas_gpu.dask on 2 GPU workers (one GPU each, vectors exchanged through NCCL): products
with sparse, dense and full vectors and the five algorithms against the single-GPU results.
Skipped where fewer than 2 GPUs (or no CuPy with NCCL) are usable."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("distributed")
pytest.importorskip("cupy")

import scipy.sparse as sps
from conftest import gpu_count
from distributed import Client
from grblas_gpu.algorithms import bfs_levels, connected_components, pagerank, sssp, widest_path

import grblas_gpu as gb
import grblas_gpu.dask as gd
from grblas_gpu import binary, semiring
from grblas_gpu.dask.cluster import local_cluster

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("spmd_path"), pytest.mark.skipif(gpu_count() < 2, reason="needs 2 GPUs")]


N = 5000


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """Two workers, one GPU each."""
    with local_cluster(2, gpu=True) as cluster, Client(cluster) as c:
        yield c


def _graph(seed: int, symmetric: bool = False, dtype: Any = np.int64) -> gb.Matrix:
    M = sps.random(N, N, density=8 / N, random_state=seed, format="coo")
    if symmetric:
        M = (M + M.T).tocoo()
    return gb.Matrix.from_coo(M.row, M.col, (M.data * 9).astype(dtype) + 1, nrows=N, ncols=N, backend="cupy")


def _same(dist: Any, local: Any, exact: bool = True) -> None:
    got = dist.gather(backend="cupy")
    ok = got.isequal(local, check_dtype=True) if exact else got.isclose(local, rel_tol=1e-9, check_dtype=True)
    assert ok, (got, local)


def test_exchange_is_nccl(client: Client) -> None:
    D = gd.distribute(_graph(1), client)
    assert D.backend == "cupy" and D.layout.context.exchange == "nccl"


@pytest.mark.parametrize("density", [0.001, 0.3, 1.0])  # sparse, bitmap and full pieces
def test_products(client: Client, density: float) -> None:
    A = _graph(2)
    D = gd.distribute(A, client)
    rng = np.random.default_rng(3)
    idx = np.flatnonzero(rng.random(N) < density)
    u = gb.Vector.from_coo(idx, rng.random(len(idx)), size=N, backend="cupy")
    du = gd.distribute(u, like=D)
    for sr in (semiring.min_plus, semiring.plus_times):
        exact = sr is not semiring.plus_times
        _same(du.vxm(D, sr).new(), u.vxm(A, sr).new(), exact)
        _same(D.mxv(du, sr).new(), A.mxv(u, sr).new(), exact)
        _same(D.T.mxv(du, sr).new(), A.T.mxv(u, sr).new(), exact)
    w, dw = u.dup(), du.dup()
    w(binary.min, changed=u) << u.vxm(A.dup(gb.FP64), semiring.min_plus)
    dw(binary.min, changed=du) << du.vxm(D.dup(gb.FP64), semiring.min_plus)
    _same(dw, w)
    _same(du, u)


def test_algorithms(client: Client) -> None:
    A, S = _graph(4), _graph(5, symmetric=True)
    D, DS = gd.distribute(A, client), gd.distribute(S, client)
    _same(bfs_levels(D, 0), bfs_levels(A, 0))
    _same(sssp(D, 0), sssp(A, 0))
    Af = A.dup(gb.FP64)
    _same(widest_path(gd.distribute(Af, client), 0), widest_path(Af, 0))
    _same(connected_components(D), connected_components(A))
    _same(connected_components(DS), connected_components(S))
    assert pagerank(DS).gather(backend="cupy").isclose(pagerank(S), rel_tol=1e-9)


def test_algorithms_run_spmd_over_nccl(client: Client, monkeypatch: pytest.MonkeyPatch, spmd_path: str) -> None:
    """One task per worker per call (the exchanges inside it, through NCCL), however many
    iterations (through actors: only the task taking the result's partition); the same results
    as the client-driven statements and one GPU."""
    from grblas_gpu.dask import layout

    S = _graph(6, symmetric=True, dtype=np.float64)
    DS = gd.distribute(S, client)
    pagerank(DS, tol=0, max_iter=1)
    submitted: list[str] = []
    submit = layout.Context.submit

    def counting(self: Any, fn: Any, *args: Any, part: int, **kwargs: Any) -> Any:
        submitted.append(fn.__name__)
        return submit(self, fn, *args, part=part, **kwargs)

    submit_each = layout.Context.submit_each

    def counting_each(self: Any, calls: Any, firsts: Any, then: Any = None) -> Any:
        submitted.extend(getattr(c, "func", c).__name__ for c in calls)
        submitted.extend(then.__name__ for _ in calls if then is not None)
        return submit_each(self, calls, firsts, then)

    monkeypatch.setattr(layout.Context, "submit", counting)
    monkeypatch.setattr(layout.Context, "submit_each", counting_each)
    got = pagerank(DS, tol=0, max_iter=25)
    if spmd_path == "actors":  # each worker's part through its actor
        assert submitted == ["take", "take"]
    else:
        assert submitted.count("run_part") == 2 and len(submitted) == 4
    assert got.gather(backend="cupy").isclose(pagerank(S, tol=0, max_iter=25), rel_tol=1e-9)
    assert got.gather(backend="cupy").isclose(pagerank.__wrapped__(DS, tol=0, max_iter=25).gather(backend="cupy"),
                                              rel_tol=1e-9)
    A = _graph(7)
    D = gd.distribute(A, client)
    for s in (0, 17):
        _same(bfs_levels(D, s), bfs_levels(A, s))
        _same(bfs_levels(D, s), bfs_levels.__wrapped__(D, s).gather(backend="cupy"))


def _hub_and_path(seed: int) -> gb.Matrix:
    """A symmetric graph of a hub joined to a third of the vertices, a long path and random
    edges: its BFS levels take every form (dense frontiers pulled, a sparse one with many
    edges pulled, sparse ones pushed)."""
    rng = np.random.default_rng(seed)
    hub = rng.choice(np.arange(1, N), N // 3, replace=False)
    path = np.arange(N - 60, N - 1)
    rows = np.concatenate([np.zeros(len(hub), np.int64), path, rng.integers(0, N, 4 * N)])
    cols = np.concatenate([hub, path + 1, rng.integers(0, N, 4 * N)])
    M = sps.coo_matrix((rng.integers(1, 9, len(rows)).astype(np.float64), (rows, cols)), shape=(N, N)).tocsr()
    M = (M + M.T).tocoo()
    return gb.Matrix.from_coo(M.row, M.col, M.data, nrows=N, ncols=N, backend="cupy", symmetric=True)


@pytest.mark.parametrize("gather_push", [None, False])
def test_symmetric_bfs_and_sssp_forms(client: Client, gather_push: bool | None) -> None:
    """BFS and SSSP on a matrix known to be symmetric, a sparse frontier gathered and pushed
    through each worker's rows' transpose (None: where the GPU makes it) or pushed from the
    workers' rows (False): the single GPU's results."""
    def put(value: bool | None) -> None:
        from grblas_gpu.dask import objects

        objects.GATHER_PUSH = value

    S = _hub_and_path(8)
    DS = gd.distribute(S, client)
    assert DS.is_symmetric
    client.run(put, gather_push)
    try:
        for s in (0, 3, N - 1):
            _same(bfs_levels(DS, s), bfs_levels(S, s))
            _same(sssp(DS, s), sssp(S, s))
    finally:
        client.run(put, None)
