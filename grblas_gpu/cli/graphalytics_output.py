"""``--output-format graphalytics``: results written as LDBC Graphalytics writes its expected outputs.

One ``vertex value`` line for every vertex of the graph, in ascending vertex id (the file's
own ids), separated by one space, each line ending in a newline:

* BFS: the depth as an integer; an unreachable vertex gets ``9223372036854775807`` (INT64_MAX).
* WCC (``cc``) and CDLP: the label as an integer (a vertex id: WCC the smallest of the component).
* PageRank, LCC and SSSP: a float64 as ``%.15e`` (``1.477629166666667e-01``), the form of the
  Graphalytics example outputs; an unreachable vertex in SSSP gets ``infinity``.

The run follows the Graphalytics definitions too (:func:`pagerank_options`): PageRank is
unweighted and runs the ``pr.num-iterations`` of the ``.properties`` file with no tolerance,
at its ``pr.damping-factor``; the sources and CDLP's iterations come from the properties as
in every mode.  Options given on the command line win over the properties.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from .commands import AlgorithmSpec
from .errors import CliError
from .graphs import Graph
from .report import Result

__all__ = ["GRAPHALYTICS_NAMES", "INT64_MAX", "check_graphalytics", "pagerank_options", "write_graphalytics"]

#: The Graphalytics name of each subcommand it defines.
GRAPHALYTICS_NAMES = {"bfs": "BFS", "cc": "WCC", "cdlp": "CDLP", "lcc": "LCC", "pagerank": "PR", "sssp": "SSSP"}
INT64_MAX = int(np.iinfo(np.int64).max)
_FLOATS = ("pagerank", "lcc", "sssp")
_LINES_A_BLOCK = 1 << 16


def check_graphalytics(args: argparse.Namespace) -> None:
    """Refuse, before any work, a Graphalytics output Graphalytics does not define."""
    if args.algorithm not in GRAPHALYTICS_NAMES or getattr(args, "parents", False):
        what = "bfs --parents" if args.algorithm == "bfs" else args.algorithm
        raise CliError(f"--output-format graphalytics: {what} is not a Graphalytics algorithm "
                       f"(those are {', '.join(sorted(GRAPHALYTICS_NAMES))})")
    if args.output is None:
        raise CliError("--output-format graphalytics needs --output FILE")


def pagerank_options(graph: Graph, args: argparse.Namespace, graphalytics: bool) -> dict[str, Any]:
    """PageRank's ``alpha``, ``tol``, ``max_iter`` and ``weight``: the options, else the
    properties file's, else the defaults; Graphalytics runs a fixed number of iterations, unweighted."""
    props = graph.properties
    alpha = args.alpha if args.alpha is not None else props.get("pr.damping-factor", 0.85)
    max_iter = args.max_iter
    if max_iter is None and graphalytics:
        max_iter = props.get("pr.num-iterations")
    fixed = graphalytics and max_iter is not None
    tol = args.tol if args.tol is not None else (0.0 if fixed else 1e-6)
    return {"alpha": float(alpha), "tol": float(tol), "max_iter": int(100 if max_iter is None else max_iter),
            "weight": not (args.unweighted or graphalytics)}


def _dense(spec: AlgorithmSpec, result: Result, graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    """Every vertex id (ascending) and its value, the absent ones filled as Graphalytics fills them."""
    ids = graph.vertex_ids(np.arange(graph.n))
    rows = np.searchsorted(ids, result.vertices) if graph.ids is not None else np.asarray(result.vertices)
    if spec.name in _FLOATS:
        values = np.full(graph.n, np.inf if spec.name == "sssp" else 0.0)
    elif spec.name == "bfs":
        values = np.full(graph.n, INT64_MAX, dtype=np.int64)
    else:  # a vertex without a label is alone: its own component or community
        values = ids.astype(np.int64, copy=True)
    values[rows] = result.values
    return ids, values


def _float(x: float) -> str:
    return f"{x:.15e}" if np.isfinite(x) else ("infinity" if x > 0 else "-infinity" if x < 0 else "nan")


def write_graphalytics(path: Path, spec: AlgorithmSpec, result: Result, graph: Graph) -> None:
    """Every vertex's value to ``path`` in the Graphalytics output form (module documentation)."""
    ids, values = _dense(spec, result, graph)
    floats = spec.name in _FLOATS
    with open(path, "w", encoding="ascii", newline="\n") as f:
        for start in range(0, len(ids), _LINES_A_BLOCK):
            block_ids = ids[start:start + _LINES_A_BLOCK].tolist()
            block = values[start:start + _LINES_A_BLOCK].tolist()
            if floats:
                f.write("".join(f"{v} {_float(x)}\n" for v, x in zip(block_ids, block)))
            else:
                f.write("".join(f"{v} {int(x)}\n" for v, x in zip(block_ids, block)))
