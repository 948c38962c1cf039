"""PageRank with networkx's signature, by the library's power iteration (same definition)."""

from __future__ import annotations

from grblas_gpu import FP64, InvalidValue, Vector, select
from grblas_gpu.algorithms import pagerank as _pagerank
from grblas_gpu.algorithms.pagerank import ConvergenceError

from .graph import GrblasGraph

__all__ = ["pagerank"]


def pagerank(G: GrblasGraph, alpha: float = 0.85, personalization: dict | None = None, max_iter: int = 100,
             tol: float = 1.0e-6, nstart: dict | None = None, weight: str | None = "weight",
             dangling: dict | None = None) -> dict:
    """networkx ``pagerank``: ``{node: rank}``.  Parallel edges add their weights (as
    ``to_scipy_sparse_array`` does); ``nstart``, ``dangling`` and ``alpha`` outside [0, 1] are
    left to networkx by ``can_run``, negative weights by NotImplementedError."""
    import networkx as nx

    n = len(G)
    if n == 0:
        return {}
    if not tol > 0 or max_iter <= 0:  # networkx's test err < n * tol never passes (or never runs)
        raise nx.PowerIterationFailedConvergence(max_iter)
    p = None
    if personalization is not None:
        keys = [node for node in personalization if node in G]
        values = [float(personalization[node]) for node in keys]
        if sum(values) == 0:
            raise ZeroDivisionError
        p = Vector.from_coo(G.node_ids(keys), values, size=n, dtype=FP64, backend=G.structure().backend)
    if weight is None and not G.is_multigraph():
        A, weighted = G.structure(), False  # values never read
    else:
        A, weighted = G.weights(weight, combine="plus"), True
        if A.select(select.valuelt, 0).new().nvals:
            raise NotImplementedError("grblas_gpu leaves pagerank with negative weights to networkx")
    try:
        x = _pagerank(A, alpha=alpha, tol=tol, max_iter=max_iter, personalization=p, weight=weighted)
    except ConvergenceError as exc:
        raise nx.PowerIterationFailedConvergence(max_iter) from exc
    except InvalidValue as exc:  # an argument the library refuses and networkx takes
        raise NotImplementedError(f"grblas_gpu leaves this to networkx: {exc}") from exc
    return dict(zip(G.nodes, x.to_dense(0.0).tolist()))
