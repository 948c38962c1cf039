"""Reductions: a Matrix to a Vector (row-wise, column-wise) and anything to a Scalar."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _sparse as sp
from .. import agg
from .._operations import bind_evaluator, bind_operations
from ..expressions import Expression
from ..mask import Mask
from ..matrix import TransposedMatrix, as_matrix
from ..operators import typed_monoid
from ..scalar import Scalar
from ..vector import Vector


def is_aggregator(op: Any) -> bool:
    """Whether ``op`` is an aggregator (``agg.mean``, ``"argmin"``), reduced by :mod:`grblas_gpu.agg`."""
    if getattr(op, "kind", None) != "aggregator" and not isinstance(op, str):
        return False
    return agg.is_aggregator(op)


def aggregate_expr(obj: Any, op: Any, axis: str, allow_empty: bool = True) -> Expression:
    """The reduction of ``obj`` by an aggregator (see :mod:`grblas_gpu.agg`)."""
    return agg.aggregate_expr(obj, op, axis, allow_empty)


def reduce_rows_expr(A: Any, op: Any, transpose: bool) -> Expression:
    """Each row (or column, when ``transpose``) of ``A`` reduced to one value."""
    A = as_matrix(A)
    if is_aggregator(op):
        return aggregate_expr(A, op, "cols" if transpose else "rows")
    mon = typed_monoid(op, A.dtype)
    size = A.ncols if transpose else A.nrows
    name = "reduce_columnwise" if transpose else "reduce_rowwise"
    return Expression(f"{name}({mon.name})", "Vector", (size,), mon.type, A._be, "reduce_rows", (A,), (mon, transpose))


def _reduce_rows(expr: Expression, mask: Mask | None) -> Vector:
    """A ``reduce_rows`` expression's result: each row (or column) of its Matrix reduced."""
    (A,), (mon, transpose) = expr.args, expr.params
    M = A._transposed() if transpose else A
    be = M._be
    rows, offsets = _row_segments(M)
    vals = be.segment_reduce(mon, _reduce_operand(be, mon, M._vals), offsets)
    return Vector._from_parts(be, mon.type, expr.shape[0], rows, vals)


def _reduce_operand(be: Any, mon: Any, vals: Any) -> Any:
    """A matrix's values as the reduction reads them: cast to the monoid's type, except where
    the CPU's ufunc casts them as it reduces (a widening cast, which C-style casting agrees
    with): no full-size copy."""
    if be.name == "numpy" and mon.ufunc is not None and not mon.is_any \
            and np.can_cast(vals.dtype, mon.type.np_type, "safe"):
        return vals
    return be.cast(vals, mon.type)


def _row_segments(M: Any) -> tuple[Any, Any]:
    """(rows holding entries, their segment offsets into the entries, with the end appended).
    From the row lengths where M has row pointers: O(rows) work instead of O(entries)."""
    xp = M._be.xp
    if M._ptr is None:
        all_rows = M._rows()
        offsets = sp.segment_starts(xp, all_rows)
        return all_rows[offsets[:-1]], offsets
    ptr = M._ptr.astype(np.int64, copy=False)
    rows = xp.flatnonzero(M._row_lengths()).astype(np.int64)
    return rows, xp.concatenate([ptr[rows], ptr[-1:]])


def reduce_scalar_expr(obj: Any, op: Any, allow_empty: bool) -> Expression:
    """All entries of a Vector or Matrix reduced to a Scalar."""
    if isinstance(obj, TransposedMatrix):
        obj = obj.parent
    if is_aggregator(op):
        return aggregate_expr(obj, op, "scalar", allow_empty)
    mon = typed_monoid(op, obj.dtype)
    return Expression(f"reduce({mon.name})", "Scalar", (), mon.type, obj._be, "reduce_scalar", (obj,), (mon, allow_empty))


def _reduce_scalar(expr: Expression, mask: Mask | None) -> Scalar:
    """A ``reduce_scalar`` expression's result: every entry of its object reduced."""
    (obj,), (mon, allow_empty) = expr.args, expr.params
    be = obj._be
    s = Scalar(mon.type, backend=be.name)
    n = obj.nvals
    if n == 0:
        if not allow_empty:
            s._put(np.asarray(mon.identity, dtype=mon.type.np_type)[()])
        return s
    if obj.kind == "Vector" and obj._is_bitmap and not mon.is_any:
        # Absent positions hold the identity, so the whole dense array can be reduced.
        bits, dense = obj._bitmap()
        vals = be.cast(dense, mon.type)
        if not obj._full:
            vals = be.xp.where(bits, vals, be.xp.asarray(mon.identity, dtype=mon.type.np_type))
    else:
        vals = _reduce_operand(be, mon, obj._vals)  # (the values alone: no keys are made)
    s._hold(be.reduce_all(mon, vals))  # read back only when asked for
    return s


__all__ = ["reduce_rows_expr", "reduce_scalar_expr"]


bind_evaluator("reduce_rows", _reduce_rows)
bind_evaluator("reduce_scalar", _reduce_scalar)
bind_operations(reduce_rows_expr=reduce_rows_expr, reduce_scalar_expr=reduce_scalar_expr)
