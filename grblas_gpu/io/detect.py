"""One entry point for every graph file: :func:`read_graph` detects the format and reads it.

Detection, first that applies: ``format=``; a ``.mtx``/``.mm`` name (``.gz`` allowed) ->
Matrix Market; a ``.v``/``.e``/``.properties`` name, or a prefix with ``.v`` and ``.e``
siblings -> Graphalytics; a file starting with ``%%MatrixMarket`` -> Matrix Market;
anything else -> edge list.
"""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..exceptions import InvalidValue
from .edgelist import read_edgelist
from .graphalytics import read_graphalytics
from .matrixmarket import read_matrix_market

if TYPE_CHECKING:
    from ..matrix import Matrix

__all__ = ["LoadedGraph", "detect_format", "read_graph", "FORMATS"]

#: Format names accepted by ``format=`` (aliases map to the first three).
FORMATS = {
    "matrixmarket": "matrixmarket",
    "mtx": "matrixmarket",
    "mm": "matrixmarket",
    "graphalytics": "graphalytics",
    "ldbc": "graphalytics",
    "edgelist": "edgelist",
    "snap": "edgelist",
}


@dataclass
class LoadedGraph:
    """A graph read by :func:`read_graph`.

    ``ids`` maps row ``i`` to the file's vertex id (None for Matrix Market, whose rows are
    the ids minus one); ``format`` is ``"matrixmarket"``, ``"graphalytics"`` or
    ``"edgelist"``; ``directed`` is False for symmetric Matrix Market files, undirected
    Graphalytics graphs and edge lists read with ``directed=False``; ``properties`` holds
    the Graphalytics settings, or the Matrix Market header (``field``, ``symmetry``,
    ``comments``, ...).
    """

    matrix: Matrix
    ids: np.ndarray | None
    format: str
    directed: bool
    properties: dict[str, Any] = field(default_factory=dict)


def _strip_gz(p: Path) -> Path:
    return p.with_suffix("") if p.suffix == ".gz" else p


def _starts_with_banner(p: Path) -> bool:
    try:
        opener = gzip.open if p.suffix == ".gz" else open
        with opener(p, "rb") as f:
            return f.read(14).lower() == b"%%matrixmarket"
    except OSError:
        return False


def detect_format(path: str | os.PathLike[str]) -> str:
    """``"matrixmarket"``, ``"graphalytics"`` or ``"edgelist"`` for ``path`` (see the module doc)."""
    p = Path(os.fspath(path))
    suffix = _strip_gz(p).suffix.lower()
    if suffix in (".mtx", ".mm"):
        return "matrixmarket"
    if suffix in (".v", ".e", ".properties"):
        return "graphalytics"
    if not p.is_file() and p.with_name(p.name + ".v").is_file() and p.with_name(p.name + ".e").is_file():
        return "graphalytics"
    if _starts_with_banner(p):
        return "matrixmarket"
    return "edgelist"


def _matrix_market(path: Path, *, dtype: Any = None, dup_op: Any = None, backend: str | None = None,
                   progress: Any = None) -> LoadedGraph:
    A, header = read_matrix_market(path, dtype=dtype, dup_op=dup_op, backend=backend, progress=progress)
    props = {k: getattr(header, k) for k in ("format", "field", "symmetry", "nrows", "ncols", "comments")}
    props["dtype"] = A.dtype
    return LoadedGraph(A, None, "matrixmarket", header.symmetry == "general", props)


def _graphalytics(path: Path, **kw: Any) -> LoadedGraph:
    g = read_graphalytics(path, **kw)
    return LoadedGraph(g.matrix, g.ids, "graphalytics", g.directed, dict(g.properties))


def _edgelist(path: Path, **kw: Any) -> LoadedGraph:
    A, ids = read_edgelist(path, **kw)
    return LoadedGraph(A, ids, "edgelist", bool(kw.get("directed", True)), {})


_READERS = {"matrixmarket": _matrix_market, "graphalytics": _graphalytics, "edgelist": _edgelist}


def read_graph(path: str | os.PathLike[str], *, format: str | None = None, **kw: Any) -> LoadedGraph:
    """Read a graph file of any supported format into a :class:`LoadedGraph`.

    ``format`` overrides detection (``"matrixmarket"``/``"mtx"``, ``"graphalytics"``/
    ``"ldbc"``, ``"edgelist"``/``"snap"``).  Other keywords go to the reader:
    :func:`~grblas_gpu.io.mmread`, :func:`~grblas_gpu.io.read_graphalytics` or
    :func:`~grblas_gpu.io.read_edgelist` (``backend=`` and ``progress=`` work for all three).
    """
    if format is None:
        kind = detect_format(path)
    elif format.lower() in FORMATS:
        kind = FORMATS[format.lower()]
    else:
        raise InvalidValue(f"unknown graph format {format!r}: use one of {', '.join(sorted(FORMATS))}")
    return _READERS[kind](Path(os.fspath(path)), **kw)
