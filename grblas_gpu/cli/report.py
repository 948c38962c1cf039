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
    targets: np.ndarray | None = None
    """The other end of each row's edge, for the results that are a Matrix (sources, then)."""
    extra: np.ndarray | None = None
    """A second value a vertex (``hits``: the authorities, ``values`` the hubs)."""

    def columns(self) -> list[np.ndarray]:
        """The result's columns, as the spec's header names them."""
        first = [self.vertices] if self.targets is None else [self.vertices, self.targets]
        return first + [self.values] + ([] if self.extra is None else [self.extra])


def to_result(raw: Any, spec: AlgorithmSpec, graph: Graph, sources: Any = None) -> Result:
    """Bring the algorithm's output to NumPy, in the file's vertex ids (``sources``: the
    ``--sources`` ids, the rows of a ``"levels"`` result)."""
    if isinstance(raw, (int, np.integer)):
        return Result(count=int(raw))
    if spec.shape == "two":
        first, second = (np.asarray(x.to_dense(fill_value=0.0)) for x in raw)
        return Result(vertices=graph.vertex_ids(np.arange(len(first))), values=first, extra=second)
    if spec.shape in ("edges", "levels"):
        rows, cols, values = raw.to_coo()
        if spec.undirected:
            once = rows <= cols
            rows, cols, values = rows[once], cols[once], values[once]
        starts = np.asarray(sources, dtype=np.int64)[rows] if spec.shape == "levels" else graph.vertex_ids(rows)
        return Result(vertices=starts, targets=graph.vertex_ids(cols), values=np.asarray(values))
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
    if result.targets is not None:
        return _edge_summary(spec, result)
    if result.extra is not None:
        return (f"{k:,} vertices, largest hub {_fmt(vals.max())} (vertex {int(result.vertices[np.argmax(vals)])}), "
                f"largest authority {_fmt(result.extra.max())}") if k else "no vertices"
    if spec.name == "mis":
        return f"{k:,} of {n:,} vertices in the independent set"
    if k == 0:
        return f"no values (0 of {n:,} vertices)"
    if spec.order == "groups":
        labels, sizes = np.unique(vals, return_counts=True)
        one, many = spec.noun
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


def _edge_summary(spec: AlgorithmSpec, result: Result) -> str:
    """The summary of a result that is a list of edges (or pairs, or levels)."""
    k, vals = len(result.values), result.values.astype(np.float64)
    if spec.shape == "levels":
        return f"{k:,} (source, vertex) pairs reached, deepest level {_fmt(vals.max()) if k else 0}"
    if spec.name == "msf":
        return f"{k:,} edge{'' if k == 1 else 's'}, total weight {_fmt(vals.sum())}"
    ends = len(np.union1d(result.vertices, result.vertices if result.targets is None else result.targets))
    what = "pairs" if spec.name == "jaccard" else "edges"
    return f"{k:,} {what} on {ends:,} vertices" + (f", mean {spec.column} {_fmt(vals.mean())}" if k else "")


def _order(spec: AlgorithmSpec, result: Result) -> np.ndarray:
    """The rows in the algorithm's order: by value (largest first) or by vertex (and target)."""
    verts, vals = result.vertices, result.values
    keys = (verts,) if result.targets is None else (result.targets, verts)
    if spec.order == "value":
        return np.lexsort((*keys, -vals.astype(np.float64)))
    return np.lexsort(keys)


def top_rows(spec: AlgorithmSpec, result: Result, k: int) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The header and first ``k`` rows of the results table, in the algorithm's order."""
    verts, vals = result.vertices, result.values
    if result.targets is not None or result.extra is not None:
        order = _order(spec, result)[:k]
        return list(spec.header()), list(zip(*(c[order] for c in result.columns())))
    if spec.order == "groups":
        labels, sizes = np.unique(vals, return_counts=True)
        order = np.lexsort((labels, -sizes))[:k]
        return [spec.column, "vertices"], list(zip(labels[order], sizes[order]))
    if spec.order == "value":
        order = np.lexsort((verts, -vals.astype(np.float64)))[:k]
    else:
        order = np.argsort(verts, kind="stable")[:k]
    return ["vertex", spec.column], list(zip(verts[order], vals[order]))


def print_table(header: list[str], rows: list[tuple[Any, ...]], out: TextIO) -> None:
    """Right-aligned columns."""
    cells = [list(header)] + [[_fmt(x) for x in row] for row in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    out.writelines("".join(f"  {x:>{w}}" for x, w in zip(row, widths)) + "\n" for row in cells)


def write_output(path: Path, spec: AlgorithmSpec, result: Result, meta: dict[str, Any],
                 form: str | None = None) -> None:
    """Every result to ``path``: CSV ``vertex,value`` rows (or ``triangles``) or a JSON object;
    edges, pairs, levels and two-valued results as rows of the spec's columns.  ``form``:
    ``"csv"`` or ``"json"`` (default: by the file's suffix, CSV unless ``.json``)."""
    json_form = form == "json" if form is not None else path.suffix.lower() == ".json"
    if result.targets is not None or result.extra is not None:
        _write_rows(path, spec, result, meta, json_form)
        return
    order = np.argsort(result.vertices, kind="stable")
    pairs = [(int(v), _exact(x)) for v, x in zip(result.vertices[order], result.values[order])]
    with open(path, "w", newline="") as f:
        if json_form:
            body = {"triangles": result.count} if result.count is not None else {"values": {str(v): x for v, x in pairs}}
            json.dump({**meta, **body}, f, indent=1)
            f.write("\n")
        elif result.count is not None:
            f.write(f"triangles\n{result.count}\n")
        else:
            writer = csv.writer(f)
            writer.writerow(["vertex", "value"])
            writer.writerows(pairs)


def _write_rows(path: Path, spec: AlgorithmSpec, result: Result, meta: dict[str, Any], json_form: bool) -> None:
    """A result of several columns: CSV with the spec's header, or JSON ``columns`` and ``rows``."""
    order = np.lexsort((result.vertices,) if result.targets is None else (result.targets, result.vertices))
    rows = [[int(x) if i < len(spec.header()) - (1 + (result.extra is not None)) else _exact(x)
             for i, x in enumerate(row)] for row in zip(*(c[order] for c in result.columns()))]
    with open(path, "w", newline="") as f:
        if json_form:
            json.dump({**meta, "columns": list(spec.header()), "rows": rows}, f, indent=1)
            f.write("\n")
        else:
            writer = csv.writer(f)
            writer.writerow(spec.header())
            writer.writerows(rows)
