"""What the product kernels of a backend take and return: CSR operands, a structural mask, the
CSR product, and the vectors, row masks and outputs of the matrix-vector pulls and pushes
(``spmv``, ``spmv_columns``, ``spmspv``, ``push_relax``, ``push_claim_listed``).

The planner in :mod:`grblas_gpu.ops.multiply` decides the form of a product and hands a
backend these small records; a backend reads nothing else of the Matrix objects.

- :meth:`Backend.mxm_gustavson` computes ``C = A B`` row by row (Gustavson's order): row
  ``i`` of C combines the rows ``B(k, :)`` for every entry ``A(i, k)``.  With a mask, only the
  mask's positions (or, complemented, only the others) are formed.
- :meth:`Backend.mxm_dot` computes ``C<M> = A B`` as dot products: for every position ``(i, j)``
  of the mask, ``A(i, :)`` meets column ``j`` of B, given as row ``j`` of ``bt`` (B's transpose
  in CSR; for ``A @ X.T`` that is X itself, no transpose built).  The work is bounded by the mask.

Conventions shared by every backend:

- Rows are sorted and duplicate-free in every operand and in the product (columns ascending
  within a row).
- ``values`` of an operand are already of the multiplicative operator's input type (``x_type``
  for A, ``y_type`` for B); None where the operator ignores that operand (``pair``, ``first``
  for B, ``second`` for A, positional operators that read no value).
- A positional multiplicative operator sees ``Positions(xi=i, xj=k, yi=k, yj=j)``.
- The product's values are of the semiring's ``out_type``; an entry exists where at least one
  term exists (a sum of terms that equals zero is still an entry: a missing entry is not zero).
- A product that cannot fit in memory raises :class:`~grblas_gpu.exceptions.OutOfMemory`
  before the caller's output changes (the caller writes only what a product returns).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["CsrOperand", "MaskOperand", "CsrProduct", "VectorOperand", "ListedVector", "RowMask", "SpmvOutput",
           "PushOutput", "SPMV_RESULT"]


@dataclass(frozen=True)
class CsrOperand:
    """A matrix as a product kernel reads it: CSR arrays of one backend.

    ``indptr``: int32 or int64, ``nrows + 1`` entries; ``indices``: int32 or int64 column of
    every entry; ``values``: one value per entry in the operator's input type, or None where
    the operator ignores the operand's values.  (The pull, ``spmv``, also takes the values as
    stored where the product ignores them or where the backend casts them itself.)
    """

    indptr: Any
    indices: Any
    values: Any
    nrows: int
    ncols: int

    @property
    def nvals(self) -> int:
        """Number of stored entries."""
        return int(self.indices.shape[0])

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns)."""
        return self.nrows, self.ncols


@dataclass(frozen=True)
class MaskOperand:
    """A structural matrix mask in CSR (a value mask is first reduced to its true entries).

    ``complement``: the mask allows the positions it does *not* hold (``~M.S``).
    """

    indptr: Any
    indices: Any
    complement: bool = False

    @property
    def nvals(self) -> int:
        """Number of positions the mask holds."""
        return int(self.indices.shape[0])


@dataclass(frozen=True)
class CsrProduct:
    """A product in CSR: ``indptr`` (int64, ``nrows + 1``), ``indices`` (int32 or int64,
    sorted within each row), ``values`` (the semiring's ``out_type``)."""

    indptr: Any
    indices: Any
    values: Any


# The records of a matrix-vector pull are made per call, on the host's critical path of a loop
# of products: plain slotted classes, which cost a third of what a frozen dataclass costs to
# make (about 0.2 against 0.5 us for two fields).  Nobody writes their fields.


@dataclass(slots=True, eq=False)
class VectorOperand:
    """A vector as a matrix-vector pull reads it: dense ``values`` (one per position, in the
    type the product reads, or as stored where it ignores them) and ``present``, a bool array
    of the positions holding an entry, or None where every position does (a full vector)."""

    values: Any
    present: Any = None


@dataclass(slots=True, eq=False)
class ListedVector:
    """A sparse vector as a push reads it: ``rows``, the positions of its entries (int64,
    ascending), and their ``values``; ``longest_row``, where the caller knows one, bounds the
    length of the matrix rows the entries index (a push shares long rows among warps)."""

    rows: Any
    values: Any
    longest_row: int | None = None


@dataclass(slots=True, eq=False)
class RowMask:
    """The output positions a matrix-vector product computes (the rows of a pull, the columns
    of a push): where ``bits`` (a bool array, one per position) is true, or with
    ``complement`` where it is false."""

    bits: Any
    complement: bool = False


@dataclass(slots=True, eq=False)
class SpmvOutput:
    """Where a matrix-vector pull writes its result (see ``BackendProtocol.spmv``).

    - ``presence``: whether the presence of the result is asked for; False where the caller
      knows it (every position of x present and no row mask: the nonempty rows), and a
      backend may then return None in its place, writing none.
    - ``into``: (presence, values) of the result's type, owned by the caller, no row mask: the
      result is added into them by the monoid and they are returned as (values, presence).
    - ``out``: values of the result's type, owned by the caller, that may take the result.
    - ``claim``: values owned by the caller, the row mask being their presence, complemented:
      each computed row's result is also written into them, its presence set (``C(~C.S) <<
      A x``); the result holds the entries added.
    """

    presence: bool = True
    into: tuple[Any, Any] | None = None
    out: Any = None
    claim: Any = None


@dataclass(slots=True, eq=False)
class PushOutput:
    """The output a push writes in place (``push_relax``, ``push_claim_listed``): its
    ``values`` (of the monoid's type, owned by the caller); with ``bits``, its presence, the
    push writes only where the output has no entry yet, the first term to reach a position
    claiming it (else it combines its terms into every position: a full output)."""

    values: Any
    bits: Any = None


SPMV_RESULT = SpmvOutput()
"""The plain pull: a new result with its presence (shared; never written)."""
