"""Kernel launches packed once and repeated with a few changed pointers.

CuPy converts every argument on every launch: about 5 us for the launch and 0.2 to 0.5 us
more per argument on a slow host, so a kernel of a dozen arguments costs twice a bare
driver launch.  That is most of a small product's time.  A :class:`PreparedLaunch` packs the
arguments that stay the same (the matrix's arrays, its size, flags) once; a launch writes only
the pointers that change (the vector, the result) and calls the driver.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from typing import Any

import cupy
import numpy as np
from cupy.cuda import driver

from .signatures import CHANGES

__all__ = ["CHANGES", "PreparedLaunch", "launch_kept", "scalar_word"]

# Bound once: a launch is on the path of every small product, where each lookup shows.
_current_stream = cupy.cuda.get_current_stream
_launch_kernel = driver.launchKernel


class PreparedLaunch:
    """``fn`` launched on ``grid`` blocks of ``block`` threads with the arguments ``args`` (and
    ``shared`` bytes of dynamic shared memory a block).

    Arguments are device arrays, None (a null pointer), or NumPy scalars of at most 8 bytes
    (:meth:`.signatures.KernelSignature.arguments` lists them by name); those given as
    :data:`CHANGES` are passed to each :meth:`launch`, in order, as arrays, None,
    or Python ints: an address (page-locked host memory) or a scalar's :func:`scalar_word`.
    The arrays given here are kept alive with the launch.
    """

    def __init__(self, fn: Any, grid: int, block: int, args: tuple[Any, ...], shared: int = 0) -> None:
        self._function = getattr(fn, "kernel", fn).ptr  # a RawKernel's driver function
        self._grid, self._block, self._shared = int(grid), int(block), int(shared)
        self._words = (ctypes.c_uint64 * len(args))()
        base = ctypes.addressof(self._words)
        self._params = (ctypes.c_void_p * len(args))(*(base + 8 * i for i in range(len(args))))
        self._params_address = ctypes.addressof(self._params)
        self._changing = tuple(i for i, a in enumerate(args) if a is CHANGES)
        self._kept = args
        self._lock = threading.Lock()  # the words are shared: one launch writes them at a time
        for i, a in enumerate(args):
            if a is not CHANGES:
                self._words[i] = _word(a)

    def launch(self, *pointers: cupy.ndarray | int | None) -> None:
        """Launch on the current stream with ``pointers`` in the places marked :data:`CHANGES`."""
        if len(pointers) != len(self._changing):
            raise TypeError(f"launch takes {len(self._changing)} pointers, got {len(pointers)}")
        stream = _current_stream().ptr
        with self._lock:  # the driver copies the words before the launch call returns
            words = self._words
            for i, a in zip(self._changing, pointers):
                words[i] = 0 if a is None else a if isinstance(a, int) else a.data.ptr
            _launch_kernel(self._function, self._grid, 1, 1, self._block, 1, 1, self._shared, stream,
                           self._params_address, 0)


def launch_kept(kept: dict[Any, Any] | None, key: Any, make: Callable[[], tuple[Any, int, int]],
                args: tuple[Any, ...], changing: tuple[int, ...], most: int | None = None) -> None:
    """Launch a kernel with ``args``; ``make()`` gives (kernel, blocks, threads per block).

    With ``kept`` (a dict that lives no longer than the arrays among ``args`` outside
    ``changing``), the launch goes through a :class:`PreparedLaunch` kept there under ``key``,
    packed at first use: only the arguments at the places ``changing`` (arrays, None or
    ints: addresses, or :func:`scalar_word` of a scalar) are written at each call, and ``make`` is not asked again.  ``key`` must name
    everything else in ``args``, and the grid, that can differ between calls.  With ``most``,
    a store already holding that many launches is emptied before another is packed into it
    (for stores whose keys hold sizes or scalars, which a program may vary without end)."""
    prepared = None if kept is None else kept.get(key)
    if prepared is None:
        fn, grid, block = make()
        if kept is None:
            fn((grid,), (block,), args)
            return
        if most is not None and len(kept) >= most:
            kept.clear()
        marked = tuple(CHANGES if i in changing else a for i, a in enumerate(args))
        prepared = kept[key] = PreparedLaunch(fn, grid, block, marked)
    prepared.launch(*[args[i] for i in changing])


def scalar_word(value: np.generic) -> int:
    """The 8-byte argument slot of a NumPy scalar of at most 8 bytes (in its low bytes), as an
    int: how a prepared launch takes a scalar that changes from call to call (not an unprepared
    one, which would pass the int as an 8-byte integer)."""
    return int.from_bytes(value.tobytes(), "little")


def _word(arg: Any) -> int:
    """The 8-byte slot holding ``arg`` as the kernel reads it (a scalar in its low bytes)."""
    if arg is None:
        return 0
    if isinstance(arg, cupy.ndarray):
        return int(arg.data.ptr)
    if isinstance(arg, np.generic) and arg.dtype.itemsize <= 8:
        return scalar_word(arg)
    raise TypeError(f"a prepared launch takes device arrays, None or NumPy scalars, got {type(arg).__name__}")
