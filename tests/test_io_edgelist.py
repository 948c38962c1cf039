"""Edge-list (SNAP) reading, against networkx and hand-computed small cases."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED_DATA

import grblas_gpu as gb
from grblas_gpu.io import FileFormatError, parse_edgelist, read_edgelist

nx = pytest.importorskip("networkx")

DATA = SHARED_DATA
SNAP = DATA / "snap"


def snap(name: str) -> Path:
    """A SNAP file; skip the test when the shared folder is absent."""
    if not SNAP.is_dir():
        pytest.skip(f"shared data folder {SNAP} is absent")
    return SNAP / name


def write(tmp_path: Path, text: str, name: str = "g.txt") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def entries(A: gb.Matrix, ids: np.ndarray) -> dict[tuple[int, int], object]:
    """{(original src id, original dst id): value} for every stored entry."""
    r, c, v = A.to_coo()
    return {(int(ids[i]), int(ids[j])): x for i, j, x in zip(r.tolist(), c.tolist(), v.tolist())}


def nx_entries(G: object, weight: str | None = None) -> dict[tuple[int, int], object]:
    out = {}
    for u, v, d in G.edges(data=True):  # type: ignore[attr-defined]
        out[(u, v)] = d.get(weight, True) if weight else True
        if not G.is_directed():  # type: ignore[attr-defined]
            out[(v, u)] = out[(u, v)]
    return out


# ----------------------------------------------------------------------------- SNAP files


def test_wiki_vote_matches_networkx() -> None:
    path = snap("wiki-Vote.txt")
    A, ids = read_edgelist(path)
    G = nx.read_edgelist(path, create_using=nx.DiGraph, nodetype=int)
    assert (A.nrows, A.nvals, len(ids)) == (7115, 103689, 7115)  # the SNAP page's counts
    assert A.dtype == gb.dtypes.BOOL
    np.testing.assert_array_equal(ids, sorted(G.nodes))
    assert entries(A, ids) == nx_entries(G)
    assert ids[0] == 3 and ids[-1] == 8297


def test_wiki_vote_undirected() -> None:
    path = snap("wiki-Vote.txt")
    A, ids = read_edgelist(path, directed=False)
    G = nx.read_edgelist(path, create_using=nx.Graph, nodetype=int)
    assert entries(A, ids) == nx_entries(G)
    assert A.nvals == 2 * G.number_of_edges() - nx.number_of_selfloops(G)


def test_email_eu_core_weighted() -> None:
    path = snap("email-Eu-core.csv")
    A, ids = read_edgelist(path)
    assert (A.nrows, A.nvals) == (1005, 25571) and A.dtype == gb.dtypes.FP64
    np.testing.assert_array_equal(ids, np.arange(1005))
    r, c, v = A.to_coo()
    assert int((r == c).sum()) == 642  # self-loops kept
    assert np.all(v == 1.0)
    G = nx.read_weighted_edgelist(path, create_using=nx.DiGraph, nodetype=int)
    assert entries(A, ids) == nx_entries(G, "weight")


def test_email_eu_core_unweighted_undirected() -> None:
    path = snap("email-Eu-core.csv")
    A, ids = read_edgelist(path, directed=False, weighted=False)
    G = nx.read_weighted_edgelist(path, create_using=nx.Graph, nodetype=int)
    assert A.dtype == gb.dtypes.BOOL
    assert A.nvals == 2 * G.number_of_edges() - nx.number_of_selfloops(G)
    assert entries(A, ids) == nx_entries(G)


# ----------------------------------------------------------------------------- hand-written


def test_non_contiguous_ids(tmp_path: Path) -> None:
    p = write(tmp_path, "# a comment\n10 5\n5 1000000000000\n\n1000000000000 10\n")
    A, ids = read_edgelist(p)
    assert ids.tolist() == [5, 10, 1000000000000]
    assert entries(A, ids) == {(10, 5): True, (5, 1000000000000): True, (1000000000000, 10): True}
    assert (A.nrows, A.ncols) == (3, 3)


def test_duplicates_keep_the_first_weight(tmp_path: Path) -> None:
    p = write(tmp_path, "1 2 0.5\n2 1 7\n1 2 9\n3 3 1.5\n3 3 2.5\n")
    A, ids = read_edgelist(p)
    assert entries(A, ids) == {(1, 2): 0.5, (2, 1): 7.0, (3, 3): 1.5}
    U, ids = read_edgelist(p, directed=False)  # '2 1' repeats '1 2': the first line wins both ways
    assert entries(U, ids) == {(1, 2): 0.5, (2, 1): 0.5, (3, 3): 1.5}


def test_self_loops_are_kept(tmp_path: Path) -> None:
    A, ids = read_edgelist(write(tmp_path, "4 4\n4 5\n"), directed=False)
    assert entries(A, ids) == {(4, 4): True, (4, 5): True, (5, 4): True}


def test_comma_separated_is_detected(tmp_path: Path) -> None:
    A, ids = read_edgelist(write(tmp_path, "1,2,3.5\n2,3,1\n", "g.csv"))
    assert entries(A, ids) == {(1, 2): 3.5, (2, 3): 1.0}


def test_explicit_delimiter_and_comments(tmp_path: Path) -> None:
    p = write(tmp_path, "% header\n1;2\n  % indented comment\n2;3\n")
    A, ids = read_edgelist(p, delimiter=";", comments="%")
    assert entries(A, ids) == {(1, 2): True, (2, 3): True}
    B, _ = read_edgelist(write(tmp_path, "# x\n% y\n1 2\n", "h.txt"), comments=("#", "%"))
    assert B.nvals == 1


def test_tabs_and_crlf(tmp_path: Path) -> None:
    p = tmp_path / "t.txt"
    p.write_bytes(b"# FromNodeId\tToNodeId\r\n1\t2\r\n2\t1\r\n")
    A, ids = read_edgelist(p)
    assert entries(A, ids) == {(1, 2): True, (2, 1): True}


def test_weight_types(tmp_path: Path) -> None:
    p = write(tmp_path, "1 2 3\n2 1 -4\n")
    A, _ = read_edgelist(p, dtype="INT32")
    assert A.dtype == gb.dtypes.INT32 and sorted(A.to_coo()[2].tolist()) == [-4, 3]
    B, _ = read_edgelist(p, dtype="FP32")
    assert B.dtype == gb.dtypes.FP32
    with pytest.raises(FileFormatError, match="out of range for UINT8") as info:
        read_edgelist(p, dtype="UINT8")
    assert info.value.line == 2
    C, _ = read_edgelist(write(tmp_path, "1 2\n", "u.txt"), dtype="FP64")
    assert C.dtype == gb.dtypes.FP64 and C.to_coo()[2].tolist() == [1.0]


def test_weighted_flag(tmp_path: Path) -> None:
    three = write(tmp_path, "1 2 5\n")
    A, _ = read_edgelist(three, weighted=False)
    assert A.dtype == gb.dtypes.BOOL
    with pytest.raises(FileFormatError, match="weight") as info:
        read_edgelist(write(tmp_path, "\n1 2\n", "two.txt"), weighted=True)
    assert info.value.line == 2


def test_empty_file(tmp_path: Path) -> None:
    A, ids = read_edgelist(write(tmp_path, "# nothing\n"))
    assert (A.nrows, A.ncols, A.nvals, len(ids)) == (0, 0, 0, 0)


def test_huge_ids(tmp_path: Path) -> None:
    A, ids = read_edgelist(write(tmp_path, "18446744073709551615 0\n"))
    assert ids.dtype == np.uint64 and ids.tolist() == [0, 2**64 - 1]
    assert A.to_coo()[0].tolist() == [1]


def test_stream_and_parse_level() -> None:
    e = parse_edgelist(io.StringIO("3 1 2.0\n1 3 4.0\n"), directed=True)
    assert e.ids.tolist() == [1, 3] and e.weighted and e.directed
    triples = sorted(zip(e.coo.rows.tolist(), e.coo.cols.tolist(), e.coo.values.tolist()))
    assert triples == [(0, 1, 4.0), (1, 0, 2.0)]  # the COO arrays keep no particular order


@pytest.mark.parametrize("text, line, words", [
    ("1 2\n1 2 3\n", 2, "expected 2 fields on each line, found 3"),
    ("1 2 3 4\n", 1, "expected 2 or 3 fields"),
    ("1\n", 1, "expected 2 or 3 fields"),
    ("1 2\n-1 2\n", 2, "vertex id -1 is negative"),
    ("1 2\na 2\n", 2, "vertex id 'a' is not an integer"),
    ("1 2\n1.5 2\n", 2, "not an integer"),
    ("1 2 x\n", 1, "weight 'x' is not a number"),
    ("src,dst\n1,2\n", 1, "'src' is not an integer"),
    ("1,,2\n", 1, "empty field"),
    ("1,2\n3,\n", 2, "empty field"),
])
def test_malformed_edge_lists(tmp_path: Path, text: str, line: int, words: str) -> None:
    p = write(tmp_path, text)
    with pytest.raises(FileFormatError, match=words) as info:
        read_edgelist(p)
    assert info.value.line == line and info.value.path == str(p)
    assert f"{p}, line {line}:" in str(info.value)


def test_backend_argument(tmp_path: Path) -> None:
    A, _ = read_edgelist(write(tmp_path, "1 2\n"), backend="numpy")
    assert getattr(A.backend, "name", A.backend) == "numpy"
