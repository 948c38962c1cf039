"""minimum_spanning_edges with networkx's signature (``data=False``), by Boruvka rounds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from grblas_gpu import monoid, select, unary
from grblas_gpu.algorithms import minimum_spanning_forest

from .graph import GrblasGraph

__all__ = ["minimum_spanning_edges"]


def minimum_spanning_edges(G: GrblasGraph, algorithm: str = "kruskal", weight: str = "weight", keys: bool = True,
                           data: bool = True, ignore_nan: bool = False) -> Iterator[tuple[Any, Any]]:
    """networkx ``minimum_spanning_edges`` with ``data=False`` (``can_run`` leaves
    ``data=True`` to networkx: the edge dicts are not converted): the forest's edges, by
    weight.  Where two edges weigh the same the forest may not be unique and each of
    networkx's algorithms breaks ties its own way, so such graphs (and NaN weights) are left
    to networkx."""
    W = G.weights(weight, combine="min")
    E = W.select(select.offdiag).new()
    if E.nvals and E.apply(unary.isnan).new().reduce_scalar(monoid.lor).new().value:
        raise NotImplementedError("grblas_gpu leaves NaN weights to networkx")
    w = _upper_weights(E)
    if len(np.unique(w)) != len(w):
        raise NotImplementedError("grblas_gpu leaves spanning trees with tied weights to networkx")
    u, v, w = minimum_spanning_forest(W).to_coo()
    order = np.argsort(w, kind="stable")
    return ((G.nodes[a], G.nodes[b]) for a, b in zip(u[order].tolist(), v[order].tolist()))


def _upper_weights(E: Any) -> np.ndarray:
    """The weight of each undirected edge once (its entry above the diagonal)."""
    rows, cols, w = E.to_coo()
    return w[rows < cols]
