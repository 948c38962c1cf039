"""Loops of algebra statements run at device speed.

An algorithm here is a short Python loop of statements, and on the GPU each statement costs
the host tens of microseconds.  A graph of few levels does not notice; a road map or a mesh,
thousands of levels of a few hundred vertices each, spends all its time there.
:func:`frontier_loop` keeps the loop in Python and takes the host out of it::

    for _ in frontier_loop(frontier, A):
        levels(~levels.S, changed=frontier) << frontier.vxm(A, semiring)

It iterates while ``frontier`` has entries, as ``while frontier.nvals:`` does.  On the GPU
each pass through the body is traced: the statement that writes ``changed=frontier`` is
kept, not run.  Where the body was that one statement and the device can run it (see
:func:`device_form`), the loop goes on on the device, a batch of iterations per launch of a
captured CUDA graph, the condition checked once a batch
(:mod:`grblas_gpu.backends.cupy.capture`), until the frontier is empty, or large (see
:data:`HANDOVER_SHARE`): then the body runs as written (a large frontier is pulled or pushed
by the ordinary statement, chosen from its density) and the next pass is traced again.
Matrices with rows longer than :data:`LONGEST_ROW` (a power-law graph's hubs) always run as
written.
Everywhere else (the CPU backend, other statements, a body of several statements, device
loops turned off with :func:`device_loops`), the loop runs as the plain ``while`` would,
with the same results.

Traced bodies: a statement after the loop's statement in the body ends the trace (the kept
statement runs first, so the order holds) and such a body runs as written.  On the traced
pass the kept statement has not run when the body's next line does: a body that reads the
statement's output after it should not use this loop.
"""

from __future__ import annotations

import contextlib
import copy
import os
from collections.abc import Generator, Iterator
from typing import Any

import numpy as np

from . import expressions
from .backends.cupy.loop_codegen import HELD_BITS, loop_supported
from .operators import TypedSemiring, typed_binary
from .ops.multiply import _MatVec, _transpose_for
from .vector import Vector

__all__ = ["HANDOVER_SHARE", "device_form", "device_loops", "frontier_loop"]

HANDOVER_SHARE = 0.1
"""A frontier holding more than this share of the vertices (and more than
:data:`HANDOVER_LEAST`) is multiplied by the ordinary statement (its push or its pull, chosen
from its density) rather than by the device loop's push; the loop goes back to the device
once the frontier is half as large."""
HANDOVER_LEAST = 8192
SOWN_MOST = 1 << 16
"""A claim's output of at most this many positions held by its entries alone (a BFS's start)
gets its bitmap from the device loop's first launch, which one block writes in a few
microseconds, rather than from launches of its own."""
LONGEST_ROW = 1024
"""The device loop walks a frontier row with one warp: it takes matrices whose rows hold at
most this many entries (meshes, road maps, small graphs); a power-law graph's hubs go through
the ordinary statements, which share a long row among warps."""

_enabled = os.environ.get("GRBLAS_GPU_DEVICE_LOOPS", "1") != "0"


@contextlib.contextmanager
def device_loops(enabled: bool) -> Iterator[None]:
    """Within the block, :func:`frontier_loop` runs on the device where it can (``True``, the
    default; the variable ``GRBLAS_GPU_DEVICE_LOOPS=0`` turns it off) or always as a plain
    Python loop (``False``)."""
    global _enabled
    before, _enabled = _enabled, bool(enabled)
    try:
        yield
    finally:
        _enabled = before


def frontier_loop(frontier: Vector, matrix: Any = None, limit: int | None = None) -> Iterator[int]:
    """Iterate while ``frontier`` has entries, at most ``limit`` times (no bound: None),
    yielding the iteration's number; on the GPU a body of one statement that writes
    ``changed=frontier`` runs on the device (see the module's note).  ``matrix`` (optional):
    the matrix the body multiplies by; one with rows longer than :data:`LONGEST_ROW` is left
    to the plain loop without tracing the body."""
    bound = limit if limit is not None else 1 << 62
    # (a distributed frontier has no one backend: its loop runs as written)
    device = _enabled and getattr(getattr(frontier, "_be", None), "name", None) == "cupy"
    if device and matrix is not None and matrix._longest_row() > LONGEST_ROW:
        device = False  # (the traced statement's own matrix is checked again: see device_form)
    return _loop(frontier, bound, device)


def _loop(frontier: Vector, bound: int, device: bool) -> Generator[int, None, None]:
    steps, handed = 0, False  # handed: the device loop stopped at a large frontier
    while steps < bound and frontier.nvals:
        if not device:
            yield steps
            steps += 1
            continue
        kept = yield from _trace(frontier, steps)
        if kept is None:  # the body ran as written
            steps += 1
            continue
        form = device_form(*kept, frontier)
        if form is None:
            device = False  # (a statement the device loop does not take: no more tracing)
        elif frontier.nvals <= _handover(frontier) // (2 if handed else 1):
            ran = _on_device(kept[0], frontier, form, bound - steps)
            if ran:
                steps, handed = steps + ran, frontier.nvals > 0
                continue
        _run(*kept)
        steps += 1


class _Recorder:
    """Keeps the body's statement that writes ``changed=frontier`` when it is the first one;
    any other statement ends the trace (running the kept one first, so order holds)."""

    def __init__(self, frontier: Vector) -> None:
        self.frontier = frontier
        self.kept: tuple[Any, Any] | None = None
        self.over = False

    def __call__(self, up: Any, value: Any) -> bool:
        if self.over:
            return False
        if self.kept is None and up.changed is self.frontier:
            self.kept = (up, value)
            return True
        self.over = True
        if self.kept is not None:
            _run(*self.kept)
        return False


def _trace(frontier: Vector, steps: int) -> Generator[int, None, tuple[Any, Any] | None]:
    """One pass through the body with its statements traced; returns the kept statement (not
    run) where the body was that statement alone, else None (the body ran as written)."""
    recorder, before = _Recorder(frontier), expressions.recorder
    expressions.recorder = recorder
    try:
        yield steps
    finally:
        expressions.recorder = before
    if recorder.over or recorder.kept is None:
        return None
    return recorder.kept


def _run(up: Any, value: Any) -> None:
    """The statement ``up << value`` run as usual (a product's direction chosen afresh)."""
    if hasattr(value, "_decided"):  # a matrix-vector product: it keeps its last direction choice
        value = copy.copy(value)
        value._decided = None
        count = value._u._count
        value._u_count = count if count.__class__ is int else None
    up.update(value)


def _handover(frontier: Vector) -> int:
    """The frontier size past which the device loop hands an iteration over (see
    :data:`HANDOVER_SHARE`)."""
    return max(int(HANDOVER_SHARE * frontier.size), HANDOVER_LEAST)


def device_form(up: Any, value: Any, frontier: Vector) -> tuple[TypedSemiring, Any, bool, bool] | None:
    """(semiring, matrix whose rows are walked, vector first, claim) where the device loop can
    run ``up << value``: ``C(~C.S, changed=D) << D' A`` with an ANY monoid (a claim: a BFS)
    or ``C(op, changed=D) << D' A`` with a full C and ``op`` the semiring's min or max (a
    relax: Bellman-Ford), or the same with ``A D``; C, D and the product of one type of 4 or
    8 bytes; positions below 2**31; rows of at most :data:`LONGEST_ROW` entries.  None
    elsewhere."""
    C, D = up.target, frontier
    if value.__class__ is not _MatVec or value._u is not D or C is D or up.replace or value._method == "pull":
        return None
    sr = value._typed
    if C.kind != "Vector" or C._dtype != sr.out_type or D._dtype != sr.out_type:
        return None
    mask, accum = up.mask, up.accum
    if mask is None and accum is not None and C._full:
        claim = False
        if typed_binary(accum, sr.out_type) is not sr.monoid.op:
            return None
    elif mask is not None and accum is None and mask.parent is C and mask.structure and mask.complement:
        claim = True
    else:
        return None
    A, vector_first = value._A, value._vector_first
    if max(A.nrows, A.ncols) >= 2**31 or not loop_supported(sr, claim, vector_first):
        return None
    M = A if vector_first else A._transposed()
    return (sr, M, vector_first, claim) if M._longest_row() <= LONGEST_ROW else None


def _pulled(M: Any, sr: TypedSemiring, vector_first: bool, claim: bool) -> tuple[Any, Any, Any] | None:
    """The arrays of M's transpose (the rows that reach each position; without values where
    the product never reads them) for a claim's loop whose block kernel holds C's presence in
    shared memory (at most ``HELD_BITS`` positions): it pulls its levels of large frontiers
    (see ``PULL_SHARE``).  None elsewhere.  Made once, with the loop, and kept with M."""
    if not claim or M.ncols > HELD_BITS:
        return None
    T = _transpose_for(M, sr, vector_first)
    return T._indptr, T._indices, T._vals


def _on_device(up: Any, frontier: Vector, form: tuple[TypedSemiring, Any, bool, bool], remaining: int) -> int:
    """Run the loop on the device from the present state; the iterations it ran (0: none)."""
    from .backends.cupy.capture import FrontierLoop

    sr, M, vector_first, claim = form
    C, be = up.target, frontier._be
    try:
        loop = M._memo(("frontier loop", sr, vector_first, claim),
                       lambda: FrontierLoop(be, sr, M._indptr, M._indices, M._vals, vector_first, claim,
                                            _pulled(M, sr, vector_first, claim)))
    except (MemoryError, RuntimeError):  # no room for its buffers, or no graph capture here: as usual
        return 0
    front = frontier._host_entry() or frontier._sparse()  # (a one entry on the host goes in the run's state)
    count, handover, seed = C._count, _handover(frontier), None
    if claim and C._bm is None and C._size <= SOWN_MOST and loop.block_takes(frontier.nvals, handover):
        seed = C._host_entry() or C._sparse()  # C's bitmap is made by the loop's first launch (a BFS's start)
        c_bits, c = loop.outputs()
    else:
        c_bits, c = C._bitmap()
        if not C._owns_bitmap(values_only=not claim, reading=front):  # (C's arrays are written in place)
            c = c.copy()
            c_bits = c_bits.copy() if claim else c_bits
    run = loop.run(c_bits if claim else None, c, front, remaining, handover, seed)
    if not run.ran:  # (nothing was written)
        return 0
    if claim:
        count = count + run.total if count.__class__ is int else None
    C._set_bitmap(c_bits, c, count)
    if run.length:
        rows = be.xp.sort(run.front).astype(np.int64)
        frontier._set_sparse(rows, c[rows])
    else:
        frontier._set_sparse(*loop.empty)
    return run.ran
