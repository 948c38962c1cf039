"""The GraphBLAS C API's operations as functions, with the C argument order.

``gb.mxv(w, mask, accum, op, A, u, desc)`` is ``GrB_mxv(w, mask, accum, op, A, u, desc)``;
each is the same implementation as the method form (``w(mask, accum) << A.mxv(u, op)``).
``mask`` and ``accum`` may be None; ``desc`` a :class:`Descriptor`, its name, or None.
"""

from __future__ import annotations

from typing import Any

from .descriptor import Descriptor, lookup
from .exceptions import DomainMismatch, InvalidValue
from .expressions import Updater
from .indexing import ALL
from .mask import Mask
from .matrix import Matrix, TransposedMatrix
from .operators import select as _select_namespace
from .vector import Vector

__all__ = ["mxm", "mxv", "vxm", "eWiseAdd", "eWiseMult", "eWiseUnion", "apply", "select", "reduce",
           "extract", "assign", "transpose", "kronecker"]


def _desc(desc: Any) -> Descriptor:
    if desc is None:
        return Descriptor()
    if isinstance(desc, str):
        return lookup(desc)
    if isinstance(desc, Descriptor):
        return desc
    raise InvalidValue(f"desc must be a Descriptor, its name or None, not {desc!r}")


def _out(C: Any, mask: Any, accum: Any, d: Descriptor) -> Updater:
    m = None
    if mask is not None:
        if isinstance(mask, Mask):
            m = Mask(mask.parent, mask.structure or d.mask_structure, mask.complement != d.mask_complement)
        else:
            m = Mask(mask, d.mask_structure, d.mask_complement)
    elif d.mask_complement:
        # No mask means "everywhere"; its complement allows nowhere: an empty structural mask.
        m = Mask(_empty_like(C), structure=True)
    return Updater(C, m, accum, d.replace)


def _empty_like(C: Any) -> Any:
    if C.kind == "Vector":
        return Vector("BOOL", C.size, backend=C.backend)
    return Matrix("BOOL", C.nrows, C.ncols, backend=C.backend)


def _t(A: Any, flag: bool) -> Any:
    if not flag:
        return A
    if getattr(A, "kind", None) != "Matrix":
        raise DomainMismatch("only a Matrix input can be transposed by the descriptor")
    return A.T


def mxm(C: Any, mask: Any, accum: Any, op: Any, A: Any, B: Any, desc: Any = None) -> None:
    """``C<mask> = accum(C, A (+.*) B)`` (GrB_mxm)."""
    d = _desc(desc)
    _out(C, mask, accum, d) << _t(A, d.transpose_first).mxm(_t(B, d.transpose_second), op)


def mxv(w: Any, mask: Any, accum: Any, op: Any, A: Any, u: Any, desc: Any = None) -> None:
    """``w<mask> = accum(w, A (+.*) u)`` (GrB_mxv)."""
    d = _desc(desc)
    _out(w, mask, accum, d) << _t(A, d.transpose_first).mxv(u, op)


def vxm(w: Any, mask: Any, accum: Any, op: Any, u: Any, A: Any, desc: Any = None) -> None:
    """``w'<mask> = accum(w, u' (+.*) A)`` (GrB_vxm)."""
    d = _desc(desc)
    _out(w, mask, accum, d) << u.vxm(_t(A, d.transpose_second), op)


def _first(A: Any, d: Descriptor) -> Any:
    return _t(A, d.transpose_first) if getattr(A, "kind", None) == "Matrix" else A


def _second(B: Any, d: Descriptor) -> Any:
    return _t(B, d.transpose_second) if getattr(B, "kind", None) == "Matrix" else B


def _materialize(A: Any) -> Any:
    return A.parent._transposed() if isinstance(A, TransposedMatrix) else A


def eWiseAdd(C: Any, mask: Any, accum: Any, op: Any, A: Any, B: Any, desc: Any = None) -> None:
    """``C<mask> = accum(C, A (+) B)`` over the union of entries (GrB_eWiseAdd)."""
    d = _desc(desc)
    _out(C, mask, accum, d) << _materialize(_first(A, d)).ewise_add(_materialize(_second(B, d)), op)


def eWiseMult(C: Any, mask: Any, accum: Any, op: Any, A: Any, B: Any, desc: Any = None) -> None:
    """``C<mask> = accum(C, A (*) B)`` over the intersection of entries (GrB_eWiseMult)."""
    d = _desc(desc)
    _out(C, mask, accum, d) << _materialize(_first(A, d)).ewise_mult(_materialize(_second(B, d)), op)


def eWiseUnion(C: Any, mask: Any, accum: Any, op: Any, A: Any, alpha: Any, B: Any, beta: Any,
               desc: Any = None) -> None:
    """Union where a lone entry is combined with the other side's default (GxB_eWiseUnion)."""
    d = _desc(desc)
    _out(C, mask, accum, d) << _materialize(_first(A, d)).ewise_union(_materialize(_second(B, d)), op, alpha, beta)


def apply(C: Any, mask: Any, accum: Any, op: Any, A: Any, desc: Any = None, *, left: Any = None,
          right: Any = None, thunk: Any = None) -> None:
    """``C<mask> = accum(C, f(A))``: unary, bound binary (left=/right=) or index-unary (thunk=)."""
    d = _desc(desc)
    src = _materialize(_first(A, d))
    expr = src.apply(op, right if thunk is None else thunk, left=left)
    _out(C, mask, accum, d) << expr


def select(C: Any, mask: Any, accum: Any, op: Any, A: Any, thunk: Any = 0, desc: Any = None) -> None:
    """``C<mask> = accum(C, A<f(A, i, j, thunk)>)`` (GrB_select)."""
    d = _desc(desc)
    _out(C, mask, accum, d) << _materialize(_first(A, d)).select(op, thunk)


def reduce(out: Any, mask: Any, accum: Any, op: Any, A: Any, desc: Any = None) -> None:
    """Row-wise reduce into a Vector (column-wise with T0), or reduce to a Scalar (GrB_reduce)."""
    d = _desc(desc)
    if out.kind == "Scalar":
        if mask is not None:
            raise InvalidValue("reduce to a Scalar takes no mask")
        src = A.parent if hasattr(A, "parent") else A
        out(accum=accum) << (src.reduce_scalar(op) if src.kind == "Matrix" else src.reduce(op))
        return
    src = _first(A, d)
    _out(out, mask, accum, d) << src.reduce_rowwise(op)


def extract(C: Any, mask: Any, accum: Any, A: Any, rows: Any = ALL, cols: Any = None, desc: Any = None) -> None:
    """``C<mask> = accum(C, A(rows, cols))``; for a Vector source ``cols`` is unused (GrB_extract)."""
    if A.kind == "Vector" and cols is not None and desc is None:
        cols, desc = None, cols  # GrB_Vector_extract(w, mask, accum, u, indices, desc)
    d = _desc(desc)
    if A.kind == "Vector":
        expr = A[rows]
    else:
        expr = _materialize(_first(A, d))[rows, ALL if cols is None else cols]
    _out(C, mask, accum, d) << expr


def assign(C: Any, mask: Any, accum: Any, value: Any, rows: Any = ALL, cols: Any = None, desc: Any = None) -> None:
    """``C<mask>(rows, cols) = accum(C(rows, cols), value)`` (GrB_assign); value a collection or scalar."""
    if C.kind == "Vector" and cols is not None and desc is None:
        cols, desc = None, cols  # GrB_Vector_assign(w, mask, accum, u, indices, desc)
    d = _desc(desc)
    if getattr(value, "kind", None) == "Matrix" and d.transpose_first:
        value = value.T
    target = _out(C, mask, accum, d)
    if C.kind == "Vector":
        target[rows] << value
    else:
        target[rows, ALL if cols is None else cols] << value


def transpose(C: Any, mask: Any, accum: Any, A: Any, desc: Any = None) -> None:
    """``C<mask> = accum(C, A')`` (GrB_transpose; T0 cancels the transpose)."""
    d = _desc(desc)
    _out(C, mask, accum, d) << (A if d.transpose_first else A.T)


def kronecker(C: Any, mask: Any, accum: Any, op: Any, A: Any, B: Any, desc: Any = None) -> None:
    """``C<mask> = accum(C, kron(A, B))`` (GrB_kronecker)."""
    d = _desc(desc)
    _out(C, mask, accum, d) << _materialize(_first(A, d)).kronecker(_materialize(_second(B, d)), op)


_select_namespace.function = select  # ``gb.select(...)``, called, is this function
