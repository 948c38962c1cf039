"""Cutting a local Matrix or Vector into partitions on the workers, and rebuilding lost ones."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import DomainMismatch, InvalidValue
from ..matrix import Matrix
from ..vector import Vector
from .errors import WorkerLost
from .layout import Context, Layout, balanced_offsets, context_for, even_offsets
from .objects import DistMatrix, DistVector

__all__ = ["distribute", "default_client", "pick_workers", "rebuild"]


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


def _block_from_csr(ptr: np.ndarray, idx: np.ndarray, vals: np.ndarray, ncols: int, dtype: Any,
                    backend: str) -> Matrix:
    return Matrix.from_csr(ptr, idx, vals, ncols, dtype=dtype, backend=backend)


def _row_block(csr: tuple[np.ndarray, np.ndarray, np.ndarray], lo: int, hi: int) -> tuple[np.ndarray, ...]:
    ptr, idx, vals = csr
    a, b = int(ptr[lo]), int(ptr[hi])
    return (np.asarray(ptr[lo:hi + 1]) - a, np.asarray(idx[a:b]), np.asarray(vals[a:b]))


def _send_block(ctx: Context, k: int, csr: Any, lo: int, hi: int, ncols: int, dtype: Any) -> Any:
    [data] = ctx.client.scatter([_row_block(csr, lo, hi)], workers=[ctx.workers[k]])
    return ctx.submit(_unpack_block, data, ncols, dtype, ctx.backend, part=k)


def _unpack_block(data: tuple[np.ndarray, ...], ncols: int, dtype: Any, backend: str) -> Matrix:
    ptr, idx, vals = data
    return _block_from_csr(ptr, idx, vals, ncols, dtype, backend)


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
    futs = [_send_block(ctx, k, csr, offsets[k], offsets[k + 1], obj.ncols, obj.dtype) for k in range(n)]
    ctx.wait(futs, "distribute")
    symmetric = obj._store.symmetric if hasattr(obj, "_store") else None
    return DistMatrix._make(lay, obj.dtype, futs, obj.name, ncols=obj.ncols, symmetric=symmetric)


def rebuild(A: DistMatrix, source: Matrix | None) -> list[int]:
    """:meth:`DistMatrix.rebuild`."""
    lay = A._layout
    ctx = lay.context
    alive = sorted(ctx.client.nthreads())
    lost = [k for k, w in enumerate(ctx.workers) if w not in alive]
    if not lost:
        return []
    if A._recipe is None and source is None:
        raise InvalidValue("rebuild: this matrix was distributed from a local Matrix; pass it as source=")
    if source is not None and source.shape != A.shape:
        raise InvalidValue(f"rebuild: source has shape {source.shape}, the matrix {A.shape}")
    free = [w for w in alive if w not in ctx.workers]
    if len(free) < len(lost):
        raise WorkerLost(f"GrB_PANIC: {len(lost)} partitions lost and {len(free)} workers free to hold them; "
                         "add workers (one partition per worker)", worker=ctx.workers[lost[0]],
                         partitions=tuple(lost))
    workers = list(ctx.workers)
    for k, w in zip(lost, free, strict=False):
        workers[k] = w
    new_ctx = context_for(ctx.client, workers, ctx.backend, ctx.exchange)
    new_lay = Layout(new_ctx, lay.offsets)
    blocks = list(A._blocks)
    csr = tuple(np.asarray(a) for a in source.to_csr()) if source is not None else None
    for k in lost:
        lo, hi = lay.offsets[k], lay.offsets[k + 1]
        if csr is not None:
            blocks[k] = _send_block(new_ctx, k, csr, lo, hi, A.ncols, A.dtype)
        else:
            blocks[k] = A._recipe(new_ctx, k, lo, hi)
    new_ctx.wait([blocks[k] for k in lost], "rebuild")
    A._layout, A._blocks = new_lay, blocks
    A._col_layout = new_lay if A.ncols == A.nrows else Layout(new_ctx, even_offsets(A.ncols, new_lay.nparts))
    A._kept = {}
    return lost
