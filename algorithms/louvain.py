"""Louvain community detection: local moves by masked products, aggregation by ``P' M P``."""

from __future__ import annotations

from typing import Any

import numpy as np

from grblas_gpu import FP64, INT64, Matrix, Vector, binary, indexunary, monoid, select, semiring, unary
from grblas_gpu.progress import tick

from ._checks import check_count, check_non_negative, check_numeric, check_square, check_tolerance, check_vertex_memory

__all__ = ["louvain", "modularity_matrix_form", "one_hot"]

BATCHES = 4
"""The vertices of a level are split at random into this many batches, moved one batch at a time."""

POLISH_ROUNDS = 2
"""After the levels, the original vertices move again from the partition found (then new levels
from there) at most this many times."""

HOST_ENTRIES = 1 << 22
"""A level whose matrix has at most this many entries chooses its moves on the host (see
:class:`_HostLevel`): below it, a batch's two dozen device operations cost more than one
transfer of its product and NumPy over it (on one H100: Kronecker scale 12, 97 K entries,
1.75 s on the device, 0.31 s so; scale 14, 426 K entries, over 12 s on the device)."""

MAX_SWEEPS = 100
"""A level stops after this many sweeps over all batches, even if some vertex could still move."""


def louvain(A: Matrix, resolution: float = 1.0, threshold: float = 1e-7, max_level: int | None = None,
            seed: Any = None) -> Vector:
    """The community of every vertex (INT64, ``0 .. k-1``) maximising modularity, by Louvain.

    The graph is undirected: ``W = A`` where ``A`` is symmetric, else ``max(A, A')``
    entrywise (either present entry).  Weights must be >= 0; BOOL counts 1 an edge.  With
    ``M`` equal to ``W`` except a self-loop's weight doubled (so that row sums are
    networkx's weighted degrees ``k`` and the sum of ``M`` is ``2m``), the modularity of a
    partition with one-hot membership matrix ``P`` (``P[v, c] = 1`` for ``v`` in ``c``) is::

        Q = trace(P' M P) / 2m  -  resolution * sum_c (d_c / 2m)^2,     d = k' P

    Louvain repeats two phases until a level adds at most ``threshold`` to ``Q`` (or
    ``max_level`` levels ran).  *Local moves*: a vertex joins the neighbouring community
    that raises ``Q`` most, if any does.  In algebra, for a batch ``B`` of vertices::

        K      = diag(B) E plus.times P         K[v, c]: v's edge weight into community c
        score  = K<!P> - resolution * k_v * d_c / 2m       (other communities: mxm by diag)
        own    = (K .* P) reduced by rows - resolution * k_v * (d_own - k_v) / 2m
        best   = max of score by rows;  target = the least column where score == best
        v moves to target where best > own

    ``E`` is ``M`` without its diagonal.  Moving every vertex at once lets neighbours
    swap communities for ever, so the vertices go in ``BATCHES`` random batches (a
    sweep moves each batch in turn, with ``P`` and ``d`` updated between batches),
    which approaches the sequential order of the original method; a singleton moves to
    a singleton community only if that community's id is smaller (the tie rule of Lu,
    Halappanavar and Kalyanaraman).  Sweeps repeat until nothing moves or a sweep adds at
    most ``threshold`` to ``Q`` (a batch's moves are made on a stale view of each other, so
    a sweep can undo the last; the better of the two is kept).  *Aggregation*:
    each community becomes one vertex, ``M := P' M P`` (two products), whose diagonal is
    the (doubled) weight inside each community, and the next level moves those vertices.
    When the levels end, the original vertices move once more from the partition found
    (a refinement Louvain lacks; new levels follow if they moved, ``POLISH_ROUNDS`` times).

    ``seed`` (an int or ``None``, through ``numpy.random.default_rng``) draws the batches,
    as networkx's ``seed`` draws its visiting order: results are reproducible for a given
    seed, not equal to networkx's.  Host work: the community labels (``n`` integers)
    travel once a batch to build ``P``; the products run on A's backend.  On a level of at
    most ``HOST_ENTRIES`` entries (a small graph, or the later levels of any), the rest of
    a batch's arithmetic (scores, best community, gain) is done with NumPy on ``K``'s
    entries, brought over once a batch, and ``Q`` from the level's entries, brought over
    once a level: the same decisions, without two dozen small device operations a batch,
    each of which costs a GPU more in launch and synchronisation than its work.  Isolated
    vertices keep their own community.

    Reference: V. D. Blondel, J.-L. Guillaume, R. Lambiotte, E. Lefebvre, "Fast unfolding
    of communities in large networks", J. Stat. Mech. (2008) P10008; H. Lu, M.
    Halappanavar, A. Kalyanaraman, "Parallel heuristics for scalable community detection",
    Parallel Computing 47 (2015); networkx ``louvain_communities``.
    """
    resolution, threshold, levels = community_arguments(A, "louvain", resolution, threshold, max_level, 96, 40)
    n, backend = A.nrows, A.backend
    rng = np.random.default_rng(seed)
    M = _level_matrix(A)
    member = np.arange(n)
    two_m = M.reduce_scalar(monoid.plus).new().value or 0.0
    if two_m <= 0.0 or levels == 0:
        return Vector.from_coo(np.arange(n), member, size=n, dtype=INT64, backend=backend)
    M0, level = M, 0
    for _ in range(POLISH_ROUNDS + 1):
        M, member, level = _levels(M, member, two_m, resolution, threshold, levels, level, rng)
        if levels is not None and level >= levels:
            break
        # Polish: local moves of the original vertices, starting from the partition found.
        labels = _move_vertices(M0, two_m, resolution, threshold, rng, start=member)
        if np.array_equal(labels, member):
            break
        _, member = np.unique(labels, return_inverse=True)
        M = _aggregate(M0, member)
    _, member = np.unique(member, return_inverse=True)
    return Vector.from_coo(np.arange(n), member, size=n, dtype=INT64, backend=backend)


def community_arguments(A: Matrix, name: str, resolution: float, threshold: float, max_level: int | None,
                        bytes_per_vertex: int, host_per_vertex: int) -> tuple[float, float, int | None]:
    """:func:`louvain`'s and ``leiden``'s arguments checked: (resolution, threshold, levels)."""
    check_square(A, name)
    check_numeric(A, name)
    check_vertex_memory(A, name, bytes_per_vertex, host_per_vertex=host_per_vertex)
    check_non_negative(A, name)
    resolution = check_tolerance(resolution, "resolution", name)
    threshold = check_tolerance(threshold, "threshold", name)
    return resolution, threshold, None if max_level is None else check_count(max_level, "max_level", name)


def _levels(M: Matrix, member: np.ndarray, two_m: float, resolution: float, threshold: float,
            levels: int | None, level: int, rng: np.random.Generator) -> tuple[Matrix, np.ndarray, int]:
    """Levels of local moves and aggregation from ``M`` (whose vertices are the communities of
    ``member``) until one adds at most ``threshold`` to ``Q``: the last ``M``, ``member`` and
    the level count."""
    q = _modularity(M, two_m, resolution)
    while levels is None or level < levels:
        tick("louvain", levels)
        labels = _move_vertices(M, two_m, resolution, threshold, rng)
        if np.array_equal(labels, np.arange(M.nrows)):
            break  # no vertex moved: the partition is final
        _, compact = np.unique(labels, return_inverse=True)
        member = compact[member]
        M = _aggregate(M, compact)
        level += 1
        new_q = _modularity(M, two_m, resolution)
        if new_q - q <= threshold:
            break
        q = new_q
    return M, member, level


def _aggregate(M: Matrix, labels: np.ndarray) -> Matrix:
    """``P' M P``: one vertex a community, the weight inside each on its diagonal."""
    P = one_hot(labels, int(labels.max()) + 1, M.backend)
    M = P.T.mxm(M, semiring.plus_times[FP64]).new().mxm(P, semiring.plus_times[FP64]).new()
    M.is_symmetric = True
    return M


def modularity_matrix_form(A: Matrix, communities: Vector, resolution: float = 1.0) -> float:
    """The modularity of a partition (a community id a vertex) of the undirected graph of
    ``A``, as :func:`louvain` defines it (networkx ``modularity`` on the same graph)."""
    M = _level_matrix(A)
    two_m = M.reduce_scalar(monoid.plus).new().value or 0.0
    if two_m <= 0.0:
        return 0.0
    ids, labels = communities.to_coo()
    P = one_hot(labels, int(labels.max()) + 1 if len(labels) else 0, A.backend, rows=ids, nrows=A.nrows)
    Q = P.T.mxm(M, semiring.plus_times[FP64]).new().mxm(P, semiring.plus_times[FP64]).new()
    return _modularity(Q, two_m, resolution)


def one_hot(labels: np.ndarray, ncols: int, backend: str, rows: np.ndarray | None = None,
            nrows: int | None = None) -> Matrix:
    """The membership matrix ``P[v, labels[v]] = 1.0`` (FP64), one row a vertex."""
    rows = np.arange(len(labels)) if rows is None else rows
    nrows = len(labels) if nrows is None else nrows
    return Matrix.from_coo(rows, labels, 1.0, nrows=nrows, ncols=max(ncols, 1), dtype=FP64, backend=backend)


def _level_matrix(A: Matrix) -> Matrix:
    """``M``: the undirected graph of ``A`` in FP64 with each self-loop's weight doubled."""
    W = A.dup(FP64)
    if not W.is_symmetric:
        W = W.ewise_add(W.T, binary.max).new()
    M = W.select(select.offdiag).new()
    M(binary.plus) << W.select(select.diag).new().apply(binary.times, right=2.0)
    M.is_symmetric = True
    return M


def _modularity(M: Matrix, two_m: float, resolution: float) -> float:
    """``Q`` of the partition into single vertices of the aggregated graph ``M``."""
    inside = M.select(select.diag).new().reduce_scalar(monoid.plus).new().value or 0.0
    d = M.reduce_rowwise(monoid.plus).new()
    squares = d.ewise_mult(d, binary.times).new().reduce(monoid.plus).new().value or 0.0
    return inside / two_m - resolution * squares / two_m**2


def _move_vertices(M: Matrix, two_m: float, resolution: float, threshold: float, rng: np.random.Generator,
                   start: np.ndarray | None = None) -> np.ndarray:
    """The local-moving phase on ``M`` from the labels ``start`` (default: one community a
    vertex): the community label of each vertex (host array)."""
    n, backend = M.nrows, M.backend
    E = M.select(select.offdiag).new()
    k = M.reduce_rowwise(monoid.plus).new()
    batch_of = rng.permutation(n) % min(BATCHES, n)
    rows = [Vector.from_coo(np.flatnonzero(batch_of == b), True, size=n, backend=backend)
            for b in range(min(BATCHES, n))]
    batches = [b.diag().mxm(E, semiring.any_second[FP64]).new() for b in rows]
    labels = np.arange(n) if start is None else start.copy()
    host = _HostLevel(M, k) if M.nvals <= HOST_ENTRIES else None

    def quality(labels: np.ndarray) -> float:
        return host.modularity(labels, two_m, resolution) if host else _partition_modularity(M, labels, two_m, resolution)
    best, best_q = labels.copy(), quality(labels)
    for _ in range(MAX_SWEEPS):
        moved = 0
        for batch, Eb in zip(rows, batches):
            if not Eb.nvals:
                continue
            if host:
                moved += host.move_batch(Eb, labels, two_m, resolution)
            else:
                moved += _move_batch(Eb, batch, labels, k, two_m, resolution)
        if not moved:
            return labels
        # Moves of one batch are made together, on the batch's stale view of each other, so
        # a sweep may undo the last one: stop when a sweep adds at most threshold to Q.
        q = quality(labels)
        if q - best_q <= threshold:
            return labels if q > best_q else best
        best, best_q = labels.copy(), q
    return best


class _HostLevel:
    """A small level's local moves decided on the host: each batch's product ``K = E_b P``
    runs on the matrices' backend and comes back as its entries (one transfer), from which
    the best community of each vertex and the partition's ``Q`` are read with NumPy, in
    place of the ~25 small device operations of :func:`_move_batch` (the same decisions: the
    same gains, the same least-column tie rule)."""

    def __init__(self, M: Matrix, k: Vector) -> None:
        self.k = k.to_dense(fill_value=0.0)
        self.rows, self.cols, self.weights = M.to_coo()

    def modularity(self, labels: np.ndarray, two_m: float, resolution: float) -> float:
        """``Q`` of the partition ``labels``."""
        inside = float(self.weights[labels[self.rows] == labels[self.cols]].sum())
        d = np.bincount(labels, weights=self.k, minlength=len(labels))
        return inside / two_m - resolution * float(np.dot(d, d)) / two_m**2

    def move_batch(self, Eb: Matrix, labels: np.ndarray, two_m: float, resolution: float) -> int:
        """:func:`_move_batch` with the choice made on the host."""
        n, k = len(labels), self.k
        r, c, w = Eb.mxm(one_hot(labels, n, Eb.backend), semiring.plus_times[FP64]).new().to_coo()
        if not len(r):
            return 0
        scale = resolution / two_m
        d = np.bincount(labels, weights=k, minlength=n)
        starts = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
        v = r[starts]
        is_own = c == labels[r]
        own = scale * k[v] * (k[v] - d[labels[v]])
        np.add.at(own, np.searchsorted(v, r[is_own]), w[is_own])
        score = np.where(is_own, -np.inf, w - scale * k[r] * d[c])
        best = np.maximum.reduceat(score, starts)
        at_best = score == np.repeat(best, np.diff(np.r_[starts, len(r)]))
        target = np.minimum.reduceat(np.where(at_best, c, n), starts)
        go = best - own > 1e-12 * two_m
        return _apply_moves(labels, v[go], target[go])


def _partition_modularity(M: Matrix, labels: np.ndarray, two_m: float, resolution: float) -> float:
    """``Q`` of the partition ``labels`` of the vertices of ``M``."""
    return _modularity(_aggregate(M, np.unique(labels, return_inverse=True)[1]), two_m, resolution)


def _move_batch(Eb: Matrix, batch: Vector, labels: np.ndarray, k: Vector, two_m: float,
                resolution: float) -> int:
    """Move the vertices of one batch (rows of ``Eb``) to their best community, in place in
    ``labels``; returns how many moved."""
    n, backend = Eb.nrows, Eb.backend
    P = one_hot(labels, n, backend)
    d = k.vxm(P, semiring.plus_times[FP64]).new()  # the degree sum of every community
    K = Eb.mxm(P, semiring.plus_times[FP64]).new()
    scale = resolution / two_m
    # own[v] = K[v, own] - scale * k_v * (d_own - k_v), for every vertex of the batch
    d_own = P.mxv(d, semiring.any_second[FP64]).new(mask=batch.S)
    own = d_own.ewise_mult(k, binary.minus).new().ewise_mult(k, binary.times).new().apply(binary.times, right=-scale).new()
    own(binary.plus) << K.ewise_mult(P, binary.first).new().reduce_rowwise(monoid.plus)
    # score[v, c] = K[v, c] - scale * k_v * d_c, for the other communities c
    other = K.apply(unary.identity).new(mask=~P.S)
    if not other.nvals:
        return 0
    penalty = k.diag().mxm(other.mxm(d.diag(), semiring.any_second[FP64]).new(), semiring.plus_times[FP64]).new()
    score = other.ewise_mult(penalty.apply(binary.times, right=scale).new(), binary.minus).new()
    best = score.reduce_rowwise(monoid.max).new()
    at_best = best.diag().mxm(score, semiring.any_first[FP64]).new()
    ties = score.ewise_mult(at_best, binary.eq).new().select(select.valueeq, True).new()
    target = ties.apply(indexunary.colindex, 0).new(dtype=INT64).reduce_rowwise(monoid.min).new()
    gain = best.ewise_mult(own, binary.minus).new().select(select.valuegt, 1e-12 * two_m).new()
    movers, to = target.apply(unary.identity).new(mask=gain.S).to_coo()
    return _apply_moves(labels, movers, to)


def _apply_moves(labels: np.ndarray, movers: np.ndarray, to: np.ndarray) -> int:
    """Move each of ``movers`` to its community in ``to``, in place in ``labels``; returns how
    many moved."""
    if not len(movers):
        return 0
    size = np.bincount(labels, minlength=len(labels))
    # A singleton joins a singleton only if that one's id is smaller: no endless swaps.
    keep = (size[labels[movers]] > 1) | (size[to] > 1) | (to < labels[movers])
    labels[movers[keep]] = to[keep]
    return int(keep.sum())
