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
    ``options``: the names of its own options (see :mod:`.parser`); ``example``: a command line.
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


_SOURCE = ("source",)

ALGORITHMS: dict[str, AlgorithmSpec] = {
    spec.name: spec
    for spec in (
        AlgorithmSpec("sssp", "sssp", "distance", "vertex", True, False, "sssp", "single-source shortest paths",
                      "the distance (sum of edge weights) from the source to each reachable vertex",
                      _SOURCE, "sssp roads.mtx --source 42 --output dist.csv"),
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
                      example="cc graph.txt --undirected"),
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
