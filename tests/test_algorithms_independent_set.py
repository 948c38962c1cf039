"""maximal_independent_set and greedy_coloring, checked by independent verifiers
(independence and maximality; a proper colouring using every colour) and against the
sequential greedy algorithms of networkx in the same random vertex order."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import shared_coo
from grblas_gpu.algorithms.coloring import greedy_coloring
from grblas_gpu.algorithms.independent_set import maximal_independent_set

import grblas_gpu as gb
from grblas_gpu.exceptions import DimensionMismatch, DomainMismatch


def random_edges(seed: int, n: int, p: float, directed: bool) -> tuple[np.ndarray, np.ndarray]:
    """Random edges with a few self-loops and three isolated vertices; both directions
    stored when undirected."""
    rng = np.random.default_rng(seed)
    edge = rng.random((n, n)) < p
    edge[rng.choice(n, 4), rng.choice(n, 4)] = True
    edge[np.arange(5), np.arange(5)] = True  # self-loops
    edge[n - 3:, :] = edge[:, n - 3:] = False
    if not directed:
        edge |= edge.T
    return np.nonzero(edge)


def undirected(rows: np.ndarray, cols: np.ndarray, n: int) -> nx.Graph:
    """The simple undirected graph of the edges: directions and self-loops dropped."""
    G = nx.empty_graph(n)
    G.add_edges_from((int(u), int(v)) for u, v in zip(rows, cols) if u != v)
    return G


def priority_order(n: int, seed: int) -> list[int]:
    """The vertices by decreasing priority, the priorities being the documented
    ``default_rng(seed).permutation(n) + 1``."""
    priority = np.random.default_rng(seed).permutation(n)
    return [int(v) for v in np.argsort(-priority)]


def assert_maximal_independent(members: set[int], G: nx.Graph) -> None:
    assert all(not (u in members and v in members) for u, v in G.edges), "two members are adjacent"
    for v in G:
        assert v in members or any(u in members for u in G[v]), f"vertex {v} could be added"


def assert_proper_colouring(colour: np.ndarray, G: nx.Graph) -> None:
    assert all(colour[u] != colour[v] for u, v in G.edges), "an edge joins two equal colours"
    assert set(colour.tolist()) == set(range(int(colour.max()) + 1)), "a colour is skipped"
    assert colour.max(initial=-1) <= max((d for _, d in G.degree), default=0), "more than max degree + 1"


CASES = [(seed, n, p, directed) for seed in (0, 1, 2) for directed in (True, False)
         for n, p in ((40, 0.08), (200, 0.02))]


def as_matrix(rows: np.ndarray, cols: np.ndarray, n: int, backend: str) -> gb.Matrix:
    values = np.random.default_rng(n).uniform(-2, 2, len(rows))  # values are ignored
    return gb.Matrix.from_coo(rows, cols, values, nrows=n, ncols=n, backend=backend)


@pytest.mark.parametrize(("seed", "n", "p", "directed"), CASES)
def test_maximal_independent_set(seed: int, n: int, p: float, directed: bool, backend: str) -> None:
    rows, cols = random_edges(seed, n, p, directed)
    G = undirected(rows, cols, n)
    got = maximal_independent_set(as_matrix(rows, cols, n, backend), seed=seed)
    assert got.dtype == gb.BOOL
    idx, vals = got.to_coo()
    assert vals.all()
    members = set(idx.tolist())
    assert_maximal_independent(members, G)
    assert {n - 3, n - 2, n - 1} <= members  # isolated vertices always join
    # With fixed priorities the rounds give the sequential greedy set in priority order.
    greedy: set[int] = set()
    for v in priority_order(n, seed):
        if not any(u in greedy for u in G[v]):
            greedy.add(v)
    assert members == greedy


@pytest.mark.parametrize(("seed", "n", "p", "directed"), CASES)
def test_greedy_coloring(seed: int, n: int, p: float, directed: bool, backend: str) -> None:
    rows, cols = random_edges(seed, n, p, directed)
    G = undirected(rows, cols, n)
    got = greedy_coloring(as_matrix(rows, cols, n, backend), seed=seed)
    assert got.dtype == gb.INT64 and got.nvals == n
    colour = got.to_dense()
    assert_proper_colouring(colour, G)
    # Jones-Plassmann with the smallest free colour is the sequential greedy colouring in
    # priority order.
    order = priority_order(n, seed)
    want = nx.greedy_color(G, strategy=lambda graph, colors: iter(order))
    np.testing.assert_array_equal(colour, [want[v] for v in range(n)])


def test_seeds_and_small_cases(backend: str) -> None:
    rows, cols = random_edges(7, 60, 0.1, False)
    A = as_matrix(rows, cols, 60, backend)
    assert maximal_independent_set(A, seed=5).isequal(maximal_independent_set(A, seed=5))
    assert greedy_coloring(A, seed=np.random.default_rng(5)).isequal(greedy_coloring(A, seed=5))
    assert maximal_independent_set(gb.Matrix(gb.BOOL, 0, 0, backend=backend)).nvals == 0
    assert greedy_coloring(gb.Matrix(gb.BOOL, 0, 0, backend=backend)).nvals == 0
    no_edges = gb.Matrix(gb.FP64, 4, 4, backend=backend)
    assert maximal_independent_set(no_edges).nvals == 4
    np.testing.assert_array_equal(greedy_coloring(no_edges).to_dense(), 0)
    clique = gb.Matrix.from_dense(np.ones((5, 5)), backend=backend)
    assert maximal_independent_set(clique, seed=1).nvals == 1
    assert sorted(greedy_coloring(clique, seed=1).to_dense().tolist()) == [0, 1, 2, 3, 4]


def test_karate(backend: str) -> None:
    coo = shared_coo("lagraph", "karate.mtx")
    n = coo.shape[0]
    A = gb.Matrix.from_coo(coo.row, coo.col, True, nrows=n, ncols=n, backend=backend)
    G = undirected(coo.row, coo.col, n)
    for seed in range(5):
        assert_maximal_independent(set(maximal_independent_set(A, seed=seed).to_coo()[0].tolist()), G)
        assert_proper_colouring(greedy_coloring(A, seed=seed).to_dense(), G)


def test_bad_arguments(backend: str) -> None:
    for f in (maximal_independent_set, greedy_coloring):
        with pytest.raises(DimensionMismatch):
            f(gb.Matrix.from_coo([0], [1], 1.0, nrows=2, ncols=3, backend=backend))
        with pytest.raises(DomainMismatch):
            f(np.eye(3))
