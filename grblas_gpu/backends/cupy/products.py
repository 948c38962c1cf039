"""The CuPy backend's matrix products and transpose: entry points into :mod:`.spgemm`,
:mod:`.dot_mxm` and :mod:`.transpose`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import cupy

from ...operators.base import TypedSemiring
from .common import _contiguous, _map_out_of_memory
from .core import CupyCore

if TYPE_CHECKING:
    from .backend import CupyBackend

__all__ = ["ProductOps"]


class ProductOps(CupyCore):
    """Matrix-matrix products and the CSR transpose."""

    @_map_out_of_memory
    def mxm_gustavson(self, semiring: TypedSemiring, a: Any, b: Any, mask: Any = None) -> Any:
        """``C = A B`` row by row in generated hash-table kernels (see :mod:`.spgemm`); ``a``, ``b``
        :class:`~..operands.CsrOperand`, ``mask`` a :class:`~..operands.MaskOperand` or None.
        Returns a :class:`~..operands.CsrProduct`."""
        from .spgemm import mxm_gustavson

        return mxm_gustavson(self, semiring, a, b, mask)

    @_map_out_of_memory
    def mxm_dot(self, semiring: TypedSemiring, a: Any, bt: Any, mask: Any) -> Any:
        """``C<M> = A B'`` as one dot product per position of the (not complemented) structural
        ``mask``, ``bt`` holding B's columns as rows; a :class:`~..operands.CsrProduct` (see
        :mod:`.dot_mxm`)."""
        from .dot_mxm import mxm_dot

        return mxm_dot(cast("CupyBackend", self), semiring, a, bt, mask)

    @_map_out_of_memory
    def transpose_csr(self, indptr: Any, indices: Any, values: Any, nrows: int, ncols: int, ptr_type: Any,
                      row_type: Any) -> tuple[cupy.ndarray, cupy.ndarray, cupy.ndarray] | None:
        """(pointers, rows, values) of the transpose of a sorted CSR by a counting sort whose
        work is ``ncols``-sized (see :mod:`.transpose`); None where the values' size is not one
        the kernels copy (the caller sorts instead)."""
        from . import transpose

        if not transpose.applies(values):
            return None
        ptr, idx = self._csr_arrays(indptr, indices)
        return transpose.transpose_csr(self._function, ptr, idx, _contiguous(values), nrows, ncols, ptr_type,
                                       row_type)
