"""nvGRAPH User's Guide example 3.2 (SSSP), ported line by line."""

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
    """Run the example; print and return the distances from vertex 0."""
    n, nnz, vertex_numsets, edge_numsets = 6, 10, 1, 1
    edge_dimT = [CUDA_R_32F]  # noqa: F405
    # Init host data
    sssp_1_h = np.zeros(n, dtype=np.float32)
    vertex_dim = [sssp_1_h]
    vertex_dimT = [CUDA_R_32F]  # noqa: F405
    CSC_input = nvgraphCSCTopology32I_st()  # noqa: F405
    weights_h = np.array([0.333333, 0.5, 0.333333, 0.5, 0.5, 1.0, 0.333333, 0.5, 0.5, 0.5], dtype=np.float32)
    destination_offsets_h = np.array([0, 1, 3, 4, 6, 8, 10], dtype=np.int32)
    source_indices_h = np.array([2, 0, 2, 0, 4, 5, 2, 3, 3, 4], dtype=np.int32)
    handle = nvgraphCreate()  # noqa: F405
    graph = nvgraphCreateGraphDescr(handle)  # noqa: F405
    CSC_input.nvertices = n
    CSC_input.nedges = nnz
    CSC_input.destination_offsets = destination_offsets_h
    CSC_input.source_indices = source_indices_h
    # Set graph connectivity and properties (transfers)
    check(nvgraphSetGraphStructure(handle, graph, CSC_input, NVGRAPH_CSC_32))  # noqa: F405
    check(nvgraphAllocateVertexData(handle, graph, vertex_numsets, vertex_dimT))  # noqa: F405
    check(nvgraphAllocateEdgeData(handle, graph, edge_numsets, edge_dimT))  # noqa: F405
    check(nvgraphSetEdgeData(handle, graph, weights_h, 0, NVGRAPH_CSC_32))  # noqa: F405
    # Solve
    source_vert = 0
    check(nvgraphSssp(handle, graph, 0, source_vert, 0))  # noqa: F405
    # Get and print result
    check(nvgraphGetVertexData(handle, graph, vertex_dim[0], 0, NVGRAPH_CSC_32))  # noqa: F405
    check(nvgraphDestroyGraphDescr(handle, graph))  # noqa: F405
    check(nvgraphDestroy(handle))  # noqa: F405
    print("sssp:", " ".join(f"{v:.6g}" for v in sssp_1_h))
    return sssp_1_h


if __name__ == "__main__":
    main()
