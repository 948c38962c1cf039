"""A NetworkX backend named ``grblas_gpu``: ``nx.pagerank(G, backend="grblas_gpu")``.

networkx (3.3 and later) finds it through the ``networkx.backends`` and
``networkx.backend_info`` entry points; a call is converted to a :class:`GrblasGraph`
(cached by networkx on the graph, so once per graph) and served by ``grblas_gpu.algorithms``.
Arguments it cannot serve exactly are declined through ``can_run``, and networkx then runs
its own implementation (with fallback configured) or says so.

``grblas_gpu`` itself never imports networkx or this package; importing this package does
not import networkx either (the functions import it when called).
"""

from ._info import get_info

__all__ = ["get_info", "interface"]


def __getattr__(name: str):
    if name == "interface":
        from . import interface

        return interface
    raise AttributeError(name)
