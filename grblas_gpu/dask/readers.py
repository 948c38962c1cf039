"""Reading a graph file straight into partitions on the workers.

The client reads only the header.  Worker ``k`` reads the ``k``-th byte range of the data (a
line belongs to the range it starts in), parses it, and reports its largest vertex id and a
histogram of its rows; the client picks row offsets that balance the entries, and every
worker then sends each other the entries of their rows (Dask transfers: a load happens
once) and builds its row block.  No process ever holds the whole graph.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..dtypes import BOOL, FP64, DataType, lookup_dtype
from ..io import FileFormatError, mminfo
from ..matrix import Matrix
from .layout import Context, Layout, balanced_offsets, context_for
from .objects import DistMatrix
from .partition import default_client, pick_workers

__all__ = ["read_graph"]

_BUCKETS_PER_PART = 4096
"""Row histogram resolution: the row offsets balance the entries to about 1/this of a part."""


@dataclass(frozen=True)
class FileSpec:
    """What every worker needs to parse its byte range."""

    path: str
    start: int  # first byte of the data
    end: int  # file size
    columns: int  # 2 (pattern / unweighted) or 3
    one_based: bool
    mirror: bool  # add (j, i) for every (i, j), i != j
    negate_mirror: bool  # skew-symmetric
    dtype: DataType
    comment: tuple[bytes, ...]


def _byte_range(spec: FileSpec, k: int, nparts: int) -> tuple[int, int]:
    span = spec.end - spec.start
    return spec.start + span * k // nparts, spec.start + span * (k + 1) // nparts


def _read_range(spec: FileSpec, lo: int, hi: int) -> bytes:
    """The lines that start in ``[lo, hi)`` of the file."""
    with open(spec.path, "rb") as f:
        if lo > spec.start:
            f.seek(lo - 1)
            if f.read(1) != b"\n":
                f.readline()  # the line started in the range before
        else:
            f.seek(lo)
        pos = f.tell()
        data = f.read(max(hi - pos, 0))
        if data and not data.endswith(b"\n"):
            data += f.readline()
        return data


def _parse(spec: FileSpec, data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(rows, cols, values, weighted?) of the entries in ``data`` (0-based ids; mirrored as the
    file says)."""
    lines = [ln for ln in data.split(b"\n") if ln.strip() and not ln.lstrip().startswith(spec.comment)]
    tokens = b" ".join(lines).replace(b",", b" ").replace(b"\t", b" ").split()
    width = len(lines[0].replace(b",", b" ").split()) if lines else spec.columns
    if lines and (len(tokens) != width * len(lines) or width < 2):
        raise FileFormatError(f"{spec.path}: every data line needs the same 2 or 3 columns")
    cols = np.array(tokens, dtype=object).reshape(-1, width) if tokens else np.empty((0, max(width, 2)), object)
    try:
        r = cols[:, 0].astype(np.int64)
        c = cols[:, 1].astype(np.int64)
        if spec.dtype == BOOL or width < 3:
            v = np.ones(len(r), dtype=spec.dtype.np_type)
        else:
            v = cols[:, 2].astype(np.float64 if spec.dtype.is_float else np.int64).astype(spec.dtype.np_type)
    except ValueError as exc:
        raise FileFormatError(f"{spec.path}: {exc}") from None
    if spec.one_based:
        r, c = r - 1, c - 1
    if len(r) and min(int(r.min()), int(c.min())) < 0:
        raise FileFormatError(f"{spec.path}: a vertex id below {1 if spec.one_based else 0}")
    if spec.mirror:
        off = r != c
        mv = -v[off] if spec.negate_mirror else v[off]
        r, c, v = np.concatenate([r, c[off]]), np.concatenate([c, r[off]]), np.concatenate([v, mv])
    return r, c, v, width >= 3


def _load_piece(spec: FileSpec, k: int, nparts: int) -> tuple[Any, ...]:
    return _parse(spec, _read_range(spec, *_byte_range(spec, k, nparts)))


def _histogram(piece: tuple[np.ndarray, ...], n: int, buckets: int) -> np.ndarray:
    width = -(-n // buckets) if n else 1
    return np.bincount(piece[0] // width, minlength=buckets)[:buckets]


def _max_id(piece: tuple[Any, ...]) -> int:
    r, c = piece[:2]
    return int(max(r.max(), c.max())) if len(r) else -1


def _split_rows(piece: tuple[np.ndarray, ...], offsets: tuple[int, ...]) -> tuple[tuple[np.ndarray, ...], ...]:
    r, c, v = piece[:3]
    part = np.searchsorted(np.asarray(offsets), r, side="right") - 1
    order = np.argsort(part, kind="stable")
    cuts = np.searchsorted(part[order], np.arange(len(offsets)))
    return tuple((r[order[a:b]], c[order[a:b]], v[order[a:b]]) for a, b in itertools.pairwise(cuts))


def _build_block(lo: int, hi: int, ncols: int, dtype: DataType, dup_op: Any, backend: str,
                 *pieces: tuple[np.ndarray, ...]) -> Matrix:
    r = np.concatenate([p[0] for p in pieces]) - lo
    c = np.concatenate([p[1] for p in pieces])
    v = np.concatenate([p[2] for p in pieces])
    if len(c) and int(c.max()) >= ncols:
        raise FileFormatError(f"a column id {int(c.max())} is outside the {ncols} columns")
    return Matrix.from_coo(r, c, v, hi - lo, ncols, dtype=dtype, dup_op=dup_op, backend=backend)


def _reread_block(spec: FileSpec, nranges: int, lo: int, hi: int, ncols: int, dup_op: Any,
                  backend: str) -> Matrix:
    """Partition ``[lo, hi)`` read again from the whole file (to rebuild a lost partition)."""
    mine = []
    for k in range(nranges):
        r, c, v, _ = _load_piece(spec, k, nranges)
        keep = (r >= lo) & (r < hi)
        mine.append((r[keep], c[keep], v[keep]))
    return _build_block(lo, hi, ncols, spec.dtype, dup_op, backend, *mine)


def _spec_for(path: str, fmt: str, dtype: Any, directed: bool) -> tuple[FileSpec, int | None, int | None, bool]:
    size = os.path.getsize(path)
    if fmt == "matrixmarket":
        h = mminfo(path)
        if h.format != "coordinate":
            raise FileFormatError(f"{path}: only coordinate Matrix Market files are read distributed")
        t = lookup_dtype(dtype) if dtype is not None else h.dtype
        mirror = h.symmetry in ("symmetric", "skew-symmetric")
        spec = FileSpec(path, h.data_offset, size, 2 if h.field == "pattern" else 3, True, mirror,
                        h.symmetry == "skew-symmetric", t, (b"%",))
        return spec, h.nrows, h.ncols, h.symmetry == "symmetric"
    weights = lookup_dtype(dtype) if dtype is not None else FP64
    spec = FileSpec(path, 0, size, 3, False, not directed, False, weights, (b"#", b"%"))
    return spec, None, None, not directed


def read_graph(path: str | os.PathLike[str], client: Any = None, *, npartitions: int | None = None,
               format: str | None = None, dtype: Any = None, directed: bool = True, dup_op: Any = None,
               backend: str | None = None, exchange: str | None = None) -> DistMatrix:
    """A Matrix Market (coordinate) or edge-list file read straight into row blocks on the
    workers (every worker reads its own byte range; see the module docstring).

    ``format``: "matrixmarket" or "edgelist" (found from the banner where None).  Matrix Market:
    as :func:`grblas_gpu.io.mmread` (the header's type, symmetric files mirrored, duplicates an
    error unless ``dup_op``).  Edge lists: whitespace- or comma-separated ``src dst [weight]``,
    0-based ids used as they are (n = the largest id + 1; no renumbering), BOOL without weights
    and FP64 with them (or ``dtype``), ``directed=False`` adds every reverse edge, and a
    repeated edge keeps its first occurrence unless ``dup_op`` combines them.  The file must
    be readable at the same path by every worker.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        banner = f.read(14)
    fmt = format or ("matrixmarket" if banner.startswith(b"%%MatrixMarket") else "edgelist")
    if fmt not in ("matrixmarket", "edgelist"):
        raise FileFormatError(f"read_graph: format must be 'matrixmarket' or 'edgelist', got {fmt!r}")
    spec, nrows, ncols, symmetric = _spec_for(path, fmt, dtype, directed)
    client = default_client(client)
    ctx = context_for(client, pick_workers(client, npartitions), backend, exchange)
    n = len(ctx.workers)
    pieces = [ctx.submit(_load_piece, spec, k, n, part=k) for k in range(n)]
    if fmt == "edgelist":
        widths = ctx.gather([ctx.submit(_value_kind, p, part=k) for k, p in enumerate(pieces)], "read_graph")
        if dtype is None and not any(widths):
            spec = FileSpec(**{**spec.__dict__, "dtype": BOOL})
        top = max(ctx.gather([ctx.submit(_max_id, p, part=k) for k, p in enumerate(pieces)], "read_graph"))
        nrows = ncols = top + 1
        if dup_op is None:
            from ..operators import binary

            dup_op = binary.first
    assert nrows is not None and ncols is not None  # from the header, or the largest id
    buckets = min(nrows, _BUCKETS_PER_PART * n) or 1
    hist = ctx.gather([ctx.submit(_histogram, p, nrows, buckets, part=k) for k, p in enumerate(pieces)],
                      "read_graph")
    width = -(-nrows // buckets) if nrows else 1
    cuts = balanced_offsets(np.sum(hist, axis=0), n)
    offsets = tuple(min(x * width, nrows) for x in cuts[:-1]) + (nrows,)
    return _assemble(ctx, spec, pieces, offsets, ncols, dup_op, symmetric)


def _value_kind(piece: tuple[np.ndarray, ...]) -> bool:
    """Whether this piece has a weight column (values other than the default 1)."""
    return bool(piece[3])


def _assemble(ctx: Context, spec: FileSpec, pieces: list[Any], offsets: tuple[int, ...], ncols: int, dup_op: Any,
              symmetric: bool) -> DistMatrix:
    n = len(ctx.workers)
    split = [ctx.submit(_split_rows, p, offsets, part=k) for k, p in enumerate(pieces)]
    parts = [[ctx.submit(_getitem, split[k], q, part=k) for q in range(n)] for k in range(n)]
    blocks = [ctx.submit(_build_block, offsets[q], offsets[q + 1], ncols, spec.dtype, dup_op, ctx.backend,
                         *[parts[k][q] for k in range(n)], part=q) for q in range(n)]
    ctx.wait(blocks, "read_graph")

    def recipe(new_ctx: Context, k: int, lo: int, hi: int) -> Any:
        return new_ctx.submit(_reread_block, spec, n, lo, hi, ncols, dup_op, new_ctx.backend, part=k)

    return DistMatrix._make(Layout(ctx, offsets), spec.dtype, blocks, os.path.basename(spec.path), ncols=ncols,
                            symmetric=True if symmetric else None, recipe=recipe)


def _getitem(t: Any, i: int) -> Any:
    return t[i]
