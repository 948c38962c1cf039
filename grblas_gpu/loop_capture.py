"""Fixed-point loops replayed on the device: ``x <- step(x)`` until a change is small.

An iterative algorithm such as PageRank runs the same few full-vector statements each
iteration, and on a small or mid-sized graph the host's dispatch of them (100 us and more an
iteration) costs more than the device's work.  :func:`converge` keeps the iteration a plain
Python function of algebra statements::

    def step(x):
        x_next = ...statements reading x...
        return x_next, x_next.inner(x, total_change).new()   # (the new x, its change)

    x, converged = converge(step, x0, max_iter=100, bound=n * tol)

and runs it as the plain loop would (on the CPU backend, with device loops off, or where the
device cannot take it), or on the GPU as a CUDA graph: the iteration's statements captured
once, the stop test and the commit ``x <- x_next`` done by the device, batches of iterations
replayed with one host read each (:mod:`grblas_gpu.backends.cupy.replay`).  Either way the
result is the same: the same number of iterations and the same ``x``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import loops
from .progress import tick
from .scalar import Scalar
from .vector import Vector

__all__ = ["REPLAY_MOST_ENTRIES", "Step", "converge", "last_run"]

Step = Callable[[Vector], "tuple[Vector, Scalar | None]"]

REPLAY_MOST_ENTRIES = 1 << 24
"""Loops over a matrix of more entries than this run as plain loops: the device's work of an
iteration then hides the host's dispatch, and the replay's commit (a copy of x) would only
add to it."""

last_run: dict[str, Any] = {"how": None}
"""How the last :func:`converge` ran: ``how`` is "plain", "replayed", "eager" (on the way to
a replay, the loop ended in its first two iterations, which run as written) or "refused: <why>"
(the device could not capture the step; the loop ran as written); a replay adds the default memory
pool's used and total bytes before its first launch and after its last (``pool_before``,
``pool_after``: equal, as nothing is allocated while the graph replays)."""


def converge(step: Step, x: Vector, *, max_iter: int, bound: float | None, matrix: Any = None,
             label: str = "converge") -> tuple[Vector, bool]:
    """Iterate ``x <- x_next`` with ``(x_next, change) = step(x)``, at most ``max_iter`` times,
    stopping after the first iteration whose ``change < bound`` (``bound`` None: no test, and
    ``change`` may be None: exactly ``max_iter`` iterations).  Returns the last ``x`` and
    whether the test stopped the loop.

    ``step`` must build its outputs from ``x`` and values that do not change between
    iterations, every output a full Vector of ``x``'s type and size, and read nothing back to
    the host; where it does, the device replay notices and the loop runs as written.
    ``matrix``: the matrix the step multiplies by (its entries are weighed against
    :data:`REPLAY_MOST_ENTRIES`).  ``x`` itself is never written.  A distributed ``x``
    (:mod:`grblas_gpu.dask`) always runs the plain loop."""
    last_run.clear()
    last_run["how"] = "plain"
    if (max_iter > 0 and type(x) is Vector and x.backend == "cupy" and loops._enabled
            and (matrix is None or matrix.nvals <= REPLAY_MOST_ENTRIES)):
        from .backends.cupy import replay
        done = replay.converge(step, x, max_iter=max_iter, bound=bound, label=label, report=last_run,
                               plain=plain_converge)
        if done is not None:
            return done
    return plain_converge(step, x, max_iter=max_iter, bound=bound, label=label)


def plain_converge(step: Step, x: Vector, *, max_iter: int, bound: float | None,
                   label: str = "converge") -> tuple[Vector, bool]:
    """:func:`converge` as a plain loop: the change of one iteration is read while the next
    one's statements run, so the host never waits for it with the device idle."""
    change: Any = None
    for _ in range(max_iter):
        tick(label, max_iter)
        x_next, next_change = step(x)
        if change is not None and _below(change, bound):
            return x, True
        change = next_change if bound is not None else None
        x = x_next
    return x, change is not None and _below(change, bound)


def _below(change: Scalar, bound: Any) -> bool:
    """``change < bound``, compared in the change's type (as the device compares it)."""
    return bool(change.value < change.dtype.np_type.type(bound))
