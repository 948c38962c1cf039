"""apply (unary, bound BinaryOp, IndexUnaryOp) and select (index and value operators)."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from conftest import TEST_TYPES, assert_matches, np_type, seed_of, to_gb

import grblas_gpu as gb

FLOATS = ("FP32", "FP64")
UNARY_CASES = (
    [(op, t) for op in ("identity", "ainv", "abs", "lnot", "one", "minv") for t in TEST_TYPES]
    + [("bnot", t) for t in TEST_TYPES if t not in FLOATS + ("BOOL",)]
    + [(op, t) for op in ("sqrt", "exp", "isnan") for t in FLOATS]
)


def operand(seed: int, t: str, shape: tuple[int, ...] = (5, 6), density: float = 0.6) -> ref.Obj:
    return ref.random(np.random.default_rng(seed), shape, np_type(getattr(gb.dtypes, t)), density, small=True)


@pytest.mark.parametrize("op,t", UNARY_CASES)
def test_apply_unary(backend: str, op: str, t: str) -> None:
    A = operand(seed_of(op, t), t)
    u = operand(seed_of(op, t, "v"), t, (8,))
    assert_matches(to_gb(A, backend).apply(getattr(gb.unary, op)).new(), ref.apply_unary(A, op))
    assert_matches(to_gb(u, backend).apply(op).new(), ref.apply_unary(u, op))


BIND_OPS = ("plus", "minus", "rminus", "times", "first", "second", "cdiv", "floordiv", "pow", "min", "gt")


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("op", BIND_OPS)
@pytest.mark.parametrize("t", ["BOOL", "INT8", "UINT64", "FP32", "FP64"])
def test_apply_bind(backend: str, op: str, t: str, side: str) -> None:
    """op(s, a) with the scalar bound first, op(a, s) bound second; s = 0 exercises x / 0."""
    A = operand(seed_of(op, t, side), t)
    Ag = to_gb(A, backend)
    for s in (0, 2):
        scalar = ref.cast(s, A.dtype)[()]
        got = Ag.apply(getattr(gb.binary, op), **{side: scalar}).new()
        assert_matches(got, ref.apply_bind(A, op, scalar, side))


def test_apply_bind_scalar_object(backend: str) -> None:
    """A gb.Scalar can be bound as well as a Python number."""
    A = operand(3, "FP64")
    s = gb.Scalar.from_value(2.5)
    assert_matches(to_gb(A, backend).apply(gb.binary.times, right=s).new(), ref.apply_bind(A, "times", 2.5, "right"))


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("t", ["INT8", "UINT64", "FP32", "FP64"])
def test_apply_bind_reduced_scalar(backend: str, t: str, side: str) -> None:
    """A reduction's Scalar, bound before its value is read, gives the same result as the
    value itself; the value reads back afterwards (the reduce and inner paths both)."""
    A = operand(seed_of("bind-reduced", t, side), t, (6, 7), 0.7)
    u = operand(seed_of("bind-reduced-u", t), t, (9,), 1.0)
    Ag, ug = to_gb(A, backend), to_gb(u, backend)
    total = ug.reduce(gb.monoid.plus).new()
    dot = ug.inner(ug).new()
    expected_total = np.sum(u.values, dtype=u.values.dtype)
    expected_dot = np.sum(u.values * u.values, dtype=u.values.dtype)
    for s, expected in ((total, expected_total), (dot, expected_dot)):
        got = Ag.apply(gb.binary.minus, **{side: s}).new()
        assert_matches(got, ref.apply_bind(A, "minus", expected, side))
        assert s.value == expected.item()


@pytest.mark.parametrize("thunk", [-1, 0, 2])
@pytest.mark.parametrize("op", ["rowindex", "colindex", "diagindex"])
def test_apply_indexunary(backend: str, op: str, thunk: int) -> None:
    A = operand(seed_of(op, thunk), "FP32")
    u = operand(seed_of(op, thunk, "v"), "INT8", (7,))
    assert_matches(to_gb(A, backend).apply(getattr(gb.indexunary, op), thunk).new(), ref.apply_index(A, op, thunk))
    # a Vector is a column: its index is the row index i, and j is 0
    assert_matches(to_gb(u, backend).apply(op, thunk).new(), ref.apply_index(u, op, thunk))


INDEX_SELECT = ("tril", "triu", "diag", "offdiag", "rowle", "rowgt", "colle", "colgt")
VALUE_SELECT = ("valueeq", "valuene", "valuelt", "valuele", "valuegt", "valuege")


@pytest.mark.parametrize("thunk", [-2, 0, 1, 3])
@pytest.mark.parametrize("op", INDEX_SELECT)
def test_select_index(backend: str, op: str, thunk: int) -> None:
    A = operand(seed_of(op, thunk), "INT32", (5, 7), 0.7)
    assert_matches(to_gb(A, backend).select(getattr(gb.select, op), thunk).new(), ref.select(A, op, thunk))
    assert_matches(to_gb(A.T, backend).select(op, thunk).new(), ref.select(A.T, op, thunk))
    u = operand(seed_of(op, thunk, "v"), "FP64", (7,), 0.7)  # a column: i = index, j = 0
    assert_matches(to_gb(u, backend).select(op, thunk).new(), ref.select(u, op, thunk))


@pytest.mark.parametrize("t", TEST_TYPES)
@pytest.mark.parametrize("op", VALUE_SELECT)
def test_select_value(backend: str, op: str, t: str) -> None:
    A = operand(seed_of(op, t), t)
    u = operand(seed_of(op, t, "v"), t, (9,))
    thunk = ref.cast(1, A.dtype)[()]
    assert_matches(to_gb(A, backend).select(getattr(gb.select, op), thunk).new(), ref.select(A, op, thunk))
    assert_matches(to_gb(u, backend).select(op, thunk).new(), ref.select(u, op, thunk))


def test_select_value_nan(backend: str) -> None:
    """NaN compares false with everything: valuene(NaN, x) is true, the others false."""
    u = gb.Vector.from_coo([0, 1, 2], [np.nan, 1.0, np.inf], size=3, backend=backend)
    assert u.select("valueeq", np.nan).new().nvals == 0
    assert u.select("valuene", np.nan).new().nvals == 3
    assert u.select("valuegt", 1.0).new().to_coo()[0].tolist() == [2]


def test_select_keeps_dtype_and_explicit_zeros(backend: str) -> None:
    A = gb.Matrix.from_coo([0, 1, 2], [0, 1, 2], [0, 5, 0], nrows=3, ncols=3, dtype="UINT8", backend=backend)
    B = A.select(gb.select.diag, 0).new()
    assert B.dtype == gb.dtypes.UINT8 and B.nvals == 3
    assert B.select("valueeq", 0).new().nvals == 2


def test_tril_triu_partition(backend: str) -> None:
    """tril(A, -1), diag(A, 0) and triu(A, 1) split A's entries exactly."""
    A = operand(11, "INT64", (6, 6), 0.8)
    Ag = to_gb(A, backend)
    parts = [Ag.select("tril", -1).new(), Ag.select("diag", 0).new(), Ag.select("triu", 1).new()]
    assert sum(p.nvals for p in parts) == A.nvals
    total = parts[0].ewise_add(parts[1], "first").new().ewise_add(parts[2], "first").new()
    assert total.isequal(Ag)
