"""Weighted shortest path lengths from one source, by the library's (min, +) Bellman-Ford."""

from __future__ import annotations

from typing import Any

import numpy as np

from grblas_gpu import InvalidValue, Matrix, monoid, select, unary
from grblas_gpu.algorithms import sssp

from .graph import GrblasGraph

__all__ = ["single_source_dijkstra_path_length", "single_source_bellman_ford_path_length", "dijkstra_path_length",
           "bellman_ford_path_length"]


def _lengths(G: GrblasGraph, W: Matrix, source: Any, cutoff: float | None) -> dict:
    """``{node: distance}`` from the library's sssp, nearest first, to ``cutoff``.  A NaN
    weight, or integer sums the library will not vouch for (networkx's Python ints never
    overflow), are left to networkx (NotImplementedError); a negative cycle raises
    ``NetworkXUnbounded``."""
    import networkx as nx

    if W.dtype.is_float and W.nvals and W.apply(unary.isnan).new().reduce_scalar(monoid.lor).new().value:
        raise NotImplementedError("grblas_gpu leaves NaN edge weights to networkx")
    try:
        dist = sssp(W, G.index[source])
    except InvalidValue as exc:
        if "negative cycle" in str(exc):
            raise nx.NetworkXUnbounded("Negative cycle detected.") from exc
        raise NotImplementedError(f"grblas_gpu leaves this to networkx: {exc}") from exc
    ids, values = dist.to_coo()
    if cutoff is not None:
        keep = values <= cutoff
        ids, values = ids[keep], values[keep]
    order = np.argsort(values, kind="stable")
    return dict(zip(G.labels(ids[order]), values[order].tolist()))


def _has_negative(W: Matrix) -> bool:
    """Whether ``W`` holds a negative value."""
    return W.select(select.valuelt, 0).new().nvals > 0


def single_source_dijkstra_path_length(G: GrblasGraph, source: Any, cutoff: float | None = None,
                                       weight: str | None = "weight") -> dict:
    """networkx ``single_source_dijkstra_path_length``: weighted distances from ``source``
    (the lightest of parallel edges; 1 where an edge lacks ``weight``).  Negative weights,
    where networkx's Dijkstra gives no defined answer, are left to networkx."""
    import networkx as nx

    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    W = G.weights(weight, combine="min")
    if _has_negative(W):
        raise NotImplementedError("grblas_gpu leaves Dijkstra with negative weights to networkx")
    return _lengths(G, W, source, cutoff)


def single_source_bellman_ford_path_length(G: GrblasGraph, source: Any, weight: str | None = "weight") -> dict:
    """networkx ``single_source_bellman_ford_path_length``: weighted distances from ``source``;
    ``NetworkXUnbounded`` where a negative cycle is reachable."""
    import networkx as nx

    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    return _lengths(G, G.weights(weight, combine="min"), source, None)


def _to_target(lengths: dict, source: Any, target: Any, message: str) -> Any:
    import networkx as nx

    try:
        return lengths[target]
    except KeyError as exc:
        raise nx.NetworkXNoPath(message.format(source=source, target=target)) from exc


def dijkstra_path_length(G: GrblasGraph, source: Any, target: Any, weight: str | None = "weight") -> Any:
    """networkx ``dijkstra_path_length``: the weighted distance from ``source`` to ``target``."""
    import networkx as nx

    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if source == target:
        return 0
    lengths = single_source_dijkstra_path_length(G, source, weight=weight)
    return _to_target(lengths, source, target, "Node {target} not reachable from {source}")


def bellman_ford_path_length(G: GrblasGraph, source: Any, target: Any, weight: str | None = "weight") -> Any:
    """networkx ``bellman_ford_path_length``: the weighted distance from ``source`` to ``target``."""
    import networkx as nx

    if source == target:
        if source not in G:
            raise nx.NodeNotFound(f"Node {source} not found in graph")
        return 0
    lengths = single_source_bellman_ford_path_length(G, source, weight=weight)
    return _to_target(lengths, source, target, "node {target} not reachable from {source}")
