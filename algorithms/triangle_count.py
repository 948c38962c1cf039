"""Triangle counting by a masked matrix product."""

from __future__ import annotations

from grblas_gpu import INT64, Matrix, binary, monoid, semiring, unary

from ._checks import check_numeric, check_square

__all__ = ["triangle_count"]


def triangle_count(A: Matrix) -> int:
    """The number of triangles of the undirected graph of ``A``.

    Direction, values and self-loops are ignored: the graph is the pattern of
    ``A + A'`` without its diagonal, ``S``.  With ``L = tril(S, -1)`` (each edge once,
    as ``i > j``), an entry ``(L L')(i, j)`` over the ``plus_pair`` semiring counts
    the vertices ``k < j`` joined to both ``i`` and ``j``.  Keeping only the
    positions of edges (the mask ``L``) makes every such ``k`` close the triangle
    ``k < j < i``, so each triangle is counted exactly once::

        count = sum( (L plus.pair L') masked by L )

    Reference: M. M. Wolf, M. Deveci, J. W. Berry, S. D. Hammond, S. Rajamanickam,
    "Fast linear algebra-based triangle counting with KokkosKernels", IEEE HPEC 2017
    (the "Sandia" L·L' form); A. Azad, A. Buluç, J. Gilbert, "Parallel triangle
    counting and enumeration using matrix algebra", IPDPSW 2015.
    """
    check_square(A, "triangle_count")
    check_numeric(A, "triangle_count")
    ones = A.apply(unary.one).new(dtype=INT64)
    # The symmetric pattern, direction ignored (a matrix known to be symmetric is its own).
    S = ones if ones.is_symmetric else ones.ewise_add(ones.T, binary.first).new()
    L = S.select("tril", -1).new()  # strictly lower: drops the diagonal too
    C = L.mxm(L.T, semiring.plus_pair).new(mask=L.S)
    count = C.reduce_scalar(monoid.plus).new().value
    return 0 if count is None else int(count)
