"""The CuPy backend: the hot kernels as CUDA generated from the operators.

Each method gives the same results as :class:`~grblas_gpu.backends.numpy_backend.NumpyBackend`.
Sources come from :mod:`.codegen` (the same functions the kernel registry
renders); modules are compiled by CuPy through NVRTC and kept in an in-process
dict keyed by the source digest, and CuPy's on-disk cache spares a second process
the compilation.

:class:`CupyBackend` is put together from one class per concern, each in its own module:
:mod:`.core` (compilation, launches, operands, count state), :mod:`.elementwise`,
:mod:`.bitmaps`, :mod:`.reduce`, :mod:`.spmv_plans` (how SpMV splits a matrix),
:mod:`.pull` (SpMV row by row), :mod:`.push` (SpMV from a frontier) and :mod:`.products`
(matrix products, transpose).
"""

from __future__ import annotations

import cupy

from .bitmaps import BitmapOps
from .elementwise import ElementwiseOps
from .products import ProductOps
from .pull import PullOps
from .push import PushOps
from .reduce import ReduceOps
from .spmv_plans import ColumnCache, SpmvPlan, SpmvPlanning

__all__ = ["CupyBackend", "SpmvPlan", "ColumnCache"]


class CupyBackend(ElementwiseOps, BitmapOps, ReduceOps, PullOps, SpmvPlanning, PushOps, ProductOps):
    """Kernels generated from the operators, compiled by NVRTC through CuPy."""

    name = "cupy"
    xp = cupy
