"""mxm: the planner that picks the form of a matrix product and hands the backend its operands.

``C<M> = A B`` runs as one of two kernels of the backend (see
:mod:`grblas_gpu.backends.operands`):

- Gustavson's row-wise product, ``C(i, :) = sum_k A(i, k) B(k, :)``: without a mask, under
  a complemented mask (which it filters as it goes), or under a mask (which also bounds the
  rows it computes);
- the dot form, one dot product ``A(i, :) . B(:, j)`` per position ``(i, j)`` of a (not
  complemented) mask: its work is bounded by the mask, and it reads B by columns, so
  ``A @ X.T`` (triangle counting's ``L @ L.T``) needs no transpose at all.

Transposed operands stay lazy: an operand is a Matrix and whether it is transposed, and the
form asks only for the orientation it needs (a transpose built is cached on the Matrix).
Under a mask the form with the lower estimated cost runs (see :func:`_costs`).

The product is the expression's result; the output rule (mask, accumulator, replace) is then
applied by :mod:`grblas_gpu.expressions` as for any operation, except where the product was
computed under the output's own mask with nothing to keep or accumulate (``C(M, replace) <<
A B``, or C empty): it is then C's new content as it is (the expression's one-pass write).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _sparse as sp
from .._operations import bind_evaluator
from ..backends import get_backend
from ..backends.operands import CsrOperand, CsrProduct, MaskOperand
from ..dtypes import BOOL, unify
from ..exceptions import DimensionMismatch, DomainMismatch, NotImplementedException, OutOfMemory
from ..expressions import Expression, Output, check_same_backend, write_result
from ..mask import Mask
from ..matrix import Matrix, TransposedMatrix
from ..operators import TypedSemiring, typed_binary, typed_semiring

__all__ = ["mxm_expr"]

FORM: str | None = None
"""The form every product takes when set (for tests): ``"gustavson"`` (the whole product, the
write applying any mask), ``"masked"`` (Gustavson with the mask) or ``"dot"`` (with a mask
that is not complemented).  None: chosen per product."""

TRANSPOSE_COST = 4.0
"""A transpose's cost per entry, in product terms (it sorts the entries)."""


@dataclass(frozen=True)
class _Side:
    """A product operand as given: a Matrix, and whether it stands transposed."""

    matrix: Matrix
    transposed: bool

    @property
    def shape(self) -> tuple[int, int]:
        m = self.matrix
        return (m.ncols, m.nrows) if self.transposed else (m.nrows, m.ncols)

    def rows(self) -> Matrix:
        """The Matrix whose rows are this operand's rows (a transpose built, then cached)."""
        return self.matrix._transposed() if self.transposed else self.matrix

    def cols(self) -> Matrix:
        """The Matrix whose rows are this operand's columns."""
        return self.matrix if self.transposed else self.matrix._transposed()

    def transpose_cost(self, by_rows: bool) -> float:
        """What reading the operand by rows (else by columns) costs in a transpose to build."""
        m = self.matrix
        if by_rows != self.transposed or m._T is not None:
            return 0.0
        return TRANSPOSE_COST * m.nvals

    def entries(self) -> tuple[Any, Any]:
        """(row, column) of every entry of the operand, no transpose built."""
        m = self.matrix
        return (m._indices, m._rows()) if self.transposed else (m._rows(), m._indices)

    def row_lengths_at(self, idx: Any) -> Any:
        """The number of entries of the operand's rows ``idx``, no transpose built."""
        return _col_lengths_at(self.matrix, idx) if self.transposed else self.matrix._row_ranges(idx)[1]

    def col_lengths_at(self, idx: Any) -> Any:
        """The number of entries of the operand's columns ``idx``, no transpose built."""
        return self.matrix._row_ranges(idx)[1] if self.transposed else _col_lengths_at(self.matrix, idx)


def _col_lengths_at(M: Matrix, idx: Any) -> Any:
    """The number of entries in columns ``idx`` of M (its transpose's row lengths where cached;
    else counted once and kept, per column, or per occurring column for a huge dimension)."""
    if M._T is not None:
        return M._T._row_ranges(idx)[1]
    xp = M._be.xp
    if M.ncols <= 8 * M.nvals + 2**20:
        counts = M._memo("col_lengths", lambda: M._be.occurrences(M._indices, M.ncols))
        return counts[idx]
    cols, counts = M._memo("col_counts", lambda: xp.unique(M._indices.astype(np.int64), return_counts=True))
    at = xp.minimum(xp.searchsorted(cols, idx), max(len(cols) - 1, 0))
    return xp.where(cols[at] == idx, counts[at], 0) if len(cols) else xp.zeros(len(idx), np.int64)


def _side(obj: Any) -> _Side:
    if isinstance(obj, Matrix):
        return _Side(obj, False)
    if isinstance(obj, TransposedMatrix):
        return _Side(obj.parent, True)
    if isinstance(obj, Expression) and obj.kind == "Matrix":
        return _Side(obj.new(), False)
    raise DomainMismatch(f"mxm needs a Matrix, got {type(obj).__name__}")


def mxm_expr(A: Any, B: Any, op: Any) -> Expression:
    """``A B`` as an expression (``A.T`` and ``B.T`` are read as they are, not copied)."""
    a, b = _side(A), _side(B)
    (m, ka), (kb, n) = a.shape, b.shape
    if ka != kb:
        raise DimensionMismatch(f"mxm: A is {m}x{ka} but B is {kb}x{n}")
    check_same_backend(a.matrix, b.matrix)
    typed = typed_semiring(op, unify(a.matrix.dtype, b.matrix.dtype))
    return Expression(f"mxm({typed.name})", "Matrix", (m, n), typed.out_type, a.matrix._be, "mxm",
                      (a.matrix, b.matrix), (typed, a, b))


def _compute(expr: Expression, mask: Mask | None) -> Matrix:
    """An ``mxm`` expression's result."""
    typed, a, b = expr.params
    return _mxm(typed, a, b, mask)[0]


def _write(expr: Expression, out: Output) -> bool:
    """``C(M, replace) << A B`` (or C empty, no accumulator): the product, where its form applied
    the mask, holds only entries the mask allows and is taken as C's new content as it is."""
    mask = out.mask
    if mask is None or out.accum is not None or out.changed is not None:
        return False
    C = out.target
    typed, a, b = expr.params
    T, under_mask = expr.guarded(_mxm, typed, a, b, mask)
    if under_mask and (out.replace or C.nvals == 0):
        C._replace_with(T)
    else:
        write_result(C, T, mask, None, out.replace)
    return True


# ---------------------------------------------------------------------------- planning


@dataclass
class _MaskEntries:
    """A mask as the positions it holds (rows sorted), and whether it is complemented."""

    rows: Any
    cols: Any
    complement: bool
    parent: Matrix | None  # the Matrix whose entries these all are, its CSR handed on as it is
    xp: Any


def _mask_entries(mask: Mask) -> _MaskEntries:
    """A mask's positions: a value mask's true entries, a structural mask's entries."""
    P = mask.parent
    if not isinstance(P, Matrix):
        raise DomainMismatch(f"mxm takes a Matrix mask, not a {type(P).__name__}")
    rows, cols, xp = P._rows(), P._indices, P._be.xp
    if not mask.structure:
        keep = P._be.cast(P._vals, BOOL)
        if not bool(keep.all()):
            return _MaskEntries(rows[keep], cols[keep], mask.complement, None, xp)
    return _MaskEntries(rows, cols, mask.complement, P, xp)


def _choose(sr: TypedSemiring, a: _Side, b: _Side, mask: _MaskEntries | None) -> str:
    """``"gustavson"`` (no mask), ``"masked"`` or ``"dot"``: the form this product takes."""
    if mask is None:
        return "gustavson"
    if FORM is not None:
        return "masked" if FORM == "dot" and mask.complement else FORM
    if mask.complement:
        return "masked"
    gustavson, dot = _costs(a, b, mask)
    return "dot" if dot < gustavson else "masked"


def _costs(a: _Side, b: _Side, mask: _MaskEntries) -> tuple[float, float]:
    """Estimated work of the masked Gustavson product and of the dot form, in product terms.

    Gustavson: the terms of the rows the mask opens (``|B(k, :)|`` for each ``A(i, k)``, one
    gather over A's entries), plus any transpose it must build.  Dot: per mask position the
    shorter of ``A(i, :)`` and ``B(:, j)`` (one gather over the mask), the keys of both
    operands, plus any transpose it must build.
    """
    xp = a.matrix._be.xp
    i, k = a.entries()
    weights = b.row_lengths_at(k)
    flops = weights[_opened(xp, i, mask)].sum() if len(weights) else 0
    shorter = xp.minimum(a.row_lengths_at(mask.rows), b.col_lengths_at(mask.cols))
    # The two sums read together (one wait for the device, not two).
    flops, shorter_sum = xp.stack([xp.asarray(flops, dtype=np.float64),
                                   xp.asarray(shorter.sum() if len(shorter) else 0, dtype=np.float64)]).tolist()
    gustavson = flops + a.transpose_cost(by_rows=True) + b.transpose_cost(by_rows=True)
    dot = shorter_sum + a.matrix.nvals + b.matrix.nvals
    dot += a.transpose_cost(by_rows=True) + b.transpose_cost(by_rows=False)
    return gustavson, dot


def _opened(xp: Any, rows: Any, mask: _MaskEntries) -> Any:
    """Whether each of ``rows`` holds an entry of the mask: from the mask's row pointers where
    it is a Matrix's entries (a gather), else by a search in its sorted rows."""
    P = mask.parent
    if P is not None and P._ptr is not None:
        ptr = P._ptr
        return (ptr[1:] != ptr[:-1])[rows]
    return sp.isin_sorted(xp, rows, mask.rows)


# ---------------------------------------------------------------------------- running


def _mxm(sr: TypedSemiring, a: _Side, b: _Side, mask: Mask | None) -> tuple[Matrix, bool]:
    """The product, and whether its form applied ``mask`` (then it holds only entries the mask
    allows; else ``mask`` was not used)."""
    be = a.matrix._be
    m, n = a.shape[0], b.shape[1]
    entries = _mask_entries(mask) if mask is not None else None
    form = _choose(sr, a, b, entries)
    A = a.rows()
    B = b.cols() if form == "dot" else b.rows()  # (for the dot form, B's columns as rows)
    run, a_vals, b_vals = _kernel_values(sr, A, B, form == "dot")
    compact = not run.mult.positional  # (a compacted operand renumbers the positions)
    rows_a, a_ids = _operand(A, a_vals, compact)
    rows_b, b_ids = _operand(B, b_vals, compact)
    m_op: MaskOperand | None = None
    if form == "dot":
        assert entries is not None  # the dot form is chosen under a mask only
        m_op = _mask_operand(entries, m, a_ids, b_ids)
        product = _run(be, "mxm_dot", run, rows_a, rows_b, m_op)
        if b_ids is not None:
            product = CsrProduct(product.indptr, b_ids[product.indices], product.values)
    else:
        if b_ids is not None:
            rows_a = _inner_remapped(be, rows_a, b_ids)
        if form == "masked":
            assert entries is not None  # (as for the dot form)
            m_op = _mask_operand(entries, m, a_ids, None)
        product = _run(be, "mxm_gustavson", run, rows_a, rows_b, m_op)
    return _output(be, sr, m, n, product, a_ids), m_op is not None


_POSITIONS = ("xi", "xj", "yi", "yj")


def _kernel_values(sr: TypedSemiring, A: Matrix, B: Matrix, dot: bool) -> tuple[TypedSemiring, Any, Any]:
    """(the semiring the kernel runs, A's values, B's values) for the product of A's rows by
    B's rows (by B's columns, as rows of ``B``, for the dot form).

    Values are cast to the multiply's input types (cached on the Matrix), None where it does
    not read them.  A positional multiply that reads one position (firsti, secondj, ...) of a
    hypersparse operand runs as ``first`` or ``second`` of that position given as values: the
    kernel then sees compacted rows, whose numbers are not the matrix's.
    """
    mult = sr.mult
    fields = [f for f in _POSITIONS if mult.reads(f)] if mult.positional else []
    if len(fields) == 1 and not mult.reads("x") and not mult.reads("y") and (A._ptr is None or B._ptr is None):
        t = sr.out_type
        field = fields[0]
        if field in ("xi", "xj"):
            vals = A._rows() if field == "xi" else A._indices
            run = TypedSemiring(sr.name, sr.monoid, typed_binary("first", t))
            return run, _as_values(A, vals, t), None
        by_row = (field == "yi") != dot  # B's row number of each entry (else its column)
        vals = B._rows() if by_row else B._indices
        return TypedSemiring(sr.name, sr.monoid, typed_binary("second", t)), None, _as_values(B, vals, t)
    a_vals = _values_in(A, mult.x_type) if mult.reads("x") else None
    b_vals = _values_in(B, mult.y_type) if mult.reads("y") else None
    return sr, a_vals, b_vals


def _values_in(M: Matrix, t: Any) -> Any:
    """M's values of type ``t``: as stored where they are of it, else cast for this product
    alone (transient, one value of ``t`` per entry, dropped with the product's operands;
    nothing is kept with M)."""
    return M._be.cast(M._vals, t)


def _as_values(M: Matrix, vals: Any, t: Any) -> Any:
    """``vals`` (indices of M) as values of type ``t``."""
    return M._be.cast(vals, t)


def _operand(M: Matrix, values: Any, compact: bool) -> tuple[CsrOperand, Any]:
    """M's rows as a kernel operand, and the row ids they stand for where a hypersparse M is
    compacted to its nonempty rows (None: every row, pointers for all, built on need)."""
    if M._ptr is not None or not compact:
        return CsrOperand(M._indptr, M._indices, values, M.nrows, M.ncols), None
    starts = sp.segment_starts(M._be.xp, M._rowidx)
    ids = M._rowidx[starts[:-1]]
    return CsrOperand(starts, M._indices, values, len(ids), M.ncols), ids


def _inner_remapped(be: Any, a: CsrOperand, b_ids: Any) -> CsrOperand:
    """A's columns renumbered as the compacted rows ``b_ids`` of B they meet (entries meeting
    an empty row of B dropped: they make no term)."""
    xp = be.xp
    found, rank = _find(xp, a.indices.astype(np.int64), b_ids)
    rows = sp.csr_rows(xp, a.indptr)[found]
    values = a.values[found] if a.values is not None else None
    return CsrOperand(sp.rows_to_indptr(xp, rows, a.nrows), rank[found], values, a.nrows, len(b_ids))  # (rows sorted)


def _find(xp: Any, keys: Any, sorted_ids: Any) -> tuple[Any, Any]:
    """(whether each key is in ``sorted_ids``, its position there)."""
    if len(sorted_ids) == 0:
        return xp.zeros(len(keys), dtype=bool), xp.zeros(len(keys), dtype=np.int64)
    at = xp.minimum(xp.searchsorted(sorted_ids, keys), len(sorted_ids) - 1)
    return sorted_ids[at] == keys, at


def _mask_operand(mask: _MaskEntries, nrows: int, row_ids: Any, col_ids: Any) -> MaskOperand:
    """The mask over the kernel's rows (``row_ids`` where compacted) and, for the dot form,
    its columns as ``col_ids`` numbers them (positions outside them dropped: they hold no
    result)."""
    P, xp = mask.parent, mask.xp
    if P is not None and row_ids is None and col_ids is None and P._ptr is not None:
        return MaskOperand(P._ptr, P._indices, mask.complement)
    rows, cols = mask.rows, mask.cols
    if row_ids is not None:
        found, rows = _find(xp, rows, row_ids)
        rows, cols = rows[found], cols[found]
        nrows = len(row_ids)
    if col_ids is not None:
        found, cols = _find(xp, cols.astype(np.int64), col_ids)
        rows, cols = rows[found], cols[found]
    return MaskOperand(sp.rows_to_indptr(xp, rows, nrows), cols, mask.complement)  # (rows sorted)


def _run(be: Any, method: str, sr: TypedSemiring, *operands: Any) -> CsrProduct:
    """The backend's kernel ``method``; the NumPy kernels on host copies where the backend has
    none; a failed allocation reported as OutOfMemory."""
    try:
        try:
            return getattr(be, method)(sr, *operands)
        except NotImplementedException:
            return _on_host(be, method, sr, operands)
    except OutOfMemory:
        raise
    except MemoryError as exc:
        raise OutOfMemory(f"mxm({sr.name}): {exc}") from exc


def _on_host(be: Any, method: str, sr: TypedSemiring, operands: tuple[Any, ...]) -> CsrProduct:
    """``method`` by the NumPy backend on host copies of the operands, its product moved back."""
    from dataclasses import fields, replace

    def host(x: Any) -> Any:
        if x is None:
            return None
        return replace(x, **{f.name: be.to_host(getattr(x, f.name)) for f in fields(x)
                             if f.name in ("indptr", "indices", "values") and getattr(x, f.name) is not None})

    product = getattr(get_backend("numpy"), method)(sr, *(host(o) for o in operands))
    return CsrProduct(be.asarray(product.indptr), be.asarray(product.indices), be.asarray(product.values))


def _output(be: Any, sr: TypedSemiring, nrows: int, ncols: int, product: CsrProduct, row_ids: Any) -> Matrix:
    """The product as a new Matrix (its rows ``row_ids`` where the kernel ran on compacted rows)."""
    out = Matrix(sr.out_type, nrows, ncols, backend=be.name)
    if row_ids is None:
        out._set_csr(product.indptr, product.indices, product.values)
    else:
        rows = row_ids[sp.csr_rows(be.xp, product.indptr)]
        out._set_sorted(rows, product.indices, product.values)
    return out


bind_evaluator("mxm", _compute, _write)
