"""connected_components (weak) against scipy.sparse.csgraph and LAGraph's component counts."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SHARED_DATA, min_id_labels, scipy_mmread
from grblas_gpu.algorithms.connected_components import connected_components

import grblas_gpu as gb
from grblas_gpu.exceptions import DimensionMismatch, DomainMismatch

LAGRAPH = SHARED_DATA / "lagraph"


CASES = [(seed, n, p, directed) for seed in (0, 1, 2) for directed in (True, False)
         for n, p in ((50, 0.03), (400, 0.004))]


@pytest.mark.parametrize(("seed", "n", "p", "directed"), CASES)
def test_matches_scipy(seed: int, n: int, p: float, directed: bool, backend: str) -> None:
    rng = np.random.default_rng(seed)
    edge = rng.random((n, n)) < p
    edge[rng.choice(n, 5), rng.choice(n, 5)] = True  # some self-loops (and a few more edges)
    edge[n - 3:, :] = edge[:, n - 3:] = False  # isolated vertices
    if not directed:
        edge |= edge.T
    rows, cols = np.nonzero(edge)
    A = gb.Matrix.from_coo(rows, cols, rng.uniform(-1, 1, len(rows)), nrows=n, ncols=n, backend=backend)
    got = connected_components(A)
    assert got.dtype == gb.INT64 and got.nvals == n
    np.testing.assert_array_equal(got.to_dense(), min_id_labels(rows, cols, n))


def test_direction_is_ignored(backend: str) -> None:
    # 3 -> 1 -> 0 and 2 -> 1: one weak component {0, 1, 2, 3}; 4 alone; 5 -> 6.
    A = gb.Matrix.from_coo([3, 1, 2, 5], [1, 0, 1, 6], True, nrows=7, ncols=7, backend=backend)
    np.testing.assert_array_equal(connected_components(A).to_dense(), [0, 0, 0, 0, 4, 5, 5])
    assert connected_components(gb.Matrix(gb.BOOL, 0, 0, backend=backend)).nvals == 0


def _lagraph_counts() -> list[tuple[str, int]]:
    table = LAGRAPH / "expected" / "triangle-counts-and-components.tsv"
    if not table.exists():
        return []
    rows = [line.split("\t") for line in table.read_text().splitlines() if line and line[0] != "#"]
    return [(name, int(count)) for name, _, count in rows if count.strip() != "-"]


LAGRAPH_COUNTS = _lagraph_counts()


@pytest.mark.skipif(not LAGRAPH_COUNTS, reason=f"LAGraph data not found at {LAGRAPH}")
@pytest.mark.parametrize(("mtx", "count"), LAGRAPH_COUNTS, ids=[m for m, _ in LAGRAPH_COUNTS])
def test_lagraph_component_counts(mtx: str, count: int, backend: str) -> None:
    pytest.importorskip("scipy.io")
    coo = scipy_mmread(LAGRAPH / mtx).tocoo()  # symmetric files come back with both triangles
    n = coo.shape[0]
    A = gb.Matrix.from_coo(coo.row, coo.col, 1, nrows=n, ncols=n, dtype=gb.BOOL, backend=backend)
    labels = connected_components(A).to_dense()
    assert len(np.unique(labels)) == count
    assert np.all(labels <= np.arange(n)) and np.all(labels[labels] == labels)


def test_bad_arguments(backend: str) -> None:
    with pytest.raises(DimensionMismatch):
        connected_components(gb.Matrix.from_coo([0], [1], 1.0, nrows=2, ncols=3, backend=backend))
    with pytest.raises(DomainMismatch):
        connected_components(np.eye(3))
