"""pagerank through grblas_gpu.loop_capture: the replayed loop (on the GPU: the iteration
captured as a CUDA graph, the stop test on the device) against the plain loop, networkx and
a scipy power iteration.  On the CPU backend both runs are the plain loop (and the cupy cases
skip); on the GPU the replay must have been taken, must give the plain loop's vector bit for
bit, the same iteration count, and allocate nothing while it replays."""

from __future__ import annotations

import os
import subprocess
import sys

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sps
from grblas_gpu.algorithms.pagerank import ConvergenceError, pagerank

import grblas_gpu as gb
from grblas_gpu import loop_capture
from grblas_gpu.loops import device_loops


def graph(seed: int, n: int = 60) -> nx.DiGraph:
    """A random directed weighted graph with dangling vertices and self-loops."""
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, 0.06, seed=seed, directed=True)
    G.add_edges_from((int(v), int(v)) for v in rng.choice(n, 3, replace=False))
    G.remove_edges_from([e for e in G.edges if e[0] in (n - 1, n - 2)])
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.uniform(0.1, 5.0))
    return G


def matrix(G: nx.DiGraph, backend: str) -> gb.Matrix:
    n = G.number_of_nodes()
    r, c, w = zip(*G.edges(data="weight"))
    return gb.Matrix.from_coo(list(r), list(c), list(w), nrows=n, ncols=n, backend=backend)


def scipy_pagerank(G: nx.DiGraph, iterations: int, alpha: float = 0.85, weight: bool = True) -> np.ndarray:
    """``iterations`` steps of networkx's formula as a scipy power iteration."""
    n = G.number_of_nodes()
    A = nx.to_scipy_sparse_array(G, nodelist=range(n), weight="weight" if weight else None, format="csr")
    w = np.asarray(A.sum(axis=1)).ravel()
    dangling = w == 0
    P = sps.diags(np.where(dangling, 0, 1 / np.where(dangling, 1, w))) @ A
    x = np.full(n, 1 / n)
    for _ in range(iterations):
        x = alpha * (P.T @ x) + (alpha * x[dangling].sum() + 1 - alpha) / n
    return x


def both(A: gb.Matrix, **kw) -> tuple[np.ndarray, np.ndarray, dict]:
    """The replayed and the plain loop's results (dense), and how the replayed one ran."""
    got = pagerank(A, **kw).to_dense()
    how = dict(loop_capture.last_run)
    with device_loops(False):
        plain = pagerank(A, **kw).to_dense()
        assert loop_capture.last_run["how"] == "plain"
    return got, plain, how


def check_taken(backend: str, how: dict) -> None:
    """On the GPU the replay ran (and allocated nothing while it replayed)."""
    if backend == "numpy":
        assert how["how"] == "plain"
        return
    assert how["how"] == "replayed", how
    assert how["pool_before"] == how["pool_after"]


def iterations_needed(A: gb.Matrix, **kw) -> int:
    """The fewest max_iter with which the plain loop converges."""
    with device_loops(False):
        for k in range(1, 200):
            try:
                pagerank(A, max_iter=k, **kw)
                return k
            except ConvergenceError:
                pass
    raise AssertionError("no convergence")


@pytest.mark.parametrize("dtype", ["FP64", "FP32"])
@pytest.mark.parametrize("weight", [True, False])
def test_same_as_plain_and_networkx(dtype: str, weight: bool, backend: str) -> None:
    G = graph(1)
    A = matrix(G, backend)
    got, plain, how = both(A, dtype=dtype, weight=weight)
    check_taken(backend, how)
    np.testing.assert_array_equal(got, plain)
    want = np.array([nx.pagerank(G, weight="weight" if weight else None)[i] for i in range(60)])
    np.testing.assert_allclose(got, want, atol=1e-6 if dtype == "FP64" else 2e-6)


@pytest.mark.parametrize("iterations", [6, 7, 9, 13, 30])
def test_fixed_iterations(iterations: int, backend: str) -> None:
    """tol=0 runs exactly max_iter iterations (batches overrun and must leave x alone)."""
    G = graph(2)
    A = matrix(G, backend)
    got, plain, how = both(A, tol=0, max_iter=iterations)
    check_taken(backend, how)
    np.testing.assert_array_equal(got, plain)
    np.testing.assert_allclose(got, scipy_pagerank(G, iterations), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("tol", [1e-3, 3e-4, 1e-4, 1e-5, 1e-7])
def test_same_iteration_count(tol: float, backend: str) -> None:
    """Convergence mid-batch and at batch ends: the replayed loop stops at the plain loop's
    iteration (max_iter one short raises ConvergenceError) with the plain loop's vector."""
    A = matrix(graph(3), backend)
    k = iterations_needed(A, tol=tol)
    got, plain, how = both(A, tol=tol, max_iter=max(k, 8))
    np.testing.assert_array_equal(got, plain)
    if k >= 8:
        check_taken(backend, how)
    if k > 1:
        with pytest.raises(ConvergenceError):
            pagerank(A, tol=tol, max_iter=k - 1)
    np.testing.assert_array_equal(pagerank(A, tol=tol, max_iter=k).to_dense(), plain)


def test_converged_at_first_iteration(backend: str) -> None:
    """A directed cycle: x_0 = 1/n is the fixed point, the first change is 0."""
    n = 50
    A = gb.Matrix.from_coo(np.arange(n), (np.arange(n) + 1) % n, 1.0, nrows=n, ncols=n, backend=backend)
    got, plain, how = both(A, max_iter=20)
    assert how["how"] == ("plain" if backend == "numpy" else "eager")
    np.testing.assert_array_equal(got, plain)
    np.testing.assert_allclose(got, 1 / n, rtol=1e-15)
    pagerank(A, max_iter=1)  # converged after one iteration


def test_max_iter_exhausted(backend: str) -> None:
    A = matrix(graph(4), backend)
    for max_iter in (6, 11):
        with pytest.raises(ConvergenceError):
            pagerank(A, tol=1e-12, max_iter=max_iter)
        if backend == "cupy":
            assert loop_capture.last_run["how"] == "replayed"


def test_personalization(backend: str) -> None:
    G = graph(5)
    A = matrix(G, backend)
    pers = {0: 1.0, 7: 3.0, 20: 0.5}
    got, plain, how = both(A, personalization=pers)
    check_taken(backend, how)
    np.testing.assert_array_equal(got, plain)
    want = nx.pagerank(G, personalization=pers)
    np.testing.assert_allclose(got, [want[i] for i in range(60)], atol=1e-6)


def test_refused_capture_falls_back(backend: str) -> None:
    """A step that reads its change back to the host cannot be captured: the loop runs as
    written, with the plain loop's results (the iterations done before the capture kept)."""
    x0 = gb.Vector.from_scalar(1.0, 30, backend=backend)
    half = gb.Vector.from_scalar(0.5, 30, backend=backend)

    def step(x: gb.Vector) -> tuple[gb.Vector, gb.Scalar]:
        x_next = x.ewise_mult(half, gb.binary.times).new()
        change = x_next.reduce().new()
        change.value  # noqa: B018 (a host read: not capturable)
        return x_next, change

    got, converged = loop_capture.converge(step, x0, max_iter=40, bound=1e-3)
    how = loop_capture.last_run["how"]
    assert converged
    assert how == "plain" if backend == "numpy" else how.startswith("refused")
    k = next(k for k in range(1, 40) if 30 * 0.5 ** k < 1e-3)  # the first change below the bound
    np.testing.assert_array_equal(got.to_dense(), np.full(30, 0.5 ** k))
    np.testing.assert_array_equal(x0.to_dense(), 1.0)  # x itself is never written


def test_turned_off_by_variable(backend: str) -> None:
    """GRBLAS_GPU_DEVICE_LOOPS=0 makes pagerank run the plain loop."""
    code = ("import grblas_gpu as gb; from grblas_gpu import loop_capture; "
            "from grblas_gpu.algorithms import pagerank; "
            f"A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], 1.0, nrows=3, ncols=3, backend={backend!r}); "
            "pagerank(A, tol=0, max_iter=20); print(loop_capture.last_run['how'])")
    env = dict(os.environ, GRBLAS_GPU_DEVICE_LOOPS="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "plain"
