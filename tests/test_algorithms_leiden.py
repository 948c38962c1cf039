"""leiden: modularity (networkx's function) at least louvain_communities' minus 0.01 over the same
seeds, every community connected, valid partitions, edge cases."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import nx_adjacency, shared_coo
from grblas_gpu.algorithms.leiden import leiden
from test_algorithms_louvain import partition, weighted_adjacency

import grblas_gpu as gb
from grblas_gpu.exceptions import DimensionMismatch, InvalidValue

SEEDS = range(3)

GRAPHS = {
    "gnp": lambda: nx.gnp_random_graph(120, 0.05, seed=1),
    "planted": lambda: nx.planted_partition_graph(6, 20, 0.4, 0.02, seed=2),
    "ba": lambda: nx.barabasi_albert_graph(150, 3, seed=3),
    "lesmis": lambda: nx.convert_node_labels_to_integers(nx.les_miserables_graph()),
    "karate-weighted": nx.karate_club_graph,
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_modularity_and_connected_communities(backend: str, name: str) -> None:
    G = GRAPHS[name]()
    A = weighted_adjacency(G, backend)
    ours, theirs = [], []
    for s in SEEDS:
        parts = partition(leiden(A, seed=s))
        assert all(nx.is_connected(G.subgraph(p)) for p in parts)  # Leiden's guarantee
        ours.append(nx.community.modularity(G, parts))
        theirs.append(nx.community.modularity(G, nx.community.louvain_communities(G, seed=s)))
    assert np.mean(ours) >= np.mean(theirs) - 0.01, (ours, theirs)


def test_cliques_recovered_and_seed_reproducible(backend: str) -> None:
    G = nx.disjoint_union_all([nx.complete_graph(6) for _ in range(4)])
    G.add_edges_from([(0, 6), (6, 12), (12, 18)])
    A = nx_adjacency(G, backend, 1.0)
    got = partition(leiden(A, seed=1))
    assert sorted(map(sorted, got)) == [list(range(6 * i, 6 * i + 6)) for i in range(4)]
    np.testing.assert_array_equal(leiden(A, seed=5).to_dense(), leiden(A, seed=5).to_dense())


def test_resolution_extremes(backend: str) -> None:
    G = nx.disjoint_union_all([nx.path_graph(5), nx.cycle_graph(4), nx.star_graph(3)])
    A = nx_adjacency(G, backend, 1.0)
    got = partition(leiden(A, resolution=0.0, seed=0))
    assert sorted(map(sorted, got)) == sorted(map(sorted, nx.connected_components(G)))
    assert len(partition(leiden(A, resolution=100.0, seed=0))) == G.number_of_nodes()


@pytest.mark.parametrize("n", [0, 1, 4])
def test_no_edges(backend: str, n: int) -> None:
    got = leiden(gb.Matrix(gb.BOOL, n, n, backend=backend))
    assert got.to_dense().tolist() == list(range(n))


def test_bad_input(backend: str) -> None:
    with pytest.raises(DimensionMismatch):
        leiden(gb.Matrix(gb.FP64, 2, 3, backend=backend))
    with pytest.raises(InvalidValue):
        leiden(gb.Matrix.from_coo([0, 1], [1, 0], -2.0, nrows=2, ncols=2, backend=backend))
    with pytest.raises(InvalidValue):
        leiden(gb.Matrix.from_coo([0, 1], [1, 0], 1.0, nrows=2, ncols=2, backend=backend), resolution=-1)


def test_karate_shared(backend: str) -> None:
    M = shared_coo("lagraph", "karate.mtx")
    A = gb.Matrix.from_coo(M.row, M.col, 1.0, nrows=34, ncols=34, backend=backend)
    G = nx.Graph(list(zip(M.row.tolist(), M.col.tolist())))
    parts = partition(leiden(A, seed=0))
    assert all(nx.is_connected(G.subgraph(p)) for p in parts)
    expected = np.mean([nx.community.modularity(G, nx.community.louvain_communities(G, seed=s)) for s in SEEDS])
    assert np.mean([nx.community.modularity(G, partition(leiden(A, seed=s))) for s in SEEDS]) >= expected - 0.01
