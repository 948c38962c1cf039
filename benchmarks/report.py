"""Writing results: ``results.json``, ``results.md`` (Markdown tables) and ``results.png``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def _find(rows: list[dict], graph: str, op: str, impl: str) -> dict | None:
    for r in rows:
        if r["graph"] == graph and r["op"] == op and r["impl"] == impl and r.get("median_s"):
            return r
    return None


def _target(name: str, value: float | None, limit: float, unit: str, note: str = "") -> dict:
    met = None if value is None else bool(value <= limit)
    return {"target": name, "value": value, "limit": limit, "unit": unit, "met": met, "note": note}


def _ratio(mine: dict | None, base: dict | None) -> float | None:
    """ours / the peer: the ratio of calls made in turn where measured so, else of the medians."""
    if mine and mine.get("peer_ratio") is not None:
        return mine["peer_ratio"]
    return mine["median_s"] / base["median_s"] if mine and base else None


PRODUCT_PEERS = {"cusparse": "cuSPARSE A@A", "scipy": "scipy", "python-graphblas": "SuiteSparse",
                 "cusparse-then-mask": "cuSPARSE A@A then mask"}


def product_targets(rows: list[dict], backend: str | None) -> list[dict]:
    """The products' targets, from the ratios of calls made in turn with the peer:
    GPU mxm / cuSPARSE SpGEMM <= 1 on every graph; GPU triangles >= 10x faster than
    SuiteSparse (ratio <= 0.1) on every graph; CPU mxm within 2x scipy at kron 12 and CPU
    triangles within 3x scipy at kron 14."""
    gpu = backend == "cupy"
    out = []
    for r in rows:
        if r["impl"] != "ours" or "peer" not in r:
            continue
        peer, graph, op = r["peer"], r["graph"], r["op"]
        if op.startswith("mxm_"):
            limit = 1.0 if gpu and peer == "cusparse" else (
                2.0 if not gpu and peer == "scipy" and graph == "kron12-sym" else None)
        elif op == "triangles":
            limit = 0.1 if gpu and peer == "python-graphblas" else (
                3.0 if not gpu and peer == "scipy" and graph == "kron14-sym" else None)
        else:
            limit = None
        if limit is None:
            continue
        note = (r.get("skipped", "") or ("peer failed: " + r["peer_failed"] if r.get("peer_failed") else "")
                or ("" if r.get("ok", True) else "results disagree with the peer"))
        out.append(_target(f"{graph} {op} / {PRODUCT_PEERS.get(peer, peer)}", r.get("peer_ratio"), limit,
                           "x", note))
    return out


def targets(rows: list[dict], main_scale: int | None, backend: str | None = None) -> list[dict]:
    """Ratios ours/peer and absolute figures against the issue's targets."""
    out = []
    graphs = sorted({r["graph"] for r in rows if r["graph"].startswith("kron") and "-sym" not in r["graph"]})
    for g in graphs:
        base = _find(rows, g, "mxv_plus_times", "cusparse")
        for sr, lim in (("min_plus", 1.0), ("max_min", 1.0), ("plus_times", 1.0),
                        ("any_pair", 0.7), ("lor_land", 0.7)):
            mine = _find(rows, g, f"mxv_{sr}", "ours")
            ratio = _ratio(mine, base)
            out.append(_target(f"{g} mxv {sr} / cuSPARSE plus_times", ratio, lim, "x"))
    if main_scale is not None:
        g = f"kron{main_scale}"
        # The issue sets its targets in float32: the FP64 PageRank is timed but has none.
        for op, graph, lim in (("pagerank_fp32", g, 0.65), ("bfs", g + "-sym", 1.5), ("sssp", g + "-sym", 10.0)):
            mine = _find(rows, graph, op, "ours")
            out.append(_target(f"{graph} {op}", mine["median_s"] * 1e3 if mine else None, lim,
                               "ms/iter" if op.startswith("pagerank") else "ms"))
    for r in rows:
        if r["op"] in ("bfs", "sssp") and r["impl"] == "ours" and r["graph"].startswith("grid"):
            floor = _find(rows, r["graph"], f"launch_floor_{r['op']}", "minimal-launches")
            ratio = r["median_s"] / floor["median_s"] if floor and r.get("median_s") else None
            out.append(_target(f"{r['graph']} {r['op']} / launch-only", ratio, 2.0, "x",
                               f"levels={floor.get('levels') if floor else None}"))
    small = _find(rows, "random1000", "small_mxv_plus_times", "ours")
    if small or not rows or any(r["op"].startswith(("mxv_", "small_mxv")) for r in rows):
        out.append(_target("1000-vertex mxv end to end (warm)", small["median_s"] * 1e6 if small else None,
                           30.0, "us"))
    return out + product_targets(rows, backend)


def _fmt_time(s: Any) -> str:
    if not isinstance(s, (int, float)):
        return ""
    return f"{s * 1e3:.3f} ms" if s >= 1e-3 else f"{s * 1e6:.1f} us"


def markdown(data: dict) -> str:
    """The results as Markdown: metadata, graphs, timings, targets, memory, notes."""
    m = data["meta"]
    lines = [f"# grblas-gpu benchmarks ({m['backend']})", "",
             f"Device: {m['device']}  ", f"Date: {m['date']}  ",
             "Versions: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()), "",
             "## Graphs", "", "| graph | vertices | edges | symmetric | build s |", "|---|---|---|---|---|"]
    lines += [f"| {g['name']} | {g['vertices']:,} | {g['edges']:,} | {g['symmetric']} | {g['build_s']} |"
              for g in data["graphs"]]
    lines += ["", "## Timings (median)", "", "| graph | op | impl | time | runs | check / notes |",
              "|---|---|---|---|---|---|"]
    for r in data["results"]:
        notes = [f"{k}={r[k]}" for k in ("levels", "iterations", "per", "count", "peer_count", "nvals",
                                          "peer_nvals", "max_abs_diff", "max_rel_diff", "sum_rel_diff",
                                          "diagonal_ok", "ok", "process", "per_level_s", "skipped", "error", "peer_failed")
                 if k in r]
        if r.get("peer_ratio") is not None:
            peer = PRODUCT_PEERS.get(r["peer"], r["peer"]) if "peer" in r else "cuSPARSE"
            notes.append(f"in turn with {peer} {_fmt_time(r['peer_median_s'])}: ratio {r['peer_ratio']:.3f}")
        lines.append(f"| {r['graph']} | {r['op']} | {r['impl']} | {_fmt_time(r.get('median_s'))} | "
                     f"{r.get('runs', '')} | {'; '.join(map(str, notes)).replace('|', '/')} |")
    lines += ["", "## Targets", "", "| target | value | limit | met |", "|---|---|---|---|"]
    for t in data["targets"]:
        val = "n/a" if t["value"] is None else f"{t['value']:.3g} {t['unit']}"
        met = {True: "met", False: "missed", None: "not measured"}[t["met"]]
        lines.append(f"| {t['target']} | {val} | {t['limit']} {t['unit']} | {met} {t['note']} |")
    if data["memory"]:
        lines += ["", "## Peak GPU memory", "", "| graph | algorithm | CSR MB | peak used MB | extra MB |",
                  "|---|---|---|---|---|"]
        lines += [f"| {x['graph']} | {x['algorithm']} | {x['graph_csr_bytes'] / 2**20:.1f} | "
                  f"{x['peak_used_bytes'] / 2**20:.1f} | {x['peak_extra_bytes'] / 2**20:.1f} |"
                  for x in data["memory"]]
    lines += ["", "## Notes", ""] + [f"- {n}" for n in m["notes"]]
    return "\n".join(lines) + "\n"


def plot(data: dict, path: Path) -> str | None:
    """mxv time against edges per (op, impl), and peak memory against graph size.
    Returns a note when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib not installed: results.png not written"
    edges = {g["name"]: g["edges"] for g in data["graphs"]}
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
    series: dict[str, list[tuple[int, float]]] = {}
    for r in data["results"]:
        if r["op"].startswith("mxv_") and r.get("median_s") and r["graph"] in edges:
            series.setdefault(f"{r['op'][4:]} ({r['impl']})", []).append((edges[r["graph"]], r["median_s"] * 1e3))
    for label, pts in sorted(series.items()):
        pts.sort()
        ax1.plot(*zip(*pts), marker="o", label=label)
    ax1.set(xscale="log", yscale="log", xlabel="edges", ylabel="ms", title="mxv with a dense vector")
    if series:
        ax1.legend(fontsize=7)
    for algo in sorted({x["algorithm"] for x in data["memory"]}):
        pts = sorted((x["graph_csr_bytes"] / 2**20, x["peak_used_bytes"] / 2**20)
                     for x in data["memory"] if x["algorithm"] == algo)
        ax2.plot(*zip(*pts), marker="o", label=algo)
    ax2.set(xscale="log", yscale="log", xlabel="graph CSR MB", ylabel="peak GPU MB", title="peak GPU memory")
    if data["memory"]:
        ax2.legend(fontsize=7)
    fig.suptitle(f"grblas-gpu, {data['meta']['device']}, {data['meta']['date']}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return None


def write(data: dict, out: Path, main_scale: int | None) -> None:
    """Compute the targets and write the JSON, Markdown and PNG files into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    data["targets"] = targets(data["results"], main_scale, data["meta"].get("backend"))
    note = plot(data, out / "results.png")
    if note:
        data["meta"]["notes"].append(note)
    (out / "results.json").write_text(json.dumps(data, indent=1, default=str))
    (out / "results.md").write_text(markdown(data))


def rewrite(folder: Path) -> None:
    """Recompute the targets of ``folder/results.json`` and write its three files again, the
    timings as they were measured (after a change to the targets or to the tables)."""
    data = json.loads((folder / "results.json").read_text())
    main_scale = 22 if any(g["name"] == "kron22" for g in data["graphs"]) else None
    write(data, folder, main_scale)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.report", description=rewrite.__doc__)
    parser.add_argument("folder", type=Path, help="a folder holding results.json")
    rewrite(parser.parse_args().folder)
