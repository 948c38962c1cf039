"""``python -m benchmarks.networkx``: networkx calls dispatched to ``backend="grblas_gpu"``
against plain networkx (and nx-cugraph where installed), side by side in one process.

For every graph and function: networkx's time (one call), ours on the first call (the
conversion of the networkx graph included) and on the second call (the converted graph
reused from networkx's cache), and the ratios networkx / ours.  Every answer of ours is
checked against networkx's (exact, or to 1e-6 for floats).  The grblas_gpu array backend is
the default one (cupy where a GPU is usable; ``GRBLAS_GPU_BACKEND=numpy`` forces the CPU).

Graphs: the SNAP graphs of the shared data folder (wiki-Vote, email-Eu-core; directed, and
undirected as networkx Graphs) and the Kronecker graphs of ``--scales`` (16 by default:
about 1 M directed edges).  Functions that networkx takes minutes for on big graphs
(betweenness, label propagation, clustering) run on graphs up to ``--max-edges-slow`` edges.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from . import graphs
from .graphs import Graph

SLOW = {"betweenness_centrality", "label_propagation_communities", "clustering", "average_clustering"}


def _calls(directed: bool, source: Any, n: int) -> dict[str, Callable[..., Any]]:
    """The timed calls: name -> function of (networkx module, graph, backend) giving a comparable answer."""
    calls = {
        "pagerank": lambda nx, G, b: nx.pagerank(G, backend=b),
        "bfs_edges": lambda nx, G, b: list(nx.bfs_edges(G, source, backend=b)),
        "single_source_shortest_path_length":
            lambda nx, G, b: nx.single_source_shortest_path_length(G, source, backend=b),
        "single_source_dijkstra_path_length":
            lambda nx, G, b: nx.single_source_dijkstra_path_length(G, source, backend=b),
        "betweenness_centrality": lambda nx, G, b: nx.betweenness_centrality(G, k=min(16, n), seed=1, backend=b),
        "clustering": lambda nx, G, b: nx.clustering(G, backend=b),
    }
    if directed:
        calls["weakly_connected_components"] = lambda nx, G, b: list(nx.weakly_connected_components(G, backend=b))
    else:
        calls["connected_components"] = lambda nx, G, b: list(nx.connected_components(G, backend=b))
        calls["triangles"] = lambda nx, G, b: nx.triangles(G, backend=b)
        calls["transitivity"] = lambda nx, G, b: nx.transitivity(G, backend=b)
        calls["label_propagation_communities"] = \
            lambda nx, G, b: list(nx.community.label_propagation_communities(G, backend=b))
    return calls


def _same(a: Any, b: Any) -> bool:
    """Whether two answers agree: exactly, floats to 1e-6."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return False
        return all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= 1e-6 * max(1.0, abs(b))
    return a == b


def to_networkx(g: Graph) -> Any:
    """A networkx DiGraph (or Graph when symmetric) with the CSR graph's edges, no attributes."""
    import networkx as nx

    G = nx.Graph() if g.symmetric else nx.DiGraph()
    G.add_nodes_from(range(g.n))
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
    cols = g.indices.astype(np.int64)
    if g.symmetric:
        keep = rows < cols
        rows, cols = rows[keep], cols[keep]
    G.add_edges_from(zip(rows.tolist(), cols.tolist()))
    return G


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def bench_graph(nx: Any, g: Graph, args: argparse.Namespace, peers: list[str]) -> list[dict]:
    """Time every call on one graph; one row per function."""
    t_build, G = _timed(lambda: to_networkx(g))
    source = int(g.max_degree_vertex())
    rows = []
    print(f"\n{g.name}: {G.number_of_nodes()} nodes, {G.number_of_edges()} edges "
          f"({'undirected' if g.symmetric else 'directed'}; networkx graph built in {t_build:.1f} s)")
    print(f"  {'function':<36}{'networkx':>10}{'ours 1st':>10}{'ours 2nd':>10}{'x 1st':>8}{'x 2nd':>8}  ok")
    for name, call in _calls(not g.symmetric, source, g.n).items():
        if args.only and name not in args.only:
            continue
        if name in SLOW and G.number_of_edges() > args.max_edges_slow:
            continue
        G.__networkx_cache__.clear()  # the first call converts
        t_nx, want = _timed(lambda: call(nx, G, None))
        t1, got = _timed(lambda: call(nx, G, "grblas_gpu"))
        t2, got2 = _timed(lambda: call(nx, G, "grblas_gpu"))
        ok = _same(got, want) and _same(got2, want)
        row = {"graph": g.name, "nodes": G.number_of_nodes(), "edges": G.number_of_edges(), "function": name,
               "networkx_s": t_nx, "ours_first_s": t1, "ours_second_s": t2, "ok": ok,
               "speedup_first": t_nx / t1, "speedup_second": t_nx / t2}
        for peer in peers:
            G.__networkx_cache__.clear()
            try:
                tp1, _ = _timed(lambda: call(nx, G, peer))
                tp2, _ = _timed(lambda: call(nx, G, peer))
                row[f"{peer}_first_s"], row[f"{peer}_second_s"] = tp1, tp2
            except Exception as exc:  # noqa: BLE001 - a peer that cannot run this call is reported, not fatal
                row[f"{peer}_error"] = f"{type(exc).__name__}: {exc}"[:200]
        rows.append(row)
        peer_text = "".join(f"  {p}: {row[f'{p}_first_s']:.4f}/{row[f'{p}_second_s']:.4f} s"
                            for p in peers if f"{p}_first_s" in row)
        print(f"  {name:<36}{t_nx:>10.4f}{t1:>10.4f}{t2:>10.4f}{row['speedup_first']:>8.1f}"
              f"{row['speedup_second']:>8.1f}  {'yes' if ok else 'NO'}{peer_text}")
    return rows


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.networkx", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scales", type=int, nargs="*", default=[16], help="Kronecker scales (16-20)")
    p.add_argument("--no-snap", action="store_true")
    p.add_argument("--only", nargs="*", default=None, help="function names to time (default: all)")
    p.add_argument("--max-edges-slow", type=int, default=200_000,
                   help="largest graph for betweenness, clustering and label propagation")
    p.add_argument("--json", type=Path, default=None, help="write the rows here")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> list[dict]:
    """Run the comparison; print a table per graph and return the rows."""
    import networkx as nx

    import grblas_gpu

    args = parse_args(argv)
    if "grblas_gpu" not in nx.utils.backends.backend_info:
        raise SystemExit("the grblas_gpu networkx backend is not installed: pip install -e .")
    nx.config.warnings_to_ignore.add("cache")
    warnings.filterwarnings("ignore", category=UserWarning, module="networkx")
    peers = [p for p in ("cugraph",) if p in nx.utils.backends.backend_info]
    print(f"networkx {nx.__version__}; grblas_gpu array backend: {grblas_gpu.default_backend()}; "
          f"peers: {', '.join(peers) or 'none installed'}")
    todo = [] if args.no_snap else graphs.load_snap()
    for scale in args.scales:
        todo.extend(graphs.kronecker(scale))
    rows = []
    for g in todo:
        rows.extend(bench_graph(nx, g, args, peers))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    bad = [f"{r['graph']} {r['function']}" for r in rows if not r["ok"]]
    if bad:
        raise SystemExit(f"answers differ from networkx: {', '.join(bad)}")
    return rows


if __name__ == "__main__":
    main()
