"""The workers' side of an SPMD call (:mod:`.spmd`): the context an algorithm sees inside the
call, a worker's part of the call over its own partition, and what it sends back.  Both ways a
call reaches the workers use it: tasks (:func:`run_part`) and actors (:mod:`.actors`)."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from ..exceptions import NotImplementedException
from ..matrix import Matrix
from ..vector import Vector
from .layout import Context, Layout

__all__ = ["SpmdContext", "SpmdResult", "worker_run", "run_part", "result_block"]


class SpmdContext(Context):
    """A Context seen from inside an SPMD call on the worker of partition ``rank``: a task of
    its own partition runs at once, other partitions' are not this worker's business, and a
    gather of per-partition values is an all-gather through the communicator."""

    def __init__(self, key: str, workers: tuple[str, ...], backend: str, exchange: str, rank: int,
                 comm: Any) -> None:
        self.client, self.workers, self.backend, self.exchange = None, workers, backend, exchange
        self.key, self.rank, self.comm, self.comm_ready = key, rank, comm, True

    @property
    def nccl(self) -> bool:
        """Exchanges run inside the partition's own work (collective form), whatever the transport."""
        return True

    def submit(self, fn: Callable[..., Any], *args: Any, part: int, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` now where ``part`` is this worker's partition (else nothing)."""
        return fn(*args, **kwargs) if part == self.rank else None

    def wait(self, futures: Any, what: str) -> None:
        """Nothing to wait for: the work was done when submitted."""

    def gather(self, futures: Any, what: str) -> list[Any]:
        """Every partition's value, from each worker's own (an all-gather)."""
        return self.comm.allgather_object(list(futures)[self.rank])

    def ensure_comm(self) -> None:
        """The communicator is there already."""

    def __repr__(self) -> str:
        return f"SpmdContext(rank {self.rank} of {len(self.workers)}, {self.backend}, exchange={self.exchange})"


_CONTEXTS: dict[tuple[str, str], SpmdContext] = {}
_KEPT: dict[tuple[str, int], tuple[Any, dict[Any, Any]]] = {}
"""What an algorithm kept with a worker's partition (``A._memo``: PageRank's weights), by
(layout key, id of the partition), for as long as the partition lives."""


def _context(key: str, workers: tuple[str, ...], backend: str, exchange: str, rank: int) -> SpmdContext:
    from ._nccl import _me, get_comm

    comm = get_comm(key)
    ctx = _CONTEXTS.get((key, _me()))
    if ctx is None or ctx.comm is not comm or ctx.workers != workers:
        ctx = _CONTEXTS[key, _me()] = SpmdContext(key, workers, backend, exchange, rank, comm)
    return ctx


def _kept_for(key: str, block: Any) -> dict[Any, Any]:
    slot = (key, id(block))
    held = _KEPT.get(slot)
    if held is not None and held[0]() is block:
        return held[1]
    kept: dict[Any, Any] = {}

    def forget(_ref: Any) -> None:
        _KEPT.pop(slot, None)

    _KEPT[slot] = (weakref.ref(block, forget), kept)
    return kept


class SpmdResult:
    """A worker's result of an SPMD call: ``meta``, what the client needs (``("vector",
    dtype, name, offsets)`` for a distributed Vector, else ``("value", result)``), and the
    worker's partition of a Vector result, ``block``, which stays on the worker: pickled (sent
    to the client), the result is its meta alone, and the matrix's count of entries where the
    call found it (``nvals``: the client keeps it for the next calls)."""

    __slots__ = ("meta", "block", "nvals")

    def __init__(self, meta: tuple[Any, ...], block: Any = None, nvals: int | None = None) -> None:
        self.meta, self.block, self.nvals = meta, block, nvals

    def __reduce__(self) -> Any:
        return (SpmdResult, (self.meta, None, self.nvals))


def worker_run(fn: Callable[..., Any], spec: dict[str, Any], block: Any, args: tuple[Any, ...],
               kwargs: dict[str, Any]) -> SpmdResult:
    """One worker's part of an SPMD call: ``fn`` over the worker-side distributed Matrix."""
    from .objects import DistCollection, DistMatrix

    if len(spec["workers"]) == 1:
        return _run_alone(fn, spec, block, args, kwargs)
    ctx = _context(spec["key"], spec["workers"], spec["backend"], spec["exchange"], spec["rank"])
    n = len(ctx.workers)
    blocks: list[Any] = [None] * n
    blocks[ctx.rank] = block
    rows = Layout(ctx, spec["offsets"])
    cols = rows if spec["col_offsets"] == spec["offsets"] else Layout(ctx, spec["col_offsets"])
    A = DistMatrix._make(rows, spec["dtype"], blocks, spec["name"], ncols=spec["ncols"], col_layout=cols,
                         symmetric=spec["symmetric"])
    A._kept = _kept_for(spec["key"], block)
    A._nvals_seen = spec.get("nvals")  # (where the client knows it: no exchange to find it)
    result = fn(A, *args, **kwargs)
    if ctx.backend == "cupy":  # the call ends when its work on the device has
        import cupy

        cupy.cuda.runtime.deviceSynchronize()
    if isinstance(result, DistCollection):
        if result.kind != "Vector":
            raise NotImplementedException("an SPMD algorithm returning a distributed Matrix")
        return SpmdResult(("vector", result.dtype, result.name, result._layout.offsets), result._blocks[ctx.rank],
                          A._nvals_seen)
    return SpmdResult(("value", result), None, A._nvals_seen)


def _run_alone(fn: Callable[..., Any], spec: dict[str, Any], block: Any, args: tuple[Any, ...],
               kwargs: dict[str, Any]) -> SpmdResult:
    """:func:`worker_run` on the only worker: its partition is the whole matrix, so the
    algorithm runs on it as in one process (no exchange to make, and the single-process
    forms apply: the GPU's device loops, a declared symmetry)."""
    if spec["symmetric"] is not None and block._store.symmetric is None:
        block._declare(spec["symmetric"])  # (found or declared on the client: a fact about these entries)
    result = fn(block, *args, **kwargs)
    if spec["backend"] == "cupy":
        import cupy

        cupy.cuda.runtime.deviceSynchronize()
    if isinstance(result, Vector):
        return SpmdResult(("vector", result.dtype, result.name, (0, result.size)), result)
    if isinstance(result, Matrix):
        raise NotImplementedException("an SPMD algorithm returning a distributed Matrix")
    return SpmdResult(("value", result))


def run_part(fn: Callable[..., Any], spec: dict[str, Any], args: tuple[Any, ...], kwargs: dict[str, Any],
             block: Any) -> SpmdResult:
    """:func:`worker_run` with the partition last (the one task argument of
    :meth:`~.layout.Context.submit_each`)."""
    return worker_run(fn, spec, block, args, kwargs)


def result_block(r: SpmdResult) -> Any:
    """An SPMD result's partition (None for a result that is a value: the task, submitted with
    the call before its result's kind is known, then holds nothing)."""
    return r.block
