"""How the command calls the algorithms added with louvain: each one's options as arguments."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import grblas_gpu as gb

from .graphs import Graph

__all__ = ["MORE_CALLS", "iteration_options"]


def iteration_options(args: argparse.Namespace) -> dict[str, Any]:
    """``max_iter`` and ``tol`` where given (else the algorithm's defaults)."""
    given = {"max_iter": args.max_iter, "tol": args.tol}
    return {k: v for k, v in given.items() if v is not None}


def _rows(graph: Graph, vertices: list[int], what: str) -> list[int]:
    return [graph.row_of(v, what) for v in vertices]


def _jaccard(fn: Callable[..., Any], graph: Graph, args: argparse.Namespace) -> Any:
    if args.pairs is None:
        return fn(graph.matrix)
    return fn(graph.matrix, [(graph.row_of(u, "--pairs vertex"), graph.row_of(v, "--pairs vertex"))
                             for u, v in args.pairs])


def _msf(fn: Callable[..., Any], graph: Graph, args: argparse.Namespace) -> Any:
    A = graph.matrix
    return fn(A.apply(gb.unary.one).new(dtype=gb.INT64) if A.dtype == gb.dtypes.BOOL else A)


MORE_CALLS: dict[str, Callable[[Callable[..., Any], Graph, argparse.Namespace], Any]] = {
    "louvain": lambda fn, g, a: fn(g.matrix, resolution=a.resolution, seed=a.seed),
    "leiden": lambda fn, g, a: fn(g.matrix, resolution=a.resolution, seed=a.seed),
    "core-number": lambda fn, g, a: fn(g.matrix, directed=g.directed),
    "k-truss": lambda fn, g, a: fn(g.matrix, a.k),
    "jaccard": _jaccard,
    "msbfs": lambda fn, g, a: fn(g.matrix, _rows(g, a.sources, "--sources vertex"), cutoff=a.cutoff),
    "scc": lambda fn, g, a: fn(g.matrix),
    # Every edge counts 1 in the centralities, as networkx's default (weight=None).
    "katz": lambda fn, g, a: fn(g.matrix, alpha=a.alpha, beta=a.beta, **iteration_options(a)),
    "eigenvector": lambda fn, g, a: fn(g.matrix, **iteration_options(a)),
    "hits": lambda fn, g, a: fn(g.matrix, **iteration_options(a)),
    "mis": lambda fn, g, a: fn(g.matrix, seed=a.seed),
    "coloring": lambda fn, g, a: fn(g.matrix, seed=a.seed),
    "msf": _msf,
}
"""For each new subcommand: call its algorithm ``fn`` on the graph with the parsed options."""
