"""Vectors held as bitmaps (presence + dense values) give the same results as sorted sparse ones.

Every operation with a dense fast path runs on the same random inputs twice: once with
the vectors in sparse form, once forced into bitmap form.  The sparse path is checked
against the independent dense model by the reference suite, so the two must agree exactly.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import grblas_gpu as gb
from grblas_gpu import binary, indexunary, monoid, select, semiring, unary

N = 40


def _random_vector(rng: np.random.Generator, dtype: str, density: float, backend: str) -> gb.Vector:
    idx = np.flatnonzero(rng.random(N) < density)
    vals = rng.integers(-5, 6, len(idx)) if dtype != "FP64" else rng.normal(size=len(idx)).round(2)
    return gb.Vector.from_coo(idx, vals, size=N, dtype=dtype, backend=backend)


def _as_bitmap(v: gb.Vector) -> gb.Vector:
    out = v.dup()
    out._set_bitmap(*(a.copy() for a in out._bitmap()), v.nvals)
    assert out._is_bitmap and out._sp is None
    return out


def _same(a: gb.Vector, b: gb.Vector) -> None:
    for w in (a, b):  # a count carried through an operation (or pending on the device) must match
        if w._count is not None and w._is_bitmap:
            assert int(w._count) == int(np.count_nonzero(w._be.to_host(w._bitmap()[0]))), "stale count"
    ia, va = a.to_coo()
    ib, vb = b.to_coo()
    assert a.dtype == b.dtype and a.size == b.size
    assert ia.tolist() == ib.tolist()
    if va.dtype.kind == "f":  # sums may be added in another order
        assert np.allclose(va, vb, rtol=1e-12, atol=1e-12, equal_nan=True)
    else:
        assert np.array_equal(va, vb)


OPS: dict[str, Callable[[gb.Vector, gb.Vector, gb.Matrix], Any]] = {
    "ewise_add_minus": lambda u, v, A: u.ewise_add(v, binary.minus).new(),
    "ewise_mult_times": lambda u, v, A: u.ewise_mult(v, binary.times).new(),
    "ewise_union_minus": lambda u, v, A: u.ewise_union(v, binary.minus, 100, -100).new(),
    "apply_ainv": lambda u, v, A: u.apply(unary.ainv).new(),
    "apply_bind_left": lambda u, v, A: u.apply(binary.minus, left=3).new(),
    "apply_rowindex": lambda u, v, A: u.apply(indexunary.rowindex, 2).new(),
    "select_valuegt": lambda u, v, A: u.select(select.valuegt, 0).new(),
    "select_rowle": lambda u, v, A: u.select(select.rowle, 20).new(),
    "vxm": lambda u, v, A: u.vxm(A, semiring.min_plus, method=_method(u)).new(),
    "mxv_secondi": lambda u, v, A: A.mxv(u, semiring.min_secondi, method=_method(u)).new(),
    "reduce_plus": lambda u, v, A: gb.Vector.from_coo([0], [u.reduce(monoid.plus, allow_empty=False).new().value],
                                                      size=1, backend=u.backend),
    "reduce_max": lambda u, v, A: gb.Vector.from_coo([0], [u.reduce(monoid.max, allow_empty=False).new().value],
                                                     size=1, backend=u.backend),
}


def _method(u: gb.Vector) -> str:
    """Pull (a bitmap result) for bitmap inputs, push (a sparse result) for sparse ones, so the
    sparse run never touches the dense paths."""
    return "pull" if u._is_bitmap else "push"


def _writes(u: gb.Vector, v: gb.Vector, A: gb.Matrix) -> dict[str, gb.Vector]:
    """Every mask kind x accumulator x replace, writing u.vxm(A) into a copy of v."""
    out = {}
    masks = {"none": None, "S": u.S, "V": u.V, "~S": ~u.S, "~V": ~u.V}
    for mname, mask in masks.items():
        for accum in (None, binary.plus):
            for replace in (False, True):
                w = v.dup()
                w(mask=mask, accum=accum, replace=replace) << u.vxm(A, semiring.plus_times, method=_method(u))
                out[f"write-{mname}-{accum}-{replace}"] = w
                s = v.dup()
                s(mask=mask, accum=accum, replace=replace)[:] << 7
                out[f"assign-{mname}-{accum}-{replace}"] = s
    return out


@pytest.mark.parametrize("density", [(0.5, 0.4), (1.0, 1.0), (1.0, 0.4)], ids=["sparse", "full", "mixed"])
@pytest.mark.parametrize("dtype", ["INT32", "FP64"])
@pytest.mark.parametrize("seed", range(4))
def test_bitmap_and_sparse_agree(backend: str, dtype: str, seed: int, density: tuple[float, float]) -> None:
    rng = np.random.default_rng(seed)
    u, v = (_random_vector(rng, dtype, d, backend) for d in density)
    r, c = np.nonzero(rng.random((N, N)) < 0.1)
    A = gb.Matrix.from_coo(r, c, rng.integers(1, 9, len(r)), nrows=N, ncols=N, dtype=dtype, backend=backend)
    results = {name: (op(_as_bitmap(u), _as_bitmap(v), A), op(u, v, A)) for name, op in OPS.items()}
    sparse, dense = _writes(u, v, A), _writes(_as_bitmap(u), _as_bitmap(v), A)
    if backend == "numpy":  # the GPU's push writes a bitmap directly; the CPU's sorts by key
        assert not any(w._is_bitmap for w in sparse.values()), "the sparse run must stay sparse"
    results.update({key: (dense[key], sparse[key]) for key in sparse})
    for name, (got, expected) in results.items():
        try:
            _same(got, expected)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from exc


def test_full_vectors_start_as_bitmaps(backend: str) -> None:
    v = gb.Vector.from_scalar(1.5, 5, backend=backend)
    assert v._is_bitmap and v.nvals == 5 and v._full
    w = gb.Vector.from_dense(np.array([1.0, np.nan, 3.0]), missing_value=np.nan, backend=backend)
    assert w._is_bitmap and w.to_coo()[0].tolist() == [0, 2]


@pytest.mark.parametrize(("value", "dtype"), [(True, "BOOL"), (False, "BOOL"), (1.5, "FP32"), (-7, "INT64")])
@pytest.mark.parametrize("size", [0, 1, 1000])
def test_from_scalar_fills_every_position(backend: str, value: object, dtype: str, size: int) -> None:
    """Every position holds the value, for booleans (a byte fill) and wider types, and an
    empty vector comes out empty."""
    v = gb.Vector.from_scalar(value, size, dtype=dtype, backend=backend)
    idx, vals = v.to_coo()
    assert v.nvals == size and idx.tolist() == list(range(size))
    assert vals.dtype == getattr(gb, dtype).np_type and (vals == value).all()


def test_masked_scalar_assign_in_place_leaves_sharers_alone(backend: str) -> None:
    """``v(m.S) << s`` writes v's bitmap in place only when nothing else refers to it: a Vector
    sharing v's arrays (``u << v`` shares them), a mask that is v itself, and a bitmap that
    views a larger array each keep their values; results against NumPy."""
    base = np.arange(N, dtype=np.float64)
    where = np.zeros(N, dtype=bool)
    where[[1, 5, 17]] = True
    m = gb.Vector.from_coo(np.flatnonzero(where), True, size=N, backend=backend)
    m._bitmap()
    v = gb.Vector.from_dense(base.copy(), backend=backend)
    assert v._owns_bitmap()
    vals_before = weakref.ref(v._bitmap()[1])  # (a weak reference: v stays the lone holder)
    v(m.S) << 7.0
    assert v._bitmap()[1] is vals_before(), "a lone bitmap is written in place"
    expected_v = np.where(where, 7.0, base)
    assert np.array_equal(v.to_dense(), expected_v)

    u = gb.Vector(gb.FP64, N, backend=backend)
    u << v  # u and v now share arrays
    assert not v._owns_bitmap() and not u._owns_bitmap()
    u(m.S) << 5.0
    assert np.array_equal(v.to_dense(), expected_v), "v changed through u"
    assert np.array_equal(u.to_dense(), np.where(where, 5.0, expected_v))
    v(v.S) << 3.0  # the mask is v itself
    assert np.array_equal(v.to_dense(), np.full(N, 3.0))
    assert np.array_equal(u.to_dense(), np.where(where, 5.0, expected_v)), "u changed through v"

    be = v._be
    wide = be.asarray(np.zeros(2 * N, dtype=np.float64))
    w = gb.Vector._from_bitmap(be, gb.FP64, N, be.asarray(np.ones(N, dtype=bool)), wide[:N], N)
    del wide  # only the view remains referenced, but its memory is another array's
    assert not w._owns_bitmap()
    w(m.S) << 9.0
    assert np.array_equal(w.to_dense(), np.where(where, 9.0, 0.0))


def test_accumulate_in_place_leaves_sharers_alone(backend: str) -> None:
    """``v(min) << t`` with no mask adds into v's own bitmap in place (only t's positions
    change), never into arrays another Vector shares; results against NumPy."""
    rng = np.random.default_rng(11)
    v_has, t_has = rng.random(N) < 0.5, rng.random(N) < 0.4
    v_vals, t_vals = rng.integers(0, 50, N).astype(np.float64), rng.integers(0, 50, N).astype(np.float64)

    def bitmap_vector(has: np.ndarray, vals: np.ndarray) -> gb.Vector:
        w = gb.Vector.from_coo(np.flatnonzero(has), vals[has], size=N, dtype="FP64", backend=backend)
        return _as_bitmap(w)

    def expected(has: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = np.where(has & t_has, np.minimum(vals, t_vals), np.where(has, vals, t_vals))
        return np.flatnonzero(has | t_has), out[has | t_has]

    v, t = bitmap_vector(v_has, v_vals), bitmap_vector(t_has, t_vals)
    vals_before = weakref.ref(v._bitmap()[1])
    v(binary.min) << t
    assert v._bitmap()[1] is vals_before(), "a lone bitmap is added into in place"
    idx, vals = v.to_coo()
    want_idx, want_vals = expected(v_has, v_vals)
    assert idx.tolist() == want_idx.tolist() and np.array_equal(vals, want_vals)
    assert v.nvals == len(want_idx)

    u = bitmap_vector(v_has, v_vals)
    shared = gb.Vector(gb.FP64, N, backend=backend)
    shared << u  # shares u's arrays
    u(binary.min) << t
    assert np.array_equal(u.to_coo()[1], want_vals)
    idx, vals = shared.to_coo()
    assert idx.tolist() == np.flatnonzero(v_has).tolist() and np.array_equal(vals, v_vals[v_has]), "shared changed"


def test_union_written_into_a_lone_bitmap(backend: str) -> None:
    """``c << a.ewise_union(b, lt, ...)`` computes into c's own bitmap when nothing else refers
    to it, and into new arrays when a Vector shares c's or c is an operand; results (values,
    structure and count) against NumPy."""
    rng = np.random.default_rng(12)
    a_has, b_has = rng.random(N) < 0.5, rng.random(N) < 0.6
    a_vals, b_vals = rng.integers(0, 9, N).astype(np.float64), rng.integers(0, 9, N).astype(np.float64)
    a = _as_bitmap(gb.Vector.from_coo(np.flatnonzero(a_has), a_vals[a_has], size=N, backend=backend))
    b = _as_bitmap(gb.Vector.from_coo(np.flatnonzero(b_has), b_vals[b_has], size=N, backend=backend))
    has = a_has | b_has
    lt = np.where(a_has, a_vals, 4.0) < np.where(b_has, b_vals, 5.0)

    def check(c: gb.Vector) -> None:
        idx, vals = c.to_coo()
        assert idx.tolist() == np.flatnonzero(has).tolist() and vals.tolist() == lt[has].tolist()
        assert c.nvals == int(has.sum())

    c = _as_bitmap(gb.Vector.from_coo([3], [True], size=N, dtype="BOOL", backend=backend))
    vals_before = weakref.ref(c._bitmap()[1])
    c << a.ewise_union(b, binary.lt, 4.0, 5.0)
    assert c._bitmap()[1] is vals_before(), "a lone bitmap is written in place"
    check(c)

    shared = gb.Vector(gb.BOOL, N, backend=backend)
    shared << c  # shares c's arrays: they must not be written now
    before = shared.to_coo()
    c << b.ewise_union(a, binary.lt, 5.0, 4.0)  # another result, into new arrays
    assert [x.tolist() for x in shared.to_coo()] == [x.tolist() for x in before], "shared changed"
    idx, vals = c.to_coo()
    flipped = np.where(b_has, b_vals, 5.0) < np.where(a_has, a_vals, 4.0)
    assert idx.tolist() == np.flatnonzero(has).tolist() and vals.tolist() == flipped[has].tolist()

    a_copy = a.dup()
    a << a.ewise_union(b, binary.min, 4.0, 5.0)  # a is an operand: never written while read
    want = np.minimum(np.where(a_has, a_vals, 4.0), np.where(b_has, b_vals, 5.0))
    assert a.to_coo()[1].tolist() == want[has].tolist() and a_copy.to_coo()[1].tolist() == a_vals[a_has].tolist()


def test_in_place_writes_leave_matrix_caches_alone(backend: str) -> None:
    """Out-degrees (``A 1`` over plus_pair) share the matrix's cached row lengths and
    nonempty-row flags; writing into the result afterwards must not change them (the next
    product still gives NumPy's row counts)."""
    rng = np.random.default_rng(5)
    rows, cols = rng.integers(0, N, 3 * N), rng.integers(0, N, 3 * N)
    A = gb.Matrix.from_coo(rows, cols, 1.0, nrows=N, ncols=N, dup_op=binary.min, backend=backend)
    counts = np.bincount(np.unique(rows * N + cols) // N, minlength=N)
    ones = gb.Vector.from_scalar(1, N, dtype="INT64", backend=backend)
    everywhere = gb.Vector.from_scalar(True, N, backend=backend)
    for _ in range(2):
        d = A.mxv(ones, semiring.plus_pair["INT64"]).new()
        idx, vals = d.to_coo()
        assert idx.tolist() == np.flatnonzero(counts).tolist() and vals.tolist() == counts[counts > 0].tolist()
        d(everywhere.S) << 99
        d(binary.plus) << ones
        assert d.to_coo()[1].tolist() == [100] * N


_ADD = {"plus": (np.add, 0), "min": (np.minimum, np.inf), "max": (np.maximum, -np.inf)}
_MULT = {"times": np.multiply, "plus": np.add, "min": np.minimum}


def _product_reference(rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, x_has: np.ndarray, x: np.ndarray,
                       n: int, add: str, mult: str) -> tuple[np.ndarray, np.ndarray]:
    """(presence, values) of ``A x`` over (add, mult), by NumPy's ufunc.at over the entries."""
    keep = x_has[cols]
    ufunc, identity = _ADD[add]
    out = np.full(n, identity, dtype=np.float64)
    ufunc.at(out, rows[keep], _MULT[mult](vals[keep], x[cols[keep]]))
    has = np.zeros(n, dtype=bool)
    has[rows[keep]] = True
    return has, out


@pytest.mark.parametrize("add, mult, dtype", [("plus", "times", "FP64"), ("plus", "times", "FP32"),
                                              ("min", "plus", "FP32"), ("max", "min", "INT64")])
@pytest.mark.parametrize("x_density", [1.0, 0.6])
def test_accumulated_product_is_added_in_its_own_pass(backend: str, add: str, mult: str, dtype: str,
                                                      x_density: float) -> None:
    """``w(add) << A.mxv(x)``, where add is the semiring's own addition and w alone holds a
    bitmap, is joined into w by the product itself (on the GPU the merge-path kernel starts
    each row from w's entry).  The matrix is big enough for that schedule, with a row
    spanning several tiles and empty rows; values are small integers, so every sum is exact.
    Against NumPy; vectors that cannot take it in place are refused and left unchanged."""
    rng = np.random.default_rng(23)
    n = 3000
    keys = np.unique(np.concatenate([rng.integers(0, n * n, 90_000), np.arange(n) + 7 * n]))  # row 7: every column
    keys = keys[(keys // n) % 10 != 3]  # rows 3, 13, 23, ...: empty
    rows, cols = keys // n, keys % n
    vals = rng.integers(1, 10, keys.size).astype(np.float64)
    A = gb.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, dtype=dtype, backend=backend)
    x_has = rng.random(n) < x_density
    x_vals = rng.integers(1, 10, n).astype(np.float64)
    x = gb.Vector.from_coo(np.flatnonzero(x_has), x_vals[x_has], size=n, dtype=dtype, backend=backend)
    w_has, w_vals = rng.random(n) < 0.5, rng.integers(-20, 20, n).astype(np.float64)
    t_has, t_vals = _product_reference(rows, cols, vals, x_has, x_vals, n, add, mult)
    both = w_has & t_has
    want = np.where(both, _ADD[add][0](w_vals, t_vals), np.where(w_has, w_vals, t_vals))[w_has | t_has]
    sr = getattr(semiring, f"{add}_{mult}")

    def fresh() -> gb.Vector:
        return _as_bitmap(gb.Vector.from_coo(np.flatnonzero(w_has), w_vals[w_has], size=n, dtype=dtype,
                                             backend=backend))

    w = fresh()
    vals_before = weakref.ref(w._bitmap()[1])
    assert A.mxv(x, sr).add_into(w, getattr(binary, add)), "taken in the product's own pass"
    assert w._bitmap()[1] is vals_before()
    v = fresh()
    v(getattr(binary, add)) << A.mxv(x, sr)  # the same through the write rule
    for got in (w, v):
        idx, out = got.to_coo()
        assert idx.tolist() == np.flatnonzero(w_has | t_has).tolist()
        assert np.array_equal(out.astype(np.float64), want)
        assert got.nvals == int(np.count_nonzero(w_has | t_has))

    # A full w sharing its presence (an apply keeps its input's): only its values are written.
    base = gb.Vector.from_scalar(1, n, dtype=dtype, backend=backend)
    full = base.apply(binary.times, right=3).new()
    assert full._bitmap()[0] is base._bitmap()[0]
    assert A.mxv(x, sr).add_into(full, getattr(binary, add))
    assert np.array_equal(full.to_dense().astype(np.float64), np.where(t_has, _ADD[add][0](3.0, t_vals), 3.0))
    assert base.nvals == n and np.array_equal(base.to_dense(), np.ones(n)), "the sharer changed"

    u = fresh()
    shared = gb.Vector(u.dtype, n, backend=backend)
    shared << u  # shares u's arrays
    other_op = binary.max if add != "max" else binary.min
    assert not A.mxv(x, sr).add_into(u, other_op), "another accumulator"
    assert not A.mxv(x, sr).add_into(u, getattr(binary, add)), "a bitmap another Vector shares"
    assert not A.mxv(x, sr).add_into(x, getattr(binary, add)), "the multiplied vector itself"
    assert not A.mxv(x, sr).add_into(fresh().dup("FP64" if dtype != "FP64" else "FP32"), getattr(binary, add))
    for kept in (u, shared, x):
        assert kept.nvals == int(np.count_nonzero(w_has if kept is not x else x_has)), "refused, yet changed"


def test_accumulated_product_on_small_matrices(backend: str) -> None:
    """Below the merge schedule's size the GPU refuses the one-pass join (the NumPy backend
    takes it), and ``w(plus) << A.mxv(x)`` still gives NumPy's result."""
    rng = np.random.default_rng(4)
    keys = np.unique(rng.integers(0, N * N, 5 * N))
    rows, cols = keys // N, keys % N
    vals = rng.integers(1, 10, keys.size).astype(np.float64)
    A = gb.Matrix.from_coo(rows, cols, vals, nrows=N, ncols=N, backend=backend)
    x = gb.Vector.from_scalar(2.0, N, backend=backend)
    w = gb.Vector.from_scalar(1.0, N, backend=backend)
    assert A.mxv(x, semiring.plus_times).add_into(w, binary.plus) == (backend == "numpy")
    w = gb.Vector.from_scalar(1.0, N, backend=backend)
    w(binary.plus) << A.mxv(x, semiring.plus_times)
    want = 1.0 + np.bincount(rows, weights=2.0 * vals, minlength=N)
    assert np.array_equal(w.to_dense(), want)


@pytest.mark.parametrize("method", ["mxv", "vxm"])
def test_product_of_a_full_vector_is_written_into_its_target(backend: str, method: str) -> None:
    """``w << A.mxv(x)`` with a full x (no mask, no accumulator) is computed straight into w:
    on the GPU into w's own values array where w alone holds it, with an entry in every nonempty row.
    Against NumPy, call after call; the multiplied vector, a w sharing its values, a w of
    another type and a sparse x take the ordinary path and give the same results."""
    rng = np.random.default_rng(31)
    keys = np.unique(rng.integers(0, N * N, 6 * N))
    keys = keys[(keys // N) % 7 != 2]  # rows 2, 9, 16, ...: empty
    rows, cols = keys // N, keys % N
    vals = rng.integers(1, 10, keys.size).astype(np.float64)
    A = gb.Matrix.from_coo(rows, cols, vals, nrows=N, ncols=N, backend=backend)
    mine, theirs = (rows, cols) if method == "mxv" else (cols, rows)

    def product(xv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        has = np.zeros(N, dtype=bool)
        has[mine] = True
        return has, np.bincount(mine, weights=vals * xv[theirs], minlength=N)

    w = gb.Vector.from_scalar(0.0, N, backend=backend)
    for call in range(3):
        xv = rng.integers(1, 10, N).astype(np.float64)
        x = gb.Vector.from_dense(xv, backend=backend)
        expr = A.mxv(x, semiring.plus_times) if method == "mxv" else x.vxm(A, semiring.plus_times)
        before = weakref.ref(w._bitmap()[1])
        assert expr.write_into(w)
        if call and backend == "cupy":  # (the NumPy SpMV always makes a new array)
            assert w._bitmap()[1] is before(), "written into w's own values"
        has, want = product(xv)
        assert np.array_equal(w.to_coo()[0], np.flatnonzero(has)) and w.nvals == int(has.sum())
        assert np.array_equal(w.to_coo()[1], want[has])

    shared = gb.Vector(gb.FP64, N, backend=backend)
    shared << w  # shares w's arrays: w's values must not be written in place now
    kept = shared.to_dense(fill_value=-1.0)
    x = gb.Vector.from_dense(np.ones(N), backend=backend)
    w << (A.mxv(x, semiring.plus_times) if method == "mxv" else x.vxm(A, semiring.plus_times))
    assert np.array_equal(shared.to_dense(fill_value=-1.0), kept), "the sharer changed"
    has, want = product(np.ones(N))
    assert np.array_equal(w.to_dense(fill_value=-1.0), np.where(has, want, -1.0))

    assert not A.mxv(x, semiring.plus_times).write_into(x), "the multiplied vector itself"
    assert not A.mxv(x, semiring.plus_times).write_into(gb.Vector(gb.FP32, N, backend=backend)), "another type"
    assert not A.mxv(x, semiring.plus_pair).write_into(w), "row counts: no product to write"
    sparse_x = gb.Vector.from_coo([0, 5], [1.0, 2.0], size=N, backend=backend)
    assert not A.mxv(sparse_x, semiring.plus_times).write_into(w), "a sparse vector"
    x << A.mxv(x, semiring.plus_times)  # the ordinary path: x is read, then replaced
    row_sums = np.bincount(rows, weights=vals, minlength=N)
    assert np.array_equal(x.to_dense(fill_value=-1.0), np.where(np.isin(np.arange(N), rows), row_sums, -1.0))
