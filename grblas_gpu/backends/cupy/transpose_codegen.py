"""CUDA source generation for the CSR transpose (``templates/transpose.cu``).

Pure Python (no CuPy): the CuPy backend compiles what :func:`transpose_module` returns and the
kernel registry renders the same sources for ``nvcc``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from . import codegen
from .codegen import KernelModule
from .signatures import TRANSPOSE, roles

__all__ = ["SHORT", "THREADS", "VALUE_BITS", "WARP_KEYS", "block_keys", "transpose_module", "registry_specs"]

SHORT = 16
"""Columns of at most this many rows are sorted by one thread each (in registers)."""

WARP_KEYS = 256
"""Columns of at most this many rows (and more than :data:`SHORT`) are sorted by one warp each."""

THREADS = 256
"""Threads of a block of the column sorts (the kernels hold values in registers by it)."""

VALUE_BITS: dict[int, str] = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}
"""The unsigned type a value of each size is copied as."""


def block_keys(row_type: Any) -> int:
    """The most rows of a column sorted by one block in shared memory (its keys and 16-bit
    positions: 48 KiB for int32 rows, 40 KiB for int64)."""
    return 8192 if codegen.index_c_type(row_type)[0] == "int32_t" else 4096


@functools.lru_cache(maxsize=64)
def transpose_module(ptr_type: Any, index_type: Any, tptr_type: Any, row_type: Any, value_size: int) -> KernelModule:
    """The transpose's kernels for a matrix with ``ptr_type`` pointers and ``index_type`` columns
    into a transpose with ``tptr_type`` pointers and ``row_type`` row indices, values of
    ``value_size`` bytes.  Entries ``count``, ``scatter``, ``sort_short``, ``sort_warp``,
    ``sort_block``, ``pack``, ``unpack`` (see the template)."""
    ptr, idx, _ = codegen.csr_index_tag(ptr_type, index_type)
    tptr, tidx, _ = codegen.csr_index_tag(tptr_type, row_type)
    val = VALUE_BITS[value_size]
    kernels = codegen.fill(codegen.template("transpose.cu"), {
        "PTR": ptr, "IDX": idx, "TPTR": tptr, "TIDX": tidx, "VAL": val, "SHORT": str(SHORT),
        "BLOCK_KEYS": str(block_keys(row_type)),
        "WARP_KEYS": str(WARP_KEYS), "THREADS": str(THREADS),
        "TIDX_MAX": "2147483647" if tidx == "int32_t" else "9223372036854775807LL"}, keep=("KERNEL",))
    title = f"transpose {ptr}/{idx} -> {tptr}/{tidx} {val}"
    return codegen._module("transpose", title, codegen.c_identifier(f"gb_transpose_{ptr}_{idx}_{tptr}_{tidx}_{val}"),
                           "", kernels, roles(TRANSPOSE))


def registry_specs() -> Iterator[Any]:
    """Kernel specs of the transpose for every pointer and index layout and value size."""
    from .kernel_spec import KernelSpec

    layouts = codegen.CSR_INDEX_TYPES
    for ptr, index in layouts:
        for tptr, rows in layouts:
            for size in VALUE_BITS:
                yield KernelSpec("transpose", f"transpose {ptr}/{index} -> {tptr}/{rows} {size}B",
                                 functools.partial(transpose_module, ptr, index, tptr, rows, size))
