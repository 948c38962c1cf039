"""``u' A`` (and ``A' u``) on the GPU from A's own rows, without A's transpose
(kernel in ``templates/spmv_columns.cu``, source from :mod:`.columns_codegen`).

A directed graph's vxm pulled through A' needs the transpose, as large as A, kept with it for
the next product.  Here every stored entry whose row has a value in u is pushed into its column
by the monoid's atomic instead, the entries shared evenly among warps (a hub row is no one
warp's work), so the only memory beyond A is the result.  Used where the monoid has a cheap
atomic (:func:`.columns_codegen.columns_supported`).
"""

from __future__ import annotations

import functools
from typing import Any

import cupy
import numpy as np

from ...operators.base import TypedSemiring
from .columns_codegen import COLUMN_ITEMS, columns_module
from .core import values_type
from .signatures import COLUMNS

__all__ = ["spmv_columns"]

_BLOCK = 256
_BLOCKS_PER_SM = 16
_COLUMNS = COLUMNS["main"]


@functools.cache
def _sm_count(device: int) -> int:
    return int(cupy.cuda.runtime.getDeviceProperties(device)["multiProcessorCount"])


def _grid(nnz: int, sm_count: int) -> int:
    """Blocks for a grid stride over ``nnz`` entries in warp tiles of ``32 * COLUMN_ITEMS``."""
    warps = -(-nnz // (32 * COLUMN_ITEMS))
    return max(1, min(-(-warps * 32 // _BLOCK), _BLOCKS_PER_SM * sm_count))


def spmv_columns(be: Any, semiring: TypedSemiring, indptr: Any, indices: Any, values: Any, x: Any,
                 x_present: Any, col_mask: Any, complement: bool, ncols: int,
                 matrix_first: bool = False) -> tuple[cupy.ndarray, cupy.ndarray]:
    """(values, presence) of ``u' A`` over ``semiring`` (``A' u`` with ``matrix_first``) for the
    CSR ``indptr``/``indices``/``values``, ``x`` u's dense values and ``x_present`` its presence
    (None: every row); columns where ``col_mask`` is False (True with ``complement``) get no
    term.  ``be``: the CuPy backend (its compiled functions and operand casts)."""
    ptr, idx = be._csr_arrays(indptr, indices)
    out, present = be._push_result(semiring.monoid, ncols, None)
    nrows, nnz = int(ptr.shape[0]) - 1, int(idx.shape[0])
    if nnz == 0 or nrows <= 0:
        return out, present
    vector_first = not matrix_first
    a = be._stored_values(semiring, values, vector_first)  # (cast as the kernel reads them)
    fn = be._function(columns_module(semiring, idx.dtype, bool(matrix_first), ptr.dtype, values_type(a)))
    args = _COLUMNS.pack(indptr=ptr, indices=idx, values=a,
                         x=be._matvec_operand(semiring, x, vector_first, False), x_present=be._flag_array(x_present),
                         nrows=np.int64(nrows), nnz=np.int64(nnz), mask=be._flag_array(col_mask),
                         complement=np.int32(bool(complement)), out=out, present=present)
    fn((_grid(nnz, _sm_count(cupy.cuda.runtime.getDevice())),), (_BLOCK,), args)
    return out, present
