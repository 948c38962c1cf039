"""Readers building the Matrix: sorted entries become the CSR (or CSC) by a counting pass,
with no sort, and give what scipy reads; edge-list ids with and without gaps."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest

import grblas_gpu as gb
import grblas_gpu.io as gio

scipy_io = pytest.importorskip("scipy.io")


def mm_text(rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, n: int) -> str:
    lines = "".join(f"{r + 1} {c + 1} {v!r}\n" for r, c, v in zip(rows.tolist(), cols.tolist(), vals.tolist()))
    return f"%%MatrixMarket matrix coordinate real general\n{n} {n + 3} {len(rows)}\n{lines}"


@pytest.mark.parametrize("order", ["rows", "columns", "random"])
def test_mmread_of_sorted_and_unsorted_entries_matches_scipy(order: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    n = 40
    keys = np.unique(rng.integers(0, n * (n + 3), 300))
    r, c = keys // (n + 3), keys % (n + 3)  # sorted by row, then column
    if order == "columns":
        p = np.lexsort((r, c))
        r, c = r[p], c[p]
    elif order == "random":
        p = rng.permutation(len(r))
        r, c = r[p], c[p]
    v = rng.standard_normal(len(r))
    text = mm_text(r, c, v, n)
    if order != "random":  # a counting pass builds it: from_coo (which sorts) is not called
        def no_sort(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError("from_coo called for sorted entries")
        monkeypatch.setattr(gb.Matrix, "from_coo", no_sort)
    A = gio.mmread(io.StringIO(text), backend="numpy")
    want = scipy_io.mmread(io.StringIO(text)).toarray()
    assert A.shape == want.shape
    np.testing.assert_array_equal(A.to_dense(fill_value=0.0), want)
    assert A.nvals == len(r)


def test_mmread_of_sorted_entries_with_a_repeat_is_still_an_error() -> None:
    text = "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1.0\n1 1 2.0\n2 3 1.0\n"
    with pytest.raises(gio.FileFormatError, match="line 4"):
        gio.mmread(io.StringIO(text), backend="numpy")
    A = gio.mmread(io.StringIO(text), backend="numpy", dup_op=gb.binary.plus)
    assert A[0, 0].value == 3.0 and A.nvals == 2


@pytest.mark.parametrize("ids", [[5, 6, 7, 8], [0, 1, 2, 3], [3, 10, 11, 400]])
def test_edge_ids_with_and_without_gaps(ids: list[int]) -> None:
    edges = [(ids[0], ids[1]), (ids[2], ids[0]), (ids[3], ids[3]), (ids[1], ids[2])]
    text = "".join(f"{a}\t{b}\n" for a, b in edges)
    A, got_ids = gio.read_edgelist(io.StringIO(text), backend="numpy")
    assert got_ids.tolist() == sorted(ids)
    pos = {v: i for i, v in enumerate(sorted(ids))}
    r, c, _ = A.to_coo()
    assert sorted(zip(r.tolist(), c.tolist())) == sorted((pos[a], pos[b]) for a, b in edges)


@pytest.mark.parametrize("ncols", [50, 2**59])  # packed (key, order) words; keys too wide for them (lexsort)
@pytest.mark.parametrize("with_order", [False, True])
def test_sort_row_major_matches_lexsort(ncols: int, with_order: bool) -> None:
    from grblas_gpu.io._coo import sort_row_major

    rng = np.random.default_rng(ncols % 97 + with_order)
    n = 500
    rows = rng.integers(0, 7, n)
    cols = rng.integers(0, 40, n) * (ncols // 50)  # repeats on purpose
    order = rng.permutation(n).astype(np.int64) if with_order else None
    keys, src = sort_row_major(rows, cols, 7, ncols, order)
    tie = order if order is not None else np.arange(n)
    perm = np.lexsort((tie, cols, rows))  # the reference: by row, column, then order
    bits = (ncols - 1).bit_length()  # a key is row << bits | col
    assert keys.tolist() == [(int(r) << bits) | int(c) for r, c in zip(rows[perm], cols[perm])]
    assert src is not None and src.tolist() == tie[perm].tolist()
    keys_only, none = sort_row_major(rows, cols, 7, ncols, track=False)
    assert none is None and keys_only.tolist() == keys.tolist()


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("weighted", [True, False])
def test_random_edge_lists_keep_the_first_of_a_repeat(directed: bool, weighted: bool) -> None:
    rng = np.random.default_rng(3 + directed + 2 * weighted)
    edges = [(int(a), int(b), float(w)) for a, b, w in
             zip(rng.integers(0, 30, 400), rng.integers(0, 30, 400), rng.integers(1, 9, 400))]
    text = "".join(f"{a} {b} {w}\n" if weighted else f"{a} {b}\n" for a, b, w in edges)
    want: dict[tuple[int, int], float] = {}
    for a, b, w in edges:  # the rule, written out: the first line of an edge gives its weight
        for key in [(a, b)] if directed else [(a, b), (b, a)]:
            want.setdefault(key, w if weighted else True)
    A, ids = gio.read_edgelist(io.StringIO(text), directed=directed, backend="numpy")
    r, c, v = A.to_coo()
    got = {(int(ids[i]), int(ids[j])): x for i, j, x in zip(r.tolist(), c.tolist(), v.tolist())}
    assert got == want


def test_mmread_names_the_lines_of_a_repeat_in_unsorted_entries() -> None:
    body = "3 3 4.0\n1 2 1.0\n2 1 5.0\n1 2 2.0\n"
    text = f"%%MatrixMarket matrix coordinate real general\n3 3 4\n{body}"
    with pytest.raises(gio.FileFormatError, match=r"line 6: .*duplicate entry \(1, 2\), already given on line 4"):
        gio.mmread(io.StringIO(text), backend="numpy")
    sym = text.replace("general", "symmetric").replace("1 2 2.0", "2 2 2.0")  # (1,2) and (2,1): one pair twice
    with pytest.raises(gio.FileFormatError, match=r"line 5: .*duplicate entry \(2, 1\), already given on line 4"):
        gio.mmread(io.StringIO(sym), backend="numpy")


def test_mmread_of_unsorted_entries_of_a_wide_matrix() -> None:
    ncols = 2**59  # row * ncols + col needs 61 bits: no room for the order beside it
    rng = np.random.default_rng(9)
    pairs = {(int(r), int(c)) for r, c in zip(rng.integers(0, 4, 60), rng.integers(0, ncols, 60))}
    entries = [(r, c, float(k)) for k, (r, c) in enumerate(sorted(pairs, key=lambda p: (p[1] % 7, p)))]
    body = "".join(f"{r + 1} {c + 1} {v}\n" for r, c, v in entries)
    text = f"%%MatrixMarket matrix coordinate real general\n4 {ncols} {len(entries)}\n{body}"
    A = gio.mmread(io.StringIO(text), backend="numpy")
    r, c, v = A.to_coo()
    assert list(zip(r.tolist(), c.tolist(), v.tolist())) == sorted(entries)
