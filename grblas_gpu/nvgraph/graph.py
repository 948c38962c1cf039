"""Handles, graph descriptors and their vertex / edge sets (nvgraph.cu's descriptor state machine).

A descriptor holds its topology arrays as given (CSC is *not* converted: like the C library
it is kept as offsets + indices whose rows are destinations) and one array per vertex or
edge set, all on the backend of the topology arrays (CuPy arrays -> "cupy").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import constants as c
from .errors import NvgraphError, require, type_not_supported
from .topology import (
    STRUCT_FOR_TYPE,
    array_module,
    backend_of,
    copy_into,
    nvgraphCSCTopology32I_st,
    nvgraphCSRTopology32I_st,
    to_backend,
)

IS_EMPTY, HAS_TOPOLOGY, HAS_VALUES = 0, 1, 2


@dataclass(eq=False)
class nvgraphHandle_t:
    """An opaque library handle (``nvgraphCreate``); ``initialized`` is False once destroyed."""

    initialized: bool = True


@dataclass(eq=False)
class nvgraphGraphDescr_t:
    """A graph descriptor: topology, its type, value type and the vertex / edge sets."""

    state: int = IS_EMPTY
    ttype: int = -1
    nvertices: int = 0
    nedges: int = 0
    offsets: Any = None
    indices: Any = None
    backend: str = "numpy"
    value_type: int | None = None
    vertex_sets: list[Any] = field(default_factory=list)
    edge_sets: list[Any] = field(default_factory=list)
    alive: bool = True

    @property
    def xp(self) -> Any:
        """The array module holding this graph's arrays."""
        return array_module(self.backend)

    @property
    def dtype(self) -> Any:
        """NumPy dtype of the graph's values (None before the first allocation)."""
        return None if self.value_type is None else c.NUMPY_TYPES[self.value_type]


# ----------------------------------------------------------------------------- checks


def check_handle(handle: Any) -> None:
    """INVALID_VALUE unless ``handle`` is a live handle (nvgraph.cu ``check_context``)."""
    require(isinstance(handle, nvgraphHandle_t) and handle.initialized, "bad or destroyed handle")


def check_descr(descr: Any, *, need_topology: bool = True) -> nvgraphGraphDescr_t:
    """INVALID_VALUE unless ``descr`` is a live descriptor (with a topology when asked)."""
    require(isinstance(descr, nvgraphGraphDescr_t) and descr.alive, "bad or destroyed graph descriptor")
    if need_topology:
        require(descr.state != IS_EMPTY, "the graph has no topology (call nvgraphSetGraphStructure)")
    return descr


def check_values(descr: nvgraphGraphDescr_t) -> None:
    """INVALID_VALUE unless vertex or edge data were allocated."""
    require(descr.state == HAS_VALUES, "the graph has no data sets (call nvgraphAllocate*Data)")


def check_index(index: Any, sets: Sequence[Any], what: str) -> int:
    """INVALID_VALUE unless ``index`` names one of ``sets``."""
    require(isinstance(index, (int, np.integer)) and 0 <= int(index) < len(sets),
            f"{what} {index!r} is not one of the {len(sets)} allocated sets")
    return int(index)


def check_buffer(data: Any, size: int, what: str, *, writable: bool = False) -> None:
    """INVALID_VALUE unless ``data`` is a one-dimensional array (or list) of at least ``size``
    numbers, and, as an output, one that can be written."""
    if isinstance(data, list):
        require(len(data) >= size and all(isinstance(x, (int, float, np.number)) and not isinstance(x, bool)
                                           for x in data[:size]), f"{what} must hold {size} numbers")
        return
    require(hasattr(data, "shape") and hasattr(data, "dtype"), f"{what} must be an array, got {type(data).__name__}")
    require(len(data.shape) == 1, f"{what} must be one-dimensional, got shape {tuple(data.shape)}")
    require(data.dtype.kind in "biuf", f"{what} must hold numbers, got {data.dtype}")
    require(data.shape[0] >= size, f"{what} has {data.shape[0]} values, {size} are needed")
    flags = getattr(data, "flags", None)
    require(not writable or bool(getattr(flags, "writeable", True)), f"{what} is read-only")  # (CuPy arrays have no such flag)


def check_ttype(descr: nvgraphGraphDescr_t, ttype: int | None) -> None:
    """The guide's 5-argument data calls: TType given and not the graph's -> INVALID_VALUE."""
    require(ttype is None or ttype == descr.ttype, f"TType {ttype} does not match the graph's {descr.ttype}")


def check_topology(descr: nvgraphGraphDescr_t, ttype: int, function: str) -> None:
    """INVALID_VALUE unless the graph is stored in ``ttype``."""
    name = {c.NVGRAPH_CSR_32: "NVGRAPH_CSR_32", c.NVGRAPH_CSC_32: "NVGRAPH_CSC_32"}[ttype]
    require(descr.ttype == ttype, f"{function} needs a graph in {name}")


# ----------------------------------------------------------------------------- handle / descriptor


def nvgraphCreate() -> nvgraphHandle_t:
    """Create a library handle."""
    return nvgraphHandle_t()


def nvgraphDestroy(handle: nvgraphHandle_t) -> int:
    """Destroy a handle; a NULL or uninitialised handle gives ALLOC_FAILED, as in nvgraph.cu."""
    require(isinstance(handle, nvgraphHandle_t) and handle.initialized, "bad or destroyed handle",
            c.NVGRAPH_STATUS_ALLOC_FAILED)
    handle.initialized = False
    return c.NVGRAPH_STATUS_SUCCESS


def nvgraphCreateGraphDescr(handle: nvgraphHandle_t) -> nvgraphGraphDescr_t:
    """Create an empty graph descriptor."""
    check_handle(handle)
    return nvgraphGraphDescr_t()


def nvgraphDestroyGraphDescr(handle: nvgraphHandle_t, descr: nvgraphGraphDescr_t) -> int:
    """Destroy a graph descriptor and free its data at once (as the C code does)."""
    check_handle(handle)
    d = check_descr(descr, need_topology=False)
    d.alive, d.offsets, d.indices, d.vertex_sets, d.edge_sets = False, None, None, [], []
    return c.NVGRAPH_STATUS_SUCCESS


# ----------------------------------------------------------------------------- structure


def _topology_arrays(topology: Any, ttype: int) -> tuple[Any, Any]:
    """(offsets, indices) of a CSR or CSC struct."""
    if ttype == c.NVGRAPH_CSR_32:
        require(isinstance(topology, nvgraphCSRTopology32I_st), "topology is not an nvgraphCSRTopology32I_st")
        return topology.source_offsets, topology.destination_indices
    require(isinstance(topology, nvgraphCSCTopology32I_st), "topology is not an nvgraphCSCTopology32I_st")
    return topology.destination_offsets, topology.source_indices


def nvgraphSetGraphStructure(handle: nvgraphHandle_t, descr: nvgraphGraphDescr_t, topology: Any,
                             TType: int) -> int:
    """Set the topology of an empty descriptor (CSR_32 or CSC_32; the arrays are copied)."""
    check_handle(handle)
    d = check_descr(descr, need_topology=False)
    require(d.state == IS_EMPTY, "the graph already has a topology")
    require(topology is not None, "topology is NULL")
    if TType not in (c.NVGRAPH_CSR_32, c.NVGRAPH_CSC_32):
        raise type_not_supported(f"topology type {TType!r} cannot be set on a graph (only CSR_32 / CSC_32)")
    offsets, indices = _topology_arrays(topology, TType)
    n, nnz = int(topology.nvertices), int(topology.nedges)
    require(n > 0 and nnz > 0, f"nvertices ({n}) and nedges ({nnz}) must be positive")
    require(offsets is not None and indices is not None, "a topology array is NULL")
    backend = backend_of(offsets, indices)
    off = to_backend(offsets, backend, np.int32)
    idx = to_backend(indices, backend, np.int32)
    require(len(off) >= n + 1 and len(idx) >= nnz, "topology arrays are shorter than nvertices+1 / nedges")
    d.offsets, d.indices = off[: n + 1], idx[:nnz]
    d.nvertices, d.nedges, d.ttype, d.backend, d.state = n, nnz, TType, backend, HAS_TOPOLOGY
    return c.NVGRAPH_STATUS_SUCCESS


def nvgraphGetGraphStructure(handle: nvgraphHandle_t, descr: nvgraphGraphDescr_t,
                             topology: Any = None, TType: int | None = None) -> tuple[Any, int]:
    """Return ``(topology, TType)``: the given struct (or a new one) filled in the graph's own layout.

    Arrays of the struct that are not None are filled in place; None ones get fresh copies.
    ``TType`` (the guide's by-value form) must match the graph's type when given.
    """
    check_handle(handle)
    d = check_descr(descr)
    if TType is not None and TType != d.ttype:
        raise type_not_supported(f"TType {TType} does not match the graph's topology type {d.ttype}")
    if topology is None:
        topology = STRUCT_FOR_TYPE[d.ttype]()
    offsets_name, indices_name = _field_names(d.ttype)
    require(isinstance(topology, STRUCT_FOR_TYPE[d.ttype]), "topology struct does not match the graph's type")
    topology.nvertices, topology.nedges = d.nvertices, d.nedges
    _fill_field(topology, offsets_name, d.offsets)
    _fill_field(topology, indices_name, d.indices)
    return topology, d.ttype


def _field_names(ttype: int) -> tuple[str, str]:
    """(offsets field, indices field) of the struct of ``ttype``."""
    if ttype == c.NVGRAPH_CSR_32:
        return "source_offsets", "destination_indices"
    return "destination_offsets", "source_indices"


def _fill_field(topology: Any, name: str, data: Any) -> None:
    """Copy ``data`` into the struct field (in place when the caller gave an array)."""
    if getattr(topology, name) is None:
        setattr(topology, name, data.copy())
    else:
        copy_into(getattr(topology, name), data)


# ----------------------------------------------------------------------------- data sets


def _check_settypes(d: nvgraphGraphDescr_t, numsets: int, settypes: Any) -> int | None:
    """Validate an allocation request; the common value type (None when numsets is 0)."""
    require(isinstance(numsets, (int, np.integer)) and 0 <= numsets < c.INT_MAX, f"bad numsets {numsets!r}")
    require(settypes is not None, "settypes is NULL")
    types = [settypes] if isinstance(settypes, (int, np.integer)) else list(settypes)[:numsets]
    require(len(types) == numsets, f"settypes holds {len(types)} types for {numsets} sets")
    if numsets == 0:
        return None
    require(all(t == types[0] for t in types), "all settypes must be equal")
    if types[0] not in c.NUMPY_TYPES:
        raise type_not_supported(f"value type {types[0]!r} (use CUDA_R_32F, CUDA_R_64F or CUDA_R_32I)")
    require(d.value_type in (None, types[0]), f"the graph already holds values of type {d.value_type}")
    return int(types[0])


def _allocate(handle: Any, descr: Any, numsets: int, settypes: Any, vertex: bool) -> int:
    """Shared body of the two Allocate functions (all sets of that kind are reallocated)."""
    check_handle(handle)
    d = check_descr(descr)
    vtype = _check_settypes(d, numsets, settypes)
    if vtype is not None:
        d.value_type = vtype
    size = d.nvertices if vertex else d.nedges
    dtype = c.NUMPY_TYPES[d.value_type] if d.value_type is not None else np.float32
    sets = [d.xp.zeros(size, dtype=dtype) for _ in range(int(numsets))]
    if vertex:
        d.vertex_sets = sets
    else:
        d.edge_sets = sets
    d.state = HAS_VALUES
    return c.NVGRAPH_STATUS_SUCCESS


def nvgraphAllocateVertexData(handle: nvgraphHandle_t, descr: nvgraphGraphDescr_t, numsets: int,
                              settypes: Any) -> int:
    """Allocate ``numsets`` vertex sets of one value type (``settypes``: a list of cudaDataType_t)."""
    return _allocate(handle, descr, numsets, settypes, vertex=True)


def nvgraphAllocateEdgeData(handle: nvgraphHandle_t, descr: nvgraphGraphDescr_t, numsets: int,
                            settypes: Any) -> int:
    """Allocate ``numsets`` edge sets of one value type (``settypes``: a list of cudaDataType_t)."""
    return _allocate(handle, descr, numsets, settypes, vertex=False)


def _data_target(handle: Any, descr: Any, data: Any, setnum: Any, TType: int | None,
                 vertex: bool) -> tuple[nvgraphGraphDescr_t, int]:
    """Shared checks of the Set/Get data functions: the descriptor and the set index."""
    check_handle(handle)
    d = check_descr(descr)
    require(data is not None, "data pointer is NULL")
    check_values(d)
    check_ttype(d, TType)
    sets = d.vertex_sets if vertex else d.edge_sets
    return d, check_index(setnum, sets, "setnum")


def _set_data(handle: Any, descr: Any, data: Any, setnum: Any, TType: int | None, vertex: bool) -> int:
    """Copy the caller's values into a set."""
    d, k = _data_target(handle, descr, data, setnum, TType, vertex)
    size = d.nvertices if vertex else d.nedges
    check_buffer(data, size, "data")
    sets = d.vertex_sets if vertex else d.edge_sets
    sets[k] = to_backend(data, d.backend, d.dtype)[:size]
    return c.NVGRAPH_STATUS_SUCCESS


def _get_data(handle: Any, descr: Any, out: Any, setnum: Any, TType: int | None, vertex: bool) -> int:
    """Copy a set into the caller's array, in place."""
    d, k = _data_target(handle, descr, out, setnum, TType, vertex)
    sets = d.vertex_sets if vertex else d.edge_sets
    check_buffer(out, len(sets[k]), "the output array", writable=True)
    copy_into(out, sets[k])
    return c.NVGRAPH_STATUS_SUCCESS


def nvgraphSetVertexData(handle: nvgraphHandle_t, descr: nvgraphGraphDescr_t, vertexData: Any,
                         setnum: int, TType: int | None = None) -> int:
    """Copy ``vertexData`` (NumPy or CuPy, nvertices values) into vertex set ``setnum``."""
    return _set_data(handle, descr, vertexData, setnum, TType, vertex=True)


def nvgraphGetVertexData(handle: nvgraphHandle_t, descr: nvgraphGraphDescr_t, vertexData: Any,
                         setnum: int, TType: int | None = None) -> int:
    """Copy vertex set ``setnum`` into the caller's array ``vertexData`` (filled in place)."""
    return _get_data(handle, descr, vertexData, setnum, TType, vertex=True)


def nvgraphSetEdgeData(handle: nvgraphHandle_t, descr: nvgraphGraphDescr_t, edgeData: Any,
                       setnum: int, TType: int | None = None) -> int:
    """Copy ``edgeData`` (nedges values, in the order of the topology's indices) into edge set ``setnum``."""
    return _set_data(handle, descr, edgeData, setnum, TType, vertex=False)


def nvgraphGetEdgeData(handle: nvgraphHandle_t, descr: nvgraphGraphDescr_t, edgeData: Any,
                       setnum: int, TType: int | None = None) -> int:
    """Copy edge set ``setnum`` into ``edgeData`` in place; int (CUDA_R_32I) graphs: TYPE_NOT_SUPPORTED."""
    check_handle(handle)
    d = check_descr(descr)
    if d.value_type == c.CUDA_R_32I:
        raise type_not_supported("nvgraphGetEdgeData has no CUDA_R_32I branch")
    return _get_data(handle, descr, edgeData, setnum, TType, vertex=False)


# ----------------------------------------------------------------------------- to the algebra


def edge_coo(d: nvgraphGraphDescr_t) -> tuple[Any, Any]:
    """(source, destination) of every edge, in the order of the stored index array."""
    xp = d.xp
    counts = xp.diff(d.offsets.astype(np.int64))
    rows = xp.repeat(xp.arange(d.nvertices, dtype=np.int64), counts)
    cols = d.indices.astype(np.int64)
    return (rows, cols) if d.ttype == c.NVGRAPH_CSR_32 else (cols, rows)


def check_structure(d: nvgraphGraphDescr_t) -> None:
    """INVALID_VALUE for offsets / indices that cannot describe a graph (the C code reads them unchecked)."""
    off = d.offsets
    ok = int(off[0]) == 0 and int(off[-1]) == d.nedges and not bool((off[1:] < off[:-1]).any())
    require(ok, "offsets must start at 0, never decrease and end at nedges")
    require(bool(((d.indices >= 0) & (d.indices < d.nvertices)).all()), "an index is outside [0, nvertices)")


def graph_matrix(d: nvgraphGraphDescr_t, weights: Any, *, pull: bool, dup_op: Any) -> Any:
    """The weighted adjacency as a ``grblas_gpu.Matrix`` on the graph's backend.

    ``pull=False``: ``A[u, v] = w(u -> v)``; ``pull=True``: ``A[v, u] = w(u -> v)`` (row v = in-edges,
    the CSC-read-as-CSR matrix nvGRAPH iterates on).  Parallel edges are combined with ``dup_op``
    (the semiring's add), which is what a row sum over the multigraph computes.
    """
    from grblas_gpu import Matrix

    check_structure(d)
    src, dst = edge_coo(d)
    rows, cols = (dst, src) if pull else (src, dst)
    return Matrix.from_coo(rows, cols, weights, nrows=d.nvertices, ncols=d.nvertices,
                           dtype=weights.dtype, dup_op=dup_op, backend=d.backend)


def value_type_of(d: nvgraphGraphDescr_t, allowed: Sequence[int], status: int, function: str) -> int:
    """The graph's value type, or ``NvgraphError(status)`` when ``function`` does not support it."""
    value_type = d.value_type
    if value_type is None or value_type not in allowed:
        raise NvgraphError(status, f"{function} does not support value type {value_type}")
    return int(value_type)


__all__ = [
    "nvgraphHandle_t", "nvgraphGraphDescr_t", "nvgraphCreate", "nvgraphDestroy", "nvgraphCreateGraphDescr",
    "nvgraphDestroyGraphDescr", "nvgraphSetGraphStructure", "nvgraphGetGraphStructure",
    "nvgraphAllocateVertexData", "nvgraphAllocateEdgeData", "nvgraphSetVertexData", "nvgraphGetVertexData",
    "nvgraphSetEdgeData", "nvgraphGetEdgeData",
]
