"""The ``grblas-gpu`` command: run one graph algorithm on a graph file or a built-in graph.

    grblas-gpu ALGORITHM [GRAPH] [options]

GRAPH is read by :func:`grblas_gpu.io.read_graph` (Matrix Market, SNAP edge list or a
Graphalytics ``.v``/``.e`` pair); without it the command generates a built-in graph
(:mod:`grblas_gpu.algorithms.builtin_graphs`).  It prints what it loaded, how long loading
and computing took and the top results, and can write every result to CSV or JSON.

Vertex numbers on the command line and in the output are the file's own ids where the
file has them (edge lists, Graphalytics); Matrix Market and built-in graphs number their
vertices from 0.  Errors are reported on one line of stderr, with exit status 1 (2 for
bad arguments).
"""

from __future__ import annotations

import argparse
import csv
import importlib
import itertools
import json
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

import numpy as np
from typing_extensions import Self

import grblas_gpu as gb
from grblas_gpu.exceptions import GraphBLASError

from . import builtin_graphs

__all__ = ["ALGORITHMS", "CliError", "Progress", "build_parser", "main"]

PROG = "grblas-gpu"


class CliError(Exception):
    """A problem with the command's input, reported as one line on stderr (exit status 1)."""


# ----------------------------------------------------------------------------- algorithms


@dataclass(frozen=True)
class AlgorithmSpec:
    """How the command runs and reports one algorithm.

    ``function``: its name in :mod:`grblas_gpu.algorithms`; ``column``: what a value is;
    ``order``: ``"value"`` (largest first), ``"vertex"`` (by vertex) or ``"groups"`` (labels,
    largest group first); ``vertex_values``: the values are vertices (labels, parents),
    shown in the file's ids; ``properties_key``: Graphalytics property prefix for the source.
    """

    name: str
    function: str
    column: str
    order: str
    needs_source: bool = False
    vertex_values: bool = False
    properties_key: str | None = None
    help: str = ""


ALGORITHMS: dict[str, AlgorithmSpec] = {
    spec.name: spec
    for spec in (
        AlgorithmSpec("sssp", "sssp", "distance", "vertex", True, False, "sssp", "single-source shortest paths"),
        AlgorithmSpec("widest-path", "widest_path", "width", "vertex", True, False, "sssp", "widest (bottleneck) paths"),
        AlgorithmSpec("pagerank", "pagerank", "rank", "value", help="PageRank"),
        AlgorithmSpec("bfs", "bfs_levels", "level", "vertex", True, False, "bfs", "breadth-first search levels"),
        AlgorithmSpec("cc", "connected_components", "component", "groups", vertex_values=True, help="connected components"),
        AlgorithmSpec("tc", "triangle_count", "triangles", "vertex", help="triangle count"),
        AlgorithmSpec("lcc", "local_clustering_coefficient", "coefficient", "value", help="local clustering coefficient"),
        AlgorithmSpec("cdlp", "cdlp", "community", "groups", vertex_values=True, help="community detection by label propagation"),
        AlgorithmSpec("bc", "betweenness_centrality", "centrality", "value", help="betweenness centrality"),
    )
}
_BFS_PARENTS = AlgorithmSpec("bfs", "bfs_parents", "parent", "vertex", True, True, "bfs", "breadth-first search parents")


def _algorithm_function(spec: AlgorithmSpec) -> Callable[..., Any]:
    """Import the algorithm lazily, so that ``--help`` and argument errors stay fast."""
    try:
        algorithms = importlib.import_module("grblas_gpu.algorithms")
        return getattr(algorithms, spec.function)
    except (ImportError, AttributeError) as e:
        raise CliError(f"algorithm {spec.name!r} is not available in this installation ({e})") from e


# ----------------------------------------------------------------------------- arguments


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line: ``grblas-gpu: error: ... (see --help)``."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def _vertex_list(text: str) -> list[int]:
    try:
        return [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected vertex ids separated by commas, got {text!r}") from None


def _output_path(text: str) -> Path:
    path = Path(text)
    if path.suffix.lower() not in (".csv", ".json"):
        raise argparse.ArgumentTypeError(f"{text!r}: the file name must end in .csv or .json")
    return path


_EPILOG = """\
GRAPH is a Matrix Market file (.mtx), a SNAP edge list ('src dst [weight]' lines) or a
Graphalytics graph (its .v, .e or .properties file, or their common prefix). Without
GRAPH a built-in graph is generated (--builtin, default kron: a 2**12-vertex Kronecker
graph with integer weights in [1, 255]).

Vertices are the file's own ids for edge lists and Graphalytics graphs; Matrix Market
and built-in graphs number them from 0. The default source is vertex 0 (the first
vertex) for files, the Graphalytics source in the .properties file, and the vertex of
highest out-degree for built-in graphs.

examples:
  grblas-gpu bfs
  grblas-gpu sssp roads.mtx --source 42 --output dist.csv
  grblas-gpu pagerank web.txt --format edgelist --top 20
  grblas-gpu bc --builtin grid --sources 0,17,99
"""


def build_parser() -> argparse.ArgumentParser:
    """The command's argument parser."""
    p = _Parser(
        prog=PROG,
        usage=f"{PROG} ALGORITHM [GRAPH] [options]",
        description="Run a graph algorithm on a graph file or a built-in graph, on the GPU (CuPy) or CPU (NumPy).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("algorithm", metavar="ALGORITHM", choices=list(ALGORITHMS),
                   help="one of: " + ", ".join(f"{s.name} ({s.help})" for s in ALGORITHMS.values()))
    p.add_argument("graph", metavar="GRAPH", nargs="?", help="graph file; omit to use a built-in graph")
    g = p.add_argument_group("graph")
    g.add_argument("--format", choices=("mtx", "edgelist", "graphalytics"), help="file format (default: detected)")
    g.add_argument("--builtin", choices=list(builtin_graphs.BUILTIN_GRAPHS), help="built-in graph (default: kron)")
    g.add_argument("--scale", type=_positive_int, default=builtin_graphs.DEFAULT_SCALE,
                   help="built-in graph of 2**SCALE vertices (default: %(default)s)")
    g.add_argument("--undirected", action="store_true", help="make the graph undirected (add every reverse edge)")
    g.add_argument("--unweighted", action="store_true", help="ignore edge weights (every edge weighs 1)")
    r = p.add_argument_group("run")
    r.add_argument("--backend", choices=gb.backends.BACKENDS, help="cupy (GPU) or numpy (CPU); default: cupy if a GPU is usable")
    r.add_argument("--source", type=int, help="source vertex (sssp, widest-path, bfs)")
    r.add_argument("--parents", action="store_true", help="bfs: report each vertex's parent instead of its level")
    r.add_argument("--alpha", type=float, help="pagerank: damping factor (default 0.85, or the Graphalytics property)")
    r.add_argument("--tol", type=float, default=1e-6, help="pagerank: convergence tolerance (default: %(default)s)")
    r.add_argument("--max-iter", type=_positive_int, help="pagerank / cdlp: iteration limit (default 100 / 10)")
    r.add_argument("--sources", type=_vertex_list, help="bc: source vertices, e.g. 0,5,9 (default: all)")
    o = p.add_argument_group("output")
    o.add_argument("--top", type=_positive_int, default=10, metavar="K", help="rows of results to print (default: %(default)s)")
    o.add_argument("--output", "-o", type=_output_path, metavar="FILE", help="write every result to FILE (.csv or .json)")
    return p


# ----------------------------------------------------------------------------- progress


class Progress:
    """An elapsed-time spinner on stderr while a slow step runs, only when stderr is a terminal.

    Nothing is shown for steps shorter than ``delay`` seconds; the line is erased at the end.
    """

    _FRAMES = "|/-\\"

    def __init__(self, label: str, stream: TextIO | None = None, delay: float = 0.5) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.delay = delay
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = False

    def __enter__(self) -> Self:
        if _isatty(self.stream):
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._shown:
            self.stream.write("\r\033[K")
            self.stream.flush()

    def _run(self) -> None:
        start = time.perf_counter()
        if self._stop.wait(self.delay):
            return
        for frame in itertools.cycle(self._FRAMES):
            self._shown = True
            self.stream.write(f"\r{frame} {self.label} {time.perf_counter() - start:.1f} s")
            self.stream.flush()
            if self._stop.wait(0.1):
                return


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# ----------------------------------------------------------------------------- loading


@dataclass
class Graph:
    """The graph the command runs on: ``ids[i]`` is row ``i``'s vertex id (None: the row itself)."""

    matrix: gb.Matrix
    ids: np.ndarray | None
    directed: bool
    description: str
    properties: dict[str, Any] = field(default_factory=dict)
    builtin: bool = False

    @property
    def n(self) -> int:
        """Number of vertices."""
        return self.matrix.nrows

    def row_of(self, vertex: int, what: str) -> int:
        """The row of vertex id ``vertex``; :class:`CliError` naming ``what`` if there is none."""
        if self.ids is None:
            if 0 <= vertex < self.n:
                return vertex
            raise CliError(f"{what} {vertex}: no such vertex (vertices are 0 .. {self.n - 1})")
        pos = int(np.searchsorted(self.ids, vertex))
        if pos < len(self.ids) and int(self.ids[pos]) == vertex:
            return pos
        raise CliError(f"{what} {vertex}: no such vertex in the graph")

    def vertex_ids(self, rows: np.ndarray) -> np.ndarray:
        """The vertex ids of ``rows`` (NumPy integers)."""
        rows = np.asarray(rows, dtype=np.int64)
        return rows if self.ids is None else np.asarray(self.ids)[rows]

    def vertex_id(self, row: int) -> int:
        """The vertex id of one row."""
        return int(self.vertex_ids(np.asarray([row]))[0])

    def edge_count(self) -> int:
        """Edges: stored entries if directed, else each pair once (self-loops once)."""
        nvals = self.matrix.nvals
        if self.directed:
            return nvals
        return (nvals + self.matrix.diag().nvals) // 2


_FORMAT_NAMES = {"mtx": "matrixmarket", "edgelist": "edgelist", "graphalytics": "graphalytics"}


def _read_file(args: argparse.Namespace, backend: str) -> Graph:
    """Read ``args.graph`` with :func:`grblas_gpu.io.read_graph`."""
    from grblas_gpu import io

    path = Path(args.graph)
    kind = _FORMAT_NAMES[args.format] if args.format else io.detect_format(path)
    kw: dict[str, Any] = {"backend": backend}
    if args.undirected and kind in ("edgelist", "graphalytics"):
        kw["directed"] = False
    loaded = io.read_graph(path, format=kind, **kw)
    ids = None if loaded.ids is None else np.asarray(loaded.ids)
    description = f"{path.name} ({loaded.format})"
    return Graph(loaded.matrix, ids, loaded.directed, description, dict(loaded.properties))


def _builtin(args: argparse.Namespace, backend: str) -> Graph:
    """Generate the built-in graph named by ``--builtin``."""
    name = args.builtin or builtin_graphs.DEFAULT_GRAPH
    g = builtin_graphs.generate(name, args.scale)
    A = gb.Matrix.from_coo(g.rows, g.cols, g.values, nrows=g.n, ncols=g.n, dtype=gb.INT64, backend=backend)
    return Graph(A, None, False, f"built-in {name}: {g.description}", builtin=True)


def _symmetrise(A: gb.Matrix) -> gb.Matrix:
    """``A`` plus its transpose; where both directions exist the smaller weight is kept."""
    return A.ewise_add(A.T, op=gb.binary.min).new()


def load_graph(args: argparse.Namespace, backend: str) -> Graph:
    """The graph of the command line: a file, or a built-in graph, as the options ask."""
    if args.graph is not None and args.builtin is not None:
        raise CliError("give either a GRAPH file or --builtin, not both")
    graph = _read_file(args, backend) if args.graph is not None else _builtin(args, backend)
    if args.undirected and graph.directed:
        graph.matrix, graph.directed = _symmetrise(graph.matrix), False
    if args.unweighted:
        graph.matrix = graph.matrix.apply(gb.unary.one).new(dtype=gb.BOOL)
    return graph


# ----------------------------------------------------------------------------- running


def _property_source(graph: Graph, spec: AlgorithmSpec) -> int | None:
    """The Graphalytics source vertex for ``spec`` (or any ``*.source-vertex``), else None."""
    props = graph.properties
    keys = [f"{spec.properties_key}.source-vertex"] + sorted(k for k in props if str(k).endswith(".source-vertex"))
    for key in keys:
        if isinstance(props.get(key), int):
            return int(props[key])
    return None


def resolve_source(args: argparse.Namespace, graph: Graph, spec: AlgorithmSpec) -> tuple[int, str]:
    """The source row and a note saying where it came from."""
    if args.source is not None:
        return graph.row_of(args.source, "--source"), "given"
    if graph.n == 0:
        raise CliError("the graph has no vertices")
    prop = _property_source(graph, spec)
    if prop is not None:
        return graph.row_of(prop, "source vertex from the properties file"), "from the properties file"
    if graph.builtin:
        ones = graph.matrix.apply(gb.unary.one).new(dtype=gb.INT64)
        degrees = ones.reduce_rowwise(gb.monoid.plus).new().to_dense(fill_value=0)
        return int(np.argmax(degrees)), "highest out-degree"
    return 0, "first vertex"


def _weighted(A: gb.Matrix) -> gb.Matrix:
    """An unweighted (BOOL) graph as weights 1, for path algorithms; others unchanged."""
    return A.apply(gb.unary.one).new(dtype=gb.INT64) if A.dtype == gb.dtypes.BOOL else A


def _call(spec: AlgorithmSpec, graph: Graph, args: argparse.Namespace, source: int | None) -> Any:
    """Call the algorithm with the options that apply to it."""
    fn = _algorithm_function(spec)
    A = graph.matrix
    if spec.needs_source:
        return fn(_weighted(A) if spec.name != "bfs" else A, source)
    if spec.name == "pagerank":
        alpha = args.alpha if args.alpha is not None else graph.properties.get("pr.damping-factor", 0.85)
        max_iter = args.max_iter if args.max_iter is not None else 100
        return fn(A, alpha=float(alpha), tol=args.tol, max_iter=max_iter, weight=not args.unweighted)
    if spec.name == "cdlp":
        max_iter = args.max_iter if args.max_iter is not None else graph.properties.get("cdlp.max-iterations", 10)
        return fn(A, max_iter=int(max_iter), directed=graph.directed)
    if spec.name == "lcc":
        return fn(A, directed=graph.directed)
    if spec.name == "bc":
        sources = None if args.sources is None else [graph.row_of(s, "--sources vertex") for s in args.sources]
        return fn(A, sources=sources)
    return fn(A)


def _synchronize(backend: str) -> None:
    """Wait for queued GPU work, so that timings are honest."""
    if backend == "cupy":
        import cupy

        cupy.cuda.get_current_stream().synchronize()


@dataclass
class Result:
    """An algorithm's output on the host: a count (``tc``) or vertex ids and their values."""

    count: int | None = None
    vertices: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    values: np.ndarray = field(default_factory=lambda: np.zeros(0))


def to_result(raw: Any, spec: AlgorithmSpec, graph: Graph) -> Result:
    """Bring the algorithm's output to NumPy, in the file's vertex ids."""
    if isinstance(raw, (int, np.integer)):
        return Result(count=int(raw))
    rows, values = raw.to_coo()
    values = np.asarray(values)
    if spec.vertex_values and graph.ids is not None:
        values = graph.vertex_ids(values)
    return Result(vertices=graph.vertex_ids(rows), values=values)


# ----------------------------------------------------------------------------- reporting


def _fmt(x: Any) -> str:
    """A value for the terminal: integers in full, floats to 6 significant digits."""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return f"{float(x):.6g}"


def _exact(x: Any) -> Any:
    """A value for an output file: int, float (round-trips), or a string for inf / nan."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    x = float(x)
    return x if math.isfinite(x) else str(x)


def summary(spec: AlgorithmSpec, result: Result, n: int) -> str:
    """One line that sums the result up."""
    if result.count is not None:
        return f"{result.count:,} triangle{'' if result.count == 1 else 's'}"
    vals, k = result.values, len(result.values)
    if k == 0:
        return f"no values (0 of {n:,} vertices)"
    if spec.order == "groups":
        labels, sizes = np.unique(vals, return_counts=True)
        one, many = ("component", "components") if spec.name == "cc" else ("community", "communities")
        kind = one if len(labels) == 1 else many
        return f"{len(labels):,} {kind}, the largest has {int(sizes.max()):,} vertices"
    if spec.needs_source:
        reached = f"{k:,} of {n:,} vertices reached"
        finite = vals[np.isfinite(vals.astype(np.float64))]
        if spec.vertex_values or len(finite) == 0:
            return reached
        return f"{reached}, max {spec.column} {_fmt(finite.max())}"
    if spec.name == "pagerank":
        return f"{k:,} vertices, ranks sum to {_fmt(vals.sum())}"
    return f"{k:,} vertices, mean {spec.column} {_fmt(vals.astype(np.float64).mean())}, max {_fmt(vals.max())}"


def top_rows(spec: AlgorithmSpec, result: Result, k: int) -> tuple[list[str], list[tuple[Any, Any]]]:
    """The header and first ``k`` rows of the results table, in the algorithm's order."""
    verts, vals = result.vertices, result.values
    if spec.order == "groups":
        labels, sizes = np.unique(vals, return_counts=True)
        order = np.lexsort((labels, -sizes))[:k]
        return [spec.column, "vertices"], list(zip(labels[order], sizes[order]))
    if spec.order == "value":
        order = np.lexsort((verts, -vals.astype(np.float64)))[:k]
    else:
        order = np.argsort(verts, kind="stable")[:k]
    return ["vertex", spec.column], list(zip(verts[order], vals[order]))


def print_table(header: list[str], rows: list[tuple[Any, Any]], out: TextIO) -> None:
    """Two right-aligned columns."""
    cells = [header] + [[_fmt(a), _fmt(b)] for a, b in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(2)]
    out.writelines(f"  {a:>{widths[0]}}  {b:>{widths[1]}}\n" for a, b in cells)


def write_output(path: Path, spec: AlgorithmSpec, result: Result, meta: dict[str, Any]) -> None:
    """Every result to ``path``: CSV ``vertex,value`` rows (or ``triangles``) or a JSON object."""
    order = np.argsort(result.vertices, kind="stable")
    pairs = [(int(v), _exact(x)) for v, x in zip(result.vertices[order], result.values[order])]
    with open(path, "w", newline="") as f:
        if path.suffix.lower() == ".json":
            body = {"triangles": result.count} if result.count is not None else {"values": {str(v): x for v, x in pairs}}
            json.dump({**meta, **body}, f, indent=1)
            f.write("\n")
        elif result.count is not None:
            f.write(f"triangles\n{result.count}\n")
        else:
            writer = csv.writer(f)
            writer.writerow(["vertex", "value"])
            writer.writerows(pairs)


# ----------------------------------------------------------------------------- main


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
    spec = _BFS_PARENTS if args.algorithm == "bfs" and args.parents else ALGORITHMS[args.algorithm]
    backend = _choose_backend(args.backend)
    with gb.use_backend(backend):
        graph, load_s = _timed("loading", backend, lambda: load_graph(args, backend))
        _report_loaded(graph, backend, load_s, out)
        source, note = resolve_source(args, graph, spec) if spec.needs_source else (None, "")
        raw, compute_s = _timed(f"computing {spec.name}", backend, lambda: _call(spec, graph, args, source))
        result = to_result(raw, spec, graph)
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
    """Entry point of ``grblas-gpu`` and ``python -m grblas_gpu.algorithms``; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return run(args, sys.stdout)
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted\n")
        return 130
    except (CliError, GraphBLASError, OSError, ValueError, NotImplementedError, MemoryError) as e:
        sys.stdout.flush()
        sys.stderr.write(f"{PROG}: error: {_one_line(e)}\n")
        return 1
    except Exception as e:  # noqa: BLE001 - a fault of ours: still one line, and the traceback on request
        if os.environ.get("GRBLAS_GPU_TRACEBACK"):
            raise
        sys.stdout.flush()
        sys.stderr.write(f"{PROG}: internal error ({type(e).__name__}): {_one_line(e)}"
                         " (set GRBLAS_GPU_TRACEBACK=1 for the traceback)\n")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
