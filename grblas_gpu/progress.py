"""Progress counts from inside long algorithms.

Each algorithm reports its steps (an iteration, a BFS level, a batch of sources) with one
call, ``tick("pagerank")``; nothing happens unless a receiver is listening, so the call costs a
list check.  A receiver listens within a ``with`` block::

    with gb.progress.reporting():             # tqdm's counter when installed, else lines on stderr
        ranks = pagerank(A)
    with gb.progress.reporting(lambda label, done, total: print(label, done)):
        components = connected_components(A)
    with gb.progress.counting() as steps:     # only counts: steps["pagerank"] after the block
        pagerank(A)

A receiver is called as ``receiver(label, done, total)``: ``done`` counts this label's steps
since the block began, ``total`` is the most steps the algorithm may take where it knows
(``max_iter``), else None.  Blocks nest: every listening receiver gets every step.  On the GPU,
the levels a device loop (:func:`grblas_gpu.loops.frontier_loop`) runs within one launch are
counted once per pass through the Python body, not one by one.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, TextIO

__all__ = ["Receiver", "counting", "reporting", "tick"]

Receiver = Callable[[str, int, "int | None"], None]

_listening: list[tuple[Receiver, Counter[str]]] = []


def tick(label: str, total: int | None = None) -> None:
    """One step of the algorithm ``label`` (``total``: the most steps it may take, if known)."""
    if not _listening:
        return
    for receiver, counts in _listening:
        counts[label] += 1
        receiver(label, counts[label], total)


@contextlib.contextmanager
def reporting(receiver: Receiver | str | None = None, *, stream: TextIO | None = None) -> Iterator[Counter[str]]:
    """Report the steps of the algorithms run within the block to ``receiver``: a function
    ``(label, done, total)``, ``"tqdm"`` (a tqdm counter per label; ImportError without tqdm),
    ``"lines"`` (a line on ``stream``, stderr by default, at most one a second per label and one
    when the block ends) or None (tqdm where installed, else ``"lines"``).  Yields the counts."""
    made: Any
    if receiver is None:
        receiver = "tqdm" if _has_tqdm() else "lines"
    if receiver == "tqdm":
        made = _TqdmReceiver()
    elif receiver == "lines":
        made = _LineReceiver(stream if stream is not None else sys.stderr)
    elif callable(receiver):
        made = receiver
    else:
        raise ValueError(f"receiver must be a function (label, done, total), 'tqdm', 'lines' or None, got {receiver!r}")
    counts: Counter[str] = Counter()
    entry = (made, counts)
    _listening.append(entry)
    try:
        yield counts
    finally:
        _listening.remove(entry)
        close = getattr(made, "close", None)
        if close is not None:
            close()


def counting() -> contextlib.AbstractContextManager[Counter[str]]:
    """Count the steps of the algorithms run within the block, reporting nothing: yields a
    Counter of steps by label."""
    return reporting(_ignore)


def _ignore(label: str, done: int, total: int | None) -> None:
    """A receiver that only lets the steps be counted."""


def _has_tqdm() -> bool:
    return importlib.util.find_spec("tqdm") is not None


class _TqdmReceiver:
    """A tqdm counter (a bar where the total is known) per label."""

    def __init__(self) -> None:
        self._tqdm = importlib.import_module("tqdm.auto").tqdm  # the optional ``progress`` extra
        self._bars: dict[str, Any] = {}

    def __call__(self, label: str, done: int, total: int | None) -> None:
        bar = self._bars.get(label)
        if bar is None:
            bar = self._bars[label] = self._tqdm(desc=label, total=total, unit="step", leave=True)
        bar.update(done - bar.n)

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()


class _LineReceiver:
    """One line per label at most every ``every`` seconds, and one per label at the end."""

    def __init__(self, stream: TextIO, every: float = 1.0) -> None:
        self._stream = stream
        self._every = every
        self._last: dict[str, float] = {}
        self._state: dict[str, tuple[int, int | None]] = {}
        self._start = time.perf_counter()

    def __call__(self, label: str, done: int, total: int | None) -> None:
        self._state[label] = (done, total)
        now = time.perf_counter()
        if now - self._last.get(label, self._start) >= self._every:
            self._last[label] = now
            self._write(label, "")

    def close(self) -> None:
        for label in self._state:
            self._write(label, f" in {time.perf_counter() - self._start:.1f} s")

    def _write(self, label: str, tail: str) -> None:
        done, total = self._state[label]
        of = f" of at most {total}" if total is not None else ""
        self._stream.write(f"{label}: {done} steps{of}{tail}\n")
        self._stream.flush()
