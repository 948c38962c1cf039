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

__all__ = ["RING_BYTES", "LARGEST_STAGED", "PAIR_OFFSET", "to_device", "to_device_pair"]

RING_BYTES = 1 << 16
LARGEST_STAGED = 256
"""Host arrays of at most this many bytes go through the ring (larger ones as CuPy copies)."""
PAIR_OFFSET = 256
"""Where the second array of :func:`to_device_pair` starts in their allocation (CuPy aligns
an allocation to 256 bytes)."""

_H2D = cupy.cuda.runtime.memcpyHostToDevice
_lock = threading.Lock()
_ring: dict[str, Any] = {}  # "buffer": the page-locked ring, "address", "at": the next free byte
_copied_to: set[int] = set()  # the devices that copied from the ring since it last wrapped around


def to_device(x: np.ndarray) -> cupy.ndarray:
    """A device copy of the contiguous host array ``x`` (at most :data:`LARGEST_STAGED` bytes),
    queued on the current stream."""
    n = x.nbytes
    with _lock:
        at = _slot(n)
        _ring["buffer"][at:at + n] = x.reshape(-1).view(np.uint8)
    out = cupy.empty(x.shape, dtype=x.dtype)
    if n:
        cupy.cuda.runtime.memcpyAsync(out.data.ptr, _ring["address"] + at, n, _H2D,
                                      cupy.cuda.get_current_stream().ptr)
    return out


def to_device_pair(a: np.ndarray, b: np.ndarray) -> tuple[cupy.ndarray, cupy.ndarray]:
    """Device copies of two contiguous host arrays of at most :data:`LARGEST_STAGED` bytes each
    (a one-entry Vector's index and value) by one allocation and one copy: views of it, ``b``
    at :data:`PAIR_OFFSET` bytes, so each starts as aligned as an allocation of its own."""
    n = PAIR_OFFSET + b.nbytes
    with _lock:
        at = _slot(n)
        buffer = _ring["buffer"]
        buffer[at:at + a.nbytes] = a.reshape(-1).view(np.uint8)
        buffer[at + PAIR_OFFSET:at + n] = b.reshape(-1).view(np.uint8)
    out = cupy.empty(n, dtype=np.uint8)
    cupy.cuda.runtime.memcpyAsync(out.data.ptr, _ring["address"] + at, n, _H2D, cupy.cuda.get_current_stream().ptr)
    return out[:a.nbytes].view(a.dtype).reshape(a.shape), out[PAIR_OFFSET:n].view(b.dtype).reshape(b.shape)


def _slot(n: int) -> int:
    """The place of ``n`` bytes in the ring, reserved (the caller holds the lock)."""
    if not _ring:
        buffer = cupyx.empty_pinned(RING_BYTES, np.uint8)
        _ring.update(buffer=buffer, address=buffer.ctypes.data, at=0)
    at = _ring["at"]
    if at + n > RING_BYTES:  # every copy from the ring so far must be done before a slot is reused
        _wait_for_copies()
        at = 0
    _ring["at"] = (at + n + 15) & ~15
    _copied_to.add(cupy.cuda.runtime.getDevice())
    return at


def _wait_for_copies() -> None:
    """Wait for each device that copied from the ring (the caller holds the lock)."""
    runtime = cupy.cuda.runtime
    current = runtime.getDevice()
    for device in sorted(_copied_to):
        runtime.setDevice(device)
        runtime.deviceSynchronize()
    runtime.setDevice(current)
    _copied_to.clear()
