"""``op.numpy`` operators of NumPy ufuncs (gcd, lcm, ldexp, logaddexp, nextafter, shifts, ...)
checked against the ufuncs themselves through the public API, edge values included; their
monoids against ``ufunc.reduce``; the namespace's size as python-graphblas's tests want it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import grblas_gpu as gb

INF = np.inf
INT_X = np.array([-4, 6, 0, 0, 12, -9, 7, 2**40, -(2**40)], dtype=np.int64)
INT_Y = np.array([6, -4, 0, 5, -18, -6, 0, 3 * 2**20, 5], dtype=np.int64)
FLT_X = np.array([0.0, -0.0, 1.0, -2.5, INF, -INF, np.nan, 1e308, 3.0, -INF], dtype=np.float64)
FLT_Y = np.array([INF, -INF, -INF, INF, INF, -INF, 1.0, 1e308, 3.0, 2.0], dtype=np.float64)


def _ewise(name: str, x: np.ndarray, y: np.ndarray, backend: str) -> tuple[np.ndarray, Any]:
    n = len(x)
    u = gb.Vector.from_coo(np.arange(n), x, size=n, backend=backend)
    v = gb.Vector.from_coo(np.arange(n), y, size=n, backend=backend)
    w = u.ewise_mult(v, getattr(gb.binary.numpy, name)).new()
    return np.asarray(w.to_dense(fill_value=0)), w.dtype


def _same(got: np.ndarray, expected: np.ndarray) -> None:
    np.testing.assert_array_equal(got, expected.astype(got.dtype))


@pytest.mark.parametrize("name", ["gcd", "lcm"])
@pytest.mark.parametrize("dtype", ["INT64", "INT8", "UINT16"])
def test_gcd_lcm(backend: str, name: str, dtype: str) -> None:
    """Negatives give positive results, gcd(0, 0) = 0, lcm(x, 0) = 0."""
    t = np.dtype(gb.dtypes.lookup_dtype(dtype).np_type)
    x, y = INT_X.astype(t), INT_Y.astype(t)
    got, out = _ewise(name, x, y, backend)
    assert out == dtype
    _same(got, getattr(np, name)(x, y))


def test_gcd_of_bool_is_int8(backend: str) -> None:
    got, out = _ewise("gcd", np.array([True, False, True]), np.array([True, False, False]), backend)
    assert out == "INT8"
    _same(got, np.array([1, 0, 1]))


@pytest.mark.parametrize("dtype", ["FP64", "FP32", "INT64"])
def test_ldexp(backend: str, dtype: str) -> None:
    """Negative exponents, exponents past the range (0 and inf), zeros and infinities."""
    x = np.array([1.0, 3.0, -1.5, 0.0, 1.0, 1.0, INF, 7.0, -2.0]).astype(gb.dtypes.lookup_dtype(dtype).np_type)
    e = np.array([-3, 10, -1, 50, -1100, 5000, -2, 0, 2**40], dtype=np.int64)
    got, out = _ewise("ldexp", x, e, backend)
    assert out == "FP64"  # an INT64 exponent with FP32 unifies to FP64
    with np.errstate(all="ignore"):
        expected = np.ldexp(x.astype(np.float64), np.clip(e, -100000, 100000).astype(np.int32))
    _same(got, expected)


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2", "nextafter", "copysign", "float_power"])
@pytest.mark.parametrize("dtype", ["FP64", "FP32"])
def test_float_binary(backend: str, name: str, dtype: str) -> None:
    """Infinities, signed zeros, NaN: nextafter toward +-inf, logaddexp of -inf with itself."""
    t = gb.dtypes.lookup_dtype(dtype).np_type
    x, y = FLT_X.astype(t), FLT_Y.astype(t)
    got, _ = _ewise(name, x, y, backend)
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(x, y).astype(t)
    np.testing.assert_allclose(got, expected, rtol=1e-6 if dtype == "FP32" else 1e-14)
    assert (np.signbit(got) == np.signbit(expected)).all()


def test_nextafter_steps_one_ulp(backend: str) -> None:
    x = np.array([1.0, 1.0, 0.0, -0.0, 1e308], dtype=np.float64)
    y = np.array([INF, -INF, INF, -INF, INF])
    got, _ = _ewise("nextafter", x, y, backend)
    assert got[0] == 1.0 + np.finfo(np.float64).eps and got[1] == 1.0 - np.finfo(np.float64).eps / 2
    assert got[2] == np.nextafter(0.0, 1.0) and got[3] == -got[2]
    _same(got, np.nextafter(x, y))


@pytest.mark.parametrize("name", ["left_shift", "right_shift"])
@pytest.mark.parametrize("dtype", ["INT64", "INT8", "UINT8", "UINT64"])
def test_shifts(backend: str, name: str, dtype: str) -> None:
    """Shifts by the width or more give 0 (or -1 shifting a negative right), as NumPy."""
    t = gb.dtypes.lookup_dtype(dtype).np_type
    x = np.array([1, 5, -3, -128, 100, -1, 7, 1], dtype=np.int64).astype(t)
    y = np.array([0, 3, 1, 7, 8, 63, 64, 200], dtype=np.int64).astype(t)
    got, out = _ewise(name, x, y, backend)
    assert out == dtype
    _same(got, getattr(np, name)(x, y))


@pytest.mark.parametrize(("name", "ufunc"), [("arcsinh", np.arcsinh), ("arccosh", np.arccosh),
                                              ("arctanh", np.arctanh), ("rint", np.rint),
                                              ("deg2rad", np.deg2rad), ("radians", np.deg2rad),
                                              ("rad2deg", np.rad2deg), ("degrees", np.rad2deg),
                                              ("spacing", np.spacing), ("signbit", np.signbit),
                                              ("square", np.square), ("abs", np.abs)])
@pytest.mark.parametrize("dtype", ["FP64", "FP32", "INT32"])
def test_unary(backend: str, name: str, ufunc: Any, dtype: str) -> None:
    t = gb.dtypes.lookup_dtype(dtype).np_type
    raw = [0.5, -0.5, 2.5, -3.5, 1.0, 0.0, 1e6, INF, -INF, np.nan] if dtype != "INT32" else [0, 1, -1, 3, -7, 1000]
    x = np.array(raw, dtype=np.float64).astype(t) if dtype != "INT32" else np.array(raw, dtype=t)
    v = gb.Vector.from_coo(np.arange(len(x)), x, size=len(x), backend=backend)
    got = np.asarray(v.apply(getattr(gb.unary.numpy, name)).new().to_dense(fill_value=0))
    with np.errstate(all="ignore"):
        xin = x if dtype != "INT32" or name in ("signbit", "square", "abs") else x.astype(np.float64)
        expected = ufunc(xin)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, expected.astype(got.dtype), rtol=1e-6 if dtype == "FP32" else 1e-14)
    else:
        _same(got, expected)


@pytest.mark.parametrize(("name", "dtype", "values"), [
    ("gcd", "INT64", [12, -18, 30, 0]), ("gcd", "INT64", [0, 0]), ("hypot", "FP64", [3.0, -4.0, 12.0]),
    ("logaddexp", "FP64", [0.0, 1.0, -INF, 2.0]), ("logaddexp2", "FP32", [1.0, 1.0, 3.0]),
    ("logaddexp", "FP64", [-INF, -INF])])
def test_monoids(backend: str, name: str, dtype: str, values: list[Any]) -> None:
    """Reductions by the new monoids equal ``ufunc.reduce``; an empty one gives the identity."""
    t = gb.dtypes.lookup_dtype(dtype).np_type
    x = np.array(values, dtype=t)
    v = gb.Vector.from_coo(np.arange(len(x)), x, size=len(x), backend=backend)
    m = getattr(gb.monoid.numpy, name)
    got = v.reduce(m).new().value
    np.testing.assert_allclose(got, getattr(np, name).reduce(x), rtol=1e-6)
    assert m[dtype].identity == getattr(np, name).reduce(np.array([], dtype=t)) or name != "gcd"


def test_semiring_of_a_ufunc(backend: str) -> None:
    """``semiring.numpy.maximum_gcd``: gcd of each pair, the largest per row."""
    A = np.array([[12, 0, 8], [0, 9, 0], [5, 10, 0]])
    x = np.array([18, 6, 4])
    M = gb.Matrix.from_dense(A, missing_value=0, backend=backend)
    v = gb.Vector.from_coo([0, 1, 2], x, backend=backend)
    got = M.mxv(v, gb.semiring.numpy.maximum_gcd).new()
    expected = [max(np.gcd(A[i, j], x[j]) for j in range(3) if A[i, j]) for i in range(3)]
    assert got.to_coo()[1].tolist() == expected


def test_namespace_size() -> None:
    """python-graphblas's ``test_op_namespace`` wants more than 500 names in ``dir(op.numpy)``."""
    names = dir(gb.op.numpy)
    assert len(names) > 500
    for n in ("gcd", "lcm", "ldexp", "logaddexp", "logaddexp2", "nextafter", "left_shift", "right_shift",
              "hypot", "copysign", "fmax", "fmin", "float_power", "add_gcd", "gcd_gcd", "logaddexp_add"):
        assert n in names
        assert getattr(gb.op.numpy, n) is not None
