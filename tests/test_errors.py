"""Errors named after GrB_Info, with useful messages; an operation that raises leaves its
output exactly as it was."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from conftest import coo_snapshot

import grblas_gpu as gb
from grblas_gpu import exceptions as ex


@pytest.fixture
def objs(backend: str) -> dict[str, Any]:
    """A small set of objects with entries: A 5x5, B 4x3, C 5x5 output, u size 5, v size 4."""
    rng = np.random.default_rng(0)

    def mat(m: int, n: int, dtype: str = "FP64") -> gb.Matrix:
        d = rng.integers(1, 5, size=(m, n)) * (rng.random((m, n)) < 0.6)
        return gb.Matrix.from_dense(d, missing_value=0, dtype=dtype, backend=backend)

    def vec(n: int, dtype: str = "FP64") -> gb.Vector:
        return gb.Vector.from_coo([0, n - 1], [1, 2], size=n, dtype=dtype, backend=backend)

    return {"A": mat(5, 5), "B": mat(4, 3), "C": mat(5, 5), "I": mat(5, 5, "INT64"), "u": vec(5), "v": vec(4),
            "w": vec(5), "M45": mat(4, 5)}


def unchanged(out: Any, exc: type, action: Callable[[], Any], *match: str) -> ex.GraphBLASError:
    """``action`` raises ``exc`` (message containing every ``match``) and ``out`` is unchanged."""
    before = coo_snapshot(out)
    with pytest.raises(exc) as info:
        action()
    for m in match:
        assert m in str(info.value), f"{m!r} not in message {str(info.value)!r}"
    assert coo_snapshot(out) == before, "the output changed although the operation raised"
    return info.value


# ----------------------------------------------------------------------------- DimensionMismatch


def test_mxm_dimension_mismatch_names_shapes(objs: dict[str, Any]) -> None:
    A, B, C = objs["A"], objs["B"], objs["C"]
    unchanged(C, ex.DimensionMismatch, lambda: C.__lshift__(A.mxm(B, "plus_times")), "5", "4")
    unchanged(C, ex.DimensionMismatch, lambda: gb.mxm(C, None, None, gb.semiring.plus_times, A, B), "5", "4")
    with pytest.raises(ex.DimensionMismatch):
        A.mxm(B).new()


@pytest.mark.parametrize("what", ["mxv", "vxm", "ewise_add", "ewise_mult", "ewise_union", "mask", "output",
                                  "accum_output", "kronecker_output", "extract_output", "assign_source"])
def test_dimension_mismatch(objs: dict[str, Any], what: str) -> None:
    A, B, C, u, v, w, M45 = (objs[k] for k in ("A", "B", "C", "u", "v", "w", "M45"))
    actions = {
        "mxv": (w, lambda: w.__lshift__(A.mxv(v, "plus_times"))),
        "vxm": (w, lambda: w.__lshift__(v.vxm(A, "plus_times"))),
        "ewise_add": (C, lambda: C.__lshift__(A.ewise_add(M45))),
        "ewise_mult": (w, lambda: w.__lshift__(u.ewise_mult(v))),
        "ewise_union": (C, lambda: gb.eWiseUnion(C, None, None, gb.binary.plus, A, 0.0, M45, 0.0)),
        "mask": (C, lambda: C(M45.S).__lshift__(A.ewise_add(A))),
        "output": (M45, lambda: M45.__lshift__(A.ewise_add(A))),
        "accum_output": (M45, lambda: M45(accum=gb.binary.plus).__lshift__(A.mxm(A))),
        "kronecker_output": (C, lambda: C.__lshift__(A.kronecker(B))),
        "extract_output": (C, lambda: C.__lshift__(A[[0, 1], [0, 1]])),
        "assign_source": (C, lambda: C[[0, 1], [0, 1]].__lshift__(B)),
    }
    out, action = actions[what]
    err = unchanged(out, ex.DimensionMismatch, action)
    assert any(ch.isdigit() for ch in str(err)), f"message should name the sizes: {err}"


# ----------------------------------------------------------------------------- DomainMismatch


def test_bitwise_on_float_is_domain_mismatch(objs: dict[str, Any]) -> None:
    A, C = objs["A"], objs["C"]
    unchanged(C, ex.DomainMismatch, lambda: C.__lshift__(A.ewise_mult(A, gb.binary.band)))
    unchanged(C, ex.DomainMismatch, lambda: C.__lshift__(A.apply(gb.unary.bnot)))
    with pytest.raises(ex.DomainMismatch):
        gb.binary.bor["FP64"]


def test_select_needs_bool_operator(objs: dict[str, Any]) -> None:
    C = objs["C"]
    unchanged(C, ex.DomainMismatch, lambda: C.__lshift__(objs["A"].select(gb.indexunary.rowindex, 0)))


def test_unknown_dtype_is_domain_mismatch() -> None:
    with pytest.raises(ex.DomainMismatch):
        gb.Matrix("complex256", 2, 2)


# ----------------------------------------------------------------------------- IndexOutOfBound


@pytest.mark.parametrize("key", [(10, 0), (0, 5), (5, 5)])
def test_index_out_of_bound(objs: dict[str, Any], key: tuple[int, int]) -> None:
    A = objs["A"]
    with pytest.raises(ex.IndexOutOfBound):
        A[key].value  # noqa: B018 - the read is what raises
    unchanged(A, ex.IndexOutOfBound, lambda: A.__setitem__(key, 1.0))
    unchanged(A, ex.IndexOutOfBound, lambda: A.__delitem__(key))


def test_index_out_of_bound_in_lists(objs: dict[str, Any]) -> None:
    A, C, u, w = objs["A"], objs["C"], objs["u"], objs["w"]
    unchanged(C, ex.IndexOutOfBound, lambda: gb.extract(C, None, None, A, [0, 1, 2, 3, 9], gb.ALL))
    unchanged(C, ex.IndexOutOfBound, lambda: C[[0, 7], [0, 1]].__lshift__(1.0))
    unchanged(w, ex.IndexOutOfBound, lambda: w.__setitem__(5, 1.0))
    with pytest.raises(ex.IndexOutOfBound):
        u[[0, 5]].new()


def test_from_coo_index_out_of_bound(backend: str) -> None:
    with pytest.raises(ex.IndexOutOfBound):
        gb.Matrix.from_coo([0, 3], [0, 0], [1, 2], nrows=3, ncols=3, backend=backend)
    with pytest.raises(ex.IndexOutOfBound):
        gb.Vector.from_coo([4], [1], size=4, backend=backend)


def test_negative_index_is_an_error(backend: str) -> None:
    with pytest.raises((ex.InvalidIndex, ex.IndexOutOfBound)):
        gb.Vector.from_coo([-1], [1], size=4, backend=backend)


# ----------------------------------------------------------------------------- InvalidValue


def test_duplicates_without_dup_op(backend: str) -> None:
    with pytest.raises(ex.InvalidValue):
        gb.Matrix.from_coo([0, 0], [1, 1], [1, 2], nrows=2, ncols=2, backend=backend)
    with pytest.raises(ex.InvalidValue):
        gb.Vector.from_coo([3, 1, 3], [1, 2, 3], size=4, backend=backend)


def test_unknown_operator_names(objs: dict[str, Any]) -> None:
    A, C = objs["A"], objs["C"]
    with pytest.raises(ex.InvalidValue, match="nosuch"):
        gb.semiring["nosuch_times"]
    unchanged(C, ex.InvalidValue, lambda: C.__lshift__(A.mxm(A, "plus_nosuch")))
    with pytest.raises(ex.InvalidValue):
        gb.mxm(C, None, None, "nosemiring", A, A)
    with pytest.raises(ex.InvalidValue):
        gb.binary["nosuch"]


@pytest.mark.skipif(not gb.gpu_available(), reason="mixing backends needs CuPy and a GPU")
def test_mixing_backends_is_invalid_value() -> None:
    A = gb.Matrix.from_coo([0], [0], [1.0], nrows=2, ncols=2, backend="numpy")
    B = gb.Matrix.from_coo([0], [0], [1.0], nrows=2, ncols=2, backend="cupy")
    C = gb.Matrix("FP64", 2, 2, backend="numpy")
    unchanged(C, ex.InvalidValue, lambda: C.__lshift__(A.mxm(B)), "backend")


def test_unknown_backend_is_invalid_value() -> None:
    with pytest.raises(ex.InvalidValue):
        gb.Matrix("FP64", 2, 2, backend="fortran")


def test_scalar_in_mask_of_reduce_to_scalar(objs: dict[str, Any]) -> None:
    s = gb.Scalar.from_value(3.0)
    with pytest.raises((ex.InvalidValue, ex.DimensionMismatch, TypeError)):
        gb.reduce(s, objs["u"], None, gb.monoid.plus, objs["A"])
    assert s.value == 3.0


# ----------------------------------------------------------------------------- EmptyObject / NoValue


def test_empty_scalar(backend: str) -> None:
    s = gb.Scalar("INT64")
    assert s.is_empty and s.value is None and s.nvals == 0
    with pytest.raises(ex.EmptyObject):
        gb.Vector.from_coo([0], [1], size=2, backend=backend).apply(gb.binary.plus, right=s).new()


def test_to_dense_needs_fill_value(backend: str) -> None:
    A = gb.Matrix.from_coo([0], [0], [1.0], nrows=2, ncols=2, backend=backend)
    with pytest.raises(ex.GraphBLASError):
        A.to_dense()
    full = gb.Matrix.from_dense(np.ones((2, 2)), backend=backend)
    assert full.to_dense().tolist() == [[1, 1], [1, 1]]


# ----------------------------------------------------------------------------- unchanged output, broadly


@pytest.mark.parametrize("accum", [None, "plus"])
@pytest.mark.parametrize("replace", [False, True])
def test_failed_operation_leaves_masked_output(objs: dict[str, Any], accum: str | None, replace: bool) -> None:
    """Validation happens before any write, whatever the mask / accum / replace."""
    A, B, C, I = objs["A"], objs["B"], objs["C"], objs["I"]
    acc = None if accum is None else getattr(gb.binary, accum)
    unchanged(C, ex.DimensionMismatch, lambda: C(mask=I.S, accum=acc, replace=replace).__lshift__(A.mxm(B)))
    unchanged(C, ex.DomainMismatch,
              lambda: C(mask=~I.V, accum=acc, replace=replace).__lshift__(A.ewise_add(A, gb.binary.bxor)))
    unchanged(C, ex.IndexOutOfBound, lambda: C(mask=I.S, accum=acc, replace=replace)[[0, 6], :].__lshift__(1.0))


def test_exceptions_hierarchy() -> None:
    """Every error is a GraphBLASError and also the nearest Python built-in."""
    assert issubclass(ex.DimensionMismatch, ValueError)
    assert issubclass(ex.IndexOutOfBound, IndexError)
    assert issubclass(ex.DomainMismatch, TypeError)
    for name in ("DimensionMismatch", "DomainMismatch", "IndexOutOfBound", "InvalidIndex", "InvalidValue",
                 "OutputNotEmpty", "EmptyObject", "OutOfMemory", "NotImplementedException", "NoValue"):
        assert issubclass(getattr(ex, name), ex.GraphBLASError)
    assert ex.NotImplemented is ex.NotImplementedException
