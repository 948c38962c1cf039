"""Running one snippet on python-graphblas and on grblas_gpu and comparing what comes out.

A snippet is a function of the library module (``gb``); its result is reduced to plain
Python (shape, type name, entries) so the two libraries' objects compare directly."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import grblas_gpu

graphblas = pytest.importorskip("graphblas")


def plain(x: Any) -> Any:
    """A library-independent form of a result."""
    kind = type(x).__name__
    if hasattr(x, "new") and not hasattr(x, "nvals") and "Expression" in kind:
        x = x.new()
    if hasattr(x, "to_coo") and hasattr(x, "nvals"):
        x = x.new() if "Expression" in type(x).__name__ else x
        parts = x.to_coo()
        coords = [np.asarray(p).astype(np.int64).tolist() for p in parts[:-1]]
        vals = [_num(v) for v in np.asarray(parts[-1]).tolist()]
        return ("collection", tuple(x.shape), str(x.dtype), sorted(zip(*coords, vals)))
    if hasattr(x, "is_empty") and hasattr(x, "value"):
        return ("scalar", str(x.dtype), _num(x.value))
    if isinstance(x, (tuple, list)):
        return type(x)(plain(y) for y in x)
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return ("array", str(x.dtype) if x.dtype.kind != "u" else "int64", x.tolist())
    if isinstance(x, np.generic):
        return _num(x.item())
    return _num(x)


def _num(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    if isinstance(v, float):
        return round(v, 9)
    return v


def same(snippet: Any, backend: str = "numpy") -> Any:
    """Run ``snippet`` on both libraries; assert equal plain results; return ours."""
    expected = plain(snippet(graphblas))
    with grblas_gpu.use_backend(backend):
        got = plain(snippet(grblas_gpu))
    assert got == expected, f"\ngrblas_gpu:        {got}\npython-graphblas:  {expected}"
    return got


def raises_same(snippet: Any, backend: str = "numpy") -> type:
    """Run ``snippet`` on both; both must raise, ours an instance of python-graphblas's
    exception's builtin base (TypeError, ValueError, ...)."""
    with pytest.raises(Exception) as theirs:
        snippet(graphblas)
    base = next(c for c in type(theirs.value).__mro__ if c.__module__ == "builtins")
    with grblas_gpu.use_backend(backend), pytest.raises(base):
        snippet(grblas_gpu)
    return base


def matrix(gb: Any, dtype: Any = None) -> Any:
    """A small Matrix with a diagonal, both triangles and a negative value."""
    return gb.Matrix.from_coo([0, 0, 1, 1, 2, 3, 3], [0, 2, 1, 3, 0, 1, 3], [4.0, -2.0, 3.0, 1.0, 5.0, 7.0, 2.0],
                              nrows=4, ncols=4, dtype=dtype)


def other(gb: Any) -> Any:
    """A second Matrix of the same shape, overlapping the first in part."""
    return gb.Matrix.from_coo([0, 1, 2, 3], [2, 0, 0, 3], [1.0, 6.0, -1.0, 3.0], nrows=4, ncols=4)


def vector(gb: Any, dtype: Any = None) -> Any:
    """A small Vector with a gap and a negative value."""
    return gb.Vector.from_coo([0, 1, 3], [2.0, -5.0, 7.0], size=4, dtype=dtype)
