"""mxm, mxv and vxm against the dense reference: semirings x types, positional semirings,
.new(mask=...), output types.  The mask / accum / replace / transpose matrix of every
operation is in test_ops_output_rule.py."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from conftest import (
    MASK_KINDS,
    TEST_TYPES,
    accum_op,
    assert_matches,
    mask_arg,
    random_mask,
    ref_mask,
    seed_of,
    to_gb,
    to_model,
)

import grblas_gpu as gb

# (semiring, types it is tested on); "any_*" semirings are checked for membership only.
SEMIRINGS = {
    "plus_times": TEST_TYPES,
    "min_plus": TEST_TYPES,
    "max_min": TEST_TYPES,
    "plus_pair": TEST_TYPES,
    "min_first": TEST_TYPES,
    "max_second": TEST_TYPES,
    "min_secondi": TEST_TYPES,
    "lor_land": ("BOOL",),
    "any_pair": TEST_TYPES,
    "any_secondi": TEST_TYPES,
    "any_first": ("INT32", "FP64"),
}
SEMIRING_CASES = [(sr, t) for sr, types in SEMIRINGS.items() for t in types]


def split(name: str) -> tuple[str, str]:
    add, _, mult = name.partition("_")
    return add, mult


def semiring_arg(name: str, form: str) -> object:
    return name if form == "string" else getattr(gb.semiring, name)


def check_any(got: object, A: ref.Obj, B: ref.Obj, mult: str) -> None:
    """An ANY monoid may return any of the terms: check structure, dtype and membership.

    ``got`` is a Matrix (A*B) or a Vector: mxv when B has one column, vxm when A has one row.
    """
    g = to_model(got)
    expected = ref.mxm(A, B, "any", mult)
    cands = ref.mxm_candidates(A, B, mult)
    if g.values.ndim == 1:
        squeeze = 1 if B.shape[1] == 1 else 0
        expected = ref.Obj(expected.values.squeeze(squeeze), expected.present.squeeze(squeeze))
        cands = [[c] for c in cands[0]] if squeeze == 0 else cands
        g = ref.Obj(g.values[:, None], g.present[:, None])
        expected = ref.Obj(expected.values[:, None], expected.present[:, None])
    assert g.dtype == expected.dtype
    assert np.array_equal(g.present, expected.present)
    for i, j in zip(*np.nonzero(g.present)):
        assert g.values[i, j].item() in cands[i][j], f"({i},{j}): {g.values[i, j]} not in {cands[i][j]}"


def inputs(seed: int, t: str, shapes=((5, 7), (7, 4))) -> tuple[ref.Obj, ref.Obj]:
    rng = np.random.default_rng(seed)
    dt = np.dtype(getattr(gb.dtypes, t).np_type)
    return (ref.random(rng, shapes[0], dt, 0.5, small=True), ref.random(rng, shapes[1], dt, 0.5, small=True))


# ----------------------------------------------------------------------------- semirings x types


@pytest.mark.parametrize("form", ["object", "string"])
@pytest.mark.parametrize("sr,t", SEMIRING_CASES)
def test_mxm_semiring_types(backend: str, sr: str, t: str, form: str) -> None:
    A, B = inputs(seed_of(sr, t), t)
    got = to_gb(A, backend).mxm(to_gb(B, backend), semiring_arg(sr, form)).new()
    add, mult = split(sr)
    if add == "any":
        check_any(got, A, B, mult)  # for any_pair the only candidate is 1
    else:
        assert_matches(got, ref.mxm(A, B, add, mult))


@pytest.mark.parametrize("sr,t", [c for c in SEMIRING_CASES if c[1] in ("BOOL", "INT64", "UINT8", "FP32")])
def test_mxv_vxm_semiring_types(backend: str, sr: str, t: str) -> None:
    rng = np.random.default_rng(seed_of(sr, t, "v"))
    dt = np.dtype(getattr(gb.dtypes, t).np_type)
    A = ref.random(rng, (5, 7), dt, 0.5, small=True)
    u7 = ref.random(rng, (7,), dt, 0.6, small=True)
    u5 = ref.random(rng, (5,), dt, 0.6, small=True)
    add, mult = split(sr)
    Ag = to_gb(A, backend)
    w_mxv = Ag.mxv(to_gb(u7, backend), sr).new()
    w_vxm = to_gb(u5, backend).vxm(Ag, sr).new()
    if add == "any":
        check_any(w_mxv, A, ref.Obj(u7.values[:, None], u7.present[:, None]), mult)
        check_any(w_vxm, ref.Obj(u5.values[None, :], u5.present[None, :]), A, mult)
    else:
        assert_matches(w_mxv, ref.mxv(A, u7, add, mult))
        assert_matches(w_vxm, ref.vxm(u5, A, add, mult))


@pytest.mark.parametrize("t", ["INT64", "FP32", "UINT8"])
@pytest.mark.parametrize("sr", ["plus_pair", "plus_oneb"])
def test_plus_pair_with_full_vector_counts_entries(backend: str, sr: str, t: str) -> None:
    """plus_pair against a full vector gives each row's (column's, for vxm) count of entries,
    and no entry where there are none, with or without a mask on the output."""
    rng = np.random.default_rng(seed_of(sr, t, "counts"))
    a = (rng.random((40, 30)) < 0.2) * rng.integers(1, 5, (40, 30))
    a[3], a[:, 7] = 0, 0  # an empty row and an empty column
    A = gb.Matrix.from_dense(a.astype(getattr(gb.dtypes, t).np_type), missing_value=0, backend=backend)
    ones30 = gb.Vector.from_scalar(2, 30, t, backend=backend)
    ones40 = gb.Vector.from_scalar(2, 40, t, backend=backend)
    for got, pattern in ((A.mxv(ones30, sr).new(), a != 0), (ones40.vxm(A, sr).new(), (a != 0).T)):
        counts = pattern.sum(axis=1)
        assert got.dtype == getattr(gb.dtypes, t)
        idx, vals = got.to_coo()
        assert np.array_equal(idx, np.flatnonzero(counts)) and np.array_equal(vals, counts[counts > 0])
    keep = rng.random(40) < 0.5
    w = gb.Vector.from_scalar(-1, 40, "INT64", backend=backend)
    w(gb.Vector.from_dense(keep, backend=backend).V) << A.mxv(ones30, sr)
    counts = (a != 0).sum(axis=1)
    expected = np.where(keep & (counts > 0), counts, np.where(keep, 0, -1))
    assert np.array_equal(w.to_dense(fill_value=0), expected)
    assert w.nvals == int((~keep).sum() + (keep & (counts > 0)).sum())
    wide = gb.Matrix.from_dense(np.ones((1, 300), getattr(gb.dtypes, t).np_type), backend=backend)
    total = wide.mxv(gb.Vector.from_scalar(1, 300, t, backend=backend), sr).new().to_dense()
    assert total[0] == np.array(300).astype(getattr(gb.dtypes, t).np_type)  # UINT8 wraps, as its plus does


@pytest.mark.parametrize("mult", ["firsti", "firstj", "secondi", "secondj"])
def test_positional_semirings(backend: str, mult: str) -> None:
    """Positions refer to the operands as multiplied: A(i,k)*B(k,j) -> firsti=i, firstj=k, secondi=k, secondj=j;
    vxm treats u as a 1 x n row (u(0,k)), mxv as an n x 1 column (u(k,0))."""
    A, B = inputs(7, "FP64")
    rng = np.random.default_rng(8)
    u7 = ref.random(rng, (7,), np.dtype(np.float64), 0.7)
    u5 = ref.random(rng, (5,), np.dtype(np.float64), 0.7)
    for add in ("min", "max"):
        sr = f"{add}_{mult}"
        Ag = to_gb(A, backend)
        assert_matches(Ag.mxm(to_gb(B, backend), sr).new(), ref.mxm(A, B, add, mult))
        assert_matches(Ag.mxv(to_gb(u7, backend), sr).new(), ref.mxv(A, u7, add, mult))
        assert_matches(to_gb(u5, backend).vxm(Ag, sr).new(), ref.vxm(u5, A, add, mult))


def test_secondi_hand_example(backend: str) -> None:
    """A hand-worked case independent of the model: secondi of A(i,k)*B(k,j) is k."""
    A = gb.Matrix.from_coo([0, 0, 1], [1, 2, 2], [1.0, 1.0, 1.0], nrows=2, ncols=3, backend=backend)
    B = gb.Matrix.from_coo([1, 2, 2], [0, 0, 1], [1.0, 1.0, 1.0], nrows=3, ncols=2, backend=backend)
    r, c, v = A.mxm(B, gb.semiring.min_secondi).new().to_coo()
    assert (r.tolist(), c.tolist(), v.tolist()) == ([0, 0, 1, 1], [0, 1, 0, 1], [1, 2, 2, 2])
    r, c, v = A.mxm(B, "max_secondi").new().to_coo()
    assert v.tolist() == [2, 2, 2, 2]
    u = gb.Vector.from_coo([0, 1], [5.0, 6.0], size=2, backend=backend)
    idx, vals = u.vxm(A, "min_secondi").new().to_coo()  # u(k) * A(k, j): k
    assert (idx.tolist(), vals.tolist()) == ([1, 2], [0, 0])
    w = gb.Vector.from_coo([1, 2], [5.0, 6.0], size=3, backend=backend)
    idx, vals = A.mxv(w, "max_secondi").new().to_coo()  # A(i, k) * w(k): k
    assert (idx.tolist(), vals.tolist()) == ([0, 1], [2, 2])


# ----------------------------------------------------------------------------- masks and output types


@pytest.mark.parametrize("mask_kind", MASK_KINDS[1:])
def test_new_with_mask(backend: str, mask_kind: str) -> None:
    """expr.new(mask=...) writes into a fresh, empty output of the expression's type."""
    A, B = inputs(3, "INT64")
    rng = np.random.default_rng(4)
    M = random_mask(rng, (5, 4))
    Mg = to_gb(M, backend)
    got = to_gb(A, backend).mxm(to_gb(B, backend), "plus_times").new(mask=mask_arg(Mg, mask_kind))
    T = ref.mxm(A, B, "plus", "times")
    assert_matches(got, ref.write(ref.empty((5, 4), T.dtype), T, **ref_mask(M, mask_kind)))


def test_bare_mask_is_value_mask(backend: str) -> None:
    A, B = inputs(5, "FP64")
    M = random_mask(np.random.default_rng(6), (5, 4))
    C0 = ref.random(np.random.default_rng(7), (5, 4), np.dtype(np.float64))
    C = to_gb(C0, backend)
    C(to_gb(M, backend)) << to_gb(A, backend).mxm(to_gb(B, backend), gb.semiring.plus_times)
    assert_matches(C, ref.write(C0, ref.mxm(A, B, "plus", "times"), mask=M))


@pytest.mark.parametrize("dtype_out", ["INT8", "FP32", "BOOL"])
def test_output_type_cast(backend: str, dtype_out: str) -> None:
    """T is computed in the semiring's type, then cast C-style to C's type (accumulated in C's type)."""
    A, B = inputs(11, "FP64")
    A.values *= 37.3  # products beyond INT8's range and with fractions
    C0 = ref.random(np.random.default_rng(12), (5, 4), np.dtype(getattr(gb.dtypes, dtype_out).np_type))
    for accum in (None, "plus"):
        C = to_gb(C0, backend)
        C(accum=accum_op(accum)) << to_gb(A, backend).mxm(to_gb(B, backend), "plus_times")
        assert_matches(C, ref.write(C0, ref.mxm(A, B, "plus", "times"), accum=accum))


def test_bool_semiring_vs_matrix_product(backend: str) -> None:
    """lor_land on BOOL is reachability in one step; plus_pair counts common neighbours."""
    rng = np.random.default_rng(9)
    a = rng.random((6, 6)) < 0.35
    A = gb.Matrix.from_dense(a.astype(np.int64), missing_value=0, backend=backend)
    Ab = gb.Matrix.from_coo(*np.nonzero(a), True, nrows=6, ncols=6, dtype=bool, backend=backend)
    reach = Ab.mxm(Ab, gb.semiring.lor_land).new()
    r, c, v = reach.to_coo()
    expected = (a.astype(int) @ a.astype(int)) > 0
    assert sorted(zip(r.tolist(), c.tolist())) == sorted(zip(*[x.tolist() for x in np.nonzero(expected)]))
    assert v.dtype == np.bool_ and v.all()
    counts = A.mxm(A, "plus_pair").new().to_dense(fill_value=0)
    assert np.array_equal(counts, a.astype(int) @ a.astype(int))


# ----------------------------------------------------------------------------- push / pull


def skewed(rng: np.random.Generator, shape: tuple[int, int], dt: np.dtype) -> ref.Obj:
    """A sparse matrix with one dense row and one dense column (power-law-like imbalance)."""
    A = ref.random(rng, shape, dt, 0.04, small=True)
    A.present[3, :] = True
    A.present[:, 5] = True
    return A


@pytest.mark.parametrize("method", ["auto", "push", "pull"])
@pytest.mark.parametrize("density", [0.0, 0.01, 0.1, 0.6, 1.0])
@pytest.mark.parametrize("sr,t", [("plus_times", "INT64"), ("min_plus", "FP64"), ("lor_land", "BOOL"),
                                  ("any_pair", "INT32"), ("min_secondi", "FP32"), ("max_first", "UINT8")])
def test_push_pull_agree(backend: str, sr: str, t: str, density: float, method: str) -> None:
    """Every direction (forced or chosen from the frontier's density) gives the model's result,
    with and without a complemented structural mask and replace (the BFS pattern)."""
    rng = np.random.default_rng(seed_of(sr, t, density))
    dt = np.dtype(getattr(gb.dtypes, t).np_type)
    A = skewed(rng, (60, 80), dt)
    add, mult = split(sr)
    Ag = to_gb(A, backend)
    for which in ("mxv", "vxm", "mxv_T"):
        n_in = {"mxv": 80, "vxm": 60, "mxv_T": 60}[which]
        n_out = 140 - n_in
        u = ref.random(rng, (n_in,), dt, density, small=True)
        ug = to_gb(u, backend)
        if which == "mxv":
            expr, T = Ag.mxv(ug, sr, method=method), ref.mxv(A, u, add, mult)
        elif which == "vxm":
            expr, T = ug.vxm(Ag, sr, method=method), ref.vxm(u, A, add, mult)
        else:
            expr, T = Ag.T.mxv(ug, sr, method=method), ref.mxv(A.T, u, add, mult)
        M = ref.random(rng, (n_out,), np.dtype(bool), 0.3)
        w0 = ref.random(rng, (n_out,), T.dtype, 0.3, small=True)
        w = to_gb(w0, backend)
        w(~to_gb(M, backend).S, replace=True) << expr
        assert_matches(w, ref.write(w0, T, M, None, True, structure=True, complement=True))
        assert_matches(expr.new(), T)


@pytest.mark.parametrize("method", ["push", "pull", "auto"])
@pytest.mark.parametrize("complement", [False, True])
@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("accum", [None, "plus"])
@pytest.mark.parametrize("sr", ["any_pair", "min_plus", "plus_times"])
def test_masked_product_bitmap_mask(backend: str, sr: str, accum: str | None, replace: bool, complement: bool,
                                    method: str) -> None:
    """A structural mask whose Vector is in bitmap form (which a push applies as it runs, and
    which lets the write skip a second pass) gives the model's result for every write rule."""
    rng = np.random.default_rng(seed_of("bitmap mask", sr, accum, replace, complement, method))
    dt = np.dtype(np.int64)
    A = skewed(rng, (60, 80), dt)
    add, mult = split(sr)
    u = ref.random(rng, (60,), dt, 0.1, small=True)
    T = ref.vxm(u, A, add, mult)
    M = ref.random(rng, (80,), dt, 0.4, small=True)
    w0 = ref.random(rng, (80,), dt, 0.3, small=True)
    m = to_gb(M, backend)
    m._set_bitmap(*m._bitmap(), m.nvals)  # the bitmap form only
    w = to_gb(w0, backend)
    mask = ~m.S if complement else m.S
    w(mask, accum, replace=replace) << to_gb(u, backend).vxm(to_gb(A, backend), sr, method=method)
    expected = ref.write(w0, T, M, accum, replace, structure=True, complement=complement)
    if sr.startswith("any_"):  # any term will do: check the structure
        assert sorted(w.to_coo()[0].tolist()) == np.flatnonzero(expected.present).tolist()
    else:
        assert_matches(w, expected)


@pytest.mark.parametrize("method", ["push", "pull"])
def test_masked_result_does_not_keep_its_mask(backend: str, method: str) -> None:
    """A Vector computed under a mask and kept, then written under the same Mask object after
    the mask's Vector changed, is masked by the changed Vector."""
    A = gb.Matrix.from_coo([0, 0, 0], [0, 1, 2], [1, 1, 1], nrows=3, ncols=3, dtype="INT64", backend=backend)
    u = gb.Vector.from_coo([0], [1], size=3, dtype="INT64", backend=backend)
    m = gb.Vector.from_coo([0, 1], [1, 1], size=3, dtype="INT64", backend=backend)
    m._set_bitmap(*m._bitmap(), m.nvals)  # the bitmap form only: a push applies it as it runs
    mask = m.S
    t = gb.Vector("INT64", 3, backend=backend)
    t(mask, replace=True) << u.vxm(A, "plus_times", method=method)
    assert t.to_coo()[0].tolist() == [0, 1]
    m << gb.Vector.from_coo([1], [1], size=3, dtype="INT64", backend=backend)
    w = gb.Vector("INT64", 3, backend=backend)
    w(mask, replace=True) << t
    assert w.to_coo()[0].tolist() == [1]
