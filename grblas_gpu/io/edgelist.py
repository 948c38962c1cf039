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
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dtypes import BOOL, FP64, DataType, lookup_dtype
from ._coo import Coo, build_matrix, keep_first, mirror
from ._text import (
    Records,
    Source,
    blank_comment_lines,
    cast_values,
    line_iter,
    parse_float_column,
    parse_id_column,
    parse_value_column,
    read_text,
    split_records,
)
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


def _normalise_delimiter(text: str, delimiter: str | None, name: str) -> str:
    """Turn a delimiter into spaces, rejecting empty fields; None: comma if the first line has one."""
    if delimiter is None:
        delimiter = "," if "," in _first_data_line(text) else None
    if delimiter is None or delimiter.isspace():
        return text
    d = re.escape(delimiter)
    empty = re.search(rf"(?m)^[ \t]*{d}|{d}[ \t]*({d}|$)", text)
    if empty is not None:
        raise FileFormatError(f"empty field (delimiter {delimiter!r})", name, text.count("\n", 0, empty.start()) + 1)
    return text.replace(delimiter, " ")


def _first_data_line(text: str) -> str:
    for _, _, line in line_iter(text):
        if line.strip():
            return line
    return ""


def _comment_prefixes(comments: str | Sequence[str] | None) -> tuple[str, ...]:
    if comments is None:
        return ()
    return (comments,) if isinstance(comments, str) else tuple(comments)


def _weights(records: Records, dtype: DataType) -> np.ndarray:
    if dtype.is_float:
        return parse_float_column(records, 2, "weight").astype(dtype.np_type)
    if dtype.is_bool:
        return parse_float_column(records, 2, "weight") != 0
    return parse_value_column(records, 2, dtype, what="weight")


def _vertex_numbers(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if src.dtype != dst.dtype:
        src, dst = src.astype(np.uint64), dst.astype(np.uint64)
    ids, inverse = np.unique(np.concatenate([src, dst]), return_inverse=True)
    inverse = inverse.astype(np.int64).reshape(-1)
    return ids, inverse[: len(src)], inverse[len(src) :]


def edges_to_coo(
    rows: np.ndarray, cols: np.ndarray, values: np.ndarray, n: int, dtype: DataType, *, directed: bool
) -> Coo:
    """An ``n`` x ``n`` adjacency from edges in file order: both directions if undirected, first edge wins."""
    order = np.arange(len(rows), dtype=np.int64)
    if not directed:
        rows, cols, values, order = mirror(rows, cols, values, order)
    rows, cols, values = keep_first(rows, cols, values, order)
    return Coo(rows, cols, cast_values(values, dtype), n, n, dtype)


def parse_edgelist(
    source: Source,
    *,
    directed: bool = True,
    weighted: bool | None = None,
    dtype: Any = None,
    comments: str | Sequence[str] | None = "#",
    delimiter: str | None = None,
) -> EdgeList:
    """Read an edge list into NumPy COO arrays and the sorted original vertex ids.

    ``weighted=None`` uses the third column when there is one; ``True`` requires it;
    ``False`` ignores it.  See the module documentation for every rule.
    """
    text, name = read_text(source)
    text = blank_comment_lines(text, _comment_prefixes(comments))
    text = _normalise_delimiter(text, delimiter, name)
    records = split_records(text, name=name, widths=(2, 3))
    del text
    if weighted and len(records) and records.width == 2:
        raise records.error(0, "weighted=True, but the edges have no third (weight) column")
    use_weights = records.width == 3 and weighted is not False
    t = lookup_dtype(dtype) if dtype is not None else (FP64 if use_weights else BOOL)
    src = parse_id_column(records, 0, "vertex id")
    dst = parse_id_column(records, 1, "vertex id")
    values = _weights(records, t) if use_weights else np.ones(len(records), dtype=t.np_type)
    ids, rows, cols = _vertex_numbers(src, dst)
    coo = edges_to_coo(rows, cols, values, len(ids), t, directed=directed)
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
) -> tuple[Matrix, np.ndarray]:
    """Read an edge list (SNAP format) into ``(A, ids)``.

    ``A[i, j]`` is the edge from vertex ``ids[i]`` to vertex ``ids[j]`` (``ids`` sorted
    ascending, NumPy).  Values: the weights (FP64, or ``dtype``), else True (BOOL).
    Repeated edges keep their first occurrence; self-loops are kept.
    """
    edges = parse_edgelist(
        path, directed=directed, weighted=weighted, dtype=dtype, comments=comments, delimiter=delimiter
    )
    return build_matrix(edges.coo, backend=backend), edges.ids
