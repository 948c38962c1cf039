"""``python -m benchmarks.transpose 22 24``: the GPU transpose of the directed Kronecker graph,
the counting sort against the sort-based path it replaced, in one process: wall time (median
of 3, after one untimed run) and the CuPy pool's peak beyond the matrix, as a multiple of the
CSR (int64 pointers, int32 indices, float32 values)."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from . import large
from .timing import PeakMemory, device_sync


def _measure(fn: Callable[[], Any]) -> tuple[float, int]:
    fn()
    device_sync()
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        fn()
        device_sync()
        times.append(time.perf_counter() - t0)
    tracker = PeakMemory()
    with tracker.track():
        out = fn()
        device_sync()
    del out
    return statistics.median(times), tracker.summary()["peak_extra_bytes"]


def one_scale(scale: int) -> None:
    """Build, load and transpose one scale both ways; print a line per path."""
    import grblas_gpu as gb
    from grblas_gpu.ops.structural import transpose_csr

    g = large.build(scale)
    A = gb.Matrix.from_csr(g.indptr, g.indices, g.weights, ncols=g.n, dtype="FP32", backend="cupy",
                           symmetric=False)
    csr = g.nbytes
    del g
    be = A._be
    new_s, new_peak = _measure(lambda: transpose_csr(A))
    be.transpose_csr = None  # the instance hides the counting sort: the sort-based path
    try:
        old_s, old_peak = _measure(lambda: transpose_csr(A))
    finally:
        del be.transpose_csr
    for name, s, peak in (("counting sort", new_s, new_peak), ("sort-based", old_s, old_peak)):
        print(f"kron{scale} {A.nvals:,} entries: {name}: {s * 1e3:.1f} ms, peak {peak / csr:.2f}x the CSR",
              flush=True)
    print(f"kron{scale} counting sort kernels (ms): " +
          ", ".join(f"{role} {ms:.2f}" for role, ms in kernel_times(A).items()), flush=True)


def kernel_times(A: Any) -> dict[str, float]:
    """Milliseconds of each kernel of one counting-sort transpose (CUDA events around each
    launch; the CuPy scans, selections and sorts between them are not counted)."""
    import cupy

    from grblas_gpu.ops.structural import transpose_csr

    be = A._be
    compiled = be._function
    times: dict[str, float] = {}

    def timed_function(module: Any, role: str) -> Callable[..., None]:
        fn = compiled(module, role)

        def launch(*args: Any) -> None:
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            fn(*args)
            end.record()
            end.synchronize()
            times[role] = times.get(role, 0.0) + cupy.cuda.get_elapsed_time(start, end)
        return launch

    be._function = timed_function
    try:
        transpose_csr(A)
    finally:
        del be._function
    return times


def main(argv: list[str] | None = None) -> int:
    """One scale after another (default 22)."""
    for scale in [int(a) for a in (argv if argv is not None else sys.argv[1:])] or [22]:
        one_scale(scale)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
