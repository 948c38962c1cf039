"""``C(mask, accum, replace, changed=D) << expr``: D is set to the entries the write made new or
different in C (an extension, not in the C API).

The expected C comes from the independent dense model (``reference.write``); the expected D
is computed here from C's entries before and after: present where C's new entry is new or its
value differs (NaN against NaN is no change), holding C's new value cast to D's type.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
import pytest
import reference as ref
from conftest import BACKENDS, assert_matches, mask_arg, random_mask, ref_mask, seed_of, to_gb, to_model

import grblas_gpu as gb
from grblas_gpu import binary, semiring
from grblas_gpu.backends import get_backend
from grblas_gpu.exceptions import DimensionMismatch, InvalidValue

N = 300
FORMS = ("sparse", "bitmap", "full")


def _in_form(v: gb.Vector, form: str) -> gb.Vector:
    """``v`` held as sorted entries, as a bitmap (presence + values) or as a full bitmap."""
    if form == "sparse":
        return v
    out = v.dup()
    out._set_bitmap(*(a.copy() for a in out._bitmap()), v.nvals)
    assert out._is_bitmap and (form != "full" or out._full)
    return out


def _random_vector(rng: np.random.Generator, t: np.dtype, density: float, form: str) -> ref.Obj:
    """A model vector of type ``t`` with small values (so equal values are common), NaNs
    among float values, and every position present where ``form`` is full."""
    vals = ref.random_values(rng, (N,), t, small=True)
    if t.kind == "f":
        vals = np.where(rng.random(N) < 0.1, np.nan, vals).astype(t)
    present = np.ones(N, bool) if form == "full" else rng.random(N) < density
    return ref.Obj(vals, present)


def _expected_changes(before: ref.Obj, after: ref.Obj, t: np.dtype) -> ref.Obj:
    same = after.values == before.values
    if after.values.dtype.kind == "f":
        same |= np.isnan(after.values) & np.isnan(before.values)
    present = after.present & ~(before.present & same)
    return ref.Obj(ref.cast(after.values, t), present)


@pytest.mark.parametrize("c_form", FORMS)
@pytest.mark.parametrize("t_form", ("sparse", "bitmap"))
@pytest.mark.parametrize("accum", ("min", "plus", "max", None))
@pytest.mark.parametrize("dtype", ("FP64", "INT64", "FP32"))
def test_changes_of_an_accumulated_write(backend: str, c_form: str, t_form: str, accum: str | None,
                                         dtype: str) -> None:
    t = np.dtype(ref.FP32 if dtype == "FP32" else (np.float64 if dtype == "FP64" else np.int64))
    rng = np.random.default_rng(seed_of(c_form, t_form, accum, dtype))
    c_ref = _random_vector(rng, t, 0.5, c_form)
    t_ref = _random_vector(rng, t, 0.4, t_form)
    C = _in_form(to_gb(c_ref, backend), c_form)
    T = _in_form(to_gb(t_ref, backend), t_form)
    D = to_gb(_random_vector(rng, t, 0.5, "sparse"), backend)  # old entries must all go
    C(accum=accum and getattr(binary, accum), changed=D) << T
    want = ref.write(c_ref, t_ref, accum=accum)
    assert_matches(C, want)
    assert_matches(D, _expected_changes(c_ref, want, t))
    assert T.nvals == int(t_ref.present.sum()), "the operand is unchanged"


@pytest.mark.parametrize("mask_kind", ("value", "structure", "comp_structure"))
@pytest.mark.parametrize("replace", (False, True))
def test_changes_under_a_mask(backend: str, mask_kind: str, replace: bool) -> None:
    """Entries the mask keeps out are no change; entries replace removes are not reported."""
    rng = np.random.default_rng(seed_of(mask_kind, replace))
    c_ref, t_ref = _random_vector(rng, ref.FP64, 0.5, "bitmap"), _random_vector(rng, ref.FP64, 0.5, "bitmap")
    m_ref = random_mask(rng, (N,))
    C, T, M = to_gb(c_ref, backend), _in_form(to_gb(t_ref, backend), "bitmap"), to_gb(m_ref, backend)
    D = gb.Vector(gb.FP64, N, backend=backend)
    C(mask_arg(M, mask_kind), binary.plus, replace=replace, changed=D) << T
    want = ref.write(c_ref, t_ref, accum="plus", replace=replace, **ref_mask(m_ref, mask_kind))
    assert_matches(C, want)
    assert_matches(D, _expected_changes(c_ref, want, ref.FP64))


def test_changes_cast_to_the_reporting_type(backend: str) -> None:
    """D of another type than C gets C's new values cast to its own type."""
    rng = np.random.default_rng(5)
    c_ref, t_ref = _random_vector(rng, ref.INT64, 0.5, "bitmap"), _random_vector(rng, ref.INT64, 0.5, "bitmap")
    C, T = to_gb(c_ref, backend), _in_form(to_gb(t_ref, backend), "bitmap")
    D = gb.Vector(gb.FP32, N, backend=backend)
    C(binary.min, changed=D) << T
    want = ref.write(c_ref, t_ref, accum="min")
    assert_matches(D, _expected_changes(c_ref, want, ref.FP32))


def test_changes_of_scalar_and_indexed_assigns(backend: str) -> None:
    rng = np.random.default_rng(6)
    c_ref = _random_vector(rng, ref.INT64, 0.5, "sparse")
    m_ref = random_mask(rng, (N,))
    C, M = to_gb(c_ref, backend), to_gb(m_ref, backend)
    D = gb.Vector(gb.INT64, N, backend=backend)
    C(M.S, changed=D) << 3
    want = ref.write(c_ref, ref.Obj(np.full(N, 3, np.int64), np.ones(N, bool)), **ref_mask(m_ref, "structure"))
    assert_matches(C, want)
    assert_matches(D, _expected_changes(c_ref, want, ref.INT64))

    before = to_model(C)
    C(changed=D)[[1, 7, 8]] << 3
    after = to_model(C)
    assert after.present[[1, 7, 8]].all() and (after.values[[1, 7, 8]] == 3).all()
    assert_matches(D, _expected_changes(before, after, ref.INT64))


def test_a_round_of_bellman_ford(backend: str) -> None:
    """``dist(min, changed=frontier) << frontier.vxm(A, min_plus)``, repeated until no change,
    gives scipy's shortest paths; the frontier (also the product's operand) is each round's
    improved vertices."""
    sp = pytest.importorskip("scipy.sparse")
    csgraph = pytest.importorskip("scipy.sparse.csgraph")
    rng = np.random.default_rng(7)
    n = 400
    rows, cols = rng.integers(0, n, 3000), rng.integers(0, n, 3000)
    keep = rows != cols
    rows, cols = rows[keep], cols[keep]
    w = rng.integers(1, 20, rows.size).astype(np.float32)
    M = sp.coo_matrix((w, (rows, cols)), shape=(n, n)).tocsr()
    M.sum_duplicates()
    A = gb.Matrix.from_coo(*M.nonzero(), M.data, nrows=n, ncols=n, dtype="FP32", backend=backend)
    dist = gb.Vector.from_coo([0], [0.0], size=n, dtype="FP32", backend=backend)
    frontier = dist.dup()
    rounds = 0
    while frontier.nvals:
        old = dist.to_dense(np.inf)
        dist(binary.min, changed=frontier) << frontier.vxm(A, semiring.min_plus)
        new = dist.to_dense(np.inf)
        idx, vals = frontier.to_coo()
        assert idx.tolist() == np.flatnonzero(new < old).tolist() and np.array_equal(vals, new[idx])
        rounds += 1
        assert rounds <= n
    want = csgraph.dijkstra(M, indices=0)
    got = dist.to_dense(np.inf)
    assert np.array_equal(np.isinf(got), np.isinf(want))
    assert np.allclose(got[np.isfinite(want)], want[np.isfinite(want)])


def test_fused_write_goes_in_place_only_into_lone_arrays(backend: str) -> None:
    """The one-kernel form writes C and D into their own arrays when nothing else refers to
    them, and leaves a Vector sharing C's arrays as it was."""
    rng = np.random.default_rng(8)
    c_ref, t_ref = _random_vector(rng, ref.FP64, 0.5, "bitmap"), _random_vector(rng, ref.FP64, 0.5, "bitmap")
    C, T = _in_form(to_gb(c_ref, backend), "bitmap"), _in_form(to_gb(t_ref, backend), "bitmap")
    D = _in_form(to_gb(_random_vector(rng, ref.FP64, 0.5, "bitmap"), backend), "bitmap")
    c_vals, d_vals = weakref.ref(C._bitmap()[1]), weakref.ref(D._bitmap()[1])
    C(binary.min, changed=D) << T
    assert C._bitmap()[1] is c_vals() and D._bitmap()[1] is d_vals(), "lone bitmaps are written in place"
    want = ref.write(c_ref, t_ref, accum="min")
    assert_matches(C, want)
    assert_matches(D, _expected_changes(c_ref, want, ref.FP64))
    assert D.nvals == int(_expected_changes(c_ref, want, ref.FP64).present.sum())

    sharer = gb.Vector(gb.FP64, N, backend=backend)
    sharer << C
    held = to_model(sharer)
    C(binary.plus, changed=D) << T
    assert_matches(sharer, held)
    assert_matches(C, ref.write(want, t_ref, accum="plus"))


def test_changed_is_checked_before_anything_is_written(backend: str) -> None:
    C = gb.Vector.from_coo([1], [2.0], size=5, backend=backend)
    T = gb.Vector.from_coo([1, 2], [1.0, 1.0], size=5, backend=backend)
    with pytest.raises(DimensionMismatch, match="changed="):
        C(binary.min, changed=gb.Vector(gb.FP64, 6, backend=backend)) << T
    with pytest.raises(InvalidValue, match="another Vector"):
        C(binary.min, changed=C) << T
    with pytest.raises(InvalidValue, match="takes a Vector"):
        C(binary.min, changed=gb.Matrix(gb.FP64, 5, 5, backend=backend)) << T
    with pytest.raises(InvalidValue, match="Vector output"):
        gb.Matrix(gb.FP64, 5, 5, backend=backend)(changed=C)
    D = gb.Vector.from_coo([4], [9.0], size=5, backend=backend)
    with pytest.raises(DimensionMismatch):
        C(binary.min, changed=D) << gb.Vector(gb.FP64, 4, backend=backend)
    assert C.to_coo()[0].tolist() == [1] and D.to_coo()[0].tolist() == [4], "nothing written"


@pytest.fixture
def relaxed(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each push that wrote into its output and reported (the CuPy backend's
    ``push_relax``) claimed positions (True) or combined into a full output (False)."""
    calls: list[bool] = []
    if "cupy" in BACKENDS:
        be = get_backend("cupy")
        relax = be.push_relax

        def counted(*args: Any, **kwargs: Any) -> Any:
            out = kwargs.get("out", args[3] if len(args) > 3 else None)  # push_relax(sr, a, u, out, ...)
            calls.append(out is not None and out.bits is not None)
            return relax(*args, **kwargs)

        monkeypatch.setattr(be, "push_relax", counted)
    return calls


@pytest.fixture
def claiming_pulls(backend: str, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each pull of the backend wrote its rows into an output as well (``claim``)."""
    calls: list[bool] = []
    be = get_backend(backend)
    spmv = be.spmv

    def counted(*args: Any, **kwargs: Any) -> Any:
        output = kwargs.get("output", args[6] if len(args) > 6 else None)  # spmv(sr, a, u, vf, plan, mask, output)
        calls.append(output is not None and output.claim is not None)
        return spmv(*args, **kwargs)

    monkeypatch.setattr(be, "spmv", counted)
    return calls


@pytest.fixture
def listed_claims(backend: str, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each push of a listed frontier claiming its output's gaps ran on the backend
    (``push_claim_listed`` returned a result)."""
    calls: list[bool] = []
    be = get_backend(backend)
    claim = be.push_claim_listed

    def counted(*args: Any, **kwargs: Any) -> Any:
        pushed = claim(*args, **kwargs)
        calls.append(pushed is not None)
        return pushed

    monkeypatch.setattr(be, "push_claim_listed", counted)
    return calls


RELAX_CASES = {  # semiring, accumulator, dtype, "no path yet" value, the source's value
    "min_plus_fp32": (semiring.min_plus, binary.min, np.float32, np.inf, 0.0),
    "max_min_fp64": (semiring.max_min, binary.max, np.float64, -np.inf, np.inf),
    "min_plus_int64": (semiring.min_plus, binary.min, np.int64, 10**9, 0),
}


def _relax_reference(kind: str, c: np.ndarray, f_bits: np.ndarray, f_vals: np.ndarray, rows: np.ndarray,
                     cols: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One round by NumPy: c combined with the frontier's terms, and where it changed."""
    take = f_bits[rows]
    k, j = rows[take], cols[take]
    if kind.startswith("min"):
        new = c.copy()
        np.minimum.at(new, j, (f_vals[k] + w[take]).astype(c.dtype))
    else:
        new = c.copy()
        np.maximum.at(new, j, np.minimum(f_vals[k], w[take]).astype(c.dtype))
    return new, new != c


@pytest.mark.parametrize("kind", sorted(RELAX_CASES))
@pytest.mark.parametrize("shared", (False, True))
def test_rounds_into_a_full_output(backend: str, kind: str, shared: bool, relaxed: list[bool]) -> None:
    """``c(accum, changed=f) << f.vxm(A)`` with the semiring's own addition as accumulator,
    into a full c, round after round (on a GPU one push combines into c and reports the
    changes, spending the old frontier's arrays), against NumPy each round; a Vector sharing
    the frontier's arrays keeps its entries."""
    sr, accum, t, no_path, start = RELAX_CASES[kind]
    rng = np.random.default_rng(seed_of(kind, shared))
    n = 600
    rows = np.concatenate([np.arange(n), rng.integers(0, n, 2 * n)])  # a ring and random chords
    cols = np.concatenate([(np.arange(n) + 1) % n, rng.integers(0, n, 2 * n)])
    keys = np.unique(rows * n + cols)
    rows, cols = keys // n, keys % n
    w = rng.integers(1, 30, rows.size).astype(t)
    A = gb.Matrix.from_coo(rows, cols, w, nrows=n, ncols=n, backend=backend)
    c = gb.Vector.from_scalar(no_path, n, A.dtype, backend=backend)
    c[0] = start
    f = gb.Vector.from_coo([0], [start], size=n, dtype=A.dtype, backend=backend)
    want_c = np.full(n, no_path, dtype=t)
    want_c[0] = start
    f_bits, f_vals = np.zeros(n, bool), np.zeros(n, t)
    f_bits[0], f_vals[0] = True, start
    for _ in range(n):
        if not f.nvals:
            break
        sharer = gb.Vector(A.dtype, n, backend=backend)
        if shared:
            sharer << f  # holds f's arrays
        held = to_model(sharer)
        new_c, changed = _relax_reference(kind, want_c, f_bits, f_vals, rows, cols, w)
        c(accum, changed=f) << f.vxm(A, sr, method="push")  # (auto pulls a wide frontier)
        assert np.array_equal(c.to_dense(), new_c)
        idx, vals = f.dup().to_coo()  # (a copy: f keeps its one form)
        assert idx.tolist() == np.flatnonzero(changed).tolist() and np.array_equal(vals, new_c[idx])
        assert f.nvals == len(idx)
        assert_matches(sharer, held)
        want_c, f_bits, f_vals = new_c, changed, np.where(changed, new_c, 0).astype(t)
    assert not f.nvals, "converged"
    if backend == "cupy":
        assert relaxed and all(not claim for claim in relaxed), "the rounds went through the relax push"


def _bfs_depths(n: int, rows: np.ndarray, cols: np.ndarray, source: int) -> np.ndarray:
    """Hop counts from ``source`` by a plain queue (-1: not reached)."""
    nbrs: list[list[int]] = [[] for _ in range(n)]
    for r, c in zip(rows.tolist(), cols.tolist()):
        nbrs[r].append(c)
    depth = np.full(n, -1)
    depth[source] = 0
    queue = [source]
    for v in queue:
        for w in nbrs[v]:
            if depth[w] < 0:
                depth[w] = depth[v] + 1
                queue.append(w)
    return depth


@pytest.mark.parametrize("method", ("push", "pull", "auto"))
@pytest.mark.parametrize("product", ("levels", "parents"))
def test_gaps_filled_round_by_round(backend: str, method: str, product: str, relaxed: list[bool],
                                    claiming_pulls: list[bool], listed_claims: list[bool]) -> None:
    """``c(~c.S, changed=f) << f.vxm(A)`` writes the product only where c has no entry and
    makes those positions the next frontier: BFS levels (over any, x + 1) or parents (over
    any_secondi), each round against a plain queue's BFS."""
    from grblas_gpu.algorithms.bfs import next_level

    rng = np.random.default_rng(seed_of(method, product))
    n = 700
    rows = np.concatenate([np.arange(n - 1), rng.integers(0, n, 2 * n)])  # a path and random chords
    cols = np.concatenate([np.arange(1, n), rng.integers(0, n, 2 * n)])
    keys = np.unique(rows * n + cols)
    rows, cols = keys // n, keys % n
    A = gb.Matrix.from_coo(rows, cols, 1.0, nrows=n, ncols=n, dtype="FP32", backend=backend)
    depth = _bfs_depths(n, rows, cols, 0)
    sr = next_level() if product == "levels" else semiring.any_secondi[gb.INT64]
    c = gb.Vector.from_coo([0], [0], size=n, dtype="INT64", backend=backend)
    f = c.dup()
    level = 0
    while f.nvals:
        c(~c.S, changed=f) << f.vxm(A, sr, method=method)
        level += 1
        idx, vals = f.dup().to_coo()  # (a copy: f keeps its one form)
        assert idx.tolist() == np.flatnonzero(depth == level).tolist()
        if product == "levels":
            assert (vals == level).all()
        else:  # a parent one level up with an edge to the vertex
            assert (depth[vals] == level - 1).all()
            assert np.isin(vals * n + idx, keys).all()
        assert f.nvals == len(idx)
    got_idx, got_vals = c.to_coo()
    assert got_idx.tolist() == np.flatnonzero(depth >= 0).tolist()
    if product == "levels":
        assert np.array_equal(got_vals, depth[depth >= 0])
    if backend == "cupy" and method == "push":
        assert relaxed and all(relaxed), "the rounds went through the claiming push"
    if method == "pull":
        assert len(claiming_pulls) == level and all(claiming_pulls), "every round pulled into c"
    if method == "push":  # the first round from the listed source, the others from bitmaps
        assert listed_claims == ([True] if backend == "cupy" else []), "the source pushed into c as listed"


@pytest.mark.parametrize("name", ("min_plus", "plus_times", "any_secondi"))
def test_claiming_pull_of_any_monoid(backend: str, name: str, claiming_pulls: list[bool]) -> None:
    """``c(~c.S, changed=d) << f.vxm(A)`` by pull, c a bitmap with entries: every row's whole
    reduction is written where c had none, whatever the monoid, and d holds those entries;
    against a NumPy product of the same terms (ufunc.at per output)."""
    rng = np.random.default_rng(seed_of("claiming pull", name))
    n = 400
    keys = np.unique(rng.integers(0, n, 3000) * n + rng.integers(0, n, 3000))
    rows, cols = keys // n, keys % n
    w = rng.integers(1, 9, rows.size).astype(np.float64)
    A = gb.Matrix.from_coo(rows, cols, w, nrows=n, ncols=n, backend=backend)
    f_bits = rng.random(n) < 0.5
    f_vals = rng.integers(1, 9, n).astype(np.float64)
    f = gb.Vector.from_coo(np.flatnonzero(f_bits), f_vals[f_bits], size=n, backend=backend)
    out_type = gb.INT64 if name == "any_secondi" else gb.FP64  # (secondi gives row indices)
    c0_bits = rng.random(n) < 0.3
    c0_vals = rng.integers(50, 60, n).astype(out_type.np_type)
    c = _in_form(gb.Vector.from_coo(np.flatnonzero(c0_bits), c0_vals[c0_bits], size=n, backend=backend), "bitmap")
    d = gb.Vector(out_type, n, backend=backend)
    c(~c.S, changed=d) << f.vxm(A, getattr(semiring, name), method="pull")
    take = f_bits[rows]
    k, j = rows[take], cols[take]
    terms = {"min_plus": f_vals[k] + w[take], "plus_times": f_vals[k] * w[take], "any_secondi": k.astype(float)}[name]
    has = np.zeros(n, bool)
    has[j] = True
    prod = np.full(n, np.inf if name == "min_plus" else 0.0)
    (np.minimum if name == "min_plus" else np.add).at(prod, j, terms)
    new = has & ~c0_bits
    d_idx, d_vals = d.to_coo()
    assert d_idx.tolist() == np.flatnonzero(new).tolist()
    if name == "any_secondi":  # some frontier vertex with an edge to the position
        assert np.isin(d_vals * n + d_idx, keys).all() and f_bits[d_vals].all()
    else:
        assert np.array_equal(d_vals, prod[new])
    c_idx, c_vals = c.to_coo()
    assert c_idx.tolist() == np.flatnonzero(c0_bits | new).tolist()
    assert np.array_equal(c_vals[np.isin(c_idx, np.flatnonzero(c0_bits))], c0_vals[c0_bits])
    assert np.array_equal(c.to_dense(fill_value=-1)[new], d.to_dense(fill_value=-1)[new])
    assert claiming_pulls == [True], "one pull, written into c"


@pytest.mark.skipif("cupy" not in BACKENDS, reason="the relax push is the CuPy backend's")
def test_kept_report_arrays_are_bounded() -> None:
    """The arrays a relax push leaves clean for the next report are kept for a few sizes only
    (graphs of many sizes would otherwise each leave a pair behind)."""
    be = get_backend("cupy")
    for n in range(40, 400, 40):
        A = gb.Matrix.from_coo(np.arange(n - 1), np.arange(1, n), 1.0, nrows=n, ncols=n, dtype="FP32",
                               backend="cupy")
        c = gb.Vector.from_scalar(np.inf, n, "FP32", backend="cupy")
        f = gb.Vector.from_coo([0], [0.0], size=n, dtype="FP32", backend="cupy")
        c(binary.min) << f
        while f.nvals:
            c(binary.min, changed=f) << f.vxm(A, semiring.min_plus, method="push")
        assert np.array_equal(c.to_dense(), np.arange(n, dtype=np.float32))
    assert 0 < len(be._clean_reports) <= 4


@pytest.mark.skipif("cupy" not in BACKENDS, reason="the CuPy backend queues the weights")
def test_frontier_weights_are_queued_with_the_frontier(monkeypatch: pytest.MonkeyPatch) -> None:
    """BFS on a power-law graph large enough for its frontiers to be weighed (their rows'
    lengths summed) before a direction is chosen: each frontier a product made is weighed by
    a sum queued with it, none by a sum that waits on its own, and the levels are scipy's.
    A write into the frontier drops its weight."""
    import scipy.sparse
    from grblas_gpu.algorithms import bfs_levels
    from scipy.sparse import csgraph

    rng = np.random.default_rng(seed_of("queued weights"))
    n, m = 20_000, 150_000
    src = rng.integers(0, n, m)
    dst = (rng.pareto(1.0, m) * 10).astype(np.int64) % n  # low ids are hubs
    keys = np.unique(np.concatenate([src * n + dst, dst * n + src]))
    rows, cols = keys // n, keys % n
    keep = rows != cols
    rows, cols = rows[keep], cols[keep]
    A = gb.Matrix.from_coo(rows, cols, 1.0, nrows=n, ncols=n, dtype="FP32", backend="cupy")
    assert A.nvals >= 1 << 16
    source = int(np.argmax(np.bincount(rows, minlength=n)))
    be = get_backend("cupy")
    waited, queued = [], []
    sum_selected, sum_queued = be.sum_selected, be.sum_selected_queued

    def waiting_sum(*args: Any, **kwargs: Any) -> Any:
        waited.append(kwargs.get("flags") is not None)
        return sum_selected(*args, **kwargs)

    def queued_sum(*args: Any, **kwargs: Any) -> Any:
        queued.append(True)
        return sum_queued(*args, **kwargs)

    monkeypatch.setattr(be, "sum_selected", waiting_sum)
    monkeypatch.setattr(be, "sum_selected_queued", queued_sum)
    levels = bfs_levels(A, source)
    graph = scipy.sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    depth = csgraph.shortest_path(graph, unweighted=True, indices=source)
    idx, vals = levels.to_coo()
    assert idx.tolist() == np.flatnonzero(np.isfinite(depth)).tolist()
    assert np.array_equal(vals, depth[idx].astype(np.int64))
    assert queued, "frontiers weighed by queued sums"
    assert not any(waited), "no bitmap frontier weighed by a sum of its own"
    f = gb.Vector.from_coo([source], [0], size=n, dtype="INT64", backend="cupy")
    f.nvals  # noqa: B018 - (the product's vector count is known, as in the loop)
    c = f.dup()
    c(~c.S, changed=f) << f.vxm(A, semiring.any_secondi[gb.INT64])
    assert f._weight is not None and f._weight[0]() is A
    assert f._count.__class__ is not int, "the new frontier's count queued before its weight"
    assert f.nvals == np.unique(cols[rows == source]).size  # the source's neighbours
    f(binary.plus) << f.dup()
    assert f._weight is None, "a write drops the weight"
