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
}


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_positions_follow_the_templates(name: str) -> None:
    s = getattr(sig, name)
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
