"""mxm in every form the planner can take (Gustavson, masked Gustavson, dot), each forced, on
every backend, against the dense reference: shapes at the edges, rows crossing batches, every
mask kind with accumulators and replace, transposed operands, types, positional and user
semirings, hypersparse matrices, int64 row pointers, NaN and inf, and OutOfMemory."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from conftest import accum_op, assert_matches, coo_snapshot, mask_arg, random_mask, ref_mask, seed_of, to_gb, to_model

import grblas_gpu as gb
from grblas_gpu import limits
from grblas_gpu.backends import get_backend, numpy_mxm, scipy_product
from grblas_gpu.ops import mxm as planner
from grblas_gpu.storage import wide_pointers

FORMS = ("auto", "gustavson", "masked", "dot")
TRANSPOSES = ((False, False), (False, True), (True, False), (True, True))
WRITES = ((None, False), ("plus", False), (None, True), ("min", True))  # (accum, replace)


@pytest.fixture(params=FORMS)
def form(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every product of the test takes this form (where its mask allows it; "auto" chooses)."""
    monkeypatch.setattr(planner, "FORM", None if request.param == "auto" else request.param)
    return request.param


@pytest.fixture(params=["default", "tiny", "sorted"])
def budget(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The CPU kernels' batch size as it is, or a few terms (rows cross batches, long rows are
    split) with plus_times kept off scipy's product; "sorted" also combines every batch by
    sorting (no dense slots)."""
    if request.param != "default":
        monkeypatch.setattr(numpy_mxm, "TERM_BUDGET", 5)
        monkeypatch.setattr(numpy_mxm, "USE_SCIPY", False)
    if request.param == "sorted":
        monkeypatch.setattr(numpy_mxm, "DENSE_SLOTS", 0)
    return request.param


def operands(rng: np.random.Generator, m: int, k: int, n: int, dt: np.dtype) -> tuple[ref.Obj, ref.Obj]:
    """A (m x k) and B (k x n) with an empty row and column, a full row of A and a hub column
    of B (a row of C whose terms span batches; a column met by most rows)."""
    A = ref.random(rng, (m, k), dt, 0.3, small=True)
    B = ref.random(rng, (k, n), dt, 0.3, small=True)
    A.present[1, :] = False
    A.present[m - 1, :] = True
    B.present[:, 2] = True
    B.present[0, :] = False
    B.present[:, n - 1] = False
    return A, B


def stored(X: ref.Obj, transposed: bool, backend: str) -> object:
    """The operand as the product reads it: the Matrix itself, or ``Y.T`` with Y stored as X'."""
    return to_gb(X.T, backend).T if transposed else to_gb(X, backend)


@pytest.mark.parametrize("accum,replace", WRITES)
@pytest.mark.parametrize("mask_kind", ("none", "value", "structure", "comp_value", "comp_structure"))
@pytest.mark.parametrize("ta,tb", TRANSPOSES)
def test_forms_give_the_reference(backend: str, form: str, budget: str, ta: bool, tb: bool, mask_kind: str,
                                  accum: str | None, replace: bool) -> None:
    rng = np.random.default_rng(seed_of("forms", ta, tb, mask_kind, accum, replace))
    dt = np.dtype(np.int64)
    A, B = operands(rng, 9, 7, 8, dt)
    M = random_mask(rng, (9, 8))
    C0 = ref.random(rng, (9, 8), dt, 0.3, small=True)
    C = to_gb(C0, backend)
    C(mask=mask_arg(to_gb(M, backend), mask_kind), accum=accum_op(accum), replace=replace) << \
        stored(A, ta, backend).mxm(stored(B, tb, backend), "plus_times")
    expected = ref.write(C0, ref.mxm(A, B, "plus", "times"), accum=accum, replace=replace, **ref_mask(M, mask_kind))
    assert_matches(C, expected)


@pytest.mark.parametrize("shapes", [((0, 3), (3, 4)), ((3, 0), (0, 4)), ((3, 4), (4, 0)), ((1, 1), (1, 1)),
                                    ((4, 5), (5, 3))])
@pytest.mark.parametrize("density", [0.0, 0.6])
@pytest.mark.parametrize("mask_kind", ("none", "structure", "comp_structure"))
def test_edge_shapes(backend: str, form: str, budget: str, shapes: tuple, density: float, mask_kind: str) -> None:
    """Empty dimensions, 1x1, and matrices with no entries, under every form."""
    rng = np.random.default_rng(seed_of("edge", shapes, density, mask_kind))
    dt = np.dtype(np.float64)
    A = ref.random(rng, shapes[0], dt, density)
    B = ref.random(rng, shapes[1], dt, density)
    M = random_mask(rng, (shapes[0][0], shapes[1][1]))
    got = to_gb(A, backend).mxm(to_gb(B, backend), "min_plus").new(mask=mask_arg(to_gb(M, backend), mask_kind))
    T = ref.mxm(A, B, "min", "plus")
    assert_matches(got, ref.write(ref.empty(T.shape, T.dtype), T, **ref_mask(M, mask_kind)))


@pytest.mark.parametrize("t", ref.ALL_TYPES, ids=lambda t: ref.TYPE_NAMES[t])
@pytest.mark.parametrize("sr", ["plus_times", "min_plus", "max_times", "plus_pair", "plus_first", "plus_second"])
def test_every_type(backend: str, form: str, budget: str, sr: str, t: np.dtype) -> None:
    """Every built-in type, plain and under a mask (plus_times on the numeric types is scipy's
    product where it drops nothing, the batched one under "tiny")."""
    rng = np.random.default_rng(seed_of("types", sr, str(t)))
    A, B = operands(rng, 8, 6, 7, t)
    M = random_mask(rng, (8, 7))
    add, mult = sr.split("_")
    T = ref.mxm(A, B, add, mult)
    Ag, Bg = to_gb(A, backend), to_gb(B, backend)
    assert_matches(Ag.mxm(Bg, sr).new(), T)
    got = Ag.mxm(Bg.T.new().T, sr).new(mask=to_gb(M, backend).S)
    assert_matches(got, ref.write(ref.empty(T.shape, T.dtype), T, mask=M, structure=True))


@pytest.mark.parametrize("ta,tb", TRANSPOSES)
@pytest.mark.parametrize("mult", ["firsti", "firstj", "secondi", "secondj"])
def test_positional(backend: str, form: str, budget: str, mult: str, ta: bool, tb: bool) -> None:
    """Positions are those of the operands as multiplied: A(i, k) * B(k, j) -> i, k, k, j."""
    rng = np.random.default_rng(seed_of("positional", mult, ta, tb))
    A, B = operands(rng, 7, 6, 9, np.dtype(np.float64))
    M = random_mask(rng, (7, 9))
    for add in ("min", "max", "plus"):
        T = ref.mxm(A, B, add, mult)
        expr = stored(A, ta, backend).mxm(stored(B, tb, backend), f"{add}_{mult}")
        assert_matches(expr.new(), T)
        got = expr.new(mask=to_gb(M, backend).V)
        assert_matches(got, ref.write(ref.empty(T.shape, T.dtype), T, mask=M))


UDF_TIMES2_PLUS = ref.BinOp("udf_2x_plus_y", ref._dom_all, lambda t: t, lambda x, y, t, pos: x * 2 + y)
UDF_MAX = ref.BinOp("udf_cond_max", ref._dom_all, lambda t: t, lambda x, y, t, pos: np.where(x > y, x, y))


def test_user_semiring(backend: str, form: str, budget: str) -> None:
    cond_max = gb.binary.register_anonymous(lambda x, y: max(y, x))
    times2_plus = gb.binary.register_anonymous(lambda x, y: x * 2 + y)
    sr = gb.semiring.register_anonymous(gb.monoid.register_anonymous(cond_max, -np.inf), times2_plus)
    rng = np.random.default_rng(31)
    A, B = operands(rng, 8, 9, 7, np.dtype(np.float64))
    M = random_mask(rng, (8, 7))
    mon = ref.MonoidDef("udf_max", UDF_MAX, lambda t: -np.inf)
    T = ref.mxm(A, B, mon, UDF_TIMES2_PLUS)
    assert_matches(to_gb(A, backend).mxm(to_gb(B, backend), sr).new(), T)
    got = to_gb(A, backend).mxm(to_gb(B.T, backend).T, sr).new(mask=~to_gb(M, backend).S)
    assert_matches(got, ref.write(ref.empty(T.shape, T.dtype), T, mask=M, structure=True, complement=True))


@pytest.mark.parametrize("sr", ["any_first", "any_secondi", "any_pair"])
def test_any_monoid_takes_a_term(backend: str, form: str, budget: str, sr: str) -> None:
    """An ANY monoid may give any of a position's terms, across batches too."""
    rng = np.random.default_rng(seed_of("any", sr))
    A, B = operands(rng, 9, 8, 7, np.dtype(np.int32))
    M = random_mask(rng, (9, 7))
    mult = sr.split("_")[1]
    for mask in (None, to_gb(M, backend).S):
        got = to_model(to_gb(A, backend).mxm(to_gb(B, backend), sr).new(mask=mask))
        expected = ref.mxm(A, B, "any", mult)
        allowed = M.present if mask is not None else np.ones(M.shape, bool)
        assert np.array_equal(got.present, expected.present & allowed)
        cands = ref.mxm_candidates(A, B, mult)
        for i, j in zip(*np.nonzero(got.present)):
            assert got.values[i, j].item() in cands[i][j]


def test_nan_and_inf(backend: str, form: str, budget: str) -> None:
    """NaN and inf flow through products and sums as IEEE says (inf - inf is NaN), in every form."""
    A = ref.from_dense(np.array([[1.0, np.inf, 2.0], [np.nan, 1.0, 0.0], [-np.inf, 0.0, 3.0]]))
    B = ref.from_dense(np.array([[1.0, 0.0, np.nan], [1.0, -1.0, 2.0], [np.inf, 1.0, -0.5]]))
    M = ref.from_dense(np.ones((3, 3), bool), np.eye(3, dtype=bool) | (np.arange(3)[:, None] < 1))
    for sr in ("plus_times", "min_plus", "max_times"):
        add, mult = sr.split("_")
        T = ref.mxm(A, B, add, mult)
        assert_matches(to_gb(A, backend).mxm(to_gb(B, backend), sr).new(), T)
        got = to_gb(A, backend).mxm(to_gb(B, backend), sr).new(mask=to_gb(M, backend).S)
        assert_matches(got, ref.write(ref.empty(T.shape, T.dtype), T, mask=M, structure=True))
    lone = gb.Matrix.from_coo([0, 1], [0, 0], [np.nan, -0.0], nrows=2, ncols=1, backend=backend)
    one = gb.Matrix.from_coo([0], [0], [1.0], nrows=1, ncols=1, backend=backend)
    for sr in ("min_times", "max_times", "plus_times", "times_times"):  # a lone NaN or -0.0 stays as it is
        v = lone.mxm(one, sr).new().to_coo()[2]
        assert np.isnan(v[0]) and v[1] == 0 and np.signbit(v[1]), sr


@pytest.mark.parametrize("t", [np.int64, np.float64, np.int8])
def test_sums_of_zero_are_entries(backend: str, form: str, budget: str, t: type) -> None:
    """A sum that is exactly 0 is an entry (scipy's own product would leave it out)."""
    A = gb.Matrix.from_coo([0, 0, 1, 2], [0, 1, 1, 2], [1, 1, 0, 2], nrows=3, ncols=3, dtype=t, backend=backend)
    B = gb.Matrix.from_coo([0, 1, 2], [0, 0, 2], [1, -1, 3], nrows=3, ncols=3, dtype=t, backend=backend)
    M = gb.Matrix.from_coo([0, 1, 2], [0, 0, 2], True, nrows=3, ncols=3, backend=backend)
    for got in (A.mxm(B).new(), A.mxm(B).new(mask=M.S)):
        r, c, v = got.to_coo()
        assert (r.tolist(), c.tolist(), v.tolist()) == ([0, 1, 2], [0, 0, 2], [0, 0, 6])


def test_int64_row_pointers(backend: str, form: str, budget: str) -> None:
    """Operands and masks whose row pointers are int64 (as past 2**31 entries)."""
    rng = np.random.default_rng(41)
    A, B = operands(rng, 9, 7, 8, np.dtype(np.float32))
    M = random_mask(rng, (9, 8))
    with wide_pointers():
        Ag, Bg, Mg = to_gb(A, backend), to_gb(B, backend), to_gb(M, backend)
        Bg._transposed()
    for X in (Ag, Bg, Mg, Bg._transposed()):
        assert X._ptr.dtype == np.int64
    T = ref.mxm(A, B, "plus", "times")
    assert_matches(Ag.mxm(Bg).new(), T)
    assert_matches(Ag.mxm(Bg).new(mask=Mg.S), ref.write(ref.empty(T.shape, T.dtype), T, mask=M, structure=True))
    assert_matches(Ag.mxm(Bg).new(mask=~Mg.V), ref.write(ref.empty(T.shape, T.dtype), T, mask=M, complement=True))


@pytest.mark.parametrize("sr", ["plus_times", "min_firsti", "max_secondj", "min_secondi"])
def test_hypersparse(backend: str, form: str, budget: str, sr: str) -> None:
    """Dimensions far beyond the entries (2**40 rows and columns): the product and its mask
    are checked on the few rows and columns that hold entries."""
    huge = 2**40
    rows = np.array([5, 5, 2**33, huge - 1])
    inner = np.array([0, 3, 3, 1])
    cols = np.array([7, 2**39, 2**39, huge - 2, huge - 2])
    A_r, A_c, A_v = rows, inner, np.array([1.0, 2.0, 3.0, 4.0])
    B_r, B_c, B_v = np.array([0, 0, 1, 3, 2]), cols, np.array([5.0, 6.0, 7.0, 8.0, 9.0])
    Ag = gb.Matrix.from_coo(A_r, A_c, A_v, nrows=huge, ncols=4, backend=backend)
    Bg = gb.Matrix.from_coo(B_r, B_c, B_v, nrows=4, ncols=huge, backend=backend)
    # The dense model over the occurring rows and columns only.
    ur, uc = np.unique(rows), np.unique(cols)
    A = ref.from_coo((len(ur), 4), [np.searchsorted(ur, A_r), A_c], A_v, np.dtype(np.float64))
    B = ref.from_coo((4, len(uc)), [B_r, np.searchsorted(uc, B_c)], B_v, np.dtype(np.float64))
    add, mult = sr.split("_")
    pos = {"firsti": lambda: ref.BinOp("i", ref._dom_all, ref._to_int64,
                                       lambda x, y, t, p: ur[np.asarray(p[0])].astype(np.int64) + 0 * x,
                                       positional=True),
           "secondj": lambda: ref.BinOp("j", ref._dom_all, ref._to_int64,
                                        lambda x, y, t, p: uc[np.asarray(p[3])].astype(np.int64) + 0 * y,
                                        positional=True)}
    T = ref.mxm(A, B, add, pos[mult]() if mult in pos else mult)
    M_r, M_c = np.array([5, 5, huge - 1]), np.array([7, huge - 2, huge - 2])
    Mg = gb.Matrix.from_coo(M_r, M_c, True, nrows=huge, ncols=huge, backend=backend)
    M = ref.from_coo(T.shape, [np.searchsorted(ur, M_r), np.searchsorted(uc, M_c)], [True] * 3, ref.BOOL)
    for mask, expected in ((None, T), (Mg.S, ref.write(ref.empty(T.shape, T.dtype), T, mask=M, structure=True))):
        got = Ag.mxm(Bg, sr).new(mask=mask)
        r, c, v = got.to_coo()
        er, ec, ev = expected.coo()
        assert (r.tolist(), c.tolist()) == (ur[er].tolist(), uc[ec].tolist())
        assert v.tolist() == ev.tolist()


# ----------------------------------------------------------------------------- the plan chosen


def spy(monkeypatch: pytest.MonkeyPatch, backend: str) -> list[str]:
    """The kernel methods the backend is asked to run, recorded in order."""
    be = get_backend(backend)
    calls: list[str] = []
    for name in ("mxm_gustavson", "mxm_dot"):
        method = getattr(be, name)

        def recorded(*args: object, _name: str = name, _method: object = method) -> object:
            calls.append(_name + (" masked" if len(args) > 3 and args[3] is not None else ""))
            return _method(*args)

        monkeypatch.setattr(be, name, recorded)
    return calls


def test_triangle_shape_runs_dot_without_transpose(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``L @ L.T`` masked by ``L`` (triangle counting) runs as dot products over L's rows: no
    transpose of L is built."""
    rng = np.random.default_rng(5)
    a = rng.random((60, 60)) < 0.2
    L = gb.Matrix.from_dense(np.tril(a | a.T, -1).astype(np.int64), missing_value=0, backend=backend)
    calls = spy(monkeypatch, backend)
    C = L.mxm(L.T, "plus_pair").new(mask=L.S)
    assert calls == ["mxm_dot masked"] and L._T is None
    lo = np.tril(a | a.T, -1).astype(np.int64)
    expected = np.where(lo != 0, lo @ lo.T, 0)
    assert np.array_equal(C.to_dense(fill_value=0), expected)
    assert C.nvals == int(((lo @ lo.T) * lo != 0).sum())


def test_forms_chosen(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """No mask: Gustavson; a complemented mask: Gustavson filtering by it; a mask of few
    positions over long rows: dot; a mask of most positions over short rows: masked Gustavson."""
    calls = spy(monkeypatch, backend)
    n = 200
    rng = np.random.default_rng(6)
    dense = gb.Matrix.from_dense(rng.random((n, n)), backend=backend)
    few = gb.Matrix.from_coo([0, 5], [3, 9], True, nrows=n, ncols=n, backend=backend)
    dense.mxm(dense).new()
    dense.mxm(dense).new(mask=~few.S)
    dense.mxm(dense.T).new(mask=few.S)
    assert calls == ["mxm_gustavson", "mxm_gustavson masked", "mxm_dot masked"]
    calls.clear()
    sparse = gb.Matrix.from_coo(np.arange(n), (np.arange(n) * 7) % n, 1.0, backend=backend)
    full = gb.Matrix.from_dense(np.ones((n, n), bool), backend=backend)
    sparse.mxm(sparse).new(mask=full.S)
    assert calls == ["mxm_gustavson masked"]


def test_vector_mask_is_refused(backend: str) -> None:
    A = gb.Matrix.from_coo([0, 1], [1, 0], 1.0, nrows=2, ncols=2, backend=backend)
    C = A.dup()
    v = gb.Vector.from_coo([0], [1.0], size=2, backend=backend)
    before = coo_snapshot(C)
    with pytest.raises(gb.exceptions.GraphBLASError):
        C(v.S) << A.mxm(A)
    assert coo_snapshot(C) == before


def test_output_is_an_operand(backend: str, form: str) -> None:
    """``A << A @ A`` and ``A(A.S) << A @ A.T``: the product is made before A changes."""
    rng = np.random.default_rng(8)
    X = ref.random(rng, (6, 6), np.dtype(np.int64), 0.4, small=True)
    A = to_gb(X, backend)
    A << A.mxm(A)
    assert_matches(A, ref.mxm(X, X, "plus", "times"))
    A = to_gb(X, backend)
    A(A.S, replace=True) << A.mxm(A.T)
    assert_matches(A, ref.write(X, ref.mxm(X, X.T, "plus", "times"), mask=X, replace=True, structure=True))


# ----------------------------------------------------------------------------- out of memory


@pytest.mark.parametrize("case", ["plain", "scipy", "masked", "complement", "dot"])
def test_out_of_memory_leaves_output(monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    """A product that cannot fit raises OutOfMemory and its output keeps its content: an outer
    product of 2.25M entries (past the size below which memory is not probed) on a host
    said to have 1000 bytes."""
    n = 1500
    col = gb.Matrix.from_dense(np.ones((n, 1)), backend="numpy")
    row = gb.Matrix.from_dense(np.ones((1, n)), backend="numpy")
    full = gb.Matrix.from_dense(np.ones((n, n), bool), backend="numpy")
    few = gb.Matrix.from_coo([0, 7], [3, 9], True, nrows=n, ncols=n, backend="numpy")
    C = gb.Matrix.from_coo([1, 2, 1400], [5, 1499, 0], [1.0, 2.0, 3.0], nrows=n, ncols=n, backend="numpy")
    before = coo_snapshot(C)
    monkeypatch.setattr(limits, "available_bytes", lambda backend: 1000)
    monkeypatch.setattr(numpy_mxm, "USE_SCIPY", case == "scipy")
    monkeypatch.setattr(planner, "FORM", {"masked": "masked", "dot": "dot"}.get(case))
    mask = {"masked": full.S, "complement": ~few.S, "dot": full.S}.get(case)
    with pytest.raises(gb.OutOfMemory):
        C(mask, gb.binary.plus) << col.mxm(row, "min_plus" if case != "scipy" else "plus_times")
    assert coo_snapshot(C) == before


def test_memory_error_becomes_out_of_memory(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed allocation inside a kernel is reported as OutOfMemory, the output unchanged."""
    A = gb.Matrix.from_coo([0, 1], [1, 0], 2.0, nrows=2, ncols=2, backend=backend)
    C = A.dup()
    before = coo_snapshot(C)

    def fails(*args: object) -> object:
        raise MemoryError("no room")

    monkeypatch.setattr(get_backend(backend), "mxm_gustavson", fails)
    with pytest.raises(gb.OutOfMemory):
        C << A.mxm(A)
    assert coo_snapshot(C) == before


def test_count_first_where_the_bound_does_not_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the terms' count (an upper bound: 900,000 terms, 29 MB) exceeds the memory
    available (20 MiB) but the product (9,000 entries) fits, its entries are counted first and
    it runs."""
    n, k = 3000, 100
    A = gb.Matrix.from_dense(np.ones((n, k)), backend="numpy")
    B = gb.Matrix.from_coo(np.repeat(np.arange(k), 3), np.tile([4, 50, 2999], k), 1.0, nrows=k, ncols=n,
                           backend="numpy")  # every row of B holds the same 3 columns
    monkeypatch.setattr(numpy_mxm, "USE_SCIPY", False)
    monkeypatch.setattr(limits, "available_bytes", lambda backend: 20 << 20)
    runs: list[bool] = []
    run = numpy_mxm._Gustavson.run
    monkeypatch.setattr(numpy_mxm._Gustavson, "run", lambda self, count_only=False: runs.append(count_only)
                        or run(self, count_only))
    r, c, v = A.mxm(B, "plus_times").new().to_coo()
    assert runs == [True, False]
    assert np.array_equal(c, np.tile([4, 50, 2999], n)) and np.all(v == k) and len(r) == 3 * n


def test_backend_without_kernels_runs_them_on_the_host(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A backend that has no product kernels (it raises NotImplementedException) gets the
    NumPy kernels' product on host copies of its operands."""
    be = get_backend(backend)
    numpy_be = get_backend("numpy")
    refused: list[str] = []
    for name in ("mxm_gustavson", "mxm_dot"):
        kernel = getattr(numpy_be, name)

        def once(*args: object, _name: str = name, _kernel: object = kernel) -> object:
            if _name not in refused:  # the backend's own call; the host's second call runs
                refused.append(_name)
                raise gb.exceptions.NotImplementedException("no kernel")
            return _kernel(*args)

        monkeypatch.setattr(be, name, once)
        if be is not numpy_be:
            monkeypatch.setattr(numpy_be, name, kernel)
    rng = np.random.default_rng(12)
    A, B = operands(rng, 6, 5, 7, np.dtype(np.float64))
    M = random_mask(rng, (6, 7))
    T = ref.mxm(A, B, "min", "plus")
    assert_matches(to_gb(A, backend).mxm(to_gb(B, backend), "min_plus").new(), T)
    monkeypatch.setattr(planner, "FORM", "dot")
    got = to_gb(A, backend).mxm(to_gb(B, backend), "min_plus").new(mask=to_gb(M, backend).S)
    assert_matches(got, ref.write(ref.empty(T.shape, T.dtype), T, mask=M, structure=True))
    assert refused == ["mxm_gustavson", "mxm_dot"]


@pytest.mark.parametrize("scipy", [True, False])
def test_zero_sums_keep_their_sign(monkeypatch: pytest.MonkeyPatch, scipy: bool) -> None:
    """A sum of terms that are all -0.0 is -0.0, one of x and -x is +0.0; both are entries,
    with scipy's product allowed (it drops them: the batched product runs) and without."""
    monkeypatch.setattr(numpy_mxm, "USE_SCIPY", scipy)
    refused: list[object] = []
    original = scipy_product.product
    monkeypatch.setattr(scipy_product, "product", lambda *args: refused.append(original(*args)) or refused[-1])
    A = gb.Matrix.from_coo([0, 1, 1, 2], [0, 0, 1, 1], [-1.0, 2.0, 2.0, 3.0], nrows=3, ncols=2, backend="numpy")
    B = gb.Matrix.from_coo([0, 0, 1, 1], [0, 1, 0, 1], [0.0, 1.0, -1.0, -1.0], nrows=2, ncols=2, backend="numpy")
    r, c, v = A.mxm(B).new().to_coo()
    assert (r.tolist(), c.tolist()) == ([0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 0, 1])
    assert v.tolist() == [0.0, -1.0, -2.0, 0.0, -3.0, -3.0]
    assert np.signbit(v[0]) and not np.signbit(v[3])  # -1 * 0.0 is -0.0; 2 * 1 + 2 * -1 is +0.0
    assert refused == ([None] if scipy else [])


def test_counts_that_wrap_to_zero_are_entries(backend: str, budget: str) -> None:
    """plus_pair over UINT8 with 256 terms wraps to 0, which is an entry."""
    A = gb.Matrix.from_dense(np.ones((1, 256), np.uint8), backend=backend)
    B = gb.Matrix.from_dense(np.ones((256, 2), np.uint8), backend=backend)
    for sr in ("plus_pair", "plus_first", "plus_times"):
        r, c, v = A.mxm(B, sr).new().to_coo()
        assert (r.tolist(), c.tolist(), v.tolist()) == ([0, 0], [0, 1], [0, 0]), sr
