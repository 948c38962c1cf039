"""sssp (min.+) and widest_path (max.min) against independent references."""

from __future__ import annotations

import heapq
import sys

import numpy as np
import pytest
import scipy.sparse as sps
from grblas_gpu.algorithms.sssp import sssp
from grblas_gpu.algorithms.widest_path import widest_path
from scipy.sparse import csgraph

import grblas_gpu as gb
from grblas_gpu.exceptions import (
    DimensionMismatch,
    DomainMismatch,
    IndexOutOfBound,
    InvalidValue,
)


def random_graph(seed: int, n: int = 40, directed: bool = True, negative: bool = False,
                 integer: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Edges (rows, cols, weights) of a seeded random graph with n vertices.

    The last 3 vertices are isolated; a few positive self-loops are added.  With
    ``negative``, the graph is a DAG (in a random vertex order) with weights in
    [-5, 10): negative edges but no negative cycle.  Undirected graphs store both
    directions with the same weight.
    """
    rng = np.random.default_rng(seed)
    edge = rng.random((n, n)) < 0.07
    np.fill_diagonal(edge, False)
    edge[n - 3:, :] = edge[:, n - 3:] = False
    if negative:
        order = rng.permutation(n)
        edge &= order[:, None] < order[None, :]
    w = rng.integers(1, 20, (n, n)).astype(float) if integer else rng.uniform(0.5, 10.0, (n, n))
    if negative:
        w -= 5.5 if not integer else 6
        w[w == 0] = 1
    if not directed:
        edge = np.triu(edge) | np.triu(edge).T
        w = np.triu(w) + np.triu(w, 1).T
    loops = rng.choice(n - 3, 3, replace=False)
    edge[loops, loops] = True
    w[loops, loops] = np.abs(w[loops, loops]) + 1
    rows, cols = np.nonzero(edge)
    return rows, cols, w[rows, cols], n


def to_matrix(rows, cols, vals, n, backend, dtype=None) -> gb.Matrix:
    return gb.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, dtype=dtype, backend=backend)


def widest_reference(rows, cols, vals, n: int, source: int) -> np.ndarray:
    """Modified Dijkstra: settle the vertex with the widest known path first (max-min)."""
    adj: dict[int, list[tuple[int, float]]] = {}
    for u, v, w in zip(rows.tolist(), cols.tolist(), vals.tolist()):
        adj.setdefault(u, []).append((v, w))
    width = np.full(n, -np.inf)
    width[source] = np.inf
    heap, done = [(-np.inf, source)], set()
    while heap:
        neg, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        for v, w in adj.get(u, []):
            if min(-neg, w) > width[v]:
                width[v] = min(-neg, w)
                heapq.heappush(heap, (-width[v], v))
    return width


CASES = [(seed, directed, negative) for seed in (0, 1, 2) for directed in (True, False)
         for negative in (False, True) if directed or not negative]


@pytest.fixture(params=["auto", "always", "never"])
def dense_frontier(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """sssp as it is, and with every frontier / no frontier multiplied as a full vector."""
    share = {"auto": None, "always": 0.0, "never": 2.0}[request.param]
    if share is not None:
        monkeypatch.setattr(sys.modules["grblas_gpu.algorithms.sssp"], "DENSE_FRONTIER", share)
    return request.param


@pytest.mark.parametrize(("seed", "directed", "negative"), CASES)
def test_sssp_matches_scipy(seed: int, directed: bool, negative: bool, backend: str, dense_frontier: str) -> None:
    rows, cols, vals, n = random_graph(seed, directed=directed, negative=negative)
    A = to_matrix(rows, cols, vals, n, backend)
    all_pairs = csgraph.shortest_path(sps.csr_matrix((vals, (rows, cols)), shape=(n, n)), method="BF")
    widest_reach = int(np.argmax(np.isfinite(all_pairs).sum(axis=1)))
    for source in (0, n - 1, widest_reach):
        ref = all_pairs[source]
        got = sssp(A, source)
        assert got.dtype == gb.FP64
        idx, values = got.to_coo()
        np.testing.assert_array_equal(idx, np.flatnonzero(np.isfinite(ref)))
        np.testing.assert_allclose(values, ref[idx], rtol=1e-12, atol=1e-12)


def bellman_ford_reference(n: int, rows, cols, vals, source: int, limit: float) -> dict[int, float]:
    """Plain Bellman-Ford in Python floats, where a distance must be below ``limit`` (the
    type's largest value, which sssp takes for "no path yet") to count: ``inf`` arrives
    nowhere, ``-inf`` spreads, and NaN (``-inf + inf``) is never shorter."""
    dist = {source: 0.0}
    for _ in range(n):
        changed = False
        for u, v, w in zip(rows.tolist(), cols.tolist(), vals.tolist()):
            if u in dist and dist[u] + w < dist.get(v, limit):
                dist[v], changed = dist[u] + w, True
        if not changed:
            break
    return dist


@pytest.mark.parametrize("seed", [3, 4])
def test_sssp_infinite_weights(seed: int, backend: str, dense_frontier: str) -> None:
    """Edges of weight +inf and -inf (on a DAG, so no negative cycle) against plain
    Bellman-Ford: a frontier multiplied as a full vector (+inf where it has no entry) must
    give the same distances and the same set of reached vertices as one that is not."""
    rows, cols, vals, n = random_graph(seed, negative=True)
    rng = np.random.default_rng(seed)
    pick = rng.permutation(vals.size)
    vals[pick[:4]], vals[pick[4:8]] = np.inf, -np.inf
    A = to_matrix(rows, cols, vals, n, backend)
    for source in range(0, n, 5):
        want = bellman_ford_reference(n, rows, cols, vals, source, float(np.finfo(np.float64).max))
        idx, values = sssp(A, source).to_coo()
        assert idx.tolist() == sorted(want)
        np.testing.assert_array_equal(values, [want[i] for i in idx.tolist()])


@pytest.mark.parametrize("negative", [False, True])
def test_sssp_integer_weights(negative: bool, backend: str) -> None:
    rows, cols, vals, n = random_graph(7, negative=negative, integer=True)
    A = to_matrix(rows, cols, vals.astype(np.int64), n, backend)
    ref = csgraph.shortest_path(sps.csr_matrix((vals, (rows, cols)), shape=(n, n)), method="BF", indices=1)
    got = sssp(A, 1)
    assert got.dtype == gb.INT64
    np.testing.assert_array_equal(got.to_dense(fill_value=-999), np.where(np.isinf(ref), -999, ref))


def test_sssp_small_by_hand(backend: str) -> None:
    A = to_matrix([0, 0, 1, 2, 3], [1, 2, 2, 3, 1], [4.0, 1.0, -2.0, 3.0, 5.0], 5, backend)
    assert sssp(A, 0).isequal(gb.Vector.from_coo([0, 1, 2, 3], [0.0, 4.0, 1.0, 4.0], size=5))
    assert sssp(A, 4).isequal(gb.Vector.from_coo([4], [0.0], size=5))


def test_sssp_negative_cycle(backend: str) -> None:
    # 1 -> 2 -> 1 has length -2; reachable from 0 but not from 3.
    A = to_matrix([0, 1, 2, 3], [1, 2, 1, 0], [1.0, 1.0, -3.0, 1.0], 5, backend)
    with pytest.raises(InvalidValue, match="negative cycle"):
        sssp(A, 0)
    assert sssp(A, 4).isequal(gb.Vector.from_coo([4], [0.0], size=5))
    with pytest.raises(InvalidValue, match="negative cycle"):
        sssp(to_matrix([0], [0], [-1.0], 1, backend), 0)  # a negative self-loop


@pytest.mark.parametrize(("seed", "directed"), [(s, d) for s in (0, 1, 2) for d in (True, False)])
def test_widest_path_matches_dijkstra(seed: int, directed: bool, backend: str) -> None:
    rows, cols, vals, n = random_graph(seed, directed=directed)
    A = to_matrix(rows, cols, vals, n, backend)
    for source in (0, 3, n - 1):
        ref = widest_reference(rows, cols, vals, n, source)
        got = widest_path(A, source)
        assert got.dtype == gb.FP64
        idx, values = got.to_coo()
        np.testing.assert_array_equal(idx, np.flatnonzero(ref > -np.inf))
        np.testing.assert_array_equal(values, ref[idx])


def test_widest_path_integer_and_negative(backend: str) -> None:
    A = to_matrix([0, 0, 1, 2], [1, 2, 2, 3], [4, 1, -2, 3], 5, backend, dtype=gb.INT32)
    expected = gb.Vector.from_coo([0, 1, 2, 3], [np.inf, 4.0, 1.0, 1.0], size=5)
    assert widest_path(A, 0).isequal(expected, check_dtype=True)


@pytest.mark.parametrize("algorithm", [sssp, widest_path])
def test_bad_arguments(algorithm, backend: str) -> None:
    A = to_matrix([0, 1], [1, 2], [1.0, 2.0], 3, backend)
    with pytest.raises(IndexOutOfBound):
        algorithm(A, 3)
    with pytest.raises(IndexOutOfBound):
        algorithm(A, -1)
    with pytest.raises(DimensionMismatch):
        algorithm(gb.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=3, backend=backend), 0)
    with pytest.raises(DomainMismatch):
        algorithm(A.dup(gb.BOOL), 0)
    with pytest.raises(DomainMismatch):
        algorithm(np.eye(3), 0)
