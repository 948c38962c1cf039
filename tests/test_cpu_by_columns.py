"""Products through A' on the CPU computed from A's own rows (no transpose built): ``u' A``,
``A.T.mxv(u)`` and ``A u`` from a sparse u, against dense NumPy products, and the working
memory of PageRank, connected components and SSSP on a directed graph (tracemalloc)."""

from __future__ import annotations

import gc
import tracemalloc
from typing import Any

import numpy as np
import pytest
from grblas_gpu.algorithms import bfs_levels, bfs_parents, connected_components, pagerank, sssp

import grblas_gpu as gb
from grblas_gpu import INT64, semiring
from grblas_gpu.ops import multiply

sps = pytest.importorskip("scipy.sparse")


def random_csr(n: int, nnz: int, seed: int, dtype: Any = np.float64) -> Any:
    """A canonical directed SciPy CSR array (int32 indices), values 1..9."""
    rng = np.random.default_rng(seed)
    m = sps.csr_array((rng.integers(1, 10, nnz).astype(dtype), (rng.integers(0, n, nnz), rng.integers(0, n, nnz))),
                      shape=(n, n))
    m.sum_duplicates()
    m.sort_indices()
    return sps.csr_array((m.data, m.indices.astype(np.int32), m.indptr), shape=m.shape)


def dense_product(m: Any, x: np.ndarray, present: np.ndarray, add: str, mult: str, transposed: bool
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(values, presence) of ``u' M`` (``M' u`` when ``transposed``: operands swapped) by dense NumPy."""
    d = m.toarray()
    s = (m != 0).toarray() & present[:, None]  # s[r, c]: a term from row r to column c
    a, b = (d, x[:, None]) if transposed else (x[:, None], d)
    terms = {"times": a * b, "plus": a + b, "second": np.broadcast_to(b, d.shape),
             "first": np.broadcast_to(a, d.shape)}[mult]
    ident = {"plus": 0.0, "min": np.inf, "max": -np.inf}[add]
    ufunc = {"plus": np.add, "min": np.minimum, "max": np.maximum}[add]
    out = ufunc.reduce(np.where(s, terms, ident), axis=0)
    return out, s.any(axis=0)


@pytest.fixture()
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(multiply, "BY_COLUMNS_MIN_ENTRIES", 1)


@pytest.mark.parametrize("name", ["plus_times", "min_plus", "max_first", "plus_second", "min_second"])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("share", [1.0, 0.3, 0.01])
def test_products_from_own_rows_match_dense(small_threshold: None, name: str, transposed: bool,
                                            share: float) -> None:
    n = 60
    m = random_csr(n, 900, seed=1)
    A = gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=n, backend="numpy", copy=True)
    rng = np.random.default_rng(2)
    present = rng.random(n) < share
    present[0] = True
    x = rng.integers(-5, 6, n).astype(np.float64)
    u = gb.Vector.from_coo(np.flatnonzero(present), x[present], size=n, backend="numpy")
    sr = getattr(semiring, name)
    w = (A.T.mxv(u, sr) if transposed else u.vxm(A, sr)).new()
    assert A._T is None and A.memory_usage()["derived"] < m.data.nbytes  # no transpose was built
    add, mult = name.split("_")
    want, has = dense_product(m, x, present, add, mult, transposed)
    idx, vals = w.to_coo()
    assert idx.tolist() == np.flatnonzero(has).tolist()
    np.testing.assert_allclose(vals, want[has], rtol=1e-12)


def test_masked_positional_and_pushed_forms_agree_with_the_transpose(small_threshold: None) -> None:
    n = 50
    m = random_csr(n, 700, seed=3)
    A = gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=n, backend="numpy", copy=True)
    t = sps.csr_array(m.T)
    T = gb.Matrix.from_csr(t.indptr, t.indices, t.data, ncols=n, backend="numpy", copy=True)
    A_held = T._transposed()  # A again, its transpose (T) held: products walk T's rows as before
    assert A_held._T is not None
    u = gb.Vector.from_coo(np.arange(0, n, 3), np.arange(0, n, 3) * 1.5, size=n, backend="numpy")
    mask = gb.Vector.from_coo(np.arange(0, n, 2), np.ones(len(range(0, n, 2)), bool), size=n, backend="numpy")
    for sr in (semiring.min_secondi, semiring.max_secondi, semiring.plus_times, semiring.min_firsti):
        for method in ("pull", "push"):
            for m_ in (mask.S, ~mask.S):
                got = u.vxm(A, sr, method=method).new(mask=m_)
                assert got.isequal(u.vxm(A_held, sr, method=method).new(mask=m_)), (sr, method)
                got = A.T.mxv(u, sr, method=method).new(mask=m_)
                assert got.isequal(A_held.T.mxv(u, sr, method=method).new(mask=m_)), (sr, method)
    got = A.mxv(gb.Vector.from_coo([3, 7], [3, 7], size=n, dtype=INT64, backend="numpy"),
                semiring.min_second[INT64]).new()
    d = m.toarray() != 0
    want = {i: min(k for k in (3, 7) if d[i, k]) for i in range(n) if d[i, 3] or d[i, 7]}
    assert dict(zip(*(a.tolist() for a in got.to_coo()))) == want
    assert A._T is None


def traced(f: Any) -> tuple[Any, int]:
    """(result, peak bytes) of ``f()`` beyond what was held before."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        out = f()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return out, peak - base


@pytest.mark.parametrize("algorithm", ["pagerank", "connected_components", "sssp", "bfs_levels", "bfs_parents"])
def test_directed_peaks_need_no_transpose(algorithm: str) -> None:
    m = random_csr(1 << 16, 1 << 21, seed=13, dtype=np.float32)  # directed: about 2 M entries
    csr = m.indptr.nbytes + m.indices.nbytes + m.data.nbytes
    A = gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=m.shape[1], backend="numpy")
    run = {"pagerank": lambda: pagerank(A, tol=0, max_iter=5, weight=False),
           "connected_components": lambda: connected_components(A), "sssp": lambda: sssp(A, 0),
           "bfs_levels": lambda: bfs_levels(A, 0), "bfs_parents": lambda: bfs_parents(A, 0)}[algorithm]
    out, peak = traced(run)
    assert A._T is None and A.memory_usage()["derived"] < 0.1 * csr  # no transpose kept
    assert peak <= 1.5 * csr, f"{algorithm}: peak {peak / csr:.2f}x the CSR"
    if algorithm == "pagerank":  # the same as through a held transpose
        A._transposed()
        np.testing.assert_allclose(out.to_dense(), run().to_dense(), rtol=1e-9)
    elif algorithm == "connected_components":
        comp = sps.csgraph.connected_components(m, directed=True, connection="weak")[1].tolist()
        labels = out.to_dense().tolist()
        assert len(set(zip(labels, comp))) == len(set(labels)) == len(set(comp))
    elif algorithm == "sssp":  # distances from vertex 0, as scipy finds them
        want = sps.csgraph.shortest_path(m, indices=0)
        idx, vals = out.to_coo()
        assert idx.tolist() == np.flatnonzero(np.isfinite(want)).tolist()
        np.testing.assert_allclose(vals, want[idx])
    else:  # hop counts from vertex 0, as scipy finds them; a parent is one hop nearer, by an edge
        hops = sps.csgraph.shortest_path(m, unweighted=True, indices=0)
        idx, vals = out.to_coo()
        assert idx.tolist() == np.flatnonzero(np.isfinite(hops)).tolist()
        if algorithm == "bfs_levels":
            assert vals.tolist() == hops[idx].astype(np.int64).tolist()
        else:
            assert vals[idx == 0].tolist() == [0]  # the source is its own parent
            child, parent = idx[idx != 0], vals[idx != 0]
            assert (hops[parent] == hops[child] - 1).all()
            assert (m[parent, child] != 0).all()
