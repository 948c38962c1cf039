"""Load, compute, report: the command's run and its entry point, with one-line errors."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import grblas_gpu as gb
from grblas_gpu.exceptions import GraphBLASError

from .calls import MORE_CALLS
from .commands import ALGORITHMS, BFS_PARENTS, AlgorithmSpec, algorithm_function
from .errors import CliError
from .graphs import Graph, load_graph, resolve_source
from .parser import PROG, build_parser
from .progress import Progress
from .report import Result, print_table, summary, to_result, top_rows, write_output

__all__ = ["main", "run"]


def _weighted(A: gb.Matrix) -> gb.Matrix:
    """An unweighted (BOOL) graph as weights 1, for path algorithms; others unchanged."""
    return A.apply(gb.unary.one).new(dtype=gb.INT64) if A.dtype == gb.dtypes.BOOL else A


def _call(spec: AlgorithmSpec, graph: Graph, args: argparse.Namespace, source: int | None) -> Any:
    """Call the algorithm with the options of its subcommand."""
    fn = algorithm_function(spec)
    A = graph.matrix
    if spec.name in MORE_CALLS:
        return MORE_CALLS[spec.name](fn, graph, args)
    if spec.name == "sssp":
        return fn(_weighted(A), source, method=args.method, delta=args.delta)
    if spec.needs_source:
        return fn(_weighted(A) if spec.name != "bfs" else A, source)
    if spec.name == "pagerank":
        alpha = args.alpha if args.alpha is not None else graph.properties.get("pr.damping-factor", 0.85)
        return fn(A, alpha=float(alpha), tol=args.tol, max_iter=args.max_iter, weight=not args.unweighted)
    if spec.name == "cdlp":
        max_iter = args.max_iter if args.max_iter is not None else graph.properties.get("cdlp.max-iterations", 10)
        return fn(A, max_iter=int(max_iter), directed=graph.directed)
    if spec.name == "lcc":
        return fn(A, directed=graph.directed)
    if spec.name == "bc":
        sources = None if args.sources is None else [graph.row_of(s, "--sources vertex") for s in args.sources]
        return fn(A, sources=sources, batch_size=args.batch_size)
    return fn(A)


def _synchronize(backend: str) -> None:
    """Wait for queued GPU work, so that timings are honest."""
    if backend == "cupy":
        import cupy

        cupy.cuda.get_current_stream().synchronize()


def _choose_backend(name: str | None) -> str:
    """The backend to run on; a one-line error when CuPy or a GPU is missing."""
    if name == "cupy" and not gb.gpu_available():
        raise CliError("--backend cupy: CuPy is not installed or sees no CUDA GPU (use --backend numpy)")
    return name or gb.default_backend()


def _timed(label: str, backend: str, step: Callable[[], Any]) -> tuple[Any, float]:
    """``step()`` and the seconds it took (GPU work included), with a spinner on a terminal."""
    start = time.perf_counter()
    with Progress(label):
        value = step()
        _synchronize(backend)
    return value, time.perf_counter() - start


def _report_loaded(graph: Graph, backend: str, seconds: float, out: TextIO) -> None:
    """The ``graph:`` and ``loaded:`` lines."""
    kind = "directed" if graph.directed else "undirected"
    out.write(f"graph:    {graph.description}\n")
    out.write(f"loaded:   {graph.n:,} vertices, {graph.edge_count():,} edges ({kind}, {graph.matrix.dtype}), "
              f"backend {backend}, in {seconds:.3f} s\n")


def _report_result(spec: AlgorithmSpec, result: Result, graph: Graph, top: int, out: TextIO) -> None:
    """The ``result:`` line and the table of the first ``top`` results."""
    out.write(f"result:   {summary(spec, result, graph.n)}\n")
    if result.count is None and top > 0 and len(result.vertices):
        what = {"value": f"by {spec.column}, largest first", "vertex": "by vertex", "groups": "largest first"}
        out.write(f"top {top} ({what[spec.order]}):\n")
        print_table(*top_rows(spec, result, top), out)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Load, compute and report, as the parsed arguments ask."""
    spec = BFS_PARENTS if args.algorithm == "bfs" and args.parents else ALGORITHMS[args.algorithm]
    backend = _choose_backend(args.backend)
    with gb.use_backend(backend):
        graph, load_s = _timed("loading", backend, lambda: load_graph(args, backend))
        _report_loaded(graph, backend, load_s, out)
        source, note = resolve_source(args, graph, spec) if spec.needs_source else (None, "")
        raw, compute_s = _timed(f"computing {spec.name}", backend, lambda: _call(spec, graph, args, source))
        result = to_result(raw, spec, graph, getattr(args, "sources", None))
    source_id = None if source is None else graph.vertex_id(source)
    where = "" if source_id is None else f" from vertex {source_id} ({note})"
    out.write(f"computed: {spec.name}{where} in {compute_s:.3f} s\n")
    _report_result(spec, result, graph, args.top, out)
    if args.output is not None:
        meta = {"algorithm": spec.name, "graph": graph.description, "vertices": graph.n}
        if source_id is not None:
            meta["source"] = source_id
        write_output(args.output, spec, result, meta)
        out.write(f"wrote:    {args.output}\n")
    return 0


def _one_line(e: BaseException) -> str:
    """An exception as one line of text."""
    if isinstance(e, OSError) and e.filename is not None and e.strerror:
        text = f"{e.filename}: {e.strerror}"
    else:
        text = str(e) or type(e).__name__
    return " ".join(text.split())


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``grblas-gpu`` and ``python -m grblas_gpu``; returns the exit status.

    Without arguments it prints the help (the list of algorithms) and returns 2.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if not argv:
        parser.print_help(sys.stdout)
        return 2
    args = parser.parse_args(argv)
    try:
        return run(args, sys.stdout)
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted\n")
        return 130
    except (CliError, GraphBLASError, OSError, ValueError, NotImplementedError, MemoryError) as e:
        sys.stdout.flush()
        sys.stderr.write(f"{PROG}: error: {_one_line(e)}\n")
        return 1
    except Exception as e:  # a fault of ours: still one line, and the traceback on request
        if os.environ.get("GRBLAS_GPU_TRACEBACK"):
            raise
        sys.stdout.flush()
        sys.stderr.write(f"{PROG}: internal error ({type(e).__name__}): {_one_line(e)}"
                         " (set GRBLAS_GPU_TRACEBACK=1 for the traceback)\n")
        return 2
