"""Every row of nvgraph-semantics.md section 9: the C status of each bad input, on every backend."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from nvgraph_helpers import BACKENDS, get_vertex, make_graph, xp_of

import grblas_gpu.nvgraph as nv

INVALID, TYPE, ALLOC, NOTCONV = (nv.NVGRAPH_STATUS_INVALID_VALUE, nv.NVGRAPH_STATUS_TYPE_NOT_SUPPORTED,
                                 nv.NVGRAPH_STATUS_ALLOC_FAILED, nv.NVGRAPH_STATUS_NOT_CONVERGED)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """numpy, and cupy where a GPU is."""
    return request.param


def raises(status: int, fn: Callable[..., Any], *args: Any) -> nv.NvgraphError:
    """Assert that fn(*args) raises NvgraphError with ``status`` and the C string in its message."""
    with pytest.raises(nv.NvgraphError) as err:
        fn(*args)
    assert err.value.status == status
    assert str(err.value).startswith(nv.nvgraphStatusGetString(status))
    return err.value


def csc(backend: str, **kw: Any) -> tuple[Any, Any]:
    """A small CSC graph with 2 vertex sets and 1 edge set."""
    h, g, _ = make_graph(backend, [0, 1, 2], [1, 2, 0], [1.0, 1.0, 1.0], ttype=nv.NVGRAPH_CSC_32, **kw)
    return h, g


def csr(backend: str, **kw: Any) -> tuple[Any, Any]:
    """A small CSR graph with 2 vertex sets and 1 edge set."""
    h, g, _ = make_graph(backend, [0, 1, 2], [1, 2, 0], [1.0, 1.0, 1.0], **kw)
    return h, g


def test_bad_handle(backend: str) -> None:
    _h, g = csc(backend)
    dead = nv.nvgraphCreate()
    nv.nvgraphDestroy(dead)
    for bad in (None, dead, "handle"):
        raises(INVALID, nv.nvgraphCreateGraphDescr, bad)
        raises(INVALID, nv.nvgraphSssp, bad, g, 0, 0, 0)
        raises(INVALID, nv.nvgraphGetGraphStructure, bad, g)
        raises(INVALID, nv.nvgraphDestroyGraphDescr, bad, g)


def test_destroy_null_is_alloc_failed() -> None:
    raises(ALLOC, nv.nvgraphDestroy, None)


def test_null_descr(backend: str) -> None:
    h, g = csc(backend)
    topo = nv.nvgraphCSRTopology32I_st(2, 1, np.array([0, 1, 1], np.int32), np.array([1], np.int32))
    raises(INVALID, nv.nvgraphSetGraphStructure, h, None, topo, nv.NVGRAPH_CSR_32)
    raises(INVALID, nv.nvgraphSetVertexData, h, None, np.zeros(3, np.float32), 0)
    raises(INVALID, nv.nvgraphGetVertexData, h, None, np.zeros(3, np.float32), 0)
    raises(INVALID, nv.nvgraphPagerank, h, None, 0, 0.85, 0, 0, 1, 0.0, 0)
    raises(INVALID, nv.nvgraphExtractSubgraphByVertex, h, None, nv.nvgraphCreateGraphDescr(h), [0])
    raises(INVALID, nv.nvgraphExtractSubgraphByVertex, h, g, None, [0])
    raises(INVALID, nv.nvgraphDestroyGraphDescr, h, None)


def test_set_structure_rules(backend: str) -> None:
    xp = xp_of(backend)
    h, g = csr(backend)
    topo = nv.nvgraphCSRTopology32I_st(3, 3, xp.asarray(np.array([0, 1, 2, 3], np.int32)),
                                       xp.asarray(np.array([1, 2, 0], np.int32)))
    raises(INVALID, nv.nvgraphSetGraphStructure, h, g, topo, nv.NVGRAPH_CSR_32)  # second call
    fresh = nv.nvgraphCreateGraphDescr(h)
    coo = nv.nvgraphCOOTopology32I_st(3, 3, np.array([0, 1, 2]), np.array([1, 2, 0]))
    raises(TYPE, nv.nvgraphSetGraphStructure, h, fresh, coo, nv.NVGRAPH_COO_32)
    raises(TYPE, nv.nvgraphSetGraphStructure, h, fresh, topo, 7)
    raises(INVALID, nv.nvgraphSetGraphStructure, h, fresh, None, nv.NVGRAPH_CSR_32)
    empty = nv.nvgraphCSRTopology32I_st(0, 0, np.array([0], np.int32), np.array([], np.int32))
    raises(INVALID, nv.nvgraphSetGraphStructure, h, fresh, empty, nv.NVGRAPH_CSR_32)
    no_edges = nv.nvgraphCSRTopology32I_st(3, 0, np.array([0, 0, 0, 0], np.int32), np.array([], np.int32))
    raises(INVALID, nv.nvgraphSetGraphStructure, h, fresh, no_edges, nv.NVGRAPH_CSR_32)
    raises(INVALID, nv.nvgraphGetGraphStructure, h, fresh)  # no topology yet


def test_data_before_allocate(backend: str) -> None:
    h, g, _ = make_graph(backend, [0, 1], [1, 0], None, vsets=0, esets=0)
    raises(INVALID, nv.nvgraphSetVertexData, h, g, np.zeros(2, np.float32), 0)
    raises(INVALID, nv.nvgraphGetEdgeData, h, g, np.zeros(2, np.float32), 0)
    raises(INVALID, nv.nvgraphSssp, h, g, 0, 0, 0)


def test_allocation_type_rules(backend: str) -> None:
    h, g, _ = make_graph(backend, [0, 1], [1, 0], None, vsets=0, esets=0)
    raises(INVALID, nv.nvgraphAllocateVertexData, h, g, 2, [nv.CUDA_R_32F, nv.CUDA_R_64F])
    raises(TYPE, nv.nvgraphAllocateVertexData, h, g, 1, [nv.CUDA_R_16F])
    raises(INVALID, nv.nvgraphAllocateVertexData, h, g, 1, None)
    nv.nvgraphAllocateVertexData(h, g, 1, [nv.CUDA_R_32F])
    raises(INVALID, nv.nvgraphAllocateEdgeData, h, g, 1, [nv.CUDA_R_64F])


def test_set_index_out_of_range(backend: str) -> None:
    h, g = csc(backend)
    raises(INVALID, nv.nvgraphSetVertexData, h, g, np.zeros(3, np.float32), 2)
    raises(INVALID, nv.nvgraphGetEdgeData, h, g, np.zeros(3, np.float32), 1)
    raises(INVALID, nv.nvgraphSssp, h, g, 1, 0, 0)
    raises(INVALID, nv.nvgraphSssp, h, g, 0, 0, 2)
    raises(INVALID, nv.nvgraphWidestPath, h, g, 0, 0, 5)
    raises(INVALID, nv.nvgraphPagerank, h, g, 3, 0.85, 0, 0, 1, 0.0, 0)
    raises(INVALID, nv.nvgraphPagerank, h, g, 0, 0.85, 2, 0, 1, 0.0, 0)
    raises(INVALID, nv.nvgraphPagerank, h, g, 0, 0.85, 0, 0, 2, 0.0, 0)
    h2, g2 = csr(backend)
    for args in ((1, 1.0, 0, 0.0, 1), (0, 1.0, 2, 0.0, 1), (0, 1.0, 0, 0.0, 2)):
        raises(INVALID, nv.nvgraphSrSpmv, h2, g2, *args, nv.NVGRAPH_PLUS_TIMES_SR)
    raises(INVALID, nv.nvgraphSrSpmv, h2, g2, 0, 1.0, 0, 0.0, 1, 9)  # unknown semiring
    raises(INVALID, nv.nvgraphSssp, h, g, 0, 7, 0)  # source out of range


def test_wrong_topology(backend: str) -> None:
    h, g = csr(backend)
    raises(INVALID, nv.nvgraphPagerank, h, g, 0, 0.85, 0, 0, 1, 0.0, 0)
    raises(INVALID, nv.nvgraphSssp, h, g, 0, 0, 0)
    raises(INVALID, nv.nvgraphWidestPath, h, g, 0, 0, 0)
    h2, g2 = csc(backend)
    raises(INVALID, nv.nvgraphSrSpmv, h2, g2, 0, 1.0, 0, 0.0, 1, nv.NVGRAPH_PLUS_TIMES_SR)
    hi, gi = csc(backend, vtype=nv.CUDA_R_32I, esets=0)
    p = nv.nvgraphTraversalParameterInit()
    nv.nvgraphTraversalSetDistancesIndex(p, 0)
    raises(INVALID, nv.nvgraphTraversal, hi, gi, nv.NVGRAPH_TRAVERSAL_BFS, 0, p)


def test_unsupported_value_type(backend: str) -> None:
    h, g = csc(backend, vtype=nv.CUDA_R_32I)
    raises(TYPE, nv.nvgraphSssp, h, g, 0, 0, 0)
    raises(TYPE, nv.nvgraphWidestPath, h, g, 0, 0, 0)
    raises(TYPE, nv.nvgraphPagerank, h, g, 0, 0.85, 0, 0, 1, 0.0, 0)
    raises(TYPE, nv.nvgraphGetEdgeData, h, g, np.zeros(3, np.int32), 0)
    raises(TYPE, nv.nvgraphExtractSubgraphByVertex, h, g, nv.nvgraphCreateGraphDescr(h), [0, 1])
    h2, g2 = csr(backend, vtype=nv.CUDA_R_32I)
    raises(INVALID, nv.nvgraphSrSpmv, h2, g2, 0, 1, 0, 0, 1, nv.NVGRAPH_PLUS_TIMES_SR)  # SrSpmv: INVALID
    h3, g3 = csr(backend)
    p = nv.nvgraphTraversalParameterInit()
    raises(TYPE, nv.nvgraphTraversal, h3, g3, nv.NVGRAPH_TRAVERSAL_BFS, 0, p)


@pytest.mark.parametrize("has_guess,tol,alpha", [(2, 0.0, 0.85), (0, -0.1, 0.85), (0, 1.0, 0.85),
                                                 (0, 0.0, 0.0), (0, 0.0, 1.0), (0, 0.0, 0.9995),
                                                 (0, 0.0, 0.00005)])
def test_pagerank_bad_parameters(backend: str, has_guess: int, tol: float, alpha: float) -> None:
    h, g = csc(backend)
    raises(INVALID, nv.nvgraphPagerank, h, g, 0, alpha, 0, has_guess, 1, tol, 0)


def test_iteration_limits_not_converged(backend: str) -> None:
    # SSSP on a chain: the shortest path to the last vertex has nnz hops -> NOT_CONVERGED.
    h, g, _ = make_graph(backend, [0, 1, 2], [1, 2, 3], [1.0, 1.0, 1.0], ttype=nv.NVGRAPH_CSC_32, n=4)
    raises(NOTCONV, nv.nvgraphSssp, h, g, 0, 0, 0)
    assert get_vertex(h, g, 0, 4, np.float32, backend).tolist() == [0, 1, 2, 3]  # still written
    # Negative cycle
    h2, g2, _ = make_graph(backend, [0, 1, 2], [1, 2, 1], [1.0, -2.0, 1.0], ttype=nv.NVGRAPH_CSC_32, n=3)
    raises(NOTCONV, nv.nvgraphSssp, h2, g2, 0, 0, 0)
    h3, g3 = csc(backend)
    raises(NOTCONV, nv.nvgraphPagerank, h3, g3, 0, 0.85, 0, 1, 1, 1e-6, 1)  # zero guess: NaNs


def test_subgraph_selection_errors(backend: str) -> None:
    h, g = csr(backend)
    sub = nv.nvgraphCreateGraphDescr(h)
    for bad in ([], [0, 0], [1, 0], [3], [-1]):
        raises(INVALID, nv.nvgraphExtractSubgraphByVertex, h, g, sub, bad)
    for bad in ([], [2, 1], [3]):
        raises(INVALID, nv.nvgraphExtractSubgraphByEdge, h, g, sub, bad)


def test_later_api_errors(backend: str) -> None:
    h, g = csr(backend)
    raises(INVALID, nv.nvgraphGetProperty, 5)
    raises(INVALID, nv.nvgraphTriangleCount, h, g)  # HAS_VALUES quirk
    dst = nv.nvgraphCreateGraphDescr(h)
    raises(TYPE, nv.nvgraphConvertGraph, h, g, dst, nv.NVGRAPH_COO_32)
    raises(INVALID, nv.nvgraphConvertGraph, h, g, g, nv.NVGRAPH_CSC_32)  # destination not empty
    csr_t = nv.nvgraphCSRTopology32I_st(3, 3, np.array([0, 1, 2, 3]), np.array([1, 2, 0]))
    raises(INVALID, nv.nvgraphConvertTopology, h, 0, csr_t, None, nv.CUDA_R_32F, 1, nv.nvgraphCSCTopology32I_st(), np.zeros(3))
    raises(TYPE, nv.nvgraphConvertTopology, h, 0, csr_t, np.ones(3), nv.CUDA_R_32I, 1, nv.nvgraphCSCTopology32I_st(), np.zeros(3))
    raises(INVALID, nv.nvgraphTraversalSetAlpha, None, 3)
    p = nv.SpectralClusteringParameter(n_clusters=1)
    raises(INVALID, nv.nvgraphSpectralClustering, h, g, 0, p, np.zeros(3), np.zeros(1), np.zeros(3))
    hc, gc = csc(backend)
    modularity = nv.SpectralClusteringParameter(algorithm=nv.NVGRAPH_MODULARITY_MAXIMIZATION)
    raises(nv.NVGRAPH_STATUS_GRAPH_TYPE_NOT_SUPPORTED, nv.nvgraphSpectralClustering, hc, gc, 0, modularity,
           np.zeros(3), np.zeros(2), np.zeros(6))


# ----------------------------------------------------------------------------- Python errors are statuses


def test_bad_arguments_are_statuses_not_python_errors(backend: str) -> None:
    """Each of these raised IndexError, ValueError or TypeError; nvGRAPH returns a status."""
    xp = xp_of(backend)
    h, g = csc(backend)
    for source in ([], "a", 1.5, np.array([1.5]), None, True):
        raises(INVALID, nv.nvgraphSssp, h, g, 0, source, 0)
    raises(INVALID, nv.nvgraphWidestPath, h, g, 0, np.array([0.5]), 0)
    raises(INVALID, nv.nvgraphSetVertexData, h, g, 3.0, 0)
    raises(INVALID, nv.nvgraphSetVertexData, h, g, "abc", 0)
    raises(INVALID, nv.nvgraphSetVertexData, h, g, xp.ones((3, 1), np.float32), 0)  # accepted, then failed at Get
    for max_iter in (None, 1.5, "10", 2**40):
        raises(INVALID, nv.nvgraphPagerank, h, g, 0, 0.85, 0, 0, 1, 1e-6, max_iter)
    raises(INVALID, nv.nvgraphPagerank, h, g, 0, 0.85, 0, 0, 1, float("nan"), 0)
    raises(INVALID, nv.nvgraphPagerank, h, g, 0, "x", 0, 0, 1, 1e-6, 0)
    read_only = np.zeros(3, np.float32)
    read_only.flags.writeable = False
    raises(INVALID, nv.nvgraphGetVertexData, h, g, read_only, 0)
    assert nv.nvgraphSssp(h, g, 0, np.array([1], np.int32), 0) == nv.NVGRAPH_STATUS_SUCCESS
    assert get_vertex(h, g, 0, 3, np.float32, backend).tolist() == [2.0, 0.0, 1.0]


def test_status_string_of_anything() -> None:
    for status in (None, "x", 11, -1, 2**70, 3.5j):
        assert nv.nvgraphStatusGetString(status) == "Unknown nvGRAPH Status"
    assert nv.nvgraphStatusGetString(np.int32(3)) == "nvGRAPH invalid value"


def test_contract_graph_aggregate_count(backend: str) -> None:
    h, g = csr(backend)
    out = nv.nvgraphCreateGraphDescr(h)
    labels = np.array([0, 1, 0], np.int32)
    for k in (2**31, 4, 0, -1, 1.5, None):
        raises(INVALID, nv.nvgraphContractGraph, h, g, out, labels, k, 0, 1, 0, 1)
    assert nv.nvgraphContractGraph(h, g, out, labels, 2, 0, 1, 0, 1) == nv.NVGRAPH_STATUS_SUCCESS


def _csr6(indices: list[int], offsets: list[int] | None = None) -> Any:
    offsets = offsets or [0, 1, 2, 3, 3, 3, 3]
    return nv.nvgraphCSRTopology32I_st(6, len(indices), np.array(offsets, np.int32), np.array(indices, np.int32))


def test_convert_topology_checks_its_input_and_writes_nothing_on_error() -> None:
    h = nv.nvgraphCreate()
    convert = nv.nvgraphConvertTopology
    R, C, F = nv.NVGRAPH_CSR_32, nv.NVGRAPH_CSC_32, nv.CUDA_R_64F

    def fresh() -> tuple[Any, np.ndarray]:
        offsets = np.full(7, -5, np.int32)
        return nv.nvgraphCSCTopology32I_st(source_indices=np.full(3, -5, np.int32), destination_offsets=offsets), \
            np.full(3, -5.0)

    for src, data in [(_csr6([1, 100, 2]), np.ones(3)),            # index >= n: a 101-entry offsets array
                      (_csr6([1, -1, 2]), np.ones(3)),
                      (_csr6([1, 2, 3], [0, 2, 1, 3, 3, 3, 3]), np.ones(3)),  # decreasing offsets
                      (_csr6([1, 2, 3], [0, 1, 2]), np.ones(3)),              # offsets too short
                      (_csr6([1, 2, 3]), np.ones(2)),                         # short edge data
                      (_csr6([1, 2, 3]), np.ones((3, 1)))]:
        dst, out = fresh()
        raises(INVALID, convert, h, R, src, data, F, C, dst, out)
        assert (dst.destination_offsets == -5).all() and (dst.source_indices == -5).all() and (out == -5).all()
    dst, out = fresh()
    read_only = np.zeros(3)
    read_only.flags.writeable = False
    raises(INVALID, convert, h, R, _csr6([1, 2, 3]), np.ones(3), F, C, dst, read_only)
    assert (dst.destination_offsets == -5).all()
    dst, out = fresh()
    assert convert(h, R, _csr6([1, 2, 3]), np.array([1.0, 2.0, 3.0]), F, C, dst, out) == nv.NVGRAPH_STATUS_SUCCESS
    assert dst.destination_offsets.tolist() == [0, 0, 1, 2, 3, 3, 3] and dst.source_indices.tolist() == [0, 1, 2]
    assert out.tolist() == [1.0, 2.0, 3.0]


def test_subgraph_vertex_ids_must_be_integers(backend: str) -> None:
    h, g = csr(backend)
    sub = nv.nvgraphCreateGraphDescr(h)
    raises(INVALID, nv.nvgraphExtractSubgraphByVertex, h, g, sub, np.array([0.5, 1.7]), 2)
    raises(INVALID, nv.nvgraphExtractSubgraphByVertex, h, g, sub, [0.0, 1.0], 2)
    raises(INVALID, nv.nvgraphExtractSubgraphByVertex, h, g, sub, np.array([0, 1]), 1.5)
    raises(INVALID, nv.nvgraphExtractSubgraphByEdge, h, g, sub, np.array([0.5]), 1)
    assert nv.nvgraphExtractSubgraphByVertex(h, g, sub, np.array([0, 1]), 2) == nv.NVGRAPH_STATUS_SUCCESS


def test_traversal_source_must_be_an_integer(backend: str) -> None:
    h, g, _ = make_graph(backend, [0, 1], [1, 0], None, vsets=1, esets=0, vtype=nv.CUDA_R_32I)
    params = nv.nvgraphTraversalParameterInit()
    nv.nvgraphTraversalSetDistancesIndex(params, 0)
    for source in (1.5, "0", [], None):
        raises(INVALID, nv.nvgraphTraversal, h, g, nv.NVGRAPH_TRAVERSAL_BFS, source, params)
    assert nv.nvgraphTraversal(h, g, nv.NVGRAPH_TRAVERSAL_BFS, 0, params) == nv.NVGRAPH_STATUS_SUCCESS
