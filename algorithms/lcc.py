"""Local clustering coefficient, as defined by LDBC Graphalytics."""

from __future__ import annotations

from grblas_gpu import FP64, INT64, Matrix, Vector, binary, monoid, semiring, unary

from ._checks import check_numeric, check_square, check_vertex_memory

__all__ = ["local_clustering_coefficient"]


def local_clustering_coefficient(A: Matrix, directed: bool | None = None) -> Vector:
    """The local clustering coefficient of every vertex (FP64, an entry for each vertex).

    ``A[u, w]`` present means the edge ``u -> w``; values and self-loops are ignored.
    With ``E`` the pattern of ``A`` without its diagonal and ``S = E | E'``, the
    neighbours of ``v`` are ``N(v) = in(v) | out(v)`` (row ``v`` of ``S``) and
    ``d(v) = |N(v)|``.  Graphalytics defines::

        LCC(v) = #{directed edges (u, w) of E : u, w in N(v)} / (d(v) (d(v) - 1)),
        LCC(v) = 0 when d(v) < 2.

    The numerator is ``sum_w S(v, u) E(u, w) S(w, v)``: the product ``S E`` over the
    ``plus_pair`` semiring, kept only where ``S`` has an entry (a masked mxm), then
    summed along each row.

    ``directed``: ``None`` or ``True`` use ``A`` as given; ``False`` first makes it
    undirected (``E := S``).  No symmetry test is needed: for a symmetric ``A`` (an
    undirected graph stored both ways) every edge between two neighbours is counted
    in both directions, which is the undirected coefficient ``2 t(v) / (d(v)(d(v)-1))``,
    so all three settings agree.

    Reference: LDBC Graphalytics benchmark specification (Iosup et al., "The LDBC
    Graphalytics Benchmark", arXiv:2011.15028), section "Local Clustering Coefficient".
    """
    check_square(A, "local_clustering_coefficient")
    check_numeric(A, "local_clustering_coefficient")
    check_vertex_memory(A, "local_clustering_coefficient", 27)
    n = A.nrows
    E = A.select("offdiag").new().apply(unary.one).new(dtype=INT64)
    S = E if E.is_symmetric else E.ewise_add(E.T, binary.first).new()
    S.is_symmetric = True  # E | E' is, by construction
    if directed is False:
        E = S
    # among[v, w]: neighbours u of v with an edge u -> w, kept only where w is a neighbour of v.
    among = S.mxm(E, semiring.plus_pair).new(mask=S.S)
    edges_among_neighbours = among.reduce_rowwise(monoid.plus).new()
    degree = S.reduce_rowwise(monoid.plus).new(dtype=FP64)
    pairs = degree.ewise_mult(degree.apply(binary.minus, right=1.0).new(), binary.times).new()
    backend = A.backend
    lcc = Vector.from_scalar(0.0, n, dtype=FP64, backend=backend)
    # An entry in the numerator implies d(v) >= 2, so the division never meets a zero.
    lcc(binary.plus) << edges_among_neighbours.ewise_mult(pairs, binary.truediv)
    return lcc
