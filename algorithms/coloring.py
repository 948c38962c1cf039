"""Greedy graph colouring by speculative rounds, largest degree first."""

from __future__ import annotations

from typing import Any

import numpy as np

from grblas_gpu import INT64, UINT64, Matrix, Vector, binary, monoid, select, semiring, unary
from grblas_gpu.progress import tick

from ._checks import check_numeric, check_square, check_vertex_memory

__all__ = ["greedy_coloring"]

WORD = 64
"""Colours per word of the used-colour bitmaps: colour ``c`` is bit ``c % 64`` of word ``c // 64``."""


def greedy_coloring(A: Matrix, seed: Any = None) -> Vector:
    """A proper colouring: an INT64 Vector with a colour ``0 .. k-1`` for every vertex.

    Adjacent vertices get different colours, every colour ``0 .. k-1`` is used, and a
    vertex of colour ``c`` has neighbours of every colour below ``c`` (as in any greedy
    colouring, so at most ``max degree + 1`` colours).  Edge directions are ignored (the
    graph is ``S = A + A'``), and so are self-loops and values.

    Math (speculative greedy colouring, Gebremedhin and Manne; Catalyurek et al.): every
    vertex gets a distinct priority, larger for a larger degree, ties broken by a random
    permutation from ``numpy.random.default_rng(seed)`` (``degree * n + permutation(n) +
    1``: networkx's ``largest_first`` order, which uses fewer colours than a random one);
    ``H`` holds each edge ``(u, v)`` of ``S`` whose head ``v`` has the larger priority.
    Each round, *every* uncoloured vertex takes, tentatively, the smallest colour that no
    coloured neighbour has; a vertex keeps it unless an uncoloured neighbour of larger
    priority took the same one (that neighbour wins), and the others try again in the
    next round.  The uncoloured vertex of largest priority always keeps its colour, so
    the rounds end, and they number about as many as the colours (Jones-Plassmann's,
    which wait for every neighbour of larger priority, number the longest chain of
    rising priorities: 135 rounds against 38 colours on a Kronecker scale-12 graph).
    Colours are tracked as bitmaps, one product a word of 64 colours: with ``word[u] =
    ~(1 << c)`` for each ``u`` coloured ``c`` (in the word's range) and ``Z`` the pattern
    of ``S`` valued 0::

        free<U>  = Z band.bor word               (all ones where no neighbour is coloured)
        lowest   = free & -free                  (the lowest free bit; 0 where the word is full)
        clash<U> = H band.bor try                (try[v] = ~(1 << t_v) over the uncoloured)

    The products run on A's backend; each round brings their results for the uncoloured
    vertices (one entry each) to the host, where ``lowest`` and the clash bit are read
    (bit positions from the exponent of the power of two, exactly: a float log2 on the GPU
    may fall just short of the integer).  networkx's ``strategy`` and ``interchange`` are
    not offered: the order is the one above, and the colouring may differ from the
    sequential one in that order (the colour counts are close: equal to it on Kronecker
    scales 10 to 14, and to networkx's 83 at scale 16).

    Reference: A. H. Gebremedhin and F. Manne, "Scalable parallel graph coloring
    algorithms", Concurrency: Pract. Exper. 12 (2000); U. V. Catalyurek, J. Feo, A. H.
    Gebremedhin, M. Halappanavar, A. Pothen, "Graph coloring algorithms for multi-core and
    massively multithreaded architectures", Parallel Computing 38 (2012); M. T. Jones and
    P. E. Plassmann, SIAM J. Sci. Comput. 14 (1993); networkx ``greedy_color``.
    """
    check_square(A, "greedy_coloring")
    check_numeric(A, "greedy_coloring")
    check_vertex_memory(A, "greedy_coloring", 64, host_per_vertex=48)
    n, backend = A.nrows, A.backend
    E = A.select(select.offdiag).new()
    S = E if E.is_symmetric else E.ewise_add(E.T, binary.first).new()
    S.is_symmetric = True
    Z = S.apply(binary.second, right=0).new(dtype=UINT64)
    Z.is_symmetric = True
    H = towards_larger(Z, degree_priorities(S, seed))
    words = [Vector(UINT64, n, backend=backend)]
    vertices, colours, left = [], [], np.arange(n)
    while len(left):
        tick("greedy_coloring")
        v = left
        t = first_free_colours(Z, v, words)
        keep = ~clashes(H, v, t)
        add_colours(words, v[keep], t[keep])
        vertices.append(v[keep])
        colours.append(t[keep])
        left = v[~keep]
    ids = np.concatenate(vertices) if vertices else np.arange(0)
    return Vector.from_coo(ids, np.concatenate(colours) if colours else ids, size=n, dtype=INT64, backend=backend)


def towards_larger(Z: Matrix, p: Vector) -> Matrix:
    """The entries ``(u, v)`` of ``Z`` with ``p[u] < p[v]`` (``p`` full, distinct)."""
    tail = p.diag().mxm(Z, semiring.any_first[INT64]).new()
    head = Z.mxm(p.diag(), semiring.any_second[INT64]).new()
    rising = tail.ewise_mult(head, binary.lt).new()
    return Z.apply(unary.identity).new(mask=rising.V)


def clashes(H: Matrix, v: np.ndarray, t: np.ndarray) -> np.ndarray:
    """For each vertex ``v[i]`` (sorted, host) with tentative colour ``t[i]``: whether a
    neighbour of larger priority (an entry of its row of ``H``) among ``v`` has the same one."""
    n, backend = H.nrows, H.backend
    out = np.zeros(len(v), dtype=bool)
    for w in np.unique(t // WORD):
        at = t // WORD == w
        bits = (t[at] % WORD).astype(np.uint64)
        tries = Vector.from_coo(v[at], ~(np.uint64(1) << bits), size=n, dtype=UINT64, backend=backend)
        seen = Vector(UINT64, n, backend=backend)
        seen(tries.S) << H.mxv(tries, semiring.band_bor[UINT64])
        u, free = seen.to_coo()
        hit = np.zeros(len(v), dtype=bool)
        where = np.searchsorted(v, u)
        hit[where] = ((free >> (t[where] % WORD).astype(np.uint64)) & np.uint64(1)) == 0
        out |= hit & at
    return out


def degree_priorities(S: Matrix, seed: Any) -> Vector:
    """A full INT64 Vector of distinct priorities: ``degree * n + permutation(n) + 1``, the
    permutation from ``numpy.random.default_rng(seed)``."""
    n = S.nrows
    order = np.random.default_rng(seed).permutation(n) + 1
    p = Vector.from_coo(np.arange(n), order, size=n, dtype=INT64, backend=S.backend)
    degree = S.apply(unary.one[INT64]).new().reduce_rowwise(monoid.plus).new()
    p(binary.plus) << degree.apply(binary.times, right=n)
    return p


def first_free_colours(Z: Matrix, pending: np.ndarray, words: list[Vector]) -> np.ndarray:
    """For each vertex of ``pending`` (sorted, host), the smallest colour none of its
    neighbours (in ``Z``'s pattern) holds, as a host array.  ``words[w]``: ``~(1 << (c - 64
    w))`` at each vertex coloured ``c`` in ``64 w .. 64 w + 63`` (see :func:`add_colours`).
    One masked product a word; the lowest free bit is taken on the host."""
    n, backend = Z.nrows, Z.backend
    out = np.empty(len(pending), dtype=np.int64)
    todo, w = np.arange(len(pending)), 0
    while len(todo):
        ids = pending[todo]
        free = np.full(len(ids), ~np.uint64(0))  # all free where no neighbour has a colour here
        if w < len(words) and words[w].nvals:
            seen = Vector(UINT64, n, backend=backend)
            seen(Vector.from_coo(ids, True, size=n, backend=backend).S) << Z.mxv(words[w], semiring.band_bor[UINT64])
            u, bits = seen.to_coo()
            free[np.searchsorted(ids, u)] = bits
        lowest = free & (~free + np.uint64(1))  # 0 where the word is full
        found = lowest != 0
        out[todo[found]] = WORD * w + np.frexp(lowest[found].astype(np.float64))[1] - 1  # exact: powers of two
        todo, w = todo[~found], w + 1
    return out


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
