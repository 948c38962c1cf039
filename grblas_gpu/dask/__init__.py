"""grblas_gpu on a Dask cluster: a Matrix and a Vector cut into partitions, one per worker
(one GPU per worker, or CPU workers), with the same operations and the same algorithms.

>>> from distributed import Client
>>> import grblas_gpu.dask as gd
>>> from grblas_gpu.algorithms import pagerank
>>> client = Client(n_workers=2, threads_per_worker=1)       # or dask-cuda's LocalCUDACluster
>>> A = gd.read_graph("graph.mtx", client)                    # each worker reads its share
>>> ranks = pagerank(A).gather()                              # an ordinary Vector

Install with ``pip install "grblas-gpu[dask]"``.  See docs/dask.md.
"""

from typing import Any

from .errors import Panic, PartitionMismatch, WorkerLost

__all__ = ["distribute", "read_graph", "DistMatrix", "DistVector", "DistMask", "Placement", "Layout", "Context",
           "Panic", "WorkerLost", "PartitionMismatch", "spmd"]

_LAZY = {"Context": "layout", "Layout": "layout", "DistMask": "objects", "DistMatrix": "objects",
         "DistVector": "objects", "Placement": "objects", "distribute": "partition", "read_graph": "readers",
         "spmd": "spmd"}
# (imported on first use: the algorithms import .spmd for their decorator, and importing the
# package must stay cheap for them)


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'grblas_gpu.dask' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value
