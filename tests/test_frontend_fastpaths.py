"""The front end's shortcuts give what the general paths give.

``cast_scalar`` answers common values without NumPy's 0-d array path; every answer here is
checked against a NumPy expression written in the test, boundary values included.  The
other shortcuts (backend check, masks, type equality, bitmap dispatch, the internal Vector
constructors) are checked against what the documented behaviour says.
"""

from __future__ import annotations

import dataclasses
import warnings
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import grblas_gpu as gb
from grblas_gpu import _bitmap
from grblas_gpu.dtypes import ALL_TYPES, DataType, cast_scalar
from grblas_gpu.exceptions import DomainMismatch, InvalidValue
from grblas_gpu.expressions import check_same_backend

INT_TYPES = [t for t in ALL_TYPES if t.is_integer]
FLOAT_TYPES = [t for t in ALL_TYPES if t.is_float]


def numpy_cast(value: Any, t: DataType) -> Any:
    """NumPy's own cast of a value that is not a float going to an integer type."""
    with np.errstate(all="ignore"):
        return np.asarray(value).astype(t.np_type)[()]


def assert_same(got: Any, want: Any) -> None:
    """Same NumPy type and the same bytes (so NaN equals NaN and -0.0 differs from 0.0)."""
    assert type(got) is type(want), (got, want)
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (got, want)


def cast_quietly(value: Any, t: DataType) -> Any:
    """``cast_scalar`` with every warning an error: no shortcut may warn."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return cast_scalar(value, t)


# ------------------------------------------------------------------------------ Python ints


def _int_boundaries(t: DataType) -> list[int]:
    info = np.iinfo(t.np_type)
    lo, hi = int(info.min), int(info.max)
    return [lo, lo + 1, -1, 0, 1, hi - 1, hi]


@pytest.mark.parametrize("t", INT_TYPES, ids=str)
def test_python_int_in_range(t: DataType) -> None:
    for v in _int_boundaries(t):
        assert_same(cast_quietly(v, t), np.asarray(v).astype(t.np_type)[()])


@pytest.mark.parametrize("t", INT_TYPES, ids=str)
def test_python_int_out_of_range_wraps(t: DataType) -> None:
    """Outside the type, within int64/uint64: NumPy's cast from int64 (or uint64) wraps."""
    info = np.iinfo(t.np_type)
    for v in (int(info.min) - 1, int(info.max) + 1, -(2**63), 2**63 - 1, 2**63, 2**64 - 1):
        if int(info.min) <= v <= int(info.max) or not -(2**63) <= v < 2**64:
            continue
        assert_same(cast_scalar(v, t), numpy_cast(v, t))


@pytest.mark.parametrize("t", ALL_TYPES, ids=str)
def test_python_int_beyond_64_bits_is_refused(t: DataType) -> None:
    for v in (2**64, -(2**63) - 1, 10**30):
        with pytest.raises(DomainMismatch, match="is not a number that can be cast to"):
            cast_scalar(v, t)


def test_python_int_to_bool() -> None:
    for v in (0, 1, -1, 2, -(2**63), 2**63 - 1, 2**63, 2**64 - 1):
        assert_same(cast_quietly(v, gb.BOOL), np.asarray(v).astype(np.bool_)[()])


@pytest.mark.parametrize("t", FLOAT_TYPES, ids=str)
def test_python_int_to_float(t: DataType) -> None:
    """Exact ints take the shortcut; larger ones are rounded from int64 once, as NumPy does."""
    mant = np.finfo(t.np_type).nmant + 1
    values = [0, 1, -1, 2**mant - 1, 2**mant, -(2**mant), 2**mant + 1, -(2**mant) - 1, 2**mant + 3,
              2**53 + 1, 2**60 + 2**36 + 1, -(2**60) - 2**36 - 1, 2**63 - 1, -(2**63), 2**63, 2**64 - 1]
    for v in values:
        assert_same(cast_quietly(v, t), numpy_cast(v, t))


def test_python_int_to_fp32_is_rounded_once() -> None:
    """2**60 + 2**36 + 1 lies just above the midpoint of two FP32 neighbours: rounded once it
    goes up; rounded through FP64 first it would land on the midpoint and go to even (down)."""
    v = 2**60 + 2**36 + 1
    assert cast_scalar(v, gb.FP32) == np.float32(2**60 + 2**37)
    assert np.float32(float(v)) == np.float32(2**60)  # what double rounding would give


# ------------------------------------------------------------------------------ Python bools and floats


@pytest.mark.parametrize("t", ALL_TYPES, ids=str)
def test_python_bool(t: DataType) -> None:
    for v in (False, True):
        assert_same(cast_quietly(v, t), numpy_cast(v, t))


FP32_MAX = float(np.finfo(np.float32).max)
FLOATS = [0.0, -0.0, 0.1, -2.5, 1e-45, 1e-40, 1.5e-39, 16777217.0, 1e30, FP32_MAX, -FP32_MAX,
          float(np.nextafter(FP32_MAX, np.inf)), 3.4028235677973366e38, -3.4028235677973366e38, 1e300,
          -1e300, 1.7976931348623157e308, float("inf"), float("-inf"), float("nan"), -float("nan")]


@pytest.mark.parametrize("t", FLOAT_TYPES, ids=str)
def test_python_float_to_float(t: DataType) -> None:
    for v in FLOATS:
        assert_same(cast_scalar(v, t), numpy_cast(v, t))


def test_python_float_to_fp32_shortcut_never_warns() -> None:
    """Where FP32 holds the value or it is not finite, no warning; beyond, inf (quietly)."""
    for v in (0.1, FP32_MAX, -FP32_MAX, float("inf"), float("-inf"), float("nan"), 1e300, -1e300,
              3.4028235677973366e38):
        assert_same(cast_quietly(v, gb.FP32), numpy_cast(v, gb.FP32))


def test_python_float_to_bool() -> None:
    for v in (0.0, -0.0, 0.5, -1.0, float("inf"), float("nan")):
        assert_same(cast_quietly(v, gb.BOOL), np.asarray(v).astype(np.bool_)[()])


@pytest.mark.parametrize("t", INT_TYPES, ids=str)
def test_python_float_to_int_truncates_and_saturates(t: DataType) -> None:
    info = np.iinfo(t.np_type)
    lo, hi = t.np_type.type(info.min), t.np_type.type(info.max)
    expected = {2.7: t.np_type.type(2), 0.999: t.np_type.type(0), 1e30: hi, -1e30: lo,
                float("inf"): hi, float("-inf"): lo, float("nan"): t.np_type.type(0)}
    if t.is_signed:
        expected[-2.7] = t.np_type.type(-2)
    for v, want in expected.items():
        assert_same(cast_quietly(v, t), want)


# ------------------------------------------------------------------------------ NumPy scalars


@pytest.mark.parametrize("t", ALL_TYPES, ids=str)
def test_numpy_scalar_of_the_type_is_kept(t: DataType) -> None:
    for v in (0, 1, 100):
        s = t.np_type.type(v)
        assert_same(cast_quietly(s, t), s)
    if t.is_float:
        for v in (np.inf, -np.inf, np.nan, -0.0):
            s = t.np_type.type(v)
            assert_same(cast_quietly(s, t), s)


@pytest.mark.parametrize("src", [t for t in ALL_TYPES if not t.is_float], ids=str)
@pytest.mark.parametrize("dst", ALL_TYPES, ids=str)
def test_numpy_bool_and_int_scalars(src: DataType, dst: DataType) -> None:
    """Every bool or integer scalar to every type, at the source's boundaries: NumPy's cast."""
    if src.is_bool:
        values = [np.bool_(False), np.bool_(True)]
    else:
        info = np.iinfo(src.np_type)
        values = [src.np_type.type(v) for v in (info.min, int(info.min) + 1, 0, 1, int(info.max) - 1, info.max)]
    if src == gb.INT64:
        values.append(np.int64(2**60 + 2**36 + 1))
    for v in values:
        assert_same(cast_quietly(v, dst), numpy_cast(v, dst))


def test_numpy_float_scalars_keep_the_general_path() -> None:
    assert_same(cast_quietly(np.float64(1e300), gb.FP32), np.float32(np.inf))
    assert_same(cast_scalar(np.float64(0.1), gb.FP32), np.float32(0.1))
    assert_same(cast_scalar(np.float32(np.nan), gb.INT32), np.int32(0))
    assert_same(cast_scalar(np.float64(-7.9), gb.INT8), np.int8(-7))
    assert_same(cast_scalar(np.float32(3e9), gb.INT32), np.int32(2**31 - 1))
    assert_same(cast_scalar(np.float16(2.5), gb.FP64), np.float64(2.5))


@pytest.mark.parametrize("value", ["3", None, [1], np.array([1, 2]), 1j, np.complex64(1)])
def test_non_numbers_are_refused(value: Any) -> None:
    with pytest.raises(DomainMismatch, match="is not a number that can be cast to INT64"):
        cast_scalar(value, gb.INT64)


def test_zero_d_array_is_cast() -> None:
    assert_same(cast_scalar(np.array(5), gb.FP32), np.float32(5))


# ------------------------------------------------------------------------------ other shortcuts


def _obj(kind: str, backend: str) -> SimpleNamespace:
    """An object as the check sees it; each has its own backend object, so only the names
    can tell two backends apart."""
    return SimpleNamespace(kind=kind, backend=backend, _be=SimpleNamespace(name=backend))


def test_check_same_backend() -> None:
    check_same_backend()
    check_same_backend(None, _obj("Vector", "numpy"), None, _obj("Matrix", "numpy"))
    check_same_backend(_obj("Vector", "numpy"), _obj("Scalar", "cupy"), _obj("Matrix", "numpy"))
    with pytest.raises(InvalidValue) as err:
        check_same_backend(_obj("Vector", "numpy"), None, _obj("Scalar", "numpy"), _obj("Matrix", "cupy"))
    assert str(err.value) == ("objects on different backends (cupy, numpy) cannot meet in one operation; "
                              "move one with .to(backend)")


def test_mask_is_still_a_frozen_dataclass() -> None:
    v = gb.Vector.from_coo([1], [1.0], size=3, backend="numpy")
    m = gb.Mask(v, True)
    assert (m.parent, m.structure, m.complement) == (v, True, False)
    assert gb.Mask(v) == gb.Mask(v, structure=False, complement=False) == v.V
    assert v.S == m and ~v.S != m and (~v.S).complement and not (~~v.S).complement
    assert [f.name for f in dataclasses.fields(m)] == ["parent", "structure", "complement"]
    assert dataclasses.replace(m, complement=True) == ~m
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.structure = False  # type: ignore[misc]
    with pytest.raises(TypeError):
        hash(m)  # hashes its parent, which is unhashable
    assert repr(~m) == "~mask.S"


def test_datatype_equality_and_hash() -> None:
    copy = DataType("FP32", np.dtype(np.float32), "float")
    assert copy == gb.FP32 and gb.FP32 == copy and not copy != gb.FP32  # noqa: SIM202 - __ne__ itself
    assert hash(copy) == hash(gb.FP32) and {gb.FP32: 1}[copy] == 1
    assert gb.FP32 != gb.FP64 and gb.INT64 != gb.UINT64
    assert DataType("FP32", np.dtype(np.float32), "double") != gb.FP32
    # As in python-graphblas, a type equals what names it.
    assert gb.FP32 == "FP32" and gb.FP32 == np.float32 and gb.FP64 == float  # noqa: E721 - __eq__ itself
    assert gb.FP32 != "FP64" and gb.FP32 != object() and gb.FP32 != "no such type"
    assert all((a == b) == (a is b) for a in ALL_TYPES for b in ALL_TYPES)


def test_wants_bitmap() -> None:
    sparse = gb.Vector.from_coo([0], [1.0], size=3, backend="numpy")
    bitmap = gb.Vector.from_dense([1.0, 2.0, 3.0], backend="numpy")
    A = gb.Matrix.from_coo([0], [0], [1.0], nrows=3, ncols=3, backend="numpy")
    assert bitmap._is_bitmap and not sparse._is_bitmap
    assert _bitmap.wants_bitmap(bitmap) and _bitmap.wants_bitmap(sparse, bitmap, None)
    assert _bitmap.wants_bitmap(None, bitmap)
    assert not _bitmap.wants_bitmap(sparse) and not _bitmap.wants_bitmap(sparse, None)
    assert not _bitmap.wants_bitmap() and not _bitmap.wants_bitmap(None)
    assert not _bitmap.wants_bitmap(bitmap, A) and not _bitmap.wants_bitmap(A, bitmap)
    assert not _bitmap.wants_bitmap(bitmap, object())


def test_internal_vector_constructors_match_init() -> None:
    be = gb.get_backend("numpy")
    a = gb.Vector._from_parts(be, gb.FP32, np.int64(4), np.array([1, 3]), np.array([1.5, 2.5]))
    b = gb.Vector._from_bitmap(be, gb.FP32, 4, np.array([False, True, False, True]), np.arange(4.0), 2)
    for v in (a, b):
        assert v._be is be and v.dtype is gb.FP32 and type(v.size) is int and v.size == 4
        assert v.name is None and v.nvals == 2
    assert a.isequal(gb.Vector.from_coo([1, 3], [1.5, 2.5], size=4, dtype=gb.FP32, backend="numpy"))
    assert b.isequal(gb.Vector.from_coo([1, 3], [1.0, 3.0], size=4, dtype=gb.FP32, backend="numpy"))
    with pytest.raises(InvalidValue, match="size must be a non-negative integer"):
        gb.Vector._from_bitmap(be, gb.FP32, -1, np.zeros(0, bool), np.zeros(0))


@pytest.mark.parametrize("depth", [0, 3, -1, 2**40, np.int64(7), True])
def test_scalar_assign_under_a_bitmap_mask(depth: Any) -> None:
    """``levels(frontier.S) << depth``: the BFS statement the cast shortcut serves."""
    levels = gb.Vector(gb.INT64, 5, backend="numpy")
    levels[0] = 9
    frontier = gb.Vector.from_dense(np.array([False, True, False, True, False]), missing_value=False,
                                    backend="numpy")
    assert frontier._is_bitmap
    levels(frontier.S) << depth
    idx, vals = levels.to_coo()
    assert idx.tolist() == [0, 1, 3]
    assert vals.tolist() == [9, int(depth), int(depth)]
