"""Kernel signatures: each kept launch's parameters, named as its template declares them, and
which of them change from call to call.

A kept launch (:func:`.launch.launch_kept`) packs a kernel's arguments once and writes only
those that change at each call.  Which ones change is declared here once per kernel, by
name. The parameter list is read from the kernel's template in ``templates/``, so the
positions the launches take (:attr:`KernelSignature.changing`) follow the template, and a
name that the template lacks raises as the module loads. Everything not listed is
constant for the launch's lifetime: the matrix's own arrays, sizes and flags.

A launch packed once (:class:`.launch.PreparedLaunch`) takes its constant arguments by name
(:meth:`KernelSignature.arguments`), in the template's order, and the per-call ones at each
launch by name too (:attr:`KernelSignature.pack_per_call`, in the order
:attr:`KernelSignature.per_call_order` gives).  A launch made once per call (the passes of a
matrix product or a transpose, the pushes, the pulls, the bitmap steps, the reductions, the
element-wise maps), or kept by :func:`.launch.launch_kept` at its first call, takes all of
them by name (:attr:`KernelSignature.pack`, a function made once per signature: no dict per
launch).  :data:`KINDS` lists every kind of generated module
with its entry points' signatures: the registry lists the modules of those kinds, the
families of the products also name their entry points from them (:func:`roles`), and the
kernel table of ``docs/kernels.md`` is written from them (:func:`markdown_table`).
"""

from __future__ import annotations

import functools
import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .codegen import template

__all__ = [
    "CHANGES", "KernelSignature", "signature", "template_params",
    "SPMV_VECTOR", "SPMV_VECTOR_BARE", "SPMV_BINNED", "SPMV_LONG", "SPMV_MERGE", "SPMV_MERGE_HOT",
    "SPMV_MERGE_FIXUP", "SPMV_MERGE_GATHER", "PUSH_BITMAP", "PUSH_RESET", "PUSH_RELAX",
    "MASK_ALLOWED", "ADD_INTO", "ADD_CHANGES", "SET_WHERE", "BINARY", "EWISE_UNION", "EWISE_ADD", "DOT",
    "COUNT_TRUE", "COUNT_QUEUED", "SUM_QUEUED",
    "entries", "roles", "KINDS", "PUSH_LISTED", "COLUMNS", "UNARY", "INDEXUNARY", "BITMAP",
    "SEGMENT_REDUCE", "LOOP", "LOOP_BLOCK", "LOOP_BLOCK_SMALL", "LOOP_GRID", "LOOP_CLUSTER", "SPGEMM_SYMBOLIC", "SPGEMM_NUMERIC", "MXM_DOT", "TRANSPOSE", "markdown_table",
    "kernels_document",
]


class _Changes:
    """Marks an argument of a prepared launch that is given at each launch."""

    def __repr__(self) -> str:
        return "CHANGES"


CHANGES = _Changes()


@dataclass(frozen=True)
class KernelSignature:
    """A kernel's parameter names (in order) and those that change from call to call.

    :attr:`pack` takes every parameter by keyword and returns them in the template's order:
    a function made once with the signature (keyword-only parameters named as the template
    names them), so a launch packs by name at the cost of one call and a tuple, no dict made
    or read (a name missing or unknown raises TypeError, naming the kernel)."""

    template: str
    entry: str
    params: tuple[str, ...]
    per_call: frozenset[str]
    pack: Callable[..., tuple[Any, ...]] = field(init=False, repr=False, compare=False)
    pack_per_call: Callable[..., tuple[Any, ...]] = field(init=False, repr=False, compare=False)
    """The same for a prepared launch's per-call parameters alone: they by keyword, returned
    in :attr:`per_call_order` (what :meth:`.launch.PreparedLaunch.launch` takes)."""

    changing: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """Positions of the parameters that change from call to call (what a kept launch writes)."""
    constant: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """Names of the parameters packed once with the launch."""
    per_call_order: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """Names of the parameters given at each launch, in the order a prepared launch takes them."""

    def __post_init__(self) -> None:
        # Worked out once: launches read them at each call.
        setattr_ = functools.partial(object.__setattr__, self)
        setattr_("changing", tuple(i for i, name in enumerate(self.params) if name in self.per_call))
        setattr_("constant", tuple(name for name in self.params if name not in self.per_call))
        setattr_("per_call_order", tuple(name for name in self.params if name in self.per_call))
        setattr_("pack", _packer(self.template, self.entry, self.params))
        setattr_("pack_per_call", _packer(self.template, self.entry, self.per_call_order, "per call"))

    def arguments(self, **constant: Any) -> tuple[Any, ...]:
        """A prepared launch's arguments in the template's order: every constant parameter's
        value, given by name, and :data:`CHANGES` in place of each per-call one."""
        if set(constant) != set(self.constant):
            missing, unknown = set(self.constant) - set(constant), set(constant) - set(self.constant)
            raise TypeError(f"templates/{self.template} {{{{KERNEL}}}}{self.entry}: constant arguments "
                            f"missing {sorted(missing)}, unknown {sorted(unknown)}")
        return tuple(CHANGES if name in self.per_call else constant[name] for name in self.params)


def _packer(template_name: str, entry: str, params: tuple[str, ...],
            which: str = "") -> Callable[..., tuple[Any, ...]]:
    """``pack(*, <params>)`` returning its arguments in the order of ``params``: written as
    Python source and compiled once (the parameter names are C identifiers from the template,
    checked as Python ones), so that a launch pays a call, not a dict of its arguments."""
    for name in params:
        if not name.isidentifier() or keyword.iskeyword(name):
            raise LookupError(f"templates/{template_name} {{{{KERNEL}}}}{entry}: parameter {name!r} "
                              "is not a Python name")
    names = ", ".join(params)
    namespace: dict[str, Any] = {}
    source = f"def pack(*, {names}):\n    return ({names},)\n" if params else "def pack():\n    return ()\n"
    exec(source, {}, namespace)  # noqa: S102
    fn: Callable[..., tuple[Any, ...]] = namespace["pack"]
    fn.__qualname__ = fn.__name__ = f"pack{' ' + which if which else ''} of templates/{template_name} {{{{KERNEL}}}}{entry}"
    return fn


@functools.cache
def _macros(name: str) -> dict[str, tuple[str, ...]]:
    """Parameter-list macros of a template (``#define GB_POSITION_PARAMS ...``): name -> the
    parameter names they stand for."""
    found = {}
    for m in re.finditer(r"#define\s+(\w+)\s*\\\n((?:.*\\\n)*.*)", template(name)):
        body = m.group(2).replace("\\\n", " ")
        found[m.group(1)] = tuple(_param_name(p) for p in body.split(","))
    return found


def _param_name(param: str) -> str:
    return re.findall(r"\w+", param)[-1]


@functools.cache
def template_params(name: str, entry: str) -> tuple[str, ...]:
    """The parameter names of the kernel ``{{KERNEL}}<entry>`` in template ``name``."""
    text = template(name)
    m = re.search(r"__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s*)?(?:GB_\w+\s+)?\{\{KERNEL\}\}"
                  + re.escape(entry)
                  + r"\s*\(([^)]*)\)", text)
    if m is None:
        raise LookupError(f"templates/{name} declares no kernel {{{{KERNEL}}}}{entry}")
    names: list[str] = []
    for param in m.group(1).split(","):
        param = param.strip()
        names.extend(_macros(name).get(param, (_param_name(param),)))
    return tuple(names)


def signature(name: str, entry: str, per_call: str) -> KernelSignature:
    """The signature of kernel ``{{KERNEL}}<entry>`` in template ``name``, whose parameters
    named in ``per_call`` (space separated) change from call to call."""
    params = template_params(name, entry)
    changing = frozenset(per_call.split())
    unknown = changing - set(params)
    if unknown:
        raise LookupError(f"templates/{name} {{{{KERNEL}}}}{entry} has no parameter {sorted(unknown)}")
    return KernelSignature(name, entry, params, changing)


# The pull with a group of lanes per row: the matrix values (cast values differ), x and its
# presence, the row mask, the result and its presence, and a claimed output's values and
# presence; bare: the same launch with no vector presence, mask, result presence or claim.
SPMV_VECTOR = signature("spmv_csr_vector.cu", "", "values x x_present row_mask out present c c_bits")
SPMV_VECTOR_BARE = signature("spmv_csr_vector.cu", "", "values x out")
# The same pull with rows binned by length (every class in one launch, the long rows in
# another), packed once per plan: the plan's rows and class table are constant.
SPMV_BINNED = signature("spmv_csr_vector.cu", "_binned", "values x x_present row_mask out present c c_bits")
SPMV_LONG = signature("spmv_csr_vector.cu", "_long", "values x x_present row_mask out present c c_bits")
# The merge-path pull, packed once per plan and semiring: the tiles, the column cache's
# buffers and the carries are the plan's; the fix-up joins the carries into the result; the
# gather copies x (and its presence) into the column cache.
SPMV_MERGE = signature("spmv_csr_merge.cu", "", "values x x_present row_mask out present")
SPMV_MERGE_HOT = signature("spmv_csr_merge.cu", "_hot", "values x x_present row_mask out present")
SPMV_MERGE_FIXUP = signature("spmv_csr_merge.cu", "_fixup", "out present")
SPMV_MERGE_GATHER = signature("spmv_csr_merge.cu", "_gather", "x x_present")
# Pushes: the values, the frontier, the mask, the result (or the output written in place and
# the report), and the stream's count state and the word the count goes to.
PUSH_BITMAP = signature("spmspv_push.cu", "_bitmap", "values in_frontier fvals mask out present state counted")
PUSH_RESET = signature("bitmap.cu", "_reset", "z bits")
PUSH_RELAX = signature("spmspv_push.cu", "_relax", "values in_frontier fvals c_bits c d_bits d state counted")
# Element-wise launches kept per size: every array (and the value set_where writes, as a word).
MASK_ALLOWED = signature("bitmap.cu", "_allowed", "bits values within z state counted")
ADD_INTO = signature("binary.cu", "_add_into", "x_bits x y_bits y")
ADD_CHANGES = signature("binary.cu", "_add_changes", "x_bits x y_bits y z_bits z d_bits d state counted")
SET_WHERE = signature("bitmap.cu", "_set_where", "m a bits values")
# Binary operators per element, by operand form (v: an array, s: a host scalar written at each
# launch as a word, d: a 0-d device array), kept per size: the operands and the result.
BINARY = {
    "vv": signature("binary.cu", "_vv", "x y z"),
    "vs": signature("binary.cu", "_vs", "x y z"),
    "sv": signature("binary.cu", "_sv", "x y z"),
    "vd": signature("binary.cu", "_vd", "x y_at z"),
    "dv": signature("binary.cu", "_dv", "x_at y z"),
}
EWISE_UNION = signature("binary.cu", "_union", "x_bits x y_bits y z z_bits")
EWISE_ADD = signature("binary.cu", "_add", "x_bits x y_bits y z z_bits")
# The inner product: the operands, the stream's partials, the result and the stream's state.
DOT = signature("dot.cu", "", "x y partial out state")
# Counts kept per stream (its state and host word packed): the flags; queued, also the word
# of the pending count it writes (and for sums, the values).
COUNT_TRUE = signature("count_true.cu", "", "flags")
COUNT_QUEUED = signature("count_true.cu", "", "flags out")
SUM_QUEUED = signature("count_true.cu", "_sum", "values flags out")


def entries(name: str, *launched: str) -> dict[str, KernelSignature]:
    """The signatures of template ``name``'s kernels that a launch gives every argument (by
    name, :meth:`KernelSignature.pack`), by role: the entry ``{{KERNEL}}_<role>``, or the bare
    ``{{KERNEL}}`` for ``"main"``."""
    return {role: signature(name, "" if role == "main" else f"_{role}", "") for role in launched}


def roles(family: dict[str, KernelSignature]) -> dict[str, str]:
    """Role -> the suffix its entry point adds to the kernel's name: what a generated module
    names its entry points by (``codegen._module``)."""
    return {role: s.entry for role, s in family.items()}


# Gustavson's product, by passes: the row bounds and their bins, the grouping of rows by bin,
# the symbolic counts (shared-memory tables, a dense row, a global hash table, short rows in
# registers); then the numeric fills of the same forms.
SPGEMM_SYMBOLIC = entries("spgemm_symbolic.cu", "flops", "bins", "group", "count", "count_dense", "count_hash",
                          "count_short")
SPGEMM_NUMERIC = entries("spgemm_numeric.cu", "fill", "fill_dense", "fill_hash", "fill_short")
# The masked dot products: a thread per mask entry (listing the costly ones), a warp and a block
# per costly entry, and the compaction of the kept entries.
MXM_DOT = entries("mxm_dot.cu", "main", "warp", "block", "compact")
# The counting-sort transpose: column counts, the scatter into columns, the sorts of short,
# medium and long columns (packed keys).
TRANSPOSE = entries("transpose.cu", "count", "scatter", "sort_short", "sort_warp", "sort_block", "pack", "unpack")

# The push of a listed frontier, made at each call: a group of lanes per row (``main``, the
# group's size last), or balanced over the rows' entries (``balanced`` into a dense result,
# ``balanced_claim`` into the output's gaps) after ``ends``, the prefix sums of the rows' lengths.
PUSH_LISTED = entries("spmspv_push.cu", "main", "balanced", "balanced_claim", "ends")
# The pull by columns (``u' A`` from A's own rows, see columns.py), made at each call.
COLUMNS = entries("spmv_columns.cu", "main")
# Element-wise maps made at each call: a unary operator (or a cast), an index-unary operator;
# a binary operator with positions goes through the entries of BINARY, every argument given.
UNARY = entries("unary.cu", "main")
INDEXUNARY = entries("indexunary.cu", "main")
# The bitmap steps made at each call (allowed, reset and set_where are kept, declared above).
BITMAP = {"allowed": MASK_ALLOWED, "reset": PUSH_RESET, "set_where": SET_WHERE,
          **entries("bitmap.cu", "select", "select_scalar", "fill", "scatter")}
# Segment reductions (a group per segment) and the strided reduction of all values.
SEGMENT_REDUCE = entries("segment_reduce.cu", "main", "strided")
# The frontier loop's kernels: one level a launch (``step``, captured in graphs with every
# argument given); levels in one block (``block``) or over the whole GPU in one cooperative
# launch (``grid``), each packed once per loop with its buffers: a run gives C and the first
# frontier (and to the block kernel, a claim's C by its entries).
LOOP_BLOCK = signature("loop_push.cu", "_block", "c_bits c first_rows first seed_rows seed seeds from_host")
LOOP_BLOCK_SMALL = signature("loop_push.cu", "_block_small", "c_bits c first_rows first seed_rows seed seeds from_host")
LOOP_GRID = signature("loop_push.cu", "_grid", "c_bits c first_rows first")
LOOP_CLUSTER = signature("loop_push.cu", "_cluster", "c_bits c first_rows first")
LOOP = {**entries("loop_push.cu", "step"), "block": LOOP_BLOCK, "block_small": LOOP_BLOCK_SMALL, "grid": LOOP_GRID,
        "cluster": LOOP_CLUSTER}

KINDS: dict[str, tuple[dict[str, KernelSignature], ...]] = {
    "count": ({"main": COUNT_TRUE, "sum": SUM_QUEUED},),
    "bitmap": (BITMAP,),
    "cast": (UNARY,),
    "unary": (UNARY,),
    "binary": ({**BINARY, "union": EWISE_UNION, "add": EWISE_ADD, "add_into": ADD_INTO, "add_changes": ADD_CHANGES},),
    "indexunary": (INDEXUNARY,),
    "segment_reduce": (SEGMENT_REDUCE,),
    "spmv": ({"main": SPMV_VECTOR, "binned": SPMV_BINNED, "long": SPMV_LONG},
             {"main": SPMV_MERGE, "hot": SPMV_MERGE_HOT, "fixup": SPMV_MERGE_FIXUP, "gather": SPMV_MERGE_GATHER}),
    "spmspv": ({**PUSH_LISTED, "bitmap": PUSH_BITMAP, "relax": PUSH_RELAX},),
    "dot": ({"main": DOT},),
    "spgemm": (SPGEMM_SYMBOLIC, SPGEMM_NUMERIC),
    "mxm_dot": (MXM_DOT,),
    "transpose": (TRANSPOSE,),
    "loop": (LOOP,),
    "columns": (COLUMNS,),
}
"""Every kind of generated kernel module, in the order the registry lists them, with the
entry points of its modules by role (a kind whose modules come in two shapes, such as the
vector and merge pulls, has a table for each): each module's entry points are exactly one of
its kind's tables (``tests/test_kernel_signatures.py``), and the registry lists the modules of
these kinds and no others (:mod:`.registry`)."""


def _kept() -> dict[str, KernelSignature]:
    """The kept launches declared above, by their names here."""
    found: dict[str, KernelSignature] = {}
    for name, value in globals().items():
        if isinstance(value, KernelSignature):
            found[name] = value
        elif name == "BINARY":
            found.update({f"BINARY[{k!r}]": v for k, v in value.items()})
    return found


def markdown_table() -> str:
    """The kernel table of ``docs/kernels.md``: every declared signature, its template, entry,
    parameters in order (per-call ones in bold for the kept launches)."""
    lines = ["| launch | template | entry | parameters |", "|---|---|---|---|"]

    def row(label: str, s: KernelSignature) -> None:
        params = ", ".join(f"**{p}**" if p in s.per_call else p for p in s.params)
        lines.append(f"| {label} | {s.template} | `{{{{KERNEL}}}}{s.entry}` | {params} |")

    kept = _kept()
    for name, s in kept.items():
        row(f"`{name}` (kept)", s)
    kept_ids = {id(s) for s in kept.values()}
    for kind, tables in KINDS.items():
        for table in tables:
            for role, s in table.items():
                if id(s) not in kept_ids:
                    row(f"{kind}: `{role}`", s)
    return "\n".join(lines) + "\n"


_DOC_HEAD = """# CUDA kernel signatures

Written by `python -m grblas_gpu.backends.cupy.signatures > docs/kernels.md` from
`grblas_gpu/backends/cupy/signatures.py` (the parameter lists are read from the templates in
`grblas_gpu/backends/cupy/templates/`); do not edit by hand. A kept launch is packed once and
writes only the parameters in bold at each call. The rows after the kept launches list every
other kernel of the templates by the kind of module it is generated in (`KINDS`; the kernel
registry lists the modules of these kinds). Every launch gives its parameters by name: all
of them at each call (`pack`), for a launch made at each call or kept at its first; or, for a
launch prepared ahead, the constant ones once (`arguments`) and the bold ones at each call
(`pack_per_call`).

"""


def kernels_document() -> str:
    """The text of ``docs/kernels.md``."""
    return _DOC_HEAD + markdown_table()


if __name__ == "__main__":
    print(kernels_document(), end="")
