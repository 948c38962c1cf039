"""Algorithms the command runs in counted parts, so that their progress shows how far they are."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import grblas_gpu as gb

from .progress import Progress

__all__ = ["counted_betweenness"]


def _sources_with_edges(A: gb.Matrix) -> list[int]:
    """The rows holding an entry: the sources betweenness uses by default (the others add nothing)."""
    if A.nvals == 0:
        return []
    return [int(i) for i in A.reduce_rowwise(gb.monoid.any).new().to_coo(values=False)[0]]


def counted_betweenness(fn: Callable[..., Any], A: gb.Matrix, sources: Sequence[int] | None,
                        batch_size: int, progress: Progress) -> gb.Vector:
    """``fn(A, sources, batch_size=batch_size)`` (betweenness centrality), one batch of sources
    a call, the sources done so far given to ``progress``.

    Betweenness is a sum over sources, added batch after batch inside the algorithm too, so
    the sum of the calls is the algorithm's answer, bit for bit.
    """
    chosen = _sources_with_edges(A) if sources is None else list(sources)
    step = max(batch_size, 1)
    progress.update(0, len(chosen))
    total: gb.Vector | None = None
    for start in range(0, max(len(chosen), 1), step):
        part = fn(A, sources=chosen[start:start + step], batch_size=batch_size)
        total = part if total is None else total.ewise_add(part, op=gb.binary.plus).new()
        progress.update(min(start + step, len(chosen)))
    assert total is not None
    return total
