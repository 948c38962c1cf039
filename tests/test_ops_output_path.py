"""One output path: a statement's Output (target, mask, accum, replace, changed) is built once
and handed to the expression (``Expression.write``); a masked mxm computed under the output's
own mask is taken as the output's content, told so by the planner's answer, not by a mark on
the product.  Results against NumPy's dense product."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import seed_of

import grblas_gpu as gb
from grblas_gpu import binary, semiring
from grblas_gpu.expressions import Expression, Output
from grblas_gpu.ops import mxm as planner


def test_the_expression_gets_the_statements_output(backend: str) -> None:
    """``C(M.S, plus, replace) << expr``: the expression's write is handed one Output holding
    the statement's target, mask, accumulator and replace flag; where it declines, the
    executor computes the expression and writes it by the rule."""
    seen: list[Output] = []
    v = gb.Vector.from_coo([0, 2], [1.0, 2.0], size=4, backend=backend)
    C = gb.Vector.from_coo([1, 2], [10.0, 20.0], size=4, backend=backend)
    M = gb.Vector.from_coo([0, 2], [True, True], size=4, backend=backend)

    def declined(out: Output) -> bool:
        seen.append(out)
        return False

    expr = Expression("copy", "Vector", (4,), v.dtype, v._be, lambda mask: v.dup(), (v,), write=declined)
    C(M.S, binary.plus, replace=True) << expr
    assert len(seen) == 1
    out = seen[0]
    assert out.target is C and out.mask is not None and out.mask.parent is M and out.mask.structure
    assert out.accum is not None and out.accum.name == "plus" and out.replace and out.changed is None
    idx, vals = C.to_coo()
    assert idx.tolist() == [0, 2] and vals.tolist() == [1.0, 22.0]  # plus inside the mask, the rest dropped


def _dense(rng: np.random.Generator, shape: tuple[int, int], density: float) -> np.ndarray:
    return np.where(rng.random(shape) < density, rng.integers(1, 5, shape), 0).astype(np.float64)


def _matrix(a: np.ndarray, backend: str) -> gb.Matrix:
    r, c = np.nonzero(a)
    return gb.Matrix.from_coo(r, c, a[r, c], nrows=a.shape[0], ncols=a.shape[1], backend=backend)


@pytest.mark.parametrize("form", ["masked", "dot", "gustavson"])
@pytest.mark.parametrize("filled", [False, True])
@pytest.mark.parametrize("replace", [False, True])
def test_masked_product_taken_as_computed(backend: str, monkeypatch: pytest.MonkeyPatch, form: str, filled: bool,
                                          replace: bool) -> None:
    """``C(M.S, replace) << A @ B``: where the product's form applied M (masked Gustavson, dot)
    and C has nothing to keep (replace, or C empty), the product is C's new content with no
    write pass; otherwise (or for the unmasked form) the write applies the rule.  Either way
    C is the dense reference's."""
    monkeypatch.setattr(planner, "FORM", form)
    writes: list[Any] = []
    write_result = planner.write_result
    monkeypatch.setattr(planner, "write_result", lambda *args: (writes.append(args), write_result(*args)))
    rng = np.random.default_rng(seed_of("output-path", form, filled, replace))
    a, b, m = _dense(rng, (30, 20), 0.2), _dense(rng, (20, 25), 0.2), rng.random((30, 25)) < 0.3
    c = _dense(rng, (30, 25), 0.3) if filled else np.zeros((30, 25))
    C = _matrix(c, backend)
    C(_matrix(m.astype(np.float64), backend).S, replace=replace) << _matrix(a, backend).mxm(_matrix(b, backend),
                                                                                             semiring.plus_times)
    product, present = a @ b, (a != 0).astype(int) @ (b != 0).astype(int) > 0
    want_present = (present & m) | ((c != 0) & ~m & (not replace))
    want = np.where(present & m, product, c)
    got = C.to_dense(fill_value=0)
    got_present = np.zeros(c.shape, bool)
    rows, cols, _ = C.to_coo()
    got_present[rows, cols] = True
    assert np.array_equal(got_present, want_present)
    assert np.array_equal(np.where(want_present, got, 0), np.where(want_present, want, 0))
    as_computed = form != "gustavson" and (replace or not filled)
    assert len(writes) == (0 if as_computed else 1)
