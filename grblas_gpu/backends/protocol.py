"""The contract between the algebra and a backend: :class:`BackendProtocol` lists every method
the operations call on a backend, with the types they pass and expect back.

A backend holds arrays of one array module (``xp``: NumPy, CuPy, or another with NumPy's
interface) and runs the hot kernels on them.  A third backend (another device, a distributed
one) is written from this module alone: implement every method below, subclass
:class:`grblas_gpu.backends.Backend` for the defaults of the optional ones (those that say
"where the backend ..."), and add it to the type check at the end of this file.

Conventions every method follows:

- Arrays are the backend's own (``Array`` below: any array of ``xp``); vectors come as
  sorted int64 indices with values ("sparse"), or as a bitmap: a bool presence array and a
  dense values array of the same length, whose values at absent positions are arbitrary and
  never read.
- Operators come typed (:class:`~grblas_gpu.operators.base.TypedBinaryOp`, ``TypedMonoid``,
  ``TypedSemiring``...): their input and output types are fixed, and the operands are already
  of those types unless the method says it casts.
- A method writes in place only into arrays the caller says it owns (``into``, ``out``, ``z``,
  ``d``, ``c``, ``set_where``'s): the caller asks the Vector's store first (see
  :class:`grblas_gpu.storage.VectorStore`); every other array is only read.
- Matrix operands of the products are CSR (row pointers, column indices, values); the
  matrix-matrix kernels, the pulls (``spmv``, ``spmv_columns``) and the pushes (``spmspv``,
  ``push_relax``, ``push_claim_listed``) take the records of :mod:`.operands`.
- Running out of memory raises :class:`~grblas_gpu.exceptions.OutOfMemory` before any output
  is written.

Optional capabilities are asked before they are used: ``pushes_atomically``, ``relaxes``,
``pull_claims``, ``adds_in_one_pass``; a backend that answers False is never called for
them (``push_relax``, ``push_claim_listed`` may then raise NotImplementedException).  What
does not depend on the semiring is the table ``matvec``
(:class:`~grblas_gpu.backends.base.MatVecCapabilities`): the sizes the pushes take and the
frontier shares below which the planner pushes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..dtypes import DataType
from ..operators.base import Positions, TypedBinaryOp, TypedIndexUnaryOp, TypedMonoid, TypedSemiring, TypedUnaryOp
from .base import MatVecCapabilities
from .operands import (
    SPMV_RESULT,
    CsrOperand,
    CsrProduct,
    ListedVector,
    MaskOperand,
    PushOutput,
    RowMask,
    SpmvOutput,
    VectorOperand,
)

if TYPE_CHECKING:
    from .cupy.backend import CupyBackend
    from .numpy_backend import NumpyBackend

__all__ = ["Array", "BackendProtocol"]

Array = Any
"""An array of the backend's module (``numpy.ndarray``, ``cupy.ndarray``, ...)."""


class BackendProtocol(Protocol):
    """Every method and attribute the operations use of a backend (see the module notes)."""

    name: str
    """The backend's name, as ``backend=`` takes it."""

    @property
    def xp(self) -> Any:
        """The array module: ``numpy``, ``cupy``."""
        ...

    @property
    def matvec(self) -> MatVecCapabilities:
        """What the matrix-vector kernels can do, which the planner reads (see
        :class:`~grblas_gpu.backends.base.MatVecCapabilities`)."""
        ...

    def adds_in_one_pass(self, op: Any) -> bool:
        """True when ``ewise_add`` takes ``op``: not positional, inputs and output of one type."""
        ...

    def asarray(self, x: Any, dtype: Any = None) -> Array:
        """``x`` (a list, a scalar, another module's array) as an array of this backend, of
        ``dtype`` where given (copied from another device where needed)."""
        ...

    def binary(self, op: TypedBinaryOp, x: Any, y: Any, pos: Positions | None = None) -> Array:
        """``op(x, y)`` per element; either side may be a scalar (a bound operand)."""
        ...

    def bitmap_of(self, idx: Array, vals: Array, size: int) -> tuple[Array, Array]:
        """(presence, dense values) of ``size`` positions holding the entries ``idx``, ``vals``
        (values elsewhere are arbitrary: never read)."""
        ...

    def cast(self, x: Any, t: DataType) -> Any:
        """Cast C-style to ``t``."""
        ...

    def copy(self, x: Array) -> Array:
        """A copy of ``x``."""
        ...

    def count_ahead(self, count: Any, flags: Any) -> Any:
        """A vector's count ``count`` (an int, a count still on the device, or None: unknown; its
        presence ``flags``) made to be read without waiting for work queued after this call; as
        given where the backend queues no work."""
        ...

    def count_true(self, flags: Array) -> int:
        """The number of true values in a bool array."""
        ...

    def occurrences(self, idx: Array, n: int) -> Array:
        """How many times each of ``0..n-1`` occurs in the integer array ``idx`` (int64; every
        index below ``n``), in memory bounded by the counts (no scratch per bin and block)."""
        ...

    def dot(self, semiring: TypedSemiring, x: Array, y: Array) -> Array:
        """The inner product of two full vectors' values (at least one; the multiplier not
        positional) over the semiring, as a 1-element array."""
        ...

    def ewise_add(self, op: TypedBinaryOp, x_bits: Array, x: Array, y_bits: Array, y: Array) -> tuple[Array, Array]:
        """eWiseAdd of two bitmaps: ``op`` where both hold an entry, the lone value where one does.
        Returns (values, presence); ``op`` as :meth:`Backend.adds_in_one_pass` says."""
        ...

    def ewise_add_changes(self, op: TypedBinaryOp, x_bits: Array, x: Array, y_bits: Array, y: Array,
        z: tuple[Array, Array] | None = None, d: tuple[Array, Array] | None = None) -> tuple[Any, ...]:
        """:meth:`ewise_add` of y into x, reporting what it changes.  The result goes to ``z``
        (presence, values: x's own arrays, written in place, or None for new arrays), and the
        entries it makes new or different from x's (a NaN matching a NaN) to ``d`` (presence, values
        of op's type; None for new arrays).  Returns (z_bits, z, d_bits, d, the number of entries in
        d)."""
        ...

    def ewise_add_into(self, op: TypedBinaryOp, x_bits: Array, x: Array, y_bits: Array, y: Array) -> None:
        """:meth:`ewise_add` written into ``x_bits`` and ``x`` (arrays of ``op``'s type that the
        caller owns; presence already true is not written, so ``x_bits`` may be shared where it is
        all true)."""
        ...

    def ewise_union(self, op: TypedBinaryOp, x_bits: Array, x: Array, y_bits: Array, y: Array, x_default: Any,
        y_default: Any, out: tuple[Array, Array] | None = None) -> tuple[Array, Array]:
        """eWiseUnion of two bitmaps: ``op`` where both hold an entry, ``op`` with the other side's
        default where one does.  Returns (values, presence), copied into ``out`` (values, presence)
        where given."""
        ...

    def full(self, size: int, value: Any, t: DataType) -> Array:
        """An array of ``size`` elements of type ``t``, each ``value``."""
        ...

    def indexunary(self, op: TypedIndexUnaryOp, x: Array, i: Any, j: Any, thunk: Any) -> Array:
        """``op(x, i, j, thunk)`` per element; ``i``/``j`` are int64 arrays or ints."""
        ...

    def mask_allowed(self, bits: Array, values: Array | None, complement: bool, within: Array | None = None) -> Array:
        """The positions a mask allows: ``bits`` (and ``values`` as bools, for a value mask; None
        for a structural one), inverted where ``complement``, and-ed with ``within``."""
        ...

    def mask_allowed_counted(self, bits: Any, values: Any, complement: bool, within: Any = None) -> tuple[Any, Any]:
        """``mask_allowed(...)`` and the number of positions it allows, where the backend counts
        them in the same pass (an int, or a count ``int()`` reads later), else None."""
        ...

    def mxm_dot(self, semiring: TypedSemiring, a: CsrOperand, bt: CsrOperand, mask: MaskOperand) -> CsrProduct:
        """``C<M> = A B`` as one dot product per position of the (not complemented) mask;
        ``bt`` holds B's columns as rows (see :mod:`.operands`)."""
        ...

    def mxm_gustavson(self, semiring: TypedSemiring, a: CsrOperand, b: CsrOperand,
        mask: MaskOperand | None = None) -> CsrProduct:
        """``C = A B`` row by row (Gustavson); with a mask, only the positions it allows are
        formed (see :mod:`.operands`)."""
        ...

    @staticmethod
    def owns_block(a: Array) -> bool:
        """Whether ``a`` owns its memory as one writeable C-ordered block (not a view of another
        array, nor a read-only buffer): what the in-place writes take."""
        ...

    def pull_claims(self, semiring: Any, plan: Any) -> bool:
        """Whether ``spmv`` takes ``claim`` (writing the pulled rows into the output's gaps in its
        own pass) with this SpMV plan."""
        ...

    def push_claim_listed(self, semiring: Any, a: CsrOperand, u: ListedVector, out: PushOutput,
                          vector_first: bool) -> Any:
        """A push of a listed frontier ``u`` that claims the empty positions of ``out`` (its
        ``bits`` given) in place (``push_relax``'s claim for listed rows): (presence, values,
        count) of what it added, or None, with nothing done, where the backend has no such push."""
        ...

    def push_relax(self, semiring: TypedSemiring, a: CsrOperand, u: VectorOperand, out: PushOutput,
                   vector_first: bool, consume: bool = False,
                   launches: dict[Any, Any] | None = None) -> tuple[Array, Array, Any]:
        """The push of a bitmap frontier ``u`` (its ``present`` flags and dense ``values``) written
        straight into ``out.values`` (of the monoid's type, in place), in one kernel: its terms
        combined into them (a full output), or with ``out.bits`` (the output's presence) only
        where the output has no entry yet, each such position claimed by the first term to reach
        it. Returns (presence, values, count) of the entries it changed (values: the output's new
        ones; count an int, a count ``int()`` reads later, or None: unknown).  With ``consume``
        (the frontier's arrays are the caller's to spend) the kernel leaves them clean, kept for
        a later call's report, so a loop of such pushes makes no array and runs nothing before
        them.  ``launches``: as for :meth:`spmspv`."""
        ...

    def transpose_csr(self, indptr: Array, indices: Array, values: Array, nrows: int, ncols: int, ptr_type: Any,
                      row_type: Any) -> tuple[Array, Array, Array] | None:
        """(pointers, rows, values) of the transpose of a sorted CSR, its work sized by the
        columns (a counting sort); None where the backend has none for these values (the caller
        sorts instead)."""
        ...

    def pulls_by_columns(self, semiring: Any) -> bool:
        """True when :meth:`spmv_columns` takes ``semiring`` (``u' A`` from A's own rows, no
        transpose)."""
        ...

    def pushes_atomically(self, semiring: Any) -> bool:
        """True when ``spmspv`` combines a push into a dense result for ``semiring`` (else the
        caller expands the terms and sorts them, which only pays for small frontiers)."""
        ...

    def reduce_all(self, monoid: TypedMonoid, values: Array) -> Array:
        """All of ``values`` (at least one) reduced with the monoid, as a 1-element array."""
        ...

    def relaxes(self, semiring: Any, claim: bool = False) -> bool:
        """True when ``push_relax`` takes ``semiring``: a push written into its output in place,
        reporting what it changed (CUDA: min and max monoids, or ANY to ``claim`` positions)."""
        ...

    def segment_reduce(self, monoid: TypedMonoid, values: Array, offsets: Array) -> Array:
        """Reduce ``values[offsets[s]:offsets[s+1]]`` with the monoid for every segment s."""
        ...

    def select_bitmap(self, where: Array, a_bits: Array | None, a_vals: Any, c_bits: Array,
        c_vals: Array) -> tuple[Array, Array]:
        """(presence, values): where ``where``, presence ``a_bits`` (everywhere when None) and
        values ``a_vals`` (an array or one scalar); elsewhere ``c_bits`` and ``c_vals``."""
        ...

    def set_where(self, where: Array, value: Any, bits: Array, vals: Array) -> None:
        """In place: ``bits`` true and ``vals`` ``value`` (of their type) wherever ``where``."""
        ...

    def spmspv(self, semiring: TypedSemiring, a: CsrOperand, u: VectorOperand | ListedVector, size: int,
               vector_first: bool, mask: RowMask | None = None,
               launches: dict[Any, Any] | None = None) -> tuple[Array, Array, Any] | None:
        """The push of a frontier ``u`` along the CSR rows of ``a`` it indexes into a dense result
        of ``size`` positions, combined by the monoid atomically: (values, presence, count or
        None), or None, with nothing done, where the backend has no such push for the semiring
        (see :meth:`pushes_atomically`; the caller then expands and sorts the terms).  ``u`` is a
        bitmap (:class:`~.operands.VectorOperand`: presence and dense values) or listed
        (:class:`~.operands.ListedVector`: int64 rows and their values).  Output positions the
        ``mask`` excludes are skipped.  ``launches``: a dict the matrix keeps, for the backend's
        prepared launches."""
        ...

    def spmv_columns(self, semiring: TypedSemiring, a: CsrOperand, u: VectorOperand, mask: RowMask | None = None,
                     matrix_first: bool = False) -> tuple[Array, Array]:
        """``u' A`` (``A' u`` with ``matrix_first``) from A's own CSR, without its transpose:
        (values, presence) of every column (``u.values`` dense, ``u.present`` its presence or
        None); columns the ``mask`` excludes get no term; only where :meth:`pulls_by_columns`
        says so."""
        ...

    def spmv(self, semiring: TypedSemiring, a: CsrOperand, u: VectorOperand, vector_first: bool, plan: Any = None,
             mask: RowMask | None = None, output: SpmvOutput = SPMV_RESULT) -> tuple[Array, Array] | None:
        """Pull SpMV over CSR rows: ``out[r] = ADD_k MULT(A[r,k], x[k])`` for present ``x[k]``, ``x``
        the values of ``u`` (see :mod:`.operands` for the records).

        ``vector_first`` computes ``MULT(x[k], A[r,k])`` instead (vxm through the transpose).
        Positions are (r, k, k, 0), or (0, k, k, r) when ``vector_first``.  Rows the ``mask``
        excludes are not computed.  Returns (values, presence); presence None where
        ``output.presence`` is False and the backend made none (every row with an entry has a
        result).  ``plan``: :meth:`spmv_plan`'s.  ``output.into`` (presence and values of the
        result's type, owned by the caller, no row mask): the result is added into them by the
        monoid.  ``output.out`` (values the caller owns) may take the result.  ``output.claim``
        (values owned by the caller, the mask's bits their presence, complemented): each
        computed row's result is also written into them, its presence set (``C(~C.S) << A x``);
        the result holds the entries added.  None, with nothing done, where the backend cannot
        do what ``into`` or ``claim`` ask (the caller then takes another path).
        """
        ...

    def spmv_plan(self, indptr: Any, indices: Any = None, ncols: int = 0) -> Any:
        """A schedule for :meth:`spmv` over a CSR matrix's rows (made once, kept by the matrix),
        or None where the backend needs none."""
        ...

    def sum_selected(self, values: Array, flags: Array | None = None, rows: Array | None = None) -> int:
        """The sum of non-negative int64 ``values`` over the positions flagged true in ``flags``, or
        over the positions listed in ``rows``."""
        ...

    def sum_selected_queued(self, values: Any, flags: Any) -> Any:
        """``sum_selected(values, flags)`` queued on the device, its number read later by ``int()``;
        None where the backend queues no such sum (the caller sums when it needs the number)."""
        ...

    def synchronize(self) -> None:
        """Wait for the work queued on the device (nothing where the backend queues none)."""
        ...

    def to_host(self, x: Any) -> Array:
        """``x`` as a NumPy array on the host."""
        ...

    def unary(self, op: TypedUnaryOp, x: Array) -> Array:
        """``op(x)`` per element; ``x`` is of ``op.in_type``."""
        ...


def _conforming(numpy: NumpyBackend, cupy: CupyBackend) -> tuple[BackendProtocol, BackendProtocol]:
    """Never called: mypy checks here that each backend provides the protocol."""
    return numpy, cupy
