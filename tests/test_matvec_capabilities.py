"""The planner of matrix-vector products reads the backend's table (``Backend.matvec``): the
frontier shares below which it pushes, and the sizes the pushes take."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import grblas_gpu as gb
from grblas_gpu.backends import get_backend
from grblas_gpu.backends.base import MatVecCapabilities


def _graph(n: int = 400) -> tuple[gb.Matrix, np.ndarray]:
    rng = np.random.default_rng(11)
    rows, cols = rng.integers(0, n, 8 * n), rng.integers(0, n, 8 * n)
    dense = np.zeros((n, n))
    dense[rows, cols] = 1.0
    r, c = np.nonzero(dense)
    return gb.Matrix.from_coo(r, c, 1.0, nrows=n, ncols=n, dtype="FP64", backend="numpy"), dense


def _spied(monkeypatch: pytest.MonkeyPatch, table: MatVecCapabilities) -> list[str]:
    """The kernels the NumPy backend is asked for (``spmv``: a pull; ``spmspv``: a push),
    with ``table`` as its published capabilities."""
    be = get_backend("numpy")
    calls: list[str] = []
    for name in ("spmv", "spmv_columns", "spmspv"):
        kernel = getattr(be, name)

        def spy(*args: Any, _kernel: Any = kernel, _name: str = name, **kwargs: Any) -> Any:
            calls.append(_name)
            return _kernel(*args, **kwargs)

        monkeypatch.setattr(be, name, spy)
    monkeypatch.setattr(be, "matvec", table)
    return calls


@pytest.mark.parametrize("shares", ((0.0, 0.0), (1.0, 1.0)))
def test_push_or_pull_follows_the_tables_shares(monkeypatch: pytest.MonkeyPatch, shares: tuple[float, float]) -> None:
    A, dense = _graph()
    calls = _spied(monkeypatch, MatVecCapabilities(atomic_push_shares=shares, sorted_push_shares=shares))
    u = gb.Vector.from_coo([3, 7], [1.0, 2.0], size=A.nrows, backend="numpy")
    w = u.vxm(A, "plus_times").new()
    x = np.zeros(A.nrows)
    x[[3, 7]] = [1.0, 2.0]
    idx, vals = w.to_coo()
    want = x @ dense
    assert idx.tolist() == np.flatnonzero(want).tolist() and np.allclose(vals, want[idx])
    pushed = "spmspv" in calls
    assert pushed == (shares == (1.0, 1.0)), calls


def test_push_positions_bound_the_push(monkeypatch: pytest.MonkeyPatch) -> None:
    """A matrix beyond the table's push positions is never handed to ``spmspv``."""
    A, _ = _graph()
    calls = _spied(monkeypatch, MatVecCapabilities(push_positions=A.nrows, sorted_push_shares=(1.0, 1.0)))
    u = gb.Vector.from_coo([3], [1.0], size=A.nrows, backend="numpy")
    u.vxm(A, "plus_times", method="push").new()
    assert "spmspv" not in calls
    monkeypatch.setattr(get_backend("numpy"), "matvec", MatVecCapabilities(push_positions=A.nrows + 1))
    u.vxm(A, "plus_times", method="push").new()
    assert "spmspv" in calls


def test_defaults() -> None:
    assert get_backend("numpy").matvec == MatVecCapabilities()
    assert MatVecCapabilities().push_takes(2**40) and not MatVecCapabilities(push_positions=2**31).push_takes(2**31)


@pytest.mark.parametrize("first", [False, True])
def test_symmetry_is_asked_before_columns_where_the_table_says(monkeypatch: pytest.MonkeyPatch,
                                                                first: bool) -> None:
    """An undeclared symmetric matrix: with ``symmetry_before_columns`` its symmetry is found
    and it pulls through itself (``spmv``); without, its terms are combined by column from
    its own rows (``spmv_columns``) and no transpose is built to find out."""
    from grblas_gpu.ops import multiply

    monkeypatch.setattr(multiply, "BY_COLUMNS_MIN_ENTRIES", 1)
    _, dense = _graph()
    sym = np.maximum(dense, dense.T) * (1 + np.add.outer(np.arange(len(dense)), np.arange(len(dense))) % 5)
    r, c = np.nonzero(sym)
    A = gb.Matrix.from_coo(r, c, sym[r, c], nrows=len(sym), ncols=len(sym), dtype="FP64", backend="numpy")
    calls = _spied(monkeypatch, MatVecCapabilities(symmetry_before_columns=first, atomic_push_shares=(0.0, 0.0),
                                                    sorted_push_shares=(0.0, 0.0)))
    x = np.arange(len(sym), dtype=np.float64)
    u = gb.Vector.from_dense(x, backend="numpy")
    w = u.vxm(A, "min_plus").new()
    want = np.where(sym != 0, x[:, None] + sym, np.inf).min(axis=0)
    idx, vals = w.to_coo()
    assert np.array_equal(vals, want[idx]) and len(idx) == np.count_nonzero(np.isfinite(want))
    assert calls == (["spmv"] if first else ["spmv_columns"]), calls
    assert A._store.symmetric is (True if first else None)
    assert A._store.transpose is None
