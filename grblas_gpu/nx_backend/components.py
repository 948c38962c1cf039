"""Connected and weakly connected components, from the library's min-label propagation.

The library labels each vertex with the smallest index in its component; indices follow
``list(G)``, so sorting components by label yields them in networkx's order (by the first
node of each in ``G``).  networkx checks directedness (``not_implemented_for``) before it
dispatches.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from grblas_gpu.algorithms import connected_components as _labels
from grblas_gpu.algorithms import strongly_connected_components as _strong_labels

from .graph import GrblasGraph

__all__ = ["connected_components", "number_connected_components", "is_connected", "node_connected_component",
           "weakly_connected_components", "number_weakly_connected_components", "is_weakly_connected",
           "strongly_connected_components", "number_strongly_connected_components", "is_strongly_connected"]


def _label_array(G: GrblasGraph) -> np.ndarray:
    """Component label (smallest member index) of every node."""
    return _labels(G.structure()).to_dense()


def _components(G: GrblasGraph, labels: np.ndarray | None = None) -> Iterator[set]:
    labels = _label_array(G) if labels is None else labels
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    for members in np.split(order, bounds) if len(order) else []:
        yield set(G.labels(members))


def _count(G: GrblasGraph) -> int:
    labels = _label_array(G)
    return int(np.count_nonzero(labels == np.arange(len(labels))))


def _is_connected(G: GrblasGraph) -> bool:
    import networkx as nx

    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return _count(G) == 1


def connected_components(G: GrblasGraph) -> Iterator[set]:
    """networkx ``connected_components``: a set of nodes per component, in networkx's order."""
    yield from _components(G)


def number_connected_components(G: GrblasGraph) -> int:
    """networkx ``number_connected_components``."""
    return _count(G)


def is_connected(G: GrblasGraph) -> bool:
    """networkx ``is_connected`` (``NetworkXPointlessConcept`` for the null graph)."""
    return _is_connected(G)


def node_connected_component(G: GrblasGraph, n: Any) -> set:
    """networkx ``node_connected_component``: the nodes in ``n``'s component."""
    if n not in G:
        raise KeyError(n)  # networkx's G._adj[n] raises the same
    labels = _label_array(G)
    return set(G.labels(np.flatnonzero(labels == labels[G.index[n]])))


def weakly_connected_components(G: GrblasGraph) -> Iterator[set]:
    """networkx ``weakly_connected_components``: a set of nodes per component, in networkx's order."""
    yield from _components(G)


def number_weakly_connected_components(G: GrblasGraph) -> int:
    """networkx ``number_weakly_connected_components``."""
    return _count(G)


def is_weakly_connected(G: GrblasGraph) -> bool:
    """networkx ``is_weakly_connected`` (``NetworkXPointlessConcept`` for the null graph)."""
    return _is_connected(G)


def _strong(G: GrblasGraph) -> np.ndarray:
    """Strongly connected component label (smallest member index) of every node."""
    return _strong_labels(G.structure()).to_dense() if len(G) else np.zeros(0, dtype=np.int64)


def strongly_connected_components(G: GrblasGraph) -> Iterator[set]:
    """networkx ``strongly_connected_components``: a set of nodes per component, by their
    first node in ``G`` (networkx documents no order; its own is its search's)."""
    yield from _components(G, _strong(G))


def number_strongly_connected_components(G: GrblasGraph) -> int:
    """networkx ``number_strongly_connected_components``."""
    labels = _strong(G)
    return int(np.count_nonzero(labels == np.arange(len(labels))))


def is_strongly_connected(G: GrblasGraph) -> bool:
    """networkx ``is_strongly_connected`` (``NetworkXPointlessConcept`` for the null graph)."""
    import networkx as nx

    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return number_strongly_connected_components(G) == 1
