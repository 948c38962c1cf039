"""connected_components (FastSV after a few propagation rounds) against scipy's weak components.

Each case runs with the default number of propagation rounds, with none (FastSV from the
start) and with enough for propagation alone, so both halves and the hand-over are checked.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator

import numpy as np
import pytest
from conftest import SHARED_DATA, cupy_pool_peak, min_id_labels, scipy_mmread, snap_edges, two_worker_client

import grblas_gpu as gb

cc = importlib.import_module("grblas_gpu.algorithms.connected_components")


@pytest.fixture(params=[None, 0, 1 << 30], ids=["default", "fastsv", "propagation"])
def rounds(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The propagation rounds before FastSV: the default, none, or all."""
    if request.param is not None:
        monkeypatch.setattr(cc, "PROPAGATION_ROUNDS", request.param)
    yield


def check(rows: np.ndarray, cols: np.ndarray, n: int, backend: str, symmetric: bool = False) -> None:
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    if symmetric:
        rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
        keep = np.unique(rows * max(n, 1) + cols, return_index=True)[1]
        rows, cols = rows[keep], cols[keep]
    A = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n, dtype=gb.BOOL, backend=backend)
    assert A.is_symmetric == (symmetric or n == 0 or bool(np.all(rows == cols)))
    got = cc.connected_components(A)
    assert got.dtype == gb.INT64 and got.nvals == n
    np.testing.assert_array_equal(got.to_dense(), min_id_labels(rows, cols, n))


@pytest.mark.parametrize("symmetric", [False, True], ids=["directed", "symmetric"])
@pytest.mark.parametrize(("seed", "n", "p"), [(0, 60, 0.03), (1, 300, 0.006), (2, 300, 0.002), (3, 1000, 0.003)])
def test_random_graphs(seed: int, n: int, p: float, symmetric: bool, backend: str, rounds: None) -> None:
    rng = np.random.default_rng(seed)
    m = rng.binomial(n * n, p)
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = np.unique(rows * n + cols, return_index=True)[1]
    check(rows[keep], cols[keep], n, backend, symmetric)


@pytest.mark.parametrize("symmetric", [False, True], ids=["directed", "symmetric"])
@pytest.mark.parametrize("order", ["up", "down", "shuffled"])
def test_long_path(order: str, symmetric: bool, backend: str, rounds: None) -> None:
    """A path of 3,000 vertices: 2,999 propagation rounds; FastSV needs about log2 of that."""
    n = 3000
    ids = {"up": np.arange(n), "down": np.arange(n)[::-1],
           "shuffled": np.random.default_rng(4).permutation(n)}[order]
    check(ids[:-1], ids[1:], n, backend, symmetric)


@pytest.mark.parametrize("symmetric", [False, True], ids=["directed", "symmetric"])
def test_directed_grid(symmetric: bool, backend: str, rounds: None) -> None:
    """A 40 x 40 grid, edges right and down (a mesh: 78 propagation rounds), ids shuffled."""
    side = 40
    ids = np.random.default_rng(5).permutation(side * side).reshape(side, side)
    rows = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    cols = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    check(rows, cols, side * side, backend, symmetric)


def test_many_small_components(backend: str, rounds: None) -> None:
    """2,000 vertices in stars and chains of 1 to 6, ids shuffled, edges in both directions."""
    rng = np.random.default_rng(6)
    perm = rng.permutation(2000)
    sizes = rng.integers(1, 7, 2000)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    starts = starts[starts < 2000]
    rows, cols = [], []
    for a, b in zip(starts, list(starts[1:]) + [2000], strict=True):
        members = perm[a:b]
        for k in range(1, len(members)):
            hub = members[0] if k % 2 else members[k - 1]  # stars and chains mixed
            src, dst = (hub, members[k]) if rng.random() < 0.5 else (members[k], hub)
            rows.append(src)
            cols.append(dst)
    check(np.array(rows), np.array(cols), 2000, backend)


@pytest.mark.parametrize("n", [0, 1, 7])
def test_no_edges(n: int, backend: str, rounds: None) -> None:
    """Every vertex isolated (and the empty graph): each its own component."""
    check(np.zeros(0), np.zeros(0), n, backend)


def test_one_vertex_with_a_self_loop(backend: str, rounds: None) -> None:
    check(np.array([0]), np.array([0]), 1, backend)


def test_self_loops_and_isolated_vertices(backend: str, rounds: None) -> None:
    # 5 -> 2 -> 0 with self-loops on 2 and 6, 3 <- 4, 1 and 6 and 7 alone
    check(np.array([5, 2, 2, 6, 4]), np.array([2, 0, 2, 6, 3]), 8, backend)


def test_snap_graph(backend: str, rounds: None) -> None:
    edges, n = snap_edges("email-Eu-core.csv")
    check(edges[:, 0], edges[:, 1], n, backend)


@pytest.mark.parametrize("mtx", ["cryg2500.mtx", "jagmesh7.mtx", "LFAT5_two.mtx", "karate.mtx"])
def test_lagraph_matrices(mtx: str, backend: str, rounds: None) -> None:
    path = SHARED_DATA / "lagraph" / mtx
    if not path.exists():
        pytest.skip(f"{path} not found")
    coo = scipy_mmread(path).tocoo()
    upper = coo.row <= coo.col  # the upper triangle alone: a directed graph
    check(coo.row[upper], coo.col[upper], coo.shape[0], backend)


def test_peak_memory_per_vertex(backend: str) -> None:
    """The GPU pool's peak beyond the matrix and its kept transpose stays within the figure
    the algorithm checks before it starts (``BYTES_PER_VERTEX``)."""
    if backend != "cupy":
        pytest.skip("the pool's peak is a GPU figure")
    side = 300
    ids = np.arange(side * side).reshape(side, side)
    rows = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    cols = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    A = gb.Matrix.from_coo(rows, cols, True, nrows=side * side, ncols=side * side, dtype=gb.BOOL,
                           backend=backend)
    assert not A.is_symmetric
    cc.connected_components(A)  # builds and keeps the transpose, compiles the kernels
    with cupy_pool_peak() as peak:
        cc.connected_components(A)
    assert peak[0] <= cc.BYTES_PER_VERTEX * side * side


def test_changes_of_a_product_written_without_accumulator(backend: str) -> None:
    """``w(changed=d) << A.mxv(u)`` with a full ``w`` (FastSV's ``gp = f[f]``): ``w`` is the
    product, ``d`` its entries that differ from ``w``'s old values (on the GPU this once took
    the relaxing push's path, meant for an accumulator, and raised)."""
    n = 6
    parent = np.array([0, 0, 1, 3, 3, 2])
    P = gb.Matrix.from_coo(np.arange(n), parent, True, nrows=n, ncols=n, dtype=gb.BOOL, backend=backend)
    f = gb.Vector.from_coo(np.arange(n), parent, size=n, dtype=gb.INT64, backend=backend)
    w = gb.Vector.from_coo(np.arange(n), [0, 0, 1, 3, 3, 2], size=n, dtype=gb.INT64, backend=backend)
    d = gb.Vector(gb.INT64, n, backend=backend)
    w(changed=d) << P.mxv(f, gb.semiring.min_second[gb.INT64])
    np.testing.assert_array_equal(w.to_dense(), parent[parent])  # [0, 0, 0, 3, 3, 1]
    idx, vals = d.to_coo()
    np.testing.assert_array_equal(idx, [2, 5])
    np.testing.assert_array_equal(vals, [0, 1])


def test_distributed_long_path() -> None:
    """A distributed A (two worker processes) propagates to the end, past the rounds after
    which a local A turns to FastSV: a shuffled path of 40 vertices, directed and symmetric."""
    pytest.importorskip("distributed")
    import grblas_gpu.dask as gd

    n = 40
    ids = np.random.default_rng(7).permutation(n)
    with two_worker_client("numpy") as client:
        for rows, cols in ((ids[:-1], ids[1:]), (np.r_[ids[:-1], ids[1:]], np.r_[ids[1:], ids[:-1]])):
            A = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n, dtype=gb.BOOL, backend="numpy")
            got = cc.connected_components(gd.distribute(A, client, backend="numpy")).gather("numpy")
            np.testing.assert_array_equal(got.to_dense(), np.zeros(n))
