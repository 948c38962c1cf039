"""Single-source shortest paths: Bellman-Ford over the (min, +) semiring."""

from __future__ import annotations

import numpy as np

from grblas_gpu import FP64, INT64, Matrix, Vector, binary, monoid, select, semiring
from grblas_gpu.dask.spmd import spmd
from grblas_gpu.exceptions import InvalidValue
from grblas_gpu.loops import frontier_loop
from grblas_gpu.progress import tick

from ._checks import check_no_nan, check_numeric, check_source, check_square, check_vertex_memory
from .delta_stepping import choose_method, delta_stepping

__all__ = ["sssp"]

DENSE_FRONTIER = 0.25
"""A frontier of floats holding this share of the vertices or more is multiplied as a full vector."""


@spmd
def sssp(A: Matrix, source: int, method: str = "auto", delta: float | None = None) -> Vector:
    """Shortest path lengths from ``source``; ``A[i, j]`` is the length of edge i -> j.

    ``method``: ``"bellman-ford"`` (below), ``"delta"`` (delta-stepping with bucket width
    ``delta``, :mod:`~grblas_gpu.algorithms.delta_stepping`; weights must be >= 0) or
    ``"auto"`` (the default): delta-stepping where :func:`choose_method` expects it to win.

    Math: the distances ``d`` are the least solution of
    ``d = e_source (min) d' A`` over the tropical semiring (min, +), where
    ``(d' A)[j] = min_k d[k] + A[k, j]``.  Bellman-Ford applies that product
    repeatedly; here only the *frontier* (vertices whose distance improved in the
    previous round) is multiplied, so each round costs the out-edges of the
    frontier only (the "sparse frontier" Bellman-Ford of GraphBLAST / LAGraph).

    A round is one statement: ``dist(min, changed=frontier) << frontier' A`` keeps the
    shorter paths and sets the frontier to the vertices whose distance fell (``changed=``
    is an extension of the GraphBLAS API; the standard form takes a comparison, a masked
    filter and the accumulation).

    Distances start as "infinity" where no path is known (dropped from the result): +inf,
    or an integer type's largest value, which no distance reaches (the rounds run in A's type
    only where ``n * max|w|`` fits it, see below) and which is never a frontier's value, so
    never added to.  ``dist`` is thus a full vector, and the GPU runs small frontiers'
    rounds on the device (:func:`~grblas_gpu.loops.frontier_loop`).  A large frontier of floats
    is first made full too, with the other vertices' distances as they are: those change nothing, as each
    was multiplied in the round after it was set (every term it gives is at least the
    distance it reached then), and a +inf one gives +inf terms (or NaN for ``w = -inf``,
    which ``min`` skips).  A full vector is multiplied without testing each term for an
    entry, which is faster on a GPU (kron scale 22: 1.5-2.0 ms a round with half of the
    entries, 1.1 ms full).

    Semiring: ``min_plus``.  Negative edge weights are allowed.  Without a
    negative cycle every shortest path is simple (at most n-1 edges), so after n
    rounds nothing can improve; if the frontier is still non-empty then, a
    negative cycle is reachable and ``InvalidValue`` is raised.

    Returns a Vector of A's type: ``d[v]`` is the distance to ``v``; vertices
    that cannot be reached have no entry.  BOOL matrices are refused (use
    ``A.dup(INT64)`` for unit lengths), and so are NaN weights (``InvalidValue``).

    Integer path sums never wrap: they are exact or refused.  Where ``n * max|w|`` fits
    A's type no sum can overflow and the rounds run in it.  Otherwise a type narrower than
    64 bits runs in INT64 and a distance outside A's type raises ``InvalidValue``; a
    64-bit type runs in its own type and in FP64 as well, and ``InvalidValue`` is raised
    where they disagree (a sum wrapped) or a distance reaches half the type's range (too
    near it to vouch for).

    Reference: R. Bellman, "On a routing problem", Quart. Appl. Math. 16 (1958);
    J. Kepner and J. Gilbert, *Graph Algorithms in the Language of Linear
    Algebra*, SIAM 2011, ch. 3.
    """
    check_square(A, "sssp")
    source = check_source(A, source, "sssp")
    check_numeric(A, "sssp", allow_bool=False)
    check_vertex_memory(A, "sssp", 27)
    check_no_nan(A, "sssp")
    method = choose_method(A, method)
    if A.dtype.is_integer and A.nvals:
        bound = A.nrows * max(abs(A.reduce_scalar(monoid.min).new().value),
                              abs(A.reduce_scalar(monoid.max).new().value))
        if bound > A.dtype.max:
            return _sssp_without_wrap(A, source, bound)
    return delta_stepping(A, source, delta) if method == "delta" else _sssp(A, source)


def _sssp(A: Matrix, source: int) -> Vector:
    """The rounds of :func:`sssp` in A's own type (arguments checked)."""
    n, infinity = A.nrows, A.dtype.max
    frontier = Vector.from_coo([source], [0], size=n, dtype=A.dtype, backend=A.backend)
    dist = Vector.from_scalar(infinity, n, A.dtype, backend=A.backend)  # (see the note on "infinity")
    dist(binary.min) << frontier
    dense = A.dtype.is_float  # a +inf term changes nothing; an integer's largest value plus w would wrap
    for _ in frontier_loop(frontier, A, limit=n):  # on the GPU, small frontiers' rounds on the device
        tick("sssp", n)
        if dense and frontier.nvals >= n * DENSE_FRONTIER:
            frontier << frontier.ewise_add(dist, binary.first)  # the others' distances as they are
        # Paths one edge longer than the last frontier's: dist keeps the shorter, and the
        # vertices whose distance fell are the next frontier.
        dist(binary.min, changed=frontier) << frontier.vxm(A, semiring.min_plus)
    if frontier.nvals:
        raise InvalidValue("sssp: a negative cycle is reachable from the source")
    return dist.select(select.valuelt, infinity).new()


def _sssp_without_wrap(A: Matrix, source: int, bound: int) -> Vector:
    """:func:`sssp` for integer weights whose sums might overflow A's type (see there)."""
    t = A.dtype
    if t.itemsize < 8 and bound <= INT64.max:
        wide = _sssp(A.dup(INT64), source)
        if wide.nvals and (wide.reduce(monoid.max).new().value > t.max or wide.reduce(monoid.min).new().value < t.min):
            raise InvalidValue(f"sssp: a shortest path length does not fit {t}: give A a wider type")
        return wide.dup(t)
    exact, approx = _sssp(A, source), _sssp(A.dup(FP64), source)
    i_idx, i_vals = exact.to_coo()
    f_idx, f_vals = approx.to_coo()
    far = float(np.abs(f_vals).max()) if len(f_vals) else 0.0
    tol = far * A.nrows * 2.0**-52 + 1.0
    if (far >= 2.0**62 or not np.array_equal(i_idx, f_idx)
            or np.abs(i_vals.astype(np.float64) - f_vals).max(initial=0.0) > tol):
        raise InvalidValue(f"sssp: shortest path lengths overflow {t} (or come within a factor 2 of its range)")
    return exact
