"""Single-source shortest paths by delta-stepping: buckets of width delta, light edges first."""

from __future__ import annotations

import math

from grblas_gpu import FP64, Matrix, Vector, binary, monoid, select, semiring
from grblas_gpu.exceptions import InvalidValue
from grblas_gpu.progress import tick

__all__ = ["default_delta", "delta_stepping"]


def default_delta(A: Matrix) -> float:
    """The bucket width used when none is given: the mean edge weight (1 for unit weights),
    so a light edge is one of at most average length."""
    if not A.nvals:
        return 1.0
    mean = A.reduce_scalar(monoid.plus).new().value / A.nvals
    return float(mean) if mean > 0 else 1.0


def delta_stepping(A: Matrix, source: int, delta: float | None = None) -> Vector:
    """Shortest path lengths from ``source`` (weights >= 0, arguments already checked by
    :func:`~grblas_gpu.algorithms.sssp.sssp`, which calls this for ``method="delta"``).

    Math: the vertices are settled bucket by bucket, bucket ``i`` holding the tentative
    distances in ``[i delta, (i+1) delta)``.  Edges are split into light (``w <= delta``,
    ``L``) and heavy (``H``).  A light edge out of bucket ``i`` may land in bucket ``i``
    again, so the bucket is relaxed over ``L`` until it stops changing; a heavy edge
    always lands in a later bucket, so ``H`` is relaxed once, from everything the bucket
    settled::

        B = pending where dist < (i+1) delta          (i: the least pending bucket)
        repeat:  done |= B;  dist(min, changed=C) << B' min.+ L;  B = C where < (i+1) delta
        dist(min, changed=C) << done' min.+ H
        pending = (pending | C) without done

    Bellman-Ford relaxes every improved vertex each round, so on graphs of long paths
    (high diameter, varied weights) it relaxes the same edges again and again;
    delta-stepping relaxes an edge from a vertex once its distance is close to final.
    ``delta`` -> infinity is Bellman-Ford, ``delta`` -> 0 is Dijkstra (one distance a
    bucket).  Default ``delta``: :func:`default_delta`.  One host read a light round
    (the bucket's size) and one a bucket (its least distance).

    Reference: U. Meyer, P. Sanders, "Delta-stepping: a parallelizable shortest path
    algorithm", J. Algorithms 49 (2003); U. Sridhar, M. Blanco, R. Mayuranath,
    D. G. Spampinato, T. M. Low, S. McMillan, "Delta-stepping SSSP: from vertices and
    edges to GraphBLAS implementations", IPDPSW 2019 (LAGraph's SSSP).
    """
    delta = default_delta(A) if delta is None else float(delta)
    if not (delta > 0 and math.isfinite(delta)):
        raise InvalidValue(f"sssp: delta must be finite and > 0, got {delta}")
    n, t = A.nrows, A.dtype
    cut = math.floor(delta) if t.is_integer else delta  # w <= delta, for integer w
    light = A.select(select.valuele, cut).new()
    heavy = A.select(select.valuegt, cut).new()
    add = semiring.min_plus[t]
    dist = Vector.from_coo([source], [0], size=n, dtype=t, backend=A.backend)
    pending = dist.dup()
    changed = Vector(t, n, backend=A.backend)
    while pending.nvals:
        tick("delta_stepping")
        low = pending.reduce(monoid.min).new().value
        top = (math.floor(low / delta) + 1) * delta
        top = math.ceil(top) if t.is_integer else top  # d < top, for integer d
        bucket = pending.select(select.valuelt, top).new()
        done = Vector(t, n, backend=A.backend)
        while bucket.nvals:
            done(binary.min) << bucket
            dist(binary.min, changed=changed) << bucket.vxm(light, add)
            pending(binary.min) << changed
            bucket = changed.select(select.valuelt, top).new()
        done << dist.ewise_mult(done, binary.first)  # their final distances
        dist(binary.min, changed=changed) << done.vxm(heavy, add)
        pending(binary.min) << changed
        pending(~done.S, replace=True) << pending
    return dist


METHODS = ("auto", "bellman-ford", "delta")

HIGH_DIAMETER_DEGREE = 8.0
"""``method="auto"`` picks delta-stepping only for graphs of at most this many edges a vertex
(meshes and road networks: long paths, where Bellman-Ford relaxes edges again and again)."""

SPREAD = 1.0
"""... and only where the weights' standard deviation exceeds this many times their mean
(widely spread weights: many of Bellman-Ford's early distances are later improved)."""


def choose_method(A: Matrix, method: str) -> str:
    """``"delta"`` or ``"bellman-ford"`` for :func:`~grblas_gpu.algorithms.sssp.sssp`.

    ``"auto"`` takes delta-stepping on the NumPy backend where the weights are >= 0, the
    graph has at most ``HIGH_DIAMETER_DEGREE`` edges a vertex and the weights spread
    (standard deviation over ``SPREAD`` times the mean): measured there, a 300 x 300 grid
    with weights ``exp(U(0, 9))`` took 1.10 s by delta-stepping and 2.71 s by Bellman-Ford,
    while with weights ``U(1, 100)`` (400 x 400) or on random graphs of 10 edges a vertex
    Bellman-Ford won by 1.5-5x (more rounds, each of several statements).  On the GPU
    Bellman-Ford won even on the grid (1024 x 1024, ``exp(U(0, 9))``, H100: 0.19 s against
    1.06 s: a round's statements cost launches, not work), so ``"auto"`` keeps it there.
    ``"delta"`` refuses negative weights (``InvalidValue``)."""
    if method not in METHODS:
        raise InvalidValue(f"sssp: method must be one of {', '.join(METHODS)}, got {method!r}")
    if method == "bellman-ford" or not A.nvals:
        return "bellman-ford" if method != "delta" else "delta"
    if method == "auto" and (A.nvals > HIGH_DIAMETER_DEGREE * A.nrows or A.backend != "numpy"):
        return "bellman-ford"  # (decided before any reduction: a GPU call of sssp pays none)
    low = A.reduce_scalar(monoid.min).new().value
    if method == "delta":
        if low < 0:
            raise InvalidValue("sssp: method='delta' needs edge weights >= 0 (use 'bellman-ford')")
        return "delta"
    if low < 0:
        return "bellman-ford"
    W = A.dup(FP64)
    mean = W.reduce_scalar(monoid.plus).new().value / A.nvals
    square = W.ewise_mult(W, binary.times).new().reduce_scalar(monoid.plus).new().value / A.nvals
    spread = math.sqrt(max(square - mean * mean, 0.0))
    return "delta" if spread > SPREAD * mean else "bellman-ford"
