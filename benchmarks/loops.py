"""``python -m benchmarks.loops``: loops at device speed against the plain loop and scipy.

For each grid side (a 4-neighbour grid with random weights, the road-like graph of
``benchmarks.graphs``) and a 1,024-vertex Kronecker graph: ``bfs_levels`` and ``sssp`` with
device loops on and off (``grblas_gpu.loops.device_loops``), scipy's ``breadth_first_order``
and Dijkstra on the host, the levels, and the launch-only floor of a level on the device (a
captured iteration with nothing to do, the cost the loop cannot go under); on the GPU, the cost
of a level of one row in each of the loop's kernels (block, grid, captured graphs), and BFS on
two 1,024-vertex graphs in us beside scipy's, the loop's device time apart.  All in one
process; medians of ``--repeat`` runs after a warm-up.  Writes ``loops.json`` and
``loops.md`` under ``--out``.  ``--profile N`` instead prints where the host's time goes in
``N`` BFS runs on the 1,024-vertex Kronecker graph (cProfile, the heaviest functions).
``--ab OLD_TREE`` instead times BFS and SSSP on that graph (and a one-entry ``Vector.from_coo``)
in fresh processes, alternating the old tree (as for ``benchmarks.ab``) and this one ``--rounds``
times: the small graph's figures are host work, and hosts differ.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sps
from scipy.sparse import csgraph

from . import graphs
from .timing import device_sync


def _median_ms(fn: Callable[[], Any], repeat: int, sync: Callable[[], None]) -> float:
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def _floor_us(A: Any) -> float | None:
    """Device time of one captured iteration that has nothing to do (an empty frontier), in
    us: the launch-only floor of a level in the device loop."""
    import cupy
    from grblas_gpu.algorithms.bfs import next_level

    from grblas_gpu.backends.cupy.capture import BATCHES, FrontierLoop

    loop = FrontierLoop(A._be, next_level(), A._indptr, A._indices, A._vals, True, True)
    k = BATCHES[-1]
    graph = loop._graph(k)  # the state is all zero: every iteration finds an empty frontier
    stream = loop._stream
    graph.launch(stream)
    stream.synchronize()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    start.record(stream)
    for _ in range(10):
        graph.launch(stream)
    end.record(stream)
    end.synchronize()
    return cupy.cuda.get_elapsed_time(start, end) * 1e3 / (10 * k)


PATH_VERTICES = 20_000


@contextmanager
def _settings(owner: Any, **values: Any) -> Iterator[None]:
    """``owner``'s attributes set to ``values`` for the block (the loop's tunables in
    ``capture``, a method), and what they were put back after it."""
    kept = {name: getattr(owner, name) for name in values}
    for name, value in values.items():
        setattr(owner, name, value)
    try:
        yield
    finally:
        for name, value in kept.items():
            setattr(owner, name, value)


def _level_costs(repeat: int) -> dict:
    """Device time of a level with one row in it, in us: BFS along a directed path of
    :data:`PATH_VERTICES` vertices (a level each) run by the block kernel alone, by the grid
    kernel alone (a grid barrier a level), by the cluster kernel alone (where the GPU has
    clusters: a cluster barrier a level) and by the captured graphs alone (a launch a level);
    the run's host work, spread over 20,000 levels, is below 0.02 us of each."""
    import cupy
    from grblas_gpu.algorithms import bfs_levels

    import grblas_gpu as gb
    from grblas_gpu.backends.cupy import capture

    n = PATH_VERTICES
    sync = cupy.cuda.Device().synchronize
    costs = {}
    for name, rows, grid, cluster in (("block", capture.BLOCK_ROWS, False, False), ("grid", 0, True, False),
                                      ("cluster", 0, True, True), ("graphs", 0, False, False)):
        with _settings(capture, BLOCK_ROWS=rows, BLOCK_ROWS_BESIDE_GRID=rows, BLOCK_ROWS_BESIDE_CLUSTER=rows,
                       GRID_KERNEL=grid, CLUSTER_KERNEL=cluster):
            A = gb.Matrix.from_coo(np.arange(n - 1), np.arange(1, n), 1.0, nrows=n, ncols=n, backend="cupy")
            costs[f"{name}_us_per_level"] = _median_ms(lambda: bfs_levels(A, 0), repeat, sync) * 1e3 / n
    return costs


def _row(name: str, g: graphs.Graph, backend: str, repeat: int, peers: bool = True) -> dict:
    from grblas_gpu.algorithms import bfs_levels, sssp

    import grblas_gpu as gb
    from grblas_gpu.loops import device_loops

    n = g.n
    scipy_csr = sps.csr_matrix((g.weights.astype(np.float64), g.indices, g.indptr), shape=(n, n))
    A = gb.Matrix.from_csr(g.indptr, g.indices, g.weights.astype(np.float64), ncols=n, backend=backend)
    sync = (lambda: __import__("cupy").cuda.Device().synchronize()) if backend == "cupy" else (lambda: None)
    source = g.max_degree_vertex() if g.kind.startswith("kron") else 0  # (as the kron rows of benchmarks.ours)
    levels = int(bfs_levels(A, source).reduce(gb.monoid.max).new().value) + 1
    row: dict[str, Any] = {"graph": name, "vertices": n, "edges": g.nnz, "bfs_levels": levels}
    for on in (True, False):
        with device_loops(on):
            key = "device" if on else "plain"
            row[f"bfs_{key}_ms"] = _median_ms(lambda: bfs_levels(A, source), repeat, sync)
            row[f"sssp_{key}_ms"] = _median_ms(lambda: sssp(A, source), repeat, sync)
    if backend == "cupy":  # (the loop as it was before the cluster kernel: the grid kernel takes its place)
        from grblas_gpu.backends.cupy import capture

        with _settings(capture, CLUSTER_KERNEL=False):
            row["bfs_grid_kernel_ms"] = _median_ms(lambda: bfs_levels(A, source), repeat, sync)
            row["sssp_grid_kernel_ms"] = _median_ms(lambda: sssp(A, source), repeat, sync)
    if peers:
        row["scipy_bfs_ms"] = _median_ms(
            lambda: csgraph.breadth_first_order(scipy_csr, source, return_predecessors=False), repeat, lambda: None)
        row["scipy_dijkstra_ms"] = _median_ms(lambda: csgraph.dijkstra(scipy_csr, indices=source), repeat,
                                              lambda: None)
    row["bfs_device_us_per_level"] = row["bfs_device_ms"] * 1e3 / levels
    row["bfs_plain_us_per_level"] = row["bfs_plain_ms"] * 1e3 / levels
    if backend == "cupy":
        row["floor_us_per_level"] = _floor_us(A)
    return row


SMALL_RUNS = 1000


def _small_row(name: str, g: graphs.Graph) -> dict:
    """A 1,024-vertex graph's BFS on the GPU in us (median of :data:`SMALL_RUNS` after a
    warm-up): device loops on and off, scipy's ``breadth_first_order`` in the same process, and
    the time of the loop's runs (CUDA events around ``FrontierLoop.run``: its host work before
    the launch is counted too, as the stream waits for it; ``benchmarks.small_bfs`` gives the
    block kernel's device time alone), with the block kernel taking the small frontiers and
    with the grid kernel taking them all."""
    import cupy
    from grblas_gpu.algorithms import bfs_levels

    import grblas_gpu as gb
    from grblas_gpu.backends.cupy import capture
    from grblas_gpu.loops import device_loops

    A = gb.Matrix.from_csr(g.indptr, g.indices, g.weights.astype(np.float64), ncols=g.n, backend="cupy")
    scipy_csr = sps.csr_matrix((g.weights.astype(np.float64), g.indices, g.indptr), shape=(g.n, g.n))
    source = g.max_degree_vertex() if g.kind.startswith("kron") else 0
    sync = device_sync
    row: dict[str, Any] = {"graph": name, "vertices": g.n, "edges": g.nnz,
                           "bfs_levels": int(bfs_levels(A, source).reduce(gb.monoid.max).new().value) + 1}
    row["bfs_device_us"] = _median_ms(lambda: bfs_levels(A, source), SMALL_RUNS, sync) * 1e3
    with device_loops(False):
        row["bfs_plain_us"] = _median_ms(lambda: bfs_levels(A, source), SMALL_RUNS // 4, sync) * 1e3
    row["scipy_bfs_us"] = _median_ms(lambda: csgraph.breadth_first_order(scipy_csr, source, return_predecessors=False),
                                     SMALL_RUNS, lambda: None) * 1e3
    run = capture.FrontierLoop.run
    for key, block_rows in (("run_block_us", capture.BLOCK_ROWS_BESIDE_GRID), ("run_grid_us", 0)):
        events: list[tuple[Any, Any]] = []

        def timed(loop: Any, *args: Any, **kw: Any) -> Any:
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            out = run(loop, *args, **kw)
            end.record()
            events.append((start, end))
            return out

        with _settings(capture.FrontierLoop, run=timed), \
                _settings(capture, BLOCK_ROWS_BESIDE_GRID=block_rows, CLUSTER_KERNEL=False):
            for _ in range(SMALL_RUNS // 4):
                bfs_levels(A, source)
            sync()
        row[key] = statistics.median(cupy.cuda.get_elapsed_time(a, b) for a, b in events[20:]) * 1e3
    return row


def _profile(runs: int, backend: str) -> None:
    """Print cProfile's heaviest functions (own time) over ``runs`` BFS runs on the 1,024-vertex
    Kronecker graph, after a warm-up, and the mean time of a run."""
    import cProfile
    import pstats

    from grblas_gpu.algorithms import bfs_levels

    import grblas_gpu as gb

    g = graphs.kronecker_symmetric(10)
    A = gb.Matrix.from_csr(g.indptr, g.indices, g.weights.astype(np.float64), ncols=g.n, backend=backend)
    source = g.max_degree_vertex()
    sync = (lambda: __import__("cupy").cuda.Device().synchronize()) if backend == "cupy" else (lambda: None)
    print(f"BFS {backend}: {_median_ms(lambda: bfs_levels(A, source), runs, sync) * 1e3:.1f} us (median)")
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(runs):
        bfs_levels(A, source)
    sync()
    profile.disable()
    pstats.Stats(profile).sort_stats("tottime").print_stats(30)


_SMALL_CHILD = """
import json, statistics, time
import numpy as np
import grblas_gpu as gb
from grblas_gpu.algorithms import bfs_levels, sssp
from grblas_gpu.loops import device_loops
from benchmarks import graphs
from benchmarks.timing import device_sync
def med(fn, n):
    for _ in range(20):
        fn()
    device_sync()
    times = []
    for _ in range(n):
        t = time.perf_counter(); fn(); device_sync(); times.append(time.perf_counter() - t)
    return round(statistics.median(times) * 1e6, 1)
k = graphs.kronecker_symmetric(10)
A = gb.Matrix.from_csr(k.indptr, k.indices, k.weights.astype(np.float64), ncols=k.n)
src = k.max_degree_vertex()
out = {"kron10_bfs_us": med(lambda: bfs_levels(A, src), 500), "kron10_sssp_us": med(lambda: sssp(A, src), 200),
       "from_coo_us": med(lambda: gb.Vector.from_coo([src], [0], size=k.n, dtype=gb.INT64), 500)}
with device_loops(False):
    out["kron10_bfs_plain_us"] = med(lambda: bfs_levels(A, src), 300)
print(json.dumps(out))
"""


def _small_ab(old_tree: Path, rounds: int) -> None:
    """Print the small graph's figures of the old tree and this one, fresh processes alternating."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    trees = (("old", old_tree.resolve()), ("new", root))
    for round_ in range(rounds):
        for label, path in trees if round_ % 2 == 0 else trees[::-1]:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), str(root)])}
            result = subprocess.run([sys.executable, "-c", _SMALL_CHILD], cwd=path, env=env, check=True,
                                    capture_output=True, text=True)
            print(label, result.stdout.strip().splitlines()[-1], flush=True)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.loops", description=__doc__)
    p.add_argument("--backend", choices=("numpy", "cupy"), default="cupy")
    p.add_argument("--grid", type=int, nargs="+", default=[500, 1000, 2000])
    p.add_argument("--kron", type=int, nargs="*", default=[10],
                   help="scales of symmetric Kronecker graphs (scipy timed up to scale 16)")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "loops")
    p.add_argument("--profile", type=int, default=0, metavar="N", help="profile N small BFS runs instead")
    p.add_argument("--ab", type=Path, metavar="OLD_TREE", help="small-graph figures, old tree against this one")
    p.add_argument("--rounds", type=int, default=2)
    a = p.parse_args(argv)
    if a.ab:
        _small_ab(a.ab, a.rounds)
        return
    if a.profile:
        _profile(a.profile, a.backend)
        return
    rows = []
    for scale in a.kron:
        rows.append(_row(f"kron{scale}-sym", graphs.kronecker_symmetric(scale), a.backend, a.repeat, scale <= 16))
        print(json.dumps(rows[-1]), flush=True)
    for side in a.grid:
        rows.append(_row(f"grid{side}", graphs.grid(side), a.backend, a.repeat))
        print(json.dumps(rows[-1]), flush=True)
    device, levels, small = "cpu", None, []
    if a.backend == "cupy":
        import cupy

        device = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
        levels = _level_costs(a.repeat)
        print(json.dumps(levels), flush=True)
        small = [_small_row(name, g) for name, g in (("kron10-sym", graphs.kronecker_symmetric(10)),
                                                      ("grid32", graphs.grid(32)))]
        for r in small:
            print(json.dumps(r), flush=True)
    a.out.mkdir(parents=True, exist_ok=True)
    meta = {"device": device, "host": platform.node(), "repeat": a.repeat, "level_costs": levels, "small": small}
    (a.out / "loops.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    (a.out / "loops.md").write_text(_markdown(meta, rows))
    print(_markdown(meta, rows))


def _markdown(meta: dict, rows: list[dict]) -> str:
    head = ("| graph | levels | BFS device ms | BFS grid kernel ms | BFS plain ms | scipy BFS ms | us/level device "
            "| us/level plain | floor us/level | SSSP device ms | SSSP grid kernel ms | SSSP plain ms "
            "| scipy Dijkstra ms |\n" + "|---" * 13 + "|\n")
    lines = [(f"Device: {meta['device']}; medians of {meta['repeat']} runs after a warm-up; grid kernel: the "
              "device loop with the grid kernel in the cluster kernel's place.\n"), head]
    nan = float("nan")
    for r in rows:
        floor = r.get("floor_us_per_level")
        lines.append(
            f"| {r['graph']} | {r['bfs_levels']} | {r['bfs_device_ms']:.2f} | {r.get('bfs_grid_kernel_ms', nan):.2f} | "
            f"{r['bfs_plain_ms']:.2f} | {r.get('scipy_bfs_ms', nan):.2f} | {r['bfs_device_us_per_level']:.2f} | "
            f"{r['bfs_plain_us_per_level']:.2f} | {'' if floor is None else f'{floor:.2f}'} | "
            f"{r['sssp_device_ms']:.2f} | {r.get('sssp_grid_kernel_ms', nan):.2f} | {r['sssp_plain_ms']:.2f} | "
            f"{r.get('scipy_dijkstra_ms', nan):.2f} |\n")
    costs = meta.get("level_costs")
    if costs:
        lines.append(f"\nA level of one row (BFS along a {PATH_VERTICES:,}-vertex path), us: block kernel "
                     f"{costs['block_us_per_level']:.2f}, grid kernel {costs['grid_us_per_level']:.2f}, "
                     f"cluster kernel {costs['cluster_us_per_level']:.2f}, "
                     f"captured graphs {costs['graphs_us_per_level']:.2f}.\n")
    if meta.get("small"):
        lines.append(f"\nSmall graphs, BFS in us (medians of {SMALL_RUNS}; runs: CUDA events around the loop's "
                     "runs, their host work before the launch included, the block kernel taking the small "
                     "frontiers or the grid kernel all):\n\n"
                     "| graph | levels | BFS device loop | BFS plain | scipy BFS | runs, block kernel "
                     "| runs, grid kernel |\n" + "|---" * 7 + "|\n")
        for r in meta["small"]:
            lines.append(f"| {r['graph']} | {r['bfs_levels']} | {r['bfs_device_us']:.1f} | {r['bfs_plain_us']:.1f} | "
                         f"{r['scipy_bfs_us']:.1f} | {r['run_block_us']:.1f} | {r['run_grid_us']:.1f} |\n")
    return "".join(lines)


if __name__ == "__main__":
    main()
