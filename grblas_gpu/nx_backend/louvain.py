"""Louvain communities with networkx's signature, by the library's ``louvain``.

The moves go in random batches (see :func:`grblas_gpu.algorithms.louvain`), so for a given
``seed`` the partition is a valid one of comparable modularity, not networkx's: networkx's
tests that expect its exact partition for a seed are marked in :mod:`.interface`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grblas_gpu import monoid
from grblas_gpu.algorithms import leiden, louvain

from .graph import GrblasGraph

__all__ = ["leiden_communities", "louvain_communities"]


def _int_seed(seed: Any) -> int | None:
    """An integer seed for numpy from networkx's seed (a ``random.Random`` after its decorator)."""
    if seed is None or isinstance(seed, int):
        return seed
    if hasattr(seed, "getrandbits"):
        return int(seed.getrandbits(63))
    if hasattr(seed, "randint"):  # numpy's RandomState / Generator
        return int(seed.randint(0, 2**62)) if hasattr(seed, "tomaxint") else int(seed.integers(0, 2**62))
    raise NotImplementedError(f"grblas_gpu leaves a seed of type {type(seed).__name__} to networkx")


def louvain_communities(G: GrblasGraph, weight: str | None = "weight", resolution: float = 1,
                        threshold: float = 1e-07, max_level: int | None = None, seed: Any = None) -> list[set]:
    """networkx ``louvain_communities`` of an undirected graph: a list of node sets (by
    their first node in ``G``).  Parallel edges add their weights; negative weights are left
    to networkx."""
    if max_level is not None and max_level <= 0:
        raise ValueError("max_level argument must be a positive integer or None")
    n = len(G)
    if n == 0:
        return []
    W = G.weights(weight, combine="plus")
    if W.nvals and W.reduce_scalar(monoid.min).new().value < 0:
        raise NotImplementedError("grblas_gpu leaves louvain with negative weights to networkx")
    labels = louvain(W, resolution=resolution, threshold=threshold, max_level=max_level,
                     seed=_int_seed(seed)).to_dense()
    return _communities(G, labels)


def leiden_communities(G: GrblasGraph, weight: str | None = "weight", resolution: float = 1,
                       max_level: int | None = None, seed: Any = None) -> list[set]:
    """networkx ``leiden_communities`` (which networkx leaves to backends): a list of node
    sets, each inducing a connected subgraph.  Parallel edges add their weights; negative
    weights are left to networkx (which has no implementation, so it raises)."""
    if max_level is not None and max_level <= 0:
        raise ValueError("max_level argument must be a positive integer or None")
    if len(G) == 0:
        return []
    W = G.weights(weight, combine="plus")
    if W.nvals and W.reduce_scalar(monoid.min).new().value < 0:
        raise NotImplementedError("grblas_gpu leaves leiden with negative weights to networkx")
    labels = leiden(W, resolution=resolution, max_level=max_level, seed=_int_seed(seed)).to_dense()
    return _communities(G, labels)


def _communities(G: GrblasGraph, labels: np.ndarray) -> list[set]:
    """The node sets of a labelling, by their first node in ``G``."""
    n = len(G)
    first = np.full(int(labels.max()) + 1, n)
    np.minimum.at(first, labels, np.arange(n))
    rank = np.argsort(np.argsort(first))  # communities by their first node
    groups: list[list[int]] = [[] for _ in range(len(first))]
    for i, c in enumerate(rank[labels].tolist()):
        groups[c].append(i)
    return [set(G.labels(g)) for g in groups]
