"""Timers: CUDA events on the GPU, ``time.perf_counter`` on the CPU; medians of repeats.

Every measurement runs ``warmup`` untimed calls, then up to ``repeat`` timed calls, and
stops early once ``budget_s`` seconds of timed work have passed (always at least one), so a
slow CPU peer at a large scale cannot eat the run's time.
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def device_sync() -> None:
    """Wait for all GPU work of this device (no-op without CuPy).

    Through the runtime's call, not ``cupy.cuda.Device().synchronize()``: that makes a Device
    object each time, which cost an idle H100's host 2.5 us against 1.2, inside every timing
    of a small product.
    """
    try:
        import cupy
    except ImportError:
        return
    cupy.cuda.runtime.deviceSynchronize()


def _gpu_once(fn: Callable[[], Any]) -> float:
    """Seconds of one call of ``fn`` between two CUDA events on the current stream."""
    import cupy

    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    device_sync()
    start.record()
    fn()
    end.record()
    end.synchronize()
    device_sync()  # work on other streams (torch) also counts as finished
    return cupy.cuda.get_elapsed_time(start, end) / 1e3


def _wall_once(fn: Callable[[], Any], gpu: bool) -> float:
    """Seconds of one call of ``fn`` by wall clock (synchronizing the GPU when ``gpu``)."""
    if gpu:
        device_sync()
    t0 = time.perf_counter()
    fn()
    if gpu:
        device_sync()
    return time.perf_counter() - t0


def measure(fn: Callable[[], Any], *, gpu: bool, warmup: int = 2, repeat: int = 10,
            budget_s: float = 5.0, wall: bool = False) -> dict:
    """Median seconds of ``fn``; CUDA events when ``gpu`` (unless ``wall``), else perf_counter.

    Returns ``{"median_s", "min_s", "runs", "timer"}``.
    """
    once = (lambda: _wall_once(fn, gpu)) if (wall or not gpu) else (lambda: _gpu_once(fn))
    first = None
    for i in range(warmup):
        t = once()
        if i == 0 and t > budget_s:
            first = t  # too slow to repeat: keep the warm-up run as the one sample
            break
    times: list[float] = [first] if first is not None else []
    spent = 0.0
    while len(times) < max(1, repeat) and (not times or spent < budget_s):
        times.append(once())
        spent += times[-1]
    timer = "wall+sync" if (wall and gpu) else ("cuda-events" if gpu else "perf_counter")
    return {"median_s": statistics.median(times), "min_s": min(times), "runs": len(times),
            "timer": timer}


def measure_paired(fn: Callable[[], Any], peer: Callable[[], Any], *, gpu: bool, warmup: int = 2,
                   repeat: int = 30, budget_s: float = 5.0, peer_host: bool = False) -> dict:
    """``fn`` and ``peer`` timed in turn: ``fn``'s :func:`measure` figures plus
    ``peer_median_s`` and ``peer_ratio``, the median of the ratios of its timed calls to the
    peer's timed call beside each.

    A GPU's speed drifts by several percent over seconds (clocks, heat, neighbours), so two
    figures taken one after the other can differ by more than the two operations do; calls
    in turn see the same drift.  Each timed call follows an untimed call of the same
    operation, so that it finds the caches as a call in a loop of its own would (as in
    :func:`measure`), not as the other operation left them.

    ``peer_host``: the peer runs on the host (a CPU library beside our GPU call); it is timed
    by wall clock with the GPU synchronized before and after.
    """
    once = _gpu_once if gpu else functools.partial(_wall_once, gpu=False)
    peer_once = functools.partial(_wall_once, gpu=gpu) if peer_host else once

    def warm_then_time(f: Callable[[], Any], timer: Callable[[Callable[[], Any]], float]) -> float:
        f()
        return timer(f)

    for _ in range(warmup):
        warm_then_time(fn, once)
        warm_then_time(peer, peer_once)
    ours: list[float] = []
    theirs: list[float] = []
    while len(ours) < max(1, repeat) and (not ours or sum(ours) + sum(theirs) < budget_s):
        ours.append(warm_then_time(fn, once))
        theirs.append(warm_then_time(peer, peer_once))
    return _paired_figures(ours, theirs, gpu, peer_host)


def _paired_figures(ours: list[float], theirs: list[float], gpu: bool, peer_host: bool) -> dict:
    """The figures of :func:`measure_paired` from the timed calls made in turn."""
    timer = "cuda-events" if gpu else "perf_counter"
    return {"median_s": statistics.median(ours), "min_s": min(ours), "runs": len(ours), "timer": timer,
            "peer_timer": "wall+sync" if (peer_host and gpu) else timer,
            "peer_median_s": statistics.median(theirs),
            "peer_ratio": statistics.median(a / b for a, b in zip(ours, theirs))}


def measure_turns(fn: Callable[[], Any], peer: Callable[[], Any], *, gpu: bool, warmup: int = 1,
                  repeat: int = 10, budget_s: float = 3.0, peer_host: bool = False) -> dict:
    """:func:`measure_paired` for operations that may take seconds each (products,
    triangle counts at large scales).

    An untimed call of each is clocked by the wall (a second one when the first pair passes
    ``budget_s``, for a first use compiles kernels); when the pair still passes ``budget_s``,
    one more call of each, in turn, is the only timed pair; otherwise :func:`measure_paired`
    runs as usual.
    """
    probe = _wall_once(fn, gpu) + _wall_once(peer, gpu)
    if probe > budget_s:
        probe = _wall_once(fn, gpu) + _wall_once(peer, gpu)
    if probe <= budget_s:
        return measure_paired(fn, peer, gpu=gpu, warmup=warmup, repeat=repeat, budget_s=budget_s,
                              peer_host=peer_host)
    once = _gpu_once if gpu else functools.partial(_wall_once, gpu=False)
    peer_once = functools.partial(_wall_once, gpu=gpu) if peer_host else once
    return _paired_figures([once(fn)], [peer_once(peer)], gpu, peer_host)


def time_once(fn: Callable[[], Any], *, gpu: bool) -> tuple[float, Any]:
    """Wall seconds and result of a single call (for cold, first-use timings)."""
    if gpu:
        device_sync()
    t0 = time.perf_counter()
    out = fn()
    if gpu:
        device_sync()
    return time.perf_counter() - t0, out


class PeakMemory:
    """High-water mark of the CuPy default memory pool's used and total bytes.

    CuPy's pool keeps no peak, so :meth:`track` installs an allocator that samples the pool
    after every allocation (a peak always follows an allocation).
    """

    def __init__(self) -> None:
        self.peak_used = 0
        self.peak_total = 0
        self.base_used = 0

    @contextmanager
    def track(self) -> Iterator[PeakMemory]:
        """Record the peaks of the allocations made inside the ``with`` block."""
        import cupy

        pool = cupy.get_default_memory_pool()
        device_sync()
        pool.free_all_blocks()
        self.base_used = self.peak_used = pool.used_bytes()
        self.peak_total = pool.total_bytes()

        def malloc(size: int) -> Any:
            ptr = pool.malloc(size)
            self.peak_used = max(self.peak_used, pool.used_bytes())
            self.peak_total = max(self.peak_total, pool.total_bytes())
            return ptr

        cupy.cuda.set_allocator(malloc)
        try:
            yield self
        finally:
            device_sync()
            cupy.cuda.set_allocator(pool.malloc)

    def summary(self) -> dict:
        """Peak bytes: absolute used, used above the start, and pool total."""
        return {"peak_used_bytes": self.peak_used,
                "peak_extra_bytes": self.peak_used - self.base_used,
                "peak_pool_bytes": self.peak_total}
