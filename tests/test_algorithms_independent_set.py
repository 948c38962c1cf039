"""maximal_independent_set and greedy_coloring, checked by independent verifiers
(independence and maximality; a proper colouring using every colour, where no vertex could
take a smaller colour) and against the sequential greedy algorithms of networkx in the same
vertex order (the independent set equal, the colour counts close)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import shared_coo
from grblas_gpu.algorithms.coloring import add_colours, clashes, first_free_colours, greedy_coloring, towards_larger
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


def largest_first_order(G: nx.Graph, seed: int) -> list[int]:
    """The vertices by decreasing degree, ties by decreasing random priority (the documented
    ``degree * n + default_rng(seed).permutation(n) + 1``)."""
    n = G.number_of_nodes()
    priority = np.random.default_rng(seed).permutation(n)
    return sorted(G, key=lambda v: (-G.degree[v], -priority[v]))


def assert_maximal_independent(members: set[int], G: nx.Graph) -> None:
    assert all(not (u in members and v in members) for u, v in G.edges), "two members are adjacent"
    for v in G:
        assert v in members or any(u in members for u in G[v]), f"vertex {v} could be added"


def assert_grundy(colour: np.ndarray, G: nx.Graph) -> None:
    """Every vertex of colour ``c`` has neighbours of each colour below ``c`` (a colouring
    that no vertex could improve on its own, as every greedy colouring is)."""
    for v in G:
        seen = {int(colour[u]) for u in G[v]}
        assert all(c in seen for c in range(int(colour[v]))), f"vertex {v} could take a smaller colour"


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
    assert_grundy(colour, G)
    theirs = nx.greedy_color(G, strategy=lambda graph, colors: iter(largest_first_order(G, seed)))
    assert colour.max(initial=-1) <= max(theirs.values(), default=-1) + 2


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
    big = gb.Matrix.from_dense(np.ones((70, 70), dtype=bool), backend=backend)  # colours past one word of 64
    assert sorted(greedy_coloring(big, seed=2).to_dense().tolist()) == list(range(70))


def test_first_free_colours(backend: str) -> None:
    # vertex 0 sees colours {0, 1, 3, 5}, vertex 6 sees {1, 2}, vertex 7 sees nothing coloured,
    # vertex 8 sees {0, 1, 2}, vertex 10 sees 0 .. 63 (a full word), vertex 11 sees 0 .. 69
    # but 66: first free 2, 0, 0, 3, 64, 66 (a hand count, not the code's).
    n = 12 + 70
    colour = {1: 0, 2: 1, 3: 3, 4: 5, 5: 2} | {12 + c: c for c in range(70)}
    edges = [(0, 1), (0, 2), (0, 3), (0, 4), (6, 2), (6, 5), (7, 9), (8, 1), (8, 2), (8, 5)]
    edges += [(10, 12 + c) for c in range(64)] + [(11, 12 + c) for c in range(70) if c != 66]
    r, c = np.array(edges).T
    S = gb.Matrix.from_coo(np.r_[r, c], np.r_[c, r], 0, nrows=n, ncols=n, dtype=gb.UINT64, backend=backend)
    words = [gb.Vector(gb.UINT64, n, backend=backend)]
    add_colours(words, np.array(list(colour)), np.array(list(colour.values())))
    assert len(words) == 2
    got = first_free_colours(S, np.array([0, 6, 7, 8, 10, 11]), words)
    assert got.tolist() == [2, 0, 0, 3, 64, 66]
    assert first_free_colours(S, np.array([0, 7]), [gb.Vector(gb.UINT64, n, backend=backend)]).tolist() == [0, 0]


def test_towards_larger_and_clashes(backend: str) -> None:
    rng = np.random.default_rng(4)
    n = 30
    rows, cols = np.nonzero(np.triu(rng.random((n, n)) < 0.2, 1))
    Z = gb.Matrix.from_coo(np.r_[rows, cols], np.r_[cols, rows], 0, nrows=n, ncols=n, dtype=gb.UINT64,
                           backend=backend)
    p = rng.permutation(n) + 1
    H = towards_larger(Z, gb.Vector.from_coo(np.arange(n), p, size=n, dtype=gb.INT64, backend=backend))
    r, c, _ = H.to_coo()
    want = sorted((int(u), int(v)) for u, v in zip(np.r_[rows, cols], np.r_[cols, rows]) if p[u] < p[v])
    assert sorted(zip(r.tolist(), c.tolist())) == want
    # Tentative colours of a subset, some past the first word: a hand check of each clash.
    v = np.array([0, 1, 2, 3, 4, 5])
    t = np.array([0, 0, 70, 70, 3, 3])
    edges = [(0, 1), (2, 3), (4, 6), (5, 1)]
    er, ec = np.array(edges).T
    S = gb.Matrix.from_coo(np.r_[er, ec], np.r_[ec, er], 0, nrows=8, ncols=8, dtype=gb.UINT64, backend=backend)
    prio = gb.Vector.from_coo(np.arange(8), [1, 2, 4, 3, 5, 6, 9, 8], size=8, dtype=gb.INT64, backend=backend)
    # 0 loses to 1 (same colour, larger priority); 3 loses to 2; 4's larger neighbour 6 is not
    # trying; 5 and 1 differ in colour.
    assert clashes(towards_larger(S, prio), v, t).tolist() == [True, False, False, True, False, False]


def test_colour_count_near_networkx(backend: str) -> None:
    # largest degree first, as networkx's default strategy: a comparable number of colours
    G = nx.powerlaw_cluster_graph(400, 6, 0.3, seed=3)
    rows, cols = np.array(G.edges).T
    A = as_matrix(np.r_[rows, cols], np.r_[cols, rows], 400, backend)
    colour = greedy_coloring(A, seed=0).to_dense()
    assert_proper_colouring(colour, G)
    assert_grundy(colour, G)
    theirs = max(nx.greedy_color(G).values()) + 1
    assert int(colour.max()) + 1 <= theirs + 1


def test_karate(backend: str) -> None:
    coo = shared_coo("lagraph", "karate.mtx")
    n = coo.shape[0]
    A = gb.Matrix.from_coo(coo.row, coo.col, True, nrows=n, ncols=n, backend=backend)
    G = undirected(coo.row, coo.col, n)
    for seed in range(5):
        assert_maximal_independent(set(maximal_independent_set(A, seed=seed).to_coo()[0].tolist()), G)
        colour = greedy_coloring(A, seed=seed).to_dense()
        assert_proper_colouring(colour, G)
        assert_grundy(colour, G)


def test_bad_arguments(backend: str) -> None:
    for f in (maximal_independent_set, greedy_coloring):
        with pytest.raises(DimensionMismatch):
            f(gb.Matrix.from_coo([0], [1], 1.0, nrows=2, ncols=3, backend=backend))
        with pytest.raises(DomainMismatch):
            f(np.eye(3))
