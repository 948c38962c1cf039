"""LDBC Graphalytics graphs: ``<name>.v`` (vertex ids), ``<name>.e`` (edges) and ``<name>.properties``.

* ``.v``: one vertex id per line (non-negative integers, not necessarily 1..n, with gaps);
  the matrix has a row per id in increasing order: row ``i`` is vertex ``ids[i]``.
* ``.e``: ``src dst`` or ``src dst weight``; every id must be in the ``.v`` file.  An
  undirected graph lists each edge once: both directions are stored.  Self-loops are kept;
  a repeated edge keeps its first occurrence (the spec allows neither).
* ``.properties``: ``graph.<name>.<key> = <value>`` lines.  :func:`parse_properties`
  returns the keys without the ``graph.<name>.`` prefix (``directed``,
  ``bfs.source-vertex``, ``pr.damping-factor``, ``pr.num-iterations``,
  ``edge-properties.names``, ...), with values as bool, int, float, list or str.
* The files are found by name: ``<prefix>.v`` and ``<prefix>.e``.  The ``vertex-file`` and
  ``edge-file`` properties are used only when those are missing, because published
  files get them wrong (``test-sssp-undirected.properties`` names the ``.v`` file as
  its edge file).
* Directedness: the ``directed=`` argument, else the ``directed`` property; without
  either the reader asks for the argument.
* Weights: a third column is read as FP64 (INT64 when the ``edge-properties.types``
  property says ``int``/``long``); without one every edge is True (BOOL).
* Numbers are ASCII digits (``1_0`` and other scripts' digits are errors naming the
  line); a weight that overflows is an error.  The ``.v`` and ``.e`` files are read in
  chunks, by pyarrow's CSV reader where it is installed (see :mod:`grblas_gpu.io`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dtypes import BOOL, FP64, INT64, DataType
from ..exceptions import InvalidValue
from ._chunks import ByteReader, LineMap, Progress
from ._coo import build_matrix, map_ids
from ._text import (
    FastRecords,
    Records,
    Source,
    chunk_records,
    concat_columns,
    line_iter,
    parse_float_column,
    parse_id_column,
    read_text,
    split_records,
)
from .edgelist import edges_to_coo
from .errors import FileFormatError

if TYPE_CHECKING:
    from ..matrix import Matrix

__all__ = [
    "GraphalyticsGraph",
    "GraphalyticsFiles",
    "find_graphalytics_files",
    "parse_properties",
    "read_graphalytics",
    "read_graphalytics_output",
]

_SUFFIXES = (".v", ".e", ".properties")
_LIST_KEYS = ("algorithms", "edge-properties.names", "edge-properties.types")
_INT_TYPES = ("int", "integer", "long")


@dataclass
class GraphalyticsGraph:
    """A Graphalytics graph: ``matrix`` (row ``i`` is vertex ``ids[i]``), ``ids`` (NumPy, sorted),
    ``directed``, ``properties`` (from the ``.properties`` file, {} without one), ``name``,
    ``weighted``."""

    matrix: Matrix
    ids: np.ndarray
    directed: bool
    properties: dict[str, Any] = field(default_factory=dict)
    name: str = ""
    weighted: bool = False

    def index_of(self, vertex_id: int) -> int:
        """The row of the vertex whose original id is ``vertex_id`` (KeyError if absent)."""
        pos, missing = map_ids(self.ids, np.asarray([vertex_id], dtype=self.ids.dtype))
        if missing[0]:
            raise KeyError(f"vertex {vertex_id} is not in graph {self.name!r}")
        return int(pos[0])


@dataclass
class GraphalyticsFiles:
    """The files of one Graphalytics graph (``properties`` is None when there is none; ``settings``
    is what it says, parsed)."""

    name: str
    vertices: Path
    edges: Path
    properties: Path | None
    settings: dict[str, Any] = field(default_factory=dict)


# ----------------------------------------------------------------------------- properties


def _convert(key: str, value: str) -> Any:
    if key.endswith(_LIST_KEYS):
        return [v.strip() for v in value.split(",") if v.strip()]
    low = value.lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def _graph_name(keys: list[str], default: str) -> str:
    if any(k.startswith(f"graph.{default}.") for k in keys):
        return default
    for k in keys:
        for tail in (".vertex-file", ".edge-file", ".directed"):
            if k.startswith("graph.") and k.endswith(tail):
                return k[len("graph.") : -len(tail)]
    return default


def parse_properties(source: Source, graph_name: str | None = None) -> dict[str, Any]:
    """The settings of a ``.properties`` file, keys without their ``graph.<name>.`` prefix.

    ``graph_name`` defaults to the file's stem.  Values are converted: ``true``/``false``
    -> bool, numbers -> int or float, ``algorithms`` and ``edge-properties.*`` -> lists.
    """
    text, name = read_text(source)
    raw: dict[str, str] = {}
    for lineno, _, line in line_iter(text):
        s = line.strip()
        if not s or s[0] in "#!":
            continue
        if any("\udc80" <= ch <= "\udcff" for ch in s):
            raise FileFormatError("a byte that is not UTF-8 text", name, lineno)
        sep = min((i for i in (s.find("="), s.find(":")) if i > 0), default=-1)
        if sep < 0:
            raise FileFormatError(f"expected 'key = value', found {s[:40]!r}", name, lineno)
        raw[s[:sep].strip()] = s[sep + 1 :].strip()
    stem = graph_name or Path(name).name.removesuffix(".properties")
    prefix = f"graph.{_graph_name(list(raw), stem)}."
    return {k.removeprefix(prefix): _convert(k.removeprefix(prefix), v) for k, v in raw.items()}


# ----------------------------------------------------------------------------- files


def find_graphalytics_files(path: str | os.PathLike[str]) -> GraphalyticsFiles:
    """Locate a graph's ``.v``, ``.e`` and ``.properties`` from its prefix or any of them."""
    p = Path(os.fspath(path))
    prefix = p.with_suffix("") if p.suffix in _SUFFIXES else p
    props = prefix.with_name(prefix.name + ".properties")
    props_path = props if props.is_file() else None
    settings = parse_properties(props_path, prefix.name) if props_path else {}
    vfile = _pick(prefix, ".v", settings.get("vertex-file"))
    efile = _pick(prefix, ".e", settings.get("edge-file"))
    return GraphalyticsFiles(prefix.name, vfile, efile, props_path, settings)


def _pick(prefix: Path, suffix: str, named: Any) -> Path:
    conventional = prefix.with_name(prefix.name + suffix)
    if conventional.is_file():
        return conventional
    if isinstance(named, str) and (prefix.parent / named).is_file():
        return prefix.parent / named
    what = "vertex" if suffix == ".v" else "edge"
    raise FileNotFoundError(f"Graphalytics graph {str(prefix)!r}: {what} file {conventional} not found")


# ----------------------------------------------------------------------------- reading


def _read_vertices(path: Path, progress: Progress) -> np.ndarray:
    lines = LineMap()
    parts = []
    with ByteReader(path) as reader:
        for data, first, n in reader.chunks(progress):
            records = chunk_records(data, first, n, reader.name, lines, kinds=("int",), widths=1)
            parts.append(records.id_column(0, "vertex id"))
    ids = concat_columns(parts, np.int64)
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    repeat = np.flatnonzero(sorted_ids[1:] == sorted_ids[:-1])
    if len(repeat):
        later = int(max(order[repeat[0]], order[repeat[0] + 1]))
        raise FileFormatError(f"vertex id {ids[later]} is listed twice", reader.name, lines.line(later))
    return sorted_ids


def _first_width(reader: ByteReader) -> int | None:
    """The number of fields on the first non-blank line (left unread), None when not 2 or 3."""
    while True:
        raw = reader.readline()
        if not raw:
            return None
        if raw.strip():
            reader.unread(raw)
            width = len(raw.split())
            return width if width in (2, 3) else None


def _edge_type(width: int | None, settings: dict[str, Any]) -> DataType:
    if width != 3:
        return BOOL
    types = [str(t).lower() for t in settings.get("edge-properties.types", [])]
    return INT64 if types and types[0] in _INT_TYPES else FP64


def _edge_rows(records: Records | FastRecords, column: int, ids: np.ndarray, vfile: Path) -> np.ndarray:
    wanted = records.id_column(column, "vertex id")
    if wanted.dtype != ids.dtype:
        wanted, ids = wanted.astype(np.uint64), ids.astype(np.uint64)
    pos, missing = map_ids(ids, wanted)
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise records.error(i, f"vertex {wanted[i]} is not in the vertex file {vfile.name}")
    return pos


def _directed(directed: bool | None, settings: dict[str, Any], name: str) -> bool:
    if directed is not None:
        return bool(directed)
    if isinstance(settings.get("directed"), bool):
        return settings["directed"]
    raise InvalidValue(f"Graphalytics graph {name!r} has no 'directed' property: pass directed=True or False")


def _read_edges(path: Path, ids: np.ndarray, settings: dict[str, Any], vfile: Path,
                progress: Progress) -> tuple[np.ndarray, np.ndarray, np.ndarray, DataType]:
    """Rows, columns and values of the ``.e`` file's edges, in file order, and the value type."""
    lines = LineMap()
    rows, cols, values = [], [], []
    with ByteReader(path) as reader:
        width = _first_width(reader)
        t = _edge_type(width, settings)
        kinds = None if width is None else ("int", "int", "float" if t.is_float else "int")[:width]
        for data, first, n in reader.chunks(progress):
            records = chunk_records(data, first, n, reader.name, lines, kinds=kinds,
                                    widths=(width,) if width else (2, 3))
            rows.append(_edge_rows(records, 0, ids, vfile))
            cols.append(_edge_rows(records, 1, ids, vfile))
            if t == BOOL:
                values.append(np.ones(len(records), dtype=bool))
            else:
                values.append(records.value_column(2, t, what="weight"))
    join = concat_columns
    return join(rows, np.int64), join(cols, np.int64), join(values, t.np_type), t


def read_graphalytics(
    path: str | os.PathLike[str], *, directed: bool | None = None, backend: str | None = None,
    progress: Progress = None,
) -> GraphalyticsGraph:
    """Read a Graphalytics graph given its prefix (``dir/example-directed``) or any of its files.

    Returns a :class:`GraphalyticsGraph`; see the module documentation for every rule.
    ``progress`` reports the reading of long files (see :func:`~grblas_gpu.io.parse_matrix_market`).
    """
    files = find_graphalytics_files(path)
    settings = files.settings
    is_directed = _directed(directed, settings, files.name)
    ids = _read_vertices(files.vertices, progress)
    rows, cols, values, t = _read_edges(files.edges, ids, settings, files.vertices, progress)
    coo = edges_to_coo(rows, cols, values, len(ids), t, directed=is_directed, constant=t == BOOL)
    matrix = build_matrix(coo, backend=backend)
    return GraphalyticsGraph(matrix, ids, is_directed, settings, files.name, t != BOOL)


def _output_value(token: str) -> int | float:
    try:
        return int(token)
    except ValueError:
        return float(token)


def read_graphalytics_output(path: Source) -> dict[int, int | float]:
    """An expected-output file (``vertex value`` lines) as ``{vertex id: value}``.

    Integer values stay ``int`` (BFS depths, labels; INT64_MAX exactly); others are
    ``float``, with ``infinity``/``Infinity`` as ``math.inf``.
    """
    text, name = read_text(path)
    records = split_records(text, name=name, widths=2)
    vertices = parse_id_column(records, 0, "vertex id").tolist()
    parse_float_column(records, 1)  # validates every value, reporting the line of a bad one
    values = [_output_value(tok) for tok in records.column(1)]
    out: dict[int, int | float] = {}
    for i, (v, x) in enumerate(zip(vertices, values)):
        if v in out:
            raise records.error(i, f"vertex {v} is listed twice")
        out[v] = x
    return out
