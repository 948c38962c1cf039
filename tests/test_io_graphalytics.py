"""LDBC Graphalytics .v/.e/.properties reading and expected-output files."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED_DATA

import grblas_gpu as gb
from grblas_gpu.exceptions import InvalidValue
from grblas_gpu.io import (
    FileFormatError,
    find_graphalytics_files,
    parse_properties,
    read_graphalytics,
    read_graphalytics_output,
)

DATA = SHARED_DATA
GA = DATA / "graphalytics"
ALGORITHMS = ("BFS", "CDLP", "LCC", "PR", "SSSP", "WCC")


def graph_names() -> list:
    """Every graph in the shared folder, or one skipped parameter naming the missing folder."""
    if not GA.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"shared data folder {GA} is absent"))]
    return sorted(p.name.removesuffix(".properties") for p in GA.glob("*.properties"))


def output_files() -> list:
    if not GA.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"shared data folder {GA} is absent"))]
    return sorted(p.name for p in GA.iterdir() if p.name.rsplit("-", 1)[-1] in ALGORITHMS)


def ga(name: str) -> Path:
    if not GA.is_dir():
        pytest.skip(f"shared data folder {GA} is absent")
    return GA / name


def plain_edges(name: str) -> tuple[list[int], list[tuple[int, int, float | None]]]:
    """The .v ids and .e edges read with plain Python (the independent reference)."""
    ids = [int(x) for x in ga(f"{name}.v").read_text().split()]
    edges = []
    for line in ga(f"{name}.e").read_text().splitlines():
        f = line.split()
        if f:
            edges.append((int(f[0]), int(f[1]), float(f[2]) if len(f) > 2 else None))
    return ids, edges


def entries(A: gb.Matrix, ids: np.ndarray) -> dict[tuple[int, int], object]:
    r, c, v = A.to_coo()
    return {(int(ids[i]), int(ids[j])): x for i, j, x in zip(r.tolist(), c.tolist(), v.tolist())}


def write_graph(tmp_path: Path, name: str, v: str, e: str, props: str | None = None) -> Path:
    (tmp_path / f"{name}.v").write_text(v)
    (tmp_path / f"{name}.e").write_text(e)
    if props is not None:
        (tmp_path / f"{name}.properties").write_text(props)
    return tmp_path / name


# ----------------------------------------------------------------------------- shared graphs


@pytest.mark.parametrize("name", graph_names())
def test_graph_matches_plain_reading(name: str) -> None:
    g = read_graphalytics(ga(name))
    ids, edges = plain_edges(name)
    directed = "-undirected" not in name
    assert g.directed is directed and g.name == name
    np.testing.assert_array_equal(g.ids, sorted(ids))
    assert g.matrix.nrows == g.matrix.ncols == len(ids) == g.properties["meta.vertices"]
    assert len(edges) == g.properties["meta.edges"]
    expected = {}
    for u, v, w in edges:
        expected[(u, v)] = True if w is None else w
        if not directed:
            expected[(v, u)] = expected[(u, v)]
    assert entries(g.matrix, g.ids) == expected
    assert g.weighted == (edges[0][2] is not None)
    assert g.matrix.dtype == (gb.dtypes.FP64 if g.weighted else gb.dtypes.BOOL)


@pytest.mark.parametrize("suffix", ["", ".v", ".e", ".properties"])
def test_any_file_of_the_graph_names_it(suffix: str) -> None:
    g = read_graphalytics(str(ga("example-undirected")) + suffix)
    assert g.matrix.nvals == 24 and g.ids.tolist() == list(range(2, 11)) and not g.directed


def test_properties_are_typed() -> None:
    p = parse_properties(ga("example-directed.properties"))
    assert p["directed"] is True
    assert p["bfs.source-vertex"] == 1 and p["sssp.source-vertex"] == 1
    assert p["pr.damping-factor"] == 0.85 and p["pr.num-iterations"] == 2
    assert p["cdlp.max-iterations"] == 2
    assert p["algorithms"] == ["bfs", "cdlp", "lcc", "pr", "sssp", "wcc"]
    assert p["edge-properties.names"] == ["weight"] and p["edge-properties.types"] == ["real"]
    assert p["vertex-file"] == "example-directed.v" and p["meta.edges"] == 17


def test_wrong_edge_file_property_is_ignored() -> None:
    """test-sssp-undirected.properties names the .v file as its edge file; the .e file is used."""
    assert parse_properties(ga("test-sssp-undirected.properties"))["edge-file"] == "test-sssp-undirected.v"
    files = find_graphalytics_files(ga("test-sssp-undirected"))
    assert files.edges.name == "test-sssp-undirected.e"
    g = read_graphalytics(ga("test-sssp-undirected"))
    assert g.matrix.nvals == 28 and g.weighted


def test_directed_argument_overrides_properties() -> None:
    g = read_graphalytics(ga("example-directed"), directed=False)
    _, edges = plain_edges("example-directed")
    pairs = {(u, v) for u, v, _ in edges} | {(v, u) for u, v, _ in edges}
    assert not g.directed and g.matrix.nvals == len(pairs)
    assert g.properties["directed"] is True


def test_index_of() -> None:
    g = read_graphalytics(ga("example-undirected"))
    assert g.index_of(2) == 0 and g.index_of(10) == 8
    with pytest.raises(KeyError):
        g.index_of(1)


@pytest.mark.parametrize("name", output_files())
def test_expected_outputs_cover_every_vertex(name: str) -> None:
    out = read_graphalytics_output(ga(name))
    graph = name.rsplit("-", 1)[0]
    ids = [int(x) for x in ga(f"{graph}.v").read_text().split()]
    assert sorted(out) == sorted(ids)
    for line in ga(name).read_text().splitlines():
        vertex, value = line.split()
        expected = int(value) if value.lstrip("-").isdigit() else float(value)
        assert out[int(vertex)] == expected


def test_output_value_kinds() -> None:
    sssp = read_graphalytics_output(ga("example-directed-SSSP"))
    assert sssp[2] == math.inf and sssp[3] == 0.5 and isinstance(sssp[1], float)
    bfs = read_graphalytics_output(ga("test-bfs-undirected-BFS"))
    assert bfs[9] == 9223372036854775807 and isinstance(bfs[9], int)
    wcc = read_graphalytics_output(ga("test-wcc-directed-WCC"))
    assert all(isinstance(x, int) for x in wcc.values())


# ----------------------------------------------------------------------------- hand-written graphs


def test_undirected_edges_stored_both_ways(tmp_path: Path) -> None:
    props = "graph.t.directed = false\ngraph.t.edge-properties.types = int\n"
    g = read_graphalytics(write_graph(tmp_path, "t", "7\n3\n20\n", "3 7 4\n7 20 5\n3 3 1\n", props))
    assert g.ids.tolist() == [3, 7, 20]  # sorted, though the file is not
    assert g.matrix.dtype == gb.dtypes.INT64
    assert entries(g.matrix, g.ids) == {(3, 7): 4, (7, 3): 4, (7, 20): 5, (20, 7): 5, (3, 3): 1}


def test_without_properties_directed_must_be_given(tmp_path: Path) -> None:
    prefix = write_graph(tmp_path, "np", "1\n2\n", "1 2\n")
    with pytest.raises(InvalidValue, match="directed=True or False"):
        read_graphalytics(prefix)
    g = read_graphalytics(prefix, directed=True)
    assert g.properties == {} and g.matrix.nvals == 1 and g.matrix.dtype == gb.dtypes.BOOL


def test_duplicate_edges_keep_first(tmp_path: Path) -> None:
    g = read_graphalytics(write_graph(tmp_path, "d", "1\n2\n", "1 2 0.5\n2 1 0.7\n"), directed=False)
    assert entries(g.matrix, g.ids) == {(1, 2): 0.5, (2, 1): 0.5}


def test_unknown_vertex_in_edges(tmp_path: Path) -> None:
    prefix = write_graph(tmp_path, "u", "1\n2\n", "1 2\n2 9\n")
    with pytest.raises(FileFormatError, match="vertex 9 is not in the vertex file u.v") as info:
        read_graphalytics(prefix, directed=True)
    assert info.value.line == 2 and info.value.path == str(prefix) + ".e"


def test_vertex_listed_twice(tmp_path: Path) -> None:
    prefix = write_graph(tmp_path, "w", "1\n2\n1\n", "1 2\n")
    with pytest.raises(FileFormatError, match="vertex id 1 is listed twice") as info:
        read_graphalytics(prefix, directed=True)
    assert info.value.line == 3


def test_missing_edge_file(tmp_path: Path) -> None:
    (tmp_path / "m.v").write_text("1\n")
    with pytest.raises(FileNotFoundError, match="edge file"):
        read_graphalytics(tmp_path / "m", directed=True)


def test_malformed_properties(tmp_path: Path) -> None:
    p = tmp_path / "x.properties"
    p.write_text("# ok\n\ngraph.x.directed = true\nno separator here\n")
    with pytest.raises(FileFormatError, match="key = value") as info:
        parse_properties(p)
    assert info.value.line == 4


def test_malformed_output(tmp_path: Path) -> None:
    p = tmp_path / "g-PR"
    p.write_text("1 0.5\n2 oops\n")
    with pytest.raises(FileFormatError, match="'oops' is not a number") as info:
        read_graphalytics_output(p)
    assert info.value.line == 2
    p.write_text("1 0.5\n1 0.7\n")
    with pytest.raises(FileFormatError, match="listed twice"):
        read_graphalytics_output(p)


def test_map_ids_by_table_and_by_search() -> None:
    """Ids that span few numbers are found through a table, others by a binary search: both
    agree with numpy.isin, and a found id's position holds it."""
    from grblas_gpu.io._coo import map_ids

    rng = np.random.default_rng(2)
    for span in (5000, 10**15):
        ids = np.unique(rng.integers(0, span, 3000))
        wanted = np.concatenate([rng.choice(ids, 5000), rng.integers(-3, span + 10, 5000)])
        pos, missing = map_ids(ids, wanted)
        found = np.isin(wanted, ids)
        assert np.array_equal(missing, ~found)
        assert np.array_equal(ids[pos[found]], wanted[found])
