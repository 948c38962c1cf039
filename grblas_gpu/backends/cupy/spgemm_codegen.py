"""CUDA source generation for row-wise Gustavson SpGEMM (``templates/spgemm_*.cu``).

Pure Python (no CuPy): the CuPy backend compiles what these functions return and the kernel
registry renders the same sources for ``nvcc``.  Two modules make a product:

- the symbolic module, per CSR index layout: row bounds (flops), row bins, and the count of
  each row's columns (shared-memory hash tables, or a bitmap for the longest rows);
- the numeric module, per semiring and layout: each row's entries, accumulated with the
  monoid in shared-memory hash tables (or a dense row for the longest) and written sorted.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ...dtypes import ALL_TYPES, DataType
from ...operators.base import TypedMonoid, TypedSemiring
from ...operators.cmath import c_literal
from . import codegen
from .codegen import KernelModule
from .signatures import SPGEMM_NUMERIC, SPGEMM_SYMBOLIC, roles

__all__ = [
    "Bin", "SHARED_BINS", "DENSE_BIN", "HASH_BIN", "NBINS", "DENSE_THREADS", "slot_type",
    "symbolic_module", "numeric_module", "registry_specs",
]


@dataclass(frozen=True)
class Bin:
    """Rows of at most ``most`` columns (or terms): a group of ``group`` lanes per row, a hash
    table of ``2 * most`` slots per row, ``block`` threads per block."""

    most: int
    group: int

    @property
    def table(self) -> int:
        """Hash slots per row: twice the row's columns at most, so probes stay short."""
        return 2 * self.most

    @property
    def block(self) -> int:
        """Threads per block: 256, or one group where a group is larger."""
        return max(256, self.group)


SHARED_BINS: tuple[Bin, ...] = tuple(Bin(16 << b, 4 << b) for b in range(9))
"""Bins 1..9 (as the bins kernel numbers them): rows of at most 16, 32, ..., 4096 columns, a
quarter as many lanes per row (4 to 1024)."""

DENSE_BIN = len(SHARED_BINS) + 1
"""The bin of rows of more than 4096 columns: a block per row over a dense accumulator."""

HASH_BIN = DENSE_BIN + 1
"""The bin of long rows of wide products: a block per row over a global hash table sized by
the row (not by ncols)."""

NBINS = HASH_BIN + 1
"""Bins 0 (rows without entries) to HASH_BIN."""

DENSE_THREADS = 1024
"""Threads per row (a block) for the dense accumulator."""

_KEY_TYPES = {"int32": "unsigned int", "int64": "unsigned long long"}
_HW_ADD = {"INT32", "UINT32", "INT64", "UINT64", "FP32", "FP64"}
_HW_MINMAX = {"INT32", "UINT32", "INT64", "UINT64"}
_ATOMIC_C = {"INT32": "int", "UINT32": "unsigned int", "INT64": "long long", "UINT64": "unsigned long long",
             "FP32": "float", "FP64": "double"}


def slot_type(t: DataType) -> str:
    """The C type of an accumulator slot for values of ``t``: ``t`` itself for 4- and 8-byte
    types, a 32-bit word for narrower ones (the width atomics take)."""
    if t.itemsize >= 4:
        return t.c_type
    return "int32_t" if t.is_signed else "uint32_t"


def _common(ptr_type: Any, index_type: Any) -> tuple[str, str]:
    """The shared helpers filled for a layout, and the layout's tag."""
    ptr_c, index_c, tag = codegen.csr_index_tag(ptr_type, index_type)
    name = index_c[:-2]
    return codegen.fill(codegen.template("spgemm_common.cu"),
                        {"PTR_T": ptr_c, "INDEX_T": index_c, "KEY_T": _KEY_TYPES[name]}), tag


@functools.lru_cache(maxsize=16)
def symbolic_module(ptr_type: Any, index_type: Any) -> KernelModule:
    """Entries ``flops(a_ptr, a_idx, b_ptr, m_ptr, complement, nrows, ncols, llog, dense_from,
    hash_most, short_most, bound, bins, counts, row_nnz)`` (row bounds and their bins), ``bins(bound, nnz, nrows,
    dense_from, hash_most, short_most, bins, counts)`` (the numeric bins), ``group(bins, nrows, counts, cursor, order)``, ``count(a_ptr,
    a_idx, b_ptr, b_idx, m_ptr, m_idx, complement, rows, nlisted, glog, tlog, wlog, row_nnz)`` and ``count_dense(a_ptr, a_idx, b_ptr, b_idx, m_ptr,
    m_idx, complement, rows, glog, wlog, nwords, work, row_nnz)`` and ``count_hash(a_ptr, a_idx,
    b_ptr, b_idx, m_ptr, m_idx, complement, rows, glog, wlog, toff, work, row_nnz)`` and
    ``count_short(a_ptr, a_idx, b_ptr, b_idx, m_ptr, m_idx, complement, rows, nlisted, bins,
    want, glog, row_nnz)`` (rows of at most 2^glog terms, in registers; see the template)."""
    common, tag = _common(ptr_type, index_type)
    kernels = codegen.fill(codegen.template("spgemm_symbolic.cu"), {"COMMON": common}, keep=("KERNEL",))
    return codegen._module("spgemm", f"spgemm symbolic {tag}", f"gb_spgemm_symbolic_{tag}", "", kernels,
                           roles(SPGEMM_SYMBOLIC))


def _init_literal(monoid: TypedMonoid) -> str:
    """What accumulator slots start from (see ``sg_init`` in the template)."""
    t = monoid.type
    if t.is_float and monoid.name in ("min", "max"):
        return c_literal(float("nan"), t)
    if t.is_float and monoid.name == "plus":
        return c_literal(-0.0, t)
    return c_literal(monoid.identity, t)


def _combine(monoid: TypedMonoid) -> tuple[str, str]:
    """The statement combining term ``v`` into ``slot`` (an ``sg_s_t*``), and what it uses."""
    t = monoid.type.name
    if monoid.name == "plus" and t in _HW_ADD:
        c = _ATOMIC_C[t]
        if t == "INT64":
            return "atomicAdd((unsigned long long*)slot, (unsigned long long)v)", "atomicAdd"
        return f"atomicAdd(({c}*)slot, ({c})v)", "atomicAdd"
    if monoid.name in ("min", "max") and t in _HW_MINMAX:
        fn = "atomicMin" if monoid.name == "min" else "atomicMax"
        c = _ATOMIC_C[t]
        return f"{fn}(({c}*)slot, ({c})v)", fn
    if t == "BOOL" and monoid.name in ("lor", "land"):
        if monoid.name == "lor":
            return "if (v) atomicOr((unsigned*)slot, 1u)", "atomicOr"
        return "if (!v) atomicAnd((unsigned*)slot, 0u)", "atomicAnd"
    return "sg_cas_combine(slot, v)", "a compare-and-swap loop"


@functools.lru_cache(maxsize=4096)
def numeric_module(semiring: TypedSemiring, ptr_type: Any, index_type: Any) -> KernelModule:
    """Entries ``fill(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, m_ptr, m_idx, complement, rows,
    nlisted, glog, tlog, wlog, c_ptr, c_idx, c_val)``, ``fill_dense(a_ptr, a_idx, a_val, b_ptr,
    b_idx, b_val, m_ptr, m_idx, complement, rows, glog, wlog, ncols, window, work_bits, work_vals,
    c_ptr, c_idx, c_val)`` and ``fill_hash(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, m_ptr, m_idx,
    complement, rows, glog, wlog, toff, work_keys, work_vals, c_ptr, c_idx, c_val)`` and
    ``fill_short(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, m_ptr, m_idx, complement, rows,
    nlisted, bins, want, glog, c_ptr, c_idx, c_val)`` (rows of at most 2^glog terms, in
    registers) for ``semiring`` (see the template); the product's column indices are of
    ``index_type``, its row pointers int64."""
    common, tag = _common(ptr_type, index_type)
    mult, monoid = semiring.mult, semiring.monoid
    combine, combine_name = _combine(monoid)
    call = "mult::call(a, b, i, k, k, j)"
    kernels = codegen.fill(codegen.template("spgemm_numeric.cu"), {
        "COMMON": common, "A": mult.x_type.c_type, "B": mult.y_type.c_type, "T": monoid.type.c_type,
        "S": slot_type(monoid.type), "OUT_INDEX_T": codegen.index_c_type(index_type)[0], "MONOID": "monoid",
        "READS_A": "true" if mult.reads("x") else "false", "READS_B": "true" if mult.reads("y") else "false",
        "INIT": _init_literal(monoid), "PRODUCT": codegen.cast_expr(mult.out_type, monoid.type, call),
        "COMBINE": combine, "COMBINE_NAME": combine_name,
    }, keep=("KERNEL",))
    ops = codegen.render_binary_op(mult, "mult") + codegen.render_monoid(monoid)
    return codegen._module("spgemm", f"spgemm numeric {semiring.name} {semiring.key} {tag}",
                           f"gb_spgemm_{semiring.key}_{tag}", ops, kernels,
                           roles(SPGEMM_NUMERIC))


REGISTRY_SEMIRINGS: tuple[str, ...] = ("plus_times", "min_plus", "max_min", "plus_pair", "any_pair", "lor_land",
                                       "min_secondi", "any_secondi")
"""Semirings whose numeric modules the registry lists on every built-in type (the ones the
backend's tests run); the other built-in semirings are listed on FP32 and INT64."""


def registry_specs() -> Iterator[Any]:
    """Kernel specs of every symbolic module and of the numeric modules of the built-in
    semirings (see :data:`REGISTRY_SEMIRINGS`), on each CSR index layout."""
    from ...dtypes import FP32, INT64
    from ...exceptions import DomainMismatch
    from ...operators import catalog
    from ...operators import semiring as semirings
    from .kernel_spec import KernelSpec
    from .kernel_spec import layout as _layout

    for ptr, index in codegen.CSR_INDEX_TYPES:
        yield KernelSpec("spgemm", f"spgemm symbolic {_layout(ptr, index)}",
                         functools.partial(symbolic_module, ptr, index))
    for name in catalog.BUILTIN_SEMIRINGS:
        types = ALL_TYPES if name in REGISTRY_SEMIRINGS else (FP32, INT64)
        for t in types:
            try:
                sr = semirings[name][t]
            except DomainMismatch:
                continue
            layouts = codegen.CSR_INDEX_TYPES if name in REGISTRY_SEMIRINGS[:2] else codegen.CSR_INDEX_TYPES[:1]
            for ptr, index in layouts:
                yield KernelSpec("spgemm", f"spgemm {name}[{sr.mult.x_type}] {_layout(ptr, index)}",
                                 functools.partial(numeric_module, sr, ptr, index))
