"""Hypothesis property tests: random sparse inputs (small shapes, any density, a few types)
give the reference model's results; where CuPy is usable the two backends agree exactly
for integers and BOOL (closely for floats)."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from conftest import BACKENDS, MASK_KINDS, assert_matches, mask_arg, ref_mask, to_gb, to_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import grblas_gpu as gb

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.int64, np.uint8, np.uint32, np.float32, np.float64)]
dims = st.integers(0, 6)


@st.composite
def sparse(draw: st.DrawFn, shape: tuple[int, ...], dtype: np.dtype) -> ref.Obj:
    """A random sparse object: each position present with a drawn density, small values (zeros included)."""
    seed = draw(st.integers(0, 2**32 - 1))
    density = draw(st.sampled_from([0.0, 0.2, 0.5, 0.9, 1.0]))
    return ref.random(np.random.default_rng(seed), shape, dtype, density, small=True)


@st.composite
def mxm_case(draw: st.DrawFn) -> tuple:
    m, k, n = draw(dims), draw(dims), draw(dims)
    t = draw(st.sampled_from(TYPES))
    sr = draw(st.sampled_from(["plus_times", "min_plus", "max_min", "plus_pair", "min_first", "max_second"]))
    A = draw(sparse((m, k), t))
    B = draw(sparse((k, n), t))
    C = draw(sparse((m, n), t))
    M = draw(sparse((m, n), np.dtype(np.int8)))
    mask_kind = draw(st.sampled_from(MASK_KINDS))
    accum = draw(st.sampled_from([None, "plus", "max", "second"]))
    replace = draw(st.booleans())
    return sr, A, B, C, M, mask_kind, accum, replace


def run_mxm(backend: str, case: tuple) -> object:
    sr, A, B, C0, M, mask_kind, accum, replace = case
    C = to_gb(C0, backend)
    Mg = to_gb(M, backend)
    C(mask=mask_arg(Mg, mask_kind), accum=None if accum is None else getattr(gb.binary, accum),
      replace=replace) << to_gb(A, backend).mxm(to_gb(B, backend), sr)
    return C


@SETTINGS
@given(case=mxm_case())
def test_mxm_matches_model(case: tuple) -> None:
    sr, A, B, C0, M, mask_kind, accum, replace = case
    add, mult = sr.split("_")
    expected = ref.write(C0, ref.mxm(A, B, add, mult), accum=accum, replace=replace, **ref_mask(M, mask_kind))
    for backend in BACKENDS:
        assert_matches(run_mxm(backend, case), expected)


@st.composite
def ewise_case(draw: st.DrawFn) -> tuple:
    shape = draw(st.sampled_from([(draw(dims),), (draw(dims), draw(dims))]))
    t = draw(st.sampled_from(TYPES))
    op = draw(st.sampled_from(["plus", "minus", "times", "min", "max", "first", "second", "cdiv", "gt"]))
    kind = draw(st.sampled_from(["add", "mult", "union"]))
    return kind, op, draw(sparse(shape, t)), draw(sparse(shape, t))


@SETTINGS
@given(case=ewise_case())
def test_ewise_matches_model(case: tuple) -> None:
    kind, op, A, B = case
    for backend in BACKENDS:
        Ag, Bg = to_gb(A, backend), to_gb(B, backend)
        binop = getattr(gb.binary, op)
        if kind == "add":
            got, expected = Ag.ewise_add(Bg, binop).new(), ref.ewise_add(A, B, op)
        elif kind == "mult":
            got, expected = Ag.ewise_mult(Bg, binop).new(), ref.ewise_mult(A, B, op)
        else:
            a, b = ref.cast(1, A.dtype)[()], ref.cast(0, A.dtype)[()]
            got, expected = Ag.ewise_union(Bg, binop, a, b).new(), ref.ewise_union(A, B, op, a, b)
        assert_matches(got, expected)


@st.composite
def matrix_case(draw: st.DrawFn) -> ref.Obj:
    return draw(sparse((draw(dims), draw(dims)), draw(st.sampled_from(TYPES))))


@SETTINGS
@given(A=matrix_case(), monoid=st.sampled_from(["plus", "min", "max", "times"]),
       sel=st.sampled_from(["tril", "triu", "offdiag", "rowgt", "colle"]), thunk=st.integers(-3, 3))
def test_unary_structure_ops_match_model(A: ref.Obj, monoid: str, sel: str, thunk: int) -> None:
    for backend in BACKENDS:
        Ag = to_gb(A, backend)
        assert_matches(Ag.T.new(), A.T)
        assert_matches(Ag.reduce_rowwise(monoid).new(), ref.reduce_rowwise(A, monoid))
        assert_matches(Ag.reduce_columnwise(monoid).new(), ref.reduce_columnwise(A, monoid))
        assert_matches(Ag.reduce_scalar(monoid).new(), ref.reduce_scalar(A, monoid))
        assert_matches(Ag.select(sel, thunk).new(), ref.select(A, sel, thunk))
        assert_matches(Ag.apply("ainv").new(), ref.apply_unary(A, "ainv"))


@st.composite
def assign_case(draw: st.DrawFn) -> tuple:
    m, n = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    rows = draw(st.lists(st.integers(0, m - 1), unique=True, max_size=m))
    cols = draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    t = draw(st.sampled_from(TYPES))
    C = draw(sparse((m, n), t))
    B = draw(sparse((len(rows), len(cols)), t))
    M = draw(sparse((m, n), np.dtype(np.bool_)))
    return C, B, rows, cols, M, draw(st.sampled_from(MASK_KINDS)), draw(st.sampled_from([None, "plus"])), \
        draw(st.booleans())


@SETTINGS
@given(case=assign_case())
def test_assign_matches_model(case: tuple) -> None:
    C0, B, rows, cols, M, mask_kind, accum, replace = case
    expected = ref.assign(C0, B, (rows, cols), accum=accum, replace=replace, **ref_mask(M, mask_kind))
    for backend in BACKENDS:
        C = to_gb(C0, backend)
        C(mask=mask_arg(to_gb(M, backend), mask_kind), accum=None if accum is None else getattr(gb.binary, accum),
          replace=replace)[rows, cols] << to_gb(B, backend)
        assert_matches(C, expected)


@st.composite
def extract_case(draw: st.DrawFn) -> tuple:
    m, n = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    rows = draw(st.lists(st.integers(0, m - 1), max_size=8))  # duplicates allowed
    cols = draw(st.lists(st.integers(0, n - 1), max_size=8))
    return draw(sparse((m, n), draw(st.sampled_from(TYPES)))), rows, cols


@SETTINGS
@given(case=extract_case())
def test_extract_matches_model(case: tuple) -> None:
    A, rows, cols = case
    for backend in BACKENDS:
        assert_matches(to_gb(A, backend)[rows, cols].new(), ref.extract(A, rows, cols))


@pytest.mark.skipif(len(BACKENDS) < 2, reason="needs both backends (CuPy and a GPU)")
@SETTINGS
@given(case=mxm_case())
def test_backends_agree(case: tuple) -> None:
    """Exactly equal for integers and BOOL; floats to rounding (summation order may differ)."""
    a, b = (to_model(run_mxm(be, case)) for be in BACKENDS)
    assert_matches(a, b, rtol=1e-12)
