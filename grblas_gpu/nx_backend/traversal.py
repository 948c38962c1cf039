"""Breadth-first search in networkx's order: bfs_edges, bfs_layers, descendants_at_distance,
single_source_shortest_path_length.

networkx visits a level's nodes in queue order and each node's neighbours in ``G[node]``
order, so a node of the next level is found by the first node of the level (in queue order)
that has it as a neighbour, and the next level's queue is sorted by (that parent's rank,
the node's position among the parent's neighbours).  With the frontier holding
``rank * D`` (``D`` larger than any position) and ``P[u, v]`` the position of ``v`` in
``G[u]``, one masked product over (min, +) gives every new node that key:

    key(~visited) = x' min.plus P,   parent = level[key // D],   next level = sorted by key

so the order networkx documents comes out of one vector-matrix product per level.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from grblas_gpu import BOOL, INT64, Vector, semiring
from grblas_gpu.matrix import Matrix, TransposedMatrix

from .graph import GrblasGraph

__all__ = ["bfs_edges", "bfs_predecessors", "bfs_successors", "bfs_layers", "descendants_at_distance",
           "single_source_shortest_path_length", "single_target_shortest_path_length", "ordered_levels",
           "unordered_levels"]


def ordered_levels(G: GrblasGraph, first: list[int], depth_limit: float) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Each BFS level after ``first`` in networkx's queue order, with every node's parent;
    at most ``depth_limit`` levels."""
    n = len(G)
    order = G.neighbour_order()
    scale = n + 1  # larger than any neighbour position
    level = np.asarray(first, dtype=np.int64)
    visited = Vector.from_coo(np.unique(level), True, size=n, dtype=BOOL, backend=order.backend)
    depth = 0
    while len(level) and depth < depth_limit:
        ids, first_seen = np.unique(level, return_index=True)  # a repeated node ranks by its first place
        x = Vector.from_coo(ids, first_seen * scale, size=n, dtype=INT64, backend=order.backend)
        found = Vector(INT64, n, backend=order.backend)
        found(~visited.S, replace=True) << x.vxm(order, semiring.min_plus)
        ids, keys = found.to_coo()
        if len(ids) == 0:
            return
        sort = np.argsort(keys, kind="stable")
        ids, keys = ids[sort], keys[sort]
        parents = level[keys // scale]
        visited(found.S) << True
        yield ids, parents
        level = ids
        depth += 1


def unordered_levels(G: GrblasGraph, source: int, depth_limit: float, *,
                     backwards: bool = False) -> Iterator[np.ndarray]:
    """The nodes of each BFS level after the source (in index order), at most ``depth_limit``
    levels; ``backwards`` follows edges against their direction."""
    n = len(G)
    A: Matrix | TransposedMatrix = G.structure()
    if backwards:
        A = A.T
    visited = Vector.from_coo([source], True, size=n, dtype=BOOL, backend=A.backend)
    frontier = visited.dup()
    depth = 0
    while depth < depth_limit:
        found = Vector(BOOL, n, backend=A.backend)
        found(~visited.S, replace=True) << frontier.vxm(A, semiring.any_pair)
        if found.nvals == 0:
            return
        visited(found.S) << True
        yield found.to_coo()[0]
        frontier = found
        depth += 1


def _not_in_graph(node: Any) -> Exception:
    import networkx as nx

    return nx.NetworkXError(f"The node {node} is not in the graph.")


def bfs_edges(G: GrblasGraph, source: Any, reverse: bool = False, depth_limit: int | None = None,
              sort_neighbors: Any = None) -> Iterator[tuple[Any, Any]]:
    """networkx ``bfs_edges``: the tree edges of a breadth-first search, in networkx's order
    (``reverse`` on a directed graph and ``sort_neighbors`` are left to networkx by ``can_run``)."""
    if source not in G:
        raise _not_in_graph(source)
    limit = len(G) if depth_limit is None else depth_limit
    nodes = G.nodes
    for ids, parents in ordered_levels(G, [G.index[source]], limit):
        yield from zip([nodes[p] for p in parents.tolist()], [nodes[v] for v in ids.tolist()])


def bfs_predecessors(G: GrblasGraph, source: Any, depth_limit: int | None = None,
                     sort_neighbors: Any = None) -> Iterator[tuple[Any, Any]]:
    """networkx ``bfs_predecessors``: ``(node, parent)`` in breadth-first order."""
    for parent, child in bfs_edges(G, source, depth_limit=depth_limit):
        yield child, parent


def bfs_successors(G: GrblasGraph, source: Any, depth_limit: int | None = None,
                   sort_neighbors: Any = None) -> Iterator[tuple[Any, list]]:
    """networkx ``bfs_successors``: ``(node, its BFS children)`` in breadth-first order."""
    if source not in G:
        raise _not_in_graph(source)
    limit = len(G) if depth_limit is None else depth_limit
    nodes = G.nodes
    groups: list[tuple[Any, list]] = []
    for ids, parents in ordered_levels(G, [G.index[source]], limit):
        # A level is sorted by parent, so each parent's children are one run.
        starts = np.flatnonzero(np.r_[True, parents[1:] != parents[:-1]])
        for run, start in enumerate(starts.tolist()):
            end = starts[run + 1] if run + 1 < len(starts) else len(ids)
            groups.append((nodes[parents[start]], [nodes[v] for v in ids[start:end].tolist()]))
    if not groups:
        groups.append((source, []))
    yield from groups


def bfs_layers(G: GrblasGraph, sources: Any) -> Iterator[list[Any]]:
    """networkx ``bfs_layers``: lists of nodes at each distance from ``sources``, in networkx's order."""
    if sources in G:
        sources = [sources]
    current = list(set(sources))  # networkx's first layer, in the same order
    for source in current:
        if source not in G:
            raise _not_in_graph(source)
    if not current:
        return
    yield current
    for ids, _ in ordered_levels(G, [G.index[s] for s in current], len(G)):
        yield G.labels(ids)


def descendants_at_distance(G: GrblasGraph, source: Any, distance: int) -> set:
    """networkx ``descendants_at_distance``: the nodes exactly ``distance`` hops from ``source``."""
    if source not in G:
        raise _not_in_graph(source)
    if distance == 0:
        return {source}
    if distance < 0:
        return set()
    for depth, ids in enumerate(unordered_levels(G, G.index[source], distance), start=1):
        if depth == distance:
            return set(G.labels(ids))
    return set()


def single_source_shortest_path_length(G: GrblasGraph, source: Any, cutoff: float | None = None) -> dict:
    """networkx ``single_source_shortest_path_length``: hop counts from ``source`` (to
    ``cutoff`` hops), nearest first."""
    import networkx as nx

    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    limit = float("inf") if cutoff is None else cutoff
    out = {source: 0}
    for depth, ids in enumerate(unordered_levels(G, G.index[source], limit), start=1):
        out.update(dict.fromkeys(G.labels(ids), depth))
    return out


def single_target_shortest_path_length(G: GrblasGraph, target: Any, cutoff: float | None = None) -> dict:
    """networkx ``single_target_shortest_path_length``: hop counts to ``target`` (to ``cutoff``
    hops), nearest first."""
    import networkx as nx

    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    limit = float("inf") if cutoff is None else cutoff
    out = {target: 0}
    levels = unordered_levels(G, G.index[target], limit, backwards=G.is_directed())
    for depth, ids in enumerate(levels, start=1):
        out.update(dict.fromkeys(G.labels(ids), depth))
    return out
