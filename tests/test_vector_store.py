"""The VectorStore's explicit sharing: which bitmaps may be written in place, counted by the
stores that hold each array (never by the interpreter's reference counts)."""

from __future__ import annotations

import gc
import pathlib
import pickle

import numpy as np
import pytest

import grblas_gpu as gb
from grblas_gpu import binary, semiring

N = 12


def _full(backend: str, start: float = 0.0) -> gb.Vector:
    return gb.Vector.from_dense(np.arange(N, dtype=np.float64) + start, backend=backend)


def test_a_fresh_bitmap_is_its_own(backend: str) -> None:
    v = _full(backend)
    assert v._owns_bitmap() and v._owns_bitmap(values_only=True)
    assert not v._owns_bitmap(reading=(v._bitmap()[1],)), "an operation's own input is never written"


def test_sharing_between_vectors_is_counted(backend: str) -> None:
    """``u << v`` shares v's arrays: neither may write them; once u is gone, v may again."""
    v = _full(backend)
    u = gb.Vector(gb.FP64, N, backend=backend)
    u << v
    assert u._bitmap()[1] is v._bitmap()[1], "the write shares, it does not copy"
    assert not v._owns_bitmap() and not u._owns_bitmap()
    del u
    gc.collect()
    assert v._owns_bitmap(), "the last holder owns its arrays again"


def test_a_result_keeping_its_operands_presence_shares_it(backend: str) -> None:
    """apply keeps v's presence array: v may still write its values, not its presence."""
    v = _full(backend)
    w = v.apply(gb.unary.ainv).new()
    assert w._bitmap()[0] is v._bitmap()[0]
    assert not v._owns_bitmap() and v._owns_bitmap(values_only=True)
    v(binary.plus) << w  # written in place where v may: w's entries must not change
    assert np.array_equal(w.to_dense(), -np.arange(N, dtype=np.float64))
    assert np.array_equal(v.to_dense(), np.zeros(N))


def test_a_matrix_cache_in_a_vector_is_never_written(backend: str) -> None:
    """Row counts of a full vector are the matrix's cached row lengths and flags of nonempty
    rows, no product: held elsewhere, so never the Vector's to write in place."""
    A = gb.Matrix.from_coo([0, 1, 3, 3], [1, 2, 0, 5], 1, nrows=N, ncols=N, dtype=gb.INT64, backend=backend)
    x = gb.Vector.from_scalar(1, N, dtype=gb.INT64, backend=backend)
    w = A.mxv(x, semiring.plus_pair).new()
    assert not w._owns_bitmap() and not w._owns_bitmap(values_only=True)
    w(binary.plus) << gb.Vector.from_scalar(10, N, dtype=gb.INT64, backend=backend)
    assert w.to_dense().tolist() == [11, 11, 10, 12] + [10] * (N - 4)
    again = A.mxv(x, semiring.plus_pair).new()
    assert [a.tolist() for a in again.to_coo()] == [[0, 1, 3], [1, 1, 2]], "the matrix's cached counts changed"


def test_an_exported_vector_is_never_written_in_place(backend: str) -> None:
    v = _full(backend)
    if backend == "numpy":
        out = np.from_dlpack(v)
    else:
        cupy = pytest.importorskip("cupy")
        out = cupy.from_dlpack(v)
    assert not v._owns_bitmap()
    v(binary.plus) << _full(backend, 1.0)
    assert np.array_equal(v._be.to_host(out), np.arange(N, dtype=np.float64)), "the consumer's array changed"
    assert np.array_equal(v.to_dense(), 2 * np.arange(N, dtype=np.float64) + 1)


def test_store_fields_are_read_only_from_outside(backend: str) -> None:
    v = _full(backend)
    for field in ("_sp", "_bm", "_count", "_weight", "_inside"):
        with pytest.raises(AttributeError):
            setattr(v, field, None)
    assert v._store.nbytes() == N * (1 + 8)


def test_a_pickled_vector_holds_its_arrays(backend: str) -> None:
    v = _full(backend)
    w = pickle.loads(pickle.dumps(v))
    assert w.isequal(v) and w.nvals == N
    assert w._owns_bitmap(), "the unpickled arrays are counted as its own"
    w(binary.plus) << v
    assert np.array_equal(v.to_dense(), np.arange(N, dtype=np.float64))


def test_no_reference_counting_decides() -> None:
    root = pathlib.Path(gb.__file__).parent
    users = [p.name for p in root.rglob("*.py") if "getrefcount" in p.read_text()]
    assert users == []
