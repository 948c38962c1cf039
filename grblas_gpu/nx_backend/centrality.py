"""Betweenness centrality with networkx's signature, from the library's batched Brandes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from grblas_gpu import BOOL, INT64, Matrix, binary, monoid, semiring
from grblas_gpu.algorithms import betweenness_centrality as _betweenness

from .graph import GrblasGraph

__all__ = ["betweenness_centrality"]


def _reach(A: Matrix, sources: list[int], batch_size: int = 128) -> tuple[np.ndarray, np.ndarray]:
    """For every source the number of nodes it reaches (itself included), and for every node
    the number of sources that reach it (a source reaches itself): a breadth-first search
    from a batch of sources at once, row ``k`` of the frontier matrix for source ``k``."""
    n = A.nrows
    sizes, reached_by = [], np.zeros(n, dtype=np.int64)
    for start in range(0, len(sources), batch_size):
        batch = sources[start:start + batch_size]
        frontier = Matrix.from_coo(range(len(batch)), batch, True, nrows=len(batch), ncols=n, dtype=BOOL,
                                   backend=A.backend)
        seen = frontier.dup()
        while frontier.nvals:
            frontier(~seen.S, replace=True) << frontier.mxm(A, semiring.any_pair)
            seen(binary.lor) << frontier
        ones = seen.dup(INT64)
        sizes.append(ones.reduce_rowwise(monoid.plus).new().to_dense(0))
        reached_by += ones.reduce_columnwise(monoid.plus).new().to_dense(0)
    return (np.concatenate(sizes) if sizes else np.zeros(0, np.int64)), reached_by


def _with_endpoints(raw: list[float], A: Matrix, sources: list[int]) -> list[float]:
    """networkx's ``_accumulate_endpoints`` on top of the dependencies: each source gains the
    nodes it reaches, each other node one per source that reaches it."""
    sizes, reached_by = _reach(A, sources)
    out = np.asarray(raw, dtype=np.float64) + reached_by
    np.add.at(out, np.asarray(sources, dtype=np.int64), sizes - 2)  # a source does not count itself
    return out.tolist()


def _scales(n: int, *, normalized: bool, directed: bool, k: int | None,
            endpoints: bool = False) -> tuple[float, float]:
    """networkx's ``_rescale`` factors for sampled and other nodes.  Before them, the
    library's sums are networkx's: both count every ordered (s, t) pair."""
    N = n if endpoints else n - 1
    if N < 2:
        return 1.0, 1.0
    sources = N if k is None else k
    correction = 1 if directed else 2
    if k is None or endpoints:
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
    """networkx ``betweenness_centrality`` for unweighted paths (``can_run`` leaves ``weight``
    to networkx).  ``k`` sources are drawn as networkx draws them, ``seed.sample(list(G), k)``,
    so the same seed picks the same sources."""
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
    A = G.structure()
    raw = _betweenness(A, sources).to_dense(0.0).tolist() if n else []
    if endpoints and n:
        raw = _with_endpoints(raw, A, list(sources))
    on_source, off_source = _scales(n, normalized=normalized, directed=G.is_directed(), k=k, endpoints=endpoints)
    if sampled is None or endpoints:
        return {v: b * on_source for v, b in zip(G.nodes, raw)}
    chosen = set(sampled)
    return {v: b * (on_source if v in chosen else off_source) for v, b in zip(G.nodes, raw)}
