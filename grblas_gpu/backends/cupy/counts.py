"""Counts that kernels write straight to page-locked host memory.

A kernel that counts (true flags, entries it makes present) adds its blocks' parts to a
running total on the device; the block that finishes last writes the total to a page-locked
host word and sets the running total back to zero (``gb_total_finish`` in the kernel
helpers).  The host then only waits for the stream and reads the word: no memset before
and no copy after.  Page-locked memory is addressable from kernels at its host address
(unified addressing).

Each stream has its own :class:`StreamCounts`: the device state, one word for counts read
at once (:meth:`CupyBackend._total`), and :class:`CountSlots` for counts read later, each a
:class:`DeviceCount` that a result keeps until its number of entries is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cupy
import numpy as np

__all__ = ["CountSlots", "DeviceCount", "StreamCounts"]

SLOTS_PER_STREAM = 1024
"""Counts a stream may have pending at once; a result made while all are lent is counted
when asked instead."""


class DeviceCount:
    """A count a queued kernel writes to a page-locked word: ``int()`` waits for that kernel
    (once :meth:`mark` has followed its launch; else for the whole stream it was queued on)
    and reads it (once; the word is then lent again)."""

    __slots__ = ("_slots", "_slot", "_stream", "_value", "_done", "address")

    def __init__(self, slots: CountSlots, slot: int, stream: cupy.cuda.Stream) -> None:
        self._slots, self._stream = slots, stream
        self._slot: int | None = slot  # None once the word is lent again
        self._value: int | None = None
        self._done: cupy.cuda.Event | None = None
        self.address = slots.address(slot)  # where the kernel writes the count

    def mark(self) -> DeviceCount:
        """Record where ``int()`` may stop waiting: after the work queued so far on the count's
        stream (its kernel among it).  Work queued later (a BFS level's frontier weight behind
        its count) then runs while the host goes on with the number."""
        assert self._slot is not None, "marked after it was read"
        self._done = self._slots.event(self._slot)
        self._done.record(self._stream)
        return self

    def __int__(self) -> int:
        if self._value is None:
            assert self._slot is not None  # the word is lent until the value is read
            (self._done or self._stream).synchronize()
            value = self._value = self._slots.read(self._slot)
            self._release()
            return value
        return self._value

    def __repr__(self) -> str:
        return f"DeviceCount({'pending' if self._value is None else self._value})"

    def _release(self) -> None:
        slot, self._slot = self._slot, None
        if slot is not None:
            self._slots.give_back(slot)

    def __del__(self) -> None:
        # A slot given back while its kernel is still queued is safe to lend again: a later
        # kernel writing it runs after this one on the same stream, and its reader waits for it.
        self._release()


class CountSlots:
    """Page-locked words lent to pending counts, one per :class:`DeviceCount`."""

    def __init__(self, size: int = SLOTS_PER_STREAM) -> None:
        self._pinned = cupy.cuda.alloc_pinned_memory(8 * size)
        self._words = np.frombuffer(self._pinned, dtype=np.uint64, count=size)
        self._base = int(self._pinned.ptr)
        self._free = list(range(size - 1, -1, -1))
        self._events: list[cupy.cuda.Event | None] = [None] * size

    def event(self, slot: int) -> cupy.cuda.Event:
        """The event of word ``slot`` (made on first use, then recorded again by each count
        lent the word)."""
        done = self._events[slot]
        if done is None:
            done = self._events[slot] = cupy.cuda.Event(disable_timing=True)
        return done

    def lend(self, stream: cupy.cuda.Stream) -> DeviceCount | None:
        """A pending count on a free word, or None when every word is lent."""
        try:
            slot = self._free.pop()
        except IndexError:
            return None
        return DeviceCount(self, slot, stream)

    def address(self, slot: int) -> int:
        """The address kernels write word ``slot`` at."""
        return self._base + 8 * slot

    def read(self, slot: int) -> int:
        """The value of word ``slot`` (its kernel must have run)."""
        return int(self._words[slot])

    def give_back(self, slot: int) -> None:
        """Lend word ``slot`` again."""
        self._free.append(slot)

    @property
    def lent(self) -> int:
        """How many words are lent now."""
        return self._words.size - len(self._free)


@dataclass
class StreamCounts:
    """One stream's count state: ``state`` (a running total and a count of finished blocks,
    both zero between counts, on the device), the page-locked ``word`` a count read at once is
    written to and its ``address``, the count launches kept prepared (``kept``) and the
    ``slots`` of pending counts.  One-launch reductions (inner products) use the count of
    finished blocks too, and keep their blocks' partial results here (:meth:`partials`)."""

    state: cupy.ndarray
    word: np.ndarray
    address: np.uint64
    kept: dict[Any, Any] = field(default_factory=dict)
    slots: CountSlots = field(default_factory=CountSlots)
    _partials: dict[Any, cupy.ndarray] = field(default_factory=dict)

    def partials(self, dtype: Any, size: int) -> cupy.ndarray:
        """An array of at least ``size`` elements of ``dtype`` for one reduction's blocks at a
        time (the stream runs one after another), made on first use."""
        key = np.dtype(dtype)
        arr = self._partials.get(key)
        if arr is None or arr.size < size:
            arr = self._partials[key] = cupy.empty(size, dtype=key)
        return arr

    @classmethod
    def make(cls) -> StreamCounts:
        """The state for the current device and stream."""
        pinned = cupy.cuda.alloc_pinned_memory(8)
        word = np.frombuffer(pinned, dtype=np.uint64, count=1)
        return cls(cupy.zeros(2, dtype=np.uint64), word, np.uint64(pinned.ptr))  # word keeps pinned alive
