"""Progress of the command's slow steps on stderr: a live line on a terminal, plain lines otherwise.

A :class:`Progress` covers one stage (loading, computing, writing).  Where the stage can be
counted (bytes read, sources of betweenness) :meth:`Progress.update` gives the count.

* On a terminal (``mode="bar"``) a line is redrawn ten times a second: tqdm's meter (bar,
  rate, time left) where tqdm is installed (the ``progress`` extra), else a spinner with the
  counts and the elapsed time; it is erased when the stage ends.
* Otherwise (``mode="lines"``: stderr piped or sent to a file) the stage writes one line when
  it has run ``delay`` seconds (:data:`SHOW_AFTER`), one more every ``interval`` seconds with its counts, and a last
  one with its time, so a long run is never silent in a log.
* ``mode="off"`` (``--quiet``) writes nothing.

Stages shorter than ``delay`` write nothing in any mode, so a quick run's stderr stays empty
and an error stays one line.
"""

from __future__ import annotations

import importlib
import itertools
import shutil
import sys
import threading
import time
from types import TracebackType
from typing import Any, TextIO

from typing_extensions import Self

__all__ = ["MODES", "SHOW_AFTER", "Progress", "choose_mode"]

MODES = ("auto", "bar", "lines", "off")
PREFIX = "grblas-gpu"
SHOW_AFTER = 0.5
"""Seconds a stage runs before its progress shows (the default ``delay``)."""


def choose_mode(stream: TextIO, quiet: bool = False) -> str:
    """``"off"`` when quiet, ``"bar"`` on a terminal, else ``"lines"``."""
    if quiet:
        return "off"
    return "bar" if _isatty(stream) else "lines"


class Progress:
    """The progress of one stage on ``stream`` (stderr by default); use as a context manager.

    ``unit``: what :meth:`update` counts (``"B"``: bytes, shown as MB; else a word such as
    ``"sources"``); ``mode``: one of :data:`MODES` (``"auto"`` picks by :func:`choose_mode`).
    """

    _FRAMES = "|/-\\"

    def __init__(self, label: str, stream: TextIO | None = None, delay: float | None = None, *,
                 unit: str = "", mode: str = "auto", interval: float = 15.0) -> None:
        if mode not in MODES:
            raise ValueError(f"progress mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.delay = SHOW_AFTER if delay is None else delay
        self.unit = unit
        self.mode = choose_mode(self.stream) if mode == "auto" else mode
        self.interval = interval
        self.done = 0
        self.total: int | None = None
        self._start = time.perf_counter()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = False

    def update(self, done: int, total: int | None = None) -> None:
        """The stage's count so far (absolute, not an increment) and, where known, its total."""
        self.done = int(done)
        if total is not None:
            self.total = int(total)

    def __enter__(self) -> Self:
        self._start = time.perf_counter()
        if self.mode in ("bar", "lines"):
            if self.delay <= 0:  # shown at once, however short the stage
                self._show()
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if not self._shown:
            return
        if self.mode == "bar":
            self.stream.write("\r\033[K")
        elif exc_type is None:
            self._line(f"done in {self.elapsed():.1f} s")
        self.stream.flush()

    def elapsed(self) -> float:
        """Seconds since the stage began."""
        return time.perf_counter() - self._start

    def counts(self) -> str:
        """The counts in words: ``12.0 of 64.0 MB (19%)``, ``3 of 8 sources (38%)``, or ``""``."""
        if not self.done and self.total is None:
            return ""
        scale, unit = (1e6, "MB") if self.unit == "B" else (1, self.unit)
        fmt = (lambda x: f"{x / scale:,.1f}") if scale != 1 else (lambda x: f"{x:,}")
        text = fmt(self.done)
        if self.total:
            text += f" of {fmt(self.total)}"
        text += f" {unit}".rstrip()
        if self.total:
            text += f" ({100 * self.done / self.total:.0f}%)"
        return text

    def _run(self) -> None:
        if not self._shown:
            if self._stop.wait(self.delay):
                return
            self._show()
        if self.mode == "bar":
            self._redraw()
        else:
            self._repeat_lines()

    def _show(self) -> None:
        """The stage has run long enough: from now on it is reported (lines: its first line)."""
        self._shown = True
        if self.mode == "lines":
            counts = self.counts()
            self._line(f"{counts} ..." if counts else "...")

    def _redraw(self) -> None:
        frames = itertools.cycle(self._FRAMES)
        while True:
            self.stream.write("\r" + self._bar(next(frames)) + "\033[K")
            self.stream.flush()
            if self._stop.wait(0.1):
                return

    def _bar(self, frame: str) -> str:
        """The terminal line: tqdm's meter where tqdm is installed and there is a count."""
        width = shutil.get_terminal_size((80, 20)).columns - 1
        tqdm = _tqdm()
        if tqdm is not None and (self.done or self.total):
            scaled = self.unit == "B"
            meter: str = tqdm.format_meter(self.done, self.total, self.elapsed(), ncols=width, prefix=self.label,
                                           unit=self.unit or "it", unit_scale=scaled, unit_divisor=1000)
            return meter[:width]
        counts = self.counts()
        text = f"{frame} {self.label}" + (f": {counts}" if counts else "") + f" {self.elapsed():.1f} s"
        return text[:width]

    def _repeat_lines(self) -> None:
        while not self._stop.wait(self.interval):
            counts = self.counts()
            self._line((f"{counts}, " if counts else "") + f"{self.elapsed():.0f} s so far")

    def _line(self, text: str) -> None:
        sep = " " if text == "..." else ": "
        self.stream.write(f"{PREFIX}: {self.label}{sep}{text}\n")
        self.stream.flush()


def _tqdm() -> Any:
    """tqdm's class, or None where tqdm is not installed."""
    try:  # imported by name: tqdm is optional and ships no type information
        return importlib.import_module("tqdm").tqdm
    except ImportError:
        return None


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
