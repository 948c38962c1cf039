"""HITS hubs and authorities by power iteration, with networkx's definition."""

from __future__ import annotations

import functools

from grblas_gpu import FP64, Matrix, Vector, binary, monoid, semiring
from grblas_gpu.operators import BinaryOp
from grblas_gpu.progress import tick

from ._checks import (
    check_count,
    check_non_negative,
    check_numeric,
    check_square,
    check_tolerance,
    check_vertex_memory,
)
from .pagerank import ConvergenceError, total_change

__all__ = ["hits"]


def hits(A: Matrix, max_iter: int = 100, tol: float = 1e-8, normalized: bool = True) -> tuple[Vector, Vector]:
    """Hub and authority scores of every vertex: ``(hubs, authorities)``, FP64, full.

    Math (Kleinberg's HITS, as networkx computes it): a good hub points to good
    authorities and a good authority is pointed to by good hubs, ``a = A' h`` and
    ``h = A a``; ``h`` is the principal eigenvector of ``A A'`` and ``a`` that of ``A' A``.
    Power iteration from ``h_0 = 1/n``, over plus_times with ``A[u, v]`` the weight of
    ``u -> v``::

        a_{k+1} = A' h_k,   h_{k+1} = A a_{k+1},   each divided by its largest entry

    The maxima stay on the device (a reduction, then a divide by that Scalar).  Iteration
    stops at the first ``k`` with ``sum_v |h_{k+1}[v] - h_k[v]| < tol`` (not ``n * tol``,
    as networkx; one host read an iteration), and
    :class:`~grblas_gpu.algorithms.pagerank.ConvergenceError` is raised when that does not
    happen within ``max_iter`` iterations.  ``normalized=True`` (the default) scales each
    vector to sum 1.

    Weights must be >= 0 (``InvalidValue`` otherwise).  A graph without edges has all
    scores 0, made uniform ``1/n`` when normalised (networkx divides by zero there); an
    empty graph gives two empty vectors.  ``networkx.hits`` computes the same vectors by a
    sparse SVD; ``networkx.algorithms.link_analysis.hits_alg._hits_python`` is this loop.

    Reference: J. Kleinberg, "Authoritative sources in a hyperlinked environment",
    J. ACM 46 (1999); networkx ``hits``.
    """
    check_square(A, "hits")
    check_numeric(A, "hits")
    check_vertex_memory(A, "hits", 56)
    max_iter = check_count(max_iter, "max_iter", "hits")
    tol = check_tolerance(tol, "tol", "hits")
    check_non_negative(A, "hits")
    n, backend = A.nrows, A.backend
    if n == 0:
        return Vector(FP64, 0, backend=backend), Vector(FP64, 0, backend=backend)
    product = semiring.plus_times[FP64]
    h = Vector.from_scalar(1.0 / n, n, FP64, backend=backend)
    for _ in range(max_iter):
        tick("hits", max_iter)
        a = Vector.from_scalar(0.0, n, FP64, backend=backend)
        a(binary.plus) << A.T.mxv(h, product)
        h_next = Vector.from_scalar(0.0, n, FP64, backend=backend)
        h_next(binary.plus) << A.mxv(a, product)
        h_next = h_next.apply(divide_if_positive(), right=h_next.reduce(monoid.max).new()).new()
        a = a.apply(divide_if_positive(), right=a.reduce(monoid.max).new()).new()
        change = h_next.inner(h, total_change()[FP64]).new().value
        h = h_next
        if change < tol:
            break
    else:
        raise ConvergenceError(f"hits did not converge in {max_iter} iterations (tol={tol})")
    if normalized:
        h, a = _sum_to_one(h), _sum_to_one(a)
    return h, a


@functools.cache
def divide_if_positive() -> BinaryOp:
    """``x / s``, or ``x`` where ``s`` is 0 (all scores 0: a graph without edges)."""
    return binary.register_anonymous(lambda x, s: x / s if s > 0 else x, "div_if_positive")


def _sum_to_one(x: Vector) -> Vector:
    """``x`` scaled to sum 1; uniform where it sums to 0."""
    total = x.reduce(monoid.plus).new().value
    if not total > 0:
        return Vector.from_scalar(1.0 / x.size, x.size, FP64, backend=x.backend)
    return x.apply(binary.truediv, right=total).new()
