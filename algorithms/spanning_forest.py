"""A minimum spanning forest by Boruvka's algorithm: each component's lightest outgoing edge."""

from __future__ import annotations

import numpy as np

from grblas_gpu import BOOL, INT64, Matrix, Vector, binary, monoid, select, semiring

from ._checks import check_no_nan, check_numeric, check_square, check_vertex_memory
from .connected_components import connected_components

__all__ = ["minimum_spanning_forest"]


def minimum_spanning_forest(A: Matrix) -> Matrix:
    """A minimum spanning forest: a Matrix of A's type holding each forest edge once, at
    ``[u, v]`` with ``u < v``, valued with its weight.

    The graph is undirected: the edge ``{u, v}`` weighs ``min(A[u, v], A[v, u])`` (either
    present entry), and self-loops are ignored.  The forest spans every connected component
    (``n - components`` edges) with the least total weight.  Negative weights are allowed,
    NaN ones are refused (``InvalidValue``).

    Math (Boruvka): the edges are first ranked by ``(weight, u, v)`` (one sort on the host,
    so ties go to the edge with the smaller endpoints and all ranks differ); ``R`` holds
    the ranks both ways.  Each round, with ``comp`` the component label of every vertex
    (connected components of the forest so far) and ``P`` its one-hot matrix
    (``P[v, comp[v]]``)::

        X     = R where comp[u] != comp[v]      (diag(comp) any.first R) ne (R any.second diag(comp))
        best  = X min.reduce rows               (lightest edge out of each vertex)
        pick  = P (min.second) (best min.first P)   (lightest out of each vertex's component)
        F    |= entries of X equal to pick of their row, both ways

    With distinct ranks the picked edges never close a cycle, and every round at least
    halves the number of components with an outgoing edge, so there are at most
    ``log2 n`` rounds.  A round reads ``X.nvals`` and the labels (to build ``P``) on the
    host.

    Reference: O. Boruvka, "O jistem problemu minimalnim" (1926); LAGraph
    ``LAGraph_msf``; networkx ``minimum_spanning_tree`` (a forest where the graph is not
    connected).
    """
    check_square(A, "minimum_spanning_forest")
    check_numeric(A, "minimum_spanning_forest")
    check_vertex_memory(A, "minimum_spanning_forest", 64, host_per_vertex=24)
    check_no_nan(A, "minimum_spanning_forest")
    n, backend = A.nrows, A.backend
    E = A.select(select.offdiag).new()
    upper = E.ewise_add(E.T, binary.min).new().select(select.triu, 1).new()  # each edge once
    R = _ranks(upper)
    forest = Matrix(BOOL, n, n, backend=backend)
    comp = connected_components(forest)
    while True:
        crossing = _crossing(R, comp)
        if not crossing.nvals:
            break
        best = crossing.reduce_rowwise(monoid.min).new()
        ids, labels = comp.to_coo()
        P = Matrix.from_coo(ids, labels, True, nrows=n, ncols=n, dtype=BOOL, backend=backend)
        pick = P.mxv(best.vxm(P, semiring.min_first[INT64]).new(), semiring.min_second[INT64]).new()
        at_pick = pick.diag().mxm(crossing, semiring.any_first[INT64]).new()  # pick[u] on row u
        picked = crossing.ewise_mult(at_pick, binary.eq).new().select(select.valueeq, True).new()
        forest(binary.lor) << picked.ewise_add(picked.T, binary.lor)
        comp = connected_components(forest)
    return upper.ewise_mult(forest, binary.first).new()


def _ranks(upper: Matrix) -> Matrix:
    """The edges of ``upper`` (``u < v``) valued with their rank by ``(weight, u, v)``,
    stored both ways."""
    u, v, w = upper.to_coo()
    rank = np.empty(len(w), dtype=np.int64)
    rank[np.lexsort((v, u, w))] = np.arange(len(w))
    ranked = Matrix.from_coo(u, v, rank, nrows=upper.nrows, ncols=upper.ncols, dtype=INT64, backend=upper.backend)
    return ranked.ewise_add(ranked.T, binary.first).new()


def _crossing(R: Matrix, comp: Vector) -> Matrix:
    """The entries ``R[u, v]`` whose endpoints have different labels in ``comp``."""
    label = comp.diag()
    row_label = label.mxm(R, semiring.any_first[INT64]).new()
    col_label = R.mxm(label, semiring.any_second[INT64]).new()
    differ = row_label.ewise_mult(col_label, binary.ne).new().select(select.valueeq, True).new()
    return R.ewise_mult(differ, binary.first).new()
