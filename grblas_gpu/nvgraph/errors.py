"""``NvgraphError`` and ``nvgraphStatusGetString``: the C status codes as a Python exception."""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from . import constants as c

_F = TypeVar("_F", bound=Callable[..., Any])

_STRINGS = {
    c.NVGRAPH_STATUS_SUCCESS: "Success",
    c.NVGRAPH_STATUS_NOT_INITIALIZED: "nvGRAPH not initialized",
    c.NVGRAPH_STATUS_ALLOC_FAILED: "nvGRAPH alloc failed",
    c.NVGRAPH_STATUS_INVALID_VALUE: "nvGRAPH invalid value",
    c.NVGRAPH_STATUS_ARCH_MISMATCH: "nvGRAPH arch mismatch",
    c.NVGRAPH_STATUS_MAPPING_ERROR: "nvGRAPH mapping error",
    c.NVGRAPH_STATUS_EXECUTION_FAILED: "nvGRAPH execution failed",
    c.NVGRAPH_STATUS_INTERNAL_ERROR: "nvGRAPH internal error",
    c.NVGRAPH_STATUS_TYPE_NOT_SUPPORTED: "nvGRAPH type not supported",
    c.NVGRAPH_STATUS_NOT_CONVERGED: "nvGRAPH algorithm failed to converge",
    c.NVGRAPH_STATUS_GRAPH_TYPE_NOT_SUPPORTED: "nvGRAPH graph type not supported",
}


def nvgraphStatusGetString(status: int) -> str:
    """The C library's text for a status code (``"Unknown nvGRAPH Status"`` for any other)."""
    try:
        return _STRINGS.get(int(status), "Unknown nvGRAPH Status")
    except (TypeError, ValueError, OverflowError):  # not a number (None, text): no status at all
        return "Unknown nvGRAPH Status"


class NvgraphError(Exception):
    """A failing nvGRAPH call; ``status`` is the C ``nvgraphStatus_t`` it would have returned."""

    def __init__(self, status: int, detail: str = "") -> None:
        self.status = int(status)
        self.detail = detail
        text = nvgraphStatusGetString(status)
        super().__init__(f"{text}: {detail}" if detail else text)


def invalid(detail: str) -> NvgraphError:
    """An ``NVGRAPH_STATUS_INVALID_VALUE`` error."""
    return NvgraphError(c.NVGRAPH_STATUS_INVALID_VALUE, detail)


def type_not_supported(detail: str) -> NvgraphError:
    """An ``NVGRAPH_STATUS_TYPE_NOT_SUPPORTED`` error."""
    return NvgraphError(c.NVGRAPH_STATUS_TYPE_NOT_SUPPORTED, detail)


def require(condition: bool, detail: str, status: int = c.NVGRAPH_STATUS_INVALID_VALUE) -> None:
    """Raise ``NvgraphError(status, detail)`` unless ``condition`` holds."""
    if not condition:
        raise NvgraphError(status, detail)


def integer(value: Any, what: str, low: int = 0, high: int = c.INT_MAX) -> int:
    """``value`` as an int in ``[low, high)``; INVALID_VALUE for anything else (a float, text,
    None, a bool, an array): the C API takes these as C integers."""
    require(isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_)),
            f"{what} must be an integer, got {value!r}")
    require(low <= int(value) < high, f"{what} {int(value)} is outside [{low}, {high})")
    return int(value)


def vertex_pointer(value: Any, n: int, what: str = "source_vert") -> int:
    """The vertex a C ``const int *`` argument points to (an int, or the first element of an
    integer array); INVALID_VALUE if NULL, empty, not an integer or outside ``[0, n)``."""
    require(value is not None, f"{what} is NULL")
    if isinstance(value, (numbers.Integral, np.integer)):
        return integer(value, what, 0, n)
    arr = np.asarray(value.get() if hasattr(value, "get") and not isinstance(value, dict) else value)
    require(arr.size > 0, f"{what} points to no value")
    require(arr.dtype.kind in "iu", f"{what} must point to an integer vertex id, got {arr.dtype}")
    return integer(arr.reshape(-1)[0], what, 0, n)


def c_api(function: _F) -> _F:
    """Make ``function`` fail only through :class:`NvgraphError`, as a C call returns a status:
    running out of memory is ALLOC_FAILED, and any other Python error an argument caused
    (a wrong type, shape or read-only buffer) is INVALID_VALUE."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except NvgraphError:
            raise
        except MemoryError as exc:
            raise NvgraphError(c.NVGRAPH_STATUS_ALLOC_FAILED, f"{function.__name__}: {exc}") from exc
        except Exception as exc:  # the C API has no exceptions: a bad argument is a status
            raise NvgraphError(c.NVGRAPH_STATUS_INVALID_VALUE,
                               f"{function.__name__}: {type(exc).__name__}: {exc}") from exc

    wrapper.__wrapped_c_api__ = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]
