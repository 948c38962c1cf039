"""Triangles and clustering with networkx's definitions, as masked matrix products.

With ``E`` the pattern without self-loops (values 1, or ``cbrt(w / max w)`` when weighted)
and ``B = E`` for an undirected graph, ``B = E + E'`` for a directed one, networkx's
(doubled, or directed) triangle count of every node is::

    T(i) = sum_j B[i, j] (B B)[i, j]        = rowsum( (B plus.times B)<B> .* B )

For an undirected graph ``T(i)`` is twice the triangles at ``i`` (each triangle seen from
both of its other corners); for a directed one it is the sum over the four orientations
that networkx's ``_directed_triangles_and_degree_iter`` counts; weighted, each triangle's
term is the cube root of the product of its three normalised weights (``cbrt`` of each
factor).  The library's ``triangle_count`` gives only a total, so the per-node count is
composed here from the same algebra.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grblas_gpu import FP64, INT64, Matrix, binary, monoid, semiring, unary

from .graph import GrblasGraph

__all__ = ["triangles", "clustering", "average_clustering", "transitivity"]


def _offdiag_ones(G: GrblasGraph) -> Matrix:
    """INT64 ones on the pattern without self-loops."""
    return G.memo("offdiag ones", lambda: G.unit_weights().select("offdiag").new())


def _rowsum(M: Matrix, n: int, dtype: Any) -> np.ndarray:
    return M.reduce_rowwise(monoid.plus).new(dtype=dtype).to_dense(0)


def _corner_terms(B: Matrix, dtype: Any) -> np.ndarray:
    """``rowsum((B B)<B> .* B)`` for every node, as a dense array."""
    paths = B.mxm(B, semiring.plus_times).new(mask=B.S)
    return _rowsum(paths.ewise_mult(B, binary.times).new(), B.nrows, dtype)


def _undirected_counts(G: GrblasGraph) -> tuple[np.ndarray, np.ndarray]:
    """Twice the triangles at every node, and its degree without self-loops."""
    E = _offdiag_ones(G)
    return _corner_terms(E, INT64), _rowsum(E, len(G), INT64)


def _normalised_cbrt(G: GrblasGraph, weight: str) -> Matrix:
    """``cbrt(w / max w)`` without self-loops (``max w`` over every edge, 1 for no edges)."""
    W = G.weights(weight, combine="plus")
    top = W.reduce_scalar(monoid.max).new().value if W.nvals else 1
    scaled = W.select("offdiag").new().apply(binary.truediv, right=float(top)).new(dtype=FP64)
    return scaled.apply(unary.cbrt).new()


def _clustering_values(G: GrblasGraph, weight: str | None) -> list:
    """networkx's clustering of every node, in node order (0 where there is no triangle)."""
    if G.is_directed():
        E = _offdiag_ones(G)
        V = E if weight is None else _normalised_cbrt(G, weight)
        T = _corner_terms(V.ewise_add(V.T, binary.plus).new(), INT64 if weight is None else FP64)
        total = _rowsum(E, len(G), INT64) + E.reduce_columnwise(monoid.plus).new().to_dense(0)
        both_ways = _rowsum(E.ewise_mult(E.T, binary.times).new(), len(G), INT64)
        denominator = (total * (total - 1) - 2 * both_ways) * 2
    else:
        if weight is None:
            T, degree = _undirected_counts(G)
        else:
            T = _corner_terms(_normalised_cbrt(G, weight), FP64)
            degree = _rowsum(_offdiag_ones(G), len(G), INT64)
        denominator = degree * (degree - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = T / denominator
    return [0 if t == 0 else c for t, c in zip(T.tolist(), ratio.tolist())]


def _nbunch(G: GrblasGraph, nodes: Any) -> list:
    """The nodes of the container ``nodes`` that are in G, as ``G.nbunch_iter`` yields them."""
    import networkx as nx

    try:
        return [v for v in nodes if v in G]
    except TypeError as exc:
        raise nx.NetworkXError("nbunch is not a node or a sequence of nodes.") from exc


def _restrict(G: GrblasGraph, values: list, nodes: Any) -> Any:
    """networkx's shape of a per-node answer: the value for a single node, a dict otherwise."""
    if nodes is None:
        return dict(zip(G.nodes, values))
    if nodes in G:
        return values[G.index[nodes]]
    return {v: values[G.index[v]] for v in _nbunch(G, nodes)}


def triangles(G: GrblasGraph, nodes: Any = None) -> Any:
    """networkx ``triangles``: triangles at each node (self-loops ignored)."""
    doubled, _ = _undirected_counts(G)
    return _restrict(G, (doubled // 2).tolist(), nodes)


def clustering(G: GrblasGraph, nodes: Any = None, weight: str | None = None) -> Any:
    """networkx ``clustering``: directed or undirected, weighted (geometric mean) or not."""
    return _restrict(G, _clustering_values(G, weight), nodes)


def average_clustering(G: GrblasGraph, nodes: Any = None, weight: str | None = None,
                       count_zeros: bool = True) -> float:
    """networkx ``average_clustering``."""
    c = clustering(G, nodes, weight=weight).values()
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)


def transitivity(G: GrblasGraph) -> float:
    """networkx ``transitivity``: 3 triangles / connected triples (0 without triangles)."""
    doubled, degree = _undirected_counts(G)
    if len(G) == 0:
        return 0
    found = int(doubled.sum())
    return 0 if found == 0 else found / int((degree * (degree - 1)).sum())
