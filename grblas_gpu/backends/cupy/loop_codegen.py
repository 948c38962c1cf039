"""The frontier loop's kernel (``templates/loop_push.cu``), generated without CuPy: the kernel
registry renders it, and the front end asks which semirings it takes, on any machine."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from ...dtypes import DataType
from ...operators import TypedSemiring
from . import codegen
from .codegen import KernelModule

__all__ = ["CLAIM_BLOCK_THREADS", "CLUSTER_BLOCKS", "CLUSTER_THREADS", "GRID_THREADS", "HELD_BITS", "PULL_SHARE", "RELAX_BLOCK_THREADS", "STATE_WORDS",
           "block_threads", "loop_module", "loop_supported", "registry_specs"]

CLAIM_BLOCK_THREADS = 1024
"""Threads of the block kernel (one block running iteration after iteration) for a claim."""
RELAX_BLOCK_THREADS = 768
"""The same for a relax: its compare-and-swaps keep C's old values and what each swap saw
in registers (an 8-byte type: four terms in flight take 16 more than a claim's), about 80 a
thread, which a block of 1,024 threads (64 a thread) would spill to local memory."""

HELD_BITS = 12288
"""A claim's output of at most this many positions has its presence held in the block
kernel's shared memory while the block runs (its atomics stay in the SM).  On an H100 the
1,024-vertex Kronecker BFS's block kernel took 40.9 us against 47.6 with the bits in global
memory, a 32 x 32 grid's 63 levels 131 us against 147 (``benchmarks/results/loops/round7.md``);
with the frontier queue's 32 KiB this fills the 48 KiB a block may hold statically."""

PULL_SHARE = 16
"""The block kernel pulls a claim's level (each position not yet claimed looks through the
rows that reach it) where C's presence is held in shared memory (at most :data:`HELD_BITS`
positions), the matrix's transpose was given, and the frontier holds at least 1/PULL_SHARE
of the positions; else it pushes (walks the frontier's rows)."""

STATE_WORDS = 17
"""Words of a frontier loop's state (see the template's GB_LOOP_* names), in device memory and
in the host's page-locked copy."""

_ENTRIES = {"step": "_step", "block": "_block", "block_small": "_block_small", "grid": "_grid", "cluster": "_cluster"}

GRID_THREADS = 512
"""Threads a block of the grid kernel (iterations over the whole GPU in one cooperative
launch) at most: 128 registers a thread, which a relax's four terms in flight fit without
spilling."""

CLUSTER_BLOCKS = 16
"""Blocks of the cluster kernel (iterations in one cluster, compute capability 9.0 and later):
more than the 8 every such GPU takes, which the host asks for (an H100's clusters take 16).
On an H100 a 1000 x 1000 grid's BFS, every level in one cluster, took 4.24 ms with 16 blocks
of 512 threads, 4.38 ms with 8, 5.17 with 4 and 6.48 with one block of 1,024."""
CLUSTER_THREADS = 512
"""Threads a block of the cluster kernel (16 x 512 took the grid above in 4.24 ms, 16 x 1,024
in 4.77)."""


def block_threads(semiring: TypedSemiring) -> int:
    """Threads of the block kernel of :func:`loop_module` for ``semiring`` (its monoid ANY: a
    claim; else a relax)."""
    return CLAIM_BLOCK_THREADS if semiring.monoid.is_any else RELAX_BLOCK_THREADS


def loop_module(semiring: TypedSemiring, index_type: Any, vector_first: bool, ptr_type: Any = None,
                values_type: DataType | None = None) -> KernelModule:
    """The frontier loop's kernels for ``semiring``: entries ``step(indptr, indices, values,
    c_bits, c, q0, q1, first_rows, first, stamp, state, j)``, one iteration of the loop over the
    whole device, ``block(...)`` and ``block_small(...)`` (a small graph's claim: presence held
    in shared memory, pull levels; parameters in ``signatures.LOOP_BLOCK``), iterations in one
    block while the frontier is small (see the template), in a block of :func:`block_threads`, and
    ``grid(..., state, barrier, r0, r1, capacity, host_state, v0, v1)``, iterations over the whole device in one
    cooperative launch of blocks of at most :data:`GRID_THREADS`, and ``cluster(..., state, r0, r1,
    capacity, host_state, size, v0, v1)``, the same in one cluster of :data:`CLUSTER_BLOCKS` blocks of
    :data:`CLUSTER_THREADS`.
    Column indices of ``index_type``, row pointers of ``ptr_type`` (default: the same), values
    of ``values_type`` (default: the type the product reads them in, each converted as read)."""
    kernels, ops, tag, vf = codegen._matvec_parts(semiring, index_type, ptr_type, vector_first, "loop_push.cu",
                                                  {"BLOCK_THREADS": str(block_threads(semiring)),
                                                   "GRID_THREADS": str(GRID_THREADS), "HELD_BITS": str(HELD_BITS),
                                                   "CLUSTER": str(CLUSTER_BLOCKS),
                                                   "CLUSTER_THREADS": str(CLUSTER_THREADS),
                                                   "PULL_SHARE": str(PULL_SHARE), "STATE_WORDS": str(STATE_WORDS)},
                                                  values_type)
    return codegen._module("loop", f"frontier loop {semiring.name} {semiring.key} {tag} vector_first={vf}",
                           f"gb_loop_{semiring.key}_{tag}_vf{vf}", ops, kernels, _ENTRIES)


@functools.lru_cache(maxsize=256)
def loop_supported(semiring: TypedSemiring, claim: bool, vector_first: bool) -> bool:
    """Whether the loop kernel takes ``semiring``: a claim needs an ANY monoid, a relax a min
    or max one; the monoid's type, and the vector's where the product reads it, of 4 or 8
    bytes (a warp passes them between lanes)."""
    monoid = semiring.monoid
    if not (monoid.is_any if claim else monoid.name in ("min", "max")):
        return False
    types: list[DataType] = [monoid.type]
    if codegen.vector_value_read(semiring, vector_first):
        types.append(codegen.spmv_operand_types(semiring, vector_first)[1])
    return all(t.itemsize in (4, 8) and t.name != "BOOL" for t in types)


def registry_specs() -> Iterator[Any]:
    """Kernel specs of the loop kernel for the built-in semirings it takes (any, min, max
    monoids) over the types the semirings are rendered for, with 32-bit positions; the other
    position layouts for ``min_plus`` alone (the template is the same but for the types)."""
    from ...operators import catalog
    from ...operators import semiring as semiring_namespace
    from .kernel_spec import SPMV_TYPES, KernelSpec
    from .kernel_spec import layout as _layout
    from .kernel_spec import typed as _typed

    for name in catalog.BUILTIN_SEMIRINGS:
        for t in SPMV_TYPES:
            semiring = _typed(semiring_namespace[name], t)
            if semiring is None:
                continue
            layouts = codegen.CSR_INDEX_TYPES if name == "min_plus" else codegen.CSR_INDEX_TYPES[:1]
            for ptr, index in layouts:
                for vf in (False, True):
                    if loop_supported(semiring, semiring.monoid.is_any, vf):
                        yield KernelSpec("loop", f"loop {name}[{semiring.mult.x_type}] {_layout(ptr, index)} "
                                         f"vector_first={int(vf)}", functools.partial(loop_module, semiring, index, vf, ptr))
