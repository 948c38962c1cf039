"""strongly_connected_components against networkx.strongly_connected_components as a partition,
with each label the smallest vertex id of its component."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import nx_adjacency, snap_edges
from grblas_gpu.algorithms.strongly_connected_components import strongly_connected_components

import grblas_gpu as gb


def expected_labels(G: nx.DiGraph) -> np.ndarray:
    """networkx's components, each vertex labelled with its component's smallest id."""
    labels = np.full(G.number_of_nodes(), -1, dtype=np.int64)
    for component in nx.strongly_connected_components(G):
        labels[list(component)] = min(component)
    return labels


def labels_of(A: gb.Matrix) -> np.ndarray:
    v = strongly_connected_components(A)
    assert v.dtype == gb.INT64
    assert v.nvals == v.size, "every vertex must have a label"
    return v.to_dense()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("p", [0.015, 0.03, 0.06, 0.15])
def test_random_matches_networkx(backend: str, seed: int, p: float) -> None:
    G = nx.gnp_random_graph(90, p, seed=seed, directed=True)
    G.add_nodes_from([90, 91])  # isolated
    G.add_edges_from([(4, 4), (91, 91)])  # self-loops do not join anything
    np.testing.assert_array_equal(labels_of(nx_adjacency(G, backend, 2, "INT16")), expected_labels(G))


@pytest.mark.parametrize("seed", range(3))
def test_planted_cycles_matches_networkx(backend: str, seed: int) -> None:
    """Several cycles of shuffled ids, linked one way, plus random chords: big components
    whose smallest id is not where the search starts."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(120)
    G = nx.DiGraph()
    G.add_nodes_from(range(120))
    for part in np.array_split(order, 6):
        nx.add_cycle(G, part.tolist())
    G.add_edges_from(rng.integers(0, 120, size=(40, 2)).tolist())
    np.testing.assert_array_equal(labels_of(nx_adjacency(G, backend, True)), expected_labels(G))


def test_undirected_is_weak_components(backend: str) -> None:
    G = nx.gnp_random_graph(80, 0.03, seed=2)
    want = np.zeros(80, dtype=np.int64)
    for c in nx.connected_components(G):
        want[list(c)] = min(c)
    np.testing.assert_array_equal(labels_of(nx_adjacency(G, backend, True)), want)


@pytest.mark.parametrize("reverse", [False, True])
def test_paths_and_cycles(backend: str, reverse: bool) -> None:
    path = nx.path_graph(30, create_using=nx.DiGraph)
    G = path.reverse() if reverse else path
    assert labels_of(nx_adjacency(G, backend, True)).tolist() == list(range(30))
    cycle = nx.cycle_graph(30, create_using=nx.DiGraph)
    assert labels_of(nx_adjacency(cycle, backend, True)).tolist() == [0] * 30
    # Two cycles joined one way: 0..4 -> 5..9, so two components.
    G = nx.DiGraph()
    nx.add_cycle(G, [9, 7, 5, 8, 6])
    nx.add_cycle(G, [3, 0, 4, 1, 2])
    G.add_edge(2, 8)
    assert labels_of(nx_adjacency(G, backend, True)).tolist() == [0] * 5 + [5] * 5


@pytest.mark.parametrize("along", [True, False])
def test_chain_of_cycles(backend: str, along: bool) -> None:
    """Triangles linked in a chain, numbered along the links (one component a round) or
    against them (all in one round): the same partition either way."""
    G = nx.DiGraph()
    for t in range(10):
        nx.add_cycle(G, [3 * t, 3 * t + 1, 3 * t + 2])
        if t:
            G.add_edge(3 * t - 1, 3 * t) if along else G.add_edge(3 * t, 3 * t - 1)
    assert labels_of(nx_adjacency(G, backend, True)).tolist() == [3 * (v // 3) for v in range(30)]


@pytest.mark.parametrize("n", [0, 1, 4])
def test_empty(backend: str, n: int) -> None:
    assert labels_of(gb.Matrix(gb.BOOL, n, n, backend=backend)).tolist() == list(range(n))


def read_snap(name: str, backend: str) -> tuple[gb.Matrix, nx.DiGraph]:
    idx, n = snap_edges(name)
    A = gb.Matrix.from_coo(idx[:, 0], idx[:, 1], True, nrows=n, ncols=n, dup_op=gb.binary.any, backend=backend)
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from(idx.tolist())
    return A, G


@pytest.mark.parametrize(("name", "count", "largest"), [("wiki-Vote.txt", 5816, 1300),
                                                         ("email-Eu-core.csv", 203, 803)])
def test_snap(backend: str, name: str, count: int, largest: int) -> None:
    """The counts in the data's README (SNAP's largest SCC; the SuiteSparse page's 203)."""
    A, G = read_snap(name, backend)
    got = labels_of(A)
    np.testing.assert_array_equal(got, expected_labels(G))
    sizes = np.bincount(got)
    assert np.count_nonzero(sizes) == count and sizes.max() == largest


def test_errors() -> None:
    with pytest.raises(gb.DimensionMismatch):
        strongly_connected_components(gb.Matrix(gb.BOOL, 2, 3))
    with pytest.raises(gb.DomainMismatch):
        strongly_connected_components([[0, 1], [1, 0]])  # type: ignore[arg-type]
