"""Greedy graph colouring by Jones-Plassmann rounds of random priorities."""

from __future__ import annotations

from typing import Any

from grblas_gpu import INT64, Matrix, Vector, binary, monoid, select, semiring

from ._checks import check_numeric, check_square, check_vertex_memory
from .independent_set import local_maxima, random_priorities

__all__ = ["greedy_coloring"]


def greedy_coloring(A: Matrix, seed: Any = None) -> Vector:
    """A proper colouring: an INT64 Vector with a colour ``0 .. k-1`` for every vertex.

    Adjacent vertices get different colours and every colour ``0 .. k-1`` is used.  Edge
    directions are ignored (the graph is ``S = A + A'``), and so are self-loops and values.

    Math (Jones and Plassmann): every vertex draws a distinct random priority (as in
    :func:`~grblas_gpu.algorithms.independent_set.maximal_independent_set`, from
    ``numpy.random.default_rng(seed)``).  Each round, the uncoloured vertices whose priority
    beats every uncoloured neighbour's (``S max.second p`` over the uncoloured ones, an
    independent set) take the smallest colour that no coloured neighbour has::

        N    = (diag(join) any.pair S) any.second diag(colour)   N[v, u] = colour of neighbour u
        c    = 0 on join
        repeat: clash = rows of (diag(c) any.first N) eq N holding a true;  c[clash] += 1

    ``c`` rises through the used colours until none of ``v``'s neighbours has it, the
    first free one.  This is the colouring the sequential greedy algorithm gives in
    priority order, so at most ``max degree + 1`` colours.  One host read a round (are
    vertices left?) and one for each step of ``c``.  networkx's ``strategy`` and
    ``interchange`` are not offered: the order is the random priorities'.

    Reference: M. T. Jones and P. E. Plassmann, "A parallel graph coloring heuristic",
    SIAM J. Sci. Comput. 14 (1993); M. Osama, M. Truong, C. Yang, A. Buluc, J. D. Owens,
    "Graph coloring on the GPU", IPDPSW 2019; networkx ``greedy_color``.
    """
    check_square(A, "greedy_coloring")
    check_numeric(A, "greedy_coloring")
    check_vertex_memory(A, "greedy_coloring", 56, host_per_vertex=16)
    n, backend = A.nrows, A.backend
    E = A.select(select.offdiag).new()
    S = E if E.is_symmetric else E.ewise_add(E.T, binary.first).new()
    live = random_priorities(n, seed, backend)
    colour = Vector(INT64, n, backend=backend)
    while live.nvals:
        join = local_maxima(E, live)
        colour(binary.plus) << first_free_colour(S, join, colour)
        live(~join.S, replace=True) << live
    return colour


def first_free_colour(S: Matrix, join: Vector, colour: Vector) -> Vector:
    """For each entry of ``join``, the smallest colour (>= 0) that none of its neighbours in
    ``S`` holds in ``colour``."""
    N = join.diag().mxm(S, semiring.any_pair[INT64]).new()
    N = N.mxm(colour.diag(), semiring.any_second[INT64]).new()  # N[v, u] = colour[u]
    c = join.apply(binary.times, right=0).new(dtype=INT64)
    while True:
        mine = c.diag().mxm(N, semiring.any_first[INT64]).new()  # mine[v, u] = c[v]
        taken = mine.ewise_mult(N, binary.eq).new().select(select.valueeq, True).new()
        clash = taken.reduce_rowwise(monoid.lor).new()
        if not clash.nvals:
            return c
        c(binary.plus) << clash.apply(binary.times, right=1).new(dtype=INT64)
