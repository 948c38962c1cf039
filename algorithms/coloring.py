"""Greedy graph colouring by Jones-Plassmann rounds, largest degree first."""

from __future__ import annotations

from typing import Any

import numpy as np

from grblas_gpu import BOOL, INT64, Matrix, Vector, binary, indexunary, monoid, select, semiring, unary

from ._checks import check_numeric, check_square, check_vertex_memory
from .independent_set import local_maxima

__all__ = ["greedy_coloring"]


def greedy_coloring(A: Matrix, seed: Any = None) -> Vector:
    """A proper colouring: an INT64 Vector with a colour ``0 .. k-1`` for every vertex.

    Adjacent vertices get different colours and every colour ``0 .. k-1`` is used.  Edge
    directions are ignored (the graph is ``S = A + A'``), and so are self-loops and values.

    Math (Jones and Plassmann): every vertex gets a distinct priority, larger for a larger
    degree, ties broken by a random permutation from ``numpy.random.default_rng(seed)``
    (``degree * n + permutation(n) + 1``: networkx's ``largest_first`` order, which uses
    fewer colours than a random one).  Each round, the uncoloured vertices whose priority
    beats every uncoloured neighbour's (``S max.second p`` over the uncoloured ones, an
    independent set ``join``) take the smallest colour that no neighbour has.  With the
    one-hot colour matrix ``C`` (``C[u, colour[u]]``, uncoloured rows empty) and the shift
    ``T[c + 1, c]``, that first free colour (the minimum excluded value of the row) is one
    pass of algebra::

        used  = diag(join) any.pair S any.pair C     used[v, c]: a neighbour of v has c
        next  = used any.pair T                      next[v, c] = used[v, c + 1]
        gap   = (c + 1 at used[v, c]) where next is empty: the free colours above a used one
        first = 0 where used[v, 0] is empty, else min of gap's row v

    This is the colouring the sequential greedy algorithm gives in priority order, so at
    most ``max degree + 1`` colours.  The rounds number at least the colours; each reads
    the uncoloured count and the new colours (one entry per vertex coloured) on the host.
    networkx's ``strategy`` and ``interchange`` are not offered: the order is the one above.

    Reference: M. T. Jones and P. E. Plassmann, "A parallel graph coloring heuristic",
    SIAM J. Sci. Comput. 14 (1993); W. Hasenplaugh, T. Kaler, T. B. Schardl, C. E.
    Leiserson, "Ordering heuristics for parallel graph coloring", SPAA 2014; networkx
    ``greedy_color``.
    """
    check_square(A, "greedy_coloring")
    check_numeric(A, "greedy_coloring")
    check_vertex_memory(A, "greedy_coloring", 96, host_per_vertex=24)
    n, backend = A.nrows, A.backend
    E = A.select(select.offdiag).new()
    S = E if E.is_symmetric else E.ewise_add(E.T, binary.first).new()
    S.is_symmetric = True
    live = degree_priorities(S, seed)
    colour = Vector(INT64, n, backend=backend)
    C = Matrix(BOOL, n, n + 1, backend=backend)
    ids = np.arange(n + 1)
    T = Matrix.from_coo(ids[1:], ids[:-1], True, nrows=n + 1, ncols=n + 1, backend=backend)
    while live.nvals:
        join = local_maxima(S, live)
        first = first_free_colour(S, join, C, T)
        colour(binary.first) << first
        v, c = first.to_coo()
        C(binary.lor) << Matrix.from_coo(v, c, True, nrows=n, ncols=n + 1, backend=backend)
        live(~join.S, replace=True) << live
    return colour


def degree_priorities(S: Matrix, seed: Any) -> Vector:
    """A full INT64 Vector of distinct priorities: ``degree * n + permutation(n) + 1`` with
    the permutation from ``numpy.random.default_rng(seed)``."""
    n = S.nrows
    order = np.random.default_rng(seed).permutation(n) + 1
    p = Vector.from_coo(np.arange(n), order, size=n, dtype=INT64, backend=S.backend)
    degree = S.apply(unary.one[INT64]).new().reduce_rowwise(monoid.plus).new()
    p(binary.plus) << degree.apply(binary.times, right=n)
    return p


def first_free_colour(S: Matrix, join: Vector, C: Matrix, T: Matrix) -> Vector:
    """For each entry of ``join``, the smallest colour that none of its neighbours in ``S``
    holds (``C``: the one-hot colours, ``T``: the shift ``T[c + 1, c]``)."""
    used = join.diag().mxm(S, semiring.any_pair[BOOL]).new().mxm(C, semiring.any_pair[BOOL]).new()
    after = used.mxm(T, semiring.any_pair[BOOL]).new()  # after[v, c] = used[v, c + 1]
    gap = used.apply(indexunary.colindex, 1).new(mask=~after.S)  # c + 1 free, c used
    first = join.apply(binary.times, right=0).new(dtype=INT64)
    first(used[:, 0].new().S) << gap.reduce_rowwise(monoid.min)
    return first
