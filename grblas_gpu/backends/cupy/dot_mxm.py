"""Masked SpGEMM in dot-product form on the GPU: ``C<M> = A B'`` (SuiteSparse's dot3).

One dot product per position of the structural mask (see ``templates/mxm_dot.cu``): a thread
per mask entry, and a warp or a block for the entries whose lists are long; then the entries
with a common column are packed into the CSR product.  Work and memory are bounded by the
mask's entries and the output: per mask entry a value, a flag, a slot of the costly-entry list
with its row, and a prefix count (8 + 8 + 8 + 1 + sizeof(T) bytes), freed before the product is
returned.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import cupy
import numpy as np

from ...exceptions import DimensionMismatch, InvalidValue
from ...operators.base import TypedSemiring
from ..operands import CsrOperand, CsrProduct, MaskOperand
from . import codegen
from .dot_mxm_codegen import CHUNKED_GROUPS, SIZED_SEARCH, mxm_dot_module, operand_types
from .signatures import MXM_DOT

if TYPE_CHECKING:
    from .backend import CupyBackend

__all__ = ["mxm_dot", "LIGHT_COST", "WARP_SHORT", "VARIANT"]

LIGHT_COST = 256
"""Mask entries whose dot product costs at most this many loads (the cheaper of a merge and a
search, see the template) are computed by one thread; costlier ones by a warp or a block.
Triangle counting's C<L> = L L' (plus_pair) on the symmetric Kronecker graphs, H200, best of two:
256 gave 1.37 / 7.22 / 46.1 / 318.7 ms at scales 16 / 18 / 20 / 22, 1024 gave 1.61 / 7.96 / 48.0 /
327.8 and 4096 2.38 / 10.2 / 57.6 / 355.1 (docs/mxm_dot.md)."""

WARP_SHORT = 2048
"""Costly entries whose shorter list has at most this many columns take a warp; longer, a block."""

VARIANT = SIZED_SEARCH | CHUNKED_GROUPS
"""How the kernels search (bits of :mod:`.dot_mxm_codegen`; 0: every search a gallop, lanes of a
warp or block taking every 32nd or 256th column).  With a light cost of 1024, on the same runs as
above: variant 3 48.0 ms at scale 20 and 327.8 at 22; 0 48.2 and 329.4; 1 49.5 and 337.4; 2
46.5 and 319.4 (a few percent: the thread kernel's share dominates)."""

_BLOCK = 256
_WARP_BLOCKS_PER_SM = 8  # the warp and block kernels stride over their lists with this many blocks
_BLOCK_BLOCKS_PER_SM = 4
_COMPACT_BLOCKS_PER_SM = 8


@functools.cache
def _sm_count(device: int) -> int:
    return int(cupy.cuda.Device(device).attributes["MultiProcessorCount"])


def mxm_dot(backend: CupyBackend, semiring: TypedSemiring, a: CsrOperand, bt: CsrOperand,
            mask: MaskOperand) -> CsrProduct:
    """``C<M> = A B'`` over ``semiring``: for every position (i, j) of ``mask``, ``A(i, :)``
    meets ``bt(j, :)``; C holds the positions with at least one common column (rows sorted as
    the mask's).  See :meth:`Backend.mxm_dot <grblas_gpu.backends.Backend.mxm_dot>`."""
    _check(a, bt, mask)
    out_type = semiring.out_type.np_type
    nrows, nvals = a.nrows, mask.nvals
    if nvals == 0 or a.nvals == 0 or bt.nvals == 0:
        return _empty(nrows, out_type, mask.indices)
    ptr_t, idx_t = _layout(a, bt, mask)
    m_ptr, m_idx = _index(mask.indptr, ptr_t), _index(mask.indices, idx_t)
    a_ptr, a_idx = _index(a.indptr, ptr_t), _index(a.indices, idx_t)
    b_ptr, b_idx = _index(bt.indptr, ptr_t), _index(bt.indices, idx_t)
    a_type, b_type = operand_types(semiring)
    a_vals, b_vals = _values(backend, a, a_type, "A"), _values(backend, bt, b_type, "B")
    module = mxm_dot_module(semiring, ptr_t, idx_t)
    vals = cupy.empty(nvals, dtype=out_type)
    keep = cupy.empty(nvals, dtype=np.bool_)
    _dot_products(backend, module, {"m_ptr": m_ptr, "m_idx": m_idx},
                  {"a_ptr": a_ptr, "a_idx": a_idx, "a_vals": a_vals, "b_ptr": b_ptr, "b_idx": b_idx, "b_vals": b_vals},
                  nrows, nvals, vals, keep)
    return _compact(backend, module, m_ptr, m_idx, nrows, vals, keep)


def _check(a: CsrOperand, bt: CsrOperand, mask: MaskOperand) -> None:
    """The operands' shapes agree and the mask is not complemented."""
    if mask.complement:
        raise InvalidValue("the dot-product form takes a mask that is not complemented")
    if a.ncols != bt.ncols:
        raise DimensionMismatch(f"A has {a.ncols} columns and B {bt.ncols} rows")
    if int(mask.indptr.shape[0]) != a.nrows + 1:
        raise DimensionMismatch(f"the mask has {int(mask.indptr.shape[0]) - 1} rows and A {a.nrows}")


def _empty(nrows: int, out_type: Any, like: Any) -> CsrProduct:
    idx_type = like.dtype if like.dtype in (np.int32, np.int64) else np.int64
    return CsrProduct(cupy.zeros(nrows + 1, dtype=np.int64), cupy.empty(0, dtype=idx_type),
                      cupy.empty(0, dtype=out_type))


def _layout(a: CsrOperand, bt: CsrOperand, mask: MaskOperand) -> tuple[str, str]:
    """One layout of :data:`codegen.CSR_INDEX_TYPES` for all three operands: int64 indices if any
    operand has them (then int64 row pointers too), else int32 indices beside int64 row
    pointers if any operand has those (widening row pointers costs little)."""
    operands = (a, bt, mask)
    if any(np.dtype(x.indices.dtype) == np.int64 for x in operands):
        return "int64", "int64"
    if any(np.dtype(x.indptr.dtype) == np.int64 for x in operands):
        return "int64", "int32"
    return "int32", "int32"


def _index(x: Any, dtype: str) -> cupy.ndarray:
    """An index array as a contiguous CuPy array of ``dtype`` (no copy where it is one)."""
    arr = x if isinstance(x, cupy.ndarray) else cupy.asarray(x)
    if arr.dtype != dtype:
        arr = arr.astype(dtype)
    return cupy.ascontiguousarray(arr)


def _values(backend: CupyBackend, x: CsrOperand, t: Any, name: str) -> Any:
    """An operand's values in the type the multiplier reads, or None where it reads none."""
    if t is None:
        return None
    if x.values is None:
        raise InvalidValue(f"the multiplier reads {name}'s values, but none were given")
    return backend._operand(x.values, t)


def _dot_products(backend: CupyBackend, module: codegen.KernelModule, m: dict[str, Any], ab: dict[str, Any],
                  nrows: int, nvals: int, vals: cupy.ndarray, keep: cupy.ndarray) -> None:
    """Every mask entry's dot product into ``vals`` and ``keep``: the thread kernel, which lists
    the costly entries, then the warp and the block kernels over those lists.  ``m``: the mask's
    ``m_ptr`` and ``m_idx``; ``ab``: both operands' arrays, by their kernel parameter names."""
    heavy = cupy.empty(nvals, dtype=np.int64)
    heavy_rows = cupy.empty(nvals, dtype=np.int64)
    counters = cupy.zeros(2, dtype=np.uint64)
    n, variant = np.int64(nvals), np.int32(VARIANT)
    lists = {"out": vals, "keep": keep, "heavy": heavy, "heavy_rows": heavy_rows, "counters": counters,
             "variant": variant}
    backend._function(module, "main")(
        (-(-nvals // _BLOCK),), (_BLOCK,),
        MXM_DOT["main"].pack(**m, nvals=n, nrows=np.int64(nrows), **ab, **lists, light_cost=np.int64(LIGHT_COST),
                             warp_short=np.int64(WARP_SHORT)))
    sms = _sm_count(cupy.cuda.runtime.getDevice())
    backend._function(module, "warp")(
        (min(_WARP_BLOCKS_PER_SM * sms, -(-nvals * 32 // _BLOCK)),), (_BLOCK,),
        MXM_DOT["warp"].pack(m_idx=m["m_idx"], **ab, **lists))
    backend._function(module, "block")(
        (min(_BLOCK_BLOCKS_PER_SM * sms, nvals),), (_BLOCK,),
        MXM_DOT["block"].pack(m_idx=m["m_idx"], nvals=n, **ab, **lists))


def _compact(backend: CupyBackend, module: codegen.KernelModule, m_ptr: cupy.ndarray, m_idx: cupy.ndarray,
             nrows: int, vals: cupy.ndarray, keep: cupy.ndarray) -> CsrProduct:
    """The kept entries as a CSR product: row pointers from the prefix count of kept entries at
    the mask's row starts, then the kept columns and values packed (all of them kept: the mask's
    columns and ``vals`` as they are)."""
    nvals = int(keep.shape[0])
    before = cupy.empty(nvals + 1, dtype=np.int64)
    before[0] = 0
    before[1:] = cupy.cumsum(keep, dtype=np.int64)
    indptr = before[m_ptr]  # row r starts after the entries kept before the mask's row r
    total = int(indptr[-1])
    if total == nvals:
        return CsrProduct(m_ptr.astype(np.int64), m_idx.copy(), vals)
    out_idx = cupy.empty(total, dtype=m_idx.dtype)
    out_vals = cupy.empty(total, dtype=vals.dtype)
    if total:
        blocks = min(_COMPACT_BLOCKS_PER_SM * _sm_count(cupy.cuda.runtime.getDevice()), -(-nvals // _BLOCK))
        backend._function(module, "compact")(
            (blocks,), (_BLOCK,), MXM_DOT["compact"].pack(keep=keep, before=before, m_idx=m_idx, vals=vals,
                                                          nvals=np.int64(nvals), out_idx=out_idx, out_vals=out_vals))
    return CsrProduct(indptr, out_idx, out_vals)
