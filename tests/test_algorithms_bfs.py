"""bfs_levels and bfs_parents against networkx and LAGraph's published levels."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import SHARED_DATA, scipy_mmread
from grblas_gpu.algorithms.bfs import bfs_levels, bfs_parents

import grblas_gpu as gb
from grblas_gpu.exceptions import DimensionMismatch, DomainMismatch, IndexOutOfBound

LAGRAPH = SHARED_DATA / "lagraph"


def random_digraph(seed: int, n: int, p: float, directed: bool) -> nx.DiGraph:
    """A seeded random graph with a few self-loops and isolated vertices, as a DiGraph."""
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    G.add_edges_from((int(v), int(v)) for v in rng.choice(n, 3, replace=False))
    G.remove_edges_from([e for e in G.edges if n - 1 in e or n - 2 in e])
    return G.to_directed()


def to_matrix(G: nx.DiGraph, backend: str, dtype=gb.FP64) -> gb.Matrix:
    rows, cols = zip(*G.edges) if G.number_of_edges() else ((), ())
    n = G.number_of_nodes()
    return gb.Matrix.from_coo(list(rows), list(cols), 1, nrows=n, ncols=n, dtype=dtype, backend=backend)


def check_parents(G: nx.DiGraph, source: int, parents: gb.Vector) -> None:
    """Every reached vertex has a parent one level up with an edge to it."""
    level = nx.single_source_shortest_path_length(G, source)
    idx, par = parents.to_coo()
    assert parents.dtype == gb.INT64
    assert sorted(idx.tolist()) == sorted(level)
    for v, p in zip(idx.tolist(), par.tolist()):
        if v == source:
            assert p == source
        else:
            assert G.has_edge(p, v) and level[p] == level[v] - 1


CASES = [(seed, n, p, directed) for seed in (0, 1) for directed in (True, False)
         for n, p in ((30, 0.08), (300, 0.02))]


@pytest.mark.parametrize(("seed", "n", "p", "directed"), CASES)
def test_bfs_matches_networkx(seed: int, n: int, p: float, directed: bool, backend: str) -> None:
    G = random_digraph(seed, n, p, directed)
    A = to_matrix(G, backend)
    for source in (0, n // 2, n - 1):
        levels = bfs_levels(A, source)
        assert levels.dtype == gb.INT64
        idx, depth = levels.to_coo()
        assert dict(zip(idx.tolist(), depth.tolist())) == nx.single_source_shortest_path_length(G, source)
        check_parents(G, source, bfs_parents(A, source))


def test_bfs_ignores_values(backend: str) -> None:
    # Stored entries are edges whatever their value (False, 0, negative).
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 3], [False, False, True], nrows=5, ncols=5, backend=backend)
    assert bfs_levels(A, 0).isequal(gb.Vector.from_coo([0, 1, 2, 3], [0, 1, 2, 3], size=5))
    assert bfs_parents(A, 0).isequal(gb.Vector.from_coo([0, 1, 2, 3], [0, 0, 1, 2], size=5))
    assert bfs_levels(A, 4).isequal(gb.Vector.from_coo([4], [0], size=5))


def test_karate_levels_from_lagraph(backend: str) -> None:
    pytest.importorskip("scipy.io")
    path, expected = LAGRAPH / "karate.mtx", LAGRAPH / "expected" / "karate-BFS-levels-src30.txt"
    if not (path.exists() and expected.exists()):
        pytest.skip(f"LAGraph data not found at {LAGRAPH}")
    coo = scipy_mmread(path).tocoo()  # symmetric file: scipy returns both triangles
    A = gb.Matrix.from_coo(coo.row, coo.col, 1, nrows=34, ncols=34, dtype=gb.BOOL, backend=backend)
    want = np.loadtxt(expected, dtype=np.int64)
    np.testing.assert_array_equal(bfs_levels(A, 30).to_dense(), want[:, 1])
    G = nx.DiGraph(list(zip(coo.row.tolist(), coo.col.tolist())))
    check_parents(G, 30, bfs_parents(A, 30))


@pytest.mark.parametrize("algorithm", [bfs_levels, bfs_parents])
def test_bad_arguments(algorithm, backend: str) -> None:
    A = gb.Matrix.from_coo([0, 1], [1, 2], 1.0, nrows=3, ncols=3, backend=backend)
    with pytest.raises(IndexOutOfBound):
        algorithm(A, 3)
    with pytest.raises(DimensionMismatch):
        algorithm(gb.Matrix.from_coo([0], [1], 1.0, nrows=2, ncols=3, backend=backend), 0)
    with pytest.raises(DomainMismatch):
        algorithm([[0, 1], [1, 0]], 0)
