"""How much memory the host can still give, and the check that a product's output fits in it."""

from __future__ import annotations

from ..dtypes import DataType
from ..exceptions import OutOfMemory

__all__ = ["available_memory", "check_fits", "PROBE_ABOVE"]

PROBE_ABOVE = 1 << 26
"""Products needing fewer bytes than this are not checked (reading the probe costs more than
a small product; a failed allocation still becomes OutOfMemory)."""


def available_memory() -> int | None:
    """Bytes of memory the system can still give (``MemAvailable``), or None where unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_fits(entries: int, value_type: DataType, index_bytes: int, what: str, copies: int = 2) -> None:
    """Raise OutOfMemory where ``entries`` entries of a product (an index and a value each,
    ``copies`` times over: the batches' parts and the joined whole) exceed the memory
    available now; nothing where it cannot be read."""
    need = copies * entries * (index_bytes + value_type.np_type.itemsize)
    if need < PROBE_ABOVE:
        return
    free = available_memory()
    if free is not None and need > free:
        raise OutOfMemory(f"{what}: {entries} entries need about {need} bytes; {free} are available")
