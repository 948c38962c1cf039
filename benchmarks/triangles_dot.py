"""Triangle counting's product on the GPU against SuiteSparse:GraphBLAS on the host's cores.

    C<L> = L L' over plus_pair, then the sum of C's values (L: the strict lower triangle of the
    symmetric Kronecker graph of ``benchmarks.graphs.kronecker``)

ours: ``CupyBackend.mxm_dot`` (the masked dot-product SpGEMM) and a CuPy sum, timed to the
count on the host; SuiteSparse: python-graphblas, ``L.mxm(L.T, plus_pair).new(mask=L.S)`` then
``reduce_scalar``, all cores.  Each is run ``--runs`` times after one untimed run (SuiteSparse once,
with none before, from ``--host-warmup-below`` on); the best is reported, and the two triangle
counts are compared.

    python -m benchmarks.triangles_dot --scales 16 18 20 22
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from benchmarks.graphs import kronecker


def lower_triangle(indptr: np.ndarray, indices: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The strict lower triangle (column < row) of a CSR matrix with sorted rows: (indptr, indices),
    row pointers int32 where the entries allow (as a Matrix stores them)."""
    rows = np.repeat(np.arange(n, dtype=np.int32), np.diff(indptr))
    keep = indices < rows
    low_idx = np.ascontiguousarray(indices[keep], dtype=np.int32)
    low_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows[keep], minlength=n), out=low_ptr[1:])
    return (low_ptr.astype(np.int32) if low_ptr[-1] < 2**31 else low_ptr), low_idx


def ours(indptr: np.ndarray, indices: np.ndarray, n: int, runs: int,
         light_cost: int | None = None) -> tuple[float, int]:
    """(best ms, triangles) of the GPU product and sum (with the dot kernels' light cost set, when
    given: see :data:`grblas_gpu.backends.cupy.dot_mxm.LIGHT_COST`)."""
    import cupy

    from grblas_gpu.backends import get_backend
    from grblas_gpu.backends.cupy import dot_mxm
    from grblas_gpu.backends.operands import CsrOperand, MaskOperand
    from grblas_gpu.dtypes import INT64
    from grblas_gpu.operators import semiring

    gpu = get_backend("cupy")
    ptr, idx = cupy.asarray(indptr), cupy.asarray(indices)
    low = CsrOperand(ptr, idx, None, n, n)
    mask = MaskOperand(ptr, idx)
    plus_pair = semiring["plus_pair"][INT64]
    if light_cost is not None:
        dot_mxm.LIGHT_COST = light_cost

    def once(low: CsrOperand, mask: MaskOperand) -> int:
        product = gpu.mxm_dot(plus_pair, low, low, mask)  # A @ L.T: bt is L itself
        return int(product.values.sum())

    count = once(low, mask)
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        got = once(low, mask)
        best = min(best, time.perf_counter() - t0)
        assert got == count
    del ptr, idx, low, mask
    cupy.get_default_memory_pool().free_all_blocks()
    return best * 1e3, count


def suitesparse(indptr: np.ndarray, indices: np.ndarray, n: int, runs: int,
                warmup: bool = True) -> tuple[float, int, int]:
    """(best ms, triangles, threads) of python-graphblas on the host (``runs`` timed runs, after an
    untimed one when ``warmup``)."""
    import graphblas as gb

    ones = np.ones(indices.size, dtype=np.int64)  # INT64: plus_pair then counts in INT64
    try:
        low = gb.Matrix.from_csr(indptr.astype(np.int64), indices, ones, nrows=n, ncols=n)
    except AttributeError:  # older python-graphblas
        low = gb.Matrix.ss.import_csr(nrows=n, ncols=n, indptr=indptr.astype(np.int64), col_indices=indices,
                                      values=ones)

    def once() -> int:
        c = low.mxm(low.T, gb.semiring.plus_pair).new(mask=low.S)
        return int(c.reduce_scalar().new().value or 0)

    count = once() if warmup else None
    best = float("inf")
    for _ in range(max(runs, 1)):
        t0 = time.perf_counter()
        got = once()
        best = min(best, time.perf_counter() - t0)
        assert count is None or got == count
        count = got
    try:
        threads = int(gb.ss.config["nthreads"])
    except Exception:  # noqa: BLE001 - only reported
        threads = -1
    return best * 1e3, count, threads


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    """Run the scales asked for and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", type=int, nargs="+", default=[16, 18, 20, 22])
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each (after one untimed)")
    parser.add_argument("--host-warmup-below", type=int, default=20,
                        help="SuiteSparse gets an untimed run first only below this scale (its runs take long)")
    parser.add_argument("--light-cost", type=int, default=None, help="the dot kernels' light cost (default: theirs)")
    args = parser.parse_args(argv)
    rows = []
    print("| scale | vertices | edges (sym) | L entries | triangles | ours ms | SuiteSparse ms | ratio | counts equal |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for scale in args.scales:
        _, sym = kronecker(scale)
        ptr, idx = lower_triangle(sym.indptr, sym.indices, sym.n)
        ours_ms, ours_count = ours(ptr, idx, sym.n, args.runs, args.light_cost)
        ss_ms, ss_count, threads = suitesparse(ptr, idx, sym.n, args.runs if scale < args.host_warmup_below else 1,
                                               warmup=scale < args.host_warmup_below)
        row = {"scale": scale, "vertices": sym.n, "edges": sym.nnz, "l_entries": int(idx.size),
               "triangles": ours_count, "ours_ms": ours_ms, "suitesparse_ms": ss_ms,
               "ratio": ss_ms / ours_ms, "equal": ours_count == ss_count, "threads": threads}
        rows.append(row)
        print(f"| {scale} | {sym.n:,} | {sym.nnz:,} | {idx.size:,} | {ours_count:,} | {ours_ms:.2f} | "
              f"{ss_ms:.1f} | {row['ratio']:.1f}x | {row['equal']} |", flush=True)
        del sym, ptr, idx
    if rows:
        print(f"SuiteSparse threads: {rows[0]['threads']}")
    return rows


if __name__ == "__main__":
    main()
