"""Kernel signatures declared by name beside the templates (backends/cupy/signatures.py): the
positions kept launches write come from the templates' parameter lists."""

from __future__ import annotations

import pytest

from grblas_gpu.backends.cupy import signatures as sig

# The positions the launches wrote when they were written out by hand. A template that
# reorders its parameters changes these; the launch's argument tuple in backends/cupy must then
# be reordered the same way, and this table updated after checking it.
POSITIONS = {
    "SPMV_VECTOR": (2, 3, 4, 5, 9, 10, 11, 12),
    "SPMV_VECTOR_BARE": (2, 3, 9),
    "PUSH_BITMAP": (2, 3, 4, 6, 8, 9, 10, 11),
    "PUSH_RESET": (1, 2),
    "PUSH_RELAX": (2, 3, 4, 6, 7, 8, 9, 12, 13),
    "MASK_ALLOWED": (0, 1, 3, 4, 6, 7),
    "ADD_INTO": (0, 1, 2, 3),
    "ADD_CHANGES": (0, 1, 2, 3, 4, 5, 6, 7, 9, 10),
    "SET_WHERE": (0, 1, 2, 3),
    "SPMV_BINNED": (2, 3, 4, 5, 10, 11, 12, 13),
    "SPMV_LONG": (2, 3, 4, 5, 8, 9, 10, 11),
    "SPMV_MERGE": (2, 3, 6, 7, 10, 11),
    "SPMV_MERGE_HOT": (2, 3, 6, 7, 10, 11),
    "SPMV_MERGE_FIXUP": (4, 5),
    "SPMV_MERGE_GATHER": (0, 1),
    "EWISE_UNION": (0, 1, 2, 3, 6, 7),
    "EWISE_ADD": (0, 1, 2, 3, 4, 5),
    "DOT": (0, 1, 3, 4, 5),
    "COUNT_TRUE": (0,),
    "COUNT_QUEUED": (0, 3),
    "SUM_QUEUED": (0, 1, 5),
    **{f"BINARY.{role}": (0, 1, 2) for role in ("vv", "vs", "sv", "vd", "dv")},
    "LOOP_BLOCK": (3, 4, 7, 8, 11, 12, 13, 14),
    "LOOP_BLOCK_SMALL": (3, 4, 7, 8, 11, 12, 13, 14),
    "LOOP_GRID": (3, 4, 7, 8),
    "LOOP_CLUSTER": (3, 4, 7, 8),
}


def _named(name: str) -> sig.KernelSignature:
    table, _, key = name.partition(".")
    found = getattr(sig, table)
    return found[key] if key else found


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_positions_follow_the_templates(name: str) -> None:
    s = _named(name)
    assert s.changing == POSITIONS[name]
    assert set(s.constant) | s.per_call == set(s.params) and not set(s.constant) & s.per_call


def test_parameters_read_from_the_template() -> None:
    assert sig.template_params("bitmap.cu", "_set_where") == ("m", "a", "bits", "values", "n")
    # A parameter-list macro stands for the parameters it defines.
    assert sig.template_params("binary.cu", "_vv")[:4] == ("x", "y", "z", "n")
    assert sig.template_params("binary.cu", "_vv")[4:] == ("xi", "xi0", "xj", "xj0", "yi", "yi0", "yj", "yj0")


def test_unknown_names_raise() -> None:
    with pytest.raises(LookupError):
        sig.signature("bitmap.cu", "_set_where", "m nothing")
    with pytest.raises(LookupError):
        sig.template_params("bitmap.cu", "_no_such_entry")



def test_arguments_by_name_in_the_templates_order() -> None:
    """The merge pull's main launch, packed by name, as it was written out by hand: the
    matrix's arrays, the column cache's buffers, the tiles and carries, CHANGES elsewhere."""
    ptr, idx, x_hot, present_hot, tiles, nrows, row, value, valid, accumulate = (object() for _ in range(10))
    C = sig.CHANGES
    by_hand = (ptr, idx, C, C, x_hot, present_hot, C, C, tiles, nrows, C, C, row, value, valid, accumulate)
    packed = sig.SPMV_MERGE.arguments(indptr=ptr, indices=idx, x_hot=x_hot, x_present_hot=present_hot,
                                      tile_row=tiles, nrows=nrows, carry_row=row, carry_value=value,
                                      carry_valid=valid, accumulate=accumulate)
    assert packed == by_hand
    assert sig.SPMV_MERGE.per_call_order == ("values", "x", "x_present", "row_mask", "out", "present")


def test_per_call_packed_by_name_in_the_launchs_order() -> None:
    """A prepared launch's per-call arguments by name, in the order the launch wrote them by
    hand: the loop's block kernel (C, the first frontier, a claim's C by its entries) and the
    merge pull's main kernel; a launch with none takes none."""
    assert sig.LOOP_BLOCK.pack_per_call(c_bits="cb", c="c", first_rows="rows", first="first", seed_rows="sr",
                                        seed="sv", seeds="n", from_host="h") == (
        "cb", "c", "rows", "first", "sr", "sv", "n", "h")
    assert sig.SPMV_MERGE.pack_per_call(values="a", x="x", x_present="xp", row_mask="m", out="o",
                                        present="p") == ("a", "x", "xp", "m", "o", "p")
    assert sig.LOOP["step"].pack_per_call() == ()
    with pytest.raises(TypeError, match="per call"):
        sig.LOOP_GRID.pack_per_call(c_bits=1, c=2, first_rows=3)


def test_loop_launches_packed_once_as_written_by_hand() -> None:
    """The frontier loop's block and grid launches, packed by name, as they were written out by
    hand: the loop's buffers and sizes, CHANGES where a run gives C and the first frontier."""
    C = sig.CHANGES
    arrays = {name: name for name in ("indptr", "indices", "values", "q0", "q1", "stamp", "state")}
    transposed = {"t_indptr": "t_ptr", "t_indices": "t_idx", "t_values": "t_vals"}
    for block in (sig.LOOP_BLOCK, sig.LOOP_BLOCK_SMALL):
        assert block.arguments(**arrays, size="n", host_state="host", **transposed) == (
            "indptr", "indices", "values", C, C, "q0", "q1", C, C, "stamp", "state", C, C, C, C, "n", "host",
            "t_ptr", "t_idx", "t_vals")
    wide = {"r0": "r0", "r1": "r1", "capacity": "n", "host_state": "host", "v0": "v0", "v1": "v1"}
    grid = sig.LOOP_GRID.arguments(**arrays, **wide, barrier="barrier")
    assert grid == ("indptr", "indices", "values", C, C, "q0", "q1", C, C, "stamp", "state", "barrier", "r0", "r1",
                    "n", "host", "v0", "v1")
    cluster = sig.LOOP_CLUSTER.arguments(**arrays, **wide, size="n")
    assert cluster == ("indptr", "indices", "values", C, C, "q0", "q1", C, C, "stamp", "state", "r0", "r1", "n",
                       "host", "n", "v0", "v1")
    assert sig.LOOP_CLUSTER.per_call_order == sig.LOOP_GRID.per_call_order  # (the loop packs one tuple for both)


def test_kernels_sharing_a_launchs_per_call_arguments() -> None:
    """A pull packs one per-call tuple for kernels of one launch schedule: the binned classes'
    and the long rows' kernels, the merge kernel read directly or through the column cache."""
    assert sig.SPMV_BINNED.per_call_order == sig.SPMV_LONG.per_call_order
    assert sig.SPMV_MERGE.per_call_order == sig.SPMV_MERGE_HOT.per_call_order


def test_arguments_missing_or_unknown_raise() -> None:
    with pytest.raises(TypeError, match="missing"):
        sig.SPMV_MERGE_FIXUP.arguments(carry_row=1, carry_value=2, carry_valid=3)
    with pytest.raises(TypeError, match="unknown"):
        sig.SPMV_MERGE_FIXUP.arguments(carry_row=1, carry_value=2, carry_valid=3, ncarry=4, out=5)


# The one-shot launches of the products and the transpose as they were written out by hand,
# by position: (family, role, the argument tuple with each argument named as the launch named it).
BY_HAND = [
    (sig.TRANSPOSE, "pack", "tptr batch at n total row_bits rows out keys held",
     {"cols": "batch", "starts": "at", "ncols": "n"}),
    (sig.TRANSPOSE, "unpack", "tptr batch at n total row_bits keys held rows out",
     {"cols": "batch", "starts": "at", "ncols": "n"}),
    (sig.TRANSPOSE, "scatter", "ptr nrows idx vals nnz c0 c1 cursor rows out_bits", {"out": "out_bits"}),
    (sig.MXM_DOT, "main", ("m_ptr m_idx n nrows a_ptr a_idx a_vals b_ptr b_idx b_vals vals keep heavy heavy_rows "
     "counters light warp variant"), {"nvals": "n", "out": "vals", "light_cost": "light", "warp_short": "warp"}),
    (sig.MXM_DOT, "block", "m_idx n a_ptr a_idx a_vals b_ptr b_idx b_vals vals keep heavy heavy_rows counters variant",
     {"nvals": "n", "out": "vals"}),
    (sig.SPGEMM_SYMBOLIC, "flops", ("a_ptr a_idx b_ptr m_ptr complement nrows ncols llog dense_from hash_most "
     "short_most bound bins words row_nnz"), {"counts": "words"}),
    (sig.SPGEMM_NUMERIC, "fill_dense", ("a_ptr a_idx a_val b_ptr b_idx b_val m_ptr m_idx complement rows glog wlog "
     "ncols window bits vals c_ptr c_idx c_val"), {"work_bits": "bits", "work_vals": "vals"}),
    # The listed and balanced pushes, the pull by columns and the element-wise maps, as their
    # launches wrote them by position before they were packed by name.
    (sig.PUSH_LISTED, "main", "ptr idx values rows xvals nfront mask complement out present group",
     {"indptr": "ptr", "indices": "idx", "frontier": "rows", "fvals": "xvals"}),
    (sig.PUSH_LISTED, "balanced", "ptr idx values rows xvals nfront ends mask complement out present",
     {"indptr": "ptr", "indices": "idx", "frontier": "rows", "fvals": "xvals"}),
    (sig.PUSH_LISTED, "balanced_claim", "ptr idx values rows xvals n ends c_bits c d_bits d_vals",
     {"indptr": "ptr", "indices": "idx", "frontier": "rows", "fvals": "xvals", "nfront": "n", "d": "d_vals"}),
    (sig.PUSH_LISTED, "ends", "ptr rows n ends", {"indptr": "ptr", "frontier": "rows", "nfront": "n"}),
    (sig.COLUMNS, "main", "ptr idx values x x_present nrows nnz col_mask complement out present",
     {"indptr": "ptr", "indices": "idx", "mask": "col_mask"}),
    (sig.UNARY, "main", "xc out n", {"x": "xc", "z": "out"}),
    (sig.INDEXUNARY, "main", "xc out n i i0 j j0 thunk", {"x": "xc", "z": "out"}),
    ({"union": sig.EWISE_UNION}, "union", "x_bits x y_bits y x_default y_default z z_bits n", {}),
    ({"add_changes": sig.ADD_CHANGES}, "add_changes", "x_flags xa y_bits ya z_bits z_vals d_bits d_vals n state counted",
     {"x_bits": "x_flags", "x": "xa", "y": "ya", "z": "z_vals", "d": "d_vals"}),
    ({"add_into": sig.ADD_INTO}, "add_into", "x_bits x y_flags ya n", {"y_bits": "y_flags", "y": "ya"}),
    ({"add": sig.EWISE_ADD}, "add", "x_flags xa y_flags ya z z_bits n",
     {"x_bits": "x_flags", "x": "xa", "y_bits": "y_flags", "y": "ya"}),
    # The kept pushes (a bitmap frontier, a relax into the output, the result's reset) and the
    # binary maps by operand form, kept per size.
    ({"bitmap": sig.PUSH_BITMAP}, "bitmap", "ptr idx values flags xvals n mask complement out present state counted",
     {"indptr": "ptr", "indices": "idx", "in_frontier": "flags", "fvals": "xvals"}),
    ({"relax": sig.PUSH_RELAX}, "relax", "ptr idx values flags x n c_bits c d_bits d_vals consume identity state counted",
     {"indptr": "ptr", "indices": "idx", "in_frontier": "flags", "fvals": "x", "d": "d_vals"}),
    ({"reset": sig.PUSH_RESET}, "reset", "identity out present size",
     {"a": "identity", "z": "out", "bits": "present", "n": "size"}),
    # The frontier loop's step kernel, captured in graphs with the loop's buffers.
    (sig.LOOP, "step", "ptr idx values c_bits c q0 q1 first_rows first stamp state j",
     {"indptr": "ptr", "indices": "idx"}),
    # The bitmap steps, the reductions, counts and inner product, and the one-launch pull by
    # rows, as their launches wrote them by position before they were packed by name.
    (sig.BITMAP, "fill", "value out size", {"a": "value", "z": "out", "n": "size"}),
    (sig.BITMAP, "scatter", "idx vals bits dense n", {"values": "dense"}),
    (sig.BITMAP, "allowed", "flags values complement within z n state counted", {"bits": "flags"}),
    (sig.BITMAP, "select", "m a_bits a_vals c_bits c_vals z_bits z_vals n", {}),
    (sig.BITMAP, "select_scalar", "m a c_bits c_vals z_bits z_vals n", {}),
    (sig.BITMAP, "set_where", "where value bits vals n", {"m": "where", "a": "value", "values": "vals"}),
    (sig.SEGMENT_REDUCE, "main", "vals offs nseg out group", {"values": "vals", "offsets": "offs"}),
    (sig.SEGMENT_REDUCE, "strided", "vals n out", {"values": "vals"}),
    ({"count": sig.COUNT_TRUE}, "count", "arr n state address", {"flags": "arr", "out": "address"}),
    ({"sum": sig.SUM_QUEUED}, "sum", "vals flags rows n state address", {"values": "vals", "out": "address"}),
    ({"dot": sig.DOT}, "dot", "xa ya n partial out state", {"x": "xa", "y": "ya"}),
    ({"one launch": sig.SPMV_VECTOR}, "one launch",
     "ptr idx values x x_present row_mask complement rows nrows out present c c_bits long_row group",
     {"indptr": "ptr", "indices": "idx", "mask_complement": "complement"}),
    (sig.BINARY, "vd", "xa bound out n xi xi0 xj xj0 yi yi0 yj yj0", {"x": "xa", "y_at": "bound", "z": "out"}),
    (sig.BINARY, "dv", "bound ya out n xi xi0 xj xj0 yi yi0 yj yj0", {"x_at": "bound", "y": "ya", "z": "out"}),
]


@pytest.mark.parametrize("family,role,by_hand,renamed", BY_HAND, ids=[f"{r}" for _, r, _, _ in BY_HAND])
def test_packed_by_name_as_written_by_hand(family: dict[str, sig.KernelSignature], role: str, by_hand: str,
                                           renamed: dict[str, str]) -> None:
    """A launch packed by the template's names gives the tuple the launch once wrote by position."""
    s = family[role]
    given = {name: renamed.get(name, name) for name in s.params}
    assert s.pack(**given) == tuple(by_hand.split())


def test_pack_missing_or_unknown_raise() -> None:
    s = sig.TRANSPOSE["count"]
    with pytest.raises(TypeError, match="missing"):
        s.pack(idx=1, nnz=2)
    with pytest.raises(TypeError, match="unexpected"):
        s.pack(idx=1, nnz=2, counts=3, extra=4)
    with pytest.raises(TypeError, match="transpose.cu"):  # the message names the kernel
        s.pack(idx=1, nnz=2)


def test_generated_modules_name_the_declared_entries() -> None:
    """Every registry module's entry points are exactly one of its kind's declared tables, each
    a kernel of its source, and every declared table is some module's: the signatures cover
    every kernel the launches call, and the registry lists the modules of the declared kinds."""
    from grblas_gpu.backends.cupy.registry import iter_kernels

    matched: set[tuple[str, int]] = set()
    for spec in iter_kernels():
        module = spec.module()
        assert spec.kind == module.kind and module.kind in sig.KINDS, module.title
        tables = sig.KINDS[module.kind]
        which = [i for i, table in enumerate(tables) if set(table) == set(module.entries)]
        assert len(which) == 1, module.title
        matched.add((module.kind, which[0]))
        for role, name in module.entries.items():
            s = tables[which[0]][role]
            assert name.endswith(s.entry) and f"{name}(" in module.body, (module.title, role)
    assert matched == {(kind, i) for kind, tables in sig.KINDS.items() for i in range(len(tables))}


def test_every_template_kernel_is_declared() -> None:
    """Each ``__global__`` kernel of the templates has a signature (the loop's and the
    products' included): none is launched by position alone."""
    import re
    from pathlib import Path

    declared = {(s.template, s.entry) for tables in sig.KINDS.values() for table in tables for s in table.values()}
    folder = Path(sig.__file__).parent / "templates"
    found = set()
    for path in folder.glob("*.cu"):
        for m in re.finditer(r"__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s*)?(?:GB_\w+\s+)?\{\{KERNEL\}\}(\w*)\s*\(",
                             path.read_text()):
            found.add((path.name, m.group(1)))
    assert found == declared


def test_kernels_doc_is_current() -> None:
    """docs/kernels.md is the table the declarations write (regenerate it when one changes)."""
    from pathlib import Path

    doc = Path(__file__).resolve().parents[1] / "docs" / "kernels.md"
    assert doc.read_text() == sig.kernels_document()
