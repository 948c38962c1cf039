"""core_number and k_truss with networkx's signatures, by the library's peeling and masked products."""

from __future__ import annotations

import numpy as np

from grblas_gpu import select
from grblas_gpu.algorithms import core_number as _core_number
from grblas_gpu.algorithms import k_truss as _k_truss

from .graph import GrblasGraph

__all__ = ["core_number", "k_truss"]


def _refuse_self_loops(G: GrblasGraph) -> None:
    import networkx as nx

    if G.structure().select(select.diag).new().nvals:
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; "
            "Consider using G.remove_edges_from(nx.selfloop_edges(G))."
        )


def core_number(G: GrblasGraph) -> dict:
    """networkx ``core_number``: ``{node: core}``; a directed graph's degree is in + out."""
    _refuse_self_loops(G)
    if len(G) == 0:
        return {}
    cores = _core_number(G.structure(), directed=G.is_directed()).to_dense()
    return dict(zip(G.nodes, cores.tolist()))


def k_truss(G: GrblasGraph, k: int) -> GrblasGraph:
    """networkx ``k_truss``: the subgraph of the edges on at least ``k - 2`` triangles of it,
    without the nodes left isolated (node and edge attributes are not carried)."""
    _refuse_self_loops(G)
    n = len(G)
    if n == 0:
        return GrblasGraph([], np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64),
                           directed=False, multigraph=False, backend=G.backend)
    truss = _k_truss(G.structure(), max(int(k), 2))
    rows, cols, _ = truss.to_coo()
    keep = np.unique(np.concatenate([rows, cols]))
    new = np.full(n, -1, dtype=np.int64)
    new[keep] = np.arange(len(keep))
    return GrblasGraph(G.labels(keep), new[rows], new[cols], np.zeros(len(rows), np.int64), directed=False,
                       multigraph=False, graph_attrs=G.graph, backend=G.backend)
