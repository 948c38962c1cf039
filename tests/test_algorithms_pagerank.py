"""pagerank against networkx.pagerank and LAGraph's published (MATLAB) values.

Which definition the LAGraph values follow: MATLAB's ``centrality(G, 'pagerank')``
iterates exactly networkx's formula (unweighted, self-loops kept, dangling mass
and teleport spread uniformly, start 1/n) but stops at the first iteration where
the *largest* change ``max_v |x_k[v] - x_{k-1}[v]|`` is below 1e-4.  That happens
after 16 (karate), 8 (west0067) and 11 (ldbc-directed-example) iterations, and
``pagerank(A, tol=0, max_iter=k, weight=False)`` reproduces the published values to
their printed precision (~1e-10).  The converged networkx values differ from them by
up to 4e-5, inside LAGraph's own tolerance of 1e-4; both are tested.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import SHARED_DATA, scipy_mmread
from grblas_gpu.algorithms.pagerank import ConvergenceError, pagerank

import grblas_gpu as gb
from grblas_gpu.exceptions import DimensionMismatch, DomainMismatch, InvalidValue

LAGRAPH = SHARED_DATA / "lagraph"


def random_graph(seed: int, n: int, directed: bool) -> nx.DiGraph:
    """Seeded random weighted graph with self-loops, isolated and dangling vertices."""
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, 0.08, seed=seed, directed=directed)
    G.add_edges_from((int(v), int(v)) for v in rng.choice(n, 3, replace=False))
    G.remove_edges_from([e for e in G.edges if n - 1 in e or (directed and e[0] == n - 2)])
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.uniform(0.1, 5.0))
    return G.to_directed()  # undirected: both directions, same weight


def to_matrix(G: nx.DiGraph, backend: str) -> gb.Matrix:
    n = G.number_of_nodes()
    rows, cols, w = zip(*G.edges(data="weight"))
    return gb.Matrix.from_coo(list(rows), list(cols), list(w), nrows=n, ncols=n, backend=backend)


def as_array(d: dict, n: int) -> np.ndarray:
    return np.array([d[i] for i in range(n)])


CASES = [(seed, directed) for seed in (0, 1, 2) for directed in (True, False)]


@pytest.mark.parametrize(("seed", "directed"), CASES)
def test_matches_networkx(seed: int, directed: bool, backend: str) -> None:
    n = 40
    G = random_graph(seed, n, directed)
    A = to_matrix(G, backend)
    got = pagerank(A)
    assert got.dtype == gb.FP64 and got.nvals == n
    np.testing.assert_allclose(got.to_dense(), as_array(nx.pagerank(G), n), rtol=0, atol=1e-6)
    got = pagerank(A, alpha=0.6, weight=False)
    np.testing.assert_allclose(got.to_dense(), as_array(nx.pagerank(G, alpha=0.6, weight=None), n), atol=1e-6)


@pytest.mark.parametrize("weight", [True, False])
def test_fp32(weight: bool, backend: str) -> None:
    n = 40
    G = random_graph(4, n, True)
    got = pagerank(to_matrix(G, backend), weight=weight, dtype=gb.FP32)
    assert got.dtype == gb.FP32 and got.nvals == n
    want = as_array(nx.pagerank(G, weight="weight" if weight else None), n)
    np.testing.assert_allclose(got.to_dense(), want, rtol=1e-4, atol=1e-6)


def test_kept_weights_follow_the_matrix(backend: str) -> None:
    """The per-graph vectors kept with A between calls: each call, after a change of
    parameters or of A itself (an entry written, one deleted: the dangling set moves),
    matches networkx on the graph as it is then."""
    n = 40
    G = random_graph(5, n, True)
    A = to_matrix(G, backend)
    runs = [{}, {"alpha": 0.6}, {"weight": False}, {"dtype": gb.FP32}, {}]
    for kwargs in runs:
        got = pagerank(A, **kwargs)
        want = nx.pagerank(G, alpha=kwargs.get("alpha", 0.85), weight="weight" if kwargs.get("weight", True) else None)
        np.testing.assert_allclose(got.to_dense(), as_array(want, n), rtol=1e-5, atol=1e-6)
    dangling = next(v for v in range(n) if G.out_degree(v) == 0)
    A[dangling, 3] = 2.5
    G.add_edge(dangling, 3, weight=2.5)
    np.testing.assert_allclose(pagerank(A).to_dense(), as_array(nx.pagerank(G), n), atol=1e-6)
    u, v = next(iter(G.edges))
    del A[u, v]
    G.remove_edge(u, v)
    np.testing.assert_allclose(pagerank(A).to_dense(), as_array(nx.pagerank(G), n), atol=1e-6)


@pytest.mark.parametrize("directed", [True, False])
def test_personalization(directed: bool, backend: str) -> None:
    n = 40
    G = random_graph(5, n, directed)
    A = to_matrix(G, backend)
    pers = {0: 1.0, 3: 2.0, n - 1: 0.5}
    want = as_array(nx.pagerank(G, personalization=pers), n)
    np.testing.assert_allclose(pagerank(A, personalization=pers).to_dense(), want, atol=1e-6)
    as_vector = gb.Vector.from_coo(list(pers), list(pers.values()), size=n, backend=backend)
    np.testing.assert_allclose(pagerank(A, personalization=as_vector).to_dense(), want, atol=1e-6)


def test_fixed_iterations_and_convergence_error(backend: str) -> None:
    G = random_graph(3, 30, True)
    A = to_matrix(G, backend)
    with pytest.raises(ConvergenceError):
        pagerank(A, tol=1e-15, max_iter=3)
    assert issubclass(ConvergenceError, InvalidValue)
    # tol=0: exactly max_iter iterations, no error.
    one = pagerank(A, tol=0, max_iter=1, weight=False).to_dense()
    out = np.array([G.out_degree(u) for u in range(30)], dtype=float)
    x = np.full(30, 1 / 30)
    dangling = x[out == 0].sum()
    expected = 0.15 / 30 + 0.85 * dangling / 30 + 0.85 * np.array(
        [sum(x[u] / out[u] for u in G.predecessors(v)) for v in range(30)])
    np.testing.assert_allclose(one, expected, rtol=1e-12)


def test_small_cases(backend: str) -> None:
    assert pagerank(gb.Matrix(gb.FP64, 0, 0, backend=backend)).nvals == 0
    np.testing.assert_allclose(pagerank(gb.Matrix(gb.FP64, 4, 4, backend=backend)).to_dense(), 0.25)
    cycle = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], 1.0, nrows=3, ncols=3, backend=backend)
    np.testing.assert_allclose(pagerank(cycle).to_dense(), 1 / 3)


LAGRAPH_CASES = [("karate.mtx", "karate-PR-matlab.txt", 16),
                 ("west0067.mtx", "west0067-PR-matlab.txt", 8),
                 ("ldbc-directed-example.mtx", "ldbc-directed-example-PR-matlab.txt", 11)]


@pytest.mark.parametrize(("mtx", "expected", "iterations"), LAGRAPH_CASES)
def test_lagraph_matlab_values(mtx: str, expected: str, iterations: int, backend: str) -> None:
    pytest.importorskip("scipy.io")
    if not (LAGRAPH / mtx).exists() or not (LAGRAPH / "expected" / expected).exists():
        pytest.skip(f"LAGraph data not found at {LAGRAPH}")
    coo = scipy_mmread(LAGRAPH / mtx).tocoo()  # symmetric files come back with both triangles
    n = coo.shape[0]
    A = gb.Matrix.from_coo(coo.row, coo.col, coo.data, nrows=n, ncols=n, dtype=gb.FP64, backend=backend)
    want = np.loadtxt(LAGRAPH / "expected" / expected)[:, 1]
    fixed = pagerank(A, tol=0, max_iter=iterations, weight=False).to_dense()
    np.testing.assert_allclose(fixed, want, rtol=0, atol=1e-9)
    np.testing.assert_allclose(pagerank(A, weight=False).to_dense(), want, rtol=0, atol=1e-4)


def test_bad_arguments(backend: str) -> None:
    with pytest.raises(DimensionMismatch):
        pagerank(gb.Matrix.from_coo([0], [1], 1.0, nrows=2, ncols=3, backend=backend))
    with pytest.raises(DomainMismatch):
        pagerank(np.eye(3))
    A = gb.Matrix.from_coo([0, 1], [1, 0], 1.0, nrows=2, ncols=2, backend=backend)
    with pytest.raises(InvalidValue):
        pagerank(A, personalization={0: 0.0})
    with pytest.raises(InvalidValue, match="dtype"):
        pagerank(A, dtype=gb.INT64)
