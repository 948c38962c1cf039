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
