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


def test_arguments_missing_or_unknown_raise() -> None:
    with pytest.raises(TypeError, match="missing"):
        sig.SPMV_MERGE_FIXUP.arguments(carry_row=1, carry_value=2, carry_valid=3)
    with pytest.raises(TypeError, match="unknown"):
        sig.SPMV_MERGE_FIXUP.arguments(carry_row=1, carry_value=2, carry_valid=3, ncarry=4, out=5)
