"""The mask / accumulate / replace rule (C API 2.1 section 3.3) for every operation that
writes ``C<M, replace> = C accum T``, in every combination:

operation x syntax (method + ``<<``, C-style with a predefined descriptor, C-style with a
built ``gb.Descriptor``) x mask kind (none, value, structure, complemented value,
complemented structure) x accumulator (none, plus, min) x replace x transposed inputs.

Each operation is one row of CASES: how to make its inputs, its reference result T, its
method expression and its C-style call.  Inputs flagged for transposition are *stored*
transposed and transposed back by ``.T`` or the descriptor, so T is the same either way.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import reference as ref
from conftest import MASK_KINDS, SYNTAXES, accum_op, assert_matches, random_mask, ref_mask, run, seed_of, to_gb

import grblas_gpu as gb

I64, F64 = np.dtype(np.int64), np.dtype(np.float64)


@dataclass(frozen=True)
class Case:
    inputs: dict[str, tuple[tuple[int, ...], np.dtype]]  # logical name -> (shape, dtype); "A" and "B" may be transposed
    out: tuple[tuple[int, ...], np.dtype]  # C's shape and dtype
    reference: Callable[[dict[str, ref.Obj]], ref.Obj]
    method: Callable[[dict[str, Any]], Any]  # g (with .T already applied where needed) -> expression
    cfunc: Callable[[Any, Any, Any, Any, dict[str, Any]], None]  # (C, mask, accum, desc, stored g)
    transposable: tuple[str, ...] = ()  # inputs that the descriptor can transpose: "A" (T0), "B" (T1)


sr_pt, sr_mp = gb.semiring.plus_times, gb.semiring.min_plus

CASES: dict[str, Case] = {
    "mxm_plus_times": Case(
        {"A": ((5, 7), I64), "B": ((7, 4), I64)}, ((5, 4), I64),
        lambda r: ref.mxm(r["A"], r["B"], "plus", "times"),
        lambda g: g["A"].mxm(g["B"], sr_pt),
        lambda C, m, a, d, g: gb.mxm(C, m, a, sr_pt, g["A"], g["B"], d), ("A", "B")),
    "mxm_min_plus_fp": Case(
        {"A": ((5, 7), F64), "B": ((7, 4), F64)}, ((5, 4), F64),
        lambda r: ref.mxm(r["A"], r["B"], "min", "plus"),
        lambda g: g["A"].mxm(g["B"], sr_mp),
        lambda C, m, a, d, g: gb.mxm(C, m, a, sr_mp, g["A"], g["B"], d), ("A", "B")),
    "mxv": Case(
        {"A": ((5, 7), I64), "u": ((7,), I64)}, ((5,), I64),
        lambda r: ref.mxv(r["A"], r["u"], "plus", "times"),
        lambda g: g["A"].mxv(g["u"], sr_pt),
        lambda C, m, a, d, g: gb.mxv(C, m, a, sr_pt, g["A"], g["u"], d), ("A",)),
    "vxm": Case(
        {"u": ((5,), I64), "B": ((5, 7), I64)}, ((7,), I64),
        lambda r: ref.vxm(r["u"], r["B"], "plus", "times"),
        lambda g: g["u"].vxm(g["B"], sr_pt),
        lambda C, m, a, d, g: gb.vxm(C, m, a, sr_pt, g["u"], g["B"], d), ("B",)),
    "ewise_add_minus": Case(
        {"A": ((5, 4), I64), "B": ((5, 4), I64)}, ((5, 4), I64),
        lambda r: ref.ewise_add(r["A"], r["B"], "minus"),
        lambda g: g["A"].ewise_add(g["B"], gb.binary.minus),
        lambda C, m, a, d, g: gb.eWiseAdd(C, m, a, gb.binary.minus, g["A"], g["B"], d), ("A", "B")),
    "ewise_mult_times": Case(
        {"A": ((5, 4), I64), "B": ((5, 4), I64)}, ((5, 4), I64),
        lambda r: ref.ewise_mult(r["A"], r["B"], "times"),
        lambda g: g["A"].ewise_mult(g["B"], gb.binary.times),
        lambda C, m, a, d, g: gb.eWiseMult(C, m, a, gb.binary.times, g["A"], g["B"], d), ("A", "B")),
    "ewise_union_minus": Case(
        {"A": ((5, 4), I64), "B": ((5, 4), I64)}, ((5, 4), I64),
        lambda r: ref.ewise_union(r["A"], r["B"], "minus", 10, -20),
        lambda g: g["A"].ewise_union(g["B"], gb.binary.minus, 10, -20),
        lambda C, m, a, d, g: gb.eWiseUnion(C, m, a, gb.binary.minus, g["A"], 10, g["B"], -20, d), ("A", "B")),
    "ewise_add_vector": Case(
        {"u": ((9,), F64), "v": ((9,), F64)}, ((9,), F64),
        lambda r: ref.ewise_add(r["u"], r["v"], "max"),
        lambda g: g["u"].ewise_add(g["v"], gb.binary.max),
        lambda C, m, a, d, g: gb.eWiseAdd(C, m, a, gb.binary.max, g["u"], g["v"], d)),
    "apply_ainv": Case(
        {"A": ((5, 4), I64)}, ((5, 4), I64),
        lambda r: ref.apply_unary(r["A"], "ainv"),
        lambda g: g["A"].apply(gb.unary.ainv),
        lambda C, m, a, d, g: gb.apply(C, m, a, gb.unary.ainv, g["A"], d), ("A",)),
    "apply_bind_left": Case(
        {"A": ((5, 4), I64)}, ((5, 4), I64),
        lambda r: ref.apply_bind(r["A"], "minus", np.int64(3), "left"),
        lambda g: g["A"].apply(gb.binary.minus, left=3),
        lambda C, m, a, d, g: gb.apply(C, m, a, gb.binary.minus, g["A"], d, left=3), ("A",)),
    "apply_bind_right": Case(
        {"A": ((5, 4), I64)}, ((5, 4), I64),
        lambda r: ref.apply_bind(r["A"], "minus", np.int64(3), "right"),
        lambda g: g["A"].apply(gb.binary.minus, right=3),
        lambda C, m, a, d, g: gb.apply(C, m, a, gb.binary.minus, g["A"], d, right=3), ("A",)),
    "apply_rowindex": Case(
        {"A": ((5, 4), I64)}, ((5, 4), I64),
        lambda r: ref.apply_index(r["A"], "rowindex", 2),
        lambda g: g["A"].apply(gb.indexunary.rowindex, 2),
        lambda C, m, a, d, g: gb.apply(C, m, a, gb.indexunary.rowindex, g["A"], d, thunk=2), ("A",)),
    "select_tril": Case(
        {"A": ((5, 4), I64)}, ((5, 4), I64),
        lambda r: ref.select(r["A"], "tril", 0),
        lambda g: g["A"].select(gb.select.tril, 0),
        lambda C, m, a, d, g: gb.select(C, m, a, gb.select.tril, g["A"], 0, d), ("A",)),
    "select_valuegt": Case(
        {"u": ((9,), I64)}, ((9,), I64),
        lambda r: ref.select(r["u"], "valuegt", 0),
        lambda g: g["u"].select(gb.select.valuegt, 0),
        lambda C, m, a, d, g: gb.select(C, m, a, gb.select.valuegt, g["u"], 0, d)),
    "reduce_rowwise": Case(
        {"A": ((5, 4), I64)}, ((5,), I64),
        lambda r: ref.reduce_rowwise(r["A"], "plus"),
        lambda g: g["A"].reduce_rowwise(gb.monoid.plus),
        lambda C, m, a, d, g: gb.reduce(C, m, a, gb.monoid.plus, g["A"], d), ("A",)),
    "extract": Case(
        {"A": ((5, 6), I64)}, ((4, 3), I64),
        lambda r: ref.extract(r["A"], [4, 0, 0, 2], slice(1, 6, 2)),
        lambda g: g["A"][[4, 0, 0, 2], 1:6:2],
        lambda C, m, a, d, g: gb.extract(C, m, a, g["A"], [4, 0, 0, 2], slice(1, 6, 2), d), ("A",)),
    "extract_vector": Case(
        {"u": ((9,), I64)}, ((5,), I64),
        lambda r: ref.extract(r["u"], [8, 1, 1, 0, 5]),
        lambda g: g["u"][[8, 1, 1, 0, 5]],
        lambda C, m, a, d, g: gb.extract(C, m, a, g["u"], [8, 1, 1, 0, 5], d)),
    "transpose": Case(
        {"X": ((4, 5), I64)}, ((5, 4), I64),
        lambda r: ref.transpose(r["X"]),
        lambda g: g["X"].T,
        lambda C, m, a, d, g: gb.transpose(C, m, a, g["X"], d)),
    "kronecker": Case(
        {"A": ((2, 3), I64), "B": ((3, 2), I64)}, ((6, 6), I64),
        lambda r: ref.kronecker(r["A"], r["B"], "times"),
        lambda g: g["A"].kronecker(g["B"], gb.binary.times),
        lambda C, m, a, d, g: gb.kronecker(C, m, a, gb.binary.times, g["A"], g["B"], d), ("A", "B")),
}


def transposes(case: str) -> list[tuple[bool, bool]]:
    t = CASES[case].transposable
    return [(t0, t1) for t0, t1 in itertools.product([False, True], repeat=2)
            if (t0 <= ("A" in t)) and (t1 <= ("B" in t))]


PARAMS = [(c, t0, t1) for c in CASES for t0, t1 in transposes(c)]


@pytest.mark.parametrize("replace", [False, True], ids=["merge", "replace"])
@pytest.mark.parametrize("accum", [None, "plus", "min"])
@pytest.mark.parametrize("mask_kind", MASK_KINDS)
@pytest.mark.parametrize("syntax", SYNTAXES)
@pytest.mark.parametrize("case,t0,t1", PARAMS)
def test_output_rule(backend: str, case: str, t0: bool, t1: bool, syntax: str, mask_kind: str,
                     accum: str | None, replace: bool) -> None:
    c = CASES[case]
    rng = np.random.default_rng(seed_of(case, t0, t1, mask_kind, accum, replace))
    logical = {k: ref.random(rng, shape, dt, 0.55, small=True) for k, (shape, dt) in c.inputs.items()}
    flip = {"A": t0, "B": t1}
    stored = {k: (v.T if flip.get(k, False) else v) for k, v in logical.items()}
    g = {k: to_gb(v, backend) for k, v in stored.items()}
    C0 = ref.random(rng, *c.out, 0.5, small=True)
    M = random_mask(rng, c.out[0])
    C, Mg = to_gb(C0, backend), to_gb(M, backend)

    def method() -> Any:
        return c.method({k: (v.T if flip.get(k, False) else v) for k, v in g.items()})

    run(syntax, C, Mg, mask_kind, accum_op(accum), replace, method,
        lambda mask, acc, desc: c.cfunc(C, mask, acc, desc, g), t0, t1)
    T = c.reference(logical)
    assert_matches(C, ref.write(C0, T, accum=accum, replace=replace, **ref_mask(M, mask_kind)))


@pytest.mark.parametrize("replace", [False, True], ids=["merge", "replace"])
@pytest.mark.parametrize("accum", [None, "plus"])
@pytest.mark.parametrize("case", ["mxm_plus_times", "ewise_add_minus", "apply_bind_right", "select_tril",
                                  "transpose", "extract"])
def test_complemented_null_mask(backend: str, case: str, accum: str | None, replace: bool) -> None:
    """Spec: a NULL mask is all true; COMP makes it all false. C is unchanged, or cleared with REPLACE."""
    c = CASES[case]
    rng = np.random.default_rng(seed_of("null", case, accum, replace))
    g = {k: to_gb(ref.random(rng, shape, dt, 0.55, small=True), backend) for k, (shape, dt) in c.inputs.items()}
    C0 = ref.random(rng, *c.out, 0.5, small=True)
    C = to_gb(C0, backend)
    c.cfunc(C, None, accum_op(accum), gb.Descriptor(replace=replace, mask_complement=True), g)
    assert_matches(C, ref.write(C0, ref.empty(c.out[0], c.out[1]), None, accum, replace, complement=True))
    assert C.nvals == (0 if replace else C0.nvals)


def test_complemented_null_mask_assign(backend: str) -> None:
    C0 = ref.random(np.random.default_rng(5), (4, 5), I64, 0.5)
    for desc, expected_nvals in ((gb.descriptor.C, C0.nvals), (gb.descriptor.RC, 0)):
        C = to_gb(C0, backend)
        gb.assign(C, None, None, 7, [0, 1], [2, 3], desc)
        assert C.nvals == expected_nvals
        if expected_nvals:
            assert_matches(C, C0)


HAND = {  # (mask kind, accum, replace) -> C afterwards; worked out by hand from spec section 3.3
    ("value", None, False): {1: 2, 2: 3, 3: 30, 4: 40, 5: 50},
    ("value", None, True): {3: 30, 4: 40, 5: 50},
    ("value", "plus", False): {0: 1, 1: 2, 2: 3, 3: 30, 4: 45, 5: 50},
    ("value", "plus", True): {0: 1, 3: 30, 4: 45, 5: 50},
    ("structure", None, False): {1: 10, 2: 3, 3: 30, 4: 40, 5: 50},
    ("comp_value", None, False): {0: 1, 1: 10, 4: 5},
    ("comp_value", "plus", True): {1: 12, 2: 3},
    ("none", "plus", False): {0: 1, 1: 12, 2: 3, 3: 30, 4: 45, 5: 50},
}


@pytest.mark.parametrize("mask_kind,accum,replace", sorted(HAND, key=str))
def test_output_rule_hand_example(backend: str, mask_kind: str, accum: str | None, replace: bool) -> None:
    """C = {0:1, 1:2, 2:3, 4:5}, T = {1:10, 3:30, 4:40, 5:50}, M = {0:1, 1:0, 3:1, 4:2, 5:1}:
    the model and the library both give the hand-computed C."""
    C0 = ref.from_coo((6,), ([0, 1, 2, 4],), [1, 2, 3, 5], I64)
    T = ref.from_coo((6,), ([1, 3, 4, 5],), [10, 30, 40, 50], I64)
    M = ref.from_coo((6,), ([0, 1, 3, 4, 5],), [1, 0, 1, 2, 1], I64)
    expected = HAND[(mask_kind, accum, replace)]
    model = ref.write(C0, T, accum=accum, replace=replace, **ref_mask(M, mask_kind))
    assert dict(zip(*[x.tolist() for x in model.coo()])) == expected
    C, Mg = to_gb(C0, backend), to_gb(M, backend)
    run("method", C, Mg, mask_kind, accum_op(accum), replace, lambda: to_gb(T, backend).apply(gb.unary.identity),
        lambda *a: None)
    idx, vals = C.to_coo()
    assert dict(zip(idx.tolist(), vals.tolist())) == expected
