"""mxm, mxv, vxm and inner over a semiring.

Matrix-vector products run one of two ways, chosen per call from the vector's density:
- pull: every output row reduces over its stored entries against a dense copy of the
  vector (the backend's ``spmv`` kernel; rows outside the mask are skipped);
- push: the stored rows of the vector's entries are expanded, multiplied, and
  combined by output index (best for a sparse frontier).
mxm is planned in :mod:`.mxm` (Gustavson's row-wise product or masked dot products).
"""

from __future__ import annotations

import functools
import weakref
from typing import Any

import numpy as np

from .. import _sparse as sp
from .._operations import bind_evaluator, bind_operations
from ..backends.operands import (
    SPMV_RESULT,
    CsrOperand,
    ListedVector,
    PushOutput,
    RowMask,
    SpmvOutput,
    VectorOperand,
)
from ..dtypes import DataType, unify
from ..exceptions import DimensionMismatch, DomainMismatch, InvalidValue
from ..expressions import Expression, Output, check_same_backend, fills_gaps
from ..mask import Mask
from ..matrix import Matrix, as_matrix
from ..operators import TypedSemiring, typed_binary, typed_semiring
from ..operators.base import Positions
from ..scalar import Scalar
from ..vector import Vector
from .mxm import mxm_expr as planned_mxm
from .structural import pattern_transposable, pattern_transpose

# Which kernels the backend has, what sizes its pushes take, and the frontier shares below
# which a push pays are the backend's table: ``be.matvec`` (backends.base.MatVecCapabilities).
METHODS = ("auto", "push", "pull")
# Fewest entries for which a product that walks A' is done from A's own rows where the backend
# can (see _by_columns): below it, A' is small and the pull of its rows is the faster.
BY_COLUMNS_MIN_ENTRIES = 1 << 16
_VALUES_ONLY = SpmvOutput(presence=False)  # a pull whose caller knows its result's presence (shared, never written)


def _as_vector(u: Any, what: str) -> Vector:
    if isinstance(u, Vector):
        return u
    if isinstance(u, Expression) and u.kind == "Vector":
        return u.new()
    raise DomainMismatch(f"{what} needs a Vector, got {type(u).__name__}")


def mxv_expr(A: Any, u: Any, op: Any, method: str) -> Expression:
    """``A u`` as an expression."""
    A, u = as_matrix(A), _as_vector(u, "mxv")
    if A._ncols != u._size:
        raise DimensionMismatch(f"mxv: A is {A.nrows}x{A.ncols} but u has size {u.size}")
    return _matvec_expr("mxv", A, u, op, method, vector_first=False, out_size=A._nrows)


def vxm_expr(u: Any, A: Any, op: Any, method: str) -> Expression:
    """``u' A`` as an expression."""
    u, A = _as_vector(u, "vxm"), as_matrix(A)
    if A._nrows != u._size:
        raise DimensionMismatch(f"vxm: u has size {u.size} but A is {A.nrows}x{A.ncols}")
    return _matvec_expr("vxm", A, u, op, method, vector_first=True, out_size=A._ncols)


def _matvec_expr(name: str, A: Matrix, u: Vector, op: Any, method: str, vector_first: bool,
                 out_size: int) -> Expression:
    if method not in METHODS:
        raise InvalidValue(f"method must be one of {METHODS}, got {method!r}")
    check_same_backend(A, u)
    typed = op if isinstance(op, TypedSemiring) else typed_semiring(op, unify(A._dtype, u._dtype))
    columns = vector_first and _by_columns(A, typed)
    return _MatVec(name, A, u, typed, method, vector_first, out_size, columns)


def transposed_mxv_expr(A: Matrix, u: Any, op: Any, method: str) -> Expression:
    """``A' u`` (``A.T.mxv(u)``) as an expression: from A's own rows where :func:`_by_columns`
    holds (A' is not built), else through A's kept transpose."""
    u = _as_vector(u, "mxv")
    if A._nrows != u._size:
        raise DimensionMismatch(f"mxv: A.T is {A.ncols}x{A.nrows} but u has size {u.size}")
    if method not in METHODS:
        raise InvalidValue(f"method must be one of {METHODS}, got {method!r}")
    check_same_backend(A, u)
    typed = op if isinstance(op, TypedSemiring) else typed_semiring(op, unify(A._dtype, u._dtype))
    if _by_columns(A, typed, vector_first=False):
        return _ColumnMatVec("mxv", A, u, typed, method, matrix_first=True)
    return mxv_expr(_transpose_for(A, typed, vector_first=False), u, typed, method)


def _transpose_for(A: Matrix, typed: TypedSemiring, vector_first: bool) -> Matrix:
    """A' for a product over ``typed`` that walks it (``u' A`` pulled when ``vector_first``,
    else ``A' u``): without values (:func:`_pattern_transposed`) where the product never reads
    them, else A's transpose (built and kept)."""
    if _pull_types(typed, vector_first)[1] is None:
        return _pattern_transposed(A)
    return A._transposed()


def _pattern_transposed(A: Matrix) -> Matrix:
    """A' for a pull that never reads A's values: A's transpose where held (A itself when
    symmetric), else A' without values (:func:`.structural.pattern_transpose`, kept with A's
    derived forms) where the backend makes one, else A's transpose, built and kept.  (Symmetry
    is asked first: finding it may build and keep the full transpose.)"""
    if A.is_symmetric or A._T is not None:
        return A._transposed()
    pattern = A._memo("pattern transpose", lambda: pattern_transpose(A))
    return A._transposed() if pattern is None else pattern


def _by_columns(A: Matrix, typed: TypedSemiring, vector_first: bool = True) -> bool:
    """Whether a product that walks A' (``u' A`` pulled, ``A' u``, ``A u`` pushed; A is the
    second operand when ``vector_first``) is done from A's own rows instead: A's transpose is
    not held and A is not symmetric (found here first where the backend's
    ``matvec.symmetry_before_columns`` says so), A has at least :data:`BY_COLUMNS_MIN_ENTRIES` entries,
    the backend combines terms by output column for this semiring (``spmv_columns``), and
    :func:`_prefers_pattern` does not hold.  The transpose, which a loop of products would keep
    (as large as A), is then never built."""
    if A._T is not None or not A._be.pulls_by_columns(typed) or A.nvals < BY_COLUMNS_MIN_ENTRIES:
        return False
    if A._be.matvec.symmetry_before_columns and (A.is_symmetric or A._T is not None):
        return False  # a symmetric A pulls through itself (see MatVecCapabilities)
    return not _prefers_pattern(A, typed, vector_first)


_SELECTIVE = frozenset(("min", "max", "lor", "land"))


def _prefers_pattern(A: Matrix, typed: TypedSemiring, vector_first: bool) -> bool:
    """Whether a product through A' goes through A' without values (:func:`_pattern_transposed`)
    rather than from A's own rows: the backend makes such a transpose (the GPU), the product
    never reads A's values, and its monoid is not selective.  Pushed into columns, every term
    of a plus is an atomic write, while a min or max writes only the terms that improve a
    column: on an H100, directed kron 22 PageRank (``plus_second``) took 0.61 ms an iteration
    through a held transpose and about 2 ms from A's own rows, while SSSP and connected
    components (min) ran as fast or faster from A's own rows."""
    return (typed.monoid.name not in _SELECTIVE and _pull_types(typed, vector_first)[1] is None
            and pattern_transposable(A))


class _ColumnMatVec(Expression):
    """``u' A`` (or ``A' u`` with ``matrix_first``) from A's own rows, A' not built (see
    :func:`_by_columns`): a push of u's entries along their rows when u is sparse, else the
    backend's ``spmv_columns`` over every entry."""

    def __init__(self, name: str, A: Matrix, u: Vector, typed: TypedSemiring, method: str,
                 matrix_first: bool) -> None:
        super().__init__(f"{name}({typed.name})", "Vector", (A._ncols,), typed.out_type, A._be, "matvec_columns",
                         (A, u), (typed, method, matrix_first))
        self._A, self._u, self._typed = A, u, typed
        self._method, self._matrix_first = method, matrix_first


def _column_matvec(expr: _ColumnMatVec, mask: Mask | None) -> Vector:
    """A :class:`_ColumnMatVec`'s result, a new Vector (``mask`` is a hint: columns outside it
    may be skipped)."""
    A, u, sr, method = expr._A, expr._u, expr._typed, expr._method
    count = u._count
    if A.nvals == 0 or (count.__class__ is int and count == 0):
        return Vector(sr.out_type, A._ncols, backend=A._be.name)
    vertex_share, edge_share = _push_limits(sr, A._be)
    if method == "push" or (method == "auto" and u.nvals < vertex_share * u._size
                            and _push_pays(A, u, edge_share)):
        return _push(sr, A, u, not expr._matrix_first, A._ncols, mask)
    return _pull_columns(sr, A, u, expr._matrix_first, mask)


def _pull_columns(sr: TypedSemiring, A: Matrix, u: Vector, matrix_first: bool, mask: Mask | None) -> Vector:
    """The product of :class:`_ColumnMatVec` over every entry of A: rows of A index u, columns
    are output positions."""
    be = A._be
    x_type, _ = _pull_types(sr, not matrix_first)
    if x_type is not None:
        x, present = u._dense(x_type)
    else:  # the product ignores the vector's values: no cast
        present = None if u._full else u._bitmap()[0]
        x = u._bitmap()[1]
    flags = _structural_flags(mask)
    if flags is not None:
        cols: RowMask | None = RowMask(*flags)
    else:
        cols = RowMask(mask.dense_rows(be, A.ncols)) if mask is not None else None
    out, has = be.spmv_columns(sr, _stored_operand(A), VectorOperand(x, present), cols, matrix_first)
    return _inside(Vector._from_bitmap(be, sr.out_type, A.ncols, has, out), mask)


class _MatVec(Expression):
    """``A u`` (mxv) or ``u' A`` (vxm, ``vector_first``) over a typed semiring: a pull over
    the rows of output positions or a push from u's entries, chosen when it runs.

    With ``columns`` (vxm where :func:`_by_columns` holds) the pull is the backend's
    ``spmv_columns`` over A's own rows (:func:`_pull_columns`), so A' is never built; the pull's
    one-pass forms (into, replacing, claiming) then do not apply.

    A record of its own (the ``"matvec"`` expressions, run by :func:`_matvec`,
    :func:`_matvec_write` and :func:`_matvec_reported`) with its planner (:meth:`_schedule`)
    and the planner's last choice: a loop of products makes one per statement, and for a
    small product the statement's host time is most of its time.
    """

    def __init__(self, name: str, A: Matrix, u: Vector, typed: TypedSemiring, method: str, vector_first: bool,
                 out_size: int, columns: bool = False) -> None:
        # The fields repeat its params for the planner and its evaluator (attribute reads, no
        # tuple unpacking: several per statement), and for the frontier loops (grblas_gpu.loops).
        super().__init__(f"{name}({typed.name})", "Vector", (out_size,), typed.out_type, A._be, "matvec", (A, u),
                         (typed, method, vector_first, out_size, columns))
        self._A, self._u, self._typed = A, u, typed
        self._method, self._vector_first, self._out_size = method, vector_first, out_size
        self._columns = columns
        self._decided: tuple[tuple[int, int], tuple[bool, Matrix]] | None = None
        self._u_count = u._count if u._count.__class__ is int else None  # (a count still on the device is not read)

    def _pulled(self) -> Matrix:
        # The pull's rows are output positions: A's for mxv, A^T's (cached) for vxm, or A'
        # without values (see _pattern_transposed) for a product that never reads them; A's
        # own rows for a pull by columns (never by rows: the one-pass pulls check _columns).
        if not self._vector_first or self._columns:
            return self._A
        return _transpose_for(self._A, self._typed, vector_first=True)

    def _direction(self) -> tuple[bool, Matrix]:
        """(push?, the matrix it walks).  Push walks the rows of the matrix indexed by u: A's
        for vxm, A^T's for mxv; the (cached) transpose is built only when push is possible at
        all, and the pull's (A^T for vxm) only once pull is chosen.  Asked twice for one u (a
        write that could not use the push, then the product), it decides once: deciding may
        read the device.  (A stale answer would only cost speed.)"""
        A, u, method = self._A, self._u, self._method
        storage = (id(u._sp), id(u._bm))  # (ids: the decision must not keep u's arrays alive)
        if self._decided is not None and self._decided[0] == storage:
            return self._decided[1]
        vertex_share, edge_share = _push_limits(self._typed, A._be)
        choice: tuple[bool, Matrix] | None = None
        wants_push = method == "push" or (method == "auto" and u.nvals < vertex_share * u._size)
        # (A u from A's own rows, where A' is not held and the backend would push from A's rows:
        # a push would build A'; see _by_columns.)
        if wants_push and (self._vector_first or method == "push" or not _by_columns(A, self._typed, False)):
            rows_of_u = A if self._vector_first else _transpose_for(A, self._typed, vector_first=False)
            if method == "push" or _push_pays(rows_of_u, u, edge_share):
                choice = True, rows_of_u
        if choice is None:  # (the pull's matrix only now: for vxm it is A', built and kept when first asked)
            choice = False, self._pulled()
        self._decided = (storage, choice)
        return choice

    def _schedule(self, out: Output | None) -> tuple[str, Matrix] | None:
        """The planner: how this product runs, as (schedule, the matrix it walks), for a new
        result (``out`` None) or written into ``out`` in its own pass (None where it cannot).

        A new result is ``"push"`` (from u's entries along the rows they index), ``"pull"``
        (every output row over its entries) or ``"pull_columns"`` (from A's own rows, see
        :func:`_by_columns`), by :meth:`_direction`.  Written into ``out``: ``"pull_into"``
        (``C(accum) << product``, :func:`_joins_into`), ``"pull_replacing"`` (``C << product``
        of a full u, :func:`_replaces`); reporting its changes into ``out.changed``:
        ``"push_relax"`` (:func:`_relaxes`), and under ``~C.S`` ``"pull_claim"``,
        ``"push_claim"`` or ``"push_claim_listed"`` (:func:`_claims`).  What the backend can
        do comes from its capability table (``matvec``: push sizes and frontier shares) and
        its per-semiring answers (``relaxes``, ``pull_claims``, ``pulls_by_columns``,
        ``pushes_atomically``)."""
        typed, u = self._typed, self._u
        if out is None:
            push, M = self._direction()
            return ("push" if push else "pull_columns" if self._columns else "pull"), M
        C, D, mask, accum = out.target, out.changed, out.mask, out.accum
        # (The operands are tested first: choosing the direction may read the device.)
        if D is None:
            if mask is not None:
                return None
            if accum is not None:
                if not _joins_into(typed, u, C, accum):
                    return None
                push, M = self._direction()
                return None if push or self._columns else ("pull_into", M)
            if self._method == "push" or self._columns or not _replaces(typed, u, C):  # (a full u is pulled)
                return None
            return "pull_replacing", self._pulled()
        if mask is None:
            if not _relaxes(typed, u, C, accum, D):
                return None
            push, M = self._direction()
            return ("push_relax", M) if push and _in_place_positions(M) else None
        if fills_gaps(C, mask, accum, out.replace) and isinstance(C, Vector) and C._bm is None:
            C._set_bitmap(*C._bitmap(), C._count)  # C's gaps are written in place: C as a bitmap of its own
        if not _claims(typed, u, C, mask, accum, out.replace, D):
            return None
        push, M = self._direction()
        if not push:
            return None if self._columns else ("pull_claim", M)
        if not C._be.relaxes(typed, claim=True) or not _in_place_positions(M):
            return None
        return ("push_claim" if _pushes_into(typed, u, C, D) else "push_claim_listed"), M


def _matvec(expr: _MatVec, mask: Mask | None) -> Vector:
    """A :class:`_MatVec`'s result, a new Vector (``mask`` is a hint: rows outside it may be
    skipped), by the schedule the planner names."""
    count = expr._u._count  # (an int, or a count still on the device: not read here)
    if expr._A.nvals == 0 or (count.__class__ is int and count == 0):  # no terms: bounded by entries
        return Vector(expr._typed.out_type, expr._out_size, backend=expr._A._be.name)
    schedule, M = expr._schedule(None)  # type: ignore[misc]  # (always one for a new result)
    if schedule == "push":
        return _push(expr._typed, M, expr._u, expr._vector_first, expr._out_size, mask)
    if schedule == "pull_columns":
        return _pull_columns(expr._typed, M, expr._u, False, mask)
    return _pull(expr._typed, M, expr._u, expr._vector_first, mask)


def _matvec_write(expr: _MatVec, out: Output) -> bool:
    """``out << expr`` in one pass, where the planner (:meth:`_MatVec._schedule`) finds a
    schedule for it and the backend's kernel takes it."""
    plan = expr._schedule(out)
    if plan is None:
        return False
    schedule, M = plan
    typed, u, vector_first, C, D = expr._typed, expr._u, expr._vector_first, out.target, out.changed
    if schedule == "pull_into":
        return _pull_into(typed, M, u, vector_first, C)
    if schedule == "pull_replacing":
        _pull_replacing(typed, M, u, vector_first, C)
        return True
    if schedule == "pull_claim":
        return _pull_claiming(typed, M, u, vector_first, C, D)
    if schedule == "push_claim_listed":
        return _push_claiming_listed(typed, M, u, vector_first, C, D)
    return _push_relax(typed, M, u, vector_first, C, D, schedule == "push_claim")


def _matvec_reported(expr: _MatVec, changed: Any) -> None:
    """The entries a write of the product changed are most often the next product's vector
    (a loop of levels): their rows' weight is queued now for its direction choice."""
    A = expr._A
    rows = A if expr._vector_first else A._T
    if expr._method == "auto" and expr._u_count is not None and rows is not None and isinstance(changed, Vector):
        _queue_weight(rows, changed, expr._u_count, _push_limits(expr._typed, A._be)[1])


def _push_limits(sr: TypedSemiring, be: Any) -> tuple[float, float]:
    """(vertex share, entry share) below which a frontier is pushed rather than pulled."""
    if sr.monoid.stops_early or not be.pushes_atomically(sr):
        return be.matvec.sorted_push_shares
    return be.matvec.atomic_push_shares


def _push_pays(M: Matrix, u: Vector, edge_share: float) -> bool:
    """Direction optimisation, for a frontier already sparse in vertices: push unless its
    rows hold ``edge_share`` or more of the matrix's entries (not counted when even the
    longest rows could not make it so)."""
    budget = edge_share * M.nvals
    if u.nvals == 0 or M.nvals < 1 << 16 or M._most_entries(u.nvals) < budget:
        return True
    if u._sp is None:  # a bitmap: weigh the row lengths by presence, no list of entries made
        weight = u._weight  # queued by the product that made u, when it weighed them by M's rows
        if weight is not None and weight[0]() is M:
            return int(weight[1]) < budget
        return M._be.sum_selected(M._row_lengths(), flags=u._bitmap()[0]) < budget
    return M._be.sum_selected(M._row_lengths(), rows=u._idx) < budget


def _queue_weight(M: Matrix, D: Vector, u_count: int, edge_share: float) -> None:
    """Queue on the device the lengths of M's rows that D's entries index, summed, kept on D for
    :func:`_push_pays`: D (a bitmap) was just made by a product of a vector of ``u_count``
    entries whose push walks M's rows, and a product of D by M is likely next.  D's count is
    queued before it: the loop's read of the count does not wait for the sum, which runs
    while the host goes on and is read, with no round trip of its own, only by a choice that
    needs it (kron scale 22 BFS: three of its five levels weighed their frontier, each a
    launch and a wait before the product; two sums, 42 us, came after the levels pulled).  Not
    queued where that choice could not need it: M small, or even D's most entries (each from
    an entry of the rows u's entries index) too few to weigh ``edge_share`` of M's."""
    if D._bm is None or D._sp is not None or M.nvals < 1 << 16:
        return
    reach = min(M.nrows, M._most_entries(u_count))
    if M._most_entries(reach) < edge_share * M.nvals:
        return
    # The count first (its read then does not wait for the weight); a weak reference to M
    # (not keeping M alive).
    D._store.queue_weight(M._be, weakref.ref(M), M._row_lengths())


def _pull_operands(sr: TypedSemiring, M: Matrix, u: Vector, vector_first: bool) -> tuple[CsrOperand, VectorOperand]:
    """(the matrix, the vector) as the pull kernel reads them."""
    x_type = _pull_types(sr, vector_first)[0]
    if x_type is not None:
        x, present = u._dense(x_type)
    else:  # the product ignores the vector's values: no cast
        present = None if u._full else u._bitmap()[0]
        x = u._bitmap()[1]
    # The values as stored: the kernels cast each one they read to the product's type, so no
    # cast copy of them is made or kept with M.
    return _stored_operand(M), VectorOperand(x, present)


def _stored_operand(M: Matrix) -> CsrOperand:
    """M's CSR with its values as stored (the record kept with M's derived forms; the kernels
    cast the values they read themselves, a value at a time on the GPU, a block of rows at a
    time on the CPU)."""
    return M._memo(("pull operand", None), lambda: CsrOperand(M._indptr, M._indices, M._vals, M.nrows, M.ncols))


@functools.lru_cache(maxsize=1024)
def _pull_types(sr: TypedSemiring, vector_first: bool) -> tuple[DataType | None, DataType | None]:
    """(the type the pull reads the vector's values in, the matrix's), None for an operand the
    product ignores: asked once per semiring and order (each statement would ask twice)."""
    mult = sr.mult
    x_type = (mult.x_type if vector_first else mult.y_type) if mult.reads("x" if vector_first else "y") else None
    a_type = (mult.y_type if vector_first else mult.x_type) if mult.reads("y" if vector_first else "x") else None
    return x_type, a_type


def _pull(sr: TypedSemiring, M: Matrix, u: Vector, vector_first: bool, mask: Mask | None) -> Vector:
    """Rows of ``M`` are output positions; its columns index ``u``."""
    be = M._be
    if u._full and _counts_entries(sr):
        return _row_counts(sr, M)
    a, x = _pull_operands(sr, M, u, vector_first)
    # A structural bitmap mask goes to the kernel as it is, with its complement flag (no pass).
    flags = _structural_flags(mask)
    if flags is not None:
        rows: RowMask | None = RowMask(*flags)
    else:
        rows = RowMask(mask.dense_rows(be, M.nrows)) if mask is not None else None
    # With every x[k] present and every row computed, a row has a result iff it has an entry:
    # the matrix knows which (and how many), so the kernel need not write the presence.
    every_row = x.present is None and rows is None
    out, has = be.spmv(sr, a, x, vector_first, M._spmv_plan(), rows, _VALUES_ONLY if every_row else SPMV_RESULT)
    also_held: tuple[Any, ...] = ()
    if has is None:
        has = M._nonempty_flags()
        also_held = (has,)  # (M's cached flags)
    count = M._nonempty_rows() if every_row else None
    return _inside(Vector._from_bitmap(be, sr.out_type, M.nrows, has, out, count, also_held), mask)


def _joins_into(sr: TypedSemiring, u: Vector, C: Any, accum: Any) -> bool:
    """Whether ``C(accum) << product`` (no mask) can be done in the pull's own pass: ``accum``
    is the semiring's addition (each row's reduction then starts from C's entry), and C is a
    Vector of the result's type, not the multiplied vector, that alone holds its bitmap (it
    is written in place; a full one, its values: its presence stays all true, unwritten).
    Not for row counts of a full vector (``plus_pair``), which need no product at all."""
    return (_takes_product(sr, u, C) and typed_binary(accum, sr.out_type) is sr.monoid.op
            and not (u._full and _counts_entries(sr)) and C._owns_bitmap(values_only=C._full))


def _pushes_into(sr: TypedSemiring, u: Vector, C: Any, D: Any) -> bool:
    """What both one-kernel reporting pushes need: C is a Vector of the result's type, not the
    multiplied vector; D is of that type too; u is a bitmap (a listed frontier is pushed by
    its list, which shares long rows among warps)."""
    return _takes_product(sr, u, C) and u._sp is None and D.dtype == sr.out_type


def _relaxes(sr: TypedSemiring, u: Vector, C: Any, accum: Any, D: Any) -> bool:
    """Whether ``C(accum, changed=D) << product`` (no mask) can be one push that combines its
    terms into C: ``accum`` is the semiring's addition, a monoid the backend relaxes with
    (min, max); C is full and alone holds its values (written in place); and
    :func:`_pushes_into` holds."""
    return (accum is not None and _pushes_into(sr, u, C, D) and C._full and C._be.relaxes(sr)
            and typed_binary(accum, sr.out_type) is sr.monoid.op and C._owns_bitmap(values_only=True))


def _claims(sr: TypedSemiring, u: Vector, C: Any, mask: Mask, accum: Any, replace: bool, D: Any) -> bool:
    """Whether ``C(~C.S, changed=D) << product`` (no accumulator, no replace) can be written
    by the product's own kernel where C has no entry yet: C is a Vector of the result's type,
    not u, that alone holds its bitmap (written in place), and D is of that type too.  A push
    then also needs :func:`_pushes_into` and an ANY monoid (the first term to reach a position
    stays); a pull computes each row whole, so any monoid."""
    return (fills_gaps(C, mask, accum, replace) and _takes_product(sr, u, C) and D.dtype == sr.out_type
            and C._owns_bitmap())


def _in_place_positions(M: Matrix) -> bool:
    """True where the pushes written into their output in place take M (the backend's
    position limit: CUDA's are 32-bit)."""
    return M._be.matvec.push_takes(M.nrows, M.ncols)


def _push_relax(sr: TypedSemiring, M: Matrix, u: Vector, vector_first: bool, C: Any, D: Any, claim: bool) -> bool:
    """The push with its terms written into ``C`` in place, combined (where :func:`_relaxes`
    holds) or where C has no entry (``claim``, where :func:`_claims` holds), and the entries
    it changed as ``D``'s new content.  Where u is D and alone holds its arrays, the kernel
    leaves them clean for a later push's report.  False, with nothing done, for matrices
    beyond the backend's push positions."""
    if not _in_place_positions(M):  # (the planner asks first; the function keeps its contract)
        return False
    consume = u is D and D._owns_bitmap()  # (asked before this function holds D's arrays)
    bits, vals = u._bitmap()
    c_bits, c_vals = C._bm
    d_bits, d_vals, count = M._be.push_relax(sr, _stored_operand(M), VectorOperand(vals, bits),
                                             PushOutput(c_vals, c_bits if claim else None), vector_first, consume,
                                             M._memo("launches", dict))
    # The same arrays, written in place (this drops any other form C held).
    C._set_bitmap(c_bits, c_vals, None if claim else C.size)
    D._set_bitmap(d_bits, d_vals, count)
    return True


def _push_claiming_listed(sr: TypedSemiring, M: Matrix, u: Vector, vector_first: bool, C: Any, D: Any) -> bool:
    """The push of a listed ``u`` written into ``C`` where C has no entry, the first term to
    reach a position claiming it (where :func:`_claims` holds and the monoid is ANY), and the
    entries it added as ``D``'s new content: a BFS source that is a hub, whose row the
    bitmap push would leave to one warp.  False, with nothing done, where the backend has no
    such push or M is beyond its push positions."""
    if not _in_place_positions(M) or u._sp is None:
        return False
    c_bits, c_vals = C._bm
    pushed = M._be.push_claim_listed(sr, _stored_operand(M), ListedVector(u._idx, u._vals),
                                     PushOutput(c_vals, c_bits), vector_first)
    if pushed is None:
        return False
    C._set_bitmap(c_bits, c_vals, None)
    D._set_bitmap(pushed[0], pushed[1], pushed[2])
    return True


def _pull_claiming(sr: TypedSemiring, M: Matrix, u: Vector, vector_first: bool, C: Any, D: Any) -> bool:
    """The pull under ``~C.S`` with each row's result written into ``C`` as it is computed (where
    :func:`_claims` holds), and the entries it added as ``D``'s new content: no join pass
    follows.  False, with nothing done, where the backend's schedule cannot (the merge path, or
    rows binned by length, whose scattered writes into C cost more than the join)."""
    plan = M._spmv_plan()
    if not M._be.pull_claims(sr, plan):  # (asked first: the operands cost host time)
        return False
    a, x = _pull_operands(sr, M, u, vector_first)
    c_bits, c_vals = C._bm
    pulled = M._be.spmv(sr, a, x, vector_first, plan, RowMask(c_bits, True), SpmvOutput(claim=c_vals))
    if pulled is None:
        return False
    C._set_bitmap(c_bits, c_vals, C.size if C._full else None)
    D._set_bitmap(pulled[1], pulled[0], None)
    return True


def _pull_into(sr: TypedSemiring, M: Matrix, u: Vector, vector_first: bool, C: Any) -> bool:
    """The pull with its result added into ``C``'s bitmap in the same pass (where
    :func:`_joins_into` holds): no product is stored and no second pass joins it to C.
    False, with nothing done, where the backend's kernel cannot."""
    a, x = _pull_operands(sr, M, u, vector_first)
    bits, vals = C._bm
    done = M._be.spmv(sr, a, x, vector_first, M._spmv_plan(), None, SpmvOutput(into=(bits, vals)))
    if done is None:
        return False
    C._set_bitmap(bits, vals, C.size if C._full else None)
    return True


def _replaces(sr: TypedSemiring, u: Vector, C: Any) -> bool:
    """Whether ``C << product`` (no mask, no accumulator) can be written by the pull straight
    into C: u is full (which makes it a pull, with a result in every nonempty row, and no
    presence to compute), C is a Vector of the result's type, not u itself, and the product is
    not one of row counts (which needs none)."""
    return u._full and _takes_product(sr, u, C) and not _counts_entries(sr)


def _takes_product(sr: TypedSemiring, u: Vector, C: Any) -> bool:
    """Whether the pull may write its result into ``C``'s own storage: C is a Vector of the
    result's type and not the multiplied vector (which the pull reads as it writes)."""
    return C.kind == "Vector" and C is not u and C._dtype == sr.out_type


def _pull_replacing(sr: TypedSemiring, M: Matrix, u: Vector, vector_first: bool, C: Any) -> None:
    """The pull of a full ``u`` (where :func:`_replaces` holds) as C's new content: the
    values are written into C's own values array where C alone holds it (no allocation);
    the presence is the matrix's nonempty rows."""
    a, x = _pull_operands(sr, M, u, vector_first)  # (u full: x.present is None)
    own = C._bm[1] if C._owns_bitmap(values_only=True) else None
    out, has = M._be.spmv(sr, a, x, vector_first, M._spmv_plan(), None,
                          _VALUES_ONLY if own is None else SpmvOutput(presence=False, out=own))
    bits = M._nonempty_flags() if has is None else has
    C._set_bitmap(bits, out, M._nonempty_rows(), also_held=(bits,) if has is None else ())  # (M's cached flags)


def _inside(result: Vector, mask: Mask | None) -> Vector:
    """``result``, marked as having no entry where ``mask`` (when given) forbids one: the
    write then need not apply that mask again (see ``_bitmap.write_vector``)."""
    result._store.mark_inside(mask)
    return result


def _structural_flags(mask: Mask | None) -> tuple[Any, bool] | None:
    """(presence array, complement) of a structural mask whose parent is a bitmap: what a
    push kernel tests to skip forbidden outputs.  None for other masks, which would need a
    pass over the mask first (the write applies those)."""
    if mask is None or not mask.structure or not mask.parent._is_bitmap:
        return None
    return mask.parent._bitmap()[0], mask.complement


def _counts_entries(sr: TypedSemiring) -> bool:
    """Whether every term of ``sr`` is 1 and they are added: against a full vector, a row's
    result is then its number of stored entries (``plus_pair``, the out-degrees of a graph)."""
    return sr.monoid.name == "plus" and sr.mult.name in ("pair", "oneb")


def _row_counts(sr: TypedSemiring, M: Matrix) -> Vector:
    """Each nonempty row's count of entries, from the matrix's row lengths (no product runs)."""
    # The cached arrays may be shared as they are: a shared array is never written in place.
    lengths, flags = M._row_lengths(), M._nonempty_flags()
    counts = M._be.cast(lengths, sr.out_type)
    also_held = (flags, counts) if counts is lengths else (flags,)
    return Vector._from_bitmap(M._be, sr.out_type, M.nrows, flags, counts, M._nonempty_rows(), also_held)


def _push(sr: TypedSemiring, M: Matrix, u: Vector, vector_first: bool, out_size: int,
          mask: Mask | None = None) -> Vector:
    """Rows of ``M`` are indexed by ``u``; its columns are output positions.

    Where the backend combines atomically (CUDA, most monoids) one kernel writes a dense
    result, skipping the positions a structural ``mask`` forbids; otherwise the terms are
    expanded, sorted by output position and reduced (and the write applies the mask).
    """
    be = M._be
    xp = be.xp
    if be.matvec.push_takes(M.nrows, out_size):
        flags = _structural_flags(mask)
        allowed = RowMask(*flags) if flags is not None else None
        launches = M._memo("launches", dict)
        frontier: VectorOperand | ListedVector
        if u._sp is None:  # a bitmap frontier is pushed as it is, without listing its entries
            bits, vals = u._bitmap()
            frontier = VectorOperand(vals, bits)
        else:
            frontier = ListedVector(u._idx, u._vals, M._longest_row())
        pushed = be.spmspv(sr, _stored_operand(M), frontier, out_size, vector_first, allowed, launches)
        if pushed is not None:
            result = Vector._from_bitmap(be, sr.out_type, out_size, pushed[1], pushed[0], pushed[2])
            return _inside(result, mask) if flags is not None else result
    request, position = sp.expand_ranges(xp, *M._row_ranges(u._idx))
    k = u._idx[request]
    out_idx = M._indices[position].astype(np.int64)
    uvals, avals = u._vals[request], M._vals[position]
    if vector_first:
        pos = Positions(0, k, k, out_idx) if sr.mult.positional else None
        prod = sp.apply_binary(be, sr.mult, uvals, avals, pos)
    else:
        pos = Positions(out_idx, k, k, 0) if sr.mult.positional else None
        prod = sp.apply_binary(be, sr.mult, avals, uvals, pos)
    e = sp.reduce_by_key(be, sr.monoid, out_idx, be.cast(prod, sr.out_type))
    return Vector._from_parts(be, sr.out_type, out_size, e.keys, e.values)


def mxm_expr(A: Any, B: Any, op: Any) -> Expression:
    """``A B`` as an expression (planned by :mod:`.mxm`)."""
    return planned_mxm(A, B, op)


def inner_expr(u: Any, v: Any, op: Any) -> Expression:
    """``u' v`` over a semiring, as a Scalar expression."""
    u, v = _as_vector(u, "inner"), _as_vector(v, "inner")
    if u.size != v.size:
        raise DimensionMismatch(f"inner: sizes {u.size} and {v.size} differ")
    check_same_backend(u, v)
    typed = typed_semiring(op, unify(u.dtype, v.dtype))
    return Expression(f"inner({typed.name})", "Scalar", (), typed.out_type, u._be, "inner", (u, v), (typed,))


def _inner(expr: Expression, mask: Mask | None) -> Scalar:
    """An ``inner`` expression's result: ``u' v`` over its semiring."""
    (u, v), (typed,) = expr.args, expr.params
    be = u._be
    s = Scalar(typed.out_type, backend=be.name)
    if u._full and v._full and u.size and not typed.mult.positional:  # no keys to match
        s._hold(be.dot(typed, u._bitmap()[1], v._bitmap()[1]))  # read back when asked for
        return s
    ia, ib, keys = sp.intersect(be, u._entries(None), v._entries(None))
    if not len(keys):
        return s
    pos = Positions(0, keys, keys, 0) if typed.mult.positional else None
    prod = sp.apply_binary(be, typed.mult, u._vals[ia], v._vals[ib], pos)
    s._hold(be.reduce_all(typed.monoid, be.cast(prod, typed.out_type)))  # read back when asked for
    return s


bind_evaluator("inner", _inner)
bind_evaluator("matvec", _matvec, _matvec_write, _matvec_reported)
bind_evaluator("matvec_columns", _column_matvec)
bind_operations(mxm_expr=mxm_expr, mxv_expr=mxv_expr, vxm_expr=vxm_expr, transposed_mxv_expr=transposed_mxv_expr,
                inner_expr=inner_expr)
