"""plus_times through scipy's compiled sparse product, for the CPU backend where scipy is
installed: used only where it gives what the batched product would (see :func:`product`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..limits import require_bytes
from ..operators.base import TypedSemiring
from .operands import CsrOperand, CsrProduct

__all__ = ["product", "SCIPY_TYPES"]

SCIPY_TYPES = frozenset(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                              np.uint32, np.uint64, np.float32, np.float64))
"""The value types scipy's product computes in (BOOL is not among them: its plus is lor)."""


# The multiplies that are ``x * y`` with a side's values taken as 1 (exact: ``x * 1`` is x for
# every number, NaN, inf and -0.0 included): which sides' values they read.
_AS_TIMES = {"times": (True, True), "first": (True, False), "second": (False, True), "pair": (False, False),
             "oneb": (False, False)}


def product(sr: TypedSemiring, a: CsrOperand, b: CsrOperand) -> CsrProduct | None:
    """A product by scipy's compiled one, where scipy takes it and drops no entry (a sum of
    exactly 0 it leaves out); None where it cannot be used.  It takes the plus monoid over a
    numeric type with times, first, second or pair (their ignored side's values as ones).

    scipy leaves each row's columns in the order they were first reached; sorting them costs
    more than the product.  So it computes ``C' = B' A'`` (A' and B' by one counting pass
    each) and transposes that, a counting pass that leaves every row sorted.  Each sum still
    runs over increasing ``k``.
    """
    mult, out = sr.mult, sr.out_type
    reads = _AS_TIMES.get(mult.name)
    if (sr.monoid.name != "plus" or reads is None or mult.is_flipped or mult.positional or out.is_bool
            or (reads[0] and a.values is None) or (reads[1] and b.values is None)
            or not (mult.x_type == mult.y_type == out) or np.dtype(out.np_type) not in SCIPY_TYPES
            or max(a.nrows, a.ncols, b.ncols) > 8 * (a.nvals + b.nvals) + 2**20):  # (its work arrays span them)
        return None
    ones = np.ones(0, out.np_type)
    if not (reads[0] and reads[1]):
        ones = np.ones(max(a.nvals if not reads[0] else 0, b.nvals if not reads[1] else 0), out.np_type)
    a = a if reads[0] else CsrOperand(a.indptr, a.indices, ones[:a.nvals], a.nrows, a.ncols)
    b = b if reads[1] else CsrOperand(b.indptr, b.indices, ones[:b.nvals], b.nrows, b.ncols)
    try:
        from scipy.sparse import _sparsetools as kernels
    except ImportError:
        return None
    m, n = a.nrows, b.ncols
    try:
        idx = np.int64 if max(a.nvals, b.nvals, m, n, a.ncols) >= 2**31 - 1 else np.int32
        at = _scipy_transposed(kernels, a, idx)
        bt = _scipy_transposed(kernels, b, idx)
        nnz = int(kernels.csr_matmat_maxnnz(n, m, bt[0], bt[1], at[0], at[1]))
        if nnz >= 2**31 - 1 and idx is np.int32:
            return None  # (rare: the batched path takes it)
        require_bytes(nnz * (np.dtype(idx).itemsize + out.np_type.itemsize), "numpy", f"a product of {nnz:,} entries")
        ctp, cti, ctx = np.empty(n + 1, idx), np.empty(nnz, idx), np.empty(nnz, out.np_type)
        kernels.csr_matmat(n, m, bt[0], bt[1], bt[2], at[0], at[1], at[2], ctp, cti, ctx)
        if int(ctp[-1]) != nnz:  # an entry summed to exactly 0 and was dropped
            return None
        cp, ci, cx = np.empty(m + 1, idx), np.empty(nnz, idx), np.empty(nnz, out.np_type)
        kernels.csr_tocsc(n, m, ctp, cti, ctx, cp, ci, cx)
    except (AttributeError, TypeError, ValueError):  # a scipy whose private kernels differ
        return None
    return CsrProduct(cp.astype(np.int64), ci.astype(np.int32 if n < 2**31 else np.int64, copy=False), cx)


def _scipy_transposed(kernels: Any, x: CsrOperand, idx: Any) -> tuple[np.ndarray, ...]:
    """(indptr, indices, values) of x' in CSR, index arrays of type ``idx``."""
    tp, ti = np.empty(x.ncols + 1, idx), np.empty(x.nvals, idx)
    tx = np.empty(x.nvals, x.values.dtype)
    kernels.csr_tocsc(x.nrows, x.ncols, x.indptr.astype(idx, copy=False), x.indices.astype(idx, copy=False),
                      np.ascontiguousarray(x.values), tp, ti, tx)
    return tp, ti, tx
