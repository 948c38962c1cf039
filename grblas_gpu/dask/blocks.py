"""Row blocks of a CSR sent to a worker, and lost partitions made again (both below the
distributed objects: :mod:`.objects` and :mod:`.partition` use them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..exceptions import InvalidValue
from ..matrix import Matrix
from .errors import WorkerLost
from .layout import Context, Layout, context_for, even_offsets

if TYPE_CHECKING:
    from .objects import DistMatrix

__all__ = ["send_block", "rebuild"]


def _block_from_csr(ptr: np.ndarray, idx: np.ndarray, vals: np.ndarray, ncols: int, dtype: Any,
                    backend: str) -> Matrix:
    return Matrix.from_csr(ptr, idx, vals, ncols, dtype=dtype, backend=backend)


def _row_block(csr: tuple[np.ndarray, np.ndarray, np.ndarray], lo: int, hi: int) -> tuple[np.ndarray, ...]:
    ptr, idx, vals = csr
    a, b = int(ptr[lo]), int(ptr[hi])
    return (np.asarray(ptr[lo:hi + 1]) - a, np.asarray(idx[a:b]), np.asarray(vals[a:b]))


def send_block(ctx: Context, k: int, csr: Any, lo: int, hi: int, ncols: int, dtype: Any) -> Any:
    """Scatter rows ``lo:hi`` of ``csr`` to worker ``k`` of ``ctx``; the future of its Matrix."""
    [data] = ctx.client.scatter([_row_block(csr, lo, hi)], workers=[ctx.workers[k]])
    return ctx.submit(_unpack_block, data, ncols, dtype, ctx.backend, part=k)


def _unpack_block(data: tuple[np.ndarray, ...], ncols: int, dtype: Any, backend: str) -> Matrix:
    ptr, idx, vals = data
    return _block_from_csr(ptr, idx, vals, ncols, dtype, backend)


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
            blocks[k] = send_block(new_ctx, k, csr, lo, hi, A.ncols, A.dtype)
        else:
            blocks[k] = A._recipe(new_ctx, k, lo, hi)
    new_ctx.wait([blocks[k] for k in lost], "rebuild")
    A._layout, A._blocks = new_lay, blocks
    A._col_layout = new_lay if A.ncols == A.nrows else Layout(new_ctx, even_offsets(A.ncols, new_lay.nparts))
    A._kept = {}
    return lost
