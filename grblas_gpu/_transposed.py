"""What every transposed view (``A.T`` of a Matrix, of a distributed Matrix) answers alike:
its shape, type and backend are the parent's, turned."""

from __future__ import annotations

from typing import Any

__all__ = ["TransposedView"]


class TransposedView:
    """Base of the ``A.T`` views: ``parent`` is the matrix, read turned."""

    kind = "Matrix"

    def __init__(self, parent: Any) -> None:
        self.parent = parent

    @property
    def shape(self) -> tuple[int, int]:
        """The transposed shape."""
        return (self.parent.ncols, self.parent.nrows)

    @property
    def nrows(self) -> int:
        """Rows of the transpose: the parent's columns."""
        return int(self.parent.ncols)

    @property
    def ncols(self) -> int:
        """Columns of the transpose: the parent's rows."""
        return int(self.parent.nrows)

    @property
    def dtype(self) -> Any:
        """The parent's type."""
        return self.parent.dtype

    @property
    def backend(self) -> Any:
        """The parent's backend (or placement)."""
        return self.parent.backend

    @property
    def T(self) -> Any:
        """The transpose of the transpose: the parent."""
        return self.parent
