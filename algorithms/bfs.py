"""Breadth-first search: levels and parents, one masked vector-matrix product per level."""

from __future__ import annotations

import functools

from grblas_gpu import INT64, Matrix, Vector, binary, monoid, semiring
from grblas_gpu.dask.spmd import spmd
from grblas_gpu.loops import frontier_loop
from grblas_gpu.operators import TypedSemiring
from grblas_gpu.progress import tick

from ._checks import check_numeric, check_source, check_square, check_vertex_memory

__all__ = ["bfs_levels", "bfs_parents"]


@functools.cache
def next_level() -> TypedSemiring:
    """The semiring ``any`` over ``x + 1`` on INT64 (made on first use): a product term is the
    frontier vertex's level plus one, and any one term will do.  It never reads the
    matrix's values."""
    plus_one = binary.register_anonymous(lambda x, y: x + 1, "first_plus_one")
    return semiring.register_anonymous(monoid.any, plus_one, "any_first_plus_one")[INT64]


@spmd
def bfs_levels(A: Matrix, source: int) -> Vector:
    """Hop count from ``source`` to every reachable vertex (INT64; the source has 0).

    Math: the frontier ``q`` (the vertices first reached at the last level, holding their
    level) gives the next one as ``q' A`` over the semiring (any, x + 1), written where
    ``levels`` has no entry yet: ``levels(~levels.S, changed=q) << q' A``.  Each newly
    reached vertex gets a frontier vertex's level plus one, and ``changed=`` (an extension
    of the GraphBLAS API) makes them the next frontier, so a level is one statement.
    The algebra chooses push (sparse frontier) or pull (dense frontier, early exit per
    vertex under the complemented mask) from the frontier's density.

    Vertices that cannot be reached have no entry.  ``A[i, j]`` is the edge i -> j;
    its values are ignored.

    Reference: Kepner and Gilbert, *Graph Algorithms in the Language of Linear
    Algebra*, SIAM 2011, ch. 2; C. Yang, A. Buluc, J. Owens, "Implementing
    push-pull efficiently in GraphBLAS", ICPP 2018.
    """
    check_square(A, "bfs_levels")
    source = check_source(A, source, "bfs_levels")
    check_numeric(A, "bfs_levels")
    check_vertex_memory(A, "bfs", 27)
    levels = Vector.from_coo([source], [0], size=A.nrows, dtype=INT64, backend=A.backend)
    frontier = levels.dup()
    for _ in frontier_loop(frontier, A):  # on the GPU, levels replayed on the device
        tick("bfs_levels")
        levels(~levels.S, changed=frontier) << frontier.vxm(A, next_level())
    return levels


@spmd
def bfs_parents(A: Matrix, source: int) -> Vector:
    """A BFS parent for every reachable vertex (INT64; the source is its own parent).

    Math: as in :func:`bfs_levels`, but the product ``q' A`` over ``any_secondi``
    gives, for each newly reached vertex ``j``, the row index ``k`` of one term
    ``q[k] * A[k, j]``: a frontier vertex with an edge to ``j``, i.e. a valid
    parent (``secondi`` returns the row index of the matrix entry).  The mask
    ``NOT parents`` keeps only vertices not reached before, and ``changed=`` makes
    them the next frontier.  Which parent is returned when several qualify is up to
    the algebra (``any`` monoid).

    Vertices that cannot be reached have no entry.

    Reference: Yang, Buluc, Owens, "Implementing push-pull efficiently in
    GraphBLAS", ICPP 2018; LAGraph ``LAGr_BreadthFirstSearch``.
    """
    check_square(A, "bfs_parents")
    source = check_source(A, source, "bfs_parents")
    check_numeric(A, "bfs_parents")
    check_vertex_memory(A, "bfs", 27)
    parents = Vector.from_coo([source], [source], size=A.nrows, dtype=INT64, backend=A.backend)
    frontier = parents.dup()
    for _ in frontier_loop(frontier, A):
        tick("bfs_parents")
        parents(~parents.S, changed=frontier) << frontier.vxm(A, semiring.any_secondi[INT64])
    return parents
