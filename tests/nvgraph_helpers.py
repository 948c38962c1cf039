"""Shared helpers for the nvGRAPH compatibility tests: backends and graph builders."""

from __future__ import annotations

from typing import Any

import numpy as np

import grblas_gpu.nvgraph as nv
from grblas_gpu.backends import gpu_available

BACKENDS = ["numpy"] + (["cupy"] if gpu_available() else [])


def xp_of(backend: str) -> Any:
    """numpy or cupy."""
    if backend == "cupy":
        import cupy

        return cupy
    return np


def host(a: Any) -> np.ndarray:
    """A NumPy copy of a NumPy or CuPy array."""
    return a.get() if hasattr(a, "get") else np.asarray(a)


def make_graph(backend: str, src: Any, dst: Any, weights: Any = None, *, ttype: int = nv.NVGRAPH_CSR_32,
               n: int | None = None, vsets: int = 2, esets: int = 1, vtype: int = nv.CUDA_R_32F,
               vertex_values: list[Any] | None = None) -> tuple[Any, Any, np.ndarray]:
    """(handle, descr, edge permutation) of a graph given as an edge list; edges stored CSR or CSC order."""
    xp = xp_of(backend)
    src, dst = np.asarray(src), np.asarray(dst)
    n = int(max(src.max(), dst.max()) + 1) if n is None else n
    key = src if ttype == nv.NVGRAPH_CSR_32 else dst
    other = dst if ttype == nv.NVGRAPH_CSR_32 else src
    order = np.argsort(key, kind="stable")
    offsets = np.concatenate([[0], np.cumsum(np.bincount(key, minlength=n))]).astype(np.int32)
    handle = nv.nvgraphCreate()
    descr = nv.nvgraphCreateGraphDescr(handle)
    if ttype == nv.NVGRAPH_CSR_32:
        topo = nv.nvgraphCSRTopology32I_st(n, len(src), xp.asarray(offsets), xp.asarray(other[order].astype(np.int32)))
    else:
        topo = nv.nvgraphCSCTopology32I_st(n, len(src), xp.asarray(offsets), xp.asarray(other[order].astype(np.int32)))
    nv.nvgraphSetGraphStructure(handle, descr, topo, ttype)
    dtype = nv.NUMPY_TYPES[vtype]
    if vsets:
        nv.nvgraphAllocateVertexData(handle, descr, vsets, [vtype] * vsets)
    if esets:
        nv.nvgraphAllocateEdgeData(handle, descr, esets, [vtype] * esets)
        if weights is not None:
            nv.nvgraphSetEdgeData(handle, descr, xp.asarray(np.asarray(weights, dtype=dtype)[order]), 0)
    for k, vals in enumerate(vertex_values or []):
        nv.nvgraphSetVertexData(handle, descr, xp.asarray(np.asarray(vals, dtype=dtype)), k)
    return handle, descr, order


def get_vertex(handle: Any, descr: Any, setnum: int, n: int, dtype: Any, backend: str) -> np.ndarray:
    """Read a vertex set through nvgraphGetVertexData into a fresh array of the backend."""
    out = xp_of(backend).zeros(n, dtype=dtype)
    assert nv.nvgraphGetVertexData(handle, descr, out, setnum) == nv.NVGRAPH_STATUS_SUCCESS
    return host(out)


def random_graph(seed: int, n: int = 12, m: int = 40) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A random simple directed graph without self-loops: (src, dst, positive weights)."""
    rng = np.random.default_rng(seed)
    pairs = {(int(a), int(b)) for a, b in rng.integers(0, n, size=(m, 2)) if a != b}
    src, dst = (np.array(x) for x in zip(*sorted(pairs)))
    return src, dst, rng.uniform(0.5, 3.0, size=len(src))
