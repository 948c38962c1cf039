"""Smoke tests of the product rows of ``python -m benchmarks`` and of ``python -m benchmarks.memory``
on the CPU backend: structure of the output, and results that agree with independent references."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import grblas_gpu as gb
from benchmarks import graphs, memory, products
from benchmarks.__main__ import main as bench_main
from benchmarks.ours import Config, matrix
from benchmarks.report import targets
from grblas_gpu import semiring
from grblas_gpu.exceptions import OutOfMemory

CPU = Config("numpy", warmup=1, repeat=2, budget_s=0.5)


def _nx_graph(g: graphs.Graph) -> nx.Graph:
    G = nx.Graph()
    G.add_nodes_from(range(g.n))
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
    G.add_edges_from(zip(rows.tolist(), g.indices.tolist()))
    return G


MASKED = {"mxm_masked", "mxm_tril"}


def test_products_rows_numpy(tmp_path: Path) -> None:
    """The products part writes mxm rows for every semiring on the kron graph and the grid,
    and triangle and LCC rows whose counts agree with scipy's and with networkx's."""
    assert bench_main(["--backend", "numpy", "--quick", "--parts", "products", "--mxm-scales", "6",
                       "--tc-scales", "6", "7", "--grid", "6", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "results.json").read_text())
    rows = data["results"]
    for graph in ("kron6-sym", "grid6"):
        mxm = {r["op"]: r for r in rows if r["graph"] == graph and r["op"].startswith("mxm_")
               and r["op"] not in MASKED}
        assert set(mxm) == {f"mxm_{s}" for s in products.MXM_SEMIRINGS}
        # The masked rows: timed against python-graphblas where it imports, else not written.
        masked = [r for r in rows if r["graph"] == graph and r["op"] in MASKED]
        assert all(r.get("ok") is True for r in masked if "skipped" not in r)
        for r in mxm.values():
            assert r["impl"] == "ours" and r["peer"] == "scipy" and r["ok"] is True
            assert r["median_s"] > 0 and r["peer_median_s"] > 0 and r["peer_ratio"] > 0
    for scale in (6, 7):
        g = graphs.kronecker_symmetric(scale)
        expected = sum(nx.triangles(_nx_graph(g)).values()) // 3
        tri = [r for r in rows if r["graph"] == g.name and r["op"] == "triangles" and r.get("peer") == "scipy"]
        assert len(tri) == 1 and tri[0]["count"] == tri[0]["peer_count"] == expected > 0
        lcc = [r for r in rows if r["graph"] == g.name and r["op"] == "lcc" and r.get("peer") == "scipy"]
        assert len(lcc) == 1 and lcc[0]["ok"] is True
        graphblas = [r for r in rows if r["graph"] == g.name and r["op"] == "triangles"
                     and (r.get("peer") == products.GRAPHBLAS or r["impl"] == products.GRAPHBLAS)]
        assert len(graphblas) == 1  # timed against SuiteSparse, or a row saying why not
        assert graphblas[0].get("ok") is True or "skipped" in graphblas[0]
    assert not any(r["op"].startswith("mxv") for r in rows)
    assert "in turn with scipy" in (tmp_path / "results.md").read_text()


def test_lcc_peer_matches_networkx() -> None:
    """scipy's LCC formula of the benchmark agrees with networkx's clustering."""
    g = graphs.kronecker_symmetric(6)
    _, lcc = products.scipy_calls(g)
    nxc = nx.clustering(_nx_graph(g))
    assert np.allclose(lcc(), [nxc[v] for v in range(g.n)])


def test_mxm_check_catches_a_wrong_product() -> None:
    """check_mxm passes the true product and fails one of another matrix, for every semiring."""
    g = graphs.grid(5)
    A = matrix(g, "numpy")
    B = matrix(graphs.Graph(g.name, g.kind, g.n, g.indptr, g.indices, g.weights * 2, True), "numpy")
    peer = products._host_csr(g) @ products._host_csr(g)
    for name in products.MXM_SEMIRINGS:
        sr = getattr(semiring, name)
        assert products.check_mxm(name, A.mxm(A, sr).new(), g, peer.nnz, peer)["ok"], name
        if name != "plus_pair":  # (the pattern product does not see the values)
            assert not products.check_mxm(name, B.mxm(B, sr).new(), g, peer.nnz, peer)["ok"], name
        assert not products.check_mxm(name, A.mxm(A, sr).new(), g, peer.nnz + 1, peer)["ok"], name
    no_peer_values = products.check_mxm("plus_times", B.mxm(B, semiring.plus_times).new(), g, peer.nnz, None)
    assert not no_peer_values["ok"] and no_peer_values["sum_rel_diff"] > 0.5


def test_a_failing_product_is_a_skip_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """An OutOfMemory inside ours becomes a row with the error text; the run goes on."""
    def no_memory(self, other, op="plus_times"):
        raise OutOfMemory("the product does not fit")

    monkeypatch.setattr(gb.Matrix, "mxm", no_memory)
    rows = products.bench_mxm(graphs.grid(4), CPU)
    assert [r["op"] for r in rows if r["op"] not in MASKED] == [f"mxm_{s}" for s in products.MXM_SEMIRINGS]
    assert all("OutOfMemory: the product does not fit" in r["skipped"] for r in rows)
    tri = products.bench_triangles(graphs.kronecker_symmetric(5), CPU)
    assert {r["op"] for r in tri} == {"triangles", "lcc"}
    assert all("OutOfMemory" in r.get("skipped", "") for r in tri if r["impl"] == "ours")


def test_product_targets() -> None:
    """The GPU targets (mxm <= 1x cuSPARSE, triangles 10x faster than SuiteSparse) and the CPU
    ones (mxm within 2x scipy at kron 12, triangles within 3x at kron 14)."""
    def row(graph: str, op: str, peer: str, ratio: float) -> dict:
        return {"graph": graph, "op": op, "impl": "ours", "peer": peer, "median_s": 1.0, "peer_ratio": ratio,
                "ok": True}

    gpu = {t["target"]: t for t in targets([row("kron16-sym", "mxm_min_plus", "cusparse", 0.9),
                                            row("kron20-sym", "triangles", "python-graphblas", 0.2)], None, "cupy")}
    assert gpu["kron16-sym mxm_min_plus / cuSPARSE A@A"]["met"] is True
    assert gpu["kron20-sym triangles / SuiteSparse"]["met"] is False
    assert gpu["kron20-sym triangles / SuiteSparse"]["limit"] == 0.1
    cpu = targets([row("kron12-sym", "mxm_plus_times", "scipy", 1.5), row("kron10-sym", "mxm_plus_times", "scipy", 9),
                   row("kron14-sym", "triangles", "scipy", 3.5),
                   row("kron14-sym", "triangles", "python-graphblas", 50)], None, "numpy")
    assert [(t["target"], t["met"]) for t in cpu] == [("kron12-sym mxm_plus_times / scipy", True),
                                                      ("kron14-sym triangles / scipy", False)]


def test_memory_rows_numpy(tmp_path: Path) -> None:
    """benchmarks.memory on the CPU: CSR bytes by the formula, a Matrix at rest of about the
    CSR's size, a positive peak for every algorithm, and the files written."""
    data = memory.run([6, 7], "numpy", pr_iters=3)
    assert [r["scale"] for r in data["scales"]] == [6, 7] and data["largest_scale"] == 7
    for r in data["scales"]:
        assert r["csr_bytes"] == (r["vertices"] + 1) * 8 + r["edges"] * 8
        assert 0.5 * r["csr_bytes"] <= r["matrix_bytes"] <= 2 * r["csr_bytes"]
        assert [a["algorithm"] for a in r["algorithms"]] == list(memory.ALGORITHMS)
        assert all(a["peak_extra_bytes"] > 0 and a["nvals"] > 0 and "error" not in a for a in r["algorithms"])
    memory.write(data, tmp_path)
    assert json.loads((tmp_path / "memory.json").read_text())["largest_scale"] == 7
    assert "Largest scale that ran BFS, SSSP and PageRank: 7" in (tmp_path / "memory.md").read_text()


def test_memory_stops_at_the_first_scale_that_does_not_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A PageRank out of memory at scale 6 is reported and ends the run: scale 5 is the largest."""
    runs = memory._runs

    def failing_at_6(A, source, pr_iters):
        out = runs(A, source, pr_iters)
        if A.nrows == 1 << 6:
            def oom():
                raise OutOfMemory("pagerank does not fit")
            out["pagerank"] = oom
        return out

    monkeypatch.setattr(memory, "_runs", failing_at_6)
    data = memory.run([5, 6, 7], "numpy", pr_iters=2)
    assert [r["scale"] for r in data["scales"]] == [5, 6]
    assert data["largest_scale"] == 5
    pr = next(a for a in data["scales"][1]["algorithms"] if a["algorithm"] == "pagerank")
    assert pr["error"] == "OutOfMemory: pagerank does not fit"
    assert "Largest scale that ran BFS, SSSP and PageRank: 5" in memory.markdown(data)


def test_measure_turns_takes_one_pair_of_slow_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """Calls slower than the budget (twice, so not a first use) are timed as one pair, in turn;
    fast ones go through measure_paired's repeats."""
    from benchmarks import timing

    made: list[str] = []
    seconds = {"ours": 2.0, "peer": 4.0}

    def fake_wall_once(fn, gpu):
        made.append(fn())
        return seconds[made[-1]]

    monkeypatch.setattr(timing, "_wall_once", fake_wall_once)
    got = timing.measure_turns(lambda: "ours", lambda: "peer", gpu=False, budget_s=3.0)
    assert made == ["ours", "peer"] * 3
    assert got["runs"] == 1 and got["median_s"] == 2.0 and got["peer_ratio"] == 0.5
    seconds.update(ours=0.01, peer=0.02)
    made.clear()
    got = timing.measure_turns(lambda: "ours", lambda: "peer", gpu=False, repeat=5, budget_s=3.0)
    assert got["runs"] == 5 and got["peer_ratio"] == 0.5
