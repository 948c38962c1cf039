"""The kernel registry: every generated CUDA kernel compiles with nvcc, on a machine without a GPU.

Compiling ~1,700 modules one by one would take too long on a small CI machine, so
their bodies (each in its own namespace, with unique entry-point names) are
concatenated behind one preamble into a few large units, compiled two at a time.
A failure names the kernels whose lines the errors point at.

The operator snippets are also compiled for the host and run on sample values, to
check that their C semantics agree with the NumPy implementations (integer and
BOOL exactly, floats closely; device math may still differ in the last bits).

This module must not import CuPy.
"""

from __future__ import annotations

import concurrent.futures
import os
import re
import shutil
import subprocess
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from grblas_gpu.backends.cupy import codegen
from grblas_gpu.backends.cupy.registry import KernelSpec, iter_kernels
from grblas_gpu.dtypes import ALL_TYPES, DataType, cast_scalar
from grblas_gpu.exceptions import DomainMismatch
from grblas_gpu.operators import catalog
from grblas_gpu.operators.base import Positions, TypedUnaryOp
from grblas_gpu.operators.cmath import c_literal, cast_array

NVCC = shutil.which("nvcc")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc (the CUDA compiler) is not on PATH: sources not compiled")
UNITS = 8  # concatenated translation units; ~1,700 kernels / 8 keeps each nvcc run to a few seconds
JOBS = int(os.environ.get("GRBLAS_GPU_NVCC_JOBS", "2"))
NVCC_FLAGS = ("-arch=sm_90", "-std=c++17", "-w")
PTX, CUBIN = "-ptx", "-cubin"
"""Every kernel is compiled to PTX (nvcc's front end and NVVM: where a generated source can be
wrong); one whole module per kind also goes through ptxas to a cubin.  ptxas takes about 45%
of the time and the CI machine has two cores; the GPU suite compiles every kernel it runs."""
NVCC_TIMEOUT_S = 900
KINDS = tuple(k for k in os.environ.get("GRBLAS_GPU_NVCC_KINDS", "").split(",") if k)
"""Kinds whose kernels the nvcc tests compile (``GRBLAS_GPU_NVCC_KINDS=columns,spmv``): all where unset."""


@pytest.fixture(scope="module")
def specs() -> list[KernelSpec]:
    """Every registry entry."""
    return list(iter_kernels())


# ----------------------------------------------------------------------------- registry content


def test_registry_is_nontrivial(specs: list[KernelSpec]) -> None:
    """The registry covers every kind and the cases the backend needs most."""
    names = {s.name for s in specs}
    kinds = {s.kind for s in specs}
    assert kinds == {"count", "bitmap", "cast", "unary", "binary", "indexunary", "segment_reduce", "spmv", "spmspv", "dot", "spgemm", "mxm_dot", "transpose", "loop", "columns"}
    for expected in ("spmv min_plus[FP32] int32 vector_first=0", "spmv min_plus[FP32] int64 vector_first=1",
                     "spmv lor_land[BOOL] int32 vector_first=0", "spmv plus_times[INT64] int64 vector_first=0",
                     "spmv plus_times[FP32] int64/int32 vector_first=0 merge",
                     "spmspv min_plus[FP64] int64/int32 vector_first=1",
                     "segment_reduce plus[FP64] int64", "binary firsti[INT32]", "unary sqrt[FP32]"):
        assert expected in names, expected
    assert any(n.startswith("spmv any_secondi[") for n in names)
    assert "transpose int64/int32 -> int64/int32 4B" in names
    assert sum(s.kind == "spmv" for s in specs) >= 500
    assert len(specs) >= 1200


def test_entry_points_and_namespaces_are_unique(specs: list[KernelSpec]) -> None:
    """Bodies can be concatenated: entry points and namespaces never clash."""
    modules = [s.module() for s in specs]
    entries = [name for m in modules for name in m.entries.values()]
    assert len(entries) == len(set(entries))
    assert len({m.digest for m in modules}) == len(modules)
    for name in entries:
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name), name


def test_sources_are_self_contained(specs: list[KernelSpec]) -> None:
    """Each unit is preamble + body, includes no header and has no unfilled placeholder, and
    defines each of its entry points as an extern "C" kernel (launch bounds allowed, and a
    macro of the template's own such as the cluster kernel's dimensions)."""
    for spec in specs:
        source = spec.render()
        assert source == codegen.preamble() + "\n" + spec.render_body()
        assert "#include" not in source and "{{" not in source, spec.name
        for entry in spec.module().entries.values():
            defined = rf'extern "C" __global__ void (__launch_bounds__\([^()]*\) )?(GB_\w+ )?{re.escape(entry)}\('
            assert re.search(defined, source), (spec.name, entry)


# ----------------------------------------------------------------------------- nvcc


@dataclass
class Unit:
    """A concatenated translation unit and the line ranges of the kernels in it."""

    source: str
    spans: list[tuple[int, int, str]]  # (first line, last line, kernel name), 1-based

    def names_at(self, lines: Sequence[int]) -> list[str]:
        """The kernels that the given source lines belong to (in order, without repeats)."""
        found = [name for line in lines for first, last, name in self.spans if first <= line <= last]
        return list(dict.fromkeys(found))


def _chosen(specs: Sequence[KernelSpec]) -> list[KernelSpec]:
    """The specs of the kinds in :data:`KINDS` (every spec where none is named)."""
    return [s for s in specs if not KINDS or s.kind in KINDS]


def _units(specs: Sequence[KernelSpec], count: int) -> list[Unit]:
    """Round-robin the specs into ``count`` units (spreads the kinds, so the units take similar time)."""
    units = []
    for k in range(count):
        parts, spans = [codegen.preamble()], []
        line = codegen.preamble().count("\n") + 1
        for spec in specs[k::count]:
            body = spec.render_body() + "\n"
            spans.append((line, line + body.count("\n"), spec.name))
            parts.append(body)
            line += body.count("\n")
        units.append(Unit("\n".join(parts), spans))
    return units


def _nvcc(path: Path, target: str) -> subprocess.CompletedProcess[str]:
    assert NVCC is not None
    out = path.with_suffix(".ptx" if target == PTX else ".cubin")
    return subprocess.run([NVCC, *NVCC_FLAGS, target, "-o", str(out), str(path)], capture_output=True, text=True,
                          timeout=NVCC_TIMEOUT_S, check=False)


def _compile_all(units: Sequence[Unit], tmp: Path, target: str) -> list[str]:
    """Compile the units in parallel to ``target`` (:data:`PTX` or :data:`CUBIN`); one failure
    report per unit that does not compile."""
    paths = []
    for k, unit in enumerate(units):
        paths.append(tmp / f"unit{k}.cu")
        paths[-1].write_text(unit.source, encoding="utf-8")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(JOBS, 1)) as pool:
        results = list(pool.map(lambda p: _nvcc(p, target), paths))
    return [_report(unit, path, r) for unit, path, r in zip(units, paths, results) if r.returncode != 0]


def _report(unit: Unit, path: Path, result: subprocess.CompletedProcess[str]) -> str:
    text = result.stderr + result.stdout
    lines = [int(m) for m in re.findall(re.escape(path.name) + r"\((\d+)\): (?:catastrophic )?error", text)]
    everything = [name for _, _, name in unit.spans]
    culprits = unit.names_at(lines) or ["(not located)"]
    return (f"{path.name}: nvcc exit {result.returncode}\nkernels the errors point at: {', '.join(culprits)}\n"
            f"nvcc says:\n{text[:6000]}\nall {len(everything)} kernels in {path.name}: {', '.join(everything)}")


@pytest.mark.nvcc
@needs_nvcc
def test_every_kernel_compiles_with_nvcc(specs: list[KernelSpec], tmp_path: Path) -> None:
    """Every registry entry compiles for sm_90, to PTX (concatenated into a few units)."""
    failures = _compile_all(_units(_chosen(specs), UNITS), tmp_path, PTX)
    assert not failures, "\n\n".join(failures)


@pytest.mark.nvcc
@needs_nvcc
def test_whole_units_compile_alone(specs: list[KernelSpec], tmp_path: Path) -> None:
    """One full ``render()`` per kind compiles by itself to a cubin (through ptxas): the
    preamble is all a module needs."""
    first = {}
    for spec in _chosen(specs):
        first.setdefault(spec.kind, spec)
    units = [Unit(s.render(), [(1, s.render().count("\n") + 1, s.name)]) for s in first.values()]
    failures = _compile_all(units, tmp_path, CUBIN)
    assert not failures, "\n\n".join(failures)


# ----------------------------------------------------------------------------- host semantics

# Operator snippets known to disagree with their NumPy implementation (a catalog bug to fix
# there): reported as warnings so this module stays green until the catalog changes.
KNOWN_MISMATCHES: set[str] = set()


def _samples(t: DataType) -> np.ndarray:
    """Values that exercise the corners of type ``t``."""
    if t.is_bool:
        return np.array([False, True])
    if t.is_float:
        return np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 2.5, 3.0, 7.0, 1e30, -1e30, np.inf, -np.inf, np.nan],
                        dtype=t.np_type)
    info = np.iinfo(t.np_type)
    small = [0, 1, 2, 3, 7, 100] + ([-1, -2, -3, -7] if t.is_signed else [])
    return np.array(small + [info.max, info.max - 1, info.min, info.min + 1], dtype=t.np_type)


@dataclass
class HostCase:
    """One operator evaluated at ``n`` sample points on the host."""

    label: str
    struct: str  # the rendered operator struct(s)
    call: str  # C expression in ``q`` (sample index) and the inputs ``in0``, ``in1``
    inputs: list[tuple[np.ndarray, DataType]]
    out_type: DataType
    expected: np.ndarray


def _unary_cases() -> Iterator[HostCase]:
    for name in sorted(catalog.UNARY):
        for t in ALL_TYPES:
            try:
                op = catalog.UNARY[name][t]
            except DomainMismatch:
                continue
            x = _samples(op.in_type)
            with np.errstate(all="ignore"):
                exp = np.asarray(op.np_func(x)).astype(op.out_type.np_type)
            yield HostCase(f"unary {op.key}", codegen.render_unary_op(op), "op::call(in0[q])",
                           [(x, op.in_type)], op.out_type, exp)


def _binary_cases() -> Iterator[HostCase]:
    for name in sorted(catalog.BINARY):
        for t in ALL_TYPES:
            try:
                op = catalog.BINARY[name][t]
            except DomainMismatch:
                continue
            x, y = (a.ravel() for a in np.meshgrid(_samples(op.x_type), _samples(op.y_type), indexing="ij"))
            q = np.arange(len(x))
            exp = op(x, y, Positions(q % 5, q % 7, q % 3, q % 11))
            yield HostCase(f"binary {op.key}", codegen.render_binary_op(op),
                           "op::call(in0[q], in1[q], q % 5, q % 7, q % 3, q % 11)",
                           [(x, op.x_type), (y, op.y_type)], op.out_type, exp)


def _indexunary_cases() -> Iterator[HostCase]:
    for name in sorted(catalog.INDEXUNARY):
        for t in ALL_TYPES:
            op = catalog.INDEXUNARY[name][t]
            x, s = (a.ravel() for a in np.meshgrid(_samples(op.in_type), _samples(op.thunk_type)[:4], indexing="ij"))
            q = np.arange(len(x))
            with np.errstate(all="ignore"):
                exp = np.broadcast_to(np.asarray(op.np_func(x, q % 5, q % 7, s)), x.shape).astype(op.out_type.np_type)
            yield HostCase(f"indexunary {op.key}", codegen.render_indexunary_op(op),
                           "op::call(in0[q], q % 5, q % 7, in1[q])",
                           [(x, op.in_type), (s, op.thunk_type)], op.out_type, exp)


def _cast_cases() -> Iterator[HostCase]:
    for src in ALL_TYPES:
        for dst in ALL_TYPES:
            x = _samples(src)
            op = TypedUnaryOp("cast", src, dst, lambda v: v, codegen.cast_expr(src, dst, "x"))
            with np.errstate(all="ignore"):
                exp = np.asarray(cast_array(x, dst))
            yield HostCase(f"cast {src}->{dst}", codegen.render_unary_op(op), "op::call(in0[q])",
                           [(x, src)], dst, exp)


def _monoid_cases() -> Iterator[HostCase]:
    for name in sorted(catalog.MONOID):
        for t in ALL_TYPES:
            try:
                m = catalog.MONOID[name][t]
            except DomainMismatch:
                continue
            values = [m.identity] + ([m.terminal] if m.terminal is not None and not m.is_any else [])
            exp = np.array([cast_scalar(v, m.type) for v in values], dtype=m.type.np_type)
            call = "(q == 0 ? monoid::identity() : monoid::terminal())"
            yield HostCase(f"monoid {m.key}", codegen.render_monoid(m), call, [], m.type, exp)


def _host_program(cases: Sequence[HostCase]) -> str:
    """A host program that writes every case's results, in order, to the file named by argv[1]."""
    parts = ["#include <cstdio>\n#include <cstring>\n",
             ("template <typename To, typename From> static inline To gb_host_bits(From v) "
              "{ To t; memcpy(&t, &v, sizeof t); return t; }\n"),
             codegen.operator_preamble()]
    runs = []
    for k, case in enumerate(cases):
        arrays = "".join(f"static const {t.c_type} in{i}[] = {{{', '.join(c_literal(v, t) for v in a)}}};\n"
                         for i, (a, t) in enumerate(case.inputs))
        parts.append(f"namespace c{k} {{\n{case.struct}{arrays}"
                     f"static void run(FILE* f) {{ for (int q = 0; q < {len(case.expected)}; ++q) {{ "
                     f"{case.out_type.c_type} z = {case.call}; fwrite(&z, sizeof z, 1, f); }} }}\n}}\n")
        runs.append(f"c{k}::run(f);")
    parts.append("int main(int argc, char** argv) { FILE* f = fopen(argv[1], \"wb\"); if (!f) return 1;\n"
                 + "\n".join(runs) + "\nfclose(f); return 0; }\n")
    source = "".join(parts)
    # The snippets are device code; on the host the same C semantics run as plain inline functions.
    for intrinsic, host in (("__device__ __forceinline__", "inline"),
                            ("__longlong_as_double", "gb_host_bits<double, long long>"),
                            ("__double_as_longlong", "gb_host_bits<long long, double>"),
                            ("__int_as_float", "gb_host_bits<float, int>"),
                            ("__float_as_int", "gb_host_bits<int, float>")):
        source = source.replace(intrinsic, host)
    return source


def _mismatch(case: HostCase, got: np.ndarray) -> str | None:
    exp = case.expected
    if case.out_type.is_float:
        ok = (got == exp) | np.isclose(got, exp, rtol=1e-6, atol=0, equal_nan=True)
    else:
        ok = got == exp
    if ok.all():
        return None
    bad = np.flatnonzero(~ok)[:4]
    args = [tuple(a[i].item() for a, _ in case.inputs) for i in bad]
    return f"{case.label}: at {args} C gives {got[bad].tolist()}, NumPy {exp[bad].tolist()}"


def _run_host_cases(cases: Sequence[HostCase], tmp: Path) -> list[str]:
    assert NVCC is not None
    src, exe, out = tmp / "ops_host.cu", tmp / "ops_host", tmp / "ops_host.bin"
    src.write_text(_host_program(cases), encoding="utf-8")
    build = subprocess.run([NVCC, "-std=c++17", "-w", "-o", str(exe), str(src)], capture_output=True, text=True,
                           timeout=NVCC_TIMEOUT_S, check=False)
    assert build.returncode == 0, build.stderr[-6000:]
    subprocess.run([str(exe), str(out)], check=True, timeout=120)
    data, offset, problems = out.read_bytes(), 0, []
    for case in cases:
        size = case.out_type.itemsize * len(case.expected)
        got = np.frombuffer(data[offset:offset + size], dtype=case.out_type.np_type)
        offset += size
        problem = _mismatch(case, got)
        if problem:
            problems.append(problem)
    assert offset == len(data)
    return problems


@pytest.mark.nvcc
@needs_nvcc
def test_operator_snippets_match_numpy_on_host(tmp_path: Path) -> None:
    """Operator, cast and monoid-literal snippets give NumPy's results when run on the host."""
    cases = [*_cast_cases(), *_unary_cases(), *_binary_cases(), *_indexunary_cases(), *_monoid_cases()]
    problems = _run_host_cases(cases, tmp_path)
    known = [p for p in problems if p.split(":")[0] in KNOWN_MISMATCHES]
    for p in known:
        warnings.warn(f"known operator mismatch (fix in operators/catalog.py): {p}", stacklevel=1)
    unknown = [p for p in problems if p not in known]
    assert not unknown, "\n".join(unknown)
