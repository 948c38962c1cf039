"""``gb.core.utils.output_type`` and ``ensure_type``, as python-graphblas defines them
(graphblas-algorithms builds a Graph from ``A`` or an expression of it through them)."""

from __future__ import annotations

from typing import Any

from ..expressions import Expression
from ..matrix import Matrix
from ..scalar import Scalar
from ..vector import Vector

__all__ = ["ensure_type", "output_type"]

_CLASSES = {"Matrix": Matrix, "Vector": Vector, "Scalar": Scalar}


def output_type(val: Any) -> type:
    """The class of what ``val`` gives once computed: ``Vector`` for a Vector or an expression
    of one (``v.apply(op)``, ``A @ v``), likewise Matrix and Scalar; else ``type(val)``."""
    if isinstance(val, Expression):
        return _CLASSES[val.kind]
    return type(val)


def ensure_type(x: Any, types: type | tuple[type, ...]) -> Any:
    """``x`` if it is of ``types`` (a class or a tuple of them, as for ``isinstance``), an
    expression of one of them computed, else TypeError."""
    if isinstance(x, types):
        return x
    wanted = types if isinstance(types, tuple) else (types,)
    if any(output_type(x) is t for t in wanted):
        return x.new()
    raise TypeError(f"{type(x).__name__!r} object is not of type {types}")
