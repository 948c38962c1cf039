"""The CuPy backend against the NumPy reference, method by method, on random inputs.

Integer and BOOL results must be equal; float results of element-wise operators
(transcendental functions differ in the last bits between CUDA and the host
libm) and of float semiring sums must be close, NaN matching NaN.  Reductions on
floats use values whose sums and products are exact in any order, so they are
compared exactly.  ANY monoids may return any element of a segment.

Needs CuPy and a CUDA GPU; skipped elsewhere.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from grblas_gpu.backends import get_backend, gpu_available
from grblas_gpu.backends.cupy.codegen import merge_schedule_applies, vector_value_read
from grblas_gpu.backends.numpy_backend import NumpyBackend
from grblas_gpu.backends.operands import CsrOperand, ListedVector, RowMask, SpmvOutput, VectorOperand
from grblas_gpu.dtypes import ALL_TYPES, BOOL, FP32, FP64, INT8, INT32, INT64, DataType, cast_scalar
from grblas_gpu.exceptions import DomainMismatch, InvalidValue, OutOfMemory
from grblas_gpu.operators import catalog
from grblas_gpu.operators import semiring as semirings
from grblas_gpu.operators.base import Positions, TypedMonoid, TypedSemiring

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not gpu_available(), reason="needs CuPy and a CUDA GPU (none usable here)"),
]

REF = NumpyBackend()
N = 1000

# Catalog entries whose CUDA snippet disagrees with the NumPy implementation: bxnor on BOOL
# renders ``(Z)(~(x ^ y))``, which is always true for bool operands (fix in operators/catalog.py).
KNOWN_CATALOG_BUGS: set[tuple[str, str, str]] = set()


def _spmspv(gpu: Any, sr: Any, indptr: Any, indices: Any, values: Any, frontier: Any, fvals: Any, size: int,
            vector_first: bool, dense: bool = False, longest_row: int | None = None, mask: Any = None,
            complement: bool = False, launches: dict[Any, Any] | None = None) -> Any:
    """The backend's push with its records made of plain arrays (a bitmap frontier with ``dense``)."""
    nrows = int(indptr.shape[0]) - 1
    a = CsrOperand(indptr, indices, values, nrows, size)
    u = VectorOperand(fvals, frontier) if dense else ListedVector(frontier, fvals, longest_row)
    return gpu.spmspv(sr, a, u, size, vector_first, RowMask(mask, complement) if mask is not None else None, launches)


@pytest.fixture(scope="module")
def gpu() -> Any:
    """The CuPy backend."""
    return get_backend("cupy")


def spmv_call(be: Any, sr: TypedSemiring, indptr: Any, indices: Any, values: Any, x: Any, x_present: Any,
              row_mask: Any, vector_first: bool, plan: Any = None, *, presence: bool = True, complement: bool = False,
              into: Any = None, out: Any = None, claim: Any = None) -> Any:
    """``be.spmv`` with its operands given as arrays (the records it takes made here)."""
    a = CsrOperand(indptr, indices, values, int(indptr.shape[0]) - 1, int(x.shape[0]))
    mask = None if row_mask is None else RowMask(row_mask, complement)
    return be.spmv(sr, a, VectorOperand(x, x_present), vector_first, plan, mask,
                   SpmvOutput(presence, into, out, claim))


def rng_for(*parts: Any) -> np.random.Generator:
    """A generator seeded by the test parameters (stable across runs)."""
    return np.random.default_rng(zlib.crc32(repr(parts).encode()))


def _typed_ids(kind: str, table: dict[str, Any], types: tuple[DataType, ...] = ALL_TYPES) -> list[Any]:
    """(name, type) params for every operator of ``table`` defined on each type, known bugs xfailed."""
    params = []
    for name in sorted(table):
        for t in types:
            try:
                table[name][t]
            except DomainMismatch:
                continue
            marks = [pytest.mark.xfail(reason="catalog bug, see KNOWN_CATALOG_BUGS")] \
                if (kind, name, t.name) in KNOWN_CATALOG_BUGS else []
            params.append(pytest.param(name, t, id=f"{name}-{t.name}", marks=marks))
    return params


# ----------------------------------------------------------------------------- data


def random_values(rng: np.random.Generator, t: DataType, n: int, *, small: bool = False) -> np.ndarray:
    """Random values of ``t`` with the type's corners mixed in (unless ``small``)."""
    if t.is_bool:
        return rng.random(n) < 0.5
    if t.is_float:
        v = rng.normal(0.0, 10.0, n)
        if not small:
            specials = [0.0, -0.0, 0.5, -0.5, 2.5, -2.5, 1e30, np.inf, -np.inf, np.nan]
            where = rng.random(n) < 0.15
            v[where] = rng.choice(specials, size=int(where.sum()))
        return v.astype(t.np_type)
    info = np.iinfo(t.np_type)
    lo, hi = (max(info.min, -5), 5) if small else (max(info.min, -20), 20)
    v = rng.integers(lo, hi, n, endpoint=True).astype(t.np_type)
    if not small:
        wide = rng.random(n) < 0.25
        v[wide] = rng.integers(info.min, info.max, int(wide.sum()), endpoint=True, dtype=t.np_type)
        corners = rng.random(n) < 0.05
        v[corners] = rng.choice(np.array([info.min, info.max, 0, 1], dtype=t.np_type), int(corners.sum()))
    return v


def assert_same(got: Any, expected: np.ndarray, *, close: bool = False, atol_int: int = 0) -> None:
    """``got`` (a CuPy array) equals ``expected``: dtype, shape and values (NaN matches NaN)."""
    host = get_backend("cupy").to_host(got)
    assert isinstance(host, np.ndarray)
    assert host.dtype == expected.dtype, (host.dtype, expected.dtype)
    assert host.shape == expected.shape, (host.shape, expected.shape)
    if expected.dtype.kind == "f":
        if close:
            tol = (1e-5, 1e-6) if expected.dtype == np.float32 else (1e-12, 1e-12)
            ok = (host == expected) | np.isclose(host, expected, rtol=tol[0], atol=tol[1], equal_nan=True)
        else:
            ok = (host == expected) | (np.isnan(host) & np.isnan(expected))
    elif atol_int:
        ok = np.abs(host.astype(np.float64) - expected.astype(np.float64)) <= atol_int
    else:
        ok = host == expected
    if not np.all(ok):
        bad = np.flatnonzero(~np.asarray(ok).ravel())[:8]
        raise AssertionError(f"{len(np.flatnonzero(~np.asarray(ok)))} values differ, e.g. at {bad.tolist()}: "
                             f"got {host.ravel()[bad].tolist()}, expected {expected.ravel()[bad].tolist()}")


# ----------------------------------------------------------------------------- arrays and casts


def test_asarray_and_to_host(gpu: Any) -> None:
    """Arrays move to the device and back unchanged."""
    import cupy

    x = np.arange(10, dtype=np.int32)
    d = gpu.asarray(x)
    assert isinstance(d, cupy.ndarray) and d.dtype == np.int32
    assert np.array_equal(gpu.to_host(gpu.asarray(d)), x)
    assert gpu.asarray(x, dtype=np.float64).dtype == np.float64
    back = gpu.to_host(d)
    assert isinstance(back, np.ndarray) and np.array_equal(back, x)
    gpu.synchronize()


@pytest.mark.parametrize("t", ALL_TYPES, ids=lambda t: t.name)
def test_one_value_upload_and_copy(gpu: Any, t: DataType) -> None:
    """A one-value host array reaches the device as a fill of its value (every type's extremes,
    -0.0 and NaN for floats): the same bits come back; copies of contiguous arrays (a
    memcpy) and of strided views are equal to the source and independent of it."""
    import cupy

    info = np.finfo(t.np_type) if t.is_float else (np.iinfo(t.np_type) if not t.is_bool else None)
    values = [True, False] if t.is_bool else [info.min, info.max, 0, 1]
    if t.is_float:
        values += [-0.0, np.nan, info.tiny]
    for v in values:
        host = np.array([v], dtype=t.np_type)
        dev = gpu.asarray(host)
        assert dev.shape == (1,) and dev.dtype == t.np_type
        assert gpu.to_host(dev).tobytes() == host.tobytes(), v
    x = cupy.asarray(random_values(rng_for("copy", t.name), t, 1000))
    for src in (x, x[::3]):
        want = gpu.to_host(src)
        got = gpu.copy(src)
        src[...] = src[0]  # the copy is its own
        assert got.dtype == src.dtype and np.array_equal(gpu.to_host(got), want, equal_nan=t.is_float)
    assert gpu.copy(cupy.zeros(0, t.np_type)).size == 0


@pytest.mark.parametrize("src", ALL_TYPES, ids=lambda t: t.name)
@pytest.mark.parametrize("dst", ALL_TYPES, ids=lambda t: t.name)
def test_cast(gpu: Any, src: DataType, dst: DataType) -> None:
    """C-style casts between every pair of types, saturation included."""
    x = random_values(rng_for("cast", src, dst), src, N)
    if src.is_float:  # values beyond every integer range, to check saturation
        x[:6] = np.array([1e19, -1e19, 3e9, -3e9, 1e300 if src == FP64 else 3e38, -0.75], dtype=src.np_type)
    assert_same(gpu.cast(gpu.asarray(x), dst), np.asarray(REF.cast(x, dst)))


# ----------------------------------------------------------------------------- element-wise


@pytest.mark.parametrize("name,t", _typed_ids("unary", catalog.UNARY))
def test_unary(gpu: Any, name: str, t: DataType) -> None:
    """Every built-in unary operator on every type."""
    op = catalog.UNARY[name][t]
    x = random_values(rng_for("unary", name, t), op.in_type, N)
    assert_same(gpu.unary(op, gpu.asarray(x)), REF.unary(op, x), close=True)


def _binary_inputs(name: str, op: Any, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    # Integer pow goes through double pow: keep results exactly representable.
    small = name == "pow" and op.x_type.is_integer
    x = random_values(rng, op.x_type, N, small=small)
    y = random_values(rng, op.y_type, N, small=small)
    if op.y_type.is_integer:
        y[::17] = 0  # division by zero
    return x, y


def _positions(rng: np.random.Generator) -> Positions:
    return Positions(rng.integers(0, 100, N), 7, rng.integers(0, 50, N), 3)


@pytest.mark.parametrize("name,t", _typed_ids("binary", catalog.BINARY))
def test_binary(gpu: Any, name: str, t: DataType) -> None:
    """Every built-in binary operator: array-array, array-scalar and scalar-array, the scalar
    given on the host and as a 0-d device array (read by the kernel where it lies)."""
    op = catalog.BINARY[name][t]
    rng = rng_for("binary", name, t)
    x, y = _binary_inputs(name, op, rng)
    pos = _positions(rng) if op.positional else None
    dpos = None if pos is None else Positions(*(gpu.asarray(p) if np.ndim(p) else p
                                                for p in (pos.xi, pos.xj, pos.yi, pos.yj)))
    atol = 1 if name == "pow" and op.out_type.is_integer else 0  # CUDA and libm pow may differ by an ulp
    sx, sy = cast_scalar(x[3], op.x_type), cast_scalar(y[5], op.y_type)
    assert_same(gpu.binary(op, gpu.asarray(x), gpu.asarray(y), dpos), REF.binary(op, x, y, pos),
                close=True, atol_int=atol)
    assert_same(gpu.binary(op, gpu.asarray(x), sy, dpos), REF.binary(op, x, sy, pos), close=True, atol_int=atol)
    assert_same(gpu.binary(op, sx, gpu.asarray(y), dpos), REF.binary(op, sx, y, pos), close=True, atol_int=atol)
    # 0-d views of device arrays (uploading a 0-d -0.0 directly gives +0.0 in CuPy)
    dx, dy = gpu.asarray(np.asarray([sx]))[0], gpu.asarray(np.asarray([sy]))[0]
    assert dx.ndim == 0 and dy.ndim == 0
    assert_same(gpu.binary(op, gpu.asarray(x), dy, dpos), REF.binary(op, x, sy, pos), close=True, atol_int=atol)
    assert_same(gpu.binary(op, dx, gpu.asarray(y), dpos), REF.binary(op, sx, y, pos), close=True, atol_int=atol)


def test_binary_two_scalars_and_constant_positions(gpu: Any) -> None:
    """Two bound scalars give a 0-d result; constant positions broadcast."""
    op = catalog.BINARY["plus"][INT32]
    assert_same(gpu.binary(op, np.int32(2), np.int32(5)), REF.binary(op, np.int32(2), np.int32(5)))
    two = gpu.asarray(np.asarray(2, dtype=np.int32))
    assert_same(gpu.binary(op, two, np.int32(5)), REF.binary(op, np.int32(2), np.int32(5)))
    op = catalog.BINARY["secondj"][FP64]
    x = np.arange(5.0)
    pos = Positions(1, 2, 3, 4)
    assert_same(gpu.binary(op, gpu.asarray(x), gpu.asarray(x), pos), REF.binary(op, x, x, pos))


@pytest.mark.parametrize("name,t", _typed_ids("indexunary", catalog.INDEXUNARY, (BOOL, INT32, INT64, FP32, FP64)))
def test_indexunary(gpu: Any, name: str, t: DataType) -> None:
    """Index-unary operators with per-element and constant indices."""
    op = catalog.INDEXUNARY[name][t]
    rng = rng_for("indexunary", name, t)
    x = random_values(rng, op.in_type, N)
    i, j = rng.integers(0, 40, N), rng.integers(0, 40, N)
    thunk = cast_scalar(x[7] if op.uses_value else 3, op.thunk_type)
    assert_same(gpu.indexunary(op, gpu.asarray(x), gpu.asarray(i), gpu.asarray(j), thunk),
                REF.indexunary(op, x, i, j, thunk))
    assert_same(gpu.indexunary(op, gpu.asarray(x), 0, gpu.asarray(j), thunk), REF.indexunary(op, x, 0, j, thunk))


# ----------------------------------------------------------------------------- segment reduce


def _segments(rng: np.random.Generator, mean: int, count: int) -> np.ndarray:
    """Offsets of ``count`` non-empty segments with lengths around ``mean`` (some much longer)."""
    lengths = rng.integers(1, 2 * mean, count, endpoint=True)
    lengths[rng.random(count) < 0.05] = 40 * mean
    return np.r_[0, np.cumsum(lengths)]


def _exact_values(rng: np.random.Generator, monoid: TypedMonoid, n: int) -> np.ndarray:
    """Values whose float reduction is exact in any order.

    Small integers (exact sums); for TIMES mostly +-1 and a few powers of two, so that
    no partial product over- or underflows whatever the order.
    """
    t = monoid.type
    if not t.is_float:
        return random_values(rng, t, n)
    if monoid.name == "times":
        v = rng.choice(np.array([-1.0, 1.0]), n)
        few = rng.random(n) < 0.1
        v[few] = rng.choice(np.array([-2.0, -0.5, 0.5, 2.0]), int(few.sum()))
    else:
        v = rng.integers(-20, 20, n, endpoint=True).astype(np.float64)
    v = v.astype(t.np_type)
    v[rng.random(n) < 0.01] = np.nan
    v[rng.random(n) < 0.01] = np.inf
    return v


def assert_any_choice(got: Any, values: np.ndarray, offsets: np.ndarray) -> None:
    """Each result of an ANY reduction is one of its segment's values."""
    host = get_backend("cupy").to_host(got)
    assert host.dtype == values.dtype and len(host) == len(offsets) - 1
    for s in range(len(host)):
        seg = values[offsets[s]:offsets[s + 1]]
        hit = seg == host[s]
        if seg.dtype.kind == "f":
            hit |= np.isnan(seg) & np.isnan(host[s])
        assert hit.any(), (s, host[s], seg)


@pytest.mark.parametrize("index", [np.int32, np.int64], ids=["i32", "i64"])
@pytest.mark.parametrize("mean", [1, 6, 100])
@pytest.mark.parametrize("name,t", _typed_ids("monoid", catalog.MONOID))
def test_segment_reduce(gpu: Any, name: str, t: DataType, mean: int, index: Any) -> None:
    """Every monoid, short to long segments (lane groups of 1 to 32), both index types."""
    monoid = catalog.MONOID[name][t]
    rng = rng_for("segment_reduce", name, t, mean)
    offsets = _segments(rng, mean, 300).astype(index)
    values = _exact_values(rng, monoid, int(offsets[-1]))
    got = gpu.segment_reduce(monoid, gpu.asarray(values), gpu.asarray(offsets))
    if monoid.is_any:
        assert_any_choice(got, values, offsets)
    else:  # hypot and logaddexp round at every step: a tree of them differs from a fold in the last bits
        inexact = name in ("hypot", "logaddexp", "logaddexp2")
        assert_same(got, REF.segment_reduce(monoid, values, offsets), close=inexact)


def test_segment_reduce_stops_at_terminal_correctly(gpu: Any) -> None:
    """An early exit at the terminal value does not change the result."""
    monoid = catalog.MONOID["min"][INT64]
    values = np.arange(10_000, 0, -1, dtype=np.int64)
    values[::1000] = np.iinfo(np.int64).min  # the terminal, early in every segment
    offsets = np.arange(0, 10_001, 1000)
    assert_same(gpu.segment_reduce(monoid, gpu.asarray(values), gpu.asarray(offsets)),
                REF.segment_reduce(monoid, values, offsets))


def test_segment_reduce_empty(gpu: Any) -> None:
    """No segments: an empty result of the monoid's type."""
    monoid = catalog.MONOID["plus"][FP64]
    got = gpu.segment_reduce(monoid, gpu.asarray(np.empty(0)), gpu.asarray(np.zeros(1, np.int64)))
    assert got.shape == (0,) and got.dtype == np.float64


# ----------------------------------------------------------------------------- spmv


def random_csr(rng: np.random.Generator, nrows: int, ncols: int, mean: float,
               index: Any) -> tuple[np.ndarray, np.ndarray]:
    """indptr and sorted unique column indices; a few rows much longer than the mean, some empty.
    ``index`` is the type of both, or a (row pointer, column index) pair of types."""
    ptr_type, index_type = index if isinstance(index, tuple) else (index, index)
    lengths = np.minimum(rng.poisson(mean, nrows), ncols)
    lengths[rng.random(nrows) < 0.03] = ncols
    cols = [np.sort(rng.choice(ncols, size=k, replace=False)) for k in lengths]
    indptr = np.r_[0, np.cumsum(lengths)].astype(ptr_type)
    indices = (np.concatenate(cols) if cols else np.empty(0)).astype(index_type)
    return indptr, indices


def _index_name(index: Any) -> str:
    """A test id for an index type or a (row pointer, column index) pair."""
    return "-".join(np.dtype(t).name for t in index) if isinstance(index, tuple) else np.dtype(index).name


def _spmv_values(rng: np.random.Generator, sr: TypedSemiring, t: DataType, n: int) -> np.ndarray:
    """Operands whose float sums are exact; for a TIMES monoid factors >= 1, so overflow is order-free."""
    if not t.is_float:
        return random_values(rng, t, n, small=True)
    if sr.monoid.name == "times":
        return rng.choice(np.array([1.0, 1.5, 2.0]), n).astype(t.np_type)
    return rng.integers(-5, 5, n, endpoint=True).astype(t.np_type)


_ADD_UFUNC = {"plus": np.add, "min": np.minimum, "max": np.maximum}


def _numpy_spmv(name: str, t: DataType, indptr: np.ndarray, indices: np.ndarray, values: np.ndarray, x: np.ndarray,
                x_present: np.ndarray | None, row_mask: np.ndarray | None, vf: bool) -> tuple[np.ndarray, np.ndarray]:
    """(values, presence) of a pull SpMV written out in NumPy, independently of the backends,
    for the semirings ``<add>_<mult>`` with add plus, min, max or any and mult times, plus, min,
    second, pair or secondi: the terms MULT(A[r, k], x[k]) (MULT(x[k], A[r, k]) when ``vf``) of
    the present x[k], in rows the mask allows, reduced per row.  Values absent are 0."""
    add, mult = name.split("_", 1)
    nrows = indptr.size - 1
    rows = np.repeat(np.arange(nrows), np.diff(indptr))
    cols = np.asarray(indices, dtype=np.int64)
    keep = np.ones(cols.size, bool) if x_present is None else x_present[cols]
    if row_mask is not None:
        keep &= row_mask[rows]
    rows, cols, a = rows[keep], cols[keep], values[keep]
    first, second = (x[cols], a) if vf else (a, x[cols])
    terms = {"times": lambda: first * second, "plus": lambda: first + second, "min": lambda: np.minimum(first, second),
             "second": lambda: second, "pair": lambda: np.ones(cols.size), "secondi": lambda: cols}[mult]()
    terms = terms.astype(t.np_type)
    has = np.zeros(nrows, bool)
    has[rows] = True
    out = np.zeros(nrows, t.np_type)
    if add == "any":
        out[rows] = terms
        return out, has
    if add == "plus":
        start = 0
    elif t.is_float:
        start = np.inf if add == "min" else -np.inf
    else:
        start = np.iinfo(t.np_type).max if add == "min" else np.iinfo(t.np_type).min
    out = np.full(nrows, start, t.np_type)
    _ADD_UFUNC[add].at(out, rows, terms)
    out[~has] = 0
    return out, has


def _spmv_cases() -> Iterator[Any]:
    """Every built-in semiring on every SpMV type, varying index type, vector_first and density."""
    k = 0
    for name in catalog.BUILTIN_SEMIRINGS:
        for t in (FP32, FP64, INT32, INT64, BOOL):
            try:
                semirings[name][t]
            except DomainMismatch:
                continue
            index, vf, mean = (np.int32, np.int64)[k % 2], bool(k // 2 % 2), (0.5, 5.0, 60.0)[k % 3]
            k += 1
            ident = f"{name}-{t.name}-{_index_name(index)}-vf{int(vf)}-m{mean}"
            yield pytest.param(name, t, index, vf, mean, id=ident)
    for name in ("min_plus", "any_secondi", "plus_times", "lor_land", "min_firsti", "max_secondi"):
        t = BOOL if name == "lor_land" else FP64
        for index in (np.int32, np.int64, (np.int64, np.int32)):  # the last: a matrix of 2**31 entries
            for vf in (False, True):
                for mean in (0.5, 5.0, 60.0):
                    yield pytest.param(name, t, index, vf, mean,
                                       id=f"full-{name}-{t.name}-{_index_name(index)}-vf{int(vf)}-m{mean}")


def _spmv_candidates(sr: TypedSemiring, indptr: np.ndarray, indices: np.ndarray, values: np.ndarray,
                     x: np.ndarray, x_present: np.ndarray | None, vf: bool) -> list[np.ndarray]:
    """Per row, every product an ANY monoid may pick."""
    out = []
    for r in range(len(indptr) - 1):
        cols = indices[indptr[r]:indptr[r + 1]].astype(np.int64)
        a = values[indptr[r]:indptr[r + 1]]
        if x_present is not None:
            keep = x_present[cols]
            cols, a = cols[keep], a[keep]
        if vf:
            prod = sr.mult(x[cols], a, Positions(0, cols, cols, r) if sr.mult.positional else None)
        else:
            prod = sr.mult(a, x[cols], Positions(r, cols, cols, 0) if sr.mult.positional else None)
        out.append(np.asarray(prod).astype(sr.out_type.np_type))
    return out


def _merge_plan(gpu: Any, indptr: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A plan with merge-path tiles, whatever the matrix's size."""
    monkeypatch.setattr(gpu, "merge_min_nnz", 0)
    plan = gpu.spmv_plan(gpu.asarray(indptr))
    assert plan is not None and plan.tile_row is not None
    return plan


@pytest.mark.parametrize("name,t,index,vf,mean", list(_spmv_cases()))
@pytest.mark.parametrize("masks", ["none", "x_present", "both", "both, complemented"])
@pytest.mark.parametrize("schedule", ["vector", "merge"])
def test_spmv(gpu: Any, name: str, t: DataType, index: Any, vf: bool, mean: float, masks: str, schedule: str,
              monkeypatch: pytest.MonkeyPatch) -> None:
    """Built-in semirings with and without x presence and row mask (as it is or complemented),
    both operand orders, both schedules (rows cross the merge schedule's tiles and threads at
    every mean length)."""
    sr = semirings[name][t]
    if schedule == "merge" and not merge_schedule_applies(sr):
        pytest.skip(f"the merge schedule does not compute {name}")
    rng = rng_for("spmv", name, t, index, vf, mean, masks)
    nrows, ncols = 300, 200
    indptr, indices = random_csr(rng, nrows, ncols, mean, index)
    a_type, x_type = (sr.mult.y_type, sr.mult.x_type) if vf else (sr.mult.x_type, sr.mult.y_type)
    values = _spmv_values(rng, sr, a_type, len(indices))
    x = _spmv_values(rng, sr, x_type, ncols)
    x_present = rng.random(ncols) < 0.7 if masks != "none" else None
    row_mask = rng.random(nrows) < 0.6 if masks.startswith("both") else None
    complement = masks.endswith("complemented")
    dev = [None if a is None else gpu.asarray(a) for a in (indptr, indices, values, x, x_present, row_mask)]
    plan = _merge_plan(gpu, indptr, monkeypatch) if schedule == "merge" else None
    out, present = spmv_call(gpu, sr, *dev, vf, plan, complement=complement)
    allowed = ~row_mask if complement else row_mask  # type: ignore[operator]
    ref_out, ref_present = spmv_call(REF, sr, indptr, indices, values, x, x_present, allowed, vf)
    assert_same(present, ref_present)
    if not sr.monoid.is_any:
        assert_same(out, ref_out, close=True)
        return
    host = gpu.to_host(out)
    assert host.dtype == ref_out.dtype
    assert np.all(host[~ref_present] == 0)
    candidates = _spmv_candidates(sr, indptr, indices, values, x, x_present, vf)
    for r in np.flatnonzero(ref_present):
        assert host[r] in candidates[r], (r, host[r], candidates[r])


def test_spmv_empty_matrix(gpu: Any) -> None:
    """A matrix without rows gives empty results."""
    sr = semirings["plus_times"][FP64]
    out, present = spmv_call(gpu, sr, gpu.asarray(np.zeros(1, np.int64)), gpu.asarray(np.empty(0, np.int64)),
                            gpu.asarray(np.empty(0)), gpu.asarray(np.ones(3)), None, None, False)
    assert out.shape == (0,) and present.shape == (0,)


def test_spmv_terminal_exit_keeps_results(gpu: Any) -> None:
    """Long rows whose first entries reach the terminal value: the result must not change."""
    sr = semirings["lor_land"][BOOL]
    rng = rng_for("terminal")
    indptr, indices = random_csr(rng, 64, 4000, 2000.0, np.int32)
    values = np.ones(len(indices), bool)
    x = rng.random(4000) < 0.5
    got = spmv_call(gpu, sr, gpu.asarray(indptr), gpu.asarray(indices), gpu.asarray(values), gpu.asarray(x),
                   None, None, False)
    ref = spmv_call(REF, sr, indptr, indices, values, x, None, None, False)
    assert_same(got[0], ref[0])
    assert_same(got[1], ref[1])


# ----------------------------------------------------------------------------- errors


def test_out_of_memory_is_mapped(gpu: Any) -> None:
    """CuPy's out-of-memory error becomes OutOfMemory, naming the bytes."""
    import cupy

    op = catalog.UNARY["abs"][FP64]
    x = gpu.asarray(np.ones(1 << 20))
    pool = cupy.get_default_memory_pool()
    limit = pool.get_limit()
    pool.free_all_blocks()  # no cached block may serve the request
    pool.set_limit(size=pool.used_bytes() + 1024)
    try:
        with pytest.raises(OutOfMemory, match="bytes"):
            gpu.unary(op, x)
    finally:
        pool.set_limit(size=limit)


# ----------------------------------------------------------------------------- large inputs
# Schedules that only engage on large inputs: rows long enough to get a block of their own
# (matrices of more than 2**20 entries) and segments long enough to be reduced in chunks.


def _power_law_csr(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """1.2 M to 1.8 M entries over 4,000 rows: six hub rows of 200k-300k entries, the rest short."""
    n = 4000
    lengths = rng.integers(0, 40, n)
    lengths[rng.choice(n, 6, replace=False)] = rng.integers(200_000, 300_000, 6)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    indices = np.concatenate([np.sort(rng.choice(n, int(k), replace=k > n)) for k in lengths]).astype(np.int32)
    values = rng.integers(1, 9, len(indices)).astype(np.float64)
    return indptr, indices, values, n


@pytest.mark.parametrize("planned", [False, True], ids=["one-launch", "binned"])
@pytest.mark.parametrize("name", ["plus_times", "min_plus", "max_min", "any_pair", "min_secondi"])
def test_spmv_long_rows(gpu: Any, name: str, planned: bool) -> None:
    rng = rng_for("long rows", name)
    indptr, indices, values, n = _power_law_csr(rng)
    assert len(indices) > 1 << 20
    x = rng.integers(1, 9, n).astype(np.float64)
    present = rng.random(n) < 0.9
    row_mask = rng.random(n) < 0.8
    sr = semirings[name][FP64]
    ref_out, ref_has = spmv_call(NumpyBackend(), sr, indptr, indices, values, x, present, row_mask, False)
    plan = gpu.spmv_plan(gpu.asarray(indptr)) if planned else None
    if planned:
        assert plan is not None and plan.long_rows.size == 6
    out, has = spmv_call(gpu, sr, *(gpu.asarray(a) for a in (indptr, indices, values, x, present, row_mask)), False, plan)
    out, has = gpu.to_host(out), gpu.to_host(has)
    assert np.array_equal(has, ref_has)
    if name == "any_pair":
        assert np.all(out[has] == 1)
    else:
        assert np.array_equal(out[has], ref_out[ref_has])  # small integers: exact in any order


@pytest.mark.parametrize("name", ["any_pair", "min_secondi"])
def test_spmv_binned_prepared_launch(gpu: Any, name: str) -> None:
    """The pull over rows binned by length, its launches packed once per plan: the NumPy
    backend's results call after call with other values, vectors and masks (complemented or
    not), the long rows' launch included."""
    rng = rng_for("binned prepared", name)
    indptr, indices, _, n = _power_law_csr(rng)
    sr = semirings[name][FP64]
    ptr, idx = gpu.asarray(indptr), gpu.asarray(indices)
    plan = gpu.spmv_plan(ptr, idx, n)
    assert plan.classes is not None and plan.long_rows.size == 6
    for call in range(3):
        values = rng.integers(1, 9, len(indices)).astype(np.float64)
        x = rng.integers(1, 9, n).astype(np.float64)
        x_present, row_mask = rng.random(n) < 0.7, rng.random(n) < 0.6
        complement = call == 1
        dev = [gpu.asarray(a) for a in (values, x, x_present, row_mask)]
        out, has = spmv_call(gpu, sr, ptr, idx, *dev, False, plan, complement=complement)
        ref_out, ref_has = _numpy_spmv(name, FP64, indptr, indices, values, x, x_present,
                                       ~row_mask if complement else row_mask, False)
        has = gpu.to_host(has)
        assert np.array_equal(has, ref_has), f"call {call}"
        got = gpu.to_host(out)[has]
        if name == "any_pair":
            assert np.all(got == 1), f"call {call}"
        else:
            assert np.array_equal(got, ref_out[ref_has]), f"call {call}"
    kept = [v for k, v in plan.derived.items() if isinstance(k, tuple) and k[0] == "binned call"]
    assert len(kept) == 2  # complemented and not
    assert all(len(launches) == 2 for launches in kept)  # every length class in one launch, the long rows'
    assert len(plan.classes) >= 3 and plan.class_rows.size == sum(int(rows.size) for _, rows in plan.classes)


@pytest.mark.parametrize("planned", [False, True], ids=["one-launch", "binned"])
def test_spmv_claim(gpu: Any, planned: bool) -> None:
    """``claim``: in one launch over the rows in order, each row without an entry in C gets its
    result written into C as well (C(~C.S) << A x), the result holding those rows; against
    NumPy.  Rows binned by length decline, writing nothing."""
    rng = rng_for("claim", planned)
    indptr, indices, values, n = _power_law_csr(rng)
    x = rng.integers(1, 9, n).astype(np.float64)
    x_present = rng.random(n) < 0.5
    c_bits, c_vals = rng.random(n) < 0.3, rng.integers(50, 60, n).astype(np.float64)
    sr = semirings["min_plus"][FP64]
    plan = gpu.spmv_plan(gpu.asarray(indptr)) if planned else None
    bits, vals = gpu.asarray(c_bits), gpu.asarray(c_vals)
    dev = [gpu.asarray(a) for a in (indptr, indices, values, x, x_present)]
    got = spmv_call(gpu, sr, *dev, bits, False, plan, complement=True, claim=vals)
    assert gpu.pull_claims(sr, plan) == (not planned)
    if planned:
        assert plan is not None and plan.classes is not None and got is None
        assert np.array_equal(gpu.to_host(bits), c_bits) and np.array_equal(gpu.to_host(vals), c_vals)
        return
    ref_out, ref_has = _numpy_spmv("min_plus", FP64, indptr, indices, values, x, x_present, ~c_bits, False)
    out, has = gpu.to_host(got[0]), gpu.to_host(got[1])
    assert np.array_equal(has, ref_has) and not (ref_has & c_bits).any()
    assert np.array_equal(out[has], ref_out[ref_has])
    assert np.array_equal(gpu.to_host(bits), c_bits | ref_has)
    assert np.array_equal(gpu.to_host(vals), np.where(ref_has, ref_out, c_vals))


@pytest.mark.parametrize("planned", [False, True], ids=["one-launch", "binned"])
@pytest.mark.parametrize("name", ["plus_times", "min_plus", "any_pair"])
def test_spmv_without_presence(gpu: Any, name: str, planned: bool) -> None:
    """``presence=False`` (x full, no row mask): the rows-by-length schedule returns no
    presence array (the merge schedule, planned for plus_times and min_plus, still makes one)
    and the same values as NumPy's SpMV, long rows and empty rows included."""
    rng = rng_for("no presence", name)
    indptr, indices, values, n = _power_law_csr(rng)
    indptr[1:4] = 0  # rows 0-2 empty (row 3 takes their entries)
    x = rng.integers(1, 9, n).astype(np.float64)
    sr = semirings[name][FP64]
    ref_out, ref_has = spmv_call(NumpyBackend(), sr, indptr, indices, values, x, None, None, False)
    plan = gpu.spmv_plan(gpu.asarray(indptr)) if planned else None
    out, has = spmv_call(gpu, sr, *(gpu.asarray(a) for a in (indptr, indices, values, x)), None, None, False, plan,
                        presence=False)
    assert not ref_has[:3].any() and ref_has[3:].any()
    merge = planned and merge_schedule_applies(sr)
    if merge:
        assert np.array_equal(gpu.to_host(has), ref_has)
    else:
        assert has is None
    out = gpu.to_host(out)
    assert np.all(out[~ref_has] == 0)
    if name == "any_pair":
        assert np.all(out[ref_has] == 1)
    else:
        assert np.array_equal(out, ref_out)  # small integers: exact in any order


@pytest.mark.parametrize("nrows", [1, 5000])
def test_spmv_merge_nan_and_empty_rows(gpu: Any, nrows: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """min over only NaN terms is NaN (no identity enters), rows crossing many tiles included;
    runs of empty rows longer than a tile give no entries."""
    rng = rng_for("merge nan", nrows)
    lengths = rng.integers(0, 3, nrows) * (rng.random(nrows) < 0.3)
    lengths[rng.choice(nrows, 1)] = 20_000
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    indices = rng.integers(0, 100, indptr[-1]).astype(np.int64)
    values = rng.integers(1, 9, indptr[-1]).astype(np.float64)
    x = np.where(rng.random(100) < 0.5, np.nan, 1.0)
    x[rng.integers(0, 100)] = 2.0
    long_row = int(np.argmax(lengths))
    values[indptr[long_row]:indptr[long_row + 1]] = np.nan  # a row of NaN terms only
    sr = semirings["min_plus"][FP64]
    plan = _merge_plan(gpu, indptr, monkeypatch)
    out, has = spmv_call(gpu, sr, *(gpu.asarray(a) for a in (indptr, indices, values, x)), None, None, False, plan)
    ref_out, ref_has = spmv_call(NumpyBackend(), sr, indptr, indices, values, x, None, None, False)
    out, has = gpu.to_host(out), gpu.to_host(has)
    assert np.array_equal(has, ref_has) and np.isnan(out[long_row])
    assert np.array_equal(out[has], ref_out[ref_has], equal_nan=True)


@pytest.mark.parametrize("name", ["plus_times", "max_min"])
def test_spmv_merge_carry_runs(gpu: Any, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows crossing from 2 to about 120 merge tiles, so that their runs of tile carries start
    at every lane of a warp of the fix-up, end in the same warp, at its last lane, or go on
    through several later warps; between them, runs of short and empty rows.  Against a
    NumPy product reduced per row by ``ufunc.reduceat``."""
    from grblas_gpu.backends.cupy import codegen

    rng = rng_for("carry runs", name)
    tile = codegen.MERGE_TILE
    lengths = rng.integers(0, 4, 3000)
    long_rows = rng.choice(lengths.size, 40, replace=False)
    lengths[long_rows] = rng.integers(tile, 120 * tile, long_rows.size)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    ncols = 500
    indices = rng.integers(0, ncols, indptr[-1]).astype(np.int32)
    values = rng.integers(1, 9, indptr[-1]).astype(np.float64)
    x = rng.integers(1, 9, ncols).astype(np.float64)
    sr = semirings[name][FP64]
    plan = _merge_plan(gpu, indptr, monkeypatch)
    out, has = spmv_call(gpu, sr, *(gpu.asarray(a) for a in (indptr, indices, values, x)), None, None, False, plan)
    terms = values * x[indices] if name == "plus_times" else np.minimum(values, x[indices])
    ufunc = np.add if name == "plus_times" else np.maximum
    nonempty = lengths > 0
    ref = ufunc.reduceat(terms, indptr[:-1][nonempty])
    out, has = gpu.to_host(out), gpu.to_host(has)
    assert np.array_equal(has, nonempty)
    assert np.array_equal(out[nonempty], ref)  # small integers: exact in any order


def _skewed_csr(rng: np.random.Generator, index: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """About 60k entries over 3,000 rows and 2,000 columns, the columns drawn from a power
    law (a few columns hold most entries, as a Kronecker graph's hubs)."""
    nrows, ncols = 3000, 2000
    cols = np.minimum(rng.pareto(0.8, 80_000) * 20, ncols - 1).astype(np.int64)
    rows = rng.integers(0, nrows, cols.size)
    keys = np.unique(rows * ncols + cols)
    rows, cols = keys // ncols, keys % ncols
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=nrows))]).astype(index)
    return indptr, cols.astype(index), rng.integers(1, 9, cols.size).astype(np.float64), ncols


@pytest.mark.parametrize("name,t", [("plus_times", FP32), ("min_plus", FP32), ("max_min", INT32),
                                    ("plus_second", FP32), ("plus_pair", INT64), ("plus_times", FP64)])
@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("vf", [False, True], ids=["mxv", "vxm"])
@pytest.mark.parametrize("masks", ["none", "x_present", "both", "both, complemented"])
def test_spmv_column_cache(gpu: Any, name: str, t: DataType, index: Any, vf: bool, masks: str,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A pull through the hot-column cache of a power-law matrix gives the reference result,
    with absent vector entries and a row mask too; the cache is made where the pull reads
    the vector's values or presence."""
    rng = rng_for("column cache", name, index, vf, masks)
    indptr, indices, values, ncols = _skewed_csr(rng, index)
    for attr, value in (("merge_min_nnz", 0), ("hot_columns", 64), ("hot_min_nnz", 0)):
        monkeypatch.setattr(gpu, attr, value)
    nrows = indptr.size - 1
    x = rng.integers(1, 9, ncols).astype(np.float64)
    x_present = rng.random(ncols) < 0.6 if masks != "none" else None
    row_mask = rng.random(nrows) < 0.7 if masks == "both" else None
    sr = semirings[name][t]
    plan = gpu.spmv_plan(gpu.asarray(indptr), gpu.asarray(indices), ncols)
    flags = [None if f is None else gpu.asarray(f) for f in (x_present, row_mask)]
    out, has = spmv_call(gpu, sr, *(gpu.asarray(a) for a in (indptr, indices, values, x)), *flags, vf, plan)
    ref_out, ref_has = spmv_call(NumpyBackend(), sr, indptr, indices, values, x, x_present, row_mask, vf)
    out, has = gpu.to_host(out), gpu.to_host(has)
    assert np.array_equal(has, ref_has)
    assert np.array_equal(out[has], ref_out[ref_has])  # small integers: exact in any order
    cache = plan.derived.get("columns")
    reads_x = vector_value_read(sr, vf)  # not for plus_pair, nor plus_second with x[k] first
    if (x_present is None and not reads_x) or (reads_x and t.np_type.itemsize > 4):
        assert cache is None  # nothing of the vector to gather, or values too wide to gain
    else:
        assert cache is not None and cache.hot.size == 64
        hot = gpu.to_host(cache.hot)
        assert np.bincount(indices, minlength=ncols)[hot].sum() >= 0.5 * indices.size


@pytest.mark.parametrize("t", [FP32, FP64])
@pytest.mark.parametrize("cache", [True, False], ids=["hot columns", "no cache"])
def test_spmv_merge_leaves_l1(gpu: Any, t: DataType, cache: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A merge pull's main kernel asks for shared memory enough for MERGE_BLOCKS_PER_SM blocks
    an SM, not the most the SM has (the rest is L1 for the gathers of x)."""
    import cupy

    from grblas_gpu.backends.cupy import codegen

    rng = rng_for("leaves l1", t, cache)
    indptr, indices, values, ncols = _skewed_csr(rng, np.int32)
    hot = (("hot_columns", 64), ("hot_min_nnz", 0)) if cache else (("hot_min_nnz", 1 << 40),)
    for attr, value in (("merge_min_nnz", 0),) + hot:
        monkeypatch.setattr(gpu, attr, value)
    sr = semirings["plus_times"][t]
    plan = gpu.spmv_plan(gpu.asarray(indptr), gpu.asarray(indices), ncols)
    x = rng.integers(1, 9, ncols).astype(np.float64)
    spmv_call(gpu, sr, *(gpu.asarray(a) for a in (indptr, indices, values, x)), None, None, False, plan)
    # (the kernel reads the values as stored: FP64, whatever the semiring's type)
    module = codegen.spmv_module(sr, np.dtype(np.int32), False, "merge", np.dtype(np.int32), FP64)
    role = "hot" if cache and t.np_type.itemsize <= 4 else "main"
    kernel = gpu._functions[(module.digest, role)]
    attributes = cupy.cuda.Device().attributes
    per_sm = attributes["MaxSharedMemoryPerMultiprocessor"]
    need = codegen.MERGE_BLOCKS_PER_SM * (kernel.shared_size_bytes + attributes["ReservedSharedMemoryPerBlock"])
    percent = kernel.preferred_shared_memory_carveout
    assert percent * per_sm >= 100 * need and percent < 100


@pytest.mark.parametrize("name,t", [("plus_times", FP64), ("min_plus", FP32), ("max_min", INT32),
                                    ("plus_second", FP32)])
@pytest.mark.parametrize("index", [np.int32, np.int64, (np.int64, np.int32)], ids=_index_name)
@pytest.mark.parametrize("vf", [False, True], ids=["mxv", "vxm"])
@pytest.mark.parametrize("x_full", [True, False], ids=["x full", "x partial"])
@pytest.mark.parametrize("c_full", [True, False], ids=["C full", "C partial"])
def test_spmv_merge_into(gpu: Any, name: str, t: DataType, index: Any, vf: bool, x_full: bool, c_full: bool,
                         monkeypatch: pytest.MonkeyPatch) -> None:
    """``into``: the merge schedule adds each row's result into a given (presence, values) by
    the monoid, in place; rows cross tiles and threads, some are empty.  Against the NumPy
    backend's product joined by hand.  The rows-by-length schedule and a row mask decline,
    changing nothing."""
    sr = semirings[name][t]
    rng = rng_for("spmv into", name, t, index, vf, x_full, c_full)
    nrows, ncols = 300, 200
    indptr, indices = random_csr(rng, nrows, ncols, 60.0, index)
    a_type, x_type = (sr.mult.y_type, sr.mult.x_type) if vf else (sr.mult.x_type, sr.mult.y_type)
    values, x = _spmv_values(rng, sr, a_type, len(indices)), _spmv_values(rng, sr, x_type, ncols)
    x_present = None if x_full else rng.random(ncols) < 0.6
    c_bits = np.ones(nrows, bool) if c_full else rng.random(nrows) < 0.5
    c_vals = _spmv_values(rng, sr, sr.out_type, nrows)
    ref_out, ref_has = _numpy_spmv(name, sr.out_type, indptr, indices, values, x, x_present, None, vf)
    both = c_bits & ref_has
    want_vals = np.where(c_bits, c_vals, ref_out)
    want_vals[both] = _ADD_UFUNC[sr.monoid.name](c_vals[both], ref_out[both])
    want_bits = c_bits | ref_has
    dev = [None if a is None else gpu.asarray(a) for a in (indptr, indices, values, x, x_present)]
    bits, vals = gpu.asarray(c_bits.copy()), gpu.asarray(c_vals.copy())
    assert spmv_call(gpu, sr, *dev, None, vf, None, into=(bits, vals)) is None, "the vector schedule declines"
    plan = _merge_plan(gpu, indptr, monkeypatch)
    mask = gpu.asarray(np.ones(nrows, bool))
    assert spmv_call(gpu, sr, *dev, mask, vf, plan, into=(bits, vals)) is None, "a row mask declines"
    assert np.array_equal(gpu.to_host(bits), c_bits) and np.array_equal(gpu.to_host(vals), c_vals)
    got_vals, got_bits = spmv_call(gpu, sr, *dev, None, vf, plan, into=(bits, vals))
    assert got_vals is vals and got_bits is bits
    assert np.array_equal(gpu.to_host(bits), want_bits)
    assert np.array_equal(gpu.to_host(vals)[want_bits], want_vals[want_bits])  # small integers: exact


@pytest.mark.parametrize("name,t", [("plus_times", FP64), ("min_plus", FP32), ("any_pair", BOOL),
                                    ("max_min", INT32), ("min_secondi", INT64)])
@pytest.mark.parametrize("index", [np.int32, np.int64], ids=_index_name)
@pytest.mark.parametrize("vf", [False, True], ids=["mxv", "vxm"])
@pytest.mark.parametrize("masks", ["none", "x partial", "row mask", "complement"])
def test_spmv_prepared_launch(gpu: Any, name: str, t: DataType, index: Any, vf: bool, masks: str) -> None:
    """A small matrix's SpMV, launched from the arguments its plan packed once: the same
    results as the NumPy SpMV, call after call with other vectors and masks (the pointers that
    change are written at each launch), and written into a given ``out`` without presence."""
    sr = semirings[name][t]
    rng = rng_for("prepared spmv", name, t, index, vf, masks)
    nrows, ncols = 300, 200
    indptr, indices = random_csr(rng, nrows, ncols, 8.0, index)
    a_type, x_type = (sr.mult.y_type, sr.mult.x_type) if vf else (sr.mult.x_type, sr.mult.y_type)
    values = _spmv_values(rng, sr, a_type, len(indices))
    ptr, idx, vals = gpu.asarray(indptr), gpu.asarray(indices), gpu.asarray(values)
    plan = gpu.spmv_plan(ptr, idx, ncols)
    assert plan.tile_row is None and plan.indptr is ptr and plan.indices is idx
    for call in range(3):
        x = _spmv_values(rng, sr, x_type, ncols)
        x_present = rng.random(ncols) < 0.6 if masks == "x partial" else None
        row_mask = rng.random(nrows) < 0.7 if masks in ("row mask", "complement") else None
        complement = masks == "complement"
        flags = [None if f is None else gpu.asarray(f) for f in (x_present, row_mask)]
        out, has = spmv_call(gpu, sr, ptr, idx, vals, gpu.asarray(x), *flags, vf, plan, complement=complement)
        ref_mask = None if row_mask is None else (~row_mask if complement else row_mask)
        ref_out, ref_has = _numpy_spmv(name, sr.out_type, indptr, indices, values, x, x_present, ref_mask, vf)
        has = gpu.to_host(has)
        assert np.array_equal(has, ref_has), f"call {call}"
        if sr.monoid.name == "any":
            assert np.all(gpu.to_host(out)[has] == 1)
        else:
            assert np.array_equal(gpu.to_host(out)[has], ref_out[ref_has]), f"call {call}"  # exact
    assert any(key[0] == "vector launch" for key in plan.derived), "the prepared launch ran"
    if masks == "none":  # x full, every row: into a given array, no presence made
        own = gpu.asarray(np.zeros(nrows, sr.out_type.np_type))
        for call in range(2):  # the second through the launch the first packed, with other x
            x = _spmv_values(rng, sr, x_type, ncols)
            out, has = spmv_call(gpu, sr, ptr, idx, vals, gpu.asarray(x), None, None, vf, plan, presence=False, out=own)
            assert out is own and has is None
            ref_out, ref_has = _numpy_spmv(name, sr.out_type, indptr, indices, values, x, None, None, vf)
            if sr.monoid.name != "any":
                assert np.array_equal(gpu.to_host(own)[ref_has], ref_out[ref_has]), f"call {call}"
        # A masked call on the same plan after them takes its own launch, not theirs.
        row_mask = rng.random(nrows) < 0.5
        out, has = spmv_call(gpu, sr, ptr, idx, vals, gpu.asarray(x), None, gpu.asarray(row_mask), vf, plan)
        ref_out, ref_has = _numpy_spmv(name, sr.out_type, indptr, indices, values, x, None, row_mask, vf)
        assert np.array_equal(gpu.to_host(has), ref_has)
        if sr.monoid.name != "any":
            assert np.array_equal(gpu.to_host(out)[ref_has], ref_out[ref_has])


def test_spmv_column_cache_declined(gpu: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """No cache for a matrix whose columns are used evenly."""
    rng = rng_for("column cache declined")
    for attr, value in (("merge_min_nnz", 0), ("hot_columns", 64), ("hot_min_nnz", 0)):
        monkeypatch.setattr(gpu, attr, value)
    nrows, ncols, nnz = 3000, 2000, 60_000
    keys = np.unique(rng.integers(0, nrows * ncols, nnz))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(keys // ncols, minlength=nrows))])
    indices, values = keys % ncols, np.ones(keys.size)
    x, sr = np.ones(ncols), semirings["plus_times"][FP32]
    plan = gpu.spmv_plan(gpu.asarray(indptr), gpu.asarray(indices), ncols)
    out, has = spmv_call(gpu, sr, *(gpu.asarray(a) for a in (indptr, indices, values, x)), None, None, False, plan)
    assert plan.derived["columns"] is None
    ref_out, ref_has = spmv_call(NumpyBackend(), sr, indptr, indices, values, x, None, None, False)
    assert np.array_equal(gpu.to_host(has), ref_has)
    assert np.array_equal(gpu.to_host(out)[ref_has], ref_out[ref_has])


@pytest.mark.parametrize("name,t", [("plus_times", FP32), ("min_plus", FP64), ("max_min", INT32),
                                    ("plus_second", FP32), ("plus_pair", INT64)])
@pytest.mark.parametrize("index", [np.int32, np.int64], ids=_index_name)
@pytest.mark.parametrize("vf", [False, True], ids=["mxv", "vxm"])
@pytest.mark.parametrize("masks", ["none", "x partial", "row mask", "complement"])
@pytest.mark.parametrize("cache", [True, False], ids=["hot columns", "no cache"])
def test_spmv_merge_prepared_launch(gpu: Any, name: str, t: DataType, index: Any, vf: bool, masks: str,
                                    cache: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The merge-path SpMV on the plan's own arrays, its gather, main and fix-up launches
    packed once: the NumPy SpMV's results call after call with other values, vectors and
    masks (the pointers written at each launch), through the hot-column cache or not,
    written into the caller's values with ``out`` (x full), and added into a given result
    with ``into`` between calls."""
    sr = semirings[name][t]
    rng = rng_for("prepared merge", name, t, index, vf, masks, cache)
    indptr, indices, _, ncols = _skewed_csr(rng, index)
    hot = (("hot_columns", 64), ("hot_min_nnz", 0)) if cache else (("hot_min_nnz", 1 << 40),)
    for attr, value in (("merge_min_nnz", 0),) + hot:
        monkeypatch.setattr(gpu, attr, value)
    nrows = indptr.size - 1
    a_type, x_type = (sr.mult.y_type, sr.mult.x_type) if vf else (sr.mult.x_type, sr.mult.y_type)
    ptr, idx = gpu.asarray(indptr), gpu.asarray(indices)
    plan = gpu.spmv_plan(ptr, idx, ncols)
    assert plan.tile_row is not None and plan.indptr is ptr and plan.indices is idx
    for call in range(3):
        values, x = _spmv_values(rng, sr, a_type, len(indices)), _spmv_values(rng, sr, x_type, ncols)
        x_present = rng.random(ncols) < 0.6 if masks == "x partial" else None
        row_mask = rng.random(nrows) < 0.7 if masks in ("row mask", "complement") else None
        complement = masks == "complement"
        flags = [None if f is None else gpu.asarray(f) for f in (x_present, row_mask)]
        dev = (gpu.asarray(values), gpu.asarray(x))
        out, has = spmv_call(gpu, sr, ptr, idx, *dev, *flags, vf, plan, complement=complement)
        ref_mask = None if row_mask is None else (~row_mask if complement else row_mask)
        ref_out, ref_has = _numpy_spmv(name, sr.out_type, indptr, indices, values, x, x_present, ref_mask, vf)
        has = gpu.to_host(has)
        assert np.array_equal(has, ref_has), f"call {call}"
        assert np.array_equal(gpu.to_host(out)[has], ref_out[ref_has]), f"call {call}"  # exact
        if masks == "none":  # x full, every row: written into the caller's values, no presence made
            own = gpu.asarray(np.zeros(nrows, sr.out_type.np_type))
            got, none = spmv_call(gpu, sr, ptr, idx, *dev, None, None, vf, plan, presence=False, out=own)
            assert got is own and none is None, f"call {call}"
            assert np.array_equal(gpu.to_host(own)[ref_has], ref_out[ref_has]), f"call {call}"
        if row_mask is None and call == 1:  # added into C's arrays, by the same kernels
            c_bits, c_vals = rng.random(nrows) < 0.5, _spmv_values(rng, sr, sr.out_type, nrows)
            bits, vals = gpu.asarray(c_bits), gpu.asarray(c_vals)
            got_vals, got_bits = spmv_call(gpu, sr, ptr, idx, *dev, flags[0], None, vf, plan, into=(bits, vals))
            assert got_vals is vals and got_bits is bits
            both = c_bits & ref_has
            want = np.where(c_bits, c_vals, ref_out)
            want[both] = _ADD_UFUNC[sr.monoid.name](c_vals[both], ref_out[both])
            assert np.array_equal(gpu.to_host(bits), c_bits | ref_has)
            assert np.array_equal(gpu.to_host(vals)[c_bits | ref_has], want[c_bits | ref_has])
    made = plan.derived.get("columns") is not None
    calls = [kept for key, kept in plan.derived.items() if isinstance(key, tuple) and key[0] == "merge call"]
    assert calls and all((call.gather is not None) == made for call in calls), "prepared, gathering where cached"
    reads_x = vector_value_read(sr, vf)  # the cache is for values of 4 bytes or less, or for presence
    assert made == (cache and (x_type.np_type.itemsize <= 4 if reads_x else x_present is not None))


@pytest.mark.parametrize("name", ["plus", "min", "max", "times"])
def test_segment_reduce_long_segments(gpu: Any, name: str) -> None:
    rng = rng_for("long segments", name)
    values = rng.integers(-3, 4, 3_000_000).astype(np.int64)
    offsets = np.array([0, 5, 1_000_000, 1_000_001, 3_000_000], dtype=np.int64)
    monoid = catalog.MONOID[name][INT64]
    expected = NumpyBackend().segment_reduce(monoid, values, offsets)
    got = gpu.to_host(gpu.segment_reduce(monoid, gpu.asarray(values), gpu.asarray(offsets)))
    assert np.array_equal(got, expected)


@pytest.mark.parametrize("frontier_form", ["list", "bitmap", "balanced"])
@pytest.mark.parametrize("vector_first", [False, True])
@pytest.mark.parametrize(("name", "t"), [("plus_times", INT64), ("min_plus", FP64), ("max_min", FP32),
                                         ("any_pair", BOOL), ("lor_land", BOOL), ("min_secondi", INT32),
                                         ("any_secondi", FP64), ("plus_pair", INT32), ("times_times", INT32)])
def test_push_atomic_matches_sort(gpu: Any, monkeypatch: pytest.MonkeyPatch, name: str, t: DataType,
                                  vector_first: bool, frontier_form: str) -> None:
    """The atomic push kernels (frontier as a list, as a bitmap, or as a list shared among
    warps by entries) against the CPU's expand-and-sort push, with heavy contention: every
    frontier row also writes the same few hub columns.  Rows 0 and 1 are long (hub rows) and
    the last 100 rows empty, and the frontier holds some of each."""
    import grblas_gpu as gb
    from grblas_gpu.backends.cupy.backend import CupyBackend

    if frontier_form == "balanced":
        monkeypatch.setattr(CupyBackend, "push_balance_row", 0)
    rng = rng_for("push", name, t.name, vector_first)
    n = 3000
    rows = np.where(rng.random(40_000) < 0.2, rng.integers(0, 2, 40_000), rng.integers(0, n - 100, 40_000))
    cols = np.where(rng.random(40_000) < 0.3, rng.integers(0, 4, 40_000), rng.integers(0, n, 40_000))
    vals = rng.integers(1, 4, 40_000)
    frontier = np.unique(np.concatenate([[0, 1, n - 1, n - 2], rng.integers(0, n, 400)]))
    fvals = rng.integers(1, 3, frontier.size) if t != BOOL else True
    results = []
    for backend in ("numpy", "cupy"):
        A = gb.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, dtype=t, dup_op=gb.binary.first, backend=backend)
        u = gb.Vector.from_coo(frontier, fvals, size=n, dtype=t, backend=backend)
        if frontier_form == "bitmap" and backend == "cupy":
            u._set_bitmap(*u._bitmap(), u.nvals)  # keep only the bitmap form
        sr = semirings[name]
        w = (u.vxm(A, sr, method="push") if vector_first else A.T.mxv(u, sr, method="push")).new()
        results.append(w)
    cpu, gpu_result = results
    ci, cv = cpu.to_coo()
    gi, gv = gpu_result.to_coo()
    assert ci.tolist() == gi.tolist()
    if name.startswith("any_"):
        return  # any term will do; the structure is checked above
    assert np.array_equal(cv, gv)


@pytest.mark.parametrize("n", [0, 1, 31, 33, 1000, 3_000_017])
@pytest.mark.parametrize("density", [0.0, 0.01, 0.5, 1.0])
def test_count_true(gpu: Any, n: int, density: float) -> None:
    """The count of true flags against NumPy's count, for sizes that do and do not fill whole
    16-flag words, warps and blocks, and for views that start off a 16-byte boundary (the
    flags around the view are true, so a count that strays past either end is seen)."""
    import cupy

    flags = rng_for("count", n, density).random(n) < density
    assert gpu.count_true(cupy.asarray(flags)) == int(np.count_nonzero(flags))
    padded = cupy.zeros(n + 40, dtype=bool)
    for offset in (1, 7, 15, 17):  # a view that starts off a 16-byte boundary
        padded[:] = True
        view = padded[offset:offset + n]
        view[:] = cupy.asarray(flags)
        assert gpu.count_true(view) == int(np.count_nonzero(flags)), offset


def test_counts_back_to_back_and_on_streams(gpu: Any) -> None:
    """Counts and sums in a row, of sizes needing one block and many, on the default stream
    and on two others, each against NumPy: each count must start from zero (the kernel's
    last block resets the state the next count uses) and be read from its own stream."""
    import cupy

    rng = rng_for("count-streams", 0)
    arrays = [rng.random(n) < d for n, d in ((5, 1.0), (3_000_017, 0.5), (40, 0.0), (1_000_000, 0.01))]
    values = rng.integers(0, 1 << 40, 1_000_000)
    for stream in (cupy.cuda.Stream.null, cupy.cuda.Stream(), cupy.cuda.Stream()):
        with stream:
            for _ in range(3):
                for flags in arrays:
                    assert gpu.count_true(cupy.asarray(flags)) == int(np.count_nonzero(flags))
                picked = arrays[3]
                assert gpu.sum_selected(cupy.asarray(values), flags=cupy.asarray(picked)) == int(values[picked].sum())


def test_queued_counts_with_work_behind(gpu: Any) -> None:
    """Queued counts and sums, each marked at its kernel, read after more work was queued
    behind it on the stream (writes to the very flags counted, sums of the same size), in
    and out of order, on two streams, against NumPy: a count reads its own kernel's total."""
    import cupy

    rng = rng_for("queued-counts", 0)
    values = rng.integers(0, 1 << 40, 2_000_003)
    for stream in (cupy.cuda.Stream.null, cupy.cuda.Stream()):
        with stream:
            pending = []
            for n, density in ((1, 1.0), (2_000_003, 0.5), (77, 0.0), (2_000_003, 0.01), (5000, 0.3)):
                flags = rng.random(n) < density
                dflags = cupy.asarray(flags)
                ahead = gpu.count_ahead(None, dflags)  # queued and marked
                queued = gpu.count_true_queued(dflags)
                weight = gpu.sum_selected_queued(cupy.asarray(values[:n]), dflags)
                marked = gpu.count_ahead(gpu.count_true_queued(dflags), dflags)  # marked after the sum
                dflags[:] = True  # queued behind them all: they must have read the flags before
                cupy.sort(cupy.asarray(values))  # more work behind them
                want = int(np.count_nonzero(flags))
                pending.append(((ahead, queued, marked), weight, want, int(values[:n][flags].sum())))
            for counts, weight, want_count, want_sum in pending[::2] + pending[1::2]:
                assert [int(c) for c in counts] == [want_count] * 3 and int(weight) == want_sum
            assert gpu.count_ahead(7, None) == 7


def test_count_launches_kept_per_size(gpu: Any) -> None:
    """A count's launch is kept prepared per array size: new arrays of a size counted before
    (the changing pointer) and more sizes than are kept (the kept ones dropped, then made
    again) all count as NumPy does."""
    import cupy

    rng = rng_for("count-kept", 0)
    sizes = [int(n) for n in rng.integers(1, 5000, 80)] + [4096, 4096]
    for n in sizes + sizes[:5]:
        flags = rng.random(n) < 0.3
        assert gpu.count_true(cupy.asarray(flags)) == int(np.count_nonzero(flags)), n
    kept = gpu._counts().kept
    assert ("count", sizes[4]) in kept and len(kept) <= 65


@pytest.mark.parametrize("t", ALL_TYPES, ids=[t.name for t in ALL_TYPES])
def test_bitmap_write_kernels(gpu: Any, t: DataType) -> None:
    """The one-pass steps of bitmap writes against NumPy expressions: the positions a
    structural or value mask allows (values with zeros, and NaN for floats, so the two
    differ), complemented or not, within a third set or not, and their number counted in the
    same pass (through launches kept per complement flag); a select of presence and values
    from an array or a scalar; and an array filled with one value."""
    import cupy

    rng = rng_for("bitmap", t.name)
    n = 10_007

    def values() -> np.ndarray:
        v = rng.integers(0, 3, n).astype(t.np_type)
        if t.is_float:
            v[::7] = np.nan
        return v

    bits, vals, within = rng.random(n) < 0.5, values(), rng.random(n) < 0.7
    for mask_vals in (None, vals):
        for complement in (False, True):
            for w in (None, within):
                want = bits if mask_vals is None else bits & mask_vals.astype(bool)  # NaN counts as true
                want = ~want if complement else want
                want = want if w is None else want & w
                got = gpu.mask_allowed(cupy.asarray(bits), None if mask_vals is None else cupy.asarray(mask_vals),
                                       complement, None if w is None else cupy.asarray(w))
                assert np.array_equal(cupy.asnumpy(got), want), (mask_vals is None, complement, w is None)
                got, count = gpu.mask_allowed_counted(cupy.asarray(bits),
                                                      None if mask_vals is None else cupy.asarray(mask_vals),
                                                      complement, None if w is None else cupy.asarray(w))
                assert np.array_equal(cupy.asnumpy(got), want) and int(count) == int(np.count_nonzero(want))
    # The calls above went through a launch kept per complement flag, its pointers (or nulls)
    # written at each call; the last one's is kept (a full store is emptied only before packing).
    assert (True,) in [key[4:] for key in gpu._elementwise if key[2:4] == ("allowed", n)]
    m, a_bits, c_bits = (rng.random(n) < 0.5 for _ in range(3))
    a_vals, c_vals = values(), values()
    scalar = cast_scalar(1, t)
    for a_b, a_v in ((a_bits, a_vals), (None, a_vals), (None, scalar)):
        want_bits = np.where(m, True if a_b is None else a_b, c_bits)
        want_vals = np.where(m, a_v, c_vals)
        got_bits, got_vals = gpu.select_bitmap(cupy.asarray(m), None if a_b is None else cupy.asarray(a_b),
                                               a_v if a_v is scalar else cupy.asarray(a_v),
                                               cupy.asarray(c_bits), cupy.asarray(c_vals))
        assert np.array_equal(cupy.asnumpy(got_bits), want_bits)
        assert got_vals.dtype == t.np_type
        assert np.array_equal(cupy.asnumpy(got_vals)[want_bits], want_vals[want_bits], equal_nan=t.is_float)
    for value in (0, 1, -3, 200.5):  # one size, so one kept launch takes each value in turn
        want = np.full(n, cast_scalar(value, t))
        got = gpu.full(n, value, t)
        assert got.dtype == t.np_type and np.array_equal(cupy.asnumpy(got), want)


@pytest.mark.parametrize("t", [BOOL, INT8, INT64, FP32, FP64], ids=lambda t: t.name)
@pytest.mark.parametrize("n", [1, 15, 16, 17, 33, 10_007])
@pytest.mark.parametrize("density", [0.0, 0.001, 0.5, 1.0])
def test_set_where(gpu: Any, t: DataType, n: int, density: float) -> None:
    """The in-place masked assign against NumPy's ``bits[m] = True; vals[m] = a``, with the
    mask as a view starting on and off a 16-byte boundary, true flags around it (a read past
    either end would set more), and the arrays' other positions kept.  Each call assigns
    another value (the launch kept at the first call writes the new one)."""
    import cupy

    rng = rng_for("set_where", t.name, n, density)
    m = rng.random(n) < density
    bits, vals = rng.random(n) < 0.5, rng.integers(0, 3, n).astype(t.np_type)
    for offset, value in zip((0, 1, 9), (1, 0, 1) if t.is_bool else (7, -2, 2.5 if t.is_float else 5)):
        a = cast_scalar(value, t)
        padded = cupy.ones(n + 32, dtype=bool)  # true around the view: a stray read would set more
        padded[offset:offset + n] = cupy.asarray(m)
        got_bits, got_vals = cupy.asarray(bits), cupy.asarray(vals)
        gpu.set_where(padded[offset:offset + n], a, got_bits, got_vals)
        want_bits, want_vals = bits.copy(), vals.copy()
        want_bits[m], want_vals[m] = True, a
        assert np.array_equal(cupy.asnumpy(got_bits), want_bits), offset
        assert np.array_equal(cupy.asnumpy(got_vals), want_vals), offset


@pytest.mark.parametrize("op", ["lt", "minus", "max", "pow"])
@pytest.mark.parametrize("t", [INT32, FP64])
def test_ewise_union_kernel(gpu: Any, op: str, t: DataType) -> None:
    """The fused bitmap eWiseUnion against the operator applied (on the CPU) to each side's
    value or default, compared where either operand holds an entry."""
    import cupy

    from grblas_gpu.operators import binary

    rng = rng_for("union", op, t.name)
    n = 5000
    xb, yb = rng.random(n) < 0.5, rng.random(n) < 0.5
    x, y = (rng.integers(-9, 9, n).astype(t.np_type) for _ in range(2))
    typed = getattr(binary, op)[t]
    want_bits = xb | yb
    want_vals = typed(np.where(xb, x, t.np_type.type(3)), np.where(yb, y, t.np_type.type(-2)))
    got_vals, got_bits = gpu.ewise_union(typed, *(cupy.asarray(a) for a in (xb, x, yb, y)), 3, -2)
    got_bits, got_vals = cupy.asnumpy(got_bits), cupy.asnumpy(got_vals)
    assert np.array_equal(got_bits, want_bits)
    if t.is_float:  # CUDA's pow may differ from the C library's in the last bit
        np.testing.assert_allclose(got_vals[want_bits], want_vals[want_bits], rtol=1e-14)
    else:
        assert np.array_equal(got_vals[want_bits], want_vals[want_bits])


@pytest.mark.parametrize("n", [1, 255, 257, 100_003, 3_000_017])
@pytest.mark.parametrize(("monoid", "t"), [("plus", INT64), ("plus", FP64), ("min", FP32), ("max", INT32),
                                           ("lor", BOOL), ("land", BOOL), ("any", INT32)])
def test_reduce_all(gpu: Any, n: int, monoid: str, t: DataType) -> None:
    """A whole array reduced in two strided passes against NumPy, for sizes of one block,
    one block and one value more, and many blocks (float sums of integers are exact)."""
    import cupy

    from grblas_gpu.operators import monoid as monoids

    rng = rng_for("reduce-all", n, monoid, t.name)
    values = (rng.random(n) < 0.999) if t == BOOL else rng.integers(-1000, 1000, n).astype(t.np_type)
    got = cupy.asnumpy(gpu.reduce_all(getattr(monoids, monoid)[t], cupy.asarray(values)))
    assert got.shape == (1,)
    if monoid == "any":
        assert got[0] in values
        return
    want = {"plus": np.sum, "min": np.min, "max": np.max, "lor": np.any, "land": np.all}[monoid](values)
    assert got[0] == want


@pytest.mark.parametrize("n", [1, 257, 3_000_017])
@pytest.mark.parametrize(("name", "t"), [("plus_times", FP64), ("plus_times", INT32), ("min_plus", FP32),
                                         ("max_min", INT64), ("lor_land", BOOL), ("plus_pair", INT64)])
def test_dot(gpu: Any, n: int, name: str, t: DataType) -> None:
    """The fused inner product of two full vectors against NumPy (float sums of integers are
    exact), for one block, one block and one element more, and many blocks."""
    import cupy

    rng = rng_for("dot", n, name, t.name)
    x, y = ((rng.random(n) < 0.9) if t == BOOL else rng.integers(-50, 50, n).astype(t.np_type) for _ in range(2))
    want = {"plus_times": lambda: np.sum(x * y, dtype=t.np_type), "min_plus": lambda: np.min(x + y),
            "max_min": lambda: np.max(np.minimum(x, y)), "lor_land": lambda: np.any(x & y),
            "plus_pair": lambda: n}[name]()
    got = cupy.asnumpy(gpu.dot(getattr(semirings, name)[t], cupy.asarray(x), cupy.asarray(y)))
    assert got.shape == (1,) and got[0] == want


def test_kept_launches_take_each_calls_operands(gpu: Any) -> None:
    """Element-wise products and inner products repeated at one size, as a loop runs them
    through launches kept prepared: each call's arrays, host scalar (written at each launch)
    and device scalar are the ones used, between counts (the inner product shares the
    stream's finished-block count) and on a second stream, against NumPy."""
    import cupy

    times, minus = catalog.BINARY["times"][FP32], catalog.BINARY["minus"][FP32]
    rng = rng_for("kept-launches", 0)
    n = 300_007
    for stream in (cupy.cuda.Stream.null, cupy.cuda.Stream()):
        with stream:
            for k in range(4):
                x, y = rng.integers(-9, 9, n).astype(np.float32), rng.integers(-9, 9, n).astype(np.float32)
                s = np.float32(k - 1.5)
                dx, dy, ds = cupy.asarray(x), cupy.asarray(y), cupy.asarray(np.float32(k + 2.0))
                assert_same(gpu.binary(times, dx, dy), x * y)
                assert_same(gpu.binary(minus, dx, s), x - s)
                assert_same(gpu.binary(minus, s, dy), s - y)
                assert_same(gpu.binary(times, dx, ds), x * np.float32(k + 2.0))
                flags = rng.random(n) < 0.5
                assert gpu.count_true(cupy.asarray(flags)) == int(np.count_nonzero(flags))
                got = cupy.asnumpy(gpu.dot(semirings.plus_times[FP32], dx, dy))
                assert got[0] == np.sum(x.astype(np.float64) * y)  # small integers: every partial sum exact
                assert gpu.count_true(cupy.asarray(~flags)) == n - int(np.count_nonzero(flags))


@pytest.mark.parametrize("n", [0, 1, 31, 33, 100_000])
def test_sum_selected(gpu: Any, n: int) -> None:
    """The sum of values over flagged positions and over listed positions, against NumPy."""
    rng = rng_for("sum-selected", n)
    values = rng.integers(0, 1 << 40, n)
    flags = rng.random(n) < 0.3
    rows = rng.integers(0, max(n, 1), n // 2) if n else np.zeros(0, dtype=np.int64)
    assert gpu.sum_selected(gpu.asarray(values), flags=gpu.asarray(flags)) == int(values[flags].sum())
    assert gpu.sum_selected(gpu.asarray(values), rows=gpu.asarray(rows)) == int(values[rows].sum())


@pytest.mark.parametrize("density", [0.0, 0.001, 0.5, 1.0])
def test_sum_selected_flag_views(gpu: Any, density: float) -> None:
    """Sums over flags that start at every offset from a 16-byte boundary and end inside a
    16-flag word (the kernel reads whole words between), queued or read at once, against
    NumPy."""
    import cupy

    rng = rng_for("sum-selected views", density)
    n = 100_003
    values = rng.integers(0, 1 << 40, n)
    base = cupy.zeros(n + 32, dtype=np.bool_)
    for offset in range(17):
        flags = rng.random(n - offset) < density
        view = base[offset:offset + flags.size]
        view[:] = cupy.asarray(flags)
        vals = gpu.asarray(values[:flags.size])
        want = int(values[:flags.size][flags].sum())
        assert gpu.sum_selected(vals, flags=view) == want, offset
        assert int(gpu.sum_selected_queued(vals, view)) == want, offset


@pytest.mark.parametrize("op", ["min", "minus", "lt", "lor"])
@pytest.mark.parametrize("t", [BOOL, INT32, FP32])
def test_ewise_add_kernel(gpu: Any, op: str, t: DataType) -> None:
    """The fused bitmap eWiseAdd against NumPy: the operator where both hold an entry, the
    lone value where one does; the same written into x in place (x's other positions kept);
    an operator of mixed types is refused."""
    import cupy

    from grblas_gpu.operators import binary

    typed = getattr(binary, op)[t]
    if not gpu.adds_in_one_pass(typed):
        with pytest.raises(InvalidValue):
            gpu.ewise_add(typed, *(cupy.zeros(3, dtype=d) for d in (bool, t.np_type, bool, t.np_type)))
        return
    rng = rng_for("add", op, t.name)
    n = 5000
    xb, yb = rng.random(n) < 0.5, rng.random(n) < 0.5
    vt = typed.x_type  # lor reads BOOL whatever ``t``
    x, y = (rng.integers(0 if vt == BOOL else -9, 2 if vt == BOOL else 9, n).astype(vt.np_type) for _ in range(2))
    with np.errstate(all="ignore"):
        both = typed(x, y)
    want_bits = xb | yb
    want_vals = np.where(xb & yb, both, np.where(xb, x, y))
    got_vals, got_bits = gpu.ewise_add(typed, *(cupy.asarray(a) for a in (xb, x, yb, y)))
    got_bits, got_vals = cupy.asnumpy(got_bits), cupy.asnumpy(got_vals)
    assert np.array_equal(got_bits, want_bits)
    assert got_vals.dtype == want_vals.dtype
    assert np.array_equal(got_vals[want_bits], want_vals[want_bits])
    into_bits, into_vals = cupy.asarray(xb), cupy.asarray(x)
    gpu.ewise_add_into(typed, into_bits, into_vals, cupy.asarray(yb), cupy.asarray(y))
    into_bits, into_vals = cupy.asnumpy(into_bits), cupy.asnumpy(into_vals)
    assert np.array_equal(into_bits, want_bits)
    assert np.array_equal(into_vals, np.where(yb, want_vals, x))


@pytest.mark.parametrize("balanced", [False, True])
@pytest.mark.parametrize("name", ["min_plus", "plus_times"])
def test_push_int64_pointers_int32_indices(gpu: Any, monkeypatch: pytest.MonkeyPatch, name: str, balanced: bool) -> None:
    """Push with the index layout of a matrix of 2**31 entries or more (int64 row pointers,
    int32 column indices) against a direct NumPy scatter of the frontier rows' terms."""
    import cupy

    from grblas_gpu.backends.cupy.backend import CupyBackend

    monkeypatch.setattr(CupyBackend, "push_balance_row", 0 if balanced else 1 << 30)
    sr = semirings[name][FP64]
    rng = rng_for("push-layout", name, balanced)
    n = 400
    indptr, indices = random_csr(rng, n, n, 20.0, (np.int64, np.int32))
    values = rng.integers(1, 9, indices.size).astype(np.float64)
    frontier = np.unique(rng.integers(0, n, 60))
    fvals = rng.integers(0, 5, frontier.size).astype(np.float64)
    rows = np.repeat(np.arange(n), np.diff(indptr))
    pick = np.isin(rows, frontier)
    terms = values[pick] + fvals[np.searchsorted(frontier, rows[pick])] if name == "min_plus" else \
        values[pick] * fvals[np.searchsorted(frontier, rows[pick])]
    expected = np.full(n, np.inf if name == "min_plus" else 0.0)
    (np.minimum if name == "min_plus" else np.add).at(expected, indices[pick], terms)
    dev = [cupy.asarray(a) for a in (indptr, indices, values, frontier, fvals)]
    out, present, _ = _spmspv(gpu, sr, *dev, n, False, longest_row=int(np.diff(indptr).max()))
    reached = np.zeros(n, dtype=bool)
    reached[indices[pick]] = True
    assert np.array_equal(cupy.asnumpy(present), reached)
    assert np.array_equal(cupy.asnumpy(out)[reached], expected[reached])


@pytest.mark.parametrize("mask_form", ["none", "mask", "complement"])
@pytest.mark.parametrize("form", ["list", "bitmap", "prepared", "balanced"])
@pytest.mark.parametrize("nfront", [1, 1023, 1025, 4096, 5000])
def test_push_frontier_sizes_and_mask(gpu: Any, monkeypatch: pytest.MonkeyPatch, nfront: int, form: str,
                                      mask_form: str) -> None:
    """Push (frontier as a list, a bitmap, a bitmap pushed by a launch prepared at an earlier
    call (with the reset of its result), or a list balanced by entries, whose row-length sums a single block makes up to 4096
    rows, one or several rows per thread, and CuPy's scan above) with and without an output
    mask, against a direct NumPy scatter-add of the frontier rows' terms."""
    import cupy

    from grblas_gpu.backends.cupy.backend import CupyBackend

    monkeypatch.setattr(CupyBackend, "push_balance_row", 0 if form == "balanced" else 1 << 30)
    sr = semirings["plus_times"][INT64]
    rng = rng_for("push-sizes", nfront, form, mask_form)
    n = 20_000
    indptr, indices = random_csr(rng, n, n, 6.0, (np.int32, np.int32))
    values = rng.integers(1, 9, indices.size).astype(np.int64)
    frontier = np.sort(rng.choice(n, nfront, replace=False)).astype(np.int64)
    fvals = rng.integers(1, 5, nfront).astype(np.int64)
    rows = np.repeat(np.arange(n), np.diff(indptr))
    pick = np.isin(rows, frontier)
    terms = values[pick] * fvals[np.searchsorted(frontier, rows[pick])]
    expected = np.zeros(n, dtype=np.int64)
    np.add.at(expected, indices[pick], terms)
    reached = np.zeros(n, dtype=bool)
    reached[indices[pick]] = True
    mask = rng.random(n) < 0.5
    if mask_form != "none":
        reached &= mask if mask_form == "mask" else ~mask
    kw = {} if mask_form == "none" else {"mask": cupy.asarray(mask), "complement": mask_form == "complement"}
    dev = [cupy.asarray(a) for a in (indptr, indices, values)]
    if form in ("bitmap", "prepared"):
        bits = np.zeros(n, dtype=bool)
        bits[frontier] = True
        dense = np.zeros(n, dtype=np.int64)
        dense[frontier] = fvals
        if form == "prepared":  # packed at the first call, launched with the changing pointers at the second
            kw["launches"] = launches = {}
            _spmspv(gpu, sr, *dev, cupy.asarray(~bits), cupy.asarray(dense + 1), n, False, dense=True, **kw)
            assert sorted(key[0] for key in launches) == ["push bitmap", "push reset"]  # the push, its result's reset
        out, present, count = _spmspv(gpu, sr, *dev, cupy.asarray(bits), cupy.asarray(dense), n, False, dense=True,
                                         **kw)
        assert int(count) == int(np.count_nonzero(reached))  # counted by the push as it set them
    else:
        out, present, count = _spmspv(gpu, sr, *dev, cupy.asarray(frontier), cupy.asarray(fvals), n, False,
                                         longest_row=int(np.diff(indptr).max()), **kw)
        assert count is None
    assert np.array_equal(cupy.asnumpy(present), reached)
    assert np.array_equal(cupy.asnumpy(out)[reached], expected[reached])


@pytest.mark.parametrize("name", ["plus_times", "min_secondi"])
@pytest.mark.parametrize("vector_first", [False, True])
def test_bitmap_push_of_a_clustered_frontier(gpu: Any, name: str, vector_first: bool) -> None:
    """A bitmap push whose frontier holds whole runs of consecutive short rows (walked a lane
    each), long rows among them (walked by their warp), and sparse stretches (every row by the
    warp), against NumPy: the values (with the row index ``min_secondi`` takes), the presence,
    and the count the push makes."""
    import cupy

    sr = semirings[name][INT64]
    rng = rng_for("push-clustered", name, vector_first)
    n = 8192
    lengths = rng.integers(1, 5, n)
    lengths[rng.random(n) < 0.02] = 300  # a few long rows inside the runs
    lengths[rng.random(n) < 0.05] = 0
    indptr = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    indices = np.concatenate([np.sort(rng.choice(n, size=k, replace=False)) for k in lengths]).astype(np.int32)
    values = rng.integers(1, 9, indices.size).astype(np.int64)
    bits = np.zeros(n, dtype=bool)
    bits[:3000] = True  # whole warps of consecutive frontier rows
    bits[3000:] = rng.random(n - 3000) < 0.03  # about one row a warp
    dense = np.where(bits, rng.integers(1, 5, n), 0).astype(np.int64)
    rows = np.repeat(np.arange(n), lengths)
    pick = bits[rows]
    if name == "plus_times":
        terms, expected, combine = values[pick] * dense[rows[pick]], np.zeros(n, np.int64), np.add
    else:  # the term's position k (secondi: the row of the matrix entry)
        terms, expected, combine = rows[pick], np.full(n, np.iinfo(np.int64).max), np.minimum
    combine.at(expected, indices[pick], terms)
    reached = np.zeros(n, dtype=bool)
    reached[indices[pick]] = True
    dev = [cupy.asarray(a) for a in (indptr, indices, values, bits, dense)]
    out, present, count = _spmspv(gpu, sr, *dev, n, vector_first, dense=True)
    assert int(count) == int(np.count_nonzero(reached))
    assert np.array_equal(cupy.asnumpy(present), reached)
    assert np.array_equal(cupy.asnumpy(out)[reached], expected[reached])


@pytest.mark.parametrize("name,t", [("any_pair", BOOL), ("min_plus", FP32), ("plus_times", INT64)])
@pytest.mark.parametrize("ncols", [20_003, 1001])
def test_push_counts_stay_pending(gpu: Any, name: str, t: DataType, ncols: int) -> None:
    """The count a bitmap push makes of its result, on a matrix whose long rows make many
    terms meet at one output: several counts pending at once (with the stream's other counts
    run between them) are read in reverse order, each the number of positions NumPy's
    scatter reaches; an output size not a multiple of 4 has its last flags counted."""
    import cupy

    sr = semirings[name][t]
    rng = rng_for("push-count", name, ncols)
    n = 4000
    indptr, indices = random_csr(rng, n, ncols, 8.0, (np.int32, np.int32))
    dev = [cupy.asarray(a) for a in (indptr, indices, rng.integers(1, 9, indices.size).astype(t.np_type))]
    rows = np.repeat(np.arange(n), np.diff(indptr))
    pending, expected = [], []
    for share in (0.001, 0.02, 0.3, 1.0, 0.0):
        bits = rng.random(n) < share
        mask = rng.random(ncols) < 0.5
        reached = np.zeros(ncols, dtype=bool)
        reached[indices[bits[rows]]] = True
        _, present, count = _spmspv(gpu, sr, *dev, cupy.asarray(bits), cupy.ones(n, t.np_type), ncols, False,
                                       dense=True, mask=cupy.asarray(mask), complement=True)
        pending.append((count, present))
        expected.append(int(np.count_nonzero(reached & ~mask)))
        assert gpu.count_true(cupy.asarray(mask)) == int(np.count_nonzero(mask))  # shares the device state
    for (count, present), want in reversed(list(zip(pending, expected))):
        assert int(count) == want == int(np.count_nonzero(cupy.asnumpy(present)))
        assert int(count) == want  # read once, kept


def test_count_slots_lent_and_given_back() -> None:
    """Count words are lent one per pending count, none when all are lent, and lent again
    once a count is read or dropped."""
    pytest.importorskip("cupy")
    import cupy

    from grblas_gpu.backends.cupy.counts import CountSlots

    slots = CountSlots(2)
    stream = cupy.cuda.get_current_stream()
    a, b = slots.lend(stream), slots.lend(stream)
    assert a is not None and b is not None and a.address != b.address and slots.lent == 2
    assert slots.lend(stream) is None
    slots._words[0:2] = [7, 9]
    assert sorted([int(a), int(b)]) == [7, 9] and slots.lent == 0
    c = slots.lend(stream)
    assert slots.lent == 1
    del c
    assert slots.lent == 0


def test_vector_push_count_through_the_api(gpu: Any) -> None:
    """A frontier step ``w(~seen.S, replace=True) << u.vxm(A, any_pair)`` from a bitmap u keeps
    the push's pending count as w's number of entries (no count pass), equal to NumPy's; with
    every count word lent, the result is counted when asked, the same."""
    import grblas_gpu as gb
    from grblas_gpu.backends.cupy.counts import CountSlots, DeviceCount

    rng = rng_for("push-count-api")
    n = 5003
    indptr, indices = random_csr(rng, n, n, 5.0, (np.int32, np.int32))
    A = gb.Matrix.from_csr(indptr, indices, np.ones(indices.size, bool), ncols=n, dtype=gb.BOOL, backend="cupy")
    u_bits, seen_bits = rng.random(n) < 0.2, rng.random(n) < 0.4
    u = gb.Vector.from_dense(u_bits, missing_value=False, backend="cupy")
    seen = gb.Vector.from_dense(seen_bits, missing_value=False, backend="cupy")
    reached = np.zeros(n, dtype=bool)
    reached[indices[u_bits[np.repeat(np.arange(n), np.diff(indptr))]]] = True
    want = int(np.count_nonzero(reached & ~seen_bits))
    counts = gpu._counts()
    original = counts.slots
    for slots in (original, CountSlots(0)):
        counts.slots = slots
        try:
            w = gb.Vector(gb.BOOL, n, backend="cupy")
            w(~seen.S, replace=True) << u.vxm(A, gb.semiring.any_pair[gb.BOOL], method="push")
            assert isinstance(w._count, DeviceCount) == (slots is original)
            assert w.nvals == want
            assert np.array_equal(w.to_coo()[0], np.flatnonzero(reached & ~seen_bits))
        finally:
            counts.slots = original


def test_masked_replace_write_counts_its_entries(gpu: Any) -> None:
    """``w(m.V, replace=True) << u`` on bitmaps (the frontier filter of SSSP) keeps the count
    the mask pass makes as w's number of entries: equal to NumPy's, for a value mask and a
    complemented structural one, and 0 for an empty size."""
    import grblas_gpu as gb
    from grblas_gpu.backends.cupy.counts import DeviceCount

    rng = rng_for("masked-replace-count")
    for n in (10_007, 0):
        u_bits, m_bits, m_vals = rng.random(n) < 0.6, rng.random(n) < 0.5, rng.random(n) < 0.5
        u = gb.Vector.from_dense(u_bits, missing_value=False, backend="cupy")
        m = gb.Vector.from_coo(np.flatnonzero(m_bits), m_vals[m_bits], size=n, dtype=gb.BOOL, backend="cupy")
        for mask, allowed in ((m.V, m_bits & m_vals), (~m.S, ~m_bits)):
            w = u.dup()
            w(mask, replace=True) << u
            assert isinstance(w._count, DeviceCount) or n == 0
            assert w.nvals == int(np.count_nonzero(u_bits & allowed))
            assert np.array_equal(w.to_coo()[0], np.flatnonzero(u_bits & allowed))


@pytest.mark.parametrize("t", [BOOL, INT8, INT64, FP32, FP64])
@pytest.mark.parametrize("count", [0, 1, 777])
def test_bitmap_of(gpu: Any, t: DataType, count: int) -> None:
    """A sparse vector's entries spread into presence flags and dense values, against NumPy."""
    import cupy

    rng = rng_for("bitmap_of", t.name, count)
    size = 5000
    idx = np.sort(rng.choice(size, count, replace=False)).astype(np.int64)
    vals = (rng.random(count) * 100).astype(t.np_type)
    for _ in range(2):  # the second through the launch the first kept, with new arrays
        bits, dense = gpu.bitmap_of(cupy.asarray(idx), cupy.asarray(vals), size)
        want = np.zeros(size, dtype=bool)
        want[idx] = True
        assert np.array_equal(cupy.asnumpy(bits), want)
        assert dense.dtype == t.np_type and dense.shape == (size,)
        assert np.array_equal(cupy.asnumpy(dense)[idx], vals)
        vals = vals[::-1].copy()
