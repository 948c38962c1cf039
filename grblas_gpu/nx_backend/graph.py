"""The backend's graph: a NetworkX graph's structure as grblas_gpu matrices, and the conversions.

A :class:`GrblasGraph` holds the node list (row ``i`` is node ``nodes[i]``, in ``list(G)``
order, so every ordering networkx derives from node order carries over) and, as host COO
arrays in the order of ``G._adj`` (each node's neighbours in insertion order), the edges and
the values of the edge attributes that were asked for.  Matrices are built from those arrays
on first use and kept, so a second call on one graph (networkx caches the converted graph in
``G.__networkx_cache__``) builds nothing, and the library's own memos on a Matrix (its
transpose, PageRank's out-weights) are kept as well.

An undirected graph is stored in both directions, as ``G._adj`` holds it; a self-loop once.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any

import numpy as np

from grblas_gpu import BOOL, FP64, INT64, Matrix, binary

__all__ = ["GrblasGraph", "convert_from_nx", "convert_to_nx"]

BACKEND_NAME = "grblas_gpu"


class GrblasGraph:
    """A converted NetworkX graph: its nodes, its edges as arrays, and matrices built from them."""

    __networkx_backend__ = BACKEND_NAME

    def __init__(self, nodes: list[Hashable], rows: np.ndarray, cols: np.ndarray, positions: np.ndarray,
                 *, directed: bool, multigraph: bool, edge_values: dict[tuple[str, Any], np.ndarray] | None = None,
                 graph_attrs: dict | None = None, backend: str | None = None,
                 index: dict[Hashable, int] | None = None) -> None:
        self.nodes = nodes
        self.index = {node: i for i, node in enumerate(nodes)} if index is None else index
        self._rows, self._cols, self._positions = rows, cols, positions
        self._edge_values = dict(edge_values or {})
        self._directed, self._multigraph = directed, multigraph
        self.graph = dict(graph_attrs or {})
        self.backend = backend
        self.__networkx_cache__: dict = {}
        self._matrices: dict[Any, Any] = {}

    # ------------------------------------------------------------------ networkx-like facts
    def is_directed(self) -> bool:
        """Whether the graph is directed."""
        return self._directed

    def is_multigraph(self) -> bool:
        """Whether the graph may hold parallel edges."""
        return self._multigraph

    def __len__(self) -> int:
        return len(self.nodes)

    def number_of_nodes(self) -> int:
        """The number of nodes."""
        return len(self.nodes)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self.nodes)

    def __contains__(self, node: Any) -> bool:
        try:
            return node in self.index
        except TypeError:  # an unhashable object is no node, as in networkx
            return False

    @property
    def nedges(self) -> int:
        """Stored (directed) edge entries, parallel edges of a multigraph counted each."""
        return len(self._rows)

    def node_ids(self, nodes: Any) -> np.ndarray:
        """Row indices of ``nodes`` (each must be in the graph)."""
        return np.fromiter((self.index[v] for v in nodes), np.int64)

    def labels(self, ids: Any) -> list[Hashable]:
        """Node labels of row indices ``ids``."""
        nodes = self.nodes
        return [nodes[i] for i in np.asarray(ids).tolist()]

    # ------------------------------------------------------------------ matrices, built once
    def memo(self, key: Any, make: Any) -> Any:
        """``make()``, computed on first use and kept with the graph (for derived matrices)."""
        try:
            return self._matrices[key]
        except KeyError:
            value = self._matrices[key] = make()
            return value

    def _build(self, values: Any, dtype: Any, dup_op: Any) -> Matrix:
        n = len(self.nodes)
        return Matrix.from_coo(self._rows, self._cols, values, nrows=n, ncols=n, dtype=dtype,
                               dup_op=dup_op, backend=self.backend)

    def structure(self) -> Matrix:
        """BOOL adjacency pattern: ``A[i, j]`` for each edge i -> j (both ways when undirected)."""
        return self.memo("structure", lambda: self._build(True, BOOL, binary.lor))

    def unit_weights(self) -> Matrix:
        """INT64 ones on the pattern (every edge of length 1)."""
        return self.memo("unit", lambda: self.structure().dup(INT64))

    def edge_count(self) -> Matrix:
        """INT64 number of parallel edges i -> j (1 for every edge of a simple graph)."""
        if not self._multigraph:
            return self.unit_weights()
        return self.memo("count", lambda: self._build(1, INT64, binary.plus))

    def neighbour_order(self) -> Matrix:
        """INT64 ``P[i, j]``: the position of ``j`` among the neighbours of ``i`` in ``G[i]``."""
        return self.memo("order", lambda: self._build(self._positions, INT64, binary.min))

    def has_weights(self, attr: str, default: Any = 1) -> bool:
        """Whether the values of edge attribute ``attr`` (``default`` where missing) were converted."""
        return (attr, default) in self._edge_values

    def weights(self, attr: str | None, default: Any = 1, combine: str = "plus") -> Matrix:
        """Edge attribute ``attr`` as a Matrix (``default`` where an edge lacks it); parallel
        edges of a multigraph combined by ``combine`` ("plus" or "min").  ``attr=None``:
        every edge weighs 1.  Raises NotImplementedError where ``attr`` was not converted."""
        if attr is None:
            return self.edge_count() if combine == "plus" else self.unit_weights()
        key = (attr, default)
        if key not in self._edge_values:
            raise NotImplementedError(f"edge attribute {attr!r} was not converted to the grblas_gpu graph")
        values = self._edge_values[key]
        op = binary.plus if combine == "plus" else binary.min
        return self.memo(("weights", key, combine), lambda: self._build(values, None, op))

    def __repr__(self) -> str:
        kind = ("Multi" if self._multigraph else "") + ("DiGraph" if self._directed else "Graph")
        return f"<GrblasGraph {kind}: {len(self.nodes)} nodes, {self.nedges} edge entries>"


# ---------------------------------------------------------------------------- conversions
def _adjacency_arrays(adj: dict, index: dict, multigraph: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows, columns and neighbour positions of every edge entry, in the order of ``adj``."""
    n = len(adj)
    if multigraph:
        counts = [len(keys) for nbrs in adj.values() for keys in nbrs.values()]
        heads = np.fromiter((index[v] for nbrs in adj.values() for v in nbrs), np.int64)
        distinct = np.fromiter((len(nbrs) for nbrs in adj.values()), np.int64, count=n)
        rows = np.repeat(np.arange(n, dtype=np.int64), distinct)
        starts = np.repeat(np.concatenate([[0], np.cumsum(distinct)[:-1]]), distinct)
        positions = np.arange(len(heads), dtype=np.int64) - starts
        reps = np.asarray(counts, dtype=np.int64)
        return np.repeat(rows, reps), np.repeat(heads, reps), np.repeat(positions, reps)
    degree = np.fromiter((len(nbrs) for nbrs in adj.values()), np.int64, count=n)
    total = int(degree.sum())
    cols = np.fromiter((index[v] for nbrs in adj.values() for v in nbrs), np.int64, count=total)
    rows = np.repeat(np.arange(n, dtype=np.int64), degree)
    starts = np.repeat(np.cumsum(degree) - degree, degree)
    return rows, cols, np.arange(total, dtype=np.int64) - starts


def _attribute_values(adj: dict, multigraph: bool, attr: str, default: Any) -> np.ndarray:
    """The values of ``attr`` for every edge entry, in the order of :func:`_adjacency_arrays`."""
    if multigraph:
        values = [dd.get(attr, default) for nbrs in adj.values() for keys in nbrs.values() for dd in keys.values()]
    else:
        values = [dd.get(attr, default) for nbrs in adj.values() for dd in nbrs.values()]
    arr = np.asarray(values) if values else np.zeros(0, dtype=np.int64)
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iuf":
        raise NotImplementedError(f"edge attribute {attr!r} has values that are not real numbers")
    if arr.dtype.kind == "u" or (arr.dtype.kind == "i" and arr.dtype != np.int64):
        arr = arr.astype(np.int64)
    return arr.astype(FP64.np_type) if arr.dtype.kind == "f" else arr


def convert_from_nx(graph: Any, edge_attrs: dict | None = None, node_attrs: dict | None = None,
                    preserve_edge_attrs: bool = False, preserve_node_attrs: bool = False,
                    preserve_graph_attrs: bool = False, name: str | None = None,
                    graph_name: str | None = None, *, backend: str | None = None) -> GrblasGraph:
    """A :class:`GrblasGraph` of a NetworkX graph (networkx's ``convert_from_nx`` hook).

    ``edge_attrs`` maps each edge attribute to convert to its default (networkx passes
    ``{weight: 1}`` for ``weight="weight"``).  Node attributes are not converted (no
    dispatched function reads them); ``preserve_edge_attrs=True`` converts no attribute
    either (it comes with a callable weight, which :func:`can_run` refuses).
    """
    import networkx as nx

    if isinstance(graph, GrblasGraph):
        return graph
    if not isinstance(graph, nx.Graph):
        raise TypeError(f"Bad type for graph argument {graph_name} in {name}: {type(graph)}")
    if node_attrs:
        raise NotImplementedError("grblas_gpu does not convert node attributes")
    nodes = list(graph)
    index = {node: i for i, node in enumerate(nodes)}
    multigraph = graph.is_multigraph()
    adj = graph._adj
    if not isinstance(adj, dict):  # a view's filtered adjacency: its len() may count hidden entries
        adj = {u: ({v: dict(keys.items()) for v, keys in nbrs.items()} if multigraph else dict(nbrs.items()))
               for u, nbrs in adj.items()}
    rows, cols, positions = _adjacency_arrays(adj, index, multigraph)
    edge_values = {}
    for attr, default in (edge_attrs or {}).items():
        if default is None:  # "no default": an edge without the attribute is not an edge for it
            raise NotImplementedError("grblas_gpu needs a default value for edge attributes")
        edge_values[(attr, default)] = _attribute_values(adj, multigraph, attr, default)
    attrs = graph.graph if preserve_graph_attrs else None
    out = GrblasGraph(nodes, rows, cols, positions, directed=graph.is_directed(), multigraph=multigraph,
                      edge_values=edge_values, graph_attrs=attrs, backend=backend, index=index)
    return out


def convert_to_nx(obj: Any, *, name: str | None = None) -> Any:
    """A NetworkX graph for a :class:`GrblasGraph` (its nodes, edges and converted edge
    attributes); any other object (a result) as it is."""
    if not isinstance(obj, GrblasGraph):
        return obj
    import networkx as nx

    cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
           (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}[(obj.is_directed(), obj.is_multigraph())]
    G = cls()
    G.graph.update(obj.graph)
    G.add_nodes_from(obj.nodes)
    nodes = obj.nodes
    rows, cols = obj._rows.tolist(), obj._cols.tolist()
    values = {attr: v.tolist() for (attr, _), v in obj._edge_values.items()}
    undirected = not obj.is_directed()
    for k, (i, j) in enumerate(zip(rows, cols)):
        if undirected and j < i:
            continue  # each undirected edge is stored both ways
        G.add_edge(nodes[i], nodes[j], **{attr: v[k] for attr, v in values.items()})
    return G
