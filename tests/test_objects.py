"""Matrix, Vector and Scalar objects: constructors and exports, element access, dup, clear,
resize, comparison, attributes, repr and dtype spellings."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from conftest import assert_matches, to_gb, to_model

import grblas_gpu as gb

ROWS, COLS, VALS = [2, 0, 1, 0], [1, 3, 1, 0], [4.0, 2.0, 3.0, 1.0]


def coo_tuples(A: gb.Matrix) -> list[tuple]:
    r, c, v = A.to_coo()
    return list(zip(r.tolist(), c.tolist(), v.tolist()))


# ----------------------------------------------------------------------------- constructors and exports


def test_from_coo_to_coo_sorted(backend: str) -> None:
    A = gb.Matrix.from_coo(ROWS, COLS, VALS, nrows=3, ncols=4, backend=backend)
    assert A.shape == (3, 4) and A.nrows == 3 and A.ncols == 4 and A.nvals == 4
    assert A.dtype == gb.dtypes.FP64 and A.backend == backend
    r, c, v = A.to_coo()
    assert all(isinstance(x, np.ndarray) for x in (r, c, v))
    assert coo_tuples(A) == [(0, 0, 1.0), (0, 3, 2.0), (1, 1, 3.0), (2, 1, 4.0)]


def test_from_coo_infers_shape_and_dtype(backend: str) -> None:
    A = gb.Matrix.from_coo([0, 3], [1, 2], [1, 2], backend=backend)
    assert A.shape == (4, 3)
    assert A.dtype == gb.dtypes.INT64
    B = gb.Matrix.from_coo([0, 1], [1, 0], backend=backend)  # values default to 1.0
    assert B.dtype == gb.dtypes.FP64 and B.to_coo()[2].tolist() == [1.0, 1.0]
    u = gb.Vector.from_coo([5, 1], [True, False], backend=backend)
    assert u.size == 6 and u.dtype == gb.dtypes.BOOL


@pytest.mark.parametrize("n", [0, 1, 2])
def test_from_coo_copies_its_input(backend: str, n: int) -> None:
    """A new object owns its arrays, however few its entries: the caller's arrays changed
    after the call do not change it."""
    idx, vals, rows = np.arange(n) + 2, np.arange(n) + 7.0, np.arange(n)
    u = gb.Vector.from_coo(idx, vals, size=5, backend=backend, name="u")
    A = gb.Matrix.from_coo(rows, idx, vals, nrows=3, ncols=5, backend=backend)
    idx[:], vals[:], rows[:] = 0, -1.0, 0
    assert u.name == "u" and u.to_coo()[0].tolist() == list(range(2, 2 + n))
    assert u.to_coo()[1].tolist() == [7.0 + k for k in range(n)]
    assert coo_tuples(A) == [(k, 2 + k, 7.0 + k) for k in range(n)]


def test_from_coo_scalar_value(backend: str) -> None:
    A = gb.Matrix.from_coo([0, 1, 2], [2, 1, 0], 7, nrows=3, ncols=3, dtype="INT8", backend=backend)
    assert A.to_coo()[2].tolist() == [7, 7, 7] and A.dtype == gb.dtypes.INT8


@pytest.mark.parametrize("dup_op,expected", [("plus", 6.0), ("min", 1.0), ("max", 3.0), ("first", 1.0),
                                             ("second", 3.0), ("times", 6.0)])
def test_from_coo_dup_op(backend: str, dup_op: str, expected: float) -> None:
    """Duplicates are combined in input order with dup_op."""
    A = gb.Matrix.from_coo([1, 0, 1, 1], [1, 0, 1, 1], [1.0, 5.0, 2.0, 3.0], nrows=2, ncols=2,
                           dup_op=getattr(gb.binary, dup_op), backend=backend)
    assert coo_tuples(A) == [(0, 0, 5.0), (1, 1, expected)]
    u = gb.Vector.from_coo([3, 3, 0, 3], [1.0, 2.0, 9.0, 3.0], size=4, dup_op=dup_op, backend=backend)
    assert u.to_coo()[1].tolist() == [9.0, expected]


def test_from_dense_missing_value(backend: str) -> None:
    d = np.array([[0, 1, 2], [3, 0, 0]], dtype=np.int32)
    A = gb.Matrix.from_dense(d, missing_value=0, backend=backend)
    assert A.dtype == gb.dtypes.INT32 and A.nvals == 3
    assert coo_tuples(A) == [(0, 1, 1), (0, 2, 2), (1, 0, 3)]
    full = gb.Matrix.from_dense(d, backend=backend)
    assert full.nvals == 6  # without missing_value every element is an entry, zeros too
    assert np.array_equal(A.to_dense(fill_value=0), d)
    f = gb.Matrix.from_dense(np.array([[np.nan, 1.0]]), missing_value=np.nan, backend=backend)
    assert coo_tuples(f) == [(0, 1, 1.0)]
    u = gb.Vector.from_dense([5, 0, 7], missing_value=0, dtype="UINT8", backend=backend)
    assert u.dtype == gb.dtypes.UINT8 and u.to_coo()[0].tolist() == [0, 2]
    assert u.to_dense(fill_value=0).tolist() == [5, 0, 7]


def test_csr_csc_roundtrip(backend: str) -> None:
    rng = np.random.default_rng(1)
    A0 = ref.random(rng, (5, 7), np.dtype(np.float32), 0.4)
    A0.present[3, :] = False  # an empty row
    A = to_gb(A0, backend)
    indptr, cols, vals = A.to_csr()
    assert indptr.tolist() == np.concatenate([[0], np.cumsum(A0.present.sum(axis=1))]).tolist()
    assert cols.tolist() == np.nonzero(A0.present)[1].tolist()
    B = gb.Matrix.from_csr(indptr, cols, vals, ncols=7, backend=backend)
    assert B.isequal(A, check_dtype=True)
    indptr_c, rows_c, vals_c = A.to_csc()
    assert indptr_c.tolist() == np.concatenate([[0], np.cumsum(A0.present.sum(axis=0))]).tolist()
    assert rows_c.tolist() == np.nonzero(A0.present.T)[1].tolist()
    assert vals_c.tolist() == A0.values.T[A0.present.T].tolist()
    C = gb.Matrix.from_csc(indptr_c, rows_c, vals_c, nrows=5, backend=backend)
    assert C.isequal(A, check_dtype=True)


def test_from_csr_scalar_values(backend: str) -> None:
    A = gb.Matrix.from_csr([0, 2, 2, 3], [0, 3, 1], 2, ncols=4, dtype="INT16", backend=backend)
    assert coo_tuples(A) == [(0, 0, 2), (0, 3, 2), (2, 1, 2)] and A.dtype == gb.dtypes.INT16


def test_from_scalar(backend: str) -> None:
    A = gb.Matrix.from_scalar(2.5, 2, 3, backend=backend)
    assert A.nvals == 6 and set(A.to_coo()[2].tolist()) == {2.5}
    u = gb.Vector.from_scalar(4, 5, dtype="UINT8", backend=backend)
    assert u.nvals == 5 and u.dtype == gb.dtypes.UINT8 and u.to_dense().tolist() == [4] * 5


def test_scalar_object() -> None:
    s = gb.Scalar.from_value(3)
    assert s.value == 3 and s.dtype == gb.dtypes.INT64 and not s.is_empty and s.nvals == 1
    f = gb.Scalar.from_value(3, dtype="FP32")
    assert f.dtype == gb.dtypes.FP32 and f.value == 3.0 and isinstance(f.value, float | np.floating)
    e = gb.Scalar(bool)
    assert e.is_empty and e.value is None and e.dtype == gb.dtypes.BOOL


def test_empty_constructors(backend: str) -> None:
    A = gb.Matrix("INT32", 3, 4, backend=backend)
    assert A.shape == (3, 4) and A.nvals == 0 and A.dtype == gb.dtypes.INT32
    r, c, v = A.to_coo()
    assert len(r) == len(c) == len(v) == 0 and v.dtype == np.int32
    u = gb.Vector(float, 7, backend=backend)
    assert u.size == 7 and u.shape == (7,) and u.nvals == 0 and u.dtype == gb.dtypes.FP64
    assert gb.Matrix().shape == (0, 0)


# ----------------------------------------------------------------------------- elements


def test_element_access_assign_delete(backend: str) -> None:
    A = gb.Matrix.from_coo(ROWS, COLS, VALS, nrows=3, ncols=4, backend=backend)
    assert A[2, 1].value == 4.0 and A[2, 2].value is None
    A[2, 2] = 8
    assert A[2, 2].value == 8.0 and A.nvals == 5
    A[2, 2] = 9.5  # overwrite
    assert A[2, 2].value == 9.5 and A.nvals == 5
    del A[0, 0]
    assert A[0, 0].value is None and A.nvals == 4
    del A[0, 0]  # removing a missing entry is a no-op (GrB_removeElement)
    assert A.nvals == 4
    u = gb.Vector.from_coo([1], [2], size=3, dtype="INT8", backend=backend)
    u[0] = 300  # cast C-style into INT8: wraps
    assert u[0].value == 44
    del u[1]
    assert u.to_coo()[0].tolist() == [0]


def test_dup_is_independent(backend: str) -> None:
    A = gb.Matrix.from_coo(ROWS, COLS, VALS, nrows=3, ncols=4, backend=backend)
    B = A.dup()
    B[1, 1] = -1.0
    del B[0, 0]
    assert A[1, 1].value == 3.0 and A[0, 0].value == 1.0
    C = A.dup(dtype="INT8")
    assert C.dtype == gb.dtypes.INT8 and C.to_coo()[2].tolist() == [1, 2, 3, 4]
    u = gb.Vector.from_coo([0, 2], [1.5, -2.5], size=3, backend=backend)
    assert u.dup(dtype=int).to_coo()[1].tolist() == [1, -2]


def test_clear(backend: str) -> None:
    A = gb.Matrix.from_coo(ROWS, COLS, VALS, nrows=3, ncols=4, backend=backend)
    A.clear()
    assert A.nvals == 0 and A.shape == (3, 4) and A.dtype == gb.dtypes.FP64


def test_resize(backend: str) -> None:
    A = gb.Matrix.from_coo(ROWS, COLS, VALS, nrows=3, ncols=4, backend=backend)
    A.resize(2, 2)  # shrinking drops entries outside
    assert A.shape == (2, 2) and coo_tuples(A) == [(0, 0, 1.0), (1, 1, 3.0)]
    A.resize(6, 5)  # growing keeps them
    assert A.shape == (6, 5) and A.nvals == 2
    A[5, 4] = 1.0
    assert A.nvals == 3
    u = gb.Vector.from_coo([0, 4, 9], [1, 2, 3], size=10, backend=backend)
    u.resize(5)
    assert u.size == 5 and u.to_coo()[0].tolist() == [0, 4]
    u.resize(20)
    assert u.size == 20 and u.nvals == 2


def test_isequal_isclose(backend: str) -> None:
    A = gb.Matrix.from_coo([0, 1], [0, 1], [1.0, 2.0], nrows=2, ncols=2, backend=backend)
    B = gb.Matrix.from_coo([0, 1], [0, 1], [1.0, 2.0 + 1e-9], nrows=2, ncols=2, backend=backend)
    I = gb.Matrix.from_coo([0, 1], [0, 1], [1, 2], nrows=2, ncols=2, backend=backend)
    assert A.isequal(A.dup()) and not A.isequal(B) and A.isclose(B)
    assert not A.isclose(B, rel_tol=1e-12)
    assert A.isequal(I) and not A.isequal(I, check_dtype=True)
    assert not A.isequal(gb.Matrix.from_coo([0], [0], [1.0], nrows=2, ncols=2, backend=backend))  # structure
    assert not A.isequal(gb.Matrix.from_coo([0, 1], [0, 1], [1.0, 2.0], nrows=2, ncols=3, backend=backend))
    n1 = gb.Vector.from_coo([0], [np.nan], size=1, backend=backend)
    assert n1.isclose(n1.dup())  # NaN in the same place
    z = gb.Vector.from_coo([0], [0.0], size=1, backend=backend)
    assert not z.isequal(gb.Vector(float, 1, backend=backend))  # an explicit zero is not a missing entry
    assert z.isclose(gb.Vector.from_coo([0], [1e-12], size=1, backend=backend), abs_tol=1e-9)


# ----------------------------------------------------------------------------- dtypes, repr


@pytest.mark.parametrize("spelling,expected", [
    (np.int16, "INT16"), (np.dtype("uint32"), "UINT32"), ("FP32", "FP32"), ("float32", "FP32"),
    ("int8", "INT8"), (bool, "BOOL"), (int, "INT64"), (float, "FP64"), (gb.dtypes.UINT64, "UINT64"),
])
def test_dtype_spellings(backend: str, spelling: object, expected: str) -> None:
    A = gb.Matrix(spelling, 2, 2, backend=backend)
    assert A.dtype == getattr(gb.dtypes, expected)
    assert A.dtype.np_type == np.dtype(getattr(gb.dtypes, expected).np_type)
    u = gb.Vector.from_coo([0], [1], size=1, dtype=spelling, backend=backend)
    assert u.to_coo()[1].dtype == A.dtype.np_type


def test_repr_is_short_and_informative(backend: str) -> None:
    A = gb.Matrix.from_coo(ROWS, COLS, VALS, nrows=3, ncols=4, backend=backend)
    r = repr(A)
    assert "3" in r and "4" in r and "FP64" in r and str(A.nvals) in r
    assert len(r.splitlines()) <= 20 and len(r) < 2000
    big = gb.Matrix.from_coo(np.arange(10_000), np.arange(10_000), 1.0, nrows=10_000, ncols=10_000, backend=backend)
    assert len(repr(big)) < 4000  # never prints every entry
    u = gb.Vector.from_coo([1], [2], size=5, dtype="INT8", backend=backend)
    assert "INT8" in repr(u) and "5" in repr(u)
    assert "INT64" in repr(gb.Scalar.from_value(7)) and "7" in repr(gb.Scalar.from_value(7))


def test_repr_html_contains_values(backend: str) -> None:
    A = gb.Matrix.from_coo([0, 1], [1, 2], [1.25, -7.5], nrows=2, ncols=3, backend=backend)
    html = A._repr_html_()
    assert "<" in html and ">" in html and "1.25" in html and "-7.5" in html
    u = gb.Vector.from_coo([3], [42], size=4, backend=backend)
    assert "42" in u._repr_html_()


def test_models_roundtrip(backend: str) -> None:
    """The bridge used by every test: model -> grblas_gpu -> model is the identity."""
    rng = np.random.default_rng(5)
    for t in ref.ALL_TYPES:
        for shape in ((4, 6), (7,)):
            x = ref.random(rng, shape, t, 0.5)
            assert_matches(to_model(to_gb(x, backend)), x)


def test_move_between_backends(backend: str) -> None:
    A = gb.Matrix.from_coo(ROWS, COLS, VALS, nrows=3, ncols=4, backend=backend)
    B = A.to("numpy")
    assert B.backend == "numpy" and B.isequal(A.to("numpy"))
    assert coo_tuples(B) == coo_tuples(A)


def test_use_backend_context() -> None:
    with gb.use_backend("numpy"):
        assert gb.Matrix("FP64", 1, 1).backend == "numpy"
        assert gb.Vector.from_coo([0], [1.0], size=1).backend == "numpy"


def test_most_entries_bounds_any_rows(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The push/pull bound ``_most_entries(k)`` is the sum of the k longest rows (NumPy sort),
    also past the row lengths it keeps, where it stays an upper bound."""
    import grblas_gpu.matrix as matrix_module

    monkeypatch.setattr(matrix_module, "_HEAVIEST_ROWS", 50)
    rng = np.random.default_rng(11)
    rows = np.minimum(rng.zipf(1.7, 4000), 200) - 1  # a few long rows, many short
    cols = rng.integers(0, 200, 4000)
    A = gb.Matrix.from_coo(rows, cols, 1.0, nrows=200, ncols=200, dup_op=gb.binary.first, backend=backend)
    r, _, _ = A.to_coo()
    longest_first = np.sort(np.bincount(r, minlength=200))[::-1]
    for k in (0, 1, 7, 50):
        assert A._most_entries(k) == longest_first[:k].sum()
    for k in (51, 120, 200):
        assert A._most_entries(k) >= longest_first[:k].sum()
