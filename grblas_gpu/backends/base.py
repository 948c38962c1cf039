"""The base class of the backends: the defaults of the optional methods (the whole contract,
with its types, is :class:`~grblas_gpu.backends.protocol.BackendProtocol`), and the table of
what a backend's matrix-vector kernels can do, which the planner reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..exceptions import InvalidValue, NotImplementedException

__all__ = ["Backend", "MatVecCapabilities"]


@dataclass(frozen=True)
class MatVecCapabilities:
    """What a backend's matrix-vector kernels can do, published as ``Backend.matvec`` and read
    by the planner of :mod:`grblas_gpu.ops.multiply` (push or pull, and which push).  What
    depends on the semiring is asked of the backend's methods: ``pushes_atomically``,
    ``relaxes``, ``pull_claims``, ``pulls_by_columns``.

    ``push_positions``: the pushes that combine into a dense result or write into their output
    in place (``spmspv``, ``push_relax``, ``push_claim_listed``) take matrices whose rows and
    columns are all below this (2**31: 32-bit positions); None where any size is taken.

    ``atomic_push_shares`` and ``sorted_push_shares``: (vertex share, entry share) of the
    frontier below which it is pushed rather than pulled; both shares count (a few hub
    vertices can carry most entries).  The first applies where the backend combines the
    semiring's terms atomically and its monoid does not stop early; the second elsewhere.  A
    pull that exits a row early (ANY and BOOL monoids) reads few entries per row, so a push
    only pays for small frontiers; a pull over every entry (min, plus, ...) costs about as much
    as an atomic push of a quarter of them (kron scale 22 on the GPU: push ~5 ms x entry share,
    pull ~1.1 ms + 1 ms x share).  A push by expanding and sorting its terms stays at the
    small-frontier limits.

    ``symmetry_before_columns``: a product that would walk A' asks first whether A is symmetric
    (where not known) before combining terms by column from A's own rows (``pulls_by_columns``):
    where the pull through A itself is the faster (the GPU: kron 22 SSSP 7.1 ms pulled against
    7.5-8.2 ms by column).  Finding it builds a transpose once for a symmetric matrix (most
    directed graphs are settled by their row lengths against their column counts); where this
    is False (the CPU) the column path is taken and no transpose is ever built.
    """

    push_positions: int | None = None
    atomic_push_shares: tuple[float, float] = (0.5, 0.25)
    sorted_push_shares: tuple[float, float] = (0.05, 0.05)
    symmetry_before_columns: bool = False

    def push_takes(self, *dimensions: int) -> bool:
        """Whether the pushes take a matrix (and output) of these dimensions."""
        return self.push_positions is None or max(dimensions) < self.push_positions


class Backend:
    """The base of the backends: the defaults of the optional methods.  Every method a
    backend must provide, with its types, is listed by
    :class:`~grblas_gpu.backends.protocol.BackendProtocol` (mypy checks each backend
    against it)."""

    name: str
    xp: Any
    matvec: MatVecCapabilities = MatVecCapabilities()
    """What the matrix-vector kernels can do (the defaults: no size limit)."""

    if TYPE_CHECKING:  # each backend implements these (see NumpyBackend for what they do)
        def asarray(self, x: Any, dtype: Any = None) -> Any: ...
        def to_host(self, x: Any) -> Any: ...
        def cast(self, x: Any, t: Any) -> Any: ...
        def full(self, size: int, value: Any, t: Any) -> Any: ...
        def binary(self, op: Any, x: Any, y: Any, pos: Any = None) -> Any: ...
        def segment_reduce(self, monoid: Any, values: Any, offsets: Any) -> Any: ...
        def mask_allowed(self, bits: Any, values: Any, complement: bool, within: Any = None) -> Any: ...

    def __repr__(self) -> str:
        return f"<backend {self.name}>"

    def sum_selected_queued(self, values: Any, flags: Any) -> Any:
        """``sum_selected(values, flags)`` queued on the device, its number read later by
        ``int()``; None where the backend queues no such sum (the caller sums when it needs
        the number)."""
        return None

    def pull_claims(self, semiring: Any, plan: Any) -> bool:
        """Whether ``spmv`` takes ``claim`` (writing the pulled rows into the output's gaps in
        its own pass) with this SpMV plan."""
        return True

    def count_ahead(self, count: Any, flags: Any) -> Any:
        """A vector's count ``count`` (an int, a count still on the device, or None: unknown;
        its presence ``flags``) made to be read without waiting for work queued after this
        call; as given where the backend queues no work."""
        return count

    def push_claim_listed(self, semiring: Any, a: Any, u: Any, out: Any, vector_first: bool) -> Any:
        """A push of a listed frontier that claims the output's empty positions in place
        (``push_relax``'s claim for listed rows): (presence, values, count) of what it added,
        or None, with nothing done, where the backend has no such push."""
        return None

    def push_relax(self, semiring: Any, a: Any, u: Any, out: Any, vector_first: bool, consume: bool = False,
                   launches: dict[Any, Any] | None = None) -> tuple[Any, Any, Any]:
        """A push written into its output in place, reporting what it changed; called only
        where :meth:`relaxes` says the backend has it."""
        raise NotImplementedException(f"the {self.name} backend has no push_relax")

    def relaxes(self, semiring: Any, claim: bool = False) -> bool:
        """True when ``push_relax`` takes ``semiring``: a push written into its output in place,
        reporting what it changed (CUDA: min and max monoids, or ANY to ``claim`` positions)."""
        return False

    def transpose_csr(self, indptr: Any, indices: Any, values: Any, nrows: int, ncols: int, ptr_type: Any,
                      row_type: Any) -> Any:
        """A counting-sort transpose (see the Protocol); None: the caller sorts."""
        return None

    def pulls_by_columns(self, semiring: Any) -> bool:
        """True when ``spmv_columns`` computes ``u' A`` for ``semiring`` from A's own rows, so that
        a vxm needs no transpose of A (the NumPy backend)."""
        return False

    def spmv_columns(self, semiring: Any, a: Any, u: Any, mask: Any = None, matrix_first: bool = False) -> Any:
        """``u' A`` from A's own rows (see the Protocol); backends whose :meth:`pulls_by_columns`
        says no need not provide it."""
        raise NotImplementedException(f"the {self.name} backend has no spmv_columns")

    def pushes_atomically(self, semiring: Any) -> bool:
        """True when ``spmspv`` combines a push into a dense result for ``semiring`` (else the
        caller expands the terms and sorts them, which only pays for small frontiers)."""
        return False

    def mask_allowed_counted(self, bits: Any, values: Any, complement: bool,
                             within: Any = None) -> tuple[Any, Any]:
        """``mask_allowed(...)`` and the number of positions it allows, where the backend
        counts them in the same pass (an int, or a count ``int()`` reads later), else None."""
        return self.mask_allowed(bits, values, complement, within), None

    def mxm_gustavson(self, semiring: Any, a: Any, b: Any, mask: Any = None) -> Any:
        """``C = A B`` over ``semiring`` row by row (Gustavson), ``a`` and ``b`` as
        :class:`~.operands.CsrOperand`; with a :class:`~.operands.MaskOperand`, only the
        positions it allows are formed.  Returns a :class:`~.operands.CsrProduct`."""
        raise NotImplementedException(f"the {self.name} backend has no mxm_gustavson")

    def mxm_dot(self, semiring: Any, a: Any, bt: Any, mask: Any) -> Any:
        """``C<M> = A B`` over ``semiring`` as one dot product per position of the (not
        complemented) ``mask``; ``bt`` holds B's columns as rows.  Returns a
        :class:`~.operands.CsrProduct` whose entries are among the mask's."""
        raise NotImplementedException(f"the {self.name} backend has no mxm_dot")

    @staticmethod
    def adds_in_one_pass(op: Any) -> bool:
        """True when ``ewise_add`` takes ``op``: not positional, inputs and output of one type
        (a lone value then passes through as it is)."""
        return not op.positional and op.x_type == op.y_type == op.out_type

    @classmethod
    def check_adds_in_one_pass(cls, op: Any) -> None:
        """Raise InvalidValue unless ``ewise_add`` takes ``op`` (see :meth:`adds_in_one_pass`)."""
        if not cls.adds_in_one_pass(op):
            raise InvalidValue(f"{op!r}: ewise_add needs a non-positional operator of one type")
