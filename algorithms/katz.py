"""Katz centrality by power iteration, with networkx's definition."""

from __future__ import annotations

import math

from grblas_gpu import FP64, Matrix, Vector, binary, semiring
from grblas_gpu.progress import tick

from ._checks import (
    _real,
    check_count,
    check_numeric,
    check_square,
    check_tolerance,
    check_vertex_memory,
)
from .pagerank import ConvergenceError, total_change

__all__ = ["katz_centrality"]


def katz_centrality(
    A: Matrix,
    alpha: float = 0.1,
    beta: float = 1.0,
    max_iter: int = 1000,
    tol: float = 1e-6,
    normalized: bool = True,
    weight: bool = False,
) -> Vector:
    """Katz centrality of every vertex (FP64, one entry per vertex).

    Math (the definition of ``networkx.katz_centrality``): the solution of
    ``x = alpha A' x + beta``, i.e. ``x[v] = alpha * sum_u A[u, v] x[u] + beta``
    (in-edges count), found by power iteration from ``x_0 = 0``::

        x_{k+1} = beta + alpha * (A' x_k)        over plus_times (plus_second if unweighted)

    It converges when ``alpha < 1 / lambda_max(A)``.  Iteration stops at the first ``k``
    with ``sum_v |x_{k+1}[v] - x_k[v]| < n * tol`` (one host read an iteration);
    :class:`~grblas_gpu.algorithms.pagerank.ConvergenceError` is raised when that does not
    happen within ``max_iter`` iterations.  ``normalized=True`` (the default) scales the
    result to unit Euclidean norm.

    ``weight=False`` (networkx's default, ``weight=None``) counts every edge as 1 and never
    reads the values; ``weight=True`` uses ``A[u, v]`` as the edge weight.  An empty graph
    gives an empty vector.

    Reference: L. Katz, "A new status index derived from sociometric analysis",
    Psychometrika 18 (1953); networkx ``katz_centrality``.
    """
    check_square(A, "katz_centrality")
    check_numeric(A, "katz_centrality")
    check_vertex_memory(A, "katz_centrality", 40)
    alpha = check_tolerance(alpha, "alpha", "katz_centrality")
    beta = _real(beta, "beta", "katz_centrality")
    max_iter = check_count(max_iter, "max_iter", "katz_centrality")
    tol = check_tolerance(tol, "tol", "katz_centrality")
    n, backend = A.nrows, A.backend
    if n == 0:
        return Vector(FP64, 0, backend=backend)
    follow = semiring.plus_times[FP64] if weight else semiring.plus_second[FP64]
    x = Vector.from_scalar(0.0, n, FP64, backend=backend)
    for _ in range(max_iter):
        tick("katz_centrality", max_iter)
        x_next = Vector.from_scalar(beta, n, FP64, backend=backend)
        x_next(binary.plus) << A.T.mxv(x, follow).new().apply(binary.times, right=alpha)
        change = x_next.inner(x, total_change()[FP64]).new().value
        x = x_next
        if change < n * tol:
            if normalized:
                norm = math.sqrt(x.inner(x).new().value)
                x = x.apply(binary.truediv, right=norm or 1.0).new()
            return x
    raise ConvergenceError(f"katz_centrality did not converge in {max_iter} iterations (tol={tol})")
