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
from collections.abc import Callable
from typing import Any, TypeVar

from ..exceptions import NotImplementedException
from .layout import Context, Layout
from .workers import SpmdContext, SpmdResult, result_block, run_part

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
