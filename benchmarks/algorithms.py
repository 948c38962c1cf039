"""``python -m benchmarks.algorithms``: the algorithms added with louvain against the best
CPU peer installed, side by side in one process, with the ratio peer / ours.

Peers: SuiteSparse:GraphBLAS through python-graphblas running the same recipe (k-truss,
Jaccard: python-graphblas has no such algorithm, LAGraph's loop is written out); scipy
(``csgraph`` strongly connected components, minimum spanning tree, Dijkstra and BFS;
``sparse.linalg`` ``eigsh`` / ``svds`` for eigenvector centrality and HITS, as networkx's
``*_numpy`` forms; a sparse Katz iteration); networkx for Louvain, core numbers, maximal
independent set and greedy colouring, where nothing faster is installed.  networkx takes
minutes on Kronecker scale 20-22, so its rows use the smaller ``--nx-scale`` graph (ours
timed on that graph too, for the ratio) and say so; the other peers run at ``--peer-scale`` (each
of the two takes several scales, a row each).
Ours also runs alone on the large graphs (``--scale``, and ``--heavy-scale`` for Louvain,
k-truss and Jaccard).  Each timing is the median of up to 3 runs after one warm-up run (one
run where it takes more than ``--repeat-below`` seconds; every algorithm first runs once on a
Kronecker scale-8 graph, untimed, so no row counts kernel compilation); ``--budget`` seconds bound the whole
run (rows left over say so).

Every row records the graph, the implementation, seconds and, for ours where a peer ran on
the same graph, the ratio.  Checks: Louvain's modularity against networkx's; exact sets or
values elsewhere (floats to 1e-4 relative); greedy colouring: a proper colouring of every
vertex, and the colours used by each.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from . import graphs
from .graphs import Graph

Row = dict[str, Any]


# ----------------------------------------------------------------------------- helpers


def _sync() -> None:
    import grblas_gpu as gb

    if gb.gpu_available():
        import cupy

        cupy.cuda.get_current_stream().synchronize()


def timed(fn: Callable[[], Any], repeat_below: float) -> tuple[float, int, Any]:
    """Median seconds of up to 3 runs after a warm-up (just the warm-up where it is slow),
    the number of runs timed, and the last result."""
    _sync()
    t0 = time.perf_counter()
    out = fn()
    _sync()
    first = time.perf_counter() - t0
    if first > repeat_below:
        return first, 1, out
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        out = fn()
        _sync()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), 3, out


def matrix(g: Graph, backend: str, weighted: bool = False) -> Any:
    """Our Matrix of ``g`` (unit FP64 values unless ``weighted``; symmetric flag set)."""
    import grblas_gpu as gb

    vals = g.weights.astype(np.float64) if weighted else np.ones(g.nnz)
    return gb.Matrix.from_csr(g.indptr, g.indices, vals, ncols=g.n, backend=backend, symmetric=g.symmetric or None)


def scipy_csr(g: Graph, weighted: bool = False) -> Any:
    import scipy.sparse as sp

    vals = g.weights.astype(np.float64) if weighted else np.ones(g.nnz)
    return sp.csr_array((vals, g.indices, g.indptr), shape=(g.n, g.n))


def nx_graph(g: Graph) -> Any:
    import networkx as nx

    return nx.from_scipy_sparse_array(scipy_csr(g))


def _labels(partition: list[set], n: int) -> np.ndarray:
    out = np.empty(n, dtype=np.int64)
    for c, members in enumerate(partition):
        out[list(members)] = c
    return out


def modularity(g: Graph, labels: np.ndarray) -> float:
    """Modularity (resolution 1) of a labelling of the unweighted symmetric graph ``g``."""
    S = scipy_csr(g).tocoo()
    two_m = float(S.nnz)
    inside = float(np.count_nonzero(labels[S.row] == labels[S.col]))
    degree = np.diff(g.indptr).astype(np.float64)
    totals = np.bincount(labels, weights=degree)
    return inside / two_m - float(np.sum((totals / two_m) ** 2))


# ----------------------------------------------------------------------------- peers


def _gb_pattern(g: Graph) -> Any:
    import graphblas as pg

    return pg.Matrix.from_csr(g.indptr, g.indices, np.ones(g.nnz, np.int64), nrows=g.n, ncols=g.n)


def pg_k_truss(C: Any, k: int) -> Any:
    """LAGraph's k-truss loop in python-graphblas (SuiteSparse:GraphBLAS)."""
    import graphblas as pg

    edges = C.nvals
    while True:
        C = C.mxm(C, pg.semiring.plus_pair).new(mask=C.S)
        C = C.select("valuege", k - 2).new()
        if C.nvals == edges:
            return C
        edges = C.nvals


def pg_jaccard(S: Any) -> Any:
    """Jaccard of every edge in python-graphblas: masked common neighbours over the union."""
    import graphblas as pg

    d = S.reduce_rowwise(pg.monoid.plus).new()
    inter = S.mxm(S, pg.semiring.plus_pair).new(mask=S.S)
    D = d.diag()
    union = D.mxm(inter, pg.semiring.any_first).new()
    union(pg.binary.plus) << inter.mxm(D, pg.semiring.any_second)
    union(pg.binary.minus) << inter
    J = pg.Matrix(pg.dtypes.FP64, S.nrows, S.ncols)
    J(S.S) << 0.0
    J(pg.binary.plus) << inter.ewise_mult(union, pg.binary.truediv)
    return J


def scipy_katz(A: Any, alpha: float, tol: float = 1e-6, max_iter: int = 1000) -> np.ndarray:
    """networkx's Katz iteration on a scipy matrix (``x = alpha A' x + 1``), normalised."""
    n = A.shape[0]
    x = np.zeros(n)
    AT = A.T.tocsr()
    for _ in range(max_iter):
        new = alpha * (AT @ x) + 1.0
        if np.abs(new - x).sum() < n * tol:
            return new / np.linalg.norm(new)
        x = new
    raise RuntimeError("katz did not converge")


# ----------------------------------------------------------------------------- the rows


def _cases(alpha: float, sources: list[int]) -> dict[str, dict[str, Any]]:
    """name -> how ours runs, which peer runs (and where), how results compare."""
    import grblas_gpu.algorithms as alg

    return {
        "louvain": {"ours": lambda A: alg.louvain(A, seed=0), "peer": "networkx", "heavy": True},
        "k_truss": {"ours": lambda A: alg.k_truss(A, 5), "peer": "SuiteSparse (python-graphblas)", "heavy": True},
        "jaccard": {"ours": lambda A: alg.jaccard(A), "peer": "SuiteSparse (python-graphblas)", "heavy": True},
        "sssp_delta": {"ours": lambda A: alg.sssp(A, sources[0], method="delta"), "peer": "scipy dijkstra",
                       "weighted": True},
        "sssp_bellman_ford": {"ours": lambda A: alg.sssp(A, sources[0], method="bellman-ford"),
                              "peer": "scipy dijkstra", "weighted": True},
        "core_number": {"ours": lambda A: alg.core_number(A), "peer": "networkx"},
        "strongly_connected_components": {"ours": alg.strongly_connected_components,
                                          "peer": "scipy csgraph"},
        "minimum_spanning_forest": {"ours": alg.minimum_spanning_forest, "peer": "scipy csgraph",
                                    "weighted": True},
        "multi_source_bfs": {"ours": lambda A: alg.multi_source_bfs(A, sources), "peer": "scipy csgraph"},
        "katz_centrality": {"ours": lambda A: alg.katz_centrality(A, alpha=alpha), "peer": "scipy (iteration)"},
        "eigenvector_centrality": {"ours": lambda A: alg.eigenvector_centrality(A, tol=1e-6),
                                   "peer": "scipy eigsh"},
        "hits": {"ours": lambda A: alg.hits(A, tol=1e-8), "peer": "scipy svds"},
        "maximal_independent_set": {"ours": lambda A: alg.maximal_independent_set(A, seed=0), "peer": "networkx"},
        "greedy_coloring": {"ours": lambda A: alg.greedy_coloring(A, seed=0), "peer": "networkx"},
    }


def peer_call(name: str, g: Graph, sources: list[int], alpha: float) -> Callable[[], Any]:
    """The peer's call on graph ``g``."""
    from scipy.sparse import csgraph, linalg

    if name == "louvain":
        import networkx as nx

        G = nx_graph(g)
        return lambda: nx.community.louvain_communities(G, seed=0)
    if name in ("core_number", "maximal_independent_set", "greedy_coloring"):
        import networkx as nx

        G = nx_graph(g)
        fns = {"core_number": nx.core_number, "maximal_independent_set": lambda G: nx.maximal_independent_set(G, seed=0),
               "greedy_coloring": nx.greedy_color}
        return lambda: fns[name](G)
    if name == "k_truss":
        C = _gb_pattern(g)
        return lambda: pg_k_truss(C, 5)
    if name == "jaccard":
        S = _gb_pattern(g)
        return lambda: pg_jaccard(S)
    weighted = name in ("sssp_delta", "sssp_bellman_ford", "minimum_spanning_forest")
    A = scipy_csr(g, weighted)
    calls: dict[str, Callable[[], Any]] = {
        "sssp_delta": lambda: csgraph.dijkstra(A, indices=sources[0]),
        "sssp_bellman_ford": lambda: csgraph.dijkstra(A, indices=sources[0]),
        "strongly_connected_components": lambda: csgraph.connected_components(A, connection="strong"),
        "minimum_spanning_forest": lambda: csgraph.minimum_spanning_tree(A),
        "multi_source_bfs": lambda: csgraph.shortest_path(A, unweighted=True, indices=sources),
        "katz_centrality": lambda: scipy_katz(A, alpha),
        "eigenvector_centrality": lambda: linalg.eigsh(A, k=1, which="LA", tol=1e-6),
        "hits": lambda: linalg.svds(A, k=1, tol=1e-8),
    }
    return calls[name]


def check(name: str, g: Graph, ours: Any, theirs: Any, sources: list[int]) -> dict:
    """Whether our answer agrees with the peer's (Louvain: modularity, ours - theirs)."""
    if name == "louvain":
        q_ours = modularity(g, ours.to_dense())
        q_theirs = modularity(g, _labels(theirs, g.n))
        return {"modularity": round(q_ours, 4), "peer_modularity": round(q_theirs, 4), "ok": q_ours >= q_theirs - 0.01}
    if name == "core_number":
        return {"ok": bool(np.array_equal(ours.to_dense(), np.array([theirs[v] for v in range(g.n)])))}
    if name in ("sssp_delta", "sssp_bellman_ford"):
        got = np.full(g.n, np.inf)
        i, v = ours.to_coo()
        got[i] = v
        return {"ok": bool(np.allclose(got, theirs, rtol=1e-4))}
    if name == "strongly_connected_components":
        return {"ok": len(np.unique(ours.to_dense())) == theirs[0]}
    if name == "minimum_spanning_forest":
        w = ours.to_coo()[2].sum()
        return {"ok": bool(np.isclose(w, theirs.sum(), rtol=1e-4))}
    if name == "k_truss":
        return {"ok": ours.nvals == theirs.nvals}
    if name == "jaccard":
        a, b = ours.to_coo()[2], theirs.to_coo()[2]
        return {"ok": bool(len(a) == len(b) and np.allclose(np.sort(a), np.sort(b)))}
    if name == "multi_source_bfs":
        r, c, v = ours.to_coo()
        got = np.full(theirs.shape, np.inf)
        got[r, c] = v
        return {"ok": bool(np.array_equal(got, theirs))}
    if name == "katz_centrality":
        return {"ok": bool(np.allclose(ours.to_dense(), theirs, rtol=1e-4, atol=1e-8))}
    if name == "eigenvector_centrality":
        x = np.abs(theirs[1][:, 0])
        return {"ok": bool(np.allclose(ours.to_dense(), x / np.linalg.norm(x), atol=1e-4))}
    if name == "hits":
        return {"ok": True, "note": "scores not compared (degenerate singular vectors on symmetric graphs)"}
    if name == "greedy_coloring":
        colour, S = ours.to_dense(), scipy_csr(g).tocoo()
        return {"ok": bool(ours.nvals == g.n and not np.any(colour[S.row] == colour[S.col])),
                "colours": int(colour.max(initial=-1)) + 1, "peer_colours": max(theirs.values(), default=-1) + 1}
    return {"ok": True, "note": "valid by construction (independent set checked in the tests)"}


ORDER = ["louvain", "k_truss", "jaccard", "sssp_grid", "sssp_delta", "sssp_bellman_ford", "multi_source_bfs",
         "strongly_connected_components", "minimum_spanning_forest", "katz_centrality", "eigenvector_centrality",
         "hits", "maximal_independent_set", "core_number", "greedy_coloring"]
"""The rows in the order they run (most wanted first, so a spent ``--budget`` cuts the rest)."""


def run(args: argparse.Namespace) -> list[Row]:
    import grblas_gpu as gb

    backend = args.backend or gb.default_backend()
    start, rows = time.perf_counter(), []
    built: dict[int, Graph] = {}

    def graph(scale: int) -> Graph:
        if scale not in built:
            built[scale] = graphs.kronecker_symmetric(scale)
        return built[scale]

    names = args.only or ORDER
    for name in names:
        if name == "sssp_grid":
            rows += grid_rows(args, backend) if args.grid_side else []
            continue
        warm_up(name, graph(WARM_UP_SCALE), backend)
        peer_scales = args.nx_scale if _cases(0, [0])[name]["peer"] == "networkx" else args.peer_scale
        large = args.heavy_scale if _cases(0, [0])[name].get("heavy") else args.scale
        for scale, role in [(s, "peer") for s in peer_scales] + [(large, "large")]:
            if time.perf_counter() - start > args.budget:
                rows.append({"algorithm": name, "graph": f"kron{scale}-sym", "skipped": "time budget spent"})
                continue
            g = graph(scale)
            sources = [g.max_degree_vertex()] + list(range(0, g.n, max(1, g.n // 15)))[:15]
            alpha = 0.9 / max(1, int(np.diff(g.indptr).max()))
            case = _cases(alpha, sources)[name]
            A = matrix(g, backend, case.get("weighted", False))
            row: Row = {"algorithm": name, "graph": g.name, "vertices": g.n, "edges": g.nnz, "backend": backend}
            try:
                secs, runs, ours = timed(lambda: case["ours"](A), args.repeat_below)
            except Exception as exc:  # noqa: BLE001 (recorded, the run goes on)
                rows.append({**row, "error": f"{type(exc).__name__}: {exc}"})
                print(rows[-1], flush=True)
                continue
            row.update(ours_s=round(secs, 4), runs=runs)
            if role == "peer":
                try:
                    psecs, pruns, theirs = timed(peer_call(name, g, sources, alpha), args.repeat_below)
                    row.update(peer=case["peer"], peer_s=round(psecs, 4), peer_runs=pruns,
                               ratio=float(f"{psecs / secs:.3g}"), **check(name, g, ours, theirs, sources))
                except Exception as exc:  # noqa: BLE001 (recorded, the run goes on)
                    row.update(peer=case["peer"], peer_error=f"{type(exc).__name__}: {exc}")
            rows.append(row)
            print(json.dumps(row), flush=True)
            write(rows, args, args.out)  # after every row: a run cut short keeps what it measured
    return rows


WARM_UP_SCALE = 8
"""Each algorithm runs once on this small graph first, so that no row counts the compilation
of its kernels (a row timed by one run, over ``--repeat-below`` seconds, would)."""


def warm_up(name: str, g: Graph, backend: str) -> None:
    """One run of our ``name`` on ``g``, untimed."""
    case = _cases(0.9 / max(1, int(np.diff(g.indptr).max())), [0])[name]
    case["ours"](matrix(g, backend, case.get("weighted", False)))
    _sync()


def grid_rows(args: argparse.Namespace, backend: str) -> list[Row]:
    """sssp by delta-stepping and by Bellman-Ford on a high-diameter graph: a grid with widely
    spread weights ``exp(U(0, 9))``, where ``method="auto"`` picks delta-stepping; scipy's
    Dijkstra on the same graph."""
    from grblas_gpu.algorithms import sssp
    from grblas_gpu.algorithms.delta_stepping import choose_method
    from scipy.sparse import csgraph

    g = graphs.grid(args.grid_side)
    g.weights = np.exp(np.random.default_rng(1).uniform(0, 9, g.nnz)).astype(np.float32)
    g.symmetric = False  # each direction drew its own weight
    A = matrix(g, backend, weighted=True)
    psecs, _, theirs = timed(lambda: csgraph.dijkstra(scipy_csr(g, True), indices=0), args.repeat_below)
    out = []
    for method in ("delta", "bellman-ford"):
        secs, runs, ours = timed(lambda: sssp(A, 0, method=method), args.repeat_below)
        row = {"algorithm": f"sssp_{method.replace('-', '_')} (grid)", "graph": g.name, "vertices": g.n,
               "edges": g.nnz, "backend": backend, "ours_s": round(secs, 4), "runs": runs,
               "peer": "scipy dijkstra", "peer_s": round(psecs, 4), "ratio": float(f"{psecs / secs:.3g}"),
               "auto_picks": choose_method(A, "auto"), **check("sssp_delta", g, ours, theirs, [0])}
        out.append(row)
        print(json.dumps(row), flush=True)
    return out


def write(rows: list[Row], args: argparse.Namespace, out: Path) -> None:
    """results.json and results.md in ``out``."""
    import grblas_gpu as gb

    out.mkdir(parents=True, exist_ok=True)
    meta = {"args": vars(args), "python": platform.python_version(), "machine": platform.machine(),
            "backend": args.backend or gb.default_backend()}
    meta["gpu"] = None
    if gb.gpu_available():
        import cupy

        meta["gpu"] = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    (out / "results.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1, default=str) + "\n")
    lines = ["# The algorithms added with louvain against CPU peers", "",
             (f"Device: {meta['gpu'] or 'CPU'} (backend {meta['backend']}); `python -m benchmarks.algorithms "
              f"--scale {args.scale} --heavy-scale {args.heavy_scale} --peer-scale {_joined(args.peer_scale)} "
              f"--nx-scale {_joined(args.nx_scale)} --repeat-below {args.repeat_below}`.  ratio = peer seconds / "
              f"ours on the same graph; networkx peers ran on kron{_joined(args.nx_scale, '/')}-sym (minutes at "
              "scale 20-22)."), "",
             "| algorithm | graph | edges | ours s | peer | peer s | ratio | check |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "skipped" in r or "error" in r:
            lines.append(f"| {r['algorithm']} | {r['graph']} | | {r.get('skipped') or r.get('error')} | | | | |")
            continue
        chk = "" if "ok" not in r else ("ok" if r["ok"] else "DIFFERS")
        if "modularity" in r:
            chk += f" (Q {r['modularity']} vs {r['peer_modularity']})"
        if "colours" in r:
            chk += f" ({r['colours']} colours vs {r['peer_colours']})"
        lines.append(f"| {r['algorithm']} | {r['graph']} | {r['edges']:,} | {r['ours_s']} | {r.get('peer', '')} | "
                     f"{r.get('peer_s', r.get('peer_error', ''))} | {r.get('ratio', '')} | {chk} |")
    (out / "results.md").write_text("\n".join(lines) + "\n")


def _joined(scales: list[int], sep: str = " ") -> str:
    return sep.join(str(s) for s in scales)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.algorithms", description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=int, default=22, help="Kronecker scale of the large graph (default 22)")
    p.add_argument("--heavy-scale", type=int, default=20, help="large graph of louvain, k-truss, jaccard (20)")
    p.add_argument("--peer-scale", type=int, nargs="+", default=[18],
                   help="graphs shared with scipy / SuiteSparse peers (18; several: a row each)")
    p.add_argument("--nx-scale", type=int, nargs="+", default=[12], help="graphs shared with networkx peers (12)")
    p.add_argument("--grid-side", type=int, default=1024, help="grid for the high-diameter sssp rows (0: none)")
    p.add_argument("--only", nargs="*", help="algorithms to run (default: all)")
    p.add_argument("--backend", choices=("numpy", "cupy"), help="grblas_gpu backend (default: the default one)")
    p.add_argument("--repeat-below", type=float, default=2.0, help="time one run where it takes longer (s)")
    p.add_argument("--budget", type=float, default=600.0, help="seconds for the whole run")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results/algorithms"), help="results folder")
    args = p.parse_args(argv)
    rows = run(args)
    write(rows, args, args.out)
    print(f"wrote {args.out}/results.json and results.md")


if __name__ == "__main__":
    main()
