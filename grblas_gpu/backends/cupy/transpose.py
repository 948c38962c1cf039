"""The CSR transpose on the GPU by a counting sort (kernels in ``templates/transpose.cu``).

It allocates the transpose's own arrays and ``ncols``-sized work only: the column counts give
the pointers, each entry's row is placed in its column's next free slot (taken by atomics),
each column's rows are then sorted in place (a thread per short column, a block per medium
one, batches of long ones by one sort of packed keys each), and each entry's value is read from the matrix row it came
from by a binary search.  A sorting permutation of the entries (int64) and their rows and
columns as sorting keys are never built, so the peak is the transpose plus a few
``ncols``-sized arrays, not about 20 bytes more an entry.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import cupy
import numpy as np

from .codegen import KernelModule
from .transpose_codegen import SHORT, VALUE_BITS, block_keys, transpose_module

__all__ = ["transpose_csr"]

_BLOCK = 256
_BLOCKS_PER_SM = 8


@functools.cache
def _sm_count(device: int) -> int:
    return int(cupy.cuda.runtime.getDeviceProperties(device)["multiProcessorCount"])


def _grid(n: int) -> int:
    """Blocks for a grid-stride loop over ``n`` items."""
    return max(1, min((n + _BLOCK - 1) // _BLOCK, _BLOCKS_PER_SM * _sm_count(cupy.cuda.Device().id)))


def applies(values: Any) -> bool:
    """Whether values of this array's type can be copied by the kernels (1, 2, 4 or 8 bytes)."""
    return int(values.dtype.itemsize) in VALUE_BITS


def transpose_csr(function: Callable[[KernelModule, str], Any], ptr: cupy.ndarray, idx: cupy.ndarray,
                  vals: cupy.ndarray, nrows: int, ncols: int, tptr_type: Any,
                  row_type: Any) -> tuple[cupy.ndarray, cupy.ndarray, cupy.ndarray]:
    """(pointers, row indices, values) of the transpose of the ``nrows`` x ``ncols`` CSR
    (``ptr``, ``idx``, ``vals``: sorted, duplicate-free rows), with ``tptr_type`` pointers and
    ``row_type`` rows; rows sorted within each column.  ``function(module, role)`` gives a
    compiled entry point."""
    nnz = int(idx.shape[0])
    size = int(vals.dtype.itemsize)
    module = transpose_module(ptr.dtype.name, idx.dtype.name, np.dtype(tptr_type).name, np.dtype(row_type).name,
                              size)
    tptr = cupy.zeros(ncols + 1, dtype=tptr_type)
    rows = cupy.empty(nnz, dtype=row_type)
    out = cupy.empty(nnz, dtype=vals.dtype)
    if nnz == 0:
        return tptr, rows, out
    function(module, "count")((_grid(nnz),), (_BLOCK,), (idx, np.int64(nnz), tptr))
    tptr[1:] = cupy.cumsum(tptr[1:], dtype=tptr.dtype)
    cursor = tptr[:-1].copy()
    function(module, "scatter")((_grid(nnz),), (_BLOCK,), (ptr, np.int64(nrows), idx, np.int64(nnz), cursor, rows))
    del cursor
    _sort_columns(function, module, tptr, rows, ncols, block_keys(row_type))
    bits = np.dtype(VALUE_BITS[size].replace("_t", ""))
    function(module, "values")((_grid(nnz),), (_BLOCK,), (tptr, np.int64(ncols), rows, np.int64(nnz), ptr, idx,
                                                         vals.view(bits), out.view(bits)))
    return tptr, rows, out


def _sort_columns(function: Callable[[KernelModule, str], Any], module: KernelModule, tptr: cupy.ndarray,
                  rows: cupy.ndarray, ncols: int, most: int) -> None:
    """Sort each column's rows in place: short ones a thread each, medium ones a block each,
    long ones in batches (:func:`_sort_long`)."""
    function(module, "sort_short")((_grid(ncols),), (_BLOCK,), (tptr, np.int64(ncols), rows))
    lengths = tptr[1:] - tptr[:-1]
    medium = cupy.flatnonzero((lengths > SHORT) & (lengths <= most))
    if medium.size:
        blocks = min(int(medium.size), 64 * _sm_count(cupy.cuda.Device().id))
        function(module, "sort_block")((blocks,), (_BLOCK,), (tptr, medium, np.int64(medium.size), rows))
    del medium
    long_cols = cupy.flatnonzero(lengths > most)
    del lengths
    if long_cols.size:
        _sort_long(function, module, tptr, rows, long_cols)


_BATCH = 1 << 24  # entries of long columns sorted at once (128 MiB of keys, twice that to sort)


def _sort_long(function: Callable[[KernelModule, str], Any], module: KernelModule, tptr: cupy.ndarray,
               rows: cupy.ndarray, cols: cupy.ndarray) -> None:
    """Sort the rows of the long columns ``cols``: batches of whole columns of about
    ``_BATCH`` entries, each by one sort of packed (column in batch, row) keys; a column longer
    than a batch, or any column whose rows do not fit 32 bits, by CuPy's sort of its slice."""
    starts, ends = tptr[cols].get().astype(np.int64), tptr[cols + 1].get().astype(np.int64)
    if rows.dtype != np.int32:
        for s, e in zip(starts.tolist(), ends.tolist()):
            rows[s:e].sort()
        return
    lengths = ends - starts
    first = 0
    while first < cols.size:
        if lengths[first] > _BATCH:  # a column as large as a batch alone: its own sort
            rows[int(starts[first]):int(ends[first])].sort()
            first += 1
            continue
        last = first + max(1, int(np.searchsorted(np.cumsum(lengths[first:]), _BATCH, side="right")))
        offsets = np.zeros(last - first + 1, dtype=np.int64)
        np.cumsum(lengths[first:last], out=offsets[1:])
        total = int(offsets[-1])
        batch, at = cols[first:last], cupy.asarray(offsets)
        keys = cupy.empty(total, dtype=np.uint64)
        args = (tptr, batch, at, np.int64(last - first), np.int64(total))
        function(module, "pack")((_grid(total),), (_BLOCK,), args + (rows, keys))
        keys.sort()
        function(module, "unpack")((_grid(total),), (_BLOCK,), args + (keys, rows))
        del keys
        first = last
