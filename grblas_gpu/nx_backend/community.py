"""networkx's semi-synchronous label propagation, one colour class at a time as matrix products.

networkx (``label_propagation_communities``, Cordasco and Gargano 2010) colours the graph
greedily (largest degree first), gives node ``i`` of ``list(G)`` the label ``i``, and until
every node with neighbours holds one of its neighbours' most frequent labels, updates the
nodes of each colour class in turn: a node takes its most frequent neighbour label, keeps
its own when that is one of several tied, and otherwise takes the largest of the tied ones.
The nodes of one class have no edge between them, so updating a class at once is the
sequential update networkx does.  For a class ``c`` with label matrix ``P``
(``P[u, label(u)] = 1``) the label counts are the rows ``S[c, :] plus.pair P``.

The colouring is networkx's greedy colouring, a sequential pass over the nodes done here on
the host CSR arrays: no matrix form gives the same colours.
"""

from __future__ import annotations

import numpy as np

from grblas_gpu import INT64, Matrix, binary, monoid, semiring

from .graph import GrblasGraph

__all__ = ["label_propagation_communities"]


def _greedy_colour_classes(G: GrblasGraph) -> list[np.ndarray]:
    """networkx's ``greedy_color(G, "largest_first")``, as the node ids of each colour in order."""
    indptr, indices, _ = G.structure().to_csr()
    n = len(G)
    degree = np.diff(indptr).astype(np.int64)
    ids = np.arange(n)
    degree += G.structure().select("diag").new().reduce_rowwise(monoid.any).new(dtype=INT64).to_dense(0)
    order = np.argsort(-degree, kind="stable")  # a self-loop counts twice, as in G.degree
    colours = np.full(n, -1, dtype=np.int64)
    indptr_list = indptr.tolist()
    for u in order.tolist():
        used = set(colours[indices[indptr_list[u]:indptr_list[u + 1]]].tolist())
        c = 0
        while c in used:
            c += 1
        colours[u] = c
    if n == 0:
        return []
    return [ids[colours == c] for c in range(int(colours.max()) + 1)]


def _modes(S: Matrix, labels: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the nodes ``rows``: whether each holds one of its most frequent neighbour labels,
    and the largest of those labels (-1 without neighbours)."""
    n = len(labels)
    P = Matrix.from_coo(np.arange(n), labels, 1, nrows=n, ncols=n, dtype=INT64, backend=S.backend)
    counts = S[rows, :].new().mxm(P, semiring.plus_pair).new()
    row_max = counts.reduce_rowwise(monoid.max).new()
    at_max = row_max.diag().mxm(counts, semiring.min_first).new()
    is_mode = counts.ewise_mult(at_max, binary.eq).new().select("valueeq", True).new()
    r, c, _ = is_mode.to_coo()
    holds = np.zeros(len(rows), dtype=bool)
    holds[r[c == labels[rows][r]]] = True
    largest = np.full(len(rows), -1, dtype=np.int64)
    np.maximum.at(largest, r, c)
    return holds, largest


def label_propagation_communities(G: GrblasGraph):
    """networkx ``label_propagation_communities``: the communities as ``dict.values()`` of sets."""
    n = len(G)
    S = G.structure()
    classes = _greedy_colour_classes(G)
    labels = np.arange(n, dtype=np.int64)
    with_neighbours = np.flatnonzero(np.diff(S.to_csr()[0]) > 0)
    while True:
        holds, _ = _modes(S, labels, with_neighbours) if len(with_neighbours) else (np.ones(0, bool), None)
        if holds.all():
            break
        for rows in classes:
            holds, largest = _modes(S, labels, rows)
            change = ~holds & (largest >= 0)
            labels[rows[change]] = largest[change]
    clusters: dict[int, set] = {}
    for node, label in zip(G.nodes, labels.tolist()):
        clusters.setdefault(label, set()).add(node)
    return clusters.values()
