"""PageRank by power iteration, with networkx's definition."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from grblas_gpu import FP64, Matrix, Scalar, Vector, binary, monoid, select, semiring, unary
from grblas_gpu.dask.spmd import spmd
from grblas_gpu.dtypes import DataType, lookup_dtype
from grblas_gpu.exceptions import InvalidValue
from grblas_gpu.loop_capture import converge
from grblas_gpu.operators import Semiring

from ._checks import (
    check_count,
    check_fraction,
    check_non_negative,
    check_numeric,
    check_square,
    check_tolerance,
    check_vertex_memory,
)

__all__ = ["ConvergenceError", "pagerank"]


class ConvergenceError(InvalidValue):
    """PageRank did not converge within ``max_iter`` iterations."""


@spmd
def pagerank(
    A: Matrix,
    alpha: float = 0.85,
    tol: float = 1e-6,
    max_iter: int = 100,
    personalization: Vector | Mapping[int, float] | None = None,
    weight: bool = True,
    dtype: Any = FP64,
) -> Vector:
    """PageRank of every vertex (one entry per vertex, summing to 1).

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
    ``dtype`` is the floating type of the computation and the result: FP64 (the
    default, as networkx) or FP32 (half the memory traffic, about 1e-7 relative error).

    Per iteration: ``s = x * (alpha / w)`` (0 at dangling vertices), the teleport weight
    ``c = x . t`` with ``t = alpha d + (1 - alpha)`` (``d`` the dangling indicator; as x
    sums to 1 that is the dangling term's ``alpha * mass`` plus ``1 - alpha``), and
    ``x' = c p + A' s`` over ``plus_times``, or over ``plus_second`` when ``weight=False``
    (the edge values are then never read): ``x'`` starts as ``c p`` and the product is added
    into it (``x'(plus) << A' s``, which the GPU's SpMV does as it writes each row, with no
    stored product).  ``A'`` is A's cached transpose, and ``alpha / w`` and ``t`` are kept with
    A likewise (for the last ``alpha``, ``weight`` and ``dtype``), so a second PageRank of the
    same graph starts at its first iteration.  ``c`` stays on the GPU, so nothing in an
    iteration waits for it; with ``tol > 0`` the change of one iteration, ``x' . x`` over
    plus and ``|a - b|``, is read while the next one's product runs.  On the GPU the iteration
    is captured once as a CUDA graph and replayed, the stop test on the device
    (:func:`grblas_gpu.loop_capture.converge`), with the same result.

    Reference: L. Page, S. Brin, R. Motwani, T. Winograd, "The PageRank citation
    ranking", Stanford TR 1999-66; networkx ``pagerank``; LDBC Graphalytics
    specification, section on PageRank.
    """
    check_square(A, "pagerank")
    check_numeric(A, "pagerank")
    check_vertex_memory(A, "pagerank", 54)
    alpha = check_fraction(alpha, "alpha", "pagerank")
    tol = check_tolerance(tol, "tol", "pagerank")
    max_iter = check_count(max_iter, "max_iter", "pagerank")
    t = lookup_dtype(dtype)
    if not t.is_float:
        raise InvalidValue(f"pagerank: dtype must be FP32 or FP64, got {t}")
    n, backend = A.nrows, A.backend
    if n == 0:
        return Vector(t, 0, backend=backend)
    scale, teleport_weight = _edge_weights(A, alpha, weight, t)
    follow = semiring.plus_times[t] if weight else semiring.plus_second[t]
    p = _teleport(personalization, n, t, backend)
    x = p if personalization is None else Vector.from_scalar(1.0 / n, n, t, backend=backend)  # x_0 = 1/n
    change_op = total_change()[t]

    def step(x: Vector) -> tuple[Vector, Scalar | None]:
        moving = x.ewise_mult(scale, binary.times).new()  # alpha x[u] / w[u]
        c = x.inner(teleport_weight).new()
        x_next = p.apply(binary.times, right=c).new()  # the teleport term c p
        x_next(binary.plus) << A.T.mxv(moving, follow)  # plus what follows the edges
        return x_next, (x_next.inner(x, change_op).new() if tol > 0 else None)  # sum |x_k+1 - x_k|

    x, converged = converge(step, x, max_iter=max_iter, bound=n * tol if tol > 0 else None,
                            matrix=A, label="pagerank")
    if tol > 0 and not converged:
        raise ConvergenceError(f"pagerank did not converge in {max_iter} iterations (tol={tol})")
    return x


@functools.cache
def total_change() -> Semiring:
    """The semiring plus over ``|x - y|`` (made on first use): ``u.inner(v)`` over it is
    ``sum |u - v|``, the change of one iteration, in one pass."""
    abs_minus = binary.register_anonymous(lambda x, y: abs(x - y), "abs_minus")
    return semiring.register_anonymous(monoid.plus, abs_minus, "plus_abs_minus")


def _edge_weights(A: Matrix, alpha: float, weight: bool, t: DataType) -> tuple[Vector, Vector]:
    """The full vectors ``alpha / w`` (0 where dangling) and ``alpha d + (1 - alpha)`` (``d``
    the dangling indicator) of :func:`pagerank`, made once and kept with A, as A's transpose
    is, until A changes (for the last parameters only): a second PageRank of the same graph,
    with another teleport distribution or tolerance, starts at its first iteration."""
    kept = A._memo("pagerank weights", dict)
    params = (alpha, weight, t)
    if params not in kept:
        kept.clear()
        kept[params] = _make_edge_weights(A, alpha, weight, t)
    return kept[params]


def _make_edge_weights(A: Matrix, alpha: float, weight: bool, t: DataType) -> tuple[Vector, Vector]:
    """:func:`_edge_weights`, computed."""
    n, backend = A.nrows, A.backend
    teleport_weight = Vector.from_scalar(1.0, n, t, backend=backend)  # alpha + (1 - alpha) where dangling
    if weight:  # a row whose weights sum to 0 is dangling too
        check_non_negative(A, "pagerank")  # (here: once while the weights are kept with A)
        out_weight = A.reduce_rowwise(monoid.plus[t]).new().select(select.valuene, 0).new()
    else:  # out-degrees: each row's count of entries (1 or more), as A times a full vector over plus_pair
        out_weight = A.mxv(teleport_weight, semiring.plus_pair[t]).new()
    scale = Vector.from_scalar(0.0, n, t, backend=backend)
    scale(binary.plus) << out_weight.apply(binary.truediv, left=alpha)  # stays full
    teleport_weight(out_weight.S) << 1 - alpha
    return scale, teleport_weight


def _teleport(personalization: Vector | Mapping[int, float] | None, n: int, t: DataType, backend: str) -> Vector:
    """The teleport distribution ``p`` as a full Vector of type ``t`` summing to 1."""
    if personalization is None:
        return Vector.from_scalar(1.0 / n, n, t, backend=backend)
    p = Vector.from_scalar(0.0, n, t, backend=backend)
    if isinstance(personalization, Mapping):
        keys = list(personalization)
        personalization = Vector.from_coo(keys, [personalization[k] for k in keys], size=n,
                                          dtype=FP64, backend=backend)
    p(binary.plus) << personalization
    if p.apply(unary.isnan).new().reduce(monoid.lor).new().value or p.reduce(monoid.min).new().value < 0:
        raise InvalidValue("pagerank: the personalization values must be >= 0 (and not NaN)")
    total = p.reduce().new().value
    if not total > 0:
        raise InvalidValue("pagerank: the personalization values must have a positive sum")
    return p.apply(binary.truediv, right=total).new()
