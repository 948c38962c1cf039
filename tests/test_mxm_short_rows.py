"""Products whose rows are all short (a road graph's square: at most 16 or 32 terms a row, the
GPU's short-row kernels) through the public API on every backend, against scipy.sparse and, for
min_plus, against a NumPy model of every term."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sps
from conftest import grid_square_csr

import grblas_gpu as gb


def road_grid(side: int, diagonal: bool) -> sps.csr_matrix:
    """The 4-neighbour ``side x side`` grid (and the diagonal), values 1..4 (FP64)."""
    return grid_square_csr(side, diagonal, np.random.default_rng(side))


def min_plus_model(a: sps.csr_matrix) -> dict[tuple[int, int], float]:
    """min over k of A(i, k) + A(k, j), every term listed."""
    out: dict[tuple[int, int], float] = {}
    for i in range(a.shape[0]):
        for p in range(a.indptr[i], a.indptr[i + 1]):
            k = a.indices[p]
            for q in range(a.indptr[k], a.indptr[k + 1]):
                key = (i, int(a.indices[q]))
                out[key] = min(out.get(key, np.inf), a.data[p] + a.data[q])
    return out


@pytest.mark.parametrize("diagonal", [False, True], ids=["grid", "grid+diagonal"])
@pytest.mark.parametrize("dtype", ["FP32", "INT64"])
def test_road_grid_square(backend: str, diagonal: bool, dtype: str) -> None:
    """``A @ A`` over plus_times (against scipy) and min_plus (against the term model)."""
    a = road_grid(12, diagonal)
    A = gb.Matrix.from_csr(a.indptr, a.indices, a.data, ncols=a.shape[1], dtype=dtype)
    got = A.mxm(A, gb.semiring.plus_times).new()
    want = (a @ a).tocsr()
    want.sort_indices()
    indptr, indices, values = got.to_csr()
    assert np.array_equal(indptr, want.indptr) and np.array_equal(indices, want.indices)
    assert np.array_equal(values, want.data.astype(values.dtype))
    rows, cols, vals = A.mxm(A, gb.semiring.min_plus).new().to_coo()
    model = min_plus_model(a)
    assert sorted(zip(rows.tolist(), cols.tolist())) == sorted(model)
    assert all(model[(r, c)] == v for r, c, v in zip(rows.tolist(), cols.tolist(), vals.tolist()))
