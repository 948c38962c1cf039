"""transpose, kronecker and diag."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from conftest import TEST_TYPES, assert_matches, np_type, seed_of, to_gb

import grblas_gpu as gb


def operand(seed: int, t: str, shape: tuple[int, ...], density: float = 0.5) -> ref.Obj:
    return ref.random(np.random.default_rng(seed), shape, np_type(getattr(gb.dtypes, t)), density, small=True)


@pytest.mark.parametrize("t", TEST_TYPES)
def test_transpose(backend: str, t: str) -> None:
    A = operand(seed_of(t), t, (4, 7))
    Ag = to_gb(A, backend)
    assert_matches(Ag.T.new(), A.T)
    assert_matches(Ag.T.T, A)  # the transpose of the transpose is the matrix itself
    C = gb.Matrix(t, 7, 4, backend=backend)
    gb.transpose(C, None, None, Ag)
    assert_matches(C, A.T)
    D = gb.Matrix(t, 4, 7, backend=backend)
    gb.transpose(D, None, None, Ag, gb.descriptor.T0)  # the transpose of the transposed input: a copy
    assert_matches(D, A)


def test_transpose_cache_invalidated(backend: str) -> None:
    """A cached transpose must not survive a change to the matrix."""
    A = gb.Matrix.from_coo([0, 1], [1, 2], [1.0, 2.0], nrows=3, ncols=3, backend=backend)
    assert A.T.new().to_coo()[0].tolist() == [1, 2]
    u = gb.Vector.from_coo([0, 1, 2], [1.0, 1.0, 1.0], size=3, backend=backend)
    A.T.mxv(u, "plus_times").new()  # may build the CSC / transpose
    A[2, 0] = 5.0
    r, c, v = A.T.new().to_coo()
    assert (r.tolist(), c.tolist(), v.tolist()) == ([0, 1, 2], [2, 0, 1], [5.0, 1.0, 2.0])
    idx, vals = A.T.mxv(u, "plus_times").new().to_coo()
    assert (idx.tolist(), vals.tolist()) == ([0, 1, 2], [5.0, 1.0, 2.0])
    del A[0, 1]
    assert A.T.new().nvals == 2


@pytest.mark.parametrize("op", ["times", "plus", "first", "second", "minus", "pair"])
@pytest.mark.parametrize("t", ["BOOL", "INT8", "UINT64", "FP32"])
def test_kronecker(backend: str, op: str, t: str) -> None:
    A = operand(seed_of(op, t), t, (2, 3), 0.7)
    B = operand(seed_of(op, t, "B"), t, (3, 2), 0.7)
    got = to_gb(A, backend).kronecker(to_gb(B, backend), getattr(gb.binary, op)).new()
    assert_matches(got, ref.kronecker(A, B, op))


def test_kronecker_monoid_and_semiring(backend: str) -> None:
    A = operand(1, "INT64", (2, 2), 0.8)
    B = operand(2, "INT64", (2, 3), 0.8)
    Ag, Bg = to_gb(A, backend), to_gb(B, backend)
    assert_matches(Ag.kronecker(Bg, gb.monoid.plus).new(), ref.kronecker(A, B, "plus"))
    assert_matches(Ag.kronecker(Bg).new(), ref.kronecker(A, B, "times"))
    assert_matches(Ag.kronecker(Bg, "minus").new(), ref.kronecker(A, B, "minus"))


@pytest.mark.parametrize("k", [-3, -1, 0, 2, 5])
def test_diag(backend: str, k: int) -> None:
    """A.diag(k) is the k-th diagonal as a Vector; v.diag(k) the square Matrix with v there."""
    A = operand(seed_of(k), "FP64", (4, 6), 0.7)
    d = to_gb(A, backend).diag(k)
    assert isinstance(d, gb.Vector)
    assert_matches(d, ref.matrix_diag(A, k))
    u = operand(seed_of(k, "u"), "INT32", (4,), 0.7)
    D = to_gb(u, backend).diag(k)
    assert isinstance(D, gb.Matrix)
    assert_matches(D, ref.vector_diag(u, k))
