"""k_truss against networkx.k_truss: the edges and each edge's support, on random graphs, edge
cases and the shared data."""

from __future__ import annotations

import networkx as nx
import pytest
from conftest import nx_adjacency, shared_coo, snap_edges
from grblas_gpu.algorithms.k_truss import k_truss

import grblas_gpu as gb


def nx_truss(G: nx.Graph, k: int) -> dict[tuple[int, int], int]:
    """The k-truss of G's undirected graph (self-loops removed), as {(u, v): support} for both
    directions of every edge; the support counts the triangles of the truss on the edge."""
    U = nx.Graph(G.to_undirected()) if G.is_directed() else G.copy()
    U.remove_edges_from(list(nx.selfloop_edges(U)))
    H = nx.k_truss(U, k)
    out = {}
    for u, v in H.edges():
        out[(u, v)] = out[(v, u)] = len(set(H[u]) & set(H[v]))
    return out


def as_dict(T: gb.Matrix) -> dict[tuple[int, int], int]:
    assert T.dtype == gb.INT64
    r, c, v = T.to_coo()
    return {(int(i), int(j)): int(x) for i, j, x in zip(r, c, v)}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_undirected_matches_networkx(backend: str, seed: int, k: int) -> None:
    G = nx.gnp_random_graph(50, 0.25, seed=seed)
    G.add_nodes_from([50, 51])  # isolated
    G.add_edges_from([(50, 0), (4, 4)])  # an edge on no triangle; a self-loop (ignored)
    T = k_truss(nx_adjacency(G, backend, True), k)
    assert T.shape == (52, 52)
    assert as_dict(T) == nx_truss(G, k)


@pytest.mark.parametrize("seed", range(3))
def test_directed_is_the_undirected_graph(backend: str, seed: int) -> None:
    G = nx.gnp_random_graph(40, 0.2, seed=seed, directed=True)
    A = nx_adjacency(G, backend, 7, "INT32")
    for k in (3, 4):
        assert as_dict(k_truss(A, k)) == nx_truss(G, k)


def test_cascade(backend: str) -> None:
    """Removing one edge lowers the support of others below k - 2 in turn: a K4 with one more
    vertex joined to two of its vertices, plus a triangle chain.  The 4-truss is the K4."""
    G = nx.complete_graph(4)
    G.add_edges_from([(4, 0), (4, 1), (5, 4), (5, 0), (6, 5), (6, 4)])
    assert as_dict(k_truss(nx_adjacency(G, backend, True), 4)) == nx_truss(G, 4)
    assert len(nx_truss(G, 4)) == 12


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("n", [0, 1, 4])
def test_empty(backend: str, n: int, k: int) -> None:
    T = k_truss(gb.Matrix(gb.BOOL, n, n, backend=backend), k)
    assert T.shape == (n, n) and T.nvals == 0


def test_products_are_masked(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every product runs under the mask of the current edges (dot or masked Gustavson form):
    its work is bounded by the edges, not by the square of the graph."""
    be = gb.backends.get_backend(backend)
    masks: list[bool] = []
    monkeypatch.setattr(be, "mxm_dot", lambda s, a, bt, mask, _k=be.mxm_dot: masks.append(True) or _k(s, a, bt, mask))
    monkeypatch.setattr(be, "mxm_gustavson", lambda s, a, b, mask=None, _k=be.mxm_gustavson:
                        masks.append(mask is not None) or _k(s, a, b, mask))
    G = nx.gnp_random_graph(200, 0.06, seed=3)
    assert as_dict(k_truss(nx_adjacency(G, backend, True), 4)) == nx_truss(G, 4)
    assert masks and all(masks)


def read_mtx(name: str, backend: str) -> tuple[gb.Matrix, nx.Graph]:
    M = shared_coo("lagraph", name)
    n = M.shape[0]
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(M.row.tolist(), M.col.tolist()))
    return gb.Matrix.from_coo(M.row, M.col, True, nrows=n, ncols=n, backend=backend), G


@pytest.mark.parametrize("name", ["karate.mtx", "bcsstk13.mtx"])
def test_lagraph_graphs(backend: str, name: str) -> None:
    A, G = read_mtx(name, backend)  # both triangles; bcsstk13 has its diagonal too
    for k in (3, 5, 8):
        assert as_dict(k_truss(A, k)) == nx_truss(G, k)


def test_wiki_vote(backend: str) -> None:
    idx, n = snap_edges("wiki-Vote.txt")
    A = gb.Matrix.from_coo(idx[:, 0], idx[:, 1], True, nrows=n, ncols=n, dup_op=gb.binary.any, backend=backend)
    G = nx.Graph()
    G.add_edges_from(idx.tolist())
    assert as_dict(k_truss(A, 20)) == nx_truss(G, 20)


def test_errors() -> None:
    A = gb.Matrix(gb.BOOL, 3, 3)
    with pytest.raises(gb.InvalidValue):
        k_truss(A, 1)
    with pytest.raises(gb.InvalidValue):
        k_truss(A, -3)
    with pytest.raises(gb.InvalidValue):
        k_truss(A, 2.5)  # type: ignore[arg-type]
    with pytest.raises(gb.DimensionMismatch):
        k_truss(gb.Matrix(gb.BOOL, 2, 3), 3)
    with pytest.raises(gb.DomainMismatch):
        k_truss([[0, 1], [1, 0]], 3)  # type: ignore[arg-type]
