"""``python -m benchmarks.memory``: the memory a loaded Matrix holds and each algorithm's peak.

For each Kronecker scale given (the directed GAP graph, as :mod:`benchmarks.large` builds
it, or with ``--symmetric`` the symmetric one of :func:`graphs.kronecker_symmetric`, declared
symmetric when loaded; default 22 to 27 on a GPU, 8 to 12 on the CPU) it reports

* the CSR bytes: int64 indptr, int32 indices, float32 values;
* the Matrix at rest: bytes held by the loaded FP32 Matrix (the CuPy memory pool's used
  bytes after construction on the GPU; traced host memory, tracemalloc, on the CPU), and the
  peak while loading;
* for ``bfs_levels``, ``sssp`` (from the highest-degree vertex), ``pagerank`` (tol=0,
  unweighted), ``pagerank_weighted`` (tol=0, the default call: the FP32 weights read by an
  FP64 product) and ``connected_components``: the peak beyond the loaded matrix (the pool's
  high-water mark of used bytes, sampled at every allocation, on the GPU; the tracemalloc
  peak on the CPU), as bytes and as a multiple of the CSR, the wall time of the run
  (kernels compiled beforehand on a small graph), and what the run left kept with the
  matrix (``A.memory_usage()["derived"]``: plans, row lengths, PageRank's weights, a cast
  copy of the values where one is made), so the matrix after the run is at rest plus that.
  Each algorithm starts from the matrix at rest (``free_derived()`` first): a transpose it
  needs counts in its own peak.

With ``--repeat N`` each algorithm then runs N more times from the matrix at rest and N times
with what the previous run left (a transpose built, plans): the medians are ``fresh s`` and
``kept s``.

With ``--trace`` (GPU) each algorithm's allocations of at least 1% of the CSR are also
grouped by where they were made (the innermost frames in the package and in the algorithm):
how many, the largest and their total, and which made the peak.

``--algorithms`` runs some of them only (``--algorithms pagerank,pagerank_weighted``), and
``--gpu-build SCALE`` draws the symmetric graph on the GPU from that scale (NumPy takes
minutes to draw kron 26's 2 G edges; a GPU build takes seconds).

The run stops after the first scale where building, loading, BFS, SSSP or PageRank fails
(the error is reported) and names the largest scale that ran BFS, SSSP and PageRank.
Results go to ``memory.json`` and ``memory.md`` in ``--out`` (``memory-TAG.*`` with ``--tag``),
written again after every scale, so a run cut short keeps the scales it finished.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import platform
import statistics
import sys
import time
import traceback
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from . import graphs, large
from .timing import PeakMemory, device_sync

ALGORITHMS = ("bfs_levels", "sssp", "pagerank", "pagerank_weighted", "connected_components")
REQUIRED = ("bfs_levels", "sssp", "pagerank")
SELECTED: tuple[str, ...] = ALGORITHMS
"""The algorithms run (``--algorithms``): the others are left out of the warm-up and the rows."""
GIB = 1 << 30


class HostPeak:
    """The tracemalloc counterpart of :class:`timing.PeakMemory` (host memory, CPU backend).

    Tracing must be on (:func:`tracemalloc.start`) before the bytes to count are allocated.
    """

    def __init__(self) -> None:
        self.base_used = 0
        self.peak_used = 0

    @contextmanager
    def track(self) -> Iterator[HostPeak]:
        """Record the peak of the traced memory inside the ``with`` block."""
        tracemalloc.reset_peak()
        self.base_used = tracemalloc.get_traced_memory()[0]
        try:
            yield self
        finally:
            self.peak_used = tracemalloc.get_traced_memory()[1]

    def summary(self) -> dict:
        """Peak bytes: absolute traced, and traced above the start."""
        return {"peak_used_bytes": self.peak_used, "peak_extra_bytes": self.peak_used - self.base_used}


class SitePeak(PeakMemory):
    """:class:`timing.PeakMemory` that also groups the allocations of at least ``least`` bytes
    by their call site (see :func:`_site`): the figures that say what an algorithm holds."""

    def __init__(self, least: int) -> None:
        super().__init__()
        self.least = least
        self.sites: dict[str, dict[str, int]] = {}
        self.peak_site = ""

    @contextmanager
    def track(self) -> Iterator[SitePeak]:
        """Record the peaks and the sites of the large allocations inside the ``with`` block."""
        import cupy

        pool = cupy.get_default_memory_pool()
        with super().track():
            def malloc(size: int) -> Any:
                ptr = pool.malloc(size)
                used = pool.used_bytes()
                if size >= self.least:
                    site = _site()
                    rec = self.sites.setdefault(site, {"allocations": 0, "largest": 0, "total": 0})
                    rec["allocations"] += 1
                    rec["largest"] = max(rec["largest"], size)
                    rec["total"] += size
                    if used > self.peak_used:
                        self.peak_site = site
                self.peak_used = max(self.peak_used, used)
                self.peak_total = max(self.peak_total, pool.total_bytes())
                return ptr

            cupy.cuda.set_allocator(malloc)
            yield self

    def summary(self) -> dict:
        """:meth:`PeakMemory.summary` and the sites, the largest allocations first."""
        top = sorted(self.sites.items(), key=lambda kv: -kv[1]["largest"])[:8]
        return {**super().summary(), "sites": [{"site": k, **v} for k, v in top], "peak_site": self.peak_site}


def _site() -> str:
    """Where an allocation was made: the innermost frame in the package (``grblas_gpu``) and the
    innermost in an algorithm or in this benchmark, as ``file:line`` (shortest paths)."""
    frames = traceback.extract_stack()[:-2]
    inner = next((f for f in reversed(frames) if "/grblas_gpu/" in f.filename), None)
    outer = next((f for f in reversed(frames) if "/algorithms/" in f.filename or "/benchmarks/" in f.filename), None)

    def name(f: Any) -> str:
        path = f.filename
        for root in ("/grblas_gpu/", "/algorithms/", "/benchmarks/"):
            if root in path:
                path = root.strip("/") + "/" + path.split(root, 1)[1]
                break
        return f"{path}:{f.lineno}"

    return " < ".join(name(f) for f in (inner, outer) if f is not None) or "?"


def _tracker(gpu: bool, least: int = 0) -> PeakMemory | HostPeak:
    if gpu and least:
        return SitePeak(least)
    return PeakMemory() if gpu else HostPeak()


def _used_bytes(gpu: bool) -> int:
    """Bytes in use now: the CuPy pool's used bytes on the GPU, traced host bytes on the CPU."""
    if gpu:
        import cupy

        device_sync()
        return int(cupy.get_default_memory_pool().used_bytes())
    return tracemalloc.get_traced_memory()[0]


def _release(gpu: bool) -> None:
    gc.collect()
    if gpu:
        import cupy

        device_sync()
        cupy.get_default_memory_pool().free_all_blocks()


def _runs(A: Any, source: int, pr_iters: int) -> dict[str, Callable[[], Any]]:
    """The calls of the :data:`SELECTED` algorithms on ``A``."""
    import grblas_gpu.algorithms as alg

    runs = {"bfs_levels": lambda: alg.bfs_levels(A, source), "sssp": lambda: alg.sssp(A, source),
            "pagerank": lambda: alg.pagerank(A, tol=0, max_iter=pr_iters, weight=False),
            "pagerank_weighted": lambda: alg.pagerank(A, tol=0, max_iter=pr_iters),
            "connected_components": lambda: alg.connected_components(A)}
    return {name: fn for name, fn in runs.items() if name in SELECTED}


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]


def build(scale: int, symmetric: bool) -> graphs.Graph:
    """The directed Kronecker graph of ``2**scale`` vertices, or the symmetric one."""
    return graphs.kronecker_symmetric(scale) if symmetric else large.build(scale)


def warm_up(backend: str, pr_iters: int, symmetric: bool = False) -> None:
    """Run every algorithm once on a small graph, so that no measured run compiles kernels."""
    import grblas_gpu as gb

    g = build(8, symmetric)
    A = gb.Matrix.from_csr(g.indptr, g.indices, g.weights, ncols=g.n, dtype="FP32", backend=backend,
                           symmetric=g.symmetric)
    for fn in _runs(A, g.max_degree_vertex(), pr_iters).values():
        fn()
    device_sync()


def measure_scale(scale: int, backend: str, pr_iters: int, symmetric: bool = False, trace: bool = False,
                  repeat: int = 0) -> dict:
    """Build, load and run every algorithm at one scale; failures become ``error`` fields."""
    import grblas_gpu as gb

    gpu = backend == "cupy"
    row: dict = {"scale": scale, "graph": f"kron{scale}" + ("-sym" if symmetric else ""), "algorithms": []}
    _release(gpu)
    before = _used_bytes(gpu)
    try:
        g = build(scale, symmetric)
    except Exception as exc:  # noqa: BLE001 - MemoryError and the like end the run
        return {**row, "error": "build: " + _error_text(exc)}
    row.update({"vertices": g.n, "edges": g.nnz, "csr_bytes": g.nbytes, "build_s": round(g.build_s, 3)})
    _note(f"built {row['graph']}: {g.nnz:,} edges in {g.build_s:.1f} s")
    source = g.max_degree_vertex()
    loading = _tracker(gpu)
    t0 = time.perf_counter()
    try:
        with loading.track():
            A = gb.Matrix.from_csr(g.indptr, g.indices, g.weights, ncols=g.n, dtype="FP32", backend=backend,
                                   symmetric=g.symmetric)
            device_sync()
    except Exception as exc:  # noqa: BLE001 - out of memory while loading ends the run
        del g
        _release(gpu)
        return {**row, "error": "load: " + _error_text(exc)}
    row["load_s"] = round(time.perf_counter() - t0, 3)
    _note(f"loaded in {row['load_s']} s")
    del g
    gc.collect()
    row["matrix_bytes"] = _used_bytes(gpu) - before
    row["load_peak_bytes"] = loading.summary()["peak_extra_bytes"]
    for name, fn in _runs(A, source, pr_iters).items():
        A.free_derived()  # each algorithm from the matrix at rest: a transpose another built is not free
        row["algorithms"].append(_measure_algorithm(name, fn, gpu, row["csr_bytes"], trace))
        kept = int(A.memory_usage()["derived"])  # what the run left with the matrix
        row["algorithms"][-1].update(kept_bytes=kept, kept_x_csr=kept / row["csr_bytes"] if row["csr_bytes"] else None)
        _note(f"{name}: {row['algorithms'][-1].get('seconds', row['algorithms'][-1].get('error'))}")
        if repeat and "error" not in row["algorithms"][-1]:
            row["algorithms"][-1].update(_repeated(A, fn, repeat))
    del A
    _release(gpu)
    return row


def _note(text: str) -> None:
    """A progress line on stderr."""
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def _measure_algorithm(name: str, fn: Callable[[], Any], gpu: bool, csr_bytes: int, trace: bool = False) -> dict:
    """One run of ``fn`` under a peak tracker (with ``trace``, the sites of its allocations of
    1% of the CSR or more)."""
    _release(gpu)
    tracker = _tracker(gpu, max(csr_bytes // 100, 1) if trace else 0)
    out: dict = {"algorithm": name}
    t0 = time.perf_counter()
    try:
        with tracker.track():
            res = fn()
            device_sync()
        out["seconds"] = round(time.perf_counter() - t0, 4)
        out["nvals"] = int(res.nvals)
        del res
    except Exception as exc:  # noqa: BLE001 - out of memory is a result here
        out["error"] = _error_text(exc)
    peak = tracker.summary()
    out.update(peak)
    out["peak_x_csr"] = peak["peak_extra_bytes"] / csr_bytes if csr_bytes else None
    _release(gpu)
    return out


def _repeated(A: Any, fn: Callable[[], Any], repeat: int) -> dict:
    """Median seconds of ``repeat`` runs from the matrix at rest and of ``repeat`` runs that keep
    what the one before left (kernels are compiled by then)."""
    out = {}
    for key, free in (("fresh_s", True), ("kept_s", False)):
        times = []
        for _ in range(repeat):
            if free:
                A.free_derived()
            device_sync()
            t0 = time.perf_counter()
            fn()
            device_sync()
            times.append(time.perf_counter() - t0)
        out[key] = round(statistics.median(times), 4)
    A.free_derived()
    return out


def ran_required(row: dict) -> bool:
    """True when BFS, SSSP and PageRank (those of them selected) all ran at this scale."""
    done = {a["algorithm"] for a in row.get("algorithms", []) if "error" not in a}
    return "error" not in row and set(REQUIRED) & set(SELECTED) <= done


def run(scales: list[int], backend: str, pr_iters: int, symmetric: bool = False,
        done: Callable[[dict], None] | None = None, trace: bool = False, repeat: int = 0) -> dict:
    """Every scale in turn, up to the first that does not fit; ``done(data)`` after each."""
    gpu = backend == "cupy"
    if not gpu:
        tracemalloc.start()
    data: dict = {"meta": {**_meta(backend, pr_iters), "symmetric": symmetric}, "scales": []}
    warm_up(backend, pr_iters, symmetric)
    for scale in scales:
        print(f"[{time.strftime('%H:%M:%S')}] kron scale {scale}", file=sys.stderr, flush=True)
        row = measure_scale(scale, backend, pr_iters, symmetric, trace, repeat)
        data["scales"].append(row)
        fitted = [r["scale"] for r in data["scales"] if ran_required(r)]
        data["largest_scale"] = max(fitted) if fitted else None
        if done is not None:
            done(data)
        if not ran_required(row):
            break
    if not gpu:
        tracemalloc.stop()
    return data


def _meta(backend: str, pr_iters: int) -> dict:
    device = f"CPU ({platform.processor() or platform.machine()})"
    total = None
    if backend == "cupy":
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        device = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        total = int(cupy.cuda.Device().mem_info[1])
    return {"backend": backend, "device": device, "device_memory_bytes": total, "host": platform.node(),
            "date": datetime.datetime.now().isoformat(timespec="seconds"), "pr_iters": pr_iters,
            "memory_counter": "CuPy pool used bytes (high-water mark sampled at each allocation)"
            if backend == "cupy" else "tracemalloc (host)"}


def _size(b: Any) -> str:
    """Bytes in GiB, MiB or KiB, whichever reads best."""
    if not isinstance(b, (int, float)):
        return ""
    for unit, scale in (("GiB", GIB), ("MiB", 1 << 20)):
        if abs(b) >= scale:
            return f"{b / scale:.2f} {unit}"
    return f"{b / 1024:.1f} KiB"


def markdown(data: dict) -> str:
    """The results as Markdown tables."""
    m = data["meta"]
    lines = [f"# Memory ({m['backend']})", "", f"Device: {m['device']}  ", f"Date: {m['date']}  ",
             (f"Counter: {m['memory_counter']}; PageRank {m['pr_iters']} iterations; graphs: "
              f"{'symmetric (declared)' if m.get('symmetric') else 'directed'} GAP Kronecker; CSR = int64 indptr + int32 indices + float32 values"), "",
             ("| graph | vertices | edges | CSR | Matrix at rest | at rest / CSR | load peak | "
              "load s | notes |"), "|---|---|---|---|---|---|---|---|---|"]
    for r in data["scales"]:
        rest = r.get("matrix_bytes")
        ratio = f"{rest / r['csr_bytes']:.2f}x" if rest is not None and r.get("csr_bytes") else ""
        lines.append(f"| {r['graph']} | {r.get('vertices', ''):,} | {r.get('edges', ''):,} | "
                     f"{_size(r.get('csr_bytes'))} | {_size(rest)} | {ratio} | {_size(r.get('load_peak_bytes'))} | "
                     f"{r.get('load_s', '')} | {r.get('error', '')} |" if "vertices" in r else
                     f"| {r['graph']} | | | | | | | | {r.get('error', '')} |")
    lines += ["", ("| graph | algorithm | seconds | fresh s | kept s | peak beyond the matrix | peak / CSR | "
                   "kept with the matrix after | kept / CSR | notes |"), "|---|---|---|---|---|---|---|---|---|---|"]
    for r in data["scales"]:
        for a in r["algorithms"]:
            x = f"{a['peak_x_csr']:.2f}x" if a.get("peak_x_csr") is not None else ""
            kept = f"{a['kept_x_csr']:.2f}x" if a.get("kept_x_csr") is not None else ""
            lines.append(f"| {r['graph']} | {a['algorithm']} | {a.get('seconds', '')} | {a.get('fresh_s', '')} | "
                         f"{a.get('kept_s', '')} | {_size(a.get('peak_extra_bytes'))} | {x} | "
                         f"{_size(a.get('kept_bytes'))} | {kept} | {a.get('error', '')} |")
    sites = [(r["graph"], a) for r in data["scales"] for a in r["algorithms"] if a.get("sites")]
    if sites:
        lines += ["", "Allocations of 1% of the CSR or more, by site (innermost package frame < algorithm frame):", "",
                  "| graph | algorithm | site | allocations | largest | total | made the peak |",
                  "|---|---|---|---|---|---|---|"]
        for graph, a in sites:
            for t in a["sites"]:
                mark = "yes" if t["site"] == a.get("peak_site") else ""
                lines.append(f"| {graph} | {a['algorithm']} | `{t['site']}` | {t['allocations']} | "
                             f"{_size(t['largest'])} | {_size(t['total'])} | {mark} |")
    largest = data.get("largest_scale")
    lines += ["", f"Largest scale that ran BFS, SSSP and PageRank: {largest if largest is not None else 'none'}"]
    return "\n".join(lines) + "\n"


def write(data: dict, out: Path, tag: str = "") -> None:
    """``memory.json`` and ``memory.md`` in ``out`` (``memory-TAG.*`` with a tag)."""
    out.mkdir(parents=True, exist_ok=True)
    stem = f"memory-{tag}" if tag else "memory"
    (out / f"{stem}.json").write_text(json.dumps(data, indent=1, default=str))
    (out / f"{stem}.md").write_text(markdown(data))


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.memory", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scales", type=int, nargs="*", help="kron scales (default 22..27 on a GPU, 8..12 on the CPU)")
    p.add_argument("--backend", choices=("numpy", "cupy"), default=None)
    p.add_argument("--pr-iters", type=int, default=10)
    p.add_argument("--symmetric", action="store_true", help="the symmetric graphs, declared symmetric")
    p.add_argument("--tag", default="", help="results go to memory-TAG.json / .md")
    p.add_argument("--repeat", type=int, default=0, help="median seconds of N more runs, fresh and kept")
    p.add_argument("--trace", action="store_true", help="GPU: group each algorithm's large allocations by call site")
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    p.add_argument("--algorithms", default=",".join(ALGORITHMS),
                   help=f"comma-separated, of {', '.join(ALGORITHMS)} (default: all)")
    p.add_argument("--gpu-build", type=int, default=None, metavar="SCALE",
                   help=f"draw the symmetric graphs on the GPU from this scale (default {graphs.GPU_BUILD_SCALE})")
    a = p.parse_args(argv)
    global SELECTED
    SELECTED = tuple(name for name in a.algorithms.split(",") if name)
    unknown = set(SELECTED) - set(ALGORITHMS)
    if unknown:
        p.error(f"unknown algorithms: {', '.join(sorted(unknown))}")
    if a.gpu_build is not None:
        graphs.GPU_BUILD_SCALE = a.gpu_build
    if a.backend is None:
        import grblas_gpu as gb

        a.backend = "cupy" if gb.gpu_available() else "numpy"
    scales = a.scales or (list(range(22, 28)) if a.backend == "cupy" else [8, 10, 12])
    data = run(scales, a.backend, a.pr_iters, a.symmetric, lambda d: write(d, a.out, a.tag), a.trace, a.repeat)
    print(markdown(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
