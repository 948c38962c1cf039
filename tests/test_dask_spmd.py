"""The algorithms run SPMD on a LocalCluster of 2 CPU worker processes (one Dask task per
worker per call, the exchanges over the workers' socket mesh): the five algorithms on
directed and symmetric graphs against the single-process results, the number of tasks a call
costs, bad input, and the client-driven path kept for interactive use."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("distributed")

import scipy.sparse as sps
from conftest import two_worker_client
from distributed import Client
from grblas_gpu.algorithms import bfs_levels, connected_components, pagerank, sssp, widest_path

import grblas_gpu as gb
import grblas_gpu.dask as gd
from grblas_gpu.dask import layout
from grblas_gpu.exceptions import IndexOutOfBound, InvalidValue, NotImplementedException

pytestmark = pytest.mark.usefixtures("spmd_path")  # (through tasks and through actors)

N = 400


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """Two worker processes of one thread on the NumPy backend."""
    with two_worker_client("numpy") as c:
        yield c


def _graph(seed: int, symmetric: bool, dtype: Any = np.int64, density: float = 3 / N) -> gb.Matrix:
    """A sparse random graph (a few vertices unreachable from 0 at this density)."""
    M = sps.random(N, N, density=density, random_state=seed, format="coo")
    if symmetric:
        M = (M + M.T).tocoo()
    return gb.Matrix.from_coo(M.row, M.col, (M.data * 50).astype(dtype) + 1, nrows=N, ncols=N, backend="numpy")


def _same(dist: Any, local: gb.Vector, exact: bool = True) -> None:
    assert isinstance(dist, gd.DistVector)
    got = dist.gather(backend="numpy")
    ok = got.isequal(local, check_dtype=True) if exact else got.isclose(local, rel_tol=1e-12, check_dtype=True)
    assert ok, (got, local)


@pytest.mark.parametrize("symmetric", [False, True])
def test_five_algorithms_match_one_process(client: Client, symmetric: bool) -> None:
    A = _graph(7, symmetric)
    D = gd.distribute(A, client, backend="numpy")
    assert D.layout.context.exchange == "dask"  # CPU workers: the socket mesh carries the SPMD exchanges
    for s in (0, 5):
        _same(bfs_levels(D, s), bfs_levels(A, s))
        _same(sssp(D, s, method="bellman-ford"), sssp(A, s, method="bellman-ford"))
    F = A.dup(gb.FP64)
    DF = gd.distribute(F, client, backend="numpy")
    _same(sssp(DF, 0), sssp(F, 0))  # float distances: full vectors, dense frontiers
    _same(widest_path(DF, 0), widest_path(F, 0))
    _same(connected_components(D), connected_components(A))
    _same(pagerank(D, tol=1e-6), pagerank(A, tol=1e-6), exact=False)
    _same(pagerank(D, weight=False, personalization={3: 1.0, 9: 3.0}, tol=0, max_iter=7),
          pagerank(A, weight=False, personalization={3: 1.0, 9: 3.0}, tol=0, max_iter=7), exact=False)


def test_one_round_of_tasks_per_call(client: Client, monkeypatch: pytest.MonkeyPatch, spmd_path: str) -> None:
    """A call costs the same few tasks per worker however many iterations it runs (through
    actors: only the task taking a result's partition); the client-driven statements cost
    several per iteration."""
    S = _graph(8, True, np.float64, density=8 / N)
    D = gd.distribute(S, client, backend="numpy")
    pagerank(D, tol=0, max_iter=1)  # the mesh made, the weights kept with the partitions
    submitted: list[str] = []
    submit = layout.Context.submit

    def counting(self: layout.Context, fn: Any, *args: Any, part: int, **kwargs: Any) -> Any:
        submitted.append(fn.__name__)
        return submit(self, fn, *args, part=part, **kwargs)

    submit_each = layout.Context.submit_each
    graphs: list[int] = []

    def counting_each(self: layout.Context, calls: Any, firsts: Any, then: Any = None) -> Any:
        submitted.extend(getattr(c, "func", c).__name__ for c in calls)
        submitted.extend(then.__name__ for _ in calls if then is not None)
        graphs.append(len(calls) * (2 if then is not None else 1))
        return submit_each(self, calls, firsts, then)

    monkeypatch.setattr(layout.Context, "submit", counting)
    monkeypatch.setattr(layout.Context, "submit_each", counting_each)
    counts = []
    for iters in (1, 30):
        submitted.clear()
        graphs.clear()
        got = pagerank(D, tol=0, max_iter=iters)
        counts.append(len(submitted))
    if spmd_path == "actors":  # each worker's part through its actor, the tasks taking the result in one graph
        assert counts[0] == counts[1] == 2 and submitted.count("take") == 2 and graphs == [2]
    else:  # each worker's part and the task taking its result's partition sent in one graph
        assert counts[0] == counts[1] == 2 * 2 and submitted.count("run_part") == 2 and graphs == [4]
    _same(got, pagerank(S, tol=0, max_iter=30), exact=False)
    submitted.clear()
    client_driven = pagerank.__wrapped__(D, tol=0, max_iter=3)  # the same function, statements from here
    assert len(submitted) >= 3 * 2 * 3
    _same(client_driven, pagerank(S, tol=0, max_iter=3), exact=False)


def test_bad_input_and_errors_raise_then_calls_work(client: Client) -> None:
    A = _graph(9, False)
    D = gd.distribute(A, client, backend="numpy")
    with pytest.raises(IndexOutOfBound):
        bfs_levels(D, N)
    with pytest.raises(InvalidValue):
        pagerank(D, alpha=1.5)
    p = gd.distribute(gb.Vector.from_coo([0], [1.0], size=N, backend="numpy"), like=D)
    with pytest.raises(NotImplementedException):
        pagerank(D, personalization=p)
    neg = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1, -5, 1], nrows=N, ncols=N, backend="numpy")
    with pytest.raises(InvalidValue, match="negative cycle"):
        sssp(gd.distribute(neg, client, backend="numpy"), 0)
    _same(bfs_levels(D, 1), bfs_levels(A, 1))  # the workers and their mesh are fine


def test_one_partition(client: Client) -> None:
    """On one worker the algorithm runs on the partition as in one process: the same results,
    exactly (no exchange at all); a symmetry found on the client is declared there."""
    A = _graph(10, False, np.float64)
    D = gd.distribute(A, client, npartitions=1, backend="numpy")
    _same(pagerank(D, tol=1e-6), pagerank(A, tol=1e-6))
    _same(sssp(D, 2), sssp(A, 2))
    _same(bfs_levels(D, 2), bfs_levels(A, 2))
    S = _graph(12, True, np.float64)
    DS = gd.distribute(S, client, npartitions=1, backend="numpy")
    _same(connected_components(DS), connected_components(S))
    _same(pagerank(DS, tol=1e-6), pagerank(S, tol=1e-6))


def test_local_cluster_gives_each_worker_its_share_of_memory() -> None:
    """(Dask's default would be the share of the cores a one-thread worker has: too little to
    build a large partition.)"""
    import psutil

    from grblas_gpu.dask.cluster import local_cluster

    with local_cluster(2, gpu=False) as cluster, Client(cluster) as c:
        limits = c.run(lambda dask_worker: dask_worker.memory_manager.memory_limit)
    assert sorted(limits.values()) == [psutil.virtual_memory().total // 2] * 2


def test_no_object_exchanges_in_pagerank_and_bfs_calls(client: Client, spmd_path: str) -> None:
    """Inside a call, PageRank's iterations exchange the vector and one scalar each and no
    count (its vectors are known full), and a BFS agrees no count by an object exchange: the
    matrix's count comes with the call (learned by the client from the first), the first
    frontier's from how it was made.  (Through actors, the workers first agree that each
    holds its partition: one exchange of integers.)"""
    from benchmarks.dask_profile import profile_call

    S = _graph(12, True, np.float64, density=6 / N)
    D = gd.distribute(S, client, backend="numpy")
    D.is_symmetric = True  # (products take the gather form: all-gathers)
    D._nvals_seen = None  # (as for a matrix whose count the client never asked)
    pagerank(D, tol=0, max_iter=1)
    bfs_levels(D, 0)
    assert D._nvals_seen == S.nvals  # learned from the first call
    prof = profile_call(client, lambda: pagerank(D, tol=0, max_iter=4))
    for phases in prof["phases"]:
        assert "allgather_object" not in phases
        assert phases.get("allgather_ints", {"count": 0})["count"] == (1 if spmd_path == "actors" else 0)
        assert phases["allgather"]["count"] == phases["allgather_scalar"]["count"] == 4
    got: list[Any] = []
    prof = profile_call(client, lambda: got.append(bfs_levels(D, 0)))
    for phases in prof["phases"]:
        assert "allgather_object" not in phases
    _same(got[0], bfs_levels(S, 0))


def test_calls_without_high_level_graphs(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where Dask has no HighLevelGraph to send a call's tasks as one graph, they are
    submitted one by one, with the same results."""
    import sys

    S = _graph(13, True, np.float64)
    D = gd.distribute(S, client, backend="numpy")
    monkeypatch.setitem(sys.modules, "dask.highlevelgraph", None)  # (its import raises ImportError)
    _same(pagerank(D, tol=0, max_iter=5), pagerank(S, tol=0, max_iter=5), exact=False)
    _same(bfs_levels(D, 0), bfs_levels(S, 0))
