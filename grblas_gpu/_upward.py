"""Functions of the upper floors that lower modules call, bound by those floors as they load.

The operators, :mod:`.infix` and :mod:`.mask` sit below the objects and the operations (which
import them), yet python-graphblas's call forms make them reach up: ``unary.abs(v)`` applies,
``v | A`` broadcasts.  Rather than import upward, they call through the names bound here by
the upper modules (``grblas_gpu/__init__`` imports them all before anything can be called).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["bind", "call"]

_bound: dict[str, Callable[..., Any]] = {}


def bind(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """Make ``fn`` the function :func:`call` runs for ``name``; returns ``fn``."""
    _bound[name] = fn
    return fn


def call(name: str, *args: Any, **kwargs: Any) -> Any:
    """The function bound to ``name``, called."""
    try:
        fn = _bound[name]
    except KeyError:
        raise RuntimeError(f"{name} is not bound: import grblas_gpu (the package binds it as it loads)") from None
    return fn(*args, **kwargs)
