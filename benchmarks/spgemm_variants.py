"""SpGEMM against cuSPARSE: ``python -m benchmarks.spgemm_variants [--scales 12 14 16] [--grid 1000]``.

Times the CuPy backend's Gustavson SpGEMM (``CupyBackend.mxm_gustavson``) on ``A @ A`` for
symmetric Kronecker graphs and a road-like grid, FP32 values, and the same product through the
public API (``A.mxm(A, semiring).new()``), beside cuSPARSE's SpGEMM (cupyx.scipy.sparse
``A @ A``) on the same arrays, in one process.  Each call is timed end to
end (host wall time to a synchronised device, as a caller sees it); after a warm-up call each,
ours and cuSPARSE's plus_times alternate for ``--rounds`` rounds and medians are reported.
min_plus, max_min and plus_pair (which cuSPARSE does not compute) are timed the same way and
put beside cuSPARSE's plus_times median.  plus_times is checked against cuSPARSE's result
(the structure exactly, values closely) on graphs small enough to compare cheaply.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


def _timed(fn: Callable[[], Any]) -> float:
    import cupy

    cupy.cuda.Device().synchronize()
    t0 = time.perf_counter()
    out = fn()
    cupy.cuda.Device().synchronize()
    del out
    return time.perf_counter() - t0


def _check(ours: Any, theirs: Any) -> str:
    import cupy

    theirs = theirs.copy()
    theirs.sort_indices()
    same = (int(ours.indptr[-1]) == theirs.nnz and bool(cupy.all(ours.indptr == theirs.indptr))
            and bool(cupy.all(ours.indices == theirs.indices))
            and bool(cupy.allclose(ours.values, theirs.data, rtol=1e-4, atol=1e-3)))
    return "ok" if same else "MISMATCH"


def bench_graph(name: str, g: Any, rounds: int, semirings: tuple[str, ...], check_below: int) -> list[tuple]:
    """Rows (graph, semiring, ours s, public API s, cuSPARSE s, nnz(C), check) for one graph."""
    import cupy
    import cupyx.scipy.sparse as csp

    import grblas_gpu as gb
    from grblas_gpu.backends import get_backend
    from grblas_gpu.backends.operands import CsrOperand
    from grblas_gpu.dtypes import FP32
    from grblas_gpu.operators import semiring as sr_ns

    be = get_backend("cupy")
    indptr, indices = cupy.asarray(g.indptr.astype(np.int32)), cupy.asarray(g.indices.astype(np.int32))
    values = cupy.asarray(g.weights.astype(np.float32))
    a = CsrOperand(indptr, indices, values, g.n, g.n)
    bare = CsrOperand(indptr, indices, None, g.n, g.n)
    m = csp.csr_matrix((values, indices, indptr), shape=(g.n, g.n))
    cusparse = lambda: m @ m  # noqa: E731

    def ours(name: str) -> Callable[[], Any]:
        sr = sr_ns[name][FP32]
        op = a if sr.mult.reads("x") else bare
        return lambda: be.mxm_gustavson(sr, op, op)

    A = gb.Matrix.from_csr(g.indptr, g.indices, g.weights.astype(np.float32), ncols=g.n, dtype="FP32",
                           backend="cupy")

    def public(name: str) -> Callable[[], Any]:
        return lambda: A.mxm(A, getattr(gb.semiring, name)).new()

    rows = []
    first = ours("plus_times")()
    nnz = int(first.indptr[-1])
    try:
        theirs = cusparse()
    except Exception as exc:  # noqa: BLE001 - cuSPARSE refuses some products (its workspace)
        print(f"{name}: cuSPARSE failed: {type(exc).__name__}: {exc}")
        theirs, cusparse = None, None
    check = _check(first, theirs) if theirs is not None and g.nnz <= check_below else "-"
    del first, theirs
    cupy.get_default_memory_pool().free_all_blocks()
    times: dict[str, list[float]] = {s: [] for s in semirings}
    api: dict[str, list[float]] = {s: [] for s in semirings}
    peer = []
    for s in semirings:
        _timed(ours(s))  # warm-up: compiles the module
        _timed(public(s))
    for r in range(rounds):
        order = semirings if r % 2 == 0 else tuple(reversed(semirings))
        if r % 2 and cusparse is not None:
            peer.append(_timed(cusparse))
        for s in order:
            times[s].append(_timed(ours(s)))
            api[s].append(_timed(public(s)))
        if r % 2 == 0 and cusparse is not None:
            peer.append(_timed(cusparse))
    theirs_s = statistics.median(peer) if peer else float("nan")
    for s in semirings:
        rows.append((name, s, statistics.median(times[s]), statistics.median(api[s]), theirs_s, nnz,
                     check if s == "plus_times" else ""))
    return rows


def stages(name: str, g: Any, runs: int = 5) -> None:
    """Per-launch GPU time of one plus_times product (CUDA events around each kernel launch of
    the plan, medians of ``runs``), and the rest of the call's span (allocations, scans, host
    synchronisations and Python between launches)."""
    import cupy

    from grblas_gpu.backends import get_backend
    from grblas_gpu.backends.cupy import spgemm
    from grblas_gpu.backends.operands import CsrOperand
    from grblas_gpu.dtypes import FP32
    from grblas_gpu.operators import semiring as sr_ns

    be = get_backend("cupy")
    indptr, indices = cupy.asarray(g.indptr.astype(np.int32)), cupy.asarray(g.indices.astype(np.int32))
    a = CsrOperand(indptr, indices, cupy.asarray(g.weights.astype(np.float32)), g.n, g.n)
    sr = sr_ns["plus_times"][FP32]
    marks: list[tuple[str, Any, Any]] = []
    plain = spgemm._Plan._launch

    def traced(self: Any, module: Any, role: str, *args: Any, **kw: Any) -> None:
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        plain(self, module, role, *args, **kw)
        end.record()
        marks.append((role, start, end))

    be.mxm_gustavson(sr, a, a)
    per: dict[str, list[float]] = {}
    spans: list[float] = []
    walls: list[float] = []
    spgemm._Plan._launch = traced
    try:
        for _ in range(runs):
            marks.clear()
            cupy.cuda.runtime.deviceSynchronize()
            first, last = cupy.cuda.Event(), cupy.cuda.Event()
            t0 = time.perf_counter()
            first.record()
            be.mxm_gustavson(sr, a, a)
            last.record()
            last.synchronize()
            walls.append(time.perf_counter() - t0)
            spans.append(cupy.cuda.get_elapsed_time(first, last))
            sums: dict[str, float] = {}
            for role, s, e in marks:
                sums[role] = sums.get(role, 0.0) + cupy.cuda.get_elapsed_time(s, e)
            for role, v in sums.items():
                per.setdefault(role, []).append(v)
            per.setdefault("launches", []).append(float(len(marks)))
    finally:
        spgemm._Plan._launch = plain
    span = statistics.median(spans)
    kernels = {r: statistics.median(v) for r, v in per.items() if r != "launches"}
    parts = ", ".join(f"{r} {v:.3f}" for r, v in kernels.items())
    print(f"{name}: wall {statistics.median(walls) * 1e3:.3f} ms, events span {span:.3f} ms, "
          f"{int(statistics.median(per['launches']))} launches; kernels ms: {parts}; "
          f"rest {span - sum(kernels.values()):.3f}", flush=True)


def main(argv: list[str] | None = None) -> None:
    """Run the table."""
    from benchmarks.graphs import grid, kronecker

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[12, 14, 16])
    p.add_argument("--grid", type=int, default=1000, help="grid side (0: none)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--package", default=None,
                   help="folder holding the grblas_gpu to measure (an old tree, as benchmarks.ab exports it)")
    p.add_argument("--semirings", nargs="*", default=["plus_times", "min_plus", "max_min", "plus_pair"])
    p.add_argument("--stages", action="store_true", help="print the per-launch breakdown of plus_times first")
    p.add_argument("--check-below", type=int, default=1_000_000, help="check plus_times on graphs of fewer edges")
    args = p.parse_args(argv)
    if args.package:
        sys.path.insert(0, str(Path(args.package).resolve()))
    graphs = [(f"kron{s}-sym", lambda s=s: kronecker(s)[1]) for s in args.scales]
    if args.grid:
        graphs.append((f"grid{args.grid}", lambda: grid(args.grid)))
    import cupy

    import grblas_gpu

    print(f"device: {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}; grblas_gpu from "
          f"{Path(grblas_gpu.__file__).parent}")
    print(f"{'graph':<12} {'semiring':<11} {'ours ms':>9} {'API ms':>9} {'cuSPARSE ms':>12} {'ratio':>6} "
          f"{'API ratio':>9} {'nnz(C)':>12} check")
    for name, make in graphs:
        g = make()
        if args.stages:
            stages(name, g)
        for row in bench_graph(name, g, args.rounds, tuple(args.semirings), args.check_below):
            gname, s, t, api, peer, nnz, check = row
            print(f"{gname:<12} {s:<11} {t * 1e3:9.3f} {api * 1e3:9.3f} {peer * 1e3:12.3f} {t / peer:6.3f} "
                  f"{api / peer:9.3f} {nnz:12d} {check}", flush=True)


if __name__ == "__main__":
    main()
