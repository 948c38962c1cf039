"""Graph algorithms as short loops of GraphBLAS algebra (imported as ``grblas_gpu.algorithms``).

Every function takes a ``Matrix`` ``A`` where ``A[i, j]`` is the edge i -> j and
uses only the public ``grblas_gpu`` API, so each file reads as a recipe for
composing your own algorithm.
"""

from __future__ import annotations

import importlib
from typing import Any

_MODULES = {
    "sssp": "sssp",
    "widest_path": "widest_path",
    "pagerank": "pagerank",
    "bfs_levels": "bfs",
    "bfs_parents": "bfs",
    "connected_components": "connected_components",
    "triangle_count": "triangle_count",
    "local_clustering_coefficient": "lcc",
    "cdlp": "cdlp",
    "betweenness_centrality": "betweenness",
}

__all__ = sorted(_MODULES)


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'grblas_gpu.algorithms' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    # Importing the submodule set a package attribute of the same name (e.g. the module
    # ``triangle_count``); the function must win.
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
