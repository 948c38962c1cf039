"""multi_source_bfs against networkx.single_source_shortest_path_length, one source per row:
random graphs both ways, cutoffs, repeated sources, edge cases, the shared data."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import SHARED_DATA, nx_adjacency, scipy_mmread, snap_edges
from grblas_gpu.algorithms.multi_source_bfs import multi_source_bfs

import grblas_gpu as gb


def nx_levels(G: nx.Graph, sources: list[int], cutoff: int | None = None) -> dict[tuple[int, int], int]:
    return {(k, v): d for k, s in enumerate(sources)
            for v, d in nx.single_source_shortest_path_length(G, s, cutoff=cutoff).items()}


def as_dict(L: gb.Matrix) -> dict[tuple[int, int], int]:
    assert L.dtype == gb.INT64
    r, c, v = L.to_coo()
    return {(int(i), int(j)): int(x) for i, j, x in zip(r, c, v)}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("p", [0.03, 0.1])
def test_matches_networkx(backend: str, seed: int, directed: bool, p: float) -> None:
    G = nx.gnp_random_graph(70, p, seed=seed, directed=directed)
    G.add_nodes_from([70, 71])
    G.add_edges_from([(2, 2), (71, 71)])  # self-loops change nothing
    sources = [0, 70, 71, 13, 13, 69, 2]  # isolated sources, a repeated one
    A = nx_adjacency(G, backend, 1.5, "FP32")
    L = multi_source_bfs(A, sources)
    assert L.shape == (len(sources), 72)
    assert as_dict(L) == nx_levels(G, sources)


@pytest.mark.parametrize("cutoff", [0, 1, 2, 3, 100])
def test_cutoff(backend: str, cutoff: int) -> None:
    G = nx.gnp_random_graph(60, 0.05, seed=4, directed=True)
    sources = [1, 2, 3]
    assert as_dict(multi_source_bfs(nx_adjacency(G, backend, True), sources, cutoff=cutoff)) == \
        nx_levels(G, sources, cutoff)


def test_path_graph_levels(backend: str) -> None:
    A = nx_adjacency(nx.path_graph(5, create_using=nx.DiGraph), backend, True)  # 0 -> 1 -> ... -> 4
    L = multi_source_bfs(A, [0, 2, 4])
    assert L.to_dense(fill_value=-1).tolist() == [[0, 1, 2, 3, 4], [-1, -1, 0, 1, 2], [-1, -1, -1, -1, 0]]


def test_no_sources_and_empty(backend: str) -> None:
    assert multi_source_bfs(gb.Matrix(gb.BOOL, 4, 4, backend=backend), []).shape == (0, 4)
    assert multi_source_bfs(gb.Matrix(gb.BOOL, 0, 0, backend=backend), []).shape == (0, 0)
    L = multi_source_bfs(gb.Matrix(gb.BOOL, 3, 3, backend=backend), [2, 0])
    assert as_dict(L) == {(0, 2): 0, (1, 0): 0}


def test_karate_matches_lagraph_levels(backend: str) -> None:
    path = SHARED_DATA / "lagraph" / "karate.mtx"
    expected_path = SHARED_DATA / "lagraph" / "expected" / "karate-BFS-levels-src30.txt"
    if not (path.exists() and expected_path.exists()):
        pytest.skip(f"shared reference data not found: {path.parent}")
    M = scipy_mmread(path).tocoo()  # both triangles of the symmetric file
    r, c = M.row, M.col
    A = gb.Matrix.from_coo(r, c, True, nrows=34, ncols=34, backend=backend)
    table = np.loadtxt(expected_path, comments="#")
    L = multi_source_bfs(A, [30, 0, 33])
    assert L.to_dense(fill_value=-1)[0].tolist() == table[:, 1].astype(np.int64).tolist()
    G = nx.Graph(list(zip(r.tolist(), c.tolist())))
    assert as_dict(L) == nx_levels(G, [30, 0, 33])


def test_wiki_vote(backend: str) -> None:
    idx, n = snap_edges("wiki-Vote.txt")
    A = gb.Matrix.from_coo(idx[:, 0], idx[:, 1], True, nrows=n, ncols=n, dup_op=gb.binary.any, backend=backend)
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from(idx.tolist())
    sources = np.random.default_rng(1).choice(n, 24, replace=False).tolist() + [int(idx[0, 0])]
    assert as_dict(multi_source_bfs(A, sources)) == nx_levels(G, sources)


def test_errors() -> None:
    A = gb.Matrix(gb.BOOL, 3, 3)
    with pytest.raises(gb.IndexOutOfBound):
        multi_source_bfs(A, [0, 3])
    with pytest.raises(gb.InvalidIndex):
        multi_source_bfs(A, [1.0])  # type: ignore[list-item]
    with pytest.raises(gb.InvalidValue):
        multi_source_bfs(A, [0], cutoff=-1)
    with pytest.raises(gb.DimensionMismatch):
        multi_source_bfs(gb.Matrix(gb.BOOL, 2, 3), [0])
    with pytest.raises(gb.DomainMismatch):
        multi_source_bfs([[0, 1], [1, 0]], [0])  # type: ignore[arg-type]


def test_each_level_is_one_masked_product(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One product a level, for all sources, under the complemented mask of the visited
    positions (masked Gustavson: the mask filters inside the accumulator)."""
    be = gb.backends.get_backend(backend)
    masks: list[bool] = []
    monkeypatch.setattr(be, "mxm_gustavson", lambda s, a, b, mask=None, _k=be.mxm_gustavson:
                        masks.append(mask is not None and mask.complement) or _k(s, a, b, mask))
    A = nx_adjacency(nx.path_graph(6), backend, True)
    assert as_dict(multi_source_bfs(A, [0, 3])) == nx_levels(nx.path_graph(6), [0, 3])
    assert masks == [True] * 6  # levels 1..5 from vertex 0, then the product that finds none
