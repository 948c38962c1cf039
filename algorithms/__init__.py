"""Graph algorithms as short loops of GraphBLAS algebra (imported as ``grblas_gpu.algorithms``).

Every function takes a ``Matrix`` ``A`` where ``A[i, j]`` is the edge i -> j and
uses only the public ``grblas_gpu`` API, so each file reads as a recipe for
composing your own algorithm.
"""

from .betweenness import betweenness_centrality
from .bfs import bfs_levels, bfs_parents
from .cdlp import cdlp
from .coloring import greedy_coloring
from .connected_components import connected_components
from .core_number import core_number
from .eigenvector import eigenvector_centrality
from .hits import hits
from .independent_set import maximal_independent_set
from .jaccard import jaccard
from .k_truss import k_truss
from .katz import katz_centrality
from .lcc import local_clustering_coefficient
from .leiden import leiden
from .louvain import louvain
from .multi_source_bfs import multi_source_bfs
from .pagerank import pagerank
from .spanning_forest import minimum_spanning_forest
from .sssp import sssp
from .strongly_connected_components import strongly_connected_components
from .triangle_count import triangle_count
from .widest_path import widest_path

__all__ = [
    "betweenness_centrality", "bfs_levels", "bfs_parents", "cdlp", "connected_components",
    "core_number", "eigenvector_centrality", "greedy_coloring", "hits", "jaccard", "k_truss",
    "katz_centrality", "leiden", "local_clustering_coefficient", "louvain", "maximal_independent_set",
    "minimum_spanning_forest", "multi_source_bfs", "pagerank", "sssp",
    "strongly_connected_components", "triangle_count", "widest_path",
]
