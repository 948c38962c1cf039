"""Bad input never gets a wrong answer, a raw Python exception or an unbounded run.

One test (or a small group) per kind of bad input: type names, sizes past GrB_INDEX_MAX,
memory bounded by entries (or OutOfMemory before allocating), the odd arguments that used
to escape as ValueError / KeyError / OverflowError / TypeError, and the algorithms' silent
wrong answers (wrapped integer sums, NaN weights, PageRank parameters).  Every error is a
GrB-named exception and leaves the output as it was.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import networkx as nx
import numpy as np
import pytest
from grblas_gpu.algorithms import cdlp, pagerank, sssp, widest_path

import grblas_gpu as gb
from grblas_gpu import FP64, INT64, Matrix, Vector, binary, monoid
from grblas_gpu import exceptions as ex
from grblas_gpu.limits import INDEX_MAX

MiB = 2**20


def snapshot(x: Any) -> tuple:
    """Everything observable about a Scalar, Vector or Matrix (entries, not a dense copy: the
    objects here may have 2**60 positions)."""
    if isinstance(x, gb.Scalar):
        return (str(x.dtype), x.is_empty, None if x.is_empty else x.value)
    return (str(x.dtype), x.shape, *[a.tolist() for a in x.to_coo()])


def unchanged(out: Any, exc: type, action: Callable[[], Any], *match: str) -> None:
    """``action`` raises ``exc`` (a GraphBLAS error whose message holds every ``match``) and
    ``out`` is as it was."""
    before = snapshot(out)
    with pytest.raises(exc) as info:
        action()
    assert isinstance(info.value, ex.GraphBLASError)
    for m in match:
        assert m in str(info.value), str(info.value)
    assert snapshot(out) == before


def host_peak(action: Callable[[], Any]) -> int:
    """The most host memory ``action`` held at once (NumPy's arrays are traced)."""
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ----------------------------------------------------------------------------- 1. type names


@pytest.mark.parametrize("name", ["0123", "1e", "int65", "", "float128x", "(", "[('a', 'f8')]"])
def test_unknown_type_name_is_domain_mismatch(backend: str, name: str) -> None:
    with pytest.raises(ex.DomainMismatch, match="unsupported type"):
        Matrix(dtype=name)
    with pytest.raises(ex.DomainMismatch):
        Vector(name, 3)


# ----------------------------------------------------------------------------- 4. sizes


@pytest.mark.parametrize("size", [INDEX_MAX + 1, 2**63, 2**64])
def test_sizes_past_index_max_are_refused(backend: str, size: int) -> None:
    with pytest.raises(ex.InvalidValue, match="GrB_INDEX_MAX"):
        Vector(FP64, size)
    with pytest.raises(ex.InvalidValue, match="GrB_INDEX_MAX"):
        Matrix(FP64, 3, size)
    v = Vector(FP64, 5)
    unchanged(v, ex.InvalidValue, lambda: v.resize(size), "GrB_INDEX_MAX")


def test_largest_size_and_its_indices(backend: str) -> None:
    v = Vector(FP64, INDEX_MAX)
    v[INDEX_MAX - 1] = 2.5
    assert v.to_coo()[0].tolist() == [INDEX_MAX - 1]
    unchanged(v, ex.IndexOutOfBound, lambda: v.__setitem__(2**63, 1.0))
    unchanged(v, ex.IndexOutOfBound, lambda: v.__setitem__(INDEX_MAX, 1.0))


def test_kronecker_past_index_max_is_refused(backend: str) -> None:
    A = Matrix.from_coo([0], [0], [1.0], nrows=2**40, ncols=2**40)
    with pytest.raises(ex.InvalidValue, match="Kronecker"):
        A.kronecker(A)
    B = Matrix.from_coo([0], [1], [3.0], nrows=2**20, ncols=2**20)
    K = A.kronecker(B).new()  # 2**60 rows: the largest allowed
    assert K.shape == (2**60, 2**60) and K.to_coo()[1].tolist() == [1]


# ----------------------------------------------------------------------------- 5. memory


@pytest.mark.parametrize("what", ["vector_slice", "mxv", "vxm", "mxm", "vector_html", "matrix_slice",
                                  "matrix_html"])
def test_empty_and_hypersparse_cost_entries_not_size(backend: str, what: str) -> None:
    n, big = 2**27, 2**40
    actions: dict[str, Callable[[], Any]] = {
        "vector_slice": lambda: Vector(FP64, n)[0:2].new(),
        "mxv": lambda: Matrix(FP64, n, n).mxv(Vector(FP64, n)).new(),
        "vxm": lambda: Vector(FP64, n).vxm(Matrix(FP64, n, n)).new(),
        "mxm": lambda: Matrix(FP64, n, n).mxm(Matrix(FP64, n, n)).new(),
        "vector_html": lambda: Vector.from_coo([3, big - 1], [1.0, 2.0], size=big)._repr_html_(),
        "matrix_slice": lambda: Matrix.from_coo([1], [1], [4.0], nrows=big, ncols=big)[0:2, 0:2].new(),
        "matrix_html": lambda: Matrix.from_coo([1, big - 1], [1, 0], [4.0, 5.0], nrows=big, ncols=big)._repr_html_(),
    }
    if backend == "numpy":
        assert host_peak(actions[what]) < 16 * MiB
    else:
        actions[what]()  # the device would be asked for 1 GiB - 8 TiB


def test_slice_results(backend: str) -> None:
    v = Vector.from_coo([1, 5, 2**40 - 2], [1.0, 2.0, 3.0], size=2**40)
    assert v[0:6:2].new().to_coo()[0].tolist() == []
    assert v[1:6:4].new().to_coo()[0].tolist() == [0, 1]
    assert v[2**40 - 1:2**40 - 4:-1].new().to_coo()[0].tolist() == [1]
    html = Matrix.from_coo([1], [2], [7.0], nrows=2**40, ncols=2**40)._repr_html_()
    assert "<td>7.0</td>" in html and "…" in html


def test_dense_memory_says_out_of_memory_before_allocating(backend: str) -> None:
    v = Vector.from_coo([0], [1.0], size=INDEX_MAX)
    unchanged(v, ex.OutOfMemory, lambda: v.__lshift__(1.0), "available")
    unchanged(v, ex.OutOfMemory, lambda: v.to_dense(fill_value=0.0), "available")
    with pytest.raises(ex.OutOfMemory, match="available"):
        Matrix.from_scalar(1.0, 2**20, 2**20)
    with pytest.raises(ex.OutOfMemory, match="available"):
        Vector.from_scalar(1.0, INDEX_MAX)


# ----------------------------------------------------------------------------- 6. other exceptions


def test_slice_step_zero_and_bad_bounds(backend: str) -> None:
    v = Vector.from_coo([0, 2], [1.0, 2.0], size=4)
    w = Vector(FP64, 2)
    with pytest.raises(ex.InvalidIndex, match="step"):
        v[0:4:0].new()
    with pytest.raises(ex.InvalidIndex):
        v[0:"x"].new()
    unchanged(w, ex.InvalidIndex, lambda: w[0:2:0].__lshift__(1.0))
    unchanged(v, ex.IndexOutOfBound, lambda: v[np.array([2**64 - 1], dtype=np.uint64)].new())


def test_unknown_descriptor_name(backend: str) -> None:
    v = Vector.from_coo([0], [1.0], size=4)
    s = gb.Scalar(FP64)
    unchanged(s, ex.InvalidValue, lambda: gb.reduce(s, None, None, monoid.plus, v, desc="desc"), "'desc'")


def test_to_dense_fill_value_outside_the_type(backend: str) -> None:
    v = Vector.from_coo([0], [1], size=4, dtype=INT64)
    with pytest.raises(ex.DomainMismatch):
        v.to_dense(fill_value=2**70)
    A = Matrix.from_coo([0], [0], [1], nrows=2, ncols=2, dtype=INT64)
    with pytest.raises(ex.DomainMismatch):
        A.to_dense(fill_value=2**70)
    assert v.to_dense(fill_value=-1).tolist() == [1, -1, -1, -1]


def test_diagonal_number(backend: str) -> None:
    v = Vector.from_coo([0], [1.0], size=4)
    with pytest.raises(ex.InvalidValue, match="GrB_INDEX_MAX"):
        v.diag(2**63)
    with pytest.raises(ex.InvalidValue):
        v.diag(1.5)  # type: ignore[arg-type]
    A = Matrix.from_coo([0, 1], [1, 2], [1.0, 2.0], nrows=3, ncols=3)
    assert A.diag(2**63).size == 0 and A.diag(-(2**63)).size == 0
    assert A.diag(1).to_coo()[1].tolist() == [1.0, 2.0]


def test_ragged_dense_input(backend: str) -> None:
    with pytest.raises(ex.InvalidValue, match="rectangular"):
        Matrix.from_dense([[1, 2], [3]])
    with pytest.raises(ex.InvalidValue):
        Vector.from_dense([[1], 2])


def test_monoid_identity_must_be_a_number() -> None:
    with pytest.raises(ex.DomainMismatch, match="identity"):
        monoid.register_anonymous(binary.plus, "x")
    with pytest.raises(ex.DomainMismatch, match="terminal"):
        monoid.register_anonymous(binary.max, 0, terminal=[1])
    m = monoid.register_anonymous(binary.plus, 0)
    assert Vector.from_coo([0, 1], [2, 3], size=2).reduce(m).new().value == 5


def test_cdlp_max_iter_must_be_an_integer(backend: str) -> None:
    A = Matrix.from_coo([0, 1], [1, 0], [1.0, 1.0])
    for bad in (1.5, None, "3", True, -1):
        with pytest.raises(ex.InvalidValue, match="max_iter"):
            cdlp(A, max_iter=bad)  # type: ignore[arg-type]


def test_scalar_too_large_for_any_type(backend: str) -> None:
    w = Vector.from_coo([2], [5], size=4, dtype=INT64)
    unchanged(w, ex.DomainMismatch, lambda: w[[0, 1]].__lshift__(2**64), "fits no GraphBLAS type")
    unchanged(w, ex.DomainMismatch, lambda: w.__lshift__(-(2**63) - 1))
    w[[0, 1]] << 2**64 - 1  # UINT64's largest, cast C-style to INT64
    assert w.to_coo()[1].tolist() == [-1, -1, 5]


# ----------------------------------------------------------------------------- 7. silent wrong answers


def test_integer_sssp_never_wraps(backend: str) -> None:
    chain = {"nrows": 3, "ncols": 3}
    A8 = Matrix.from_coo([0, 1], [1, 2], [100, 100], dtype="INT8", **chain)
    with pytest.raises(ex.InvalidValue, match="INT8"):
        sssp(A8, 0)
    ok8 = sssp(Matrix.from_coo([0, 1], [1, 2], [60, 60], dtype="INT8", **chain), 0)
    assert ok8.dtype == gb.INT8 and ok8.to_coo()[1].tolist() == [0, 60, 120]
    A64 = Matrix.from_coo([0, 1], [1, 2], [2**62, 2**62], dtype="INT64", **chain)
    with pytest.raises(ex.InvalidValue, match="overflow"):
        sssp(A64, 0)
    big = sssp(Matrix.from_coo([0, 1], [1, 2], [2**60, 2**59], dtype="INT64", **chain), 0)
    assert big.to_coo()[1].tolist() == [0, 2**60, 2**60 + 2**59]  # exact, not rounded through FP64
    U = Matrix.from_coo([0, 1, 0], [1, 2, 2], [2**62, 2**62, 7], dtype="UINT64", **chain)
    assert sssp(U, 0).to_coo()[1].tolist() == [0, 2**62, 7]
    U = Matrix.from_coo([0, 1, 0], [1, 2, 2], [2**63, 2**63, 7], dtype="UINT64", **chain)
    with pytest.raises(ex.InvalidValue, match="overflow"):
        sssp(U, 0)  # 2**63 + 2**63 would wrap to 0, less than 7


def test_nan_weights_are_refused(backend: str) -> None:
    A = Matrix.from_coo([0, 1, 0], [1, 2, 3], [1.0, np.nan, 2.0], nrows=4, ncols=4)
    with pytest.raises(ex.InvalidValue, match="NaN"):
        sssp(A, 0)
    with pytest.raises(ex.InvalidValue, match="NaN"):
        widest_path(A, 0)
    with pytest.raises(ex.InvalidValue, match="NaN"):
        pagerank(A)


@pytest.mark.parametrize("kw", [{"alpha": 1.5, "tol": 0}, {"alpha": 1.0}, {"alpha": -0.1}, {"alpha": np.nan},
                                {"alpha": "0.85"}, {"tol": -1e-6}, {"tol": np.nan}, {"tol": np.inf},
                                {"max_iter": 1.5}, {"max_iter": -1}, {"max_iter": None},
                                {"personalization": {0: -1.0, 1: 2.0}}])
def test_pagerank_parameters(backend: str, kw: dict[str, Any]) -> None:
    A = Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 1.0, 1.0])
    with pytest.raises(ex.InvalidValue):
        pagerank(A, **kw)


def test_pagerank_negative_weight_and_edge_values(backend: str) -> None:
    A = Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, -1.0, 1.0])
    with pytest.raises(ex.InvalidValue, match=">= 0"):
        pagerank(A)
    G = nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 1)])
    expected = nx.pagerank(G, alpha=0.0)  # the edges of alpha=0: uniform
    got = pagerank(A, alpha=0.0, weight=False).to_dense()
    assert np.allclose(got, [expected[i] for i in range(3)])



def test_memory_rule_compares_with_what_the_backend_has(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from grblas_gpu import limits

    v = Vector.from_coo([3], [1.0], size=2**23)
    v << 2.0  # 2**23 FP64 values: 64 MiB, which fits here
    assert v.nvals == 2**23
    monkeypatch.setitem(limits._AVAILABLE, backend, lambda: 32 * MiB)
    w = Vector.from_coo([3], [1.0], size=2**23)
    unchanged(w, ex.OutOfMemory, lambda: w.__lshift__(2.0), "32.0 MiB available")
    with pytest.raises(ex.OutOfMemory, match="32.0 MiB available"):
        Vector.from_scalar(1.0, 2**23)
    assert Vector.from_scalar(1.0, 2**20).nvals == 2**20  # 8 MiB: under the size worth a check
