"""Small host arrays reach the GPU through the page-locked ring (backends/cupy/staging.py):
each copy holds what the host array held when it was given, also after the ring wraps around
and after the host array changes.  Needs CuPy and a CUDA GPU; skipped elsewhere."""

from __future__ import annotations

import numpy as np
import pytest

import grblas_gpu as gb
from grblas_gpu.backends import get_backend, gpu_available
from grblas_gpu.dtypes import ALL_TYPES

pytestmark = pytest.mark.skipif(not gpu_available(), reason="needs CuPy and a CUDA GPU")


def test_small_arrays_of_every_type_round_trip() -> None:
    be = get_backend("cupy")
    rng = np.random.default_rng(0)
    for t in ALL_TYPES:
        for size in (0, 1, 3, 32):
            host = rng.integers(0, 100, size).astype(t.np_type)
            got = be.asarray(host)
            assert got.dtype == host.dtype and got.shape == host.shape
            np.testing.assert_array_equal(got.get(), host)


def test_copies_survive_the_ring_wrapping_and_host_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    from grblas_gpu.backends.cupy import staging

    monkeypatch.setattr(staging, "RING_BYTES", 64)  # (the ring made before keeps its larger buffer)
    be = get_backend("cupy")
    host = np.zeros(1, np.int64)
    copies = []
    for i in range(40):  # 40 slots of 16 bytes: the 64-byte ring wraps ten times
        host[0] = i
        copies.append(be.asarray(host))
    host[0] = -1
    assert [int(c.get()[0]) for c in copies] == list(range(40))


def test_staged_counts_the_ring_copies() -> None:
    """``staged()`` grows by one for each small copy through the ring, not for a large one
    (a captured loop compares two readings to refuse a capture that staged)."""
    from grblas_gpu.backends.cupy import staging

    be = get_backend("cupy")
    before = staging.staged()
    for i in range(3):
        be.asarray(np.array([i], np.int64))
    assert staging.staged() == before + 3
    be.asarray(np.zeros(staging.LARGEST_STAGED // 8 + 1, np.int64))
    assert staging.staged() == before + 3


def test_bfs_from_each_source() -> None:
    """A one-entry Vector per source (kept on the host; the loop's run takes it in its state,
    and the ring serves it where an ordinary statement reads it): BFS levels against scipy."""
    import scipy.sparse as sps
    from grblas_gpu.algorithms import bfs_levels
    from scipy.sparse import csgraph

    g = sps.random(300, 300, 0.01, random_state=4, format="csr")
    c = g.tocoo()
    A = gb.Matrix.from_coo(c.row, c.col, 1.0, nrows=300, ncols=300, backend="cupy")
    for source in range(0, 300, 7):
        idx, got = bfs_levels(A, source).to_coo()
        expected = csgraph.shortest_path(g, unweighted=True, indices=source)
        np.testing.assert_array_equal(idx, np.flatnonzero(np.isfinite(expected)))
        np.testing.assert_array_equal(got, expected[idx])
