"""The GPU transpose (a counting sort): results against scipy, and its peak memory from CuPy's
pool.  Skipped without a GPU."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sps
from conftest import cupy_pool_peak

import grblas_gpu as gb
from grblas_gpu.backends import gpu_available
from grblas_gpu.storage import wide_pointers

pytestmark = pytest.mark.skipif(not gpu_available(), reason="needs a GPU")


def _skewed(nrows: int, ncols: int, rng: np.random.Generator, dtype: str) -> sps.csr_matrix:
    """Random entries plus a few dense columns: short, medium (one block) and long (more
    than a block's 8192 keys) columns all occur."""
    m = rng.integers(0, nrows * ncols // 50 + 1)
    rows = np.concatenate([rng.integers(0, nrows, m), rng.integers(0, nrows, 40_000), rng.integers(0, nrows, 900)])
    cols = np.concatenate([rng.integers(0, ncols, m), np.full(40_000, 3), np.full(900, ncols - 1)])
    vals = rng.integers(1, 100, rows.size).astype(dtype)
    A = sps.coo_matrix((vals, (rows, cols)), shape=(nrows, ncols)).tocsr()
    A.sum_duplicates()
    A.sort_indices()
    return A


def _check(A: sps.csr_matrix, dtype: str) -> None:
    M = gb.Matrix.from_csr(A.indptr, A.indices, A.data, ncols=A.shape[1], dtype=dtype, backend="cupy")
    ptr, rows, vals = M.T.new().to_csr()
    want = A.T.tocsr()
    want.sort_indices()
    np.testing.assert_array_equal(ptr, want.indptr)
    np.testing.assert_array_equal(rows, want.indices)
    np.testing.assert_array_equal(vals, want.data)


@pytest.mark.parametrize("dtype", ["FP32", "FP64", "BOOL", "INT8", "INT16", "UINT64"])
def test_transpose_matches_scipy(dtype: str) -> None:
    rng = np.random.default_rng(7)
    np_type = {"FP32": "float32", "FP64": "float64", "BOOL": "bool", "INT8": "int8", "INT16": "int16",
               "UINT64": "uint64"}[dtype]
    _check(_skewed(50_000, 3_000, rng, np_type), dtype)


def test_transpose_rectangular_and_empty_columns() -> None:
    rng = np.random.default_rng(8)
    _check(_skewed(300, 70_000, rng, "float32"), "FP32")
    _check(sps.csr_matrix((5, 9), dtype=np.float32), "FP32")


def test_transpose_with_int64_pointers(monkeypatch: pytest.MonkeyPatch) -> None:
    from grblas_gpu.backends.cupy import transpose

    monkeypatch.setattr(transpose, "_PASS_BYTES", 50_000)  # the scatter in several column ranges
    rng = np.random.default_rng(9)
    A = _skewed(20_000, 2_000, rng, "float64")
    with wide_pointers():
        M = gb.Matrix.from_csr(A.indptr, A.indices, A.data, ncols=A.shape[1], dtype="FP64", backend="cupy")
        T = M.T.new()
    assert T._ptr.dtype == np.int64
    ptr, rows, vals = T.to_csr()
    want = A.T.tocsr()
    want.sort_indices()
    np.testing.assert_array_equal(ptr, want.indptr)
    np.testing.assert_array_equal(rows, want.indices)
    np.testing.assert_array_equal(vals, want.data)


_LENGTHS = (0, 1, 2, 3, 5, 16, 17, 31, 32, 33, 255, 256, 257, 1000, 4096, 8192, 8193, 20_000, 30_000)


def _every_tier(rng: np.random.Generator, dtype: str) -> sps.csr_matrix:
    """30,000 rows, columns of the lengths in ``_LENGTHS`` in turn (each tier's edges: a
    thread, a warp, a block, a batch), distinct random rows each."""
    nrows, ncols = 30_000, 3 * len(_LENGTHS)
    cols = [np.full(_LENGTHS[j % len(_LENGTHS)], j) for j in range(ncols)]
    rows = [rng.choice(nrows, size=c.size, replace=False) for c in cols]
    vals = rng.integers(-100, 100, sum(c.size for c in cols)).astype(dtype)
    A = sps.csr_matrix((vals, (np.concatenate(rows), np.concatenate(cols))), shape=(nrows, ncols))
    A.sort_indices()
    return A


@pytest.mark.parametrize("batch", [None, 9_000, 40_000])
@pytest.mark.parametrize(("dtype", "np_type"), [("FP32", "float32"), ("FP64", "float64"), ("INT8", "int8"),
                                                ("INT64", "int64")])
def test_every_column_length_and_batch(dtype: str, np_type: str, batch: int | None,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Values travel with their rows through every sort: per thread, warp, block and batch
    (several batches, a column longer than a batch alone, when the batch is small; then the
    scatter runs in many column ranges too)."""
    from grblas_gpu.backends.cupy import transpose

    if batch is not None:
        monkeypatch.setattr(transpose, "_BATCH", batch)
        monkeypatch.setattr(transpose, "_PASS_BYTES", 100_000)
        monkeypatch.setattr(transpose, "_MAX_PASSES", 1000)
    _check(_every_tier(np.random.default_rng(11), np_type), dtype)


def test_transpose_peak_is_its_output_and_column_sized_work() -> None:
    """The transpose of 4 M entries allocates its CSR and a few column-sized arrays, not a
    sorting permutation (8 bytes an entry) or int64 rows."""
    rng = np.random.default_rng(10)
    n, nnz = 1 << 18, 1 << 22
    A = sps.csr_matrix((rng.random(nnz, dtype=np.float32), (rng.integers(0, n, nnz), rng.integers(0, n, nnz))),
                       shape=(n, n))
    A.sum_duplicates()
    M = gb.Matrix.from_csr(A.indptr, A.indices, A.data, ncols=n, dtype="FP32", backend="cupy", symmetric=False)
    with cupy_pool_peak() as peak:
        T = M._transposed()
    out = T._ptr.nbytes + T._indices.nbytes + T._vals.nbytes
    assert peak[0] <= out + 4 * (n + 1) * 8, (peak[0], out)
