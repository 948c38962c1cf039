"""core_number against networkx.core_number: random graphs both ways, edge cases, shared data."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import nx_adjacency, shared_coo, snap_edges
from grblas_gpu.algorithms.core_number import core_number

import grblas_gpu as gb


def nx_cores(G: nx.Graph) -> np.ndarray:
    """networkx's core numbers by vertex, self-loops removed first (networkx refuses them)."""
    H = G.copy()
    H.remove_edges_from(list(nx.selfloop_edges(H)))
    cores = nx.core_number(H)
    return np.array([cores[v] for v in range(H.number_of_nodes())], dtype=np.int64)


def full_int64(v: gb.Vector) -> np.ndarray:
    assert v.dtype == gb.INT64
    assert v.nvals == v.size, "every vertex must have an entry"
    return v.to_dense()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("p", [0.05, 0.15, 0.4])
def test_undirected_matches_networkx(backend: str, seed: int, p: float) -> None:
    G = nx.gnp_random_graph(60, p, seed=seed)
    G.add_nodes_from([60, 61])  # isolated: core number 0
    G.add_edges_from([(60, 3), (5, 5)])  # a pendant vertex and a self-loop (ignored)
    np.testing.assert_array_equal(full_int64(core_number(nx_adjacency(G, backend, True))), nx_cores(G))


@pytest.mark.parametrize("seed", range(4))
def test_directed_matches_networkx(backend: str, seed: int) -> None:
    G = nx.gnp_random_graph(50, 0.12, seed=seed, directed=True)
    G.add_edges_from([(7, 7), (50, 0), (0, 50)])  # a self-loop; a pair linked both ways
    A = nx_adjacency(G, backend, 2.5, "FP64")
    np.testing.assert_array_equal(full_int64(core_number(A, directed=True)), nx_cores(G))
    # directed=False: the undirected graph of A, each neighbour once.
    np.testing.assert_array_equal(full_int64(core_number(A)), nx_cores(nx.Graph(G.to_undirected())))


def test_one_direction_stored_is_the_undirected_graph(backend: str) -> None:
    G = nx.gnp_random_graph(40, 0.2, seed=11)
    r, c = zip(*G.edges())
    A = gb.Matrix.from_coo(r, c, 1, nrows=40, ncols=40, backend=backend)  # each edge once
    np.testing.assert_array_equal(full_int64(core_number(A)), nx_cores(G))


def test_known_graphs(backend: str) -> None:
    # Complete graph K5: 4 each.  A path: 1 each.  networkx's docstring example.
    assert full_int64(core_number(nx_adjacency(nx.complete_graph(5), backend, True))).tolist() == [4] * 5
    assert full_int64(core_number(nx_adjacency(nx.path_graph(6), backend, True))).tolist() == [1] * 6
    H = nx.havel_hakimi_graph([0, 1, 2, 2, 2, 2, 3])
    np.testing.assert_array_equal(full_int64(core_number(nx_adjacency(H, backend, True))), nx_cores(H))


@pytest.mark.parametrize("n", [0, 1, 5])
def test_empty(backend: str, n: int) -> None:
    got = core_number(gb.Matrix(gb.BOOL, n, n, backend=backend))
    assert got.size == n
    assert full_int64(got).tolist() == [0] * n


def test_only_self_loops(backend: str) -> None:
    A = gb.Matrix.from_coo([0, 2], [0, 2], True, nrows=3, ncols=3, backend=backend)
    assert full_int64(core_number(A)).tolist() == [0, 0, 0]


def test_karate(backend: str) -> None:
    M = shared_coo("lagraph", "karate.mtx")
    lower = M.row > M.col  # scipy gives both triangles: keep one, each edge stored once
    A = gb.Matrix.from_coo(M.row[lower], M.col[lower], True, nrows=34, ncols=34, backend=backend)
    G = nx.Graph(list(zip(M.row.tolist(), M.col.tolist())))
    G.add_nodes_from(range(34))
    np.testing.assert_array_equal(full_int64(core_number(A)), nx_cores(G))


def test_wiki_vote(backend: str) -> None:
    idx, n = snap_edges("wiki-Vote.txt")
    A = gb.Matrix.from_coo(idx[:, 0], idx[:, 1], True, nrows=n, ncols=n, dup_op=gb.binary.any, backend=backend)
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from(idx.tolist())
    np.testing.assert_array_equal(full_int64(core_number(A, directed=True)), nx_cores(G))
    np.testing.assert_array_equal(full_int64(core_number(A)), nx_cores(nx.Graph(G.to_undirected())))


def test_errors() -> None:
    with pytest.raises(gb.DimensionMismatch):
        core_number(gb.Matrix(gb.BOOL, 2, 3))
    with pytest.raises(gb.DomainMismatch):
        core_number([[0, 1], [1, 0]])  # type: ignore[arg-type]
