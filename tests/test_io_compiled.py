"""The compiled strict parser (grblas_gpu.io._cparse): numbers bit for bit as Python reads them,
every token outside the format declined, and whole files read exactly as the pure path and the
independent readers (scipy.io.mmread, numpy.loadtxt) read them.  Skipped where it is not built."""

from __future__ import annotations

import math
import struct
import threading
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from conftest import scipy_mmread

import grblas_gpu.io as gio
from grblas_gpu.io import _chunks, _compiled

_cparse = pytest.importorskip("grblas_gpu.io._cparse", reason="the compiled parser is not built")


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled parser on, pyarrow off (what it declines goes to the pure path)."""
    monkeypatch.setattr(_chunks, "FAST", True)
    monkeypatch.setattr(_compiled, "COMPILED", True)
    monkeypatch.setattr(_chunks, "_pacsv", None)
    monkeypatch.delenv("GRBLAS_GPU_PURE_READERS", raising=False)
    monkeypatch.delenv("GRBLAS_GPU_COMPILED_READERS", raising=False)


def parse(text: bytes, kinds: bytes, comments: tuple[bytes, ...] = ()) -> tuple[int, list[np.ndarray], np.ndarray]:
    n = text.count(b"\n") + 1
    columns = [np.full(n, -7, np.int64 if k == ord("i") else np.float64) for k in kinds]
    lines = np.zeros(n, np.int64)
    found, line_count = _cparse.parse(text, kinds, comments, columns, lines, 1)
    assert line_count == (text.count(b"\n") + (bool(text) and not text.endswith(b"\n")) if found >= 0 else 0)
    return found, [c[: max(found, 0)] for c in columns], lines


def floats(tokens: list[str]) -> np.ndarray | None:
    found, (col,), _ = parse("\n".join(tokens).encode(), b"f")
    return col if found == len(tokens) else None


def same_bits(a: float, b: float) -> bool:
    return struct.pack("<d", a) == struct.pack("<d", b)


# ----------------------------------------------------------------------------- tokens


ACCEPTED = ["0", "-0", "-0.0", "+0.0", "1", "1.", ".5", "+.5", "-.5e-3", "5.e3", "1e5", "1E+05", "1e-05", "007.50",
            "nan", "-nan", "+NaN", "inf", "-inf", "+Infinity", "INFINITY", "1e-400", "0e999999", "4.9e-324",
            "2.2250738585072011e-308", "1.7976931348623157e308", "9007199254740993", "123456789012345678901234567890",
            "0.1", "0.30000000000000004", "1e22", "1e23", "-1.2345678901234567e-7"]
DECLINED = ["+", "-", ".", "e5", ".e5", "1e", "1e+", "1e-", "1.5.5", "1..5", "1e5e5", "1e5.5", "1.5e-3.2", "1+2",
            "1-2", "0x10", "1_0", "1.5abc", "infx", "infinit", "nanx", "in", "1e999999", "-1e309", "1,5", "1d5",
            "\u0661".encode().decode("latin-1"), "1.0f", "--1", "+-1", "1e--5"]


@pytest.mark.parametrize("token", ACCEPTED)
def test_accepted_floats_as_python_reads_them(token: str) -> None:
    got = floats([token])
    assert got is not None
    assert same_bits(float(got[0]), float(np.array([token], dtype=np.float64)[0]))


@pytest.mark.parametrize("token", DECLINED)
def test_tokens_outside_the_format_are_declined(token: str) -> None:
    assert floats(["1", token]) is None
    assert parse(f"1 {token}\n".encode(), b"ii")[0] == -1


def test_valid_tokens_it_declines_are_read_by_the_pure_path(tmp_path: Path, compiled: None) -> None:
    assert floats(["1e0000000000000000000005"]) is None  # (more than 19 digits: declined)
    path = tmp_path / "d.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n"
                    "000000000000000000001 1 1e0000000000000000000005\n2 2 -0.5\n")
    A = gio.mmread(path, backend="numpy")
    assert A[0, 0].value == 1e5 and A[1, 1].value == -0.5


@pytest.mark.parametrize("token", ["1.0", "1e2", "9223372036854775808", "-9223372036854775809", "1 2", "12a",
                                   "00000000000000000001", "inf", "nan", "+", "--5"])
def test_integers_outside_int64_or_the_format_are_declined(token: str) -> None:
    assert parse(f"5\n{token}\n".encode(), b"i")[0] == -1


def test_integer_extremes() -> None:
    tokens = ["9223372036854775807", "-9223372036854775808", "+5", "-0", "007", "0"]
    found, (col,), _ = parse("\n".join(tokens).encode(), b"i")
    assert found == len(tokens) and col.tolist() == [int(t) for t in tokens]


def test_random_integers() -> None:
    rng = np.random.default_rng(5)
    values = np.concatenate([rng.integers(-(2**63), 2**63 - 1, 2000, dtype=np.int64, endpoint=True),
                             rng.integers(-1000, 1000, 2000)])
    found, (col,), _ = parse("\n".join(map(str, values.tolist())).encode(), b"i")
    assert found == len(values) and np.array_equal(col, values)


def _random_decimal(rng: np.random.Generator) -> str:
    digits = "".join(rng.choice(list("0123456789"), int(rng.integers(1, 26))))
    point = int(rng.integers(0, len(digits) + 1))
    mantissa = digits[:point] + "." + digits[point:] if rng.random() < 0.8 else digits
    if mantissa in (".",):
        mantissa = "0"
    exponent = f"e{int(rng.integers(-330, 310))}" if rng.random() < 0.5 else ""
    sign = rng.choice(["", "-", "+"])
    return f"{sign}{mantissa}{exponent}"


def test_random_decimals_round_as_python_does() -> None:
    rng = np.random.default_rng(7)
    tokens = [_random_decimal(rng) for _ in range(20000)]
    tokens = [t for t in tokens if math.isfinite(float(t))]  # (an overflow is declined: tested above)
    got = floats(tokens)
    assert got is not None
    expected = np.array([float(t) for t in tokens])
    assert np.array_equal(got.view(np.uint64), expected.view(np.uint64))


def test_random_doubles_round_trip() -> None:
    rng = np.random.default_rng(11)
    bits = rng.integers(0, 2**64 - 1, 20000, dtype=np.uint64, endpoint=True)
    values = bits.view(np.float64)
    values = values[np.isfinite(values)]
    values = np.concatenate([values, rng.standard_normal(20000), rng.standard_normal(5000) * 1e-300])
    for fmt in (repr, lambda x: f"{x:.17g}", lambda x: f"{x:.20e}", lambda x: f"{x:.16e}"):
        tokens = [fmt(float(v)) for v in values]
        got = floats(tokens)
        assert got is not None
        assert np.array_equal(got.view(np.uint64), np.array([float(t) for t in tokens]).view(np.uint64))


def _with_point(units: int, k: int) -> str:
    """``units * 10**-k`` written out (``k`` digits after the point)."""
    digits = str(units).rjust(k + 1, "0")
    return f"{digits[: len(digits) - k]}.{digits[len(digits) - k :]}" if k else digits


def _halfway_tokens(rng: np.random.Generator, count: int) -> list[str]:
    """Decimals of at most 19 digits exactly halfway between two neighbouring doubles (the
    rounding a 64-bit intermediate cannot settle), and one unit of their last digit either side."""
    out: list[str] = []
    while len(out) < count:
        x = float(2.0 ** rng.uniform(49, 63.9))
        half = (Fraction(x) + Fraction(float(np.nextafter(x, np.inf)))) / 2
        k = half.denominator.bit_length() - 1  # half = n / 2**k: exactly k decimals
        units = half.numerator * 5**k
        if len(str(units)) > 19:
            continue
        out += [_with_point(units + step, k) for step in (0, -1, 1)]
    return out


def test_halfway_cases_round_to_even() -> None:
    tokens = ["9007199254740993", "9007199254740995", "18014398509481989", "1.00000000000000011102230246251565404",
              *_halfway_tokens(np.random.default_rng(3), 300)]
    got = floats(tokens)
    assert got is not None
    assert np.array_equal(got.view(np.uint64), np.array([float(t) for t in tokens]).view(np.uint64))


# ----------------------------------------------------------------------------- lines


def test_blank_comment_and_crlf_lines() -> None:
    text = b"% head\r\n1 2 0.5\r\n\r\n  \t\n  % indented comment \xff\n3\t4  -inf \n5 6 7e1"
    found, (r, c, v), lines = parse(text, b"iif", (b"%",))
    assert found == 3 and r.tolist() == [1, 3, 5] and c.tolist() == [2, 4, 6]
    assert v.tolist() == [0.5, -np.inf, 70.0] and lines[:3].tolist() == [2, 6, 7]


def test_a_comment_after_a_carriage_return_is_declined() -> None:
    """The pure path strips only [ \\t\\f\\v] before a comment prefix: a line "\\r%..." is data."""
    assert parse(b"1 2\n\r% x\n", b"ii", (b"%",))[0] == -1


@pytest.mark.parametrize("line", [b"1 2 3", b"1", b"1 2x", b"1,2", b"1\x002", b"1 2\x1c", b"1 \xc2\xa02", b"_1 2"])
def test_lines_that_are_not_exactly_the_fields_are_declined(line: bytes) -> None:
    assert parse(b"7 8\n" + line + b"\n", b"ii")[0] == -1


def test_multi_byte_comment_prefixes() -> None:
    found, (r,), _ = parse(b"// c\n1\n#x\n2\n", b"i", (b"//", b"#"))
    assert found == 2 and r.tolist() == [1, 2]


def test_parse_releases_the_interpreter_for_threads() -> None:
    text = b"".join(b"%d %d %d.25\n" % (i, i + 1, i) for i in range(20000))
    results: list[tuple] = []

    def work() -> None:
        found, cols, _ = parse(text, b"iif")
        results.append((found, [c.tobytes() for c in cols]))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4 and all(r == results[0] for r in results) and results[0][0] == 20000


def test_count_newlines() -> None:
    for data in (b"", b"a", b"\n", b"a\nb\n\nc", bytes(np.random.default_rng(1).integers(0, 256, 10000, np.uint8))):
        assert _compiled.count_newlines(data) == data.count(b"\n")


def test_switches(monkeypatch: pytest.MonkeyPatch, compiled: None) -> None:
    assert _compiled.available()
    monkeypatch.setenv("GRBLAS_GPU_COMPILED_READERS", "0")
    assert not _compiled.available()
    monkeypatch.delenv("GRBLAS_GPU_COMPILED_READERS")
    monkeypatch.setenv("GRBLAS_GPU_PURE_READERS", "1")
    assert not _compiled.available()


# ----------------------------------------------------------------------------- whole files


def _write_mm(path: Path, rng: np.random.Generator, field: str, symmetry: str, n: int, big: bool,
              crlf: bool, trailing_newline: bool, comments: bool = True) -> None:
    size = 2**40 if big else 50
    rows = rng.integers(1, size + 1, n)
    cols = rng.integers(1, size + 1, n)
    if symmetry != "general":
        rows, cols = np.maximum(rows, cols), np.minimum(rows, cols)
        if symmetry == "skew-symmetric":
            keep = rows != cols
            rows, cols = rows[keep], cols[keep]
    keys = np.unique(rows.astype(object) * (size + 1) + cols.astype(object))
    rows = [int(k // (size + 1)) for k in keys]
    cols = [int(k % (size + 1)) for k in keys]
    order = rng.permutation(len(rows))
    specials = ["-0.0", "1e308", "-1.7976931348623157e308", "nan", "-inf", "Infinity", "4.9e-324", "1e-400"]
    lines = []
    for k, i in enumerate(order):
        if field == "pattern":
            value = ""
        elif field == "integer":
            value = f" {int(rng.integers(-(2**62), 2**62))}"
        else:
            value = f" {specials[k % len(specials)]}" if k % 5 == 0 else f" {float(rng.standard_normal()) * 1e5!r}"
        lines.append(f"{rows[i]} {cols[i]}{value}")
        if k % 7 == 3 and comments:  # (scipy does not take them)
            lines.append("% a comment among the entries")
        if k % 11 == 5:
            lines.append("")
    nl = "\r\n" if crlf else "\n"
    text = nl.join([f"%%MatrixMarket matrix coordinate {field} {symmetry}", "% random",
                    f"{size} {size} {len(rows)}", *lines])
    path.write_bytes((text + (nl if trailing_newline else "")).encode())


def _coo_bytes(coo: gio.parse_matrix_market) -> tuple:  # type: ignore[valid-type]
    return (coo.nrows, coo.ncols, coo.rows.tobytes(), coo.cols.tobytes(), coo.values.dtype, coo.values.tobytes())


@pytest.mark.parametrize("field, symmetry", [("real", "general"), ("integer", "general"), ("pattern", "general"),
                                             ("real", "symmetric"), ("integer", "skew-symmetric"),
                                             ("real", "skew-symmetric"), ("pattern", "symmetric")])
@pytest.mark.parametrize("seed", [0, 1])
def test_matrix_market_as_the_pure_path_and_scipy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiled: None,
                                                  field: str, symmetry: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    path = tmp_path / "m.mtx"
    _write_mm(path, rng, field, symmetry, 300, big=seed == 1, crlf=seed == 0, trailing_newline=seed == 1)
    for chunk in (_chunks.CHUNK_BYTES, 64):
        monkeypatch.setattr(_chunks, "CHUNK_BYTES", chunk)
        ours, _ = gio.parse_matrix_market(path)
        monkeypatch.setattr(_chunks, "FAST", False)
        pure, _ = gio.parse_matrix_market(path)
        monkeypatch.setattr(_chunks, "FAST", True)
        assert _coo_bytes(ours) == _coo_bytes(pure)
    if seed == 0:  # (the 2**40 x 2**40 files are compared with the pure path only)
        _write_mm(path, np.random.default_rng(seed), field, symmetry, 300, big=False, crlf=True,
                  trailing_newline=False, comments=False)
        ref = scipy_mmread(path).tocoo()
        A = gio.mmread(path, backend="numpy")
        r, c, v = (np.asarray(x) for x in A.to_coo())
        expected = sorted(zip(ref.row.tolist(), ref.col.tolist(), np.asarray(ref.data).tolist()))
        got = sorted(zip(r.tolist(), c.tolist(), v.tolist()))
        assert len(got) == len(expected)
        for (i, j, x), (p, q, y) in zip(got, expected):
            assert (i, j) == (p, q) and (x == y or (math.isnan(x) and math.isnan(y)))


@pytest.mark.parametrize("trailing_newline", [True, False])
def test_empty_matrix_market_body(tmp_path: Path, compiled: None, trailing_newline: bool) -> None:
    path = tmp_path / "e.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real general\n3 4 0\n% only a comment" +
                    ("\n" if trailing_newline else ""))
    A = gio.mmread(path, backend="numpy")
    assert (A.nrows, A.ncols, A.nvals) == (3, 4, 0)


@pytest.mark.parametrize("weighted", [False, True])
def test_edge_list_as_the_pure_path_and_loadtxt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiled: None,
                                                weighted: bool) -> None:
    rng = np.random.default_rng(4)
    src, dst = rng.integers(0, 2**40, 500), rng.integers(0, 2**40, 500)
    weights = rng.standard_normal(500)
    lines = ["# a SNAP header", "# FromNodeId\tToNodeId"]
    for k, (a, b, w) in enumerate(zip(src.tolist(), dst.tolist(), weights.tolist())):
        lines.append(f"{a}\t{b}\t{w!r}" if weighted else f"{a}\t{b}")
        if k % 9 == 4:
            lines.append("# in between")
    path = tmp_path / "g.txt"
    path.write_text("\n".join(lines) + "\n")
    reference = np.loadtxt(path, comments="#", dtype=np.float64 if weighted else np.int64, ndmin=2)
    for chunk in (_chunks.CHUNK_BYTES, 100):
        monkeypatch.setattr(_chunks, "CHUNK_BYTES", chunk)
        ours = gio.parse_edgelist(path)
        monkeypatch.setattr(_chunks, "FAST", False)
        pure = gio.parse_edgelist(path)
        monkeypatch.setattr(_chunks, "FAST", True)
        assert _coo_bytes(ours.coo) == _coo_bytes(pure.coo) and ours.ids.tobytes() == pure.ids.tobytes()
    ids = ours.ids
    got = {(int(ids[i]), int(ids[j])) for i, j in zip(ours.coo.rows.tolist(), ours.coo.cols.tolist())}
    assert got == {(int(a), int(b)) for a, b in reference[:, :2].astype(np.int64).tolist()}
    if weighted:
        first = {}
        for a, b, w in reference.tolist():
            first.setdefault((int(a), int(b)), w)
        weight_of = {(int(ids[i]), int(ids[j])): w for i, j, w in
                     zip(ours.coo.rows.tolist(), ours.coo.cols.tolist(), ours.coo.values.tolist())}
        assert weight_of == first


def test_graphalytics_as_the_pure_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiled: None) -> None:
    rng = np.random.default_rng(8)
    ids = np.unique(rng.integers(0, 10**12, 200))
    (tmp_path / "g.v").write_text("\n".join(map(str, ids.tolist())) + "\n")
    edges = rng.choice(ids, (600, 2))
    (tmp_path / "g.e").write_text("".join(f"{a} {b} {float(w)!r}\n" for (a, b), w in
                                          zip(edges.tolist(), rng.random(600))))
    (tmp_path / "g.properties").write_text("graph.g.directed = true\n")
    ours = gio.read_graphalytics(tmp_path / "g", backend="numpy")
    monkeypatch.setattr(_chunks, "FAST", False)
    pure = gio.read_graphalytics(tmp_path / "g", backend="numpy")
    assert [np.asarray(x).tobytes() for x in ours.matrix.to_coo()] == \
        [np.asarray(x).tobytes() for x in pure.matrix.to_coo()]
    assert np.array_equal(ours.ids, ids)
