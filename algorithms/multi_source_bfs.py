"""Breadth-first search from many sources at once: one masked matrix product a level."""

from __future__ import annotations

from collections.abc import Sequence

from grblas_gpu import INT64, Matrix, binary, semiring
from grblas_gpu.progress import tick

from ._checks import check_count, check_numeric, check_source, check_square, check_vertex_memory

__all__ = ["multi_source_bfs"]


def multi_source_bfs(A: Matrix, sources: Sequence[int], cutoff: int | None = None) -> Matrix:
    """Hop counts from each source (INT64, ``len(sources) x n``): ``levels[k, v]`` is the
    length of a shortest path ``sources[k] -> v``, 0 at the source; no entry where ``v``
    cannot be reached (or lies beyond ``cutoff`` hops).

    Row ``k`` of the frontier matrix ``F`` holds the vertices that source ``k`` reached
    first at the last level.  The next level ``d`` is one product for all sources,
    written only where no level is known yet::

        F<!levels, replace> = F any.pair A      (masked Gustavson: the complemented mask
                                                 filters inside each row's accumulator)
        levels += d at the entries of F

    (``any.pair``: any term will do and no value is read, of ``F`` or of ``A``).  The
    search stops when no row of ``F`` has an entry, or after ``cutoff`` levels.  Each level's work is the edges out of the
    frontiers, so all levels together read each source's reachable edges once.

    ``A[u, w]`` is the edge ``u -> w``; a symmetric ``A`` is an undirected graph.  A
    repeated source gets its own (equal) row.  ``cutoff`` is networkx's: the largest
    level kept (``None``: no limit).

    Reference: networkx.single_source_shortest_path_length, one source at a time; the
    batched frontier matrix is the forward phase of batched Brandes betweenness (the
    GraphBLAS C API specification's example, LAGraph's ``LAGr_Betweenness``) and of
    A. Buluç, K. Madduri, "Parallel breadth-first search on distributed memory systems",
    SC 2011 (multi-source BFS as sparse matrix-matrix products).
    """
    check_square(A, "multi_source_bfs")
    check_numeric(A, "multi_source_bfs")
    check_vertex_memory(A, "multi_source_bfs", 16)
    sources = [check_source(A, s, "multi_source_bfs") for s in sources]
    if cutoff is not None:
        cutoff = check_count(cutoff, "cutoff", "multi_source_bfs")
    ns = len(sources)
    levels = Matrix.from_coo(range(ns), sources, 0, nrows=ns, ncols=A.nrows, dtype=INT64, backend=A.backend)
    frontier = levels.dup()
    depth = 0
    while frontier.nvals and (cutoff is None or depth < cutoff):
        tick("multi_source_bfs")
        depth += 1
        frontier(~levels.S, replace=True) << frontier.mxm(A, semiring.any_pair)
        levels(binary.plus) << frontier.apply(binary.second, right=depth)  # new positions only
    return levels
