"""The CuPy backend: the hot kernels as CUDA generated from the operators.

Each method gives the same results as :class:`~grblas_gpu.backends.numpy_backend.NumpyBackend`.
Sources come from :mod:`.codegen` (the same functions the kernel registry
renders); modules are compiled by CuPy through NVRTC and kept in an in-process
dict keyed by the source digest, and CuPy's on-disk cache spares a second process
the compilation.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import cupy
import numpy as np

from ...dtypes import ALL_TYPES, BOOL, DataType, cast_scalar, lookup_dtype
from ...exceptions import DomainMismatch, InvalidValue, OutOfMemory
from ...limits import register_available, require_bytes
from ...operators.base import Positions, TypedBinaryOp, TypedIndexUnaryOp, TypedMonoid, TypedSemiring, TypedUnaryOp
from ...operators.cmath import cast_array
from ..base import Backend
from . import codegen, columns_codegen, signatures
from .codegen import KernelModule
from .counts import DeviceCount, StreamCounts
from .launch import CHANGES, PreparedLaunch, launch_kept, scalar_word

__all__ = ["CupyBackend"]

_BLOCK = 256  # threads per block; a multiple of 32, so lane groups never straddle warps
# Element-wise kernels stride over the elements with this many blocks per SM: a block per
# 256 elements costs about 3x more (a 4 M-element cast took 14.5 us, 4.3 us with 8 per SM).
_ELEMENTWISE_BLOCKS_PER_SM = 8
_LONG_ROW = 2048  # SpMV rows longer than this get a block of their own
_EARLY_EXIT_LANES = 4
"""Lanes per row at most in a pull whose monoid stops at its first term (ANY) or at its
terminal value (LOR, LAND): most rows stop within their first entries, and more lanes read
entries for nothing (kron scale 22 BFS, its pulls' kernels per run by lanes per row at most:
32: 623 us, 16: 480, 8: 366, 4: 302, 2: 281, 1: 293; 4 keeps some parallel reads for rows
that find their terms later)."""
_PLAN_MIN_NNZ = 1 << 20  # smaller matrices run SpMV as one launch without a plan
_CHUNK = 4096  # segment reductions cut longer segments into chunks of this size
_REDUCE_BLOCKS_PER_SM = 8  # counts and sums: one atomic per block, so few blocks that stride
_KEPT_COUNTS = 64  # count launches kept prepared per stream (one per array size), dropped beyond
_KEPT_ELEMENTWISE = 1024  # element-wise launches kept prepared (per entry, size, scalars), dropped beyond
_KEPT_OPERAND_TYPES = 1024  # matrix-vector operand types kept (per semiring, order, operand), dropped beyond
_KEPT_REPORTS = 4  # clean report arrays kept for relax pushes (per device, stream, monoid, size), dropped beyond
_PUSH_BLOCKS_PER_SM = 16  # balanced and bitmap pushes: enough warps to fill the GPU; more stride
# The arguments of a kept launch that differ between calls, by position: declared by name
# beside the templates (see signatures.py), read from the kernels' parameter lists.
_VECTOR_CHANGING = signatures.SPMV_VECTOR.changing
_BARE_CHANGING = signatures.SPMV_VECTOR_BARE.changing
_PUSH_BITMAP_CHANGING = signatures.PUSH_BITMAP.changing
_RESET_CHANGING = signatures.PUSH_RESET.changing
_RELAX_CHANGING = signatures.PUSH_RELAX.changing
_ALLOWED_CHANGING = signatures.MASK_ALLOWED.changing
_ADD_INTO_CHANGING = signatures.ADD_INTO.changing
_ADD_CHANGES_CHANGING = signatures.ADD_CHANGES.changing
_SET_WHERE_CHANGING = signatures.SET_WHERE.changing
_ENDS_ONE_BLOCK = 4096  # balanced push: the row-length sums of up to this many rows in one block (<= 15 us)
# A null device pointer: CuPy passes None as one, and takes it faster than a NumPy scalar
# (0.2 against 0.5 us an argument on a slow host; a kernel often has several).
_NULL = None
_ONE_WORD_TYPES = frozenset(np.dtype(t.np_type) for t in ALL_TYPES)  # NumPy's dtypes of the GraphBLAS types
_NO_POSITIONS = (_NULL, np.int64(0)) * 4  # the positional arguments of an operator that reads none
_FLAGS32 = (np.int32(0), np.int32(1))  # int32 flags, made once (0.2-0.6 us a scalar)
_ZERO64 = np.int64(0)
_F = TypeVar("_F", bound=Callable[..., Any])


def _device_available() -> int | None:
    """The bytes the current device may allocate now: its free memory and the free blocks of
    CuPy's pool (the memory rule of :mod:`grblas_gpu.limits`)."""
    try:
        free = int(cupy.cuda.runtime.memGetInfo()[0])
        return free + int(cupy.get_default_memory_pool().free_bytes())
    except cupy.cuda.runtime.CUDARuntimeError:  # no answer: no check; the allocation will tell
        return None


register_available("cupy", _device_available)


def _map_out_of_memory(method: _F) -> _F:
    """Raise :class:`OutOfMemory` (naming the bytes asked for) where CuPy runs out of device memory."""

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except cupy.cuda.memory.OutOfMemoryError as exc:
            size = getattr(exc, "_size", None)  # CuPy keeps the request size here; its message names it too
            detail = f" allocating {size:,} bytes" if isinstance(size, int) else f": {exc}"
            raise OutOfMemory(f"the GPU ran out of memory{detail}") from exc

    return wrapper  # type: ignore[return-value]


def _is_scalar(x: Any) -> bool:
    """True for a Python/NumPy scalar or a 0-d array: a bound operand."""
    if isinstance(x, cupy.ndarray):
        return x.ndim == 0
    return np.ndim(x) == 0


def _host_scalar(x: Any) -> Any:
    """A scalar on the host (a 0-d CuPy array is copied back)."""
    return x.get()[()] if isinstance(x, cupy.ndarray) else x


def _contiguous(a: cupy.ndarray) -> cupy.ndarray:
    """``a`` in C order, keeping its shape (``cupy.ascontiguousarray`` makes 0-d arrays 1-d)."""
    # ``_c_contiguous`` is the flag ``flags.c_contiguous`` reads, without making a flags object
    # (about 0.5 us a call on a slow host; this runs several times per operation).
    return a if a._c_contiguous else cupy.ascontiguousarray(a)


@functools.cache
def _sm_count(device: int) -> int:
    """Streaming multiprocessors of a device (asked once per device)."""
    return int(cupy.cuda.Device(device).attributes["MultiProcessorCount"])


@functools.cache
def _shared_memory(device: int) -> tuple[int, int]:
    """(shared memory an SM may give its blocks, bytes the driver reserves per block) of a
    device, in bytes (asked once per device)."""
    attributes = cupy.cuda.Device(device).attributes
    return int(attributes["MaxSharedMemoryPerMultiprocessor"]), int(attributes.get("ReservedSharedMemoryPerBlock", 0))


def _leave_l1(fn: Any, blocks: int) -> None:
    """Ask for just the shared memory ``blocks`` blocks of ``fn`` need on an SM of the current
    device, the rest of the SM's memory being L1 (the driver, left to choose, keeps more shared
    memory than that: see the merge template's launch bounds)."""
    per_sm, reserved = _shared_memory(cupy.cuda.runtime.getDevice())
    fn.preferred_shared_memory_carveout = codegen.carveout_percent(int(fn.shared_size_bytes), blocks, per_sm, reserved)


def _bounded_blocks(threads: int, per_sm: int) -> int:
    """Blocks of ``_BLOCK`` threads for ``threads`` threads, at most ``per_sm`` per SM of the
    current device (the kernel's threads stride over the rest)."""
    return min(-(-threads // _BLOCK), per_sm * _sm_count(cupy.cuda.runtime.getDevice()))


def _flat(a: cupy.ndarray) -> cupy.ndarray:
    """``a`` as one dimension (itself when it is: a view costs host time)."""
    return a if a.ndim == 1 else a.reshape(-1)


def _flag_threads(n: int) -> int:
    """Threads of a count of ``n`` flags: 16 flags a thread."""
    return max(-(-n // 16), 16)


def _pull_lanes(semiring: TypedSemiring) -> int:
    """The most lanes a pull gives one row: a warp, or :data:`_EARLY_EXIT_LANES` for monoids
    that stop early."""
    return _EARLY_EXIT_LANES if semiring.monoid.stops_early else 32


def _group_size(total: int, count: int) -> int:
    """Lanes per segment/row: the mean length rounded up to a power of two, at most a warp."""
    mean = total / max(count, 1)
    group = 1
    while group < 32 and group < mean:
        group *= 2
    return group


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


class _MergeCall:
    """A merge-path pull's launches, packed once per (plan, semiring, operand form): the gather
    into the column cache (or None), the main kernel and the fix-up (None without tiles), and
    the scratch presence for a caller that knows its result's (or None)."""

    def __init__(self, semiring: TypedSemiring, nrows: int, gather: PreparedLaunch | None,
                 main: PreparedLaunch | None, fixup: PreparedLaunch | None, scratch: cupy.ndarray | None) -> None:
        self.semiring, self.nrows = semiring, nrows
        self.gather, self.main, self.fixup, self.scratch = gather, main, fixup, scratch

    def run(self, values: Any, x: Any, x_present: Any, row_mask: Any,
            into: tuple[cupy.ndarray, cupy.ndarray] | None,
            out: cupy.ndarray | None) -> tuple[cupy.ndarray, cupy.ndarray | None]:
        """Launch on the current stream: see :meth:`CupyBackend._spmv_merge`."""
        if self.gather is not None:
            self.gather.launch(x, x_present)
        if into is not None:
            out, present = into[1], into[0]
        elif out is None:  # a new result, allocated while the gather runs
            out, present = _spmv_result(self.semiring, self.nrows)
        else:
            present = self.scratch
        if self.main is not None:
            self.main.launch(values, x, x_present, row_mask, out, present)
            self.fixup.launch(out, present)  # type: ignore[union-attr]
        return out, None if self.scratch is not None else present


class CupyBackend(Backend):
    """Kernels generated from the operators, compiled by NVRTC through CuPy."""

    name = "cupy"
    xp = cupy
    merge_min_nnz = 1 << 16
    """Matrices with at least this many entries get merge-path SpMV (where it applies)."""
    push_balance_row = 1024
    """Push from a listed frontier shares its entries among warps evenly when the matrix has
    a row longer than this (a group of lanes per row would leave a hub row to one warp)."""
    hot_columns = 1 << 18
    """Columns a :class:`ColumnCache` gathers (1 MB of FP32); made for matrices of at least
    ``hot_min_nnz`` entries and four times as many columns, whose hot columns hold at least
    ``hot_min_share`` of the entries (a power-law graph; a grid's or a road map's do not)."""
    hot_min_nnz = 1 << 22
    hot_min_share = 0.5

    def __init__(self) -> None:
        self._modules: dict[str, Any] = {}
        self._functions: dict[tuple[str, str], Any] = {}
        self._counters: dict[tuple[int, int], StreamCounts] = {}
        self._totals_lock = threading.Lock()
        self._elementwise: dict[Any, Any] = {}  # see _launch_kept_elementwise
        # Per device, stream, monoid and size: the arrays of a frontier a relax push consumed,
        # left clean (no entry, values the identity) for the next one's report (push_relax).
        self._clean_reports: dict[Any, tuple[cupy.ndarray, cupy.ndarray]] = {}
        # Per (semiring, vector first, of the matrix): the type a matrix-vector kernel reads that
        # operand in, or None where it reads none (see _matvec_operand).
        self._operand_types: dict[tuple[Any, bool, bool], DataType | None] = {}

    # -------------------------------------------------------------- compilation
    def _function(self, module: KernelModule, role: str = "main") -> Any:
        """The compiled entry point ``role`` of ``module`` (compiled once per process)."""
        fn = self._functions.get((module.digest, role))
        if fn is None:
            raw = self._modules.get(module.digest)
            if raw is None:
                raw = cupy.RawModule(code=module.source, options=codegen.NVRTC_OPTIONS)
                self._modules[module.digest] = raw
            fn = self._functions[(module.digest, role)] = raw.get_function(module.entries[role])
        return fn

    @staticmethod
    def _launch_elementwise(fn: Any, n: int, args: tuple[Any, ...]) -> None:
        if n > 0:
            fn((_bounded_blocks(n, _ELEMENTWISE_BLOCKS_PER_SM),), (_BLOCK,), args)

    def _launch_kept_elementwise(self, module: KernelModule, role: str, n: int, args: tuple[Any, ...],
                                 changing: tuple[int, ...], scalars: tuple[Any, ...] = ()) -> None:
        """:meth:`_launch_elementwise` of entry ``role`` of ``module`` through a launch kept
        per device, entry, size and ``scalars`` (the arguments outside ``changing`` other than
        the size: scalars, none of them an array): a statement a loop repeats writes only its
        pointers and calls the driver (CuPy converts every argument at every launch)."""
        if n > 0:
            launch_kept(self._elementwise, (cupy.cuda.runtime.getDevice(), module.digest, role, n) + scalars,
                        lambda: (self._function(module, role), _bounded_blocks(n, _ELEMENTWISE_BLOCKS_PER_SM), _BLOCK),
                        args, changing, _KEPT_ELEMENTWISE)

    def _launch_changing(self, module: KernelModule, role: str, grid: int, block: int, args: tuple[Any, ...]) -> None:
        """Entry ``role`` of ``module`` on ``grid`` blocks of ``block`` threads, through a launch
        kept per device, entry and grid with every argument (arrays, None, NumPy scalars)
        written at each call: for launches whose arguments all vary from call to call (a
        BFS's first level makes three), a driver call where CuPy would convert each."""
        words = tuple(scalar_word(a) if isinstance(a, np.generic) else a for a in args)
        launch_kept(self._elementwise, (cupy.cuda.runtime.getDevice(), module.digest, role, "changing", grid, block),
                    lambda: (self._function(module, role), grid, block), words, tuple(range(len(words))),
                    _KEPT_ELEMENTWISE)

    @staticmethod
    def _launch_groups(fn: Any, count: int, group: int, args: tuple[Any, ...]) -> None:
        """One group of ``group`` lanes per item (segment or row)."""
        if count > 0:
            fn((-(-count * group // _BLOCK),), (_BLOCK,), args + (np.int32(group),))

    # -------------------------------------------------------------- arrays
    @_map_out_of_memory
    def asarray(self, x: Any, dtype: Any = None) -> cupy.ndarray:
        """``x`` (NumPy, CuPy, a list or a scalar) as a CuPy array.  A one-value NumPy array of
        a GraphBLAS type (a BFS source) goes as a fill of its value, a launch argument: a
        host-to-device copy of it took 40-60 us of host time on a slow host, a launch 10-20."""
        if dtype is None and x.__class__ is np.ndarray and x.shape == (1,) and x.dtype in _ONE_WORD_TYPES:
            return self.full(1, x[0], lookup_dtype(x.dtype))
        return cupy.asarray(x, dtype=dtype)

    def copy(self, x: cupy.ndarray) -> cupy.ndarray:
        """A copy of ``x``: one device-to-device memcpy for a contiguous array (CuPy's copy
        launches an element-wise kernel, which costs more host time), else CuPy's copy."""
        if not x._c_contiguous or not x.nbytes:
            return x.copy()
        out = cupy.empty(x.shape, dtype=x.dtype)
        cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, cupy.cuda.runtime.memcpyDeviceToDevice,
                                      cupy.cuda.get_current_stream().ptr)
        return out

    def to_host(self, x: Any) -> np.ndarray:
        """The array as a NumPy array on the host."""
        return cupy.asnumpy(x)

    @_map_out_of_memory
    def cast(self, x: Any, t: DataType) -> Any:
        """Cast C-style to ``t`` (float to integer truncates and saturates, NaN becomes 0)."""
        return self._cast(x, t)

    def _cast(self, x: Any, t: DataType) -> Any:
        """:meth:`cast` inside the methods that map running out of memory themselves."""
        if not isinstance(x, cupy.ndarray):
            x = cupy.asarray(x)
        if x.dtype == t.np_type:
            return x
        try:
            src = lookup_dtype(x.dtype)
        except DomainMismatch:
            return cast_array(x, t, cupy)  # not a GraphBLAS type (e.g. float16): generic path
        xc = _contiguous(x)
        out = cupy.empty(xc.shape, dtype=t.np_type)
        self._launch_elementwise(self._function(codegen.cast_module(src, t)), xc.size, (xc, out, np.int64(xc.size)))
        return out

    def synchronize(self) -> None:
        """Wait for the work queued on the current stream."""
        cupy.cuda.get_current_stream().synchronize()

    def _operand(self, x: Any, t: DataType) -> cupy.ndarray:
        """``x`` as a contiguous CuPy array of type ``t``."""
        return _contiguous(self._cast(x, t))

    def _matvec_operand(self, semiring: TypedSemiring, arr: Any, vector_first: bool, of_matrix: bool) -> Any:
        """A matrix-vector kernel's value operand (the matrix's when ``of_matrix``, else the
        vector's): cast to the type the product reads, or a null pointer when it ignores them."""
        key = (semiring, vector_first, of_matrix)
        t: DataType | None | Literal[False] = self._operand_types.get(key, False)  # False: not looked up yet
        if t is False:  # first use of this semiring here (a few lookups, then one per call)
            read = codegen.matrix_value_read if of_matrix else codegen.vector_value_read
            t = codegen.spmv_operand_types(semiring, vector_first)[0 if of_matrix else 1] if read(
                semiring, vector_first) else None
            if len(self._operand_types) >= _KEPT_OPERAND_TYPES:
                self._operand_types.clear()
            self._operand_types[key] = t
        if t is None:
            return _NULL
        if arr.__class__ is cupy.ndarray and arr.dtype == t.np_type and arr._c_contiguous:  # already as read
            return arr
        return self._operand(arr, t)

    def _flag_array(self, x: Any) -> Any:
        """An optional bool array (x presence, row mask) as a contiguous CuPy array, or a null pointer."""
        if x is None:
            return _NULL
        if isinstance(x, cupy.ndarray) and x.dtype == np.bool_ and x._c_contiguous:
            return x
        return _contiguous(cupy.asarray(x).astype(np.bool_, copy=False))

    # -------------------------------------------------------------- element-wise
    @_map_out_of_memory
    def unary(self, op: TypedUnaryOp, x: Any) -> cupy.ndarray:
        """``op(x)`` per element; ``x`` is of ``op.in_type`` (other types are cast first)."""
        xc = self._operand(x, op.in_type)
        out = cupy.empty(xc.shape, dtype=op.out_type.np_type)
        self._launch_elementwise(self._function(codegen.unary_module(op)), xc.size, (xc, out, np.int64(xc.size)))
        return out

    @_map_out_of_memory
    def binary(self, op: TypedBinaryOp, x: Any, y: Any, pos: Positions | None = None) -> cupy.ndarray:
        """``op(x, y)`` per element; either side may be a scalar (a bound operand)."""
        if op.positional and pos is None:
            raise InvalidValue(f"{op!r} is positional: it needs the operands' positions")
        module = codegen.binary_module(op)
        x_scalar, y_scalar = _is_scalar(x), _is_scalar(y)
        if x_scalar and y_scalar:
            out = self.binary(op, self._operand(cupy.asarray(x).reshape(1), op.x_type), y, pos)
            return out.reshape(())
        if x_scalar:
            ya = self._operand(y, op.y_type)
            on_device, bound = self._bound(x, op.x_type)
            role, args, shape = "dv" if on_device else "sv", (bound, ya), ya.shape
        elif y_scalar:
            xa = self._operand(x, op.x_type)
            on_device, bound = self._bound(y, op.y_type)
            role, args, shape = "vd" if on_device else "vs", (xa, bound), xa.shape
        else:
            xa, ya = self._operand(x, op.x_type), self._operand(y, op.y_type)
            if xa.shape != ya.shape:
                xa, ya = (_contiguous(a) for a in cupy.broadcast_arrays(xa, ya))
            role, args, shape = "vv", (xa, ya), xa.shape
        out = cupy.empty(shape, dtype=op.out_type.np_type)
        n = out.size
        if op.positional:
            positions = self._positions(pos, shape)
            self._launch_elementwise(self._function(module, role), n, args + (out, np.int64(n)) + positions)
            return out
        if role in ("vs", "sv"):  # the host scalar is written at each launch, as the pointers are
            args = (args[0], scalar_word(args[1])) if role == "vs" else (scalar_word(args[0]), args[1])
        self._launch_kept_elementwise(module, role, n, args + (out, np.int64(n)) + _NO_POSITIONS, (0, 1, 2))
        return out

    def _bound(self, v: Any, t: DataType) -> tuple[bool, Any]:
        """A bound scalar operand of type ``t``: (True, a 1-element device array) for a 0-d
        CuPy array, read by the kernel where it lies; (False, the host value) otherwise."""
        if isinstance(v, cupy.ndarray):
            return True, self._operand(v, t).reshape(1)
        return False, cast_scalar(v, t)

    def count_true(self, flags: Any) -> int:
        """The number of true values in a bool array (one kernel, one read back)."""
        arr = self._flag_array(flags)
        n = int(arr.size)
        return self._total("main", _flag_threads(n), (arr, np.int64(n)), ("count", n))

    def count_true_queued(self, flags: Any) -> DeviceCount | None:
        """:meth:`count_true`, queued: a :class:`DeviceCount` that ``int()`` reads once the
        kernel has run (None where every count word of the stream is lent)."""
        arr = self._flag_array(flags)
        n = int(arr.size)
        return self._queued_total("main", _flag_threads(n), (arr, np.int64(n)), (0,), ("count queued", n))

    def _total(self, role: str, threads: int, args: tuple[Any, ...], key: Any = None) -> int:
        """Run entry ``role`` of the count module over ``threads`` threads and read its total.

        One launch and one wait: the kernel writes the total straight into a page-locked
        host word (:mod:`.counts`), so no memset comes before and no copy after (each about
        5 us of host time per count on a busy loop's critical path).  With a ``key`` (naming
        ``threads`` and every argument but the first, an array), the launch is kept prepared
        with the stream's count state: a loop counts the same size each round."""
        if not threads:
            return 0
        with self._totals_lock:  # one count at a time uses the stream's state and host word
            counts = self._counts()
            launch_kept(None if key is None else counts.kept, key,
                        lambda: (self._function(codegen.count_module(), role),
                                 _bounded_blocks(threads, _REDUCE_BLOCKS_PER_SM), _BLOCK),
                        args + (counts.state, counts.address), (0,), _KEPT_COUNTS)
            cupy.cuda.get_current_stream().synchronize()
            return int(counts.word[0])

    def _counts(self, stream: cupy.cuda.Stream | None = None) -> StreamCounts:
        """The count state of the current device and ``stream`` (default: the current
        stream), made on first use."""
        key = (cupy.cuda.runtime.getDevice(), (stream or cupy.cuda.get_current_stream()).ptr)
        counts = self._counters.get(key)
        if counts is None:
            counts = self._counters[key] = StreamCounts.make()
        return counts

    def count_ahead(self, count: Any, flags: Any) -> Any:
        """A vector's count ``count`` (an int, a :class:`DeviceCount`, or None: unknown; its
        presence ``flags``) made to be read without waiting for work queued after this call:
        a pending count marked where the stream stands, an unknown one queued now."""
        if count is None:
            count = self.count_true_queued(flags)
        if isinstance(count, DeviceCount):
            count.mark()
        return count

    def _queued_total(self, role: str, threads: int, args: tuple[Any, ...], changing: tuple[int, ...],
                      key: Any) -> DeviceCount | None:
        """Entry ``role`` of the count module over ``threads`` threads, its total written to a
        pending count's word: that count (None, with nothing launched, where every
        count word of the stream is lent).  The launch is kept prepared under ``key`` (naming
        ``threads`` and every argument outside ``changing``)."""
        count, counting = self._pending_count()
        if count is None:
            return None
        launch_kept(self._counts().kept, key,
                    lambda: (self._function(codegen.count_module(), role),
                             _bounded_blocks(max(threads, 1), _REDUCE_BLOCKS_PER_SM), _BLOCK),
                    args + counting, changing + (len(args) + 1,), _KEPT_COUNTS)
        return count

    def _pending_count(self) -> tuple[DeviceCount | None, tuple[Any, Any]]:
        """A count that a kernel queued next on the current stream writes, and the two kernel
        arguments that ask it to (the stream's count state and the count's word); (None, two
        null pointers) where every count word of the stream is lent."""
        stream = cupy.cuda.get_current_stream()
        counts = self._counts(stream)
        count = counts.slots.lend(stream)
        return count, ((counts.state, count.address) if count is not None else (_NULL, _NULL))

    # -------------------------------------------------------------- bitmap writes
    @_map_out_of_memory
    def full(self, size: int, value: Any, t: DataType) -> cupy.ndarray:
        """An array of ``size`` elements of type ``t``, each ``value``."""
        require_bytes(size * t.itemsize, "cupy", f"an array of {size} {t} values")
        out = cupy.empty(size, dtype=t.np_type)
        if t.is_bool:  # a byte per flag: a memset
            if size:
                out.data.memset_async(int(bool(cast_scalar(value, t))), size)
        elif size:
            self._launch_changing(codegen.bitmap_module(t), "fill", _bounded_blocks(size, _ELEMENTWISE_BLOCKS_PER_SM),
                                  _BLOCK, (cast_scalar(value, t), out, np.int64(size)))
        return out

    @_map_out_of_memory
    def bitmap_of(self, idx: Any, vals: Any, size: int) -> tuple[cupy.ndarray, cupy.ndarray]:
        """(presence, dense values) of ``size`` positions holding the entries ``idx`` (int64),
        ``vals``: a memset and one scatter pass (values elsewhere are left unset: never read)."""
        require_bytes(size * (1 + vals.dtype.itemsize), "cupy", f"a bitmap of {size} positions")
        bits = cupy.zeros(size, dtype=np.bool_)
        dense = cupy.empty(size, dtype=vals.dtype)
        n = int(idx.shape[0])
        if n:
            self._launch_changing(codegen.bitmap_module(lookup_dtype(vals.dtype)), "scatter",
                                  _bounded_blocks(n, _ELEMENTWISE_BLOCKS_PER_SM), _BLOCK,
                                  (_contiguous(idx), _contiguous(vals), bits, dense, np.int64(n)))
        return bits, dense

    @_map_out_of_memory
    def mask_allowed(self, bits: Any, values: Any, complement: bool, within: Any = None) -> cupy.ndarray:
        """The positions a mask allows, in one pass: ``bits`` (and ``values`` as bools, for a
        value mask; None for a structural one), inverted where ``complement``, and-ed with
        ``within`` where given."""
        return self._allowed(bits, values, complement, within, False)[0]

    @_map_out_of_memory
    def mask_allowed_counted(self, bits: Any, values: Any, complement: bool,
                             within: Any = None) -> tuple[cupy.ndarray, DeviceCount | int | None]:
        """:meth:`mask_allowed` and the number of positions it allows, counted in the same
        pass: a :class:`DeviceCount` (None where every count word of the stream is lent)."""
        return self._allowed(bits, values, complement, within, True)

    def _allowed(self, bits: Any, values: Any, complement: bool, within: Any,
                 counted: bool) -> tuple[cupy.ndarray, DeviceCount | int | None]:
        flags = self._flag_array(bits)
        t = BOOL if values is None else lookup_dtype(values.dtype)
        n = flags.size
        z = cupy.empty(n, dtype=np.bool_)
        if not n:
            return z, 0 if counted else None
        count, counting = self._pending_count() if counted else (None, (_NULL, _NULL))
        complement = bool(complement)
        args = (flags, _NULL if values is None else _contiguous(values), _FLAGS32[complement],
                self._flag_array(within), z, np.int64(n)) + counting
        self._launch_kept_elementwise(codegen.bitmap_module(t), "allowed", n, args, _ALLOWED_CHANGING, (complement,))
        return z, count

    @_map_out_of_memory
    def select_bitmap(self, where: Any, a_bits: Any, a_vals: Any, c_bits: Any,
                      c_vals: Any) -> tuple[cupy.ndarray, cupy.ndarray]:
        """(presence, values), in one pass: where ``where``, presence ``a_bits`` (everywhere
        when None) and values ``a_vals`` (an array of ``c_vals``' type, or one scalar);
        elsewhere ``c_bits`` and ``c_vals``."""
        m = self._flag_array(where)
        t = lookup_dtype(c_vals.dtype)
        n = m.size
        z_bits, z_vals = cupy.empty(n, dtype=np.bool_), cupy.empty(n, dtype=t.np_type)
        tail = (self._flag_array(c_bits), _contiguous(c_vals), z_bits, z_vals, np.int64(n))
        module = codegen.bitmap_module(t)
        if _is_scalar(a_vals):
            self._launch_elementwise(self._function(module, "select_scalar"), n, (m, cast_scalar(a_vals, t)) + tail)
        else:
            args = (m, self._flag_array(a_bits), _contiguous(self._cast(a_vals, t))) + tail
            self._launch_elementwise(self._function(module, "select"), n, args)
        return z_bits, z_vals

    @staticmethod
    def owns_block(a: cupy.ndarray) -> bool:
        """Whether ``a`` owns its memory as one C-ordered block (not a view of another array):
        what the in-place writes take."""
        return a.base is None and bool(a._c_contiguous)

    def set_where(self, where: Any, value: Any, bits: cupy.ndarray, vals: cupy.ndarray) -> None:
        """In place: ``bits`` true and ``vals`` ``value`` (of their type) wherever ``where``."""
        t = lookup_dtype(vals.dtype)
        n = int(bits.size)
        # The value is written at each launch, as the pointers are: it often changes from call to
        # call (BFS's level number), and keyed it would pack a launch per value.
        self._launch_kept_elementwise(codegen.bitmap_module(t), "set_where", n,
                                      (self._flag_array(where), scalar_word(cast_scalar(value, t)), bits, vals,
                                       np.int64(n)), _SET_WHERE_CHANGING)

    def pulls_by_columns(self, semiring: TypedSemiring) -> bool:
        """True when :meth:`spmv_columns` takes ``semiring`` (see :mod:`.columns`): ``u' A`` then
        needs no transpose of A."""
        return columns_codegen.columns_supported(semiring.monoid)

    @_map_out_of_memory
    def spmv_columns(self, semiring: TypedSemiring, indptr: Any, indices: Any, values: Any, x: Any, x_present: Any,
                     col_mask: Any, complement: bool, ncols: int,
                     matrix_first: bool = False) -> tuple[cupy.ndarray, cupy.ndarray]:
        """``u' A`` (``A' u`` with ``matrix_first``) from A's own rows, no transpose (:mod:`.columns`)."""
        from .columns import spmv_columns

        return spmv_columns(self, semiring, indptr, indices, values, x, x_present, col_mask, complement, ncols,
                            matrix_first)

    def pushes_atomically(self, semiring: TypedSemiring) -> bool:
        """True when ``spmspv`` combines a push into a dense result for ``semiring``."""
        return codegen.atomic_push_supported(semiring.monoid)

    def sum_selected(self, values: Any, flags: Any = None, rows: Any = None) -> int:
        """The sum of non-negative int64 ``values`` over the positions flagged true in ``flags``,
        or over the positions listed in ``rows`` (one kernel, one read back)."""
        args = self._sum_arguments(values, flags, rows)
        return self._total("sum", int(args[-1]), args)

    def sum_selected_queued(self, values: Any, flags: Any) -> DeviceCount | None:
        """:meth:`sum_selected` over ``flags``, queued: a :class:`DeviceCount` that ``int()``
        reads once the kernel has run (None where every count word of the stream is lent)."""
        args = self._sum_arguments(values, flags, None)
        return self._queued_total("sum", int(args[-1]), args, (0, 1), ("sum queued", int(args[-1])))

    def _sum_arguments(self, values: Any, flags: Any, rows: Any) -> tuple[Any, ...]:
        """The count module's ``sum`` arguments before the count's: (values, flags or null,
        rows or null, how many positions)."""
        vals = self._index_array(values).astype(np.int64, copy=False)
        if rows is not None:
            return vals, _NULL, _contiguous(cupy.asarray(rows, dtype=np.int64)), np.int64(rows.shape[0])
        return vals, self._flag_array(flags), _NULL, np.int64(flags.shape[0])

    @_map_out_of_memory
    def ewise_union(self, op: TypedBinaryOp, x_bits: Any, x: Any, y_bits: Any, y: Any, x_default: Any,
                    y_default: Any, out: tuple[Any, Any] | None = None) -> tuple[cupy.ndarray, cupy.ndarray]:
        """eWiseUnion of two bitmaps (presence, dense values) in one kernel: ``op`` where both
        hold an entry, ``op`` with the other side's default where one does.  Returns (values,
        presence), written into ``out`` (values, presence: arrays of ``op``'s output type and
        bool, neither an operand) where given; ``op`` must not be positional."""
        if op.positional:
            raise InvalidValue(f"{op!r} is positional: ewise_union takes no positions")
        defaults = (cast_scalar(x_default, op.x_type), cast_scalar(y_default, op.y_type))
        return self._two_bitmaps(op, "union", x_bits, x, y_bits, y, defaults, out)

    @_map_out_of_memory
    def ewise_add(self, op: TypedBinaryOp, x_bits: Any, x: Any, y_bits: Any, y: Any) -> tuple[cupy.ndarray, cupy.ndarray]:
        """eWiseAdd of two bitmaps in one kernel: ``op`` where both hold an entry, the lone
        value where one does.  Returns (values, presence).  ``op`` must not be positional, and
        its inputs and output must share one type (the lone values pass through uncast)."""
        self.check_adds_in_one_pass(op)
        return self._two_bitmaps(op, "add", x_bits, x, y_bits, y, ())

    @_map_out_of_memory
    def ewise_add_into(self, op: TypedBinaryOp, x_bits: cupy.ndarray, x: cupy.ndarray, y_bits: Any, y: Any) -> None:
        """:meth:`ewise_add` written into ``x_bits`` and ``x`` (arrays of ``op``'s type that the
        caller owns): only the positions where y holds an entry are read and written."""
        self.check_adds_in_one_pass(op)
        ya = self._operand(y, op.y_type)
        n = int(x.size)
        self._launch_kept_elementwise(codegen.binary_module(op), "add_into", n,
                                      (x_bits, x, self._flag_array(y_bits), ya, np.int64(n)), _ADD_INTO_CHANGING)

    @_map_out_of_memory
    def ewise_add_changes(self, op: TypedBinaryOp, x_bits: Any, x: Any, y_bits: Any, y: Any,
                          z: tuple[Any, Any] | None = None,
                          d: tuple[Any, Any] | None = None) -> tuple[Any, ...]:
        """:meth:`ewise_add` of y into x, reporting what it changes, in one kernel.  The result
        goes to ``z`` (presence, values: x's own arrays, written in place, or None for new
        arrays), and the entries it makes new or different from x's (a NaN matching a NaN)
        to ``d`` (presence, values of op's type, neither an operand; None for new arrays).
        Returns (z_bits, z, d_bits, d, their count: a :class:`DeviceCount`, or None where
        every count word of the stream is lent)."""
        self.check_adds_in_one_pass(op)
        xa, ya = self._operand(x, op.x_type), self._operand(y, op.y_type)
        x_flags = self._flag_array(x_bits)
        n = xa.size
        z_bits, z_vals = z if z is not None else (cupy.empty(n, dtype=np.bool_), cupy.empty(n, dtype=xa.dtype))
        d_bits, d_vals = d if d is not None else (cupy.empty(n, dtype=np.bool_), cupy.empty(n, dtype=xa.dtype))
        if not n:
            return z_bits, z_vals, d_bits, d_vals, 0
        count, counting = self._pending_count()
        args = (x_flags, xa, self._flag_array(y_bits), ya, z_bits, z_vals, d_bits, d_vals, np.int64(n)) + counting
        self._launch_kept_elementwise(codegen.binary_module(op), "add_changes", n, args, _ADD_CHANGES_CHANGING)
        return z_bits, z_vals, d_bits, d_vals, count

    def _two_bitmaps(self, op: TypedBinaryOp, role: str, x_bits: Any, x: Any, y_bits: Any, y: Any,
                     extra: tuple[Any, ...], out: tuple[Any, Any] | None = None) -> tuple[cupy.ndarray, cupy.ndarray]:
        """Entry ``role`` of ``op``'s binary module over two bitmaps (``extra``: its arguments
        after the operands): returns (values, presence), new arrays or ``out``."""
        xa, ya = self._operand(x, op.x_type), self._operand(y, op.y_type)
        n = xa.size
        if out is None:
            z, z_bits = cupy.empty(n, dtype=op.out_type.np_type), cupy.empty(n, dtype=np.bool_)
        else:
            z, z_bits = out
        args = (self._flag_array(x_bits), xa, self._flag_array(y_bits), ya) + extra + (z, z_bits, np.int64(n))
        outputs = 4 + len(extra)  # z and z_bits follow the operands and the scalars
        self._launch_kept_elementwise(codegen.binary_module(op), role, n, args, (0, 1, 2, 3, outputs, outputs + 1),
                                      tuple(_scalar_key(e) for e in extra))
        return z, z_bits

    def _position(self, p: Any, shape: tuple[int, ...]) -> tuple[Any, np.int64]:
        """One position operand as (pointer or null, constant)."""
        if _is_scalar(p):
            return _NULL, np.int64(_host_scalar(p))
        arr = cupy.asarray(p, dtype=np.int64)
        if arr.shape != shape:
            arr = cupy.broadcast_to(arr, shape)
        return _contiguous(arr), np.int64(0)

    def _positions(self, pos: Positions | None, shape: tuple[int, ...]) -> tuple[Any, ...]:
        """Kernel arguments ``xi, xi0, xj, xj0, yi, yi0, yj, yj0``."""
        if pos is None:
            return _NO_POSITIONS
        return sum((self._position(p, shape) for p in (pos.xi, pos.xj, pos.yi, pos.yj)), ())

    @_map_out_of_memory
    def indexunary(self, op: TypedIndexUnaryOp, x: Any, i: Any, j: Any, thunk: Any) -> cupy.ndarray:
        """``op(x, i, j, thunk)`` per element; ``i``/``j`` are int64 arrays or ints."""
        xc = self._operand(x, op.in_type)
        out = cupy.empty(xc.shape, dtype=op.out_type.np_type)
        args: tuple[Any, ...] = (xc, out, np.int64(xc.size)) + self._position(i, xc.shape) + self._position(j, xc.shape)
        args += (cast_scalar(_host_scalar(thunk), op.thunk_type),)
        self._launch_elementwise(self._function(codegen.indexunary_module(op)), xc.size, args)
        return out

    # -------------------------------------------------------------- reductions
    @staticmethod
    def _index_array(a: Any) -> cupy.ndarray:
        """An index array as a contiguous CuPy array: int32 as stored, any other type as int64."""
        arr = a if isinstance(a, cupy.ndarray) else cupy.asarray(a)
        if arr.dtype != np.int32 and arr.dtype != np.int64:  # (no astype call when it has nothing to do)
            arr = arr.astype(np.int64)
        return _contiguous(arr)

    @staticmethod
    def _csr_arrays(indptr: Any, indices: Any) -> tuple[cupy.ndarray, cupy.ndarray]:
        """Row pointers and column indices as contiguous CuPy arrays in a layout of
        ``codegen.CSR_INDEX_TYPES``: each keeps int32 or int64 as stored (a matrix of 2**31
        entries or more has int64 pointers beside int32 indices, and copying its indices to
        int64 would double their memory), except that int64 indices take int64 pointers."""
        ptr, idx = CupyBackend._index_array(indptr), CupyBackend._index_array(indices)
        return (ptr.astype(np.int64) if idx.dtype == np.int64 and ptr.dtype == np.int32 else ptr), idx

    @_map_out_of_memory
    def segment_reduce(self, monoid: TypedMonoid, values: Any, offsets: Any) -> cupy.ndarray:
        """Reduce ``values[offsets[s]:offsets[s+1]]`` with the monoid for every segment s.

        Every segment must be non-empty.  Long segments (a reduction to one scalar, say)
        are cut into chunks reduced in parallel, then the chunks' results are reduced.
        """
        offs = self._index_array(offsets)
        nseg = max(len(offs) - 1, 0)
        out = cupy.empty(nseg, dtype=monoid.type.np_type)
        if nseg == 0:
            return out
        vals = self._operand(values, monoid.type)
        if not monoid.is_any and vals.size > _CHUNK * 4 * nseg:  # long segments on average
            return self._chunked_reduce(monoid, vals, offs.astype(np.int64))
        fn = self._function(codegen.segment_reduce_module(monoid, offs.dtype))
        self._launch_groups(fn, nseg, _group_size(vals.size, nseg), (vals, offs, np.int64(nseg), out))
        return out

    @_map_out_of_memory
    def reduce_all(self, monoid: TypedMonoid, values: Any) -> cupy.ndarray:
        """All of ``values`` (at least one) reduced with the monoid, as a 1-element array: a
        partial result per block of a grid that strides over them, then one block over those;
        no host synchronisation (4 M FP64 values: two kernels of under 5 us, against 58 + 9 us
        for chunks of 4,096 values a warp)."""
        vals = self._operand(values, monoid.type).reshape(-1)
        blocks = _bounded_blocks(vals.size, _ELEMENTWISE_BLOCKS_PER_SM)
        partial = cupy.empty(blocks, dtype=monoid.type.np_type)
        self._strided_reduce(monoid, vals, blocks, partial)
        return self._one_block_reduce(monoid, partial)

    def _strided_reduce(self, monoid: TypedMonoid, vals: cupy.ndarray, blocks: int, out: cupy.ndarray) -> None:
        """``out[b]``: the monoid over the values block b of a ``blocks``-block grid visits."""
        fn = self._function(codegen.segment_reduce_module(monoid, np.dtype(np.int64)), "strided")
        fn((blocks,), (_BLOCK,), (vals, np.int64(vals.size), out))

    def _one_block_reduce(self, monoid: TypedMonoid, partial: cupy.ndarray) -> cupy.ndarray:
        """Per-block partial results (at most a few thousand) reduced by one block."""
        if partial.size == 1:
            return partial
        out = cupy.empty(1, dtype=partial.dtype)
        self._strided_reduce(monoid, partial, 1, out)
        return out

    @_map_out_of_memory
    def dot(self, semiring: TypedSemiring, x: Any, y: Any) -> cupy.ndarray:
        """The inner product of two full vectors' values (at least one; the multiplier not
        positional) over the semiring, as a 1-element array: products reduced as they are
        made (a partial per block, kept with the stream), then the partials by the block that
        finishes last; one launch, kept prepared, and no array of products."""
        mult, monoid = semiring.mult, semiring.monoid
        xa, ya = _flat(self._operand(x, mult.x_type)), _flat(self._operand(y, mult.y_type))
        n = int(xa.size)
        out = cupy.empty(1, dtype=monoid.type.np_type)
        counts = self._counts()
        most_blocks = _ELEMENTWISE_BLOCKS_PER_SM * _sm_count(cupy.cuda.runtime.getDevice())
        partial = counts.partials(monoid.type.np_type, most_blocks)
        self._launch_kept_elementwise(codegen.dot_module(semiring), "main", n,
                                      (xa, ya, np.int64(n), partial, out, counts.state), (0, 1, 3, 4, 5))
        return out

    def _chunked_reduce(self, monoid: TypedMonoid, vals: cupy.ndarray, offs: cupy.ndarray) -> cupy.ndarray:
        """Segment reduce in two levels: chunks of at most ``_CHUNK`` values inside segments,
        then each segment's chunk results."""
        start, end = int(offs[0]), int(offs[-1])
        if offs.size == 2:  # one segment: a whole-array reduction of its values
            return self.reduce_all(monoid, vals[start:end])
        grid = cupy.arange(start, end, _CHUNK, dtype=np.int64)
        bounds = cupy.unique(cupy.concatenate([offs, grid]))
        partial = self.segment_reduce(monoid, vals, bounds)
        return self.segment_reduce(monoid, partial, cupy.searchsorted(bounds, offs))

    @_map_out_of_memory
    def spmv(
        self,
        semiring: TypedSemiring,
        indptr: Any,
        indices: Any,
        values: Any,
        x: Any,
        x_present: Any | None,
        row_mask: Any | None,
        vector_first: bool,
        plan: SpmvPlan | None = None,
        presence: bool = True,
        complement: bool = False,
        into: tuple[cupy.ndarray, cupy.ndarray] | None = None,
        out: cupy.ndarray | None = None,
        claim: cupy.ndarray | None = None,
    ) -> tuple[cupy.ndarray, cupy.ndarray | None] | None:
        """Pull SpMV over CSR rows: ``out[r] = ADD_k MULT(A[r,k], x[k])`` for present ``x[k]``.

        ``vector_first`` computes ``MULT(x[k], A[r,k])`` instead (vxm through the transpose).
        Positions are (r, k, k, 0), or (0, k, k, r) when ``vector_first``.  Rows where
        ``row_mask`` is False (True with ``complement``) are not computed.  Returns the dense
        result and a presence array.
        ``plan`` (from :meth:`spmv_plan` on the same ``indptr``) splits the work: merge-path tiles
        where the semiring allows, else rows binned by length.  With ``presence`` False the
        caller has the presence already (every x[k] present, no mask: the nonempty rows), and
        the rows-by-length schedule returns None in its place, writing none.

        ``into`` (presence and values of the result's type, owned by the caller, no row mask)
        asks for the result to be added into them by the monoid instead (an accumulating write
        in the same pass), which the merge schedule does: the arrays are then returned.  Where
        that schedule does not apply, nothing runs and None is returned.

        ``out`` (values of the result's type that the caller owns) may be written with the
        result in place of a new array, which the one-launch schedule of a small matrix and
        the merge schedule do when ``presence`` is False; the returned array is the result
        either way.

        ``claim`` (values of the result's type owned by the caller, with ``row_mask`` their
        presence and ``complement`` set: the mask ``~C.S``) asks for each computed row's result
        to be written into C as well, in place, its presence set: ``C(~C.S) << A x`` in the
        pass that computes it, the returned result holding the entries added.  The one-launch
        schedule (rows in order) does it; where the merge schedule or rows binned by length
        would run, nothing runs and None is returned.
        """
        if into is None and plan is not None and plan.tile_row is None:
            repeated = self._repeat_one_launch(semiring, plan, (indptr, indices, values, x, x_present, row_mask),
                                               vector_first, complement, out, presence, claim)
            if repeated is not None:
                return repeated
        ptr, idx = self._csr_arrays(indptr, indices)
        nrows = max(len(ptr) - 1, 0)
        merge = plan is not None and plan.tile_row is not None and codegen.merge_schedule_applies(semiring)
        if into is not None and (not merge or row_mask is not None or nrows == 0):
            return None
        if claim is not None and (not self.pull_claims(semiring, plan) or row_mask is None or not complement):
            return None
        if nrows == 0:
            return _spmv_result(semiring, 0)
        operands = (ptr, idx, self._matvec_operand(semiring, values, vector_first, True),
                    self._matvec_operand(semiring, x, vector_first, False))
        flags = (self._flag_array(x_present), self._flag_array(row_mask))
        if merge:
            if complement and row_mask is not None:  # the merge kernels take the allowed rows only
                flags = (flags[0], self.mask_allowed(flags[1], None, True))
            reuse = out if into is None and not presence and out is not None and out.size == nrows else None
            assert plan is not None  # (merge is chosen with a plan only)
            return self._spmv_merge(semiring, operands, flags, plan, bool(vector_first), nrows, into, reuse)
        # A small matrix's one launch is kept prepared for its own arrays (CuPy's conversion of
        # its 15 arguments costs more than the kernel), and may write into the caller's ``out``.
        own = plan is not None and plan.tile_row is None and ptr is plan.indptr and idx is plan.indices
        out, present = _one_launch_outputs(semiring, nrows, out if own else None, presence)
        claimed = (_NULL, _NULL)
        if claim is not None:  # C's presence goes as c_bits, read and written there (no row mask)
            claimed, flags = (claim, flags[1]), (flags[0], _NULL)
        head = operands + flags + (_FLAGS32[bool(complement)],)
        tail = (out, present) + claimed + (_ZERO64,)
        lanes = _pull_lanes(semiring)

        def module() -> KernelModule:
            return codegen.spmv_module(semiring, idx.dtype, bool(vector_first), "vector", ptr.dtype)

        if plan is None or plan.classes is None:
            group = min(_group_size(idx.size, nrows), lanes)
            bare = _is_bare(x_present, row_mask, claim, presence, complement)
            launch_kept(plan.derived if own and plan is not None else None, _one_launch_key(semiring, vector_first, complement, bare),
                        lambda: (self._function(module()), -(-nrows * group // _BLOCK), _BLOCK),
                        head + (_NULL, np.int64(nrows)) + tail + (np.int32(group),),
                        _BARE_CHANGING if bare else _VECTOR_CHANGING)
            return out, present
        # The length classes run in one launch (a launch a class cost a slow host 10-15 us
        # each, seven a pull), the long rows in another, both packed once per plan for its own
        # arrays: CuPy's conversion of their 15 arguments cost more than the driver's launch.
        key = ("binned call", semiring, bool(vector_first), bool(complement))
        launches = plan.derived.get(key)
        if launches is None:
            launches = self._binned_launches(module(), plan, ptr, idx, lanes, complement)
            if ptr is plan.indptr and idx is plan.indices:
                plan.derived[key] = launches
        for launch in launches:
            launch.launch(operands[2], operands[3], flags[0], flags[1], out, present, *claimed)
        return out, present

    def pull_claims(self, semiring: TypedSemiring, plan: SpmvPlan | None) -> bool:
        """Whether :meth:`spmv` takes ``claim`` with this plan: only in the one-launch schedule
        (rows in order).  Rows binned by length are written scattered, and c's 8-byte values
        and flags written so cost more than the join pass they replace (kron scale 22 BFS
        pulls: 477 -> 585 us against 73 us of joins); the merge schedule has no claim."""
        if plan is None:
            return True
        return plan.classes is None and not (plan.tile_row is not None and codegen.merge_schedule_applies(semiring))

    def _binned_launches(self, module: KernelModule, plan: SpmvPlan, ptr: cupy.ndarray, idx: cupy.ndarray,
                         lanes: int, complement: bool) -> list[PreparedLaunch]:
        """A binned pull's launches (every length class in one, then the long rows'), each
        taking (values, x, x_present, row_mask, out, present, c, c_bits) at launch."""
        changing = (CHANGES,) * 4
        head = (ptr, idx) + changing + (_FLAGS32[bool(complement)],)
        launches = []
        table, blocks = _class_table(plan.classes or [], lanes)
        if blocks:
            launches.append(PreparedLaunch(self._function(module, "binned"), blocks, _BLOCK,
                                           head + (plan.class_rows, table, np.int32(table.size // 4)) + changing))
        if plan.long_rows is not None and plan.long_rows.size:
            launches.append(PreparedLaunch(self._function(module, "long"), plan.long_rows.size, _BLOCK,
                                           head + (plan.long_rows,) + changing))
        return launches

    def _repeat_one_launch(self, semiring: TypedSemiring, plan: SpmvPlan, arrays: tuple[Any, ...], vector_first: bool,
                           complement: bool, out: cupy.ndarray | None, presence: bool,
                           claim: cupy.ndarray | None) -> tuple[cupy.ndarray, cupy.ndarray | None] | None:
        """A small matrix's one-launch pull through the launch an earlier call kept, without
        that call's setup (on a slow host it cost more than the launch): ``arrays`` are spmv's
        (indptr, indices, values, x, x_present, row_mask); ``out``, ``presence`` and ``claim``
        as spmv takes them.  Returns (values, presence), or None, with nothing done, where no launch
        is kept for them."""
        indptr, indices, values, x, x_present, row_mask = arrays
        nrows = indptr.size - 1
        bare = _is_bare(x_present, row_mask, claim, presence, complement)
        prepared = plan.derived.get(_one_launch_key(semiring, vector_first, complement, bare))
        if prepared is None or indptr is not plan.indptr or indices is not plan.indices:
            return None
        out, present = _one_launch_outputs(semiring, nrows, out, presence)
        if bare:  # the null pointers are packed in the launch: three arguments change
            prepared.launch(self._matvec_operand(semiring, values, vector_first, True),
                            self._matvec_operand(semiring, x, vector_first, False), out)
            return out, None
        flags = self._flag_array(row_mask)
        row_mask, c_bits = (flags, None) if claim is None else (None, flags)  # (see spmv)
        prepared.launch(self._matvec_operand(semiring, values, vector_first, True),
                        self._matvec_operand(semiring, x, vector_first, False),
                        self._flag_array(x_present), row_mask, out, present, claim, c_bits)
        return out, present

    def _spmv_merge(self, semiring: TypedSemiring, operands: tuple[Any, ...], flags: tuple[Any, Any], plan: SpmvPlan,
                    vector_first: bool, nrows: int, into: tuple[cupy.ndarray, cupy.ndarray] | None = None,
                    out: cupy.ndarray | None = None) -> tuple[cupy.ndarray, cupy.ndarray | None]:
        """The merge-path schedule: one block per tile, then the carries that cross tiles.
        ``operands`` are (indptr, indices, values, x), ``flags`` (x_present, row_mask); what the
        pull reads of x (values, presence) goes through the matrix's :class:`ColumnCache` if it
        has one.  Returns the result of ``nrows`` rows, allocated once the gather (the first
        kernel) is queued, so the GPU starts while the host allocates; or, with ``into``
        (presence, values), added into those and returned as (values, presence); or, with
        ``out`` (values the caller owns; the caller knows the presence), written into ``out``
        with no allocation at all, returned as (out, None): the main kernel then follows the
        gather at once (an allocation between them left the GPU idle 30 us of a 630 us
        product at scale 22)."""
        ptr, idx, values, x = operands
        x_present, row_mask = flags
        # A repeated call on the plan's own arrays takes the launches an earlier call kept,
        # with no other work between them (host work between two launches leaves the GPU idle).
        own = ptr is plan.indptr and idx is plan.indices
        key = ("merge call", semiring, vector_first, x is not _NULL, x_present is not _NULL, into is not None,
               out is not None)
        call = plan.derived.get(key) if own else None
        if call is None:
            call = self._merge_call(semiring, ptr, idx, x, x_present, plan, vector_first, nrows, into is not None,
                                    out is not None)
            if own:
                plan.derived[key] = call
        return call.run(values, x, x_present, row_mask, into, out)

    def _merge_call(self, semiring: TypedSemiring, ptr: cupy.ndarray, idx: cupy.ndarray, x: Any, x_present: Any,
                    plan: SpmvPlan, vector_first: bool, nrows: int, into: bool, known: bool) -> _MergeCall:
        """The launches of a merge-path pull, packed with everything that stays the same from
        call to call on these arrays: see :meth:`_spmv_merge`."""
        module = codegen.spmv_module(semiring, idx.dtype, vector_first, "merge", ptr.dtype)
        tile_row = plan.tile_row
        ntiles = tile_row.size - 1  # type: ignore[union-attr]
        hot, role, gather = (_NULL, _NULL), "main", None
        # Values of 8 bytes measured slower through the cache (kron scale 22, FP64: 0-15%).
        narrow = x is _NULL or x.itemsize <= 4
        columns = self._column_cache(plan) if narrow and (x is not _NULL or x_present is not _NULL) else None
        if columns is not None and ntiles:  # the pull reads x (values, presence) through the cache's buffers
            hot = (_NULL if x is _NULL else columns.buffer(x.dtype),
                   _NULL if x_present is _NULL else columns.buffer(None))
            idx, role = columns.indices, "hot"
            n = columns.hot.size
            gather = PreparedLaunch(self._function(module, "gather"), _bounded_blocks(n, _ELEMENTWISE_BLOCKS_PER_SM),
                                    _BLOCK, (CHANGES, CHANGES, columns.hot, np.int64(n)) + hot)
        carries = plan.carry_arrays(semiring.out_type.np_type)
        scratch = plan.scratch_presence(nrows) if known else None
        main = fixup = None
        if ntiles:
            kernel = self._function(module, role)
            _leave_l1(kernel, codegen.MERGE_BLOCKS_PER_SM)
            main = PreparedLaunch(kernel, ntiles, codegen.MERGE_BLOCK,
                                  (ptr, idx, CHANGES, CHANGES) + hot + (CHANGES, CHANGES, tile_row, np.int64(nrows),
                                                                        CHANGES, CHANGES) + carries + (_FLAGS32[into],))
            fixup = PreparedLaunch(self._function(module, "fixup"), -(-ntiles // _BLOCK), _BLOCK,
                                   carries + (np.int64(ntiles), CHANGES, CHANGES))
        return _MergeCall(semiring, nrows, gather, main, fixup, scratch)

    def _column_cache(self, plan: SpmvPlan) -> ColumnCache | None:
        """The plan's :class:`ColumnCache`, made on first request; None where the matrix is
        too small or too even to gain from one, or the copy of its indices would not fit."""
        if "columns" not in plan.derived:
            idx = plan.indices
            wanted = (idx is not None and idx.size >= self.hot_min_nnz and plan.ncols >= 4 * self.hot_columns
                      and idx.size * idx.itemsize * 4 <= (_device_available() or 0))
            plan.derived["columns"] = _hot_columns(idx, plan.ncols, self.hot_columns, self.hot_min_share) if wanted else None
        return plan.derived["columns"]

    @_map_out_of_memory
    def spmspv(self, semiring: TypedSemiring, indptr: Any, indices: Any, values: Any, frontier: Any,
               fvals: Any, size: int, vector_first: bool, dense: bool = False,
               longest_row: int | None = None, mask: Any = None, complement: bool = False,
               launches: dict[Any, Any] | None = None) -> tuple[cupy.ndarray, cupy.ndarray, Any] | None:
        """Push: ``out[j] = ADD over frontier k of MULT(A[k, j], x[k])`` (operands swapped when
        ``vector_first``), combined atomically into a dense result.  The frontier is a list of
        rows with their values, or with ``dense`` a presence array over all rows with dense
        values.  ``longest_row`` (the matrix's, when the caller knows it) above
        ``push_balance_row`` shares a listed frontier's entries evenly among warps, so one
        long row is not left to one group.  ``mask`` (a bool array over the output, or None)
        keeps only the positions j where ``mask[j] != complement``.  ``launches`` (a dict the
        caller keeps with the matrix's arrays, dropped when they change) keeps the push of a
        ``dense`` frontier and the reset of the result prepared (:func:`launch_kept`), as a loop
        of levels repeats them.
        Returns (out, present, count), or None when the monoid has no atomic combine (the
        caller then sorts by key).  ``count`` is the number of positions present: a
        :class:`DeviceCount` the push of a ``dense`` frontier makes as it sets them (read when
        ``int()`` is asked, so no count pass follows), 0 for an empty list, else None (unknown)."""
        if not self.pushes_atomically(semiring):
            return None
        ptr, idx = self._csr_arrays(indptr, indices)
        out, present = self._push_result(semiring.monoid, size, launches)
        head = (ptr, idx, self._matvec_operand(semiring, values, vector_first, True))
        tail = (self._flag_array(mask), _FLAGS32[bool(complement)], out, present)
        if dense:
            own = launches if ptr is indptr and idx is indices else None  # prepared for the matrix's own arrays
            count = self._push_bitmap(semiring, ptr, idx, head[2], frontier, fvals, bool(vector_first), tail, own)
            return out, present, count
        module = codegen.spmspv_module(semiring, idx.dtype, bool(vector_first), ptr.dtype)
        nfront = int(frontier.shape[0])
        if nfront == 0:
            return out, present, 0
        rows = _contiguous(cupy.asarray(frontier, dtype=np.int64))
        xvals = self._matvec_operand(semiring, fvals, vector_first, False)
        if longest_row is not None and longest_row > self.push_balance_row:
            bound = min(nfront * longest_row, idx.size)  # at least the entries to push
            self._launch_balanced(module, "balanced", ptr, rows, bound, head + (rows, xvals, np.int64(nfront)), tail)
            return out, present, None
        args = head + (rows, xvals, np.int64(nfront)) + tail
        self._launch_groups(self._function(module), nfront, _group_size(idx.size, max(ptr.size - 1, 1)), args)
        return out, present, None

    def _push_result(self, monoid: TypedMonoid, size: int,
                     launches: dict[Any, Any] | None) -> tuple[cupy.ndarray, cupy.ndarray]:
        """(values, presence) of a push's result before its terms are combined in: no position
        present, values the monoid's identity (unset for ANY, which stores its terms): one
        pass, kept prepared in ``launches`` where given."""
        out, present = cupy.empty(size, monoid.type.np_type), cupy.empty(size, np.bool_)
        if not size:
            return out, present
        if monoid.is_any:
            present.data.memset_async(0, size)
            return out, present
        t = monoid.type
        launch_kept(launches, ("push reset", monoid, size),
                    lambda: (self._function(codegen.bitmap_module(t), "reset"),
                             _bounded_blocks(size, _ELEMENTWISE_BLOCKS_PER_SM), _BLOCK),
                    (_identity(monoid), out, present, np.int64(size)), _RESET_CHANGING)
        return out, present

    def _push_bitmap(self, semiring: TypedSemiring, ptr: cupy.ndarray, idx: cupy.ndarray, values: Any, bits: Any,
                     fvals: Any, vector_first: bool, tail: tuple[Any, ...],
                     launches: dict[Any, Any] | None) -> DeviceCount | int | None:
        """The push of a frontier given as presence ``bits`` and dense values: warps of 32
        rows striding over them, each frontier row walked by the warp, or short ones by a lane
        each where that takes fewer steps.  ``tail`` is (mask, complement, out,
        present).  ``launches`` (or None) keeps the launch prepared, the pointers that change
        written at each call.  Returns the pending count of present positions (None where
        every count word of the stream is lent: unknown)."""
        n = int(bits.shape[0])
        if not n:
            return 0
        count, counting = self._pending_count()
        args = (ptr, idx, values, self._flag_array(bits), self._matvec_operand(semiring, fvals, vector_first, False),
                np.int64(n)) + tail + counting
        launch_kept(launches, ("push bitmap", semiring, vector_first, int(tail[1])),
                    lambda: (self._function(codegen.spmspv_module(semiring, idx.dtype, vector_first, ptr.dtype), "bitmap"),
                             _bounded_blocks(n, _PUSH_BLOCKS_PER_SM), _BLOCK),
                    args, _PUSH_BITMAP_CHANGING)
        return count

    def relaxes(self, semiring: TypedSemiring, claim: bool = False) -> bool:
        """True when :meth:`push_relax` takes ``semiring``: to combine, a min or max monoid of a
        4- or 8-byte type (selective, so the best term that changes a value is the last); to
        ``claim`` positions, an ANY monoid (the first term to reach a position stays)."""
        monoid = semiring.monoid
        if claim:
            return monoid.is_any
        return monoid.name in ("min", "max") and monoid.type.itemsize in (4, 8)

    @_map_out_of_memory
    def push_relax(self, semiring: TypedSemiring, indptr: Any, indices: Any, values: Any, bits: Any, fvals: Any,
                   c: cupy.ndarray, vector_first: bool, consume: bool, launches: dict[Any, Any] | None,
                   c_bits: cupy.ndarray | None = None) -> tuple[cupy.ndarray, cupy.ndarray, Any]:
        """The push of a frontier (presence ``bits``, dense values ``fvals``) written straight
        into the output's values ``c`` (of the monoid's type, in place), in one kernel: its
        terms combined into c (a full output), or with ``c_bits`` (the output's presence) only
        where c has no entry yet, each such position claimed by the first term to reach it.
        Returns (presence, values, count) of the entries it changed (values: c's new ones;
        count a :class:`DeviceCount`, or None where every count word is lent).  With
        ``consume`` (the frontier's arrays are the caller's to spend) the kernel leaves them
        clean, kept for a later call's report, so a loop of such pushes makes no array and
        runs nothing before them.  ``launches``: as for :meth:`spmspv`."""
        monoid = semiring.monoid
        ptr, idx = self._csr_arrays(indptr, indices)
        flags, x = self._flag_array(bits), self._matvec_operand(semiring, fvals, vector_first, False)
        size, n = int(c.size), int(flags.size)
        # Only the frontier's own arrays, not copies, and only where they can serve as a report.
        consume = consume and flags is bits and x is fvals and n == size and fvals.dtype == monoid.type.np_type
        key = (cupy.cuda.runtime.getDevice(), cupy.cuda.get_current_stream().ptr, monoid.key, size)
        spare = self._clean_reports.pop(key, None)
        d_vals, d_bits = spare if spare is not None else self._push_result(monoid, size, launches)
        count, counting = self._pending_count()
        own = launches if ptr is indptr and idx is indices else None  # prepared for the matrix's own arrays
        args = (ptr, idx, self._matvec_operand(semiring, values, vector_first, True), flags, x, np.int64(n),
                c_bits, c, d_bits, d_vals, _FLAGS32[consume], _identity(monoid)) + counting
        launch_kept(own, ("push relax", semiring, vector_first, consume, c_bits is not None),
                    lambda: (self._function(codegen.spmspv_module(semiring, idx.dtype, vector_first, ptr.dtype),
                                            "relax"), _bounded_blocks(max(n, 1), _PUSH_BLOCKS_PER_SM), _BLOCK),
                    args, _RELAX_CHANGING)
        if consume:
            self._clean_reports[key] = (fvals, bits)
            while len(self._clean_reports) > _KEPT_REPORTS:  # the least recently kept go
                del self._clean_reports[next(iter(self._clean_reports))]
        return d_bits, d_vals, count

    @_map_out_of_memory
    def push_claim_listed(self, semiring: TypedSemiring, indptr: Any, indices: Any, values: Any, rows: Any,
                          fvals: Any, c_bits: cupy.ndarray, c: cupy.ndarray,
                          vector_first: bool) -> tuple[cupy.ndarray, cupy.ndarray, None]:
        """The push of a listed frontier (``rows`` and their values) balanced over its entries
        and written into the output where it has no entry (``c_bits`` false), each such
        position claimed by the first term to reach it (an ANY monoid, see :meth:`relaxes`), in
        place: :meth:`push_relax`'s claim for a frontier whose rows may be long.  Returns
        (presence, values, None) of the entries it added (their count is not made)."""
        ptr, idx = self._csr_arrays(indptr, indices)
        size, n = int(c.size), int(rows.shape[0])
        d_vals, d_bits = cupy.empty(size, semiring.out_type.np_type), cupy.zeros(size, np.bool_)
        if n == 0:
            return d_bits, d_vals, None
        module = codegen.spmspv_module(semiring, idx.dtype, bool(vector_first), ptr.dtype)
        rows = _contiguous(cupy.asarray(rows, dtype=np.int64))
        before = (ptr, idx, self._matvec_operand(semiring, values, vector_first, True), rows,
                  self._matvec_operand(semiring, fvals, vector_first, False), np.int64(n))
        self._launch_balanced(module, "balanced_claim", ptr, rows, idx.size, before, (c_bits, c, d_bits, d_vals))
        return d_bits, d_vals, None

    def _launch_balanced(self, module: KernelModule, role: str, ptr: cupy.ndarray, rows: cupy.ndarray, bound: int,
                         before: tuple[Any, ...], after: tuple[Any, ...]) -> None:
        """Entry ``role`` of the push module, balanced over the entries of the listed ``rows``
        (at most ``bound`` of them: a warp a tile of them), with the rows' ends between the
        arguments ``before`` and ``after``."""
        ends = self._row_ends(module, ptr, rows)
        blocks = _bounded_blocks(max(-(-bound * 32 // codegen.PUSH_TILE), 1), _PUSH_BLOCKS_PER_SM)
        self._launch_changing(module, role, blocks, _BLOCK, before + (ends,) + after)

    def _row_ends(self, module: KernelModule, ptr: cupy.ndarray, rows: cupy.ndarray) -> cupy.ndarray:
        """The inclusive prefix sums of the lengths of ``rows``: for a few rows one block of the
        push module (one launch instead of CuPy's take, subtract and scan, each costing more on
        the host than the block on the GPU); for many, CuPy's scan (the block would take longer:
        70 us for 20,000 rows)."""
        n = int(rows.shape[0])
        if n > _ENDS_ONE_BLOCK:
            return cupy.cumsum(ptr[rows + 1] - ptr[rows], dtype=np.int64)
        ends = cupy.empty(n, dtype=np.int64)
        self._launch_changing(module, "ends", 1, 1024, (ptr, rows, np.int64(n), ends))
        return ends

    @_map_out_of_memory
    def mxm_gustavson(self, semiring: TypedSemiring, a: Any, b: Any, mask: Any = None) -> Any:
        """``C = A B`` row by row in generated hash-table kernels (see :mod:`.spgemm`); ``a``, ``b``
        :class:`~..operands.CsrOperand`, ``mask`` a :class:`~..operands.MaskOperand` or None.
        Returns a :class:`~..operands.CsrProduct`."""
        from .spgemm import mxm_gustavson

        return mxm_gustavson(self, semiring, a, b, mask)

    @_map_out_of_memory
    def mxm_dot(self, semiring: TypedSemiring, a: Any, bt: Any, mask: Any) -> Any:
        """``C<M> = A B'`` as one dot product per position of the (not complemented) structural
        ``mask``, ``bt`` holding B's columns as rows; a :class:`~..operands.CsrProduct` (see
        :mod:`.dot_mxm`)."""
        from .dot_mxm import mxm_dot

        return mxm_dot(self, semiring, a, bt, mask)

    @_map_out_of_memory
    def transpose_csr(self, indptr: Any, indices: Any, values: Any, nrows: int, ncols: int, ptr_type: Any,
                      row_type: Any) -> tuple[cupy.ndarray, cupy.ndarray, cupy.ndarray] | None:
        """(pointers, rows, values) of the transpose of a sorted CSR by a counting sort whose
        work is ``ncols``-sized (see :mod:`.transpose`); None where the values' size is not one
        the kernels copy (the caller sorts instead)."""
        from . import transpose

        if not transpose.applies(values):
            return None
        ptr, idx = self._csr_arrays(indptr, indices)
        return transpose.transpose_csr(self._function, ptr, idx, _contiguous(values), nrows, ncols, ptr_type,
                                       row_type)

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


def _one_launch_key(semiring: TypedSemiring, vector_first: bool, complement: bool, bare: bool) -> tuple[Any, ...]:
    """The key a small matrix's one-launch pull is kept under in its plan's ``derived``."""
    return ("vector launch", semiring, bool(vector_first), bool(complement), bare)


def _is_bare(x_present: Any, row_mask: Any, claim: Any, presence: bool, complement: bool) -> bool:
    """Whether a one-launch pull is of its commonest form (``w << A @ x`` in a loop): a full
    vector, no mask, no claim, and no presence to write.  Its kept launch has the null
    pointers packed, so that only the values, the vector and the result change."""
    return x_present is None and row_mask is None and claim is None and not presence and not complement


def _one_launch_outputs(semiring: TypedSemiring, nrows: int, out: cupy.ndarray | None,
                        presence: bool) -> tuple[cupy.ndarray, cupy.ndarray | None]:
    """(values, presence) a small matrix's one-launch pull writes: the caller's ``out``, with
    none, where given and no presence is asked for; else new arrays."""
    if out is not None and not presence:
        return out, None
    return _spmv_result(semiring, nrows, presence)


def _scalar_key(value: Any) -> tuple[Any, bytes]:
    """A NumPy scalar as a key that tells apart what its launch would (its type and bytes:
    NaN equals itself, -0.0 differs from 0.0)."""
    return value.dtype.char, value.tobytes()


@functools.lru_cache(maxsize=1024)
def _identity(monoid: TypedMonoid) -> Any:
    """The monoid's identity as a scalar of its type (asked once per monoid)."""
    return cast_scalar(monoid.identity, monoid.type)


def _spmv_result(semiring: TypedSemiring, nrows: int, presence: bool = True) -> tuple[cupy.ndarray, cupy.ndarray | None]:
    """Uninitialised (values, presence) arrays for a pull of ``nrows`` rows (no presence
    array unless ``presence``)."""
    present = cupy.empty(nrows, dtype=np.bool_) if presence else None
    return cupy.empty(nrows, dtype=semiring.out_type.np_type), present


def _hot_columns(idx: cupy.ndarray, ncols: int, count: int, min_share: float) -> ColumnCache | None:
    """A :class:`ColumnCache` of the ``count`` most used columns, or None when they hold less
    than ``min_share`` of the entries."""
    uses = cupy.bincount(idx, minlength=ncols)
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
