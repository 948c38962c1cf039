"""The type a Python literal gives an operation (docs/python-graphblas.md, "Python literals").

Where python-graphblas's rule does not depend on the NumPy version (a literal of another kind
than the collection's, a ``bool``, an assigned or accumulated literal) the result is compared
with python-graphblas's.  Where it does (an int beside integers, a float beside floats: kept in
the collection's type under NumPy 1, promoted under NumPy 2), the collection's type is kept
here, NumPy's own rule for Python scalars, which is the reference of the second test."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pgcompat import same

import grblas_gpu as gb

FORMS = {
    "apply_right": lambda g, v, c: v.apply(g.binary.plus, right=c),
    "apply_left": lambda g, v, c: v.apply(g.binary.minus, left=c),
    "call": lambda g, v, c: g.binary.times(v, c),
    "infix": lambda g, v, c: v + c,
    "rinfix": lambda g, v, c: c * v,
    "union": lambda g, v, c: v.ewise_union(g.Vector.from_coo([0], [1], dtype=v.dtype, size=3), g.binary.plus, c, c),
}


def _vector(g: Any, dtype: str) -> Any:
    return g.Vector.from_coo([0, 1, 2], [1, 0, 1], dtype=dtype)


# (collection type, literal): the cases whose python-graphblas type is the same under NumPy 1 and 2.
AGREED = [("INT32", 2.5), ("UINT8", 2.5), ("INT64", 2.5), ("BOOL", 2), ("BOOL", 2.5), ("BOOL", True),
          ("FP32", True), ("INT8", True), ("FP64", 2), ("INT64", 7), ("FP64", 2.5)]


@pytest.mark.parametrize(("dtype", "literal"), AGREED, ids=[f"{t}-{c!r}" for t, c in AGREED])
def test_literal_of_another_kind_promotes_as_python_graphblas(backend: str, dtype: str, literal: Any) -> None:
    for form in FORMS.values():
        same(lambda g, form=form: form(g, _vector(g, dtype), literal).new(), backend)


@pytest.mark.parametrize("dtype", ["FP32", "INT32", "UINT8", "INT8", "UINT16"])
@pytest.mark.parametrize("literal", [2, 2.5, 3])
def test_literal_of_the_same_kind_keeps_the_collection_type(backend: str, dtype: str, literal: Any) -> None:
    """NumPy 2's rule for a Python scalar beside an array (NEP 50) is the reference."""
    x = np.array([1, 0, 1], dtype=gb.dtypes.lookup_dtype(dtype).np_type)
    with np.errstate(all="ignore"):
        union = x + literal
        union[0] = 2  # both hold an entry at 0: 1 + 1
        expected = {"apply_right": x + literal, "apply_left": literal - x, "call": x * literal,
                    "infix": x + literal, "rinfix": literal * x, "union": union}
    for name, form in FORMS.items():
        got = form(gb, _vector(gb, dtype), literal).new()
        want = expected[name]
        assert str(got.dtype) == str(gb.dtypes.lookup_dtype(want.dtype)), (name, got.dtype, want.dtype)
        np.testing.assert_allclose(got.to_dense(), want, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["FP32", "INT32", "BOOL", "UINT8"])
@pytest.mark.parametrize("literal", [2, 2.5, True])
def test_assigned_and_accumulated_literals_as_python_graphblas(backend: str, dtype: str, literal: Any) -> None:
    def snippet(g: Any) -> Any:
        x, y, z = _vector(g, dtype), _vector(g, dtype), _vector(g, dtype)
        x[:] << literal
        y << literal
        z(accum=g.binary.plus) << literal
        return x, y, z, g.Scalar.from_value(literal), (_vector(g, dtype) < literal).new()
    same(snippet, backend)
