"""minimum_spanning_forest against networkx.minimum_spanning_tree (total weight and edge
count) and an independent check that the result is a spanning forest of the graph."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import shared_coo
from grblas_gpu.algorithms.spanning_forest import edge_ranks, minimum_spanning_forest

import grblas_gpu as gb
from grblas_gpu.exceptions import DimensionMismatch, DomainMismatch, InvalidValue


def random_graph(seed: int, n: int, p: float, integer: bool) -> nx.Graph:
    """Random weighted graph with self-loops and isolated vertices; integer weights make
    many ties."""
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, p, seed=seed)
    G.add_edges_from((int(v), int(v)) for v in rng.choice(n - 3, 3, replace=False))
    G.remove_nodes_from([n - 3, n - 2, n - 1])
    G.add_nodes_from([n - 3, n - 2, n - 1])
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.integers(-2, 4)) if integer else float(rng.uniform(-1, 5))
    return G


def check_forest(F: gb.Matrix, G: nx.Graph) -> None:
    """F is a spanning forest of G's (loop-free) edges, stored once at [u, v] with u < v,
    with total weight and edge count as networkx's minimum spanning forest."""
    u, v, w = F.to_coo()
    assert np.all(u < v)
    for a, b, x in zip(u.tolist(), v.tolist(), w.tolist()):
        assert G.has_edge(a, b) and G[a][b]["weight"] == x
    simple = nx.Graph(G)
    simple.remove_edges_from(nx.selfloop_edges(simple))
    forest = nx.Graph(list(zip(u.tolist(), v.tolist())))
    forest.add_nodes_from(G)
    assert nx.is_forest(forest)
    assert nx.number_connected_components(forest) == nx.number_connected_components(simple)
    want = nx.minimum_spanning_tree(simple)
    assert F.nvals == want.number_of_edges()
    assert w.sum() == pytest.approx(want.size(weight="weight"), abs=1e-9)


CASES = [(seed, n, p, integer) for seed in (0, 1, 2) for integer in (True, False)
         for n, p in ((40, 0.08), (200, 0.02))]


@pytest.mark.parametrize(("seed", "n", "p", "integer"), CASES)
def test_matches_networkx(seed: int, n: int, p: float, integer: bool, backend: str) -> None:
    G = random_graph(seed, n, p, integer)
    D = G.to_directed()
    rows, cols, w = zip(*D.edges(data="weight"))
    A = gb.Matrix.from_coo(list(rows), list(cols), list(w), nrows=n, ncols=n, backend=backend)
    F = minimum_spanning_forest(A)
    assert F.dtype == gb.FP64 and F.shape == (n, n)
    check_forest(F, G)


def test_directed_input_takes_the_lighter_direction(backend: str) -> None:
    # 0 -> 1 weighs 5, 1 -> 0 weighs 1: the edge {0, 1} weighs 1; 1 -> 2 only, weight 3.
    A = gb.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 0], [5, 1, 3, 7], nrows=4, ncols=4, backend=backend)
    F = minimum_spanning_forest(A)
    assert F.dtype == gb.INT64
    u, v, w = F.to_coo()
    assert (u.tolist(), v.tolist(), w.tolist()) == ([0, 1], [1, 2], [1, 3])


def test_ties_go_to_the_smaller_endpoints(backend: str) -> None:
    # A 4-cycle of equal weights: the forest keeps the three edges with the smallest (u, v).
    A = gb.Matrix.from_coo([0, 1, 2, 0], [1, 2, 3, 3], 1, nrows=4, ncols=4, backend=backend)
    u, v, _ = minimum_spanning_forest(A.ewise_add(A.T).new()).to_coo()
    assert list(zip(u.tolist(), v.tolist())) == [(0, 1), (0, 3), (1, 2)]


@pytest.mark.parametrize("shape", ["path", "grid"])
def test_long_hook_chains_and_many_rounds(shape: str, backend: str) -> None:
    # A path weighted upwards hooks every vertex to its left neighbour in one round (one long
    # chain); a grid with random weights needs several rounds of contracted components with
    # many edges between two of them.
    rng = np.random.default_rng(4)
    G = nx.path_graph(300) if shape == "path" else nx.convert_node_labels_to_integers(nx.grid_2d_graph(20, 25))
    for u, v in G.edges:
        G[u][v]["weight"] = float(min(u, v)) if shape == "path" else float(rng.integers(1, 6))
    rows, cols, w = zip(*G.to_directed().edges(data="weight"))
    n = G.number_of_nodes()
    A = gb.Matrix.from_coo(list(rows), list(cols), list(w), nrows=n, ncols=n, backend=backend)
    check_forest(minimum_spanning_forest(A), G)


@pytest.mark.parametrize("weights", [[3, 1, 3, -2, 1, 1], [0.5, -1.25, 0.5, 2.0, 0.5, -1.25], [True, False, True, True],
                                     [2**60, 0, 5, 2**60]])
def test_edge_ranks_order_by_weight_then_position(weights: list) -> None:
    w = np.array(weights)
    key, position = edge_ranks(w)
    assert len(set(key.tolist())) == len(w)
    want = np.lexsort((np.arange(len(w)), w))  # by weight, ties by position
    np.testing.assert_array_equal(np.argsort(key), want)
    np.testing.assert_array_equal(position(key), np.arange(len(w)))


def test_small_cases(backend: str) -> None:
    assert minimum_spanning_forest(gb.Matrix(gb.FP64, 0, 0, backend=backend)).nvals == 0
    assert minimum_spanning_forest(gb.Matrix(gb.FP64, 5, 5, backend=backend)).nvals == 0
    loop = gb.Matrix.from_coo([1], [1], 2.0, nrows=3, ncols=3, backend=backend)
    assert minimum_spanning_forest(loop).nvals == 0


def test_karate(backend: str) -> None:
    coo = shared_coo("lagraph", "karate.mtx")
    n = coo.shape[0]
    rng = np.random.default_rng(0)
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from((int(a), int(b), float(rng.integers(1, 4))) for a, b in zip(coo.row, coo.col) if a < b)
    rows, cols, w = zip(*G.to_directed().edges(data="weight"))
    A = gb.Matrix.from_coo(list(rows), list(cols), list(w), nrows=n, ncols=n, backend=backend)
    check_forest(minimum_spanning_forest(A), G)


def test_bad_arguments(backend: str) -> None:
    with pytest.raises(DimensionMismatch):
        minimum_spanning_forest(gb.Matrix.from_coo([0], [1], 1.0, nrows=2, ncols=3, backend=backend))
    with pytest.raises(DomainMismatch):
        minimum_spanning_forest(np.eye(3))
    with pytest.raises(InvalidValue):
        minimum_spanning_forest(gb.Matrix.from_coo([0], [1], float("nan"), nrows=2, ncols=2, backend=backend))
