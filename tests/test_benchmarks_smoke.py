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
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    data = json.loads((tmp_path / "results.json").read_text())
    assert {"meta", "graphs", "results", "memory", "targets"} <= set(data)
    assert data["meta"]["backend"] == "numpy"
    assert any(g["name"] == "kron8" for g in data["graphs"])
    assert any(r["op"] == "mxv_min_plus" and r["impl"] == "ours" for r in data["results"])
    assert (tmp_path / "results.md").read_text().startswith("# grblas-gpu benchmarks")
