"""A pytest plugin that counts what networkx's test suite runs through this backend.

Load it with ``-p grblas_gpu.nx_backend.testing`` beside networkx's backend test mode
(``NETWORKX_TEST_BACKEND=grblas_gpu NETWORKX_FALLBACK_TO_NX=True``).  It wraps the
backend's functions and ``can_run`` to count calls served here and calls declined (left to
networkx), and prints, at the end, how many tests called the backend at least once.  A run
whose tests never reach the backend fails: the backend test mode was not on.
"""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any

from .interface import FUNCTIONS, BackendInterface

__all__ = ["pytest_configure", "pytest_runtest_call", "pytest_sessionfinish", "pytest_terminal_summary"]

_served: Counter = Counter()
_declined: Counter = Counter()
_tests_served: set[str] = set()
_current: list[str] = []


def _counting(name: str, func: Any) -> Any:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _served[name] += 1
        if _current:
            _tests_served.add(_current[-1])
        return func(*args, **kwargs)
    return staticmethod(wrapper)


def _counting_can_run(can_run: Any) -> Any:
    @functools.wraps(can_run)
    def wrapper(name: str, args: tuple, kwargs: dict) -> Any:
        answer = can_run(name, args, kwargs)
        if answer is not True:
            _declined[name] += 1
        return answer
    return staticmethod(wrapper)


def pytest_configure(config: Any) -> None:
    """Wrap the backend's functions (once)."""
    if getattr(BackendInterface, "_counting", False):
        return
    interface: Any = BackendInterface  # (its methods are replaced by counting ones)
    for name, (func, _) in FUNCTIONS.items():
        setattr(interface, name, _counting(name, func))
    interface.can_run = _counting_can_run(interface.can_run)
    interface._counting = True


def pytest_runtest_call(item: Any) -> None:
    """Note which test is running."""
    _current[:] = [item.nodeid]


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    """Fail a run in which tests ran but none reached the backend: networkx's backend test
    mode was not on (its conftest not loaded, or the variables unset), so nothing was checked."""
    if session.testscollected and not _served and exitstatus == 0:
        session.exitstatus = 1


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the counts."""
    write = terminalreporter.write_line
    write(f"grblas_gpu backend: {len(_tests_served)} tests called it; {sum(_served.values())} calls served, "
          f"{sum(_declined.values())} declined through can_run (run by networkx)")
    for name in sorted(set(_served) | set(_declined)):
        write(f"  {name}: {_served[name]} served, {_declined[name]} declined")
