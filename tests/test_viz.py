"""gb.viz draws what the Matrix holds: the graph's vertices and edges, the spy plot's points."""

from __future__ import annotations

import numpy as np
import pytest

import grblas_gpu as gb

matplotlib = pytest.importorskip("matplotlib")
pytest.importorskip("networkx")
matplotlib.use("Agg")


def _matrix(backend: str) -> gb.Matrix:
    return gb.Matrix.from_coo([0, 0, 1, 3], [1, 2, 2, 0], [1.5, 2.0, 3.0, 4.0], nrows=4, ncols=4, backend=backend)


def test_draw_has_every_vertex_and_edge(backend: str) -> None:
    import matplotlib.pyplot as plt
    from matplotlib.collections import PathCollection

    fig, ax = plt.subplots()
    dist = gb.Vector.from_coo([0, 1], [0.0, 1.5], size=4, backend=backend)
    out = gb.viz.draw(_matrix(backend), dist, ax=ax, title="d")
    assert out is ax and ax.get_title() == "d"
    nodes = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert len(nodes) == 1 and len(nodes[0].get_offsets()) == 4
    texts = {t.get_text() for t in ax.texts}
    assert {"1.5", "2", "3", "4"} <= texts  # edge labels, and the vertex values 0 and 1.5
    assert "0" in texts
    plt.close(fig)


def test_draw_refuses_a_vector(backend: str) -> None:
    with pytest.raises(TypeError):
        gb.viz.draw(gb.Vector.from_coo([0], [1.0], size=2, backend=backend), show=False)


def test_spy_marks_the_entries(backend: str) -> None:
    A = _matrix(backend)
    fig = gb.viz.spy(A, show=False, centered=True, title="pattern")
    ax = fig.axes[0]
    (line,) = ax.get_lines()
    got = sorted(zip(np.asarray(line.get_ydata()).astype(int).tolist(), np.asarray(line.get_xdata()).astype(int)
                     .tolist()))
    rows, cols, _ = A.to_coo()
    assert got == sorted(zip(rows.tolist(), cols.tolist()))
    assert ax.get_title() == "pattern"
