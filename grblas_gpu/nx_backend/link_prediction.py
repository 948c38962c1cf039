"""jaccard_coefficient with networkx's signature: common neighbours by a masked product."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from grblas_gpu import select
from grblas_gpu.algorithms import jaccard

from .graph import GrblasGraph

__all__ = ["jaccard_coefficient"]


def _non_edges(G: GrblasGraph) -> list[tuple[Any, Any]]:
    """The pairs of distinct nodes without an edge, each once (as ``nx.non_edges``, in the
    order of ``G``)."""
    indptr, indices, _ = G.structure().to_csr()
    n, pairs = len(G), []
    for u in range(n):
        linked = np.zeros(n, dtype=bool)
        linked[indices[indptr[u]:indptr[u + 1]]] = True
        linked[: u + 1] = True
        pairs += [(u, int(v)) for v in np.flatnonzero(~linked)]
    return [(G.nodes[u], G.nodes[v]) for u, v in pairs]


def jaccard_coefficient(G: GrblasGraph, ebunch: Iterable | None = None) -> Iterator[tuple[Any, Any, float]]:
    """networkx ``jaccard_coefficient``: ``(u, v, p)`` for each pair of ``ebunch`` (default:
    every non-edge).  Graphs with self-loops are left to networkx (its union counts them, its
    common neighbours do not)."""
    import networkx as nx

    if ebunch is None:
        pairs = _non_edges(G)
    else:
        pairs = list(ebunch)
        for u, v in pairs:
            for node in (u, v):
                if node not in G:
                    raise nx.NodeNotFound(f"Node {node} not in G.")
    S = G.structure()
    if S.select(select.diag).new().nvals:
        raise NotImplementedError("grblas_gpu leaves jaccard_coefficient with self-loops to networkx")
    if not pairs:
        return iter(())
    ids = [(G.index[u], G.index[v]) for u, v in pairs]
    J = jaccard(S, ids)
    r, c, p = J.to_coo()
    score = dict(zip(zip(r.tolist(), c.tolist()), p.tolist()))
    return ((u, v, score[(i, j)] if score[(i, j)] else 0) for (u, v), (i, j) in zip(pairs, ids))
