"""CUDA source generation: the ``templates/*.cu`` files filled per kernel kind, operator(s) and types.

Every function here is pure Python (no CuPy): the CuPy backend compiles what they
return, and the kernel registry renders the same sources so that the test suite
can compile each one with ``nvcc`` on a machine without a GPU.

A generated translation unit is the shared :func:`preamble` (fixed-width integer
typedefs, :data:`~grblas_gpu.operators.cmath.CUDA_HELPERS`, warp helpers) followed
by a *body*: one C++ namespace holding the operator structs and the
``extern "C" __global__`` entry points.  Namespace and entry-point names carry a
digest of the body, so bodies of different kernels can be concatenated into one
unit without clashes, and equal bodies get equal names.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...dtypes import BOOL, DataType
from ...exceptions import DomainMismatch
from ...operators.base import TypedBinaryOp, TypedIndexUnaryOp, TypedMonoid, TypedSemiring, TypedUnaryOp
from ...operators.cmath import CUDA_HELPERS, c_literal

__all__ = [
    "KernelModule",
    "NVRTC_OPTIONS",
    "INDEX_TYPES",
    "template",
    "fill",
    "c_identifier",
    "operator_preamble",
    "preamble",
    "cast_expr",
    "index_c_type",
    "csr_index_tag",
    "CSR_INDEX_TYPES",
    "render_unary_op",
    "render_binary_op",
    "render_indexunary_op",
    "render_monoid",
    "cast_module",
    "count_module",
    "unary_module",
    "binary_module",
    "indexunary_module",
    "segment_reduce_module",
    "spmv_operand_types",
    "matrix_value_read",
    "vector_value_read",
    "spmv_module",
    "SPMV_SCHEDULES",
    "MERGE_TILE",
    "MERGE_BLOCKS_PER_SM",
    "carveout_percent",
    "PUSH_TILE",
    "merge_schedule_applies",
]

TEMPLATE_DIR = Path(__file__).with_name("templates")
NVRTC_OPTIONS: tuple[str, ...] = ("-std=c++17",)
"""Options the CuPy backend gives NVRTC (CuPy adds the target architecture)."""

INDEX_TYPES: tuple[str, ...] = ("int32", "int64")
"""Index types kernels are generated for (CSR ``indptr``/``indices``, segment offsets)."""

_PLACEHOLDER = re.compile(r"\{\{([A-Z][A-Z0-9_]*)\}\}")


@dataclass(frozen=True)
class KernelModule:
    """One generated kernel module: its body, the names of its entry points and a digest."""

    kind: str
    title: str
    body: str
    entries: Mapping[str, str]
    digest: str

    @property
    def source(self) -> str:
        """The complete, self-contained translation unit (preamble + body)."""
        return preamble() + "\n" + self.body


# ------------------------------------------------------------------------------ template text


@functools.cache
def template(name: str) -> str:
    """The text of ``templates/<name>``."""
    return (TEMPLATE_DIR / name).read_text(encoding="utf-8")


def fill(text: str, values: Mapping[str, str], *, keep: tuple[str, ...] = ()) -> str:
    """Replace every ``{{NAME}}`` in ``text`` by ``values[NAME]``.

    Placeholders named in ``keep`` are left for a later fill; any other missing
    value raises ``KeyError`` so a typo in a template cannot pass silently.
    """

    def substitute(match: re.Match[str]) -> str:
        key = match.group(1)
        if key in values:
            return values[key]
        if key in keep:
            return match.group(0)
        raise KeyError(f"no value for placeholder {{{{{key}}}}}")

    return _PLACEHOLDER.sub(substitute, text)


def c_identifier(text: str) -> str:
    """``text`` made a valid C identifier (other characters become ``_``)."""
    ident = re.sub(r"[^0-9A-Za-z_]", "_", text)
    return ident if ident and not ident[0].isdigit() else "_" + ident


@functools.lru_cache(maxsize=1)
def operator_preamble() -> str:
    """Integer typedefs and the operator helpers: all that the operator structs need."""
    return fill(template("preamble.cu"), {"CUDA_HELPERS": CUDA_HELPERS.strip("\n")})


@functools.lru_cache(maxsize=1)
def preamble() -> str:
    """The part every generated translation unit starts with (operator and kernel helpers)."""
    return operator_preamble() + "\n" + template("kernel_helpers.cu")


# ------------------------------------------------------------------------------ types


def cast_expr(src: DataType, dst: DataType, expr: str) -> str:
    """A C expression casting ``expr`` (of type ``src``) to ``dst`` with the library's C-style rules.

    Float to integer truncates, saturates at the limits and sends NaN to 0 (a bare
    C cast is undefined there); everything else is a plain C cast.
    """
    if src == dst:
        return expr
    if src.is_float and dst.is_integer:
        lo, hi = c_literal(dst.min, dst), c_literal(dst.max, dst)
        return f"gb_from_double<{dst.c_type}>((double)({expr}), {lo}, {hi})"
    return f"(({dst.c_type})({expr}))"


def index_c_type(index_type: Any) -> tuple[str, str]:
    """The C type and the short tag of an index type (``int32``/``int64`` as name or dtype)."""
    name = np.dtype(index_type).name
    if name not in INDEX_TYPES:
        raise DomainMismatch(f"index arrays must be int32 or int64, not {name}")
    return f"{name}_t", "i" + name[3:]


CSR_INDEX_TYPES: tuple[tuple[str, str], ...] = (("int32", "int32"), ("int64", "int64"), ("int64", "int32"))
"""(row pointer, column index) types the matrix kernels are made for: a matrix of 2**31 entries
or more has int64 row pointers beside int32 column indices."""


def csr_index_tag(ptr_type: Any, index_type: Any) -> tuple[str, str, str]:
    """C types of the row pointers and the column indices, and a short tag naming both
    (``i32``, ``i64``, or ``p64i32`` when they differ)."""
    ptr_c, ptr_tag = index_c_type(ptr_type)
    index_c, tag = index_c_type(index_type)
    return ptr_c, index_c, tag if ptr_c == index_c else f"p{ptr_tag[1:]}{tag}"


def _bool_literal(flag: bool) -> str:
    return "true" if flag else "false"


# ------------------------------------------------------------------------------ operators


def render_unary_op(op: TypedUnaryOp, name: str = "op") -> str:
    """``struct name { static Z call(X x); }`` for a unary operator."""
    return fill(template("op_unary.cu"), {
        "NAME": name, "X": op.in_type.c_type, "Z": op.out_type.c_type, "EXPR": op.cuda,
    })


def render_binary_op(op: TypedBinaryOp, name: str = "op") -> str:
    """``struct name { static Z call(X x, Y y, xi, xj, yi, yj); }`` for a binary operator."""
    return fill(template("op_binary.cu"), {
        "NAME": name, "X": op.x_type.c_type, "Y": op.y_type.c_type, "Z": op.out_type.c_type,
        "POSITIONAL": _bool_literal(op.positional), "EXPR": op.cuda,
    })


def render_indexunary_op(op: TypedIndexUnaryOp, name: str = "op") -> str:
    """``struct name { static Z call(X x, i, j, T thunk); }`` for an index-unary operator."""
    return fill(template("op_indexunary.cu"), {
        "NAME": name, "X": op.in_type.c_type, "T": op.thunk_type.c_type, "Z": op.out_type.c_type,
        "EXPR": op.cuda,
    })


def render_monoid(monoid: TypedMonoid, name: str = "monoid", op_name: str = "monoid_op") -> str:
    """The monoid's operator struct and a struct with its identity, terminal and ``call``."""
    t = monoid.type
    if monoid.op.x_type != t or monoid.op.y_type != t:
        raise DomainMismatch(f"{monoid!r}: its operator is not {t} x {t} -> {t}")
    identity = c_literal(monoid.identity, t)
    has_terminal = monoid.terminal is not None and not monoid.is_any
    terminal = c_literal(monoid.terminal, t) if has_terminal else identity
    struct = fill(template("monoid.cu"), {
        "NAME": name, "T": t.c_type, "IS_ANY": _bool_literal(monoid.is_any),
        "HAS_TERMINAL": _bool_literal(has_terminal), "IDENTITY": identity, "TERMINAL": terminal, "OP": op_name,
    })
    return render_binary_op(monoid.op, op_name) + struct


# ------------------------------------------------------------------------------ modules


def _module(kind: str, title: str, base: str, ops: str, kernels: str, roles: Mapping[str, str]) -> KernelModule:
    """Wrap ops and kernels in a namespace; name namespace and entry points after a digest.

    ``kernels`` still holds ``{{KERNEL}}``; ``roles`` maps each role to the suffix
    its entry point adds to the kernel name.
    """
    unnamed = fill(template("module.cu"), {"TITLE": title, "OPS": ops.rstrip("\n"), "KERNELS": kernels.rstrip("\n")},
                   keep=("NS", "KERNEL"))
    digest = hashlib.sha1(unnamed.encode("utf-8")).hexdigest()[:12]
    kernel = f"{c_identifier(base)}_{digest}"
    body = fill(unnamed, {"NS": f"gbk_{digest}", "KERNEL": kernel})
    return KernelModule(kind, title, body, {role: kernel + suffix for role, suffix in roles.items()}, digest)


_MAIN = {"main": ""}
_ATOMIC_BOOL_MONOIDS = ("lor", "land")


@functools.lru_cache(maxsize=1)
def count_module() -> KernelModule:
    """Count the true flags of a bool array; entry ``main(flags, n, state, out)``.  Entry
    ``sum(values, flags, rows, n, state, out)`` sums non-negative int64 values over the flagged
    positions or over a list of positions.  ``state`` is two uint64 (zero before and after a
    launch); the last block writes the result to ``out`` (page-locked host memory)."""
    kernels = fill(template("count_true.cu"), {}, keep=("KERNEL",))
    return _module("count", "count true", "gb_count_true", "", kernels, {"main": "", "sum": "_sum"})


@functools.lru_cache(maxsize=64)
def bitmap_module(t: DataType) -> KernelModule:
    """Vector-write steps on bitmaps with values of type ``t``, one pass each.  Entries
    ``allowed(bits, values, complement, within, z, n, state, counted)``: the positions a mask
    allows (``values`` null for a structural mask), and-ed with ``within`` unless null, counted
    as the count module does unless ``state`` is null; ``select(m, a_bits, a_vals, c_bits,
    c_vals, z_bits, z_vals, n)`` and ``select_scalar(m, a, c_bits, c_vals, z_bits, z_vals, n)``:
    a's presence and values where ``m``, c's elsewhere; ``set_where(m, a, bits, values, n)``: a
    present where ``m``, in place; ``fill(a, z, n)``; ``reset(a, z, bits, n)``: z filled with
    a and bits cleared, in one pass; ``scatter(idx, vals, bits, values, n)``:
    n entries spread into a bitmap."""
    kernels = fill(template("bitmap.cu"), {"T": t.c_type, "VALUE_AS_BOOL": cast_expr(t, BOOL, "values[k]")},
                   keep=("KERNEL",))
    return _module("bitmap", f"bitmap {t}", f"gb_bitmap_{t.name}", "", kernels,
                   {"allowed": "_allowed", "select": "_select", "select_scalar": "_select_scalar",
                    "set_where": "_set_where", "fill": "_fill", "reset": "_reset", "scatter": "_scatter"})


@functools.lru_cache(maxsize=1024)
def cast_module(src: DataType, dst: DataType) -> KernelModule:
    """``z = (dst) x`` per element, with the C-style rules of :func:`cast_expr`."""
    op = TypedUnaryOp("cast", src, dst, lambda x: x, cast_expr(src, dst, "x"))
    kernels = fill(template("unary.cu"), {"X": src.c_type, "Z": dst.c_type, "OP": "op"}, keep=("KERNEL",))
    return _module("cast", f"cast {src} -> {dst}", f"gb_cast_{src.name}_{dst.name}",
                   render_unary_op(op), kernels, _MAIN)


@functools.lru_cache(maxsize=4096)
def unary_module(op: TypedUnaryOp) -> KernelModule:
    """``z = op(x)`` per element; entry ``main(x, z, n)``."""
    kernels = fill(template("unary.cu"), {"X": op.in_type.c_type, "Z": op.out_type.c_type, "OP": "op"},
                   keep=("KERNEL",))
    return _module("unary", f"unary {op.key}", f"gb_unary_{op.key}", render_unary_op(op), kernels, _MAIN)


@functools.lru_cache(maxsize=4096)
def binary_module(op: TypedBinaryOp) -> KernelModule:
    """``z = op(x, y)`` per element; entries ``vv``, ``vs`` (y a scalar) and ``sv`` (x a scalar),
    and ``vd`` / ``dv`` where that scalar is a pointer to one value in device memory.

    Those take ``(x, y, z, n, xi, xi0, xj, xj0, yi, yi0, yj, yj0)``: each position is an
    int64 array, or a null pointer and a constant.  Entry ``union(x_bits, x, y_bits, y,
    x_default, y_default, z, z_bits, n)`` is eWiseUnion over two bitmaps (non-positional
    operators only), ``add(x_bits, x, y_bits, y, z, z_bits, n)`` eWiseAdd over two bitmaps
    (non-positional operators whose inputs and output share one type), and ``add_into(x_bits,
    x, y_bits, y, n)`` the same written into x; ``add_changes(x_bits, x, y_bits, y, z_bits, z,
    d_bits, d, n, state, counted)`` that add written into z (x itself or new arrays), the
    entries it makes new or different in d, and their count.
    """
    kernels = fill(template("binary.cu"), {
        "X": op.x_type.c_type, "Y": op.y_type.c_type, "Z": op.out_type.c_type, "OP": "op",
    }, keep=("KERNEL",))
    return _module("binary", f"binary {op.key}", f"gb_binary_{op.key}", render_binary_op(op), kernels,
                   {"vv": "_vv", "vs": "_vs", "sv": "_sv", "vd": "_vd", "dv": "_dv", "union": "_union",
                    "add": "_add", "add_into": "_add_into", "add_changes": "_add_changes"})


@functools.lru_cache(maxsize=4096)
def indexunary_module(op: TypedIndexUnaryOp) -> KernelModule:
    """``z = op(x, i, j, thunk)`` per element; entry ``main(x, z, n, i, i0, j, j0, thunk)``."""
    kernels = fill(template("indexunary.cu"), {
        "X": op.in_type.c_type, "T": op.thunk_type.c_type, "Z": op.out_type.c_type, "OP": "op",
    }, keep=("KERNEL",))
    return _module("indexunary", f"indexunary {op.key}", f"gb_indexunary_{op.key}", render_indexunary_op(op),
                   kernels, _MAIN)


@functools.lru_cache(maxsize=4096)
def segment_reduce_module(monoid: TypedMonoid, index_type: Any) -> KernelModule:
    """Reduce every segment of ``values``; entries ``main(values, offsets, nseg, out, group)``
    and ``strided(values, n, out)`` (one result per block of a grid striding over all values)."""
    index_c, tag = index_c_type(index_type)
    kernels = fill(template("segment_reduce.cu"), {
        "T": monoid.type.c_type, "INDEX_T": index_c, "MONOID": "monoid",
    }, keep=("KERNEL",))
    return _module("segment_reduce", f"segment_reduce {monoid.key} {tag}", f"gb_segreduce_{monoid.key}_{tag}",
                   render_monoid(monoid), kernels, {"main": "", "strided": "_strided"})


@functools.lru_cache(maxsize=1024)
def dot_module(semiring: TypedSemiring) -> KernelModule:
    """The inner product of two full vectors in one launch; entry ``main(x, y, n, partial,
    out, state)``: a partial result per block in ``partial``, reduced by the block that
    finishes last into ``out[0]`` (``state[1]``: a zeroed count of finished blocks, left
    zeroed)."""
    mult, monoid = semiring.mult, semiring.monoid
    kernels = fill(template("dot.cu"), {
        "X": mult.x_type.c_type, "Y": mult.y_type.c_type, "T": monoid.type.c_type, "MONOID": "monoid",
        "PRODUCT": cast_expr(mult.out_type, monoid.type, "mult::call(x[k], y[k], 0, k, k, 0)"),
    }, keep=("KERNEL",))
    return _module("dot", f"dot {semiring.key}", f"gb_dot_{semiring.key}",
                   render_binary_op(mult, "mult") + render_monoid(monoid), kernels, _MAIN)


def atomic_push_supported(monoid: TypedMonoid) -> bool:
    """Whether the push kernel can combine with this monoid atomically (see gb_atomic_combine)."""
    if monoid.is_any or monoid.type.itemsize in (4, 8):
        return True
    return monoid.type.is_bool and monoid.name in _ATOMIC_BOOL_MONOIDS


@functools.lru_cache(maxsize=4096)
def spmspv_module(semiring: TypedSemiring, index_type: Any, vector_first: bool, ptr_type: Any = None,
                  values_type: DataType | None = None) -> KernelModule:
    """Push SpMSpV with atomic combining; entries ``main(indptr, indices, values, frontier,
    fvals, nfront, mask, complement, out, present, group)`` (the frontier as a list of rows and
    their values, a group of lanes per row), ``balanced(indptr, indices, values, frontier,
    fvals, nfront, ends, mask, complement, out, present)`` (the same list, a warp per PUSH_TILE
    of its rows' entries; ``ends`` the inclusive prefix sums of the rows' lengths) and
    ``bitmap(indptr, indices, values, in_frontier, fvals, n, mask, complement, out, present,
    state, counted)`` (as a bitmap and dense values, a warp per 32 rows, short rows a lane each; with a non-null
    ``state`` it also counts the positions it makes present, as the count module does), with
    ``ends(indptr, frontier, nfront, ends)`` making ``balanced``'s ends in one block, and
    ``relax(indptr, indices, values, in_frontier, fvals, n, c_bits, c, d_bits, d, consume,
    identity, state, counted)``: the bitmap push written into the output ``c`` in place
    (combined into a full one, or where ``c_bits`` shows no entry), the entries it changes
    reported in ``d_bits``, ``d`` and the count (see the template), and ``balanced_claim(indptr,
    indices, values, frontier, fvals, nfront, ends, c_bits, c, d_bits, d)``: the balanced push
    of a listed frontier claiming c's empty positions the same way (no count).  ``mask``
    (or null) keeps the output positions j with ``mask[j] != complement``.  Only for monoids
    :func:`atomic_push_supported`.  Row pointers are of ``ptr_type`` (default:
    ``index_type``), column indices of ``index_type``; the matrix's values of ``values_type``
    (default: the type the product reads them in), each converted as it is read."""
    if not atomic_push_supported(semiring.monoid):
        raise DomainMismatch(f"{semiring.monoid!r} has no atomic combine; push sorts by key instead")
    kernels, ops, tag, vf = _matvec_parts(semiring, index_type, ptr_type, vector_first, "spmspv_push.cu",
                                          {"PUSH_ITEMS": str(PUSH_ITEMS), "LANE_ROW": str(PUSH_LANE_ROW)}, values_type)
    return _module("spmspv", f"spmspv {semiring.name} {semiring.key} {tag} vector_first={vf}",
                   f"gb_spmspv_{semiring.key}_{tag}_vf{vf}", ops, kernels,
                   {"main": "", "bitmap": "_bitmap", "balanced": "_balanced", "ends": "_ends",
                    "relax": "_relax", "balanced_claim": "_balanced_claim"})


def _matvec_parts(semiring: TypedSemiring, index_type: Any, ptr_type: Any, vector_first: bool,
                  template_name: str, extra: Mapping[str, str] | None = None,
                  values_type: DataType | None = None) -> tuple[str, str, str, int]:
    """A matrix-vector template filled for ``semiring``, column indices of ``index_type`` and row
    pointers of ``ptr_type`` (None: ``index_type``): (kernels, operator structs, index tag,
    vector_first as 0/1).  The product is MULT(A[r, k], x[k]) with positions (r, k, k, 0), or
    MULT(x[k], A[k, r]) with (0, k, k, r) when the vector comes first, r the output index.

    ``values_type`` is the type the matrix's values are stored in (None: the type the product
    reads them in, ``{{A}}``): a template that takes them as ``{{AV}}`` converts each as it
    loads it with ``a_load::call`` (C-style, as :func:`cast_expr`), so no cast copy of the
    values is made."""
    ptr_c, index_c, tag = csr_index_tag(index_type if ptr_type is None else ptr_type, index_type)
    monoid, mult = semiring.monoid, semiring.mult
    a_type, x_type = spmv_operand_types(semiring, vector_first)
    stored = a_type if values_type is None else values_type
    if stored != a_type:
        tag += f"_a{stored.name}"
    if vector_first:
        call, positions = "mult::call(xk, a, 0, k, k, r)", "(0, k, k, r)"
    else:
        call, positions = "mult::call(a, xk, r, k, k, 0)", "(r, k, k, 0)"
    kernels = fill(template(template_name), {
        "PTR_T": ptr_c, "INDEX_T": index_c, "A": a_type.c_type, "AV": stored.c_type, "XV": x_type.c_type,
        "T": monoid.type.c_type,
        "MONOID": "monoid", "PRODUCT": cast_expr(mult.out_type, monoid.type, call),
        "POSITIONS_DOC": f"(xi, xj, yi, yj) = {positions}", "READS_A": _bool_literal(matrix_value_read(semiring, vector_first)),
        "READS_X": _bool_literal(vector_value_read(semiring, vector_first)),
        **(extra or {}),
    }, keep=("KERNEL",))
    load = render_unary_op(TypedUnaryOp("load", stored, a_type, lambda x: x, cast_expr(stored, a_type, "x")), "a_load")
    return kernels, render_binary_op(mult, "mult") + render_monoid(monoid) + load, tag, int(bool(vector_first))


def matrix_value_read(semiring: TypedSemiring, vector_first: bool) -> bool:
    """Whether the product reads the matrix's values (``plus_second`` over ``A x`` does not:
    the kernels then take no value array, and the caller need not cast one)."""
    return semiring.mult.reads("y" if vector_first else "x")


def vector_value_read(semiring: TypedSemiring, vector_first: bool) -> bool:
    """Whether the product reads the vector's values (``any_pair`` does not)."""
    return semiring.mult.reads("x" if vector_first else "y")


def spmv_operand_types(semiring: TypedSemiring, vector_first: bool) -> tuple[DataType, DataType]:
    """The types the SpMV kernel reads the matrix values and the vector in: (A, x)."""
    mult = semiring.mult
    return (mult.y_type, mult.x_type) if vector_first else (mult.x_type, mult.y_type)


SPMV_SCHEDULES: Mapping[str, str] = {"vector": "spmv_csr_vector.cu", "merge": "spmv_csr_merge.cu"}
"""SpMV work schedules and their templates.  ``vector``: a group of lanes per row, with early
exit for terminal monoids.  ``merge``: merge-path, an equal share of entries and row ends
per thread (see :func:`merge_schedule_applies`)."""

PUSH_ITEMS = 8
PUSH_TILE = 32 * PUSH_ITEMS
"""Balanced push: entries per lane, and stored entries per warp tile."""

PUSH_LANE_ROW = 32
"""Bitmap push: frontier rows of at most this many entries (one step of a warp) may be walked a
lane each, side by side, where that takes fewer steps (see the template)."""

MERGE_BLOCK = 256
MERGE_ITEMS = 6
MERGE_TILE = MERGE_BLOCK * MERGE_ITEMS
"""Merge-path SpMV: threads per block, merge items per thread, merge items per block.  Kron
scale 22, FP32 plus_times through the column cache, GPU time of back-to-back calls (cuSPARSE
585 us in the same run): 6 items 582 us, 7 items 590, 8 items 594; 512 threads of 8 items 589."""

MERGE_BLOCKS_PER_SM = 6
"""Merge-path SpMV: the blocks an SM must hold at once (the kernels' launch bound); the
backend asks for just the shared memory they need, leaving the rest of the SM's memory to L1."""


def carveout_percent(block_bytes: int, blocks: int, per_sm: int, reserved: int) -> int:
    """The shared-memory carveout, in percent of ``per_sm`` (an SM's shared memory), that holds
    ``blocks`` blocks of ``block_bytes`` each and ``reserved`` more per block (the driver's);
    at least 1 (0 asks for none) and at most 100.  The driver rounds it up to a size the SM
    supports."""
    need = blocks * (block_bytes + reserved)
    return max(1, min(100, -(-100 * need // per_sm)))


_SPMV_SCHEDULE_ROLES: Mapping[str, Mapping[str, str]] = {
    "vector": {"main": "", "long": "_long", "binned": "_binned"},
    "merge": {"main": "", "hot": "_hot", "fixup": "_fixup", "gather": "_gather"},
}


def merge_schedule_applies(semiring: TypedSemiring) -> bool:
    """Whether the merge-path schedule computes ``semiring``: not for ANY or BOOL monoids,
    whose early exit (ANY, LOR's true, LAND's false) the vector schedule exploits, nor for
    multipliers that read positions (the merge schedule forms products before it knows their
    rows).  Terminal values of other types (min's -inf, say) are rare enough to ignore."""
    return not (semiring.monoid.stops_early or semiring.mult.positional)


@functools.lru_cache(maxsize=4096)
def spmv_module(semiring: TypedSemiring, index_type: Any, vector_first: bool, schedule: str = "vector",
                ptr_type: Any = None, values_type: DataType | None = None) -> KernelModule:
    """Pull SpMV over CSR rows with the given schedule (see :data:`SPMV_SCHEDULES`).

    ``vector`` entries: ``main(indptr, indices, values, x, x_present, row_mask, complement,
    rows, nrows, out, present, long_row, group)`` (the rows listed in ``rows``, or all ``nrows``
    when it is null; rows longer than ``long_row`` are skipped when it is positive; rows where
    ``row_mask[r] == complement`` are not computed) and ``long(indptr, indices, values, x,
    x_present, row_mask, complement, rows, out, present)`` (one block per listed row), and
    ``binned(indptr, indices, values, x, x_present, row_mask, complement, rows, table,
    nclasses, out, present, c, c_bits)`` (every length class of a binned matrix in one
    launch: class k's blocks start at ``table[4k]``, its ``table[4k + 2]`` rows at
    ``rows[table[4k + 1]]``, with ``table[4k + 3]`` lanes a row).  The vector entries also
    take ``c, c_bits`` after ``present`` (a claiming pull; null otherwise).
    ``merge`` entries: ``main(indptr, indices, values, x, x_hot, x_present_hot, x_present,
    row_mask, tile_row, nrows, out, present, carry_row, carry_value, carry_valid, accumulate)``
    (one block of MERGE_BLOCK threads per MERGE_TILE merge items; with ``accumulate``
    non-zero, ``out`` and ``present`` hold a vector that each row's result is added into by
    the monoid, and ``row_mask`` must be null); ``hot``, the same where a column index k < 0
    reads ``x_hot[~k]`` and ``x_present_hot[~k]``; ``fixup(carry_row, carry_value,
    carry_valid, ncarry, out, present)`` (a thread per carry); and ``gather(x, x_present, hot, n,
    x_hot, x_present_hot)`` (``x_hot[i] = x[hot[i]]``, the same for presence; either source
    may be null).  ``x_present`` and ``row_mask`` may be null (the hot
    arrays too, for ``main``).  Row pointers are of ``ptr_type`` (default: ``index_type``),
    column indices of ``index_type``.  ``values`` are of ``values_type`` (default: the type the
    product reads them in), each converted as it is read: a product whose semiring reads
    another type than the matrix stores needs no cast copy of the values.
    """
    if schedule == "merge" and not merge_schedule_applies(semiring):
        raise DomainMismatch(f"the merge SpMV schedule does not compute {semiring.name}")
    sizes = ({"MERGE_BLOCK": str(MERGE_BLOCK), "MERGE_ITEMS": str(MERGE_ITEMS),
              "MERGE_BLOCKS_PER_SM": str(MERGE_BLOCKS_PER_SM)} if schedule == "merge" else {})
    kernels, ops, tag, vf = _matvec_parts(semiring, index_type, ptr_type, vector_first, SPMV_SCHEDULES[schedule],
                                          sizes, values_type)
    return _module("spmv", f"spmv {schedule} {semiring.name} {semiring.key} {tag} vector_first={vf}",
                   f"gb_spmv_{schedule}_{semiring.key}_{tag}_vf{vf}", ops, kernels,
                   _SPMV_SCHEDULE_ROLES[schedule])
