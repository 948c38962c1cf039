"""``python -m benchmarks.algorithms`` on tiny graphs (NumPy backend): rows, checks, files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("scipy")
pytest.importorskip("networkx")


def test_tiny_run_writes_rows_with_ratios(tmp_path: Path) -> None:
    from benchmarks import algorithms

    algorithms.main(["--scale", "7", "--heavy-scale", "7", "--peer-scale", "6", "--nx-scale", "6", "--grid-side", "12",
                     "--backend", "numpy", "--out", str(tmp_path), "--only", "sssp_grid", "louvain",
                     "strongly_connected_components", "minimum_spanning_forest"])
    rows = json.loads((tmp_path / "results.json").read_text())["rows"]
    names = {r["algorithm"] for r in rows}
    assert {"louvain", "strongly_connected_components", "minimum_spanning_forest",
            "sssp_delta (grid)", "sssp_bellman_ford (grid)"} <= names
    with_peer = [r for r in rows if "peer_s" in r]
    assert with_peer and all(r["ok"] for r in with_peer) and all(r["ratio"] > 0 for r in with_peer)
    assert "| louvain | kron6-sym |" in (tmp_path / "results.md").read_text()


def test_several_peer_scales_give_a_row_each(tmp_path: Path) -> None:
    from benchmarks import algorithms

    algorithms.main(["--scale", "6", "--nx-scale", "5", "6", "--backend", "numpy", "--out", str(tmp_path),
                     "--only", "greedy_coloring"])
    rows = json.loads((tmp_path / "results.json").read_text())["rows"]
    assert [(r["graph"], "peer_s" in r) for r in rows] == [("kron5-sym", True), ("kron6-sym", True), ("kron6-sym", False)]
    assert all(r["ok"] and r["colours"] <= r["peer_colours"] + 1 for r in rows if "peer_s" in r)
    assert "--nx-scale 5 6" in (tmp_path / "results.md").read_text()
