"""The CuPy backend's base: compilation of the generated modules, kept launches, arrays and
their casts, kernel operands, and the per-stream count state that kernels write totals to."""

from __future__ import annotations

import threading
from typing import Any, Literal

import cupy
import numpy as np

from ...dtypes import ALL_TYPES, DataType, lookup_dtype
from ...exceptions import DomainMismatch
from ...operators.base import TypedSemiring
from ...operators.cmath import cast_array
from ..base import Backend
from . import codegen, staging
from .codegen import KernelModule
from .common import _BLOCK, _ELEMENTWISE_BLOCKS_PER_SM, _NULL, _bounded_blocks, _contiguous, _map_out_of_memory
from .counts import DeviceCount, StreamCounts
from .launch import launch_kept, scalar_word
from .signatures import KernelSignature

__all__ = ["CupyCore", "values_type"]

_REDUCE_BLOCKS_PER_SM = 8  # counts and sums: one atomic per block, so few blocks that stride
_KEPT_COUNTS = 64  # count launches kept prepared per stream (one per array size), dropped beyond
_KEPT_ELEMENTWISE = 1024  # element-wise launches kept prepared (per entry, size, scalars), dropped beyond
_KEPT_OPERAND_TYPES = 1024  # matrix-vector operand types kept (per semiring, order, operand), dropped beyond
_ONE_WORD_TYPES = frozenset(np.dtype(t.np_type) for t in ALL_TYPES)  # NumPy's dtypes of the GraphBLAS types


class CupyCore(Backend):
    """What every part of the CuPy backend uses: compiled functions, launches, operands, counts."""

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
        """One group of ``group`` lanes per item (segment or row); ``args`` give the kernel
        the group's size too."""
        if count > 0:
            fn((-(-count * group // _BLOCK),), (_BLOCK,), args)

    @_map_out_of_memory
    def asarray(self, x: Any, dtype: Any = None) -> cupy.ndarray:
        """``x`` (NumPy, CuPy, a list or a scalar) as a CuPy array.  A small contiguous NumPy
        array of a GraphBLAS type (a BFS source) goes through page-locked memory without a
        wait (:mod:`.staging`): CuPy's copy from pageable memory waits for the device (40-60 us
        of host time on a slow host), a fill launch of the value took 10-20."""
        if (dtype is None and x.__class__ is np.ndarray and x.nbytes <= staging.LARGEST_STAGED
                and x.dtype in _ONE_WORD_TYPES and x.flags.c_contiguous):
            return staging.to_device(x)
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
        t = self._matvec_operand_type(semiring, vector_first, of_matrix)
        if t is None:
            return _NULL
        if arr.__class__ is cupy.ndarray and arr.dtype == t.np_type and arr._c_contiguous:  # already as read
            return arr
        return self._operand(arr, t)

    def _stored_values(self, semiring: TypedSemiring, arr: Any, vector_first: bool) -> Any:
        """A matrix-vector kernel's matrix values as stored, for a kernel made with
        :func:`values_type` of them (it converts each value as it reads it: no cast copy of the
        matrix's values is made), or a null pointer when the product ignores them."""
        t = self._matvec_operand_type(semiring, vector_first, True)
        if t is None:
            return _NULL
        if arr.__class__ is cupy.ndarray and arr._c_contiguous and arr.dtype in _ONE_WORD_TYPES:
            return arr
        arr = cupy.asarray(arr)
        return _contiguous(arr) if arr.dtype in _ONE_WORD_TYPES else self._operand(arr, t)  # (float16: cast)

    def _matvec_operand_type(self, semiring: TypedSemiring, vector_first: bool, of_matrix: bool) -> DataType | None:
        """The type a matrix-vector kernel reads an operand in (the matrix's when ``of_matrix``,
        else the vector's), or None where it reads none (looked up once per semiring)."""
        key = (semiring, vector_first, of_matrix)
        t: DataType | None | Literal[False] = self._operand_types.get(key, False)  # False: not looked up yet
        if t is False:  # first use of this semiring here (a few lookups, then one per call)
            read = codegen.matrix_value_read if of_matrix else codegen.vector_value_read
            t = codegen.spmv_operand_types(semiring, vector_first)[0 if of_matrix else 1] if read(
                semiring, vector_first) else None
            if len(self._operand_types) >= _KEPT_OPERAND_TYPES:
                self._operand_types.clear()
            self._operand_types[key] = t
        return t

    def _flag_array(self, x: Any) -> Any:
        """An optional bool array (x presence, row mask) as a contiguous CuPy array, or a null pointer."""
        if x is None:
            return _NULL
        if isinstance(x, cupy.ndarray) and x.dtype == np.bool_ and x._c_contiguous:
            return x
        return _contiguous(cupy.asarray(x).astype(np.bool_, copy=False))

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
        ptr, idx = CupyCore._index_array(indptr), CupyCore._index_array(indices)
        return (ptr.astype(np.int64) if idx.dtype == np.int64 and ptr.dtype == np.int32 else ptr), idx

    def _total(self, kernel: KernelSignature, role: str, threads: int, args: dict[str, Any], key: Any = None) -> int:
        """Run entry ``role`` of the count module (its signature ``kernel``, its arguments but
        the count's by name in ``args``) over ``threads`` threads and read its total.

        One launch and one wait: the kernel writes the total straight into a page-locked
        host word (:mod:`.counts`), so no memset comes before and no copy after (each about
        5 us of host time per count on a busy loop's critical path).  With a ``key`` (naming
        ``threads`` and every argument that ``kernel`` does not declare per call), the launch
        is kept prepared with the stream's count state: a loop counts the same size each round."""
        if not threads:
            return 0
        with self._totals_lock:  # one count at a time uses the stream's state and host word
            counts = self._counts()
            launch_kept(None if key is None else counts.kept, key,
                        lambda: (self._function(codegen.count_module(), role),
                                 _bounded_blocks(threads, _REDUCE_BLOCKS_PER_SM), _BLOCK),
                        kernel.pack(**args, state=counts.state, out=counts.address), kernel.changing, _KEPT_COUNTS)
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

    def _queued_total(self, kernel: KernelSignature, role: str, threads: int, args: dict[str, Any],
                      key: Any) -> DeviceCount | None:
        """Entry ``role`` of the count module (signature ``kernel``, arguments but the count's
        by name in ``args``) over ``threads`` threads, its total written to a pending count's
        word: that count (None, with nothing launched, where every count word of the stream is
        lent).  The launch is kept prepared under ``key`` (naming ``threads`` and every
        argument that ``kernel`` does not declare per call)."""
        count, (state, word) = self._pending_count()
        if count is None:
            return None
        launch_kept(self._counts().kept, key,
                    lambda: (self._function(codegen.count_module(), role),
                             _bounded_blocks(max(threads, 1), _REDUCE_BLOCKS_PER_SM), _BLOCK),
                    kernel.pack(**args, state=state, out=word), kernel.changing, _KEPT_COUNTS)
        return count

    def _pending_count(self) -> tuple[DeviceCount | None, tuple[Any, Any]]:
        """A count that a kernel queued next on the current stream writes, and the two kernel
        arguments that ask it to (the stream's count state and the count's word); (None, two
        null pointers) where every count word of the stream is lent."""
        stream = cupy.cuda.get_current_stream()
        counts = self._counts(stream)
        count = counts.slots.lend(stream)
        return count, ((counts.state, count.address) if count is not None else (_NULL, _NULL))


def values_type(values: Any) -> DataType | None:
    """The GraphBLAS type of a matrix kernel's ``values`` as :meth:`CupyCore._stored_values`
    gives them (None for the null pointer of values the product ignores): the type the
    kernel is made to read them in."""
    return None if values is _NULL else lookup_dtype(values.dtype)
