"""Smoke test: the benchmark command runs on the CPU backend and writes valid results."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_benchmarks_quick_numpy(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "benchmarks", "--backend", "numpy", "--quick", "--scales", "8",
           "--grid", "20", "--no-cold", "--out", str(tmp_path)]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    data = json.loads((tmp_path / "results.json").read_text())
    assert {"meta", "graphs", "results", "memory", "targets"} <= set(data)
    assert data["meta"]["backend"] == "numpy"
    assert any(g["name"] == "kron8" for g in data["graphs"])
    assert any(r["op"] == "mxv_min_plus" and r["impl"] == "ours" for r in data["results"])
    assert (tmp_path / "results.md").read_text().startswith("# grblas-gpu benchmarks")


def test_ab_measures_each_tree(tmp_path: Path) -> None:
    """The A/B tool exports a revision and measures it and the working tree, each in its own
    process: the package each child imported is the one it was given."""
    old = tmp_path / "old"
    export = subprocess.run([sys.executable, "-m", "benchmarks.ab", "--export", "HEAD", str(old)], cwd=ROOT,
                            capture_output=True, text=True, timeout=60, check=False)
    if export.returncode != 0 and "not a git repository" in export.stderr:
        import pytest

        pytest.skip("no git history to export from")
    assert export.returncode == 0, export.stderr[-2000:]
    assert (old / "grblas_gpu" / "algorithms" / "__init__.py").is_file()
    res = subprocess.run([sys.executable, "-m", "benchmarks.ab", str(old), "--scale", "6", "--grid", "0",
                          "--rounds", "1"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    lines = [line.split(" ", 1) for line in res.stdout.splitlines()]
    assert [label for label, _ in lines] == ["old", "new"]
    figures = [json.loads(body) for _, body in lines]
    assert Path(figures[0]["package"]).resolve() == (old / "grblas_gpu").resolve()
    assert Path(figures[1]["package"]).resolve() == (ROOT / "grblas_gpu").resolve()
    assert all(f["bfs_ms"] > 0 and f["small_mxv_us"] > 0 for f in figures)


def test_report_rewrite_recomputes_the_targets(tmp_path: Path) -> None:
    """``python -m benchmarks.report FOLDER`` recomputes the targets from the timings as they
    were measured: the FP32 PageRank has the 0.65 ms target, the FP64 one none."""
    rows = [{"graph": "kron22", "op": op, "impl": "ours", "median_s": s}
            for op, s in (("pagerank", 0.8e-3), ("pagerank_fp32", 0.6e-3))]
    data = {"meta": {"backend": "cupy", "device": "test", "date": "today", "versions": {}, "notes": []},
            "graphs": [{"name": "kron22", "vertices": 1, "edges": 1, "symmetric": False, "build_s": 0}],
            "results": rows, "memory": [], "targets": [{"target": "stale"}]}
    (tmp_path / "results.json").write_text(json.dumps(data))
    res = subprocess.run([sys.executable, "-m", "benchmarks.report", str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    written = json.loads((tmp_path / "results.json").read_text())
    pagerank = {t["target"]: t for t in written["targets"] if "pagerank" in t["target"]}
    assert set(pagerank) == {"kron22 pagerank_fp32"}
    assert pagerank["kron22 pagerank_fp32"]["met"] is True
    assert abs(pagerank["kron22 pagerank_fp32"]["value"] - 0.6) < 1e-9
    assert written["results"] == rows
    assert "| kron22 pagerank_fp32 | 0.6 ms/iter | 0.65 ms/iter | met" in (tmp_path / "results.md").read_text()


def test_statement_host_times_run() -> None:
    """``python -m benchmarks.statements`` times each statement with the kernel stubbed and
    prints positive figures, one per statement."""
    res = subprocess.run([sys.executable, "-m", "benchmarks.statements", "--calls", "20", "--json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    figures = json.loads(res.stdout)
    assert len(figures) == 5 and any("mxv" in name for name in figures)
    assert all(us > 0 for us in figures.values())


def test_peer_check_compares_reached_sets_and_values() -> None:
    """A peer's BFS or SSSP result is checked against ours as dense arrays, inf where a vertex
    is not reached: another reached set, or another value, fails the check."""
    import numpy as np

    from benchmarks.peers import _dense_of, check

    ours = _dense_of((np.array([0, 2]), np.array([0.0, 1.0])), 3)
    assert check(ours, np.array([0.0, np.inf, 1.0]), tol=0.0)["ok"]
    assert not check(ours, np.array([0.0, 1.0, 1.0]), tol=0.0)["ok"]
    assert not check(ours, np.array([0.0, np.inf, 2.0]), tol=0.0)["ok"]


def test_paired_measure_alternates_and_takes_the_median_ratio(monkeypatch) -> None:
    """``measure_paired`` times ours and the peer in turn, each timed call after an untimed
    one of the same operation, and reports the median of the per-pair ratios, which differs
    here from the ratio of the medians (1.0)."""
    from benchmarks import timing

    made: list[str] = []
    seconds = {"ours": iter([5.0, 2.0, 9.0, 3.0]), "peer": iter([5.0, 1.0, 3.0, 3.0])}

    def fake_wall_once(fn, gpu):  # the first pair is the warm-up
        name = fn()
        made[-1] += " timed"
        return next(seconds[name])

    def call(name: str):
        def run() -> str:
            made.append(name)
            return name
        return run

    monkeypatch.setattr(timing, "_wall_once", fake_wall_once)
    got = timing.measure_paired(call("ours"), call("peer"), gpu=False, warmup=1, repeat=3, budget_s=100.0)
    assert made == ["ours", "ours timed", "peer", "peer timed"] * 4
    assert got["runs"] == 3
    assert got["median_s"] == 3.0 and got["peer_median_s"] == 3.0
    assert got["peer_ratio"] == 2.0  # ratios 2, 3, 1


def test_mxv_target_uses_the_paired_ratio() -> None:
    """A row timed in turn with cuSPARSE is judged by its paired ratio; one without, by the
    ratio of the medians."""
    from benchmarks.report import targets

    rows = [{"graph": "kron8", "op": "mxv_plus_times", "impl": "cusparse", "median_s": 1.0},
            {"graph": "kron8", "op": "mxv_min_plus", "impl": "ours", "median_s": 1.1, "peer_ratio": 0.9},
            {"graph": "kron8", "op": "mxv_max_min", "impl": "ours", "median_s": 1.1}]
    value = {t["target"]: t["value"] for t in targets(rows, None)}
    assert value["kron8 mxv min_plus / cuSPARSE plus_times"] == 0.9
    assert abs(value["kron8 mxv max_min / cuSPARSE plus_times"] - 1.1) < 1e-12
