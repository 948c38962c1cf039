"""Shared fixtures and the bridge between grblas_gpu objects and the dense reference model.

Test modules import the helpers with ``from conftest import ...`` (the tests folder
is on ``sys.path`` under pytest's default import mode).
"""

from __future__ import annotations

import functools
import inspect
import os
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from reference import TYPE_NAMES, Obj, is_float

import grblas_gpu as gb
from grblas_gpu.backends import gpu_available

BACKENDS = ["numpy"] + (["cupy"] if gpu_available() else [])

SHARED_DATA = Path(os.environ.get("GRBLAS_GPU_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
"""The outside graphs with expected outputs (LDBC Graphalytics, LAGraph, SNAP): the folder
``GRBLAS_GPU_DATA`` names, else ``../shared/data`` beside the checkout.  Tests that read it
skip, naming the folder, where it is absent."""


def scipy_mmread(path: Path) -> Any:
    """scipy's reading of a Matrix Market file, the tests' independent reference: a sparse
    array (or a dense ndarray for an array file), asked for as an array where scipy offers the
    choice (its sparse matrices are deprecated as mmread's result)."""
    from scipy.io import mmread

    if "spmatrix" in inspect.signature(mmread).parameters:
        return mmread(path, spmatrix=False)
    return mmread(path)

MASK_KINDS = ("none", "value", "structure", "comp_value", "comp_structure")
SYNTAXES = ("method", "c_named", "c_desc")  # expression + <<; C-style with predefined / built descriptor
TEST_TYPES = ("BOOL", "INT8", "INT32", "INT64", "UINT8", "UINT64", "FP32", "FP64")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every backend usable here: numpy always, cupy where a GPU is; objects created in the
    test without ``backend=`` (e.g. expected values) get the same one."""
    with gb.use_backend(request.param):
        yield request.param


# ----------------------------------------------------------------------------- conversion


def nx_adjacency(G: Any, backend: str, value: Any, dtype: Any = None) -> gb.Matrix:
    """The adjacency matrix of the networkx graph ``G`` (vertices 0..n-1), every entry
    ``value``; both directions stored for an undirected graph."""
    n = G.number_of_nodes()
    edges = list(G.edges())
    if not G.is_directed():
        edges += [(v, u) for u, v in edges if u != v]
    r, c = (np.array(x, dtype=np.int64) for x in zip(*edges)) if edges else ([], [])
    return gb.Matrix.from_coo(r, c, value, nrows=n, ncols=n, dtype=dtype, backend=backend)


def full_fp64(v: Any) -> np.ndarray:
    """A per-vertex FP64 result as a dense array, checking that every vertex has an entry."""
    assert v.dtype == gb.FP64
    assert v.nvals == v.size, "every vertex must have an entry"
    return v.to_dense()


def np_type(dtype: Any) -> np.dtype:
    """The NumPy dtype of a grblas_gpu dtype (or anything np.dtype accepts)."""
    return np.dtype(getattr(dtype, "np_type", dtype))


def to_gb(ref: Obj, backend: str = "numpy") -> Any:
    """A grblas_gpu Matrix / Vector / Scalar holding the model's entries, built with from_coo."""
    name = TYPE_NAMES[ref.dtype]
    if ref.values.ndim == 2:
        r, c, v = ref.coo()
        return gb.Matrix.from_coo(r, c, v, nrows=ref.shape[0], ncols=ref.shape[1], dtype=name, backend=backend)
    if ref.values.ndim == 1:
        i, v = ref.coo()
        return gb.Vector.from_coo(i, v, size=ref.shape[0], dtype=name, backend=backend)
    if ref.present[()]:
        return gb.Scalar.from_value(ref.values[()], dtype=name)
    return gb.Scalar(dtype=name)


def to_model(x: Any) -> Obj:
    """The dense model of a grblas_gpu object, read through its public exports (to_coo / value)."""
    t = np_type(x.dtype)
    if isinstance(x, gb.Scalar):
        v = x.value
        return Obj(np.array(0 if v is None else v).astype(t), np.array(v is not None))
    if isinstance(x, gb.Matrix):
        r, c, v = x.to_coo()
        idx: tuple[np.ndarray, ...] = (np.asarray(r), np.asarray(c))
        shape: tuple[int, ...] = (x.nrows, x.ncols)
    else:
        i, v = x.to_coo()
        idx = (np.asarray(i),)
        shape = (x.size,)
    v = np.asarray(v)
    assert isinstance(v, np.ndarray) and all(isinstance(i, np.ndarray) for i in idx), "exports must be NumPy"
    assert v.dtype == t, f"to_coo values have dtype {v.dtype}, the object says {t}"
    assert all(len(i) == len(v) for i in idx)
    assert len(v) == x.nvals
    if len(v):
        flat = np.ravel_multi_index(idx, shape)
        assert np.all(np.diff(flat) > 0), "to_coo must be sorted (row, then column) without duplicates"
    out = Obj(np.zeros(shape, t), np.zeros(shape, bool))
    out.values[idx] = v
    out.present[idx] = True
    return out


def assert_matches(got: Any, expected: Obj, check_dtype: bool = True, rtol: float | None = None) -> None:
    """``got`` (a grblas_gpu object) equals the model: shape, structure, dtype and values.

    Integers and BOOL must match exactly; floats to ``np.allclose(equal_nan=True)``.
    """
    g = to_model(got) if not isinstance(got, Obj) else got
    assert g.shape == expected.shape, f"shape {g.shape} != expected {expected.shape}"
    if check_dtype:
        assert g.dtype == expected.dtype, f"dtype {g.dtype} != expected {expected.dtype}"
    if not np.array_equal(g.present, expected.present):
        raise AssertionError(
            f"structure differs:\n got      {list(zip(*np.nonzero(g.present)))}\n"
            f" expected {list(zip(*np.nonzero(expected.present)))}"
        )
    gv, ev = g.values[g.present], expected.values[expected.present]
    if is_float(gv.dtype) or is_float(ev.dtype):
        if rtol is None:
            rtol = 1e-5 if np.float32 in (gv.dtype, ev.dtype) else 1e-9
        ok = np.allclose(gv.astype(np.float64), ev.astype(np.float64), rtol=rtol, atol=0, equal_nan=True)
        # infinities must agree in sign, which allclose already checks
    else:
        ok = np.array_equal(gv, ev.astype(gv.dtype) if not check_dtype else ev)
    assert ok, f"values differ at {list(zip(*np.nonzero(g.present)))}:\n got      {gv}\n expected {ev}"


def coo_snapshot(x: Any) -> tuple:
    """Everything observable about an object's content, to check it is unchanged."""
    m = to_model(x)
    return (str(x.dtype), m.shape, *[a.tolist() for a in m.coo()])


# ----------------------------------------------------------------------------- masks and descriptors


def seed_of(*parts: Any) -> int:
    """A seed that depends on the test parameters, stable across runs (unlike hash())."""
    return zlib.crc32(repr(parts).encode())


def mask_flags(kind: str) -> tuple[bool, bool]:
    """(structure, complement) of a mask kind."""
    return kind in ("structure", "comp_structure"), kind.startswith("comp")


def mask_arg(M: Any, kind: str) -> Any:
    """The mask object for the method syntax: None, M.V, M.S, ~M.V or ~M.S."""
    return {"none": None, "value": M.V, "structure": M.S, "comp_value": ~M.V, "comp_structure": ~M.S}[kind]


def descriptor(syntax: str, *, replace: bool = False, structure: bool = False, complement: bool = False,
               t0: bool = False, t1: bool = False) -> Any:
    """A descriptor for the C-style syntax: a predefined ``gb.descriptor.XXX`` or a built ``gb.Descriptor``."""
    if syntax == "c_desc":
        return gb.Descriptor(replace=replace, mask_complement=complement, mask_structure=structure,
                             transpose_first=t0, transpose_second=t1)
    name = "R" * replace + "S" * structure + "C" * complement + "T0" * t0 + "T1" * t1
    return getattr(gb.descriptor, name) if name else None


def run(syntax: str, C: Any, M: Any, mask_kind: str, accum: Any, replace: bool,
        method: Any, cfunc: Any, t0: bool = False, t1: bool = False) -> None:
    """Run one operation into ``C`` in the syntax asked for.

    ``method()`` returns the expression for ``C(mask, accum, replace) << expr`` (inputs
    already transposed through ``.T`` as needed); ``cfunc(mask, accum, desc)`` calls the
    C-style function.
    """
    structure, complement = mask_flags(mask_kind)
    if syntax == "method":
        expr = method()
        C(mask=mask_arg(M, mask_kind) if M is not None else None, accum=accum, replace=replace) << expr
    else:
        if mask_kind == "none":
            structure = complement = False
        desc = descriptor(syntax, replace=replace, structure=structure, complement=complement, t0=t0, t1=t1)
        cfunc(None if mask_kind == "none" else M, accum, desc)


def ref_mask(M: Obj | None, mask_kind: str) -> dict:
    """Keyword arguments of reference.write for a mask kind."""
    structure, complement = mask_flags(mask_kind)
    return {"mask": None if mask_kind == "none" else M, "structure": structure, "complement": complement}


def accum_op(name: str | None) -> Any:
    return None if name is None else getattr(gb.binary, name)


def random_mask(rng: np.random.Generator, shape: tuple[int, ...]) -> Obj:
    """An INT64 mask whose stored values are 0, 1 or 2, so value and structural masks differ."""
    return Obj(rng.integers(0, 3, size=shape).astype(np.int64), rng.random(shape) < 0.6)


__all__ = [
    "BACKENDS", "MASK_KINDS", "SYNTAXES", "TEST_TYPES", "np_type", "to_gb", "to_model",
    "assert_matches", "coo_snapshot", "mask_flags", "mask_arg", "descriptor", "run", "ref_mask",
    "accum_op", "random_mask", "seed_of",
]


@pytest.fixture(params=["compiled", "pyarrow", "fmm", "pure"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """File chunks parsed by the compiled parser (pyarrow off: what it declines goes to the pure
    path), by pyarrow, Matrix Market files of integers by fast_matrix_market first (each skipped
    where it is not built or installed), or the pure path forced."""
    from grblas_gpu.io import _chunks, _compiled, _fmm

    if request.param == "compiled" and _compiled._cparse is None:
        pytest.skip("the compiled parser (grblas_gpu.io._cparse) is not built")
    if request.param in ("pyarrow", "fmm"):
        pytest.importorskip("pyarrow", reason="pyarrow (the readers extra) is not installed")
    if request.param == "fmm":
        pytest.importorskip("fast_matrix_market", reason="fast_matrix_market (the readers extra) is not installed")
    if request.param == "compiled":
        monkeypatch.setattr(_chunks, "_pacsv", None)
    monkeypatch.setattr(_chunks, "FAST", request.param != "pure")
    monkeypatch.setattr(_compiled, "COMPILED", request.param == "compiled")
    monkeypatch.setattr(_fmm, "FMM", request.param == "fmm")
    monkeypatch.delenv("GRBLAS_GPU_PURE_READERS", raising=False)
    monkeypatch.delenv("GRBLAS_GPU_COMPILED_READERS", raising=False)
    return request.param


def shared_file(*parts: str) -> Path:
    """A file of the shared data, or the test skipped, saying why, where it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared reference data not found: {path}")
    return path


def shared_coo(*parts: str) -> Any:
    """scipy's COO reading of a Matrix Market file of the shared data (skipped where absent)."""
    pytest.importorskip("scipy.io")
    return scipy_mmread(shared_file(*parts)).tocoo()


def snap_edges(name: str) -> tuple[np.ndarray, int]:
    """The edges of a SNAP edge list of the shared data as a read-only (edges x 2) array of
    vertex positions, the file's ids ranked in order, and the number of vertices (skipped
    where absent; read once per session)."""
    return _snap_edges(shared_file("snap", name))


@functools.cache
def _snap_edges(path: Path) -> tuple[np.ndarray, int]:
    edges = np.loadtxt(path, comments="#", usecols=(0, 1), dtype=np.int64, ndmin=2)
    ids, idx = np.unique(edges, return_inverse=True)
    idx = idx.reshape(edges.shape)
    idx.flags.writeable = False
    return idx, len(ids)


def gpu_count() -> int:
    """How many GPUs CuPy sees (0 without CuPy or a driver)."""
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 - no CuPy, or no driver: no GPU
        return 0


@contextmanager
def cupy_pool_peak() -> Iterator[list[int]]:
    """The CuPy pool's used bytes above the start at their highest (``peak[0]``), sampled at
    each allocation inside the block."""
    import cupy

    pool = cupy.get_default_memory_pool()
    cupy.cuda.Device().synchronize()
    pool.free_all_blocks()
    base = pool.used_bytes()
    peak = [0]

    def malloc(size: int) -> Any:
        ptr = pool.malloc(size)
        peak[0] = max(peak[0], pool.used_bytes() - base)
        return ptr

    cupy.cuda.set_allocator(malloc)
    try:
        yield peak
    finally:
        cupy.cuda.Device().synchronize()
        cupy.cuda.set_allocator(pool.malloc)


def grid_square_csr(side: int, diagonal: bool, rng: np.random.Generator) -> Any:
    """The 4-neighbour ``side x side`` grid as a scipy CSR (a road graph's shape: rows of 2 to 4
    entries, its square's rows of at most 16 terms), values 1..4 (FP64); with the diagonal,
    rows of up to 5 entries and squares of up to 25 terms."""
    import scipy.sparse as sps

    ids = np.arange(side * side).reshape(side, side)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    rows, cols = np.concatenate([src, dst]), np.concatenate([dst, src])
    if diagonal:
        rows, cols = np.concatenate([rows, ids.ravel()]), np.concatenate([cols, ids.ravel()])
    m = sps.csr_matrix((rng.integers(1, 5, rows.size).astype(np.float64), (rows, cols)), shape=(side * side,) * 2)
    m.sort_indices()
    return m


@contextmanager
def two_worker_client(backend: str) -> Iterator[Any]:
    """A Dask client of a local cluster of two one-thread worker processes whose default
    backend is ``backend`` (through ``GRBLAS_GPU_BACKEND``, which the workers, and any the
    nanny restarts, inherit); the variable is restored when the cluster closes."""
    from distributed import Client, LocalCluster

    before = os.environ.get("GRBLAS_GPU_BACKEND")
    os.environ["GRBLAS_GPU_BACKEND"] = backend
    try:
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            yield client
    finally:
        if before is None:
            os.environ.pop("GRBLAS_GPU_BACKEND", None)
        else:
            os.environ["GRBLAS_GPU_BACKEND"] = before


@pytest.fixture(params=["tasks", "actors"])
def spmd_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """grblas_gpu.dask's SPMD calls through tasks (the default) or through one actor per
    worker (``grblas_gpu.dask.actors``): the Dask tests run both ways."""
    from grblas_gpu.dask import actors

    monkeypatch.setattr(actors, "ENABLED", request.param == "actors")
    return str(request.param)


def min_id_labels(rows: np.ndarray, cols: np.ndarray, n: int) -> np.ndarray:
    """Reference components: scipy's weak components of the edges ``rows[k] -> cols[k]``, each
    labelled by its smallest vertex id (what ``connected_components`` returns)."""
    import scipy.sparse as sps
    from scipy.sparse import csgraph

    graph = sps.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    _, comp = csgraph.connected_components(graph, directed=True, connection="weak")
    smallest = np.full(comp.max() + 1 if n else 0, n)
    np.minimum.at(smallest, comp, np.arange(n))
    return smallest[comp]
