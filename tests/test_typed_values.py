"""Products whose semiring reads another type than the matrix stores (FP32, INT32 or BOOL values
under an FP64 semiring, FP64 values under an INT64 one): the kernels cast each value as they
read it, so the results equal SciPy's / NumPy's products of the cast values, and no cast copy
of the values is made or kept with the matrix (PageRank of an FP32 graph in FP64 included:
its at-rest bytes and its working memory, traced on the CPU and pooled on the GPU)."""

from __future__ import annotations

import gc
import shutil
import subprocess
import tracemalloc
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from conftest import cupy_pool_peak
from grblas_gpu.algorithms import pagerank

import grblas_gpu as gb
from grblas_gpu import semiring
from grblas_gpu.storage import MatrixStore

sps = pytest.importorskip("scipy.sparse")

SIZES = {"small": (300, 3_000), "merge": (1 << 14, 1 << 17), "binned": (1 << 16, 1 << 20)}
"""(vertices, entries) per size: one launch, merge-path tiles, rows binned by length on the GPU
(the larger two only there: the CPU's pull has one path)."""


def random_csr(n: int, nnz: int, seed: int, kind: str) -> Any:
    """A canonical SciPy CSR array (int32 indices) of ``kind`` values: FP32 with digits FP32
    sums would lose, INT32 beyond FP32's 24-bit mantissa, BOOL (True), or FP64 with fractions
    that a cast to an integer truncates (negative ones too)."""
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(0, n, nnz), rng.integers(0, n, nnz)
    vals: np.ndarray = {
        "FP32": lambda: rng.uniform(0.1, 10.0, nnz).astype(np.float32),
        "INT32": lambda: rng.integers(1 << 25, 1 << 30, nnz).astype(np.int32),
        "BOOL": lambda: np.ones(nnz, dtype=np.bool_),
        "FP64": lambda: rng.uniform(-9.9, 9.9, nnz),
    }[kind]()
    m = sps.coo_array((vals, (rows, cols)), shape=(n, n)).tocsr()
    m.sum_duplicates()  # (BOOL: logical or, still True)
    m.sort_indices()
    return sps.csr_array((m.data.astype(vals.dtype), m.indices.astype(np.int32), m.indptr), shape=m.shape)


def sizes(backend: str) -> list[str]:
    return list(SIZES) if backend == "cupy" else ["small"]


def as_cast(m: Any, t: Any) -> Any:
    """m's values as NumPy casts them to ``t`` (truncation toward zero from floats to integers)."""
    return sps.csr_array((m.data.astype(t), m.indices, m.indptr), shape=m.shape)


def matrix(m: Any, backend: str) -> gb.Matrix:
    return gb.Matrix.from_csr(m.indptr, m.indices, m.data, ncols=m.shape[1], backend=backend)


def kept_arrays(obj: Any, seen: set[int] | None = None) -> Iterator[Any]:
    """Every array reachable from ``obj`` (a Matrix's derived forms: dicts, tuples, records,
    a transpose's arrays and its own derived forms)."""
    seen = set() if seen is None else seen
    if id(obj) in seen or obj is None or isinstance(obj, (int, float, str, bool, bytes)):
        return
    seen.add(id(obj))
    if hasattr(obj, "dtype") and hasattr(obj, "size") and not hasattr(obj, "_store"):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from kept_arrays(v, seen)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from kept_arrays(v, seen)
    elif isinstance(getattr(obj, "_store", None), MatrixStore):
        st = obj._store
        yield from kept_arrays([*st.at_rest(), st.derived, st.transpose], seen)
    elif hasattr(obj, "__dataclass_fields__"):
        yield from kept_arrays([getattr(obj, f, None) for f in obj.__dataclass_fields__], seen)


def no_cast_copy(A: gb.Matrix, t: Any = np.float64) -> None:
    """No array of A's entries' count in the product's type ``t`` is kept with A (a cast copy
    of its values); free_derived leaves nothing."""
    st = A._store
    copies = [a for a in kept_arrays([st.derived, st.transpose]) if a.size == A.nvals and a.dtype == t]
    assert not copies, f"{len(copies)} cast copies of the values kept with the matrix"
    A.free_derived()
    assert A.memory_usage()["derived"] == 0


@pytest.mark.parametrize("kind", ["FP32", "INT32", "BOOL"])
@pytest.mark.parametrize("size", list(SIZES))
def test_fp64_pull_of_narrower_values(kind: str, size: str, backend: str) -> None:
    """``A x``, ``x' A`` and ``A' x`` over plus_times[FP64] from a full x: the FP64 products of
    the values (an FP32 product would miss the rtol by 1e5)."""
    if size not in sizes(backend):
        pytest.skip("one pull path on the CPU")
    n, nnz = SIZES[size]
    m = random_csr(n, nnz, seed=len(kind) + n, kind=kind)
    x = np.random.default_rng(7).uniform(0.5, 2.0, n)
    A, u = matrix(m, backend), gb.Vector.from_dense(x, backend=backend)
    want = as_cast(m, np.float64)
    rows, cols = np.flatnonzero(np.diff(m.indptr)), np.unique(m.indices)  # where a result has an entry
    sr = semiring.plus_times[gb.FP64]
    for got, ref, where in ((A.mxv(u, sr).new(), want @ x, rows), (u.vxm(A, sr).new(), x @ want, cols),
                            (A.T.mxv(u, sr).new(), want.T @ x, cols)):
        assert got.dtype == gb.FP64
        idx, vals = got.to_coo()
        assert idx.tolist() == where.tolist()
        np.testing.assert_allclose(vals, ref[idx], rtol=1e-12)
    no_cast_copy(A)


@pytest.mark.parametrize("size", list(SIZES))
def test_min_plus_fp64_of_fp32(size: str, backend: str) -> None:
    """min_plus[FP64] (binned rows on the GPU: no merge schedule for min) against dense NumPy."""
    if size not in sizes(backend):
        pytest.skip("one pull path on the CPU")
    n, nnz = SIZES[size]
    m = random_csr(n, nnz, seed=3, kind="FP32")
    x = np.random.default_rng(8).uniform(0.0, 1.0, n) * (1 + 2**-30)
    A, u = matrix(m, backend), gb.Vector.from_dense(x, backend=backend)
    got = A.mxv(u, semiring.min_plus[gb.FP64]).new()
    coo = m.tocoo()
    terms = coo.data.astype(np.float64) + x[coo.col]
    want = np.full(n, np.inf)
    np.minimum.at(want, coo.row, terms)
    idx, vals = got.to_coo()
    assert idx.tolist() == np.flatnonzero(np.isfinite(want)).tolist()
    np.testing.assert_array_equal(vals, want[idx])  # a min of exact FP64 sums: equal bit for bit
    no_cast_copy(A)


def test_int64_pull_truncates_fp64_values(backend: str) -> None:
    """plus_times[INT64] over FP64 values: each value truncated toward zero as it is read."""
    m = random_csr(300, 3_000, seed=5, kind="FP64")
    x = np.arange(300, dtype=np.int64) % 7 - 3
    A, u = matrix(m, backend), gb.Vector.from_dense(x, backend=backend)
    got = A.mxv(u, semiring.plus_times[gb.INT64]).new()
    want = as_cast(m, np.int64) @ x
    idx, vals = got.to_coo()
    assert got.dtype == gb.INT64
    np.testing.assert_array_equal(vals, want[idx])
    no_cast_copy(A, np.int64)


@pytest.mark.parametrize("kind", ["FP32", "INT32"])
def test_fp64_push_from_sparse_vector(kind: str, backend: str) -> None:
    """``u' A`` from a u of a few entries (the push on the GPU) and under a mask."""
    n = 4_000 if backend == "cupy" else 600
    m = random_csr(n, 40 * n, seed=11, kind=kind)
    rng = np.random.default_rng(12)
    rows = np.sort(rng.choice(n, 5, replace=False))
    vals = rng.uniform(0.5, 2.0, 5)
    A = matrix(m, backend)
    u = gb.Vector.from_coo(rows, vals, size=n, dtype=gb.FP64, backend=backend)
    got = u.vxm(A, semiring.plus_times[gb.FP64]).new()
    x = np.zeros(n)
    x[rows] = vals
    want = as_cast(m, np.float64)
    reached = np.unique(m[rows].indices)
    idx, out = got.to_coo()
    assert idx.tolist() == reached.tolist()
    np.testing.assert_allclose(out, (x @ want)[idx], rtol=1e-12)
    sr = semiring.min_plus[gb.FP64]
    got = u.vxm(A, sr).new()
    coo = m[rows].tocoo()
    best = np.full(n, np.inf)
    np.minimum.at(best, coo.col, coo.data.astype(np.float64) + vals[coo.row])
    idx, out = got.to_coo()
    np.testing.assert_array_equal(out, best[idx])
    no_cast_copy(A)


def test_fp64_mxm_of_fp32(backend: str) -> None:
    """``A B`` over plus_times[FP64], A FP32 and B FP64: SciPy's product of the cast values,
    and no cast of A kept with it."""
    a = random_csr(200, 2_000, seed=21, kind="FP32")
    b = random_csr(200, 2_000, seed=22, kind="FP64")
    A, B = matrix(a, backend), matrix(b, backend)
    got = A.mxm(B, semiring.plus_times[gb.FP64]).new()
    want = (as_cast(a, np.float64) @ b).toarray()
    r, c, v = got.to_coo()
    assert got.dtype == gb.FP64 and len(v) == np.count_nonzero((sps.csr_array(a != 0).astype(int) @ (b != 0)).toarray())
    np.testing.assert_allclose(v, want[r, c], rtol=1e-12)
    no_cast_copy(A)


def test_pagerank_fp32_graph_in_fp64(backend: str) -> None:
    """PageRank of a weighted FP32 graph computed in FP64 (the default): networkx's values on the
    same weights, to FP64 accuracy; nothing of an FP64 copy of the weights kept with the graph."""
    nx = pytest.importorskip("networkx")
    m = random_csr(400, 4_000, seed=31, kind="FP32")
    G = nx.from_scipy_sparse_array(m.astype(np.float64), create_using=nx.DiGraph)
    A = matrix(m, backend)
    got = pagerank(A, tol=1e-13, max_iter=500)
    want = nx.pagerank(G, tol=1e-13, max_iter=500)
    assert got.dtype == gb.FP64
    np.testing.assert_allclose(got.to_dense(), [want[v] for v in range(400)], rtol=1e-9, atol=0)
    no_cast_copy(A)


def _traced(f: Any) -> tuple[Any, int]:
    """(result, peak traced bytes beyond what was held before) of ``f()``; tracing must be on."""
    gc.collect()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    out = f()
    return out, tracemalloc.get_traced_memory()[1] - base


def test_pagerank_fp64_of_fp32_memory_cpu() -> None:
    """CPU (tracemalloc): weighted PageRank in FP64 of an FP32 graph (about 1 M entries, directed)
    leaves the matrix within 1.1x its CSR and peaks within 1.5x the CSR beyond it; an FP64 copy
    of the weights alone would be 0.9x the CSR."""
    m = random_csr(1 << 14, 1 << 20, seed=41, kind="FP32")
    csr = m.indptr.nbytes + m.indices.nbytes + m.data.nbytes
    tracemalloc.start()
    try:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        A = matrix(m, "numpy")
        del m
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
        assert held <= 1.1 * csr
        _, peak = _traced(lambda: pagerank(A, tol=0, max_iter=5))
        gc.collect()
        after = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert A.nbytes <= 1.1 * csr, A.memory_usage()
    assert after <= 1.1 * csr, f"{after / csr:.2f}x the CSR held after PageRank"
    assert peak <= 1.5 * csr, f"peak {peak / csr:.2f}x the CSR beyond the matrix"
    assert A.memory_usage()["derived"] < 0.25 * A.nvals * 8  # no FP64 copy (8 bytes an entry)


def test_pagerank_fp64_of_fp32_memory_gpu() -> None:
    """GPU (the CuPy pool): as on the CPU, the matrix held within 1.1x its CSR after PageRank,
    the peak beyond it within 1.5x (a graph of 2 M entries)."""
    from grblas_gpu.backends import gpu_available

    if not gpu_available():
        pytest.skip("no GPU")
    m = random_csr(1 << 16, 1 << 21, seed=42, kind="FP32")
    csr = m.indptr.nbytes + m.indices.nbytes + m.data.nbytes
    A = matrix(m, "cupy")
    pagerank(A, tol=0, max_iter=2)  # kernels compiled, then from the matrix at rest
    A.free_derived()
    with cupy_pool_peak() as peak:
        pagerank(A, tol=0, max_iter=5)
    assert A.nbytes <= 1.1 * csr, A.memory_usage()
    assert peak[0] <= 1.5 * csr, f"peak {peak[0] / csr:.2f}x the CSR beyond the matrix"
    assert A.memory_usage()["derived"] < 0.25 * A.nvals * 8


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc (the CUDA compiler) is not on PATH")
def test_mixed_type_kernels_compile_with_nvcc(tmp_path: Any) -> None:
    """The matrix-vector kernels made for values stored in another type than the product reads
    (the kernel registry lists same-type ones): pull by rows (both schedules), push, pull by
    columns and the frontier loop, for float, integer and BOOL values, compile with nvcc."""
    from grblas_gpu.backends.cupy import codegen, columns_codegen, loop_codegen

    modules = {}
    for sr, stored in ((semiring.plus_times[gb.FP64], gb.FP32), (semiring.plus_times[gb.FP64], gb.BOOL),
                       (semiring.plus_times[gb.INT64], gb.FP64), (semiring.min_plus[gb.FP64], gb.INT32)):
        made = [codegen.spmv_module(sr, "int32", False, "vector", "int64", stored),
                codegen.spmspv_module(sr, "int32", False, "int32", stored),
                columns_codegen.columns_module(sr, "int32", False, "int32", stored)]
        if codegen.merge_schedule_applies(sr):
            made.append(codegen.spmv_module(sr, "int32", False, "merge", "int64", stored))
        if loop_codegen.loop_supported(sr, False, False):
            made.append(loop_codegen.loop_module(sr, "int32", False, "int32", stored))
        modules.update((m.digest, m) for m in made)
    unit = tmp_path / "mixed.cu"
    unit.write_text(codegen.preamble() + "\n" + "\n".join(m.body for m in modules.values()))
    done = subprocess.run(["nvcc", "-arch=sm_90", "-std=c++17", "-w", "-ptx", str(unit), "-o", str(tmp_path / "m.ptx")],
                          check=False, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
