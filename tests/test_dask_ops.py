"""grblas_gpu.dask on a LocalCluster of 2 CPU worker processes (NumPy backend): every
operation the algorithms use and the five algorithms, each against the single-process result
(and mxv against scipy); readers against the single-process readers; bad input."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("distributed")

import itertools

import scipy.sparse as sps
from conftest import two_worker_client
from distributed import Client
from grblas_gpu.algorithms import bfs_levels, connected_components, pagerank, sssp, widest_path

import grblas_gpu as gb
import grblas_gpu.dask as gd
from grblas_gpu import binary, monoid, select, semiring, unary
from grblas_gpu.exceptions import DimensionMismatch, DomainMismatch, InvalidValue

pytestmark = pytest.mark.usefixtures("spmd_path")  # (through tasks and through actors)

N = 150


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """Two worker processes of one thread on the NumPy backend, started once for the module."""
    with two_worker_client("numpy") as c:
        yield c


def _graph(seed: int, dtype: Any = np.int64, symmetric: bool = False) -> gb.Matrix:
    M = sps.random(N, N, density=0.04, random_state=seed, format="coo")
    if symmetric:
        M = (M + M.T).tocoo()
    vals = (M.data * 9).astype(dtype) + 1
    return gb.Matrix.from_coo(M.row, M.col, vals, nrows=N, ncols=N, backend="numpy")


@pytest.fixture(scope="module")
def A() -> gb.Matrix:
    """A directed graph with a few vertices unreachable from 0."""
    return _graph(3)


@pytest.fixture(scope="module")
def D(client: Client, A: gb.Matrix) -> gd.DistMatrix:
    """A, distributed."""
    return gd.distribute(A, client, backend="numpy")


def _vec(seed: int, density: float = 0.3, dtype: Any = np.float64) -> gb.Vector:
    rng = np.random.default_rng(seed)
    idx = np.flatnonzero(rng.random(N) < density)
    return gb.Vector.from_coo(idx, (rng.random(len(idx)) * 10).astype(dtype), size=N, backend="numpy")


def _same(dist: Any, local: Any, exact: bool = True) -> None:
    """Equal to the single-process result: exactly, or within reassociation of float sums."""
    got = dist.gather(backend="numpy")
    ok = got.isequal(local, check_dtype=True) if exact else got.isclose(local, rel_tol=1e-12, check_dtype=True)
    assert ok, (got, local)


# ------------------------------------------------------------------ layout and round trips
def test_distribute_balances_entries_and_gathers_back(D: gd.DistMatrix, A: gb.Matrix) -> None:
    offs = D.layout.offsets
    assert len(D.partitions) == 2 and offs[0] == 0 and offs[-1] == N
    per_part = [int(np.diff(A.to_csr()[0])[a:b].sum()) for a, b in itertools.pairwise(offs)]
    assert abs(per_part[0] - per_part[1]) <= max(np.diff(A.to_csr()[0])) + 1
    assert D.nvals == A.nvals and D.shape == A.shape and D.dtype == A.dtype
    _same(D, A)
    assert isinstance(D, gb.Matrix) and D.backend == "numpy"


def test_vector_round_trip_and_placement(D: gd.DistMatrix) -> None:
    v = _vec(1)
    dv = gd.distribute(v, like=D)
    assert dv.layout.same(D.layout) and dv.nvals == v.nvals
    _same(dv, v)
    w = gb.Vector.from_coo([3, 140], [1.5, 2.5], size=N, backend=D.backend)  # what the algorithms do
    assert isinstance(w, gd.DistVector)
    _same(w, gb.Vector.from_coo([3, 140], [1.5, 2.5], size=N, backend="numpy"))
    f = gb.Vector.from_scalar(7, N, gb.INT32, backend=D.backend)
    _same(f, gb.Vector.from_scalar(7, N, gb.INT32, backend="numpy"))


# ------------------------------------------------------------------ products
def test_mxv_matches_scipy(D: gd.DistMatrix, A: gb.Matrix) -> None:
    v = _vec(2, 1.0)
    got = D.mxv(gd.distribute(v, like=D), semiring.plus_times).new().gather()
    r, c, x = A.to_coo()
    want = sps.coo_array((x.astype(float), (r, c)), shape=(N, N)) @ v.to_dense(0.0)
    idx, vals = got.to_coo()
    np.testing.assert_allclose(vals, want[idx], rtol=1e-12)
    assert set(idx) == set(np.flatnonzero(np.diff(A.to_csr()[0])))


@pytest.mark.parametrize(("sr", "density"), [("min_plus", 0.02), ("plus_times", 0.6), ("any_pair", 0.3),
                                             ("max_min", 1.0)])  # sparse, dense and full vectors exchanged
def test_products_with_mask_accum_replace(D: gd.DistMatrix, A: gb.Matrix, density: float, sr: str) -> None:
    u, m, w0 = _vec(4, density), _vec(5, 0.5), _vec(6, 0.5)
    du, dm = gd.distribute(u, like=D), gd.distribute(m, like=D)
    op = getattr(semiring, sr)
    exact = sr != "plus_times"  # a float sum's terms are added in another order
    for dist_expr, local_expr in [(du.vxm(D, op), u.vxm(A, op)), (D.mxv(du, op), A.mxv(u, op)),
                                  (D.T.mxv(du, op), A.T.mxv(u, op))]:
        _same(dist_expr.new(), local_expr.new(), exact)
        dw, w = gd.distribute(w0, like=D), w0.dup()
        dw(~dm.S, binary.min, replace=True) << dist_expr
        w(~m.S, binary.min, replace=True) << local_expr
        _same(dw, w, exact)
        dw, w = gd.distribute(w0, like=D), w0.dup()
        dw(dm.V) << dist_expr
        w(m.V) << local_expr
        _same(dw, w, exact)


def test_changed_frontier(D: gd.DistMatrix, A: gb.Matrix) -> None:
    dist, frontier = _vec(7, 0.2), _vec(8, 0.05)
    dd, df = gd.distribute(dist, like=D), gd.distribute(frontier, like=D)
    A_f = A.dup(gb.FP64)
    D_f = gd.distribute(A_f, D.client, like=None, backend="numpy")
    D_f = D.dup(gb.FP64)
    assert D_f.layout.same(D.layout)
    _same(D_f, A_f)
    dd(binary.min, changed=df) << df.vxm(D_f, semiring.min_plus)
    dist(binary.min, changed=frontier) << frontier.vxm(A_f, semiring.min_plus)
    _same(dd, dist)
    _same(df, frontier)


# ------------------------------------------------------------------ element-wise, apply, select, reduce
def test_elementwise_apply_select(D: gd.DistMatrix) -> None:
    u, v = _vec(9), _vec(10)
    du, dv = gd.distribute(u, like=D), gd.distribute(v, like=D)
    pairs = [
        (du.ewise_add(dv, binary.max), u.ewise_add(v, binary.max)),
        (du.ewise_mult(dv, binary.lt), u.ewise_mult(v, binary.lt)),
        (du.ewise_union(dv, binary.minus, 0.5, -1.0), u.ewise_union(v, binary.minus, 0.5, -1.0)),
        (du.apply(unary.ainv), u.apply(unary.ainv)),
        (du.apply(binary.truediv, left=2.0), u.apply(binary.truediv, left=2.0)),
        (du.apply(binary.times, right=gb.Scalar.from_value(3.0)), u.apply(binary.times, right=3.0)),
        (du.select(select.valuegt, 5.0), u.select(select.valuegt, 5.0)),
    ]
    for d, loc in pairs:
        _same(d.new(), loc.new())
    _same(du.dup(gb.INT32), u.dup(gb.INT32))
    _same(du.dup(mask=dv.S), u.dup(mask=v.S))


def test_reductions(D: gd.DistMatrix, A: gb.Matrix) -> None:
    u, v = _vec(11), _vec(12)
    du, dv = gd.distribute(u, like=D), gd.distribute(v, like=D)
    assert du.reduce(monoid.plus).new().value == pytest.approx(u.reduce(monoid.plus).new().value, rel=1e-12)
    assert du.reduce(monoid.max).new().value == u.reduce(monoid.max).new().value
    assert du.inner(dv).new().value == pytest.approx(u.inner(v).new().value, rel=1e-12)
    assert D.reduce_scalar(monoid.min).new().value == A.reduce_scalar(monoid.min).new().value
    assert D.reduce_scalar(monoid.plus).new().value == A.reduce_scalar(monoid.plus).new().value
    _same(D.reduce_rowwise(monoid.plus).new(), A.reduce_rowwise(monoid.plus).new())
    empty = gd.distribute(gb.Vector(gb.FP64, N, backend="numpy"), like=D)
    assert empty.reduce(monoid.max).new().is_empty
    _same(D.apply(unary.ainv).new(), A.apply(unary.ainv).new())
    _same(D.select(select.valuegt, 5).new(), A.select(select.valuegt, 5).new())


def test_assign_scalar_and_vector(D: gd.DistMatrix) -> None:
    u, m = _vec(13, 1.0), _vec(14, 0.4)
    du, dm = gd.distribute(u, like=D), gd.distribute(m, like=D)
    du(dm.S) << 0.25
    u(m.S) << 0.25
    _same(du, u)
    du(binary.plus) << dm
    u(binary.plus) << m
    _same(du, u)
    du << dm.ewise_add(du, binary.first)
    u << m.ewise_add(u, binary.first)
    _same(du, u)


def test_symmetry_found_on_the_workers(client: Client) -> None:
    S, A = _graph(21, symmetric=True), _graph(22)
    assert gd.distribute(S, client, backend="numpy").is_symmetric
    assert not gd.distribute(A, client, backend="numpy").is_symmetric


# ------------------------------------------------------------------ the algorithms, unchanged
def test_paths_and_components(D: gd.DistMatrix, A: gb.Matrix, client: Client) -> None:
    _same(bfs_levels(D, 0), bfs_levels(A, 0))
    _same(sssp(D, 0), sssp(A, 0))
    Af = A.dup(gb.FP64)
    _same(widest_path(gd.distribute(Af, client, backend="numpy"), 0), widest_path(Af, 0))
    _same(connected_components(D), connected_components(A))
    S = _graph(23, symmetric=True)
    _same(connected_components(gd.distribute(S, client, backend="numpy")), connected_components(S))


def test_pagerank(D: gd.DistMatrix, A: gb.Matrix) -> None:
    got, want = pagerank(D, tol=1e-4).gather(), pagerank(A, tol=1e-4)
    assert got.isclose(want, rel_tol=1e-9)
    got = pagerank(D, weight=False, personalization={1: 1.0, 5: 2.0}, tol=0, max_iter=5).gather()
    assert got.isclose(pagerank(A, weight=False, personalization={1: 1.0, 5: 2.0}, tol=0, max_iter=5), rel_tol=1e-9)


# ------------------------------------------------------------------ readers
def test_read_matrix_market(client: Client, tmp_path: Any) -> None:
    S = _graph(31, symmetric=True)
    r, c, v = S.to_coo()
    low = r >= c
    path = tmp_path / "g.mtx"
    lines = [f"{i + 1} {j + 1} {x}" for i, j, x in zip(r[low], c[low], v[low], strict=True)]
    path.write_text("%%MatrixMarket matrix coordinate integer symmetric\n% a comment\n"
                    f"{N} {N} {len(lines)}\n" + "\n".join(lines) + "\n")
    D = gd.read_graph(path, client, backend="numpy")
    assert D.is_symmetric and D.nvals == S.nvals
    _same(D, gb.io.mmread(path, backend="numpy"))
    _same(bfs_levels(D, 0), bfs_levels(S, 0))


def test_read_edge_list(client: Client, tmp_path: Any) -> None:
    A = _graph(32)
    r, c, v = A.to_coo()
    path = tmp_path / "g.txt"
    path.write_text("# src dst weight\n" + "".join(f"{i}\t{j}\t{float(x)}\n" for i, j, x in zip(r, c, v, strict=True)))
    D = gd.read_graph(path, client, backend="numpy")
    local, ids = gb.io.read_edgelist(path, backend="numpy")
    lr, lc, lv = local.to_coo()
    top = int(ids.max()) + 1
    want = gb.Matrix.from_coo(ids[lr], ids[lc], lv, top, top, backend="numpy")
    _same(D, want)
    path.write_text("".join(f"{i} {j}\n" for i, j in zip(r, c, strict=True)))
    D = gd.read_graph(path, client, backend="numpy", directed=False)
    assert D.dtype == gb.BOOL and D.is_symmetric
    _same(D, gb.Matrix.from_coo(np.r_[r, c], np.r_[c, r], True, top, top, dup_op=binary.first, backend="numpy"))


# ------------------------------------------------------------------ bad input
def test_bad_input_raises_before_any_change(client: Client, D: gd.DistMatrix, A: gb.Matrix) -> None:
    u = _vec(41)
    du = gd.distribute(u, like=D)
    one = gd.distribute(u, client, npartitions=1, backend="numpy")  # another partitioning
    with pytest.raises(gd.PartitionMismatch):
        one.vxm(D, semiring.min_plus)
    with pytest.raises(gd.PartitionMismatch):
        du.ewise_add(one)
    with pytest.raises(gd.PartitionMismatch):
        du.vxm(A, semiring.min_plus)  # a local Matrix
    with pytest.raises(gd.PartitionMismatch):
        du(binary.plus) << u
    with pytest.raises(DimensionMismatch):
        gd.distribute(gb.Vector(gb.FP64, N + 1, backend="numpy"), like=D)
    before = du.gather()
    with pytest.raises(gd.PartitionMismatch):
        du(one.S) << du.apply(unary.ainv)
    with pytest.raises(DomainMismatch):
        du(binary.plus) << du.apply(unary.lnot).new().apply(unary.bnot)  # no bnot on BOOL
    _same(du, before)
    with Client(client.cluster) as other:  # the same workers, another client
        theirs = gd.distribute(u, other, backend="numpy")
        with pytest.raises(gd.PartitionMismatch):
            du.ewise_add(theirs)
    with pytest.raises(InvalidValue):
        gd.distribute(A, client, npartitions=3)


@pytest.mark.parametrize("density", [0.01, 0.5])  # pushed from each part / all-gathered and pulled
def test_products_with_a_symmetric_matrix(client: Client, density: float) -> None:
    S = _graph(24, symmetric=True)
    DS = gd.distribute(S, client, backend="numpy")
    DS.is_symmetric = True  # declared: A' = A chooses the form by the vector's density
    u = _vec(25, density)
    du = gd.distribute(u, like=DS)
    for sr, exact in ((semiring.min_plus, True), (semiring.plus_times, False), (semiring.min_first, True)):
        _same(du.vxm(DS, sr).new(), u.vxm(S, sr).new(), exact)
        _same(DS.mxv(du, sr).new(), S.mxv(u, sr).new(), exact)
        _same(DS.T.mxv(du, sr).new(), S.T.mxv(u, sr).new(), exact)


def test_positional_operators_are_refused(D: gd.DistMatrix) -> None:
    du = gd.distribute(_vec(26), like=D)
    with pytest.raises(gb.NotImplementedException):
        du.vxm(D, semiring.any_secondi)
    with pytest.raises(gb.NotImplementedException):
        D.select(select.tril)
    with pytest.raises(gb.NotImplementedException):
        du.apply(binary.firsti, right=0)
    du.select(select.valuege, 1.0).new()  # by value: fine


def test_full_vectors_known_without_counting(client: Client, D: gd.DistMatrix, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Vector made full (from_scalar, element-wise of full operands, an accumulation into a
    full one, a masked scalar assign into one) is known full without asking the workers; a
    select's or a masked result's count is asked for, and every count is the true one."""
    from grblas_gpu.dask import layout

    asked: list[str] = []
    submit = layout.Context.submit

    def counting(self: layout.Context, fn: Any, *args: Any, part: int, **kwargs: Any) -> Any:
        asked.append(fn.__name__)
        return submit(self, fn, *args, part=part, **kwargs)

    monkeypatch.setattr(layout.Context, "submit", counting)
    x = gb.Vector.from_scalar(2.0, N, backend=D.backend)
    s = gd.distribute(_vec(4), client, backend="numpy")
    y = x.ewise_mult(x, binary.times).new()
    z = x.apply(binary.plus, right=1.0).new()
    z(binary.plus) << s  # accumulated into a full vector: still full
    w = s.ewise_add(x, binary.plus).new()  # a union with a full vector
    m = gb.Vector.from_scalar(0.0, N, backend=D.backend)
    m(s.S) << 5.0  # a masked scalar assign keeps m's other entries
    asked.clear()
    assert [v.nvals for v in (x, y, z, w, m)] == [N] * 5 and "nvals" not in asked
    cut = s.ewise_mult(x, binary.times).new()  # an intersection with a sparse vector
    kept = x.select(select.valuegt, 3.0).new()
    masked = x.dup(mask=s.S)
    expect = s.gather().nvals
    assert (cut.nvals, kept.nvals, masked.nvals) == (expect, 0, expect) and asked.count("nvals") == 3 * 2
    for v in (y, z, w, m):
        assert v.gather().nvals == N


def _held(block: Any) -> tuple[bool, int, int]:
    mem = block.memory_usage()
    return block._T is not None, int(mem["derived"]), int(mem["at_rest"])


def test_sparse_push_of_a_symmetric_matrix_builds_no_transpose(client: Client) -> None:
    """A sparse vector times a symmetric distributed matrix over a semiring that reads the
    values is pushed from each worker's rows: no worker builds its row block's transpose (as
    large as the block), and the product is the single-process one."""
    S = _graph(21, np.float64, symmetric=True)
    D = gd.distribute(S, client, backend="numpy")
    D.is_symmetric = True
    u = gb.Vector.from_coo([3, 77], [1.0, 2.0], size=N, backend="numpy")
    got = gb.Vector.from_coo([3, 77], [1.0, 2.0], size=N, backend=D.backend).vxm(D, semiring.min_plus).new()
    assert got.gather(backend="numpy").isequal(u.vxm(S, semiring.min_plus).new())
    ctx = D.layout.context
    for has_transpose, derived, at_rest in ctx.gather([ctx.submit(_held, b, part=k) for k, b in enumerate(D.partitions)],
                                                      "memory"):
        assert not has_transpose and derived < at_rest // 2
