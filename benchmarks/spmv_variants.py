"""Tuning runs for the merge-path SpMV kernel: ``python -m benchmarks.spmv_variants``.

Builds the directed Kronecker graph, then times variants of the generated merge-path kernel
(threads per block, items per thread, launch bounds, cache hints on the loads, the shared
memory carveout, the column cache's size) under one or more semirings (``--semiring``),
optionally through the column cache as the backend builds it (``--hot``), against cuSPARSE's
SpMV on the same arrays, in one process. The GPU's speed drifts by several percent within
seconds, so the variants and cuSPARSE are timed in rounds, each round timing every one of them
(a batch of back-to-back calls by CUDA events, after one untimed call), the order reversed
every other round; each prints its median and the median of its ratios to cuSPARSE's time in
the same round. plus_times results are checked against cuSPARSE's, other semirings' against
the first variant's. A tool for choosing the kernel's settings, not part of the benchmark
suite; ``--save``/``--load`` keep the graph for a second process (a profiler run, say).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

# Text edits applied to the rendered merge module: name -> (old, new) pairs.
_KEEP_X = (("x[k]", "gb_ldkeep(x + k)"),)
_BOUND = "__launch_bounds__(GB_MERGE_BLOCK, GB_MERGE_BLOCKS_PER_SM)"
EDITS = {"keep": _KEEP_X,
         "lb8": ((_BOUND, "__launch_bounds__(GB_MERGE_BLOCK, 2048 / GB_MERGE_BLOCK)"),),
         "nolb": ((_BOUND, ""),)}

_HELPERS = r"""
__device__ __forceinline__ float gb_ldkeep(const float* p) {
    float v;
    asm("{\n\t.reg .b64 pol;\n\tcreatepolicy.fractional.L2::evict_last.b64 pol, 1.0;\n\t"
        "ld.global.nc.L2::cache_hint.f32 %0, [%1], pol;\n\t}" : "=f"(v) : "l"(p));
    return v;
}
__device__ __forceinline__ double gb_ldkeep(const double* p) {
    double v;
    asm("{\n\t.reg .b64 pol;\n\tcreatepolicy.fractional.L2::evict_last.b64 pol, 1.0;\n\t"
        "ld.global.nc.L2::cache_hint.f64 %0, [%1], pol;\n\t}" : "=d"(v) : "l"(p));
    return v;
}
"""


class Variant(NamedTuple):
    """A kernel variant: threads per block, items per thread, text edits (names in EDITS), the
    preferred shared-memory carveout (percent; None: the backend's; -1: the driver's choice)
    and the column cache's size (None: as ``--hot`` says; 0: none)."""

    label: str
    block: int = 256
    items: int = 6
    edits: tuple[str, ...] = ()
    carveout: int | None = None
    hot: int | None = None


_serial = itertools.count()

VARIANTS: tuple[Variant, ...] = (
    Variant("base"),
    Variant("driver's carveout", carveout=-1),
    Variant("carveout 25", carveout=25),
    Variant("carveout 50", carveout=50),
    Variant("hot 2^17", hot=1 << 17),
    Variant("hot 2^19", hot=1 << 19),
    Variant("i7", items=7),
    Variant("nolb", edits=("nolb",)),
    Variant("base again"),
)


def _median_ms(fn: Callable[[], Any], repeat: int) -> float:
    import cupy

    for _ in range(3):
        fn()
    times = []
    for _ in range(repeat):
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end))
    return statistics.median(times)


def _round_robin(runs: dict[str, Callable[[], Any]], rounds: int, batch: int = 10) -> dict[str, list[float]]:
    """Milliseconds a call of each of ``runs`` per round (see the module's docstring)."""
    import cupy

    times: dict[str, list[float]] = {label: [] for label in runs}
    for r in range(rounds):
        for label in (list(runs) if r % 2 == 0 else list(runs)[::-1]):
            fn = runs[label]
            fn()
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            for _ in range(batch):
                fn()
            end.record()
            end.synchronize()
            times[label].append(cupy.cuda.get_elapsed_time(start, end) / batch)
    return times


def _variant_runner(semiring: Any, block: int, items: int, edits: tuple[str, ...], ptr: Any, idx: Any,
                    vals: Any, x: Any, cache: Any = None, carveout: int | None = None) -> Callable[[], Any]:
    """A callable running one variant of the merge kernel (main and fix-up) on the arrays; with
    a :class:`ColumnCache`, its gather and hot entry instead of the main one."""
    import cupy

    from grblas_gpu.backends.cupy import codegen, pull, spmv_plans

    codegen.MERGE_BLOCK, codegen.MERGE_ITEMS, codegen.MERGE_TILE = block, items, block * items
    codegen.spmv_module.cache_clear()
    module = codegen.spmv_module(semiring, ptr.dtype, False, "merge")
    source = module.source
    for name in edits:
        for old, new in EDITS[name]:
            assert old in source, (name, old)
            source = source.replace(old, new)
    source = source.replace("#define GB_MERGE_BLOCK", _HELPERS + "\n#define GB_MERGE_BLOCK", 1)
    # A source of its own per variant: CuPy shares one compiled module among equal sources, and
    # an attribute set on one variant's function (the carveout) would then apply to all of them.
    source += f"\n// variant {next(_serial)}\n"
    raw = cupy.RawModule(code=source, options=codegen.NVRTC_OPTIONS)
    main = raw.get_function(module.entries["main" if cache is None else "hot"])
    fixup, gather = raw.get_function(module.entries["fixup"]), raw.get_function(module.entries["gather"])
    if carveout is None:
        pull._leave_l1(main, codegen.MERGE_BLOCKS_PER_SM)
    else:
        main.preferred_shared_memory_carveout = carveout
    print(f"  {main.num_regs} registers, {main.shared_size_bytes} bytes of shared memory a block")
    tile_row = spmv_plans._merge_tiles(ptr, int(idx.size))
    nrows = ptr.size - 1
    ntiles = tile_row.size - 1
    out = cupy.empty(nrows, dtype=x.dtype)
    present = cupy.empty(nrows, dtype=np.bool_)
    carries = (cupy.empty(ntiles, dtype=np.int64), cupy.empty(ntiles, dtype=x.dtype),
               cupy.empty(ntiles, dtype=np.bool_))
    null = np.uintp(0)
    x_hot = null if cache is None else cupy.empty(cache.hot.size, dtype=x.dtype)
    columns = idx if cache is None else cache.indices
    head = (ptr, columns, vals, x, x_hot, null, null, null, tile_row, np.int64(nrows), out, present)  # x_present_hot, x_present, row_mask

    def run() -> Any:
        if cache is not None:
            nhot = cache.hot.size
            gather((-(-nhot // 256),), (256,), (x, null, cache.hot, np.int64(nhot), x_hot, null))
        main((ntiles,), (block,), head + carries + (np.int32(0),))  # accumulate: off
        fixup((-(-ntiles // 256),), (256,), carries + (np.int64(ntiles), out, present))
        return out

    return run


def _time_relabelled(typed: Any, ptr: Any, idx: Any, vals: Any, x: Any, ref: Any, repeat: int) -> None:
    """The base kernel on the same matrix with its columns renumbered so that the most used
    come first (x permuted to match): how much locality in the gathers of x is worth."""
    import cupy

    counts = cupy.bincount(idx, minlength=x.size)
    order = cupy.argsort(-counts, kind="stable")
    rank = cupy.empty_like(order)
    rank[order] = cupy.arange(order.size)
    idx2 = rank[idx].astype(idx.dtype)
    top = cupy.sort(counts)[::-1]
    share = [float(top[:k].sum() / idx.size) for k in (1 << 12, 1 << 15, 1 << 18)]
    print(f"share of entries in the 4K/32K/256K most used columns: {share}")
    for label, shuffle in (("relabelled, x permuted each call", True), ("relabelled kernel only", False)):
        x2 = x[order]
        run = _variant_runner(typed, 256, 8, (), ptr, idx2, vals, x2)
        got = run()
        err = float(cupy.abs(got - ref).max() / cupy.abs(ref).max())

        def call() -> Any:
            if shuffle:
                cupy.take(x, order, out=x2)
            return run()

        print(f"{label:28s} {_median_ms(call, repeat):8.3f} ms  max rel err {err:.1e}")


def _time_api(typed: Any, indptr: np.ndarray, indices: np.ndarray, vals: Any, x: Any, repeat: int) -> None:
    """The product through ``w << A.mxv(u)`` and through the backend call, to see what the
    layers above the kernel cost (each timed back to back, and synchronised before each call)."""
    import time

    import cupy

    import grblas_gpu as gb

    A = gb.Matrix.from_csr(indptr, indices, cupy.asnumpy(vals), ncols=indptr.size - 1, backend="cupy")
    u = gb.Vector.from_dense(cupy.asnumpy(x), backend="cupy")
    w = gb.Vector(A.dtype, A.nrows, backend="cupy")
    from grblas_gpu.backends.operands import CsrOperand, VectorOperand

    be = A._be
    plan = A._spmv_plan()
    a = CsrOperand(A._indptr, A._indices, A._vals, A.nrows, A.ncols)

    def api() -> None:
        w << A.mxv(u, typed)

    def backend() -> None:
        be.spmv(typed, a, VectorOperand(u._bitmap()[1]), False, plan)

    for label, fn in (("api", api), ("backend.spmv", backend)):
        print(f"{label:28s} {_median_ms(fn, repeat):8.3f} ms back to back")

        def synced() -> None:
            cupy.cuda.Device().synchronize()
            fn()

        print(f"{label:28s} {_median_ms(synced, repeat):8.3f} ms synchronised first")
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        print(f"{label:28s} {(time.perf_counter() - t0) / repeat * 1e6:8.1f} us host per call (not waiting)")
        cupy.cuda.Device().synchronize()
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.runcall(lambda: [api() for _ in range(repeat)])
    pstats.Stats(profiler).sort_stats("tottime").print_stats(18)


def main(argv: list[str] | None = None) -> int:
    """Time the variants and print a table (cuSPARSE first)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.spmv_variants", description=__doc__)
    parser.add_argument("--scale", type=int, default=22)
    parser.add_argument("--repeat", type=int, default=50, help="rounds (each times every variant)")
    parser.add_argument("--semiring", action="append", default=None,
                        help="semiring name (repeatable; default plus_times)")
    parser.add_argument("--hot", action="store_true", help="through the column cache, as the backend builds it")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--save", help="write the graph's CSR here (.npz)")
    parser.add_argument("--load", help="read the graph's CSR from here instead of building it")
    parser.add_argument("--only", nargs="*", help="labels of the variants to run")
    parser.add_argument("--api", action="store_true", help="also time the same product through the API")
    parser.add_argument("--relabel", action="store_true",
                        help="also time the base kernel with columns relabelled by descending frequency")
    parser.add_argument("--local", action="store_true",
                        help="also time the base kernel with every column index taken modulo 4,096")
    args = parser.parse_args(argv)

    import cupy
    import cupyx.scipy.sparse as cusp

    from grblas_gpu.backends.cupy import backend as cb
    from grblas_gpu.backends.cupy import spmv_plans
    from grblas_gpu.dtypes import FP32, FP64
    from grblas_gpu.operators import semiring

    if args.load:
        data = np.load(args.load)
        indptr, indices = data["indptr"], data["indices"]
    else:
        from .graphs import kronecker

        g, _ = kronecker(args.scale)
        indptr, indices = g.indptr, g.indices
        if args.save:
            np.savez(args.save, indptr=indptr, indices=indices)
    dtype = np.dtype(args.dtype)
    rng = np.random.default_rng(1)
    n = indptr.size - 1
    ptr, idx = cupy.asarray(indptr.astype(np.int32)), cupy.asarray(indices.astype(np.int32))
    vals = cupy.asarray(rng.random(indices.size).astype(dtype) + dtype.type(0.5))
    x = cupy.asarray(rng.random(n).astype(dtype) + dtype.type(0.5))
    A = cusp.csr_matrix((vals, idx, ptr), shape=(n, n))
    ref = A @ x
    print(f"n={n} nnz={idx.size} dtype={dtype}")
    print(f"{'cusparse':28s} {_median_ms(lambda: A @ x, args.repeat):8.3f} ms")
    if args.api:
        def synced() -> Any:
            cupy.cuda.Device().synchronize()
            return A @ x

        print(f"{'cusparse':28s} {_median_ms(synced, args.repeat):8.3f} ms synchronised first")
    value_type = FP32 if dtype == np.float32 else FP64
    typed = semiring.plus_times[value_type]
    if args.api:
        _time_api(typed, indptr, indices, vals, x, args.repeat)
    if args.relabel:
        _time_relabelled(typed, ptr, idx, vals, x, ref, args.repeat)
    be = cb.CupyBackend
    caches: dict[int, Any] = {}

    def cache_of(count: int) -> Any:
        if count and count not in caches:
            caches[count] = spmv_plans._hot_columns(idx, n, count, be.hot_min_share)
            print(f"column cache of {count}:", "none (too little share)" if caches[count] is None else "made")
        return caches.get(count)

    names = args.semiring or ["plus_times"]
    runs: dict[str, Callable[[], Any]] = {"cusparse": lambda: A @ x}
    firsts: dict[str, Any] = {}
    for v in VARIANTS:
        if args.only and v.label not in args.only:
            continue
        count = v.hot if v.hot is not None else (be.hot_columns if args.hot else 0)
        for name in names:
            run = _variant_runner(semiring[name][value_type], v.block, v.items, v.edits,
                                  ptr, idx, vals, x, cache_of(count), v.carveout)
            got = run().copy()
            base = ref if name == "plus_times" else firsts.setdefault(name, got)
            err = float(cupy.abs(got - base).max() / cupy.abs(base).max())
            print(f"{v.label} {name}: max rel diff from {'cuSPARSE' if name == 'plus_times' else 'the first'} {err:.1e}")
            runs[f"{v.label} {name}"] = run
    if args.local:  # every gather of x among 4,096 columns: the kernel with its gathers cached
        base = Variant("local columns")
        for name in names:
            runs[f"{base.label} {name}"] = _variant_runner(semiring[name][value_type], base.block, base.items,
                                                           base.edits, ptr, idx & 4095, vals, x)
    times = _round_robin(runs, args.repeat)
    peer = times["cusparse"]
    print(f"{'cusparse':34s} {statistics.median(peer):8.3f} ms")
    for label, t in times.items():
        if label != "cusparse":
            ratio = statistics.median(a / b for a, b in zip(t, peer))
            print(f"{label:34s} {statistics.median(t):8.3f} ms  {ratio:.3f} x cuSPARSE in its rounds")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
