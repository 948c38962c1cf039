"""Cutting a local Matrix or Vector into partitions on the workers."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import DomainMismatch, InvalidValue
from ..matrix import Matrix
from ..vector import Vector
from .blocks import send_block
from .layout import Layout, balanced_offsets, context_for, even_offsets
from .objects import DistMatrix, DistVector

__all__ = ["distribute", "default_client", "pick_workers"]


def default_client(client: Any = None) -> Any:
    """``client``, or the current ``dask.distributed`` client."""
    if client is not None:
        return client
    from distributed import default_client as current

    return current()


def pick_workers(client: Any, npartitions: int | None) -> list[str]:
    """The first ``npartitions`` workers of ``client`` by address (all where None)."""
    workers = sorted(client.nthreads())
    if not workers:
        raise InvalidValue("the Dask client has no workers")
    if npartitions is None:
        return workers
    if isinstance(npartitions, bool) or not isinstance(npartitions, int) or npartitions < 1:
        raise InvalidValue(f"npartitions must be a positive integer, got {npartitions!r}")
    if npartitions > len(workers):
        raise InvalidValue(f"npartitions={npartitions}: one partition per worker, and the client has "
                           f"{len(workers)} workers")
    return workers[:npartitions]


def distribute(obj: Matrix | Vector, client: Any = None, npartitions: int | None = None, *,
               like: DistMatrix | DistVector | None = None, backend: str | None = None,
               exchange: str | None = None) -> Any:
    """A distributed copy of a local Matrix (row blocks balanced by entries, one per worker)
    or Vector (cut as ``like``'s rows, else evenly).

    ``client``: a ``dask.distributed`` Client (the current one where None); ``npartitions``:
    how many workers to use (all where None); ``backend``: the workers' backend ("numpy" or
    "cupy"; their default where None); ``exchange``: "nccl" or "dask" (NCCL where the
    workers run CuPy and have it, where None).  The data go from this process to each worker
    once; to load a file that does not fit here, use :func:`read_graph`.
    """
    if isinstance(obj, (DistMatrix, DistVector)):
        raise InvalidValue("distribute: the object is distributed already")
    if like is not None:
        lay = like._layout if obj.size == like.shape[0] else like._layouts()[-1]  # type: ignore[union-attr]
        if isinstance(obj, Vector):
            return DistVector.from_local(obj, lay)
    client = default_client(client)
    ctx = context_for(client, pick_workers(client, npartitions), backend, exchange)
    n = len(ctx.workers)
    if isinstance(obj, Vector):
        return DistVector.from_local(obj, Layout(ctx, even_offsets(obj.size, n)))
    if not isinstance(obj, Matrix):
        raise DomainMismatch(f"distribute needs a grblas_gpu Matrix or Vector, got {type(obj).__name__}")
    csr = tuple(np.asarray(a) for a in obj.to_csr())
    offsets = balanced_offsets(np.diff(csr[0]), n)
    lay = Layout(ctx, offsets)
    futs = [send_block(ctx, k, csr, offsets[k], offsets[k + 1], obj.ncols, obj.dtype) for k in range(n)]
    ctx.wait(futs, "distribute")
    symmetric = obj._store.symmetric if hasattr(obj, "_store") else None
    return DistMatrix._make(lay, obj.dtype, futs, obj.name, ncols=obj.ncols, symmetric=symmetric)
