"""Limits on sizes and memory: GrB_INDEX_MAX, and the rule for asking for O(n) memory.

Sizes are checked when an object is made: a dimension is at most ``INDEX_MAX`` (2**60, the
C API's GrB_INDEX_MAX + 1 positions), and so is a product of dimensions that becomes one
(a Kronecker product).

The memory rule: an operation that must allocate memory in proportion to a dimension rather
than to the entries (a full Vector, a dense export, a full Matrix) first compares the bytes
it needs with the memory available (``MemAvailable`` in /proc/meminfo on the host; the
device's free memory plus the free blocks of CuPy's pool on the GPU, as the CuPy
backend registers it) and raises
:class:`OutOfMemory`, naming both, when they do not fit. Nothing is allocated then, so the
output is as it was. An allocation that still fails (the memory went to someone else in
between) is reported as OutOfMemory by the executor.

A reading of the available memory (10-30 us on the GPU, more on a busy host) serves the
requests of the next :data:`READING_S` seconds, less the bytes those requests were granted
(as if each had been allocated and nothing freed): a loop of statements reads it once, not a
statement at a time.  A request that would not fit in what is left of it takes a new reading
before anything is refused.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .exceptions import InvalidValue, OutOfMemory

INDEX_MAX = 2**60
"""The largest dimension of a Vector or Matrix (GrB_INDEX_MAX is 2**60 - 1, the largest index)."""

__all__ = ["INDEX_MAX", "check_dimension", "check_product_dimension", "available_bytes", "register_available",
           "require_bytes"]


def check_dimension(n: Any, what: str) -> int:
    """``n`` as a Python int: a non-negative integer no larger than :data:`INDEX_MAX`."""
    if not isinstance(n, (int, np.integer)) or isinstance(n, (bool, np.bool_)) or n < 0:
        raise InvalidValue(f"{what} must be a non-negative integer, got {n!r}")
    n = int(n)
    if n > INDEX_MAX:
        raise InvalidValue(f"{what} {n} is larger than GrB_INDEX_MAX + 1 = 2**60")
    return n


def check_product_dimension(a: int, b: int, what: str) -> int:
    """``a * b`` where that product becomes a dimension (a Kronecker product's rows)."""
    n = int(a) * int(b)
    if n > INDEX_MAX:
        raise InvalidValue(f"{what} {a} x {b} = {n} is larger than GrB_INDEX_MAX + 1 = 2**60")
    return n


def _host_available() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:  # not Linux: the free physical pages
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


_AVAILABLE: dict[str, Callable[[], int | None]] = {"numpy": _host_available}


def register_available(backend: str, available: Callable[[], int | None]) -> None:
    """How a backend tells the bytes it may allocate now (the CuPy backend registers the
    device's; only it knows CUDA)."""
    _AVAILABLE[backend] = available


def available_bytes(backend: str) -> int | None:
    """The bytes an allocation on ``backend`` ("numpy" or "cupy") may take now; None if unknown."""
    found = _AVAILABLE.get(backend)
    return found() if found is not None else None


READING_S = 0.05
"""How long a reading of the available memory serves later requests (see the module's notes)."""
# backend -> (the reading's time, the bytes available then, the bytes granted since, what read it)
_READINGS: dict[str, tuple[float, int, int, Any]] = {}


def require_bytes(nbytes: int, backend: str, what: str) -> None:
    """Raise :class:`OutOfMemory` if ``nbytes`` for ``what`` do not fit in the memory available
    on ``backend`` (the host for "numpy", the GPU for "cupy")."""
    if nbytes <= 1 << 24:  # 16 MiB: not worth a look at /proc
        return
    now, source = time.monotonic(), (available_bytes, _AVAILABLE.get(backend))
    last = _READINGS.get(backend)
    if last is not None and now - last[0] < READING_S and last[2] + nbytes <= last[1] and last[3] == source:
        _READINGS[backend] = (last[0], last[1], last[2] + nbytes, source)
        return
    avail = available_bytes(backend)
    if avail is not None and nbytes > avail:
        where = "GPU" if backend == "cupy" else "host"
        raise OutOfMemory(f"{what} needs {_fmt(nbytes)} but the {where} has {_fmt(avail)} available")
    if avail is not None:
        _READINGS[backend] = (now, avail, nbytes, source)


def _fmt(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if n < 1024 or unit == "EiB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)
