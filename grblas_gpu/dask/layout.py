"""Where a distributed object's partitions live and how its workers exchange data.

A :class:`Context` is a set of workers of one ``dask.distributed`` client, one partition per
worker, with their backend (the same on all) and their exchange: NCCL between GPU workers,
Dask's own transfers otherwise.  A :class:`Layout` is a Context and the offsets that cut a
dimension into the partitions (partition ``k`` holds positions ``offsets[k]:offsets[k+1]``
and lives on ``workers[k]``).  Two objects can meet in an operation only with the same Layout.

Calls are synchronous: each waits for its tasks, so an error (a worker lost, bad input found
on a worker) surfaces in the call that caused it, before the output is changed, and the
collective tasks of successive calls can never interleave on the workers.
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError
from typing import Any

import numpy as np

from ..exceptions import InvalidValue
from .errors import PartitionMismatch, WorkerLost

__all__ = ["Context", "Layout", "context_for", "balanced_offsets", "even_offsets"]

_POLL_S = 0.5
"""How often a wait looks for lost workers while tasks run."""
_GRACE_S = 10.0
"""How long a wait whose tasks were lost gives the scheduler to notice which worker left."""

_CONTEXTS: dict[tuple[int, tuple[str, ...], str, str], Context] = {}


def _default_backend() -> str:
    from ..backends import default_backend

    return default_backend()


def _nccl_usable() -> bool:
    try:
        from cupy.cuda import nccl

        return bool(nccl.available) if hasattr(nccl, "available") else True
    except Exception:  # noqa: BLE001 - no CuPy, or no NCCL in it
        return False


class Context:
    """Workers holding one partition each, their backend and their exchange (see module)."""

    def __init__(self, client: Any, workers: tuple[str, ...], backend: str, exchange: str) -> None:
        self.client, self.workers, self.backend, self.exchange = client, workers, backend, exchange
        self.key = uuid.uuid4().hex
        self.comm_ready = False

    @property
    def nccl(self) -> bool:
        """Whether vectors move between these workers through NCCL."""
        return self.exchange == "nccl"

    def __repr__(self) -> str:
        return f"Context({len(self.workers)} workers, {self.backend}, exchange={self.exchange})"

    # ------------------------------------------------------------ tasks
    def submit(self, fn: Callable[..., Any], *args: Any, part: int, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` on the worker of partition ``part`` (and nowhere else)."""
        return self.client.submit(fn, *args, workers=[self.workers[part]], allow_other_workers=False, pure=False,
                                  **kwargs)

    def submit_each(self, calls: Sequence[Callable[[Any], Any]], firsts: Sequence[Any],
                    then: Callable[[Any], Any] | None = None) -> tuple[list[Any], list[Any]]:
        """``calls[k](firsts[k])`` on the worker of each partition ``k`` and, where given,
        ``then`` of its result there after it, all sent to the scheduler at once as one graph:
        a :meth:`submit` per task would send the first alone and hold the others back for the
        client's batching interval (10 ms), so that one worker started that much before the
        others.  ``calls[k]`` and ``then`` are opaque callables (functions or
        ``functools.partial``), ``firsts[k]`` a future or a plain value.  Returns the futures
        of ``calls`` and of ``then`` (empty without it)."""
        try:
            from dask.highlevelgraph import HighLevelGraph, MaterializedLayer
        except ImportError:  # (a Dask without them: a submit per task)
            runs = [self.submit(c, firsts[k], part=k) for k, c in enumerate(calls)]
            return runs, [self.submit(then, f, part=k) for k, f in enumerate(runs)] if then is not None else []
        tag = uuid.uuid4().hex
        layers, runs, thens = {}, [], []
        for k, c in enumerate(calls):
            run = f"{getattr(getattr(c, 'func', c), '__name__', 'task')}-{tag}-{k}"
            tasks: dict[str, Any] = {run: (c, firsts[k])}
            if then is not None:
                thens.append(f"{getattr(then, '__name__', 'then')}-{tag}-{k}")
                tasks[thens[-1]] = (then, run)
            runs.append(run)
            layers[run] = MaterializedLayer(tasks, annotations={"workers": [self.workers[k]],
                                                                "allow_other_workers": False})
        graph = HighLevelGraph(layers, {name: set() for name in layers})
        futs = list(self.client.get(graph, runs + thens, sync=False))
        self.client.loop.add_callback(_flush_batched, self.client)
        return futs[:len(runs)], futs[len(runs):]

    def wait(self, futures: Sequence[Any], what: str) -> None:
        """Wait for ``futures``; a lost worker raises :class:`WorkerLost` naming it, and an
        error raised on a worker is raised here as it was."""
        from distributed import wait

        futures = list(futures)
        while True:
            try:
                wait(futures, timeout=_POLL_S)
                break
            except TimeoutError:  # still running: a lost worker or a failed partner may keep it so
                self._check_alive(what)
                for f in futures:
                    if f.status == "error":
                        self._raise_from(f, what)
            except (CancelledError, OSError) as exc:  # futures cancelled or a connection closed: a worker left
                self._check_alive(what, force=True, cause=exc)
        for f in futures:
            if f.status == "error":
                self._raise_from(f, what)
        for f in futures:
            if f.status != "finished":
                self._check_alive(what, force=True)

    def gather(self, futures: Sequence[Any], what: str) -> list[Any]:
        """The results of ``futures`` (after :meth:`wait`)."""
        self.wait(futures, what)
        try:
            return list(self.client.gather(list(futures)))
        except (CancelledError, OSError) as exc:
            self._check_alive(what, force=True, cause=exc)
            raise

    def _check_alive(self, what: str, force: bool = False, cause: BaseException | None = None) -> None:
        """:class:`WorkerLost` naming a worker the scheduler no longer lists; where ``force``
        (a task was lost), wait a little for the scheduler to notice which, then raise anyway."""
        end = time.monotonic() + (_GRACE_S if force else 0.0)
        while True:
            self._raise_if_gone(what, cause)
            if time.monotonic() >= end:
                break
            time.sleep(0.1)
        if force:
            raise WorkerLost(f"GrB_PANIC: a partition's data was lost during {what}: {cause}") from cause

    def _raise_if_gone(self, what: str, cause: BaseException | None) -> None:
        alive = set(self.client.nthreads())
        for k, w in enumerate(self.workers):
            if w not in alive:
                self._abort_comm(alive)
                parts = tuple(i for i, x in enumerate(self.workers) if x == w)
                raise WorkerLost(f"GrB_PANIC: worker {w} (partition {k}) was lost during {what}; its partitions "
                                 f"{list(parts)} must be rebuilt (DistMatrix.rebuild) before the call is repeated",
                                 worker=w, partitions=parts) from cause

    def _raise_from(self, f: Any, what: str) -> None:
        from distributed import KilledWorker

        exc = f.exception()
        if isinstance(exc, KilledWorker):
            self._check_alive(what)
            raise WorkerLost(f"GrB_PANIC: a worker died running {what}: {exc}") from exc
        raise exc

    # ------------------------------------------------------------ NCCL
    def _abort_comm(self, alive: set[str]) -> None:
        """After a worker was lost: abort the communicator on the others, so that a task
        blocked in a collective with it returns (the communicator is not used again)."""
        if not self.comm_ready:
            return
        from . import _nccl

        self.comm_ready = False
        live = [w for w in self.workers if w in alive]
        with contextlib.suppress(Exception):  # best effort: the error naming the lost worker comes next
            self.client.run(_nccl.abort_comm, self.key, workers=live)

    def abort_comms(self) -> None:
        """Abort the communicators on every live worker (after an SPMD call failed on one
        worker, its partners may wait in a collective for it); the next call makes new ones."""
        with contextlib.suppress(Exception):
            self._abort_comm(set(self.client.nthreads()))

    def ensure_spmd_comm(self) -> None:
        """Make the communicator that SPMD calls exchange through (once): NCCL's between GPU
        workers, else a mesh of sockets between the worker processes (:mod:`._hostcomm`)."""
        if self.nccl:
            self.ensure_comm()
            return
        if self.comm_ready:
            return
        from . import _hostcomm

        n = len(self.workers)
        addresses = self.gather([self.submit(_hostcomm.listen, self.key, part=k) for k in range(n)], "mesh setup")
        self.wait([self.submit(_hostcomm.join_mesh, self.key, addresses, k, self.backend, part=k) for k in range(n)],
                  "mesh setup")
        self.comm_ready = True

    def ensure_comm(self) -> None:
        """Make the NCCL communicator among these workers (once)."""
        if not self.nccl or self.comm_ready:
            return
        from . import _nccl

        uid = self.gather([self.submit(_nccl.unique_id, part=0)], "NCCL setup")[0]
        n = len(self.workers)
        futs = [self.submit(_nccl.join_comm, self.key, uid, n, k, part=k) for k in range(n)]
        self.wait(futs, "NCCL setup")
        self.comm_ready = True


def context_for(client: Any, workers: Sequence[str], backend: str | None = None,
                exchange: str | None = None) -> Context:
    """The Context of ``workers`` of ``client`` (one made per set of workers, backend and
    exchange, and reused): the backend is the workers' own default where not given, the
    exchange NCCL where the backend is CuPy and every worker has NCCL, else Dask."""
    workers = tuple(workers)
    if backend is None:
        names = set(client.run(_default_backend, workers=list(workers)).values())
        if len(names) != 1:
            raise InvalidValue(f"the workers run different backends ({sorted(names)}): name one with backend=")
        backend = names.pop()
    if exchange is None:
        exchange = os.environ.get("GRBLAS_GPU_DASK_EXCHANGE", "")
    if not exchange:
        nccl = backend == "cupy" and all(client.run(_nccl_usable, workers=list(workers)).values())
        exchange = "nccl" if nccl else "dask"
    if exchange not in ("nccl", "dask"):
        raise InvalidValue(f"exchange must be 'nccl' or 'dask', got {exchange!r}")
    key = (id(client), workers, backend, exchange)
    ctx = _CONTEXTS.get(key)
    if ctx is None or ctx.client is not client:
        ctx = _CONTEXTS[key] = Context(client, workers, backend, exchange)
    return ctx


class Layout:
    """A dimension of ``offsets[-1]`` positions cut at ``offsets`` over a Context's workers."""

    def __init__(self, context: Context, offsets: Sequence[int]) -> None:
        self.context = context
        self.offsets = tuple(int(o) for o in offsets)
        if len(self.offsets) != len(context.workers) + 1:
            raise InvalidValue("a layout needs one partition per worker")

    @property
    def size(self) -> int:
        """The number of positions."""
        return self.offsets[-1]

    @property
    def nparts(self) -> int:
        """The number of partitions."""
        return len(self.offsets) - 1

    def part_size(self, k: int) -> int:
        """Positions in partition ``k``."""
        return self.offsets[k + 1] - self.offsets[k]

    def same(self, other: Layout) -> bool:
        """Whether ``other`` cuts the same dimension the same way over the same workers."""
        return self.context is other.context and self.offsets == other.offsets

    def require_same(self, other: Layout, what: str) -> None:
        """``PartitionMismatch`` unless :meth:`same`."""
        if self.context.client is not other.context.client:
            raise PartitionMismatch(f"{what}: the operands belong to two Dask clients")
        if not self.same(other):
            raise PartitionMismatch(f"{what}: the operands are partitioned differently "
                                    f"({self.offsets} over {self.context.workers} vs {other.offsets} over "
                                    f"{other.context.workers}); redistribute one of them")

    def __repr__(self) -> str:
        return f"Layout({self.offsets})"


def balanced_offsets(row_counts: np.ndarray, nparts: int) -> list[int]:
    """Row offsets cutting rows with ``row_counts`` entries into ``nparts`` contiguous blocks of
    about equal entries (a block may be empty when one row holds more than its share)."""
    n = len(row_counts)
    cum = np.concatenate([[0], np.cumsum(row_counts, dtype=np.int64)])
    total = int(cum[-1])
    if total == 0:
        return even_offsets(n, nparts)
    targets = [total * k // nparts for k in range(1, nparts)]
    cuts = [int(np.searchsorted(cum, t, side="left")) for t in targets]
    return [0, *[min(max(c, 0), n) for c in cuts], n]


def even_offsets(n: int, nparts: int) -> list[int]:
    """Offsets cutting ``n`` positions into ``nparts`` blocks of sizes differing by at most one."""
    return [n * k // nparts for k in range(nparts + 1)]


def _flush_batched(client: Any) -> None:
    """Send what the client's batched stream to the scheduler holds now (on the client's
    event loop, after the message just queued): the stream sends a message at once only where
    it sent none in the last 10 ms, else at the end of that interval; a call's tasks released
    its previous result's keys just before, so they would wait."""
    stream: Any = getattr(client, "scheduler_comm", None)
    waker = getattr(stream, "waker", None)
    if waker is None or not getattr(stream, "buffer", None):
        return
    stream.next_deadline = None
    waker.set()
