"""betweenness_centrality against networkx (all sources) and a brute-force reference
(a subset of sources)."""

from __future__ import annotations

from collections import deque

import networkx as nx
import numpy as np
import pytest
from conftest import full_fp64, nx_adjacency
from grblas_gpu.algorithms.betweenness import betweenness_centrality

import grblas_gpu as gb


def bfs_counts(G: nx.DiGraph, s: int) -> tuple[dict[int, int], dict[int, int]]:
    """Hop distance and number of shortest paths from ``s`` to every reachable vertex."""
    dist, sigma = {s: 0}, {s: 1}
    queue = deque([s])
    while queue:
        u = queue.popleft()
        for w in G.successors(u):
            if w not in dist:
                dist[w], sigma[w] = dist[u] + 1, 0
                queue.append(w)
            if dist[w] == dist[u] + 1:
                sigma[w] += sigma[u]
    return dist, sigma


def brute_force_bc(G: nx.DiGraph, sources: list[int]) -> np.ndarray:
    """sum over s in sources, t, v (distinct) of sigma_st(v) / sigma_st, with
    sigma_st(v) = sigma_sv sigma_vt when d(s, v) + d(v, t) = d(s, t)."""
    n = G.number_of_nodes()
    counts = {v: bfs_counts(G, v) for v in G.nodes()}
    bc = np.zeros(n)
    for s in sources:
        dist_s, sigma_s = counts[s]
        for t in dist_s:
            for v in dist_s:
                dist_v, sigma_v = counts[v]
                if v not in (s, t) and t in dist_v and dist_s[v] + dist_v[t] == dist_s[t]:
                    bc[v] += sigma_s[v] * sigma_v[t] / sigma_s[t]
    return bc


def nx_bc(G: nx.Graph) -> np.ndarray:
    ref = nx.betweenness_centrality(G, normalized=False)
    return np.array([ref[v] for v in range(G.number_of_nodes())])


@pytest.mark.parametrize("seed", range(3))
def test_directed_all_sources_matches_networkx(backend: str, seed: int) -> None:
    G = nx.gnp_random_graph(30, 0.1, seed=seed, directed=True)
    G.add_edge(4, 4)  # a self-loop is never on a shortest path
    np.testing.assert_allclose(full_fp64(betweenness_centrality(nx_adjacency(G, backend, 2.5))), nx_bc(G),
                               rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_undirected_is_twice_networkx(backend: str, seed: int) -> None:
    G = nx.gnp_random_graph(30, 0.12, seed=seed)
    got = full_fp64(betweenness_centrality(nx_adjacency(G, backend, 2.5), batch_size=7))
    np.testing.assert_allclose(got, 2 * nx_bc(G), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("directed", [False, True])
def test_subset_of_sources_matches_brute_force(backend: str, seed: int, directed: bool) -> None:
    G = nx.gnp_random_graph(25, 0.12, seed=seed, directed=directed)
    sources = [3, 0, 17, 9, 3]  # a repeated source counts again
    got = full_fp64(betweenness_centrality(nx_adjacency(G, backend, 2.5), sources, batch_size=2))
    np.testing.assert_allclose(got, brute_force_bc(nx.DiGraph(G), sources), rtol=1e-10, atol=1e-10)


def test_small_cases(backend: str) -> None:
    path = gb.Matrix.from_coo([0, 1], [1, 2], True, nrows=3, ncols=3, backend=backend)  # 0 -> 1 -> 2
    np.testing.assert_allclose(full_fp64(betweenness_centrality(path)), [0.0, 1.0, 0.0])
    np.testing.assert_allclose(full_fp64(betweenness_centrality(path, [1])), [0.0, 0.0, 0.0])
    np.testing.assert_allclose(full_fp64(betweenness_centrality(path, [])), [0.0, 0.0, 0.0])
    assert betweenness_centrality(gb.Matrix(gb.BOOL, 0, 0, backend=backend)).size == 0


def test_errors() -> None:
    A = gb.Matrix.from_coo([0], [1], True, nrows=3, ncols=3)
    with pytest.raises(gb.DimensionMismatch):
        betweenness_centrality(gb.Matrix(gb.BOOL, 2, 3))
    with pytest.raises(gb.IndexOutOfBound):
        betweenness_centrality(A, [0, 3])
    with pytest.raises(gb.IndexOutOfBound):
        betweenness_centrality(A, [-1])
    with pytest.raises(gb.InvalidIndex):
        betweenness_centrality(A, [0.5])  # type: ignore[list-item]
    with pytest.raises(gb.DomainMismatch):
        betweenness_centrality(np.eye(3))  # type: ignore[arg-type]
