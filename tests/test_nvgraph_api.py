"""Every nvGRAPH function on every backend, against independent computations (networkx / NumPy)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from nvgraph_helpers import BACKENDS, get_vertex, host, make_graph, random_graph, xp_of

import grblas_gpu.nvgraph as nv

FLT_MAX = np.finfo(np.float32).max


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """numpy, and cupy where a GPU is."""
    return request.param


def test_constants_and_strings() -> None:
    assert (nv.NVGRAPH_STATUS_SUCCESS, nv.NVGRAPH_STATUS_NOT_CONVERGED, nv.NVGRAPH_STATUS_GRAPH_TYPE_NOT_SUPPORTED) == (0, 9, 10)
    assert (nv.NVGRAPH_CSR_32, nv.NVGRAPH_CSC_32, nv.NVGRAPH_COO_32) == (0, 1, 2)
    assert (nv.CUDA_R_32F, nv.CUDA_R_64F, nv.CUDA_R_32I) == (0, 1, 10)
    assert (nv.NVGRAPH_PLUS_TIMES_SR, nv.NVGRAPH_MIN_PLUS_SR, nv.NVGRAPH_MAX_MIN_SR, nv.NVGRAPH_OR_AND_SR) == (0, 1, 2, 3)
    assert nv.nvgraphStatusGetString(9) == "nvGRAPH algorithm failed to converge"
    assert nv.nvgraphStatusGetString(0) == "Success"
    assert nv.nvgraphStatusGetString(42) == "Unknown nvGRAPH Status"
    assert [nv.nvgraphGetProperty(k) for k in (nv.MAJOR_VERSION, nv.MINOR_VERSION, nv.PATCH_LEVEL)] == [10, 2, 0]


def test_structure_and_data_roundtrip(backend: str) -> None:
    xp = xp_of(backend)
    src, dst, w = random_graph(1)
    h, g, order = make_graph(backend, src, dst, w, ttype=nv.NVGRAPH_CSC_32)
    topo, tt = nv.nvgraphGetGraphStructure(h, g)
    assert tt == nv.NVGRAPH_CSC_32 and topo.nedges == len(src)
    filled = nv.nvgraphCSCTopology32I_st(0, 0, xp.zeros(topo.nvertices + 1, np.int32), None)
    nv.nvgraphGetGraphStructure(h, g, filled, nv.NVGRAPH_CSC_32)
    assert np.array_equal(host(filled.destination_offsets), host(topo.destination_offsets))
    assert np.array_equal(host(filled.source_indices), src[order])
    out = xp.zeros(len(src), np.float32)
    nv.nvgraphGetEdgeData(h, g, out, 0, nv.NVGRAPH_CSC_32)  # guide's 5-argument form
    assert np.allclose(host(out), w[order])
    vals = xp.arange(topo.nvertices, dtype=np.float32)
    nv.nvgraphSetVertexData(h, g, vals, 1)  # CUDA 8 GA 4-argument form
    assert np.array_equal(get_vertex(h, g, 1, topo.nvertices, np.float32, backend), host(vals))
    assert nv.nvgraphDestroyGraphDescr(h, g) == 0 and nv.nvgraphDestroy(h) == 0


@pytest.mark.parametrize("vtype", [nv.CUDA_R_32F, nv.CUDA_R_64F])
def test_sssp_vs_networkx(backend: str, vtype: int) -> None:
    src, dst, w = random_graph(2)
    h, g, _ = make_graph(backend, src, dst, w, ttype=nv.NVGRAPH_CSC_32, vtype=vtype, n=13)
    nv.nvgraphSssp(h, g, 0, 0, 0)
    t = nv.NUMPY_TYPES[vtype]
    got = get_vertex(h, g, 0, 13, t, backend)
    G = nx.DiGraph()
    G.add_nodes_from(range(13))
    G.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist()))
    ref = nx.single_source_dijkstra_path_length(G, 0)
    want = np.array([ref.get(v, np.finfo(t).max) for v in range(13)], dtype=t)
    assert np.allclose(got, want, rtol=1e-5)
    assert got[12] == np.finfo(t).max  # isolated: FLT_MAX / DBL_MAX, not inf


def test_widest_path_vs_dense_loop(backend: str) -> None:
    src, dst, w = random_graph(3)
    h, g, _ = make_graph(backend, src, dst, w, ttype=nv.NVGRAPH_CSC_32, n=13)
    nv.nvgraphWidestPath(h, g, 0, 2, 1)
    got = get_vertex(h, g, 1, 13, np.float32, backend)
    width = np.full(13, -np.inf)
    width[2] = np.inf
    for _ in range(13):
        for a, b, c in zip(src, dst, w.astype(np.float32)):
            width[b] = max(width[b], min(width[a], c))
    want = np.where(np.isinf(width), np.sign(width) * FLT_MAX, width)
    assert np.allclose(got, want)


def _dense_pagerank(P: np.ndarray, bookmark: np.ndarray, alpha: float, iters: int = 2000) -> np.ndarray:
    """Textbook PageRank with the given sub-stochastic rows, uniform teleport and dangling mass."""
    n = len(P)
    x = np.full(n, 1.0 / n)
    for _ in range(iters):
        x = alpha * P.T @ x + (alpha * (bookmark @ x) + (1 - alpha) * x.sum()) / n
    return x / x.sum()


def test_pagerank_vs_dense(backend: str) -> None:
    src, dst, _ = random_graph(4)
    n = 13
    outdeg = np.bincount(src, minlength=n)
    w = 1.0 / outdeg[src]
    bookmark = (outdeg == 0).astype(np.float64)
    h, g, _ = make_graph(backend, src, dst, w, ttype=nv.NVGRAPH_CSC_32, vtype=nv.CUDA_R_64F, n=n,
                         vertex_values=[bookmark])
    nv.nvgraphPagerank(h, g, 0, 0.85, 0, 0, 1, 1e-10, 1000)
    got = get_vertex(h, g, 1, n, np.float64, backend)
    P = np.zeros((n, n))
    P[src, dst] = w
    assert np.allclose(got, _dense_pagerank(P, bookmark, 0.85), atol=1e-8)
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    ref = nx.pagerank(G, alpha=0.85, tol=1e-12)
    assert np.allclose(got, [ref[v] for v in range(n)], atol=1e-7)


def test_pagerank_not_converged_writes_result(backend: str) -> None:
    src, dst, _ = random_graph(5)
    outdeg = np.bincount(src, minlength=12)
    h, g, _ = make_graph(backend, src, dst, 1.0 / outdeg[src], ttype=nv.NVGRAPH_CSC_32, n=12,
                         vertex_values=[(outdeg == 0).astype(float)])
    with pytest.raises(nv.NvgraphError) as err:
        nv.nvgraphPagerank(h, g, 0, 0.85, 0, 0, 1, 1e-6, 1)
    assert err.value.status == nv.NVGRAPH_STATUS_NOT_CONVERGED
    got = get_vertex(h, g, 1, 12, np.float32, backend)
    assert abs(got.sum() - 1) < 1e-5 and (got > 0).all()


def _srspmv_reference(indptr: np.ndarray, cols: np.ndarray, w: np.ndarray, x: np.ndarray, y: np.ndarray,
                      alpha: float, beta: float, sr: int) -> np.ndarray:
    """The formula of nvGRAPH's tests (nvgraph_capi_tests_algorithms.cpp), with float32 arithmetic."""
    big = np.float32(FLT_MAX)
    table = {
        nv.NVGRAPH_PLUS_TIMES_SR: (np.add, np.multiply, 0.0, 1.0, 0.0),
        nv.NVGRAPH_MIN_PLUS_SR: (np.minimum, np.add, big, 0.0, big),
        nv.NVGRAPH_MAX_MIN_SR: (np.maximum, np.minimum, -big, big, -big),
        nv.NVGRAPH_OR_AND_SR: (lambda a, b: np.float32(bool(a) or bool(b)), lambda a, b: np.float32(bool(a) and bool(b)), 0.0, 1.0, 0.0),
    }
    add, mul, zero, one, null = table[sr]
    out = np.empty_like(y)
    for i in range(len(y)):
        if alpha == np.float32(null):
            out[i] = mul(y[i], np.float32(beta))
            continue
        s = np.float32(zero)
        for k in range(indptr[i], indptr[i + 1]):
            s = add(s, mul(w[k], x[cols[k]]))
        v = s if alpha == np.float32(one) else mul(s, np.float32(alpha))
        out[i] = v if beta == np.float32(null) else add(v, mul(np.float32(beta), y[i]))
    return out


@pytest.mark.parametrize("sr", [0, 1, 2, 3])
@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (2.0, 0.5), (0.0, 3.0)])
def test_srspmv_semirings(backend: str, sr: int, alpha: float, beta: float) -> None:
    src, dst, w = random_graph(6, n=9, m=25)
    n = 10  # vertex 9 has no out-edges: the empty row
    rng = np.random.default_rng(sr)
    x = rng.integers(0, 3, n).astype(np.float32)
    y = rng.integers(0, 3, n).astype(np.float32)
    w = np.round(w).astype(np.float32)
    h, g, order = make_graph(backend, src, dst, w, n=n, vertex_values=[x, y])
    nv.nvgraphSrSpmv(h, g, 0, alpha, 0, beta, 1, sr)
    got = get_vertex(h, g, 1, n, np.float32, backend)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))])
    want = _srspmv_reference(indptr, dst[order], w[order], x, y, np.float32(alpha), np.float32(beta), sr)
    assert np.allclose(got, want, rtol=1e-6)


def test_subgraph_by_vertex_carries_sets(backend: str) -> None:
    # The released library shifted offsets here (0->2, 1->3, {0,1,3} gave 0->2); the right answer is 1->2.
    h, g, _ = make_graph(backend, [0, 1], [2, 3], [5.0, 7.0], n=4, vertex_values=[[10, 11, 12, 13], [0, 1, 2, 3]])
    sub = nv.nvgraphCreateGraphDescr(h)
    nv.nvgraphExtractSubgraphByVertex(h, g, sub, np.array([0, 1, 3], np.int32), 3)
    topo, tt = nv.nvgraphGetGraphStructure(h, sub)
    assert tt == nv.NVGRAPH_CSR_32 and topo.nvertices == 3 and topo.nedges == 1
    assert host(topo.source_offsets).tolist() == [0, 0, 1, 1] and host(topo.destination_indices).tolist() == [2]
    assert get_vertex(h, sub, 0, 3, np.float32, backend).tolist() == [10, 11, 13]
    e = xp_of(backend).zeros(1, np.float32)
    nv.nvgraphGetEdgeData(h, sub, e, 0)
    assert host(e).tolist() == [7.0]


def test_subgraph_random_vs_networkx(backend: str) -> None:
    src, dst, w = random_graph(7)
    h, g, _order = make_graph(backend, src, dst, w, ttype=nv.NVGRAPH_CSC_32)
    keep = np.array([1, 2, 4, 7, 8, 11])
    sub = nv.nvgraphCreateGraphDescr(h)
    nv.nvgraphExtractSubgraphByVertex(h, g, sub, keep)
    topo, _ = nv.nvgraphGetGraphStructure(h, sub)
    G = nx.DiGraph(list(zip(src.tolist(), dst.tolist())))
    H = G.subgraph(keep.tolist())
    want = {(int(np.searchsorted(keep, a)), int(np.searchsorted(keep, b))) for a, b in H.edges}
    off, idx = host(topo.destination_offsets), host(topo.source_indices)
    got = {(int(idx[k]), v) for v in range(len(keep)) for k in range(off[v], off[v + 1])}
    assert got == want


def test_subgraph_by_edge(backend: str) -> None:
    h, g, _ = make_graph(backend, [0, 0, 2, 3], [1, 3, 2, 0], [1.0, 2.0, 3.0, 4.0], n=4)
    sub = nv.nvgraphCreateGraphDescr(h)
    nv.nvgraphExtractSubgraphByEdge(h, g, sub, [1], 1)  # edge 0->3: two vertices
    topo, _ = nv.nvgraphGetGraphStructure(h, sub)
    assert (topo.nvertices, topo.nedges, host(topo.destination_indices).tolist()) == (2, 1, [1])
    sub2 = nv.nvgraphCreateGraphDescr(h)
    nv.nvgraphExtractSubgraphByEdge(h, g, sub2, [2])  # self-loop 2->2: one vertex
    topo2, _ = nv.nvgraphGetGraphStructure(h, sub2)
    assert (topo2.nvertices, topo2.nedges) == (1, 1)


def test_convert_topology_and_graph(backend: str) -> None:
    src, dst, w = random_graph(8)
    n, h = 12, nv.nvgraphCreate()
    order = np.argsort(src, kind="stable")
    coo = nv.nvgraphCOOTopology32I_st(n, len(src), src[order].astype(np.int32), dst[order].astype(np.int32),
                                      nv.NVGRAPH_SORTED_BY_SOURCE)
    csc = nv.nvgraphCSCTopology32I_st()
    out = np.zeros(len(src), np.float32)
    nv.nvgraphConvertTopology(h, nv.NVGRAPH_COO_32, coo, w[order].astype(np.float32), nv.CUDA_R_32F,
                              nv.NVGRAPH_CSC_32, csc, out)
    dense = np.zeros((n, n), np.float32)
    dense[src, dst] = w
    off, idx = csc.destination_offsets, csc.source_indices
    back = np.zeros((n, n), np.float32)
    for v in range(n):
        back[idx[off[v]:off[v + 1]], v] = out[off[v]:off[v + 1]]
    assert np.array_equal(back, dense)
    hh, g, _ = make_graph(backend, src, dst, w, n=n)
    g2 = nv.nvgraphCreateGraphDescr(hh)
    nv.nvgraphConvertGraph(hh, g, g2, nv.NVGRAPH_CSC_32)
    topo, tt = nv.nvgraphGetGraphStructure(hh, g2)
    e = xp_of(backend).zeros(len(src), np.float32)
    nv.nvgraphGetEdgeData(hh, g2, e, 0)
    assert tt == nv.NVGRAPH_CSC_32 and np.array_equal(host(topo.destination_offsets), off)
    assert np.allclose(host(e), out)


def test_traversal_bfs(backend: str) -> None:
    src, dst, _ = random_graph(9)
    n = 13
    h, g, _ = make_graph(backend, src, dst, None, n=n, vsets=2, esets=0, vtype=nv.CUDA_R_32I)
    p = nv.nvgraphTraversalParameterInit()
    nv.nvgraphTraversalSetDistancesIndex(p, 0)
    nv.nvgraphTraversalSetPredecessorsIndex(p, 1)
    assert nv.nvgraphTraversalGetDistancesIndex(p) == 0 and nv.nvgraphTraversalGetAlpha(p) == 15
    nv.nvgraphTraversal(h, g, nv.NVGRAPH_TRAVERSAL_BFS, 0, p)
    dist = get_vertex(h, g, 0, n, np.int32, backend)
    pred = get_vertex(h, g, 1, n, np.int32, backend)
    G = nx.DiGraph(list(zip(src.tolist(), dst.tolist())))
    G.add_nodes_from(range(n))
    ref = nx.single_source_shortest_path_length(G, 0)
    assert dist.tolist() == [ref.get(v, nv.INT_MAX) for v in range(n)]
    for v in range(n):
        if v == 0 or v not in ref:
            assert pred[v] == -1
        else:
            assert G.has_edge(int(pred[v]), v) and ref[int(pred[v])] == ref[v] - 1


def test_triangle_count(backend: str) -> None:
    G = nx.gnm_random_graph(15, 45, seed=3)
    lower = [(max(a, b), min(a, b)) for a, b in G.edges]
    src, dst = zip(*lower)
    h, g, _ = make_graph(backend, src, dst, None, n=15, vsets=0, esets=0)
    assert nv.nvgraphTriangleCount(h, g) == sum(nx.triangles(G).values()) // 3


def test_analyze_clustering(backend: str) -> None:
    G = nx.karate_club_graph()
    src, dst = zip(*[(a, b) for a, b in G.edges] + [(b, a) for a, b in G.edges])
    h, g, _ = make_graph(backend, src, dst, np.ones(len(src)), n=34)
    labels = np.array([0 if G.nodes[v]["club"] == "Mr. Hi" else 1 for v in range(34)], np.int32)
    q = nv.nvgraphAnalyzeClustering(h, g, 0, 2, labels, nv.NVGRAPH_MODULARITY)
    ref = nx.community.modularity(G, [set(np.flatnonzero(labels == k).tolist()) for k in (0, 1)], weight=None)
    assert abs(q - ref) < 1e-5
    cut = nv.nvgraphAnalyzeClustering(h, g, 0, 2, labels, nv.NVGRAPH_EDGE_CUT)
    assert cut == nx.cut_size(G, set(np.flatnonzero(labels == 0).tolist()))
    ratio = nv.nvgraphAnalyzeClustering(h, g, 0, 2, labels, nv.NVGRAPH_RATIO_CUT)
    assert abs(ratio - sum(cut / (labels == k).sum() for k in (0, 1))) < 1e-4


def test_spectral_clustering_two_cliques(backend: str) -> None:
    G = nx.disjoint_union(nx.complete_graph(6), nx.complete_graph(6))
    G.add_edge(0, 6)
    src, dst = zip(*[(a, b) for a, b in G.edges] + [(b, a) for a, b in G.edges])
    h, g, _ = make_graph(backend, src, dst, np.ones(len(src)), n=12)
    for algo in (nv.NVGRAPH_BALANCED_CUT_LANCZOS, nv.NVGRAPH_MODULARITY_MAXIMIZATION):
        params = nv.SpectralClusteringParameter(n_clusters=2, n_eig_vects=2, algorithm=algo)
        labels, vals, vecs = np.zeros(12, np.int32), np.zeros(2, np.float32), np.zeros(24, np.float32)
        nv.nvgraphSpectralClustering(h, g, 0, params, labels, vals, vecs)
        assert len(set(labels[:6])) == 1 and len(set(labels[6:])) == 1 and labels[0] != labels[6]


def test_contract_graph(backend: str) -> None:
    h, g, _order = make_graph(backend, [0, 1, 2, 3], [1, 2, 3, 0], [1.0, 2.0, 3.0, 4.0], n=4,
                             vsets=1, vertex_values=[[1, 2, 3, 4]])
    c = nv.nvgraphCreateGraphDescr(h)
    nv.nvgraphContractGraph(h, g, c, np.array([0, 0, 1, 1], np.int32), 2, nv.NVGRAPH_MULTIPLY, nv.NVGRAPH_SUM,
                            nv.NVGRAPH_MULTIPLY, nv.NVGRAPH_SUM, 0)
    topo, _ = nv.nvgraphGetGraphStructure(h, c)
    e = xp_of(backend).zeros(topo.nedges, np.float32)
    nv.nvgraphGetEdgeData(h, c, e, 0)
    off, idx = host(topo.source_offsets), host(topo.destination_indices)
    got = {(r, int(idx[k])): float(host(e)[k]) for r in range(2) for k in range(off[r], off[r + 1])}
    assert got == {(0, 0): 1.0, (0, 1): 2.0, (1, 1): 3.0, (1, 0): 4.0}
    assert get_vertex(h, c, 0, 2, np.float32, backend).tolist() == [3.0, 7.0]
