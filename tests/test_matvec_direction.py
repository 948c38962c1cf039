"""The planner of matrix-vector products decides push or pull before it builds anything: a
pushed ``u' A`` walks A's own rows, so A's transpose (which only the pull of ``u' A`` walks)
is not built for it (a transpose is as large as A; on the GPU the dask row blocks of kron 26
each held an unused one of 5 GiB)."""

from __future__ import annotations

import numpy as np
import pytest

import grblas_gpu as gb
from grblas_gpu import semiring
from grblas_gpu.ops import multiply


def _directed(n: int = 300, seed: int = 5) -> tuple[gb.Matrix, np.ndarray]:
    rng = np.random.default_rng(seed)
    dense = np.zeros((n, n))
    dense[rng.integers(0, n, 6 * n), rng.integers(0, n, 6 * n)] = rng.integers(1, 10, 6 * n)
    r, c = np.nonzero(dense)
    return gb.Matrix.from_coo(r, c, dense[r, c], nrows=n, ncols=n, dtype="FP64", backend="numpy"), dense


@pytest.fixture(autouse=True)
def _through_the_transpose(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pull of ``u' A`` walks A' (not A's own rows by columns, which builds nothing)."""
    monkeypatch.setattr(multiply, "BY_COLUMNS_MIN_ENTRIES", 1 << 62)


@pytest.mark.parametrize("method", ["auto", "push"])
def test_pushed_vxm_builds_no_transpose(method: str) -> None:
    A, dense = _directed()
    n = A.nrows
    u = gb.Vector.from_coo([7], [2.0], size=n, dtype="FP64", backend="numpy")
    w = u.vxm(A, semiring.plus_times, method=method).new()
    mem = A.memory_usage()
    assert A._T is None and mem["derived"] < mem["at_rest"] // 2  # (row lengths at most: no transpose)
    idx, vals = w.to_coo()
    expect = 2.0 * dense[7]
    np.testing.assert_array_equal(idx, np.nonzero(expect)[0])
    np.testing.assert_allclose(vals, expect[idx])


def test_pulled_vxm_still_builds_it() -> None:
    A, dense = _directed()
    n = A.nrows
    u = gb.Vector.from_scalar(1.0, n, "FP64", backend="numpy")  # dense: pulled through A'
    w = u.vxm(A, semiring.plus_times).new()
    mem = A.memory_usage()
    assert A._T is not None and mem["derived"] >= mem["at_rest"] // 2  # the transpose, as large as A
    idx, vals = w.to_coo()
    expect = dense.sum(axis=0)
    np.testing.assert_allclose(vals, expect[idx])
    assert set(idx) == set(np.nonzero(dense.any(axis=0))[0])
