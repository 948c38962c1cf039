"""cdlp against a small plain-Python reference of the Graphalytics rule."""

from __future__ import annotations

from collections import Counter

import networkx as nx
import pytest
from conftest import nx_adjacency
from grblas_gpu.algorithms.cdlp import cdlp

import grblas_gpu as gb


def reference_cdlp(G: nx.Graph, iterations: int) -> list[int]:
    """Synchronous label propagation: most frequent label among in- and out-neighbours
    (a two-way neighbour of a directed graph counts twice), smallest label on a tie."""
    labels = {v: v for v in G.nodes()}
    for _ in range(iterations):
        new = {}
        for v in G.nodes():
            if G.is_directed():
                nbrs = list(G.successors(v)) + list(G.predecessors(v))
            else:
                nbrs = list(G.neighbors(v))
            counts = Counter(labels[u] for u in nbrs)
            if counts:
                best = max(counts.values())
                new[v] = min(label for label, c in counts.items() if c == best)
            else:
                new[v] = labels[v]
        labels = new
    return [labels[v] for v in range(G.number_of_nodes())]


def labels_of(v: gb.Vector) -> list[int]:
    assert v.dtype == gb.INT64
    assert v.nvals == v.size, "every vertex must have a label"
    return v.to_dense().tolist()


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("iterations", [1, 3, 10])
def test_matches_reference(backend: str, seed: int, directed: bool, iterations: int) -> None:
    G = nx.gnp_random_graph(40, 0.08, seed=seed, directed=directed)
    G.add_node(40)  # isolated: keeps its own label
    got = labels_of(cdlp(nx_adjacency(G, backend, 1.0), max_iter=iterations))
    assert got == reference_cdlp(G, iterations)


def test_directed_false_counts_each_neighbour_once(backend: str) -> None:
    G = nx.gnp_random_graph(30, 0.1, seed=11, directed=True)
    U = nx.Graph(G.to_undirected())
    got = labels_of(cdlp(nx_adjacency(G, backend, 1.0), max_iter=6, directed=False))
    assert got == reference_cdlp(U, 6)


def test_two_way_neighbour_counts_twice(backend: str) -> None:
    # Vertex 0: neighbour 1 both ways (label 1 counted twice), neighbours 2 and 3 one way.
    A = gb.Matrix.from_coo([0, 1, 0, 3], [1, 0, 2, 0], True, nrows=4, ncols=4, backend=backend)
    assert labels_of(cdlp(A, max_iter=1))[0] == 1
    assert labels_of(cdlp(A, max_iter=1, directed=False))[0] == 1  # tie 1, 2, 3: smallest


def test_zero_iterations_and_empty(backend: str) -> None:
    A = gb.Matrix.from_coo([0], [1], True, nrows=3, ncols=3, backend=backend)
    assert labels_of(cdlp(A, max_iter=0)) == [0, 1, 2]
    assert cdlp(gb.Matrix(gb.BOOL, 0, 0, backend=backend)).size == 0


def test_errors() -> None:
    with pytest.raises(gb.DimensionMismatch):
        cdlp(gb.Matrix(gb.BOOL, 2, 3))
    with pytest.raises(gb.DomainMismatch):
        cdlp("not a matrix")  # type: ignore[arg-type]
    with pytest.raises(gb.InvalidValue):
        cdlp(gb.Matrix(gb.BOOL, 2, 2), max_iter=-1)
