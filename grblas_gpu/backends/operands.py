"""What the matrix-product kernels of a backend take and return: CSR operands, a structural
mask, and the CSR product.

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

__all__ = ["CsrOperand", "MaskOperand", "CsrProduct"]


@dataclass(frozen=True)
class CsrOperand:
    """A matrix as a product kernel reads it: CSR arrays of one backend.

    ``indptr``: int32 or int64, ``nrows + 1`` entries; ``indices``: int32 or int64 column of
    every entry; ``values``: one value per entry in the operator's input type, or None where
    the operator ignores the operand's values.
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
