"""The benchmark graphs made a range of rows at a time (the path of kron 27 on a GPU, here
with NumPy arrays) against the one-piece edge-list path, and the memory report's tables."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import graphs, memory


def _edges(scale: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Kronecker edges with self-loops and duplicates kept (both occur at this size)."""
    rng = np.random.default_rng(seed)
    src = np.zeros(16 << scale, dtype=np.int32)
    dst = np.zeros(16 << scale, dtype=np.int32)
    for _ in range(scale):
        r = rng.random(src.size, dtype=np.float32)
        src = (src << 1) | (r >= 0.76)
        dst = (dst << 1) | (((r > 0.57) & (r < 0.76)) | (r > 0.95))
    return src.astype(np.int32), dst.astype(np.int32)


@pytest.mark.parametrize("symmetric", [True, False])
@pytest.mark.parametrize("buckets", [1, 4, 16])
def test_row_ranges_match_the_edge_list_path(symmetric: bool, buckets: int) -> None:
    scale = 9
    src, dst = _edges(scale, seed=3)
    assert (src == dst).any()
    got = graphs.kronecker_by_row_ranges(np, src, dst, scale, seed=42, symmetric=symmetric, buckets=buckets)
    want = graphs.from_edges("w", "x", src, dst, 1 << scale, symmetric=symmetric, seed=42)
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_array_equal(got.weights, want.weights)
    assert got.nbytes == want.nbytes and got.symmetric is symmetric


def test_default_ranges_bound_the_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graphs, "BUCKET_KEYS", 1000)
    src, dst = _edges(8, seed=4)
    g = graphs.kronecker_by_row_ranges(np, src, dst, 8, symmetric=True)
    assert g.info["row_ranges"] == 16  # 2 x 4096 keys in ranges of at most about 1000
    want = graphs.from_edges("w", "x", src, dst, 256, symmetric=True, seed=42)
    np.testing.assert_array_equal(g.indices, want.indices)


def test_site_table_in_the_report() -> None:
    data = {"meta": {"backend": "cupy", "device": "d", "date": "t", "memory_counter": "c", "pr_iters": 1},
            "scales": [{"graph": "kron9", "vertices": 512, "edges": 10, "csr_bytes": 1000, "matrix_bytes": 1000,
                        "algorithms": [{"algorithm": "sssp", "peak_extra_bytes": 500, "peak_x_csr": 0.5,
                                        "sites": [{"site": "grblas_gpu/x.py:1 < algorithms/sssp.py:2",
                                                   "allocations": 2, "largest": 300, "total": 400}],
                                        "peak_site": "grblas_gpu/x.py:1 < algorithms/sssp.py:2"}]}]}
    text = memory.markdown(data)
    assert "`grblas_gpu/x.py:1 < algorithms/sssp.py:2` | 2 |" in text and "| yes |" in text
