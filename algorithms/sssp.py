"""Single-source shortest paths: Bellman-Ford over the (min, +) semiring."""

from __future__ import annotations

from grblas_gpu import BOOL, Matrix, Vector, binary, semiring
from grblas_gpu.exceptions import InvalidValue

from ._checks import check_numeric, check_source, check_square

__all__ = ["sssp"]

DENSE_FRONTIER = 0.25
"""A frontier of floats holding this share of the vertices or more is multiplied as a full vector."""


def sssp(A: Matrix, source: int) -> Vector:
    """Shortest path lengths from ``source``; ``A[i, j]`` is the length of edge i -> j.

    Math: the distances ``d`` are the least solution of
    ``d = e_source (min) d' A`` over the tropical semiring (min, +), where
    ``(d' A)[j] = min_k d[k] + A[k, j]``.  Bellman-Ford applies that product
    repeatedly; here only the *frontier* (vertices whose distance improved in the
    previous round) is multiplied, so each round costs the out-edges of the
    frontier only (the "sparse frontier" Bellman-Ford of GraphBLAST / LAGraph).

    A large frontier of floating-point distances is first made a full vector, +inf where it
    has no entry.  The product is then the same where it matters: a +inf term never makes a
    minimum smaller (``inf + w`` is +inf, or NaN for ``w = -inf``, which ``min`` skips), and
    the entries it adds (no path through the frontier) are never shorter.  A full vector is
    multiplied without testing each term for an entry, which is faster on a GPU (kron
    scale 22: 1.5-2.0 ms a round with half of the entries, 1.1 ms full).

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
    shorter = Vector(BOOL, n, backend=A.backend)
    no_path = Vector.from_scalar(float("inf"), n, A.dtype, backend=A.backend) if A.dtype.is_float else None
    for _ in range(n):
        nvals = frontier.nvals
        if nvals == 0:
            return dist
        if no_path is not None and nvals >= n * DENSE_FRONTIER:
            frontier << frontier.ewise_add(no_path, binary.first)  # +inf where it has no entry
        # Paths one edge longer than the last frontier; keep those that are shorter.
        frontier << frontier.vxm(A, semiring.min_plus)
        shorter << frontier.ewise_union(dist, binary.lt, infinity, infinity)
        frontier(shorter.V, replace=True) << frontier  # drop those that are no better
        dist(binary.min) << frontier
    if frontier.nvals:
        raise InvalidValue("sssp: a negative cycle is reachable from the source")
    return dist
