"""Matrix storage: construction from CSR (validated, sorted where needed, shared or copied),
exports, derived forms and their bytes, symmetry, int64 row pointers, DLPack, and the
CPU backend's memory at rest and at the peaks of the graph algorithms (tracemalloc)."""

from __future__ import annotations

import gc
import tracemalloc
from typing import Any

import numpy as np
import pytest
from grblas_gpu.algorithms import bfs_levels, connected_components, pagerank, sssp

import grblas_gpu as gb
from grblas_gpu import binary, semiring
from grblas_gpu.exceptions import DimensionMismatch, IndexOutOfBound, InvalidValue, NoValue
from grblas_gpu.storage import wide_pointers

sps = pytest.importorskip("scipy.sparse")


def random_csr(n: int, nnz: int, seed: int = 0, symmetric: bool = False, dtype: Any = np.float32) -> Any:
    """A canonical SciPy CSR array with about ``nnz`` entries (int32 indices)."""
    rng = np.random.default_rng(seed)
    r, c = rng.integers(0, n, nnz), rng.integers(0, n, nnz)
    v = rng.integers(1, 10, nnz).astype(dtype)
    m = sps.csr_array((v, (r, c)), shape=(n, n))
    if symmetric:
        m = m + m.T
    m = sps.csr_array(m)
    m.sum_duplicates()
    m.sort_indices()
    return sps.csr_array((m.data, m.indices.astype(np.int32), m.indptr.astype(np.int32)), shape=m.shape)


def entries(A: gb.Matrix) -> dict[tuple[int, int], Any]:
    r, c, v = A.to_coo()
    return dict(zip(zip(r.tolist(), c.tolist()), v.tolist()))


def scipy_entries(m: Any) -> dict[tuple[int, int], Any]:
    c = sps.coo_array(m)
    return dict(zip(zip(c.row.tolist(), c.col.tolist()), c.data.tolist()))


# ----------------------------------------------------------------------------- from_csr


def test_sorted_csr_is_shared_and_frozen() -> None:
    m = random_csr(50, 300)
    ptr, idx, vals = m.indptr.copy(), m.indices.copy(), m.data.copy()
    A = gb.Matrix.from_csr(ptr, idx, vals, ncols=50, backend="numpy")
    assert A.memory_usage()["shared"]
    assert np.shares_memory(A._indices, idx) and np.shares_memory(A._vals, vals)
    # The caller's arrays are read-only now: a write raises rather than changing A silently.
    for a in (ptr, idx, vals):
        assert not a.flags.writeable
    with pytest.raises(ValueError):
        vals[0] = 100.0
    with pytest.raises(ValueError):
        idx[0] = 3
    assert entries(A) == scipy_entries(m)


def test_copy_true_leaves_the_callers_arrays_alone() -> None:
    m = random_csr(50, 300)
    ptr, idx, vals = m.indptr.copy(), m.indices.copy(), m.data.copy()
    A = gb.Matrix.from_csr(ptr, idx, vals, ncols=50, backend="numpy", copy=True)
    assert not A.memory_usage()["shared"]
    assert all(a.flags.writeable for a in (ptr, idx, vals))
    vals[:] = -1.0
    idx[:] = 0
    assert entries(A) == scipy_entries(m)


def test_a_view_is_shared_with_its_base_frozen() -> None:
    m = random_csr(40, 200)
    store = np.concatenate([m.data, [0.0]]).astype(np.float32)
    vals = store[:-1]  # a view: its base is frozen too, or writes through it would go unseen
    A = gb.Matrix.from_csr(m.indptr.copy(), m.indices.copy(), vals, ncols=40, backend="numpy")
    assert np.shares_memory(A._vals, store)
    with pytest.raises(ValueError):
        store[0] = 7.0
    assert entries(A) == scipy_entries(m)


def test_memory_of_a_writeable_buffer_is_copied() -> None:
    m = random_csr(40, 200)
    buf = bytearray(m.data.tobytes())
    vals = np.frombuffer(buf, dtype=np.float32)  # writeable through ``buf``, which NumPy cannot freeze
    A = gb.Matrix.from_csr(m.indptr.copy(), m.indices.copy(), vals, ncols=40, backend="numpy")
    assert not np.shares_memory(A._vals, vals)
    buf[:4] = np.float32(99.0).tobytes()
    assert entries(A) == scipy_entries(m)


def test_other_types_are_converted_not_shared() -> None:
    m = random_csr(40, 200)
    idx64 = m.indices.astype(np.int64)
    A = gb.Matrix.from_csr(m.indptr.astype(np.int64), idx64, m.data.astype(np.float64), ncols=40,
                           dtype="FP32", backend="numpy")
    assert A._indices.dtype == np.int32 and A._vals.dtype == np.float32
    assert idx64.flags.writeable and not np.shares_memory(A._indices, idx64)
    assert entries(A) == scipy_entries(m)


def test_unsorted_rows_are_sorted_in_a_copy() -> None:
    m = random_csr(30, 200, seed=3)
    rng = np.random.default_rng(3)
    idx, vals = m.indices.copy(), m.data.copy()
    for r in rng.choice(30, 10, replace=False):  # shuffle ten rows
        lo, hi = m.indptr[r], m.indptr[r + 1]
        perm = lo + rng.permutation(hi - lo)
        idx[lo:hi], vals[lo:hi] = idx[perm], vals[perm]
    before = (idx.copy(), vals.copy())
    A = gb.Matrix.from_csr(m.indptr.copy(), idx, vals, ncols=30, backend="numpy")
    assert entries(A) == scipy_entries(m)
    ptr, cols, _ = A.to_csr()
    for r in range(30):
        assert np.all(np.diff(cols[ptr[r]:ptr[r + 1]]) > 0)
    np.testing.assert_array_equal(idx, before[0])  # the caller's arrays were not reordered
    np.testing.assert_array_equal(vals, before[1])


@pytest.mark.parametrize("idx", [[1, 1, 0], [0, 2, 2], [2, 0, 2]])
def test_duplicates_rejected(idx: list[int]) -> None:
    with pytest.raises(InvalidValue, match="duplicate"):
        gb.Matrix.from_csr(np.array([0, 3, 3]), np.array(idx), 1.0, ncols=3, backend="numpy")


@pytest.mark.parametrize("ptr, idx, exc", [
    ([1, 2, 3], [0, 1], InvalidValue),        # does not start at 0
    ([0, 2, 1], [0, 1], InvalidValue),        # decreases
    ([0, 1, 3], [0, 1], DimensionMismatch),   # ends past the indices
    ([0, 1, 1], [0, 1], DimensionMismatch),   # ends before them
    ([], [], InvalidValue),                   # no pointers at all
    ([0, 1, 2], [0, 5], IndexOutOfBound),     # column past ncols
    ([0, 1, 2], [-1, 0], IndexOutOfBound),    # negative column
])
def test_invalid_csr_rejected(ptr: list[int], idx: list[int], exc: type) -> None:
    with pytest.raises(exc):
        gb.Matrix.from_csr(np.array(ptr, dtype=np.int64), np.array(idx, dtype=np.int64), 1.0, ncols=3,
                           backend="numpy")


def test_rejected_input_is_not_frozen() -> None:
    ptr, idx = np.array([0, 2, 2]), np.array([1, 1], dtype=np.int32)
    with pytest.raises(InvalidValue):
        gb.Matrix.from_csr(ptr, idx, 1.0, ncols=3, backend="numpy")
    assert ptr.flags.writeable and idx.flags.writeable


def test_from_csc_matches_scipy(backend: str) -> None:
    m = random_csr(40, 300, seed=5)
    csc = sps.csc_array(m)
    A = gb.Matrix.from_csc(csc.indptr, csc.indices, csc.data, nrows=40, backend=backend)
    assert entries(A) == scipy_entries(m)


def test_from_coo_one_sort_keeps_duplicate_order(backend: str) -> None:
    xp = np
    if backend == "cupy":  # device input: sorted on the device (one radix sort of packed keys)
        import cupy as xp
    rows, cols = xp.asarray([2, 0, 2, 1, 0, 2]), xp.asarray([1, 3, 1, 0, 3, 1])
    vals = xp.asarray([10, 20, 30, 40, 50, 60])
    first = gb.Matrix.from_coo(rows, cols, vals, 3, 4, dup_op=binary.first, backend=backend)
    second = gb.Matrix.from_coo(rows, cols, vals, 3, 4, dup_op=binary.second, backend=backend)
    assert entries(first) == {(0, 3): 20, (1, 0): 40, (2, 1): 10}
    assert entries(second) == {(0, 3): 50, (1, 0): 40, (2, 1): 60}


# ----------------------------------------------------------------------------- exports


def test_to_csr_shares_read_only_views() -> None:
    m = random_csr(30, 150)
    A = gb.Matrix.from_coo(*sps.find(m)[:2], sps.find(m)[2], 30, 30, backend="numpy")
    ptr, idx, vals = A.to_csr()
    assert np.shares_memory(idx, A._indices) and np.shares_memory(vals, A._vals)
    with pytest.raises(ValueError):
        vals[0] = 1.0
    p64, i64, v = A.to_csr(copy=True)
    assert p64.dtype == i64.dtype == np.int64 and v.flags.writeable and not np.shares_memory(v, A._vals)
    v[:] = 0
    assert entries(A) == scipy_entries(m)
    # What to_csr hands out goes back in without a copy.
    B = gb.Matrix.from_csr(ptr, idx, vals, ncols=30, backend="numpy")
    assert B._vals is vals and B.isequal(A, check_dtype=True)


# ----------------------------------------------------------------------------- derived forms


def test_at_rest_holds_the_csr_only() -> None:
    m = random_csr(100, 1000)
    A = gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=100, backend="numpy", copy=True)
    use = A.memory_usage()
    assert use["derived"] == 0 and A.nbytes == use["at_rest"]
    assert use["at_rest"] == A._ptr.nbytes + A._indices.nbytes + A._vals.nbytes
    assert use["at_rest"] <= m.indptr.nbytes + m.indices.nbytes + m.data.nbytes


def test_free_derived_drops_the_transpose_and_its_bytes(backend: str) -> None:
    m = random_csr(60, 400, seed=9)  # not symmetric
    A = gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=60, backend=backend, copy=True)
    rest = A.memory_usage()["at_rest"]
    T = A.T.new()
    assert entries(T) == scipy_entries(m.T)
    assert A._T is not None and not A.is_symmetric
    A.mxv(gb.Vector.from_scalar(1.0, 60, "FP64", backend=backend), semiring.plus_times["FP64"]).new()
    derived = A.memory_usage()["derived"]
    assert derived >= A._T.memory_usage()["at_rest"] > 0
    assert A.nbytes == rest + derived
    A.free_derived()
    assert A._T is None and A.memory_usage()["derived"] == 0 and A.nbytes == rest
    assert A.T.new().isequal(T)  # built again on need


def test_hypersparse_row_pointers_are_derived() -> None:
    A = gb.Matrix.from_coo([5, 10**7], [1, 2], [1.0, 2.0], 10**7 + 1, 3, backend="numpy")
    assert A._ptr is None and A.memory_usage()["derived"] == 0
    A._indptr  # noqa: B018 - the read derives the row pointers
    assert A.memory_usage()["derived"] == A._ptr.nbytes
    A.free_derived()
    assert A._ptr is None and entries(A) == {(5, 1): 1.0, (10**7, 2): 2.0}


def test_declared_symmetric_is_its_own_transpose(backend: str) -> None:
    m = random_csr(50, 300, symmetric=True)
    A = gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=50, backend=backend, copy=True, symmetric=True)
    assert A.is_symmetric and A._transposed() is A and A._T is A
    assert entries(A.T.new()) == scipy_entries(m)
    assert A.memory_usage()["derived"] == 0


def test_symmetry_found_once_keeps_no_transpose(backend: str) -> None:
    m = random_csr(50, 300, symmetric=True)
    A = gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=50, backend=backend, copy=True)
    assert A._store.symmetric is None
    u = gb.Vector.from_coo([0, 3], [1.0, 1.0], size=50, backend=backend)
    got = u.vxm(A, semiring.plus_times).new()  # a pull of u' A wants A'
    assert A.is_symmetric and A._transposed() is A and A._store.transpose is None
    expected = np.asarray(m.T @ u.to_dense(0.0))
    np.testing.assert_allclose(got.to_dense(0.0), expected)
    B = gb.Matrix.from_csr(m.indptr, m.indices, m.data * 1, ncols=50, backend=backend)
    B[0, 1] = 1000.0  # a change forgets what was known
    assert not B.is_symmetric


def test_from_coo_large_matches_scipy(backend: str) -> None:
    rng = np.random.default_rng(4)
    n, nnz = 3000, 200_000  # past the size sorted on the host
    r, c = rng.integers(0, n, nnz), rng.integers(0, 2 * n, nnz)
    v = rng.standard_normal(nnz)
    A = gb.Matrix.from_coo(r, c, v, n, 2 * n, dup_op=binary.plus, backend=backend)
    ref = sps.csr_array((v, (r, c)), shape=(n, 2 * n))
    ref.sum_duplicates()
    ptr, idx, vals = A.to_csr()
    np.testing.assert_array_equal(ptr, ref.indptr)
    np.testing.assert_array_equal(idx, ref.indices)
    np.testing.assert_allclose(vals, ref.data, rtol=1e-12)


def test_memory_usage_counts_plans_and_cast_values(backend: str) -> None:
    m = random_csr(200, 2000, seed=8)
    A = gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=200, backend=backend, copy=True)
    x = gb.Vector.from_scalar(1.0, 200, "FP64", backend=backend)
    for _ in range(2):
        A.mxv(x, semiring.plus_times["FP64"]).new()
    derived = A.memory_usage()["derived"]
    assert 0 < derived < 10 * A.memory_usage()["at_rest"]
    A.free_derived()
    assert A.memory_usage()["derived"] == 0 and not A._derived


def test_symmetric_needs_a_square_matrix() -> None:
    with pytest.raises(DimensionMismatch):
        gb.Matrix.from_coo([0], [1], 1.0, 2, 3, symmetric=True, backend="numpy")


# ----------------------------------------------------------------------------- int64 pointers


def test_int64_pointers_are_kept_and_operations_agree(backend: str) -> None:
    m = random_csr(80, 600, seed=2)
    A = gb.Matrix.from_csr(m.indptr.astype(np.int64), m.indices, m.data, ncols=80, backend=backend)
    if backend == "numpy":  # held as given (on the GPU the copy made there takes the narrowest type)
        assert A._ptr.dtype == np.int64
    with wide_pointers():
        B = gb.Matrix.from_coo(*sps.find(m), 80, 80, backend=backend)
        assert B._ptr.dtype == np.int64
        T = B.T.new()
        assert T._ptr.dtype == np.int64 and entries(T) == scipy_entries(m.T)
        x = np.arange(80, dtype=np.float32)
        u = gb.Vector.from_dense(x, backend=backend)
        for M in (A, B):
            np.testing.assert_allclose(M.mxv(u, semiring.plus_times).new().to_dense(0.0), m @ x, rtol=1e-5)
            np.testing.assert_allclose(u.vxm(M, semiring.plus_times).new().to_dense(0.0), m.T @ x, rtol=1e-5)
            rows = M.reduce_rowwise("plus").new()
            np.testing.assert_allclose(rows.to_dense(0.0), np.asarray(m.sum(axis=1)).ravel(), rtol=1e-5)
        C = gb.Matrix.from_csr(m.indptr.astype(np.int32), m.indices, m.data, ncols=80, backend=backend)
        assert C._ptr.dtype == np.int64
        assert C.isequal(B) and entries(bfs_levels_matrix(C)) == entries(bfs_levels_matrix(B))


def bfs_levels_matrix(A: gb.Matrix) -> gb.Matrix:
    """BFS levels from vertex 0 as a one-row Matrix (to compare through ``entries``)."""
    v = bfs_levels(A, 0)
    i, x = v.to_coo()
    return gb.Matrix.from_coo(np.zeros_like(i), i, x, 1, A.ncols, backend="numpy")


# ----------------------------------------------------------------------------- DLPack


def test_dlpack_round_trip_shares_memory() -> None:
    a = np.arange(6, dtype=np.float32)
    v = gb.Vector.from_dlpack(a)
    assert v.backend == "numpy" and v.dtype == gb.dtypes.FP32 and v.nvals == 6
    assert np.shares_memory(v._bitmap()[1], a)
    b = np.from_dlpack(v)
    assert np.shares_memory(b, a) and v.__dlpack_device__() == (1, 0)
    # The library never writes the producer's memory: updates make new arrays.
    v(binary.plus) << gb.Vector.from_scalar(1.0, 6, "FP32", backend="numpy")
    v << v.apply(binary.times, right=2.0)
    np.testing.assert_array_equal(a, np.arange(6, dtype=np.float32))
    np.testing.assert_array_equal(v.to_dense(), (np.arange(6) + 1) * 2)


def test_dlpack_copy_and_cast() -> None:
    a = np.arange(4, dtype=np.int32)
    v = gb.Vector.from_dlpack(a, dtype="FP64")
    assert v.dtype == gb.dtypes.FP64 and not np.shares_memory(v._bitmap()[1], a)
    w = gb.Vector.from_dlpack(a, copy=True)
    assert not np.shares_memory(w._bitmap()[1], a)
    with pytest.raises(DimensionMismatch):
        gb.Vector.from_dlpack(np.zeros((2, 2)))


def test_dlpack_export_needs_a_full_vector() -> None:
    v = gb.Vector.from_coo([1], [2.0], size=3, backend="numpy")
    with pytest.raises(NoValue):
        np.from_dlpack(v)


def test_dlpack_torch() -> None:
    torch = pytest.importorskip("torch")
    t = torch.arange(5, dtype=torch.float64)
    v = gb.Vector.from_dlpack(t)
    assert v.to_dense().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    back = torch.from_dlpack(v)
    assert back.tolist() == t.tolist()


@pytest.mark.gpu
@pytest.mark.skipif(not gb.backends.gpu_available(), reason="needs CuPy and a CUDA GPU")
def test_dlpack_cupy() -> None:
    import cupy

    a = cupy.arange(5, dtype=cupy.float32)
    v = gb.Vector.from_dlpack(a)
    assert v.backend == "cupy" and v.__dlpack_device__()[0] == 2
    b = cupy.from_dlpack(v)
    assert cupy.shares_memory(a, b)
    w = gb.Vector.from_dlpack(a, backend="numpy")
    assert w.to_dense().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


# ----------------------------------------------------------------------------- CPU memory


def traced(f: Any) -> tuple[Any, int, int]:
    """(result, bytes still held, peak bytes) of ``f()`` beyond what was held before."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        out = f()
        cur, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return out, cur - base, peak - base


@pytest.fixture(scope="module")
def graph() -> Any:
    """A symmetric random graph of about 2 M entries (its CSR about 16 MiB)."""
    return random_csr(1 << 16, 1 << 20, seed=11, symmetric=True)


def test_matrix_at_rest_is_its_csr(graph: Any) -> None:
    m = graph
    csr = m.indptr.nbytes + m.indices.nbytes + m.data.nbytes
    _A, held, peak = traced(lambda: gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=m.shape[1],
                                                      backend="numpy", copy=True))
    assert held <= 1.1 * csr and peak <= 1.2 * csr
    _, held, peak = traced(lambda: gb.Matrix.from_csr(m.indptr.copy(), m.indices.copy(), m.data.copy(),
                                                      ncols=m.shape[1], backend="numpy"))
    assert held <= 1.1 * csr  # the copies made here are held, shared


@pytest.mark.parametrize("algorithm", ["bfs_levels", "sssp", "pagerank", "connected_components"])
def test_algorithm_peaks_beyond_the_matrix(graph: Any, algorithm: str) -> None:
    m = graph
    csr = m.indptr.nbytes + m.indices.nbytes + m.data.nbytes
    A = gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=m.shape[1], backend="numpy", symmetric=True)
    run = {"bfs_levels": lambda: bfs_levels(A, 0), "sssp": lambda: sssp(A, 0),
           "pagerank": lambda: pagerank(A), "connected_components": lambda: connected_components(A)}[algorithm]
    out, _held, peak = traced(run)
    assert out.size == m.shape[0]
    assert peak <= 1.5 * csr, f"{algorithm}: peak {peak / csr:.2f}x the CSR"
    del out
    A.free_derived()
    assert A.memory_usage()["derived"] == 0


def test_transpose_of_transpose_is_the_matrix_not_a_copy() -> None:
    m = random_csr(40, 300, seed=12)
    A = gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=40, backend="numpy", copy=True)
    T = A._transposed()
    back = T._transposed()
    assert back._indices is A._indices and back._vals is A._vals
    before = entries(A)
    A[0, 0] = 123.0  # A changes; the link keeps the entries T was made from
    assert entries(back) == before and entries(T) == scipy_entries(m.T)
    assert A._T is None  # and A's own transpose is gone with its old arrays


def test_from_csc_reads_the_callers_arrays_without_freezing() -> None:
    m = sps.csc_array(random_csr(30, 200, seed=14))
    ptr, idx, vals = m.indptr.copy(), m.indices.copy(), m.data.copy()
    A = gb.Matrix.from_csc(ptr, idx, vals, nrows=30, backend="numpy")
    assert all(a.flags.writeable for a in (ptr, idx, vals)) and not A.memory_usage()["shared"]
    vals[:] = 0.0
    assert entries(A) == scipy_entries(m)
