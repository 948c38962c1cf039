"""SPMD calls through one actor per worker (``grblas_gpu.dask.actors``, opt-in): off by
default, on through ``GRBLAS_GPU_DASK_ACTORS=1``; when on, a call submits no task of its own,
runs in each worker's task thread, falls back to tasks where a partition is not in its
worker's memory, and a Vector result released before its partitions were taken leaves
nothing on the workers.  (The other Dask tests run both ways: ``spmd_path`` in conftest.)"""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("distributed")

import scipy.sparse as sps
from conftest import two_worker_client
from distributed import Client
from grblas_gpu.algorithms import bfs_levels, pagerank

import grblas_gpu as gb
import grblas_gpu.dask as gd
from grblas_gpu.dask import actors, layout
from grblas_gpu.dask.spmd import run_spmd

N = 200


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """Two worker processes of one thread on the NumPy backend."""
    with two_worker_client("numpy") as c:
        yield c


@pytest.fixture
def on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(actors, "ENABLED", True)


def _graph(seed: int) -> gb.Matrix:
    M = sps.random(N, N, density=4 / N, random_state=seed, format="coo")
    M = (M + M.T).tocoo()
    return gb.Matrix.from_coo(M.row, M.col, M.data + 1, nrows=N, ncols=N, backend="numpy")


def _count_submissions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    submit, submit_each = layout.Context.submit, layout.Context.submit_each

    def one(self: layout.Context, fn: Any, *args: Any, part: int, **kwargs: Any) -> Any:
        names.append(fn.__name__)
        return submit(self, fn, *args, part=part, **kwargs)

    def each(self: layout.Context, calls: Any, firsts: Any, then: Any = None) -> Any:
        names.extend(getattr(c, "func", c).__name__ for c in calls)
        return submit_each(self, calls, firsts, then)

    monkeypatch.setattr(layout.Context, "submit", one)
    monkeypatch.setattr(layout.Context, "submit_each", each)
    return names


def test_off_by_default_on_through_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRBLAS_GPU_DASK_ACTORS", raising=False)
    assert actors.ENABLED is None and not actors.enabled()
    monkeypatch.setenv("GRBLAS_GPU_DASK_ACTORS", "1")
    assert actors.enabled()
    monkeypatch.setenv("GRBLAS_GPU_DASK_ACTORS", "0")
    assert not actors.enabled()
    monkeypatch.setattr(actors, "ENABLED", True)
    assert actors.enabled()


def test_calls_go_through_the_actors_when_on(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    A = _graph(1)
    D = gd.distribute(A, client, backend="numpy")
    expected = bfs_levels(A, 0)
    monkeypatch.setenv("GRBLAS_GPU_DASK_ACTORS", "1")
    bfs_levels(D, 0)  # (the mesh and the actors made)
    names = _count_submissions(monkeypatch)
    got = bfs_levels(D, 0)
    assert names == ["take", "take"]  # no task runs the call: only the tasks taking its result
    assert got.gather(backend="numpy").isequal(expected, check_dtype=True)
    names.clear()
    assert run_spmd(D, _ident, (), {}, "a call") == client.submit(threading.get_ident, pure=False,
                                                                   workers=[D.layout.context.workers[0]]).result()
    assert names == []  # a value result: nothing submitted at all
    monkeypatch.setenv("GRBLAS_GPU_DASK_ACTORS", "0")
    bfs_levels(D, 0)
    assert names.count("run_part") == 2


def _ident(A: Any) -> int:
    return threading.get_ident()


def test_the_call_runs_in_the_workers_task_thread(client: Client, on: None) -> None:
    """(So whatever the algorithms keep per thread, CuPy's current device and stream among
    them, is the task path's.)"""
    A = _graph(2)
    for parts in (1, 2):
        D = gd.distribute(A, client, npartitions=parts, backend="numpy")
        task_thread = client.submit(threading.get_ident, pure=False, workers=[D.layout.context.workers[0]]).result()
        assert run_spmd(D, _ident, (), {}, "a call") == task_thread


def test_a_partition_missing_from_its_worker_falls_back_to_tasks(client: Client, on: None,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a worker's memory lacks its partition (Dask moved it), every worker learns it
    before running anything and the call runs through tasks."""
    A = _graph(3)
    D = gd.distribute(A, client, backend="numpy")
    pagerank(D, tol=0, max_iter=2)
    execute = actors._execute

    async def one_missing(client_: Any, address: str, actor: Any, args: tuple[Any, ...]) -> Any:
        if args[1]["rank"] == 1:
            args = (*args[:4], "no-such-key", *args[5:])
        return await execute(client_, address, actor, args)

    monkeypatch.setattr(actors, "_execute", one_missing)
    names = _count_submissions(monkeypatch)
    got = pagerank(D, tol=0, max_iter=20)
    assert names.count("run_part") == 2
    assert got.gather(backend="numpy").isclose(pagerank(A, tol=0, max_iter=20), rel_tol=1e-12)


def _releases_done(client: Client) -> None:
    """Wait until the client's loop has counted the futures released so far: a release is a
    callback queued on that loop, so a call made at once may still see the result held (and
    drop it at a later call)."""
    client.sync(asyncio.sleep, 0)


def _held() -> int:
    return len(actors._HELD)


def test_released_results_leave_nothing_on_the_workers(client: Client, on: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    A = _graph(4)
    D = gd.distribute(A, client, backend="numpy")
    expected = bfs_levels(A, 3)
    kept = bfs_levels(D, 3)
    for _ in range(3):
        bfs_levels(D, 3)  # released at once: taken, or dropped by the next call
    _releases_done(client)
    submit_each = layout.Context.submit_each
    taking = [False]

    def never_taken(self: layout.Context, calls: Any, firsts: Any, then: Any = None) -> Any:
        return submit_each(self, calls if taking[0] else [_ignore] * len(calls), firsts, then)

    monkeypatch.setattr(layout.Context, "submit_each", never_taken)
    lost = bfs_levels(D, 3)  # its partitions stay on the workers until it is released
    assert sum(client.run(_held).values()) == 2
    del lost
    gc.collect()
    _releases_done(client)
    taking[0] = True
    run_spmd(D, _ident, (), {}, "a call")
    assert sum(client.run(_held).values()) == 0
    assert kept.gather(backend="numpy").isequal(expected)


def _ignore(x: Any) -> None:
    return None


def test_errors_as_through_tasks(client: Client, on: None) -> None:
    A = _graph(5)
    D = gd.distribute(A, client, backend="numpy")
    with pytest.raises(gb.exceptions.IndexOutOfBound):
        bfs_levels(D, N)
    with pytest.raises(ZeroDivisionError):
        run_spmd(D, _fails_on_one, (), {}, "a call")
    assert np.isclose(pagerank(D, tol=1e-8).gather(backend="numpy").reduce().new().value, 1.0)


def _fails_on_one(A: Any) -> int:
    if A._layout.context.rank == 1:
        raise ZeroDivisionError("only on rank 1")
    A.reduce_scalar().new()  # rank 0 waits in an exchange for rank 1, which never comes
    return 0
