"""Breadth-first search: levels and parents, one masked vector-matrix product per level."""

from __future__ import annotations

from grblas_gpu import BOOL, INT64, Matrix, Vector, semiring

from ._checks import check_numeric, check_source, check_square

__all__ = ["bfs_levels", "bfs_parents"]


def bfs_levels(A: Matrix, source: int) -> Vector:
    """Hop count from ``source`` to every reachable vertex (INT64; the source has 0).

    Math: the frontier ``q`` (vertices first reached at level ``d``) gives the next
    one as ``q' A`` restricted to the vertices with no level yet:
    ``q <- (q' A) masked by NOT levels, replacing q``.  Only the structure of the
    product matters, so the semiring is ``any_pair`` (any one term, each term 1),
    over BOOL: the product is then of the frontier's type, with no cast to write it.
    The algebra chooses push (sparse frontier) or pull (dense frontier, early exit
    per vertex under the complemented mask) from the frontier's density.

    Vertices that cannot be reached have no entry.  ``A[i, j]`` is the edge i -> j;
    its values are ignored.

    Reference: Kepner and Gilbert, *Graph Algorithms in the Language of Linear
    Algebra*, SIAM 2011, ch. 2; C. Yang, A. Buluc, J. Owens, "Implementing
    push-pull efficiently in GraphBLAS", ICPP 2018.
    """
    check_square(A, "bfs_levels")
    source = check_source(A, source, "bfs_levels")
    check_numeric(A, "bfs_levels")
    n = A.nrows
    levels = Vector(INT64, n, backend=A.backend)
    frontier = Vector.from_coo([source], [True], size=n, dtype=BOOL, backend=A.backend)
    depth = 0
    while frontier.nvals:
        levels(frontier.S) << depth
        depth += 1
        frontier(~levels.S, replace=True) << frontier.vxm(A, semiring.any_pair[BOOL])
    return levels


def bfs_parents(A: Matrix, source: int) -> Vector:
    """A BFS parent for every reachable vertex (INT64; the source is its own parent).

    Math: as in :func:`bfs_levels`, but the product ``q' A`` over ``any_secondi``
    gives, for each newly reached vertex ``j``, the row index ``k`` of one term
    ``q[k] * A[k, j]``: a frontier vertex with an edge to ``j``, i.e. a valid
    parent (``secondi`` returns the row index of the matrix entry).  The mask
    ``NOT parents`` keeps only vertices not reached before.  Which parent is
    returned when several qualify is up to the algebra (``any`` monoid).

    Vertices that cannot be reached have no entry.

    Reference: Yang, Buluc, Owens, "Implementing push-pull efficiently in
    GraphBLAS", ICPP 2018; LAGraph ``LAGr_BreadthFirstSearch``.
    """
    check_square(A, "bfs_parents")
    source = check_source(A, source, "bfs_parents")
    check_numeric(A, "bfs_parents")
    parents = Vector.from_coo([source], [source], size=A.nrows, dtype=INT64, backend=A.backend)
    frontier = parents.dup()
    while frontier.nvals:
        frontier(~parents.S, replace=True) << frontier.vxm(A, semiring.any_secondi)
        parents(frontier.S) << frontier
    return parents
