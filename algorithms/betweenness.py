"""Betweenness centrality (Brandes), batched over sources with frontier matrices."""

from __future__ import annotations

from collections.abc import Sequence

from grblas_gpu import FP64, Matrix, Vector, binary, monoid, semiring, unary
from grblas_gpu.progress import tick

from ._checks import check_numeric, check_source, check_square, check_vertex_memory, rows_with_entries

__all__ = ["betweenness_centrality"]


def betweenness_centrality(A: Matrix, sources: Sequence[int] | None = None, *,
                           batch_size: int = 128) -> Vector:
    """Unnormalised betweenness centrality (FP64, an entry for every vertex).

    ``bc(v) = sum over s in sources, t != s, v of sigma_st(v) / sigma_st``, where
    ``sigma_st`` counts the shortest paths ``s -> t`` (in hops; values are ignored)
    and ``sigma_st(v)`` those through ``v``.  Brandes' method, for a batch of
    sources at once (row ``k`` of each matrix belongs to source ``k``):

    1. forward, one BFS level per step: ``F<!sigma> = F plus.first A`` counts the
       shortest paths reaching the new frontier, and ``sigma += F``;
    2. backward, from the deepest level ``d`` to level 2:
       ``W<level d> = (1 + delta) ./ sigma``, then
       ``delta<level d-1> += (W plus.first A') .* sigma``.

    ``bc`` is the column sum of ``delta``.  ``sources=None`` uses every vertex
    (exact betweenness); a repeated source counts again.

    Paths follow the stored entries of ``A`` (``A[u, w]``: edge ``u -> w``), so a
    directed graph gives ``networkx.betweenness_centrality(G, normalized=False)``.
    A symmetric ``A`` counts each undirected path in both directions: the result
    is **twice** networkx's value for the undirected graph (networkx halves it),
    and equals the sum of dependencies that LAGraph and the GAP benchmark report.

    References: U. Brandes, "A faster algorithm for betweenness centrality",
    J. Math. Sociology 25(2), 2001; the batched algebraic form is the betweenness
    example of the GraphBLAS C API specification and LAGraph's LAGr_Betweenness.
    """
    check_square(A, "betweenness_centrality")
    check_numeric(A, "betweenness_centrality")
    check_vertex_memory(A, "betweenness_centrality", 27)
    n = A.nrows
    backend = A.backend
    if sources is None:  # a source without out-edges adds nothing: work bounded by the entries
        sources = rows_with_entries(A)
    sources = [check_source(A, s, "betweenness_centrality") for s in sources]
    E = A.apply(unary.one).new(dtype=FP64)
    bc = Vector.from_scalar(0.0, n, dtype=FP64, backend=backend)
    for start in range(0, len(sources), batch_size):
        tick("betweenness_centrality", -(-len(sources) // batch_size))
        batch = sources[start:start + batch_size]
        bc(binary.plus) << _dependencies(E, batch, backend)
    return bc


def _dependencies(E: Matrix, sources: list[int], backend: str) -> Vector:
    """Sum over ``sources`` of Brandes' dependency ``delta_s(v)``, for every reached ``v``."""
    ns, n = len(sources), E.nrows
    frontier = Matrix.from_coo(range(ns), sources, 1.0, nrows=ns, ncols=n, backend=backend)
    sigma = frontier.dup()  # shortest-path counts; its pattern is "visited"
    levels = [frontier]
    while True:
        frontier(~sigma.S, replace=True) << frontier.mxm(E, semiring.plus_first)
        if frontier.nvals == 0:
            break
        sigma(binary.plus) << frontier
        levels.append(frontier.dup())
    one_plus_delta = sigma.apply(unary.one).new()
    for d in range(len(levels) - 1, 1, -1):
        W = one_plus_delta.ewise_mult(sigma, binary.truediv).new(mask=levels[d].S)
        back = W.mxm(E.T, semiring.plus_first).new(mask=levels[d - 1].S)
        one_plus_delta(binary.plus) << back.ewise_mult(sigma, binary.times)
    # Every reached vertex holds 1 + delta; the sources themselves (level 0) hold just 1.
    delta = one_plus_delta.apply(binary.minus, right=1.0).new()
    return delta.reduce_columnwise(monoid.plus).new()
