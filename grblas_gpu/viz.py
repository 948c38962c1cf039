"""``gb.viz``: pictures of small graphs and of sparsity patterns (networkx and matplotlib,
imported on first use; neither is a dependency of the package).

>>> gb.viz.draw(A, values=dist, title="distances from 0")     # the graph, vertices coloured
>>> gb.viz.spy(A, show=False)                                  # where the entries are

python-graphblas's forms work too: ``gb.viz.draw(A)``, ``gb.viz.spy(A, centered=True)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["draw", "spy"]


def _matrix(A: Any) -> Any:
    if getattr(A, "kind", None) != "Matrix":
        raise TypeError(f"Can only draw a Matrix, not {type(A).__name__}")
    return A.new() if getattr(type(A), "is_expression", False) else A


def _values(values: Any) -> dict[int, Any]:
    """Vertex values from a Vector, a dict or an array."""
    if values is None:
        return {}
    if getattr(values, "kind", None) == "Vector":
        idx, vals = values.new().to_coo() if getattr(type(values), "is_expression", False) else values.to_coo()
        return dict(zip(idx.tolist(), vals.tolist()))
    if isinstance(values, dict):
        return dict(values)
    return dict(enumerate(np.asarray(values).tolist()))


def draw(A: Any, values: Any = None, *, ax: Any = None, pos: Any = None, title: str = "", cmap: str = "viridis",
         edge_labels: bool = True, fmt: str = "{:g}", directed: bool | None = None, seed: int = 0,
         show: bool | None = None, node_size: int = 380, vmin: float | None = None, vmax: float | None = None,
         label_offset: float = 0.12) -> Any:
    """Draw a square adjacency Matrix as a graph: an edge ``i -> j`` per entry, labelled with
    its value; ``values`` (a Vector, dict or array) colours and labels the vertices (a missing
    one is grey; colours clip to ``vmin``/``vmax``, and the labels sit ``label_offset`` below
    the vertices).  ``pos`` places the vertices (default: a spring layout seeded by ``seed``);
    ``directed`` defaults to whether ``A`` is unsymmetric.  Returns the Axes; ``show=True``
    (the default without ``ax``, as python-graphblas's ``draw``) also shows the figure."""
    import matplotlib.pyplot as plt
    import networkx as nx

    A = _matrix(A)
    if A.nrows != A.ncols:
        raise ValueError(f"draw needs a square adjacency Matrix, got {A.nrows}x{A.ncols}")
    rows, cols, vals = A.to_coo()
    directed = not A.is_symmetric if directed is None else directed
    G: Any = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(A.nrows))
    G.add_weighted_edges_from(zip(rows.tolist(), cols.tolist(), vals.tolist()))
    show = ax is None if show is None else show
    ax = ax if ax is not None else plt.gca()
    pos = pos if pos is not None else nx.spring_layout(G, seed=seed)
    vv = _values(values)
    if vv:
        colors = np.array([vv.get(v, np.nan) for v in G], dtype=float)
        if vmax is not None:
            colors = np.minimum(colors, vmax)
        style: dict[str, Any] = {"node_color": colors, "cmap": cmap, "vmin": vmin, "vmax": vmax}
    else:
        style = {"node_color": "lightblue"}
    nx.draw_networkx(G, pos, ax=ax, node_size=node_size, font_size=9, **style)
    if edge_labels:
        labels = {(i, j): fmt.format(w) for i, j, w in G.edges(data="weight")}
        nx.draw_networkx_edge_labels(G, pos, labels, ax=ax, font_size=7)
    for v, val in vv.items():
        x, y = pos[v]
        ax.text(x, y - label_offset, fmt.format(val), ha="center", fontsize=8, color="darkred")
    ax.set_title(title, fontsize=10)
    ax.axis("off")
    if show:
        plt.show()
    return ax


def spy(M: Any, *, centered: bool = False, show: bool = True, figure: Any = None, axes: Any = None,
        figsize: Any = None, title: str = "", **kwargs: Any) -> Any:
    """Plot where a Matrix's entries are (row down, column across), with matplotlib's ``spy``:
    one square per entry, sized to tile the matrix unless ``markersize`` is given.  Positions
    are read on the host, a bounded number of entries (the Matrix's).  Returns the Figure."""
    import matplotlib.figure
    import matplotlib.pyplot as plt
    import scipy.sparse

    M = _matrix(M)
    rows, cols, _ = M.to_coo(values=False)
    S = scipy.sparse.coo_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=M.shape)
    if axes is None:
        fig = figure if figure is not None else matplotlib.figure.Figure(figsize=figsize)
        axes = fig.subplots()
    if kwargs.get("markersize") is None and min(M.shape) > 0:
        size = min(axes.bbox.width / M.shape[1], axes.bbox.height / M.shape[0])
        kwargs["markersize"] = max(0.002, size * 72 / axes.figure.dpi)
    axes.spy(S, **kwargs)
    if not centered and min(M.shape) > 0:
        axes.figure.draw_without_rendering()  # makes the tick labels, so they can be moved
        axes.set_xticks(axes.get_xticks()[1:-1] - 0.5, axes.get_xticklabels()[1:-1])
        axes.set_yticks(axes.get_yticks()[1:-1] - 0.5, axes.get_yticklabels()[1:-1])
    if title:
        axes.set_title(title, fontsize=10)
    if show:
        plt.show()
    return axes.figure
