"""Peer implementations measured in the same process, each skipped with a note if absent.

GPU peers: cupyx.scipy.sparse (cuSPARSE) SpMV, torch.sparse CSR mv, torch scatter_reduce
min-plus, a hand-written CuPy + cuSPARSE PageRank.  CPU peers: scipy.sparse.csgraph
dijkstra / breadth_first_order, python-graphblas (SuiteSparse:GraphBLAS).
Each peer's result is checked once against ours (max abs diff) and the check recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .graphs import Graph
from .ours import Config, _guarded, dense_x, record
from .timing import measure


def check(ours: np.ndarray | None, peer: np.ndarray, *, tol: float = 1e-3) -> dict:
    """Max abs diff of two dense results (inf entries must agree); ``ok`` within ``tol``
    relative to the largest finite magnitude."""
    if ours is None:
        return {"check": "no result of ours to compare"}
    a, b = np.asarray(ours, np.float64), np.asarray(peer, np.float64)
    fin = np.isfinite(a) & np.isfinite(b)
    same_inf = bool(np.array_equal(np.isfinite(a), np.isfinite(b)))
    diff = float(np.max(np.abs(a[fin] - b[fin]))) if fin.any() else 0.0
    scale = max(1.0, float(np.max(np.abs(b[fin]))) if fin.any() else 1.0)
    return {"max_abs_diff": diff, "ok": bool(same_inf and diff <= tol * scale)}


def _dense_of(entries: tuple[np.ndarray, np.ndarray], n: int) -> np.ndarray:
    """Our (indices, values) result of ``n`` positions as a dense array, inf where absent."""
    idx, vals = entries
    out = np.full(n, np.inf)
    out[idx] = vals
    return out


def _skip(graph: str, op: str, impl: str, exc: BaseException) -> dict:
    """A row saying the peer was skipped and why."""
    return record(graph, op, impl, skipped=f"{type(exc).__name__}: {exc}"[:200])


def _gpu_measure(cfg: Config, fn: Callable[[], Any], **kw: Any) -> dict:
    opts = {"gpu": True, "warmup": cfg.warmup, "repeat": cfg.repeat, "budget_s": cfg.budget_s}
    return measure(fn, **{**opts, **kw})


def cusparse_operands(g: Graph) -> tuple[Any, Any]:
    """``g`` as a cupyx.scipy.sparse CSR matrix and the benchmarks' dense x on the GPU: the
    operands of cuSPARSE's SpMV (ImportError without CuPy)."""
    import cupy
    import cupyx.scipy.sparse as csp

    A = csp.csr_matrix((cupy.asarray(g.weights), cupy.asarray(g.indices),
                        cupy.asarray(g.indptr)), shape=(g.n, g.n))
    return A, cupy.asarray(dense_x(g.n))


def cusparse_call(g: Graph) -> Callable[[], Any] | None:
    """cuSPARSE's SpMV of ``g`` as a call (None without CuPy), to time ours in turn with."""
    try:
        A, x = cusparse_operands(g)
    except ImportError:
        return None
    return lambda: A @ x


def cusparse_spmv(g: Graph, cfg: Config, outputs: dict, spmv: Callable[[], Any] | None = None) -> list[dict]:
    """cuSPARSE plus-times SpMV through cupyx.scipy.sparse (``spmv``: :func:`cusparse_call`'s
    call, where it was made already)."""
    if spmv is None:
        try:
            A, x = cusparse_operands(g)
        except ImportError as exc:
            return [_skip(g.name, "mxv_plus_times", "cusparse", exc)]

        def product() -> Any:
            return A @ x

        spmv = product
    row = _guarded(g.name, "mxv_plus_times", lambda: _gpu_measure(cfg, spmv), "cusparse")
    row.update(check(outputs.get("mxv_plus_times"), spmv().get()))
    return [row]


def torch_peers(g: Graph, cfg: Config, outputs: dict) -> list[dict]:
    """torch.sparse CSR mv (plus-times) and gather + scatter_reduce(amin) (min-plus)."""
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("torch sees no CUDA device")
    except ImportError as exc:
        return [_skip(g.name, "mxv_plus_times", "torch.sparse", exc),
                _skip(g.name, "mxv_min_plus", "torch.scatter_reduce", exc)]
    dev = torch.device("cuda")
    crow = torch.as_tensor(g.indptr, dtype=torch.int64, device=dev)
    col = torch.as_tensor(g.indices.astype(np.int64), device=dev)
    w = torch.as_tensor(g.weights, device=dev)
    x = torch.as_tensor(dense_x(g.n), device=dev)
    A = torch.sparse_csr_tensor(crow, col, w, size=(g.n, g.n))
    rows = [_guarded(g.name, "mxv_plus_times", lambda: _gpu_measure(cfg, lambda: A @ x),
                     "torch.sparse")]
    rows[-1].update(check(outputs.get("mxv_plus_times"), (A @ x).cpu().numpy()))
    row_ids = torch.repeat_interleave(torch.arange(g.n, device=dev), crow.diff())
    out = torch.empty(g.n, dtype=torch.float32, device=dev)

    def min_plus() -> torch.Tensor:
        out.fill_(float("inf"))
        return out.scatter_reduce_(0, row_ids, x[col] + w, reduce="amin", include_self=True)

    rows.append(_guarded(g.name, "mxv_min_plus", lambda: _gpu_measure(cfg, min_plus),
                         "torch.scatter_reduce"))
    rows[-1].update(check(outputs.get("mxv_min_plus"), min_plus().cpu().numpy()))
    return rows


def cupy_pagerank(g: Graph, cfg: Config, outputs: dict) -> list[dict]:
    """A hand-written CuPy + cuSPARSE PageRank (networkx definition, unweighted), per iteration."""
    try:
        import cupy
        import cupyx.scipy.sparse as csp
    except ImportError as exc:
        return [_skip(g.name, "pagerank", "cupy+cusparse", exc)]
    n, k, alpha = g.n, cfg.pr_iters, 0.85
    outdeg = cupy.asarray(np.diff(g.indptr).astype(np.float32))
    A = csp.csr_matrix((cupy.ones(g.nnz, dtype=cupy.float32), cupy.asarray(g.indices),
                        cupy.asarray(g.indptr)), shape=(n, n))
    AT = A.T.tocsr()  # pull: r_new[j] = sum_i A[i, j] r[i] / outdeg[i]
    dangling = (outdeg == 0).astype(cupy.float32)
    inv = cupy.where(outdeg == 0, 0, 1 / cupy.maximum(outdeg, 1)).astype(cupy.float32)

    def run() -> Any:
        r = cupy.full(n, 1.0 / n, dtype=cupy.float32)
        for _ in range(k):
            dsum = cupy.dot(r, dangling)  # rank mass of dangling vertices, spread uniformly
            r = alpha * (AT @ (r * inv)) + (alpha * dsum + (1 - alpha)) / n
        return r

    def timed() -> dict:
        t = _gpu_measure(cfg, run, warmup=1, repeat=max(3, cfg.repeat // 3))
        return {key: (v / k if key.endswith("_s") else v) for key, v in t.items()}

    row = _guarded(g.name, "pagerank", timed, "cupy+cusparse")
    row.update({"iterations": k, "per": "iteration",
                **check(outputs.get("pagerank"), cupy.asnumpy(run()), tol=1e-4)})
    return [row]


def _scipy_csr(g: Graph) -> Any:
    import scipy.sparse as sp

    return sp.csr_matrix((g.weights, g.indices, g.indptr), shape=(g.n, g.n))


def _cpu_measure(cfg: Config, fn: Callable[[], Any]) -> dict:
    return measure(fn, gpu=False, warmup=1, repeat=max(1, cfg.repeat // 3), budget_s=cfg.budget_s)


def scipy_peers(g: Graph, cfg: Config, outputs: dict, source: int) -> list[dict]:
    """scipy.sparse.csgraph dijkstra (vs our SSSP) and breadth_first_order (vs our BFS)."""
    try:
        from scipy.sparse.csgraph import breadth_first_order, dijkstra
    except ImportError as exc:
        return [_skip(g.name, "sssp", "scipy.dijkstra", exc), _skip(g.name, "bfs", "scipy.bfo", exc)]
    M = _scipy_csr(g)
    rows = [_guarded(g.name, "sssp", lambda: _cpu_measure(cfg, lambda: dijkstra(M, indices=source)),
                     "scipy.dijkstra")]
    if "sssp" in outputs:
        rows[-1].update(check(_dense_of(outputs["sssp"], g.n), dijkstra(M, indices=source), tol=1e-5))

    def bfo() -> Any:
        return breadth_first_order(M, source, directed=True, return_predecessors=False)

    rows.append(_guarded(g.name, "bfs", lambda: _cpu_measure(cfg, bfo), "scipy.bfo"))
    if "bfs" in outputs:
        same = bool(np.array_equal(np.sort(outputs["bfs"][0]), np.sort(bfo())))
        rows[-1].update({"same_reached_set": same, "ok": same})
    return rows


def _graphblas() -> Any:
    import graphblas

    return graphblas


def _gb_matrix(gbl: Any, g: Graph) -> Any:
    """A python-graphblas FP32 matrix from the CSR arrays."""
    try:
        return gbl.Matrix.from_csr(g.indptr, g.indices, g.weights, nrows=g.n, ncols=g.n)
    except AttributeError:
        return gbl.Matrix.ss.import_csr(nrows=g.n, ncols=g.n, indptr=g.indptr,
                                        col_indices=g.indices, values=g.weights)


def _gb_bfs(gbl: Any, A: Any, s: int) -> Any:
    """Level-synchronous BFS levels in python-graphblas (any_pair, complemented mask)."""
    n = A.nrows
    levels = gbl.Vector(gbl.dtypes.INT32, n)
    q = gbl.Vector(gbl.dtypes.BOOL, n)
    q[s] << True
    depth = 0
    while q.nvals:
        levels(q.S) << depth
        q(~levels.S, replace=True) << q.vxm(A, gbl.semiring.any_pair)
        depth += 1
    return levels


def _gb_bellman_ford(gbl: Any, A: Any, s: int) -> Any:
    """Bellman-Ford SSSP in python-graphblas (min_plus, until no distance changes)."""
    d = gbl.Vector(gbl.dtypes.FP32, A.nrows)
    d[s] << 0
    while True:
        prev = d.dup()
        d(gbl.binary.min) << d.vxm(A, gbl.semiring.min_plus)
        if d.isequal(prev):
            return d


def _gb_pagerank(gbl: Any, A: Any, iters: int) -> Any:
    """Fixed-iteration unweighted PageRank in python-graphblas (networkx definition)."""
    n, alpha = A.nrows, 0.85
    P = A.apply(gbl.unary.one).new(dtype="FP32")
    inv = P.reduce_rowwise(gbl.monoid.plus).new().apply(gbl.unary.minv).new()
    r = gbl.Vector.from_dense(np.full(n, 1.0 / n, dtype=np.float32))
    for _ in range(iters):
        t = r.ewise_mult(inv, gbl.binary.times).new()
        linked = r.ewise_mult(inv, gbl.binary.first).new().reduce().new().value or 0.0
        dangling = float(r.reduce().new().value) - float(linked)
        y = t.vxm(P, gbl.semiring.plus_times).new()
        y << y.apply(gbl.binary.times, right=alpha)
        r = gbl.Vector.from_scalar((alpha * dangling + 1 - alpha) / n, n, dtype="FP32")
        r(accum=gbl.binary.plus) << y
    return r


def graphblas_peers(g: Graph, gs: Graph, cfg: Config, outputs: dict, source: int) -> list[dict]:
    """python-graphblas (SuiteSparse) min_plus mxv, BFS, Bellman-Ford SSSP, PageRank/iteration."""
    try:
        gbl = _graphblas()
    except ImportError as exc:
        return [_skip(g.name, op, "python-graphblas", exc)
                for op in ("mxv_min_plus", "bfs", "sssp", "pagerank")]
    A, S = _gb_matrix(gbl, g), _gb_matrix(gbl, gs)
    x = gbl.Vector.from_dense(dense_x(g.n), dtype="FP32")

    def mxv() -> Any:
        return A.mxv(x, gbl.semiring.min_plus).new()

    rows = [_guarded(g.name, "mxv_min_plus", lambda: _cpu_measure(cfg, mxv), "python-graphblas")]
    rows[-1].update(check(outputs.get("mxv_min_plus"), mxv().to_dense(fill_value=np.inf)))
    for op, run, tol in (("bfs", _gb_bfs, 0.0), ("sssp", _gb_bellman_ford, 1e-5)):
        rows.append(_guarded(gs.name, op, lambda run=run: _cpu_measure(cfg, lambda: run(gbl, S, source)),
                             "python-graphblas"))
        if op in outputs:
            peer = run(gbl, S, source).to_dense(fill_value=np.inf)
            rows[-1].update(check(_dense_of(outputs[op], gs.n), peer, tol=tol))
    k = cfg.pr_iters

    def pr() -> dict:
        t = _cpu_measure(cfg, lambda: _gb_pagerank(gbl, A, k))
        return {key: (v / k if key.endswith("_s") else v) for key, v in t.items()}

    rows.append(_guarded(g.name, "pagerank", pr, "python-graphblas"))
    rows[-1].update(check(outputs.get("pagerank"), _gb_pagerank(gbl, A, k).to_dense(fill_value=0.0), tol=1e-4))
    return rows
