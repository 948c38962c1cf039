"""Operators: typed built-in operators against hand-computed tables, monoid identities,
lookup by name, and user-defined operators (lambdas with conditional expressions)."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from conftest import assert_matches, to_gb

import grblas_gpu as gb

T, F = True, False
NAN, INF = np.nan, np.inf

# type -> (x, y, {op: expected op(x, y)}) worked out by hand (C semantics, SuiteSparse conventions).
TABLES = {
    "INT8": ([7, -7, 0, 5, -128, 127], [2, 2, 0, -3, -1, 1], {
        "plus": [9, -5, 0, 2, 127, -128],
        "minus": [5, -9, 0, 8, -127, 126],
        "rminus": [-5, 9, 0, -8, 127, -126],
        "times": [14, -14, 0, -15, -128, 127],
        "first": [7, -7, 0, 5, -128, 127],
        "second": [2, 2, 0, -3, -1, 1],
        "pair": [1, 1, 1, 1, 1, 1],
        "cdiv": [3, -3, 0, -1, -128, 127],
        "floordiv": [3, -4, 0, -2, -128, 127],
        "min": [2, -7, 0, -3, -128, 1],
        "max": [7, 2, 0, 5, -1, 127],
        "pow": [49, 49, 1, 0, 0, 127],
        "bor": [7, -5, 0, -3, -1, 127],
        "band": [2, 0, 0, 5, -128, 1],
        "bxor": [5, -5, 0, -8, 127, 126],
        "eq": [F, F, T, F, F, F],
        "ne": [T, T, F, T, T, T],
        "gt": [T, F, F, T, F, T],
        "lt": [F, T, F, F, T, F],
        "ge": [T, F, T, T, F, T],
        "le": [F, T, T, F, T, F],
        "lor": [T, T, F, T, T, T],
        "land": [T, T, F, T, T, T],
        "lxor": [F, F, F, F, F, F],
        "iseq": [0, 0, 1, 0, 0, 0],
        "isgt": [1, 0, 0, 1, 0, 1],
        "isle": [0, 1, 1, 0, 1, 0],
    }),
    "UINT8": ([7, 0, 200, 3, 255, 5], [2, 0, 100, 5, 1, 0], {
        "plus": [9, 0, 44, 8, 0, 5],
        "minus": [5, 0, 100, 254, 254, 5],
        "times": [14, 0, 32, 15, 255, 0],
        "cdiv": [3, 0, 2, 0, 255, 255],
        "floordiv": [3, 0, 2, 0, 255, 255],
        "min": [2, 0, 100, 3, 1, 0],
        "max": [7, 0, 200, 5, 255, 5],
        "pow": [49, 1, 255, 243, 255, 1],
        "bxor": [5, 0, 172, 6, 254, 5],
    }),
    "FP64": ([1.5, -2.0, 0.0, NAN, INF, 3.0], [2.0, 0.0, 0.0, 1.0, 1.0, -INF], {
        "plus": [3.5, -2.0, 0.0, NAN, INF, -INF],
        "minus": [-0.5, -2.0, 0.0, NAN, INF, INF],
        "times": [3.0, -0.0, 0.0, NAN, INF, -INF],
        "truediv": [0.75, -INF, NAN, NAN, INF, -0.0],
        "cdiv": [0.75, -INF, NAN, NAN, INF, -0.0],
        "floordiv": [0.0, -INF, NAN, NAN, INF, -0.0],
        "min": [1.5, -2.0, 0.0, 1.0, 1.0, -INF],
        "max": [2.0, 0.0, 0.0, 1.0, INF, 3.0],
        "pow": [2.25, 1.0, 1.0, NAN, INF, 0.0],
        "eq": [F, F, T, F, F, F],
        "ne": [T, T, F, T, T, T],
        "lt": [T, T, F, F, F, F],
        "gt": [F, F, F, F, T, T],
        "isne": [1.0, 1.0, 0.0, 1.0, 1.0, 1.0],
        "islt": [1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        "land": [1.0, 0.0, 0.0, 1.0, 1.0, 1.0],
        "lxor": [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
    }),
    "BOOL": ([F, F, T, T], [F, T, F, T], {
        "plus": [F, T, T, T],
        "minus": [F, T, T, F],
        "times": [F, F, F, T],
        "min": [F, F, F, T],
        "max": [F, T, T, T],
        "first": [F, F, T, T],
        "second": [F, T, F, T],
        "pair": [T, T, T, T],
        "cdiv": [F, F, T, T],
        "pow": [T, F, T, T],
        "eq": [T, F, F, T],
        "gt": [F, F, T, F],
        "lxor": [F, T, T, F],
        "lxnor": [T, F, F, T],
    }),
}
TABLE_CASES = [(t, op) for t, (_, _, ops) in TABLES.items() for op in ops]
BOOL_OUT = {"eq", "ne", "gt", "lt", "ge", "le", "lxnor"}  # land, lor, lxor: 1 or 0 in the input type


@pytest.mark.parametrize("t,op", TABLE_CASES)
def test_typed_binary_table(backend: str, t: str, op: str) -> None:
    xs, ys, table = TABLES[t]
    n = len(xs)
    u = gb.Vector.from_coo(range(n), xs, size=n, dtype=t, backend=backend)
    v = gb.Vector.from_coo(range(n), ys, size=n, dtype=t, backend=backend)
    got = u.ewise_mult(v, getattr(gb.binary, op)).new()  # polymorphic: types at the inputs' type
    vals = got.to_coo()[1]
    expected_type = "BOOL" if op in BOOL_OUT else t
    assert got.dtype == getattr(gb.dtypes, expected_type)
    expected = np.array(table[op], dtype=getattr(gb.dtypes, expected_type).np_type)
    np.testing.assert_array_equal(vals, expected)  # NaN == NaN here; -0.0 == 0.0
    if t == "FP64":  # the sign of a zero or an infinity matters (a NaN's sign does not)
        num = ~np.isnan(expected)
        assert np.array_equal(np.signbit(vals[num]), np.signbit(expected[num]))
    # The same operator through the reference model, to keep the model honest.
    ex = ref.BINARY[op](np.array(xs), np.array(ys), np.dtype(getattr(gb.dtypes, t).np_type))
    np.testing.assert_array_equal(ex, expected)


UNARY_TABLE = {  # (type, x) -> {op: expected}
    "INT8": ([3, -3, 0, -128, 127], {
        "identity": [3, -3, 0, -128, 127],
        "ainv": [-3, 3, 0, -128, -127],
        "abs": [3, 3, 0, -128, 127],
        "minv": [0, 0, 127, 0, 0],
        "lnot": [0, 0, 1, 0, 0],
        "bnot": [-4, 2, -1, 127, -128],
        "one": [1, 1, 1, 1, 1],
    }),
    "FP32": ([2.0, -0.5, 0.0, NAN, -INF], {
        "ainv": [-2.0, 0.5, -0.0, NAN, INF],
        "abs": [2.0, 0.5, 0.0, NAN, INF],
        "minv": [0.5, -2.0, INF, NAN, -0.0],
        "sqrt": [np.sqrt(2.0), NAN, 0.0, NAN, NAN],
    }),
}


@pytest.mark.parametrize("t,op", [(t, op) for t, (_, ops) in UNARY_TABLE.items() for op in ops])
def test_typed_unary_table(backend: str, t: str, op: str) -> None:
    xs, table = UNARY_TABLE[t]
    u = gb.Vector.from_coo(range(len(xs)), xs, size=len(xs), dtype=t, backend=backend)
    got = u.apply(getattr(gb.unary, op)).new()
    dt = np.dtype(getattr(gb.dtypes, t).np_type)
    assert got.dtype.np_type == dt
    np.testing.assert_allclose(got.to_coo()[1], np.array(table[op], dtype=dt), rtol=1e-6)


def test_typed_operators_are_accepted(backend: str) -> None:
    """``op[dtype]`` fixes the type an operator computes in: the inputs are cast to it."""
    u = gb.Vector.from_coo([0, 1], [2.7, -3.9], size=2, backend=backend)
    v = gb.Vector.from_coo([0, 1], [1.6, 1.6], size=2, backend=backend)
    got = u.ewise_mult(v, gb.binary.plus["INT32"]).new()  # (2 + 1, -3 + 1) computed in INT32
    assert got.dtype == gb.dtypes.INT32 and got.to_coo()[1].tolist() == [3, -2]
    assert u.apply(gb.unary.ainv["INT8"]).new().to_coo()[1].tolist() == [-2, 3]
    assert u.ewise_add(v, gb.monoid.max["FP32"]).new().dtype == gb.dtypes.FP32
    A = gb.Matrix.from_coo([0], [0], [2.5], nrows=1, ncols=1, backend=backend)
    assert A.mxm(A, gb.semiring.plus_times["INT64"]).new().to_coo()[2].tolist() == [4]
    assert A.reduce_rowwise(gb.monoid.plus["INT16"]).new().dtype == gb.dtypes.INT16


IDENTITIES = [
    ("plus", "INT32", 0), ("plus", "FP64", 0.0), ("times", "UINT8", 1), ("times", "FP32", 1.0),
    ("min", "INT8", 127), ("min", "UINT64", 2**64 - 1), ("min", "FP64", INF), ("min", "INT64", 2**63 - 1),
    ("max", "INT16", -(2**15)), ("max", "UINT32", 0), ("max", "FP32", -INF), ("max", "INT64", -(2**63)),
    ("lor", "BOOL", False), ("land", "BOOL", True), ("lxor", "BOOL", False),
    ("band", "UINT8", 255), ("band", "INT32", -1), ("band", "UINT64", 2**64 - 1), ("bor", "INT16", 0),
    ("bxor", "UINT16", 0),
]


@pytest.mark.parametrize("name,t,identity", IDENTITIES)
def test_monoid_identity(name: str, t: str, identity: object) -> None:
    m = getattr(gb.monoid, name)[t]
    assert m.identity == identity
    assert np.asarray(m.identity).dtype == getattr(gb.dtypes, t).np_type


@pytest.mark.parametrize("name", ["plus", "times", "min", "max"])
def test_identity_is_neutral_in_ewise_union(backend: str, name: str) -> None:
    """op(x, identity) == x: ewise_union with the identity as the default equals a plain copy."""
    u = gb.Vector.from_coo([0, 2], [5, -3], size=4, dtype="INT32", backend=backend)
    e = gb.Vector("INT32", 4, backend=backend)
    ident = getattr(gb.monoid, name)["INT32"].identity
    got = u.ewise_union(e, getattr(gb.binary, name), ident, ident).new()
    assert got.isequal(u, check_dtype=True)


def test_lookup_by_string() -> None:
    assert gb.semiring["min_plus"] is gb.semiring.min_plus
    assert isinstance(gb.semiring["max_secondi"], gb.Semiring)  # any monoid x any binary operator
    assert gb.binary["cdiv"] is gb.binary.cdiv and gb.unary["ainv"] is gb.unary.ainv
    assert "min_plus" in gb.semiring and "nosuch_plus" not in gb.semiring
    with pytest.raises(AttributeError):
        gb.binary.nosuch  # noqa: B018 - the lookup is what raises


def test_string_and_object_agree(backend: str) -> None:
    rng = np.random.default_rng(0)
    A = ref.random(rng, (4, 5), np.dtype(np.float64), 0.6)
    B = ref.random(rng, (5, 3), np.dtype(np.float64), 0.6)
    Ag, Bg = to_gb(A, backend), to_gb(B, backend)
    for name in ("min_plus", "max_min", "plus_times", "max_second"):
        assert Ag.mxm(Bg, name).new().isequal(Ag.mxm(Bg, getattr(gb.semiring, name)).new(), check_dtype=True)


# ----------------------------------------------------------------------------- user-defined operators

UDF_BIN = ref.BinOp("udf_2x_plus_y", ref._dom_all, lambda t: t, lambda x, y, t, pos: x * 2 + y)
UDF_MAX = ref.BinOp("udf_cond_max", ref._dom_all, lambda t: t, lambda x, y, t, pos: np.where(x > y, x, y))


def test_user_binary_op(backend: str) -> None:
    binop = gb.binary.register_anonymous(lambda x, y: x * 2 + y)
    rng = np.random.default_rng(1)
    for dt in (np.dtype(np.int64), np.dtype(np.float64)):
        A = ref.random(rng, (4, 5), dt, 0.6, small=True)
        B = ref.random(rng, (4, 5), dt, 0.6, small=True)
        Ag, Bg = to_gb(A, backend), to_gb(B, backend)
        assert_matches(Ag.ewise_mult(Bg, binop).new(), _ewise(A, B, UDF_BIN, union=False))
        assert_matches(Ag.ewise_add(Bg, binop).new(), _ewise(A, B, UDF_BIN, union=True))
        assert_matches(Ag.apply(binop, right=ref.cast(3, dt)[()]).new(),
                       ref.Obj(np.where(A.present, A.values * 2 + 3, 0).astype(dt), A.present))


def _ewise(A: ref.Obj, B: ref.Obj, op: ref.BinOp, union: bool) -> ref.Obj:
    both = A.present & B.present
    v = np.where(A.present, A.values, B.values)
    v = np.where(both, op(A.values, B.values, A.dtype), v)
    return ref.Obj(v.astype(A.dtype), (A.present | B.present) if union else both)


def test_user_unary_op_with_conditional(backend: str) -> None:
    absolute = gb.unary.register_anonymous(lambda x: x if x > 0 else -x)
    u = gb.Vector.from_coo([0, 1, 2, 4], [-3.5, 0.0, 2.0, -1.0], size=5, backend=backend)
    idx, vals = u.apply(absolute).new().to_coo()
    assert idx.tolist() == [0, 1, 2, 4] and vals.tolist() == [3.5, 0.0, 2.0, 1.0]
    i = gb.Vector.from_coo([0, 1], [-7, 7], size=2, dtype="INT16", backend=backend)
    got = i.apply(absolute).new()
    assert got.to_coo()[1].tolist() == [7, 7] and got.dtype == gb.dtypes.INT16


def test_user_monoid_and_semiring_in_mxv(backend: str) -> None:
    """A monoid from a conditional lambda (max) and a semiring with a user multiply, used in mxv/vxm/mxm."""
    cond_max = gb.binary.register_anonymous(lambda x, y: max(y, x))
    mon = gb.monoid.register_anonymous(cond_max, -np.inf)
    mult = gb.binary.register_anonymous(lambda x, y: x * 2 + y)
    sr = gb.semiring.register_anonymous(mon, mult)
    rng = np.random.default_rng(2)
    dt = np.dtype(np.float64)
    A = ref.random(rng, (5, 6), dt, 0.5)
    u = ref.random(rng, (6,), dt, 0.7)
    w = ref.random(rng, (5,), dt, 0.7)
    mon_ref = ref.MonoidDef("udf_max", UDF_MAX, lambda t: -np.inf)
    Ag = to_gb(A, backend)
    assert_matches(Ag.mxv(to_gb(u, backend), sr).new(), ref.mxv(A, u, mon_ref, UDF_BIN))
    assert_matches(to_gb(w, backend).vxm(Ag, sr).new(), ref.vxm(w, A, mon_ref, UDF_BIN))
    assert_matches(Ag.mxm(Ag.T, sr).new(), ref.mxm(A, A.T, mon_ref, UDF_BIN))
    # the user monoid in a reduction
    assert_matches(Ag.reduce_rowwise(mon).new(), ref.reduce_rowwise(A, "max"))


def test_register_new_by_name(backend: str) -> None:
    name = "test_udf_absdiff"
    if name not in gb.binary:
        gb.binary.register_new(name, lambda x, y: x - y if x > y else y - x)
    op = gb.binary[name]
    assert getattr(gb.binary, name) is op
    u = gb.Vector.from_coo([0, 1], [1, 9], size=2, dtype="INT32", backend=backend)
    v = gb.Vector.from_coo([0, 1], [4, 2], size=2, dtype="INT32", backend=backend)
    assert u.ewise_mult(v, name).new().to_coo()[1].tolist() == [3, 7]
    with pytest.raises(gb.exceptions.InvalidValue):
        gb.binary.register_new(name, lambda x, y: x)  # names are unique


@pytest.mark.parametrize("bitwise,logical", [("bor", "lor"), ("band", "land"), ("bxor", "lxor"), ("bxnor", "lxnor")])
def test_bitwise_on_bool(backend: str, bitwise: str, logical: str) -> None:
    """BOOL is outside the spec's domain of the bitwise operators: either DomainMismatch, or the
    one-bit reading, which is the logical operator (~(x ^ y) on a C bool must not promote to int)."""
    u = gb.Vector.from_coo(range(4), [F, F, T, T], size=4, backend=backend)
    v = gb.Vector.from_coo(range(4), [F, T, F, T], size=4, backend=backend)
    try:
        got = u.ewise_mult(v, getattr(gb.binary, bitwise)).new()
    except gb.exceptions.DomainMismatch:
        return
    assert got.isequal(u.ewise_mult(v, getattr(gb.binary, logical)).new(), check_dtype=True)
