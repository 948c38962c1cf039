"""Small host-to-device copies through page-locked memory, without waiting.

A host array of a few bytes (a BFS's source and its value) reaches the device by CuPy's
``asarray`` as a copy from pageable memory, which waits for the device (40-60 us of host time
on a slow host), or as a fill launch of its value (10-20 us through the launch layers).  Here
it is written into a ring of page-locked memory and copied from there asynchronously: an
allocation and one driver call.  A slot is reused only after the devices have finished every
copy queued before (a wait on each device that copied from the ring, each time it wraps
around: once per 4,096 one-word copies)."""

from __future__ import annotations

import threading
from typing import Any

import cupy
import cupyx
import numpy as np

__all__ = ["RING_BYTES", "LARGEST_STAGED", "staged", "to_device"]

RING_BYTES = 1 << 16
LARGEST_STAGED = 256
"""Host arrays of at most this many bytes go through the ring (larger ones as CuPy copies)."""

_H2D = cupy.cuda.runtime.memcpyHostToDevice
_lock = threading.Lock()
_ring: dict[str, Any] = {}  # "buffer": the page-locked ring, "address", "at": the next free byte
_copied_to: set[int] = set()  # the devices that copied from the ring since it last wrapped around
_staged = [0]  # copies queued through the ring so far


def staged() -> int:
    """How many copies :func:`to_device` has queued so far (a caller compares two readings to
    learn whether some were queued in between)."""
    return _staged[0]


def to_device(x: np.ndarray) -> cupy.ndarray:
    """A device copy of the contiguous host array ``x`` (at most :data:`LARGEST_STAGED` bytes),
    queued on the current stream."""
    n = x.nbytes
    with _lock:
        if not _ring:
            buffer = cupyx.empty_pinned(RING_BYTES, np.uint8)
            _ring.update(buffer=buffer, address=buffer.ctypes.data, at=0)
        at = _ring["at"]
        if at + n > RING_BYTES:  # every copy from the ring so far must be done before a slot is reused
            _wait_for_copies()
            at = 0
        _ring["at"] = (at + n + 15) & ~15
        _staged[0] += 1
        _copied_to.add(cupy.cuda.runtime.getDevice())
        _ring["buffer"][at:at + n] = x.reshape(-1).view(np.uint8)
    out = cupy.empty(x.shape, dtype=x.dtype)
    if n:
        cupy.cuda.runtime.memcpyAsync(out.data.ptr, _ring["address"] + at, n, _H2D,
                                      cupy.cuda.get_current_stream().ptr)
    return out


def _wait_for_copies() -> None:
    """Wait for each device that copied from the ring (the caller holds the lock)."""
    runtime = cupy.cuda.runtime
    current = runtime.getDevice()
    for device in sorted(_copied_to):
        runtime.setDevice(device)
        runtime.deviceSynchronize()
    runtime.setDevice(current)
    _copied_to.clear()
