"""Conversions to and from SciPy sparse arrays, NetworkX graphs and (on a GPU) cupyx sparse matrices."""

from __future__ import annotations

import numpy as np
import pytest

import grblas_gpu as gb
from grblas_gpu.backends import gpu_available
from grblas_gpu.exceptions import DimensionMismatch, DomainMismatch, InvalidValue
from grblas_gpu.io import (
    from_cupyx_sparse,
    from_networkx,
    from_scipy_sparse,
    to_cupyx_sparse,
    to_networkx,
    to_scipy_sparse,
)

sps = pytest.importorskip("scipy.sparse")
nx = pytest.importorskip("networkx")

TYPES = ["BOOL", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "FP32", "FP64"]


def sample(type_name: str = "FP64", nrows: int = 5, ncols: int = 4) -> gb.Matrix:
    """A small matrix with an explicit zero."""
    t = gb.dtypes.lookup_dtype(type_name)
    rows, cols = [0, 0, 2, 4, 3], [0, 3, 1, 2, 3]
    vals = np.array([1, 0, 1, 1, 0] if t.is_bool else [3, 0, 7, 1, 2]).astype(t.np_type)
    return gb.Matrix.from_coo(rows, cols, vals, nrows=nrows, ncols=ncols, dtype=t)


def coo_dict(A: gb.Matrix) -> dict[tuple[int, int], object]:
    r, c, v = A.to_coo()
    return dict(zip(zip(r.tolist(), c.tolist()), v.tolist()))


# ----------------------------------------------------------------------------- SciPy


@pytest.mark.parametrize("type_name", TYPES)
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil"])
def test_scipy_round_trip(type_name: str, fmt: str) -> None:
    A = sample(type_name)
    m = to_scipy_sparse(A, format=fmt)
    assert m.format == fmt and m.shape == (5, 4) and m.dtype == A.dtype.np_type
    dense = np.zeros((5, 4), dtype=A.dtype.np_type)
    r, c, v = A.to_coo()
    dense[r, c] = v
    np.testing.assert_array_equal(m.toarray(), dense)
    B = from_scipy_sparse(m)
    assert B.isequal(A, check_dtype=True)


def test_explicit_zeros_survive_both_ways() -> None:
    A = sample()
    m = to_scipy_sparse(A)
    assert m.nnz == A.nvals == 5  # two explicit zeros kept
    z = sps.csr_matrix((np.array([0.0, 2.0]), np.array([1, 0]), np.array([0, 1, 2])), shape=(2, 2))
    B = from_scipy_sparse(z)
    assert B.nvals == 2 and B[0, 1].value == 0.0


def test_scipy_duplicates_are_summed_and_unsorted_ok() -> None:
    m = sps.coo_matrix((np.array([1.0, 2.0, 5.0]), (np.array([1, 1, 0]), np.array([0, 0, 2]))), shape=(2, 3))
    B = from_scipy_sparse(m)
    assert coo_dict(B) == {(0, 2): 5.0, (1, 0): 3.0}
    assert m.nnz == 3  # the input is not modified


def test_scipy_dtype_and_backend() -> None:
    m = sps.random_array((30, 20), density=0.2, random_state=1, format="csr")
    B = from_scipy_sparse(m, dtype="FP32", backend="numpy")
    assert B.dtype == gb.dtypes.FP32 and (B.nrows, B.ncols) == (30, 20) and B.nvals == m.nnz
    np.testing.assert_array_equal(to_scipy_sparse(B).toarray(), m.toarray().astype(np.float32))
    with pytest.raises(DomainMismatch, match="complex"):
        from_scipy_sparse(sps.csr_array(np.array([[1j]])))
    with pytest.raises(InvalidValue, match="format"):
        to_scipy_sparse(B, format="xyz")


def test_scipy_empty() -> None:
    A = gb.Matrix(gb.dtypes.INT32, 3, 0)
    m = to_scipy_sparse(A)
    assert m.shape == (3, 0) and m.nnz == 0
    assert from_scipy_sparse(m).isequal(A, check_dtype=True)


# ----------------------------------------------------------------------------- NetworkX


def test_from_networkx_matches_networkx_adjacency() -> None:
    G = nx.karate_club_graph()
    A = from_networkx(G)
    ref = nx.to_scipy_sparse_array(G, nodelist=list(G))
    np.testing.assert_array_equal(to_scipy_sparse(A).toarray(), ref.toarray())
    assert A.dtype == gb.dtypes.INT64 and A.nvals == 2 * G.number_of_edges()


def test_from_networkx_missing_weight_is_one_and_none_counts_edges() -> None:
    G = nx.DiGraph()
    G.add_edge("a", "b", weight=2.5)
    G.add_edge("b", "c")
    G.add_edge("c", "c", weight=4.0)
    A = from_networkx(G)
    assert A.dtype == gb.dtypes.FP64 and coo_dict(A) == {(0, 1): 2.5, (1, 2): 1.0, (2, 2): 4.0}
    B = from_networkx(G, weight=None)
    assert B.dtype == gb.dtypes.INT64 and coo_dict(B) == {(0, 1): 1, (1, 2): 1, (2, 2): 1}
    assert coo_dict(from_networkx(nx.MultiGraph([(0, 1), (0, 1)]), weight=None)) == {(0, 1): 2, (1, 0): 2}
    C = from_networkx(G, dtype="INT32")
    assert C.dtype == gb.dtypes.INT32 and coo_dict(C)[(0, 1)] == 2


def test_from_networkx_undirected_and_nodelist() -> None:
    G = nx.Graph()
    G.add_edges_from([(1, 2, {"w": 3}), (2, 3, {"w": 4}), (3, 3, {"w": 5})])
    A = from_networkx(G, nodelist=[3, 2, 1], weight="w")
    assert coo_dict(A) == {(0, 0): 5, (0, 1): 4, (1, 0): 4, (1, 2): 3, (2, 1): 3}
    S = from_networkx(G, nodelist=[1, 2], weight="w")  # edges leaving the nodelist are dropped
    assert coo_dict(S) == {(0, 1): 3, (1, 0): 3}
    ref = nx.to_scipy_sparse_array(G, nodelist=[3, 2, 1], weight="w")
    np.testing.assert_array_equal(to_scipy_sparse(A).toarray(), ref.toarray())
    with pytest.raises(InvalidValue, match="more than once"):
        from_networkx(G, nodelist=[1, 1])
    with pytest.raises(InvalidValue, match="not in the graph"):
        from_networkx(G, nodelist=[9])


def test_from_networkx_multigraph_sums_like_networkx() -> None:
    G = nx.MultiDiGraph()
    G.add_edges_from([(0, 1, {"weight": 2}), (0, 1, {"weight": 3}), (1, 0, {})])
    A = from_networkx(G)
    ref = nx.to_scipy_sparse_array(G)
    np.testing.assert_array_equal(to_scipy_sparse(A).toarray(), ref.toarray())
    H = nx.MultiGraph([(0, 1), (0, 1), (1, 1)])
    np.testing.assert_array_equal(to_scipy_sparse(from_networkx(H)).toarray(), nx.to_scipy_sparse_array(H).toarray())


def test_from_networkx_empty_graph() -> None:
    G = nx.empty_graph(4)
    A = from_networkx(G)
    assert (A.nrows, A.ncols, A.nvals) == (4, 4, 0)


def test_to_networkx_directed_round_trip() -> None:
    A = gb.Matrix.from_coo([0, 1, 2, 2], [1, 2, 0, 2], [1.5, 0.0, 3.0, 4.0], nrows=4, ncols=4)
    G = to_networkx(A)
    assert G.is_directed() and sorted(G.nodes) == [0, 1, 2, 3]  # node 3 kept, isolated
    assert G[1][2]["weight"] == 0.0 and G[2][2]["weight"] == 4.0 and G.number_of_edges() == 4
    assert from_networkx(G).isequal(A, check_dtype=True)


def test_to_networkx_undirected_and_ids() -> None:
    A = gb.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 1], [5, 5, 6, 6], nrows=3, ncols=3, dtype="INT64")
    G = to_networkx(A, directed=False, ids=np.array([10, 20, 30]))
    assert not G.is_directed() and G.number_of_edges() == 2
    assert G[10][20]["weight"] == 5 and G[30][20]["weight"] == 6
    with pytest.raises(DimensionMismatch):
        to_networkx(gb.Matrix(gb.dtypes.FP64, 2, 3))
    with pytest.raises(DimensionMismatch):
        to_networkx(A, ids=[1, 2])


# ----------------------------------------------------------------------------- sharing


def canonical(n: int = 30, nnz: int = 120, seed: int = 0) -> sps.csr_array:
    rng = np.random.default_rng(seed)
    m = sps.csr_array((rng.standard_normal(nnz), (rng.integers(0, n, nnz), rng.integers(0, n, nnz))), shape=(n, n))
    m.sum_duplicates()
    return sps.csr_array((m.data, m.indices.astype(np.int32), m.indptr.astype(np.int32)), shape=m.shape)


def test_from_scipy_sparse_shares_a_canonical_csr() -> None:
    m = canonical()
    A = from_scipy_sparse(m, backend="numpy")
    assert A.memory_usage()["shared"] and np.shares_memory(A._vals, m.data)
    assert not m.data.flags.writeable  # frozen: a write raises instead of changing A silently
    with pytest.raises(ValueError):
        m.data[0] = 1.0
    np.testing.assert_array_equal(to_scipy_sparse(A).toarray(), m.toarray())


def test_from_scipy_sparse_copy_true() -> None:
    m = canonical()
    A = from_scipy_sparse(m, backend="numpy", copy=True)
    dense = m.toarray()
    m.data[:] = 0.0  # still the caller's to write
    assert not np.shares_memory(A._vals, m.data)
    np.testing.assert_array_equal(to_scipy_sparse(A).toarray(), dense)


def test_from_scipy_sparse_unsorted_and_duplicates() -> None:
    m = sps.csr_array((np.array([1.0, 2.0, 3.0, 4.0]), np.array([2, 0, 2, 1]), np.array([0, 3, 4])), shape=(2, 3))
    assert not m.has_canonical_format
    A = from_scipy_sparse(m, backend="numpy")
    assert coo_dict(A) == {(0, 0): 2.0, (0, 2): 4.0, (1, 1): 4.0}
    assert m.data.flags.writeable and m.data.tolist() == [1.0, 2.0, 3.0, 4.0]  # not touched


def test_to_scipy_sparse_shares_read_only() -> None:
    A = from_scipy_sparse(canonical(), backend="numpy", copy=True)
    m = to_scipy_sparse(A)
    assert np.shares_memory(m.data, A._vals) and np.shares_memory(m.indices, A._indices)
    with pytest.raises(ValueError):
        m.data[0] = 5.0
    w = m.copy()
    w.data[0] = 5.0  # a copy is the caller's own
    assert A[int(w.nonzero()[0][0]), int(w.nonzero()[1][0])].value != 5.0
    B = from_scipy_sparse(m, backend="numpy")  # the round trip copies nothing
    assert B._vals is A._vals or np.shares_memory(B._vals, A._vals)
    assert B.isequal(A, check_dtype=True)


# ----------------------------------------------------------------------------- cupyx (GPU only)

gpu = pytest.mark.skipif(not gpu_available(), reason="needs CuPy and a CUDA GPU")


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_cupyx_round_trip(fmt: str) -> None:
    A = sample("FP64")
    m = to_cupyx_sparse(A, format=fmt)
    assert m.format == fmt and m.shape == (5, 4) and m.nnz == 5
    B = from_cupyx_sparse(m)
    assert getattr(B.backend, "name", B.backend) == "cupy"
    assert B.to("numpy").isequal(A.to("numpy"), check_dtype=True)


@pytest.mark.gpu
@gpu
def test_cupyx_integer_becomes_float64() -> None:
    m = to_cupyx_sparse(sample("INT32"))
    assert m.dtype == np.float64
    B = from_cupyx_sparse(m, dtype="INT32", backend="numpy")
    assert B.isequal(sample("INT32").to("numpy"), check_dtype=True)


@pytest.mark.gpu
@gpu
def test_cupyx_shares_with_copy_false() -> None:
    import cupy

    m = to_cupyx_sparse(from_scipy_sparse(canonical(), backend="cupy"))
    A = from_cupyx_sparse(m, copy=False)
    assert A._vals.data.ptr == m.data.data.ptr and A.memory_usage()["shared"]
    B = from_cupyx_sparse(m)  # the default copies (CuPy arrays cannot be made read-only)
    assert B._vals.data.ptr != m.data.data.ptr and B.isequal(A)
    C = to_cupyx_sparse(A)  # the export shares the Matrix's device arrays
    assert C.data.data.ptr == A._vals.data.ptr
    assert bool(cupy.all(C.indices == m.indices))
