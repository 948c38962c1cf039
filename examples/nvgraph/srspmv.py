"""nvGRAPH User's Guide example 3.3 (semiring SpMV), ported line by line."""

from __future__ import annotations

import sys

import numpy as np

from grblas_gpu.nvgraph import *  # noqa: F403


def check(status: int) -> None:
    """The guide's check(): print the status and exit on failure."""
    if status != NVGRAPH_STATUS_SUCCESS:  # noqa: F405
        print(f"ERROR : {status}")
        sys.exit(0)


def main() -> np.ndarray:
    """Run the example; print and return y = A x."""
    n, nnz, vertex_numsets, edge_numsets = 5, 10, 2, 1
    alpha, beta = np.float32(1.0), np.float32(0.0)
    edge_dimT = [CUDA_R_32F]  # noqa: F405
    vertex_dimT = [CUDA_R_32F, CUDA_R_32F]  # noqa: F405
    CSR_input = nvgraphCSRTopology32I_st()  # noqa: F405
    # Init host data
    x_h = np.array([1.1, 2.2, 3.3, 4.4, 5.5], dtype=np.float32)
    y_h = np.array([0.0, 0.0, 0.0, 0.0, 0.0], dtype=np.float32)
    vertex_dim = [x_h, y_h]
    weights_h = np.array([1.0, 4.0, 2.0, 3.0, 5.0, 7.0, 8.0, 9.0, 6.0, 1.5], dtype=np.float32)
    source_offsets_h = np.array([0, 2, 4, 7, 9, 10], dtype=np.int32)
    destination_indices_h = np.array([0, 1, 1, 2, 0, 3, 4, 2, 4, 2], dtype=np.int32)
    handle = nvgraphCreate()  # noqa: F405
    graph = nvgraphCreateGraphDescr(handle)  # noqa: F405
    CSR_input.nvertices = n
    CSR_input.nedges = nnz
    CSR_input.source_offsets = source_offsets_h
    CSR_input.destination_indices = destination_indices_h
    # Set graph connectivity and properties (transfers)
    check(nvgraphSetGraphStructure(handle, graph, CSR_input, NVGRAPH_CSR_32))  # noqa: F405
    check(nvgraphAllocateVertexData(handle, graph, vertex_numsets, vertex_dimT))  # noqa: F405
    for i in range(vertex_numsets):
        check(nvgraphSetVertexData(handle, graph, vertex_dim[i], i, NVGRAPH_CSR_32))  # noqa: F405
    check(nvgraphAllocateEdgeData(handle, graph, edge_numsets, edge_dimT))  # noqa: F405
    check(nvgraphSetEdgeData(handle, graph, weights_h, 0, NVGRAPH_CSR_32))  # noqa: F405
    # Solve
    check(nvgraphSrSpmv(handle, graph, 0, alpha, 0, beta, 1, NVGRAPH_PLUS_TIMES_SR))  # noqa: F405
    # Get result
    check(nvgraphGetVertexData(handle, graph, y_h, 1, NVGRAPH_CSR_32))  # noqa: F405
    check(nvgraphDestroyGraphDescr(handle, graph))  # noqa: F405
    check(nvgraphDestroy(handle))  # noqa: F405
    print("y:", " ".join(f"{v:.6g}" for v in y_h))
    return y_h


if __name__ == "__main__":
    main()
