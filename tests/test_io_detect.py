"""read_graph: format detection and the LoadedGraph it returns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED_DATA

import grblas_gpu as gb
from grblas_gpu.exceptions import InvalidValue
from grblas_gpu.io import detect_format, mmread, read_edgelist, read_graph, read_graphalytics

DATA = SHARED_DATA


def shared(*parts: str) -> Path:
    folder = DATA.joinpath(*parts[:-1])
    if not folder.is_dir():
        pytest.skip(f"shared data folder {folder} is absent")
    return DATA.joinpath(*parts)


def test_matrix_market_by_suffix() -> None:
    path = shared("lagraph", "karate.mtx")
    g = read_graph(path)
    assert g.format == "matrixmarket" and g.ids is None and g.directed is False
    assert g.properties["symmetry"] == "symmetric" and g.properties["field"] == "pattern"
    assert g.matrix.isequal(mmread(path), check_dtype=True)
    assert read_graph(shared("lagraph", "west0067.mtx")).directed is True


def test_graphalytics_by_prefix_and_suffix() -> None:
    prefix = shared("graphalytics", "example-directed")
    for p in (prefix, Path(str(prefix) + ".e"), Path(str(prefix) + ".properties")):
        g = read_graph(p)
        assert g.format == "graphalytics" and g.directed is True
        assert g.properties["pr.damping-factor"] == 0.85
        np.testing.assert_array_equal(g.ids, np.arange(1, 11))
        assert g.matrix.isequal(read_graphalytics(prefix).matrix, check_dtype=True)


def test_edge_list_otherwise() -> None:
    path = shared("snap", "email-Eu-core.csv")
    g = read_graph(path, directed=False)
    A, ids = read_edgelist(path, directed=False)
    assert g.format == "edgelist" and g.directed is False and g.properties == {}
    assert g.matrix.isequal(A, check_dtype=True)
    np.testing.assert_array_equal(g.ids, ids)


def test_banner_sniffing_and_override(tmp_path: Path) -> None:
    p = tmp_path / "matrix.txt"
    p.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 3.5\n")
    assert detect_format(p) == "matrixmarket"
    g = read_graph(p)
    assert g.format == "matrixmarket" and g.matrix[0, 1].value == 3.5
    q = tmp_path / "edges.mtx"  # a misnamed edge list: format= overrides the name
    q.write_text("1 2\n")
    assert read_graph(q, format="snap").format == "edgelist"
    with pytest.raises(InvalidValue, match="unknown graph format"):
        read_graph(q, format="graphml")


def test_keywords_reach_the_reader(tmp_path: Path) -> None:
    p = tmp_path / "a.mtx"
    p.write_text("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n")
    g = read_graph(p, dtype="INT32", backend="numpy")
    assert g.matrix.dtype == gb.dtypes.INT32 and g.properties["dtype"] == gb.dtypes.INT32
