"""Reading in chunks: pyarrow and the pure path agree, chunk boundaries change nothing, progress
is reported only when asked."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

import grblas_gpu as gb
from grblas_gpu.io import FileFormatError, _chunks, mmread, parse_edgelist, parse_matrix_market, read_graphalytics

sps = pytest.importorskip("scipy.sparse")




@pytest.fixture(params=[1 << 26, 97, 1])
def chunk_bytes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """One chunk, chunks of about 97 bytes (boundaries inside the data), one line per chunk."""
    monkeypatch.setattr(_chunks, "CHUNK_BYTES", request.param)
    return request.param


def random_mtx(tmp_path: Path, seed: int = 3, n: int = 40, m: int = 300) -> Path:
    """A coordinate real file with comments, blank lines, tabs and CRLF among its entries."""
    rng = np.random.default_rng(seed)
    keys = rng.choice(n * n, m, replace=False)
    lines = ["%%MatrixMarket matrix coordinate real general", "% made by the test", f"{n} {n} {m}"]
    for k, key in enumerate(keys.tolist()):
        sep = "\t" if k % 7 == 0 else " "
        lines.append(f"{key // n + 1}{sep}{key % n + 1}{sep}{rng.standard_normal()!r}")
        if k % 50 == 10:
            lines.append("% a comment among the entries")
        if k % 60 == 20:
            lines.append("")
    p = tmp_path / "r.mtx"
    p.write_bytes(("\r\n".join(lines[:100]) + "\r\n" + "\n".join(lines[100:]) + "\n").encode())
    return p


def test_matrix_market_any_chunking_matches_scipy(tmp_path: Path, parser: str, chunk_bytes: int) -> None:
    p = random_mtx(tmp_path)
    coo, _ = parse_matrix_market(p)
    got = sps.coo_array((coo.values, (coo.rows, coo.cols)), shape=(coo.nrows, coo.ncols)).toarray()
    np.testing.assert_array_equal(got, plain_dense(p))


def plain_dense(p: Path) -> np.ndarray:
    """The file read with plain Python: the independent reference (scipy rejects comments among entries)."""
    lines = [s.split() for s in p.read_text().splitlines() if s.strip() and not s.startswith("%")]
    n, m, _ = map(int, lines[0])
    out = np.zeros((n, m))
    for i, j, v in lines[1:]:
        out[int(i) - 1, int(j) - 1] = float(v)
    return out


def test_plain_file_both_paths_read_alike(tmp_path: Path, parser: str, chunk_bytes: int) -> None:
    rng = np.random.default_rng(5)
    A = gb.Matrix.from_coo(rng.integers(0, 50, 400), rng.integers(0, 60, 400), rng.standard_normal(400),
                           nrows=50, ncols=60, dup_op=gb.binary.plus)
    p = tmp_path / "a.mtx"
    gb.io.mmwrite(p, A)
    assert mmread(p).isequal(A, check_dtype=True)


@pytest.mark.parametrize("n_before", [0, 3, 250])
def test_error_lines_cross_chunk_boundaries(tmp_path: Path, parser: str, chunk_bytes: int, n_before: int) -> None:
    """An index out of range after blank lines and comments: the line is the file's, in every chunking."""
    body = "".join(f"{i % 9 + 1} {i % 5 + 1} {i}\n" + ("\n" if i % 11 == 0 else "") for i in range(n_before))
    text = f"%%MatrixMarket matrix coordinate integer general\n%\n9 5 {n_before + 2}\n{body}\n1 6 1\n2 2 2\n"
    p = tmp_path / "e.mtx"
    p.write_text(text)
    expected = text.splitlines().index("1 6 1") + 1
    with pytest.raises(FileFormatError, match="column index 6 is out of range 1..5") as info:
        mmread(p)
    assert info.value.line == expected


def test_duplicate_lines_across_chunks(tmp_path: Path, parser: str, chunk_bytes: int) -> None:
    lines = [f"{i + 1} 1 {i}" for i in range(30)] + ["", "7 1 99"]
    text = "%%MatrixMarket matrix coordinate integer general\n30 1 31\n" + "\n".join(lines) + "\n"
    p = tmp_path / "d.mtx"
    p.write_text(text)
    with pytest.raises(FileFormatError, match=r"duplicate entry \(7, 1\), already given on line 9") as info:
        mmread(p)
    assert info.value.line == 34


def test_edge_list_any_chunking(tmp_path: Path, parser: str, chunk_bytes: int) -> None:
    nx = pytest.importorskip("networkx")
    rng = np.random.default_rng(9)
    src, dst = rng.integers(0, 10**12, 200), rng.integers(0, 10**12, 200)
    text = "# FromNodeId\tToNodeId\n" + "".join(f"{a}\t{b}\n" + ("# x\n" if a % 13 == 0 else "")
                                                for a, b in zip(src.tolist(), dst.tolist()))
    p = tmp_path / "g.txt"
    p.write_text(text)
    e = parse_edgelist(p)
    G = nx.read_edgelist(p, create_using=nx.DiGraph, nodetype=int)
    np.testing.assert_array_equal(e.ids, sorted(G.nodes))
    got = {(int(e.ids[r]), int(e.ids[c])) for r, c in zip(e.coo.rows.tolist(), e.coo.cols.tolist())}
    assert got == set(G.edges) and e.coo.nvals == G.number_of_edges()


def test_ids_past_int64_in_a_later_chunk(tmp_path: Path, parser: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One chunk parses ids as int64, a later one as uint64: they join as uint64."""
    monkeypatch.setattr(_chunks, "CHUNK_BYTES", 8)
    p = tmp_path / "g.txt"
    p.write_text("1 2\n3 4\n18446744073709551615 1\n")
    e = parse_edgelist(p)
    assert e.ids.dtype == np.uint64 and e.ids.tolist() == [1, 2, 3, 4, 2**64 - 1]
    assert e.coo.nvals == 3


def test_graphalytics_any_chunking(tmp_path: Path, parser: str, chunk_bytes: int) -> None:
    ids = list(range(100, 0, -3))
    (tmp_path / "g.v").write_text("".join(f"{v}\n" for v in ids))
    edges = [(ids[i], ids[(i * 7) % len(ids)], i / 4) for i in range(len(ids))]
    (tmp_path / "g.e").write_text("".join(f"{u} {v} {w}\n" for u, v, w in edges))
    g = read_graphalytics(tmp_path / "g", directed=True)
    assert g.ids.tolist() == sorted(ids)
    r, c, v = g.matrix.to_coo()
    got = {(int(g.ids[a]), int(g.ids[b])): x for a, b, x in zip(r.tolist(), c.tolist(), v.tolist())}
    assert got == {(u, w): x for u, w, x in edges}


# ----------------------------------------------------------------------------- progress


def test_progress_callback(tmp_path: Path, parser: str, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(_chunks, "CHUNK_BYTES", 100)
    p = random_mtx(tmp_path)
    seen: list[tuple[int, int | None]] = []
    A = mmread(p, progress=lambda done, total: seen.append((done, total)))
    size = p.stat().st_size
    assert len(seen) > 10 and all(total == size for _, total in seen)
    done = [d for d, _ in seen]
    assert done == sorted(done) and done[-1] == size
    assert A.nvals == 300
    assert capsys.readouterr().err == ""  # nothing printed unless asked


def test_progress_true_prints_a_line_per_chunk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(_chunks, "CHUNK_BYTES", 1000)
    p = random_mtx(tmp_path)
    mmread(p, progress=True)
    err = capsys.readouterr().err.splitlines()
    assert len(err) > 3 and all(str(p) in line and "MB" in line for line in err)
    assert err[-1].endswith("(100%)")
    stream = io.StringIO("1 2\n2 3\n")
    gb.io.read_edgelist(stream, progress=True)
    assert "MB" in capsys.readouterr().err  # a stream has no known size: bytes read only


def test_nothing_printed_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mmread(random_mtx(tmp_path))
    out = capsys.readouterr()
    assert out.err == "" and out.out == ""


# ----------------------------------------------------------------------------- the fast path itself


def test_pyarrow_answers_plain_chunks_and_defers_the_unsure(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pyarrow", reason="pyarrow (the readers extra) is not installed")
    monkeypatch.delenv("GRBLAS_GPU_PURE_READERS", raising=False)
    monkeypatch.setattr(_chunks, "FAST", True)
    cols = _chunks.fast_columns(b"1 2 0.5\n3 4 -1e3\n", ("int", "int", "float"), " ")
    assert cols is not None and cols[0].tolist() == [1, 3] and cols[2].tolist() == [0.5, -1000.0]
    for data in (b"1 2 inf\n", b"1 2 1e999\n", b"1 2 3 4\n", b"1_0 2 3\n", b"1 2 1.5x\n", b"1  2 3\n",
                 b"99999999999999999999 1 1\n", b"+1 2 3\n", b" 1 2 3\n", b"0x10 2 3\n", b"1 0X1f 3\n", b""):
        assert _chunks.fast_columns(data, ("int", "int", "float"), " ") is None, data
    assert _chunks.pick_delimiter(b"1\t2\n", None) == "\t" and _chunks.pick_delimiter(b"1 2\t3\n", None) is None


def test_without_pyarrow_the_pure_path_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_chunks, "_pacsv", None)
    assert not _chunks.fast_available()
    p = random_mtx(tmp_path)
    coo, _ = parse_matrix_market(p)
    assert coo.nvals == 300


def test_environment_variable_forces_the_pure_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRBLAS_GPU_PURE_READERS", "1")
    assert not _chunks.fast_available()


def test_read_graph_passes_progress_on(tmp_path: Path) -> None:
    seen: list[int] = []
    g = gb.io.read_graph(random_mtx(tmp_path), progress=lambda done, total: seen.append(done))
    assert g.matrix.nvals == 300 and seen[-1] == (tmp_path / "r.mtx").stat().st_size


def test_readers_benchmark_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m benchmarks.readers`` at a tiny size: every contender timed, ratios printed."""
    from benchmarks import readers

    readers.main(["--edges", "2000", "--repeat", "1"])
    out = capsys.readouterr().out
    assert "Matrix Market" in out and "SNAP edge list" in out
    assert "x numpy.loadtxt" in out and "x scipy.io.mmread" in out
    readers.main(["--edges", "2000", "--repeat", "1", "--threads", "1", "--clock", "cpu"])
    out = capsys.readouterr().out
    assert "cpu clock" in out and "x numpy.loadtxt" in out


def test_file_and_stream_read_alike(tmp_path: Path, parser: str, chunk_bytes: int) -> None:
    """A file fills arrays of the declared size; a stream joins its chunks: same entries."""
    p = random_mtx(tmp_path)
    a, _ = parse_matrix_market(p)
    b, _ = parse_matrix_market(io.BytesIO(p.read_bytes()))
    for x, y in zip((a.rows, a.cols, a.values), (b.rows, b.cols, b.values)):
        np.testing.assert_array_equal(x, y)
    short = tmp_path / "short.mtx"  # declares more entries than its bytes can hold: no big allocation
    short.write_text(f"%%MatrixMarket matrix coordinate real general\n3 3 {10**15}\n1 1 1\n")
    with pytest.raises(FileFormatError, match="ends after 1 of the 1000000000000000") as info:
        mmread(short)
    assert info.value.line == 3


def test_a_chunk_of_one_control_character_is_an_error(tmp_path: Path, parser: str, chunk_bytes: int) -> None:
    """Found by the fuzz test: a chunk holding only a NUL line was read as blank."""
    (tmp_path / "g.v").write_bytes(b"1\n\x00")
    (tmp_path / "g.e").write_bytes(b"")
    with pytest.raises(FileFormatError, match="control character") as info:
        read_graphalytics(tmp_path / "g", directed=True)
    assert info.value.line == 2


def test_graphalytics_and_edge_list_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_chunks, "CHUNK_BYTES", 16)
    (tmp_path / "g.v").write_text("".join(f"{v}\n" for v in range(40)))
    (tmp_path / "g.e").write_text("".join(f"{v} {(v * 7) % 40}\n" for v in range(40)))
    seen: list[tuple[int, int | None]] = []
    read_graphalytics(tmp_path / "g", directed=True, progress=lambda d, t: seen.append((d, t)))
    totals = {t for _, t in seen}
    assert totals == {(tmp_path / "g.v").stat().st_size, (tmp_path / "g.e").stat().st_size}
    seen.clear()
    gb.io.read_edgelist(tmp_path / "g.e", progress=lambda d, t: seen.append((d, t)))
    assert len(seen) > 5 and seen[-1] == ((tmp_path / "g.e").stat().st_size,) * 2


@pytest.mark.parametrize("mapped", [True, False])
def test_mapped_and_read_files_alike(tmp_path: Path, parser: str, chunk_bytes: int, mapped: bool,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A file's pages mapped into memory, or read: the same entries as a stream, the same error lines."""
    monkeypatch.setattr(_chunks, "MAP_FILES", mapped)
    p = random_mtx(tmp_path)
    a, _ = parse_matrix_market(p)
    b, _ = parse_matrix_market(io.BytesIO(p.read_bytes()))  # a stream is read, never mapped
    for x, y in zip((a.rows, a.cols, a.values), (b.rows, b.cols, b.values)):
        np.testing.assert_array_equal(x, y)
    edges = tmp_path / "e.txt"  # comment lines first: the first edge line is read, then given back
    edges.write_text("# a\n# b\n" + "".join(f"{i}\t{(7 * i) % 31}\n" for i in range(60)) + "5\t6x\n")
    with pytest.raises(FileFormatError) as info:
        parse_edgelist(edges)
    assert info.value.line == 63
    edges.write_text(edges.read_text().replace("6x", "6"))
    e, f = parse_edgelist(io.StringIO(edges.read_text())), parse_edgelist(edges)
    for x, y in zip((e.coo.rows, e.coo.cols, e.ids), (f.coo.rows, f.coo.cols, f.ids)):
        np.testing.assert_array_equal(x, y)


def test_a_mapped_chunk_acts_as_its_bytes(tmp_path: Path) -> None:
    import mmap

    data = b"1 2\n \t\n3 x4\n\n  \n"
    p = tmp_path / "d"
    p.write_bytes(data)
    with open(p, "rb") as f:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    for start in range(len(data)):
        for end in range(start, len(data) + 1):
            chunk, want = _chunks.Chunk(mapped, start, end), data[start:end]
            assert len(chunk) == len(want) and chunk.isspace() == want.isspace()
            assert chunk.decode("utf-8") == want.decode("utf-8")
            assert bytes(_chunks.as_buffer(chunk)) == want
            for sub in (b"x", b"\t", b" ", b"\n\n", b"1"):
                assert (sub in chunk) == (sub in want)
