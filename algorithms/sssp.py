"""Single-source shortest paths: Bellman-Ford over the (min, +) semiring."""

from __future__ import annotations

from grblas_gpu import Matrix, Vector, binary, semiring
from grblas_gpu.exceptions import InvalidValue

from ._checks import check_numeric, check_source, check_square

__all__ = ["sssp"]


def sssp(A: Matrix, source: int) -> Vector:
    """Shortest path lengths from ``source``; ``A[i, j]`` is the length of edge i -> j.

    Math: the distances ``d`` are the least solution of
    ``d = e_source (min) d' A`` over the tropical semiring (min, +), where
    ``(d' A)[j] = min_k d[k] + A[k, j]``.  Bellman-Ford applies that product
    repeatedly; here only the *frontier* (vertices whose distance improved in the
    previous round) is multiplied, so each round costs the out-edges of the
    frontier only (the "sparse frontier" Bellman-Ford of GraphBLAST / LAGraph).

    Semiring: ``min_plus``.  Negative edge weights are allowed.  Without a
    negative cycle every shortest path is simple (at most n-1 edges), so after n
    rounds nothing can improve; if the frontier is still non-empty then, a
    negative cycle is reachable and ``InvalidValue`` is raised.

    Returns a Vector of A's type: ``d[v]`` is the distance to ``v``; vertices
    that cannot be reached have no entry.  BOOL matrices are refused (use
    ``A.dup(INT64)`` for unit lengths).

    Reference: R. Bellman, "On a routing problem", Quart. Appl. Math. 16 (1958);
    J. Kepner and J. Gilbert, *Graph Algorithms in the Language of Linear
    Algebra*, SIAM 2011, ch. 3.
    """
    check_square(A, "sssp")
    source = check_source(A, source, "sssp")
    check_numeric(A, "sssp", allow_bool=False)
    n, infinity = A.nrows, A.dtype.max
    dist = Vector.from_coo([source], [0], size=n, dtype=A.dtype, backend=A.backend)
    frontier = dist.dup()
    for _ in range(n):
        if frontier.nvals == 0:
            return dist
        # Paths one edge longer than the last frontier; keep those that are shorter.
        frontier = frontier.vxm(A, semiring.min_plus).new()
        shorter = frontier.ewise_union(dist, binary.lt, infinity, infinity).new()
        frontier(shorter.V, replace=True) << frontier  # drop those that are no better
        dist(binary.min) << frontier
    if frontier.nvals:
        raise InvalidValue("sssp: a negative cycle is reachable from the source")
    return dist
