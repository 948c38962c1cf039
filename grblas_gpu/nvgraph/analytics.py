"""The algorithm calls: SrSpmv, Sssp, WidestPath, Pagerank, Traversal (BFS), TriangleCount.

Each call validates like nvgraph.cu, builds a ``grblas_gpu.Matrix`` from the descriptor's
arrays on their backend, and computes with the public algebra or ``grblas_gpu.algorithms``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from grblas_gpu import Vector, binary, monoid, semiring

from . import constants as c
from .errors import NvgraphError, integer, require, vertex_pointer
from .graph import (
    check_descr,
    check_handle,
    check_index,
    check_topology,
    check_values,
    graph_matrix,
    nvgraphGraphDescr_t,
    nvgraphHandle_t,
    value_type_of,
)

CONVERGENCE_TOL = 1e-6  # sssp.cu / widest_path.cu stopping rule: ||x - y||_2 < 1e-6


def _pointer_value(p: Any, dtype: Any, what: str) -> Any:
    """Read a C ``const void*`` scalar (a number or a 1-element array) as the graph's type."""
    require(p is not None, f"{what} is NULL")
    return dtype(np.asarray(p if np.isscalar(p) else np.asarray(p).reshape(-1)[0]).item())


def _big(dtype: Any) -> float:
    """FLT_MAX or DBL_MAX: nvGRAPH's infinity."""
    return c.FLT_MAX if dtype == np.float32 else c.DBL_MAX


def _full(value: Any, n: int, dtype: Any, backend: str) -> Vector:
    """A full Vector of ``n`` entries equal to ``value``."""
    return Vector.from_scalar(dtype(value), n, dtype=dtype, backend=backend)


def _dense(v: Vector, xp: Any) -> Any:
    """A full Vector's values as an array of the graph's backend."""
    return xp.asarray(v.to_dense())


def _l2_diff(x: Vector, y: Vector) -> float:
    """``||x - y||_2`` of two full Vectors (one host round trip)."""
    d = x.ewise_mult(y, binary.minus).new()
    return float(np.sqrt(d.ewise_mult(d, binary.times).new().reduce(monoid.plus).new().value or 0.0))


# ----------------------------------------------------------------------------- SrSpmv

@dataclass(frozen=True)
class _SR:
    """One nvgraphSemiring_t: the algebra's semiring, its ops, and nvGRAPH's special values."""

    semiring: str
    add: str
    mult: str
    plus_ident: Callable[[Any], float]
    times_ident: Callable[[Any], float]
    times_null: Callable[[Any], float]


_SEMIRINGS = {
    c.NVGRAPH_PLUS_TIMES_SR: _SR("plus_times", "plus", "times", lambda t: 0.0, lambda t: 1.0, lambda t: 0.0),
    c.NVGRAPH_MIN_PLUS_SR: _SR("min_plus", "min", "plus", _big, lambda t: 0.0, _big),
    c.NVGRAPH_MAX_MIN_SR: _SR("max_min", "max", "min", lambda t: -_big(t), _big, lambda t: -_big(t)),
    c.NVGRAPH_OR_AND_SR: _SR("lor_land", "lor", "land", lambda t: 0.0, lambda t: 1.0, lambda t: 0.0),
}


def nvgraphSrSpmv(handle: nvgraphHandle_t, descrG: nvgraphGraphDescr_t, weight_index: int, alpha: Any,
                  x_index: int, beta: Any, y_index: int, SR: int) -> int:
    """``y = (A ⊕.⊗ x) ⊗ alpha ⊕ beta ⊗ y`` over the CSR graph, alpha/beta rules of csrmv_cub.cu.

    With nvGRAPH's special values: ``alpha == times_null`` gives ``y = y ⊗ beta``; ``alpha ==
    times_ident`` skips the alpha product; ``beta == times_null`` never reads the old y.  An empty
    row contributes the additive identity (FLT_MAX / -FLT_MAX for MIN_PLUS / MAX_MIN).
    """
    d = _check_algorithm(handle, descrG)
    check_topology(d, c.NVGRAPH_CSR_32, "nvgraphSrSpmv")
    t = c.NUMPY_TYPES[value_type_of(d, c.FLOAT_TYPES, c.NVGRAPH_STATUS_INVALID_VALUE, "nvgraphSrSpmv")]
    w = check_index(weight_index, d.edge_sets, "weight_index")
    xi = check_index(x_index, d.vertex_sets, "x_index")
    yi = check_index(y_index, d.vertex_sets, "y_index")
    require(SR in _SEMIRINGS, f"unknown semiring {SR!r}")
    sr = _SEMIRINGS[SR]
    a, b = _pointer_value(alpha, t, "alpha"), _pointer_value(beta, t, "beta")
    n, backend = d.nvertices, d.backend
    y_old = Vector.from_dense(d.vertex_sets[yi], dtype=t, backend=backend)
    if a == t(sr.times_null(t)):
        y = y_old.apply(getattr(binary, sr.mult), right=b).new()
    else:
        A = graph_matrix(d, d.edge_sets[w], pull=False, dup_op=getattr(binary, sr.add))
        x = Vector.from_dense(d.vertex_sets[xi], dtype=t, backend=backend)
        y = _full(sr.plus_ident(t), n, t, backend)
        # The one accumulated mxv: y_i = plus_ident ⊕ (⊕_k A_ik ⊗ x_k), exactly the C row sum.
        y(getattr(binary, sr.add)) << A.mxv(x, getattr(semiring, sr.semiring))
        y = _apply_alpha_beta(y, y_old, a, b, sr, t)
    d.vertex_sets[yi] = _dense(y, d.xp).astype(t)
    return c.NVGRAPH_STATUS_SUCCESS


def _apply_alpha_beta(s: Vector, y_old: Vector, a: Any, b: Any, sr: _SR, t: Any) -> Vector:
    """``(s ⊗ alpha) ⊕ (beta ⊗ y_old)`` with the skips of the C kernel."""
    mult, add = getattr(binary, sr.mult), getattr(binary, sr.add)
    if a != t(sr.times_ident(t)):
        s = s.apply(mult, right=a).new()
    if b != t(sr.times_null(t)):
        s = s.ewise_add(y_old.apply(mult, left=b).new(), add).new()
    return s


# ----------------------------------------------------------------------------- SSSP / widest path


def _check_algorithm(handle: Any, descrG: Any) -> nvgraphGraphDescr_t:
    """Handle, non-empty descriptor with data sets."""
    check_handle(handle)
    d = check_descr(descrG)
    check_values(d)
    return d


def _path_setup(handle: Any, descrG: Any, weight_index: Any, source_vert: Any, result_index: Any,
                function: str) -> tuple[nvgraphGraphDescr_t, Any, int, int, int]:
    """Validation shared by Sssp and WidestPath: (descr, dtype, weight set, source, result set)."""
    d = _check_algorithm(handle, descrG)
    check_topology(d, c.NVGRAPH_CSC_32, function)
    w = check_index(weight_index, d.edge_sets, "weight_index")
    r = check_index(result_index, d.vertex_sets, "result index")
    # The C code does not range-check the source (memory corruption); we return INVALID_VALUE.
    s = vertex_pointer(source_vert, d.nvertices)
    t = c.NUMPY_TYPES[value_type_of(d, c.FLOAT_TYPES, c.NVGRAPH_STATUS_TYPE_NOT_SUPPORTED, function)]
    return d, t, w, s, r


def _relax(d: nvgraphGraphDescr_t, t: Any, w: int, x: Vector, sr: _SR, max_iter: int) -> tuple[Vector, bool]:
    """nvGRAPH's Jacobi sweeps ``y = x ⊕ (A_in ⊕.⊗ x)`` until ``||x - y||_2 < 1e-6``.

    This loop lives here rather than in ``grblas_gpu.algorithms`` because the C contract fixes
    details the algorithms do not promise: FLT_MAX/DBL_MAX sentinels with real float arithmetic,
    the L2 stopping rule, the iteration cap (nnz for SSSP) and NOT_CONVERGED when it is hit.
    """
    A = graph_matrix(d, d.edge_sets[w], pull=True, dup_op=getattr(binary, sr.add))
    op, add = getattr(semiring, sr.semiring), getattr(binary, sr.add)
    for _ in range(max_iter):
        y = x.dup()
        y(add) << A.mxv(x, op)
        if _l2_diff(x, y) < CONVERGENCE_TOL:
            return y, True
        x = y
    return x, False


def _path(handle: Any, descrG: Any, weight_index: Any, source_vert: Any, result_index: Any, SR: int,
          function: str, init: Callable[[Any], tuple[float, float]], max_iter: Callable[[Any], int]) -> int:
    """Shared body of Sssp and WidestPath."""
    d, t, w, s, r = _path_setup(handle, descrG, weight_index, source_vert, result_index, function)
    source_value, other_value = init(t)
    x = _full(other_value, d.nvertices, t, d.backend)
    x[s] = t(source_value)
    x, converged = _relax(d, t, w, x, _SEMIRINGS[SR], max_iter(d))
    d.vertex_sets[r] = _dense(x, d.xp).astype(t)
    if not converged:
        raise NvgraphError(c.NVGRAPH_STATUS_NOT_CONVERGED, f"{function} hit its iteration limit "
                           "(negative cycle, or a shortest path of nnz hops); the last iterate was written")
    return c.NVGRAPH_STATUS_SUCCESS


def nvgraphSssp(handle: nvgraphHandle_t, descrG: nvgraphGraphDescr_t, weight_index: int, source_vert: Any,
                sssp_index: int) -> int:
    """Shortest-path distances from ``source_vert`` (CSC graph); unreachable = FLT_MAX / DBL_MAX.

    Bellman-Ford with at most nnz sweeps; NOT_CONVERGED (result written) otherwise.
    """
    return _path(handle, descrG, weight_index, source_vert, sssp_index, c.NVGRAPH_MIN_PLUS_SR, "nvgraphSssp",
                 lambda t: (0.0, _big(t)), lambda d: d.nedges)


def nvgraphWidestPath(handle: nvgraphHandle_t, descrG: nvgraphGraphDescr_t, weight_index: int,
                      source_vert: Any, widest_path_index: int) -> int:
    """Widest (bottleneck) path values from ``source_vert`` (CSC graph).

    The source gets FLT_MAX / DBL_MAX, unreachable vertices -FLT_MAX / -DBL_MAX (at most 100000 sweeps).
    """
    return _path(handle, descrG, weight_index, source_vert, widest_path_index, c.NVGRAPH_MAX_MIN_SR,
                 "nvgraphWidestPath", lambda t: (_big(t), -_big(t)), lambda d: 100000)


# ----------------------------------------------------------------------------- PageRank


def _pagerank_params(d: nvgraphGraphDescr_t, weight_index: Any, alpha: Any, bookmark_index: Any,
                     has_guess: Any, pagerank_index: Any, tolerance: float,
                     max_iter: int) -> tuple[Any, Any, int, int, int, float, int]:
    """nvgraph.cu's PageRank checks, in its order: (dtype, alpha, w, bookmark, result, tol, max_iter)."""
    require(alpha is not None, "alpha is NULL")
    check_values(d)
    check_topology(d, c.NVGRAPH_CSC_32, "nvgraphPagerank")
    require(has_guess in (0, 1), f"has_guess must be 0 or 1, got {has_guess!r}")
    max_iter = integer(max_iter, "max_iter", -(2**31), 2**31)  # a C int
    max_iter = 500 if max_iter <= 0 else max_iter
    require(isinstance(tolerance, (numbers.Real, np.floating, np.integer)) and not isinstance(tolerance, bool),
            f"tolerance must be a number, got {tolerance!r}")
    tol = float(np.float32(tolerance))
    require(0.0 <= tol < 1.0, f"tolerance {tolerance!r} must be in [0, 1)")  # (NaN fails too)
    tol = 1e-6 if tol == 0.0 else tol
    t = c.NUMPY_TYPES[value_type_of(d, c.FLOAT_TYPES, c.NVGRAPH_STATUS_TYPE_NOT_SUPPORTED, "nvgraphPagerank")]
    a = _pointer_value(alpha, t, "alpha")
    require(0 < a < 1, f"alpha {a} must be in (0, 1)")
    w = check_index(weight_index, d.edge_sets, "weight_index")
    bm = check_index(bookmark_index, d.vertex_sets, "bookmark_index")
    pr = check_index(pagerank_index, d.vertex_sets, "pagerank_index")
    require(0.0001 <= a <= 0.999, f"alpha {a} must be in [0.0001, 0.999]")
    return t, a, w, bm, pr, tol, max_iter


def nvgraphPagerank(handle: nvgraphHandle_t, descrG: nvgraphGraphDescr_t, weight_index: int, alpha: Any,
                    bookmark_index: int, has_guess: int, pagerank_index: int, tolerance: float,
                    max_iter: int) -> int:
    """PageRank by nvGRAPH's power method on the CSC transition matrix (weights used as given).

    The result (L1-normalised) goes to ``VertexData[pagerank_index]``; without convergence it is
    still written and NvgraphError(NOT_CONVERGED) is raised.
    """
    check_handle(handle)
    d = check_descr(descrG)
    require(isinstance(weight_index, (int, np.integer)) and weight_index < c.INT_MAX, "bad weight_index")
    t, a, w, bm, pr, tol, max_iter = _pagerank_params(d, weight_index, alpha, bookmark_index, has_guess,
                                                     pagerank_index, tolerance, max_iter)
    A = graph_matrix(d, d.edge_sets[w], pull=True, dup_op=binary.plus)
    xp, n = d.xp, d.nvertices
    bookmark = d.vertex_sets[bm]
    teleport = Vector.from_dense(xp.where(bookmark == 0, t(1) - a, bookmark).astype(t), backend=d.backend)
    guess = d.vertex_sets[pr] if has_guess else xp.full(n, 1.0 / n, dtype=t)
    x = Vector.from_dense(guess.astype(t), backend=d.backend)
    x, converged = _power_method(A, x, teleport, a, t, tol, max_iter)
    total = x.reduce(monoid.plus).new().value
    d.vertex_sets[pr] = (_dense(x, xp) / t(total)).astype(t)
    if not converged:
        raise NvgraphError(c.NVGRAPH_STATUS_NOT_CONVERGED, f"PageRank did not reach tolerance {tol} in "
                           f"{max_iter} iterations; the last iterate was written")
    return c.NVGRAPH_STATUS_SUCCESS


def _normalize_l2(x: Vector, t: Any) -> Vector:
    """``x / ||x||_2``."""
    nrm = float(np.sqrt(x.ewise_mult(x, binary.times).new().reduce(monoid.plus).new().value))
    return x.apply(binary.truediv, right=t(nrm)).new()


def _power_method(A: Any, x: Vector, teleport: Vector, alpha: Any, t: Any, tol: float,
                  max_iter: int) -> tuple[Vector, bool]:
    """pagerank.cu's iteration, kept here because it differs from ``algorithms.pagerank``.

    nvGRAPH does not renormalise the weights, normalises iterates in L2 (not L1), folds
    teleport and dangling mass into one rank-1 term ``(a . x) / n`` with the bookmark-derived
    vector ``a``, and stops on the L2 norm of the difference of L2-normalised iterates.
    """
    n = x.size
    x = _normalize_l2(x, t)
    for _ in range(max_iter):
        p = _full(0.0, n, t, x.backend)
        p(binary.plus) << A.mxv(x, semiring.plus_times)
        rank1 = teleport.ewise_mult(x, binary.times).new().reduce(monoid.plus).new().value
        p = p.apply(binary.times, right=alpha).new().apply(binary.plus, right=t(rank1 / n)).new()
        p = _normalize_l2(p, t)
        if _l2_diff(x, p) < tol:
            return p, True
        x = p
    return x, False


# ----------------------------------------------------------------------------- traversal (BFS)


@dataclass
class nvgraphTraversalParameter_t:
    """Traversal parameters (the C struct of ``size_t pad[128]``), set by the functions below."""

    distances_index: int = c.INT_MAX
    predecessors_index: int = c.INT_MAX
    edge_mask_index: int = c.INT_MAX
    undirected: int = 0
    alpha: int = 15
    beta: int = 18


def nvgraphTraversalParameterInit(param: nvgraphTraversalParameter_t | None = None) -> nvgraphTraversalParameter_t:
    """Reset ``param`` (or a new struct) to the defaults: indices unset (INT_MAX), alpha 15, beta 18."""
    if param is None:
        return nvgraphTraversalParameter_t()
    param.__init__()  # type: ignore[misc]
    return param


def _traversal_setter(name: str) -> Callable[..., int]:
    """``nvgraphTraversalSet<Name>(param, value)``."""
    def setter(param: nvgraphTraversalParameter_t, value: int) -> int:
        require(isinstance(param, nvgraphTraversalParameter_t), "param is NULL")
        setattr(param, name, int(value))
        return c.NVGRAPH_STATUS_SUCCESS
    setter.__doc__ = f"Set the traversal parameter ``{name}``."
    return setter


def _traversal_getter(name: str) -> Callable[..., int]:
    """``nvgraphTraversalGet<Name>(param) -> value``."""
    def getter(param: nvgraphTraversalParameter_t) -> int:
        require(isinstance(param, nvgraphTraversalParameter_t), "param is NULL")
        return int(getattr(param, name))
    getter.__doc__ = f"The traversal parameter ``{name}``."
    return getter


nvgraphTraversalSetDistancesIndex = _traversal_setter("distances_index")
nvgraphTraversalGetDistancesIndex = _traversal_getter("distances_index")
nvgraphTraversalSetPredecessorsIndex = _traversal_setter("predecessors_index")
nvgraphTraversalGetPredecessorsIndex = _traversal_getter("predecessors_index")
nvgraphTraversalSetEdgeMaskIndex = _traversal_setter("edge_mask_index")
nvgraphTraversalGetEdgeMaskIndex = _traversal_getter("edge_mask_index")
nvgraphTraversalSetUndirectedFlag = _traversal_setter("undirected")
nvgraphTraversalGetUndirectedFlag = _traversal_getter("undirected")
nvgraphTraversalSetAlpha = _traversal_setter("alpha")
nvgraphTraversalGetAlpha = _traversal_getter("alpha")
nvgraphTraversalSetBeta = _traversal_setter("beta")
nvgraphTraversalGetBeta = _traversal_getter("beta")


def _optional_index(index: int, sets: list[Any], what: str) -> int | None:
    """None for an unset (INT_MAX) traversal index, else a checked set index (``<``, not ``<=``)."""
    return None if index == c.INT_MAX else check_index(index, sets, what)


def nvgraphTraversal(handle: nvgraphHandle_t, descrG: nvgraphGraphDescr_t, traversalT: int, source_vert: Any,
                     params: nvgraphTraversalParameter_t) -> int:
    """BFS from ``source_vert`` on a CSR graph with CUDA_R_32I data (``grblas_gpu.algorithms.bfs_*``).

    Distances are hop counts (INT_MAX unreachable); predecessors a BFS parent (-1 for the source
    and unreachable vertices); an edge mask set keeps the edges whose value is not 0.
    """
    d = _check_algorithm(handle, descrG)
    check_topology(d, c.NVGRAPH_CSR_32, "nvgraphTraversal")
    require(traversalT == c.NVGRAPH_TRAVERSAL_BFS, f"unknown traversal {traversalT!r}")
    require(isinstance(params, nvgraphTraversalParameter_t), "params is NULL")
    value_type_of(d, (c.CUDA_R_32I,), c.NVGRAPH_STATUS_TYPE_NOT_SUPPORTED, "nvgraphTraversal")
    s = vertex_pointer(source_vert, d.nvertices)
    dist = _optional_index(params.distances_index, d.vertex_sets, "distances index")
    pred = _optional_index(params.predecessors_index, d.vertex_sets, "predecessors index")
    mask = _optional_index(params.edge_mask_index, d.edge_sets, "edge mask index")
    A = _bfs_matrix(d, mask)
    if dist is not None:
        d.vertex_sets[dist] = _bfs_distances(A, s, d)
    if pred is not None:
        d.vertex_sets[pred] = _bfs_predecessors(A, s, d)
    return c.NVGRAPH_STATUS_SUCCESS


def _bfs_matrix(d: nvgraphGraphDescr_t, mask: int | None) -> Any:
    """The structure of the CSR graph (edges with mask value 0 dropped) as a BOOL Matrix."""
    usable = d.xp.ones(d.nedges, dtype=bool) if mask is None else d.edge_sets[mask] != 0
    A = graph_matrix(d, usable, pull=False, dup_op=binary.lor)
    return A if mask is None else A.select("valueeq", True).new()


def _bfs_distances(A: Any, s: int, d: nvgraphGraphDescr_t) -> Any:
    """Hop counts from ``s``; INT_MAX where unreachable."""
    from grblas_gpu import algorithms

    levels = algorithms.bfs_levels(A, s)
    out = levels.to_dense(fill_value=c.INT_MAX).astype(np.int64)
    reached = out != c.INT_MAX
    out[reached] -= out[s]  # levels counted from 0 at the source, whatever base the algorithm uses
    return d.xp.asarray(out.astype(np.int32))


def _bfs_predecessors(A: Any, s: int, d: nvgraphGraphDescr_t) -> Any:
    """A BFS parent of each vertex; -1 for the source and unreachable vertices."""
    from grblas_gpu import algorithms

    parents = algorithms.bfs_parents(A, s)
    out = parents.to_dense(fill_value=-1).astype(np.int32)
    out[s] = -1
    return d.xp.asarray(out)


# ----------------------------------------------------------------------------- triangles


def nvgraphTriangleCount(handle: nvgraphHandle_t, descrG: nvgraphGraphDescr_t) -> int:
    """Triangles of the undirected graph given as one triangle of its adjacency (CSR or CSC).

    Returns the count (the C ``uint64_t *result``).  A graph with data sets allocated is
    rejected with INVALID_VALUE, as the released library did.
    """
    check_handle(handle)
    d = check_descr(descrG)
    require(d.state == 1, "nvgraphTriangleCount rejects graphs with allocated data sets (HAS_VALUES)")
    from grblas_gpu import algorithms

    L = graph_matrix(d, d.xp.ones(d.nedges, dtype=np.float64), pull=False, dup_op=binary.any)
    L = L.select("offdiag").new()
    A = L.ewise_add(L.T, binary.any).new()
    return int(algorithms.triangle_count(A))


__all__ = [
    "nvgraphSrSpmv", "nvgraphSssp", "nvgraphWidestPath", "nvgraphPagerank", "nvgraphTraversal",
    "nvgraphTraversalParameter_t", "nvgraphTraversalParameterInit", "nvgraphTriangleCount",
    "nvgraphTraversalSetDistancesIndex", "nvgraphTraversalGetDistancesIndex",
    "nvgraphTraversalSetPredecessorsIndex", "nvgraphTraversalGetPredecessorsIndex",
    "nvgraphTraversalSetEdgeMaskIndex", "nvgraphTraversalGetEdgeMaskIndex",
    "nvgraphTraversalSetUndirectedFlag", "nvgraphTraversalGetUndirectedFlag",
    "nvgraphTraversalSetAlpha", "nvgraphTraversalGetAlpha", "nvgraphTraversalSetBeta", "nvgraphTraversalGetBeta",
]
