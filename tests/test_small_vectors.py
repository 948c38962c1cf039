"""Vectors of one or few entries (a BFS's start): ``Vector.from_coo`` of one plain entry and
``dup`` of a vector of sorted entries, against python-graphblas and NumPy, on every backend."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import graphblas as pg
import numpy as np
import pytest
from reference import ALL_TYPES

import grblas_gpu as gb
from grblas_gpu.exceptions import DimensionMismatch, IndexOutOfBound, InvalidValue

TYPE_NAMES = [t.name for t in ALL_TYPES]
SIZE = 9


def _coo(v: gb.Vector) -> tuple[list[int], list]:
    idx, vals = v.to_coo()
    return idx.tolist(), vals.tolist()


@pytest.mark.parametrize("dtype", TYPE_NAMES)
@pytest.mark.parametrize("index", [0, 4, SIZE - 1])
@pytest.mark.parametrize("value", [0, 1, True, 7, [7], 2.5, [2.5], (3,)])
def test_one_entry_as_python_graphblas(backend: str, dtype: str, index: int, value: object) -> None:
    got = gb.Vector.from_coo([index], value, size=SIZE, dtype=dtype)
    want = pg.Vector.from_coo([index], list(value) if isinstance(value, tuple) else value, size=SIZE, dtype=dtype)
    assert got.dtype.name == want.dtype.name
    assert got.nvals == 1 and got.size == SIZE
    w_idx, w_vals = want.to_coo()
    assert _coo(got) == (w_idx.tolist(), w_vals.tolist())


@pytest.mark.parametrize("dtype", ["INT8", "UINT8", "UINT64", "INT32", "BOOL"])
@pytest.mark.parametrize("value", [-3, 300, [300]])
def test_one_entry_casts_as_numpy(backend: str, dtype: str, value: object) -> None:
    """Values past the type cast C-style (as NumPy casts an int64 array)."""
    got = gb.Vector.from_coo([2], value, size=SIZE, dtype=dtype)
    plain = value[0] if isinstance(value, list) else value
    assert _coo(got) == ([2], np.array([plain], dtype=np.int64).astype(got.dtype.np_type).tolist())


@pytest.mark.parametrize("value, name", [(5, "INT64"), ([5], "INT64"), (1.5, "FP64"), (False, "BOOL")])
def test_one_entry_type_from_value(backend: str, value: object, name: str) -> None:
    got = gb.Vector.from_coo([3], value, size=SIZE)
    assert got.dtype.name == pg.Vector.from_coo([3], value, size=SIZE).dtype.name == name
    assert got.to_coo()[1].tolist() == (value if isinstance(value, list) else [value])


def test_one_entry_positional_type_and_name(backend: str) -> None:
    got = gb.Vector.from_coo([1], [4], gb.INT32, size=SIZE, name="src")
    assert (got.dtype, got.name, _coo(got)) == (gb.INT32, "src", ([1], [4]))


@pytest.mark.parametrize("index", [-1, SIZE, SIZE + 100, -(2**40)])
@pytest.mark.parametrize("dup_op", [None, gb.binary.plus])
def test_one_entry_out_of_range(backend: str, index: int, dup_op: object) -> None:
    with pytest.raises(IndexOutOfBound):
        gb.Vector.from_coo([index], [1], size=SIZE, dup_op=dup_op)
    with pytest.raises(IndexOutOfBound):
        gb.Vector.from_coo([index], 1, size=SIZE)


@pytest.mark.parametrize("values, dup_op, want", [
    ([1, 2], gb.binary.plus, ([3], [3])),
    ([1, 2], gb.binary.first, ([3], [1])),
    ([1, 2], gb.binary.second, ([3], [2])),
    (6, None, ([3], [6])),  # one value for all: the repeated index is one entry
])
def test_duplicates(backend: str, values: object, dup_op: object, want: tuple) -> None:
    got = gb.Vector.from_coo([3, 3], values, size=SIZE, dtype=gb.INT64, dup_op=dup_op)
    ref = pg.Vector.from_coo([3, 3], values, size=SIZE, dtype="INT64",
                             dup_op=None if dup_op is None else getattr(pg.binary, dup_op.name))
    assert _coo(got) == want == (ref.to_coo()[0].tolist(), ref.to_coo()[1].tolist())


def test_duplicates_without_dup_op(backend: str) -> None:
    with pytest.raises(InvalidValue):
        gb.Vector.from_coo([3, 3], [1, 2], size=SIZE)


@pytest.mark.parametrize("indices, values", [
    (np.array([2]), [5]), ([np.int64(2)], [5]), ([2], np.array([5])), ([2], [np.int32(5)]), ((2,), 5),
])
def test_other_inputs_of_one_entry(backend: str, indices: object, values: object) -> None:
    got = gb.Vector.from_coo(indices, values, size=SIZE, dtype=gb.INT64)
    assert _coo(got) == ([2], [5])


READINGS: dict[str, Callable[[Any, Any], Any]] = {
    "ewise_add with a full vector": lambda v, lib: v.ewise_add(lib.Vector.from_scalar(1.0, SIZE)).new(),
    "ewise_mult": lambda v, lib: v.ewise_mult(v, "times").new(),
    "apply": lambda v, lib: v.apply("ainv").new(),
    "select": lambda v, lib: v.select(">", 1).new(),
    "mask of a write": lambda v, lib: lib.Vector.from_scalar(3.0, SIZE).dup(mask=v.S),
    "complemented mask": lambda v, lib: lib.Vector.from_scalar(3.0, SIZE).dup(mask=~v.S),
    "extract": lambda v, lib: v[[4, 0]].new(),
    "vxm": lambda v, lib: v.vxm(lib.Matrix.from_coo([4, 4], [0, 8], [1.0, 2.0], nrows=SIZE, ncols=SIZE),
                                "plus_times").new(),
}


@pytest.mark.parametrize("reading", list(READINGS))
def test_one_entry_kept_on_the_host_reads_as_python_graphblas(backend: str, reading: str) -> None:
    """A one-entry Vector is kept on the host until a form is asked for: each way of reading
    it (by its entries, as a bitmap, as a mask, as an operand) gives python-graphblas's
    result, and the Vector reads the same afterwards."""
    got = gb.Vector.from_coo([4], [2.5], size=SIZE, dtype="FP64")
    want = pg.Vector.from_coo([4], [2.5], size=SIZE, dtype="FP64")
    g, w = READINGS[reading](got, gb), READINGS[reading](want, pg)
    assert (g.dtype.name, g.size) == (w.dtype.name, w.size)
    w_idx, w_vals = w.to_coo()
    assert _coo(g) == (w_idx.tolist(), w_vals.tolist())
    assert _coo(got) == ([4], [2.5]) and got.nvals == 1


def test_one_entry_kept_on_the_host_written_and_copied(backend: str) -> None:
    """Writes into a one-entry Vector and its copies, a pickled copy, and its memory: each
    copy keeps its own entries."""
    import pickle

    v = gb.Vector.from_coo([4], [2.5], size=SIZE)
    w, p = v.dup(), pickle.loads(pickle.dumps(v))
    v[7] = 1.0
    w(accum=gb.binary.plus) << w
    assert _coo(v) == ([4, 7], [2.5, 1.0])
    assert _coo(w) == ([4], [5.0])
    assert _coo(p) == ([4], [2.5]) and p.nvals == 1
    u = gb.Vector.from_coo([4], [2.5], size=SIZE)
    u << u.apply("ainv")
    assert _coo(u) == ([4], [-2.5])


def test_bad_one_entry_inputs(backend: str) -> None:
    with pytest.raises(DimensionMismatch):
        gb.Vector.from_coo([2], [1, 2], size=SIZE)  # two values for one index
    with pytest.raises(Exception) as info:
        gb.Vector.from_coo([2], [1], size=-1)
    assert type(info.value).__module__.startswith("grblas_gpu")


# ------------------------------------------------------------------------------- dup


def test_dup_is_independent_of_the_original(backend: str) -> None:
    v = gb.Vector.from_coo([2, 5], [1.0, 2.0], size=SIZE)
    w = v.dup()
    v[2] = 9.0  # changes v's value in place of the shared entry
    v << v.apply(gb.unary.ainv)
    assert _coo(w) == ([2, 5], [1.0, 2.0])
    w[7] = 3.0
    w(accum=gb.binary.plus) << w
    assert _coo(w) == ([2, 5, 7], [2.0, 4.0, 6.0])
    assert _coo(v) == ([2, 5], [-9.0, -2.0])


def test_dup_of_one_entry_then_written_by_a_product(backend: str) -> None:
    """A BFS's start: the copy is the frontier, the original the output, both written next."""
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 3], [1, 1, 1], nrows=4, ncols=4, dtype=gb.INT64)
    levels = gb.Vector.from_coo([0], [0], size=4, dtype=gb.INT64)
    frontier = levels.dup()
    levels(~levels.S, changed=frontier) << frontier.vxm(A, gb.semiring.any_pair[gb.INT64])
    assert _coo(levels) == ([0, 1], [0, 1]) and _coo(frontier) == ([1], [1])


@pytest.mark.parametrize("dtype", [None, gb.FP32, gb.BOOL])
@pytest.mark.parametrize("dense", [False, True])
def test_dup_values_and_type(backend: str, dtype: object, dense: bool) -> None:
    vals = np.array([0.0, 1.5, -2.0])
    v = gb.Vector.from_coo([0, 4, SIZE - 1], vals, size=SIZE) if not dense else \
        gb.Vector.from_dense(np.arange(SIZE, dtype=np.float64))
    w = v.dup(dtype, name="w")
    want_vals = (np.arange(SIZE, dtype=np.float64) if dense else vals)
    want_t = np.dtype(np.float64) if dtype is None else dtype.np_type  # type: ignore[union-attr]
    assert w.name == "w" and w.dtype.np_type == want_t
    assert w.to_coo()[1].tolist() == want_vals.astype(want_t).tolist()
    assert w.to_coo()[0].tolist() == v.to_coo()[0].tolist()
