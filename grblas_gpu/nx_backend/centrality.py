"""Betweenness centrality with networkx's signature, from the library's batched Brandes."""

from __future__ import annotations

import math
from typing import Any

from grblas_gpu.algorithms import betweenness_centrality as _betweenness

from .graph import GrblasGraph

__all__ = ["betweenness_centrality"]


def _scales(n: int, *, normalized: bool, directed: bool, k: int | None) -> tuple[float, float]:
    """networkx's ``_rescale`` factors (for endpoints=False) for sampled and other nodes.
    Before them, the library's sums are networkx's: both count every ordered (s, t) pair."""
    N = n - 1
    if N < 2:
        return 1.0, 1.0
    sources = N if k is None else k
    correction = 1 if directed else 2
    if k is None:
        scale = 1 / (sources * (N - 1)) if normalized else N / (sources * correction)
        return scale, scale
    if normalized:
        on_source = 1 / ((sources - 1) * (N - 1)) if sources > 1 else math.nan
        off_source = 1 / (sources * (N - 1))
    else:
        on_source = N / ((sources - 1) * correction) if sources > 1 else math.nan
        off_source = N / (sources * correction)
    return on_source, off_source


def betweenness_centrality(G: GrblasGraph, k: int | None = None, normalized: bool = True, weight: str | None = None,
                           endpoints: bool = False, seed: Any = None) -> dict:
    """networkx ``betweenness_centrality`` for unweighted paths without endpoints (``can_run``
    leaves ``weight`` and ``endpoints`` to networkx).  ``k`` sources are drawn as networkx
    draws them, ``seed.sample(list(G), k)``, so the same seed picks the same sources."""
    import networkx as nx

    n = len(G)
    if k == n:
        k = None
    if k is None:
        sampled = None
        sources = range(n)
    else:
        rng = nx.utils.create_py_random_state(seed)
        sampled = rng.sample(list(G.nodes), k)
        sources = G.node_ids(sampled).tolist()
    raw = _betweenness(G.structure(), sources).to_dense(0.0).tolist() if n else []
    on_source, off_source = _scales(n, normalized=normalized, directed=G.is_directed(), k=k)
    if sampled is None:
        return {v: b * on_source for v, b in zip(G.nodes, raw)}
    chosen = set(sampled)
    return {v: b * (on_source if v in chosen else off_source) for v, b in zip(G.nodes, raw)}
