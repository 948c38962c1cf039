"""The CSR transpose on the GPU by a counting sort (kernels in ``templates/transpose.cu``).

It allocates the transpose's own arrays and ``ncols``-sized work only: the column counts give
the pointers, each entry's row and value are placed together in its column's next free slot
(taken by atomics; in passes over column ranges whose slots fit the L2 cache), and each column's (row, value) pairs are then sorted by row in place (a
thread per short column, a warp or a block per medium one, batches of long ones by one sort of
packed keys each).  A sorting permutation of the entries (int64) and their rows and columns as
sorting keys are never built, so the peak is the transpose plus a few ``ncols``-sized arrays
and a bounded batch, not about 20 bytes more an entry.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Any

import cupy
import numpy as np

from .codegen import KernelModule
from .signatures import TRANSPOSE
from .transpose_codegen import SHORT, THREADS, VALUE_BITS, WARP_KEYS, block_keys, transpose_module

__all__ = ["transpose_csr"]

_BLOCK = THREADS
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
    bits = np.dtype(VALUE_BITS[size].replace("_t", ""))
    vals, out_bits = vals.view(bits), out.view(bits)
    function(module, "count")((_grid(nnz),), (_BLOCK,), TRANSPOSE["count"].pack(idx=idx, nnz=np.int64(nnz),
                                                                              counts=tptr))
    tptr[1:] = cupy.cumsum(tptr[1:], dtype=tptr.dtype)
    cursor = tptr[:-1].copy()
    for c0, c1 in _column_ranges(tptr, nnz, ncols, rows.itemsize + size):
        function(module, "scatter")((_grid(nnz),), (_BLOCK,), TRANSPOSE["scatter"].pack(
            ptr=ptr, nrows=np.int64(nrows), idx=idx, vals=vals, nnz=np.int64(nnz), c0=np.int64(c0), c1=np.int64(c1),
            cursor=cursor, rows=rows, out=out_bits))
    del cursor
    _sort_columns(function, module, tptr, rows, out_bits, nrows, ncols, block_keys(row_type))
    return tptr, rows, out


_PASS_BYTES = 24 << 20  # the transpose's slots (rows and values) one scatter pass writes
_MAX_PASSES = 16  # each pass reads every column index: more passes cost more than they save


def _column_ranges(tptr: cupy.ndarray, nnz: int, ncols: int, entry_bytes: int) -> list[tuple[int, int]]:
    """Column ranges of about ``_PASS_BYTES`` of the transpose each (one range when all of it
    fits; at most ``_MAX_PASSES``), cut where the pointers pass equal shares of the entries."""
    passes = min(_MAX_PASSES, max(1, -(-nnz * entry_bytes // _PASS_BYTES)))
    if passes == 1:
        return [(0, ncols)]
    shares = (cupy.arange(1, passes, dtype=np.float64) * (nnz / passes)).astype(tptr.dtype)
    cuts = [0, *sorted(set(cupy.searchsorted(tptr, shares).get().tolist())), ncols]
    return [(a, b) for a, b in itertools.pairwise(cuts) if b > a]


def _sort_columns(function: Callable[[KernelModule, str], Any], module: KernelModule, tptr: cupy.ndarray,
                  rows: cupy.ndarray, out: cupy.ndarray, nrows: int, ncols: int, most: int) -> None:
    """Sort each column's (row, value) pairs by row in place: short columns a thread each,
    medium ones a warp or a block each, long ones in batches (:func:`_sort_long`)."""
    function(module, "sort_short")((_grid(ncols),), (_BLOCK,), TRANSPOSE["sort_short"].pack(
        tptr=tptr, ncols=np.int64(ncols), rows=rows, out=out))
    lengths = tptr[1:] - tptr[:-1]
    sms = _sm_count(cupy.cuda.Device().id)
    for role, low, high, per_block in (("sort_warp", SHORT, WARP_KEYS, _BLOCK // 32),
                                       ("sort_block", WARP_KEYS, most, 1)):
        cols = cupy.flatnonzero((lengths > low) & (lengths <= high))
        if cols.size:
            blocks = min(-(-int(cols.size) // per_block), 64 * sms)
            function(module, role)((blocks,), (_BLOCK,), TRANSPOSE[role].pack(
                tptr=tptr, cols=cols, ncols=np.int64(cols.size), rows=rows, out=out))
        del cols
    long_cols = cupy.flatnonzero(lengths > most)
    del lengths
    if long_cols.size:
        _sort_long(function, module, tptr, rows, out, nrows, long_cols)


_BATCH = 1 << 21  # entries of long columns sorted at once (16 MiB of keys, twice that to sort)


def _sort_long(function: Callable[[KernelModule, str], Any], module: KernelModule, tptr: cupy.ndarray,
               rows: cupy.ndarray, out: cupy.ndarray, nrows: int, cols: cupy.ndarray) -> None:
    """Sort the (row, value) pairs of the long columns ``cols``: batches of whole columns of
    about ``_BATCH`` entries (a longer column alone), each by one sort of packed (column in
    batch, row, value or position) keys; columns whose rows do not fit 32 bits by CuPy's
    argsort of each column's rows."""
    starts, ends = tptr[cols].get().astype(np.int64), tptr[cols + 1].get().astype(np.int64)
    if rows.dtype != np.int32:
        for s, e in zip(starts.tolist(), ends.tolist()):
            order = cupy.argsort(rows[s:e])
            rows[s:e], out[s:e] = rows[s:e][order], out[s:e][order]
        return
    row_bits = max(1, (nrows - 1).bit_length())
    most_cols = 1 << (32 - row_bits)  # column numbers in a batch take the key's other high bits
    lengths = ends - starts
    wide = out.dtype.itemsize > 4  # values that do not fit the key: their positions do
    first = 0
    while first < cols.size:
        last = first + max(1, int(np.searchsorted(np.cumsum(lengths[first:]), _BATCH, side="right")))
        last = min(last, first + most_cols)
        offsets = np.zeros(last - first + 1, dtype=np.int64)
        np.cumsum(lengths[first:last], out=offsets[1:])
        total = int(offsets[-1])
        batch, at = cols[first:last], cupy.asarray(offsets)
        keys = cupy.empty(total, dtype=np.uint64)
        held = cupy.empty(total if wide else 1, dtype=out.dtype)
        args = {"tptr": tptr, "cols": batch, "starts": at, "ncols": np.int64(last - first),
                "total": np.int64(total), "row_bits": np.int32(row_bits), "rows": rows, "out": out, "keys": keys,
                "held": held}
        function(module, "pack")((_grid(total),), (_BLOCK,), TRANSPOSE["pack"].pack(**args))
        keys.sort()
        function(module, "unpack")((_grid(total),), (_BLOCK,), TRANSPOSE["unpack"].pack(**args))
        del keys, held
        first = last
