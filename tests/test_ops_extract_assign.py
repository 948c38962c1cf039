"""extract (index lists with duplicates, slices, ALL, single rows/columns) and assign
(matrix, vector, scalar, row, column) with the spec's region semantics:

inside the region, without accum the region becomes the source (entries the source
lacks are deleted); with accum, the union with accum; then the mask / replace write over
the whole output (the mask has the output's size)."""

from __future__ import annotations

import numpy as np
import pytest
import reference as ref
from conftest import (
    MASK_KINDS,
    SYNTAXES,
    accum_op,
    assert_matches,
    descriptor,
    mask_arg,
    mask_flags,
    random_mask,
    ref_mask,
    seed_of,
    to_gb,
)

import grblas_gpu as gb

I64, F64 = np.dtype(np.int64), np.dtype(np.float64)

MATRIX_INDEX = {  # name -> (rows, cols) as passed to the library
    "lists_with_duplicates": ([3, 0, 3, 1], [2, 2, 0]),
    "slices": (slice(1, 5), slice(None, None, 2)),
    "reversed_slice": (slice(None, None, -1), slice(4, 0, -2)),
    "all_rows": ("ALL", [5, 1]),
    "arrays": (np.array([4, 2]), np.array([0, 6, 3])),
    "empty_list": ([], [1, 2]),
}


def is_all(ix: object) -> bool:
    return isinstance(ix, str) and ix == "ALL"


def lib_index(ix: object) -> object:
    """For the C-style functions: gb.ALL."""
    return gb.ALL if is_all(ix) else ix


def ref_index(ix: object) -> object:
    """For the method syntax and the model: a full slice."""
    return slice(None) if is_all(ix) else ix


def operand(seed: int, shape: tuple[int, ...], dt: np.dtype = I64, density: float = 0.6) -> ref.Obj:
    return ref.random(np.random.default_rng(seed), shape, dt, density, small=True)


# ----------------------------------------------------------------------------- extract


@pytest.mark.parametrize("index", sorted(MATRIX_INDEX))
def test_extract_matrix(backend: str, index: str) -> None:
    A = operand(seed_of(index), (5, 7))
    rows, cols = MATRIX_INDEX[index]
    Ag = to_gb(A, backend)
    expected = ref.extract(A, ref_index(rows), ref_index(cols))
    assert_matches(Ag[ref_index(rows), ref_index(cols)].new(), expected)
    C = gb.Matrix("INT64", *expected.shape, backend=backend)
    gb.extract(C, None, None, Ag, lib_index(rows), lib_index(cols))
    assert_matches(C, expected)


def test_extract_transposed(backend: str) -> None:
    A = operand(2, (5, 7))
    Ag = to_gb(A, backend)
    expected = ref.extract(A.T, [6, 1, 1], [4, 0])
    C = gb.Matrix("INT64", 3, 2, backend=backend)
    gb.extract(C, None, None, Ag, [6, 1, 1], [4, 0], gb.descriptor.T0)
    assert_matches(C, expected)
    assert_matches(Ag.T[[6, 1, 1], [4, 0]].new(), expected)


def test_extract_row_column_element(backend: str) -> None:
    A = operand(3, (5, 7))
    Ag = to_gb(A, backend)
    row = Ag[2, :].new()
    assert isinstance(row, gb.Vector) and row.size == 7
    assert_matches(row, ref.Obj(A.values[2], A.present[2]))
    col = Ag[[4, 0, 0], 5].new()
    assert isinstance(col, gb.Vector) and col.size == 3
    assert_matches(col, ref.Obj(A.values[[4, 0, 0], 5], A.present[[4, 0, 0], 5]))
    for i, j in [(0, 0), (2, 3), (4, 6)]:
        expected = A.values[i, j].item() if A.present[i, j] else None
        assert Ag[i, j].value == expected


@pytest.mark.parametrize("index", [[7, 0, 0, 3], slice(2, 9, 3), slice(None, None, -1), np.array([], np.int64)])
def test_extract_vector(backend: str, index: object) -> None:
    u = operand(4, (9,), F64)
    assert_matches(to_gb(u, backend)[index].new(), ref.extract(u, index))
    w = gb.Vector("FP64", len(ref.extract(u, index).values), backend=backend)
    gb.extract(w, None, None, to_gb(u, backend), index)
    assert_matches(w, ref.extract(u, index))


# ----------------------------------------------------------------------------- assign

ASSIGN_INDEX = {  # no duplicates: assigning twice to one position is undefined in the spec
    "lists": ([3, 0, 1], [2, 6, 0, 4]),
    "slices": (slice(1, 4), slice(0, 7, 3)),
    "all": ("ALL", [1, 5]),
}


@pytest.mark.parametrize("replace", [False, True], ids=["merge", "replace"])
@pytest.mark.parametrize("accum", [None, "plus"])
@pytest.mark.parametrize("mask_kind", MASK_KINDS)
@pytest.mark.parametrize("syntax", SYNTAXES)
@pytest.mark.parametrize("source", ["matrix", "scalar"])
@pytest.mark.parametrize("index", sorted(ASSIGN_INDEX))
def test_assign_matrix(backend: str, index: str, source: str, syntax: str, mask_kind: str, accum: str | None,
                       replace: bool) -> None:
    rng_seed = seed_of(index, source, mask_kind, accum, replace)
    C0 = operand(rng_seed, (5, 7), density=0.5)
    rows, cols = ASSIGN_INDEX[index]
    rr, cc = ref_index(rows), ref_index(cols)
    shape = ref.extract(C0, rr, cc).shape
    B = operand(rng_seed + 1, shape, density=0.5) if source == "matrix" else np.int64(7)
    M = random_mask(np.random.default_rng(rng_seed + 2), (5, 7))
    C, Mg = to_gb(C0, backend), to_gb(M, backend)
    src = to_gb(B, backend) if source == "matrix" else B
    if syntax == "method":
        C(mask=mask_arg(Mg, mask_kind), accum=accum_op(accum), replace=replace)[rr, cc] << src
    else:
        s, comp = mask_flags(mask_kind) if mask_kind != "none" else (False, False)
        desc = descriptor(syntax, replace=replace, structure=s, complement=comp)
        gb.assign(C, None if mask_kind == "none" else Mg, accum_op(accum), src, lib_index(rows), lib_index(cols), desc)
    expected = ref.assign(C0, B, (rr, cc), accum=accum, replace=replace, **ref_mask(M, mask_kind))
    assert_matches(C, expected)


@pytest.mark.parametrize("replace", [False, True], ids=["merge", "replace"])
@pytest.mark.parametrize("accum", [None, "min"])
@pytest.mark.parametrize("mask_kind", MASK_KINDS)
@pytest.mark.parametrize("syntax", SYNTAXES)
@pytest.mark.parametrize("source", ["vector", "scalar"])
def test_assign_vector(backend: str, source: str, syntax: str, mask_kind: str, accum: str | None,
                       replace: bool) -> None:
    seed = seed_of(source, syntax, mask_kind, accum, replace)
    w0 = operand(seed, (10,), F64, 0.5)
    index = [8, 2, 5, 0]
    u = operand(seed + 1, (4,), F64, 0.5) if source == "vector" else np.float64(-1.5)
    M = random_mask(np.random.default_rng(seed + 2), (10,))
    w, Mg = to_gb(w0, backend), to_gb(M, backend)
    src = to_gb(u, backend) if source == "vector" else u
    if syntax == "method":
        w(mask=mask_arg(Mg, mask_kind), accum=accum_op(accum), replace=replace)[index] << src
    else:
        s, comp = mask_flags(mask_kind) if mask_kind != "none" else (False, False)
        gb.assign(w, None if mask_kind == "none" else Mg, accum_op(accum), src, index,
                  descriptor(syntax, replace=replace, structure=s, complement=comp))
    assert_matches(w, ref.assign(w0, u, ([8, 2, 5, 0],), accum=accum, replace=replace, **ref_mask(M, mask_kind)))


@pytest.mark.parametrize("target", ["some", "empty"])
@pytest.mark.parametrize("form", ["sparse", "bitmap"])
@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("accum", [None, "plus"])
@pytest.mark.parametrize("mask_kind", MASK_KINDS)
def test_scalar_under_mask(backend: str, mask_kind: str, accum: str | None, replace: bool, form: str,
                           target: str) -> None:
    """``w(mask, accum, replace) << s`` assigns s at every position the mask allows (GrB_assign
    with GrB_ALL), whether the Vectors are held sparse or as bitmaps, into a Vector with
    entries or an empty one (each has its own fast path)."""
    w0 = operand(5, (10,), I64, 0.5 if target == "some" else 0.0)
    M = random_mask(np.random.default_rng(6), (10,))
    w, Mg = to_gb(w0, backend), to_gb(M, backend)
    if form == "bitmap":
        for v in (w, Mg):
            v._set_bitmap(*v._bitmap(), v.nvals)  # keep only the bitmap form
    w(mask_arg(Mg, mask_kind), accum_op(accum), replace=replace) << 42
    expected = ref.assign(w0, np.int64(42), (slice(None),), accum=accum, replace=replace, **ref_mask(M, mask_kind))
    assert_matches(w, expected)


def test_region_without_accum_deletes(backend: str) -> None:
    """Spec: without accum, entries inside the region that the source lacks are deleted; outside kept."""
    C = gb.Matrix.from_coo([0, 0, 1, 2], [0, 1, 1, 2], [1, 2, 3, 4], nrows=3, ncols=3, backend=backend)
    B = gb.Matrix.from_coo([0], [0], [9], nrows=2, ncols=2, backend=backend)
    C[0:2, 0:2] << B
    r, c, v = C.to_coo()
    assert list(zip(r.tolist(), c.tolist(), v.tolist())) == [(0, 0, 9), (2, 2, 4)]
    C2 = gb.Matrix.from_coo([0, 0, 1, 2], [0, 1, 1, 2], [1, 2, 3, 4], nrows=3, ncols=3, backend=backend)
    C2(accum=gb.binary.plus)[0:2, 0:2] << B
    r, c, v = C2.to_coo()
    assert list(zip(r.tolist(), c.tolist(), v.tolist())) == [(0, 0, 10), (0, 1, 2), (1, 1, 3), (2, 2, 4)]


@pytest.mark.parametrize("accum", [None, "plus"])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("axis", ["row", "column"])
def test_assign_row_column(backend: str, axis: str, masked: bool, accum: str | None) -> None:
    """C(i, J) << u and C(I, j) << u (GrB_Row_assign / GrB_Col_assign: the mask, a Vector, covers
    that row or column; nothing else changes, even with replace)."""
    seed = seed_of(axis, masked, accum)
    C0 = operand(seed, (5, 7), density=0.5)
    u = operand(seed + 1, (3,), density=0.6)
    n = 7 if axis == "row" else 5
    M = random_mask(np.random.default_rng(seed + 2), (n,))
    C = to_gb(C0, backend)
    target = C(mask=to_gb(M, backend).V, accum=accum_op(accum), replace=True) if masked else C(accum=accum_op(accum))
    idx = [6, 0, 3] if axis == "row" else [4, 1, 2]
    if axis == "row":
        target[2, idx] << to_gb(u, backend)
        expected = ref.assign_row(C0, 2, u, idx, M if masked else None, accum, replace=masked)
    else:
        target[idx, 5] << to_gb(u, backend)
        expected = ref.assign_col(C0, 5, u, idx, M if masked else None, accum, replace=masked)
    assert_matches(C, expected)


def test_element_assign_is_setelement(backend: str) -> None:
    C = gb.Matrix("FP32", 2, 3, backend=backend)
    C[1, 2] = 2.5
    C[1, 2] << 3.5  # << on an element is an assign too
    C[0, 0] = 1
    r, c, v = C.to_coo()
    assert (r.tolist(), c.tolist(), v.tolist()) == ([0, 1], [0, 2], [1.0, 3.5])
