"""A minimum spanning forest by Boruvka's algorithm: each component's lightest outgoing edge,
then the components contracted to single vertices."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from grblas_gpu import BOOL, INT64, Matrix, binary, monoid, select, semiring
from grblas_gpu.progress import tick

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

    Math (Boruvka, contracting): the edges are first ranked by ``(weight, u, v)`` (on the
    host, see :func:`edge_ranks`, so ties go to the edge with the smaller endpoints and all
    ranks differ, and a rank names its edge); ``R`` holds the ranks both ways.  Each round, ``R`` is the
    graph of the components found so far (one vertex each, the least rank between two of
    them as their edge, none inside one)::

        best  = R min.reduce rows          (each component's lightest outgoing edge: a forest edge)
        H     = the components joined by those edges;  label = connected_components(H)
        Q     = one-hot of label, renumbered 0 .. k-1  (Q[a, label[a]])
        R     = offdiag(Q' (min.second) R (min.first) Q)   (the merged components' graph)

    With distinct ranks the chosen edges never close a cycle, and every round at least
    halves the number of components with an outgoing edge, so there are at most
    ``log2 n`` rounds, each over the edges still between components (fewer every round).
    A round reads the chosen ranks and the labels of the components on the host.

    Reference: O. Boruvka, "O jistem problemu minimalnim" (1926); V. Vineet, P. Harish,
    S. Patidar, P. J. Narayanan, "Fast minimum spanning tree for large graphs on the GPU",
    HPG 2009 (contraction); networkx ``minimum_spanning_tree`` (a forest where the graph is
    not connected).
    """
    check_square(A, "minimum_spanning_forest")
    check_numeric(A, "minimum_spanning_forest")
    check_vertex_memory(A, "minimum_spanning_forest", 64, host_per_vertex=40)
    check_no_nan(A, "minimum_spanning_forest")
    n, backend = A.nrows, A.backend
    lower = A.select(select.tril, -1).new()
    upper = A.select(select.triu, 1).new().ewise_add(lower.T, binary.min).new()  # each edge once
    u, v, w = upper.to_coo()  # by (u, v)
    rank, edge = edge_ranks(w)
    R = Matrix.from_coo(np.r_[u, v], np.r_[v, u], np.r_[rank, rank], nrows=n, ncols=n, dtype=INT64,
                        backend=backend, symmetric=True)
    component = np.arange(n)  # the vertex of R that holds each vertex of A
    chosen = []
    while R.nvals:
        tick("minimum_spanning_forest")
        picked = edge(np.unique(R.reduce_rowwise(monoid.min).new().to_coo()[1]))  # positions in u, v, w
        chosen.append(picked)
        Q, QT, labels = _merged(component[u[picked]], component[v[picked]], R.nrows, backend)
        component = labels[component]
        R = QT.mxm(R, semiring.min_second[INT64]).new().mxm(Q, semiring.min_first[INT64]).new()
        R = R.select(select.offdiag).new()
    picked = np.concatenate(chosen) if chosen else rank[:0]
    return Matrix.from_coo(u[picked], v[picked], w[picked], nrows=n, ncols=n, dtype=upper.dtype, backend=backend)


def edge_ranks(w: np.ndarray) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """Distinct INT64 keys of the edges whose weights are ``w`` (listed by ``(u, v)``),
    increasing with ``(weight, u, v)``, and the function from keys back to positions in
    ``w``.  Integer weights of a small enough range need no sort: the key of the edge at
    ``p`` is ``(w[p] - min w) * len(w) + p``; other weights are ranked by a stable sort."""
    m = len(w)
    w = w.astype(np.int64) if w.dtype == np.bool_ else w
    whole = m and bool(np.all(np.isfinite(w))) and bool(np.all(w == np.round(w)))
    span = int(w.max()) - int(w.min()) + 1 if whole else 0
    if whole and span < 1 << 53 and span * m < 1 << 62:
        key = (w - w.min()).astype(np.int64) * m + np.arange(m)
        return key, lambda keys: keys % m
    order = np.argsort(w, kind="stable")
    rank = np.empty(m, dtype=np.int64)
    rank[order] = np.arange(m)
    return rank, lambda keys: order[keys]


def _merged(a: np.ndarray, b: np.ndarray, k: int, backend: str) -> tuple[Matrix, Matrix, np.ndarray]:
    """The one-hot matrix ``Q`` (``k x k'``) of the components of the graph on ``k`` vertices
    with edges ``{a[i], b[i]}``, numbered ``0 .. k'-1``, its transpose, and that numbering
    as an array."""
    H = Matrix.from_coo(np.r_[a, b], np.r_[b, a], True, nrows=k, ncols=k, dtype=BOOL, dup_op=binary.any,
                        backend=backend, symmetric=True)
    _, labels = np.unique(connected_components(H).to_coo()[1], return_inverse=True)
    ids, merged = np.arange(k), int(labels.max(initial=-1)) + 1
    Q = Matrix.from_coo(ids, labels, 1, nrows=k, ncols=merged, dtype=INT64, backend=backend)
    QT = Matrix.from_coo(labels, ids, 1, nrows=merged, ncols=k, dtype=INT64, backend=backend)
    return Q, QT, labels
