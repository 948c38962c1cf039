"""PageRank, BFS and SSSP on grblas_gpu.dask: strong and weak scaling over GPUs (or CPU workers).

    python -m benchmarks.dask                         # strong: kron 25 on 1, 2 and all GPUs;
                                                      # weak: kron 25 on 1 GPU, kron 26 on 2
    python -m benchmarks.dask --strong 25:1,2 --weak ""   # one part of it
    python -m benchmarks.dask --cpu --strong 12:1,2 --weak 12:1,13:2   # CPU workers (smoke test)

The graph is the symmetric Kronecker graph of ``benchmarks.graphs`` (the same seed, so the
same graph as the single-GPU benchmarks), made on the workers: each generates every edge
from the shared random streams with its share of the host's cores and keeps the rows of its
own block (rows cut evenly: the vertex ids are a random permutation, so the entries are
balanced too), so no process ever holds the whole graph and nothing crosses between workers
(see ``kron_block``).  Weights: the benchmarks' hashed
integer weights in [1, 255], FP32.

Timings (median of ``--repeat``): PageRank per iteration (``tol=0``, ``--iters``
iterations), BFS levels and SSSP from the highest-degree vertex, each algorithm run SPMD (one
task per worker per call); on 1 worker also the single-process algorithms on the same graph in
that worker (``single_process``), and on more the PageRank speedup over 1 worker of the same
scale where that ran first (``--strong 26:1,2,4``), and a call doing nothing
(``empty_call_s``: a call's fixed cost); memory: each worker's
device memory held by CuPy's pool after the runs (its peak, as the pool keeps what it
allocated).  Results go to benchmarks/results/dask.json (one record per configuration, added
to the file's list).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results" / "dask.json"


# ---------------------------------------------------------------- on the workers
SORT_KEYS = 1 << 28
"""Keys sorted at once at most (2 GiB: the GPU sort needs four times that free)."""


def kron_block(scale: int, seed: int, lo: int, hi: int, backend: str, nworkers: int = 1) -> Any:
    """Rows ``lo:hi`` of the symmetric Kronecker graph of :mod:`benchmarks.graphs` (FP32
    hashed weights), made here, so that no process ever holds the whole graph and nothing
    crosses between workers.

    A GPU worker draws every edge on its GPU, a chunk at a time, from the stream of
    :func:`~benchmarks.graphs.kronecker_on_gpu` and keeps those of its rows
    (:func:`~benchmarks.graphs.kronecker_rows_gpu`): the rows of the single-GPU graph of
    scale 27 and up (below, the single-GPU benchmarks draw NumPy's streams: another sample
    of the same distribution), built on the device (kron 28 on 4 workers: 2.15 G edges and
    a 17 GiB CSR each).  A CPU worker draws NumPy's streams (:func:`kron_block_host`): the
    rows of :func:`~benchmarks.graphs.kronecker_symmetric` below scale 27."""
    import grblas_gpu as gb
    from benchmarks import graphs

    n = 1 << scale
    whole = lo == 0 and hi == n  # (the whole graph, which is symmetric: a single process's peer knows it)
    if backend != "cupy":
        return kron_block_host(scale, seed, lo, hi, backend, nworkers)
    import cupy

    indptr, col, w = graphs.kronecker_rows_gpu(scale, seed, lo, hi)
    cupy.get_default_memory_pool().free_all_blocks()  # the draw's and the sort's scratch
    return gb.Matrix.from_csr(indptr, col, w, n, dtype=gb.FP32, backend=backend, copy=False,
                              symmetric=whole or None)


def kron_block_host(scale: int, seed: int, lo: int, hi: int, backend: str, nworkers: int = 1) -> Any:
    """Rows ``lo:hi`` of :func:`benchmarks.graphs.kronecker_symmetric` (below its GPU scale)
    made from NumPy's random streams on the host.

    Every worker draws every edge (drawing is cheaper than sending) with its share of the
    host's cores, keeps the edges of its rows, and sorts them in row ranges of at most
    :data:`SORT_KEYS` keys, so that its host memory stays about 2.5 times its keys."""
    from concurrent.futures import ThreadPoolExecutor

    import grblas_gpu as gb
    from benchmarks import graphs

    n = 1 << scale
    seq = np.random.SeedSequence(seed)
    perm_seq, chunk_seq = seq.spawn(2)
    perm = np.random.default_rng(perm_seq).permutation(n).astype(np.int32)
    total = n * graphs.EDGE_FACTOR
    starts = list(range(0, total, graphs.CHUNK_EDGES))
    seeds = chunk_seq.spawn(len(starts))
    nb = max(1, -(-2 * total * (hi - lo) // n // SORT_KEYS))  # row ranges sorted one at a time
    cuts = [lo + (hi - lo) * b // nb for b in range(nb + 1)]

    def one(i: int) -> list[np.ndarray]:
        m = min(graphs.CHUNK_EDGES, total - starts[i])
        src, dst = graphs.kronecker_chunk(scale, m, np.random.default_rng(seeds[i]), perm)
        keys = np.concatenate([graphs._keys(a[(a >= lo) & (a < hi)], b[(a >= lo) & (a < hi)], scale)
                               for a, b in ((src, dst), (dst, src))])
        if nb == 1:
            return [keys]
        rows = keys >> scale
        return [keys[(rows >= cuts[b]) & (rows < cuts[b + 1])] for b in range(nb)]

    threads = max(1, min(32, (os.cpu_count() or 1) // max(1, nworkers)))  # the host's cores shared by its workers
    with ThreadPoolExecutor(threads) as pool:
        pieces = list(pool.map(one, range(len(starts))))
    counts, cols, weights = [], [], []
    for b in range(nb):
        keys = graphs._unique_sorted(np.concatenate([p[b] for p in pieces]))
        for p in pieces:
            p[b] = p[b][:0]  # let go of this range's pieces
        rows = (keys >> scale).astype(np.int64)
        c = (keys & ((1 << scale) - 1)).astype(np.int32)
        del keys
        counts.append(np.bincount(rows - cuts[b], minlength=cuts[b + 1] - cuts[b]))
        weights.append(graphs.hash_weights(rows.astype(np.int32), c, seed))
        cols.append(c)
        del rows
    indptr = np.zeros(hi - lo + 1, dtype=np.int64)
    np.cumsum(np.concatenate(counts), out=indptr[1:])
    col = np.concatenate(cols)
    del cols
    w = np.concatenate(weights)
    del weights
    whole = lo == 0 and hi == n  # (the whole graph, which is symmetric: a single process's peer knows it)
    return gb.Matrix.from_csr(indptr, col, w, n, dtype=gb.FP32, backend=backend, symmetric=whole or None)


def _degree_top(block: Any, offset: int) -> tuple[int, int]:
    counts = np.diff(np.asarray(block.to_csr()[0]))
    if not len(counts):
        return -1, 0
    i = int(np.argmax(counts))
    return int(counts[i]), offset + i


def _single_process(A: Any, source: int, iters: int, repeat: int) -> dict[str, float]:
    """PageRank per iteration, BFS and SSSP of the worker's whole graph (a 1-worker layout's
    partition is an ordinary Matrix) by the single-process algorithms, in this worker: the
    peer of the distributed runs on the same graph and device."""
    from grblas_gpu.algorithms import bfs_levels, pagerank, sssp

    def synced(fn: Any) -> Any:
        def run() -> None:
            fn()
            _synchronize()  # a full vector's nvals is known without the device: wait for it
        return run

    pagerank(A, tol=0, max_iter=1)
    bfs_levels(A, source)
    sssp(A, source)
    out = {"pagerank_iter_s": _median(synced(lambda: pagerank(A, tol=0, max_iter=iters)), repeat) / iters,
           "pagerank_1iter_call_s": _median(synced(lambda: pagerank(A, tol=0, max_iter=1)), repeat),
           "bfs_s": _median(synced(lambda: bfs_levels(A, source)), repeat),
           "sssp_s": _median(synced(lambda: sssp(A, source)), repeat)}
    out["pagerank_iter_slope_s"] = _slope(out, iters)
    return out


def _nothing(A: Any) -> int:
    return 0


def empty_call(A: Any) -> int:
    """An SPMD call of a function doing nothing: its time is a call's fixed cost (the Dask
    round trip, as the algorithms' calls make it)."""
    from grblas_gpu.dask.spmd import run_spmd

    return run_spmd(A, _nothing, (), {}, "an empty call")


def _slope(rec: dict[str, float], iters: int) -> float:
    """PageRank per iteration without the call's fixed cost: (a call of ``iters`` iterations
    less a call of one) over ``iters - 1``."""
    total = rec["pagerank_iter_s"] * iters
    return (total - rec["pagerank_1iter_call_s"]) / max(1, iters - 1)


def _synchronize() -> None:
    """Wait for this worker's GPU, if it has one."""
    with contextlib.suppress(Exception):  # no CuPy or no driver: nothing runs behind the host
        import cupy

        cupy.cuda.Device().synchronize()


def _nbytes(block: Any) -> int:
    return int(block.nbytes)


def _reset_pool() -> None:
    try:
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
    except ImportError:
        pass


def _derived_bytes(block: Any) -> int:
    """Bytes of the partition's derived forms (cast values, transpose, plans) now kept."""
    return int(block.memory_usage()["derived"])


def _stage_memory(client: Any, A: Any) -> dict[str, list[int]]:
    """Each worker's device memory now: ``used`` (live arrays), ``held`` (CuPy's pool: the
    peak since the last reset, as the pool keeps what it allocated) and ``derived`` (the
    partition's derived forms); the pool is then emptied, so the next stage's ``held`` is its
    own peak."""
    from grblas_gpu.dask._local import memory_in_use

    ctx = A.layout.context
    mem = client.run(memory_in_use)
    derived = ctx.gather([ctx.submit(_derived_bytes, b, part=k) for k, b in enumerate(A.partitions)], "memory")
    client.run(_reset_pool)
    return {"used": [m["used"] for _, m in sorted(mem.items())], "held": [m["held"] for _, m in sorted(mem.items())],
            "derived": derived}


def check_bfs(A: Any, source: int) -> dict[str, Any]:
    """BFS levels from ``source`` of the symmetric distributed ``A`` checked by their
    invariants, with the distributed algebra driven from here: the source has level 0, every
    edge joins levels that differ by at most one, a vertex with a reached neighbour is
    reached, and every reached vertex but the source has a neighbour one level lower."""
    from grblas_gpu.algorithms import bfs_levels

    from grblas_gpu import binary, monoid, select, semiring

    L = bfs_levels(A, source)
    hi = A.mxv(L, semiring.max_second).new()  # each vertex's highest neighbour level
    lo = A.mxv(L, semiring.min_second).new()  # and lowest
    up = hi.ewise_mult(L, binary.minus).new()  # L[c] - L[r] over edges r-c, at its largest
    down = L.ewise_mult(lo, binary.minus).new()  # L[r] - L[c], at its largest
    reached = L.nvals
    out = {"reached": reached, "source_level": L.reduce(monoid.min).new().value,
           "max_up": up.reduce(monoid.max).new().value if up.nvals else 0,
           "max_down": down.reduce(monoid.max).new().value if down.nvals else 0,
           "unreached_with_reached_neighbour": hi.nvals - hi.ewise_mult(L, binary.first).new().nvals,
           "with_parent": down.select(select.valueeq, 1).new().nvals}
    out["ok"] = bool(out["source_level"] == 0 and out["max_up"] <= 1 and out["max_down"] <= 1
                     and out["unreached_with_reached_neighbour"] == 0 and out["with_parent"] == reached - 1)
    return out


def check_pagerank(A: Any, alpha: float = 0.85, change: float = 1e-6, max_iter: int = 200,
                   limit: float | None = None) -> dict[str, Any]:
    """PageRank of the symmetric distributed ``A`` run to a total change below ``change``,
    checked by its invariants with the distributed algebra driven from here: the ranks sum
    to 1, and they satisfy the update equation ``x = alpha A' (x / w) + (alpha * dangling
    mass + 1 - alpha) / n`` (``w`` the out-weights) to within ``limit`` (L1; ten times
    ``change`` where None)."""
    import time as _time

    from grblas_gpu.algorithms import pagerank

    from grblas_gpu import FP64, binary, monoid, semiring, unary

    n = A.nrows
    t0 = _time.perf_counter()
    x = pagerank(A, alpha=alpha, tol=change / n, max_iter=max_iter)
    seconds = _time.perf_counter() - t0
    total = x.reduce().new().value
    w = A.reduce_rowwise(monoid.plus[FP64]).new()
    s = x.ewise_mult(w, binary.truediv).new().apply(binary.times, right=alpha).new()
    dangling = total - x.ewise_mult(w, binary.first).new().reduce().new().value
    c = (alpha * dangling + 1 - alpha) / n
    y = A.mxv(s, semiring.plus_times[FP64]).new()  # A' s = A s: A is symmetric
    r = x.ewise_union(y, binary.minus, 0.0, 0.0).new().apply(binary.minus, right=c).new()
    residual = r.apply(unary.abs).new().reduce().new().value
    out = {"seconds": round(seconds, 3), "sum": total, "residual_l1": residual, "change": change,
           "entries": x.nvals}
    limit = 10 * change if limit is None else limit
    out["ok"] = bool(abs(total - 1) < 1e-6 and residual < limit and x.nvals == n)
    return out


# ---------------------------------------------------------------- the client's side
def _graph(client: Any, scale: int, seed: int) -> Any:
    import grblas_gpu.dask as gd
    from grblas_gpu.dask.layout import Layout, context_for, even_offsets
    from grblas_gpu.dask.partition import pick_workers

    ctx = context_for(client, pick_workers(client, None))
    n = 1 << scale
    offs = even_offsets(n, len(ctx.workers))
    blocks = [ctx.submit(kron_block, scale, seed, offs[k], offs[k + 1], ctx.backend, len(ctx.workers), part=k)
              for k in range(len(ctx.workers))]
    ctx.wait(blocks, "kron")
    import grblas_gpu as gb

    return gd.DistMatrix._make(Layout(ctx, offs), gb.FP32, blocks, f"kron{scale}-sym", ncols=n, symmetric=True)


def _set_forms(edge_rule: bool, gather_push: bool | None) -> None:
    from grblas_gpu.dask import objects

    objects.EDGE_RULE, objects.GATHER_PUSH = edge_rule, gather_push


def _vertex_rule(client: Any, A: Any, source: int, repeat: int) -> dict[str, float]:
    """BFS and SSSP with each product's form chosen by the frontier's share of vertices alone
    (a sparse frontier pushed from the workers' rows, a dense one gathered and pulled), as
    before the edge rule and the gathered push."""
    from grblas_gpu.algorithms import bfs_levels, sssp

    client.run(_set_forms, False, False)
    try:
        bfs_levels(A, source)
        out = {"bfs_s": _median(lambda: bfs_levels(A, source), repeat), "sssp_s": _median(lambda: sssp(A, source), repeat)}
    finally:
        client.run(_set_forms, True, None)
    print(f"       forms by the share of vertices alone: BFS {out['bfs_s'] * 1e3:.1f} ms | SSSP {out['sssp_s'] * 1e3:.1f} ms",
          flush=True)
    return out


def _print_profile(prof: dict[str, Any]) -> None:
    for alg, p in prof.items():
        for k, phases in enumerate(p["phases"]):
            line = ", ".join(f"{name} {v['count']}x {v['s'] * 1e3:.2f} ms" for name, v in phases.items())
            print(f"       profile {alg} (call {p['call_s'] * 1e3:.1f} ms, synchronized per phase) worker {k}: {line}",
                  flush=True)
        if alg == "bfs":
            seq = " ".join(f"{name}:{ms:.2f}" + (f"[{size}]" if size is not None else "")
                           for name, ms, size in p["sequence"][0])
            print(f"       bfs phases on worker 0, in order (ms): {seq}", flush=True)


def _median(fn: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def actor_times(A: Any, source: int, iters: int, repeat: int) -> dict[str, dict[str, float]]:
    """The calls' times through tasks and through the workers' actors (``grblas_gpu.dask.actors``),
    alternated call by call in this process: an empty call, a 1-iteration and an
    ``iters``-iteration PageRank call, a BFS; medians of ``repeat`` each."""
    from grblas_gpu.algorithms import bfs_levels, pagerank

    from grblas_gpu.dask import actors

    calls = {"empty_call_s": lambda: empty_call(A), "pagerank_1iter_call_s": lambda: pagerank(A, tol=0, max_iter=1),
             f"pagerank_{iters}iter_call_s": lambda: pagerank(A, tol=0, max_iter=iters),
             "bfs_s": lambda: bfs_levels(A, source)}
    times: dict[str, dict[str, list[float]]] = {way: {name: [] for name in calls} for way in ("tasks", "actors")}
    before = actors.ENABLED
    try:
        for r in range(repeat + 1):  # (the first round warms both ways: the actors made)
            for name, call in calls.items():
                for way in ("tasks", "actors"):
                    actors.ENABLED = way == "actors"
                    t0 = time.perf_counter()
                    call()
                    if r:
                        times[way][name].append(time.perf_counter() - t0)
    finally:
        actors.ENABLED = before
    out = {way: {name: statistics.median(ts) for name, ts in got.items()} for way, got in times.items()}
    print("       through tasks / actors (ms): " + ", ".join(
        f"{name[:-2]} {out['tasks'][name] * 1e3:.2f} / {out['actors'][name] * 1e3:.2f}" for name in calls), flush=True)
    return out


def run_config(scale: int, workers: int, gpu: bool, args: argparse.Namespace) -> dict:
    """One graph on one cluster: build, then the three algorithms."""
    from distributed import Client
    from grblas_gpu.algorithms import bfs_levels, pagerank, sssp

    from grblas_gpu.dask.cluster import local_cluster

    rec: dict[str, Any] = {"scale": scale, "workers": workers, "device": "gpu" if gpu else "cpu"}
    with local_cluster(workers, gpu=gpu) as cluster, Client(cluster) as client:
        t0 = time.perf_counter()
        A = _graph(client, scale, args.seed)
        rec["build_s"] = round(time.perf_counter() - t0, 3)
        rec["edges"] = A.nvals
        mem: dict[str, Any] = {"build": _stage_memory(client, A)}  # (the pool emptied: the stages below are the runs')
        rec["memory_stages"] = mem
        ctx = A.layout.context
        rec["matrix_bytes_per_worker"] = ctx.gather([ctx.submit(_nbytes, b, part=k) for k, b in enumerate(A.partitions)],
                                                    "nbytes")
        rec["backend"], rec["exchange"] = ctx.backend, ctx.exchange
        tops = ctx.gather([ctx.submit(_degree_top, b, A.layout.offsets[k], part=k)
                           for k, b in enumerate(A.partitions)], "degrees")
        source = max(tops)[1]
        pagerank(A, tol=0, max_iter=1)  # warm: kernels compiled, weights kept with A
        rec["pagerank_iter_s"] = _median(lambda: pagerank(A, tol=0, max_iter=args.iters), args.repeat) / args.iters
        rec["pagerank_1iter_call_s"] = _median(lambda: pagerank(A, tol=0, max_iter=1), args.repeat)  # a call's fixed cost
        rec["pagerank_iter_slope_s"] = _slope(rec, args.iters)
        empty_call(A)
        rec["empty_call_s"] = _median(lambda: empty_call(A), max(args.repeat, 5))  # the Dask round trip alone
        if args.actors:
            rec["actors"] = actor_times(A, source, args.iters, max(args.repeat, 5))
        mem["pagerank"] = _stage_memory(client, A)
        bfs_levels(A, source)
        rec["bfs_s"] = _median(lambda: bfs_levels(A, source), args.repeat)
        mem["bfs"] = _stage_memory(client, A)
        sssp(A, source)
        rec["sssp_s"] = _median(lambda: sssp(A, source), args.repeat)
        mem["sssp"] = _stage_memory(client, A)
        if workers > 1 and getattr(args, "forms", False):
            rec["vertex_rule"] = _vertex_rule(client, A, source, args.repeat)
        if workers > 1 and getattr(args, "profile", False):
            from benchmarks.dask_profile import profile_call

            rec["profile"] = {"bfs": profile_call(client, lambda: bfs_levels(A, source)),
                              "sssp": profile_call(client, lambda: sssp(A, source)),
                              "pagerank": profile_call(client, lambda: pagerank(A, tol=0, max_iter=3))}
            _print_profile(rec["profile"])
        if scale in args.compare:  # the results kept, to compare with another worker count's
            rec["compare"] = _compare(A, source, scale, workers, args.iters)
        if scale in args.check:  # the results checked by their invariants
            rec["check_bfs"] = check_bfs(A, source)
            rec["check_pagerank"] = check_pagerank(A)
            mem["checks"] = _stage_memory(client, A)
            _print_checks(rec)
        if args.client_driven:  # the same algorithms with every statement driven from here (interactive use)
            rec["client_driven"] = {
                "pagerank_iter_s": _median(lambda: pagerank.__wrapped__(A, tol=0, max_iter=args.iters), 1) / args.iters,
                "bfs_s": _median(lambda: bfs_levels.__wrapped__(A, source), 1),
                "sssp_s": _median(lambda: sssp.__wrapped__(A, source), 1)}
        if workers == 1:  # the single-process algorithms on the same graph, for the ratio
            rec["single_process"] = ctx.gather([ctx.submit(_single_process, A.partitions[0], source, args.iters,
                                                           args.repeat, part=0)], "single process")[0]
            mem["single_process"] = _stage_memory(client, A)
        held = [max(stage["held"][k] for stage in mem.values()) for k in range(workers)]
        rec["device_bytes_per_worker"] = held  # each worker's peak over the stages
        rec["device_used_per_worker"] = mem["sssp"]["used"]  # live after the runs: the matrix and what it keeps
    return rec


COMPARE_DIR = Path(os.environ.get("TMPDIR", "/tmp")) / "grblas_gpu_dask_compare"


def _compare(A: Any, source: int, scale: int, workers: int, iters: int) -> dict[str, Any]:
    """BFS levels, SSSP distances and PageRank (``iters`` iterations, ``tol=0``) gathered here
    and kept in :data:`COMPARE_DIR`, then compared with those of every other worker count of
    this scale kept there: levels and distances exactly, ranks by their largest relative
    difference."""
    from grblas_gpu.algorithms import bfs_levels, pagerank, sssp

    n = A.nrows
    idx, lev = bfs_levels(A, source).to_coo()
    levels = np.full(n, -1, dtype=np.int64)
    levels[idx] = lev
    idx, val = pagerank(A, tol=0, max_iter=iters).to_coo()
    ranks = np.zeros(n, dtype=np.float64)
    ranks[idx] = val
    idx, val = sssp(A, source).to_coo()
    dist = np.full(n, np.inf, dtype=np.float64)
    dist[idx] = val
    COMPARE_DIR.mkdir(parents=True, exist_ok=True)
    np.savez(COMPARE_DIR / f"kron{scale}x{workers}.npz", levels=levels, ranks=ranks, dist=dist)
    out: dict[str, Any] = {}
    for other in sorted(COMPARE_DIR.glob(f"kron{scale}x*.npz")):
        w = int(other.stem.split("x")[-1])
        if w == workers:
            continue
        kept = np.load(other)
        rel = np.abs(kept["ranks"] - ranks) / np.maximum(np.abs(kept["ranks"]), 1e-300)
        same = {"bfs_levels_equal": bool(np.array_equal(kept["levels"], levels)),
                "sssp_equal": bool(np.array_equal(kept["dist"], dist)), "pagerank_max_rel_diff": float(rel.max())}
        out[f"vs_{w}_workers"] = same
        print(f"       kron{scale} x{workers} against x{w}: BFS levels {'equal' if same['bfs_levels_equal'] else 'DIFFER'}, "
              f"SSSP distances {'equal' if same['sssp_equal'] else 'DIFFER'}, PageRank largest relative difference "
              f"{rel.max():.2e}", flush=True)
    return out


def _print_checks(rec: dict) -> None:
    b, p = rec["check_bfs"], rec["check_pagerank"]
    print(f"       check BFS: {'ok' if b['ok'] else 'FAILED'} ({b['reached']:,} reached, edges join levels "
          f"differing by <= {max(b['max_up'], b['max_down'])}, {b['with_parent']:,} with a parent one level "
          f"lower, {b['unreached_with_reached_neighbour']} unreached beside reached) | check PageRank: "
          f"{'ok' if p['ok'] else 'FAILED'} (sum {p['sum']:.12f}, update-equation residual {p['residual_l1']:.2e} "
          f"(L1) after a change < {p['change']:g}, {p['seconds']:.1f} s)", flush=True)


def _parse(spec: str) -> list[tuple[int, list[int]]]:
    """``"25:1,2;26:2"`` -> [(25, [1, 2]), (26, [2])]."""
    out = []
    for part in filter(None, spec.replace(" ", "").split(";")):
        scale, counts = part.split(":")
        out.append((int(scale), [int(c) for c in counts.split(",")]))
    return out


def _gpu_count() -> int:
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 - no CuPy or no driver: no GPU
        return 0


def main(argv: list[str] | None = None) -> list[dict]:
    """Run the configurations, print a table and add the records to the results file."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--strong", default=None, help='"scale:workers,..;..." (default 25:1,2,<all GPUs>)')
    p.add_argument("--weak", default=None, help='"scale:workers;..." (default 25:1;26:2)')
    p.add_argument("--cpu", action="store_true", help="CPU workers (NumPy backend)")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--client-driven", action="store_true",
                   help="also time the algorithms driven statement by statement from the client (once each)")
    p.add_argument("--check", default="", help='scales whose BFS and PageRank are checked by their invariants ("28,27")')
    p.add_argument("--compare", default="",
                   help='scales whose BFS levels and PageRank are compared across worker counts ("26")')
    p.add_argument("--profile", action="store_true",
                   help="time the phases of one BFS and one SSSP call on each worker (benchmarks.dask_profile)")
    p.add_argument("--forms", action="store_true",
                   help="also time BFS and SSSP with the products' form chosen by the frontier's share of vertices alone")
    p.add_argument("--actors", action="store_true",
                   help="also time the calls through the workers' actors, alternated with tasks (grblas_gpu.dask.actors)")
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args(argv)
    args.check = {int(x) for x in args.check.replace(" ", "").split(",") if x}
    args.compare = {int(x) for x in args.compare.replace(" ", "").split(",") if x}
    _quiet_dask()
    gpu = not args.cpu
    if not gpu:
        os.environ["GRBLAS_GPU_BACKEND"] = "numpy"
    ngpu = _gpu_count() if gpu else 2
    if gpu and ngpu == 0:
        raise SystemExit("no GPU here: use --cpu")
    strong = args.strong if args.strong is not None else f"25:{','.join(str(x) for x in sorted({1, 2, ngpu}))}"
    weak = args.weak if args.weak is not None else "25:1;26:2"
    records: list[dict] = []
    done: dict[tuple[int, int], dict] = {}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    old = json.loads(out.read_text()) if out.exists() else []
    for kind, spec in (("strong", strong), ("weak", weak)):
        for scale, counts in _parse(spec):
            for w in counts:
                if gpu and w > ngpu:
                    print(f"skip kron {scale} on {w} GPUs: {ngpu} here")
                    continue
                rec = done.get((scale, w)) or _run_or_record(scale, w, gpu, args)
                done[(scale, w)] = rec
                records.append({**rec, "study": kind})
                _speedups(old + records)
                if "error" in rec:
                    out.write_text(json.dumps(old + records, indent=1) + "\n")
                    continue
                _print(records[-1])
                if w == 1:  # those that ran before it
                    for r in old + records[:-1]:
                        if r["scale"] == scale and "pagerank_speedup_vs_1" in r:
                            print(f"       kron{scale} x{r['workers']}: PageRank per iteration "
                                  f"{r['pagerank_speedup_vs_1']:.2f}x faster than on 1 worker (without the "
                                  f"call's fixed cost {r.get('pagerank_slope_speedup_vs_1', 0):.2f}x)", flush=True)
                out.write_text(json.dumps(old + records, indent=1) + "\n")  # as each comes: a cut run keeps them
    return records


def _quiet_dask() -> None:
    """Dask's INFO log lines off, here and in the workers it starts (``DASK_LOGGING__DISTRIBUTED``
    where not set already): each cluster's start and stop, and the tracebacks of the
    connections it closes as it shuts down (``CommClosedError``, logged by Dask at INFO), which
    are not errors.  Warnings and errors still show."""
    import logging

    level = os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")
    logging.getLogger("distributed").setLevel(level.upper())


def _run_or_record(scale: int, workers: int, gpu: bool, args: argparse.Namespace) -> dict:
    """:func:`run_config`, or where it fails a record of the error (the next configurations still run)."""
    import traceback

    try:
        return run_config(scale, workers, gpu, args)
    except Exception as exc:  # noqa: BLE001 - any failure is reported, and the others run
        traceback.print_exc()
        print(f"kron{scale} x{workers}: FAILED ({type(exc).__name__}: {exc})", flush=True)
        return {"scale": scale, "workers": workers, "device": "gpu" if gpu else "cpu",
                "error": f"{type(exc).__name__}: {exc}"}


def _speedups(records: list[dict]) -> None:
    """PageRank per iteration against 1 worker of the same scale and device, wherever both ran
    (in any order; the records of the results file given with ``--out`` count too)."""
    ones = {(r["scale"], r["device"]): r for r in records if r["workers"] == 1 and "pagerank_iter_s" in r}
    for r in records:
        one = ones.get((r["scale"], r["device"]))
        if one is not None and r["workers"] > 1 and "pagerank_iter_s" in r:
            r["pagerank_speedup_vs_1"] = round(one["pagerank_iter_s"] / r["pagerank_iter_s"], 3)
            a, b = one.get("pagerank_iter_slope_s", 0.0), r.get("pagerank_iter_slope_s", 0.0)
            if a > 0 and b > 0:
                r["pagerank_slope_speedup_vs_1"] = round(a / b, 3)


def _print(r: dict) -> None:
    mem = ", ".join(f"{b / 2**30:.2f}" for b in r["device_bytes_per_worker"])
    print(f"{r['study']:6s} kron{r['scale']} x{r['workers']} {r['device']} ({r['exchange']}): "
          f"{r['edges']:,} edges, build {r['build_s']:.1f} s | PageRank/iter {r['pagerank_iter_s'] * 1e3:.2f} ms | "
          f"BFS {r['bfs_s'] * 1e3:.1f} ms | SSSP {r['sssp_s'] * 1e3:.1f} ms | device GiB per worker [{mem}] | "
          f"a 1-iteration PageRank call {r['pagerank_1iter_call_s'] * 1e3:.1f} ms, PageRank/iter without it "
          f"{r['pagerank_iter_slope_s'] * 1e3:.2f} ms | an empty call {r.get('empty_call_s', 0) * 1e3:.1f} ms", flush=True)
    stages = " | ".join(f"{k} " + ",".join(f"{u / 2**30:.1f}/{h / 2**30:.1f}/{d / 2**30:.1f}"
                                          for u, h, d in zip(m["used"], m["held"], m["derived"], strict=True))
                        for k, m in r.get("memory_stages", {}).items())
    print(f"       device GiB used/peak/derived per worker after each stage: {stages}", flush=True)
    if "single_process" in r:
        sp = r["single_process"]
        print(f"       single process, same graph and device: PageRank/iter {sp['pagerank_iter_s'] * 1e3:.2f} ms | "
              f"BFS {sp['bfs_s'] * 1e3:.1f} ms | SSSP {sp['sssp_s'] * 1e3:.1f} ms | a 1-iteration PageRank call "
              f"{sp['pagerank_1iter_call_s'] * 1e3:.1f} ms, PageRank/iter without it {sp['pagerank_iter_slope_s'] * 1e3:.2f} ms",
              flush=True)
    if "client_driven" in r:
        cd = r["client_driven"]
        print(f"       driven from the client: PageRank/iter {cd['pagerank_iter_s'] * 1e3:.2f} ms | "
              f"BFS {cd['bfs_s'] * 1e3:.1f} ms | SSSP {cd['sssp_s'] * 1e3:.1f} ms", flush=True)
    if "pagerank_speedup_vs_1" in r:
        print(f"       PageRank per iteration {r['pagerank_speedup_vs_1']:.2f}x faster than on 1 worker (without the "
              f"call's fixed cost {r.get('pagerank_slope_speedup_vs_1', 0):.2f}x)", flush=True)


if __name__ == "__main__":
    main()
