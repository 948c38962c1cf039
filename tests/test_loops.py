"""frontier_loop: a loop run on the device gives what the plain loop gives, on every backend.

Each algorithm that uses it runs with device loops on and off (``device_loops``), and both are
checked against scipy or a reference written here: graphs whose loop ends at its first
iteration, ends in the middle of a batch of captured iterations, runs for hundreds of levels
(a grid), or grows a frontier large enough to be handed to the ordinary statement.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sps
from conftest import shared_coo
from grblas_gpu.algorithms import bfs_levels, bfs_parents, connected_components, sssp, widest_path
from scipy.sparse import csgraph

import grblas_gpu as gb
from grblas_gpu import INT64, Vector, loops, semiring
from grblas_gpu.loops import device_loops, frontier_loop


def grid(side: int, seed: int = 0) -> sps.csr_matrix:
    """A side x side grid, both directions of each edge, random weights in [1, 10)."""
    g = sps.diags([1.0] * (side - 1), 1, (side, side))
    line = (g + g.T).tocsr()
    eye = sps.identity(side, format="csr")
    m = sps.kron(line, eye) + sps.kron(eye, line)
    m = sps.csr_matrix(m)
    rng = np.random.default_rng(seed)
    m.data = rng.uniform(1.0, 10.0, m.nnz)
    return (m + m.T).tocsr() * 0.5


def path(n: int) -> sps.csr_matrix:
    """The directed path 0 -> 1 -> ... -> n-1, weights 1..n-1."""
    return sps.csr_matrix((np.arange(1.0, n), (np.arange(n - 1), np.arange(1, n))), shape=(n, n))


def star(n: int) -> sps.csr_matrix:
    """Vertex 0 with an edge to every other vertex (and back): a large frontier at once."""
    rows = np.concatenate([np.zeros(n - 1, int), np.arange(1, n)])
    cols = np.concatenate([np.arange(1, n), np.zeros(n - 1, int)])
    return sps.csr_matrix((np.full(2 * n - 2, 2.0), (rows, cols)), shape=(n, n))


def random_graph(n: int, p: float, seed: int) -> sps.csr_matrix:
    g = sps.random(n, n, p, random_state=seed, format="csr")
    g.data = np.random.default_rng(seed).uniform(0.5, 5.0, g.nnz)
    return g


GRAPHS: dict[str, Callable[[], sps.csr_matrix]] = {
    "no out-edges": lambda: sps.csr_matrix((5, 5)),  # the loop ends at its first iteration
    "path 11": lambda: path(11),  # 10 levels: the loop ends inside the second batch
    "path 9": lambda: path(9),  # 8 levels: a batch's last iteration empties the frontier
    "grid 30": lambda: grid(30),  # 59 levels
    "star": lambda: star(1000),  # all vertices in the frontier at the second level
    "hub": lambda: star(3000),  # a row past LONGEST_ROW: the ordinary statements run
    "random": lambda: random_graph(2000, 0.002, 3),
}


def matrix(g: sps.csr_matrix, backend: str) -> gb.Matrix:
    c = g.tocoo()
    return gb.Matrix.from_coo(c.row, c.col, c.data, nrows=g.shape[0], ncols=g.shape[1], dtype=gb.FP64,
                              backend=backend)


def both(run: Callable[[], Vector]) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """The result's (indices, values) with device loops on, then off."""
    with device_loops(True):
        on = run().to_coo()
    with device_loops(False):
        off = run().to_coo()
    return on, off


def dense(coo: tuple[Any, Any], n: int, missing: float = np.inf) -> np.ndarray:
    out = np.full(n, missing)
    out[coo[0]] = coo[1]
    return out


@pytest.mark.parametrize("name", list(GRAPHS))
def test_bfs_levels(name: str, backend: str) -> None:
    g = GRAPHS[name]()
    A = matrix(g, backend)
    on, off = both(lambda: bfs_levels(A, 0))
    expected = csgraph.shortest_path(g, unweighted=True, indices=0)
    np.testing.assert_array_equal(dense(on, g.shape[0]), expected)
    np.testing.assert_array_equal(dense(off, g.shape[0]), expected)


@pytest.mark.parametrize("name", list(GRAPHS))
def test_bfs_parents(name: str, backend: str) -> None:
    g = GRAPHS[name]()
    A = matrix(g, backend)
    level = csgraph.shortest_path(g, unweighted=True, indices=0)
    for idx, parent in both(lambda: bfs_parents(A, 0)):
        np.testing.assert_array_equal(idx, np.flatnonzero(np.isfinite(level)))
        others = idx != 0
        child, par = idx[others], parent[others]
        assert parent[~others].tolist() == [0]
        np.testing.assert_array_equal(level[par] + 1, level[child])  # one level up ...
        assert all(g[p, c] != 0 for p, c in zip(par, child))  # ... along an edge


@pytest.mark.parametrize("name", list(GRAPHS))
def test_sssp(name: str, backend: str) -> None:
    g = GRAPHS[name]()
    A = matrix(g, backend)
    on, off = both(lambda: sssp(A, 0))
    expected = csgraph.dijkstra(g, indices=0)
    np.testing.assert_allclose(dense(on, g.shape[0]), expected, rtol=1e-12)
    np.testing.assert_allclose(dense(off, g.shape[0]), expected, rtol=1e-12)


@pytest.mark.parametrize("name", list(GRAPHS))
@pytest.mark.parametrize("dtype", ["INT64", "INT32", "UINT32"])
def test_sssp_integer(name: str, dtype: str, backend: str) -> None:
    """Integer weights: distances kept in a full vector with the type's largest value where no
    path is known (the device loop's relax), never added to: scipy's distances, exactly."""
    g = GRAPHS[name]()
    g.data = np.ceil(g.data)
    if dtype == "INT32" and name.startswith("path"):
        g.data[::3] *= -1  # negative weights (a path has no cycle)
    c = g.tocoo()
    A = gb.Matrix.from_coo(c.row, c.col, c.data.astype(np.int64), nrows=g.shape[0], ncols=g.shape[1],
                           dtype=dtype, backend=backend)
    expected = csgraph.bellman_ford(g, indices=0)
    for idx, vals in both(lambda: sssp(A, 0, method="bellman-ford")):
        assert vals.dtype == np.dtype(dtype.lower())
        np.testing.assert_array_equal(idx, np.flatnonzero(np.isfinite(expected)))
        np.testing.assert_array_equal(vals, expected[idx].astype(vals.dtype))


def widest_reference(g: sps.csr_matrix, source: int) -> np.ndarray:
    """Bottleneck widths by a Dijkstra-like search on the host (-inf: unreachable)."""
    n = g.shape[0]
    width = np.full(n, -np.inf)
    width[source] = np.inf
    heap = [(-np.inf, source)]
    done = np.zeros(n, bool)
    while heap:
        w, u = heapq.heappop(heap)
        if done[u]:
            continue
        done[u] = True
        for p in range(g.indptr[u], g.indptr[u + 1]):
            v, cap = g.indices[p], g.data[p]
            if min(-w, cap) > width[v]:
                width[v] = min(-w, cap)
                heapq.heappush(heap, (-width[v], v))
    return width


@pytest.mark.parametrize("name", list(GRAPHS))
def test_widest_path(name: str, backend: str) -> None:
    g = GRAPHS[name]()
    A = matrix(g, backend)
    on, off = both(lambda: widest_path(A, 0))
    expected = widest_reference(g, 0)
    np.testing.assert_array_equal(dense(on, g.shape[0], -np.inf), expected)
    np.testing.assert_array_equal(dense(off, g.shape[0], -np.inf), expected)


@pytest.mark.parametrize("name", ["grid 30", "star", "hub", "random"])
def test_connected_components(name: str, backend: str) -> None:
    g = GRAPHS[name]()
    g = (g + g.T).tocsr()  # symmetric: a round is one statement, which the device loop takes
    A = matrix(g, backend)
    count, labels = csgraph.connected_components(g, directed=False)
    smallest = np.array([np.flatnonzero(labels == c).min() for c in range(count)])
    for idx, got in both(lambda: connected_components(A)):
        np.testing.assert_array_equal(idx, np.arange(g.shape[0]))
        np.testing.assert_array_equal(got, smallest[labels])


@pytest.mark.parametrize("name", ["path 11", "random", "hub"])
def test_connected_components_directed(name: str, backend: str) -> None:
    """A directed graph: weak components, two products a round (device loops on or off): the
    same labels as scipy's."""
    g = GRAPHS[name]()
    A = matrix(g, backend)
    count, labels = csgraph.connected_components(g, directed=True, connection="weak")
    smallest = np.array([np.flatnonzero(labels == c).min() for c in range(count)])
    for idx, got in both(lambda: connected_components(A)):
        np.testing.assert_array_equal(idx, np.arange(g.shape[0]))
        np.testing.assert_array_equal(got, smallest[labels])


def test_handover(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With handover limits of 2 vertices, levels go from the device loop to the ordinary
    statement and back as the frontier grows and shrinks: the same levels."""
    monkeypatch.setattr(loops, "HANDOVER_SHARE", 0.0)
    monkeypatch.setattr(loops, "HANDOVER_LEAST", 2)
    g = grid(12)
    on, off = both(lambda: bfs_levels(matrix(g, backend), 5))
    expected = csgraph.shortest_path(g, unweighted=True, indices=5)
    np.testing.assert_array_equal(dense(on, g.shape[0]), expected)
    np.testing.assert_array_equal(dense(off, g.shape[0]), expected)


def test_limit_and_iteration_numbers(backend: str) -> None:
    """``limit`` bounds the iterations (the device loop's too) and the loop yields 0, 1, ..."""
    A = matrix(path(20), backend)
    levels = Vector.from_coo([0], [0], size=20, dtype=INT64, backend=backend)
    frontier = levels.dup()
    seen = []
    for i in frontier_loop(frontier, limit=7):
        seen.append(i)
        levels(~levels.S, changed=frontier) << frontier.vxm(A, semiring.any_secondi[INT64])
    assert levels.nvals == 8 and frontier.to_coo()[0].tolist() == [7]
    # On the GPU the body runs at the traced passes only (whole batches run between them).
    assert seen == list(range(7)) if backend == "numpy" else (seen[0] == 0 and seen == sorted(seen) and seen[-1] < 7)


def test_body_of_several_statements_runs_as_written(backend: str) -> None:
    """A body with another statement after the loop's statement runs as written, in order."""
    A = matrix(path(6), backend)
    levels = Vector.from_coo([0], [0], size=6, dtype=INT64, backend=backend)
    frontier = levels.dup()
    sizes = []
    count = Vector.from_scalar(0, 6, INT64, backend=backend)
    for _ in frontier_loop(frontier):
        levels(~levels.S, changed=frontier) << frontier.vxm(A, semiring.any_secondi[INT64])
        count(gb.binary.plus) << frontier.apply(gb.unary.one)
        sizes.append(frontier.nvals)
    assert sizes == [1, 1, 1, 1, 1, 0]
    assert count.to_coo()[1].tolist() == [0, 1, 1, 1, 1, 1]


def test_mesh_from_shared_data(backend: str) -> None:
    """A finite-element mesh (LAGraph's jagmesh7, the shared data): BFS and SSSP with device
    loops on and off, against scipy."""
    c = shared_coo("lagraph", "jagmesh7.mtx")
    g = sps.csr_matrix((np.abs(c.data) + 1.0, (c.row, c.col)), shape=c.shape)
    g = (g + g.T).tocsr()
    g.setdiag(0)
    g.eliminate_zeros()
    A = matrix(g, backend)
    for run, expected in ((lambda: bfs_levels(A, 3), csgraph.shortest_path(g, unweighted=True, indices=3)),
                          (lambda: sssp(A, 3), csgraph.dijkstra(g, indices=3))):
        for got in both(run):
            np.testing.assert_allclose(dense(got, g.shape[0]), expected, rtol=1e-12)


TURNS: dict[str, tuple[Callable[[], sps.csr_matrix], int]] = {
    "grid": (lambda: grid(17), 40), "star": (lambda: star(300), 0), "path": (lambda: path(30), 0)}


@pytest.mark.parametrize("name", list(TURNS))
@pytest.mark.parametrize("block_rows", [1, 3, 40])
@pytest.mark.parametrize("larger", ["graphs", "grid kernel", "grid kernel of 3 blocks", "cluster kernel"])
def test_block_and_graph_kernels_take_turns(name: str, block_rows: int, larger: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """On the GPU, with the block kernel taking frontiers of at most ``block_rows`` rows, a
    grid's loop goes from the block kernel to the captured graphs, to the grid kernel (of one
    block an SM, or of 3), or to the cluster kernel (where the GPU has clusters; else the grid
    kernel), and back as its frontier grows and shrinks (and a star's from one row to all):
    the same results as the plain loop and the references, for each algorithm."""
    if not gb.backends.gpu_available():
        pytest.skip("the device loop runs on the GPU only")
    from grblas_gpu.backends.cupy import capture

    monkeypatch.setattr(capture, "BLOCK_ROWS", block_rows)
    monkeypatch.setattr(capture, "BLOCK_ROWS_BESIDE_GRID", block_rows)
    monkeypatch.setattr(capture, "BLOCK_ROWS_BESIDE_CLUSTER", block_rows)
    monkeypatch.setattr(capture, "CLUSTER_KERNEL", larger == "cluster kernel")
    monkeypatch.setattr(capture, "GRID_KERNEL", larger != "graphs")
    monkeypatch.setattr(capture, "GRID_BLOCKS", 3 if larger.endswith("3 blocks") else 0)
    make, source = TURNS[name]
    every_algorithm_both_ways(make(), source)


def every_algorithm_both_ways(g: sps.csr_matrix, source: int) -> None:
    """BFS levels and parents, SSSP and widest paths from ``source`` on the GPU with device loops
    on and off, against scipy and :func:`widest_reference`."""
    A = matrix(g, "cupy")
    level = csgraph.shortest_path(g, unweighted=True, indices=source)
    for got in both(lambda: bfs_levels(A, source)):
        np.testing.assert_array_equal(dense(got, g.shape[0]), level)
    for idx, parent in both(lambda: bfs_parents(A, source)):
        child = idx != source
        np.testing.assert_array_equal(idx, np.flatnonzero(np.isfinite(level)))
        np.testing.assert_array_equal(level[parent[child]] + 1, level[idx[child]])
    for got in both(lambda: sssp(A, source)):
        np.testing.assert_allclose(dense(got, g.shape[0]), csgraph.dijkstra(g, indices=source), rtol=1e-12)
    for got in both(lambda: widest_path(A, source)):
        np.testing.assert_array_equal(dense(got, g.shape[0], -np.inf), widest_reference(g, source))


@pytest.mark.parametrize("beyond", [False, True])
def test_claims_held_in_the_block_and_not(beyond: bool) -> None:
    """On the GPU, a grid with as many positions as the block kernel holds presence bits for
    in shared memory (at most ``HELD_BITS``) and one with more (the bits stay in global
    memory): each algorithm both ways against the references."""
    if not gb.backends.gpu_available():
        pytest.skip("the device loop runs on the GPU only")
    from grblas_gpu.backends.cupy.loop_codegen import HELD_BITS

    side = math.isqrt(HELD_BITS) + (1 if beyond else 0)
    assert (side * side > HELD_BITS) == beyond
    every_algorithm_both_ways(grid(side), side * side // 2 + side // 2)


def symmetric(g: sps.csr_matrix) -> sps.csr_matrix:
    return ((g + g.T) * 0.5).tocsr()


def hubs(n: int, seed: int, both_ways: bool = True) -> sps.csr_matrix:
    """A small power-law-like graph: vertex 0 reaches half the vertices, each of those four
    random others (a BFS from 0 holds half the graph at its first level), both ways or not."""
    rng = np.random.default_rng(seed)
    near = rng.choice(np.arange(1, n), n // 2, replace=False)
    rows = np.concatenate([np.zeros(near.size, int), np.repeat(near, 4)])
    cols = np.concatenate([near, rng.integers(0, n, 4 * near.size)])
    keep = rows != cols
    g = sps.csr_matrix((rng.uniform(1.0, 9.0, keep.sum()), (rows[keep], cols[keep])), shape=(n, n))
    g.sum_duplicates()
    return symmetric(g) if both_ways else g


# Levels of at least 1/16 of the vertices (loop_codegen.PULL_SHARE) and at most the block
# kernel's 512 rows: the hubs' first levels (512 vertices), the random graph's of 229 to 517.
PULLED: dict[str, Callable[[], sps.csr_matrix]] = {
    "hubs": lambda: hubs(1024, 1),
    "directed hubs": lambda: hubs(1024, 2, both_ways=False),
    "sparse directed": lambda: random_graph(2000, 0.0015, 4),
}


@pytest.mark.parametrize("name", list(PULLED))
def test_pulled_levels(name: str, backend: str) -> None:
    """Graphs whose frontiers reach 1/``PULL_SHARE`` of the vertices, where the block kernel
    pulls a level (each vertex not yet reached looks through the edges into it): BFS levels
    and parents both ways against scipy; and the claim written ``A u`` (the kernel walks A'
    and pulls through A's rows) over ``any_first``, reading A's values: each vertex reached
    holds the weight of an edge into it from the level before.  On the GPU the loop kept with
    the matrix holds the transpose it pulls through."""
    g = PULLED[name]()
    A = matrix(g, backend)
    level = csgraph.shortest_path(g, unweighted=True, indices=0)
    for got in both(lambda: bfs_levels(A, 0)):
        np.testing.assert_array_equal(dense(got, g.shape[0]), level)
    for idx, parent in both(lambda: bfs_parents(A, 0)):
        child = idx != 0
        np.testing.assert_array_equal(idx, np.flatnonzero(np.isfinite(level)))
        np.testing.assert_array_equal(level[parent[child]] + 1, level[idx[child]])
        assert all(g[p, c] != 0 for p, c in zip(parent[child], idx[child]))
    back = csgraph.shortest_path(g.T.tocsr(), unweighted=True, indices=0)  # (A u goes along A')
    for idx, weight in both(lambda: _reached_by_columns(A, 0)):
        np.testing.assert_array_equal(idx, np.flatnonzero(np.isfinite(back)))
        for j, w in zip(idx, weight):
            into = g[[j], :].tocoo()  # A[j, k]: the edges k -> j of A u
            assert j == 0 or w in into.data[back[into.col] == back[j] - 1]
    if backend == "cupy":
        from grblas_gpu.algorithms.bfs import next_level

        kept = A._memo(("frontier loop", next_level(), True, True), lambda: None)
        assert kept is not None and kept._pulled[0] is not None


def test_pulled_levels_at_the_held_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    """On the GPU without the grid kernel (the block kernel takes frontiers of up to 1,024
    rows), a graph of as many positions as the block kernel holds presence bits for: its
    level of 990 vertices is pulled (at least 12,288 / 16); BFS levels and parents against
    scipy."""
    if not gb.backends.gpu_available():
        pytest.skip("the device loop runs on the GPU only")
    from grblas_gpu.backends.cupy import capture
    from grblas_gpu.backends.cupy.loop_codegen import HELD_BITS

    monkeypatch.setattr(capture, "GRID_KERNEL", False)
    monkeypatch.setattr(capture, "CLUSTER_KERNEL", False)
    g = random_graph(HELD_BITS, 0.0005, 2)
    A = matrix(g, "cupy")
    level = csgraph.shortest_path(g, unweighted=True, indices=0)
    assert np.any(np.bincount(level[np.isfinite(level)].astype(int)) >= HELD_BITS // 16)
    for got in both(lambda: bfs_levels(A, 0)):
        np.testing.assert_array_equal(dense(got, g.shape[0]), level)
    for idx, parent in both(lambda: bfs_parents(A, 0)):
        child = idx != 0
        np.testing.assert_array_equal(level[parent[child]] + 1, level[idx[child]])


@pytest.mark.parametrize("name", ["grid 30", "random", "star"])
@pytest.mark.parametrize("second", [False, True])
def test_output_and_frontier_made_apart(name: str, second: bool, backend: str) -> None:
    """The loop's output and its first frontier made by two ``from_coo`` calls, not one the
    other's ``dup`` (on the GPU each one entry then goes to the run in words of its own), or
    the output holding a second entry the frontier lacks (then it is on the device): levels
    against scipy both ways, the second entry kept."""
    from grblas_gpu.algorithms.bfs import next_level

    g = GRAPHS[name]()
    n, far = g.shape[0], g.shape[0] - 1
    A = matrix(g, backend)

    def run() -> Vector:
        levels = Vector.from_coo([0, far] if second else [0], [0, -5] if second else [0], size=n, dtype=INT64,
                                 backend=backend)
        frontier = Vector.from_coo([0], [0], size=n, dtype=INT64, backend=backend)
        for _ in frontier_loop(frontier, A):
            levels(~levels.S, changed=frontier) << frontier.vxm(A, next_level())
        return levels

    held = g.tolil()
    if second:  # (held, never a frontier: no path goes through it)
        held[far, :] = 0
    level = csgraph.shortest_path(held.tocsr(), unweighted=True, indices=0)
    if second:
        level[far] = -5
    for got in both(run):
        np.testing.assert_array_equal(dense(got, n), level)


def _reached_by_columns(A: gb.Matrix, source: int) -> Vector:
    """``reached(~reached.S, changed=frontier) << A u`` over ``any_first`` from ``source``
    (value 0): each vertex reached holds A's value of an edge into it from the last level."""
    reached = Vector.from_coo([source], [0.0], size=A.nrows, dtype=gb.FP64, backend=A.backend)
    frontier = reached.dup()
    for _ in frontier_loop(frontier, A):
        reached(~reached.S, changed=frontier) << A.mxv(frontier, semiring.any_first[gb.FP64])
    return reached


def wide_kernel_alone(monkeypatch: pytest.MonkeyPatch, kernel: str) -> None:
    """Every frontier to the grid kernel (of 2 blocks) or the cluster kernel (where the GPU
    has clusters): the block kernel takes none."""
    if not gb.backends.gpu_available():
        pytest.skip("the device loop runs on the GPU only")
    from grblas_gpu.backends.cupy import capture

    monkeypatch.setattr(capture, "BLOCK_ROWS_BESIDE_GRID", 0)
    monkeypatch.setattr(capture, "BLOCK_ROWS_BESIDE_CLUSTER", 0)
    monkeypatch.setattr(capture, "GRID_BLOCKS", 2)
    monkeypatch.setattr(capture, "CLUSTER_KERNEL", kernel == "cluster")


@pytest.mark.parametrize("kernel", ["grid", "cluster"])
@pytest.mark.parametrize("name", list(GRAPHS))
def test_wide_kernel_alone(name: str, kernel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the GPU with every frontier given to the grid or the cluster kernel: loops that end
    at the first iteration, mid-run, or at a frontier past the handover give what the plain
    loop and the references give."""
    wide_kernel_alone(monkeypatch, kernel)
    every_algorithm_both_ways(GRAPHS[name](), 0)


@pytest.mark.parametrize("kernel", ["grid", "cluster"])
@pytest.mark.parametrize("limit", [1, 2, 5, 6, 7, 13])
def test_limit_in_wide_kernel(limit: int, kernel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``limit`` iterations exactly when the grid or the cluster kernel runs them all."""
    wide_kernel_alone(monkeypatch, kernel)
    A = matrix(path(40), "cupy")
    levels = Vector.from_coo([0], [0], size=40, dtype=INT64, backend="cupy")
    frontier = levels.dup()
    for _ in frontier_loop(frontier, A, limit=limit):
        levels(~levels.S, changed=frontier) << frontier.vxm(A, semiring.any_secondi[INT64])
    assert frontier.to_coo()[0].tolist() == [limit]
    assert levels.to_coo()[0].tolist() == list(range(limit + 1))


@pytest.mark.parametrize("limit", [1, 2, 5, 6, 7, 13])
def test_limit_within_block_and_batch(limit: int, backend: str) -> None:
    """``limit`` iterations exactly, whether the block kernel or a batch of graphs would run
    more: a path's frontier stops at vertex ``limit``, with the levels before it."""
    A = matrix(path(40), backend)
    levels = Vector.from_coo([0], [0], size=40, dtype=INT64, backend=backend)
    frontier = levels.dup()
    for _ in frontier_loop(frontier, A, limit=limit):
        levels(~levels.S, changed=frontier) << frontier.vxm(A, semiring.any_secondi[INT64])
    assert frontier.to_coo()[0].tolist() == [limit]
    assert levels.to_coo()[0].tolist() == list(range(limit + 1))
    assert levels.nvals == limit + 1


def test_first_iteration_ends_the_loop_and_counts(backend: str) -> None:
    """A source without out-edges: the loop ends at its first iteration, the result keeps one
    entry (its count known without a read), the frontier is empty; a second run from the same
    matrix starts afresh."""
    g = path(8)
    A = matrix(g, backend)
    for source in (7, 0, 7):
        levels = bfs_levels(A, source)
        assert levels.nvals == 8 - source
        np.testing.assert_array_equal(dense(levels.to_coo(), 8)[source:], np.arange(8 - source))


@pytest.mark.parametrize("block_rows", [0, 3])
def test_failed_cooperative_launch_falls_back(block_rows: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the GPU, a grid kernel whose cooperative launch fails at run time (here forced: the
    driver's answer to too many blocks) leaves the larger frontiers to the captured graphs:
    every algorithm gives what the plain loop and the references give, from the first level
    (block kernel taking none) or after the block kernel's levels."""
    if not gb.backends.gpu_available():
        pytest.skip("the device loop runs on the GPU only")
    from cupy.cuda import driver

    from grblas_gpu.backends.cupy import capture

    tries = []

    def fail(self: Any, *pointers: Any) -> None:
        tries.append(len(pointers))
        raise driver.CUDADriverError(720)  # CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE

    monkeypatch.setattr(capture._CooperativeLaunch, "launch", fail)
    monkeypatch.setattr(capture, "BLOCK_ROWS_BESIDE_GRID", block_rows)
    monkeypatch.setattr(capture, "CLUSTER_KERNEL", False)
    every_algorithm_both_ways(grid(17), 40)
    assert tries  # (the grid kernel was tried, and each loop tried it once)


class _RefusedCluster:
    """A cluster kernel's launch that the driver refuses (as it would a cluster it cannot place)."""

    def __init__(self) -> None:
        self.tries = 0

    def launch(self, *pointers: Any) -> None:
        from cupy.cuda import driver

        self.tries += 1
        raise driver.CUDADriverError(912)  # CUDA_ERROR_CLUSTER_OUT_OF_RESOURCES


@pytest.mark.parametrize("block_rows", [0, 3])
def test_refused_cluster_launch_falls_back(block_rows: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the GPU, a cluster kernel whose launch is refused leaves the larger frontiers to the
    grid kernel: every algorithm gives what the plain loop and the references give, from the
    first level or after the block kernel's, and each loop tries the cluster once."""
    if not gb.backends.gpu_available():
        pytest.skip("the device loop runs on the GPU only")
    from grblas_gpu.backends.cupy import capture

    refused: list[_RefusedCluster] = []

    def cluster_launch(*args: Any) -> _RefusedCluster:
        refused.append(_RefusedCluster())
        return refused[-1]

    monkeypatch.setattr(capture, "_cluster_launch", cluster_launch)
    monkeypatch.setattr(capture, "BLOCK_ROWS_BESIDE_CLUSTER", block_rows)
    monkeypatch.setattr(capture, "BLOCK_ROWS_BESIDE_GRID", block_rows)
    every_algorithm_both_ways(grid(17), 40)
    assert refused and all(r.tries <= 1 for r in refused) and any(r.tries == 1 for r in refused)


@pytest.mark.parametrize("side", [100, 181])
def test_cluster_kernel_on_a_larger_grid(side: int) -> None:
    """On the GPU with the defaults, a grid past the small graphs' held bits (10,000 and 32,761
    vertices: whole words of presence bits and a last partial one): its levels of more than
    ``BLOCK_ROWS_BESIDE_CLUSTER`` rows go to the cluster kernel (where the GPU has clusters),
    the others to the block kernel; every algorithm against scipy both ways."""
    if not gb.backends.gpu_available():
        pytest.skip("the device loop runs on the GPU only")
    every_algorithm_both_ways(grid(side), 0)


def test_cluster_kernel_made_where_clusters_exist() -> None:
    """On a GPU of compute capability 9.0 or later the loop has a cluster kernel (else none), and
    a claim of more positions than the blocks' shared memory holds has none."""
    if not gb.backends.gpu_available():
        pytest.skip("the device loop runs on the GPU only")
    import cupy
    from grblas_gpu.algorithms.bfs import next_level

    from grblas_gpu.backends.cupy import capture
    from grblas_gpu.backends.cupy.loop_codegen import loop_module

    A = matrix(grid(20), "cupy")
    fn = A._be._function(loop_module(next_level(), A._indices.dtype, True, A._indptr.dtype), "cluster")
    has = int(cupy.cuda.Device().compute_capability) >= 90
    assert (capture._cluster_launch(fn, 400, ()) is not None) == has
    assert capture._cluster_launch(fn, 2**31 - 1, ()) is None
