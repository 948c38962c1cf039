"""CUDA source of the masked dot-product SpGEMM, ``C<M> = A B'`` (``templates/mxm_dot.cu``).

Pure Python (no CuPy): the backend compiles what :func:`mxm_dot_module` returns, and the kernel
registry renders the same modules (:func:`registry_specs`) so that the test suite compiles them
with ``nvcc`` on a machine without a GPU.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ...dtypes import BOOL, FP32, FP64, INT32, INT64, DataType
from ...exceptions import DomainMismatch
from ...operators import catalog
from ...operators import semiring as semiring_namespace
from ...operators.base import TypedSemiring
from . import codegen
from .codegen import KernelModule
from .signatures import MXM_DOT, roles

if TYPE_CHECKING:
    from .kernel_spec import KernelSpec

__all__ = ["mxm_dot_module", "operand_types", "registry_specs", "SEARCH_RATIO", "LINEAR_RATIO", "ROUND",
           "SIZED_SEARCH", "CHUNKED_GROUPS", "ROLES"]

SEARCH_RATIO = 8
"""A thread searches the shorter list's columns in the longer one when the longer is at least
this many times as long; otherwise it merges the two."""

LINEAR_RATIO = 4
"""Warp and block kernels with contiguous runs: a lane scans the longer list linearly (a merge)
when it is at most this many times as long as the shorter."""

ROUND = 4
"""Warp and block kernels: columns of the shorter list each lane searches between two checks of
an early exit (ANY or a terminal value reached)."""

SIZED_SEARCH = 1
CHUNKED_GROUPS = 2
"""Bits of the kernels' ``variant`` argument (see the template): binary or galloping searches
chosen by the lists' lengths in the thread kernel; contiguous runs of the shorter list per lane
in the warp and block kernels (else every 32nd or 256th column, galloping)."""

ROLES = roles(MXM_DOT)
"""Entry points: the thread-per-entry kernel that also lists the costly entries, the warp and the
block kernels that compute those, and the compaction of the kept entries."""

_REGISTRY_TYPES: tuple[DataType, ...] = (FP32, FP64, INT32, INT64, BOOL)
_WIDE_LAYOUT_SEMIRINGS = ("plus_pair", "plus_times", "min_plus", "any_secondi")


def operand_types(semiring: TypedSemiring) -> tuple[DataType | None, DataType | None]:
    """The types the kernels read A's and bt's values in, or None for an operand whose values the
    multiplier ignores (then no array is passed)."""
    mult = semiring.mult
    return (mult.x_type if mult.reads("x") else None), (mult.y_type if mult.reads("y") else None)


@functools.lru_cache(maxsize=4096)
def mxm_dot_module(semiring: TypedSemiring, ptr_type: Any, index_type: Any) -> KernelModule:
    """The kernels of ``C<M> = A B'`` over ``semiring``: row pointers of A, bt and M of
    ``ptr_type``, their column indices of ``index_type`` (a layout of
    :data:`codegen.CSR_INDEX_TYPES`).

    Entries (see the template): ``main(m_ptr, m_idx, nvals, nrows, a_ptr, a_idx, a_vals, b_ptr,
    b_idx, b_vals, out, keep, heavy, heavy_rows, counters, light_cost, warp_short, variant)``,
    ``warp(m_idx, a..., b..., out, keep, heavy, heavy_rows, counters, variant)``, ``block(m_idx,
    nvals, a..., b..., out, keep, heavy, heavy_rows, counters, variant)`` and ``compact(keep,
    before, m_idx, vals, nvals, out_idx, out_vals)``.  Value arrays the multiplier does not read
    may be null; ``variant`` holds the bits :data:`SIZED_SEARCH` and :data:`CHUNKED_GROUPS`."""
    ptr_c, index_c, tag = codegen.csr_index_tag(ptr_type, index_type)
    if (ptr_c, index_c) not in {(f"{p}_t", f"{i}_t") for p, i in codegen.CSR_INDEX_TYPES}:
        raise DomainMismatch(f"no dot-product kernels for {ptr_c} row pointers beside {index_c} indices")
    mult, monoid = semiring.mult, semiring.monoid
    call = "mult::call(a, b, i, k, k, j)"
    kernels = codegen.fill(codegen.template("mxm_dot.cu"), {
        "PTR_T": ptr_c, "INDEX_T": index_c, "A_T": mult.x_type.c_type, "B_T": mult.y_type.c_type,
        "T": monoid.type.c_type, "MONOID": "monoid", "PRODUCT": codegen.cast_expr(mult.out_type, monoid.type, call),
        "READS_A": "true" if mult.reads("x") else "false", "READS_B": "true" if mult.reads("y") else "false",
        "SEARCH_RATIO": str(SEARCH_RATIO), "LINEAR_RATIO": str(LINEAR_RATIO),
        "ROUND": str(ROUND),
    }, keep=("KERNEL",))
    ops = codegen.render_binary_op(mult, "mult") + codegen.render_monoid(monoid)
    return codegen._module("mxm_dot", f"mxm_dot {semiring.name} {semiring.key} {tag}",
                           f"gb_mxm_dot_{semiring.key}_{tag}", ops, kernels, ROLES)


def registry_specs() -> Iterator[KernelSpec]:
    """The registry's entries: every built-in semiring on the registry's types with int32 indices,
    and a few with the two wider layouts (int64, and int64 row pointers beside int32 indices)."""
    from .kernel_spec import KernelSpec

    for name in catalog.BUILTIN_SEMIRINGS:
        for t in _REGISTRY_TYPES:
            try:
                semiring = semiring_namespace[name][t]
            except DomainMismatch:
                continue
            layouts = codegen.CSR_INDEX_TYPES if name in _WIDE_LAYOUT_SEMIRINGS else codegen.CSR_INDEX_TYPES[:1]
            for ptr, index in layouts:
                label = index if ptr == index else f"{ptr}/{index}"
                yield KernelSpec("mxm_dot", f"mxm_dot {name}[{semiring.mult.x_type}] {label}",
                                 functools.partial(mxm_dot_module, semiring, ptr, index))
