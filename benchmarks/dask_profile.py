"""Where an SPMD call's time goes on each worker: its phases (exchanges, local products and
writes) timed one by one, the device synchronized before and after each, so that a phase's
time is its own (the synchronizations slow the call: the sum is not the call's time).

    from benchmarks.dask_profile import profile_call
    rec = profile_call(client, lambda: bfs_levels(A, source))   # {"call_s", "phases", "sequence"}

Used by ``python -m benchmarks.dask --profile``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

__all__ = ["profile_call"]

_PHASES = (("grblas_gpu.dask._nccl", "Exchange", ("allgather", "alltoall", "allgather_ints", "allgather_object",
                                                  "allgather_scalar")),
           ("grblas_gpu.dask._local", None, ("write", "run_partial", "fold", "join", "split", "frontier_edges")))
_LOG: list[tuple[str, float, Any]] = []


def _sync() -> None:
    try:
        import cupy

        cupy.cuda.runtime.deviceSynchronize()
    except ImportError:
        pass


def _size(name: str, args: tuple[Any, ...]) -> Any:
    """What a phase moved or made: an exchanged piece's entries, a partial result's."""
    if name == "allgather":
        return int(args[1].nvals)
    if name == "alltoall":
        return [int(s.nvals) for s in args[1]]
    return None


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        _sync()
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        _sync()
        _LOG.append((name, time.perf_counter() - t0, _size(name, args)))
        return out

    return run


_ORIGINALS: dict[tuple[str, str], Any] = {}


def _install(on: bool) -> int:
    """On a worker: wrap (or unwrap) the phases."""
    import importlib

    for module, cls, names in _PHASES:
        owner = importlib.import_module(module)
        owner = getattr(owner, cls) if cls else owner
        for name in names:
            if on and (module, name) not in _ORIGINALS:
                _ORIGINALS[module, name] = owner.__dict__[name]
                setattr(owner, name, _timed(name, owner.__dict__[name]))
            elif not on and (module, name) in _ORIGINALS:
                setattr(owner, name, _ORIGINALS.pop((module, name)))
    _LOG.clear()
    return 0


def _fetch() -> list[tuple[str, float, Any]]:
    out = list(_LOG)
    _LOG.clear()
    return out


def profile_call(client: Any, call: Callable[[], Any]) -> dict[str, Any]:
    """Run ``call()`` once with every worker's phases timed: the call's time, and per worker
    each phase's count and total seconds, and the sequence of phases (name, ms, size)."""
    client.run(_install, True)
    try:
        t0 = time.perf_counter()
        call()
        call_s = time.perf_counter() - t0
        logs = client.run(_fetch)
    finally:
        client.run(_install, False)
    phases, sequence = [], []
    for _, log in sorted(logs.items()):
        totals: dict[str, list[float]] = {}
        for name, dt, _size in log:
            t = totals.setdefault(name, [0, 0.0])
            t[0] += 1
            t[1] += dt
        phases.append({k: {"count": int(v[0]), "s": round(v[1], 6)} for k, v in totals.items()})
        sequence.append([(name, round(dt * 1e3, 3), size) for name, dt, size in log])
    return {"call_s": round(call_s, 6), "phases": phases, "sequence": sequence}
