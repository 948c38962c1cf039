"""The type an untyped accumulator computes in: python-graphblas types ``accum=binary.plus``
(and ``C(plus) << T``, ``v += w``) by the output's type alone, so T's values are cast to C's
type before they are combined (``INT64 += 2.7`` adds 2; ``UINT64`` with ``-2`` wraps).  Each
form runs on both libraries and the results are compared: full and sparse Vectors (the
bitmap and the entry-list writes), Matrices, Scalars, assign and sub-assign, masks, ``+=`` and
an accumulated product."""

from __future__ import annotations

from typing import Any

import pytest
from pgcompat import same

PAIRS = (("INT64", "FP64"), ("BOOL", "INT64"), ("FP32", "FP64"), ("UINT8", "INT8"), ("INT8", "UINT8"),
         ("FP64", "INT64"), ("INT32", "BOOL"), ("UINT64", "INT64"), ("BOOL", "FP64"), ("FP64", "FP32"))
OPS = ("plus", "minus", "rminus", "times", "truediv", "max", "min", "second", "pow", "eq", "atan2")
VALUES = {"BOOL": [True, False, True], "INT64": [3, -2, 7], "FP64": [2.7, -1.5, 0.25], "FP32": [1.1, 2.2, 3.3],
          "UINT8": [250, 3, 9], "INT8": [-3, 100, -128], "INT32": [5, -6, 0], "UINT64": [5, 6, 7]}


def _vector(gb: Any, dtype: str, size: int) -> Any:
    """Three entries of ``dtype``: a full Vector (size 3) or a sparse one (size 40)."""
    where = [0, 1, 2] if size == 3 else [1, 17, 33]
    return gb.Vector.from_coo(where, VALUES[dtype], dtype=dtype, size=size)


def _write(form: str, out: str, inp: str, op: str) -> Any:
    """A snippet writing an ``inp`` result into an ``out`` object through ``binary.<op>``."""
    def snippet(gb: Any) -> Any:
        accum = getattr(gb.binary, op)
        if form == "matrix":
            C = gb.Matrix.from_coo([0, 1, 1], [0, 0, 1], VALUES[out], dtype=out)
            C(accum=accum) << gb.Matrix.from_coo([0, 1, 1], [0, 0, 1], VALUES[inp], dtype=inp)
            return C
        if form == "scalar":
            s = gb.Scalar.from_value(VALUES[out][1], dtype=out)
            s(accum=accum) << gb.Scalar.from_value(VALUES[inp][0], dtype=inp)
            return s
        size = 40 if form.startswith("sparse") else 3
        C, T = _vector(gb, out, size), _vector(gb, inp, size)
        if form in ("full", "sparse"):
            C(accum=accum) << T
        elif form == "positional":
            C(accum) << T.apply(gb.unary.identity)
        elif form in ("masked", "sparse_masked"):
            C(T.S, accum=accum) << T
        elif form == "assign_scalar":
            C(accum=accum)[:] << gb.Scalar.from_value(VALUES[inp][0], dtype=inp)
        elif form == "assign":
            C(accum=accum)[[0, 2]] << T[[1, 2]].new()
        elif form == "subassign":
            C[[0, 2]](accum=accum) << T[[1, 2]].new()
        return C
    return snippet


FORMS = ("full", "sparse", "positional", "masked", "sparse_masked", "matrix", "scalar", "assign_scalar",
         "assign", "subassign")


@pytest.mark.parametrize(("out", "inp"), PAIRS, ids=[f"{o}<-{i}" for o, i in PAIRS])
@pytest.mark.parametrize("form", FORMS)
def test_untyped_accumulator_takes_the_output_type(backend: str, form: str, out: str, inp: str) -> None:
    # A float pow or atan2 may differ in its last bit between libraries (SuiteSparse's libm,
    # NumPy's SIMD loops, CUDA): compared exactly, only where the output is an integer.
    inexact = ("pow", "atan2") if out.startswith("FP") else ()
    for op in OPS:
        if op not in inexact:
            same(_write(form, out, inp, op), backend)


@pytest.mark.parametrize(("out", "inp"), PAIRS, ids=[f"{o}<-{i}" for o, i in PAIRS])
def test_inplace_add(backend: str, out: str, inp: str) -> None:
    """``v += w`` is ``v(binary.plus) << w``; ``A += B`` likewise."""
    def vectors(gb: Any) -> Any:
        v = _vector(gb, out, 3)
        v += _vector(gb, inp, 3)
        return v

    def matrices(gb: Any) -> Any:
        A = gb.Matrix.from_coo([0, 1, 1], [0, 0, 1], VALUES[out], dtype=out, nrows=3, ncols=2)
        A += gb.Matrix.from_coo([0, 1, 2], [0, 0, 1], VALUES[inp], dtype=inp)
        return A

    def scalars(gb: Any) -> Any:
        s = gb.Scalar.from_value(VALUES[out][0], dtype=out)
        s += gb.Scalar.from_value(VALUES[inp][2], dtype=inp)
        t = gb.Scalar.from_value(VALUES[out][2], dtype=out)
        t += VALUES[inp][0]
        return s, t

    same(vectors, backend)
    same(matrices, backend)
    same(scalars, backend)


@pytest.mark.parametrize(("out", "inp"), (("INT64", "FP64"), ("FP32", "FP64"), ("UINT8", "INT8")))
def test_accumulated_product(backend: str, out: str, inp: str) -> None:
    """``w(plus) << A @ v``: the product is in ``inp``, its accumulation in ``out``."""
    def snippet(gb: Any) -> Any:
        A = gb.Matrix.from_coo([0, 0, 1, 2], [0, 2, 1, 0], [1, 2, 3, 1], dtype=inp)
        w = _vector(gb, out, 3)
        w(accum=gb.binary.plus) << A.mxv(_vector(gb, inp, 3), gb.semiring.plus_times)
        w(accum=gb.binary.min) << A.mxv(_vector(gb, inp, 3), gb.semiring.max_times)
        return w

    same(snippet, backend)


def test_typed_accumulator_keeps_its_types(backend: str) -> None:
    """The C API rule: an accumulator given with its type computes in that type (C's and T's
    values cast to its inputs, the result cast to C's type)."""
    def snippet(gb: Any) -> Any:
        v = _vector(gb, "INT64", 3)
        v(accum=gb.binary.plus["FP64"]) << _vector(gb, "FP64", 3)
        w = _vector(gb, "FP32", 3)
        w(accum=gb.binary.truediv["FP64"]) << _vector(gb, "FP64", 3)
        return v, w

    same(snippet, backend)


def test_pagerank_demo_damping(backend: str) -> None:
    """The Pagerank Demo notebook's ``d(accum=binary.truediv)[:] << 0.85`` on FP32: divided in
    FP32, as there."""
    def snippet(gb: Any) -> Any:
        d = gb.Vector.from_coo([0, 1, 2], [3.0, 1.0, 7.0], dtype="FP32")
        d(accum=gb.binary.truediv)[:] << 0.85
        r = gb.Vector.from_coo([0, 1, 2], [0.1, 0.2, 0.3], dtype="FP32")
        r(accum=gb.binary.plus) << r.ewise_mult(d, gb.binary.times)
        return d, r

    same(snippet, backend)


def test_monoid_accumulator(backend: str) -> None:
    """A Monoid as accumulator gives its operator, typed by the output too."""
    def snippet(gb: Any) -> Any:
        out = []
        for o, i in (p for p in PAIRS if p[0] != "BOOL"):  # monoid.plus has no BOOL there
            v = _vector(gb, o, 3)
            v(accum=gb.monoid.plus) << _vector(gb, i, 3)
            out.append(v)
        return out

    same(snippet, backend)
