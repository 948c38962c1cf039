"""A maximal independent set by Luby's algorithm (random priorities, one max-mxv a round)."""

from __future__ import annotations

from typing import Any

import numpy as np

from grblas_gpu import BOOL, INT64, Matrix, Vector, binary, select, semiring
from grblas_gpu.progress import tick

from ._checks import check_numeric, check_square, check_vertex_memory

__all__ = ["maximal_independent_set"]


def maximal_independent_set(A: Matrix, seed: Any = None) -> Vector:
    """A maximal independent set: a BOOL Vector, ``True`` at its members and no other entries.

    No two members are adjacent (independent), and every other vertex has a member as
    neighbour (maximal: no vertex can be added).  Edge directions are ignored (the graph is
    ``S = A + A'``) and so are self-loops and values.

    Math (Luby's algorithm with priorities): every vertex draws a distinct random priority
    ``p`` (a permutation of ``1..n`` from ``numpy.random.default_rng(seed)``).  Each round,
    over the vertices still live (neither in the set nor next to a member)::

        best  = S max.second p_live           (the largest live neighbour's priority)
        join  = live vertices with p > best   (or no live neighbour)
        set  |= join;  live -= join + (S any.pair join)

    Two neighbours never join in one round (only the larger priority can beat the other),
    and the live vertex of largest priority always joins, so the rounds end (after
    O(log^2 n) of them with high probability for random priorities: the result is the
    greedy set in priority order, Blelloch, Fineman and Shun 2012).  ``live.nvals`` is the
    one host read a round.  ``seed`` (an int, a ``numpy.random.Generator`` or None) makes
    the set reproducible; networkx's ``nodes`` (vertices forced in) is not offered.

    Reference: M. Luby, "A simple parallel algorithm for the maximal independent set
    problem", SIAM J. Comput. 15 (1986); LAGraph ``LAGraph_MaximalIndependentSet``;
    networkx ``maximal_independent_set``.
    """
    check_square(A, "maximal_independent_set")
    check_numeric(A, "maximal_independent_set")
    check_vertex_memory(A, "maximal_independent_set", 48, host_per_vertex=16)
    n, backend = A.nrows, A.backend
    E = A.select(select.offdiag).new()
    live = random_priorities(n, seed, backend)
    members = Vector(BOOL, n, backend=backend)
    while live.nvals:
        tick("maximal_independent_set")
        join = local_maxima(E, live)
        members(join.S) << True
        live(~join.S, replace=True) << live
        live(~neighbours(E, join).S, replace=True) << live
    return members


def random_priorities(n: int, seed: Any, backend: str) -> Vector:
    """A full INT64 Vector holding a random permutation of ``1..n`` (distinct, so no ties)."""
    priority = np.random.default_rng(seed).permutation(n) + 1
    return Vector.from_coo(np.arange(n), priority, size=n, dtype=INT64, backend=backend)


def neighbours(E: Matrix, x: Vector, add: Any = semiring.any_pair[BOOL], accum: Any = binary.lor) -> Vector:
    """``S add x`` with ``S = E + E'`` (E's transpose is skipped when E is symmetric;
    ``accum`` is the semiring's monoid as a binary operator): over ``any_pair`` the
    vertices next to an entry of ``x``; over ``max_second`` each vertex's largest
    neighbouring value of ``x``."""
    out = E.mxv(x, add).new()
    if not E.is_symmetric:
        out(accum) << E.T.mxv(x, add)
    return out


def local_maxima(E: Matrix, live: Vector) -> Vector:
    """The entries of ``live`` (priorities) larger than every live neighbour's, as ``True``
    (a live vertex without live neighbours counts)."""
    best = neighbours(E, live, semiring.max_second[INT64], binary.max)
    beats = live.ewise_union(best, binary.gt, 0, 0).new(mask=live.S)
    return beats.select(select.valueeq, True).new()
