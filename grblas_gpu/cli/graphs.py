"""The graph the command runs on: a file read by :func:`grblas_gpu.io.read_graph`, or a built-in graph."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import grblas_gpu as gb

from . import builtin_graphs
from .commands import AlgorithmSpec
from .errors import CliError

__all__ = ["Graph", "load_graph", "resolve_source"]


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


def _read_file(args: argparse.Namespace, backend: str, progress: Callable[[int, int | None], Any] | None) -> Graph:
    """Read ``args.graph`` with :func:`grblas_gpu.io.read_graph` (``progress``: the readers' callback)."""
    from grblas_gpu import io

    path = Path(args.graph)
    kind = _FORMAT_NAMES[args.format] if args.format else io.detect_format(path)
    kw: dict[str, Any] = {"backend": backend, "progress": progress}
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


def load_graph(args: argparse.Namespace, backend: str,
               progress: Callable[[int, int | None], Any] | None = None) -> Graph:
    """The graph of the command line: a file, or a built-in graph, as the options ask;
    ``progress(bytes_done, bytes_total)`` follows the reading of a file."""
    if args.graph is not None and args.builtin is not None:
        raise CliError("give either a GRAPH file or --builtin, not both")
    graph = _read_file(args, backend, progress) if args.graph is not None else _builtin(args, backend)
    if args.undirected and graph.directed:
        graph.matrix, graph.directed = _symmetrise(graph.matrix), False
    if args.unweighted:
        graph.matrix = graph.matrix.apply(gb.unary.one).new(dtype=gb.BOOL)
    return graph


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
