"""The k-truss: edges on at least k - 2 triangles, by repeated masked products."""

from __future__ import annotations

from grblas_gpu import INT64, Matrix, binary, semiring, unary
from grblas_gpu.exceptions import InvalidValue
from grblas_gpu.progress import tick

from ._checks import check_count, check_numeric, check_square

__all__ = ["k_truss"]


def k_truss(A: Matrix, k: int) -> Matrix:
    """The k-truss of the undirected graph of ``A`` (INT64, symmetric): the largest subgraph
    whose every edge lies on at least ``k - 2`` of its triangles.

    The value at ``(i, j)`` is the support of the edge in the k-truss: how many triangles
    of the k-truss hold it.  The graph is the pattern of ``A | A'`` without its diagonal,
    ``C`` (direction, values and self-loops are ignored; each edge is stored both ways).
    The support of edge ``(i, j)`` counts the common neighbours of ``i`` and ``j``, the
    product ``C C`` over ``plus_pair`` kept where ``C`` has an entry; edges with too
    little support go, which can lower the support of others, so repeat until none goes::

        C<C.S> = C plus.pair C          (masked: one dot product C(i, :) . C(:, j) an edge)
        C = select(C >= k - 2)

    Each product is masked by the current edges, so its work is bounded by them (the
    planner runs it as dot products or as a masked Gustavson product, whichever it
    estimates cheaper; ``C`` is symmetric, so no transpose is built).  An edge on no
    triangle has no entry in the product, so for ``k >= 3`` it goes at once; ``k = 2``
    keeps the whole graph (supports of zero included).  Vertices left without an edge
    simply have empty rows (networkx removes them from its graph).

    Reference: J. Cohen, "Trusses: Cohesive subgraphs for social network analysis",
    NSA technical report (2008) (networkx.k_truss uses the same ``k - 2``); LAGraph's
    ``LAGraph_KTruss`` (T. Davis) for the masked-product loop; GraphChallenge
    (Samsi et al., IEEE HPEC 2017).
    """
    check_square(A, "k_truss")
    check_numeric(A, "k_truss")
    k = check_count(k, "k", "k_truss")
    if k < 2:
        raise InvalidValue(f"k_truss: k must be >= 2, got {k}")
    C = A.select("offdiag").new().apply(unary.one).new(dtype=INT64)
    if not C.is_symmetric:
        C = C.ewise_add(C.T, binary.first).new()
    support = semiring.plus_pair[INT64]
    if k == 2:  # nothing goes; an edge on no triangle keeps a support of 0
        C.is_symmetric = True
        supports = C.apply(binary.times, right=0).new()
        supports(binary.plus) << C.mxm(C, support).new(mask=C.S)
        supports.is_symmetric = True
        return supports
    edges = C.nvals
    while True:
        tick("k_truss")
        C.is_symmetric = True  # supports of a symmetric graph are symmetric
        C = C.mxm(C, support).new(mask=C.S).select("valuege", k - 2).new()
        if C.nvals == edges:
            C.is_symmetric = True
            return C
        edges = C.nvals
