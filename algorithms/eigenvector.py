"""Eigenvector centrality by power iteration, with networkx's definition."""

from __future__ import annotations

import functools
import math

from grblas_gpu import FP64, Matrix, Vector, binary, semiring
from grblas_gpu.exceptions import InvalidValue
from grblas_gpu.operators import BinaryOp
from grblas_gpu.progress import tick

from ._checks import (
    check_count,
    check_numeric,
    check_square,
    check_tolerance,
    check_vertex_memory,
)
from .pagerank import ConvergenceError, total_change

__all__ = ["eigenvector_centrality"]


def eigenvector_centrality(A: Matrix, max_iter: int = 100, tol: float = 1e-6, weight: bool = False) -> Vector:
    """Eigenvector centrality of every vertex (FP64, one entry per vertex, unit Euclidean norm).

    Math (the definition of ``networkx.eigenvector_centrality``): the left Perron vector of
    ``A`` (``x[v]`` grows with the centrality of the vertices pointing to ``v``), found by
    power iteration on ``A + I`` (the shift makes it converge on bipartite graphs too, and
    does not change the eigenvector) from ``x_0 = 1/n``::

        y = x_k + A' x_k                      over plus_times (plus_second if unweighted)
        x_{k+1} = y / ||y||_2

    The norm stays on the device (``y . y``, then ``y / sqrt(y . y)`` in one apply);
    iteration stops at the first ``k`` with ``sum_v |x_{k+1}[v] - x_k[v]| < n * tol`` (one
    host read an iteration), and :class:`~grblas_gpu.algorithms.pagerank.ConvergenceError`
    is raised when that does not happen within ``max_iter`` iterations.

    ``weight=False`` (networkx's default, ``weight=None``) counts every edge as 1;
    ``weight=True`` uses ``A[u, v]``.  An empty graph raises ``InvalidValue`` (networkx:
    "cannot compute centrality for the null graph").

    Reference: P. Bonacich, "Power and centrality: a family of measures", American Journal
    of Sociology 92 (1987); networkx ``eigenvector_centrality``.
    """
    check_square(A, "eigenvector_centrality")
    check_numeric(A, "eigenvector_centrality")
    check_vertex_memory(A, "eigenvector_centrality", 40)
    max_iter = check_count(max_iter, "max_iter", "eigenvector_centrality")
    tol = check_tolerance(tol, "tol", "eigenvector_centrality")
    n, backend = A.nrows, A.backend
    if n == 0:
        raise InvalidValue("eigenvector_centrality: cannot compute centrality for the null graph")
    follow = semiring.plus_times[FP64] if weight else semiring.plus_second[FP64]
    x = Vector.from_scalar(1.0 / n, n, FP64, backend=backend)
    for _ in range(max_iter):
        tick("eigenvector_centrality", max_iter)
        y = x.dup()
        y(binary.plus) << A.T.mxv(x, follow)  # (A + I)' x
        x_next = y.apply(unit_norm(), right=y.inner(y).new()).new()
        change = x_next.inner(x, total_change()[FP64]).new().value
        x = x_next
        if change < n * tol:
            return x
    raise ConvergenceError(f"eigenvector_centrality did not converge in {max_iter} iterations (tol={tol})")


@functools.cache
def unit_norm() -> BinaryOp:
    """``x / sqrt(s)`` (``x`` where ``s`` is 0, as networkx takes a zero norm for 1): with
    ``s = y . y`` it scales ``y`` to unit Euclidean norm without reading ``s`` on the host."""
    return binary.register_anonymous(lambda x, s: x / math.sqrt(s) if s > 0 else x, "div_sqrt")
