"""Matrix Market reading and writing, against scipy.io and LAGraph's own expectations."""

from __future__ import annotations

import gzip
import io
import pickle
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED_DATA, scipy_mmread

import grblas_gpu as gb
from grblas_gpu.exceptions import InvalidValue
from grblas_gpu.io import FileFormatError, UnsupportedFormatError, mminfo, mmread, mmwrite
from grblas_gpu.io.matrixmarket import parse_matrix_market, write_matrix_market

pytest.importorskip("scipy.io")
sps = pytest.importorskip("scipy.sparse")

DATA = SHARED_DATA
LAGRAPH = DATA / "lagraph"
BANNER = "%%MatrixMarket matrix coordinate"


def lagraph_params(pattern: str) -> list:
    """One parameter per matching LAGraph file, or one skipped parameter naming the missing folder."""
    if not LAGRAPH.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"shared data folder {LAGRAPH} is absent"))]
    return sorted(p.name for p in LAGRAPH.glob(pattern))


def accepted_params() -> list:
    """The LAGraph files we read (every file but the rejected ones)."""
    return [p for p in lagraph_params("*.mtx") if not isinstance(p, str) or p not in LAGRAPH_REJECTED]


def lagraph(name: str) -> Path:
    """The path of a LAGraph file; skip the test when the folder is absent."""
    if not LAGRAPH.is_dir():
        pytest.skip(f"shared data folder {LAGRAPH} is absent")
    return LAGRAPH / name


def write(tmp_path: Path, text: str, name: str = "m.mtx") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def dense_of(A: gb.Matrix) -> np.ndarray:
    """A as a float64 dense array (missing entries 0)."""
    r, c, v = A.to_coo()
    out = np.zeros((A.nrows, A.ncols))
    out[r, c] = v.astype(np.float64)
    return out


def assert_same(A: gb.Matrix, B: gb.Matrix) -> None:
    """Same shape, type and entries (NaN equal to NaN)."""
    assert (A.nrows, A.ncols, A.dtype) == (B.nrows, B.ncols, B.dtype)
    for a, b in zip(A.to_coo(), B.to_coo()):
        np.testing.assert_array_equal(a, b)


def scipy_dense(path: Path) -> np.ndarray:
    m = scipy_mmread(path)
    return np.asarray(m.toarray() if sps.issparse(m) else m, dtype=np.float64)


# ----------------------------------------------------------------------------- LAGraph expectations

# (nrows, ncols, stored entries after symmetric expansion, type): LAGraph's test_MMRead.c table.
LAGRAPH_EXPECTED = {
    "A.mtx": (7, 7, 30, "BOOL"),
    "cover.mtx": (7, 7, 12, "INT32"),
    "cover_structure.mtx": (7, 7, 12, "BOOL"),
    "jagmesh7.mtx": (1138, 1138, 7450, "BOOL"),
    "ldbc-cdlp-directed-example.mtx": (8, 8, 18, "BOOL"),
    "ldbc-cdlp-undirected-example.mtx": (8, 8, 24, "BOOL"),
    "ldbc-directed-example-bool.mtx": (10, 10, 17, "BOOL"),
    "ldbc-directed-example.mtx": (10, 10, 17, "FP64"),
    "ldbc-directed-example-unweighted.mtx": (10, 10, 17, "BOOL"),
    "ldbc-undirected-example-bool.mtx": (9, 9, 24, "BOOL"),
    "ldbc-undirected-example.mtx": (9, 9, 24, "FP64"),
    "ldbc-undirected-example-unweighted.mtx": (9, 9, 24, "BOOL"),
    "ldbc-wcc-example.mtx": (10, 10, 30, "INT64"),
    "LFAT5.mtx": (14, 14, 46, "FP64"),
    "msf1.mtx": (6, 6, 8, "INT64"),
    "msf2.mtx": (8, 8, 12, "INT64"),
    "msf3.mtx": (5, 5, 7, "INT64"),
    "sample2.mtx": (8, 8, 28, "BOOL"),
    "sample.mtx": (8, 8, 12, "BOOL"),
    "sources_7.mtx": (64, 1, 64, "INT64"),
    "olm1000.mtx": (1000, 1000, 3996, "FP64"),
    "bcsstk13.mtx": (2003, 2003, 83883, "FP64"),
    "cryg2500.mtx": (2500, 2500, 12349, "FP64"),
    "tree-example.mtx": (6, 6, 10, "INT64"),
    "west0067.mtx": (67, 67, 294, "FP64"),
    "lp_afiro.mtx": (27, 51, 102, "FP64"),
    "lp_afiro_structure.mtx": (27, 51, 102, "BOOL"),
    "karate.mtx": (34, 34, 156, "BOOL"),
    "matrix_bool.mtx": (7, 7, 12, "BOOL"),
    "matrix_int8.mtx": (7, 7, 12, "INT8"),
    "matrix_int16.mtx": (7, 7, 12, "INT16"),
    "matrix_int32.mtx": (7, 7, 12, "INT32"),
    "matrix_int64.mtx": (7, 7, 12, "INT64"),
    "matrix_uint8.mtx": (7, 7, 12, "UINT8"),
    "matrix_uint16.mtx": (7, 7, 12, "UINT16"),
    "matrix_uint32.mtx": (7, 7, 12, "UINT32"),
    "matrix_uint64.mtx": (7, 7, 12, "UINT64"),
    "matrix_fp32.mtx": (7, 7, 12, "FP32"),
    "matrix_fp32_structure.mtx": (7, 7, 12, "BOOL"),
    "matrix_fp64.mtx": (7, 7, 12, "FP64"),
    "west0067_jumbled.mtx": (67, 67, 294, "FP64"),
    "skew_fp32.mtx": (6, 6, 20, "FP32"),
    "skew_fp64.mtx": (6, 6, 20, "FP64"),
    "skew_int8.mtx": (6, 6, 20, "INT8"),
    "skew_int16.mtx": (6, 6, 20, "INT16"),
    "skew_int32.mtx": (6, 6, 20, "INT32"),
    "skew_int64.mtx": (6, 6, 20, "INT64"),
    "structure.mtx": (7, 7, 12, "INT32"),
    "full.mtx": (3, 3, 9, "FP64"),
    "full_symmetric.mtx": (4, 4, 16, "FP64"),
    "empty.mtx": (3, 4, 0, "INT32"),
    "comments_cover.mtx": (7, 7, 12, "INT32"),
    "comments_full.mtx": (3, 3, 9, "FP64"),
    "comments_west0067.mtx": (67, 67, 295, "FP64"),
}

# Every file that must be rejected, with the line the error must name.
LAGRAPH_REJECTED = {
    "mangled1.mtx": 1,  # object 'mangled'
    "mangled2.mtx": 1,  # format 'mangled'
    "mangled3.mtx": 1,  # field 'mangled'
    "mangled4.mtx": 1,  # symmetry 'mangled'
    "mangled5.mtx": 1,  # hermitian
    "mangled6.mtx": 1,  # hermitian
    "mangled7.mtx": 2,  # %%GraphBLAS type gunk
    "mangled8.mtx": 4,  # size line '3'
    "mangled9.mtx": 4,  # symmetric 3 x 4
    "mangled10.mtx": 6,  # 2 of 3 entries: the file ends on line 6
    "mangled11.mtx": 5,  # 'zero'
    "mangled12.mtx": 5,  # 2 fields where 3 are needed
    "mangled13.mtx": 7,  # column 9999 of 4
    "mangled14.mtx": 8,  # duplicate (2, 2), first on line 7
    "mangled15.mtx": 2,  # float complex
    "mangled16.mtx": 2,  # double complex
    "mangled_bool.mtx": 10,  # 2 in a bool file
    "mangled_format.mtx": 1,  # array pattern
    "mangled_int8.mtx": 8,
    "mangled_int16.mtx": 8,
    "mangled_int32.mtx": 8,
    "mangled_uint8.mtx": 9,
    "mangled_uint16.mtx": 9,
    "mangled_uint32.mtx": 9,
    "mangled_skew.mtx": 2,  # skew-symmetric uint8_t
    "complex.mtx": 1,
    "full_noheader.mtx": 1,
    "west0067_noheader.mtx": 1,
}


@pytest.mark.parametrize("name", lagraph_params("*.mtx"))
def test_every_lagraph_file_is_classified(name: str) -> None:
    """Each file is either in the accepted table or the rejected table (or a readable extra)."""
    path = lagraph(name)
    if name in LAGRAPH_REJECTED:
        with pytest.raises(FileFormatError):
            mmread(path)
    else:
        A = mmread(path)
        assert A.nrows >= 0


@pytest.mark.parametrize("name", sorted(LAGRAPH_EXPECTED))
def test_lagraph_sizes_and_types(name: str) -> None:
    path = lagraph(name)
    if not path.exists():
        pytest.skip(f"{path} is absent")
    nrows, ncols, nvals, type_name = LAGRAPH_EXPECTED[name]
    A = mmread(path)
    assert (A.nrows, A.ncols, A.nvals) == (nrows, ncols, nvals)
    assert A.dtype == gb.dtypes.lookup_dtype(type_name)


@pytest.mark.parametrize("name", sorted(LAGRAPH_REJECTED))
def test_lagraph_rejected_files_name_file_and_line(name: str) -> None:
    path = lagraph(name)
    if not path.exists():
        pytest.skip(f"{path} is absent")
    with pytest.raises(FileFormatError) as info:
        mmread(path)
    err = info.value
    assert err.path == str(path)
    assert err.line == LAGRAPH_REJECTED[name]
    assert str(path) in str(err) and f"line {err.line}:" in str(err)
    assert isinstance(err, InvalidValue)


@pytest.mark.parametrize("name", ["complex.mtx", "mangled5.mtx", "mangled6.mtx", "mangled15.mtx", "mangled16.mtx"])
def test_complex_and_hermitian_are_unsupported(name: str) -> None:
    with pytest.raises(UnsupportedFormatError, match="complex|hermitian") as info:
        mmread(lagraph(name))
    assert isinstance(info.value, NotImplementedError)


def _scipy_readable(name: str) -> bool:
    try:
        scipy_mmread(LAGRAPH / name)
    except Exception:  # noqa: BLE001 - scipy rejects some files we accept; those are tested apart
        return False
    return True


@pytest.mark.parametrize("name", accepted_params())
def test_values_match_scipy(name: str) -> None:
    path = lagraph(name)
    if not _scipy_readable(name):
        pytest.skip(f"scipy cannot read {name} (tested apart)")
    A = mmread(path)
    expected = scipy_dense(path)
    if A.dtype == gb.dtypes.FP32:  # scipy reads FP32 files as float64
        expected = expected.astype(np.float32).astype(np.float64)
    np.testing.assert_array_equal(dense_of(A), expected)
    if not sps.issparse(scipy_mmread(path)):
        return
    ref = sps.coo_array(scipy_mmread(path))
    ref.sum_duplicates()
    assert A.nvals == ref.nnz  # explicit zeros included


# ----------------------------------------------------------------------------- quirky LAGraph files


def test_graphblas_type_line_wins_over_the_field() -> None:
    """matrix_fp32/fp64 say 'integer' but hold inf: the %%GraphBLAS type line decides."""
    A = mmread(lagraph("matrix_fp32.mtx"))
    assert A.dtype == gb.dtypes.FP32
    assert A[3, 0].value == -np.inf and A[0, 1].value == np.inf
    assert mmread(lagraph("matrix_fp64.mtx")).dtype == gb.dtypes.FP64


def test_uint64_values_above_int64_max() -> None:
    A = mmread(lagraph("matrix_uint64.mtx"))
    assert A.dtype == gb.dtypes.UINT64
    assert A[0, 1].value == 2**64 - 1


@pytest.mark.parametrize("name, lo, hi", [
    ("matrix_int8.mtx", -128, 127), ("matrix_int16.mtx", -32768, 32767),
    ("matrix_int32.mtx", -(2**31), 2**31 - 1), ("matrix_int64.mtx", -9223372036854775800, 2**63 - 1),
    ("matrix_uint8.mtx", 0, 255), ("matrix_uint16.mtx", 0, 65535), ("matrix_uint32.mtx", 0, 2**32 - 1),
])
def test_integer_extremes_are_exact(name: str, lo: int, hi: int) -> None:
    A = mmread(lagraph(name))
    assert A[3, 0].value == lo and A[0, 1].value == hi


def test_bool_file_keeps_false_entries() -> None:
    A = mmread(lagraph("matrix_bool.mtx"))
    assert A.nvals == 12 and A.dtype == gb.dtypes.BOOL
    assert not A[3, 0].value and A[0, 1].value
    assert int(A.to_coo()[2].sum()) == 7


def test_comment_lines_among_entries() -> None:
    """west0067_jumbled.mtx has a '%' line after the size line; it reads as west0067."""
    A, B = mmread(lagraph("west0067_jumbled.mtx")), mmread(lagraph("west0067.mtx"))
    assert A.isequal(B, check_dtype=True)


def test_comments_files_equal_their_sources() -> None:
    assert mmread(lagraph("comments_cover.mtx")).isequal(mmread(lagraph("cover.mtx")), check_dtype=True)
    assert mmread(lagraph("comments_full.mtx")).isequal(mmread(lagraph("full.mtx")), check_dtype=True)
    w = mmread(lagraph("comments_west0067.mtx"))
    assert np.isnan(w[0, 0].value) and w.nvals == 295


def test_full_files() -> None:
    full = mmread(lagraph("full.mtx"))
    expected = np.array([[.646, .276, .162], [.709, .679, .118], [.754, .655, .498]])
    np.testing.assert_array_equal(dense_of(full), expected)
    sym = dense_of(mmread(lagraph("full_symmetric.mtx")))
    np.testing.assert_array_equal(sym, sym.T)
    assert sym[3, 0] == 22.269603729248047 and sym[3, 3] == 3.9635860919952393


def test_empty_file() -> None:
    A = mmread(lagraph("empty.mtx"))
    assert (A.nrows, A.ncols, A.nvals, A.dtype) == (3, 4, 0, gb.dtypes.INT32)


def test_cluster_files_with_three_number_array_size_line() -> None:
    A = mmread(lagraph("karate_cluster.mtx"))
    assert (A.nrows, A.ncols, A.nvals, A.dtype) == (34, 1, 34, gb.dtypes.INT64)
    assert A[0, 0].value == 11 and A[33, 0].value == 26


def test_skew_symmetric_files() -> None:
    A = dense_of(mmread(lagraph("skew_int8.mtx")))
    np.testing.assert_array_equal(A, -A.T)
    np.testing.assert_array_equal(A, scipy_dense(lagraph("skew_int8.mtx")))


def test_symmetric_pattern_is_bool_both_triangles() -> None:
    A = mmread(lagraph("karate.mtx"))
    d = dense_of(A)
    np.testing.assert_array_equal(d, d.T)
    assert A.dtype == gb.dtypes.BOOL and A.nvals == 156


# ----------------------------------------------------------------------------- hand-written files


def test_small_general_file_by_hand(tmp_path: Path) -> None:
    p = write(tmp_path, f"{BANNER} real general\n% c\n\n2 3 3\n1 1 1.5\n2 3 -2\n1 3 1e3\n")
    A = mmread(p)
    r, c, v = A.to_coo()
    assert r.tolist() == [0, 0, 1] and c.tolist() == [0, 2, 2] and v.tolist() == [1.5, 1000.0, -2.0]
    assert A.dtype == gb.dtypes.FP64 and (A.nrows, A.ncols) == (2, 3)


def test_read_from_text_and_binary_streams() -> None:
    text = f"{BANNER} integer general\n2 2 1\n2 1 7\n"
    A = mmread(io.StringIO(text))
    B = mmread(io.BytesIO(text.encode()))
    assert A.isequal(B, check_dtype=True) and A[1, 0].value == 7 and A.dtype == gb.dtypes.INT64


def test_crlf_and_case_insensitive_banner(tmp_path: Path) -> None:
    p = tmp_path / "crlf.mtx"
    p.write_bytes(b"%%MatrixMarket MATRIX Coordinate Pattern General\r\n2 2 1\r\n1 2\r\n")
    A = mmread(p)
    assert A.dtype == gb.dtypes.BOOL and A[0, 1].value and A.nvals == 1


def test_gzip_file(tmp_path: Path) -> None:
    p = tmp_path / "m.mtx.gz"
    with gzip.open(p, "wt") as f:
        f.write(f"{BANNER} real general\n1 1 1\n1 1 2.5\n")
    assert mmread(p)[0, 0].value == 2.5


def test_symmetric_upper_triangle_entries_are_mirrored(tmp_path: Path) -> None:
    p = write(tmp_path, f"{BANNER} real symmetric\n3 3 2\n1 3 4.0\n2 2 1.0\n")
    d = dense_of(mmread(p))
    assert d[0, 2] == d[2, 0] == 4.0 and d[1, 1] == 1.0 and mmread(p).nvals == 3


@pytest.mark.parametrize("body, line, words", [
    ("2 2 1\n0 1 1.0\n", 3, "row index 0 is out of range 1..2"),
    ("2 2 1\n1 3 1.0\n", 3, "column index 3 is out of range 1..2"),
    ("2 2 1\n-1 1 1.0\n", 3, "out of range"),
    ("2 2 1\n1 1 abc\n", 3, "'abc' is not a number"),
    ("2 2 1\n1.5 1 1\n", 3, "not an integer"),
    ("2 2 2\n1 1 1\n2 2 1 7\n", 4, "expected 3 fields on each line, found 4"),
    ("2 2 1\n1 1 1\n2 2 1\n", 4, "more entries than the 1"),
    ("2 2 x\n", 2, "size line"),
    ("2 2\n", 2, "size line"),
    ("2 -2 0\n", 2, "size line"),
    ("", 1, "missing the size line"),
    ("% only a comment\n\n", 3, "missing the size line"),
])
def test_malformed_real_general(tmp_path: Path, body: str, line: int, words: str) -> None:
    p = write(tmp_path, f"{BANNER} real general\n" + body)
    with pytest.raises(FileFormatError, match=words) as info:
        mmread(p)
    assert info.value.line == line and info.value.path == str(p)
    assert f"{p}, line {line}:" in str(info.value)


@pytest.mark.parametrize("text, line, words", [
    ("", 1, "banner"),
    ("3 3 1\n1 1 1\n", 1, "banner"),
    ("%%MatrixMarket vector coordinate real general\n3 1\n", 1, "object 'vector'"),
    ("%%MatrixMarket matrix coordinate real\n", 1, "banner must be"),
    (f"{BANNER} pattern general\n2 2 1\n1 1 1\n", 3, "expected 2 fields"),
    (f"{BANNER} pattern skew-symmetric\n2 2 1\n2 1\n", 1, "pattern skew-symmetric"),
    (f"{BANNER} real skew-symmetric\n2 2 1\n1 1 5\n", 3, "zero diagonal"),
    (f"{BANNER} real symmetric\n2 2 2\n2 1 1\n1 2 1\n", 4, "duplicate entry .* line 3 .*symmetric"),
    (f"{BANNER} integer general\n1 1 1\n1 1 9223372036854775808\n", 3, "out of range for INT64"),
    (f"{BANNER} integer general\n%%GraphBLAS type int8_t\n1 1 1\n1 1 3.5\n", 4, "not an integer"),
    (f"{BANNER} integer general\n%%GraphBLAS type\n1 1 1\n1 1 3\n", 2, "unknown %%GraphBLAS type"),
    ("%%MatrixMarket matrix array real general\n2 2 3\n1\n2\n3\n4\n", 2, "not nrows \\* ncols"),
    ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 5, "ends after 3 of the 4"),
    ("%%MatrixMarket matrix array real general\n2 2\n1 2\n3 4\n", 3, "expected 1 fields"),
])
def test_malformed_headers_and_entries(tmp_path: Path, text: str, line: int, words: str) -> None:
    p = write(tmp_path, text)
    with pytest.raises(FileFormatError, match=words) as info:
        mmread(p)
    assert info.value.line == line


def test_not_utf8(tmp_path: Path) -> None:
    p = tmp_path / "bin.mtx"
    p.write_bytes(b"%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 \xff\n")
    with pytest.raises(FileFormatError, match="UTF-8"):
        mmread(p)


def test_error_pickles() -> None:
    e = FileFormatError("bad", "x.mtx", 3)
    f = pickle.loads(pickle.dumps(e))
    assert (f.reason, f.path, f.line, str(f)) == ("bad", "x.mtx", 3, "x.mtx, line 3: bad")


def test_duplicates_combined_with_dup_op(tmp_path: Path) -> None:
    p = write(tmp_path, f"{BANNER} real general\n2 2 3\n1 1 1\n1 1 2\n2 2 5\n")
    A = mmread(p, dup_op=gb.binary.plus)
    assert A[0, 0].value == 3.0 and A.nvals == 2


def test_dtype_argument(tmp_path: Path) -> None:
    p = write(tmp_path, f"{BANNER} pattern general\n2 2 1\n1 2\n")
    A = mmread(p, dtype="FP64")
    assert A.dtype == gb.dtypes.FP64 and A[0, 1].value == 1.0
    q = write(tmp_path, f"{BANNER} integer general\n1 1 1\n1 1 18446744073709551615\n", "u.mtx")
    assert mmread(q, dtype=gb.dtypes.UINT64)[0, 0].value == 2**64 - 1
    r = write(tmp_path, f"{BANNER} real general\n1 1 1\n1 1 -2.7\n", "r.mtx")
    assert mmread(r, dtype="INT32")[0, 0].value == -2  # C-style truncation


def test_backend_argument() -> None:
    A = mmread(io.StringIO(f"{BANNER} real general\n1 1 1\n1 1 1\n"), backend="numpy")
    assert getattr(A.backend, "name", A.backend) == "numpy"


def test_mminfo() -> None:
    h = mminfo(io.StringIO(f"{BANNER} integer symmetric\n%%GraphBLAS type int16_t\n% hello\n4 4 2\n1 1 1\n2 1 1\n"))
    assert (h.format, h.field, h.symmetry) == ("coordinate", "integer", "symmetric")
    assert (h.nrows, h.ncols, h.nentries) == (4, 4, 2)
    assert h.dtype == gb.dtypes.INT16 and h.graphblas_type and h.comments == [" hello"]


def test_larger_random_file_matches_scipy(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    n, m = 3000, 200_000
    keys = rng.choice(n * n, m, replace=False)
    rows, cols, vals = keys // n, keys % n, rng.standard_normal(m)
    A = gb.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n)
    p = tmp_path / "big.mtx"
    mmwrite(p, A, symmetric=False)
    B = mmread(p)
    assert B.isequal(A, check_dtype=True)
    ref = sps.csr_array(scipy_mmread(p))
    ptr, idx, v = B.to_csr()
    np.testing.assert_array_equal(ptr, ref.indptr)
    np.testing.assert_array_equal(idx, ref.indices)
    np.testing.assert_array_equal(v, ref.data)


# ----------------------------------------------------------------------------- writing

TYPES = ["BOOL", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "FP32", "FP64"]


def _random_matrix(type_name: str, nrows: int = 9, ncols: int = 7, seed: int = 0) -> gb.Matrix:
    rng = np.random.default_rng(seed)
    t = gb.dtypes.lookup_dtype(type_name)
    keys = rng.choice(nrows * ncols, 25, replace=False)
    if t.is_bool:
        vals = rng.random(25) < 0.5
    elif t.is_float:
        vals = rng.standard_normal(25).astype(t.np_type) * 1e3
        vals[:3] = [np.inf, -np.inf, 0.0]
    else:
        vals = rng.integers(int(t.min), int(t.max), 25, dtype=t.np_type, endpoint=True)
        vals[:2] = [t.min, t.max]
    return gb.Matrix.from_coo(keys // ncols, keys % ncols, vals, nrows=nrows, ncols=ncols, dtype=t)


@pytest.mark.parametrize("type_name", TYPES)
def test_round_trip_every_type(tmp_path: Path, type_name: str) -> None:
    A = _random_matrix(type_name)
    p = tmp_path / "a.mtx"
    mmwrite(p, A)
    B = mmread(p)
    assert B.isequal(A, check_dtype=True)
    if type_name == "UINT64":
        return  # scipy cannot read values above INT64_MAX
    ref = np.asarray(scipy_mmread(p).toarray()).astype(A.dtype.np_type).astype(np.float64)
    np.testing.assert_array_equal(ref, dense_of(A))


def test_round_trip_nan(tmp_path: Path) -> None:
    A = gb.Matrix.from_coo([0, 1], [1, 0], [np.nan, 2.0], nrows=2, ncols=2)
    buf = io.StringIO()
    mmwrite(buf, A, symmetric=False)
    buf.seek(0)
    B = mmread(buf)
    assert np.isnan(B[0, 1].value) and B[1, 0].value == 2.0


def test_write_header_and_comment() -> None:
    A = gb.Matrix.from_coo([0, 2], [1, 0], [1, 2], nrows=3, ncols=3, dtype="INT16")
    buf = io.StringIO()
    mmwrite(buf, A, comment="first\nsecond")
    lines = buf.getvalue().splitlines()
    assert lines[:5] == [
        "%%MatrixMarket matrix coordinate integer general",
        "%%GraphBLAS type int16_t",
        "% first",
        "% second",
        "3 3 2",
    ]
    assert lines[5:] == ["1 2 1", "3 1 2"]


def test_write_symmetric_detected_and_forced(tmp_path: Path) -> None:
    S = gb.Matrix.from_coo([0, 1, 2, 1], [1, 0, 2, 2], [5.0, 5.0, 1.0, 7.0], nrows=3, ncols=3)
    with pytest.raises(InvalidValue, match="not symmetric"):
        mmwrite(tmp_path / "x.mtx", S, symmetric=True)
    T = gb.Matrix.from_coo([0, 1, 2], [1, 0, 2], [5.0, 5.0, 1.0], nrows=3, ncols=3)
    p = tmp_path / "t.mtx"
    mmwrite(p, T)
    h = mminfo(p)
    assert h.symmetry == "symmetric" and h.nentries == 2
    assert mmread(p).isequal(T, check_dtype=True)
    np.testing.assert_array_equal(scipy_dense(p), dense_of(T))
    mmwrite(p, T, symmetric=False)
    assert mminfo(p).symmetry == "general" and mminfo(p).nentries == 3


def test_write_bool_pattern_or_integer() -> None:
    P = gb.Matrix.from_coo([0, 1], [1, 0], [True, True], nrows=2, ncols=3, dtype="BOOL")
    buf = io.StringIO()
    mmwrite(buf, P)
    assert buf.getvalue().startswith("%%MatrixMarket matrix coordinate pattern general\n%%GraphBLAS type bool\n")
    F = gb.Matrix.from_coo([0, 1], [1, 0], [True, False], nrows=2, ncols=3, dtype="BOOL")
    buf = io.StringIO()
    mmwrite(buf, F)
    assert "coordinate integer general" in buf.getvalue() and buf.getvalue().endswith("1 2 1\n2 1 0\n")
    buf.seek(0)
    assert mmread(buf).isequal(F, check_dtype=True)


def test_write_fp32_round_trips_exactly() -> None:
    vals = np.array([0.1, 1 / 3, 3.4028235e38, 1e-45], dtype=np.float32)
    A = gb.Matrix.from_coo([0, 1, 2, 3], [0, 1, 2, 3], vals, nrows=4, ncols=4, dtype="FP32")
    buf = io.StringIO()
    mmwrite(buf, A)
    buf.seek(0)
    assert mmread(buf).isequal(A, check_dtype=True)


def test_write_empty(tmp_path: Path) -> None:
    A = gb.Matrix(gb.dtypes.FP64, 0, 5)
    p = tmp_path / "e.mtx"
    mmwrite(p, A)
    B = mmread(p)
    assert (B.nrows, B.ncols, B.nvals, B.dtype) == (0, 5, 0, gb.dtypes.FP64)


def test_coo_level_write_in_chunks() -> None:
    text = f"{BANNER} integer general\n%%GraphBLAS type int32_t\n4 3 7\n" + "".join(
        f"{i} {j} {i * 10 + j}\n" for i, j in [(1, 1), (1, 3), (2, 2), (3, 1), (3, 2), (4, 1), (4, 3)]
    )
    coo, header = parse_matrix_market(io.StringIO(text))
    assert header.dtype == gb.dtypes.INT32 and coo.rows.tolist() == [0, 0, 1, 2, 2, 3, 3]
    buf = io.StringIO()
    write_matrix_market(buf, coo, chunk=3)  # several chunks
    assert buf.getvalue() == text


@pytest.mark.parametrize("name", accepted_params())
def test_lagraph_round_trip(tmp_path: Path, name: str) -> None:
    A = mmread(lagraph(name))
    p = tmp_path / name
    mmwrite(p, A)
    assert_same(mmread(p), A)
