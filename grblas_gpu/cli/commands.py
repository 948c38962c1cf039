"""The table of subcommands: one :class:`AlgorithmSpec` per algorithm the command runs."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import CliError

__all__ = ["ALGORITHMS", "BFS_PARENTS", "AlgorithmSpec", "algorithm_function"]


@dataclass(frozen=True)
class AlgorithmSpec:
    """How the command runs and reports one algorithm.

    ``function``: its name in :mod:`grblas_gpu.algorithms`; ``column``: what a value is;
    ``order``: ``"value"`` (largest first), ``"vertex"`` (by vertex) or ``"groups"`` (labels,
    largest group first); ``vertex_values``: the values are vertices (labels, parents),
    shown in the file's ids; ``properties_key``: Graphalytics property prefix for the source;
    ``help``: the algorithm's name in words; ``output``: what it writes for each vertex;
    ``options``: the names of its own options (see :mod:`.parser`); ``example``: a command line;
    ``shape``: what a result row is: ``"vertex"`` (a value a vertex), ``"edges"`` (a Matrix:
    one row an entry, each undirected edge once where ``undirected``), ``"levels"`` (a Matrix
    whose rows are the ``--sources``) or ``"two"`` (a pair of Vectors: two values a vertex);
    ``columns``: the names of a row's columns in tables and files (default: vertex, value);
    ``noun``: what a group is (``order="groups"``), one and many.
    """

    name: str
    function: str
    column: str
    order: str
    needs_source: bool = False
    vertex_values: bool = False
    properties_key: str | None = None
    help: str = ""
    output: str = ""
    options: tuple[str, ...] = ()
    example: str = ""
    shape: str = "vertex"
    columns: tuple[str, ...] = ()
    undirected: bool = False
    noun: tuple[str, str] = ("community", "communities")

    def header(self) -> tuple[str, ...]:
        """The column names of a result row."""
        return self.columns or ("vertex", self.column)


_SOURCE = ("source",)
_ITERATE = ("max-iter", "iter-tol")

MORE_ALGORITHMS = (
    AlgorithmSpec("louvain", "louvain", "community", "groups", help="community detection by Louvain",
                  output="the community of every vertex (0 .. k-1), maximising modularity",
                  options=("resolution", "seed"), example="louvain graph.txt --seed 1 --output communities.csv"),
    AlgorithmSpec("leiden", "leiden", "community", "groups", help="community detection by Leiden",
                  output="the community of every vertex (0 .. k-1), each connected, maximising modularity",
                  options=("resolution", "seed"), example="leiden graph.txt --resolution 0.8"),
    AlgorithmSpec("core-number", "core_number", "core", "value", help="k-core numbers",
                  output="the core number of every vertex (the largest k of a k-core holding it)",
                  example="core-number graph.mtx --top 5"),
    AlgorithmSpec("k-truss", "k_truss", "support", "vertex", help="the k-truss",
                  output="the edges of the k-truss (each once), with the triangles of the k-truss on each",
                  options=("k",), example="k-truss graph.mtx --k 5 --output truss.csv", shape="edges",
                  columns=("source", "target", "support"), undirected=True),
    AlgorithmSpec("jaccard", "jaccard", "similarity", "value", help="Jaccard similarity",
                  output="the Jaccard similarity of the given vertex pairs, or of every edge (each once)",
                  options=("pairs",), example="jaccard graph.txt --pairs 1:2,1:7", shape="edges",
                  columns=("u", "v", "jaccard"), undirected=True),
    AlgorithmSpec("msbfs", "multi_source_bfs", "level", "vertex", help="multi-source breadth-first search",
                  output="the level of every vertex reached from each source",
                  options=("msbfs-sources", "cutoff"), example="msbfs graph.mtx --sources 0,5,9",
                  shape="levels", columns=("source", "vertex", "level")),
    AlgorithmSpec("scc", "strongly_connected_components", "component", "groups", vertex_values=True,
                  help="strongly connected components",
                  output="the strongly connected component of every vertex, labelled by its smallest vertex",
                  example="scc web.txt", noun=("component", "components")),
    AlgorithmSpec("katz", "katz_centrality", "centrality", "value", help="Katz centrality",
                  output="the Katz centrality of every vertex", options=("katz-alpha", "beta", *_ITERATE),
                  example="katz graph.txt --alpha 0.05"),
    AlgorithmSpec("eigenvector", "eigenvector_centrality", "centrality", "value", help="eigenvector centrality",
                  output="the eigenvector centrality of every vertex", options=_ITERATE,
                  example="eigenvector graph.txt --top 5"),
    AlgorithmSpec("hits", "hits", "hub", "value", help="HITS hubs and authorities",
                  output="the hub and authority score of every vertex (largest hub first)", options=_ITERATE,
                  example="hits web.txt --output hits.csv", shape="two", columns=("vertex", "hub", "authority")),
    AlgorithmSpec("mis", "maximal_independent_set", "member", "vertex", help="maximal independent set (Luby)",
                  output="the vertices of a maximal independent set", options=("seed",),
                  example="mis graph.mtx --seed 7"),
    AlgorithmSpec("coloring", "greedy_coloring", "colour", "groups",
                  help="greedy colouring (speculative rounds, largest degree first)", output="a colour (0 .. k-1) for every vertex, "
                  "no two neighbours alike", options=("seed",), example="coloring graph.mtx",
                  noun=("colour", "colours")),
    AlgorithmSpec("msf", "minimum_spanning_forest", "weight", "vertex", help="minimum spanning forest (Boruvka)",
                  output="the edges of a minimum spanning forest of the undirected graph, with their weights",
                  example="msf roads.mtx --output forest.csv", shape="edges", columns=("u", "v", "weight")),
)

ALGORITHMS: dict[str, AlgorithmSpec] = {
    spec.name: spec
    for spec in (
        AlgorithmSpec("sssp", "sssp", "distance", "vertex", True, False, "sssp", "single-source shortest paths",
                      "the distance (sum of edge weights) from the source to each reachable vertex",
                      ("source", "method", "delta"), "sssp roads.mtx --source 42 --output dist.csv"),
        AlgorithmSpec("widest-path", "widest_path", "width", "vertex", True, False, "sssp",
                      "widest (bottleneck) paths",
                      "the width of the widest path (its smallest edge weight, made as large as possible) "
                      "from the source to each reachable vertex",
                      _SOURCE, "widest-path roads.mtx --source 42"),
        AlgorithmSpec("pagerank", "pagerank", "rank", "value", help="PageRank",
                      output="the PageRank of every vertex (the ranks sum to 1)",
                      options=("alpha", "tol", "pagerank-max-iter"), example="pagerank web.txt --top 20"),
        AlgorithmSpec("bfs", "bfs_levels", "level", "vertex", True, False, "bfs", "breadth-first search",
                      "the level (hops from the source) of each reachable vertex, or its parent with --parents",
                      ("source", "parents"), "bfs graph.mtx --source 3 --output levels.csv"),
        AlgorithmSpec("cc", "connected_components", "component", "groups", vertex_values=True,
                      help="connected components",
                      output="the component of every vertex, labelled by its smallest vertex",
                      example="cc graph.txt --undirected", noun=("component", "components")),
        AlgorithmSpec("tc", "triangle_count", "triangles", "vertex", help="triangle count",
                      output="the number of triangles of the undirected graph", example="tc graph.mtx"),
        AlgorithmSpec("lcc", "local_clustering_coefficient", "coefficient", "value",
                      help="local clustering coefficient",
                      output="the local clustering coefficient of every vertex", example="lcc graph.mtx --top 5"),
        AlgorithmSpec("cdlp", "cdlp", "community", "groups", vertex_values=True,
                      help="community detection by label propagation",
                      output="the community label of every vertex", options=("cdlp-max-iter",),
                      example="cdlp example-directed.properties"),
        AlgorithmSpec("bc", "betweenness_centrality", "centrality", "value", help="betweenness centrality",
                      output="the (unnormalised) betweenness centrality of every vertex",
                      options=("sources", "batch-size"), example="bc --builtin grid --sources 0,17,99"),
        *MORE_ALGORITHMS,
    )
}

BFS_PARENTS = AlgorithmSpec("bfs", "bfs_parents", "parent", "vertex", True, True, "bfs", "breadth-first search parents")
"""``bfs --parents``: each reached vertex's parent in the BFS tree."""


def algorithm_function(spec: AlgorithmSpec) -> Callable[..., Any]:
    """Import the algorithm lazily, so that ``--help`` and argument errors stay fast."""
    try:
        algorithms = importlib.import_module("grblas_gpu.algorithms")
        return getattr(algorithms, spec.function)
    except (ImportError, AttributeError) as e:
        raise CliError(f"algorithm {spec.name!r} is not available in this installation ({e})") from e
