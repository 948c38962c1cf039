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
from .counted import counted_betweenness
from .errors import CliError
from .graphalytics_output import check_graphalytics, pagerank_options, write_graphalytics
from .graphs import Graph, load_graph, resolve_source
from .parser import PROG, build_parser
from .progress import Progress, choose_mode
from .report import Result, print_table, summary, to_result, top_rows, write_output

__all__ = ["main", "run"]


def _weighted(A: gb.Matrix) -> gb.Matrix:
    """An unweighted (BOOL) graph as weights 1, for path algorithms; others unchanged."""
    return A.apply(gb.unary.one).new(dtype=gb.INT64) if A.dtype == gb.dtypes.BOOL else A


def _call(spec: AlgorithmSpec, graph: Graph, args: argparse.Namespace, source: int | None,
          progress: Progress) -> Any:
    """Call the algorithm with the options of its subcommand (``progress``: the stage, for counts)."""
    fn = algorithm_function(spec)
    A = graph.matrix
    if spec.name in MORE_CALLS:
        return MORE_CALLS[spec.name](fn, graph, args)
    if spec.name == "sssp":
        return fn(_weighted(A), source, method=args.method, delta=args.delta)
    if spec.needs_source:
        return fn(_weighted(A) if spec.name != "bfs" else A, source)
    if spec.name == "pagerank":
        return fn(A, **pagerank_options(graph, args, args.output_format == "graphalytics"))
    if spec.name == "cdlp":
        max_iter = args.max_iter if args.max_iter is not None else graph.properties.get("cdlp.max-iterations", 10)
        return fn(A, max_iter=int(max_iter), directed=graph.directed)
    if spec.name == "lcc":
        return fn(A, directed=graph.directed)
    if spec.name == "bc":
        sources = None if args.sources is None else [graph.row_of(s, "--sources vertex") for s in args.sources]
        return counted_betweenness(fn, A, sources, args.batch_size, progress)
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


def _timed(label: str, backend: str, mode: str, step: Callable[[Progress], Any], unit: str = "") -> tuple[Any, float]:
    """``step(progress)`` and the seconds it took (GPU work included), its progress on stderr."""
    start = time.perf_counter()
    with Progress(label, unit=unit, mode=mode) as progress:
        value = step(progress)
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


def _loading_label(args: argparse.Namespace) -> str:
    return f"loading {os.path.basename(args.graph)}" if args.graph is not None else "generating the graph"


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Load, compute and report, as the parsed arguments ask."""
    spec = BFS_PARENTS if args.algorithm == "bfs" and args.parents else ALGORITHMS[args.algorithm]
    if args.output_format == "graphalytics":
        check_graphalytics(args)
    backend = _choose_backend(args.backend)
    mode = choose_mode(sys.stderr, args.quiet)
    with gb.use_backend(backend):
        graph, load_s = _timed(_loading_label(args), backend, mode,
                               lambda p: load_graph(args, backend, progress=p.update), unit="B")
        _report_loaded(graph, backend, load_s, out)
        source, note = resolve_source(args, graph, spec) if spec.needs_source else (None, "")
        raw, compute_s = _timed(f"computing {spec.name}", backend, mode,
                                lambda p: _call(spec, graph, args, source, p),
                                unit="sources" if spec.name == "bc" else "")
        result = to_result(raw, spec, graph, getattr(args, "sources", None))
    source_id = None if source is None else graph.vertex_id(source)
    where = "" if source_id is None else f" from vertex {source_id} ({note})"
    out.write(f"computed: {spec.name}{where} in {compute_s:.3f} s\n")
    _report_result(spec, result, graph, args.top, out)
    if args.output is not None:
        meta = {"algorithm": spec.name, "graph": graph.description, "vertices": graph.n}
        if source_id is not None:
            meta["source"] = source_id
        with Progress(f"writing {args.output}", mode=mode):
            if args.output_format == "graphalytics":
                write_graphalytics(args.output, spec, result, graph)
            else:
                write_output(args.output, spec, result, meta, args.output_format)
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
