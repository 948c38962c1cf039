"""Single-source widest (bottleneck) paths over the (max, min) semiring."""

from __future__ import annotations

from grblas_gpu import FP64, Matrix, Vector, binary, select, semiring
from grblas_gpu.dask.spmd import spmd
from grblas_gpu.loops import frontier_loop
from grblas_gpu.progress import tick

from ._checks import check_no_nan, check_numeric, check_source, check_square, check_vertex_memory

__all__ = ["widest_path"]


@spmd
def widest_path(A: Matrix, source: int) -> Vector:
    """Bottleneck widths from ``source``; ``A[i, j]`` is the capacity of edge i -> j.

    Math: the width of a path is its smallest edge capacity; ``w[v]`` is the
    largest width over all paths source -> v.  It is the greatest solution of
    ``w = e_source (max) w' A`` over the semiring (max, min), where
    ``(w' A)[j] = max_k min(w[k], A[k, j])``, with ``w[source] = +inf`` (the
    empty path is unlimited).  As in Bellman-Ford, only the frontier (vertices
    whose width grew last round) is multiplied; a round is one statement, as in
    :func:`~grblas_gpu.algorithms.sssp`.  Widths only grow and every optimum is
    reached by a simple path, so at most n-1 rounds change anything.

    Semiring: ``max_min``.  Returns an FP64 Vector: the source holds ``+inf``,
    vertices that cannot be reached have no entry.  BOOL matrices and NaN capacities
    are refused.

    Reference: M. Pollack, "The maximum capacity through a network",
    Operations Research 8 (1960); Kepner and Gilbert, *Graph Algorithms in the
    Language of Linear Algebra*, SIAM 2011 (semiring path problems).
    """
    check_square(A, "widest_path")
    source = check_source(A, source, "widest_path")
    check_numeric(A, "widest_path", allow_bool=False)
    check_vertex_memory(A, "widest_path", 27)
    check_no_nan(A, "widest_path")
    n, inf = A.nrows, float("inf")
    frontier = Vector.from_coo([source], [inf], size=n, dtype=FP64, backend=A.backend)
    width = Vector.from_scalar(-inf, n, FP64, backend=A.backend)  # -inf: no path yet, so it changes nothing
    width(binary.max) << frontier
    for _ in frontier_loop(frontier, A, limit=n):
        tick("widest_path", n)
        # Paths one edge longer than the last frontier's: width keeps the wider, and the
        # vertices whose width grew are the next frontier.
        width(binary.max, changed=frontier) << frontier.vxm(A, semiring.max_min[FP64])
    return width.select(select.valuegt, -inf).new()
