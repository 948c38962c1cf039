"""What a generated kernel module is named by: :class:`KernelSpec`, and the helpers the
kernel generators share when they list their modules for :mod:`.registry` (kept apart from
the registry, which imports every generator, so that no generator imports the registry)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...dtypes import BOOL, FP32, FP64, INT32, INT64, DataType
from ...exceptions import DomainMismatch
from .codegen import KernelModule

__all__ = ["KernelSpec", "SPMV_TYPES", "layout", "typed"]

SPMV_TYPES: tuple[DataType, ...] = (FP32, FP64, INT32, INT64, BOOL)
"""Types the built-in semirings are rendered for."""


@dataclass(frozen=True)
class KernelSpec:
    """One generated kernel module: its kind, a readable name and how to build it."""

    kind: str
    name: str
    build: Callable[[], KernelModule] = field(repr=False, compare=False)

    def module(self) -> KernelModule:
        """The generated module (body, entry-point names, digest)."""
        return self.build()

    def render(self) -> str:
        """The full, self-contained translation unit."""
        return self.module().source

    def render_body(self) -> str:
        """The unit without the shared preamble (bodies of different specs can be concatenated)."""
        return self.module().body


def typed(poly: Any, t: DataType) -> Any:
    """``poly[t]`` (a typed operator, monoid or semiring), or None where ``poly`` is not defined on ``t``."""
    try:
        return poly[t]
    except DomainMismatch:
        return None


def layout(ptr: str, index: str) -> str:
    """A CSR index layout as named in kernel specs: ``int32``, or ``int64/int32`` when the row
    pointers and the column indices differ."""
    return index if ptr == index else f"{ptr}/{index}"
