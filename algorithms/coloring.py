"""Greedy graph colouring by Jones-Plassmann rounds, largest degree first."""

from __future__ import annotations

from typing import Any

import numpy as np

from grblas_gpu import INT64, UINT64, Matrix, Vector, binary, monoid, select, semiring, unary
from grblas_gpu.progress import tick

from ._checks import check_numeric, check_square, check_vertex_memory
from .independent_set import local_maxima

__all__ = ["greedy_coloring"]

WORD = 64
"""Colours per word of the used-colour bitmaps: colour ``c`` is bit ``c % 64`` of word ``c // 64``."""


def greedy_coloring(A: Matrix, seed: Any = None) -> Vector:
    """A proper colouring: an INT64 Vector with a colour ``0 .. k-1`` for every vertex.

    Adjacent vertices get different colours and every colour ``0 .. k-1`` is used.  Edge
    directions are ignored (the graph is ``S = A + A'``), and so are self-loops and values.

    Math (Jones and Plassmann): every vertex gets a distinct priority, larger for a larger
    degree, ties broken by a random permutation from ``numpy.random.default_rng(seed)``
    (``degree * n + permutation(n) + 1``: networkx's ``largest_first`` order, which uses
    fewer colours than a random one).  Each round, the uncoloured vertices whose priority
    beats every uncoloured neighbour's (``S max.second p`` over the uncoloured ones, an
    independent set ``join``) take the smallest colour that no neighbour has.  That first
    free colour is read from a bitmap of the colours free around each vertex, one product
    a word of 64 colours: with ``word[u] = ~(1 << c)`` for each ``u`` coloured ``c`` (in
    the word's range) and ``Z`` the pattern of ``S`` valued 0::

        free<join>  = Z band.bor word            (all ones where no neighbour is coloured)
        lowest      = free & -free               (the lowest free bit; 0 where the word is full)

    (its position read on the host from the exponent of the power of two, exactly: a float
    log2 on the GPU may fall just short of the integer), and the vertices whose word is
    full go on to the next word.  This is the colouring the
    sequential greedy algorithm gives in priority order, so at most ``max degree + 1``
    colours.  The rounds number at least the colours; each reads the new colours (one
    entry per vertex coloured) on the host.  networkx's ``strategy`` and ``interchange``
    are not offered: the order is the one above.

    Reference: M. T. Jones and P. E. Plassmann, "A parallel graph coloring heuristic",
    SIAM J. Sci. Comput. 14 (1993); W. Hasenplaugh, T. Kaler, T. B. Schardl, C. E.
    Leiserson, "Ordering heuristics for parallel graph coloring", SPAA 2014; networkx
    ``greedy_color``.
    """
    check_square(A, "greedy_coloring")
    check_numeric(A, "greedy_coloring")
    check_vertex_memory(A, "greedy_coloring", 64, host_per_vertex=32)
    n, backend = A.nrows, A.backend
    E = A.select(select.offdiag).new()
    S = E if E.is_symmetric else E.ewise_add(E.T, binary.first).new()
    S.is_symmetric = True
    Z = S.apply(binary.second, right=0).new(dtype=UINT64)
    Z.is_symmetric = True
    live = degree_priorities(S, seed)
    words = [Vector(UINT64, n, backend=backend)]
    vertices, colours, left = [], [], n
    while left:
        tick("greedy_coloring")
        join = local_maxima(S, live)
        live(~join.S, replace=True) << live
        v, c = first_free_colours(Z, join, words)
        add_colours(words, v, c)
        vertices.append(v)
        colours.append(c)
        left -= len(v)
    ids = np.concatenate(vertices) if vertices else np.arange(0)
    return Vector.from_coo(ids, np.concatenate(colours) if colours else ids, size=n, dtype=INT64, backend=backend)


def degree_priorities(S: Matrix, seed: Any) -> Vector:
    """A full INT64 Vector of distinct priorities: ``degree * n + permutation(n) + 1``, the
    permutation from ``numpy.random.default_rng(seed)``."""
    n = S.nrows
    order = np.random.default_rng(seed).permutation(n) + 1
    p = Vector.from_coo(np.arange(n), order, size=n, dtype=INT64, backend=S.backend)
    degree = S.apply(unary.one[INT64]).new().reduce_rowwise(monoid.plus).new()
    p(binary.plus) << degree.apply(binary.times, right=n)
    return p


def first_free_colours(Z: Matrix, join: Vector, words: list[Vector]) -> tuple[np.ndarray, np.ndarray]:
    """The vertices of ``join`` and, for each, the smallest colour none of its neighbours
    (in ``Z``'s pattern) holds, as host arrays.  ``words[w]``: ``~(1 << (c - 64 w))`` at each
    vertex coloured ``c`` in ``64 w .. 64 w + 63`` (see :func:`add_colours`)."""
    n, backend = Z.nrows, Z.backend
    pending, w, out_v, out_c = join, 0, [], []
    while True:
        free = Vector(UINT64, n, backend=backend)
        if w < len(words):
            free(pending.S) << Z.mxv(words[w], semiring.band_bor[UINT64])
        lowest = free.apply(unary.ainv).new().ewise_mult(free, binary.band).new()  # 0: the word is full
        lowest = lowest.ewise_union(pending, binary.first, 1, 0).new(dtype=UINT64)  # 1: all free
        v, bit = lowest.to_coo()
        found = bit != 0
        out_v.append(v[found])
        out_c.append(WORD * w + np.frexp(bit[found].astype(np.float64))[1] - 1)  # exact: powers of two
        if found.all():
            break
        pending, w = Vector.from_coo(v[~found], True, size=n, backend=backend), w + 1
    order = np.argsort(np.concatenate(out_v), kind="stable")
    return np.concatenate(out_v)[order], np.concatenate(out_c)[order]


def add_colours(words: list[Vector], vertices: np.ndarray, colours: np.ndarray) -> None:
    """Record that each of ``vertices`` holds its colour in ``colours`` (host arrays) in the
    used-colour words (one Vector a word, at least one given; more added as needed)."""
    n, backend = words[0].size, words[0].backend
    for w in np.unique(colours // WORD):
        at = colours // WORD == w
        bits = ~(np.uint64(1) << (colours[at] % WORD).astype(np.uint64))
        while len(words) <= w:
            words.append(Vector(UINT64, n, backend=backend))
        words[w](binary.first) << Vector.from_coo(vertices[at], bits, size=n, dtype=UINT64, backend=backend)
