"""File readers against their peers: ``python -m benchmarks.readers [--edges N] [--repeat R]``.

Writes a Matrix Market file (``coordinate real general``, ``N`` distinct entries in random
order, or sorted with ``--sorted``, 17-digit reals; ``--pattern``: no values) and a SNAP edge list (two comment lines, then ``N`` tab-separated
``src dst`` lines) to a temporary folder, then times, in this one process:

* Matrix Market: ``grblas_gpu.io.parse_matrix_market`` (to COO arrays, duplicates
  checked), ``grblas_gpu.io.mmread`` (to a Matrix), and the pure path forced, against
  ``scipy.io.mmread`` (COO arrays), ``scipy.io.mmread(...).tocsr()`` (a CSR, as a Matrix
  holds) and ``fast_matrix_market.read_coo``;
* edge list: ``grblas_gpu.io.parse_edgelist``, ``read_edgelist`` and the pure path,
  against ``numpy.loadtxt`` and ``pandas.read_csv`` (C engine);
* Graphalytics: the same edges as ``.v``/``.e`` files, ``read_graphalytics`` and its pure path
  against ``numpy.loadtxt`` of both files.

Each figure is the best of ``R`` runs, the contenders taking turns (the machine may be
shared); ratios are ours over the peer.  ``--clock cpu`` times each call by the process's CPU
time instead of the wall clock: with every contender on one thread (``--threads 1``) it counts
the work each does and not the time other programs hold the cores.  Missing peers are skipped.  The first line says how
many threads each contender parses with; ``--threads 1`` sets pyarrow's, scipy's and
fast_matrix_market's to one (numpy.loadtxt and pandas use one anyway): the comparison per core.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


def write_files(folder: Path, edges: int, seed: int = 1, ordered: bool = False,
                pattern: bool = False) -> tuple[Path, Path]:
    """A Matrix Market file and a SNAP edge list of ``edges`` distinct random entries, in random
    order, or sorted by row and column (``ordered``: as SNAP lists and many Matrix Market files are);
    a ``pattern`` Matrix Market file holds no values (a graph's usual form)."""
    rng = np.random.default_rng(seed)
    n = 1 << 20
    keys = np.unique(rng.integers(0, n * n, int(edges * 1.01)))
    keys = rng.permutation(keys)[:edges]
    if ordered:
        keys.sort()
    rows, cols = (keys // n + 1).tolist(), (keys % n + 1).tolist()
    values = rng.standard_normal(len(keys)).tolist()
    mtx, snap = folder / "bench.mtx", folder / "bench.txt"
    with open(mtx, "w") as f:
        f.write(f"%%MatrixMarket matrix coordinate {'pattern' if pattern else 'real'} general\n% benchmark\n"
                f"{n} {n} {len(keys)}\n")
        if pattern:
            f.writelines(f"{r} {c}\n" for r, c in zip(rows, cols))
        else:
            f.writelines(f"{r} {c} {v!r}\n" for r, c, v in zip(rows, cols, values))
    with open(snap, "w") as f:
        f.write("# Directed graph (benchmark)\n# FromNodeId\tToNodeId\n")
        f.writelines(f"{r}\t{c}\n" for r, c in zip(rows, cols))
    return mtx, snap


def write_graphalytics(folder: Path, snap: Path) -> Path:
    """The edge list ``snap`` as a Graphalytics graph (``.v``: its ids, ``.e``: its edges, space-
    separated, ``.properties``: directed); returns the graph's prefix."""
    edges = np.loadtxt(snap, dtype=np.int64, comments="#")
    prefix = folder / "bench"
    np.savetxt(f"{prefix}.v", np.unique(edges), fmt="%d")
    np.savetxt(f"{prefix}.e", edges, fmt="%d")
    Path(f"{prefix}.properties").write_text("graph.bench.directed = true\n")
    return prefix


def best_of_interleaved(cases: dict[str, Callable[[], Any]], repeat: int,
                        clock: Callable[[], float] = time.perf_counter) -> dict[str, float]:
    """The fastest of ``repeat`` timed calls of each case, in seconds of ``clock``, the cases
    taking turns.

    Taking turns (one call of each, ``repeat`` rounds, after one untimed round) lets every
    contender see the same load on a shared machine.
    """
    for fn in cases.values():
        fn()
    best = {name: float("inf") for name in cases}
    for _ in range(repeat):
        for name, fn in cases.items():
            t0 = clock()
            fn()
            best[name] = min(best[name], clock() - t0)
    return best


def _pure(fn: Callable[[], Any]) -> Callable[[], Any]:
    from grblas_gpu.io import _chunks

    def run() -> Any:
        saved, _chunks.FAST = _chunks.FAST, False
        try:
            return fn()
        finally:
            _chunks.FAST = saved

    return run


def matrix_market_cases(path: Path, threads: int | None) -> dict[str, Callable[[], Any]]:
    """The Matrix Market contenders (peers that are not installed are left out)."""
    import grblas_gpu.io as gio

    cases: dict[str, Callable[[], Any]] = {
        "grblas_gpu parse_matrix_market": lambda: gio.parse_matrix_market(path),
        "grblas_gpu mmread (to a Matrix)": lambda: gio.mmread(path, backend="numpy"),
        "grblas_gpu parse, pure path": _pure(lambda: gio.parse_matrix_market(path)),
    }
    try:
        import scipy.io

        cases["scipy.io.mmread"] = lambda: scipy.io.mmread(path)
        cases["scipy.io.mmread(...).tocsr()"] = lambda: scipy.io.mmread(path).tocsr()
    except ImportError:
        pass
    try:
        import fast_matrix_market as fmm

        cases["fast_matrix_market.read_coo"] = lambda: fmm.read_coo(path, parallelism=threads)
    except ImportError:
        pass
    return cases


def edge_list_cases(path: Path) -> dict[str, Callable[[], Any]]:
    """The edge-list contenders (peers that are not installed are left out)."""
    import grblas_gpu.io as gio

    cases: dict[str, Callable[[], Any]] = {
        "grblas_gpu parse_edgelist": lambda: gio.parse_edgelist(path),
        "grblas_gpu read_edgelist (to a Matrix)": lambda: gio.read_edgelist(path, backend="numpy"),
        "grblas_gpu parse, pure path": _pure(lambda: gio.parse_edgelist(path)),
        "numpy.loadtxt": lambda: np.loadtxt(path, dtype=np.int64, comments="#"),
    }
    try:
        import pandas as pd

        cases["pandas.read_csv (C engine)"] = lambda: pd.read_csv(
            path, sep="\t", comment="#", header=None, dtype=np.int64, engine="c"
        )
    except ImportError:
        pass
    return cases


def graphalytics_cases(prefix: Path) -> dict[str, Callable[[], Any]]:
    """The Graphalytics contenders: the reader (to a Matrix), its pure path, and numpy.loadtxt of
    the two files (the numbers alone)."""
    import grblas_gpu.io as gio

    return {
        "grblas_gpu read_graphalytics (to a Matrix)": lambda: gio.read_graphalytics(prefix, backend="numpy"),
        "grblas_gpu read_graphalytics, pure path": _pure(lambda: gio.read_graphalytics(prefix, backend="numpy")),
        "numpy.loadtxt (.v and .e)": lambda: (np.loadtxt(f"{prefix}.v", dtype=np.int64),
                                              np.loadtxt(f"{prefix}.e", dtype=np.int64)),
    }


def report(title: str, times: dict[str, float], peers: list[str]) -> None:
    """Print each time and, for each of ours, its ratio to every peer present."""
    print(f"\n{title}")
    for name, t in times.items():
        print(f"  {name:42s} {t:8.3f} s")
    for name, t in times.items():
        if not name.startswith("grblas_gpu"):
            continue
        ratios = ", ".join(f"{t / times[p]:.2f}x {p}" for p in peers if p in times)
        print(f"  {name:42s} {ratios}")


def set_threads(threads: int | None) -> None:
    """Limit pyarrow (our fast path), scipy's and fast_matrix_market's own to ``threads``."""
    if threads is None:
        return
    from grblas_gpu.io import _chunks

    _chunks.THREADS = threads > 1
    try:
        import scipy.io._fast_matrix_market as sfmm

        sfmm.PARALLELISM = threads
    except ImportError:
        pass
    try:
        import fast_matrix_market as fmm

        fmm.PARALLELISM = threads
    except ImportError:
        pass
    try:
        import pyarrow

        pyarrow.set_cpu_count(threads)
    except ImportError:
        pass


def _count(parallelism: int) -> str:
    return str(parallelism) if parallelism else f"{os.cpu_count()} (auto)"


def thread_counts() -> str:
    """How many threads each contender parses with (what ``--threads`` or the defaults give)."""
    from grblas_gpu.io import _chunks

    parts = [f"{os.cpu_count()} cores"]
    if _chunks.compiled_parser():
        parts.append("grblas_gpu (compiled parser) 1")
    else:
        try:
            import pyarrow

            parts.append(f"grblas_gpu (pyarrow) {pyarrow.cpu_count() if _chunks.THREADS else 1}")
        except ImportError:
            parts.append("grblas_gpu (pure path) 1")
    try:
        import scipy.io._fast_matrix_market as sfmm

        parts.append(f"scipy.io.mmread {_count(sfmm.PARALLELISM)}")
    except ImportError:
        pass
    try:
        import fast_matrix_market as fmm

        parts.append(f"fast_matrix_market {_count(fmm.PARALLELISM)}")
    except ImportError:
        pass
    parts.append("numpy.loadtxt 1, pandas.read_csv 1")
    return "threads: " + ", ".join(parts)


def main(argv: list[str] | None = None) -> None:
    """Write the files, time every contender, print the figures and ratios."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--edges", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None, help="threads for pyarrow and fast_matrix_market")
    ap.add_argument("--sorted", action="store_true", help="entries sorted by row and column (default: random order)")
    ap.add_argument("--pattern", action="store_true", help="a pattern Matrix Market file (default: real values)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="time by the wall clock or by the process's CPU time (with --threads 1)")
    args = ap.parse_args(argv)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    set_threads(args.threads)
    print(thread_counts())
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        mtx, snap = write_files(Path(tmp), args.edges, ordered=args.sorted, pattern=args.pattern)
        sizes = f"{os.path.getsize(mtx) / 1e6:.1f} MB and {os.path.getsize(snap) / 1e6:.1f} MB"
        kind = f"{'sorted' if args.sorted else 'random order'}, {'pattern' if args.pattern else 'real'}"
        print(f"{args.edges} entries ({kind}): wrote {sizes} in "
              f"{time.perf_counter() - t0:.1f} s; best of {args.repeat}, threads {args.threads or 'default'}, "
              f"{args.clock} clock")
        mm = best_of_interleaved(matrix_market_cases(mtx, args.threads), args.repeat, clock)
        report("Matrix Market", mm, ["scipy.io.mmread", "scipy.io.mmread(...).tocsr()", "fast_matrix_market.read_coo"])
        el = best_of_interleaved(edge_list_cases(snap), args.repeat, clock)
        report("SNAP edge list", el, ["numpy.loadtxt", "pandas.read_csv (C engine)"])
        ga = best_of_interleaved(graphalytics_cases(write_graphalytics(Path(tmp), snap)), args.repeat, clock)
        report("Graphalytics (.v and .e of the same edges)", ga, ["numpy.loadtxt (.v and .e)"])


if __name__ == "__main__":
    main()
