"""PageRank by power iteration, with networkx's definition."""

from __future__ import annotations

from collections.abc import Mapping

from grblas_gpu import FP64, Matrix, Vector, binary, monoid, select, semiring, unary
from grblas_gpu.exceptions import InvalidValue

from ._checks import check_numeric, check_square

__all__ = ["ConvergenceError", "pagerank"]


class ConvergenceError(InvalidValue):
    """PageRank did not converge within ``max_iter`` iterations."""


def pagerank(
    A: Matrix,
    alpha: float = 0.85,
    tol: float = 1e-6,
    max_iter: int = 100,
    personalization: Vector | Mapping[int, float] | None = None,
    weight: bool = True,
) -> Vector:
    """PageRank of every vertex (FP64, one entry per vertex, summing to 1).

    Math (the definition of ``networkx.pagerank``): with out-weights
    ``w[u] = sum_v A[u, v]``, teleport distribution ``p`` (``personalization``
    normalised to sum 1, uniform ``1/n`` by default) and ``x_0 = 1/n``::

        x_{k+1}[v] = alpha * sum_u x_k[u] A[u, v] / w[u]          (follow an edge)
                   + alpha * (sum of x_k[u] over dangling u) * p[v] (dangling mass)
                   + (1 - alpha) * p[v]                           (teleport)

    A dangling vertex has no out-edges (or out-weight 0).  Iteration stops when
    ``sum_v |x_{k+1}[v] - x_k[v]| < n * tol``; :class:`ConvergenceError` is raised
    when that does not happen within ``max_iter`` iterations.  ``tol=0`` instead
    runs exactly ``max_iter`` iterations and returns: with uniform ``p`` that is
    LDBC Graphalytics' PageRank (dangling mass spread uniformly).

    ``weight=False`` counts every edge as 1.  Self-loops are ordinary edges.
    Semiring: ``plus_times`` for ``(x / w)' A``, computed as ``A' (x / w)``.

    Reference: L. Page, S. Brin, R. Motwani, T. Winograd, "The PageRank citation
    ranking", Stanford TR 1999-66; networkx ``pagerank``; LDBC Graphalytics
    specification, section on PageRank.
    """
    check_square(A, "pagerank")
    check_numeric(A, "pagerank")
    n, backend = A.nrows, A.backend
    if n == 0:
        return Vector(FP64, 0, backend=backend)
    W = A if weight else A.apply(unary.one).new(FP64)
    out_weight = W.reduce_rowwise(monoid.plus[FP64]).new().select(select.valuene, 0).new()
    # x' W computed as W' x: A's transpose is cached on A, so repeated calls do not rebuild it.
    WT = A.T.new(FP64) if weight else A.T.apply(unary.one).new(FP64)
    p = _teleport(personalization, n, backend)
    x = Vector.from_scalar(1.0 / n, n, FP64, backend=backend)
    for _ in range(max_iter):
        x_prev = x
        moving = x_prev.ewise_mult(out_weight, binary.truediv).new()  # x[u] / w[u], u not dangling
        x_dangling = Vector(FP64, n, backend=backend)
        x_dangling(~out_weight.S) << x_prev
        dangling = x_dangling.reduce(allow_empty=False).new().value  # 0 if none
        x = p.apply(binary.times, right=alpha * dangling + (1 - alpha)).new()
        x(binary.plus) << WT.mxv(moving, semiring.plus_times).new().apply(binary.times, right=alpha)
        if tol > 0:
            diff = x.ewise_mult(x_prev, binary.minus).new().apply(unary.abs).new()
            if diff.reduce().new().value < n * tol:
                return x
    if tol > 0:
        raise ConvergenceError(f"pagerank did not converge in {max_iter} iterations (tol={tol})")
    return x


def _teleport(personalization: Vector | Mapping[int, float] | None, n: int, backend: str) -> Vector:
    """The teleport distribution ``p`` as a full FP64 Vector summing to 1."""
    p = Vector.from_scalar(0.0, n, FP64, backend=backend)
    if personalization is None:
        return p.apply(binary.plus, right=1.0 / n).new()
    if isinstance(personalization, Mapping):
        keys = list(personalization)
        personalization = Vector.from_coo(keys, [personalization[k] for k in keys], size=n,
                                          dtype=FP64, backend=backend)
    p(binary.plus) << personalization
    total = p.reduce().new().value
    if not total > 0:
        raise InvalidValue("pagerank: the personalization values must have a positive sum")
    return p.apply(binary.truediv, right=total).new()
