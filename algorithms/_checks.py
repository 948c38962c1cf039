"""Argument checks shared by the graph algorithms.

Each check raises the GraphBLAS error that names the problem, with a message
that says which algorithm and which argument, before any work is done.
"""

from __future__ import annotations

import numbers
from typing import Any

from grblas_gpu import Matrix
from grblas_gpu.exceptions import (
    DimensionMismatch,
    DomainMismatch,
    IndexOutOfBound,
    InvalidIndex,
)

__all__ = ["check_numeric", "check_source", "check_square"]


def check_square(A: Any, name: str) -> None:
    """Raise unless ``A`` is a square :class:`Matrix` (an adjacency matrix).

    Not a Matrix -> ``DomainMismatch``; not square -> ``DimensionMismatch``.
    ``name`` is the algorithm's name, used in the message.
    """
    if not isinstance(A, Matrix):
        raise DomainMismatch(f"{name}: A must be a grblas_gpu Matrix, got {type(A).__name__}")
    if A.nrows != A.ncols:
        raise DimensionMismatch(
            f"{name}: the adjacency matrix must be square, got shape {A.nrows}x{A.ncols}"
        )


def check_source(A: Matrix, source: Any, name: str) -> int:
    """Return ``source`` as an ``int`` if it is a vertex of ``A``; raise otherwise.

    Not an integer -> ``InvalidIndex``; outside ``0 .. n-1`` -> ``IndexOutOfBound``.
    """
    if isinstance(source, bool) or not isinstance(source, numbers.Integral):
        raise InvalidIndex(f"{name}: source must be an integer vertex id, got {source!r}")
    source = int(source)
    if not 0 <= source < A.nrows:
        raise IndexOutOfBound(
            f"{name}: source {source} is out of range for a graph with {A.nrows} vertices"
        )
    return source


def check_numeric(A: Matrix, name: str, *, allow_bool: bool = True) -> None:
    """Raise ``DomainMismatch`` unless ``A`` holds a built-in numeric type.

    BOOL counts as numeric (an unweighted graph) unless ``allow_bool=False``.
    """
    dtype = A.dtype
    numeric = dtype.is_integer or dtype.is_float or (allow_bool and dtype.is_bool)
    if not numeric:
        kinds = "integer or floating-point" + (" or BOOL" if allow_bool else "")
        raise DomainMismatch(f"{name}: A must have a {kinds} type, got {dtype}")
