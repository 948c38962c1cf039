"""Every kernel the CuPy backend can generate for the built-in operators.

:func:`iter_kernels` yields one :class:`KernelSpec` per distinct generated
module; its :meth:`KernelSpec.render` is the exact translation unit the CuPy
backend compiles for that case (both go through :mod:`.codegen`).  The kinds of module
listed, and their order, are those the kernel signatures declare
(:data:`.signatures.KINDS`); each kind's modules come from its generator here.  The test
suite renders them all and compiles them with ``nvcc``, so a template or
operator snippet that does not compile is caught on a machine without a GPU.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from ...dtypes import ALL_TYPES
from ...operators import catalog
from ...operators import semiring as semiring_namespace
from . import codegen, columns_codegen, dot_mxm_codegen, loop_codegen, signatures, spgemm_codegen, transpose_codegen
from .codegen import KernelModule
from .kernel_spec import SPMV_TYPES, KernelSpec
from .kernel_spec import layout as _layout
from .kernel_spec import typed as _typed

__all__ = ["KernelSpec", "SPMV_TYPES", "iter_kernels"]


def iter_kernels() -> Iterator[KernelSpec]:
    """Every distinct kernel module for the built-in operators, types and index types."""
    seen: set[str] = set()
    for spec in _all_specs():
        digest = spec.module().digest
        if digest not in seen:
            seen.add(digest)
            yield spec


def _all_specs() -> Iterator[KernelSpec]:
    for kind in signatures.KINDS:  # the kinds the signatures declare, in their order
        yield from _SPECS[kind]()


def _count_specs() -> Iterator[KernelSpec]:
    yield KernelSpec("count", "count true", codegen.count_module)


def _bitmap_specs() -> Iterator[KernelSpec]:
    for t in ALL_TYPES:
        yield KernelSpec("bitmap", f"bitmap {t}", partial(codegen.bitmap_module, t))


def _cast_specs() -> Iterator[KernelSpec]:
    for src in ALL_TYPES:
        for dst in ALL_TYPES:
            if src != dst:
                yield KernelSpec("cast", f"cast {src}->{dst}", partial(codegen.cast_module, src, dst))


def _op_specs(kind: str, table: dict[str, Any], module: Callable[[Any], KernelModule],
              type_of: Callable[[Any], Any]) -> Iterator[KernelSpec]:
    """Every operator of ``table`` on every type it is defined on."""
    for name in sorted(table):
        for t in ALL_TYPES:
            op = _typed(table[name], t)
            if op is not None:
                yield KernelSpec(kind, f"{kind} {name}[{type_of(op)}]", partial(module, op))


def _unary_specs() -> Iterator[KernelSpec]:
    return _op_specs("unary", catalog.UNARY, codegen.unary_module, lambda op: op.in_type)


def _binary_specs() -> Iterator[KernelSpec]:
    return _op_specs("binary", catalog.BINARY, codegen.binary_module, lambda op: op.x_type)


def _indexunary_specs() -> Iterator[KernelSpec]:
    return _op_specs("indexunary", catalog.INDEXUNARY, codegen.indexunary_module, lambda op: op.in_type)


def _segment_reduce_specs() -> Iterator[KernelSpec]:
    for name in sorted(catalog.MONOID):
        for t in ALL_TYPES:
            monoid = _typed(catalog.MONOID[name], t)
            if monoid is None:
                continue
            for index in codegen.INDEX_TYPES:
                yield KernelSpec("segment_reduce", f"segment_reduce {monoid.name}[{monoid.type}] {index}",
                                 partial(codegen.segment_reduce_module, monoid, index))


def _spmv_specs() -> Iterator[KernelSpec]:
    for name in catalog.BUILTIN_SEMIRINGS:
        for t in SPMV_TYPES:
            semiring = _typed(semiring_namespace[name], t)
            if semiring is None:
                continue
            for ptr, index in codegen.CSR_INDEX_TYPES:
                for vf in (False, True):
                    for schedule in codegen.SPMV_SCHEDULES:
                        if schedule == "merge" and not codegen.merge_schedule_applies(semiring):
                            continue
                        suffix = "" if schedule == "vector" else f" {schedule}"
                        yield KernelSpec(
                            "spmv", f"spmv {name}[{semiring.mult.x_type}] {_layout(ptr, index)} "
                                    f"vector_first={int(vf)}{suffix}",
                            partial(codegen.spmv_module, semiring, index, vf, schedule, ptr),
                        )


def _dot_specs() -> Iterator[KernelSpec]:
    for name in catalog.BUILTIN_SEMIRINGS:
        for t in SPMV_TYPES:
            semiring = _typed(semiring_namespace[name], t)
            if semiring is not None and not semiring.mult.positional:
                yield KernelSpec("dot", f"dot {name}[{semiring.mult.x_type}]", partial(codegen.dot_module, semiring))


def _spmspv_specs() -> Iterator[KernelSpec]:
    for name in catalog.BUILTIN_SEMIRINGS:
        for t in SPMV_TYPES:
            semiring = _typed(semiring_namespace[name], t)
            if semiring is None or not codegen.atomic_push_supported(semiring.monoid):
                continue
            for ptr, index in codegen.CSR_INDEX_TYPES:
                for vf in (False, True):
                    yield KernelSpec(
                        "spmspv", f"spmspv {name}[{semiring.mult.x_type}] {_layout(ptr, index)} vector_first={int(vf)}",
                        partial(codegen.spmspv_module, semiring, index, vf, ptr),
                    )


_SPECS: dict[str, Callable[[], Iterator[KernelSpec]]] = {
    "count": _count_specs, "bitmap": _bitmap_specs, "cast": _cast_specs, "unary": _unary_specs,
    "binary": _binary_specs, "indexunary": _indexunary_specs, "segment_reduce": _segment_reduce_specs,
    "spmv": _spmv_specs, "spmspv": _spmspv_specs, "dot": _dot_specs, "spgemm": spgemm_codegen.registry_specs,
    "mxm_dot": dot_mxm_codegen.registry_specs, "transpose": transpose_codegen.registry_specs,
    "loop": loop_codegen.registry_specs, "columns": columns_codegen.registry_specs,
}
"""The modules of each kind of kernel the signatures declare (:data:`.signatures.KINDS`)."""

if set(_SPECS) != set(signatures.KINDS):
    raise LookupError(f"kernel kinds declared without modules {sorted(set(signatures.KINDS) - set(_SPECS))}, "
                      f"modules of undeclared kinds {sorted(set(_SPECS) - set(signatures.KINDS))}")
