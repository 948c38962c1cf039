"""``u' A`` and ``A.T.mxv(u)`` on the GPU from A's own rows (no transpose built): results
against the NumPy backend's products and dense NumPy ones, a hub row shared among warps, int64
row pointers, and the GPU working memory of directed PageRank, connected components and SSSP
(CuPy's pool).  Skipped without a GPU."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sps
from conftest import cupy_pool_peak
from grblas_gpu.algorithms import bfs_levels, bfs_parents, connected_components, pagerank, sssp

import grblas_gpu as gb
from grblas_gpu import BOOL, FP32, FP64, INT64, semiring
from grblas_gpu.backends import gpu_available
from grblas_gpu.ops import multiply
from grblas_gpu.storage import wide_pointers

pytestmark = pytest.mark.skipif(not gpu_available(), reason="needs a GPU")


def _directed(n: int, nnz: int, seed: int, hub: int = 0) -> sps.csr_array:
    """A random directed CSR (int32 indices, values 1..9); ``hub`` extra entries in row 1 and
    column 2 (a row far longer than a warp's tile, a column many terms meet in)."""
    rng = np.random.default_rng(seed)
    rows = np.concatenate([rng.integers(0, n, nnz), np.full(hub, 1), rng.integers(0, n, hub)])
    cols = np.concatenate([rng.integers(0, n, nnz), rng.integers(0, n, hub), np.full(hub, 2)])
    m = sps.csr_array((rng.integers(1, 10, rows.size).astype(np.float64), (rows, cols)), shape=(n, n))
    m.sum_duplicates()
    m.sort_indices()
    return sps.csr_array((m.data, m.indices.astype(np.int32), m.indptr), shape=m.shape)


def _both(m: sps.csr_array, dtype: Any) -> tuple[gb.Matrix, gb.Matrix]:
    return tuple(gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=m.shape[1], dtype=dtype, backend=b,
                                    copy=True) for b in ("numpy", "cupy"))  # type: ignore[return-value]


def _vector(n: int, share: float, dtype: Any, backend: str, seed: int = 5) -> gb.Vector:
    rng = np.random.default_rng(seed)
    present = rng.random(n) < share
    present[3] = True
    x = rng.integers(-5, 6, n)
    idx = np.flatnonzero(present)
    return gb.Vector.from_coo(idx, x[idx], size=n, dtype=dtype, backend=backend)


@pytest.fixture()
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(multiply, "BY_COLUMNS_MIN_ENTRIES", 1)


def _same(got: gb.Vector, want: gb.Vector, exact: bool) -> None:
    gi, gv = got.to_coo()
    wi, wv = want.to_coo()
    np.testing.assert_array_equal(gi, wi)
    if exact:
        np.testing.assert_array_equal(gv, wv)
    else:
        np.testing.assert_allclose(gv, wv, rtol=1e-5)


CASES = [("plus_times", FP32, False), ("plus_times", FP64, False), ("plus_second", FP64, False),
         ("min_plus", FP32, True), ("min_plus", INT64, True), ("max_first", FP64, True), ("min_second", INT64, True),
         ("plus_times", INT64, True), ("max_plus", INT64, True), ("min_secondi", INT64, True),
         ("lor_land", BOOL, True)]


@pytest.mark.parametrize("name,dtype,exact", CASES)
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("share", [1.0, 0.3])
def test_products_from_own_rows_match_numpy(small_threshold: None, name: str, dtype: Any, exact: bool,
                                            transposed: bool, share: float) -> None:
    m = _directed(3000, 40_000, seed=1, hub=6000)
    A_np, A_gpu = _both(m, dtype)
    sr = getattr(semiring, name)
    out = []
    for A, backend in ((A_np, "numpy"), (A_gpu, "cupy")):
        u = _vector(m.shape[0], share, dtype, backend)
        w = A.T.mxv(u, sr, method="pull") if transposed else u.vxm(A, sr, method="pull")
        out.append(w.new())
    assert A_gpu._T is None and A_gpu.memory_usage()["derived"] < m.data.nbytes  # no transpose built
    _same(out[1], out[0], exact)


@pytest.mark.parametrize("complement", [False, True])
def test_masked_product_skips_columns(small_threshold: None, complement: bool) -> None:
    m = _directed(2000, 30_000, seed=2, hub=3000)
    A_np, A_gpu = _both(m, FP64)
    got = []
    for A, backend in ((A_np, "numpy"), (A_gpu, "cupy")):
        u = _vector(2000, 1.0, FP64, backend)
        mask = gb.Vector.from_coo(np.arange(0, 2000, 3), np.ones(667, bool), size=2000, backend=backend)
        got.append(u.vxm(A, semiring.min_plus, method="pull").new(mask=~mask.S if complement else mask.S))
    assert A_gpu._T is None
    _same(got[1], got[0], exact=True)


def test_dense_reference_and_wide_pointers(small_threshold: None) -> None:
    """Against a dense product, with int64 row pointers (as a matrix of 2**31 entries has)."""
    m = _directed(1500, 20_000, seed=3, hub=4000)
    x = np.random.default_rng(4).random(1500)
    want = x @ m.toarray()
    has = (m != 0).toarray().any(axis=0)
    with wide_pointers():
        A = gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=1500, backend="cupy", copy=True)
    assert A._indptr.dtype == np.int64
    u = gb.Vector.from_coo(np.arange(1500), x, size=1500, backend="cupy")
    idx, vals = u.vxm(A, semiring.plus_times, method="pull").new().to_coo()
    np.testing.assert_array_equal(idx, np.flatnonzero(has))
    np.testing.assert_allclose(vals, want[has], rtol=1e-12)
    assert A._T is None


@pytest.mark.parametrize("name", ["any_pair", "any_secondi", "any_firsti"])
def test_structural_pull_through_a_transpose_without_values(small_threshold: None, name: str) -> None:
    """An ANY pull stops at a row's first term: it goes through A', here one without values
    (BOOL, kept with A's derived forms), as do other products that never read A's values."""
    m = _directed(1000, 8000, seed=6)
    A_np, A = _both(m, FP32)
    sr = getattr(semiring, name)[INT64]
    got, want = (_vector(1000, 1.0, INT64, b).vxm(M, sr, method="pull").new() for b, M in
                 (("cupy", A), ("numpy", A_np)))
    assert A._T is None
    pattern = A._derived["pattern transpose"]
    assert pattern.dtype == BOOL and pattern.nvals == m.nnz
    held = A.memory_usage()["derived"]
    assert held < 0.85 * (m.indptr.nbytes + m.indices.nbytes + 4 * m.nnz)  # no values: rows and a byte an entry
    gi, gv = got.to_coo()
    wi, wv = want.to_coo()
    np.testing.assert_array_equal(gi, wi)
    if name == "any_secondi":  # the row k of some term: A[k, j] is stored
        dense = m.toarray() != 0
        assert all(dense[k, j] for j, k in zip(gi.tolist(), gv.tolist()))
    else:  # the same value whichever term is taken (1, or x's position 0)
        np.testing.assert_array_equal(gv, wv)


RUNS: dict[str, Callable[[gb.Matrix], Any]] = {
    "pagerank": lambda A: pagerank(A, tol=0, max_iter=5, weight=False),
    "connected_components": connected_components, "sssp": lambda A: sssp(A, 0)}


@pytest.mark.parametrize("algorithm", sorted(RUNS))
def test_directed_peaks_need_no_transpose(algorithm: str) -> None:
    m = _directed(1 << 16, 1 << 21, seed=13)  # directed: about 2 M entries
    m = sps.csr_array((m.data.astype(np.float32), m.indices, m.indptr.astype(np.int64)), shape=m.shape)
    csr = m.indptr.nbytes + m.indices.nbytes + m.data.nbytes
    A_np = gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=m.shape[1], backend="numpy", copy=True)
    A = gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=m.shape[1], backend="cupy", copy=True)
    RUNS[algorithm](A)  # kernels compiled (their modules are host memory)
    A.free_derived()
    with cupy_pool_peak() as peak:
        got = RUNS[algorithm](A)
    assert A._T is None, "a transpose was built"
    assert peak[0] <= 1.5 * csr, f"{algorithm}: peak {peak[0] / csr:.2f}x the CSR"
    want = RUNS[algorithm](A_np)
    if algorithm == "pagerank":
        np.testing.assert_allclose(got.to_dense(), want.to_dense(), rtol=1e-9, atol=1e-15)
    else:
        _same(got, want, exact=True)


def test_bfs_on_a_directed_graph() -> None:
    m = _directed(1 << 16, 1 << 21, seed=17)
    A_np, A = _both(m, FP32)
    csr = m.indptr.nbytes + m.indices.nbytes + 4 * m.nnz
    bfs_levels(A, 0)
    A.free_derived()
    with cupy_pool_peak() as peak:
        got = bfs_levels(A, 0)
    assert A._T is None and peak[0] <= 1.0 * csr, f"bfs peak {peak[0] / csr:.2f}x the CSR"
    want = bfs_levels(A_np, 0)
    _same(got, want, exact=True)
    parents = bfs_parents(A, 0)
    pi, pv = parents.to_coo()
    li, lv = want.to_coo()
    np.testing.assert_array_equal(pi, li)
    level = dict(zip(li.tolist(), lv.tolist()))
    for v, p in zip(pi.tolist()[1:200], pv.tolist()[1:200]):  # a parent one level up, with an edge to v
        assert level[p] == level[v] - 1 and m[p, v] != 0


def test_sums_that_ignore_the_values_pull_through_a_transpose_without_values(small_threshold: None) -> None:
    """``A.T.mxv(u, plus_second)`` (unweighted PageRank's product) goes through A' without values
    (a pull, as fast as through a held transpose); ``plus_times`` (weighted) from A's own rows."""
    m = _directed(2000, 30_000, seed=8, hub=3000)
    A_np, A = _both(m, FP64)
    for sr in (semiring.plus_second, semiring.plus_times):
        got, want = (M.T.mxv(_vector(2000, 1.0, FP64, b), sr).new() for b, M in (("cupy", A), ("numpy", A_np)))
        _same(got, want, exact=False)
        assert A._T is None
        assert (A._derived.get("pattern transpose") is not None) == (sr is semiring.plus_second)
        A.free_derived()
