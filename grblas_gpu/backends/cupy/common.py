"""What the CuPy backend's kernels share: launch geometry, null pointers and flags made once,
the mapping of CuPy's out-of-memory error, and small array helpers."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import cupy
import numpy as np

from ...exceptions import OutOfMemory
from ...limits import register_available

_BLOCK = 256  # threads per block; a multiple of 32, so lane groups never straddle warps
# Element-wise kernels stride over the elements with this many blocks per SM: a block per
# 256 elements costs about 3x more (a 4 M-element cast took 14.5 us, 4.3 us with 8 per SM).
_ELEMENTWISE_BLOCKS_PER_SM = 8
# A null device pointer: CuPy passes None as one, and takes it faster than a NumPy scalar
# (0.2 against 0.5 us an argument on a slow host; a kernel often has several).
_NULL = None
_FLAGS32 = (np.int32(0), np.int32(1))  # int32 flags, made once (0.2-0.6 us a scalar)
_ZERO64 = np.int64(0)
_F = TypeVar("_F", bound=Callable[..., Any])


def _device_available() -> int | None:
    """The bytes the current device may allocate now: its free memory and the free blocks of
    CuPy's pool (the memory rule of :mod:`grblas_gpu.limits`)."""
    try:
        free = int(cupy.cuda.runtime.memGetInfo()[0])
        return free + int(cupy.get_default_memory_pool().free_bytes())
    except cupy.cuda.runtime.CUDARuntimeError:  # no answer: no check; the allocation will tell
        return None


register_available("cupy", _device_available)


def _map_out_of_memory(method: _F) -> _F:
    """Raise :class:`OutOfMemory` (naming the bytes asked for) where CuPy runs out of device memory."""

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except cupy.cuda.memory.OutOfMemoryError as exc:
            size = getattr(exc, "_size", None)  # CuPy keeps the request size here; its message names it too
            detail = f" allocating {size:,} bytes" if isinstance(size, int) else f": {exc}"
            raise OutOfMemory(f"the GPU ran out of memory{detail}") from exc

    return wrapper  # type: ignore[return-value]


def _is_scalar(x: Any) -> bool:
    """True for a Python/NumPy scalar or a 0-d array: a bound operand."""
    if isinstance(x, cupy.ndarray):
        return x.ndim == 0
    return np.ndim(x) == 0


def _contiguous(a: cupy.ndarray) -> cupy.ndarray:
    """``a`` in C order, keeping its shape (``cupy.ascontiguousarray`` makes 0-d arrays 1-d)."""
    # ``_c_contiguous`` is the flag ``flags.c_contiguous`` reads, without making a flags object
    # (about 0.5 us a call on a slow host; this runs several times per operation).
    return a if a._c_contiguous else cupy.ascontiguousarray(a)


@functools.cache
def _sm_count(device: int) -> int:
    """Streaming multiprocessors of a device (asked once per device)."""
    return int(cupy.cuda.Device(device).attributes["MultiProcessorCount"])


def _bounded_blocks(threads: int, per_sm: int) -> int:
    """Blocks of ``_BLOCK`` threads for ``threads`` threads, at most ``per_sm`` per SM of the
    current device (the kernel's threads stride over the rest)."""
    return min(-(-threads // _BLOCK), per_sm * _sm_count(cupy.cuda.runtime.getDevice()))


def _group_size(total: int, count: int) -> int:
    """Lanes per segment/row: the mean length rounded up to a power of two, at most a warp."""
    mean = total / max(count, 1)
    group = 1
    while group < 32 and group < mean:
        group *= 2
    return group


@functools.cache
def _occurrence_kernel() -> cupy.ElementwiseKernel:
    return cupy.ElementwiseKernel("T x", "raw uint64 counts", "atomicAdd(&counts[x], 1ULL)", "grblas_occurrences")


def occurrences(idx: cupy.ndarray, n: int) -> cupy.ndarray:
    """How many times each of ``0..n-1`` occurs in the integer array ``idx`` (int64, ``n`` of
    them; every index below ``n``), by atomic adds: memory is the counts alone.  (CuPy's
    ``bincount`` takes a privatized histogram's scratch, bins times blocks: 1.3 GB for a
    million entries of a million columns.)"""
    counts = cupy.zeros(n, dtype=np.uint64)
    if idx.size:
        _occurrence_kernel()(idx, counts)
    return counts.view(np.int64)

