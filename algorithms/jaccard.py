"""Jaccard similarity of vertex pairs: common neighbours by a masked product."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from grblas_gpu import BOOL, FP64, INT64, Matrix, binary, monoid, semiring, unary
from grblas_gpu.exceptions import DimensionMismatch, IndexOutOfBound, InvalidIndex

from ._checks import check_numeric, check_square, check_vertex_memory

__all__ = ["jaccard"]


def jaccard(A: Matrix, pairs: Iterable[tuple[int, int]] | Matrix | None = None) -> Matrix:
    """The Jaccard similarity of vertex pairs (FP64): ``J[u, v] = |N(u) & N(v)| / |N(u) | N(v)|``.

    ``N(u)`` is the set of neighbours of ``u`` in the undirected graph of ``A``: row ``u``
    of ``S``, the pattern of ``A | A'`` without its diagonal (direction, values and
    self-loops are ignored; networkx counts a self-loop in the union but not in the
    intersection, so compare on graphs without them).  ``pairs``: the ``(u, v)`` pairs
    to score, as a sequence of pairs or as the pattern of a Matrix shaped as ``A``; the
    result has an entry at each of them (a repeated pair once), and ``0.0`` where the
    union is empty.  ``pairs=None`` scores every edge of ``S`` (both directions).

    With ``M`` the pairs' pattern and ``d`` the degrees (row counts of ``S``)::

        I<M> = S plus.pair S'        (common neighbours, masked by the pairs: dot products,
                                      one a pair, or a masked Gustavson product over the
                                      pairs' rows, whichever the planner estimates cheaper;
                                      S' = S needs no transpose)
        U = D I + I D - I            (|N(u)| + |N(v)| - |N(u) & N(v)|, on I's entries;
                                      D = diag(d) scales rows / columns, any.first / any.second)
        J<M> = 0;  J += I ./ U

    The work is bounded by the pairs and the neighbourhoods they read, never by ``n^2``.

    networkx's ``jaccard_coefficient(G, ebunch)`` takes the same pairs as ``ebunch``, but
    with ``ebunch=None`` it scores every pair that is *not* an edge (as many as ``n^2``),
    so here ``None`` means the edges instead (as cuGraph's ``jaccard`` does); pass the
    pairs to score non-edges.

    Reference: P. Jaccard, "Étude comparative de la distribution florale dans une portion
    des Alpes et du Jura", Bull. Soc. Vaudoise Sci. Nat. 37 (1901); D. Liben-Nowell,
    J. Kleinberg, "The link-prediction problem for social networks", JASIST 58(7), 2007
    (networkx.jaccard_coefficient).
    """
    check_square(A, "jaccard")
    check_numeric(A, "jaccard")
    check_vertex_memory(A, "jaccard", 24)
    S = A.select("offdiag").new().apply(unary.one).new(dtype=INT64)
    if not S.is_symmetric:
        S = S.ewise_add(S.T, binary.first).new()
    S.is_symmetric = True  # S | S' is, by construction
    M = S if pairs is None else _pair_pattern(A, pairs)
    common = S.mxm(S, semiring.plus_pair[INT64]).new(mask=M.S, dtype=FP64)
    D = S.reduce_rowwise(monoid.plus).new(dtype=FP64).diag()
    union = D.mxm(common, semiring.any_first).new()
    union(binary.plus) << common.mxm(D, semiring.any_second)
    union(binary.minus) << common
    J = M.apply(binary.second, right=0.0).new(dtype=FP64)  # 0.0 at every pair
    # A pair with a common neighbour has a non-empty union: the division never meets 0.
    J(binary.plus) << common.ewise_mult(union, binary.truediv)
    return J


def _pair_pattern(A: Matrix, pairs: Any) -> Matrix:
    """The pattern (BOOL) of the pairs to score, checked against ``A``'s vertices."""
    n = A.nrows
    if isinstance(pairs, Matrix):
        if pairs.shape != A.shape:
            raise DimensionMismatch(f"jaccard: pairs must be a {n}x{n} Matrix, got {pairs.nrows}x{pairs.ncols}")
        return pairs
    pairs = list(pairs)
    uv = np.asarray(pairs) if pairs else np.zeros((0, 2), dtype=np.int64)
    if uv.ndim != 2 or uv.shape[1] != 2:
        raise InvalidIndex("jaccard: pairs must be (u, v) pairs of vertex ids")
    if uv.dtype.kind not in "iu":
        raise InvalidIndex(f"jaccard: vertex ids must be integers, got {uv.dtype}")
    bad = (uv < 0) | (uv >= n)
    if bad.any():
        raise IndexOutOfBound(f"jaccard: pair {tuple(uv[bad.any(axis=1)][0].tolist())} names a vertex "
                              f"outside 0..{n - 1}")
    return Matrix.from_coo(uv[:, 0], uv[:, 1], True, nrows=n, ncols=n, dtype=BOOL, dup_op=binary.any,
                           backend=A.backend)
