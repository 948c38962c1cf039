"""Products whose semiring type differs from the matrix's values, against cuSPARSE, in one process.

``python benchmarks/typed_values.py [SCALE]`` run from a checkout measures the ``grblas_gpu`` of
the working directory (so an old tree is measured by running the same file from it): on the
directed Kronecker graph of ``2**SCALE`` vertices (default 22) with FP32 weights,

* ``A x`` over ``plus_times[FP64]`` (FP32 values read by an FP64 product) and over
  ``plus_times[FP32]`` (same types), written into a kept vector (us, CUDA events, median of 30);
* cuSPARSE's SpMV (CuPy) of the FP32 CSR with an FP32 x, and of an FP64 copy of it with an
  FP64 x (cuSPARSE has no FP32-matrix, FP64-vector SpMV: a copy is its way), and the ratios;
* weighted PageRank per iteration in FP64 and FP32 (20 iterations, median of 3, the weights
  kept from a first call), and the bytes then kept with the matrix.

Prints one JSON line.
"""

from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.getcwd())  # (the package measured: the working directory's)


def main(scale: int) -> dict:
    """This process's figures."""
    import cupy
    import cupyx.scipy.sparse as csp
    import numpy as np

    import grblas_gpu as gb
    from benchmarks.graphs import kronecker
    from benchmarks.timing import device_sync, measure
    from grblas_gpu import algorithms as alg
    from grblas_gpu import semiring

    g = kronecker(scale)[0]
    A = gb.Matrix.from_csr(g.indptr, g.indices, g.weights, ncols=g.n, dtype="FP32")
    xd = np.random.default_rng(1).uniform(0.5, 1.5, g.n)
    out: dict = {"package": os.path.dirname(gb.__file__), "nnz": int(g.nnz), "csr_bytes": int(g.nbytes)}
    for t, np_t in (("FP64", np.float64), ("FP32", np.float32)):
        x, w, sr = gb.Vector.from_dense(xd.astype(np_t)), gb.Vector(t, g.n), semiring.plus_times[t]

        def product(x: gb.Vector = x, w: gb.Vector = w, sr: object = sr) -> None:
            w << A.mxv(x, sr)

        out[f"mxv_{t.lower()}_us"] = round(measure(product, gpu=True, warmup=5, repeat=30)["median_s"] * 1e6, 1)
    p32 = csp.csr_matrix((cupy.asarray(g.weights), cupy.asarray(g.indices), cupy.asarray(g.indptr)),
                         shape=(g.n, g.n))
    p64 = p32.astype(np.float64)
    for name, p, x in (("fp32", p32, cupy.asarray(xd, np.float32)), ("fp64_copy", p64, cupy.asarray(xd))):
        out[f"cusparse_{name}_us"] = round(
            measure(lambda p=p, x=x: p @ x, gpu=True, warmup=5, repeat=30)["median_s"] * 1e6, 1)
    del p32, p64
    out["ratio_fp32"] = round(out["mxv_fp32_us"] / out["cusparse_fp32_us"], 3)
    out["ratio_fp64_of_fp32_vs_cusparse_fp64"] = round(out["mxv_fp64_us"] / out["cusparse_fp64_copy_us"], 3)
    A.free_derived()
    for t in ("FP64", "FP32"):
        alg.pagerank(A, tol=0, max_iter=2, dtype=t)  # weights kept, kernels compiled
        times = []
        for _ in range(3):
            device_sync()
            t0 = time.perf_counter()
            alg.pagerank(A, tol=0, max_iter=20, dtype=t)
            device_sync()
            times.append((time.perf_counter() - t0) / 20)
        out[f"pagerank_weighted_{t.lower()}_ms"] = round(sorted(times)[1] * 1e3, 4)
    out["kept_derived_bytes"] = int(A.memory_usage()["derived"])
    return out


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]) if len(sys.argv) > 1 else 22)), flush=True)
