"""k-core numbers by peeling: remove the vertices of least degree, level by level."""

from __future__ import annotations

from grblas_gpu import INT64, Matrix, Vector, binary, monoid, semiring, unary
from grblas_gpu.progress import tick

from ._checks import check_numeric, check_square, check_vertex_memory

__all__ = ["core_number"]


def core_number(A: Matrix, directed: bool = False) -> Vector:
    """The core number of every vertex (INT64, an entry for each vertex).

    The k-core is the largest subgraph in which every vertex has degree at least ``k``;
    the core number of ``v`` is the largest ``k`` whose k-core holds ``v``.  Peeling
    finds them all: with ``k`` the least degree among the vertices left, remove every
    vertex of degree ``<= k`` (its core number is ``k``), lower its neighbours' degrees,
    and repeat until none is left at ``k``; then raise ``k`` to the new least degree::

        peel = select(degree <= k)              core<peel> = k
        degree = select(degree > k)             (the vertices left)
        degree<degree> -= peel' plus.pair E     (vxm: push from a small peel, else pull)

    ``E`` is the pattern of ``A`` without its diagonal (values and self-loops are
    ignored).  ``directed=False`` (the default) takes the undirected graph of ``A``:
    ``E := E | E'``, each neighbour counted once.  ``directed=True`` is networkx's rule
    for a directed graph: the degree is in-degree + out-degree, and a removed vertex
    lowers its neighbours' degrees once for each edge between them (``peel' E`` for
    its out-edges and ``E peel`` for its in-edges), so a pair linked both ways counts
    twice.  An isolated vertex has core number 0.

    One host round trip a peeling step (the size of ``peel``) and one a level (the
    least degree); the work of the products is bounded by the edges of the vertices
    peeled, so all steps together read each edge once.

    Reference: V. Batagelj, M. Zaversnik, "An O(m) algorithm for cores decomposition
    of networks", arXiv:cs/0310049 (2003) (networkx.core_number); LAGraph's
    ``LAGraph_KCore`` (P. Kaur, T. Davis) for the level-synchronous algebraic form.
    """
    check_square(A, "core_number")
    check_numeric(A, "core_number")
    check_vertex_memory(A, "core_number", 48)
    n = A.nrows
    E = A.select("offdiag").new().apply(unary.one).new(dtype=INT64)
    if not directed and not E.is_symmetric:
        E = E.ewise_add(E.T, binary.first).new()
        E.is_symmetric = True  # E | E' is, by construction
    lose = semiring.plus_pair[INT64]
    degree = Vector.from_scalar(0, n, dtype=INT64, backend=A.backend)
    degree(binary.plus) << E.reduce_rowwise(monoid.plus)
    if directed:
        degree(binary.plus) << E.reduce_columnwise(monoid.plus)
    core = Vector(INT64, n, backend=A.backend)
    k = 0
    while degree.nvals:
        tick("core_number")
        k = max(k, int(degree.reduce(monoid.min).new().value))
        peel = degree.select("valuele", k).new()
        while peel.nvals:
            core(peel.S) << k
            degree = degree.select("valuegt", k).new()
            lost = peel.vxm(E, lose).new(mask=degree.S)
            if directed:
                lost(degree.S, binary.plus) << E.mxv(peel, lose)
            degree(binary.minus) << lost  # only where a vertex is left: the mask above
            peel = degree.select("valuele", k).new()
    return core
