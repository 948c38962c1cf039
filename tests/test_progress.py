"""Progress counts from inside the algorithms (grblas_gpu.progress), on the CPU backend: the
steps reported equal the iterations each algorithm ran, counted independently (networkx's
distances, a NumPy power iteration, the number of source batches)."""

from __future__ import annotations

import io

import networkx as nx
import numpy as np
import pytest
from grblas_gpu.algorithms import betweenness_centrality, bfs_levels, bfs_parents, multi_source_bfs, pagerank

import grblas_gpu as gb
from grblas_gpu import progress


def _matrix(G: nx.Graph) -> gb.Matrix:
    rows, cols = zip(*([(u, v) for u, v in G.edges()] + [(v, u) for u, v in G.edges()]))
    return gb.Matrix.from_coo(list(rows), list(cols), 1.0, nrows=G.number_of_nodes(), ncols=G.number_of_nodes(),
                              backend="numpy")


@pytest.fixture
def path_and_karate() -> list[nx.Graph]:
    return [nx.path_graph(7), nx.karate_club_graph(), nx.grid_2d_graph(4, 5)]


def test_bfs_steps_are_levels(path_and_karate: list[nx.Graph]) -> None:
    """A BFS runs one step per level and one that finds the frontier empty: the source's
    eccentricity (networkx) plus one."""
    for G in path_and_karate:
        G = nx.convert_node_labels_to_integers(G)
        A = _matrix(G)
        for source in (0, G.number_of_nodes() - 1):
            levels = max(nx.single_source_shortest_path_length(G, source).values()) + 1
            with progress.counting() as steps:
                bfs_levels(A, source)
                bfs_parents(A, source)
            assert steps == {"bfs_levels": levels, "bfs_parents": levels}


def test_multi_source_bfs_steps() -> None:
    G = nx.path_graph(9)
    A = _matrix(G)
    with progress.counting() as steps:
        multi_source_bfs(A, [0, 4])
    farthest = max(max(nx.single_source_shortest_path_length(G, s).values()) for s in (0, 4))
    assert steps["multi_source_bfs"] == farthest + 1  # each level, and one that finds none
    with progress.counting() as steps:
        multi_source_bfs(A, [0, 4], cutoff=3)
    assert steps["multi_source_bfs"] == 3


def _networkx_pagerank_iterations(G: nx.DiGraph, alpha: float, tol: float, max_iter: int) -> int:
    """networkx's power iteration (uniform teleport, dangling mass spread evenly), counting the
    iterations until the change ``sum |x - x_last|`` falls below ``n * tol``."""
    n = G.number_of_nodes()
    M = nx.to_numpy_array(G, nodelist=range(n))
    out = M.sum(axis=1)
    P = np.divide(M, out[:, None], out=np.zeros_like(M), where=out[:, None] > 0)
    x = np.full(n, 1.0 / n)
    for k in range(1, max_iter + 1):
        last = x
        x = alpha * (x @ P + x[out == 0].sum() / n) + (1 - alpha) / n
        if np.abs(x - last).sum() < n * tol:
            return k
    raise AssertionError("did not converge")


def test_pagerank_steps() -> None:
    G = nx.gnp_random_graph(40, 0.1, seed=3, directed=True)
    rows, cols = zip(*G.edges())
    A = gb.Matrix.from_coo(list(rows), list(cols), 1.0, nrows=40, ncols=40, backend="numpy")
    with progress.counting() as steps:
        pagerank(A, tol=0.0, max_iter=17)
    assert steps["pagerank"] == 17  # tol=0 runs exactly max_iter iterations
    expected = _networkx_pagerank_iterations(G, 0.85, 1e-6, 100)
    with progress.counting() as steps:
        pagerank(A, tol=1e-6)
    # The change of an iteration is read while the next one's product runs: one more step.
    assert steps["pagerank"] == expected + 1


def test_betweenness_steps_are_batches() -> None:
    A = _matrix(nx.karate_club_graph())
    for batch_size, sources in ((4, list(range(10))), (32, None), (1, [3])):
        with progress.counting() as steps:
            betweenness_centrality(A, sources, batch_size=batch_size)
        count = 34 if sources is None else len(sources)
        assert steps["betweenness_centrality"] == -(-count // batch_size)


def test_receivers() -> None:
    """A function gets (label, done, total); blocks nest; nothing is counted outside one."""
    A = _matrix(nx.path_graph(5))
    seen: list[tuple[str, int, int | None]] = []
    with progress.reporting(lambda label, done, total: seen.append((label, done, total))) as outer:
        with progress.counting() as inner:
            pagerank(A, tol=0.0, max_iter=3)
        bfs_levels(A, 0)
    assert seen == [("pagerank", 1, 3), ("pagerank", 2, 3), ("pagerank", 3, 3)] + \
        [("bfs_levels", k, None) for k in range(1, 6)]
    assert outer == {"pagerank": 3, "bfs_levels": 5} and inner == {"pagerank": 3}
    with progress.counting() as after:
        pass
    bfs_levels(A, 0)
    assert after == {}
    with pytest.raises(ValueError, match="receiver"), progress.reporting(42):  # type: ignore[arg-type]
        pass


def test_lines_and_tqdm() -> None:
    A = _matrix(nx.path_graph(5))
    out = io.StringIO()
    with progress.reporting("lines", stream=out):
        pagerank(A, tol=0.0, max_iter=4)
    assert out.getvalue().startswith("pagerank: 4 steps of at most 4 in ")
    pytest.importorskip("tqdm")
    err = io.StringIO()
    import tqdm.auto

    bars: list[object] = []
    real = tqdm.auto.tqdm

    def bar(*args: object, **kwargs: object) -> object:
        made = real(*args, file=err, **kwargs)  # type: ignore[call-overload]
        bars.append(made)
        return made

    tqdm.auto.tqdm = bar  # type: ignore[misc]
    try:
        with progress.reporting("tqdm"):
            bfs_levels(A, 0)
    finally:
        tqdm.auto.tqdm = real  # type: ignore[misc]
    assert len(bars) == 1 and bars[0].n == 5  # type: ignore[attr-defined]
    assert "bfs_levels" in err.getvalue()
