"""Matrix products and the algorithms built on them, each timed in turn with a peer.

* ``mxm``: ``A.mxm(A, semiring).new()`` for plus_times (FP32), min_plus, max_min and
  plus_pair on a symmetric graph, against cuSPARSE SpGEMM (cupyx.scipy.sparse ``A @ A``)
  on the GPU backend, or scipy.sparse ``A @ A`` on the CPU backend; the peer computes the
  plus_times product of the same graph, built once.
  When the peer fails (cuSPARSE runs out of resources on kron 16's square), ours is timed
  alone and the row says so (``peer_failed``).
* ``mxm_masked``: ``C<A.S> = A plus_times A`` (FP32, the form LCC uses) and ``mxm_tril``:
  ``C<L.S> = L plus_pair L'`` (INT64, ``L = tril(A, -1)``, the form triangle counting uses),
  against SuiteSparse:GraphBLAS (python-graphblas, the same masked product, all cores) and,
  on the GPU, cuSPARSE's unmasked product then the mask (``(A @ A).multiply(A)``: it computes
  every entry the mask drops, so it is the way to get the result with cuSPARSE, not the same
  work); checked against each peer by entries and by the sum of values.
* ``triangles`` (:func:`grblas_gpu.algorithms.triangle_count`) and ``lcc``
  (:func:`~grblas_gpu.algorithms.local_clustering_coefficient`) against SuiteSparse:GraphBLAS
  through python-graphblas (the same formulas, on all cores) and, on the CPU backend,
  scipy.sparse; triangle counts must agree exactly, LCC values to ``LCC_TOL``.

Every figure is ours through the public API against the peer in the same process, calls
made in turn (:func:`timing.measure_turns`).  A measurement that fails (out of memory, not
implemented) becomes a row with ``skipped`` holding the error, and the run goes on.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Any

import numpy as np

import grblas_gpu as gb
from grblas_gpu import monoid, semiring

from .graphs import Graph
from .ours import Config, matrix, record
from .timing import measure, measure_turns

MXM_SEMIRINGS = ("plus_times", "min_plus", "max_min", "plus_pair")
CHECK_MAX_NVALS = 50_000_000  # larger products are checked by sums and diagonals only
LCC_TOL = 1e-6
GRAPHBLAS = "python-graphblas"


def _error_text(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]


def _release(cfg: Config) -> None:
    """Give the GPU memory pool's free blocks back (after a failure or a large graph)."""
    if not cfg.gpu:
        return
    with contextlib.suppress(Exception):  # no CuPy or no GPU: nothing to release
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()


def attempt(graph: str, op: str, impl: str, fn: Callable[[], dict], cfg: Config, **extra: Any) -> dict:
    """One row from ``fn``'s figures, or a row with ``skipped`` holding the error."""
    try:
        return record(graph, op, impl, fn(), **extra)
    except Exception as exc:  # noqa: BLE001 - a failing row must not stop the run
        _release(cfg)
        return record(graph, op, impl, skipped=_error_text(exc), **extra)


def _turns(cfg: Config, fn: Callable[[], Any], peer: Callable[[], Any], peer_host: bool = False) -> dict:
    return measure_turns(fn, peer, gpu=cfg.gpu, warmup=min(cfg.warmup, 1), repeat=cfg.repeat,
                         budget_s=cfg.budget_s, peer_host=peer_host)


# ------------------------------------------------------------------------------ mxm
def spgemm_peer(g: Graph, gpu: bool) -> tuple[str, Callable[[], Any], Callable[[Any], Any]]:
    """The peer's ``A @ A`` of ``g`` as (name, call, result -> host scipy CSR)."""
    if gpu:
        import cupy
        import cupyx.scipy.sparse as csp

        M = csp.csr_matrix((cupy.asarray(g.weights), cupy.asarray(g.indices), cupy.asarray(g.indptr)),
                           shape=(g.n, g.n))
        return "cusparse", lambda: M @ M, lambda P: P.get()
    import scipy.sparse as sp

    M = sp.csr_matrix((g.weights, g.indices, g.indptr), shape=(g.n, g.n))
    return "scipy", lambda: M @ M, lambda P: P


def _degrees(g: Graph) -> tuple[np.ndarray, np.ndarray]:
    """Out- and in-degrees of ``g`` (float64)."""
    return np.diff(g.indptr).astype(np.float64), np.bincount(g.indices, minlength=g.n).astype(np.float64)


def _row_extremes(g: Graph) -> tuple[np.ndarray, np.ndarray]:
    """Each row's smallest and largest weight (rows without entries: inf, -inf)."""
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
    lo = np.full(g.n, np.inf)
    hi = np.full(g.n, -np.inf)
    np.minimum.at(lo, rows, g.weights)
    np.maximum.at(hi, rows, g.weights)
    return lo, hi


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(1.0, abs(b))


def check_mxm(name: str, C: gb.Matrix, g: Graph, peer_nnz: int | None, peer_host: Any | None) -> dict:
    """Checks of our product ``C = A A`` of a symmetric graph with positive weights, each
    against a figure computed without our code:

    * the pattern: as many entries as the peer's ``A @ A`` (no weight cancels);
    * plus_times: the peer's values (products up to ``CHECK_MAX_NVALS`` entries), else the
      sum of all entries against ``sum_k colsum(k) rowsum(k)``;
    * plus_pair: the sum of all entries against ``sum_k indeg(k) outdeg(k)``;
    * min_plus / max_min: the diagonal, ``2 min_k w(i, k)`` / ``max_k w(i, k)`` (the
      two-step walks i -> k -> i, weights symmetric).
    """
    out: dict = {"nvals": C.nvals}
    ok = True
    if peer_nnz is not None:  # (None: the peer failed; the other checks still hold)
        out["peer_nvals"] = peer_nnz
        ok = C.nvals == peer_nnz
    if name == "plus_times" and peer_host is not None:
        ptr, idx, vals = C.to_csr()
        P = peer_host.tocsr()
        P.sort_indices()
        same = np.array_equal(ptr, P.indptr) and np.array_equal(idx, P.indices)
        diff = float(np.max(np.abs(vals - P.data) / np.maximum(1.0, np.abs(P.data)))) if same and vals.size else 0.0
        out["max_rel_diff"] = diff
        ok = ok and same and diff <= 1e-4
    elif name in ("plus_times", "plus_pair"):
        if name == "plus_times":
            A = _host_csr(g)
            expected = float(np.dot(np.asarray(A.sum(axis=0)).ravel(), np.asarray(A.sum(axis=1)).ravel()))
        else:
            outdeg, indeg = _degrees(g)
            expected = float(np.dot(outdeg, indeg))
        total = C.reduce_scalar(monoid.plus).new(dtype=gb.FP64).value or 0.0
        out["sum_rel_diff"] = _rel(float(total), expected)
        ok = ok and out["sum_rel_diff"] <= 1e-4
    else:
        lo, hi = _row_extremes(g)
        expected = 2 * lo if name == "min_plus" else hi
        rows, _, vals = C.select("diag").new().to_coo()
        diag = np.full(g.n, np.inf if name == "min_plus" else -np.inf)
        diag[rows] = vals
        same_diag = bool(np.array_equal(diag, expected))
        out["diagonal_ok"] = same_diag
        ok = ok and same_diag
    out["ok"] = bool(ok)
    return out


def _host_csr(g: Graph) -> Any:
    import scipy.sparse as sp

    return sp.csr_matrix((g.weights.astype(np.float64), g.indices, g.indptr), shape=(g.n, g.n))


def bench_mxm(g: Graph, cfg: Config) -> list[dict]:
    """``A.mxm(A, sr).new()`` for every semiring of ``MXM_SEMIRINGS`` on ``g`` (symmetric),
    each timed in turn with the peer's plus_times ``A @ A`` (``peer_ratio`` = ours / peer), or
    alone where the peer fails (``peer_failed``); then the masked products
    (:func:`bench_masked`)."""
    ops = [f"mxm_{name}" for name in MXM_SEMIRINGS]
    peer_name, peer, to_host = spgemm_peer(g, cfg.gpu)
    peer_failed, peer_nnz, peer_result = None, None, None
    try:
        P = peer()
        peer_nnz = int(P.nnz)
        peer_result = to_host(P) if peer_nnz <= CHECK_MAX_NVALS else None
        del P
    except Exception as exc:  # noqa: BLE001 - the peer refuses: ours is timed alone
        _release(cfg)
        peer_failed = _error_text(exc)
    rows = []
    try:
        A = matrix(g, cfg.backend)
    except Exception as exc:  # noqa: BLE001
        _release(cfg)
        return [record(g.name, op, "ours", skipped=_error_text(exc)) for op in ops]
    for name, op in zip(MXM_SEMIRINGS, ops):
        held: dict = {}

        sr_bound = getattr(semiring, name)

        def run(sr: Any = sr_bound) -> None:
            held.pop("C", None)  # (the previous product is freed before the next is made)
            held["C"] = A.mxm(A, sr).new()

        def timed(name: str = name) -> dict:
            t = _alone(cfg, run) if peer_failed else _turns(cfg, run, peer)
            return {**t, **check_mxm(name, held["C"], g, peer_nnz, peer_result)}

        extra = {"peer_failed": peer_failed} if peer_failed else {}
        rows.append(attempt(g.name, op, "ours", timed, cfg, peer=peer_name, edges=g.nnz, **extra))
        held.clear()
        _release(cfg)
    return rows + bench_masked(g, cfg)


def _alone(cfg: Config, fn: Callable[[], Any]) -> dict:
    """Our figures without a peer, after a first call (which may compile kernels)."""
    fn()
    return measure(fn, gpu=cfg.gpu, warmup=1, repeat=cfg.repeat, budget_s=cfg.budget_s)


# ------------------------------------------------------------------ masked products
def _masked_forms(g: Graph, backend: str) -> dict[str, tuple[Callable[[], gb.Matrix], Any]]:
    """Our two masked products of ``g`` as op -> (call, semiring name for the peers)."""
    A = matrix(g, backend)
    L = A.apply(gb.unary.one).new(dtype=gb.INT64).select("tril", -1).new()
    return {"mxm_masked": (lambda: A.mxm(A, semiring.plus_times).new(mask=A.S), "plus_times"),
            "mxm_tril": (lambda: L.mxm(L.T, semiring.plus_pair).new(mask=L.S), "plus_pair")}


def masked_peers(g: Graph, gpu: bool) -> list[tuple[str, dict[str, Callable[[], tuple[int, float]]]]]:
    """The peers of the masked products as (name, op -> call returning (entries, sum)):
    python-graphblas (where it imports) and, on the GPU, cuSPARSE's unmasked product then the
    mask."""
    out = []
    with contextlib.suppress(ImportError):
        gbl = _graphblas()
        S = gbl.Matrix.from_csr(g.indptr, g.indices, g.weights.astype(np.float32), nrows=g.n, ncols=g.n)
        Lg = S.apply(gbl.unary.one).new(dtype="INT64").select("tril", -1).new()
        times, pair = gbl.semiring.plus_times[gbl.dtypes.FP32], gbl.semiring.plus_pair[gbl.dtypes.INT64]

        def gb_masked() -> tuple[int, float]:
            C = S.mxm(S, times).new(mask=S.S)
            return C.nvals, float(C.reduce_scalar(gbl.monoid.plus).new(dtype="FP64").value or 0.0)

        def gb_tril() -> tuple[int, float]:
            C = Lg.mxm(Lg.T, pair).new(mask=Lg.S)
            return C.nvals, float(C.reduce_scalar(gbl.monoid.plus).new().value or 0)

        out.append((GRAPHBLAS, {"mxm_masked": gb_masked, "mxm_tril": gb_tril}))
    if gpu:
        import cupy
        import cupyx.scipy.sparse as csp
        import scipy.sparse as sp

        ptr, idx = cupy.asarray(g.indptr), cupy.asarray(g.indices)
        M = csp.csr_matrix((cupy.asarray(g.weights.astype(np.float32)), idx, ptr), shape=(g.n, g.n))
        ones = csp.csr_matrix((cupy.ones(g.nnz, np.float32), idx, ptr), shape=(g.n, g.n))  # the mask's pattern
        host = sp.tril(sp.csr_matrix((np.ones(g.nnz, np.float32), g.indices, g.indptr), shape=(g.n, g.n)), -1,
                       format="csr")
        L, LT = csp.csr_matrix(host), csp.csr_matrix(host.T.tocsr())

        def cs_masked() -> tuple[int, float]:
            C = (M @ M).multiply(ones).tocsr()
            return int(C.nnz), float(C.sum())

        def cs_tril() -> tuple[int, float]:
            C = (L @ LT).multiply(L).tocsr()
            return int(C.nnz), float(C.sum())

        out.append(("cusparse-then-mask", {"mxm_masked": cs_masked, "mxm_tril": cs_tril}))
    return out


def bench_masked(g: Graph, cfg: Config) -> list[dict]:
    """``C<A.S> = A plus_times A`` and ``C<L.S> = L plus_pair L'`` of ``g``, ours timed in
    turn with each peer of :func:`masked_peers` (alone where a peer fails), checked against it
    by entries and the sum of values."""
    try:
        forms = _masked_forms(g, cfg.backend)
    except Exception as exc:  # noqa: BLE001
        _release(cfg)
        return [record(g.name, op, "ours", skipped=_error_text(exc)) for op in ("mxm_masked", "mxm_tril")]
    rows = []
    for peer_name, calls in masked_peers(g, cfg.gpu):
        for op, (call, _) in forms.items():
            held: dict = {}

            def run(call: Callable[[], gb.Matrix] = call) -> None:
                held.pop("C", None)
                held["C"] = call()

            def timed(op: str = op, peer: Callable[[], tuple[int, float]] = calls[op]) -> dict:
                try:
                    want = peer()
                except Exception as exc:  # noqa: BLE001 - the peer refuses: ours alone
                    _release(cfg)
                    return {**_alone(cfg, run), "peer_failed": _error_text(exc), **_check_masked(held["C"], None)}
                t = _turns(cfg, run, peer, peer_host=peer_name == GRAPHBLAS)
                return {**t, **_check_masked(held["C"], want)}

            rows.append(attempt(g.name, op, "ours", timed, cfg, peer=peer_name, edges=g.nnz))
            held.clear()
            _release(cfg)
    return rows


def _check_masked(C: gb.Matrix, want: tuple[int, float] | None) -> dict:
    """Our masked product's entries and sum against the peer's (None: no peer result)."""
    total = float(C.reduce_scalar(monoid.plus).new(dtype=gb.FP64).value or 0.0)
    out: dict = {"nvals": C.nvals}
    if want is None:
        return out
    out.update(peer_nvals=want[0], sum_rel_diff=_rel(total, want[1]))
    out["ok"] = bool(C.nvals == want[0] and out["sum_rel_diff"] <= 1e-4)
    return out


# ------------------------------------------------------------------ triangles, LCC
def _graphblas() -> Any:
    """python-graphblas set to use every core (ImportError when not installed)."""
    try:
        import suitesparse_graphblas  # noqa: F401 - python-graphblas hides this import's own error
    except ImportError as exc:
        raise ImportError(f"suitesparse_graphblas does not import: {exc}") from exc
    import graphblas as gbl

    with contextlib.suppress(Exception):  # not SuiteSparse, or a read-only setting
        gbl.ss.config["nthreads"] = os.cpu_count() or 1
    return gbl


def _graphblas_threads(gbl: Any) -> int | None:
    try:
        return int(gbl.ss.config["nthreads"])
    except Exception:  # noqa: BLE001
        return None


def graphblas_calls(g: Graph) -> tuple[Callable[[], int], Callable[[], np.ndarray], int | None]:
    """SuiteSparse's triangle count and LCC of the symmetric ``g`` (the matrix built once):

    * triangles: ``L = tril(S, -1); C = L.mxm(L.T, plus_pair).new(mask=L.S)``, summed;
    * LCC: ``t = S.mxm(S, plus_pair).new(mask=S.S)`` summed by rows, over ``d (d - 1)``.
    """
    gbl = _graphblas()
    S = gbl.Matrix.from_csr(g.indptr, g.indices, g.weights, nrows=g.n, ncols=g.n)
    pair = gbl.semiring.plus_pair[gbl.dtypes.INT64]

    def triangles() -> int:
        L = S.select("tril", -1).new()
        C = L.mxm(L.T, pair).new(mask=L.S)
        return int(C.reduce_scalar(gbl.monoid.plus).new().value or 0)

    def lcc() -> np.ndarray:
        t = S.mxm(S, pair).new(mask=S.S).reduce_rowwise(gbl.monoid.plus).new(dtype="FP64")
        d = S.apply(gbl.unary.one).new(dtype="FP64").reduce_rowwise(gbl.monoid.plus).new()
        pairs = d.ewise_mult(d.apply(gbl.binary.minus, right=1.0).new(), gbl.binary.times).new()
        return t.ewise_mult(pairs, gbl.binary.truediv).new().to_dense(fill_value=0.0)

    return triangles, lcc, _graphblas_threads(gbl)


def scipy_calls(g: Graph) -> tuple[Callable[[], int], Callable[[], np.ndarray]]:
    """scipy.sparse triangle count ``(L @ L.T).multiply(L)`` summed and LCC
    ``(S @ S).multiply(S)`` summed by rows over ``d (d - 1)``, on the pattern of ``g``."""
    import scipy.sparse as sp

    S = sp.csr_matrix((np.ones(g.nnz, dtype=np.int64), g.indices, g.indptr), shape=(g.n, g.n))

    def triangles() -> int:
        L = sp.tril(S, -1, format="csr")
        return int((L @ L.T).multiply(L).sum())

    def lcc() -> np.ndarray:
        t = np.asarray((S @ S).multiply(S).sum(axis=1), dtype=np.float64).ravel()
        d = np.diff(S.indptr).astype(np.float64)
        pairs = d * (d - 1)
        return np.divide(t, pairs, out=np.zeros(g.n), where=pairs > 0)

    return triangles, lcc


def _peer_calls(g: Graph, cfg: Config) -> tuple[list[tuple[str, Callable, Callable, dict]], list[dict]]:
    """The peers for triangles and LCC as (name, triangles, lcc, extra fields), and skip rows
    for those that are missing."""
    calls, skipped = [], []
    try:
        tri, lcc, threads = graphblas_calls(g)
        calls.append((GRAPHBLAS, tri, lcc, {"peer_threads": threads}))
    except Exception as exc:  # noqa: BLE001 - graphblas not installed
        for op in ("triangles", "lcc"):
            skipped.append(record(g.name, op, GRAPHBLAS, skipped=_error_text(exc)))
    if not cfg.gpu:
        tri, lcc = scipy_calls(g)
        calls.append(("scipy", tri, lcc, {}))
    return calls, skipped


def _check_lcc(ours: np.ndarray, peer: np.ndarray) -> dict:
    diff = float(np.max(np.abs(ours - peer))) if ours.size else 0.0
    return {"max_abs_diff": diff, "ok": bool(ours.shape == peer.shape and diff <= LCC_TOL)}


def bench_triangles(g: Graph, cfg: Config) -> list[dict]:
    """Triangle count and LCC of ``g`` (symmetric), ours timed in turn with each peer
    (``peer_ratio`` = ours / peer); ours alone when no peer is installed."""
    import grblas_gpu.algorithms as alg

    try:
        A = matrix(g, cfg.backend)
    except Exception as exc:  # noqa: BLE001
        _release(cfg)
        return [record(g.name, op, "ours", skipped=_error_text(exc)) for op in ("triangles", "lcc")]
    calls, rows = _peer_calls(g, cfg)
    held: dict = {}

    def count() -> None:
        held["triangles"] = alg.triangle_count(A)

    def lcc() -> None:
        held.pop("lcc", None)
        held["lcc"] = alg.local_clustering_coefficient(A)

    for name, peer_tri, peer_lcc, extra in calls:
        def tri_row(peer_tri: Callable = peer_tri) -> dict:
            t = _turns(cfg, count, peer_tri, peer_host=True)
            expected = peer_tri()
            return {**t, "count": held["triangles"], "peer_count": expected,
                    "ok": held["triangles"] == expected}

        def lcc_row(peer_lcc: Callable = peer_lcc) -> dict:
            t = _turns(cfg, lcc, peer_lcc, peer_host=True)
            return {**t, **_check_lcc(held["lcc"].to_dense(fill_value=0.0), peer_lcc())}

        rows.append(attempt(g.name, "triangles", "ours", tri_row, cfg, peer=name, edges=g.nnz, **extra))
        rows.append(attempt(g.name, "lcc", "ours", lcc_row, cfg, peer=name, edges=g.nnz, **extra))
        held.clear()
        _release(cfg)
    if not calls:  # no peer here: our times alone, after a first use (which compiles kernels)
        opts = {"gpu": cfg.gpu, "warmup": 1, "repeat": max(1, cfg.repeat // 2), "budget_s": cfg.budget_s}

        def alone(fn: Callable[[], None]) -> dict:
            fn()
            return measure(fn, **opts)

        rows.append(attempt(g.name, "triangles", "ours", lambda: {**alone(count), "count": held["triangles"]},
                            cfg))
        rows.append(attempt(g.name, "lcc", "ours", lambda: alone(lcc), cfg))
    return rows
