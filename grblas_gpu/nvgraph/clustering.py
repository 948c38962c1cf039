"""Clustering calls (CUDA 9/10): AnalyzeClustering, SpectralClustering, ContractGraph.

Quality scores and contraction are algebra (``S A Sᵀ`` with the aggregation matrix S).
Spectral clustering's C result depends on its randomised eigen-solver and k-means; here it
is a correct, deterministic algorithm (see ``nvgraphSpectralClustering``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from grblas_gpu import Matrix, Vector, binary, monoid, semiring

from . import constants as c
from .errors import NvgraphError, integer, require
from .graph import (
    HAS_VALUES,
    check_descr,
    check_handle,
    check_index,
    check_values,
    graph_matrix,
    nvgraphGraphDescr_t,
    nvgraphHandle_t,
    value_type_of,
)
from .topology import copy_into, to_host


@dataclass
class SpectralClusteringParameter:
    """``struct SpectralClusteringParameter`` (0 tolerances / iteration counts mean the defaults)."""

    n_clusters: int = 2
    n_eig_vects: int = 2
    algorithm: int = c.NVGRAPH_BALANCED_CUT_LANCZOS
    evs_tolerance: float = 0.0
    evs_max_iter: int = 0
    kmean_tolerance: float = 0.0
    kmean_max_iter: int = 0
    opt: Any = None


def _weighted_graph(handle: Any, descrG: Any, weight_index: Any, metric_is_modularity: bool) -> tuple[Any, Any]:
    """Checks shared by the clustering calls; (descriptor, weighted CSR Matrix)."""
    check_handle(handle)
    d = check_descr(descrG)
    check_values(d)
    if d.ttype != c.NVGRAPH_CSR_32:
        status = c.NVGRAPH_STATUS_GRAPH_TYPE_NOT_SUPPORTED if metric_is_modularity else c.NVGRAPH_STATUS_INVALID_VALUE
        raise NvgraphError(status, "clustering needs a graph in NVGRAPH_CSR_32")
    value_type_of(d, c.FLOAT_TYPES, c.NVGRAPH_STATUS_TYPE_NOT_SUPPORTED, "clustering")  # validates the type
    w = check_index(weight_index, d.edge_sets, "weight_index")
    return d, graph_matrix(d, d.edge_sets[w].astype(np.float64), pull=False, dup_op=binary.plus)


def _aggregation(labels: np.ndarray, k: int, backend: str) -> Matrix:
    """S with ``S[labels[v], v] = 1``."""
    n = len(labels)
    return Matrix.from_coo(labels, np.arange(n), 1.0, nrows=k, ncols=n, dtype=np.float64, backend=backend)


def _labels(clustering: Any, n: int, k: int) -> np.ndarray:
    """A validated cluster label per vertex."""
    require(clustering is not None, "clustering is NULL")
    labels = to_host(clustering).astype(np.int64).reshape(-1)[:n]
    require(len(labels) == n and bool(((labels >= 0) & (labels < k)).all()),
            f"clustering must hold {n} labels in [0, {k})")
    return labels


def nvgraphAnalyzeClustering(handle: nvgraphHandle_t, descrG: nvgraphGraphDescr_t, weight_index: int,
                             n_clusters: int, clustering: Any, metric: int) -> float:
    """Score a clustering: MODULARITY, EDGE_CUT (``Σ xᵀLx / 2``) or RATIO_CUT (``Σ xᵀLx / |k|``).

    Returns the score (the C ``float *score``).
    """
    require(metric in (c.NVGRAPH_MODULARITY, c.NVGRAPH_EDGE_CUT, c.NVGRAPH_RATIO_CUT), f"unknown metric {metric!r}")
    d, A = _weighted_graph(handle, descrG, weight_index, metric == c.NVGRAPH_MODULARITY)
    require(isinstance(n_clusters, (int, np.integer)) and n_clusters >= 1, f"bad n_clusters {n_clusters!r}")
    k = int(n_clusters)
    S = _aggregation(_labels(clustering, d.nvertices, k), k, d.backend)
    within = S.mxm(A, semiring.plus_times).new().mxm(S.T, semiring.plus_times).new().diag().to_dense(0.0)
    degree = A.reduce_rowwise(monoid.plus).new()
    volume = S.mxv(degree, semiring.plus_times).new().to_dense(0.0)
    sizes = S.reduce_rowwise(monoid.plus).new().to_dense(0.0)
    return float(np.float32(_score(metric, within, volume, sizes)))


def _score(metric: int, within: np.ndarray, volume: np.ndarray, sizes: np.ndarray) -> float:
    """The metric from per-cluster internal weight, volume and size."""
    if metric == c.NVGRAPH_MODULARITY:
        total = volume.sum()
        return float((within.sum() - (volume ** 2).sum() / total) / total)
    cut = volume - within
    if metric == c.NVGRAPH_EDGE_CUT:
        return float(cut.sum() / 2)
    keep = sizes > 0
    return float((cut[keep] / sizes[keep]).sum())


# ----------------------------------------------------------------------------- spectral clustering


def _spectral_params(p: Any, n: int) -> tuple[int, int, int, float, int]:
    """Validated (k, n_eig, algorithm, kmeans tolerance, kmeans max iterations)."""
    require(isinstance(p, SpectralClusteringParameter), "params is NULL")
    k, m = int(p.n_clusters), int(p.n_eig_vects)
    require(2 <= k <= n and 1 <= m <= k, "need 2 <= n_clusters <= n and 1 <= n_eig_vects <= n_clusters")
    require(p.algorithm in (0, 1, 2), f"unknown algorithm {p.algorithm!r}")
    for tol in (p.evs_tolerance, p.kmean_tolerance):
        require(tol == 0 or 0 < tol < 1, f"tolerance {tol} must be in (0, 1)")
    return k, m, int(p.algorithm), float(p.kmean_tolerance or 1e-2), int(p.kmean_max_iter or 200)


def _kmeans(X: np.ndarray, k: int, tol: float, max_iter: int) -> np.ndarray:
    """Lloyd's k-means with deterministic farthest-point seeding; a label per row of X."""
    centers = [X[0]]
    for _ in range(1, k):
        dist = np.min([((X - ctr) ** 2).sum(axis=1) for ctr in centers], axis=0)
        centers.append(X[int(np.argmax(dist))])
    C = np.array(centers)
    labels = np.zeros(len(X), dtype=np.int64)
    for _ in range(max_iter):
        labels = np.argmin(((X[:, None, :] - C[None]) ** 2).sum(axis=2), axis=1)
        new = np.array([X[labels == j].mean(axis=0) if (labels == j).any() else C[j] for j in range(k)])
        shift, C = float(np.abs(new - C).max()), new
        if shift < tol:
            break
    return labels


def nvgraphSpectralClustering(handle: nvgraphHandle_t, descrG: nvgraphGraphDescr_t, weight_index: int,
                              params: SpectralClusteringParameter, clustering: Any, eig_vals: Any,
                              eig_vects: Any) -> int:
    """Spectral clustering into ``params.n_clusters`` clusters; fills the three outputs in place.

    Balanced cut (LANCZOS / LOBPCG): the ``n_eig_vects`` smallest eigenpairs of ``L = D - A``;
    modularity: the largest of ``B = A - d dᵀ / Σd``; then k-means on the rows of the
    eigenvectors.  The C library used randomised Lanczos/LOBPCG and k-means; this uses a dense
    symmetric eigensolver (NumPy ``eigh``, O(n³): for compatibility, not for large graphs) and
    deterministic k-means, so labels may differ while the clustering quality is comparable.
    ``eig_vects`` is column-major: vector j occupies ``[j*n, (j+1)*n)``.
    """
    modularity = getattr(params, "algorithm", None) == c.NVGRAPH_MODULARITY_MAXIMIZATION
    d, A = _weighted_graph(handle, descrG, weight_index, modularity)
    require(clustering is not None and eig_vals is not None and eig_vects is not None, "an output is NULL")
    k, m, algorithm, tol, max_iter = _spectral_params(params, d.nvertices)
    W = A.to_dense(0.0)
    W = (W + W.T) / 2
    deg = W.sum(axis=1)
    if algorithm == c.NVGRAPH_MODULARITY_MAXIMIZATION:
        vals, vecs = np.linalg.eigh(W - np.outer(deg, deg) / deg.sum())
        vals, vecs = vals[::-1][:m], vecs[:, ::-1][:, :m]
    else:
        vals, vecs = np.linalg.eigh(np.diag(deg) - W)
        vals, vecs = vals[:m], vecs[:, :m]
    copy_into(clustering, _kmeans(vecs, k, tol, max_iter).astype(np.int32))
    copy_into(eig_vals, vals)
    copy_into(eig_vects, vecs.T.reshape(-1))
    return c.NVGRAPH_STATUS_SUCCESS


# ----------------------------------------------------------------------------- contraction

_REDUCE = {c.NVGRAPH_SUM: "plus", c.NVGRAPH_MIN: "min", c.NVGRAPH_MAX: "max", c.NVGRAPH_MULTIPLY: "times"}


def nvgraphContractGraph(handle: nvgraphHandle_t, descrG: nvgraphGraphDescr_t, contrdescrG: nvgraphGraphDescr_t,
                         aggregates: Any, numaggregates: int, VertexCombineOp: int, VertexReduceOp: int,
                         EdgeCombineOp: int, EdgeReduceOp: int, flag: int = 0) -> int:
    """Contract the graph by ``aggregates`` (vertex v -> aggregate ``aggregates[v]``) into ``contrdescrG``.

    New vertex data ``S x`` and edges / edge data ``S G Sᵀ`` (S[agg[v], v] = 1) with the reduce
    op as the semiring's add; intra-aggregate edges become self-loops.  The combine ops are
    validated but act on S's unit entries only as the identity (partial: the C code's combine
    with a non-multiplicative op on S is unverified); MIN/MAX start from the data, not from 0.
    """
    check_handle(handle)
    d = check_descr(descrG)
    dst = check_descr(contrdescrG, need_topology=False)
    for op in (VertexCombineOp, VertexReduceOp, EdgeCombineOp, EdgeReduceOp):
        require(op in _REDUCE, f"unknown nvgraphSemiringOps_t {op!r}")
    if d.state == HAS_VALUES:
        value_type_of(d, c.FLOAT_TYPES, c.NVGRAPH_STATUS_TYPE_NOT_SUPPORTED, "nvgraphContractGraph")
    # size_t in C; more aggregates than vertices leaves some empty and only costs memory
    k = integer(numaggregates, "numaggregates", 1, d.nvertices + 1)
    labels = _labels(aggregates, d.nvertices, k)
    S = _aggregation(labels, k, d.backend)
    pull = d.ttype == c.NVGRAPH_CSC_32  # matrix rows = the stored offsets' vertices
    sets = d.edge_sets or [d.xp.ones(d.nedges, dtype=np.float64)]
    edge_sr = getattr(semiring, f"{_REDUCE[EdgeReduceOp]}_times")
    contracted = [_contract(S, graph_matrix(d, w, pull=pull, dup_op=getattr(binary, _REDUCE[EdgeReduceOp])),
                            edge_sr) for w in sets]
    offsets, indices, _ = contracted[0].to_csr()
    vertex_sr = getattr(semiring, f"{_REDUCE[VertexReduceOp]}_times")
    xp = d.xp
    dst.ttype, dst.backend, dst.nvertices, dst.nedges = d.ttype, d.backend, k, len(indices)
    dst.offsets, dst.indices = xp.asarray(offsets.astype(np.int32)), xp.asarray(indices.astype(np.int32))
    dst.value_type, dst.state, dst.alive = d.value_type, d.state, True
    dst.edge_sets = [xp.asarray(C.to_csr()[2].astype(w.dtype)) for C, w in zip(contracted, d.edge_sets)]
    dst.vertex_sets = [xp.asarray(S.mxv(Vector.from_dense(x, backend=S.backend), vertex_sr).new().to_dense(0).astype(x.dtype))
                       for x in d.vertex_sets]
    return c.NVGRAPH_STATUS_SUCCESS


def _contract(S: Matrix, G: Matrix, sr: Any) -> Matrix:
    """``S G Sᵀ`` under ``sr``."""
    return S.mxm(G, sr).new().mxm(S.T, sr).new()


__all__ = ["SpectralClusteringParameter", "nvgraphAnalyzeClustering", "nvgraphSpectralClustering",
           "nvgraphContractGraph"]
