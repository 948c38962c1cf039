"""Row-wise Gustavson SpGEMM on the GPU: planning, workspace and launches.

``C = A B`` (optionally through a structural mask) in two passes over the same row bins, as
nsparse, spECK and OpSparse do:

1. a bound on each row's columns (its flops, capped by the mask row and by ncols), rows binned
   by it;
2. symbolic: each row's exact number of columns, counted in a shared-memory hash table (a group
   of lanes per row, the table and group sized by the bin) or, for rows of more than 4096, in
   a bitmap; then row pointers by a scan and an exact allocation of the product;
3. numeric: rows binned again by their exact size, terms combined into hash tables with the
   monoid (hardware atomics where the monoid has them, a compare-and-swap loop otherwise),
   each table sorted in shared memory and written out; the longest rows accumulate into a
   dense row whose bitmap is read in order.

Rows of at most 32 terms beside longer ones skip the tables: a group of 16 or 32 lanes holds
the row's terms (those the mask allows) in registers, one a lane, sorts them by column with
shuffles and combines each column's run.  A product of such rows only (a road graph's) is
counted and filled every row at once in small tables: no grouping, one host synchronisation.

A masked product tests each term's column against the mask row (a binary search in the
sorted row): the allowed terms only reach the tables, whose size the mask row bounds.  No pass
holds more than one row's terms per group; the dense rows' workspace is allocated for a batch
of rows at a time.
"""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from ...exceptions import OutOfMemory
from ...limits import available_bytes
from ...operators.base import TypedSemiring
from ..operands import CsrOperand, CsrProduct, MaskOperand
from . import spgemm_codegen as sg
from .signatures import SPGEMM_NUMERIC, SPGEMM_SYMBOLIC

__all__ = ["mxm_gustavson"]

_WARP_BLOCK = 256  # threads per block of the bounds, bins and grouping kernels
_BINS_BLOCKS = 264  # bins: a grid stride, enough blocks to fill an H100 twice
_BOUND_BLOCKS = 1056  # bounds: a grid stride, as many blocks of 256 as an H100 holds at once
_STATIC_SHARED = 48 * 1024  # dynamic shared memory a block may take without asking for more
_DENSE_SHARED_THREADS = 512  # threads per row of a dense accumulator in shared memory
_DENSE_MIN_BIN = 512  # rows of fewer columns keep their hash table (a block per row would idle)
_HASH_FACTOR = 16  # a long row of at most ncols / 16 columns takes a global hash table, not a dense row
_HASH_THREADS = 1024  # threads per row of a global hash table
_WORKSPACE_MOST = 1 << 30  # bytes of dense-row workspace at most (less where less is free)
_INT32_MAX = 2**31 - 1
_SHORT_BINS = 2  # bins 1 and 2 (rows of at most 16 and 32 terms): a term a lane, in registers
_SHORT_MOST = 16 << (_SHORT_BINS - 1)
_SHORT_BLOCK = 256  # threads per block of the short-row kernels
_SIGNATURES = {**SPGEMM_SYMBOLIC, **SPGEMM_NUMERIC}  # (their roles differ)


def mxm_gustavson(be: Any, semiring: TypedSemiring, a: CsrOperand, b: CsrOperand,
                  mask: MaskOperand | None = None) -> CsrProduct:
    """``C = A B`` over ``semiring`` (see :meth:`Backend.mxm_gustavson`), ``be`` the CuPy
    backend whose compiled kernels it uses."""
    nrows, ncols = int(a.nrows), int(b.ncols)
    ptr_t, idx_t = _layout(a, b, mask, ncols)
    out_dtype = np.dtype(semiring.out_type.np_type)
    if mask is not None and mask.complement and mask.nvals == 0:
        mask = None
    if nrows == 0 or ncols == 0 or a.nvals == 0 or b.nvals == 0 or (mask is not None and not mask.complement
                                                                      and mask.nvals == 0):
        return CsrProduct(cupy.zeros(nrows + 1, np.int64), cupy.empty(0, idx_t), cupy.empty(0, out_dtype))
    plan = _Plan(be, semiring, a, b, mask, ptr_t, idx_t, ncols)
    indptr, nnz = plan.symbolic()
    indices, values = cupy.empty(nnz, idx_t), cupy.empty(nnz, out_dtype)
    if nnz:
        plan.numeric(indptr, indices, values)
    return CsrProduct(indptr, indices, values)


def _layout(a: CsrOperand, b: CsrOperand, mask: MaskOperand | None, ncols: int) -> tuple[Any, Any]:
    """One (row pointer, column index) layout of ``codegen.CSR_INDEX_TYPES`` for all operands
    and the product: int64 indices where any operand has them or B is too wide for int32,
    int64 pointers where any operand has them or the indices are int64."""
    arrays = [a, b] + ([mask] if mask is not None else [])
    wide = ncols > _INT32_MAX or any(np.dtype(x.indices.dtype) == np.int64 for x in arrays)
    idx_t = np.dtype(np.int64 if wide else np.int32)
    long_ptr = wide or any(np.dtype(x.indptr.dtype) == np.int64 for x in arrays)
    return np.dtype(np.int64 if long_ptr else np.int32), idx_t


def _device(x: Any, dtype: Any = None) -> Any:
    """``x`` as a contiguous CuPy array (of ``dtype`` where given); None stays None."""
    if x is None:
        return None
    arr = cupy.asarray(x) if dtype is None else cupy.asarray(x, dtype=dtype)
    return arr if arr.flags.c_contiguous else cupy.ascontiguousarray(arr)


def _bin_rows(starts: np.ndarray, number: int) -> tuple[int, int]:
    """(first, count) of bin ``number``'s rows in the grouped order."""
    return int(starts[number]), int(starts[number + 1] - starts[number])


def _log2(n: int) -> int:
    return int(n).bit_length() - 1


def _lanes_log(mean: float) -> int:
    """log2 of the lanes that share a row of about ``mean`` entries (1 to 32)."""
    return min(5, max(0, int(np.ceil(np.log2(max(mean, 1.0))))))


_OPTIN: dict[int, int] = {}


def _shared_limit() -> int:
    """Dynamic shared memory one block may take on this device (asking for it), less what the
    kernels declare statically."""
    dev = cupy.cuda.runtime.getDevice()
    if dev not in _OPTIN:
        attrs = cupy.cuda.Device(dev).attributes
        _OPTIN[dev] = int(attrs.get("MaxSharedMemoryPerBlockOptin", _STATIC_SHARED)) - 1024
    return _OPTIN[dev]


def _dense_bytes(columns: int, slot: int) -> int:
    """Shared memory of a dense row of ``columns``: the bitmap, then the slots from the next
    multiple of 8 bytes."""
    return -(-((columns + 31) // 32) * 4 // 8) * 8 + columns * slot


def _dense_from(dense_bytes: int, slot_bytes: int, limit: int) -> int:
    """Rows of more than this many columns (or terms) take the dense accumulator: 4096, or
    fewer where a dense row fits ``limit`` bytes of shared memory and is at most twice the
    hash table (``slot_bytes`` a slot) of a bin of rows of at least ``_DENSE_MIN_BIN`` columns:
    on narrow products (kron 12: 4096 columns) long rows skip the probing and the sort."""
    if dense_bytes <= limit:
        for spec in sg.SHARED_BINS:
            if spec.most >= _DENSE_MIN_BIN and dense_bytes <= 2 * spec.table * slot_bytes:
                return spec.most // 2
    return sg.SHARED_BINS[-1].most


class _Plan:
    """One product's operands as the kernels take them, and its launches."""

    def __init__(self, be: Any, semiring: TypedSemiring, a: CsrOperand, b: CsrOperand, mask: MaskOperand | None,
                 ptr_t: Any, idx_t: Any, ncols: int) -> None:
        self.be, self.nrows, self.ncols = be, int(a.nrows), ncols
        self.sym = sg.symbolic_module(ptr_t.name, idx_t.name)
        self.num = sg.numeric_module(semiring, ptr_t.name, idx_t.name)
        self.key_bytes = idx_t.itemsize
        self.key_dtype = np.dtype(np.uint32 if idx_t.itemsize == 4 else np.uint64)
        self.slot = np.dtype(np.int32 if semiring.out_type.itemsize < 4 and semiring.out_type.is_signed
                             else np.uint32 if semiring.out_type.itemsize < 4 else semiring.out_type.np_type)
        self.a = (_device(a.indptr, ptr_t), _device(a.indices, idx_t))
        self.b = (_device(b.indptr, ptr_t), _device(b.indices, idx_t))
        self.a_val, self.b_val = _device(a.values), _device(b.values)
        if mask is None:
            self.m: tuple[Any, ...] = (None, None, np.int32(0))
        else:
            self.m = (_device(mask.indptr, ptr_t), _device(mask.indices, idx_t), np.int32(bool(mask.complement)))
        # Lanes sharing a row of B: about its mean length (a road graph's 4 lanes, 32 for dense rows);
        # lanes summing a row's flops: about A's mean row length.
        self.wlog = _lanes_log(b.nvals / max(int(b.nrows), 1))
        self.llog = _lanes_log(a.nvals / max(self.nrows, 1))
        # Rows of at most 32 terms take the short-row kernels (a term a lane; the bounds kernel
        # bounds them by their terms, not by the mask or ncols).
        self.short_most = _SHORT_MOST
        # Where the mean row looks short (a road graph's), the short rows are counted before the
        # first synchronisation and the grouping waits for it: a product of short rows needs none.
        mean_terms = a.nvals / max(self.nrows, 1) * b.nvals / max(int(b.nrows), 1)
        self.looks_short = self.short_most > 0 and mean_terms <= _SHORT_MOST
        self.all_short = 0  # where every row is short: the bin whose tables take every row at once
        self.short_lists: list[tuple[int, Any]] = []  # (glog, rows) of the short rows in mixed products
        self.bound = cupy.empty(self.nrows, np.int64)
        self.bins = cupy.empty(self.nrows, np.int8)
        self.nwords = (ncols + 31) // 32
        self._dense_layouts(ncols)

    def _dense_layouts(self, ncols: int) -> None:
        """Where the long rows accumulate, per pass.  Symbolic: a bitmap in shared memory where
        ncols bits fit 48 KiB (then from 257 columns), else a global hash table for rows of at
        most ncols / 16 columns and a global bitmap for longer ones.  Numeric: a dense row in
        shared memory where it fits (on narrow products, from fewer columns than 4096), else a
        global hash table for rows of at most ncols / 16 columns and a dense row in global
        workspace for longer ones.  (The kernel can take a dense row in shared memory a window
        of columns at a time, a pass over the row's terms per window; on kron 16, three windows
        were slower than global workspace, 50.5 against 47.5 ms, so one window only is used.)"""
        self.sym_shared = self.nwords * 4 <= _STATIC_SHARED
        self.sym_dense_from = _dense_from(self.nwords * 4, self.key_bytes, _STATIC_SHARED)
        self.sym_hash_most = 0 if self.sym_shared else ncols // _HASH_FACTOR
        limit, slot = _shared_limit(), self.slot.itemsize
        self.dense_bytes = _dense_bytes(ncols, slot)
        one = self.dense_bytes <= limit
        self.num_dense_from = _dense_from(self.dense_bytes, self.key_bytes + slot, limit)
        self.num_hash_most = 0 if one else ncols // _HASH_FACTOR
        self.num_window = ncols if one else 0  # 0: global workspace

    # ------------------------------------------------------------------ launches
    def _launch(self, module: Any, role: str, grid: int, block: int, args: dict[str, Any], smem: int = 0) -> None:
        """Entry ``role`` of ``module`` with ``args`` by their names in the template."""
        fn = self.be._function(module, role)
        if smem > _STATIC_SHARED:
            fn.max_dynamic_shared_size_bytes = smem
        fn((grid,), (block,), _SIGNATURES[role].pack(**args), shared_mem=smem)

    def _walk(self, values: bool) -> dict[str, Any]:
        """The operands every counting (and, with ``values``, filling) kernel walks, by name."""
        walk = {"a_ptr": self.a[0], "a_idx": self.a[1], "b_ptr": self.b[0], "b_idx": self.b[1],
                "m_ptr": self.m[0], "m_idx": self.m[1], "complement": self.m[2]}
        if values:
            walk.update(a_val=self.a_val, b_val=self.b_val)
        return walk

    def _group(self, counts: Any, cursor: Any) -> Any:
        """The row ids grouped by bin (``self.bins``, ``counts`` rows each), in bin order."""
        order = cupy.empty(self.nrows, np.int64)
        self._launch(self.sym, "group", -(-self.nrows // _WARP_BLOCK), _WARP_BLOCK,
                     {"bins": self.bins, "nrows": np.int64(self.nrows), "counts": counts, "cursor": cursor,
                      "order": order})
        return order

    @staticmethod
    def _starts(counts: np.ndarray) -> np.ndarray:
        """The first position of each bin in the grouped rows (NBINS + 1 host ints)."""
        starts = np.zeros(sg.NBINS + 1, np.int64)
        np.cumsum(counts[:sg.NBINS].astype(np.int64), out=starts[1:])
        return starts

    def _shared_bins(self, starts: np.ndarray, skip: int = 0) -> Any:
        """(bin, first, count) of each non-empty shared-memory bin past the first ``skip``."""
        for number, spec in enumerate(sg.SHARED_BINS, start=1):
            count = int(starts[number + 1] - starts[number])
            if count and number > skip:
                yield spec, int(starts[number]), count

    def _short(self, module: Any, role: str, rows: Any, glog: int, args: dict[str, Any], tail: dict[str, Any]) -> None:
        """A short-row kernel over the listed ``rows``, 2^glog lanes a row."""
        self._launch(module, role, -(-(int(rows.size) << glog) // _SHORT_BLOCK), _SHORT_BLOCK,
                     {**args, "rows": rows, "nlisted": np.int64(rows.size), "bins": None, "want": np.int32(0),
                      "glog": np.int32(glog), **tail})

    # ------------------------------------------------------------------ passes
    def symbolic(self) -> tuple[Any, int]:
        """The product's row pointers (int64, nrows + 1) and its entries; the rows' numeric bins.

        Two host synchronisations a product: the bound bins' counts (to size the count
        launches), then the entries and the numeric bins' counts, read together (the row
        pointers share one allocation with the numeric bins' counters).  Where rows look short
        (see ``looks_short``), those of at most 16 terms are counted and the row pointers
        scanned before the first synchronisation, which then reads the entries too: a product
        of such rows only (a road grid's) needs that one, no grouping and no numeric bins."""
        a_ptr, a_idx = self.a
        b_ptr = self.b[0]
        m_ptr, complement = self.m[0], self.m[2]
        row_nnz = cupy.empty(self.nrows, np.int64)
        # The bins' counts, then the places handed out (uint64 words); where rows look short,
        # after the row pointers in one buffer.
        head = cupy.zeros(self.nrows + 1 + 32, np.int64) if self.looks_short else None
        words = cupy.zeros(32, np.uint64) if head is None else head[self.nrows + 1:].view(np.uint64)
        per_block = _WARP_BLOCK >> self.llog
        self._launch(self.sym, "flops", min(_BOUND_BLOCKS, -(-self.nrows // per_block)), _WARP_BLOCK,
                     {"a_ptr": a_ptr, "a_idx": a_idx, "b_ptr": b_ptr, "m_ptr": m_ptr, "complement": complement,
                      "nrows": np.int64(self.nrows), "ncols": np.int64(self.ncols), "llog": np.int32(self.llog),
                      "dense_from": np.int64(self.sym_dense_from), "hash_most": np.int64(self.sym_hash_most),
                      "short_most": np.int64(self.short_most), "bound": self.bound, "bins": self.bins,
                      "counts": words[:16], "row_nnz": row_nnz})
        counted = 0  # short bins counted before the first synchronisation
        walk = self._walk(values=False)
        if head is not None:
            # Every row as if of bin 1 (rows of more than 16 terms are counted again below).
            indptr = head[:self.nrows + 1]
            self._count_table(walk, sg.SHARED_BINS[0], None, self.nrows, row_nnz)
            cupy.cumsum(row_nnz, out=indptr[1:])
            tail = head[self.nrows:self.nrows + 17].get()
            starts = self._starts(tail[1:].view(np.uint64))
            counted = 1
            if starts[2] == starts[sg.NBINS]:  # every row at most 16 terms
                self.all_short = 1
                return indptr, int(tail[0])
            if starts[3] == starts[sg.NBINS]:  # every row at most 32 terms
                self._count_table(walk, sg.SHARED_BINS[1], None, self.nrows, row_nnz)
                cupy.cumsum(row_nnz, out=indptr[1:])
                self.all_short = 2
                return indptr, int(indptr[-1].get())
            order = self._group(words[:16], words[16:])
        else:
            order = self._group(words[:16], words[16:])
            starts = self._starts(words[:16].get())
        if self.short_most:
            self._count_short(starts, order, row_nnz, counted)
        for spec, first, count in self._shared_bins(starts, _SHORT_BINS if self.short_most else 0):
            self._count_table(walk, spec, order[first:first + count], count, row_nnz)
        first, count = _bin_rows(starts, sg.DENSE_BIN)
        if count:
            self._count_dense(walk, order[first:first + count], row_nnz)
        first, count = _bin_rows(starts, sg.HASH_BIN)
        if count:
            rows = order[first:first + count]
            toff, total = self._table_offsets(self.bound[rows], self.key_bytes)
            work = cupy.empty(total, self.key_dtype)
            glog = _log2(_HASH_THREADS)
            self._launch(self.sym, "count_hash", count, _HASH_THREADS,
                         {**walk, "rows": rows, "glog": np.int32(glog), "wlog": np.int32(min(self.wlog, glog)),
                          "toff": toff, "work": work, "row_nnz": row_nnz})
        # Row pointers, then the numeric bins' counters and cursors (uint64 words) in one buffer.
        buf = cupy.zeros(self.nrows + 1 + 32, np.int64)
        indptr = buf[:self.nrows + 1]
        cupy.cumsum(row_nnz, out=indptr[1:])
        counters = buf[self.nrows + 1:].view(np.uint64)
        self._launch(self.sym, "bins", _BINS_BLOCKS, _WARP_BLOCK,
                     {"bound": self.bound, "nnz": row_nnz, "nrows": np.int64(self.nrows),
                      "dense_from": np.int64(self.num_dense_from), "hash_most": np.int64(self.num_hash_most),
                      "short_most": np.int64(self.short_most), "bins": self.bins, "counts": counters[:16]})
        self.num_order = self._group(counters[:16], counters[16:])
        tail = buf[self.nrows:self.nrows + 17].get()
        self.num_starts = self._starts(tail[1:].view(np.uint64))
        return indptr, int(tail[0])

    def _count_table(self, walk: dict[str, Any], spec: sg.Bin, rows: Any, count: int, row_nnz: Any) -> None:
        """Count ``rows`` (None: every row whose bin is at most ``spec``'s) in shared-memory
        tables of ``spec``'s size."""
        per_block = spec.block // spec.group
        smem = per_block * (spec.table * self.key_bytes + 4)
        glog = _log2(spec.group)
        most_bin = sg.SHARED_BINS.index(spec) + 1
        self._launch(self.sym, "count", -(-count // per_block), spec.block,
                     {**walk, "rows": rows, "nlisted": np.int64(count), "bins": self.bins,
                      "most_bin": np.int32(most_bin), "glog": np.int32(glog), "tlog": np.int32(_log2(spec.table)),
                      "wlog": np.int32(min(self.wlog, glog)), "row_nnz": row_nnz}, smem)

    def _fill_table(self, walk: dict[str, Any], spec: sg.Bin, rows: Any, count: int, out: dict[str, Any]) -> None:
        """Fill ``rows`` (None: every row, each fitting the tables) from shared-memory tables of
        ``spec``'s size."""
        per_block = spec.block // spec.group
        smem = per_block * spec.table * (self.key_bytes + self.slot.itemsize)
        glog = _log2(spec.group)
        self._launch(self.num, "fill", -(-count // per_block), spec.block,
                     {**walk, "rows": rows, "nlisted": np.int64(count), "glog": np.int32(glog),
                      "tlog": np.int32(_log2(spec.table)), "wlog": np.int32(min(self.wlog, glog)), **out}, smem)

    def _count_short(self, starts: np.ndarray, order: Any, row_nnz: Any, counted: int) -> None:
        """Count the short rows (bins 1 and 2) of a product with longer ones, a term a lane,
        from the bins' lists (kept for the numeric pass, whose bins leave these rows out);
        bins up to ``counted`` are counted already."""
        for number in range(1, _SHORT_BINS + 1):
            first, count = _bin_rows(starts, number)
            if count:
                rows = order[first:first + count]
                glog = _log2(sg.SHARED_BINS[number - 1].most)
                self.short_lists.append((glog, rows))
                if number > counted:
                    self._short(self.sym, "count_short", rows, glog, self._walk(values=False), {"row_nnz": row_nnz})

    def _count_dense(self, walk: dict[str, Any], rows: Any, row_nnz: Any) -> None:
        nwords = self.nwords
        if self.sym_shared:
            glog = _log2(_DENSE_SHARED_THREADS)
            fixed = {"glog": np.int32(glog), "wlog": np.int32(min(self.wlog, glog)), "nwords": np.int64(nwords)}
            self._launch(self.sym, "count_dense", rows.size, _DENSE_SHARED_THREADS,
                         {**walk, "rows": rows, **fixed, "work": None, "row_nnz": row_nnz}, nwords * 4)
            return
        glog = _log2(sg.DENSE_THREADS)
        fixed = {"glog": np.int32(glog), "wlog": np.int32(min(self.wlog, glog)), "nwords": np.int64(nwords)}
        batch = self._batch(nwords * 4, rows.size)
        work = cupy.empty(batch * nwords, np.uint32)
        for s in range(0, rows.size, batch):
            part = rows[s:s + batch]
            self._launch(self.sym, "count_dense", part.size, sg.DENSE_THREADS,
                         {**walk, "rows": part, **fixed, "work": work, "row_nnz": row_nnz})

    def _batch(self, per_row: int, rows: int) -> int:
        """Rows of dense workspace (``per_row`` bytes each) to allocate at once."""
        free = available_bytes("cupy") or 0  # (the device's free memory and the pool's idle blocks)
        if per_row > free:
            raise OutOfMemory(f"a dense accumulator row needs {per_row:,} bytes; {free:,} are free")
        return max(1, min(rows, min(_WORKSPACE_MOST, free // 4) // per_row))

    def numeric(self, indptr: Any, indices: Any, values: Any) -> None:
        """Fill the product's column indices and values (allocated to its exact size)."""
        out = {"c_ptr": indptr, "c_idx": indices, "c_val": values}
        walk = self._walk(values=True)
        if self.all_short:
            self._fill_table(walk, sg.SHARED_BINS[self.all_short - 1], None, self.nrows, out)
            return
        for glog, rows in self.short_lists:
            self._short(self.num, "fill_short", rows, glog, walk, out)
        order, starts = self.num_order, self.num_starts
        for spec, first, count in self._shared_bins(starts):
            self._fill_table(walk, spec, order[first:first + count], count, out)
        first, count = _bin_rows(starts, sg.DENSE_BIN)
        if count:
            self._fill_dense(walk, order[first:first + count], out)
        first, count = _bin_rows(starts, sg.HASH_BIN)
        if count:
            self._fill_hash(walk, order[first:first + count], out)

    def _fill_dense(self, walk: dict[str, Any], rows: Any, out: dict[str, Any]) -> None:
        """The rows of the dense bin: a block per row, its dense row in shared memory where it
        fits, else in global workspace for a batch of rows at a time."""
        if self.num_window:
            glog = _log2(_DENSE_SHARED_THREADS)
            self._launch(self.num, "fill_dense", rows.size, _DENSE_SHARED_THREADS,
                         {**walk, "rows": rows, "glog": np.int32(glog), "wlog": np.int32(min(self.wlog, glog)),
                          "ncols": np.int64(self.ncols), "window": np.int64(self.num_window), "work_bits": None,
                          "work_vals": None, **out},
                         _dense_bytes(self.num_window, self.slot.itemsize))
            return
        nwords = self.nwords
        batch = self._batch(nwords * 4 + self.ncols * self.slot.itemsize, rows.size)
        bits, vals = cupy.empty(batch * nwords, np.uint32), cupy.empty(batch * self.ncols, self.slot)
        glog = _log2(sg.DENSE_THREADS)
        for s in range(0, rows.size, batch):
            part = rows[s:s + batch]
            self._launch(self.num, "fill_dense", part.size, sg.DENSE_THREADS,
                         {**walk, "rows": part, "glog": np.int32(glog), "wlog": np.int32(min(self.wlog, glog)),
                          "ncols": np.int64(self.ncols), "window": np.int64(self.ncols), "work_bits": bits,
                          "work_vals": vals, **out})

    def _fill_hash(self, walk: dict[str, Any], rows: Any, out: dict[str, Any]) -> None:
        """The rows of the hash bin: a block per row over a global table sized by the row's
        entries, written unordered, then those rows sorted by column."""
        indptr = out["c_ptr"]
        toff, total = self._table_offsets(indptr[rows + 1] - indptr[rows], self.key_bytes + self.slot.itemsize)
        keys, vals = cupy.empty(total, self.key_dtype), cupy.empty(total, self.slot)
        glog = _log2(_HASH_THREADS)
        self._launch(self.num, "fill_hash", rows.size, _HASH_THREADS,
                     {**walk, "rows": rows, "glog": np.int32(glog), "wlog": np.int32(min(self.wlog, glog)),
                      "toff": toff, "work_keys": keys, "work_vals": vals, **out})
        del keys, vals
        self._sort_rows(rows, indptr, out["c_idx"], out["c_val"])

    def _table_offsets(self, sizes: Any, slot_bytes: int) -> tuple[Any, int]:
        """Offsets (int64, len(sizes) + 1) of tables of twice each size rounded up to a power of
        two, and their total; OutOfMemory where they cannot fit."""
        lg = cupy.ceil(cupy.log2(cupy.maximum(sizes, 1).astype(np.float64))).astype(np.int64)
        toff = cupy.zeros(sizes.size + 1, np.int64)
        cupy.cumsum(cupy.left_shift(cupy.full(sizes.size, 2, np.int64), lg), out=toff[1:])
        total = int(toff[-1])
        free = available_bytes("cupy") or 0
        if total * slot_bytes > free:
            raise OutOfMemory(f"hash tables of the long rows need {total * slot_bytes:,} bytes; {free:,} are free")
        return toff, total

    def _sort_rows(self, rows: Any, indptr: Any, indices: Any, values: Any) -> None:
        """Sort the entries of each listed row of the product by column."""
        starts = indptr[rows]
        lens = indptr[rows + 1] - starts
        ends = cupy.cumsum(lens)
        total = int(ends[-1])
        at = cupy.arange(total, dtype=np.int64)
        seg = cupy.searchsorted(ends, at, side="right")
        pos = starts[seg] + at - (ends[seg] - lens[seg])
        cols = indices[pos].astype(np.int64)
        if rows.size * self.ncols < 2**62:
            perm = cupy.argsort(seg * self.ncols + cols)
        else:
            perm = cupy.lexsort(cupy.stack([cols, seg]))
        src = pos[perm]
        indices[pos] = indices[src]
        values[pos] = values[src]
