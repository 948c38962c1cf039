"""Katz, eigenvector and HITS centralities with networkx's signatures, by the library's
power iterations (the same definitions and convergence tests)."""

from __future__ import annotations

from typing import Any

from grblas_gpu import InvalidValue, select
from grblas_gpu.algorithms import eigenvector_centrality as _eigenvector
from grblas_gpu.algorithms import hits as _hits
from grblas_gpu.algorithms import katz_centrality as _katz
from grblas_gpu.algorithms.pagerank import ConvergenceError

from .graph import GrblasGraph

__all__ = ["eigenvector_centrality", "hits", "katz_centrality"]


def _run(max_iter: int, call: Any, power_iteration: bool = True) -> Any:
    """``call()``, networkx's exceptions for the library's: no convergence (left to networkx
    where networkx does not iterate as we do), arguments it refuses."""
    import networkx as nx

    try:
        return call()
    except ConvergenceError as exc:
        if not power_iteration:
            raise NotImplementedError(f"grblas_gpu leaves this to networkx: {exc}") from exc
        raise nx.PowerIterationFailedConvergence(max_iter) from exc
    except InvalidValue as exc:
        raise NotImplementedError(f"grblas_gpu leaves this to networkx: {exc}") from exc


def katz_centrality(G: GrblasGraph, alpha: float = 0.1, beta: Any = 1.0, max_iter: int = 1000,
                    tol: float = 1.0e-6, nstart: dict | None = None, normalized: bool = True,
                    weight: str | None = None) -> dict:
    """networkx ``katz_centrality``: ``{node: centrality}`` (a dict ``beta`` and ``nstart``
    are left to networkx by ``can_run``)."""
    if len(G) == 0:
        return {}
    A = G.weights(weight) if weight is not None else G.structure()
    x = _run(max_iter, lambda: _katz(A, alpha=alpha, beta=beta, max_iter=max_iter, tol=tol, normalized=normalized,
                                     weight=weight is not None))
    return dict(zip(G.nodes, x.to_dense(0.0).tolist()))


def eigenvector_centrality(G: GrblasGraph, max_iter: int = 100, tol: float = 1.0e-6, nstart: dict | None = None,
                           weight: str | None = None) -> dict:
    """networkx ``eigenvector_centrality``: ``{node: centrality}`` (``nstart`` is left to
    networkx by ``can_run``)."""
    import networkx as nx

    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("cannot compute centrality for the null graph")
    A = G.weights(weight) if weight is not None else G.structure()
    if weight is not None and A.select(select.valuelt, 0).new().nvals:
        raise NotImplementedError("grblas_gpu leaves negative weights to networkx")
    x = _run(max_iter, lambda: _eigenvector(A, max_iter=max_iter, tol=tol, weight=weight is not None))
    return dict(zip(G.nodes, x.to_dense(0.0).tolist()))


def hits(G: GrblasGraph, max_iter: int = 100, tol: float = 1.0e-8, nstart: dict | None = None,
         normalized: bool = True) -> tuple[dict, dict]:
    """networkx ``hits``: ``(hubs, authorities)`` as ``{node: score}`` dicts, on the edge
    attribute ``weight`` (1 where absent), as networkx reads it (``nstart`` is left to
    networkx by ``can_run``; where the power iteration does not converge in ``max_iter``
    steps, to networkx's SVD)."""
    import networkx as nx

    if len(G) == 0:
        return {}, {}
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    A = G.weights("weight") if G.has_weights("weight") else G.structure()
    # networkx computes HITS by a sparse SVD, which converges where power iteration may not.
    hubs, authorities = _run(max_iter, lambda: _hits(A, max_iter=max_iter, tol=tol, normalized=normalized),
                             power_iteration=False)
    return (dict(zip(G.nodes, hubs.to_dense(0.0).tolist())),
            dict(zip(G.nodes, authorities.to_dense(0.0).tolist())))
