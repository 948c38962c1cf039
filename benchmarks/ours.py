"""Measurements of grblas_gpu: mxv under several semirings, algorithms, launch floors, memory.

Each function returns a list of result records (plain dicts) and, where a peer can check
it, our output as a NumPy array in ``outputs``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import grblas_gpu as gb
from grblas_gpu import semiring

from .graphs import Graph, from_edges
from .timing import PeakMemory, measure, measure_paired

FP_SEMIRINGS = ("min_plus", "max_min", "plus_times")
BOOL_SEMIRINGS = ("any_pair", "lor_land")
FILL = {"min_plus": np.inf, "max_min": -np.inf, "plus_times": 0.0}


@dataclass
class Config:
    """Settings shared by every measurement."""

    backend: str = "numpy"
    warmup: int = 2
    repeat: int = 10
    budget_s: float = 3.0
    pr_iters: int = 20
    launches_per_level: int = 4

    @property
    def gpu(self) -> bool:
        """True when timing GPU work."""
        return self.backend == "cupy"

    def measure(self, fn: Callable[[], Any], **kw: Any) -> dict:
        """:func:`timing.measure` with this configuration."""
        opts = {"gpu": self.gpu, "warmup": self.warmup, "repeat": self.repeat,
                "budget_s": self.budget_s, **kw}
        return measure(fn, **opts)


def record(graph: str, op: str, impl: str, timing: dict | None = None, **extra: Any) -> dict:
    """One row of the results."""
    return {"graph": graph, "op": op, "impl": impl, **(timing or {}), **extra}


def matrix(g: Graph, backend: str, dtype: str = "FP32") -> gb.Matrix:
    """The graph as a grblas_gpu Matrix (BOOL: pattern only)."""
    values: Any = True if dtype == "BOOL" else g.weights
    return gb.Matrix.from_csr(g.indptr, g.indices, values, ncols=g.n, dtype=dtype, backend=backend,
                              symmetric=g.symmetric)


def dense_x(n: int, seed: int = 7) -> np.ndarray:
    """The dense input vector used by every mxv (ours and peers): uniform in [0, 1)."""
    return np.random.default_rng(seed).random(n, dtype=np.float32)


def _mxv_runner(A: gb.Matrix, x: gb.Vector, out: gb.Vector, sr: Any) -> Callable[[], None]:
    def run() -> None:
        out << A.mxv(x, sr)
    return run


def bench_mxv(g: Graph, cfg: Config, outputs: dict, peer: Callable[[], Any] | None = None) -> list[dict]:
    """mxv with a dense vector into a preallocated output, FP32 and BOOL semirings; with
    ``peer`` (cuSPARSE's SpMV of the graph), each timed in turn with it (``peer_ratio``)."""
    rows: list[dict] = []
    xs = dense_x(g.n)
    for dtype, names in (("FP32", FP_SEMIRINGS), ("BOOL", BOOL_SEMIRINGS)):
        A = matrix(g, cfg.backend, dtype)
        xv = xs if dtype == "FP32" else xs > 0.5
        x = gb.Vector.from_dense(xv, dtype=dtype, backend=cfg.backend)
        out = gb.Vector(getattr(gb, dtype), g.n, backend=cfg.backend)
        for name in names:
            run = _mxv_runner(A, x, out, getattr(semiring, name))
            rows.append(_guarded(g.name, f"mxv_{name}", lambda: _timed_mxv(cfg, run, peer)))
            if dtype == "FP32" and rows[-1].get("median_s") is not None:
                outputs[f"mxv_{name}"] = out.to_dense(fill_value=FILL[name])
        del A, x, out
    return rows


def _timed_mxv(cfg: Config, run: Callable[[], None], peer: Callable[[], Any] | None) -> dict:
    if peer is None:
        return cfg.measure(run)
    return measure_paired(run, peer, gpu=cfg.gpu, warmup=cfg.warmup, repeat=max(cfg.repeat, 30),
                          budget_s=cfg.budget_s)


def _guarded(graph: str, op: str, fn: Callable[[], dict], impl: str = "ours") -> dict:
    """Run a measurement; an exception becomes an ``error`` field instead of a crash."""
    try:
        return record(graph, op, impl, fn())
    except Exception as exc:  # noqa: BLE001 - a failing op must not stop the suite
        return record(graph, op, impl, error=f"{type(exc).__name__}: {exc}"[:300])


def _algorithm(name: str) -> Callable[..., Any]:
    """``grblas_gpu.algorithms.<name>`` (raises ImportError/AttributeError if not there)."""
    import grblas_gpu.algorithms as alg

    return getattr(alg, name)


def run_pagerank(A: gb.Matrix, iters: int, dtype: str = "FP64") -> gb.Vector:
    """Our PageRank for exactly ``iters`` iterations (tol=0), unweighted, in ``dtype``."""
    return _algorithm("pagerank")(A, tol=0, max_iter=iters, weight=False, dtype=dtype)


def bench_pagerank(g: Graph, cfg: Config, outputs: dict, mem: list) -> list[dict]:
    """PageRank time per iteration (``cfg.pr_iters`` iterations, divided), in FP64 (the
    default, networkx's precision) and FP32 (the peer's)."""
    A = matrix(g, cfg.backend)
    k = cfg.pr_iters

    def timed(dtype: str) -> dict:
        t = cfg.measure(lambda: run_pagerank(A, k, dtype), warmup=1, repeat=max(3, cfg.repeat // 3))
        if dtype == "FP64":
            outputs["pagerank"] = run_pagerank(A, k).to_dense(fill_value=0.0)
            _track_memory(cfg, g, "pagerank", lambda: run_pagerank(A, k), mem)
        return {**{f"{key}": v / k if key.endswith("_s") else v for key, v in t.items()},
                "iterations": k, "per": "iteration", "dtype": dtype}

    return [_guarded(g.name, "pagerank", lambda: timed("FP64")),
            _guarded(g.name, "pagerank_fp32", lambda: timed("FP32"))]


def _levels_of(v: gb.Vector) -> int:
    """Number of BFS levels (largest level + 1) in a levels vector."""
    _, vals = v.to_coo()
    return int(np.max(vals)) + 1 if len(vals) else 0


def bench_traversal(g: Graph, cfg: Config, outputs: dict, mem: list,
                    source: int | None = None) -> list[dict]:
    """BFS levels and SSSP from the highest-degree vertex (``g`` should be symmetric)."""
    src = g.max_degree_vertex() if source is None else source
    A = matrix(g, cfg.backend)
    rows = []
    for op, name in (("bfs", "bfs_levels"), ("sssp", "sssp")):
        def timed(name: str = name, op: str = op) -> dict:
            fn = _algorithm(name)
            t = cfg.measure(lambda: fn(A, src), warmup=1, repeat=max(3, cfg.repeat // 2))
            res = fn(A, src)
            idx, vals = res.to_coo()
            outputs[op] = (np.asarray(idx), np.asarray(vals))
            _track_memory(cfg, g, op, lambda: fn(A, src), mem)
            extra = {"source": src, "reached": len(idx)}
            if op == "bfs":
                extra["levels"] = _levels_of(res)
            return {**t, **extra}
        rows.append(_guarded(g.name, op, timed))
    return rows


def _track_memory(cfg: Config, g: Graph, algo: str, fn: Callable[[], Any], mem: list) -> None:
    """Peak GPU memory of one run of ``fn`` (CuPy backend only)."""
    if not cfg.gpu:
        return
    tracker = PeakMemory()
    with tracker.track():
        fn()
    mem.append({"graph": g.name, "algorithm": algo, "graph_csr_bytes": g.nbytes,
                "edges": g.nnz, **tracker.summary()})


def launch_floor(levels: int, cfg: Config) -> dict:
    """Time of ``levels`` rounds of minimal work: ``launches_per_level`` empty ops + one
    device-to-host scalar read (a level-synchronous loop's convergence test)."""
    per = cfg.launches_per_level
    if cfg.gpu:
        import cupy

        kern = cupy.RawKernel('extern "C" __global__ void noop() {}', "noop")
        flag = cupy.zeros(1, dtype=cupy.int32)

        def run() -> None:
            for _ in range(levels):
                for _ in range(per):
                    kern((1,), (1,), ())
                int(flag[0])
    else:
        flag = np.zeros(1, dtype=np.int32)

        def run() -> None:
            for _ in range(levels):
                for _ in range(per):
                    np.add(flag, 0, out=flag)
                int(flag[0])
    t = cfg.measure(run, warmup=1, repeat=5, wall=True)
    return {**t, "levels": levels, "launches_per_level": per,
            "per_level_s": t["median_s"] / max(levels, 1)}


def sssp_rounds(g: Graph, source: int, dist: np.ndarray | None = None) -> int | None:
    """Frontier Bellman-Ford rounds, estimated as 1 + the deepest hop count of a
    shortest-path tree (scipy dijkstra predecessors, pointer jumping)."""
    try:
        import scipy.sparse as sp
        from scipy.sparse.csgraph import dijkstra
    except ImportError:
        return None
    M = sp.csr_matrix((g.weights, g.indices, g.indptr), shape=(g.n, g.n))
    _, pred = dijkstra(M, indices=source, return_predecessors=True)
    parent = np.where(pred >= 0, pred, np.arange(g.n))
    depth = (pred >= 0).astype(np.int64)
    while True:  # pointer jumping: depth += depth[parent]; parent = parent[parent]
        nxt = parent[parent]
        depth = depth + depth[parent]
        if np.array_equal(nxt, parent):
            break
        parent = nxt
    return int(depth.max()) + 1


def small_mxv(cfg: Config) -> list[dict]:
    """A plus_times and a min_plus mxv on a 1,000-vertex graph, end to end and warm
    (wall clock around the whole call, synchronized).  The median of 4,000 calls: about a
    tenth of a second, for the host's speed drifts by a quarter over fractions of a second."""
    rng = np.random.default_rng(3)
    n = 1000
    src, dst = rng.integers(0, n, 16 * n), rng.integers(0, n, 16 * n)
    g = from_edges("random1000", "random", src, dst, n, symmetric=False)
    A = matrix(g, cfg.backend)
    x = gb.Vector.from_dense(dense_x(n), dtype="FP32", backend=cfg.backend)
    out = gb.Vector(gb.FP32, n, backend=cfg.backend)
    rows = []
    for name in ("plus_times", "min_plus"):
        run = _mxv_runner(A, x, out, getattr(semiring, name))
        rows.append(_guarded(g.name, f"small_mxv_{name}",
                             lambda: cfg.measure(run, warmup=1000, repeat=4000, wall=True)))
    return rows


_COLD_SCRIPT = r"""
import json, sys, time
import numpy as np
import grblas_gpu as gb
from grblas_gpu import semiring
backend = sys.argv[1]
def sync():
    if backend == "cupy":
        import cupy; cupy.cuda.runtime.deviceSynchronize()
rng = np.random.default_rng(3); n = 1000
r, c = rng.integers(0, n, 16 * n), rng.integers(0, n, 16 * n)
A = gb.Matrix.from_coo(r, c, 1.0, nrows=n, ncols=n, dtype="FP32", dup_op=gb.binary.min, backend=backend)
x = gb.Vector.from_dense(np.ones(n, np.float32), backend=backend)
w = gb.Vector(gb.FP32, n, backend=backend)
out = {}
for name in ("max_min", "plus_times"):
    times = []
    for _ in range(3):
        sync(); t0 = time.perf_counter(); w << A.mxv(x, getattr(semiring, name)); sync()
        times.append(time.perf_counter() - t0)
    out[name] = {"first_s": times[0], "second_s": times[1], "third_s": times[2]}
print(json.dumps(out))
"""


def cold_warm(cfg: Config) -> list[dict]:
    """First-use cost of an mxv in a fresh process: with an empty kernel cache (cold: compiles)
    and again with the cache the first process filled (warm process start)."""
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "CUPY_CACHE_DIR": cache, "GRBLAS_GPU_CACHE_DIR": cache,
               "GRBLAS_GPU_BACKEND": cfg.backend}
        for label in ("cold_process", "warm_process"):
            try:
                res = subprocess.run([sys.executable, "-c", _COLD_SCRIPT, cfg.backend], env=env,
                                     capture_output=True, text=True, timeout=300, check=True)
                data = json.loads(res.stdout.strip().splitlines()[-1])
                for sr, t in data.items():
                    rows.append(record("random1000", f"first_use_mxv_{sr}", "ours",
                                       median_s=t["first_s"], runs=1, timer="wall+sync",
                                       process=label, **t))
            except Exception as exc:  # noqa: BLE001
                err = getattr(exc, "stderr", "") or str(exc)
                rows.append(record("random1000", "first_use_mxv", "ours", process=label,
                                   error=err.strip().splitlines()[-1][:300] if err.strip() else repr(exc)))
    return rows
