"""The memory rule's readings: one reading of the available memory serves the requests of the
next READING_S seconds, less what they were granted; nothing is refused without a new one."""

from __future__ import annotations

import pytest

from grblas_gpu import limits
from grblas_gpu.exceptions import OutOfMemory

MiB = 1 << 20


def test_a_reading_serves_later_requests_less_what_they_took(monkeypatch: pytest.MonkeyPatch) -> None:
    readings: list[int] = []
    free = [100 * MiB]

    def available() -> int:
        readings.append(free[0])
        return free[0]

    monkeypatch.setitem(limits._AVAILABLE, "numpy", available)
    monkeypatch.setattr(limits, "READING_S", 60.0)
    monkeypatch.setattr(limits, "_READINGS", {})
    limits.require_bytes(40 * MiB, "numpy", "a")
    limits.require_bytes(40 * MiB, "numpy", "b")  # 80 of the 100 read: no new reading
    assert len(readings) == 1
    limits.require_bytes(40 * MiB, "numpy", "c")  # past what is left: read again (100 free still)
    assert len(readings) == 2
    free[0] = 30 * MiB
    with pytest.raises(OutOfMemory):
        limits.require_bytes(80 * MiB, "numpy", "d")  # 60 left of the reading: a new one refuses
    assert len(readings) == 3


def test_another_source_is_read_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "READING_S", 60.0)
    monkeypatch.setattr(limits, "_READINGS", {})
    monkeypatch.setitem(limits._AVAILABLE, "numpy", lambda: 1 << 40)
    limits.require_bytes(20 * MiB, "numpy", "a")
    monkeypatch.setitem(limits._AVAILABLE, "numpy", lambda: 20 * MiB)
    with pytest.raises(OutOfMemory):
        limits.require_bytes(30 * MiB, "numpy", "b")


def test_a_reading_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    count = []
    monkeypatch.setitem(limits._AVAILABLE, "numpy", lambda: count.append(1) or 1 << 40)
    monkeypatch.setattr(limits, "READING_S", 0.0)
    monkeypatch.setattr(limits, "_READINGS", {})
    for _ in range(3):
        limits.require_bytes(20 * MiB, "numpy", "a")
    assert len(count) == 3
