"""Argument checks shared by the graph algorithms.

Each check raises the GraphBLAS error that names the problem, with a message
that says which algorithm and which argument, before any work is done.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from grblas_gpu import Matrix, monoid, unary
from grblas_gpu.exceptions import (
    DimensionMismatch,
    DomainMismatch,
    IndexOutOfBound,
    InvalidIndex,
    InvalidValue,
)
from grblas_gpu.limits import require_bytes

__all__ = ["check_count", "check_fraction", "check_no_nan", "check_non_negative", "check_numeric",
           "check_source", "check_square", "check_tolerance", "check_vertex_memory", "rows_with_entries"]


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


def _real(x: Any, what: str, name: str) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise InvalidValue(f"{name}: {what} must be a real number, got {x!r}")
    x = float(x)
    if math.isnan(x):
        raise InvalidValue(f"{name}: {what} must not be NaN")
    return x


def check_fraction(x: Any, what: str, name: str) -> float:
    """``x`` as a float in ``[0, 1)`` (a damping factor); ``InvalidValue`` otherwise."""
    x = _real(x, what, name)
    if not 0.0 <= x < 1.0:
        raise InvalidValue(f"{name}: {what} must be in [0, 1), got {x}")
    return x


def check_tolerance(x: Any, what: str, name: str) -> float:
    """``x`` as a finite float ``>= 0``; ``InvalidValue`` otherwise (NaN would switch the
    convergence test off)."""
    x = _real(x, what, name)
    if not 0.0 <= x < math.inf:
        raise InvalidValue(f"{name}: {what} must be finite and >= 0, got {x}")
    return x


def check_count(x: Any, what: str, name: str) -> int:
    """``x`` as an int ``>= 0`` (an iteration limit); ``InvalidValue`` otherwise."""
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise InvalidValue(f"{name}: {what} must be an integer, got {x!r}")
    if x < 0:
        raise InvalidValue(f"{name}: {what} must be >= 0, got {x}")
    return int(x)


def check_no_nan(A: Matrix, name: str) -> None:
    """``InvalidValue`` if a floating-point ``A`` holds a NaN edge weight (a NaN compares false
    with everything, so min/max paths would silently lose or widen the paths through it)."""
    if not (A.dtype.is_float and A.nvals):
        return
    # One reduction, no copy of A: the sum is NaN only where a weight is NaN (or +inf meets
    # -inf, which the exact test below then clears).
    total = A.reduce_scalar(monoid.plus).new().value
    if total is not None and not math.isnan(total):
        return
    if A.apply(unary.isnan).new().reduce_scalar(monoid.lor).new().value:
        raise InvalidValue(f"{name}: edge weights must not be NaN")


def check_non_negative(A: Matrix, name: str) -> None:
    """``InvalidValue`` if ``A`` holds a negative or NaN weight."""
    check_no_nan(A, name)
    if A.nvals and not A.dtype.is_bool and A.reduce_scalar(monoid.min).new().value < 0:
        raise InvalidValue(f"{name}: edge weights must be >= 0")


def rows_with_entries(A: Matrix) -> list[int]:
    """The rows of ``A`` holding an entry (the vertices with out-edges), ascending: work and
    memory in A's entries, not its dimension."""
    if A.nvals == 0:
        return []
    return [int(i) for i in A.reduce_rowwise(monoid.any).new().to_coo()[0]]


def check_vertex_memory(A: Matrix, name: str, per_vertex: int, host_per_vertex: int = 0) -> None:
    """``OutOfMemory`` before any work where the algorithm's vectors over all vertices do not
    fit: about ``per_vertex`` bytes a vertex on A's backend (and ``host_per_vertex`` on the
    host), compared with the memory available there (see :mod:`grblas_gpu.limits`)."""
    n = A.nrows
    what = f"{name} on {n:,} vertices"
    require_bytes(n * per_vertex, A.backend, what)
    if host_per_vertex:
        require_bytes(n * host_per_vertex, "numpy", what + " (on the host)")
