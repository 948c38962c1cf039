"""jaccard against networkx.jaccard_coefficient: every edge, given pairs (edges, non-edges,
a vertex with itself, isolated vertices), the shared data, and bad pairs."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import nx_adjacency, shared_coo, snap_edges
from grblas_gpu.algorithms.jaccard import jaccard

import grblas_gpu as gb


def nx_jaccard(G: nx.Graph, pairs: list[tuple[int, int]]) -> dict[tuple[int, int], float]:
    """networkx's coefficients of ``pairs`` on G's undirected graph without self-loops."""
    U = nx.Graph(G.to_undirected()) if G.is_directed() else G.copy()
    U.remove_edges_from(list(nx.selfloop_edges(U)))
    return {(u, v): float(p) for u, v, p in nx.jaccard_coefficient(U, pairs)}


def as_dict(J: gb.Matrix) -> dict[tuple[int, int], float]:
    assert J.dtype == gb.FP64
    r, c, v = J.to_coo()
    return {(int(i), int(j)): float(x) for i, j, x in zip(r, c, v)}


def assert_close(got: dict, expected: dict) -> None:
    assert got.keys() == expected.keys()
    keys = sorted(got)
    np.testing.assert_allclose([got[k] for k in keys], [expected[k] for k in keys], rtol=1e-14, atol=0)


def undirected_edges(G: nx.Graph) -> list[tuple[int, int]]:
    return [(u, v) for u, v in G.edges() if u != v] + [(v, u) for u, v in G.edges() if u != v]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("directed", [False, True])
def test_every_edge_matches_networkx(backend: str, seed: int, directed: bool) -> None:
    G = nx.gnp_random_graph(50, 0.12, seed=seed, directed=directed)
    G.add_nodes_from([50, 51])
    G.add_edges_from([(50, 1), (6, 6)])  # a pendant vertex; a self-loop (ignored)
    U = nx.Graph(G.to_undirected())
    J = jaccard(nx_adjacency(G, backend, 3, "INT8"))
    assert J.shape == (52, 52)
    assert_close(as_dict(J), nx_jaccard(G, undirected_edges(U)))


@pytest.mark.parametrize("seed", range(3))
def test_given_pairs_match_networkx(backend: str, seed: int) -> None:
    G = nx.gnp_random_graph(40, 0.15, seed=seed)
    G.add_nodes_from([40, 41])  # isolated: an empty union scores 0
    rng = np.random.default_rng(seed)
    pairs = [tuple(p) for p in rng.integers(0, 42, size=(150, 2)).tolist()]
    pairs += [(40, 41), (41, 41), (3, 3), (40, 0)] + list(G.edges())[:10]
    A = nx_adjacency(G, backend, True)
    expected = nx_jaccard(G, pairs)
    assert_close(as_dict(jaccard(A, pairs)), expected)
    assert_close(as_dict(jaccard(A, pairs=np.array(pairs))), expected)
    # The pattern of a Matrix names the pairs too (its values are not read).
    r, c = zip(*pairs)
    M = gb.Matrix.from_coo(r, c, -1.5, nrows=42, ncols=42, dup_op=gb.binary.first, backend=backend)
    assert_close(as_dict(jaccard(A, M)), expected)


def test_small_values(backend: str) -> None:
    # Path 0 - 1 - 2 and an edge 2 - 3: N(0) = {1}, N(2) = {1, 3}, N(1) = {0, 2}.
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 3], True, nrows=5, ncols=5, backend=backend)
    J = jaccard(A, [(0, 2), (0, 1), (1, 3), (4, 4), (4, 0)])
    assert as_dict(J) == {(0, 2): 0.5, (0, 1): 0.0, (1, 3): 0.5, (4, 4): 0.0, (4, 0): 0.0}


@pytest.mark.parametrize("n", [0, 1, 3])
def test_empty(backend: str, n: int) -> None:
    A = gb.Matrix(gb.BOOL, n, n, backend=backend)
    assert jaccard(A).nvals == 0
    assert jaccard(A, []).nvals == 0
    if n:
        assert as_dict(jaccard(A, [(0, n - 1)])) == {(0, n - 1): 0.0}


def test_products_are_masked_by_the_pairs(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The common-neighbour product runs under the pairs' mask (dot or masked Gustavson form):
    its work is bounded by the pairs' neighbourhoods."""
    be = gb.backends.get_backend(backend)
    masks: list[bool] = []
    monkeypatch.setattr(be, "mxm_dot", lambda s, a, bt, mask, _k=be.mxm_dot: masks.append(True) or _k(s, a, bt, mask))
    monkeypatch.setattr(be, "mxm_gustavson", lambda s, a, b, mask=None, _k=be.mxm_gustavson:
                        masks.append(mask is not None) or _k(s, a, b, mask))
    G = nx.gnp_random_graph(300, 0.05, seed=5)
    A = nx_adjacency(G, backend, True)
    pairs = [(0, 1), (2, 3), (7, 100), (299, 5)]
    assert_close(as_dict(jaccard(A, pairs)), nx_jaccard(G, pairs))
    assert_close(as_dict(jaccard(A)), nx_jaccard(G, undirected_edges(G)))
    # Each call: the common neighbours under the mask, then two unmasked scalings by diag(d).
    assert masks == [True, False, False] * 2


def test_karate(backend: str) -> None:
    M = shared_coo("lagraph", "karate.mtx")
    lower = M.row > M.col  # scipy gives both triangles: keep one, each edge stored once
    A = gb.Matrix.from_coo(M.row[lower], M.col[lower], True, nrows=34, ncols=34, backend=backend)
    G = nx.Graph(list(zip(M.row.tolist(), M.col.tolist())))
    assert_close(as_dict(jaccard(A)), nx_jaccard(G, undirected_edges(G)))
    every_pair = [(u, v) for u in range(34) for v in range(34)]
    assert_close(as_dict(jaccard(A, every_pair)), nx_jaccard(G, every_pair))


def test_wiki_vote(backend: str) -> None:
    idx, n = snap_edges("wiki-Vote.txt")
    A = gb.Matrix.from_coo(idx[:, 0], idx[:, 1], True, nrows=n, ncols=n, dup_op=gb.binary.any, backend=backend)
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(idx.tolist())
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    J = as_dict(jaccard(A))
    assert len(J) == 2 * G.number_of_edges()
    rng = np.random.default_rng(0)
    sample = [tuple(idx[i].tolist()) for i in rng.choice(len(idx), 3000, replace=False) if idx[i, 0] != idx[i, 1]]
    assert_close({p: J[p] for p in sample}, nx_jaccard(G, sample))
    pairs = [tuple(p) for p in rng.integers(0, n, size=(3000, 2)).tolist()]
    assert_close(as_dict(jaccard(A, pairs)), nx_jaccard(G, pairs))


def test_errors() -> None:
    A = gb.Matrix(gb.BOOL, 3, 3)
    with pytest.raises(gb.IndexOutOfBound):
        jaccard(A, [(0, 3)])
    with pytest.raises(gb.IndexOutOfBound):
        jaccard(A, [(-1, 0)])
    with pytest.raises(gb.InvalidIndex):
        jaccard(A, [(0.5, 1)])
    with pytest.raises(gb.InvalidIndex):
        jaccard(A, [(0, 1, 2)])
    with pytest.raises(gb.DimensionMismatch):
        jaccard(A, gb.Matrix(gb.BOOL, 3, 4))
    with pytest.raises(gb.DimensionMismatch):
        jaccard(gb.Matrix(gb.BOOL, 2, 3))
    with pytest.raises(gb.DomainMismatch):
        jaccard([[0, 1], [1, 0]])  # type: ignore[arg-type]
