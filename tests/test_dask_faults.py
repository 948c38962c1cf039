"""A worker killed in the middle of an algorithm on a 2-process LocalCluster: the call raises
WorkerLost naming it, the other partition and the client stay usable, and the algorithm runs
again on the rebuilt partition (from the local Matrix, and from the file it was read from)."""

from __future__ import annotations

import os
import signal
import threading
import time
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

pytestmark = pytest.mark.usefixtures("spmd_path")  # (through tasks and through actors)

N = 120


def _wait_for_workers(client: Client, n: int, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while len(client.nthreads()) < n:
        if time.monotonic() > end:
            raise TimeoutError("the nanny did not restart the worker")
        time.sleep(0.1)


def test_killed_worker_then_rebuild(tmp_path: Any) -> None:
    M = sps.random(N, N, density=0.05, random_state=5, format="coo")
    A = gb.Matrix.from_coo(M.row, M.col, M.data, nrows=N, ncols=N, backend="numpy")
    path = tmp_path / "g.mtx"
    gb.io.mmwrite(path, A)
    with two_worker_client("numpy") as client:
        D = gd.distribute(A, client, backend="numpy")
        R = gd.read_graph(path, client, backend="numpy")
        victim, survivor = D.layout.context.workers[1], 0
        pid = client.run(os.getpid, workers=[victim])[victim]
        killer = threading.Timer(1.0, os.kill, (pid, signal.SIGKILL))  # a worker process this test started
        killer.start()
        with pytest.raises(gd.WorkerLost) as info:
            pagerank(D, tol=0, max_iter=10**6)  # runs until the worker dies
        killer.join()
        assert info.value.worker == victim and victim in str(info.value) and "GrB_PANIC" in str(info.value)
        assert info.value.partitions == (1,)

        kept = client.gather(D.partitions[survivor])  # the other partition is still there
        lo, hi = D.layout.offsets[0], D.layout.offsets[1]
        assert kept.isequal(A[lo:hi, :].new())
        with pytest.raises(gd.WorkerLost):  # until rebuilt, every call says so
            bfs_levels(D, 0)

        _wait_for_workers(client, 2)
        with pytest.raises(gb.InvalidValue):
            D.rebuild()  # distributed from a local Matrix: it must be given again
        assert D.rebuild(source=A) == [1]
        assert victim not in D.layout.context.workers
        assert pagerank(D, tol=1e-4).gather().isclose(pagerank(A, tol=1e-4), rel_tol=1e-9)
        assert R.rebuild() == [1]  # read again from the file
        assert bfs_levels(R, 0).gather().isequal(bfs_levels(A, 0))
        assert np.array_equal(R.gather().to_coo()[0], A.to_coo()[0])


def test_benchmark_runs_on_cpu_workers(tmp_path: Any) -> None:
    """``python -m benchmarks.dask --cpu`` at a small scale: the smoke test of the benchmark;
    the graph made on the workers is the benchmarks' Kronecker graph."""
    from benchmarks import dask as bench
    from benchmarks import graphs

    out = tmp_path / "dask.json"
    one, rec = bench.main(["--cpu", "--strong", "8:1,2", "--weak", "", "--iters", "2", "--repeat", "1",
                           "--out", str(out)])
    assert rec["edges"] == one["edges"] == graphs.kronecker_symmetric(8).nnz and rec["exchange"] == "dask"
    assert rec["pagerank_iter_s"] > 0 and len(rec["device_bytes_per_worker"]) == 2
    assert one["single_process"]["pagerank_iter_s"] > 0 and rec["pagerank_speedup_vs_1"] > 0
    assert out.exists()
