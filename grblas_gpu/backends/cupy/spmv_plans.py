"""How the CuPy backend's SpMV splits a matrix's work: the plan made once per matrix (merge-path
tiles, rows binned by length) and the cache of its most used columns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cupy
import numpy as np

from . import codegen
from .common import _BLOCK, occurrences
from .core import CupyCore

__all__ = ["SpmvPlan", "ColumnCache", "SpmvPlanning"]

_LONG_ROW = 2048  # SpMV rows longer than this get a block of their own
_PLAN_MIN_NNZ = 1 << 20  # smaller matrices run SpMV as one launch without a plan


@dataclass(frozen=True)
class SpmvPlan:
    """How SpMV splits one matrix's work, made once per matrix (:meth:`CupyBackend.spmv_plan`).

    ``tile_row``: the row at the start of each merge-path tile (merge schedule), or None for
    small matrices (one launch over every row, which ``derived`` keeps prepared).
    ``classes`` and ``long_rows``: rows binned by length as (lanes per row, rows) classes and
    the rows that get a block each (vector schedule), or None; ``class_rows``: the classes'
    rows one after another (each class's rows a slice of it).  ``indices`` and ``ncols``: the
    matrix's column indices and width, from which the first merge-path pull that reads the
    vector makes its :class:`ColumnCache`; ``indptr``: its row pointers.  ``derived`` keeps
    what is made on first use: that cache, the prepared launches of a small matrix, of the
    merge schedule and of the length classes (for the plan's own arrays), and the merge
    schedule's per-tile carry arrays by result type and scratch presence, reused because
    kernels on one stream run in order (a call's fix-up has read them before the next call's
    main kernel writes them).
    """

    tile_row: cupy.ndarray | None
    classes: list[tuple[int, cupy.ndarray]] | None
    long_rows: cupy.ndarray | None
    indices: cupy.ndarray | None = None
    ncols: int = 0
    indptr: cupy.ndarray | None = None
    derived: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    class_rows: cupy.ndarray | None = field(default=None, compare=False, repr=False)

    def scratch_presence(self, nrows: int) -> cupy.ndarray:
        """A presence array of ``nrows`` that the merge kernels write and nothing reads after
        them (for a result whose presence the caller knows), reused as the carry arrays are."""
        key = ("scratch presence", nrows)
        if key not in self.derived:
            self.derived[key] = cupy.empty(nrows, dtype=np.bool_)
        return self.derived[key]

    def carry_arrays(self, dtype: Any) -> tuple[cupy.ndarray, ...]:
        """(row, value, valid) arrays, one entry per merge tile, for results of ``dtype``."""
        key = ("carries", np.dtype(dtype))
        if key not in self.derived:
            ntiles = self.tile_row.size - 1  # type: ignore[union-attr]
            self.derived[key] = (cupy.empty(ntiles, dtype=np.int64), cupy.empty(ntiles, dtype=dtype),
                                 cupy.empty(ntiles, dtype=np.bool_))
        return self.derived[key]


@dataclass(frozen=True)
class ColumnCache:
    """The most used columns of a power-law matrix, gathered next to each other per product.

    ``hot``: the columns holding the most entries, most used first; ``indices``: the matrix's
    column indices with each hot column c written as ``~i``, i its place in ``hot``.  Before
    a pull, the merge module's ``gather`` copies ``x[hot]`` (and the presence flags of a
    vector with absent entries) where those indices point: a hub's value then shares its
    cache line with other hubs' instead of seven cold neighbours'.  Kron scale 22, FP32,
    2**18 hot columns holding 85% of the entries, gather included, three runs: the kernel
    alone 0.64 -> 0.61-0.62 ms; through the API on the symmetric graph plus_times
    1.24-1.34 -> 1.18-1.23 ms, plus_second 1.18-1.26 -> 1.07-1.12 ms, min_plus with half of
    x present 1.73 -> 1.55 ms.
    """

    hot: cupy.ndarray
    indices: cupy.ndarray
    gathered: dict[Any, cupy.ndarray] = field(default_factory=dict, compare=False, repr=False)

    def buffer(self, dtype: Any) -> cupy.ndarray:
        """The gather's output for values of ``dtype`` (None: presence flags), made once and
        reused (one stream runs a call's gather only after the previous pull has read it)."""
        key = None if dtype is None else np.dtype(dtype)
        if key not in self.gathered:
            self.gathered[key] = cupy.empty(self.hot.size, dtype=np.bool_ if key is None else key)
        return self.gathered[key]


class SpmvPlanning(CupyCore):
    """Makes the :class:`SpmvPlan` of a matrix."""

    merge_min_nnz = 1 << 16
    """Matrices with at least this many entries get merge-path SpMV (where it applies)."""

    def spmv_plan(self, indptr: Any, indices: Any = None, ncols: int = 0) -> SpmvPlan:
        """How :meth:`spmv` splits a matrix's work.

        No split for fewer than ``merge_min_nnz`` entries: one launch over every row, kept
        prepared for the matrix's own arrays.  Merge-path tiles for larger matrices; for those of at
        least ``_PLAN_MIN_NNZ`` entries, also rows binned by length for the vector schedule:
        rows of up to 32 entries go to the class of the next power of two, each class run with
        that many lanes per row; longer rows get a block each.  With the column ``indices`` (of
        a matrix ``ncols`` wide) the plan can also make a :class:`ColumnCache` when first
        asked.  Computed once per matrix.
        """
        ptr = cupy.asarray(indptr)
        nnz = int(ptr[-1]) if ptr.size else 0
        ptr, idx = self._csr_arrays(ptr, indices) if indices is not None else (self._index_array(ptr), None)
        if nnz < self.merge_min_nnz:
            return SpmvPlan(None, None, None, idx, int(ncols), ptr)
        classes, long_rows, class_rows = _row_classes(ptr) if nnz >= _PLAN_MIN_NNZ else (None, None, None)
        return SpmvPlan(_merge_tiles(ptr, nnz), classes, long_rows, idx, int(ncols), ptr, class_rows=class_rows)


def _hot_columns(idx: cupy.ndarray, ncols: int, count: int, min_share: float) -> ColumnCache | None:
    """A :class:`ColumnCache` of the ``count`` most used columns, or None when they hold less
    than ``min_share`` of the entries."""
    uses = occurrences(idx, ncols)
    hot = cupy.argsort(-uses)[:count]
    if int(uses[hot].sum()) < min_share * idx.size:
        return None
    slot = cupy.full(ncols, -1, dtype=idx.dtype)
    slot[hot] = cupy.arange(count, dtype=idx.dtype)
    indices = slot[idx]
    cold = indices < 0
    cupy.invert(indices, out=indices)
    cupy.copyto(indices, idx, where=cold)
    return ColumnCache(hot.astype(idx.dtype), indices)


def _merge_tiles(ptr: cupy.ndarray, nnz: int) -> cupy.ndarray:
    """The row at each tile boundary of the merge path over (row ends, entries).

    At diagonal d the path has taken the ends of the rows i with indptr[i+1] + i + 1 <= d (a
    row ends before entry j is taken when indptr[i+1] <= j), so the row there is their count.
    """
    nrows = ptr.size - 1
    ntiles = -(-(nrows + nnz) // codegen.MERGE_TILE)
    ends = ptr[1:].astype(np.int64) + cupy.arange(1, nrows + 1, dtype=np.int64)
    diagonals = cupy.arange(ntiles + 1, dtype=np.int64) * codegen.MERGE_TILE
    return cupy.searchsorted(ends, diagonals, side="right").astype(np.int64)


def _class_table(classes: list[tuple[int, cupy.ndarray]], lanes: int) -> tuple[cupy.ndarray, int]:
    """The binned kernel's table of length classes, (first block, first row, rows, lanes a
    row) each (lanes capped at ``lanes``), and the blocks of all classes together."""
    entries, block, row = [], 0, 0
    for group, rows in classes:
        g, n = min(group, lanes), int(rows.size)
        entries.append((block, row, n, g))
        block, row = block + -(-n * g // _BLOCK), row + n
    return cupy.asarray(np.array(entries, dtype=np.int64).reshape(-1)), block


def _row_classes(ptr: cupy.ndarray) -> tuple[list[tuple[int, cupy.ndarray]], cupy.ndarray, cupy.ndarray]:
    """Rows binned by length for the vector schedule: (lanes, rows) classes, the long rows, and
    every classed row in class order (the classes' rows are consecutive slices of it)."""
    lengths = cupy.diff(ptr.astype(np.int64))
    classes = cupy.zeros(lengths.size, dtype=np.int8)  # class c: group 2**c, c = 0..5; 6 = long
    for c in range(1, 6):
        classes += (lengths > (1 << (c - 1))).astype(np.int8)
    classes += (lengths > _LONG_ROW).astype(np.int8)
    order = cupy.argsort(classes, kind="stable").astype(np.int64)
    counts = cupy.bincount(classes.astype(np.int64), minlength=7).get()
    bounds = np.concatenate([[0], np.cumsum(counts)])
    groups = [(1 << c, order[bounds[c]:bounds[c + 1]]) for c in range(6) if counts[c]]
    return groups, order[bounds[6]:bounds[7]], order[:bounds[6]]
