"""louvain against networkx: modularity (networkx's own function) at least louvain_communities'
minus 0.01 over the same seeds, on random and shared graphs; partitions' validity; edge cases."""

from __future__ import annotations

import importlib

import networkx as nx
import numpy as np
import pytest
from conftest import nx_adjacency, shared_coo, snap_edges
from grblas_gpu.algorithms.louvain import louvain, modularity_matrix_form

import grblas_gpu as gb
from grblas_gpu.exceptions import DimensionMismatch, InvalidValue

louvain_module = importlib.import_module("grblas_gpu.algorithms.louvain")  # the name louvain is the function

SEEDS = range(4)


def weighted_adjacency(G: nx.Graph, backend: str) -> gb.Matrix:
    """G's adjacency matrix with its 'weight' attributes (1 where absent), both directions."""
    n = G.number_of_nodes()
    r, c, w = [], [], []
    for u, v, d in G.edges(data=True):
        r += [u, v] if u != v else [u]
        c += [v, u] if u != v else [u]
        w += [float(d.get("weight", 1.0))] * (2 if u != v else 1)
    return gb.Matrix.from_coo(r, c, w, nrows=n, ncols=n, dtype=gb.FP64, backend=backend)


def partition(v: gb.Vector) -> list[set[int]]:
    """The communities of a label vector, checked: INT64, every vertex labelled, labels 0..k-1."""
    assert v.dtype == gb.INT64
    assert v.nvals == v.size
    labels = v.to_dense()
    assert set(labels.tolist()) == set(range(labels.max() + 1 if len(labels) else 0))
    return [set(np.flatnonzero(labels == c).tolist()) for c in range(labels.max() + 1 if len(labels) else 0)]


def assert_as_good_as_networkx(G: nx.Graph, A: gb.Matrix, resolution: float = 1.0) -> None:
    ours = [nx.community.modularity(G, partition(louvain(A, resolution=resolution, seed=s)), resolution=resolution)
            for s in SEEDS]
    theirs = [nx.community.modularity(G, nx.community.louvain_communities(G, resolution=resolution, seed=s),
                                      resolution=resolution) for s in SEEDS]
    assert np.mean(ours) >= np.mean(theirs) - 0.01, (ours, theirs)


@pytest.mark.parametrize("make", [
    lambda: nx.gnp_random_graph(120, 0.05, seed=1),
    lambda: nx.planted_partition_graph(6, 20, 0.4, 0.02, seed=2),
    lambda: nx.barabasi_albert_graph(150, 3, seed=3),
    lambda: nx.watts_strogatz_graph(150, 6, 0.1, seed=4),
    lambda: nx.les_miserables_graph(),
    lambda: nx.karate_club_graph(),  # weighted
], ids=["gnp", "planted", "ba", "ws", "lesmis", "karate-weighted"])
def test_modularity_at_least_networkx(backend: str, make) -> None:
    G = nx.convert_node_labels_to_integers(make())
    assert_as_good_as_networkx(G, weighted_adjacency(G, backend))


@pytest.mark.parametrize("host_entries", [0, 1 << 30], ids=["device-moves", "host-moves"])
def test_both_ways_of_choosing_moves(backend: str, host_entries: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Levels at most HOST_ENTRIES entries choose their moves on the host, larger ones with
    # device operations: each way alone is as good as networkx, on weighted edges with ties.
    monkeypatch.setattr(louvain_module, "HOST_ENTRIES", host_entries)
    G = nx.convert_node_labels_to_integers(nx.les_miserables_graph())
    assert_as_good_as_networkx(G, weighted_adjacency(G, backend))
    G = nx.planted_partition_graph(5, 16, 0.5, 0.03, seed=7)
    assert_as_good_as_networkx(G, weighted_adjacency(G, backend))


def test_the_two_ways_agree(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    G = nx.barabasi_albert_graph(200, 4, seed=5)
    A = weighted_adjacency(G, backend)
    got = []
    for host_entries in (0, 1 << 30):
        monkeypatch.setattr(louvain_module, "HOST_ENTRIES", host_entries)
        got.append(louvain(A, seed=3).to_dense())
    np.testing.assert_array_equal(got[0], got[1])


@pytest.mark.parametrize("resolution", [0.5, 2.0])
def test_resolution(backend: str, resolution: float) -> None:
    G = nx.planted_partition_graph(5, 16, 0.5, 0.05, seed=5)
    assert_as_good_as_networkx(G, weighted_adjacency(G, backend), resolution)


def test_resolution_zero_joins_each_component(backend: str) -> None:
    G = nx.disjoint_union_all([nx.path_graph(5), nx.cycle_graph(4), nx.star_graph(3)])
    got = partition(louvain(nx_adjacency(G, backend, 1.0), resolution=0.0, seed=0))
    assert sorted(map(sorted, got)) == sorted(map(sorted, nx.connected_components(G)))


def test_large_resolution_keeps_singletons(backend: str) -> None:
    G = nx.gnp_random_graph(30, 0.2, seed=6)
    assert len(partition(louvain(nx_adjacency(G, backend, 1.0), resolution=100.0, seed=0))) == 30


def test_planted_partition_recovered(backend: str) -> None:
    G = nx.disjoint_union_all([nx.complete_graph(6) for _ in range(4)])
    G.add_edges_from([(0, 6), (6, 12), (12, 18)])  # one weak link between cliques
    got = partition(louvain(nx_adjacency(G, backend, 1.0), seed=1))
    assert sorted(map(sorted, got)) == [list(range(6 * i, 6 * i + 6)) for i in range(4)]


def test_modularity_matrix_form_matches_networkx(backend: str) -> None:
    G = nx.karate_club_graph()
    G.add_edge(3, 3, weight=2.0)  # a self-loop: counted twice in the degree, as networkx does
    A = weighted_adjacency(G, backend)
    parts = nx.community.louvain_communities(G, seed=0)
    labels = np.empty(34, dtype=np.int64)
    for c, members in enumerate(parts):
        labels[list(members)] = c
    v = gb.Vector.from_coo(np.arange(34), labels, size=34, backend=backend)
    for res in (1.0, 0.7):
        assert modularity_matrix_form(A, v, res) == pytest.approx(nx.community.modularity(G, parts, resolution=res))


def test_seed_reproducible_and_one_direction_is_undirected(backend: str) -> None:
    G = nx.gnp_random_graph(80, 0.08, seed=7)
    A = nx_adjacency(G, backend, 1.0)
    r, c = zip(*G.edges())
    one_way = gb.Matrix.from_coo(r, c, 1.0, nrows=80, ncols=80, backend=backend)
    first = louvain(A, seed=3).to_dense()
    np.testing.assert_array_equal(first, louvain(A, seed=3).to_dense())
    np.testing.assert_array_equal(first, louvain(one_way, seed=3).to_dense())


@pytest.mark.parametrize("n", [0, 1, 4])
def test_no_edges(backend: str, n: int) -> None:
    got = louvain(gb.Matrix(gb.BOOL, n, n, backend=backend))
    assert got.size == n and got.nvals == n
    assert got.to_dense().tolist() == list(range(n))


def test_isolated_vertices_and_self_loops(backend: str) -> None:
    G = nx.disjoint_union(nx.complete_graph(4), nx.empty_graph(3))
    G.add_edge(5, 5)
    got = partition(louvain(nx_adjacency(G, backend, 1.0), seed=0))
    assert {0, 1, 2, 3} in got and {4} in got and {6} in got


def test_max_level(backend: str) -> None:
    G = nx.gnp_random_graph(100, 0.05, seed=8)
    A = nx_adjacency(G, backend, 1.0)
    assert len(partition(louvain(A, max_level=0))) == 100
    one = partition(louvain(A, max_level=1, seed=0))
    assert len(one) > len(partition(louvain(A, seed=0)))


def test_bad_input(backend: str) -> None:
    with pytest.raises(DimensionMismatch):
        louvain(gb.Matrix(gb.FP64, 3, 4, backend=backend))
    neg = gb.Matrix.from_coo([0, 1], [1, 0], -1.0, nrows=2, ncols=2, backend=backend)
    with pytest.raises(InvalidValue):
        louvain(neg)
    A = gb.Matrix.from_coo([0, 1], [1, 0], 1.0, nrows=2, ncols=2, backend=backend)
    with pytest.raises(InvalidValue):
        louvain(A, resolution=float("nan"))
    with pytest.raises(InvalidValue):
        louvain(A, max_level=-1)


def test_karate_shared(backend: str) -> None:
    M = shared_coo("lagraph", "karate.mtx")
    A = gb.Matrix.from_coo(M.row, M.col, 1.0, nrows=34, ncols=34, backend=backend)
    G = nx.Graph(list(zip(M.row.tolist(), M.col.tolist())))
    assert_as_good_as_networkx(G, A)


def test_email_eu_core(backend: str) -> None:
    edges, n = snap_edges("email-Eu-core.csv")
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(e for e in edges.tolist() if e[0] != e[1])
    A = nx_adjacency(G, backend, 1.0)
    ours = nx.community.modularity(G, partition(louvain(A, seed=0)))
    theirs = nx.community.modularity(G, nx.community.louvain_communities(G, seed=0))
    assert ours >= theirs - 0.01
