"""What the command prints and writes: the summary line, the top-results table, CSV and JSON files."""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from .commands import AlgorithmSpec
from .graphs import Graph

__all__ = ["Result", "print_table", "summary", "to_result", "top_rows", "write_output"]


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
