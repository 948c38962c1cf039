"""More than 2**31 entries on the GPU: a 2.28 G-entry matrix built directly as CSR (int64 row
pointers, int32 columns, BOOL values), checked by invariants of its known structure.  Skipped
without a GPU or with less than 40 GB of free device memory (it needs about 30)."""

from __future__ import annotations

import numpy as np
import pytest

import grblas_gpu as gb
from grblas_gpu.backends import gpu_available

SCALE = 26
N = 1 << SCALE
# Row i holds the columns (i + o) mod N for every offset o: a circulant graph, symmetric since
# -o is an offset too, whose BFS levels are few (each base-4 digit of a distance takes at
# most two steps of +-4**k).
OFFSETS = sorted({s * 4**k for k in range(13) for s in (1, -1)} | {s * 3 * 4**k for k in range(4) for s in (1, -1)})
DEGREE = len(OFFSETS)  # 34: N * 34 = 2,281,701,376 entries


def _free_bytes() -> int:
    import cupy

    return int(cupy.cuda.Device().mem_info[0])


pytestmark = [pytest.mark.skipif(not gpu_available(), reason="needs a GPU"),
              pytest.mark.skipif(gpu_available() and _free_bytes() < 40 << 30,
                                 reason="needs 40 GB of free GPU memory")]

_ROWS = r"""
extern "C" __global__ void circulant_rows(const long long* offsets, int degree, long long n, int* cols) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v[64];
    for (int k = 0; k < degree; ++k) {
        int c = (int)(((i + offsets[k]) % n + n) % n);
        int j = k;
        while (j > 0 && v[j - 1] > c) { v[j] = v[j - 1]; --j; }
        v[j] = c;
    }
    for (int k = 0; k < degree; ++k) cols[i * degree + k] = v[k];
}
"""


@pytest.fixture(scope="module")
def circulant():  # type: ignore[no-untyped-def]
    """(Matrix declared symmetric, its CuPy arrays)."""
    import cupy

    offsets = cupy.asarray(np.array(OFFSETS, dtype=np.int64))
    cols = cupy.empty(N * DEGREE, dtype=np.int32)
    kernel = cupy.RawKernel(_ROWS, "circulant_rows")
    kernel(((N + 255) // 256,), (256,), (offsets, np.int32(DEGREE), np.int64(N), cols))
    ptr = cupy.arange(N + 1, dtype=np.int64) * DEGREE
    vals = cupy.ones(N * DEGREE, dtype=bool)
    A = gb.Matrix.from_csr(ptr, cols, vals, ncols=N, dtype="BOOL", backend="cupy", copy=False, symmetric=True)
    yield A, (ptr, cols, vals)
    del A
    cupy.get_default_memory_pool().free_all_blocks()


def _shift(x, o: int):  # type: ignore[no-untyped-def]
    """x[(i + o) mod N] for every i."""
    import cupy

    return cupy.roll(x, -o)


def test_stores_int64_pointers_and_every_entry(circulant) -> None:  # type: ignore[no-untyped-def]
    A, _ = circulant
    assert A.nvals == N * DEGREE > 2**31
    assert A._ptr.dtype == np.int64 and A._indices.dtype == np.int32


def test_transpose_past_2_31(circulant) -> None:  # type: ignore[no-untyped-def]
    """The transpose of a symmetric pattern is itself: built (not declared) through the
    counting sort, its arrays equal the matrix's."""
    import cupy

    _, (ptr, cols, vals) = circulant
    B = gb.Matrix.from_csr(ptr, cols, vals, ncols=N, dtype="BOOL", backend="cupy", copy=False, symmetric=False)
    T = B._transposed()
    assert bool(cupy.array_equal(T._ptr, ptr)) and bool(cupy.array_equal(T._indices, cols))
    assert bool(T._vals.all())
    del T, B


def test_mxv_and_reduce_past_2_31(circulant) -> None:  # type: ignore[no-untyped-def]
    import cupy

    A, _ = circulant
    x = gb.Vector.from_coo(np.arange(N), np.arange(N), size=N, dtype="INT64", backend="cupy")
    idx, got = A.mxv(x, gb.semiring.plus_second["INT64"]).new().to_coo()
    assert idx.size == N
    i = cupy.arange(N, dtype=np.int64)
    want = sum(((i + o) % N) for o in OFFSETS)
    assert bool(cupy.array_equal(cupy.asarray(got), want))
    assert A.reduce_scalar(gb.monoid.plus["INT64"]).new().value == N * DEGREE
    idx, deg = A.reduce_rowwise(gb.monoid.plus["INT64"]).new().to_coo()
    assert idx.size == N and int(np.min(deg)) == int(np.max(deg)) == DEGREE


def test_bfs_levels_past_2_31(circulant) -> None:  # type: ignore[no-untyped-def]
    """Every vertex reached; along every edge levels differ by at most one; every vertex but
    the source has a neighbour one level nearer."""
    import cupy
    from grblas_gpu.algorithms import bfs_levels

    A, _ = circulant
    idx, lv = bfs_levels(A, 0).to_coo()
    assert idx.size == N
    level = cupy.asarray(lv)
    assert int(level[0]) == 0 and int((level == 0).sum()) == 1
    nearest = cupy.full(N, np.iinfo(np.int64).max, dtype=np.int64)
    for o in OFFSETS:
        other = _shift(level, o)
        assert int(cupy.abs(other - level).max()) <= 1
        cupy.minimum(nearest, other, out=nearest)
    assert bool(((nearest == level - 1) | (level == 0)).all())
