"""Conversions between Matrix and SciPy sparse arrays, CuPy (cupyx) sparse matrices and NetworkX graphs.

SciPy, CuPy and NetworkX are imported only inside the functions that need them.
Explicit zeros are entries like any other value: they survive every conversion.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dtypes import BOOL, lookup_dtype
from ..exceptions import DimensionMismatch, DomainMismatch, InvalidValue
from ._coo import Coo, build_matrix, mirror

if TYPE_CHECKING:
    from ..matrix import Matrix

__all__ = [
    "from_scipy_sparse",
    "to_scipy_sparse",
    "from_cupyx_sparse",
    "to_cupyx_sparse",
    "from_networkx",
    "to_networkx",
]

_SCIPY_FORMATS = ("csr", "csc", "coo", "lil", "dok", "dia", "bsr")


def _matrix_class() -> Any:
    from ..matrix import Matrix

    return Matrix


def _type_of(np_dtype: Any, dtype: Any) -> Any:
    """The DataType for values of NumPy type ``np_dtype`` (or ``dtype`` when given)."""
    try:
        return lookup_dtype(dtype if dtype is not None else np_dtype)
    except DomainMismatch:
        raise DomainMismatch(f"values of type {np.dtype(np_dtype)} have no GraphBLAS type: pass dtype=") from None


# ----------------------------------------------------------------------------- SciPy


def from_scipy_sparse(m: Any, *, dtype: Any = None, backend: str | None = None, copy: bool | None = None,
                      symmetric: bool | None = None) -> Matrix:
    """A Matrix from any SciPy sparse array or matrix; duplicate entries are summed (as SciPy does).

    A CSR array in canonical form (sorted indices, no duplicates) is taken as
    :meth:`Matrix.from_csr` takes arrays: validated in one pass and, where the types match,
    shared rather than copied (its NumPy arrays are then made read-only; ``copy=True``
    copies instead).  Other formats are converted by SciPy first (a copy).
    ``symmetric=True`` declares the matrix equal to its transpose (not checked).
    """
    t = _type_of(m.dtype, dtype)
    if m.format == "csr" and m.has_canonical_format:
        csr = m
    else:
        csr = m.tocsr(copy=True)
        csr.sum_duplicates()  # also sorts the indices; never drops explicit zeros
        copy = False  # our own copy: nothing else holds it
    return _matrix_class().from_csr(csr.indptr, csr.indices, csr.data, ncols=csr.shape[1], dtype=t,
                                    backend=backend, copy=copy, symmetric=symmetric)


def to_scipy_sparse(A: Matrix, format: str = "csr") -> Any:
    """``A`` as a SciPy sparse array (``scipy.sparse.csr_array`` etc.); explicit zeros are kept.

    ``format``: ``"csr"``, ``"csc"``, ``"coo"``, or any other SciPy format name.  From the CPU
    backend, a CSR (or CSC) result holds the Matrix's own arrays as read-only views, not
    copies (see :meth:`Matrix.to_csr`): methods that would write them in place raise
    ValueError; ``.copy()`` gives a writable one.
    """
    import scipy.sparse as sps

    fmt = format.lower()
    if fmt not in _SCIPY_FORMATS:
        raise InvalidValue(f"Invalid format: unknown SciPy sparse format {format!r}: use one of {', '.join(_SCIPY_FORMATS)}")
    shape = (A.nrows, A.ncols)
    if fmt == "csc":
        indptr, indices, values = A.to_csc()
        return _scipy_compressed(sps.csc_array, values, indices, indptr, shape)
    if fmt == "coo":
        rows, cols, values = A.to_coo()
        return sps.coo_array((values, (rows, cols)), shape=shape)
    indptr, indices, values = A.to_csr()
    out = _scipy_compressed(sps.csr_array, values, indices, indptr, shape)
    return out if fmt == "csr" else out.asformat(fmt)


def _scipy_compressed(cls: Any, values: Any, indices: Any, indptr: Any, shape: tuple[int, int]) -> Any:
    """A SciPy CSR/CSC array over the given arrays, without copies where SciPy allows: it
    wants one index type for both arrays (int32 pointers of a large matrix are widened)."""
    if indices.dtype != indptr.dtype:
        wide = np.promote_types(indices.dtype, indptr.dtype)
        indices, indptr = indices.astype(wide, copy=False), indptr.astype(wide, copy=False)
    out = cls((values, indices, indptr), shape=shape, copy=False)
    out.has_sorted_indices = True
    out.has_canonical_format = True
    return out


# ----------------------------------------------------------------------------- CuPy


def from_cupyx_sparse(m: Any, *, dtype: Any = None, backend: str | None = "cupy", copy: bool | None = None,
                      symmetric: bool | None = None) -> Matrix:
    """A Matrix from a ``cupyx.scipy.sparse`` matrix, on the GPU unless ``backend`` says otherwise.

    Duplicate entries are summed (as cupyx does).  A CSR matrix in canonical form is taken
    as :meth:`Matrix.from_csr` takes arrays: validated in one pass, and copied unless
    ``copy=False``, which shares its arrays (the caller must not write them afterwards:
    CuPy arrays cannot be made read-only).  ``symmetric=True`` declares the matrix equal to
    its transpose (not checked).
    """
    t = _type_of(m.dtype, dtype)
    if m.format == "csr" and m.has_canonical_format:
        csr = m
    else:
        csr = m.tocsr(copy=True)
        csr.sum_duplicates()
        copy = False  # our own copy
    return _matrix_class().from_csr(csr.indptr, csr.indices, csr.data, ncols=csr.shape[1], dtype=t,
                                    backend=backend, copy=copy, symmetric=symmetric)


def to_cupyx_sparse(A: Matrix, format: str = "csr") -> Any:
    """``A`` as a ``cupyx.scipy.sparse`` matrix (``"csr"``, ``"csc"`` or ``"coo"``); explicit zeros kept.

    cupyx holds only bool, float32/64 and complex values: integer matrices become float64
    (exact up to 2**53).  From the GPU backend the arrays stay on the device; a CSR result
    of a float matrix shares the Matrix's arrays where cupyx takes their types (int32
    indices and pointers) instead of copying them, and must then not be written in place
    (the Matrix would change with it); CSC is the CSR of the kept transpose.
    """
    import cupy
    import cupyx.scipy.sparse as csps

    fmt = format.lower()
    if fmt not in ("csr", "csc", "coo"):
        raise InvalidValue(f"unknown cupyx sparse format {format!r}: use 'csr', 'csc' or 'coo'")
    t = lookup_dtype(A.dtype)
    value_type = t.np_type if (t.is_float or t == BOOL) else np.float64
    shape = (A.nrows, A.ncols)
    if fmt == "coo":
        rows, cols, values = A.to_coo()
        dev = [cupy.asarray(x) for x in (values.astype(value_type), rows, cols)]
        return csps.coo_matrix((dev[0], (dev[1], dev[2])), shape=shape)
    if A.nvals >= 2**31 or max(shape) >= 2**31:
        raise InvalidValue(f"cupyx sparse matrices take int32 indices: {A.nvals} entries of a {shape} matrix do not fit")
    M = A if fmt == "csr" else A._transposed()
    if M.backend == "cupy":
        ptr, idx, vals = M._indptr, M._indices, M._vals
    else:
        ptr, idx, vals = (cupy.asarray(x) for x in M.to_csr())
    parts = (vals.astype(value_type, copy=False), idx.astype(np.int32, copy=False), ptr.astype(np.int32, copy=False))
    cls = csps.csr_matrix if fmt == "csr" else csps.csc_matrix
    return cls(parts, shape=shape, copy=False)


# ----------------------------------------------------------------------------- NetworkX


def _node_positions(G: Any, nodelist: Sequence[Hashable] | None) -> tuple[list[Hashable], dict[Hashable, int]]:
    nodes = list(G) if nodelist is None else list(nodelist)
    index = {node: i for i, node in enumerate(nodes)}
    if len(index) != len(nodes):
        raise InvalidValue("nodelist holds a node more than once")
    missing = [node for node in nodes if node not in G]
    if missing:
        raise InvalidValue(f"nodelist holds {missing[0]!r}, which is not in the graph")
    return nodes, index


def _edge_arrays(G: Any, index: dict[Hashable, int], weight: str | None) -> tuple[list[int], list[int], list[Any]]:
    rows: list[int] = []
    cols: list[int] = []
    values: list[Any] = []
    for u, v, data in G.edges(data=True):
        if u in index and v in index:
            rows.append(index[u])
            cols.append(index[v])
            values.append(1 if weight is None else data.get(weight, 1))
    return rows, cols, values


def _sum_repeats(coo: Coo) -> Coo:
    """Combine repeated (row, col) pairs by summing them (parallel edges of a multigraph)."""
    if coo.nvals < 2:
        return coo
    order = np.lexsort((coo.cols, coo.rows))
    r, c, v = coo.rows[order], coo.cols[order], coo.values[order]
    first = np.ones(len(r), dtype=bool)
    first[1:] = (r[1:] != r[:-1]) | (c[1:] != c[:-1])
    starts = np.flatnonzero(first)
    summed = np.add.reduceat(v, starts) if v.dtype != np.bool_ else np.logical_or.reduceat(v, starts)
    return Coo(r[starts], c[starts], summed.astype(v.dtype), coo.nrows, coo.ncols, coo.dtype)


def from_networkx(
    G: Any,
    nodelist: Sequence[Hashable] | None = None,
    dtype: Any = None,
    weight: str | None = "weight",
    backend: str | None = None,
) -> Matrix:
    """The adjacency matrix of a NetworkX graph; row ``i`` is node ``nodelist[i]`` (default ``list(G)``).

    Values are the ``weight`` attribute (1 where an edge lacks it), or 1 (INT64: the number of
    edges, as networkx and python-graphblas count them) with ``weight=None``.  An undirected graph gets both directions.  Parallel edges of a
    multigraph are summed, as ``networkx.to_scipy_sparse_array`` does.  Edges to nodes
    outside ``nodelist`` are left out.  The type is ``dtype``, else inferred (INT64 for
    integer weights, FP64 for real ones).
    """
    nodes, index = _node_positions(G, nodelist)
    if not nodes:
        import networkx as nx  # G is a networkx graph: networkx is there

        # networkx's (and python-graphblas's) error for a graph without nodes
        raise nx.NetworkXError("Graph has no nodes or edges: a Matrix needs at least one node")
    rows, cols, values = _edge_arrays(G, index, weight)
    arr = np.asarray(values) if values else np.zeros(0, dtype=np.int64)
    if arr.dtype == object and dtype is not None:
        arr = np.asarray(values, dtype=lookup_dtype(dtype).np_type)
    t = _type_of(arr.dtype, dtype)
    r, c = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
    coo = Coo(r, c, arr, len(nodes), len(nodes), lookup_dtype(arr.dtype))
    if not G.is_directed():
        coo.rows, coo.cols, coo.values, _ = mirror(r, c, arr, np.zeros(len(r), np.int64))
    return build_matrix(_sum_repeats(coo), dtype=t, backend=backend)


def to_networkx(
    A: Matrix, *, directed: bool = True, ids: Sequence[Hashable] | None = None, weight: str = "weight"
) -> Any:
    """A ``networkx.DiGraph`` (or ``Graph`` with ``directed=False``) with an edge per entry of ``A``.

    Nodes are ``0 .. n-1``, or ``ids[i]`` for row ``i``; every node is present, isolated or
    not.  Each edge's ``weight`` attribute is the entry's value (a Python number).  For an
    undirected graph ``A`` should be symmetric; otherwise the lower-triangle value wins.
    """
    import networkx as nx

    if A.nrows != A.ncols:
        raise DimensionMismatch(f"an adjacency matrix must be square, not {A.nrows} x {A.ncols}")
    names = list(range(A.nrows)) if ids is None else list(np.asarray(ids).tolist())
    if len(names) != A.nrows:
        raise DimensionMismatch(f"ids has {len(names)} names for {A.nrows} rows")
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(names)
    rows, cols, values = A.to_coo()
    G.add_edges_from(
        (names[i], names[j], {weight: x}) for i, j, x in zip(rows.tolist(), cols.tolist(), values.tolist())
    )
    return G
