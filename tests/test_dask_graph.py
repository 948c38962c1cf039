"""The benchmark's Kronecker graph made on the workers (``benchmarks.dask.kron_block``): each
partition is exactly the rows of the single-process graph of the same seed."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

pytest.importorskip("distributed")

from conftest import two_worker_client

from benchmarks import dask as bench
from benchmarks import graphs


def _csr(block: Any) -> tuple[np.ndarray, ...]:
    return tuple(np.asarray(a) for a in block.to_csr())


def _same_rows(got: tuple[np.ndarray, ...], g: graphs.Graph, lo: int, hi: int) -> None:
    a, b = int(g.indptr[lo]), int(g.indptr[hi])
    assert np.array_equal(got[0], g.indptr[lo:hi + 1] - a)
    assert np.array_equal(got[1], g.indices[a:b])
    assert np.array_equal(got[2], g.weights[a:b])


def test_blocks_are_rows_of_the_single_process_graph() -> None:
    """Uneven cuts, an empty range and the whole graph, made in this process."""
    g = graphs.kronecker_symmetric(10, seed=5)
    n = g.n
    for cuts in ([0, n], [0, 1, 300, 300, 777, n]):
        for lo, hi in itertools.pairwise(cuts):
            _same_rows(_csr(bench.kron_block(10, 5, lo, hi, "numpy")), g, lo, hi)


def test_partitions_on_cpu_workers_are_rows_of_the_single_process_graph() -> None:
    g = graphs.kronecker_symmetric(9, seed=42)
    with two_worker_client("numpy") as client:
        A = bench._graph(client, 9, 42)
        ctx = A.layout.context
        parts = ctx.gather([ctx.submit(_csr, b, part=k) for k, b in enumerate(A.partitions)], "csr")
        nvals = A.nvals
        bfs = bench.check_bfs(A, g.max_degree_vertex())
        rank = bench.check_pagerank(A)
        wrong = bench.check_pagerank(A, change=1e-1, max_iter=100, limit=1e-5)  # stopped early: the equation does not hold
    assert bfs["ok"] and bfs["reached"] > 1 and bfs["source_level"] == 0, bfs
    assert rank["ok"] and rank["entries"] == 1 << 9, rank
    assert not wrong["ok"] and wrong["residual_l1"] > 1e-5, wrong
    offs = A.layout.offsets
    assert offs[0] == 0 and offs[-1] == g.n and len(parts) == 2
    for k, got in enumerate(parts):
        _same_rows(got, g, offs[k], offs[k + 1])
    assert nvals == g.nnz
