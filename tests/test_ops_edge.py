"""Edge cases: 0-size objects, 1x1, no entries, self-loops, explicit zeros, NaN and inf,
int64 index sizes, integer division by zero, out-of-range casts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import reference as ref
from conftest import assert_matches, to_gb, to_model

import grblas_gpu as gb

F64, I64 = np.dtype(np.float64), np.dtype(np.int64)


# ----------------------------------------------------------------------------- sizes 0 and 1


@pytest.mark.parametrize("m,k,n", [(0, 0, 0), (0, 3, 2), (3, 0, 2), (3, 2, 0), (1, 1, 1)])
def test_mxm_degenerate_shapes(backend: str, m: int, k: int, n: int) -> None:
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    A, B = ref.random(rng, (m, k), F64, 0.9), ref.random(rng, (k, n), F64, 0.9)
    Ag, Bg = to_gb(A, backend), to_gb(B, backend)
    assert_matches(Ag.mxm(Bg, "plus_times").new(), ref.mxm(A, B, "plus", "times"))
    u = ref.random(rng, (k,), F64, 0.9)
    assert_matches(Ag.mxv(to_gb(u, backend), "min_plus").new(), ref.mxv(A, u, "min", "plus"))
    assert_matches(Ag.T.new(), A.T)
    assert_matches(Ag.ewise_add(Ag, "plus").new(), ref.ewise_add(A, A, "plus"))
    assert_matches(Ag.reduce_rowwise("plus").new(), ref.reduce_rowwise(A, "plus"))
    assert_matches(Ag.reduce_columnwise("max").new(), ref.reduce_columnwise(A, "max"))
    assert_matches(Ag.reduce_scalar("plus").new(), ref.reduce_scalar(A, "plus"))
    assert_matches(Ag.apply("ainv").new(), ref.apply_unary(A, "ainv"))
    assert_matches(Ag.select("tril", 0).new(), ref.select(A, "tril", 0))


def test_zero_size_vector(backend: str) -> None:
    u = gb.Vector("INT32", 0, backend=backend)
    assert u.size == 0 and u.nvals == 0
    idx, vals = u.to_coo()
    assert len(idx) == 0 and vals.dtype == np.int32
    assert u.ewise_mult(u).new().size == 0
    assert u.reduce().new().is_empty
    assert u.to_dense(fill_value=0).shape == (0,)


def test_one_by_one(backend: str) -> None:
    A = gb.Matrix.from_coo([0], [0], [3], nrows=1, ncols=1, backend=backend)
    assert A.mxm(A, "plus_times").new().to_coo()[2].tolist() == [9]
    assert A.select("offdiag", 0).new().nvals == 0
    u = gb.Vector.from_coo([0], [2], size=1, backend=backend)
    assert A.mxv(u, "min_plus").new().to_coo()[1].tolist() == [5]
    assert A[0, 0].value == 3


# ----------------------------------------------------------------------------- no entries


@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("mask_kind", ["value", "structure", "comp_value", "comp_structure"])
def test_empty_mask(backend: str, mask_kind: str, replace: bool) -> None:
    """A mask with no entries allows nothing; complemented, it allows everything."""
    rng = np.random.default_rng(3)
    A, B = ref.random(rng, (4, 4), I64, 0.6, small=True), ref.random(rng, (4, 4), I64, 0.6, small=True)
    C0 = ref.random(rng, (4, 4), I64, 0.5, small=True)
    M = ref.empty((4, 4), np.dtype(bool))
    C = to_gb(C0, backend)
    Mg = to_gb(M, backend)
    mask = {"value": Mg.V, "structure": Mg.S, "comp_value": ~Mg.V, "comp_structure": ~Mg.S}[mask_kind]
    C(mask=mask, replace=replace) << to_gb(A, backend).ewise_add(to_gb(B, backend), "plus")
    s, c = mask_kind.endswith("structure"), mask_kind.startswith("comp")
    expected = ref.write(C0, ref.ewise_add(A, B, "plus"), M, None, replace, s, c)
    assert_matches(C, expected)


def test_operations_on_matrices_without_entries(backend: str) -> None:
    A = gb.Matrix("FP64", 3, 4, backend=backend)
    B = gb.Matrix("FP64", 4, 2, backend=backend)
    assert A.mxm(B, "min_plus").new().nvals == 0
    assert A.ewise_add(A).new().nvals == 0
    assert A.ewise_union(A, "plus", 1.0, 2.0).new().nvals == 0
    assert A.kronecker(B).new().shape == (12, 8)
    C = gb.Matrix.from_coo([0], [0], [1.0], nrows=3, ncols=2, backend=backend)
    C(accum=gb.binary.plus) << A.mxm(B)  # accumulating nothing keeps C
    assert C.to_coo()[2].tolist() == [1.0]
    C << A.mxm(B)  # without accum, C becomes T: empty
    assert C.nvals == 0


# ----------------------------------------------------------------------------- structure


def test_self_loops(backend: str) -> None:
    """Self-loops are ordinary diagonal entries: they take part in products and select."""
    rows, cols = [0, 0, 1, 1, 2], [0, 1, 1, 2, 2]
    A = gb.Matrix.from_coo(rows, cols, 1, nrows=3, ncols=3, dtype="INT64", backend=backend)
    Aref = ref.from_coo((3, 3), (rows, cols), [1] * 5, I64)
    assert_matches(A.mxm(A, "plus_times").new(), ref.mxm(Aref, Aref, "plus", "times"))
    assert A.select("diag", 0).new().nvals == 3
    assert A.select("offdiag", 0).new().nvals == 2


def test_explicit_zeros_are_entries(backend: str) -> None:
    """A stored 0 is an entry: counted, kept by operations, false in a value mask, true in a structural one."""
    A = gb.Matrix.from_coo([0, 1, 2], [0, 1, 2], [0.0, 2.0, 0.0], nrows=3, ncols=3, backend=backend)
    assert A.nvals == 3
    assert A.apply("ainv").new().nvals == 3
    assert A.mxm(A, "plus_times").new().nvals == 3
    assert A.ewise_mult(A, "times").new().nvals == 3
    assert A.reduce_rowwise().new().nvals == 3
    C = gb.Matrix("FP64", 3, 3, backend=backend)
    C(A.V) << A.apply("one")
    assert C.to_coo()[0].tolist() == [1]
    C(A.S) << A.apply("one")
    assert C.to_coo()[0].tolist() == [0, 1, 2]
    assert A.to_dense(fill_value=-1.0).tolist() == [[0, -1, -1], [-1, 2, -1], [-1, -1, 0]]


@pytest.mark.parametrize("t", ["BOOL", "FP64", "INT8"])
def test_value_mask_of_each_type(backend: str, t: str) -> None:
    """A value mask's entries are cast to BOOL: nonzero (NaN included) is true."""
    vals = {"BOOL": [False, True, True], "FP64": [-0.0, -0.5, np.nan], "INT8": [0, -1, 7]}[t]
    M = gb.Vector.from_coo([0, 2, 3], vals, size=5, dtype=t, backend=backend)
    w = gb.Vector("INT64", 5, backend=backend)
    w(M) << 1
    assert w.to_coo()[0].tolist() == [2, 3]
    w2 = gb.Vector("INT64", 5, backend=backend)
    w2(~M.V) << 1
    assert w2.to_coo()[0].tolist() == [0, 1, 4]


# ----------------------------------------------------------------------------- NaN and inf


def test_min_plus_with_inf_and_nan(backend: str) -> None:
    """min uses fmin: a NaN term loses to any number; inf + x stays inf; -inf wins."""
    A = ref.from_coo((2, 3), ([0, 0, 0, 1, 1], [0, 1, 2, 0, 1]), [np.nan, 1.0, np.inf, np.nan, -np.inf], F64)
    B = ref.from_coo((3, 2), ([0, 1, 2, 0, 1], [0, 0, 0, 1, 1]), [1.0, np.inf, 2.0, 3.0, 5.0], F64)
    Ag, Bg = to_gb(A, backend), to_gb(B, backend)
    for sr in ("min_plus", "max_plus", "max_min", "min_max", "plus_times", "min_first", "max_second"):
        add, mult = sr.split("_")
        assert_matches(Ag.mxm(Bg, sr).new(), ref.mxm(A, B, add, mult))
    got = to_model(Ag.mxm(Bg, "min_plus").new())
    assert got.values[0, 0] == np.inf  # terms NaN, inf, inf: the NaN loses
    assert got.values[0, 1] == 6.0  # terms NaN, 6
    assert np.isnan(got.values[1, 0])  # terms NaN+1 and -inf+inf: both NaN
    assert got.values[1, 1] == -np.inf  # terms NaN, -inf


def test_nan_in_ewise_min_max(backend: str) -> None:
    u = gb.Vector.from_coo([0, 1, 2], [np.nan, 1.0, np.nan], size=3, backend=backend)
    v = gb.Vector.from_coo([0, 1, 2], [2.0, np.nan, np.nan], size=3, backend=backend)
    mn = u.ewise_mult(v, "min").new().to_coo()[1]
    mx = u.ewise_add(v, "max").new().to_coo()[1]
    assert mn[:2].tolist() == [2.0, 1.0] and np.isnan(mn[2])
    assert mx[:2].tolist() == [2.0, 1.0] and np.isnan(mx[2])


# ----------------------------------------------------------------------------- integer arithmetic


@pytest.mark.parametrize("op", ["cdiv", "floordiv"])
@pytest.mark.parametrize("t", ["INT8", "INT32", "INT64", "UINT8", "UINT64"])
def test_integer_division_by_zero(backend: str, op: str, t: str) -> None:
    """x / 0 is 0 when x == 0, the type's max when x > 0, its min when x < 0 (SuiteSparse rule)."""
    dt = np.dtype(getattr(gb.dtypes, t).np_type)
    info = np.iinfo(dt)
    xs = [0, 5, 1, info.max] + ([-5, info.min] if info.min < 0 else [])
    n = len(xs)
    u = gb.Vector.from_coo(range(n), xs, size=n, dtype=t, backend=backend)
    z = gb.Vector.from_coo(range(n), [0] * n, size=n, dtype=t, backend=backend)
    got = u.ewise_mult(z, op).new().to_coo()[1].tolist()
    expected = [0, info.max, info.max, info.max] + ([info.min, info.min] if info.min < 0 else [])
    assert got == expected
    assert u.apply(op, right=ref.cast(0, dt)[()]).new().to_coo()[1].tolist() == expected


@pytest.mark.parametrize("t", ["INT8", "INT32", "INT64"])
def test_integer_division_signs(backend: str, t: str) -> None:
    """cdiv truncates toward zero (C); floordiv rounds down; INT_MIN / -1 wraps to INT_MIN."""
    dt = np.dtype(getattr(gb.dtypes, t).np_type)
    mn = int(np.iinfo(dt).min)
    xs, ys = [7, -7, 7, -7, mn], [2, 2, -2, -2, -1]
    u = gb.Vector.from_coo(range(5), xs, size=5, dtype=t, backend=backend)
    v = gb.Vector.from_coo(range(5), ys, size=5, dtype=t, backend=backend)
    assert u.ewise_mult(v, "cdiv").new().to_coo()[1].tolist() == [3, -3, -3, 3, mn]
    assert u.ewise_mult(v, "floordiv").new().to_coo()[1].tolist() == [3, -4, -4, 3, mn]


def test_integer_overflow_wraps(backend: str) -> None:
    u = gb.Vector.from_coo([0, 1], [127, -128], size=2, dtype="INT8", backend=backend)
    assert u.ewise_mult(u, "plus").new().to_coo()[1].tolist() == [-2, 0]
    assert u.apply("ainv").new().to_coo()[1].tolist() == [-127, -128]
    w = gb.Vector.from_coo([0], [255], size=1, dtype="UINT8", backend=backend)
    assert w.apply(gb.binary.plus, right=np.uint8(1)).new().to_coo()[1].tolist() == [0]


# ----------------------------------------------------------------------------- casts


CAST_VALUES = [-1e30, -200.7, -1.9, -0.5, 0.0, 0.7, 1.5, 200.9, 1e30, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("t", ["BOOL", "INT8", "UINT8", "INT32", "INT64", "UINT64", "FP32"])
def test_cast_fp64_to(backend: str, t: str) -> None:
    """C-style casts from FP64: truncate toward zero, saturate out of range, NaN -> 0; nonzero -> true."""
    n = len(CAST_VALUES)
    u = gb.Vector.from_coo(range(n), CAST_VALUES, size=n, dtype="FP64", backend=backend)
    dt = np.dtype(getattr(gb.dtypes, t).np_type)
    expected = ref.cast(np.array(CAST_VALUES), dt)
    for got in (u.dup(dtype=t), u.apply("identity").new(dtype=t)):
        _idx, vals = got.to_coo()
        assert vals.dtype == dt
        np.testing.assert_array_equal(vals, expected)
    w = gb.Vector(t, n, backend=backend)
    w << u.apply("identity")  # cast on the write into an output of another type
    np.testing.assert_array_equal(w.to_coo()[1], expected)


@pytest.mark.parametrize("src,dst", [("INT64", "INT8"), ("INT32", "UINT8"), ("INT8", "UINT64"), ("UINT64", "INT64"),
                                     ("INT64", "BOOL"), ("BOOL", "INT32"), ("INT64", "FP32")])
def test_cast_integers(backend: str, src: str, dst: str) -> None:
    """Integer to integer casts wrap modulo 2**bits; to BOOL: nonzero is true."""
    s = np.dtype(getattr(gb.dtypes, src).np_type)
    d = np.dtype(getattr(gb.dtypes, dst).np_type)
    raw = [0, 1, 2, 127, 128, 255, 256, 1000, 2**31, 2**40 + 3, -1, -129]
    vals = ref.cast(np.array(raw, dtype=object).astype(np.int64) if s.kind != "u"
                    else np.array([x % 2**64 for x in raw], dtype=np.uint64), s)
    u = gb.Vector.from_coo(range(len(vals)), vals, size=len(vals), dtype=src, backend=backend)
    np.testing.assert_array_equal(u.dup(dtype=dst).to_coo()[1], ref.cast(vals, d))


def test_from_coo_casts_values(backend: str) -> None:
    A = gb.Matrix.from_coo([0, 1], [0, 1], [2.9, -2.9], nrows=2, ncols=2, dtype="INT32", backend=backend)
    assert A.to_coo()[2].tolist() == [2, -2]
    B = gb.Matrix.from_coo([0, 1], [0, 1], [0.5, 0.0], nrows=2, ncols=2, dtype=bool, backend=backend)
    assert B.to_coo()[2].tolist() == [True, False]


# ----------------------------------------------------------------------------- int64 index sizes
# Run in a subprocess with a cap on address space, so an implementation that allocates
# O(n) for a huge, nearly empty object fails with MemoryError instead of exhausting the host.

HUGE_SCRIPT = textwrap.dedent(
    r"""
    import json, resource, sys, traceback
    import numpy as np
    backend = sys.argv[1]
    if backend == "numpy":
        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
    import grblas_gpu as gb
    results = {}

    def check(name):
        def deco(f):
            try:
                f()
                results[name] = "ok"
            except BaseException as e:  # noqa: BLE001
                results[name] = f"{type(e).__name__}: {e}"[:400] + "\n" + traceback.format_exc()[-800:]
        return deco

    N = 2**40
    idx = np.array([0, 5, 2**33, N - 1], dtype=np.int64)

    @check("vector_coo")
    def _():
        u = gb.Vector.from_coo(idx, [1.0, 2.0, 3.0, 4.0], size=N, backend=backend)
        assert u.size == N and u.nvals == 4
        i, v = u.to_coo()
        assert i.tolist() == idx.tolist() and v.tolist() == [1, 2, 3, 4]
        assert u[N - 1].value == 4.0 and u[7].value is None

    @check("vector_ops")
    def _():
        u = gb.Vector.from_coo(idx, [1.0, 2.0, 3.0, 4.0], size=N, backend=backend)
        v = gb.Vector.from_coo([5, N - 2], [10.0, 20.0], size=N, backend=backend)
        i, x = u.ewise_add(v, "plus").new().to_coo()
        assert i.tolist() == [0, 5, 2**33, N - 2, N - 1] and x.tolist() == [1, 12, 3, 20, 4]
        i, x = u.ewise_mult(v, "plus").new().to_coo()
        assert i.tolist() == [5] and x.tolist() == [12]
        assert u.apply("ainv").new().to_coo()[1].tolist() == [-1, -2, -3, -4]
        assert u.select("valuegt", 2.0).new().to_coo()[0].tolist() == [2**33, N - 1]
        assert u.reduce("plus").new().value == 10.0
        u[N - 2] = 7.0
        assert u.nvals == 5
        del u[0]
        assert u.to_coo()[0].tolist() == [5, 2**33, N - 2, N - 1]

    M = 2**33
    rows = np.array([0, 1, M - 1, M - 1], dtype=np.int64)
    cols = np.array([M - 1, 1, 0, M - 2], dtype=np.int64)

    @check("matrix_coo")
    def _():
        A = gb.Matrix.from_coo(rows, cols, [1, 2, 3, 4], nrows=M, ncols=M, backend=backend)
        assert A.shape == (M, M) and A.nvals == 4
        r, c, v = A.to_coo()
        assert r.tolist() == rows.tolist() and c.tolist() == cols.tolist() and v.tolist() == [1, 2, 3, 4]
        assert A[M - 1, M - 2].value == 4 and A[2, 2].value is None

    @check("matrix_ewise")
    def _():
        A = gb.Matrix.from_coo(rows, cols, [1, 2, 3, 4], nrows=M, ncols=M, backend=backend)
        B = gb.Matrix.from_coo([1, M - 1], [1, M - 1], [10, 20], nrows=M, ncols=M, backend=backend)
        r, c, v = A.ewise_add(B, "plus").new().to_coo()
        assert list(zip(r.tolist(), c.tolist(), v.tolist())) == [
            (0, M - 1, 1), (1, 1, 12), (M - 1, 0, 3), (M - 1, M - 2, 4), (M - 1, M - 1, 20)]
        r, c, v = A.ewise_mult(B, "times").new().to_coo()
        assert (r.tolist(), c.tolist(), v.tolist()) == ([1], [1], [20])

    @check("matrix_apply_select")
    def _():
        A = gb.Matrix.from_coo(rows, cols, [1, 2, 3, 4], nrows=M, ncols=M, backend=backend)
        assert A.apply(gb.binary.times, right=2).new().to_coo()[2].tolist() == [2, 4, 6, 8]
        assert A.apply(gb.indexunary.rowindex, 0).new().to_coo()[2].tolist() == rows.tolist()
        r, c, v = A.select("tril", 0).new().to_coo()
        assert r.tolist() == [1, M - 1, M - 1] and c.tolist() == [1, 0, M - 2]
        assert A.select("triu", 1).new().to_coo()[1].tolist() == [M - 1]

    @check("matrix_transpose")
    def _():
        A = gb.Matrix.from_coo(rows, cols, [1, 2, 3, 4], nrows=M, ncols=M, backend=backend)
        r, c, v = A.T.new().to_coo()
        assert list(zip(r.tolist(), c.tolist(), v.tolist())) == [
            (0, M - 1, 3), (1, 1, 2), (M - 2, M - 1, 4), (M - 1, 0, 1)]

    @check("matrix_rectangular_huge")
    def _():
        A = gb.Matrix.from_coo([3, 2**40 - 1], [2**35, 0], [1.5, 2.5], nrows=2**40, ncols=2**36, backend=backend)
        r, c, v = A.T.new().to_coo()
        assert (r.tolist(), c.tolist()) == ([0, 2**35], [2**40 - 1, 3])
        assert A.reduce_scalar("plus").new().value == 4.0

    print(json.dumps(results))
    """
)

HUGE_CHECKS = ["vector_coo", "vector_ops", "matrix_coo", "matrix_ewise", "matrix_apply_select", "matrix_transpose",
               "matrix_rectangular_huge"]
_huge_results: dict[str, dict[str, str]] = {}


def huge_results(backend: str) -> dict[str, str]:
    if backend not in _huge_results:
        env = dict(os.environ)
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the repository, for grblas_gpu
        env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
        proc = subprocess.run([sys.executable, "-c", HUGE_SCRIPT, backend], capture_output=True, text=True,
                              timeout=300, env=env, check=False)
        lines = proc.stdout.strip().splitlines()
        if proc.returncode != 0 or not lines:
            _huge_results[backend] = {k: f"subprocess failed ({proc.returncode}): {proc.stderr[-2000:]}"
                                      for k in HUGE_CHECKS}
        else:
            _huge_results[backend] = json.loads(lines[-1])
    return _huge_results[backend]


@pytest.mark.parametrize("check", HUGE_CHECKS)
def test_int64_index_sizes(backend: str, check: str) -> None:
    """Vector of size 2**40 and Matrix 2**33 x 2**33 with a few entries: O(nvals) memory, exact indices."""
    result = huge_results(backend)[check]
    assert result == "ok", result


def test_value_mask_random_types_against_model(backend: str) -> None:
    """Masks of other types than the output's, read as values (cast to BOOL)."""
    rng = np.random.default_rng(21)
    for mt in (np.dtype(np.float32), np.dtype(np.uint8), np.dtype(bool)):
        M = ref.random(rng, (6,), mt, 0.7)
        w0 = ref.random(rng, (6,), I64, 0.5)
        w = to_gb(w0, backend)
        w(to_gb(M, backend).V) << to_gb(w0, backend).apply("ainv")
        assert_matches(w, ref.write(w0, ref.apply_unary(w0, "ainv"), M))


# ----------------------------------------------------------------------------- exactness of 64-bit values

BIG = 2**53 + 1  # not representable in FP64: any detour through float shows


@pytest.mark.parametrize("t", ["INT64", "UINT64"])
def test_64bit_integers_stay_exact(backend: str, t: str) -> None:
    top = 2**63 - 2 if t == "INT64" else 2**64 - 2
    vals = [BIG, top, 3]
    u = gb.Vector.from_coo([0, 2, 3], np.array(vals, dtype=t.lower()), size=4, dtype=t, backend=backend)
    assert u.to_coo()[1].tolist() == vals
    assert u[2].value == top
    assert u.reduce("max").new().value == top
    assert u.reduce("min").new().value == 3
    assert u.apply(gb.binary.plus, right=np.array(1).astype(np.dtype(t.lower()))[()]).new().to_coo()[1].tolist() \
        == [BIG + 1, top + 1, 4]
    assert u.ewise_add(u, "minus").new().to_coo()[1].tolist() == [0, 0, 0]
    assert u.select("valueeq", BIG).new().to_coo()[0].tolist() == [0]
    A = gb.Matrix.from_coo([0, 1], [0, 1], np.array([BIG, top], dtype=t.lower()), nrows=2, ncols=2, dtype=t,
                           backend=backend)
    one = gb.Vector.from_coo([0, 1], [1, 1], size=2, dtype=t, backend=backend)
    assert A.mxv(one, "plus_times").new().to_coo()[1].tolist() == [BIG, top]
    assert A.mxv(one, "min_first").new().to_coo()[1].tolist() == [BIG, top]
    assert A.reduce_rowwise("plus").new().to_coo()[1].tolist() == [BIG, top]
    assert A.reduce_scalar("max").new().value == top
    assert A.T.new().to_coo()[2].tolist() == [BIG, top]
    assert A.to_dense(fill_value=0).tolist() == [[BIG, 0], [0, top]]
    C = gb.Matrix(t, 2, 2, backend=backend)
    C[1, 0] = BIG
    assert C[1, 0].value == BIG
    assert gb.Scalar.from_value(BIG, dtype=t).value == BIG
    D = gb.Matrix.from_coo([0, 0], [1, 1], [BIG, 1], nrows=2, ncols=2, dtype=t, dup_op="plus", backend=backend)
    assert D.to_coo()[2].tolist() == [BIG + 1]


@pytest.mark.parametrize("t", ["INT64", "UINT64"])
def test_python_int_lists_keep_64bit_values(backend: str, t: str) -> None:
    """Values given as a Python list are converted with the dtype asked for, not through float64
    (NumPy alone turns [2**53 + 1, 2**64 - 2] into float64)."""
    top = 2**63 - 1 if t == "INT64" else 2**64 - 2
    u = gb.Vector.from_coo([0, 1], [BIG, top], size=2, dtype=t, backend=backend)
    assert u.to_coo()[1].tolist() == [BIG, top]
    A = gb.Matrix.from_coo([0, 1], [0, 1], [BIG, top], nrows=2, ncols=2, dtype=t, backend=backend)
    assert A.to_coo()[2].tolist() == [BIG, top]
    assert gb.Vector.from_dense([BIG, top], dtype=t, backend=backend).to_coo()[1].tolist() == [BIG, top]


def test_min_plus_int64_identity_not_confused_with_values(backend: str) -> None:
    """A stored INT64 max is a value, not 'no path': it must come out as an entry."""
    top = 2**63 - 1
    A = gb.Matrix.from_coo([0, 1], [1, 0], [top, 0], nrows=2, ncols=2, dtype="INT64", backend=backend)
    u = gb.Vector.from_coo([0, 1], [0, 0], size=2, dtype="INT64", backend=backend)
    w = u.vxm(A, "min_plus").new()
    assert w.to_coo()[0].tolist() == [0, 1] and w.to_coo()[1].tolist() == [0, top]
    F = gb.Matrix.from_coo([0], [1], [np.inf], nrows=2, ncols=2, backend=backend)
    assert F.mxv(gb.Vector.from_coo([1], [1.0], size=2, backend=backend), "min_plus").new().nvals == 1


# ----------------------------------------------------------------------------- more corners


def test_mixed_types_in_mxm(backend: str) -> None:
    """A polymorphic semiring computes in the promoted type of its inputs."""
    rng = np.random.default_rng(31)
    A = ref.random(rng, (4, 5), np.dtype(np.int8), 0.6, small=True)
    B = ref.random(rng, (5, 3), np.dtype(np.float32), 0.6)
    got = to_gb(A, backend).mxm(to_gb(B, backend), "plus_times").new()
    assert_matches(got, ref.mxm(A, B, "plus", "times"))
    assert got.dtype == gb.dtypes.FP32


def test_apply_bind_promotes_with_float_scalar(backend: str) -> None:
    A = ref.random(np.random.default_rng(32), (3, 4), I64, 0.6, small=True)
    got = to_gb(A, backend).apply(gb.binary.times, right=0.5).new()
    assert_matches(got, ref.apply_bind(A, "times", 0.5, "right"))


def test_select_thunk_as_scalar_object(backend: str) -> None:
    A = ref.random(np.random.default_rng(33), (5, 5), F64, 0.7)
    Ag = to_gb(A, backend)
    assert_matches(Ag.select("tril", gb.Scalar.from_value(-1)).new(), ref.select(A, "tril", -1))
    assert_matches(Ag.select("valuegt", gb.Scalar.from_value(0.5)).new(), ref.select(A, "valuegt", 0.5))


def test_slices_clip_like_python(backend: str) -> None:
    A = ref.random(np.random.default_rng(34), (5, 7), I64, 0.6)
    Ag = to_gb(A, backend)
    assert_matches(Ag[0:100, 3:].new(), ref.extract(A, slice(0, 100), slice(3, None)))
    assert_matches(Ag[4:2, :].new(), ref.extract(A, slice(4, 2), slice(None)))  # empty: 0 x 7
    assert Ag[4:2, :].new().shape == (0, 7)


def test_scalar_under_matrix_mask(backend: str) -> None:
    """``C(M.S) << s`` puts s at every position of M (python-graphblas: assign with ALL, ALL)."""
    C0 = ref.random(np.random.default_rng(35), (3, 4), I64, 0.5)
    M = ref.random(np.random.default_rng(36), (3, 4), np.dtype(bool), 0.5)
    C = to_gb(C0, backend)
    C(to_gb(M, backend).S) << 5
    assert_matches(C, ref.assign(C0, np.int64(5), (slice(None), slice(None)), mask=M, structure=True))


def test_assign_scalar_with_accum_on_missing(backend: str) -> None:
    """Scalar assign with accum: present entries become accum(c, s); missing ones get s."""
    w = gb.Vector.from_coo([1, 3], [10, 20], size=5, dtype="INT32", backend=backend)
    w(accum=gb.binary.minus)[[0, 1, 2]] << 4
    assert w.to_coo()[0].tolist() == [0, 1, 2, 3] and w.to_coo()[1].tolist() == [4, 6, 4, 20]


def test_assign_transposed_source(backend: str) -> None:
    C0 = ref.random(np.random.default_rng(37), (4, 5), I64, 0.5)
    B = ref.random(np.random.default_rng(38), (3, 2), I64, 0.7)
    C = to_gb(C0, backend)
    gb.assign(C, None, None, to_gb(B, backend), [0, 2], [4, 1, 3], gb.descriptor.T0)
    assert_matches(C, ref.assign(C0, B.T, ([0, 2], [4, 1, 3])))


def test_reduce_with_monoid_given_as_binary_op(backend: str) -> None:
    """A BinaryOp that has a built-in monoid may stand for it (python-graphblas convenience)."""
    A = ref.random(np.random.default_rng(39), (4, 5), I64, 0.6, small=True)
    Ag = to_gb(A, backend)
    assert_matches(Ag.reduce_rowwise(gb.binary.max).new(), ref.reduce_rowwise(A, "max"))
    assert_matches(Ag.reduce_scalar(gb.binary.plus).new(), ref.reduce_scalar(A, "plus"))


@pytest.mark.parametrize("dup_op", ["plus", "times", "min"])
def test_dup_op_integer_wraps(backend: str, dup_op: str) -> None:
    A = gb.Matrix.from_coo([0, 0, 0], [0, 0, 0], [100, 100, 100], nrows=1, ncols=1, dtype="INT8", dup_op=dup_op,
                           backend=backend)
    expected = {"plus": 300 - 256, "times": ref.cast(np.array(10**6), np.dtype(np.int8))[()], "min": 100}[dup_op]
    assert A.to_coo()[2].tolist() == [expected]
