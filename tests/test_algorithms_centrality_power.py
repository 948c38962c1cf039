"""katz_centrality, eigenvector_centrality and hits against networkx on small random graphs
(directed and undirected, weighted, with self-loops and isolated vertices) and the karate club."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import shared_coo
from grblas_gpu.algorithms.eigenvector import eigenvector_centrality
from grblas_gpu.algorithms.hits import hits
from grblas_gpu.algorithms.katz import katz_centrality
from grblas_gpu.algorithms.pagerank import ConvergenceError

import grblas_gpu as gb
from grblas_gpu.exceptions import DimensionMismatch, DomainMismatch, InvalidValue


def random_graph(seed: int, n: int, directed: bool) -> nx.DiGraph:
    """Seeded random weighted graph with a few self-loops and two isolated vertices."""
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, 0.12, seed=seed, directed=directed)
    G.add_edges_from((int(v), int(v)) for v in rng.choice(n - 2, 3, replace=False))
    G.remove_edges_from([e for e in G.edges if n - 1 in e or n - 2 in e])
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.uniform(0.5, 3.0))
    return G


def to_matrix(G: nx.Graph, backend: str) -> gb.Matrix:
    """Adjacency matrix, both directions stored for an undirected graph (a self-loop once)."""
    n = G.number_of_nodes()
    D = G.to_directed() if not G.is_directed() else G
    rows, cols, w = zip(*D.edges(data="weight"))
    return gb.Matrix.from_coo(list(rows), list(cols), list(w), nrows=n, ncols=n, backend=backend)


def as_array(d: dict, n: int) -> np.ndarray:
    return np.array([d[i] for i in range(n)])


CASES = [(seed, directed) for seed in (0, 1, 2) for directed in (True, False)]


@pytest.mark.parametrize(("seed", "directed"), CASES)
def test_katz_matches_networkx(seed: int, directed: bool, backend: str) -> None:
    n = 30
    G = random_graph(seed, n, directed)
    A = to_matrix(G, backend)
    got = katz_centrality(A)
    assert got.dtype == gb.FP64 and got.nvals == n
    np.testing.assert_allclose(got.to_dense(), as_array(nx.katz_centrality(G), n), rtol=0, atol=1e-6)
    got = katz_centrality(A, alpha=0.05, beta=2.0, normalized=False, weight=True)
    want = nx.katz_centrality(G, alpha=0.05, beta=2.0, normalized=False, weight="weight")
    np.testing.assert_allclose(got.to_dense(), as_array(want, n), rtol=1e-6)


@pytest.mark.parametrize(("seed", "directed"), CASES)
def test_eigenvector_matches_networkx(seed: int, directed: bool, backend: str) -> None:
    n = 30
    G = random_graph(seed, n, directed)
    A = to_matrix(G, backend)
    got = eigenvector_centrality(A, max_iter=1000)
    assert got.dtype == gb.FP64 and got.nvals == n
    want = nx.eigenvector_centrality(G, max_iter=1000)
    np.testing.assert_allclose(got.to_dense(), as_array(want, n), rtol=0, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(got.to_dense()), 1.0, rtol=1e-12)
    got = eigenvector_centrality(A, max_iter=1000, weight=True)
    want = nx.eigenvector_centrality(G, max_iter=1000, weight="weight")
    np.testing.assert_allclose(got.to_dense(), as_array(want, n), rtol=0, atol=1e-6)


def _hits_reference(G: nx.Graph, **kwargs: float) -> tuple[dict, dict]:
    """networkx's power iteration for HITS where it still has one, else its SVD form."""
    from networkx.algorithms.link_analysis import hits_alg

    return getattr(hits_alg, "_hits_python", nx.hits)(G, **kwargs)


@pytest.mark.parametrize(("seed", "directed"), CASES)
def test_hits_matches_networkx(seed: int, directed: bool, backend: str) -> None:
    n = 30
    G = random_graph(seed, n, directed)
    hubs, authorities = hits(to_matrix(G, backend))
    assert hubs.nvals == authorities.nvals == n
    want_h, want_a = _hits_reference(G)
    np.testing.assert_allclose(hubs.to_dense(), as_array(want_h, n), rtol=0, atol=1e-8)
    np.testing.assert_allclose(authorities.to_dense(), as_array(want_a, n), rtol=0, atol=1e-8)
    np.testing.assert_allclose([hubs.reduce().new().value, authorities.reduce().new().value], 1.0)


def test_karate(backend: str) -> None:
    coo = shared_coo("lagraph", "karate.mtx")
    n = coo.shape[0]
    A = gb.Matrix.from_coo(coo.row, coo.col, 1.0, nrows=n, ncols=n, backend=backend)
    G = nx.Graph(list(zip(coo.row.tolist(), coo.col.tolist())))
    np.testing.assert_allclose(katz_centrality(A).to_dense(), as_array(nx.katz_centrality(G), n), atol=1e-6)
    np.testing.assert_allclose(eigenvector_centrality(A).to_dense(),
                               as_array(nx.eigenvector_centrality(G), n), atol=1e-6)
    hubs, authorities = hits(A)
    want_h, want_a = nx.hits(G)  # the SVD form: connected graph, one top singular vector
    np.testing.assert_allclose(hubs.to_dense(), as_array(want_h, n), atol=1e-8)
    np.testing.assert_allclose(authorities.to_dense(), as_array(want_a, n), atol=1e-8)


def test_small_cases(backend: str) -> None:
    empty = gb.Matrix(gb.FP64, 0, 0, backend=backend)
    assert katz_centrality(empty).nvals == 0
    assert [v.nvals for v in hits(empty)] == [0, 0]
    with pytest.raises(InvalidValue, match="null graph"):
        eigenvector_centrality(empty)
    no_edges = gb.Matrix(gb.BOOL, 4, 4, backend=backend)
    G = nx.empty_graph(4)
    np.testing.assert_allclose(katz_centrality(no_edges).to_dense(), as_array(nx.katz_centrality(G), 4))
    np.testing.assert_allclose(eigenvector_centrality(no_edges).to_dense(),
                               as_array(nx.eigenvector_centrality(G), 4))
    np.testing.assert_allclose([v.to_dense() for v in hits(no_edges)], 0.25)
    path = gb.Matrix.from_coo([0, 1], [1, 2], True, nrows=3, ncols=3, backend=backend)
    hubs, authorities = hits(path)
    np.testing.assert_allclose(hubs.to_dense(), [0.5, 0.5, 0.0])
    np.testing.assert_allclose(authorities.to_dense(), [0.0, 0.5, 0.5])


def test_convergence_errors(backend: str) -> None:
    A = to_matrix(random_graph(3, 30, True), backend)
    with pytest.raises(ConvergenceError):
        katz_centrality(A, alpha=0.9)  # beyond 1 / lambda_max: diverges
    with pytest.raises(ConvergenceError):
        katz_centrality(A, max_iter=0)
    with pytest.raises(ConvergenceError):
        eigenvector_centrality(A, max_iter=2)
    with pytest.raises(ConvergenceError):
        hits(A, max_iter=2)


def test_bad_arguments(backend: str) -> None:
    rect = gb.Matrix.from_coo([0], [1], 1.0, nrows=2, ncols=3, backend=backend)
    A = gb.Matrix.from_coo([0, 1], [1, 0], 1.0, nrows=2, ncols=2, backend=backend)
    for f in (katz_centrality, eigenvector_centrality, hits):
        with pytest.raises(DimensionMismatch):
            f(rect)
        with pytest.raises(DomainMismatch):
            f(np.eye(3))
        with pytest.raises(InvalidValue):
            f(A, tol=float("nan"))
        with pytest.raises(InvalidValue):
            f(A, max_iter=-1)
    with pytest.raises(InvalidValue):
        katz_centrality(A, alpha=-0.1)
    with pytest.raises(InvalidValue):
        katz_centrality(A, beta="one")
    with pytest.raises(InvalidValue):
        hits(gb.Matrix.from_coo([0], [1], -1.0, nrows=2, ncols=2, backend=backend))
