"""Descriptors: the GraphBLAS C API's per-call options, and the 32 predefined ones.

``R`` replace, ``S`` structural mask, ``C`` complemented mask, ``T0``/``T1``
transpose the first/second input; predefined names combine them in that order
(``RSC``, ``SCT0``, ``RT0T1``, ...), as ``GrB_DESC_*`` does.
"""

from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass

__all__ = ["Descriptor", "lookup"]


@dataclass(frozen=True)
class Descriptor:
    """Options of one operation in the C-style functions."""

    replace: bool = False
    mask_complement: bool = False
    mask_structure: bool = False
    transpose_first: bool = False
    transpose_second: bool = False

    @property
    def name(self) -> str:
        """The predefined name (``"RSC"``, ``"T0"``, ...; ``"NULL"`` for the default)."""
        parts = [("R", self.replace), ("S", self.mask_structure), ("C", self.mask_complement),
                 ("T0", self.transpose_first), ("T1", self.transpose_second)]
        return "".join(p for p, on in parts if on) or "NULL"


def lookup(name: str) -> Descriptor:
    """The predefined descriptor named like ``GrB_DESC_<name>`` (e.g. ``"RSC"``)."""
    found = _PREDEFINED.get(name.upper().removeprefix("GRB_DESC_"))
    if found is None:
        from .exceptions import InvalidValue  # (the exceptions are a module of the same floor)

        raise InvalidValue(f"no predefined descriptor is named {name!r}: use letters of R, S, C, T0, T1"
                           " in that order (e.g. 'RSC', 'T0'), or 'NULL'")
    return found


_PREDEFINED: dict[str, Descriptor] = {}
for _flags in itertools.product((False, True), repeat=5):
    _d = Descriptor(*_flags)
    _PREDEFINED[_d.name] = _d
    setattr(sys.modules[__name__], _d.name, _d)
