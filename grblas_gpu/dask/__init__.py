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

from .errors import Panic, PartitionMismatch, WorkerLost
from .layout import Context, Layout
from .objects import DistMask, DistMatrix, DistVector, Placement
from .partition import distribute
from .readers import read_graph

__all__ = ["distribute", "read_graph", "DistMatrix", "DistVector", "DistMask", "Placement", "Layout", "Context",
           "Panic", "WorkerLost", "PartitionMismatch"]
