"""CUDA source generation for ``u' A`` from A's own rows (``templates/spmv_columns.cu``).

Pure Python (no CuPy): the CuPy backend compiles what :func:`columns_module` returns and the
kernel registry renders the same sources for ``nvcc``.  :func:`columns_supported` is the rule for
which monoids take this product instead of a pull through A's transpose.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from ...dtypes import DataType
from ...exceptions import DomainMismatch
from ...operators.base import TypedMonoid, TypedSemiring
from . import codegen
from .codegen import KernelModule

__all__ = ["COLUMN_ITEMS", "columns_module", "columns_supported", "registry_specs"]

COLUMN_ITEMS = 8
"""Entries per lane of a warp's tile (a tile is ``32 * COLUMN_ITEMS`` consecutive entries)."""

# Native atomics of CUDA, by (monoid, C type): one instruction instead of a compare-and-swap loop
# (a hub column's terms would otherwise retry behind one another).
_NATIVE: dict[tuple[str, str], str] = {
    **{("plus", t): "atomicAdd(addr, v)" for t in ("float", "double", "int32_t", "uint32_t")},
    ("plus", "int64_t"): "atomicAdd((unsigned long long*)addr, (unsigned long long)v)",
    ("plus", "uint64_t"): "atomicAdd((unsigned long long*)addr, (unsigned long long)v)",
    **{(m, t): f"atomic{m.capitalize()}(addr, v)" for m in ("min", "max") for t in ("int32_t", "uint32_t")},
    **{(m, "int64_t"): f"atomic{m.capitalize()}((long long*)addr, (long long)v)" for m in ("min", "max")},
    **{(m, "uint64_t"): f"atomic{m.capitalize()}((unsigned long long*)addr, (unsigned long long)v)"
       for m in ("min", "max")},
}


def columns_supported(monoid: TypedMonoid) -> bool:
    """Whether ``u' A`` over this monoid is computed from A's own rows on the GPU (no transpose):
    plus, min and max on 4- and 8-byte types (plus on floats and integers and min/max on
    integers by native atomics; min/max on floats by a compare-and-swap that reads first, so
    terms that do not improve a column cost a read), lor and land on BOOL (monotone stores).
    Not ANY (its pull through the transpose stops at a row's first term) nor the other monoids,
    whose compare-and-swap retries would queue behind a power-law graph's hub columns."""
    t = monoid.type
    if monoid.is_any:
        return False
    if monoid.name in ("plus", "min", "max"):
        return t.itemsize in (4, 8) and not t.is_bool
    return t.is_bool and monoid.name in ("lor", "land")


def _combine(monoid: TypedMonoid) -> str:
    """The statement that combines ``v`` into ``*addr``: a native atomic where one exists."""
    return _NATIVE.get((monoid.name, monoid.type.c_type), "gb_atomic_combine<M>(addr, v)")


@functools.lru_cache(maxsize=1024)
def columns_module(semiring: TypedSemiring, index_type: Any, matrix_first: bool, ptr_type: Any = None,
                   values_type: DataType | None = None) -> KernelModule:
    """The kernel ``main(indptr, indices, values, x, x_present, nrows, nnz, mask, complement, out,
    present)``: ``out[c] (+)= MULT(x[k], A[k, c])`` over every stored entry whose row has a value
    (``x_present``, or every row where null), ``MULT(A[k, c], x[k])`` with ``matrix_first``
    (``A' u``); positions (0, k, k, c), or (c, k, k, 0).  ``values`` of ``values_type`` (default:
    the type the product reads them in), each converted as it is read.  Only for
    :func:`columns_supported`."""
    if not columns_supported(semiring.monoid):
        raise DomainMismatch(f"{semiring.monoid!r}: no column product (see columns_supported)")
    vector_first = not matrix_first
    kernels, ops, tag, _ = codegen._matvec_parts(semiring, index_type, ptr_type, vector_first, "spmv_columns.cu",
                                                 {"ITEMS": str(COLUMN_ITEMS), "COMBINE": _combine(semiring.monoid)},
                                                 values_type)
    mf = int(bool(matrix_first))
    return codegen._module("columns", f"columns {semiring.name} {semiring.key} {tag} matrix_first={mf}",
                           f"gb_columns_{semiring.key}_{tag}_mf{mf}", ops, kernels, {"main": ""})


def registry_specs() -> Iterator[Any]:
    """Kernel specs of the column product for the built-in semirings it takes."""
    from ...operators import catalog
    from ...operators import semiring as semiring_namespace
    from .kernel_spec import SPMV_TYPES, KernelSpec, layout, typed

    for name in catalog.BUILTIN_SEMIRINGS:
        for t in SPMV_TYPES:
            semiring = typed(semiring_namespace[name], t)
            if semiring is None or not columns_supported(semiring.monoid):
                continue
            for ptr, index in codegen.CSR_INDEX_TYPES:
                for mf in (False, True):
                    yield KernelSpec("columns", f"columns {name}[{semiring.mult.x_type}] {layout(ptr, index)} "
                                                f"matrix_first={int(mf)}",
                                     functools.partial(columns_module, semiring, index, mf, ptr))
