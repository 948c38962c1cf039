"""The CuPy backend's masked dot-product SpGEMM, ``C<M> = A B'`` (``CupyBackend.mxm_dot``), called
directly and compared with the dense model of tests/reference.py (explicit presence) or scipy.

Every product runs on poisoned device memory (the pool's free blocks filled with 0xFF bytes), so
an output slot or flag a kernel forgets to write shows up as a wrong entry.  The cases cover the
thread, warp and block kernels (short lists, a hub row meeting long columns, two hubs meeting),
early exits (ANY, LOR's true, MIN's and MAX's bounds), positional and user-defined semirings and
the three index layouts.

Needs CuPy and a CUDA GPU; skipped elsewhere.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pytest
import reference as ref

from grblas_gpu import binary, monoid
from grblas_gpu import semiring as semiring_ns
from grblas_gpu.backends import get_backend, gpu_available
from grblas_gpu.backends.operands import CsrOperand, MaskOperand
from grblas_gpu.dtypes import ALL_TYPES, BOOL, FP64, INT8, INT64, UINT8, DataType
from grblas_gpu.exceptions import DimensionMismatch, InvalidValue, OutOfMemory
from grblas_gpu.operators import semiring as semirings

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not gpu_available(), reason="needs CuPy and a CUDA GPU (none usable here)"),
]

BUILTIN = ("plus_times", "min_plus", "max_min", "plus_pair", "any_pair", "lor_land")


@pytest.fixture(scope="module")
def gpu() -> Any:
    """The CuPy backend."""
    return get_backend("cupy")


def rng_for(*parts: Any) -> np.random.Generator:
    """A generator seeded by the test parameters (stable across runs)."""
    return np.random.default_rng(zlib.crc32(repr(parts).encode()))


# ----------------------------------------------------------------------------- data


def poison() -> None:
    """Fill the device pool's free memory with 0xFF bytes: what a product allocates next starts
    as garbage (NaN, -1, true flags), not as zeros left by earlier work."""
    import cupy

    pool = cupy.get_default_memory_pool()
    blocks = []
    for size in (1 << 26, 1 << 22, 1 << 18, 1 << 14, 1 << 10):
        blocks.append(cupy.full(size, 0xFF, dtype=np.uint8))
    del blocks
    assert pool.free_bytes() > 0


def to_obj(present: np.ndarray, values: np.ndarray) -> ref.Obj:
    """A dense model object with the values only where present (zeros elsewhere)."""
    return ref.Obj(np.where(present, values, np.zeros((), values.dtype)), present)


def random_obj(rng: np.random.Generator, shape: tuple[int, int], t: np.dtype, density: float) -> ref.Obj:
    """A random sparse matrix of small values (sums stay exact in any order)."""
    return to_obj(rng.random(shape) < density, ref.random_values(rng, shape, t, small=True))


def csr(obj: ref.Obj, t: np.dtype | None, ptr: Any = np.int32, idx: Any = np.int32) -> CsrOperand:
    """``obj`` as a device CSR operand (values cast to ``t``; None when ``t`` is None)."""
    import cupy

    rows, cols = np.nonzero(obj.present)
    indptr = np.zeros(obj.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=obj.shape[0]), out=indptr[1:])
    values = None if t is None else cupy.asarray(ref.cast(obj.values[rows, cols], t))
    return CsrOperand(cupy.asarray(indptr.astype(ptr)), cupy.asarray(cols.astype(idx)), values, *obj.shape)


def mask_of(present: np.ndarray, ptr: Any = np.int32, idx: Any = np.int32) -> MaskOperand:
    """A structural mask holding the positions where ``present``."""
    m = csr(ref.Obj(np.zeros(present.shape), present), None, ptr, idx)
    return MaskOperand(m.indptr, m.indices)


def product_obj(product: Any, shape: tuple[int, int], mask: np.ndarray) -> ref.Obj:
    """The CSR product as a dense model object, after checking its form: int64 row pointers,
    columns sorted within rows, every entry a mask position."""
    indptr, indices, values = (get_backend("cupy").to_host(x) for x in (product.indptr, product.indices,
                                                                         product.values))
    assert indptr.dtype == np.int64 and indptr.shape == (shape[0] + 1,)
    assert indptr[0] == 0 and np.all(np.diff(indptr) >= 0) and indptr[-1] == indices.size == values.size
    rows = np.repeat(np.arange(shape[0]), np.diff(indptr))
    for r in range(shape[0]):
        assert np.all(np.diff(indices[indptr[r]:indptr[r + 1]]) > 0), f"row {r} not sorted"
    assert np.all(mask[rows, indices]), "an entry outside the mask"
    out = ref.empty(shape, values.dtype)
    out.values[rows, indices] = values
    out.present[rows, indices] = True
    return out


def expected(a: ref.Obj, bt: ref.Obj, mask: np.ndarray, add: str, mult: str, t: np.dtype) -> ref.Obj:
    """C<M> = A B' by the dense model."""
    full = ref.mxm(a, bt.T, add, mult, t)
    return ref.Obj(np.where(mask, full.values, np.zeros((), full.values.dtype)), full.present & mask)


def run(gpu: Any, semiring: Any, a: ref.Obj, bt: ref.Obj, mask: np.ndarray, layout: tuple[Any, Any] = (np.int32,
        np.int32)) -> ref.Obj:
    """The backend's product on poisoned memory, as a dense model object."""
    mult = semiring.mult
    xa = mult.x_type.np_type if mult.reads("x") else None
    yb = mult.y_type.np_type if mult.reads("y") else None
    poison()
    product = gpu.mxm_dot(semiring, csr(a, xa, *layout), csr(bt, yb, *layout), mask_of(mask, *layout))
    return product_obj(product, mask.shape, mask)


def check(gpu: Any, name: str, t: DataType, a: ref.Obj, bt: ref.Obj, mask: np.ndarray,
          layout: tuple[Any, Any] = (np.int32, np.int32)) -> None:
    """The product of built-in semiring ``name`` on ``t`` agrees with the model (for ANY: the
    same positions, each value one of the position's terms)."""
    semiring = semirings[name][t]
    add, mult = name.split("_", 1)
    got = run(gpu, semiring, a, bt, mask, layout)
    tt = np.dtype(semiring.mult.x_type.np_type)
    if add == "any":
        exp = expected(a, bt, mask, "plus", "pair", tt)  # presence; pair's only value is 1
        assert np.array_equal(got.present, exp.present)
        assert np.all(got.values[got.present] == ref.cast(1, got.values.dtype))
        return
    exp = expected(a, bt, mask, add, mult, tt)
    assert got.values.dtype == np.dtype(semiring.out_type.np_type)
    assert ref.isequal(got, exp.astype(got.values.dtype)), (name, t, got, exp)


def dense_case(rng: np.random.Generator, t: np.dtype, m: int = 23, n: int = 19, k: int = 31,
               density: float = 0.3) -> tuple[ref.Obj, ref.Obj, np.ndarray]:
    """Random A (m x k), bt (n x k) and a mask (m x n), with an empty row in each."""
    a, bt = random_obj(rng, (m, k), t, density), random_obj(rng, (n, k), t, density)
    a.present[3] = False
    bt.present[5] = False
    mask = rng.random((m, n)) < 0.6
    mask[7] = False
    mask[:, 3] = True
    return a, bt, mask


def hub_case(rng: np.random.Generator, t: np.dtype) -> tuple[ref.Obj, ref.Obj, np.ndarray]:
    """Lists of every kind: short rows; row 0 of A a hub of 6,000 columns meeting short and long
    columns; bt rows 0-2 of 3,000 to 6,000 columns (hub meets hub: the block kernel); rows 1-4
    of A and bt rows 3-7 of 300 to 600 columns (the warp kernel); a mask row meeting every
    column."""
    m, n, k = 40, 60, 8000
    a = random_obj(rng, (m, k), t, 0.002)
    bt = random_obj(rng, (n, k), t, 0.002)
    a.present[0] = rng.random(k) < 0.75
    a.present[1:5] = rng.random((4, k)) < 0.06
    bt.present[0:3] = rng.random((3, k)) < np.array([[0.4], [0.6], [0.75]])
    bt.present[3:8] = rng.random((5, k)) < 0.06
    bt.present[8, :4000] = False  # a long column that starts where the hub row's share ends
    bt.present[8, 4000:] = rng.random(4000) < 0.5
    a.present[5, 4000:] = False
    a.present[5, :4000] = rng.random(4000) < 0.5  # meets bt row 8 nowhere
    mask = rng.random((m, n)) < 0.5
    mask[0] = True
    mask[:8, :9] = True
    return a, bt, mask


# ----------------------------------------------------------------------------- cases


@pytest.mark.parametrize("t", ALL_TYPES, ids=lambda t: t.name)
@pytest.mark.parametrize("name", BUILTIN)
def test_builtin_semirings_every_type(gpu: Any, name: str, t: DataType) -> None:
    """Every built-in type for plus_times, min_plus, max_min, plus_pair, any_pair (membership)
    and lor_land, with empty rows, empty columns and mask positions without a common k."""
    if name == "lor_land" and t != BOOL:
        pytest.skip("lor_land reads BOOL whatever the type asked for (the BOOL case covers it)")
    rng = rng_for(name, t.name)
    a, bt, mask = dense_case(rng, np.dtype(t.np_type))
    check(gpu, name, t, a, bt, mask)


@pytest.mark.parametrize("name,t", [("plus_times", INT64), ("plus_times", FP64), ("min_plus", INT64),
                                    ("max_min", FP64), ("plus_pair", INT64), ("any_pair", INT64),
                                    ("lor_land", BOOL)], ids=lambda x: str(x))
def test_hub_rows_and_columns(gpu: Any, name: str, t: DataType) -> None:
    """Hub rows and columns: entries for the thread, the warp and the block kernels, with the
    early exits of ANY and LOR inside the long lists."""
    a, bt, mask = hub_case(rng_for("hub", name, t.name), np.dtype(t.np_type))
    check(gpu, name, t, a, bt, mask)


@pytest.mark.parametrize("light,warp_short,variant", [(0, 2048, 3), (0, 0, 3), (0, 2048, 0), (0, 0, 0), (1 << 40, 0, 1),
                                                       (1 << 40, 0, 0)])
@pytest.mark.parametrize("name,t", [("plus_times", INT64), ("any_pair", INT64), ("min_plus", INT64),
                                    ("lor_land", BOOL)], ids=lambda x: str(x))
def test_every_schedule(gpu: Any, monkeypatch: Any, name: str, t: DataType, light: int, warp_short: int,
                        variant: int) -> None:
    """Every entry through one schedule: all by warps or all by blocks (light cost 0), or all by
    threads, with each way of searching (the kernels' variant bits)."""
    from grblas_gpu.backends.cupy import dot_mxm

    monkeypatch.setattr(dot_mxm, "LIGHT_COST", light)
    monkeypatch.setattr(dot_mxm, "WARP_SHORT", warp_short)
    monkeypatch.setattr(dot_mxm, "VARIANT", variant)
    a, bt, mask = hub_case(rng_for("schedule", name, t.name, light, warp_short, variant), np.dtype(t.np_type))
    check(gpu, name, t, a, bt, mask)


def test_terminal_values_stop_early(gpu: Any) -> None:
    """MIN over UINT8 stops at 0 and MAX over INT8 at 127, in short and long lists alike: the
    result is still the model's."""
    for name, dt, value in (("min_times", UINT8, 0), ("max_plus", INT8, 100)):
        a, bt, mask = hub_case(rng_for("terminal", name), np.dtype(dt.np_type))
        a.values[a.present & (rng_for(name).random(a.shape) < 0.05)] = value
        bt.values[bt.present & (rng_for(name, 1).random(bt.shape) < 0.05)] = 1 if name == "min_times" else 27
        check(gpu, name, dt, a, bt, mask)


def test_empty_mask_and_empty_operands(gpu: Any) -> None:
    """No mask entries, or an operand with no entries: an empty product with m + 1 zero row
    pointers."""
    rng = rng_for("empty")
    a, bt, mask = dense_case(rng, np.dtype(np.int64))
    s = semirings["plus_times"][INT64]
    for mm, aa in ((np.zeros_like(mask), a), (mask, ref.empty(a.shape, np.int64))):
        got = run(gpu, s, aa, bt, mm)
        assert got.nvals == 0


def test_no_common_column_anywhere(gpu: Any) -> None:
    """A and bt use disjoint columns: every mask position is absent from the product."""
    rng = rng_for("disjoint")
    a, bt, mask = dense_case(rng, np.dtype(np.int64))
    a.present[:, ::2] = False
    bt.present[:, 1::2] = False
    got = run(gpu, semirings["plus_pair"][INT64], a, bt, np.ones(mask.shape, bool))
    assert got.nvals == 0


@pytest.mark.parametrize("name", ["min_secondi", "max_secondi", "min_firsti"])
def test_positional_semirings(gpu: Any, name: str) -> None:
    """Positional multipliers see (i, k, k, j): min_secondi gives the least common k."""
    a, bt, mask = hub_case(rng_for("positional", name), np.dtype(np.int64))
    check(gpu, name, INT64, a, bt, mask)


def test_any_secondj_membership(gpu: Any) -> None:
    """any_secondj: every entry of C(i, j) is j."""
    a, bt, mask = dense_case(rng_for("secondj"), np.dtype(np.int64))
    got = run(gpu, semirings["any_secondj"][INT64], a, bt, mask)
    exp = expected(a, bt, mask, "plus", "pair", np.dtype(np.int64))
    assert np.array_equal(got.present, exp.present)
    cols = np.broadcast_to(np.arange(mask.shape[1]), mask.shape)
    assert np.array_equal(got.values[got.present], cols[got.present])


def test_user_defined_semiring(gpu: Any) -> None:
    """A semiring of user-defined operators: max over k of 2 a + b, on FP64."""
    cond_max = binary.register_anonymous(lambda x, y: max(y, x))
    add = monoid.register_anonymous(cond_max, -np.inf)
    mult = binary.register_anonymous(lambda x, y: x * 2 + y)
    s = semiring_ns.register_anonymous(add, mult)[FP64]
    a, bt, mask = hub_case(rng_for("udf"), np.dtype(np.float64))
    got = run(gpu, s, a, bt, mask)
    terms = np.where(a.present[:, None, :] & bt.present[None, :, :],
                     2 * a.values[:, None, :] + bt.values[None, :, :], -np.inf)
    have = (a.present[:, None, :] & bt.present[None, :, :]).any(axis=2) & mask
    assert np.array_equal(got.present, have)
    assert np.array_equal(got.values[have], terms.max(axis=2)[have])


@pytest.mark.parametrize("layout", [(np.int64, np.int32), (np.int64, np.int64)], ids=["p64i32", "i64"])
@pytest.mark.parametrize("name", ["plus_times", "any_pair", "min_plus"])
def test_wide_layouts(gpu: Any, name: str, layout: tuple[Any, Any]) -> None:
    """int64 row pointers beside int32 indices, and int64 indices."""
    a, bt, mask = hub_case(rng_for("layout", name, str(layout)), np.dtype(np.int64))
    check(gpu, name, INT64, a, bt, mask, layout)


def test_mixed_layouts(gpu: Any) -> None:
    """Operands of different layouts (A's row pointers int64, the others int32) meet in one."""
    a, bt, mask = dense_case(rng_for("mixed"), np.dtype(np.int64))
    s = semirings["plus_times"][INT64]
    poison()
    got = gpu.mxm_dot(s, csr(a, np.int64, np.int64), csr(bt, np.int64), mask_of(mask))
    exp = expected(a, bt, mask, "plus", "times", np.dtype(np.int64))
    assert ref.isequal(product_obj(got, mask.shape, mask), exp)


def sparse_rows(rng: np.random.Generator, lengths: np.ndarray, k: int) -> Any:
    """A scipy CSR matrix whose row r holds ``lengths[r]`` random columns below ``k`` (values
    small integers, zeros among them: stored entries all the same)."""
    import scipy.sparse as sp

    cols = [np.sort(rng.choice(k, size=ln, replace=False)) for ln in lengths]
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    idx = np.concatenate(cols) if cols else np.zeros(0, int)
    return sp.csr_matrix((rng.integers(-5, 6, idx.size).astype(np.int64), idx, indptr), shape=(len(lengths), k))


def check_scipy(gpu: Any, a: Any, bt: Any, mask: np.ndarray) -> None:
    """C<M> = A B' over plus_times on INT64 against scipy: values from A @ B', the structure from
    the product of the two patterns (stored zeros are entries)."""
    import scipy.sparse as sp

    pa = sp.csr_matrix((np.ones(a.nnz, np.int64), a.indices, a.indptr), shape=a.shape)
    pb = sp.csr_matrix((np.ones(bt.nnz, np.int64), bt.indices, bt.indptr), shape=bt.shape)
    structure = (pa @ pb.T).toarray() > 0
    values = (a @ bt.T).toarray()
    got = run(gpu, semirings["plus_times"][INT64], ref.Obj(a.toarray(), pa.toarray() > 0),
              ref.Obj(bt.toarray(), pb.toarray() > 0), mask)
    assert np.array_equal(got.present, structure & mask)
    assert np.array_equal(got.values[got.present], values[got.present])


@pytest.mark.parametrize("seed", range(4))
def test_power_law_against_scipy(gpu: Any, seed: int) -> None:
    """Skewed random matrices (a few long rows, many short ones) against scipy."""
    rng = rng_for("power", seed)
    m, n, k = 300, 250, 5000
    a = sparse_rows(rng, np.minimum((rng.pareto(1.2, m) * 8).astype(int), k), k)
    bt = sparse_rows(rng, np.minimum((rng.pareto(1.2, n) * 8).astype(int), k), k)
    check_scipy(gpu, a, bt, rng.random((m, n)) < 0.3)


def test_mask_row_of_thousands(gpu: Any) -> None:
    """One mask row of 5,000 positions (a hub row of A meeting 5,000 short columns) beside rows
    of a few."""
    rng = rng_for("thousands")
    k = 3000
    a = sparse_rows(rng, np.array([3, 2000, 0, 40]), k)
    bt = sparse_rows(rng, rng.integers(0, 12, 5000), k)
    mask = rng.random((4, 5000)) < 0.01
    mask[1] = True
    check_scipy(gpu, a, bt, mask)


def test_triangle_count_matches_scipy(gpu: Any) -> None:
    """sum(C<L> = L L' over plus_pair) is the triangle count: scipy's sum((L L') .* L)."""
    import scipy.sparse as sp

    rng = rng_for("triangles")
    n = 400
    upper = sp.triu(sp.random(n, n, density=0.05, random_state=np.random.RandomState(7), format="csr"), 1)
    sym = ((upper + upper.T) > 0).astype(np.int64)
    low = sp.tril(sym, -1).tocsr()
    low.sort_indices()
    expected_count = int((low @ low.T).multiply(low).sum())
    present = low.toarray() > 0
    obj = ref.Obj(present.astype(np.int64), present)
    got = run(gpu, semirings["plus_pair"][INT64], obj, obj, present)
    assert int(got.values[got.present].sum()) == expected_count > 0
    del rng


def test_bad_input(gpu: Any) -> None:
    """A complemented mask and mismatched shapes are refused with GrB-named errors."""
    a, bt, mask = dense_case(rng_for("bad"), np.dtype(np.int64))
    s = semirings["plus_times"][INT64]
    m = mask_of(mask)
    with pytest.raises(InvalidValue):
        gpu.mxm_dot(s, csr(a, np.int64), csr(bt, np.int64), MaskOperand(m.indptr, m.indices, complement=True))
    with pytest.raises(DimensionMismatch):
        gpu.mxm_dot(s, csr(a, np.int64), csr(ref.empty((bt.shape[0], 5), np.int64), np.int64), m)
    with pytest.raises(DimensionMismatch):
        gpu.mxm_dot(s, csr(a, np.int64), csr(bt, np.int64), mask_of(mask[:-1]))


def test_out_of_memory_is_grb_named(gpu: Any) -> None:
    """A product that cannot get its memory raises OutOfMemory, not CuPy's error."""
    import cupy

    rng = rng_for("oom")
    a = random_obj(rng, (3000, 50), np.dtype(np.int64), 0.05)
    ops = csr(a, np.int64), csr(a, np.int64), mask_of(np.ones((3000, 3000), bool))  # 9 M positions
    pool = cupy.get_default_memory_pool()
    pool.free_all_blocks()
    pool.set_limit(size=pool.total_bytes() + (1 << 20))
    try:
        with pytest.raises(OutOfMemory):
            gpu.mxm_dot(semirings["plus_times"][INT64], *ops)
    finally:
        pool.set_limit(size=0)
