"""An elapsed-time spinner for slow steps, shown only on a terminal."""

from __future__ import annotations

import itertools
import sys
import threading
import time
from types import TracebackType
from typing import TextIO

from typing_extensions import Self

__all__ = ["Progress"]


class Progress:
    """An elapsed-time spinner on stderr while a slow step runs, only when stderr is a terminal.

    Nothing is shown for steps shorter than ``delay`` seconds; the line is erased at the end.
    """

    _FRAMES = "|/-\\"

    def __init__(self, label: str, stream: TextIO | None = None, delay: float = 0.5) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.delay = delay
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = False

    def __enter__(self) -> Self:
        if _isatty(self.stream):
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._shown:
            self.stream.write("\r\033[K")
            self.stream.flush()

    def _run(self) -> None:
        start = time.perf_counter()
        if self._stop.wait(self.delay):
            return
        for frame in itertools.cycle(self._FRAMES):
            self._shown = True
            self.stream.write(f"\r{frame} {self.label} {time.perf_counter() - start:.1f} s")
            self.stream.flush()
            if self._stop.wait(0.1):
                return


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
