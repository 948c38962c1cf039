"""Fuzzing the readers: random and mutated Matrix Market, edge-list and Graphalytics files.

Whatever the bytes, a reader returns or raises a grblas_gpu exception (a FileFormatError
naming the line, mostly), never a raw Python one, and never hangs.  The compiled parser,
pyarrow and the pure path give the same answer: the same entries, or the same exception on the same line; in
chunks of any size the entries are the same, and a bad file is still rejected.
Bounded and repeatable: 200 examples a reader, derandomized.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import grblas_gpu as gb  # noqa: E402
from grblas_gpu.exceptions import GraphBLASError  # noqa: E402
from grblas_gpu.io import _chunks, _compiled  # noqa: E402

FUZZ = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
SECONDS = 20  # per example: far above what any of these small files takes
CHUNK = _chunks.CHUNK_BYTES
CHUNKS = st.sampled_from([CHUNK, 1, 9, 40])  # one chunk, a line a chunk, boundaries anywhere

PIECES = [
    b"0", b"1", b"2", b"7", b"9", b"10", b"-1", b"+1", b"-", b".", b"e", b"E", b"1.5", b"-2.5e3", b"1e999999",
    b"1e-400", b"inf", b"-inf", b"nan", b"Infinity", b"_", b"1_0", b"0x10", b"abc", b" ", b"  ", b"\t", b"\n",
    b"\n\n", b"\r\n", b"\r", b"%", b"% comment\n", b"#", b"# comment\n", b",", b";", b"\x00", b"\xff", b"\xe9",
    "\u0661".encode(), "\uff11".encode(), b"9223372036854775808", b"18446744073709551616", b"1152921504606846977",
    b"%%GraphBLAS type int8_t\n", b"%%GraphBLAS type 4 991\n", b"%%GraphBLAS type float\n",
    b"%%MatrixMarket matrix coordinate real general\n", b"%%MatrixMarket matrix array integer skew-symmetric\n",
    b"symmetric", b"pattern", b"integer", b"array", b"complex", b"hermitian", b"-128", b"255", b"256",
]

MM_SEEDS = [
    b"%%MatrixMarket matrix coordinate real general\n% c\n3 4 3\n1 1 1.5\n3 4 -2\n2 2 1e3\n",
    b"%%MatrixMarket matrix coordinate integer symmetric\n%%GraphBLAS type int16_t\n3 3 3\n1 1 5\n2 1 -7\n3 2 9\n",
    b"%%MatrixMarket matrix coordinate pattern general\n4 4 3\n1 2\n2 3\n4 1\n",
    b"%%MatrixMarket matrix array real skew-symmetric\n3 3\n1.5\n-2\n4\n",
    b"%%MatrixMarket matrix array integer general\n2 2\n1\n2\n3\n4\n",
    b"%%MatrixMarket matrix coordinate real skew-symmetric\n%%GraphBLAS type double\n3 3 2\n2 1 0.5\n3 1 inf\n",
]
EDGE_SEEDS = [
    b"# Directed graph\n# FromNodeId\tToNodeId\n0\t1\n1\t2\n2\t0\n5\t5\n",
    b"1 2 0.5\n2 3 1.5\n3 1 -2\n",
    b"1,2,3.5\n2,3,1\n",
    b"10 1000000000000\n1000000000000 10\n",
]
V_SEED, E_SEED = b"1\n2\n3\n10\n", b"1 2 0.5\n2 3 1.5\n10 1 2\n"


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Fail (a hang) when the body takes longer than ``seconds`` (SIGALRM; no limit where absent)."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def hang(signum: int, frame: Any) -> None:
        raise AssertionError(f"a reader ran past {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def mutate(seed: bytes, edits: list[tuple[float, int, bytes]]) -> bytes:
    """``seed`` with each edit applied: (where, 0 insert / 1 replace / 2 delete, piece)."""
    data = bytearray(seed)
    for where, op, piece in edits:
        i = int(where * len(data))
        if op == 0:
            data[i:i] = piece
        elif op == 1:
            data[i : i + len(piece)] = piece
        else:
            del data[i : i + len(piece)]
    return bytes(data)


def files(seeds: list[bytes]) -> st.SearchStrategy[bytes]:
    """Mutated seeds, strings of format pieces, and plain random bytes."""
    edit = st.tuples(st.floats(0, 1), st.integers(0, 2), st.sampled_from(PIECES))
    mutated = st.builds(mutate, st.sampled_from(seeds), st.lists(edit, min_size=1, max_size=6))
    pieces = st.lists(st.sampled_from(PIECES), max_size=40).map(b"".join)
    header_and_pieces = st.builds(lambda s, p: s[: s.index(b"\n") + 1] + p, st.sampled_from(seeds), pieces)
    return st.one_of(mutated, mutated, header_and_pieces, pieces, st.binary(max_size=120))


def outcome(read: Callable[[], Any], mode: str, monkeypatch: pytest.MonkeyPatch, chunk: int = CHUNK) -> tuple:
    """What ``read`` gives on one path (``"pure"``, ``"pyarrow"`` or ``"compiled"``) and chunk
    size: ("ok", arrays...) or ("error", type, line)."""
    monkeypatch.setattr(_chunks, "FAST", mode != "pure")
    monkeypatch.setattr(_compiled, "COMPILED", mode == "compiled")
    monkeypatch.setattr(_chunks, "CHUNK_BYTES", chunk)
    monkeypatch.delenv("GRBLAS_GPU_PURE_READERS", raising=False)
    monkeypatch.delenv("GRBLAS_GPU_COMPILED_READERS", raising=False)
    try:
        with time_limit(SECONDS):
            result = read()
    except GraphBLASError as e:
        return ("error", type(e).__name__, getattr(e, "line", None))
    return ("ok", *result)


def same(a: tuple, b: tuple) -> bool:
    if a[0] != b[0] or len(a) != len(b):
        return False
    if a[0] == "error":
        return a == b
    return all(np.array_equal(x, y, equal_nan=np.asarray(x).dtype.kind == "f") and np.asarray(x).dtype ==
               np.asarray(y).dtype for x, y in zip(a[1:], b[1:]))


def matrix_arrays(A: gb.Matrix) -> tuple:
    r, c, v = A.to_coo()
    return (np.asarray([A.nrows, A.ncols]), np.asarray(r), np.asarray(c), np.asarray(v))


def check_both_paths(read: Callable[[], tuple], monkeypatch: pytest.MonkeyPatch, chunk: int = CHUNK) -> None:
    """Only library exceptions, on any path; the paths agree at one chunk size; other chunk
    sizes give the same entries, or an error too (a file with several errors may report
    another of them: checks run column by column within a chunk)."""
    pure = outcome(read, "pure", monkeypatch)
    chunked = outcome(read, "pure", monkeypatch, chunk)
    assert chunked[0] == pure[0], (chunked[:3], pure[:3])
    if pure[0] == "ok":
        assert same(chunked, pure)
    if _compiled._cparse is not None:
        compiled = outcome(read, "compiled", monkeypatch, chunk)
        assert same(compiled, chunked), (compiled[:3], chunked[:3])
    _chunks._load_pyarrow()
    if _chunks._pacsv is None:
        return
    fast = outcome(read, "pyarrow", monkeypatch, chunk)
    assert same(fast, chunked), (fast[:3], chunked[:3])


@FUZZ
@given(data=files(MM_SEEDS), chunk=CHUNKS)
def test_fuzz_matrix_market(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes, chunk: int) -> None:
    p = tmp_path / "f.mtx"
    p.write_bytes(data)
    check_both_paths(lambda: matrix_arrays(gb.io.mmread(p, backend="numpy")), monkeypatch, chunk)


@FUZZ
@given(data=files(EDGE_SEEDS), directed=st.booleans(), chunk=CHUNKS)
def test_fuzz_edge_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes, directed: bool,
                        chunk: int) -> None:
    p = tmp_path / "f.txt"
    p.write_bytes(data)

    def read() -> tuple:
        A, ids = gb.io.read_edgelist(p, directed=directed, backend="numpy")
        return (*matrix_arrays(A), ids)

    check_both_paths(read, monkeypatch, chunk)


@FUZZ
@given(vertices=files([V_SEED]), edges=files([E_SEED]), chunk=CHUNKS)
def test_fuzz_graphalytics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, vertices: bytes, edges: bytes,
                           chunk: int) -> None:
    (tmp_path / "f.v").write_bytes(vertices)
    (tmp_path / "f.e").write_bytes(edges)

    def read() -> tuple:
        g = gb.io.read_graphalytics(tmp_path / "f", directed=False, backend="numpy")
        return (*matrix_arrays(g.matrix), g.ids)

    check_both_paths(read, monkeypatch, chunk)
