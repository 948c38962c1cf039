"""SPMD calls through one Dask actor per worker (opt-in: ``GRBLAS_GPU_DASK_ACTORS=1`` in the
client's environment, or ``grblas_gpu.dask.actors.ENABLED = True``).

A call through tasks costs a round trip through the scheduler (the graph sent, the tasks
sent on to the workers, their ends reported back, one result fetched).  Here the client
calls each worker's actor itself (Dask's ``actor_execute``, straight to the worker unless
the client was made with ``direct_to_workers=False``), and each answers with its result:

- the partition: the actor reads it from the worker's memory under the block future's key
  (``Worker.data``), on the worker's event loop, where Dask itself reads it.  Where it is not
  there (Dask moved it elsewhere), the workers agree on that first and the call runs through
  tasks instead;
- the thread: the actor's method is a coroutine that hands the call to the worker's own task
  executor, so the algorithm runs in the thread its tasks run in (CuPy's current device and
  stream, and what is cached by them, are those of the task path);
- a Vector result: each worker keeps its partition in this module (by call and rank) until a
  task of that partition takes it, submitted after the call and not waited for, so the
  Vector's partitions are Dask futures like any other.  A result released before its tasks
  ran is dropped by the next call.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import os
import uuid
import weakref
from collections.abc import Callable
from typing import Any

from .errors import Panic
from .layout import _POLL_S, Context
from .workers import SpmdResult, worker_run

__all__ = ["ENABLED", "enabled", "SpmdActor", "run_through_actors", "take"]

ENABLED: bool | None = None
"""Whether SPMD calls go through the workers' actors instead of tasks; None (the default):
as ``GRBLAS_GPU_DASK_ACTORS`` says (``1``: yes), else no."""

_HELD: dict[tuple[str, int], Any] = {}
"""The partitions of Vector results kept on this worker's process, by (call tag, rank),
until :func:`take` takes them."""
_MISSING = "missing"
"""What every worker's part answers where one of them lacks its partition."""
_ACTORS: weakref.WeakKeyDictionary[Context, list[Any]] = weakref.WeakKeyDictionary()
"""The futures of each Context's actors (keeping them alive), in partition order."""
_UNTAKEN: weakref.WeakKeyDictionary[Context, dict[str, list[str]]] = weakref.WeakKeyDictionary()
"""Each Context's Vector results kept on the workers: call tag -> the keys of the tasks taking them."""


def enabled() -> bool:
    """Whether SPMD calls go through the workers' actors (:data:`ENABLED`)."""
    if ENABLED is not None:
        return ENABLED
    return os.environ.get("GRBLAS_GPU_DASK_ACTORS", "").strip().lower() in ("1", "true", "yes", "on")


class SpmdActor:
    """The actor of one worker: runs that worker's part of SPMD calls."""

    async def run(self, fn: Callable[..., Any], spec: dict[str, Any], args: tuple[Any, ...],
                  kwargs: dict[str, Any], block_key: Any, tag: str, drops: list[tuple[str, int]]) -> Any:
        """``fn``'s part on this worker's partition (``block_key`` in its memory), in the
        worker's task thread; a Vector result's partition kept under ``tag``.  ``drops``:
        kept partitions whose results were released."""
        from distributed import get_worker

        for d in drops:
            _HELD.pop(d, None)
        worker = get_worker()
        block = worker.data.get(block_key)
        context = contextvars.copy_context()  # (get_worker() there too)
        part = functools.partial(context.run, _part, fn, spec, args, kwargs, block, tag)
        return await asyncio.get_running_loop().run_in_executor(worker.executors["default"], part)


def _part(fn: Callable[..., Any], spec: dict[str, Any], args: tuple[Any, ...], kwargs: dict[str, Any],
          block: Any, tag: str) -> Any:
    if len(spec["workers"]) > 1:
        from ._nccl import get_comm

        if not get_comm(spec["key"]).allgather_ints([block is not None]).all():
            return _MISSING
    elif block is None:
        return _MISSING
    r = worker_run(fn, spec, block, args, kwargs)
    if r.meta[0] == "vector":
        _HELD[tag, spec["rank"]] = r.block
    return r


def take(tag: str, rank: int) -> Any:
    """The partition of rank ``rank`` of the Vector result of call ``tag`` (a task on its worker)."""
    try:
        return _HELD.pop((tag, rank))
    except KeyError:
        raise Panic(f"GrB_PANIC: the partition {rank} of an SPMD call's result is no longer on its worker") from None


class _Unreachable(Exception):
    """The client could not reach a worker's actor (wraps the connection's error)."""


# ---------------------------------------------------------------- on the client
def _actors(ctx: Context) -> list[Any]:
    got = _ACTORS.get(ctx)
    if got is None:
        futs = [ctx.client.submit(SpmdActor, workers=[w], allow_other_workers=False, actor=True, pure=False)
                for w in ctx.workers]
        ctx.wait(futs, "the SPMD actors' setup")
        got = _ACTORS[ctx] = futs
    return got


def forget(ctx: Context) -> None:
    """Make new actors at the next call (a worker of ``ctx`` was lost)."""
    _ACTORS.pop(ctx, None)


def _drops(ctx: Context) -> list[tuple[str, int]]:
    """The kept partitions of results whose futures the client released (the tasks taking
    them may never run): dropped by the next call."""
    untaken = _UNTAKEN.setdefault(ctx, {})
    refcount = ctx.client.refcount
    out: list[tuple[str, int]] = []
    for tag, keys in list(untaken.items()):
        if all(refcount.get(k, 0) == 0 for k in keys):
            out.extend((tag, r) for r in range(len(keys)))
            del untaken[tag]
    return out


async def _execute(client: Any, address: str, actor: Any, args: tuple[Any, ...]) -> Any:
    from distributed.actor import ProxyRPC
    from distributed.protocol import to_serialize

    rpc = ProxyRPC(client.scheduler, address) if client.direct_to_workers is False else client.rpc(address)
    try:
        got = await rpc.actor_execute(actor=actor, function="run", args=[to_serialize(a) for a in args], kwargs={})
    except OSError as exc:
        raise _Unreachable(exc) from exc
    if got["status"] != "OK":
        raise got["exception"]
    return got["result"]


def run_through_actors(A: Any, fn: Callable[..., Any], base: dict[str, Any], args: tuple[Any, ...],
                       kwargs: dict[str, Any], what: str) -> tuple[SpmdResult, list[Any]] | None:
    """An SPMD call through the workers' actors: one worker's result and the partitions of a
    Vector result (futures; None for a value), or None where a partition was not in its
    worker's memory (the caller runs the call through tasks)."""
    from distributed import Future

    from .errors import WorkerLost

    ctx = A._layout.context
    blocks = list(A._blocks)
    if not all(isinstance(b, Future) for b in blocks):
        return None
    if any(b.status != "finished" for b in blocks):
        ctx.wait(blocks, what)
    try:
        actors = _actors(ctx)
        tag, drops = uuid.uuid4().hex, _drops(ctx)
        loop = ctx.client.loop.asyncio_loop
        calls = [asyncio.run_coroutine_threadsafe(
            _execute(ctx.client, w, actors[k].key, (fn, {**base, "rank": k}, args, kwargs, blocks[k].key, tag, drops)),
            loop) for k, w in enumerate(ctx.workers)]
        results = _results(ctx, calls, what)
    except WorkerLost:
        forget(ctx)
        raise
    if any(r == _MISSING for r in results):
        return None
    first: SpmdResult = results[0]
    if first.meta[0] != "vector":
        return first, []
    takes, _ = ctx.submit_each([functools.partial(take, tag)] * len(blocks), list(range(len(blocks))))
    _UNTAKEN.setdefault(ctx, {})[tag] = [f.key for f in takes]
    return first, takes


def _results(ctx: Context, calls: list[concurrent.futures.Future[Any]], what: str) -> list[Any]:
    """Every worker's answer; the errors as :meth:`.layout.Context.wait` and
    :func:`.spmd.run_spmd` raise them."""
    from ._hostcomm import PeerLost

    try:
        return _wait(ctx, calls, what)
    except PeerLost as exc:  # a partner's connection closed: which worker left?
        ctx.abort_comms()
        ctx._check_alive(what, force=True, cause=exc)
        raise
    except BaseException:
        concurrent.futures.wait(calls, timeout=2.0)
        if not all(c.done() for c in calls):  # a partner waits in a collective for the one that stopped
            ctx.abort_comms()
            ctx.comm_ready = False
        raise


def _wait(ctx: Context, calls: list[concurrent.futures.Future[Any]], what: str) -> list[Any]:
    while True:
        _, running = concurrent.futures.wait(calls, timeout=_POLL_S, return_when=concurrent.futures.FIRST_EXCEPTION)
        for c in calls:
            exc = c.exception() if c.done() else None
            if isinstance(exc, _Unreachable):  # the worker left (or its connection failed)
                ctx._check_alive(what, force=True, cause=exc.__cause__)
            if exc is not None:
                raise exc
        if not running:
            return [c.result() for c in calls]
        ctx._check_alive(what)
