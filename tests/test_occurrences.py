"""Counting how often each index occurs (``Backend.occurrences``: the column counts behind
``Matrix.is_symmetric``, products' column lengths and SpMV plans), in memory bounded by the
counts: CuPy's ``bincount`` took bins times blocks of scratch (1.3 GB for a million entries
in one column of a million)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import cupy_pool_peak

import grblas_gpu as gb
from grblas_gpu.backends import get_backend


@pytest.mark.parametrize("index_type", [np.int32, np.int64])
def test_occurrences_match_numpy_bincount(backend: str, index_type: type) -> None:
    be = get_backend(backend)
    rng = np.random.default_rng(7)
    for n, idx in [(1, np.zeros(0, index_type)), (5, np.array([4, 4, 0, 4], index_type)),
                   (1000, rng.integers(0, 1000, 50_000).astype(index_type)),
                   (1000, rng.integers(0, 3, 50_000).astype(index_type))]:
        got = be.to_host(be.occurrences(be.asarray(idx), n))
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, np.bincount(idx, minlength=n))


def test_symmetry_check_of_one_full_column_stays_within_its_entries(backend: str) -> None:
    """A matrix whose entries all lie in one column (every vertex under one parent): finding
    that it is not symmetric takes memory of the order of its entries, not bins x blocks."""
    if backend != "cupy":
        pytest.skip("the pool's peak is a GPU figure")
    n = 1 << 20
    A = gb.Matrix.from_coo(np.arange(n), np.zeros(n, np.int64), True, nrows=n, ncols=n, dtype=gb.BOOL,
                           backend=backend)
    with cupy_pool_peak() as peak:
        assert not A.is_symmetric
    assert peak[0] <= 32 * n
    u = gb.Vector.from_dense(np.arange(n, dtype=np.int64), backend=backend)
    got = u.vxm(A, gb.semiring.min_first[gb.INT64]).new()
    assert got.nvals == 1 and got[0].new().value == 0
