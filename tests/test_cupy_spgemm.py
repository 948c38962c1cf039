"""The CuPy backend's row-wise Gustavson SpGEMM (``CupyBackend.mxm_gustavson``) against
independent references: scipy.sparse for structure and exact plus_times sums, and a NumPy model
that lists every product term (i, k, j) and reduces those of each position with the monoid.

Values are small integers, so float sums are exact in any order and compared exactly; ANY
monoids are checked by membership (the value must be one of the position's terms).  Outputs
land in device memory filled with garbage beforehand, so a position the kernels never write
shows.  Needs CuPy and a CUDA GPU; skipped elsewhere.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sps
from conftest import grid_square_csr

from grblas_gpu.backends import get_backend, gpu_available
from grblas_gpu.backends.operands import CsrOperand, MaskOperand
from grblas_gpu.dtypes import ALL_TYPES, BOOL, FP32, FP64, INT8, INT32, INT64, UINT16, DataType
from grblas_gpu.exceptions import DomainMismatch
from grblas_gpu.operators import binary as binaries
from grblas_gpu.operators import monoid as monoids
from grblas_gpu.operators import semiring as semirings
from grblas_gpu.operators.base import Positions, TypedSemiring

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not gpu_available(), reason="needs CuPy and a CUDA GPU (none usable here)"),
]


@pytest.fixture(scope="module")
def gpu() -> Any:
    """The CuPy backend."""
    return get_backend("cupy")


@pytest.fixture(autouse=True)
def poisoned_pool() -> None:
    """Fill memory the pool hands out next with 0xA5 bytes: unwritten output shows."""
    if gpu_available():
        import cupy

        junk = cupy.full(256 << 20, 0xA5, dtype=np.uint8)
        del junk


def rng_for(*parts: Any) -> np.random.Generator:
    """A generator seeded by the test parameters."""
    return np.random.default_rng(zlib.crc32(repr(parts).encode()))


# ----------------------------------------------------------------------------- operands


def random_csr(rng: np.random.Generator, nrows: int, ncols: int, lengths: np.ndarray | int) -> sps.csr_matrix:
    """A CSR pattern with the given row lengths (at most ncols), values 1..4 (FP64)."""
    lengths = np.minimum(np.broadcast_to(lengths, (nrows,)), ncols).astype(np.int64)
    cols = [np.sort(rng.choice(ncols, size=int(n), replace=False)) for n in lengths]
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    indices = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    data = rng.integers(1, 5, indices.size).astype(np.float64)
    return sps.csr_matrix((data, indices.astype(np.int32), indptr), shape=(nrows, ncols))


def operand(m: sps.csr_matrix, values: np.ndarray | None, ptr: Any = np.int32, idx: Any = np.int32) -> CsrOperand:
    """A device CsrOperand of ``m``'s pattern with ``values`` (or none)."""
    import cupy

    return CsrOperand(cupy.asarray(m.indptr.astype(ptr)), cupy.asarray(m.indices.astype(idx)),
                      None if values is None else cupy.asarray(values), m.shape[0], m.shape[1])


def mask_operand(m: sps.csr_matrix, complement: bool, ptr: Any = np.int32) -> MaskOperand:
    """A device MaskOperand of ``m``'s pattern."""
    import cupy

    return MaskOperand(cupy.asarray(m.indptr.astype(ptr)), cupy.asarray(m.indices.astype(np.int32)), complement)


def typed_values(m: sps.csr_matrix, t: DataType) -> np.ndarray:
    """``m``'s values (small positive integers) in type ``t`` (BOOL: alternating)."""
    if t.is_bool:
        return (m.data.astype(np.int64) % 2).astype(bool)
    return m.data.astype(t.np_type)


# ----------------------------------------------------------------------------- the model


def terms(sr: TypedSemiring, a: sps.csr_matrix, av: Any, b: sps.csr_matrix, bv: Any,
          mask: sps.csr_matrix | None, complement: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every term of A B the mask allows: (keys i * ncols + j, k, values in the monoid's type)."""
    a_rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
    lengths = np.diff(b.indptr)[a.indices]
    pa = np.repeat(np.arange(a.indices.size), lengths)  # the entry of A of each term
    offsets = np.arange(pa.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    pb = (b.indptr[a.indices][pa] + offsets).astype(np.int64)  # the entry of B of each term
    i, k, j = a_rows[pa].astype(np.int64), a.indices[pa].astype(np.int64), b.indices[pb].astype(np.int64)
    keys = i * b.shape[1] + j
    if mask is not None:
        mkeys = np.repeat(np.arange(mask.shape[0]), np.diff(mask.indptr)).astype(np.int64) * b.shape[1] + mask.indices
        keep = np.isin(keys, mkeys) != complement
        pa, pb, i, k, j, keys = pa[keep], pb[keep], i[keep], k[keep], j[keep], keys[keep]
    x = av[pa] if av is not None else np.zeros(pa.size, sr.mult.x_type.np_type)
    y = bv[pb] if bv is not None else np.zeros(pb.size, sr.mult.y_type.np_type)
    vals = sr.mult(x, y, Positions(i, k, k, j)).astype(sr.out_type.np_type)
    order = np.argsort(keys, kind="stable")
    return keys[order], k[order], vals[order]


def reduce_terms(sr: TypedSemiring, keys: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys and each one's terms combined with the monoid, in key order."""
    uniq, starts = np.unique(keys, return_index=True)
    if uniq.size == 0:
        return uniq, vals[:0]
    monoid = sr.monoid
    if monoid.ufunc is not None and not monoid.is_any:
        with np.errstate(all="ignore"):
            out = monoid.ufunc.reduceat(vals, starts).astype(sr.out_type.np_type)
        return uniq, out
    ends = np.append(starts[1:], vals.size)
    out = vals[starts].copy()
    for n, (s, e) in enumerate(zip(starts, ends)):
        acc = vals[s]
        for v in vals[s + 1:e]:
            acc = monoid.op(np.asarray(acc), np.asarray(v))[()]
        out[n] = acc
    return uniq, out


def check(gpu: Any, sr: TypedSemiring, a: sps.csr_matrix, b: sps.csr_matrix, mask: sps.csr_matrix | None = None,
          complement: bool = False, ptr: Any = np.int32, idx: Any = np.int32) -> Any:
    """Run the product on the GPU and compare every entry with the term model; returns it."""
    mult = sr.mult
    av = typed_values(a, mult.x_type) if mult.reads("x") else None
    bv = typed_values(b, mult.y_type) if mult.reads("y") else None
    m_op = None if mask is None else mask_operand(mask, complement, ptr)
    got = gpu.mxm_gustavson(sr, operand(a, av, ptr, idx), operand(b, bv, ptr, idx), m_op)
    indptr, indices, values = (gpu.to_host(x) for x in (got.indptr, got.indices, got.values))
    assert indptr.dtype == np.int64 and indptr.shape == (a.shape[0] + 1,)
    assert indices.dtype in (np.int32, np.int64) and values.dtype == sr.out_type.np_type
    keys, _ks, vals = terms(sr, a, av, b, bv, mask, complement)
    want_keys, want = reduce_terms(sr, keys, vals)
    ncols = b.shape[1]
    rows = np.repeat(np.arange(a.shape[0]), np.diff(indptr))
    got_keys = rows.astype(np.int64) * ncols + indices.astype(np.int64)
    assert indptr[-1] == want_keys.size, (indptr[-1], want_keys.size)
    assert np.array_equal(got_keys, want_keys), "structure (or order within rows) differs"
    if sr.monoid.is_any:  # any one term will do
        pos = np.searchsorted(keys, got_keys)
        ends = np.searchsorted(keys, got_keys, side="right")
        for n in range(got_keys.size):
            cand = vals[pos[n]:ends[n]]
            ok = np.any((cand == values[n]) | (np.isnan(cand) & np.isnan(values[n])) if cand.dtype.kind == "f"
                        else cand == values[n])
            assert ok, (n, values[n], cand[:8])
    else:
        same = (values == want) | ((np.isnan(values) & np.isnan(want)) if want.dtype.kind == "f" else False)
        assert np.all(same), f"{int((~same).sum())} values differ: got {values[~same][:8]}, want {want[~same][:8]}"
    return got


def _typed(name: str, t: DataType) -> TypedSemiring | None:
    try:
        return semirings[name][t]
    except DomainMismatch:
        return None


# ----------------------------------------------------------------------------- tests


TYPED_CASES = [pytest.param(name, t, id=f"{name}-{t.name}")
               for name in ("plus_times", "min_plus", "max_min", "plus_pair", "any_pair", "lor_land")
               for t in ALL_TYPES if _typed(name, t) is not None]


@pytest.mark.parametrize("name,t", TYPED_CASES)
def test_every_builtin_type(gpu: Any, name: str, t: DataType) -> None:
    """Each semiring on each type it is defined on, over rows of every bin up to 4096 columns
    (short, medium, long rows of A; B rows of 0 to 60 entries)."""
    rng = rng_for("types", name, t.name)
    lengths = np.concatenate([[0, 1, 2], rng.integers(0, 8, 60), [30, 120, 400, 900]])
    a = random_csr(rng, lengths.size, 500, lengths)
    b = random_csr(rng, 500, 5000, rng.integers(0, 60, 500))
    check(gpu, _typed(name, t), a, b)


def test_empty_operands(gpu: Any) -> None:
    """No rows, no columns, no entries: an empty product of the right shape."""
    sr = semirings["plus_times"][FP64]
    rng = rng_for("empty")
    for (n, m, p) in [(0, 0, 0), (0, 3, 4), (4, 0, 5), (4, 3, 0), (5, 5, 5)]:
        a = random_csr(rng, n, m, 0)
        b = random_csr(rng, m, p, 2 if m else 0)
        got = check(gpu, sr, a, b)
        assert got.indices.size == 0


def test_empty_rows_and_hub_column(gpu: Any) -> None:
    """Empty rows in A and B, and a column of B present in every row (all terms of a row hit
    one slot: contention on one accumulator)."""
    rng = rng_for("hub")
    b = random_csr(rng, 800, 900, rng.integers(0, 5, 800)).tolil()
    b[:, 7] = 3.0
    b[::3, :] = 0
    b = sps.csr_matrix(b)
    b.eliminate_zeros()
    a = random_csr(rng, 700, 800, np.where(np.arange(700) % 4 == 0, 0, rng.integers(1, 700, 700)))
    for name in ("plus_times", "min_plus", "plus_pair", "any_pair"):
        check(gpu, semirings[name][FP32], a, b)
    check(gpu, semirings["plus_times"][INT64], a, b)


def test_bin_boundaries(gpu: Any) -> None:
    """Rows whose flops and sizes sit on each side of every bin edge (16, 32, ..., 4096 and the
    dense rows beyond), and rows of many terms but few columns."""
    rng = rng_for("edges")
    edges = [16 << s for s in range(9)]
    targets = sorted({e + d for e in edges for d in (-1, 0, 1)})
    ncols = 12000
    b = sps.identity(ncols, format="csr", dtype=np.float64)  # row k of B is column k: flops = columns
    rows = [np.sort(rng.choice(ncols, size=t, replace=False)) for t in targets]
    lengths = np.array([r.size for r in rows])
    a = sps.csr_matrix((rng.integers(1, 5, lengths.sum()).astype(np.float64), np.concatenate(rows),
                        np.concatenate([[0], np.cumsum(lengths)])), shape=(len(rows), ncols))
    for name, t in (("plus_times", FP64), ("min_plus", FP32), ("any_pair", INT32), ("plus_pair", INT64)):
        check(gpu, semirings[name][t], a, b)
    # many terms, few columns: B rows all inside 50 columns
    few = random_csr(rng, ncols, 50, rng.integers(1, 40, ncols))
    check(gpu, semirings["plus_times"][FP64], a, few)


def test_one_huge_row(gpu: Any) -> None:
    """A row of tens of thousands of distinct columns (the dense accumulator) beside short
    rows; checked against scipy for plus_times (exact: small integers) and by the model."""
    rng = rng_for("huge")
    ncols = 70000
    b = random_csr(rng, 3000, ncols, rng.integers(0, 40, 3000))
    lengths = np.concatenate([[3000], rng.integers(0, 5, 200), [1500]])
    a = random_csr(rng, lengths.size, 3000, lengths)
    sr = semirings["plus_times"][FP64]
    got = check(gpu, sr, a, b)
    ref = (a @ b).tocsr()
    ref.sort_indices()
    assert np.diff(gpu.to_host(got.indptr))[0] > 20000
    assert np.array_equal(gpu.to_host(got.indptr), ref.indptr)
    assert np.array_equal(gpu.to_host(got.indices), ref.indices)
    assert np.array_equal(gpu.to_host(got.values), ref.data)
    for name, t in (("max_min", INT32), ("any_pair", BOOL), ("min_plus", FP32)):
        check(gpu, semirings[name][t], a, b)


@pytest.mark.parametrize("complement", [False, True], ids=["mask", "complement"])
@pytest.mark.parametrize("name,t", [("plus_times", FP64), ("plus_pair", INT64), ("min_plus", FP32),
                                    ("any_pair", BOOL)], ids=lambda v: getattr(v, "name", v))
def test_masks(gpu: Any, complement: bool, name: str, t: DataType) -> None:
    """Structural and complemented masks over rows of every bin, the dense rows included."""
    rng = rng_for("mask", complement, name, t.name)
    ncols = 9000
    b = random_csr(rng, 2000, ncols, rng.integers(0, 30, 2000))
    lengths = np.concatenate([rng.integers(0, 10, 100), [200, 800, 2000]])
    a = random_csr(rng, lengths.size, 2000, lengths)
    full = (a @ b).tocoo()
    keep = rng.random(full.nnz) < 0.5  # half the product's positions
    mask = sps.csr_matrix((np.ones(int(keep.sum())), (full.row[keep], full.col[keep])), shape=full.shape)
    extra = random_csr(rng, lengths.size, ncols, rng.integers(0, 20, lengths.size))  # positions with no terms
    mask = (mask + extra).tocsr()
    mask.sort_indices()
    check(gpu, semirings[name][t], a, b, mask, complement)
    empty = sps.csr_matrix(full.shape, dtype=np.float64)
    got = check(gpu, semirings[name][t], a, b, empty, complement)
    assert (got.indices.size == 0) != complement


@pytest.mark.parametrize("ptr,idx", [(np.int64, np.int32), (np.int64, np.int64)], ids=["p64i32", "i64"])
def test_int64_layouts(gpu: Any, ptr: Any, idx: Any) -> None:
    """int64 row pointers beside int32 or int64 column indices (the product's pointers are int64)."""
    rng = rng_for("int64", ptr, idx)
    a = random_csr(rng, 300, 400, np.concatenate([rng.integers(0, 20, 299), [400]]))
    b = random_csr(rng, 400, 6000, rng.integers(0, 30, 400))
    for name in ("plus_times", "min_plus"):
        got = check(gpu, semirings[name][FP64], a, b, ptr=ptr, idx=idx)
        assert got.indices.dtype == idx
    mask = random_csr(rng, 300, 6000, rng.integers(0, 200, 300))
    check(gpu, semirings["plus_pair"][INT64], a, b, mask, False, ptr=ptr, idx=idx)


@pytest.mark.parametrize("name", ["min_secondi", "any_secondi", "max_secondi", "min_firsti"])
def test_positional(gpu: Any, name: str) -> None:
    """Positional multipliers see (i, k, k, j): min_secondi gives each position's least k."""
    rng = rng_for("positional", name)
    a = random_csr(rng, 200, 300, np.concatenate([rng.integers(0, 12, 199), [300]]))
    b = random_csr(rng, 300, 5000, rng.integers(0, 25, 300))
    check(gpu, semirings[name][INT64], a, b)
    check(gpu, semirings[name][INT32], a, b)


def test_user_defined_semiring(gpu: Any) -> None:
    """A user-defined monoid (combined by a compare-and-swap loop) and multiplier, on INT64 and
    on INT8 (a 1-byte type, combined in a 4-byte slot)."""
    keep_larger = binaries.register_anonymous(lambda x, y: max(y, x), name="keep_larger")
    mono = monoids.register_anonymous(keep_larger, lambda t: t.min if not t.is_bool else False, name="keep_larger")
    twice_plus = binaries.register_anonymous(lambda x, y: x * 2 + y, name="twice_plus")
    sr = semirings.register_anonymous(mono, twice_plus, name="keep_larger_twice_plus")
    rng = rng_for("udf")
    a = random_csr(rng, 300, 400, np.concatenate([rng.integers(0, 15, 298), [400, 250]]))
    b = random_csr(rng, 400, 6000, rng.integers(0, 30, 400))
    for t in (INT64, FP64, INT32):
        check(gpu, sr[t], a, b)
    mask = random_csr(rng, 300, 6000, rng.integers(0, 300, 300))
    check(gpu, sr[INT64], a, b, mask, True)


def test_random_products_agree_with_scipy(gpu: Any) -> None:
    """Power-law-ish random square matrices, A @ A over plus_times FP64 equals scipy's product."""
    rng = rng_for("powerlaw")
    n = 3000
    lengths = np.minimum((rng.pareto(1.2, n) * 3).astype(np.int64), 2500)
    a = random_csr(rng, n, n, lengths)
    sr = semirings["plus_times"][FP64]
    got = gpu.mxm_gustavson(sr, operand(a, a.data), operand(a, a.data))
    ref = (a @ a).tocsr()
    ref.sort_indices()
    assert np.array_equal(gpu.to_host(got.indptr), ref.indptr)
    assert np.array_equal(gpu.to_host(got.indices), ref.indices)
    assert np.array_equal(gpu.to_host(got.values), ref.data)


def sparse_rows(rng: np.random.Generator, nrows: int, ncols: int, per_row: int) -> sps.csr_matrix:
    """``nrows`` rows of about ``per_row`` random columns in ``range(ncols)`` (any width),
    values 1..4 (FP64), built without any array of ncols."""
    rows = np.repeat(np.arange(nrows, dtype=np.int64), per_row)
    cols = rng.integers(0, ncols, rows.size, dtype=np.int64)
    m = sps.coo_matrix((rng.integers(1, 5, rows.size).astype(np.float64), (rows, cols)), shape=(nrows, ncols))
    m = m.tocsr()
    m.sum_duplicates()
    m.data = np.minimum(m.data, 4.0)
    return m


@pytest.mark.parametrize("ncols,idx", [(2_000_000, np.int32), (1 << 40, np.int64)], ids=["2M", "2^40"])
def test_wide_products_with_long_rows(gpu: Any, ncols: int, idx: Any) -> None:
    """Long rows of a product far wider than they are (2 M and 2^40 columns): rows of over
    4096 columns but at most ncols / 16 accumulate in global hash tables sized by the row (a
    dense row of 2^40 columns could not be allocated), longer ones (2 M columns) in a dense
    row; with a complemented mask too."""
    rng = rng_for("wide", ncols)
    inner = 90000
    b = sparse_rows(rng, inner, ncols, 2)
    lengths = np.concatenate([[5000, 0, 3], rng.integers(0, 6, 40), [12000], [70000 if ncols < 1 << 32 else 20000]])
    a = random_csr(rng, lengths.size, inner, lengths)
    ptr = np.int64 if idx == np.int64 else np.int32
    for name, t in (("plus_times", FP64), ("min_plus", FP32), ("any_pair", BOOL), ("plus_pair", INT64)):
        got = check(gpu, semirings[name][t], a, b, ptr=ptr, idx=idx)
    assert np.diff(gpu.to_host(got.indptr)).max() > 4096
    if idx == np.int32:  # (mask_operand's indices are int32)
        mask = sparse_rows(rng, lengths.size, ncols, 3000)
        check(gpu, semirings["plus_times"][FP64], a, b, mask, True, ptr=ptr, idx=idx)


# ----------------------------------------------------------------------------- short rows


def grid_csr(side: int, diagonal: bool = False) -> sps.csr_matrix:
    """The road-like grid of :func:`conftest.grid_square_csr`, values drawn for these arguments."""
    return grid_square_csr(side, diagonal, rng_for("grid", side, diagonal))


@pytest.fixture
def launches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The roles of the kernels the products of a test launch, in order."""
    from grblas_gpu.backends.cupy import spgemm

    seen: list[str] = []
    plain = spgemm._Plan._launch

    def spy(self: Any, module: Any, role: str, *rest: Any, **kw: Any) -> None:
        seen.append(role)
        plain(self, module, role, *rest, **kw)

    monkeypatch.setattr(spgemm._Plan, "_launch", spy)
    return seen


SHORT_CASES = [("plus_times", FP32), ("plus_times", FP64), ("min_plus", FP64), ("max_min", INT32),
               ("plus_pair", INT64), ("any_pair", BOOL), ("lor_land", BOOL), ("min_secondi", INT64),
               ("any_secondi", INT32), ("plus_times", INT8), ("max_min", UINT16)]


@pytest.mark.parametrize("name,t", SHORT_CASES, ids=lambda v: getattr(v, "name", v))
def test_products_of_short_rows_only(gpu: Any, launches: list[str], name: str,
                                     t: DataType) -> None:
    """A road grid's square (every row at most 16 terms: every row in one launch of 32-slot
    tables, no grouping), and with the diagonal (rows of 17 to 25 terms: 64-slot tables),
    against the term model: values, structure and order within rows."""
    sr = _typed(name, t)
    assert sr is not None
    a = grid_csr(9)
    check(gpu, sr, a, a)
    assert launches == ["flops", "count", "fill"]
    launches.clear()
    d = grid_csr(7, diagonal=True)
    check(gpu, sr, d, d)
    assert launches == ["flops", "count", "count", "fill"]


@pytest.mark.parametrize("complement", [False, True], ids=["mask", "complement"])
def test_short_rows_under_masks(gpu: Any, launches: list[str], complement: bool) -> None:
    """A road grid's square under a mask of half its positions and some it lacks, and under an
    empty row of the mask: terms outside the mask dropped in registers, every row at once."""
    rng = rng_for("short-mask", complement)
    a = grid_csr(10)
    full = (a @ a).tocoo()
    keep = rng.random(full.nnz) < 0.5
    extra = random_csr(rng, 100, 100, rng.integers(0, 6, 100))
    mask = (sps.csr_matrix((np.ones(int(keep.sum())), (full.row[keep], full.col[keep])), shape=full.shape)
            + extra).tolil()
    mask[99, :] = 0  # an empty mask row
    mask = sps.csr_matrix(mask)
    mask.eliminate_zeros()
    mask.sort_indices()
    assert mask.indptr[100] == mask.indptr[99]
    for name, t in (("plus_times", FP64), ("min_plus", FP32), ("any_pair", BOOL), ("plus_pair", INT64)):
        check(gpu, semirings[name][t], a, a, mask, complement)
    assert launches == ["flops", "count", "fill"] * 4


def test_short_rows_with_empty_rows_of_b(gpu: Any, launches: list[str]) -> None:
    """Rows of A of up to 300 entries whose rows of B are mostly empty (a row's terms at most
    32, its entries read in several chunks of the group's width), empty rows of A, one column
    in every term of a row (a single run to combine), and int64 layouts."""
    rng = rng_for("short-empty")
    inner, ncols = 400, 3000
    b_lengths = np.concatenate([rng.integers(1, 4, 10), np.zeros(inner - 10, np.int64)])  # 30 terms at most
    b = random_csr(rng, inner, ncols, b_lengths)
    a_lengths = np.concatenate([[0, 300, 250, 1, 0], rng.integers(0, 40, 60)])
    a = random_csr(rng, a_lengths.size, inner, a_lengths)
    flops = np.add.reduceat(np.diff(b.indptr)[a.indices], a.indptr[:-1]) * (np.diff(a.indptr) > 0)
    assert flops.max() <= 32 and np.diff(a.indptr).max() > 32
    hub = sps.csr_matrix((np.ones(inner), (np.arange(inner), np.full(inner, 5))), shape=(inner, ncols))
    for name, t in (("plus_times", FP64), ("min_plus", FP32), ("plus_pair", INT64), ("any_pair", BOOL)):
        check(gpu, semirings[name][t], a, b)
        check(gpu, semirings[name][t], a[:, :30], hub[:30])  # every term of a row in column 5
    for ptr, idx in ((np.int64, np.int32), (np.int64, np.int64)):
        got = check(gpu, semirings["plus_times"][FP64], a, b, ptr=ptr, idx=idx)
        assert got.indices.dtype == idx
    assert launches and "group" not in launches


def test_short_rows_beside_long_ones(gpu: Any, launches: list[str]) -> None:
    """Short rows (16 and 32 lanes, from the bins' lists) in a product with rows of every other
    bin, with and without masks (a short row is bounded by its terms, not by its mask row);
    rows that look short but for one (counted before the bins are known, filled from the
    lists)."""
    rng = rng_for("short-mixed")
    b = random_csr(rng, 2000, 9000, rng.integers(1, 9, 2000))
    lengths = np.concatenate([rng.integers(0, 5, 200), [5, 6, 7, 8], [100, 600, 1500]])
    a = random_csr(rng, lengths.size, 2000, lengths)
    for name, t in (("plus_times", FP64), ("min_plus", FP32), ("any_pair", BOOL), ("plus_pair", INT32)):
        check(gpu, semirings[name][t], a, b)
    assert launches.count("count_short") == 8 and launches.count("fill_short") == 8  # two bins, four products
    launches.clear()
    g = grid_csr(20)
    long_row = sps.csr_matrix((np.ones(300), (np.zeros(300, np.int64), rng.choice(400, 300, replace=False))),
                              shape=(1, 400))
    check(gpu, semirings["plus_times"][FP64], sps.vstack([g, long_row]).tocsr(), g)
    assert launches[:2] == ["flops", "count"] and "group" in launches and launches.count("fill_short") == 1
    assert "count_short" not in launches  # (its short rows were counted before the bins were known)
    mask = random_csr(rng, lengths.size, 9000, rng.integers(0, 300, lengths.size))
    full = (a @ b).tocoo()
    keep = rng.random(full.nnz) < 0.5
    mask = (mask + sps.csr_matrix((np.ones(int(keep.sum())), (full.row[keep], full.col[keep])), shape=full.shape))
    mask = sps.csr_matrix(mask)
    mask.sort_indices()
    for complement in (False, True):
        launches.clear()
        check(gpu, semirings["plus_times"][FP64], a, b, mask, complement)
        check(gpu, semirings["min_plus"][FP32], a, b, mask, complement)
        assert launches.count("count_short") == 4 and launches.count("fill_short") == 4
