"""``python -m benchmarks``: build the graphs, time ours and the peers, write the results."""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import time
from pathlib import Path

from . import graphs, ours, peers, products, report
from .graphs import Graph

PARTS = ("mxv", "products")
MXV_NOTE = (
    "mxv ratios divide ours by cuSPARSE plus_times SpMV on the same graph (on a GPU, the median "
    "of the ratios of calls made in turn with cuSPARSE's); PageRank is per iteration ({pr} "
    "iterations, tol=0, unweighted); launch-only floor = {lpl} empty launches + 1 scalar "
    "device-to-host read per level; SSSP levels are estimated as 1 + the deepest hop count of a "
    "shortest-path tree")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    p.add_argument("--backend", choices=("numpy", "cupy"), default=None)
    p.add_argument("--scales", type=int, nargs="+", default=None)
    p.add_argument("--graph", action="append", default=[], help="Matrix Market or .npz CSR file")
    p.add_argument("--grid", type=int, default=None, help="side of the road-like grid (0: none)")
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--budget", type=float, default=3.0, help="max timed seconds per measurement")
    p.add_argument("--pr-iters", type=int, default=20)
    p.add_argument("--launches-per-level", type=int, default=4)
    p.add_argument("--no-snap", action="store_true")
    p.add_argument("--no-cold", action="store_true", help="skip the fresh-process compile timing")
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    p.add_argument("--quick", action="store_true", help="tiny graphs for a smoke run")
    p.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS),
                   help="mxv: mxv, PageRank, BFS, SSSP and first use; products: mxm, triangles, LCC")
    p.add_argument("--mxm-scales", type=int, nargs="*", default=None,
                   help="kron scales of the mxm rows (symmetric graphs; the grid is added)")
    p.add_argument("--tc-scales", type=int, nargs="*", default=None,
                   help="kron scales of the triangle-count and LCC rows")
    a = p.parse_args(argv)
    if a.backend is None:
        import grblas_gpu as gb

        a.backend = "cupy" if gb.gpu_available() else "numpy"
    a.scales = a.scales or ([8, 10] if a.quick else [16, 18, 20, 22])
    a.grid = a.grid if a.grid is not None else (30 if a.quick else 1000)
    gpu = a.backend == "cupy"
    if a.mxm_scales is None:
        a.mxm_scales = [8] if a.quick else ([12, 14, 16] if gpu else [12])
    if a.tc_scales is None:
        a.tc_scales = [8, 10] if a.quick else ([12, 14, 16, 18, 20, 22] if gpu else [12, 14])
    if a.quick:
        a.repeat, a.warmup, a.pr_iters = min(a.repeat, 3), min(a.warmup, 1), min(a.pr_iters, 5)
    return a


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def meta(args: argparse.Namespace) -> dict:
    versions = {"python": platform.python_version()}
    for mod in ("numpy", "scipy", "cupy", "torch", "graphblas", "grblas_gpu", "networkx"):
        try:
            versions[mod] = getattr(__import__(mod), "__version__", "?")
        except ImportError:
            versions[mod] = "not installed"
    device = f"CPU ({platform.processor() or platform.machine()})"
    if args.backend == "cupy":
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        device = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        versions["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
    return {"backend": args.backend, "device": device, "host": platform.node(),
            "date": datetime.datetime.now().isoformat(timespec="seconds"), "versions": versions,
            "args": {k: str(v) for k, v in vars(args).items()}, "notes": []}


def run_pair(d: Graph, s: Graph, cfg: ours.Config, data: dict, gpu: bool) -> None:
    """Everything measured on one directed graph and its symmetric version."""
    outs: dict = {}
    rows, mem = data["results"], data["memory"]
    log(f"{d.name}: mxv ({d.nnz:,} edges)")
    spmv = peers.cusparse_call(d) if gpu else None  # (one copy of the graph for cuSPARSE)
    rows += ours.bench_mxv(d, cfg, outs, spmv)
    if gpu:
        rows += peers.cusparse_spmv(d, cfg, outs, spmv) + peers.torch_peers(d, cfg, outs)
    del spmv  # (freed before the algorithms' memory is tracked)
    log(f"{d.name}: pagerank")
    rows += ours.bench_pagerank(d, cfg, outs, mem)
    if gpu:
        rows += peers.cupy_pagerank(d, cfg, outs)
    log(f"{s.name}: bfs, sssp ({s.nnz:,} edges)")
    souts: dict = {}
    rows += ours.bench_traversal(s, cfg, souts, mem)
    rows += peers.scipy_peers(s, cfg, souts, s.max_degree_vertex())
    outs.update({k: v for k, v in souts.items()})
    rows += peers.graphblas_peers(d, s, cfg, outs, s.max_degree_vertex())


def run_grid(g: Graph, cfg: ours.Config, data: dict) -> None:
    """BFS and SSSP on the grid, with levels and the launch-only floor for as many levels."""
    log(f"{g.name}: bfs, sssp")
    outs: dict = {}
    src = g.max_degree_vertex()
    rows = ours.bench_traversal(g, cfg, outs, data["memory"], source=src)
    data["results"] += rows
    bfs = next((r for r in rows if r["op"] == "bfs" and "levels" in r), None)
    levels = {"bfs": bfs["levels"] if bfs else None, "sssp": ours.sssp_rounds(g, src)}
    for op, lv in levels.items():
        row = next(r for r in rows if r["op"] == op)
        if lv:
            floor = ours.launch_floor(lv, cfg)
            data["results"].append(ours.record(g.name, f"launch_floor_{op}", "minimal-launches", floor))
            if row.get("median_s"):
                row.update({"levels": lv, "per_level_s": row["median_s"] / lv})
    data["results"] += peers.scipy_peers(g, cfg, outs, src)


def run_mxv_suite(args: argparse.Namespace, cfg: ours.Config, data: dict, gpu: bool) -> None:
    """mxv, PageRank, BFS and SSSP on the kron graphs, the grid and the SNAP or given graphs."""
    data["results"] += ours.small_mxv(cfg)
    if not args.no_cold:
        log("first-use (compile) timing in fresh processes")
        data["results"] += ours.cold_warm(cfg)
    for scale in args.scales:
        log(f"building kron scale {scale}")
        d, s = graphs.kronecker(scale)
        data["graphs"] += [d.summary(), s.summary()]
        run_pair(d, s, cfg, data, gpu)
        del d, s
    if args.grid:
        g = graphs.grid(args.grid)
        data["graphs"].append(g.summary())
        run_grid(g, cfg, data)
    extra = [] if args.no_snap else graphs.load_snap()
    if not args.no_snap and not extra:
        data["meta"]["notes"].append("SNAP data folder not found: SNAP graphs skipped")
    extra += [graphs.load_file(f) for f in args.graph]
    for g in extra:
        data["graphs"].append(g.summary())
    directed = [g for g in extra if not g.symmetric]
    for g in directed:
        sym = next((x for x in extra if x.name == g.name + "-sym"), None)
        if sym is None:
            sym = graphs.from_edges(g.name + "-sym", g.kind, *_edges(g), g.n, symmetric=True)
            data["graphs"].append(sym.summary())
        run_pair(g, sym, cfg, data, gpu)


def run_products(args: argparse.Namespace, cfg: ours.Config, data: dict) -> None:
    """mxm rows on the symmetric kron graphs of ``--mxm-scales`` and the grid; triangle count
    and LCC rows on those of ``--tc-scales``."""
    data["meta"]["notes"].append(
        "mxm rows: ours A.mxm(A, semiring).new() timed in turn with the peer's plus_times A @ A of "
        "the same graph (cuSPARSE SpGEMM through cupyx on the GPU, scipy.sparse on the CPU), "
        "ratio = median of ours / peer; triangles and LCC: ours through grblas_gpu.algorithms in "
        "turn with SuiteSparse:GraphBLAS (python-graphblas, all cores; L = tril(S, -1), "
        "L plus_pair L' masked by L; LCC from S plus_pair S masked by S) and, on the CPU, scipy; "
        "ours builds the symmetric pattern inside the call, the peers are given it")
    for scale in sorted(set(args.mxm_scales) | set(args.tc_scales)):
        log(f"building kron scale {scale} (symmetric)")
        try:
            g = graphs.kronecker_symmetric(scale)
        except MemoryError as exc:
            data["results"].append(ours.record(f"kron{scale}-sym", "build", "host", skipped=repr(exc)))
            break
        if not any(x["name"] == g.name for x in data["graphs"]):
            data["graphs"].append(g.summary())
        if scale in args.mxm_scales:
            log(f"{g.name}: mxm ({g.nnz:,} edges)")
            data["results"] += products.bench_mxm(g, cfg)
        if scale in args.tc_scales:
            log(f"{g.name}: triangles, lcc")
            data["results"] += products.bench_triangles(g, cfg)
        del g
    if args.grid:
        g = graphs.grid(args.grid)
        if not any(x["name"] == g.name for x in data["graphs"]):
            data["graphs"].append(g.summary())
        log(f"{g.name}: mxm")
        data["results"] += products.bench_mxm(g, cfg)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cfg = ours.Config(args.backend, args.warmup, args.repeat, args.budget, args.pr_iters,
                      args.launches_per_level)
    gpu = args.backend == "cupy"
    data = {"meta": meta(args), "graphs": [], "results": [], "memory": [], "targets": []}
    if "mxv" in args.parts:
        data["meta"]["notes"].append(MXV_NOTE.format(pr=args.pr_iters, lpl=args.launches_per_level))
    if not gpu:
        data["meta"]["notes"].append("CPU backend: GPU peers skipped; GPU targets do not apply")
    if "mxv" in args.parts:
        run_mxv_suite(args, cfg, data, gpu)
    if "products" in args.parts:
        run_products(args, cfg, data)
    # The absolute targets are set at scale 22.
    main_scale = 22 if 22 in args.scales and "mxv" in args.parts else None
    report.write(data, args.out, main_scale)
    log(f"wrote {args.out}/results.json, results.md" + (", results.png" if (args.out / "results.png").exists() else ""))
    return 0


def _edges(g: Graph) -> tuple:
    import numpy as np

    rows = np.repeat(np.arange(g.n, dtype=np.int32), np.diff(g.indptr))
    return rows, g.indices


if __name__ == "__main__":
    sys.exit(main())
