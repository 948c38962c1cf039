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
    one-hot colour matrix ``C`` shifted by one (``C[u, colour[u] + 1]``, and ``C[u, 0]``
    for every ``u``: all hold colour -1) and the shift ``T[c + 1, c]``, that first free
    colour (the minimum excluded value of the row) is one pass of algebra::

        used  = diag(join) any.pair S any.pair C    used[v, c + 1]: a neighbour has c
        next  = used any.pair T                     next[v, c] = used[v, c + 1]
        first = min.reduce rows of (c at used[v, c]) where next is empty

    (an isolated vertex takes colour 0 before the rounds).
    This is the colouring the sequential greedy algorithm gives in priority order, so at
    most ``max degree + 1`` colours.  The rounds number at least the colours; each reads
    the new colours (one entry per vertex coloured) on the host.
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
    degree = S.apply(unary.one[INT64]).new().reduce_rowwise(monoid.plus).new()
    live = degree_priorities(degree, seed)  # vertices with neighbours: isolated ones get 0
    ids = np.arange(n + 2)
    isolated = np.setdiff1d(ids[:n], degree.to_coo()[0])
    C = Matrix.from_coo(ids[:n], 0 * ids[:n], True, nrows=n, ncols=n + 2, backend=backend)  # all hold colour -1
    T = Matrix.from_coo(ids[1:], ids[:-1], True, nrows=n + 2, ncols=n + 2, backend=backend)
    vertices, colours, left = [isolated], [0 * isolated], n - len(isolated)
    while left:
        join = local_maxima(S, live)
        v, c = first_free_colour(S, join, C, T).to_coo()
        C(binary.lor) << Matrix.from_coo(v, c + 1, True, nrows=n, ncols=n + 2, backend=backend)
        live(~join.S, replace=True) << live
        vertices.append(v)
        colours.append(c)
        left -= len(v)
    return Vector.from_coo(np.concatenate(vertices), np.concatenate(colours), size=n, dtype=INT64, backend=backend)


def degree_priorities(degree: Vector, seed: Any) -> Vector:
    """Distinct INT64 priorities where ``degree`` has entries: ``degree * n + permutation(n)
    + 1`` with the permutation from ``numpy.random.default_rng(seed)``."""
    n = degree.size
    order = np.random.default_rng(seed).permutation(n) + 1
    p = degree.apply(binary.times, right=n).new()
    p(p.S, binary.plus) << Vector.from_coo(np.arange(n), order, size=n, dtype=INT64, backend=degree.backend)
    return p


def first_free_colour(S: Matrix, join: Vector, C: Matrix, T: Matrix) -> Vector:
    """For each entry of ``join`` with neighbours in ``S``, the smallest colour that none of
    them holds.  ``C``: the colours one-hot and shifted by one (``C[u, colour[u] + 1]``) and
    ``C[u, 0]`` for every ``u``, colour -1, so that a free colour always lies just above a
    used one; ``T``: the shift ``T[c + 1, c]``."""
    used = join.diag().mxm(S, semiring.any_pair[BOOL]).new().mxm(C, semiring.any_pair[BOOL]).new()
    after = used.mxm(T, semiring.any_pair[BOOL]).new()  # after[v, c] = used[v, c + 1]
    free = used.apply(indexunary.colindex, 0).new(mask=~after.S)  # colour c free, c - 1 used
    return free.reduce_rowwise(monoid.min).new()
