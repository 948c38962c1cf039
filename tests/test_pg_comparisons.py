"""SuiteSparse's value comparisons (``iseq``, ``isne``, ``isgt``, ``islt``, ``isge``,
``isle``: 1 or 0 in the input type), the logical operators on every type (``land``, ``lor``,
``lxor`` compute in the input type; their monoids and semirings in BOOL) and C's ``pow`` of
floats at the special values, each compared with python-graphblas on every type."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pgcompat import graphblas, plain, same

import grblas_gpu

TYPES = ("BOOL", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "FP32", "FP64")
X = [0, 1, 2, -3, 5, 0.5, np.nan, -0.0, 7]
Y = [0, 0, 2, 4, -3, 0, 1, 0.0, np.nan]
COMPARISONS = ("iseq", "isne", "isgt", "islt", "isge", "isle")
LOGICAL = ("land", "lor", "lxor", "lxnor")


def _values(values: list[float], dtype: str) -> np.ndarray:
    """``values`` in ``dtype`` as C casts them (NaN is true as a BOOL, 0 as an integer)."""
    if dtype == "BOOL":
        return np.array([bool(v) for v in values])
    with np.errstate(all="ignore"):
        return np.array(values, dtype=np.float64).astype(np.dtype(dtype.lower().replace("fp", "float")))


def _pair(gb: Any, dtype: str) -> tuple[Any, Any]:
    """Two Vectors of 12 holding X at 0..8 and Y at 0..8 but 2 and 5, and at 10 and 11."""
    where = [0, 1, 10, 3, 4, 11, 6, 7, 8]
    return (gb.Vector.from_coo(range(len(X)), _values(X, dtype), dtype=dtype, size=12),
            gb.Vector.from_coo(where, _values(Y, dtype), dtype=dtype, size=12))


@pytest.mark.parametrize("dtype", TYPES)
def test_comparisons_and_logical_operators_on_every_type(backend: str, dtype: str) -> None:
    """Element-wise, with a bound scalar on either side, and the operators' types."""
    for name in COMPARISONS + LOGICAL:
        def snippet(gb: Any, name: str = name) -> Any:
            u, w = _pair(gb, dtype)
            op = getattr(gb.binary, name)
            one, zero, two, three = (gb.Scalar.from_value(c, dtype=dtype) for c in (1, 0, 2, 3))
            return (op(u & w).new(), op(u | w, left_default=one, right_default=zero).new(), op(u, two).new(),
                    op(three, w).new(), str(op[dtype].return_type), op.is_commutative, str(op.commutes_to))
        same(snippet, backend)


@pytest.mark.parametrize("dtype", TYPES)
def test_logical_monoids_and_semirings(backend: str, dtype: str) -> None:
    """``monoid.land[INT64]`` is BOOL's; ``lor_land`` gives BOOL, ``plus_land``, ``max_isgt`` the type."""
    def reductions(gb: Any) -> Any:
        u, _ = _pair(gb, dtype)
        return tuple(u.reduce(getattr(gb.monoid, n)).new() for n in LOGICAL) + (str(gb.monoid.land[dtype]),)

    same(reductions, backend)
    names = ["lor_land", "land_lor", "lxor_land", "any_lxor", "lor_lxor", "eq_land"]
    if dtype != "BOOL":  # python-graphblas has no BOOL plus_land or max_isgt
        names += ["plus_land", "max_isgt", "plus_iseq", "times_isne", "min_islt", "min_isle"]
    def product(gb: Any, name: str) -> Any:
        A = gb.Matrix.from_coo([0, 0, 1, 1, 2], [0, 1, 1, 2, 0], _values(X[:5], dtype), dtype=dtype)
        return getattr(gb.semiring, name)(A @ A).new()

    for name in names:
        if name.startswith("any_"):
            _any_keeps_one_of_the_terms(lambda gb, name=name: product(gb, name), backend,
                                        lambda monoid, name=name: plain(product(graphblas, f"{monoid}_{name[4:]}")))
        else:
            same(lambda gb, name=name: product(gb, name), backend)


def _any_keeps_one_of_the_terms(snippet: Any, backend: str, of: Any) -> None:
    """ANY keeps one of its terms, whichever (python-graphblas's SuiteSparse keeps the last, a GPU
    the first to land): the structure and type as python-graphblas's, each value a term's, which
    for a logical product lies between the land and the lor of the terms."""
    expected = plain(snippet(graphblas))
    with grblas_gpu.use_backend(backend):
        got = plain(snippet(grblas_gpu))
    assert got[:3] == expected[:3] and [e[:2] for e in got[3]] == [e[:2] for e in expected[3]]
    low, high = (of(monoid)[3] for monoid in ("land", "lor"))
    assert all(bool(lo[2]) <= bool(g[2]) <= bool(hi[2]) for g, lo, hi in zip(got[3], low, high)), (got, low, high)


def test_comparison_operator_names() -> None:
    """No monoid of a comparison (python-graphblas has none), and the ones each swaps into."""
    same(lambda gb: [(str(getattr(gb.binary, n).monoid), str(getattr(gb.binary, n)["FP32"].commutes_to))
                     for n in COMPARISONS + LOGICAL])
    same(lambda gb: sorted(str(t) for t in gb.binary.isgt.types if not str(t).startswith("FC")))


@pytest.mark.parametrize("dtype", ("FP32", "FP64"))
def test_float_pow_is_c_pow_at_the_special_values(backend: str, dtype: str) -> None:
    """``(-inf) ** 0.5`` is inf and ``(-0.0) ** 0.5`` is +0.0 (C's ``pow``; NumPy's scalar
    exponent 0.5 takes a square root), ``1 ** nan`` and ``nan ** 0`` are NaN (SuiteSparse's
    ``GB_pow``; C gives 1): element-wise and with either operand bound."""
    x = [-np.inf, -np.inf, -0.0, -1.0, 1.0, np.nan, -2.0, np.inf, -np.inf, -0.0, 4.0]
    y = [0.5, -0.5, -0.5, np.inf, np.nan, 0.0, 0.5, -1.0, 3.0, -3.0, 0.5]

    def snippet(gb: Any) -> Any:
        u = gb.Vector.from_coo(range(len(x)), x, dtype=dtype)
        w = gb.Vector.from_coo(range(len(y)), y, dtype=dtype)
        half, two = (gb.Scalar.from_value(c, dtype=dtype) for c in (0.5, 2.0))
        halves = u.apply(gb.binary.pow, right=half).new()
        values = halves.to_coo()[1]  # (a NaN's sign is unspecified: x86 and CUDA differ)
        signs = np.where(np.isnan(values), False, np.signbit(values)).tolist()
        return gb.binary.pow(u & w).new(), halves, signs, gb.binary.pow(u, two).new(), gb.binary.pow(half, u).new()

    same(snippet, backend)
