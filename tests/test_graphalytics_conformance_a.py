"""LDBC Graphalytics conformance for BFS, PageRank, SSSP and WCC.

Every ``test-*`` and ``example-*`` graph in the shared Graphalytics data that has an
expected file for one of these algorithms is run and compared with the spec's match
rules: exact for BFS (unreachable = INT64_MAX), 1e-4 relative for PR and SSSP
(unreachable = infinity), equivalence (any relabelling) for WCC.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import SHARED_DATA
from grblas_gpu.algorithms.bfs import bfs_levels
from grblas_gpu.algorithms.connected_components import connected_components
from grblas_gpu.algorithms.pagerank import pagerank
from grblas_gpu.algorithms.sssp import sssp

DATA = SHARED_DATA / "graphalytics"
INT64_MAX = 9223372036854775807
ALGORITHMS = ("BFS", "PR", "SSSP", "WCC")


def _cases() -> list[tuple[str, str]]:
    if not DATA.is_dir():
        return []
    cases = []
    for expected in sorted(DATA.glob("*-*")):
        graph, _, alg = expected.name.rpartition("-")
        if alg in ALGORITHMS and graph.startswith(("test-", "example-")):
            cases.append((graph, alg))
    return cases


CASES = _cases()


def _read(graph: str, backend: str) -> tuple[object, np.ndarray, dict]:
    """(matrix, sorted vertex ids, properties) of a Graphalytics graph."""
    io = pytest.importorskip("grblas_gpu.io")
    g = io.read_graphalytics(DATA / graph, backend=backend)
    return g.matrix, np.asarray(g.ids), g.properties


def _expected(graph: str, alg: str, ids: np.ndarray) -> np.ndarray:
    """The expected values in row order (row i is vertex ids[i])."""
    from grblas_gpu.io import read_graphalytics_output

    out = read_graphalytics_output(DATA / f"{graph}-{alg}")
    assert sorted(out) == ids.tolist()
    return np.array([out[v] for v in ids.tolist()])


@pytest.mark.skipif(not CASES, reason=f"Graphalytics data not found at {DATA}")
@pytest.mark.parametrize(("graph", "alg"), CASES, ids=[f"{g}-{a}" for g, a in CASES])
def test_graphalytics(graph: str, alg: str, backend: str) -> None:
    A, ids, props = _read(graph, backend)
    expected = _expected(graph, alg, ids)
    index = {v: i for i, v in enumerate(ids.tolist())}
    if alg == "BFS":
        got = bfs_levels(A, index[props["bfs.source-vertex"]]).to_dense(fill_value=INT64_MAX)
        np.testing.assert_array_equal(got, expected.astype(np.int64))
    elif alg == "SSSP":
        got = sssp(A, index[props["sssp.source-vertex"]]).to_dense(fill_value=math.inf)
        assert np.array_equal(np.isinf(got), np.isinf(expected))
        finite = ~np.isinf(expected)
        assert np.all(np.abs(got[finite] - expected[finite]) <= 1e-4 * np.abs(expected[finite]))
    elif alg == "PR":
        got = pagerank(A, alpha=props["pr.damping-factor"], tol=0,
                       max_iter=props["pr.num-iterations"], weight=False).to_dense()
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=0)
    else:
        got = connected_components(A).to_dense()
        _assert_same_partition(got, expected)


def _assert_same_partition(got: np.ndarray, expected: np.ndarray) -> None:
    """Equal up to relabelling: a bijection between the two label sets."""
    pairs = set(zip(got.tolist(), expected.tolist()))
    assert len(pairs) == len(set(got.tolist())) == len(set(expected.tolist()))


def test_all_expected_files_are_covered() -> None:
    if not CASES:
        pytest.skip(f"Graphalytics data not found at {DATA}")
    # 4 algorithms; BFS has 4 graphs, PR/SSSP/WCC 4 each: the two examples + two test graphs.
    assert {a for _, a in CASES} == set(ALGORITHMS)
    assert len(CASES) == 16
