"""SPMD execution of the algorithms: the algorithm function itself runs on every worker at
once, one Dask task per worker per call, as cuGraph's multi-GPU algorithms do.

Driven from the client, every statement of an algorithm costs a round of Dask tasks (a few
milliseconds of scheduling each, several per statement), more than a GPU's whole iteration.
Run SPMD, the statements cost nothing of Dask: each worker runs the same function over a
worker-side :class:`~.objects.DistMatrix` holding its own partition, whose operations do the
local part with the ordinary single-process algebra and the exchanges inline (all-gather of
a vector before a product by rows, the partial results folded where they belong after a
product by columns, reductions and ``nvals`` agreed by all) through the workers'
communicator: NCCL between GPU workers, sockets between CPU worker processes
(:mod:`._hostcomm`).  Every worker takes the same decisions from the same agreed values, so
the collectives line up.

:func:`spmd` is the decorator the public algorithms carry: called with a distributed Matrix
as the first argument, it ships the same function to the workers and returns distributed
results; with a local Matrix it is the function itself.
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from ..exceptions import NotImplementedException
from ..matrix import Matrix
from ..vector import Vector
from .layout import Context, Layout

__all__ = ["spmd", "SpmdContext", "run_spmd"]

F = TypeVar("F", bound=Callable[..., Any])


def spmd(fn: F | None = None, *, needs_symmetry: bool = False) -> Any:
    """Make ``fn(A, ...)`` run SPMD on the workers when ``A`` is a distributed Matrix.

    ``needs_symmetry``: the function asks ``A.is_symmetric``; the client finds it out once
    before the call (the workers then know it)."""
    def wrap(f: F) -> F:
        @functools.wraps(f)
        def call(*args: Any, **kwargs: Any) -> Any:
            if not (args and getattr(type(args[0]), "runs_spmd", False)):
                return f(*args, **kwargs)
            return _dispatch(args[0], call, f, args[1:], kwargs, needs_symmetry)

        call.__wrapped_algorithm__ = f  # type: ignore[attr-defined]
        return call  # type: ignore[return-value]

    return wrap(fn) if fn is not None else wrap


def _dispatch(A: Any, wrapper: Callable[..., Any], fn: Callable[..., Any], args: tuple[Any, ...],
              kwargs: dict[str, Any], needs_symmetry: bool) -> Any:
    """An algorithm called with the distributed Matrix ``A``: run on every worker at once, or,
    inside such a run (no client), the function itself."""
    if A.layout.context.client is None:
        return fn(A, *args, **kwargs)
    if needs_symmetry:
        _ = A.is_symmetric
    return run_spmd(A, wrapper, args, kwargs, fn.__name__)


# ---------------------------------------------------------------- on the workers
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


# ---------------------------------------------------------------- on the client
def run_spmd(A: Any, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], what: str) -> Any:
    """``fn(A, *args, **kwargs)`` run on every worker of ``A`` at once (see the module).

    The client's part of a call: the workers' tasks sent as one graph (every worker starts
    at once), the wait for them, and one worker's small result fetched (all agree on it; the
    partitions stay put)."""
    from distributed import wait

    from ._hostcomm import PeerLost
    from .objects import DistCollection

    for x in (*args, *kwargs.values()):
        if isinstance(x, DistCollection):
            raise NotImplementedException(f"{what}: distributed arguments other than the matrix; gather() them")
    lay = A._layout
    ctx = lay.context
    ctx.ensure_spmd_comm()
    base = {"key": ctx.key, "workers": ctx.workers, "backend": ctx.backend, "exchange": ctx.exchange,
            "offsets": lay.offsets, "col_offsets": A._col_layout.offsets, "dtype": A.dtype, "name": A.name,
            "ncols": A.ncols, "symmetric": A._symmetric, "nvals": A._nvals_seen}
    from .actors import enabled, run_through_actors

    if enabled():
        through = run_through_actors(A, fn, base, args, kwargs, what)
        if through is not None:
            return _result(A, *through)
    calls = [functools.partial(run_part, fn, {**base, "rank": k}, args, kwargs) for k in range(lay.nparts)]
    # with the tasks taking a Vector result's partitions (None otherwise), not waited for: each
    # runs as its call ends, while the client fetches the result (submitted after the call,
    # they ran at the start of the next one, held back by the scheduler's batching to workers)
    futs, blocks = ctx.submit_each(calls, A._blocks, result_block)
    try:
        ctx.wait(futs, what)
    except PeerLost as exc:  # a partner's connection closed: which worker left?
        ctx.abort_comms()
        ctx._check_alive(what, force=True, cause=exc)
        raise
    except BaseException:
        _settle(ctx, futs, wait)
        raise
    return _result(A, ctx.gather(futs[:1], what)[0], blocks)


def _result(A: Any, got: SpmdResult, blocks: list[Any]) -> Any:
    """The call's result on the client from one worker's ``got`` (all agree on it) and the
    futures of a Vector result's partitions."""
    from .objects import DistVector

    if got.nvals is not None and A._nvals_seen is None:
        A._nvals_seen = got.nvals
    first = got.meta
    if first[0] != "vector":
        return first[1]
    _, dtype, name, offsets = first
    lay = A._layout
    out_lay = next((x for x in (lay, A._col_layout) if x.offsets == tuple(offsets)), None)
    return DistVector._make(out_lay or Layout(lay.context, offsets), dtype, blocks, name)


def _settle(ctx: Context, futs: list[Any], wait: Any) -> None:
    """After a worker raised: where another worker's part is still running (waiting in a
    collective for the one that stopped), abort the communicators to free it; the next call
    makes new ones."""
    with contextlib.suppress(Exception):  # still running: freed below
        wait(futs, timeout=2.0)
    if any(f.status == "pending" for f in futs):
        ctx.abort_comms()
        ctx.comm_ready = False
