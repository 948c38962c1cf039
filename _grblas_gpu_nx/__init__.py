"""The ``networkx.backend_info`` entry point of grblas-gpu: what networkx shows about the backend.

A top-level package of its own: networkx calls :func:`get_info` of every installed backend when
it is imported, and this module imports nothing of ``grblas_gpu``, so ``import networkx`` stays
as fast as without the backend."""

from __future__ import annotations

from typing import Any

__all__ = ["get_info"]

FUNCTION_NAMES = (
    "pagerank", "bfs_edges", "bfs_predecessors", "bfs_successors", "bfs_layers", "descendants_at_distance",
    "single_source_shortest_path_length", "single_target_shortest_path_length",
    "single_source_dijkstra_path_length", "dijkstra_path_length", "single_source_bellman_ford_path_length",
    "bellman_ford_path_length", "connected_components",
    "number_connected_components", "is_connected", "node_connected_component", "weakly_connected_components",
    "number_weakly_connected_components", "is_weakly_connected", "triangles", "clustering",
    "average_clustering", "transitivity", "betweenness_centrality", "label_propagation_communities",
    "louvain_communities", "leiden_communities", "core_number", "k_truss", "katz_centrality", "eigenvector_centrality", "hits",
    "jaccard_coefficient", "minimum_spanning_edges", "strongly_connected_components",
    "number_strongly_connected_components", "is_strongly_connected",
)
"""The dispatched functions (the keys of ``interface.FUNCTIONS``; listed here so that networkx's
import, which calls :func:`get_info`, loads no algorithm)."""

_SUMMARIES = {
    "pagerank": "Power iteration as sparse matrix-vector products (nstart and dangling left to networkx).",
    "bfs_edges": "One (min, +) vector-matrix product per level reproduces networkx's visiting order.",
    "betweenness_centrality": "Batched Brandes over frontier matrices (unweighted); endpoints by a batched reachability search.",
    "label_propagation_communities": "networkx's colour classes updated one at a time as matrix products.",
    "louvain_communities": "Local moves in random batches by masked products, aggregation P' A P: "
                           "a partition of comparable modularity, not networkx's for the same seed.",
    "leiden_communities": "Louvain's moves, a greedy refinement into connected clusters, aggregation by them.",
    "k_truss": "Masked products C<C> = C C until no edge goes; attributes are not carried.",
    "minimum_spanning_edges": "Boruvka rounds; data=False and distinct weights only.",
}


def get_info() -> dict[str, Any]:
    """Backend metadata for networkx: name, project, and the functions with their notes."""
    return {
        "backend_name": "grblas_gpu",
        "project": "grblas-gpu",
        "package": "grblas_gpu",
        "short_summary": "GraphBLAS algebra on NVIDIA GPUs (CuPy) or CPUs (NumPy).",
        "functions": {name: {"additional_docs": _SUMMARIES[name]} if name in _SUMMARIES else {}
                      for name in FUNCTION_NAMES},
        "default_config": {},
    }
