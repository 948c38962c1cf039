"""sssp(method="delta"): delta-stepping against scipy's Dijkstra, exactly, on random graphs,
meshes and edge cases; method="auto"'s choice and the argument checks."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from grblas_gpu.algorithms.delta_stepping import choose_method
from grblas_gpu.algorithms.sssp import sssp
from scipy.sparse import coo_array, csgraph

import grblas_gpu as gb
from grblas_gpu.exceptions import InvalidValue


def dijkstra(rows, cols, vals, n: int, source: int) -> np.ndarray:
    """scipy's Dijkstra distances (inf where unreachable); duplicate edges keep the lightest."""
    order = np.argsort(vals, kind="stable")[::-1]  # the csr sum would add duplicates: keep the min
    keep: dict[tuple[int, int], float] = {(int(r), int(c)): float(v) for r, c, v in
                                          zip(rows[order], cols[order], vals[order])}
    r, c = zip(*keep) if keep else ((), ())
    v = np.array(list(keep.values()), dtype=float)
    # Zero weights would vanish from a scipy sparse array: shift by a tiny epsilon, then round.
    S = coo_array((v + 1e-300, (np.array(r, dtype=int), np.array(c, dtype=int))), shape=(n, n)).tocsr()
    return csgraph.dijkstra(S, indices=source)


def dense(v: gb.Vector, n: int) -> np.ndarray:
    out = np.full(n, np.inf)
    i, x = v.to_coo()
    out[i] = x
    return out


def random_edges(seed: int, n: int, p: float, integer: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    m = rng.binomial(n * n, p)
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    vals = rng.integers(0, 50, m).astype(float) if integer else np.exp(rng.uniform(0, 6, m))
    return rows, cols, vals


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("integer", [False, True])
@pytest.mark.parametrize("delta", [None, 0.3, 7.5, 1e9])
def test_random_graphs_exact(backend: str, seed: int, integer: bool, delta: float | None) -> None:
    n = 60
    rows, cols, vals = random_edges(seed, n, 0.05, integer)
    A = gb.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, dtype=gb.INT64 if integer else gb.FP64,
                           dup_op=gb.binary.min, backend=backend)
    got = sssp(A, 0, method="delta", delta=delta)
    assert got.dtype == A.dtype
    np.testing.assert_array_equal(dense(got, n), dijkstra(rows, cols, vals, n, 0))


@pytest.mark.parametrize("shape", [(20, 30), (1, 50)])
def test_mesh_with_spread_weights(backend: str, shape: tuple[int, int]) -> None:
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(*shape))
    rng = np.random.default_rng(1)
    u, v = (np.array(x) for x in zip(*G.edges()))
    w = np.exp(rng.uniform(0, 9, len(u)))
    rows, cols, vals = np.r_[u, v], np.r_[v, u], np.r_[w, w]
    n = G.number_of_nodes()
    A = gb.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, backend=backend)
    assert choose_method(A, "auto") == ("delta" if backend == "numpy" else "bellman-ford")  # as measured
    expected = dijkstra(rows, cols, vals, n, 3)
    np.testing.assert_allclose(dense(sssp(A, 3), n), expected, rtol=1e-12)  # auto: delta
    np.testing.assert_allclose(dense(sssp(A, 3, method="bellman-ford"), n), expected, rtol=1e-12)


def test_auto_keeps_bellman_ford(backend: str) -> None:
    rows, cols, vals = random_edges(5, 40, 0.4, False)
    dense_graph = gb.Matrix.from_coo(rows, cols, vals, nrows=40, ncols=40, dup_op=gb.binary.min, backend=backend)
    assert choose_method(dense_graph, "auto") == "bellman-ford"  # many edges a vertex
    unit = gb.Matrix.from_coo([0, 1, 2], [1, 2, 3], 1.0, nrows=4, ncols=4, backend=backend)
    assert choose_method(unit, "auto") == "bellman-ford"  # equal weights
    neg = gb.Matrix.from_coo([0, 1], [1, 2], [-1.0, 500.0], nrows=3, ncols=3, backend=backend)
    assert choose_method(neg, "auto") == "bellman-ford"
    np.testing.assert_array_equal(dense(sssp(neg, 0), 3), [0.0, -1.0, 499.0])


def test_zero_weights_self_loops_unreachable(backend: str) -> None:
    rows = np.array([0, 1, 1, 2, 4, 5])
    cols = np.array([1, 2, 1, 3, 5, 4])
    vals = np.array([0.0, 2.5, 1.0, 0.0, 1.0, 1.0])
    A = gb.Matrix.from_coo(rows, cols, vals, nrows=6, ncols=6, backend=backend)
    np.testing.assert_array_equal(dense(sssp(A, 0, method="delta", delta=1.0), 6),
                                  [0.0, 0.0, 2.5, 2.5, np.inf, np.inf])


@pytest.mark.parametrize("n", [1, 3])
def test_no_edges(backend: str, n: int) -> None:
    got = sssp(gb.Matrix(gb.FP64, n, n, backend=backend), 0, method="delta")
    assert got.nvals == 1 and got.to_coo()[1].tolist() == [0.0]


def test_bad_arguments(backend: str) -> None:
    A = gb.Matrix.from_coo([0, 1], [1, 2], [-1.0, 2.0], nrows=3, ncols=3, backend=backend)
    with pytest.raises(InvalidValue, match="delta"):
        sssp(A, 0, method="delta")
    with pytest.raises(InvalidValue, match="method"):
        sssp(A, 0, method="dijkstra")
    B = gb.Matrix.from_coo([0], [1], 2.0, nrows=2, ncols=2, backend=backend)
    for bad in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(InvalidValue):
            sssp(B, 0, method="delta", delta=bad)
