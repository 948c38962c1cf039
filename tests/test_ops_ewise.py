"""eWiseAdd (union), eWiseMult (intersection) and eWiseUnion (union with defaults) against the
reference, over a table of operators x types, on matrices and vectors."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from conftest import TEST_TYPES, assert_matches, np_type, seed_of, to_gb

import grblas_gpu as gb

ARITH = ("plus", "minus", "rminus", "times", "first", "second", "min", "max", "pair")
DIVISION = ("truediv", "cdiv", "floordiv", "pow")
COMPARE = ("eq", "ne", "gt", "le")
LOGICAL = ("lor", "land", "lxor")
BITWISE = ("bor", "band", "bxor")


def ops_for(t: str) -> tuple[str, ...]:
    ops = ARITH + DIVISION + COMPARE + LOGICAL
    return ops + (BITWISE if t not in ("FP32", "FP64") else ())


CASES = [(op, t) for t in TEST_TYPES for op in ops_for(t)]


def pair(seed: int, t: str, shape: tuple[int, ...] = (5, 4)) -> tuple[ref.Obj, ref.Obj]:
    rng = np.random.default_rng(seed)
    dt = np_type(getattr(gb.dtypes, t))
    return ref.random(rng, shape, dt, 0.6, small=True), ref.random(rng, shape, dt, 0.6, small=True)


@pytest.mark.parametrize("op,t", CASES)
def test_ewise_matrix(backend: str, op: str, t: str) -> None:
    A, B = pair(seed_of(op, t), t)
    Ag, Bg = to_gb(A, backend), to_gb(B, backend)
    binop = getattr(gb.binary, op)
    assert_matches(Ag.ewise_add(Bg, binop).new(), ref.ewise_add(A, B, op))
    assert_matches(Ag.ewise_mult(Bg, binop).new(), ref.ewise_mult(A, B, op))
    alpha, beta = (ref.cast(x, A.dtype)[()] for x in (1, 3))  # typed scalars: no promotion question
    assert_matches(Ag.ewise_union(Bg, binop, alpha, beta).new(), ref.ewise_union(A, B, op, alpha, beta))


@pytest.mark.parametrize("form", ["sparse", "bitmap"])
@pytest.mark.parametrize("op", ARITH + DIVISION + COMPARE)
@pytest.mark.parametrize("t", ["INT8", "UINT64", "FP32"])
def test_ewise_vector(backend: str, op: str, t: str, form: str) -> None:
    """Vector eWiseAdd/Mult/Union against the reference, the Vectors held sparse or as bitmaps
    (whose union runs as one fused pass)."""
    u, v = pair(seed_of(op, t, "v"), t, (11,))
    ug, vg = to_gb(u, backend), to_gb(v, backend)
    if form == "bitmap":
        for w in (ug, vg):
            w._set_bitmap(*w._bitmap(), w.nvals)  # keep only the bitmap form
    binop = getattr(gb.binary, op)
    assert_matches(ug.ewise_add(vg, binop).new(), ref.ewise_add(u, v, op))
    assert_matches(ug.ewise_mult(vg, binop).new(), ref.ewise_mult(u, v, op))
    alpha, beta = (ref.cast(x, u.dtype)[()] for x in (-1, 5))
    assert_matches(ug.ewise_union(vg, binop, alpha, beta).new(), ref.ewise_union(u, v, op, alpha, beta))


@pytest.mark.parametrize("form", ["string", "monoid", "semiring", "typed"])
def test_operator_forms(backend: str, form: str) -> None:
    """ewise_add takes a BinaryOp, a Monoid, a Semiring (its add), or a name; ewise_mult a Semiring's mult."""
    A, B = pair(1, "INT32")
    Ag, Bg = to_gb(A, backend), to_gb(B, backend)
    add_op, mult_op = {
        "string": ("max", "minus"),
        "monoid": (gb.monoid.max, gb.monoid.times),
        "semiring": (gb.semiring.max_minus, gb.semiring.max_minus),
        "typed": (gb.binary.max["INT32"], gb.binary.minus["INT32"]),
    }[form]
    assert_matches(Ag.ewise_add(Bg, add_op).new(), ref.ewise_add(A, B, "max"))
    expected_mult = "times" if form == "monoid" else "minus"
    assert_matches(Ag.ewise_mult(Bg, mult_op).new(), ref.ewise_mult(A, B, expected_mult))


def test_default_operators(backend: str) -> None:
    A, B = pair(2, "FP64")
    Ag, Bg = to_gb(A, backend), to_gb(B, backend)
    assert_matches(Ag.ewise_add(Bg).new(), ref.ewise_add(A, B, "plus"))
    assert_matches(Ag.ewise_mult(Bg).new(), ref.ewise_mult(A, B, "times"))


def test_lone_value_passes_through(backend: str) -> None:
    """Spec: eWiseAdd with MINUS gives A - B where both exist and the lone value unchanged (not negated)."""
    u = gb.Vector.from_coo([0, 1], [5, 7], size=3, backend=backend)
    v = gb.Vector.from_coo([1, 2], [2, 9], size=3, backend=backend)
    idx, vals = u.ewise_add(v, gb.binary.minus).new().to_coo()
    assert (idx.tolist(), vals.tolist()) == ([0, 1, 2], [5, 5, 9])
    idx, vals = u.ewise_union(v, gb.binary.minus, 0, 0).new().to_coo()
    assert (idx.tolist(), vals.tolist()) == ([0, 1, 2], [5, 5, -9])
    idx, vals = u.ewise_mult(v, gb.binary.minus).new().to_coo()
    assert (idx.tolist(), vals.tolist()) == ([1], [5])


@pytest.mark.parametrize("ta,tb", [("INT32", "FP64"), ("UINT8", "INT8"), ("BOOL", "INT64"), ("INT64", "UINT64")])
def test_mixed_input_types(backend: str, ta: str, tb: str) -> None:
    """A polymorphic operator computes in the promoted type of its inputs."""
    rng = np.random.default_rng(seed_of(ta, tb))
    A = ref.random(rng, (4, 5), np_type(getattr(gb.dtypes, ta)), 0.6, small=True)
    B = ref.random(rng, (4, 5), np_type(getattr(gb.dtypes, tb)), 0.6, small=True)
    Ag, Bg = to_gb(A, backend), to_gb(B, backend)
    assert_matches(Ag.ewise_add(Bg, gb.binary.plus).new(), ref.ewise_add(A, B, "plus"))
    assert_matches(Ag.ewise_mult(Bg, gb.binary.minus).new(), ref.ewise_mult(A, B, "minus"))


def test_lone_values_cast_to_op_output(backend: str) -> None:
    """eWiseAdd with a comparison: lone values are cast to the operator's output type (BOOL)."""
    u = gb.Vector.from_coo([0, 1, 2], [0.0, 2.5, 3.0], size=4, backend=backend)
    v = gb.Vector.from_coo([1, 3], [2.5, -1.0], size=4, backend=backend)
    w = u.ewise_add(v, gb.binary.eq).new()
    assert w.dtype == gb.dtypes.BOOL
    idx, vals = w.to_coo()
    assert idx.tolist() == [0, 1, 2, 3] and vals.tolist() == [False, True, True, True]
