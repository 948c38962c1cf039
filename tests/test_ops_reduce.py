"""reduce row-wise, column-wise, to a Scalar (matrix and vector), with every monoid x type."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from conftest import SYNTAXES, TEST_TYPES, assert_matches, descriptor, np_type, seed_of, to_gb, to_model

import grblas_gpu as gb

NUMERIC_MONOIDS = ("plus", "times", "min", "max")
CASES = (
    [(m, t) for m in NUMERIC_MONOIDS for t in TEST_TYPES]
    + [(m, t) for m in ("lor", "land", "lxor") for t in ("BOOL",)]
    + [(m, t) for m in ("bor", "band", "bxor") for t in ("INT8", "UINT64", "INT64")]
)


def operand(seed: int, t: str, shape: tuple[int, ...] = (6, 5), density: float = 0.5) -> ref.Obj:
    return ref.random(np.random.default_rng(seed), shape, np_type(getattr(gb.dtypes, t)), density, small=True)


@pytest.mark.parametrize("monoid,t", CASES)
def test_reduce(backend: str, monoid: str, t: str) -> None:
    A = operand(seed_of(monoid, t), t)
    A.present[2, :] = False  # an empty row: absent in the row-wise result
    A.present[:, 3] = False  # an empty column
    u = operand(seed_of(monoid, t, "v"), t, (9,))
    Ag, ug = to_gb(A, backend), to_gb(u, backend)
    op = getattr(gb.monoid, monoid)
    assert_matches(Ag.reduce_rowwise(op).new(), ref.reduce_rowwise(A, monoid))
    assert_matches(Ag.reduce_columnwise(op).new(), ref.reduce_columnwise(A, monoid))
    assert_matches(Ag.T.reduce_rowwise(op).new(), ref.reduce_columnwise(A, monoid))
    assert_matches(Ag.reduce_scalar(op).new(), ref.reduce_scalar(A, monoid))
    assert_matches(ug.reduce(op).new(), ref.reduce_scalar(u, monoid))


@pytest.mark.parametrize("t", ["INT32", "FP64"])
def test_reduce_any(backend: str, t: str) -> None:
    """The ANY monoid returns one of the entries of each row."""
    A = operand(seed_of("any", t), t)
    got = to_model(to_gb(A, backend).reduce_rowwise(gb.monoid.any).new())
    assert np.array_equal(got.present, A.present.any(axis=1))
    for i in np.nonzero(got.present)[0]:
        assert got.values[i] in A.values[i, A.present[i]]
    s = to_gb(A, backend).reduce_scalar("any").new()
    assert s.value in A.values[A.present]


def test_reduce_defaults_and_strings(backend: str) -> None:
    A = operand(1, "INT64")
    Ag = to_gb(A, backend)
    assert_matches(Ag.reduce_rowwise().new(), ref.reduce_rowwise(A, "plus"))
    assert_matches(Ag.reduce_columnwise("max").new(), ref.reduce_columnwise(A, "max"))
    assert Ag.reduce_scalar().new().value == ref.reduce_scalar(A, "plus").values[()]


@pytest.mark.parametrize("monoid", ["plus", "min", "max", "times"])
def test_reduce_empty(backend: str, monoid: str) -> None:
    """No entries: row-wise results are empty, a reduction to a GrB_Scalar is an empty Scalar."""
    A = gb.Matrix("INT32", 3, 4, backend=backend)
    assert A.reduce_rowwise(monoid).new().nvals == 0
    assert A.reduce_columnwise(monoid).new().size == 4
    s = A.reduce_scalar(monoid).new()
    assert s.is_empty and s.value is None
    assert gb.Vector("FP64", 0, backend=backend).reduce(monoid).new().is_empty


@pytest.mark.parametrize("syntax", SYNTAXES)
@pytest.mark.parametrize("accum", [None, "plus"])
@pytest.mark.parametrize("initial", [None, 100])
@pytest.mark.parametrize("empty_input", [False, True])
def test_reduce_to_scalar_output_rule(backend: str, syntax: str, accum: str | None, initial: int | None,
                                      empty_input: bool) -> None:
    """s = s accum reduce(A); with an empty A and no accum the Scalar becomes empty."""
    A = operand(seed_of(accum, initial, empty_input), "INT64")
    if empty_input:
        A.present[:] = False
    s0 = ref.Obj(np.array(initial or 0, np.int64), np.array(initial is not None))
    s = to_gb(s0)
    acc = None if accum is None else getattr(gb.binary, accum)
    if syntax == "method":
        s(accum=acc) << to_gb(A, backend).reduce_scalar(gb.monoid.plus)
    else:
        gb.reduce(s, None, acc, gb.monoid.plus, to_gb(A, backend), descriptor(syntax))
    assert_matches(s, ref.write(s0, ref.reduce_scalar(A, "plus"), accum=accum))


@pytest.mark.parametrize("t", ["FP32", "FP64"])
def test_reduce_nan_inf(backend: str, t: str) -> None:
    """min/max use fmin/fmax: NaN loses to any number; plus propagates NaN and inf."""
    dt = np_type(getattr(gb.dtypes, t))
    A = ref.from_coo((3, 4), ([0, 0, 1, 1, 2, 2], [0, 1, 0, 2, 1, 3]),
                     [np.nan, 2.0, np.nan, np.nan, -np.inf, 5.0], dt)
    Ag = to_gb(A, backend)
    for m in ("min", "max", "plus", "times"):
        got = to_model(Ag.reduce_rowwise(m).new())
        assert_matches(got, ref.reduce_rowwise(A, m))
    mins = Ag.reduce_rowwise("min").new().to_coo()[1]
    assert mins[0] == 2.0 and np.isnan(mins[1]) and mins[2] == -np.inf
    assert Ag.reduce_scalar("max").new().value == 5.0


@pytest.mark.parametrize("t", ["INT8", "UINT8", "INT16", "UINT16"])
@pytest.mark.parametrize("monoid", ["plus", "times"])
def test_small_integers_wrap_as_c(backend: str, monoid: str, t: str) -> None:
    """A sum or product that leaves a small integer type wraps in that type (C's arithmetic,
    as python-graphblas gives), not in NumPy's default int."""
    pg = pytest.importorskip("graphblas")
    values = np.array([2, -3, -2, -2, 2, 3, 100, 77], dtype=np.int64).astype(getattr(np, t.lower()))
    ids = list(range(len(values)))
    want = pg.Vector.from_coo(ids, values, dtype=t).reduce(getattr(pg.monoid, monoid)).new().value
    got = gb.Vector.from_coo(ids, values, dtype=t, backend=backend).reduce(getattr(gb.monoid, monoid)).new().value
    assert got == want
