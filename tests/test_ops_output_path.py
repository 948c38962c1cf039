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
from grblas_gpu._operations import bind_evaluator, evaluators
from grblas_gpu.expressions import Expression, Output
from grblas_gpu.ops import mxm as planner

# An expression is data: its operation's evaluator is bound once, by its method's name.
_DECLINING = "test copy, declining its write"
seen: list[Output] = []


def _copy(expr: Expression, mask: Any) -> Any:
    return expr.args[0].dup()


def _declined(expr: Expression, out: Output) -> bool:
    seen.append(out)
    return False


bind_evaluator(_DECLINING, _copy, _declined)


def test_expressions_hold_no_functions(backend: str) -> None:
    """Every expression the objects' methods make is data: operands, parameters, a method
    name with a bound evaluator; no function among its fields (a closure would be one)."""
    import types

    v = gb.Vector.from_coo([0, 2], [1.0, 2.0], size=4, backend=backend)
    A = gb.Matrix.from_coo([0, 1], [1, 2], [1.0, 2.0], nrows=4, ncols=4, backend=backend)
    exprs = [A.mxv(v), v.vxm(A), A.mxm(A), A.T.mxv(v), v.ewise_add(v), v.ewise_union(v, binary.plus, 0, 0),
             v.apply(gb.unary.abs), v.apply(binary.plus, right=1), A.select("triu"), A.reduce_rowwise(), v.reduce(),
             v[[0, 2]], A[0, :], A.kronecker(A, binary.times), v.inner(v), A.T._as_expression(), v.reduce(gb.agg.mean)]
    for expr in exprs:
        assert expr.method in evaluators, expr
        fields = list(vars(expr).values()) + list(expr.params)
        assert not any(isinstance(f, (types.FunctionType, types.MethodType)) for f in fields), expr


def test_an_operation_binds_one_evaluator() -> None:
    """A method name has one evaluator: a second binding of it raises."""
    with pytest.raises(LookupError):
        bind_evaluator("mxm", _copy)
    assert evaluators["mxm"].compute is not _copy


def test_an_expression_as_a_mask(backend: str) -> None:
    """``C(A < 2) << A``: an expression given as a mask is its result's value mask."""
    A = gb.Matrix.from_coo([0, 1, 1], [1, 0, 1], [1.0, 3.0, 0.5], nrows=2, ncols=2, backend=backend)
    C = gb.Matrix(float, 2, 2, backend=backend)
    C(A < 2) << A
    rows, cols, vals = C.to_coo()
    assert sorted(zip(rows.tolist(), cols.tolist(), vals.tolist())) == [(0, 1, 1.0), (1, 1, 0.5)]


def test_the_expression_gets_the_statements_output(backend: str) -> None:
    """``C(M.S, plus, replace) << expr``: the expression's write is handed one Output holding
    the statement's target, mask, accumulator and replace flag; where it declines, the
    executor computes the expression and writes it by the rule."""
    v = gb.Vector.from_coo([0, 2], [1.0, 2.0], size=4, backend=backend)
    C = gb.Vector.from_coo([1, 2], [10.0, 20.0], size=4, backend=backend)
    M = gb.Vector.from_coo([0, 2], [True, True], size=4, backend=backend)
    seen.clear()
    expr = Expression("copy", "Vector", (4,), v.dtype, v._be, _DECLINING, (v,))
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
