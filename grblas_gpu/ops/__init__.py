"""The operations: each builds a delayed Expression whose compute() gives the result T.

Loading this package binds them into :data:`grblas_gpu._operations.operations`, through which
the objects' methods and the executor, on the floors below, call them."""

from .. import _broadcast, _scalar_ops  # noqa: F401 - python-graphblas's forms, which bind theirs too
from . import indexing, multiply, mxm, reduction, structural

__all__ = ["indexing", "multiply", "mxm", "reduction", "structural"]
