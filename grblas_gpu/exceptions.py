"""Exceptions named after the GraphBLAS C API's ``GrB_Info`` codes.

Every operation validates its arguments before it touches its output, so an
exception always leaves the output object as it was.
"""

from __future__ import annotations

__all__ = [
    "GraphBLASError",
    "DimensionMismatch",
    "DomainMismatch",
    "IndexOutOfBound",
    "InvalidIndex",
    "IndexTypeError",
    "InvalidValue",
    "UdfParseError",
    "GraphblasException",
    "InvalidObject",
    "OutputNotEmpty",
    "EmptyObject",
    "OutOfMemory",
    "NotImplementedException",
    "UninitializedObject",
    "NoValue",
    "FillValueRequired",
    "NotImplemented",
]


class GraphBLASError(Exception):
    """Base class of every error raised by grblas_gpu."""

    info: str = "GrB_PANIC"


GraphblasException = GraphBLASError  # python-graphblas's name


class DimensionMismatch(GraphBLASError, ValueError):
    """Shapes of the objects in an operation do not agree (GrB_DIMENSION_MISMATCH)."""

    info = "GrB_DIMENSION_MISMATCH"


class DomainMismatch(GraphBLASError, TypeError):
    """A type cannot be used with this operator or object (GrB_DOMAIN_MISMATCH)."""

    info = "GrB_DOMAIN_MISMATCH"


class IndexOutOfBound(GraphBLASError, IndexError):
    """An index is outside the object's dimensions (GrB_INDEX_OUT_OF_BOUNDS)."""

    info = "GrB_INDEX_OUT_OF_BOUNDS"


class InvalidIndex(GraphBLASError, IndexError):
    """An index is malformed, e.g. negative or not an integer (GrB_INVALID_INDEX)."""

    info = "GrB_INVALID_INDEX"


class IndexTypeError(InvalidIndex, ValueError):
    """Indices given as an array of a non-integer type: an InvalidIndex, and a ValueError as
    python-graphblas raises (both, as NumPy's AxisError is an IndexError and a ValueError)."""

    info = "GrB_INVALID_INDEX"


class InvalidValue(GraphBLASError, ValueError):
    """An argument has a value that is not allowed (GrB_INVALID_VALUE)."""

    info = "GrB_INVALID_VALUE"


class UdfParseError(InvalidValue):
    """A user-defined operator's function cannot be rendered (python-graphblas's name)."""

    info = "GrB_INVALID_VALUE"


class InvalidObject(GraphBLASError, ValueError):
    """An object is in an invalid state (GrB_INVALID_OBJECT)."""

    info = "GrB_INVALID_OBJECT"


class OutputNotEmpty(GraphBLASError, ValueError):
    """A build was asked of an object that already holds entries (GrB_OUTPUT_NOT_EMPTY)."""

    info = "GrB_OUTPUT_NOT_EMPTY"


class EmptyObject(GraphBLASError, ValueError):
    """A value was read from an empty Scalar (GrB_EMPTY_OBJECT)."""

    info = "GrB_EMPTY_OBJECT"


class NoValue(GraphBLASError, KeyError):
    """An element was read where no entry is stored (GrB_NO_VALUE)."""

    info = "GrB_NO_VALUE"


class FillValueRequired(NoValue, TypeError):
    """``to_dense()`` of an object with missing entries and no ``fill_value`` (a TypeError, as
    python-graphblas raises, and a NoValue)."""


class UninitializedObject(GraphBLASError, ValueError):
    """An object was used before it was initialised (GrB_UNINITIALIZED_OBJECT)."""

    info = "GrB_UNINITIALIZED_OBJECT"


class OutOfMemory(GraphBLASError, MemoryError):
    """The device or host ran out of memory (GrB_OUT_OF_MEMORY)."""

    info = "GrB_OUT_OF_MEMORY"


class NotImplementedException(GraphBLASError, NotImplementedError):
    """The combination asked for is not implemented (GrB_NOT_IMPLEMENTED)."""

    info = "GrB_NOT_IMPLEMENTED"


# The C API's name; an alias so ``gb.exceptions.NotImplemented`` reads like GrB_NOT_IMPLEMENTED.
NotImplemented = NotImplementedException
