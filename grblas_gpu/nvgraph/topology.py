"""Topology structs (``nvgraphCSRTopology32I_st`` and friends) and host/device array helpers.

Arrays may be NumPy arrays, CuPy arrays or Python sequences (read as host arrays).  Fields a
caller leaves as ``None`` play the part of C's NULL pointers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import constants as c


@dataclass
class nvgraphCSRTopology32I_st:
    """CSR topology: out-edges of each source vertex (``NVGRAPH_CSR_32``)."""

    nvertices: int = 0
    nedges: int = 0
    source_offsets: Any = None
    destination_indices: Any = None


@dataclass
class nvgraphCSCTopology32I_st:
    """CSC topology: in-edges of each destination vertex (``NVGRAPH_CSC_32``)."""

    nvertices: int = 0
    nedges: int = 0
    destination_offsets: Any = None
    source_indices: Any = None


@dataclass
class nvgraphCOOTopology32I_st:
    """COO topology (``NVGRAPH_COO_32``), only for the conversion functions; ``tag`` is an nvgraphTag_t."""

    nvertices: int = 0
    nedges: int = 0
    source_indices: Any = None
    destination_indices: Any = None
    tag: int = c.NVGRAPH_DEFAULT


# C typedef names (pointer typedefs are the same class in Python).
nvgraphCSRTopology32I_t = nvgraphCSRTopology32I_st
nvgraphCSCTopology32I_t = nvgraphCSCTopology32I_st
nvgraphCOOTopology32I_t = nvgraphCOOTopology32I_st

STRUCT_FOR_TYPE: dict[int, type] = {
    c.NVGRAPH_CSR_32: nvgraphCSRTopology32I_st,
    c.NVGRAPH_CSC_32: nvgraphCSCTopology32I_st,
    c.NVGRAPH_COO_32: nvgraphCOOTopology32I_st,
}


def is_device_array(arr: Any) -> bool:
    """True for a CuPy array (device memory)."""
    return type(arr).__module__.split(".")[0] == "cupy"


def backend_of(*arrays: Any) -> str:
    """``"cupy"`` when any of the arrays lives on the device, else ``"numpy"``."""
    return "cupy" if any(is_device_array(a) for a in arrays) else "numpy"


def array_module(backend: str) -> Any:
    """The array module (numpy or cupy) of a backend name."""
    if backend == "cupy":
        import cupy

        return cupy
    return np


def to_host(arr: Any) -> np.ndarray:
    """A NumPy view or copy of a host or device array."""
    if is_device_array(arr):
        return arr.get()
    return np.asarray(arr)


def to_backend(arr: Any, backend: str, dtype: Any) -> Any:
    """A fresh copy of ``arr`` as an array of ``backend`` with ``dtype`` (like cudaMemcpyDefault)."""
    xp = array_module(backend)
    src = arr if (backend == "cupy") == is_device_array(arr) else to_host(arr)
    return xp.array(src, dtype=dtype, copy=True)


def copy_into(out: Any, data: Any) -> None:
    """Write ``data`` into the caller's array ``out`` in place (host or device, as ``out`` is)."""
    n = len(data)
    if isinstance(out, list):
        out[:n] = to_host(data).tolist()
    elif is_device_array(out):
        import cupy

        out[:n] = cupy.asarray(data).astype(out.dtype, copy=False)
    else:
        out[:n] = to_host(data).astype(out.dtype, copy=False)
