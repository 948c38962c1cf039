"""local_clustering_coefficient against networkx (undirected) and a plain-Python
Graphalytics reference (directed)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import full_fp64, nx_adjacency
from grblas_gpu.algorithms.lcc import local_clustering_coefficient

import grblas_gpu as gb


def graphalytics_lcc(G: nx.DiGraph) -> np.ndarray:
    """LCC(v) = directed edges among N(v) = in(v) | out(v), over |N|(|N|-1); self-loops ignored."""
    out = np.zeros(G.number_of_nodes())
    edges = {(u, w) for u, w in G.edges() if u != w}
    for v in G.nodes():
        nbrs = (set(G.successors(v)) | set(G.predecessors(v))) - {v}
        d = len(nbrs)
        if d >= 2:
            out[v] = sum((u, w) in edges for u in nbrs for w in nbrs) / (d * (d - 1))
    return out


@pytest.mark.parametrize("seed", range(3))
def test_undirected_matches_networkx(backend: str, seed: int) -> None:
    G = nx.gnp_random_graph(40, 0.2, seed=seed)
    G.add_nodes_from([40, 41])
    G.add_edge(40, 0)  # degree 1 -> 0.0; vertex 41 is isolated -> 0.0
    expected = np.array([nx.clustering(G)[v] for v in range(G.number_of_nodes())])
    A = nx_adjacency(G, backend, True)
    for directed in (None, True, False):
        np.testing.assert_allclose(full_fp64(local_clustering_coefficient(A, directed=directed)), expected,
                                   rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("seed", range(3))
def test_directed_matches_graphalytics_definition(backend: str, seed: int) -> None:
    G = nx.gnp_random_graph(40, 0.15, seed=seed, directed=True)
    G.add_edge(5, 5)  # self-loops are ignored
    got = full_fp64(local_clustering_coefficient(nx_adjacency(G, backend, True)))
    np.testing.assert_allclose(got, graphalytics_lcc(G), rtol=1e-12, atol=1e-15)


def test_directed_false_symmetrises(backend: str) -> None:
    G = nx.gnp_random_graph(30, 0.2, seed=7, directed=True)
    U = nx.Graph(G.to_undirected())
    expected = np.array([nx.clustering(U)[v] for v in range(30)])
    got = full_fp64(local_clustering_coefficient(nx_adjacency(G, backend, True), directed=False))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


def test_small_cases(backend: str) -> None:
    assert local_clustering_coefficient(gb.Matrix(gb.BOOL, 0, 0, backend=backend)).size == 0
    # 0 -> 1, 1 -> 2, 0 -> 2: vertex 0 has N = {1, 2} and one directed edge among them: 1 / 2.
    A = gb.Matrix.from_coo([0, 1, 0], [1, 2, 2], 3.5, nrows=4, ncols=4, backend=backend)
    np.testing.assert_allclose(full_fp64(local_clustering_coefficient(A)), [0.5, 0.5, 0.5, 0.0])


def test_errors() -> None:
    with pytest.raises(gb.DimensionMismatch):
        local_clustering_coefficient(gb.Matrix(gb.BOOL, 2, 3))
    with pytest.raises(gb.DomainMismatch):
        local_clustering_coefficient([[0, 1], [1, 0]])  # type: ignore[arg-type]
