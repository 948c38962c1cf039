"""Edge lists (SNAP and similar): ``src dst`` or ``src dst weight``, one edge per line.

* Lines starting with ``comments`` (default ``#``) and blank lines are skipped.
* Fields are separated by whitespace; with ``delimiter=None`` a file whose first edge line
  holds a comma is read as comma-separated.  Every edge line has the same number of
  fields: 2, or 3 where the third is the weight.
* Vertex ids are any non-negative integers, in any order, with gaps.  The matrix has one
  row and column per distinct id, in increasing id order: row ``i`` is vertex ``ids[i]``.
* ``directed=False`` stores every edge in both directions.
* Self-loops are kept.  A repeated edge is stored once, with the weight of its **first**
  occurrence in the file (for an undirected graph, ``u v`` and ``v u`` are the same edge).
* Unweighted edges get the value ``True`` (BOOL) unless ``dtype`` says otherwise;
  weights are read as FP64 unless ``dtype`` names another type (integer types parse
  integers exactly and reject values that do not fit).
* Numbers are ASCII digits (``1_0`` and other scripts' digits are errors); a weight that
  overflows its type is an error, ``inf``/``nan`` written as such are read.  Comment
  lines may hold any bytes.
* The file is read in chunks, by the compiled strict parser where it was built (fields
  split by blanks), else by pyarrow's CSV reader where it is installed, and by a pure NumPy
  path otherwise or where the others decline or are unsure; all answer alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dtypes import BOOL, FP64, DataType, lookup_dtype
from ._chunks import ByteReader, LineMap, Progress
from ._coo import Coo, build_matrix, has_duplicates, keep_first, sorted_coo
from ._text import FastRecords, Records, Source, blank_comment_lines, cast_values, chunk_records, concat_columns
from .errors import FileFormatError

if TYPE_CHECKING:
    from ..matrix import Matrix

__all__ = ["EdgeList", "parse_edgelist", "read_edgelist", "edges_to_coo"]


@dataclass
class EdgeList:
    """A parsed edge list: the adjacency as COO (rows/cols are vertex numbers) and the original ids."""

    coo: Coo
    ids: np.ndarray
    directed: bool
    weighted: bool


def _preparer(prefixes: tuple[str, ...], delimiter: str | None, name: str,
              first_line: int) -> Callable[[str], str]:
    """The preparation of a chunk's text that starts on line ``first_line``: comment lines blanked,
    the delimiter turned into spaces."""
    return lambda text: _normalise_delimiter(blank_comment_lines(text, prefixes), delimiter, name, first_line)


def _normalise_delimiter(text: str, delimiter: str | None, name: str, first_line: int = 1) -> str:
    """Turn a delimiter into spaces, rejecting empty fields (``text`` starts on line ``first_line``)."""
    if delimiter is None or delimiter.isspace():
        return text
    d = re.escape(delimiter)
    empty = re.search(rf"(?m)^[ \t]*{d}|{d}[ \t]*({d}|$)", text)
    if empty is not None:
        line = first_line + text.count("\n", 0, empty.start())
        raise FileFormatError(f"empty field (delimiter {delimiter!r})", name, line)
    return text.replace(delimiter, " ")


def _first_data_line(reader: ByteReader, prefixes: tuple[str, ...]) -> str:
    """Skip the leading blank and comment lines; return the first data line (left unread), or ""."""
    marks = tuple(p.encode() for p in prefixes)
    while True:
        raw = reader.readline()
        if not raw:
            return ""
        stripped = raw.lstrip(b" \t\f\v")
        if not stripped.strip() or (marks and stripped.startswith(marks)):
            continue
        reader.unread(raw)
        return raw.decode("utf-8", "surrogateescape")


def _comment_prefixes(comments: str | Sequence[str] | None) -> tuple[str, ...]:
    if comments is None:
        return ()
    return (comments,) if isinstance(comments, str) else tuple(comments)


def _weights(records: Records | FastRecords, dtype: DataType) -> np.ndarray:
    if dtype.is_bool:
        return records.float_column(2, "weight") != 0
    return records.value_column(2, dtype, what="weight")


def _vertex_numbers(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sorted distinct ids and each endpoint's position among them (int32 where they fit:
    half the memory traffic of int64, and the CSR holds int32 indices anyway)."""
    if src.dtype != dst.dtype:
        src, dst = src.astype(np.uint64), dst.astype(np.uint64)
    n = len(src)
    top = int(max(src.max(), dst.max())) if n else 0
    if top < 4 * n + 1024:  # ids about as many as the edges: a presence map, no sort
        present = np.zeros(top + 1, dtype=bool)
        present[src] = True
        present[dst] = True
        ids = np.flatnonzero(present).astype(src.dtype)
        low = int(ids[0]) if len(ids) else 0
        if len(ids) == top + 1 - low:  # no gaps: a vertex's number is its id less the lowest
            return ids, _shifted(src, low), _shifted(dst, low)
        position = np.cumsum(present, dtype=np.int32 if top < 2**31 else np.int64)
        position -= 1
        return ids, position.take(src), position.take(dst)  # (take: faster than indexing)
    ids, inverse = np.unique(np.concatenate([src, dst]), return_inverse=True)
    inverse = inverse.astype(np.int64).reshape(-1)
    return ids, inverse[:n], inverse[n:]


def _shifted(ids: np.ndarray, low: int) -> np.ndarray:
    """``ids - low`` as int64 (``ids`` itself where nothing changes)."""
    if low == 0 and ids.dtype == np.int64:
        return ids
    return np.subtract(ids, low, dtype=np.int64)  # one pass, no copy first


def edges_to_coo(
    rows: np.ndarray, cols: np.ndarray, values: np.ndarray, n: int, dtype: DataType, *, directed: bool,
    constant: bool = False,
) -> Coo:
    """An ``n`` x ``n`` adjacency from edges in file order: both directions if undirected, first edge wins.

    The entries come sorted by row, then column (``values`` all alike: ``constant``).
    """
    values = cast_values(values, dtype)
    order = None
    if not directed:  # a mirrored edge takes its line's place (and its line's value)
        off = np.flatnonzero(rows != cols)
        order = np.concatenate([np.arange(len(rows), dtype=np.int64), off])
        rows, cols = np.concatenate([rows, cols.take(off)]), np.concatenate([cols, rows.take(off)])
        del off
    found = sorted_coo(rows, cols, values, n, n, dtype, order, constant=constant)
    if found is not None:
        return found[0]
    rows, cols = rows.astype(np.int64, copy=False), cols.astype(np.int64, copy=False)  # (keys too wide for int64)
    if order is not None:
        values = values.take(order)
    if has_duplicates(rows, cols, n, n, by_column=False):
        order = np.arange(len(rows), dtype=np.int64) if order is None else order
        rows, cols, values = keep_first(rows, cols, values, order)
    return Coo(rows, cols, values, n, n, dtype)


def _layout(first: str, delimiter: str | None, weighted: bool | None, dtype: Any) -> tuple[int | None, DataType]:
    """The width the first data line shows (None when not 2 or 3: the pure path reports it) and the value type."""
    width = len(first.replace(delimiter, " ").split()) if delimiter else len(first.split())
    known = width if width in (2, 3) else None
    use_weights = known == 3 and weighted is not False
    t = lookup_dtype(dtype) if dtype is not None else (FP64 if use_weights else BOOL)
    return known, t


def _kinds(width: int | None, t: DataType) -> tuple[str, ...] | None:
    if width is None:
        return None
    return ("int", "int") if width == 2 else ("int", "int", "float" if t.is_float or t.is_bool else "int")


def parse_edgelist(
    source: Source,
    *,
    directed: bool = True,
    weighted: bool | None = None,
    dtype: Any = None,
    comments: str | Sequence[str] | None = "#",
    delimiter: str | None = None,
    progress: Progress = None,
) -> EdgeList:
    """Read an edge list into NumPy COO arrays and the sorted original vertex ids.

    ``weighted=None`` uses the third column when there is one; ``True`` requires it;
    ``False`` ignores it.  The file is read in chunks; ``progress`` reports them (see
    :func:`~grblas_gpu.io.parse_matrix_market`).  See the module documentation for every rule.
    """
    prefixes = _comment_prefixes(comments)
    lines = LineMap()
    src, dst, weights = [], [], []
    with ByteReader(source) as reader:
        name = reader.name
        first = _first_data_line(reader, prefixes)
        if delimiter is None:
            delimiter = "," if "," in first else None
        width, t = _layout(first, delimiter, weighted, dtype)
        use_weights = width == 3 and weighted is not False
        for data, first_line, n in reader.chunks(progress):
            records = chunk_records(
                data, first_line, n, name, lines, kinds=_kinds(width, t), widths=(width,) if width else (2, 3),
                comments=prefixes, delimiter=delimiter,
                prepare=_preparer(prefixes, delimiter, name, first_line),
            )
            if weighted and len(records) and records.width == 2:
                raise records.error(0, "weighted=True, but the edges have no third (weight) column")
            src.append(records.id_column(0, "vertex id"))
            dst.append(records.id_column(1, "vertex id"))
            weights.append(_weights(records, t) if use_weights else np.ones(len(records), dtype=t.np_type))
    ids, rows, cols = _vertex_numbers(concat_columns(src, np.int64), concat_columns(dst, np.int64))
    del src, dst
    coo = edges_to_coo(rows, cols, concat_columns(weights, t.np_type), len(ids), t, directed=directed,
                       constant=not use_weights)
    return EdgeList(coo, ids, directed, use_weights)


def read_edgelist(
    path: Source,
    *,
    directed: bool = True,
    weighted: bool | None = None,
    dtype: Any = None,
    comments: str | Sequence[str] | None = "#",
    delimiter: str | None = None,
    backend: str | None = None,
    progress: Progress = None,
) -> tuple[Matrix, np.ndarray]:
    """Read an edge list (SNAP format) into ``(A, ids)``.

    ``A[i, j]`` is the edge from vertex ``ids[i]`` to vertex ``ids[j]`` (``ids`` sorted
    ascending, NumPy).  Values: the weights (FP64, or ``dtype``), else True (BOOL).
    Repeated edges keep their first occurrence; self-loops are kept.  ``progress`` reports
    the reading of long files (see :func:`~grblas_gpu.io.parse_matrix_market`).
    """
    edges = parse_edgelist(
        path, directed=directed, weighted=weighted, dtype=dtype, comments=comments, delimiter=delimiter,
        progress=progress,
    )
    return build_matrix(edges.coo, backend=backend), edges.ids
