"""Matrix Market files of integers only read by fast_matrix_market: the same entries as scipy
and the pure path, and every file it would misread (a token with more after it, an extra or a
missing field, a sign, a value outside the type) handed to the usual path and its error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import grblas_gpu.io as gio
from grblas_gpu.io import FileFormatError, _chunks, _compiled, _fmm

pytest.importorskip("fast_matrix_market")
pytest.importorskip("pyarrow")
scipy_io = pytest.importorskip("scipy.io")


@pytest.fixture(autouse=True)
def _without_the_compiled_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """fast_matrix_market is tried only where the compiled parser is off (it is faster)."""
    monkeypatch.setattr(_compiled, "COMPILED", False)


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "m.mtx"
    p.write_text(text)
    return p


def read_both(p: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    """What fast_matrix_market's path and the pure path give (a Matrix's entries, or the error)."""
    out = []
    for fast in (True, False):
        monkeypatch.setattr(_chunks, "FAST", fast)
        try:
            coo, _ = gio.parse_matrix_market(p)
            out.append((coo.rows.tolist(), coo.cols.tolist(), coo.values.tolist(), str(coo.dtype)))
        except FileFormatError as e:
            out.append((type(e).__name__, e.line, e.reason))
    return out[0], out[1]


@pytest.mark.parametrize("field", ["pattern", "integer"])
@pytest.mark.parametrize("symmetry", ["general", "symmetric"])
@pytest.mark.parametrize("sep", [" ", "\t"])
def test_integer_files_match_scipy(tmp_path: Path, field: str, symmetry: str, sep: str,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(len(field) + len(symmetry) + len(sep))
    n = 60
    keys = rng.choice(n * n, 400, replace=False)
    r, c = keys // n, keys % n
    if symmetry == "symmetric":
        r, c = np.maximum(r, c), np.minimum(r, c)
        _, first = np.unique(r * n + c, return_index=True)
        r, c = r[np.sort(first)], c[np.sort(first)]
    v = rng.integers(0, 1000, len(r))
    body = "".join(f"{a + 1}{sep}{b + 1}" + ("" if field == "pattern" else f"{sep}{x:03d}") + "\n"
                   for a, b, x in zip(r.tolist(), c.tolist(), v.tolist()))
    p = write(tmp_path, f"%%MatrixMarket matrix coordinate {field} {symmetry}\n% c\n{n} {n} {len(r)}\n{body}")
    called = []
    original = _fmm.read_integers
    monkeypatch.setattr(_fmm, "read_integers", lambda *a: called.append(original(*a)) or called[-1])
    A = gio.mmread(p, backend="numpy")
    assert called and called[0] is not None  # fast_matrix_market answered
    want = scipy_io.mmread(p).toarray()
    np.testing.assert_array_equal(A.to_dense(fill_value=0), want)
    fast, pure = read_both(p, monkeypatch)
    assert fast == pure


@pytest.mark.parametrize("field, body", [
    ("pattern", "1 1\n2 2 1\n3 3\n"),    # an extra field (fast_matrix_market ignores it)
    ("integer", "1 1 5\n2 2 3 4\n3 3 1\n"),
    ("integer", "1 1 5\n2 2\n3 3 1 1\n"),  # one short line, one long: the token count alone agrees
    ("pattern", "1 1\n2 2x\n3 3\n"),     # a token with more after it
    ("integer", "1 1 5\n2 2 1-2\n3 3 1\n"),
    ("integer", "1 1 5\n2 2 -2\n3 3 1\n"),  # a sign: not digits only (read by the usual path)
    ("pattern", "1 1\n0 2\n3 3\n"),      # out of range
    ("pattern", "1 1\n2 2\n\n3 3\n"),    # a blank line among the entries
    ("pattern", "1 1\n% note\n2 2\n3 3\n"),
    ("integer", "1 1 5\n2 2 99999999999999999999\n3 3 1\n"),  # past int64
    ("pattern", "1 1\n2 2\n"),            # fewer entries than declared
    ("pattern", "1 1\n2 2\n3 3\n1 2\n"),  # more
    ("pattern", "1 1\n2 2\n1 1\n"),       # a repeat
    ("pattern", "1 1\n2\t2\n3 3\n"),      # space and tab
])
def test_what_it_would_misread_goes_to_the_usual_path(tmp_path: Path, field: str, body: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    p = write(tmp_path, f"%%MatrixMarket matrix coordinate {field} general\n3 3 3\n{body}")
    fast, pure = read_both(p, monkeypatch)
    assert fast == pure


def test_a_value_outside_the_type_names_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = write(tmp_path, "%%MatrixMarket matrix coordinate integer general\n%%GraphBLAS type int8_t\n"
                        "3 3 3\n1 1 5\n2 2 300\n3 3 1\n")
    fast, pure = read_both(p, monkeypatch)
    assert fast == pure and fast[1] == 5


@pytest.mark.parametrize("type_name", ["bool", "uint8_t", "float", "double"])
def test_integer_files_of_other_types(tmp_path: Path, type_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    big = "16777217" if type_name == "float" else "1"  # 2**24 + 1 rounds in FP32
    p = write(tmp_path, f"%%MatrixMarket matrix coordinate integer general\n%%GraphBLAS type {type_name}\n"
                        f"3 3 3\n1 1 1\n2 2 0\n3 3 {big}\n")
    fast, pure = read_both(p, monkeypatch)
    assert fast == pure


@pytest.mark.parametrize("data, width, ok", [
    (b"1 2\n3 4\n", 2, True),
    (b"1\t2\n3\t4\n", 2, True),
    (b"1 2\n3 4", 2, False),          # no final line break
    (b"1 2\n3\t4\n", 2, False),       # two separators
    (b"1 2 3\n4\n", 2, True),         # the count agrees: fast_matrix_market rejects the short line
    (b"1 2\n\n", 2, False),
    (b"1 2\r\n", 2, False),
    (b"1 -2\n", 2, False),
    (b"1 2.0\n", 2, False),
    (b"", 2, False),
])
def test_integers_only(data: bytes, width: int, ok: bool) -> None:
    assert _fmm.integers_only(data, width) == ok
