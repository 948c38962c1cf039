"""Leiden community detection: Louvain's moves, then a refinement that keeps communities connected."""

from __future__ import annotations

from typing import Any

import numpy as np

from grblas_gpu import FP64, INT64, Matrix, Vector, binary, monoid, select, semiring
from grblas_gpu.progress import tick

from .louvain import BATCHES, _aggregate, _level_matrix, _modularity, _move_vertices, community_arguments, one_hot

__all__ = ["leiden"]


def leiden(A: Matrix, resolution: float = 1.0, threshold: float = 1e-7, max_level: int | None = None,
           seed: Any = None) -> Vector:
    """The community of every vertex (INT64, ``0 .. k-1``) maximising modularity, by Leiden.

    The graph, ``M`` and the modularity ``Q`` are :func:`~grblas_gpu.algorithms.louvain`'s.
    Each level has three phases:

    1. *Local moves* (Louvain's, in random batches) from the partition the level starts
       with: communities ``S``, one-hot ``P``.
    2. *Refinement*: within each community, start from single vertices and merge a vertex
       that is still alone into a cluster ``C`` of its own community, the one of largest
       gain ``K[v, C] - resolution * k_v * d_C / 2m`` (``K = E R``, ``R`` the clusters'
       one-hot matrix), where the gain is > 0 and both are well connected to the rest of
       the community::

           E(v, S - v) >= resolution * k_v (d_S - k_v) / 2m
           E(C, S - C) >= resolution * d_C (d_S - d_C) / 2m,   E(C, S - C) = (w' R)[C] - (R' E R)[C, C]

       with ``w[v] = (E P)[v, S(v)]`` (a masked reduction) and ``d = k' R``.  A cluster
       grows only by vertices joined to it by an edge, so every cluster is connected.  The
       products run on A's backend; each batch's candidate entries of ``K`` (its vertices'
       edges) and the per-cluster sums come to the host for the choice.
    3. *Aggregation* by the refined clusters, ``M := R' M R``; the aggregate vertices start
       the next level in the community of their cluster (not alone), so a community that
       the moves left badly connected can split at the next level.

    Levels repeat until the moves leave every aggregate vertex in its own community, the
    level adds at most ``threshold`` to ``Q``, or ``max_level`` levels ran.  The refinement
    here is greedy (the largest gain), where Traag et al. draw the cluster at random with
    probability ``exp(gain / theta)``: the limit ``theta -> 0``.  ``seed`` draws the batches.

    Reference: V. A. Traag, L. Waltman, N. J. van Eck, "From Louvain to Leiden: guaranteeing
    well-connected communities", Scientific Reports 9, 5233 (2019).
    """
    resolution, threshold, levels = community_arguments(A, "leiden", resolution, threshold, max_level, 128, 56)
    n, backend = A.nrows, A.backend
    rng = np.random.default_rng(seed)
    M = _level_matrix(A)
    member = np.arange(n)  # the aggregate vertex of each vertex
    two_m = M.reduce_scalar(monoid.plus).new().value or 0.0
    if two_m <= 0.0 or levels == 0:
        return Vector.from_coo(np.arange(n), member, size=n, dtype=INT64, backend=backend)
    start: np.ndarray | None = None
    q, level = _modularity(M, two_m, resolution), 0
    while True:
        tick("leiden")
        labels = _move_vertices(M, two_m, resolution, threshold, rng, start=start)
        _, labels = np.unique(labels, return_inverse=True)
        if labels.max() + 1 == M.nrows:
            break  # every aggregate vertex alone: nothing to merge
        refined = _refine(M, labels, two_m, resolution, rng)
        if refined.max() + 1 == M.nrows:  # no vertex merged: aggregate by the communities
            refined = labels
        member = refined[member]
        start = np.zeros(refined.max() + 1, dtype=np.int64)
        start[refined] = labels  # each cluster starts in its community
        M = _aggregate(M, refined)
        level += 1
        new_q = _modularity(_aggregate(M, start), two_m, resolution)
        if new_q - q <= threshold or (levels is not None and level >= levels):
            labels = start
            break
        q = new_q
    _, final = np.unique(labels[member], return_inverse=True)
    return Vector.from_coo(np.arange(n), final, size=n, dtype=INT64, backend=backend)


def _refine(M: Matrix, labels: np.ndarray, two_m: float, resolution: float, rng: np.random.Generator) -> np.ndarray:
    """Phase 2: clusters within the communities ``labels`` of ``M``'s vertices (host array)."""
    n, backend = M.nrows, M.backend
    scale = resolution / two_m
    E = M.select(select.offdiag).new()
    k = M.reduce_rowwise(monoid.plus).new()
    k_host = k.to_dense(fill_value=0.0)
    P = one_hot(labels, n, backend)
    d_S = np.zeros(n)
    np.add.at(d_S, labels, k_host)
    inside = E.mxm(P, semiring.plus_times[FP64]).new().ewise_mult(P, binary.first).new()
    w = inside.reduce_rowwise(monoid.plus).new().to_dense(fill_value=0.0)  # E(v, S(v))
    lone_ok = w >= scale * k_host * (d_S[labels] - k_host)  # v well connected to its community
    refined = np.arange(n)
    batch_of = rng.permutation(n) % min(BATCHES, n)
    for b in range(min(BATCHES, n)):
        size = np.bincount(refined, minlength=n)
        movable = np.flatnonzero((batch_of == b) & (size[refined] == 1) & lone_ok & (k_host > 0))
        if len(movable):
            _merge_batch(E, movable, refined, labels, w, k_host, d_S, scale)
    _, refined = np.unique(refined, return_inverse=True)
    return refined


def _merge_batch(E: Matrix, movable: np.ndarray, refined: np.ndarray, labels: np.ndarray, w: np.ndarray,
                 k_host: np.ndarray, d_S: np.ndarray, scale: float) -> None:
    """Merge the lone vertices ``movable`` into their best well-connected cluster, in place."""
    n, backend = E.nrows, E.backend
    R = one_hot(refined, n, backend)
    # Clusters: degree sums, and their weight to the rest of their community.
    d_C = np.bincount(refined, weights=k_host, minlength=n)
    internal = E.mxm(R, semiring.plus_times[FP64]).new().ewise_mult(R, binary.first).new()
    within = np.bincount(refined, weights=w, minlength=n) - np.bincount(
        refined, weights=internal.reduce_rowwise(monoid.plus).new().to_dense(fill_value=0.0), minlength=n)
    community = np.zeros(n, dtype=np.int64)
    community[refined] = labels
    ok = within >= scale * d_C * (d_S[community] - d_C)
    # The batch's weights into each cluster of its own community, well connected, other than its own.
    rows = Vector.from_coo(movable, True, size=n, backend=backend)
    K = rows.diag().mxm(E, semiring.any_second[FP64]).new().mxm(R, semiring.plus_times[FP64]).new()
    r, c, weight = K.to_coo()
    keep = (labels[r] == community[c]) & ok[c] & (c != refined[r])
    r, c = r[keep], c[keep]
    gain = weight[keep] - scale * k_host[r] * d_C[c]
    order = np.lexsort((c, -gain, r))  # per vertex: largest gain, then least cluster
    r, c, gain = r[order], c[order], gain[order]
    first = np.r_[True, r[1:] != r[:-1]] & (gain > 0)
    r, c = r[first], c[first]
    lone = np.bincount(refined, minlength=n)[c] == 1  # a lone vertex joins a lone one of smaller id only
    take = ~lone | (c < refined[r])
    refined[r[take]] = c[take]
