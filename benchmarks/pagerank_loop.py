"""``python -m benchmarks.pagerank_loop``: PageRank per iteration, replayed against plain.

For a 1,024-vertex Kronecker graph, a 1000 x 1000 grid and a scale-22 Kronecker graph (all
symmetric, ``benchmarks.graphs``): ``pagerank(A, tol=0, max_iter=K)`` with device loops on
(the iteration captured as a CUDA graph and replayed, ``grblas_gpu.loop_capture``) and off
(the plain loop), medians of ``--repeat`` calls after a warm-up, divided by K; a converging
call (``tol=1e-6``) both ways; whether the two gave the same vector bit for bit.  kron 22 is
past ``REPLAY_MOST_ENTRIES`` (it runs plain either way); its "forced" row replays it anyway.
All in one process; prints one JSON object a row."""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from . import graphs
from .loops import _median_ms
from .timing import device_sync


def _row(name: str, g: graphs.Graph, iters: int, repeat: int, dtype: str) -> dict:
    from grblas_gpu.algorithms import pagerank

    import grblas_gpu as gb
    from grblas_gpu import loop_capture
    from grblas_gpu.loops import device_loops

    A = gb.Matrix.from_csr(g.indptr, g.indices, g.weights.astype(np.float64), ncols=g.n, backend="cupy")
    row: dict[str, Any] = {"graph": name, "n": g.n, "entries": A.nvals, "iters": iters, "dtype": dtype}
    fixed = lambda: pagerank(A, tol=0, max_iter=iters, dtype=dtype)  # noqa: E731
    converging = lambda: pagerank(A, dtype=dtype)  # noqa: E731
    with device_loops(False):
        row["plain_ms_iter"] = _median_ms(fixed, repeat, device_sync) / iters
        row["plain_converge_ms"] = _median_ms(converging, repeat, device_sync)
        plain = fixed().to_dense()
    row["replayed_ms_iter"] = _median_ms(fixed, repeat, device_sync) / iters
    row["how"] = loop_capture.last_run.get("how")
    row["pool"] = [loop_capture.last_run.get("pool_before"), loop_capture.last_run.get("pool_after")]
    row["replayed_converge_ms"] = _median_ms(converging, repeat, device_sync)
    row["same_bits"] = bool(np.array_equal(plain, fixed().to_dense()))
    if A.nvals > loop_capture.REPLAY_MOST_ENTRIES:
        most, loop_capture.REPLAY_MOST_ENTRIES = loop_capture.REPLAY_MOST_ENTRIES, A.nvals
        try:
            row["forced_ms_iter"] = _median_ms(fixed, repeat, device_sync) / iters
            row["forced_how"] = loop_capture.last_run.get("how")
            row["forced_same_bits"] = bool(np.array_equal(plain, fixed().to_dense()))
        finally:
            loop_capture.REPLAY_MOST_ENTRIES = most
    return row


def main(argv: list[str] | None = None) -> None:
    """Print a row a graph (JSON)."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kron", type=int, nargs="*", default=[10, 22])
    ap.add_argument("--grid", type=int, nargs="*", default=[1000])
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dtype", nargs="*", default=["FP64", "FP32"])
    a = ap.parse_args(argv)
    cases = [(f"kron{s}-sym", lambda s=s: graphs.kronecker_symmetric(s)) for s in a.kron if s < 16]
    cases += [(f"grid{s}", lambda s=s: graphs.grid(s)) for s in a.grid]
    cases += [(f"kron{s}-sym", lambda s=s: graphs.kronecker_symmetric(s)) for s in a.kron if s >= 16]
    for name, make in cases:
        g = make()
        for dtype in a.dtype:
            print(json.dumps(_row(name, g, a.iters if g.n < 1 << 20 else 20, a.repeat, dtype)), flush=True)


if __name__ == "__main__":
    main()
