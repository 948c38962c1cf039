"""Topology conversion (CSR / CSC / COO), graph conversion, subgraph extraction, GetProperty.

These are array reshuffles, not algebra: they run on the host with NumPy (stable sorts, as
cuSPARSE's csr2csc) and write results back to the caller's or the graph's backend.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import constants as c
from .errors import integer, require, type_not_supported
from .graph import (
    HAS_VALUES,
    IS_EMPTY,
    check_buffer,
    check_descr,
    check_handle,
    nvgraphGraphDescr_t,
    nvgraphHandle_t,
)
from .topology import (
    STRUCT_FOR_TYPE,
    array_module,
    copy_into,
    to_host,
)

# ----------------------------------------------------------------------------- COO <-> compressed


def _expand(offsets: np.ndarray, n: int) -> np.ndarray:
    """The row (or column) of every entry of a compressed array."""
    counts: np.ndarray = np.diff(offsets.astype(np.int64))
    return np.repeat(np.arange(n, dtype=np.int64), counts)


def _compress(keys: np.ndarray, n: int) -> np.ndarray:
    """Offsets of sorted keys over ``n`` vertices."""
    return np.concatenate([[0], np.cumsum(np.bincount(keys, minlength=n))]).astype(np.int32)


def _struct_to_coo(ttype: int, topo: Any) -> tuple[int, int, np.ndarray, np.ndarray]:
    """(n, nnz, sources, destinations) of a CSR / CSC / COO struct, edges in stored order."""
    n, nnz = int(topo.nvertices), int(topo.nedges)
    if ttype == c.NVGRAPH_CSR_32:
        off, idx = to_host(topo.source_offsets), to_host(topo.destination_indices)[:nnz]
        return n, nnz, _expand(off[: n + 1], n), idx.astype(np.int64)
    if ttype == c.NVGRAPH_CSC_32:
        off, idx = to_host(topo.destination_offsets), to_host(topo.source_indices)[:nnz]
        return n, nnz, idx.astype(np.int64), _expand(off[: n + 1], n)
    src, dst = to_host(topo.source_indices)[:nnz], to_host(topo.destination_indices)[:nnz]
    return n, nnz, src.astype(np.int64), dst.astype(np.int64)


def _checked_coo(ttype: int, topo: Any) -> tuple[int, int, np.ndarray, np.ndarray]:
    """:func:`_struct_to_coo` of a struct whose sizes, offsets and indices are checked first
    (INVALID_VALUE): the C code would read past the arrays or write past the outputs."""
    n = integer(topo.nvertices, "nvertices", 1)
    nnz = integer(topo.nedges, "nedges", 0)
    names = {c.NVGRAPH_CSR_32: ("source_offsets", "destination_indices"),
             c.NVGRAPH_CSC_32: ("destination_offsets", "source_indices"),
             c.NVGRAPH_COO_32: ("source_indices", "destination_indices")}[ttype]
    arrays = [getattr(topo, name) for name in names]
    compressed = ttype != c.NVGRAPH_COO_32
    for name, arr, size in zip(names, arrays, (n + 1 if compressed else nnz, nnz)):
        require(arr is not None, f"srcTopology.{name} is NULL")
        check_buffer(to_host(arr), size, f"srcTopology.{name}")
        require(to_host(arr).dtype.kind in "iu", f"srcTopology.{name} must hold integers")
    if compressed:
        off = to_host(arrays[0])[: n + 1].astype(np.int64)
        require(int(off[0]) == 0 and int(off[-1]) == nnz and not bool((off[1:] < off[:-1]).any()),
                "offsets must start at 0, never decrease and end at nedges")
    for name, arr in zip(names[1:] if compressed else names, arrays[1:] if compressed else arrays):
        idx = to_host(arr)[:nnz]
        require(bool(((idx >= 0) & (idx < n)).all()), f"srcTopology.{name} holds a vertex outside [0, {n})")
    return _struct_to_coo(ttype, topo)


def _order_for(ttype: int, tag: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Stable permutation that puts the edges in the layout of ``ttype`` (COO: its ``tag``)."""
    if ttype == c.NVGRAPH_CSR_32 or (ttype == c.NVGRAPH_COO_32 and tag == c.NVGRAPH_SORTED_BY_SOURCE):
        return np.argsort(src, kind="stable")
    if ttype == c.NVGRAPH_CSC_32 or (ttype == c.NVGRAPH_COO_32 and tag == c.NVGRAPH_SORTED_BY_DESTINATION):
        return np.argsort(dst, kind="stable")
    return np.arange(len(src))


def _coo_fields(ttype: int, n: int, src: np.ndarray, dst: np.ndarray) -> dict[str, np.ndarray]:
    """The array fields of a ``ttype`` struct for edges already in its order."""
    if ttype == c.NVGRAPH_CSR_32:
        return {"source_offsets": _compress(src, n), "destination_indices": dst.astype(np.int32)}
    if ttype == c.NVGRAPH_CSC_32:
        return {"destination_offsets": _compress(dst, n), "source_indices": src.astype(np.int32)}
    return {"source_indices": src.astype(np.int32), "destination_indices": dst.astype(np.int32)}


def _fill_struct(topo: Any, n: int, nnz: int, fields: dict[str, np.ndarray]) -> None:
    """Fill a caller's struct: arrays in place where given, new host arrays where None."""
    topo.nvertices, topo.nedges = n, nnz
    for name, arr in fields.items():
        if getattr(topo, name) is None:
            setattr(topo, name, arr)
        else:
            copy_into(getattr(topo, name), arr)


def nvgraphConvertTopology(handle: nvgraphHandle_t, srcTType: int, srcTopology: Any, srcEdgeData: Any,
                           dataType: int, dstTType: int, dstTopology: Any, dstEdgeData: Any) -> int:
    """Convert a topology and its edge data between CSR_32, CSC_32 and COO_32 (stable ordering).

    ``dstTopology`` (a struct of ``dstTType``) and ``dstEdgeData`` are filled in place.
    CSR->CSR and CSC->CSC are not conversions (INVALID_VALUE); COO->COO re-sorts by ``tag``.
    """
    check_handle(handle)
    require(srcEdgeData is not None and dstEdgeData is not None, "edge data pointer is NULL")
    require(srcTopology is not None and dstTopology is not None, "topology pointer is NULL")
    if dataType not in c.FLOAT_TYPES:
        raise type_not_supported(f"dataType {dataType!r} (use CUDA_R_32F or CUDA_R_64F)")
    known = srcTType in STRUCT_FOR_TYPE and dstTType in STRUCT_FOR_TYPE
    require(known and (srcTType != dstTType or srcTType == c.NVGRAPH_COO_32),
            f"no conversion from topology {srcTType!r} to {dstTType!r}")
    require(isinstance(srcTopology, STRUCT_FOR_TYPE[srcTType]) and isinstance(dstTopology, STRUCT_FOR_TYPE[dstTType]),
            "topology structs do not match their types")
    n, nnz, src, dst = _checked_coo(srcTType, srcTopology)
    check_buffer(srcEdgeData, nnz, "srcEdgeData")
    check_buffer(dstEdgeData, nnz, "dstEdgeData", writable=True)
    order = _order_for(dstTType, getattr(dstTopology, "tag", 0), src, dst)
    fields = _coo_fields(dstTType, n, src[order], dst[order])
    for name, arr in fields.items():  # every output checked before any is written
        if getattr(dstTopology, name) is not None:
            check_buffer(getattr(dstTopology, name), len(arr), f"dstTopology.{name}", writable=True)
    values: np.ndarray = to_host(srcEdgeData)[:nnz].astype(c.NUMPY_TYPES[dataType])
    _fill_struct(dstTopology, n, nnz, fields)
    copy_into(dstEdgeData, values[order])
    return c.NVGRAPH_STATUS_SUCCESS


# ----------------------------------------------------------------------------- whole graphs


def _host_coo(d: nvgraphGraphDescr_t) -> tuple[np.ndarray, np.ndarray]:
    """(sources, destinations) of a descriptor's edges in stored order, on the host."""
    rows = _expand(to_host(d.offsets), d.nvertices)
    cols = to_host(d.indices).astype(np.int64)
    return (rows, cols) if d.ttype == c.NVGRAPH_CSR_32 else (cols, rows)


def _install(dst: nvgraphGraphDescr_t, src: nvgraphGraphDescr_t, ttype: int, n: int, offsets: np.ndarray,
             indices: np.ndarray, vertex_ids: np.ndarray, edge_ids: np.ndarray) -> None:
    """Give ``dst`` a topology and ``src``'s sets gathered at ``vertex_ids`` / ``edge_ids``."""
    xp = array_module(src.backend)
    dst.ttype, dst.backend, dst.nvertices, dst.nedges = ttype, src.backend, n, len(indices)
    dst.offsets, dst.indices = xp.asarray(offsets.astype(np.int32)), xp.asarray(indices.astype(np.int32))
    vid, eid = xp.asarray(vertex_ids), xp.asarray(edge_ids)
    dst.value_type, dst.state, dst.alive = src.value_type, src.state, True
    dst.vertex_sets = [s[vid].copy() for s in src.vertex_sets]
    dst.edge_sets = [s[eid].copy() for s in src.edge_sets]


def _check_float_values(d: nvgraphGraphDescr_t, function: str) -> None:
    """TYPE_NOT_SUPPORTED for a valued graph of CUDA_R_32I."""
    if d.state == HAS_VALUES and d.value_type == c.CUDA_R_32I:
        raise type_not_supported(f"{function} supports CUDA_R_32F / CUDA_R_64F values only")


def nvgraphConvertGraph(handle: nvgraphHandle_t, srcDescrG: nvgraphGraphDescr_t, dstDescrG: nvgraphGraphDescr_t,
                        dstTType: int) -> int:
    """Build the graph of ``srcDescrG`` in ``dstTType`` (CSR_32 / CSC_32) in the empty ``dstDescrG``.

    All vertex sets are copied and all edge sets permuted to the new edge order.
    """
    check_handle(handle)
    s = check_descr(srcDescrG)
    d = check_descr(dstDescrG, need_topology=False)
    require(d.state == IS_EMPTY, "the destination graph is not empty")
    if dstTType not in (c.NVGRAPH_CSR_32, c.NVGRAPH_CSC_32):
        raise type_not_supported(f"cannot convert a graph to topology {dstTType!r}")
    _check_float_values(s, "nvgraphConvertGraph")
    src, dst = _host_coo(s)
    order = _order_for(dstTType, 0, src, dst)
    key, other = (src, dst) if dstTType == c.NVGRAPH_CSR_32 else (dst, src)
    _install(d, s, dstTType, s.nvertices, _compress(key[order], s.nvertices), other[order],
             np.arange(s.nvertices), order)
    return c.NVGRAPH_STATUS_SUCCESS


def _check_selection(values: Any, count: Any, limit: int, what: str) -> np.ndarray:
    """Validate a subgraph selection: non-empty, ascending, no duplicates, inside ``[0, limit)``."""
    require(values is not None, f"{what} is NULL")
    arr = np.asarray(to_host(values))
    require(arr.dtype.kind in "iu", f"{what} must be integers, got {arr.dtype}")
    arr = arr.astype(np.int64).reshape(-1)
    count = len(arr) if count is None else integer(count, f"the number of {what}", 1)
    require(0 < count < c.INT_MAX and count <= len(arr), f"bad number of {what}: {count}")
    arr = arr[:count]
    require(bool(((arr >= 0) & (arr < limit)).all()), f"{what} must lie in [0, {limit - 1}]")
    require(bool((np.diff(arr) > 0).all()), f"{what} must be ascending without duplicates")
    return arr


def _subgraph_args(handle: Any, descrG: Any, subdescrG: Any, function: str) -> nvgraphGraphDescr_t:
    """Checks shared by the two extraction functions; the source descriptor."""
    check_handle(handle)
    d = check_descr(descrG)
    check_descr(subdescrG, need_topology=False)
    _check_float_values(d, function)
    return d


def _install_sub(sub: nvgraphGraphDescr_t, d: nvgraphGraphDescr_t, vertices: np.ndarray, edges: np.ndarray) -> None:
    """Renumber the kept ``edges`` onto ``vertices`` (by rank) and install them in ``sub``."""
    rows = _expand(to_host(d.offsets), d.nvertices)[edges]
    cols = to_host(d.indices).astype(np.int64)[edges]
    new_id = np.full(d.nvertices, -1, dtype=np.int64)
    new_id[vertices] = np.arange(len(vertices))
    k = len(vertices)
    _install(sub, d, d.ttype, k, _compress(new_id[rows], k), new_id[cols], vertices, edges)


def nvgraphExtractSubgraphByVertex(handle: nvgraphHandle_t, descrG: nvgraphGraphDescr_t,
                                   subdescrG: nvgraphGraphDescr_t, subvertices: Any,
                                   numvertices: int | None = None) -> int:
    """The subgraph induced by ``subvertices`` (ascending), vertex k = ``subvertices[k]``.

    Same topology type as the source; every vertex and edge set is carried over.  The offsets
    are built correctly (the released C code shifted them when leading rows had no edges).
    """
    d = _subgraph_args(handle, descrG, subdescrG, "nvgraphExtractSubgraphByVertex")
    vertices = _check_selection(subvertices, numvertices, d.nvertices, "subvertices")
    inside = np.zeros(d.nvertices, dtype=bool)
    inside[vertices] = True
    rows = _expand(to_host(d.offsets), d.nvertices)
    edges = np.flatnonzero(inside[rows] & inside[to_host(d.indices).astype(np.int64)])
    _install_sub(subdescrG, d, vertices, edges)
    return c.NVGRAPH_STATUS_SUCCESS


def nvgraphExtractSubgraphByEdge(handle: nvgraphHandle_t, descrG: nvgraphGraphDescr_t,
                                 subdescrG: nvgraphGraphDescr_t, subedges: Any, numedges: int | None = None) -> int:
    """The subgraph of the edges ``subedges`` (positions in the stored index array, ascending).

    Its vertices are the endpoints of those edges, renumbered by rank; all sets carried over.
    """
    d = _subgraph_args(handle, descrG, subdescrG, "nvgraphExtractSubgraphByEdge")
    edges = _check_selection(subedges, numedges, d.nedges, "subedges")
    rows = _expand(to_host(d.offsets), d.nvertices)[edges]
    cols = to_host(d.indices).astype(np.int64)[edges]
    _install_sub(subdescrG, d, np.unique(np.concatenate([rows, cols])), edges)
    return c.NVGRAPH_STATUS_SUCCESS


def nvgraphGetProperty(type: int) -> int:
    """``MAJOR_VERSION`` / ``MINOR_VERSION`` / ``PATCH_LEVEL`` of the emulated release (CUDA 10.2)."""
    values = {c.MAJOR_VERSION: c.CUDART_VERSION // 1000, c.MINOR_VERSION: (c.CUDART_VERSION % 1000) // 10,
              c.PATCH_LEVEL: 0}
    require(type in values, f"unknown libraryPropertyType {type!r}")
    return values[type]


__all__ = ["nvgraphConvertTopology", "nvgraphConvertGraph", "nvgraphExtractSubgraphByVertex",
           "nvgraphExtractSubgraphByEdge", "nvgraphGetProperty"]
