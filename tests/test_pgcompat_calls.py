"""python-graphblas call forms (operators called on objects, gb.op, gb.agg, replace,
keywords) give python-graphblas's results: each snippet runs on both libraries."""

from __future__ import annotations

from typing import Any

import pytest
from pgcompat import matrix, other, raises_same, same, vector


def _select_by_comparison(A: Any) -> Any:
    return A.select(A < 3)


OPERATOR_CALLS = {
    "select.triu(A, 1)": lambda gb: gb.select.triu(matrix(gb), 1),
    "select.tril(A)": lambda gb: gb.select.tril(matrix(gb)),
    "select.offdiag(A)": lambda gb: gb.select.offdiag(matrix(gb)),
    "select.valuegt(v, 0)": lambda gb: gb.select.valuegt(vector(gb), 0),
    "select.value(v >= 2)": lambda gb: gb.select.value(vector(gb) >= 2),
    "select.row(A < 2)": lambda gb: gb.select.row(matrix(gb) < 2),
    "select.index(v <= 1)": lambda gb: gb.select.index(vector(gb) <= 1),
    "unary.one(A)": lambda gb: gb.unary.one(matrix(gb)),
    "unary.abs(v)": lambda gb: gb.unary.abs(vector(gb)),
    "unary.minv(v)": lambda gb: gb.unary.minv(vector(gb)),
    "unary.abs[FP32](v)": lambda gb: gb.unary.abs["FP32"](vector(gb)),
    "binary.plus(A, 1)": lambda gb: gb.binary.plus(matrix(gb), 1),
    "binary.minus(1, A)": lambda gb: gb.binary.minus(1, matrix(gb)),
    "binary.minus(v, right=15)": lambda gb: gb.binary.minus(vector(gb), right=15),
    "binary.plus(A | B, defaults)": lambda gb: gb.binary.plus(matrix(gb) | other(gb), left_default=0,
                                                               right_default=10),
    "binary.max(A & B)": lambda gb: gb.binary.max(matrix(gb) & other(gb)),
    "monoid.min(A | B)": lambda gb: gb.monoid.min(matrix(gb) | other(gb)),
    "semiring.min_plus(A @ B)": lambda gb: gb.semiring.min_plus(matrix(gb) @ other(gb)),
    "any_pair[bool](v @ A)": lambda gb: gb.semiring.any_pair[bool](vector(gb) @ matrix(gb)),
    "plus_pair(A @ B) type": lambda gb: gb.semiring.plus_pair(matrix(gb, bool) @ matrix(gb, bool)),
    "indexunary.rowindex(A)": lambda gb: gb.indexunary.rowindex(matrix(gb)),
    "indexunary.index(v, 1)": lambda gb: gb.indexunary.index(vector(gb), 1),
    "A.select('row<=', 1)": lambda gb: matrix(gb).select("row<=", 1),
    "A.select('>', 0)": lambda gb: matrix(gb).select(">", 0),
    "A.select(A < 3)": lambda gb: _select_by_comparison(matrix(gb)),
    "unary.cos(1)": lambda gb: gb.unary.cos(1),
    "binary.plus(1, 2)": lambda gb: gb.binary.plus(1, 2),
    "binary.times((v | w) | u)": lambda gb: gb.binary.times((vector(gb) | vector(gb, int)) | gb.Vector.from_coo(
        [2], [100.0], size=4)),
    "binary.plus((v | w) | u, defaults)": lambda gb: gb.binary.plus((vector(gb) | vector(gb, int)) | gb.Vector.from_coo(
        [2], [100.0], size=4), left_default=10, right_default=10),
    "v.apply(lambda)": lambda gb: vector(gb).apply(lambda x: x * 2 + 1),
    "v.ewise_mult(v, lambda)": lambda gb: vector(gb).ewise_mult(vector(gb), lambda x, y: x * y - 1),
}


@pytest.mark.parametrize("name", OPERATOR_CALLS)
def test_operator_called_on_object(backend: str, name: str) -> None:
    same(OPERATOR_CALLS[name], backend)


OP_NAMESPACE = {
    "op.plus_times": lambda gb: matrix(gb).mxm(other(gb), gb.op.plus_times),
    "op.from_string('min.+')": lambda gb: matrix(gb).mxm(other(gb), gb.op.from_string("min.+")),
    "op.from_string('+[int]')": lambda gb: matrix(gb).ewise_add(other(gb), gb.op.from_string("+[int]")),
    "op.abs": lambda gb: matrix(gb).apply(gb.op.abs),
    "binary.from_string('-')": lambda gb: matrix(gb).ewise_mult(other(gb), gb.binary.from_string("-")),
    "semiring.from_string('max.*')": lambda gb: matrix(gb).mxm(other(gb), gb.semiring.from_string("max.*")),
}


@pytest.mark.parametrize("name", OP_NAMESPACE)
def test_op_namespace(backend: str, name: str) -> None:
    same(OP_NAMESPACE[name], backend)


# (any_value is left out: python-graphblas leaves the choice of value open.)
AGGREGATORS = ["sum", "prod", "count", "mean", "min", "max", "argmin", "argmax", "first", "last",
               "first_index", "last_index", "varp", "vars", "stdp", "stds", "L1norm", "L2norm", "Linfnorm",
               "sum_of_squares", "count_nonzero", "count_zero", "L0norm", "exists", "peak_to_peak",
               "hypot", "root_mean_square", "sum_of_inverses"]


@pytest.mark.parametrize("name", AGGREGATORS)
def test_aggregator_vector(backend: str, name: str) -> None:
    same(lambda gb: vector(gb).reduce(getattr(gb.agg, name)), backend)


@pytest.mark.parametrize("name", AGGREGATORS)
@pytest.mark.parametrize("axis", ["rowwise", "columnwise"])
def test_aggregator_matrix(backend: str, name: str, axis: str) -> None:
    same(lambda gb: getattr(matrix(gb), f"reduce_{axis}")(getattr(gb.agg, name)), backend)


@pytest.mark.parametrize("name", ["sum", "count", "mean", "max", "stds"])
def test_aggregator_matrix_scalar_and_forms(backend: str, name: str) -> None:
    same(lambda gb: matrix(gb).reduce_scalar(getattr(gb.agg, name)), backend)
    same(lambda gb: getattr(gb.agg, name)(matrix(gb), rowwise=True), backend)
    same(lambda gb: vector(gb).reduce(name) if name != "max" else vector(gb).reduce("argmin"), backend)


def test_replace(backend: str) -> None:
    def snippet(gb: Any) -> Any:
        from importlib import import_module

        replace = import_module(gb.__name__).replace
        w = vector(gb)
        w(other(gb).diag().S, replace) << gb.Vector.from_coo([0], [9.0], size=4)
        return w

    same(snippet, backend)


KEYWORDS = {
    "diag(name=)": lambda gb: matrix(gb).diag(name="d"),
    "to_coo(values=False)": lambda gb: matrix(gb).to_coo(values=False)[:2],
    "to_coo(sort=True)": lambda gb: matrix(gb).to_coo(sort=True),
    "new(nthreads=)": lambda gb: (matrix(gb) @ other(gb)).new(nthreads=2),
    "dup(clear=)": lambda gb: matrix(gb).dup(clear=True),
    "Vector.dup(clear=)": lambda gb: vector(gb).dup(float, clear=True),
    "from_coo positional dtype": lambda gb: gb.Vector.from_coo([0, 2], [1, 2], gb.dtypes.FP32, size=4),
    "Matrix.from_coo positional dtype": lambda gb: gb.Matrix.from_coo([0], [1], [3], gb.dtypes.INT8, nrows=2,
                                                                       ncols=2),
    "from_edgelist": lambda gb: gb.Matrix.from_edgelist([(0, 1), (1, 2), (2, 0)]),
    "from_edgelist values": lambda gb: gb.Matrix.from_edgelist([(0, 1), (1, 2)], [2, 3]),
}


@pytest.mark.parametrize("name", KEYWORDS)
def test_keywords(backend: str, name: str) -> None:
    same(KEYWORDS[name], backend)


BAD_CALLS = {
    "binary.plus(A, B)": lambda gb: gb.binary.plus(matrix(gb), other(gb)),
    "semiring(A | B)": lambda gb: gb.semiring.plus_times(matrix(gb) | other(gb)),
    "semiring(A, B)": lambda gb: gb.semiring.plus_times(matrix(gb), other(gb)),
    "defaults without |": lambda gb: gb.binary.plus(matrix(gb) & other(gb), left_default=0, right_default=0),
    "one default": lambda gb: gb.binary.plus(matrix(gb) | other(gb), left_default=0),
    "unary.abs(1, A)": lambda gb: gb.unary.abs(matrix(gb), 1),
    "op.from_string('nope')": lambda gb: gb.op.from_string("nope"),
    "~A (not BOOL)": lambda gb: ~matrix(gb),
    "np.asarray(v)": lambda gb: __import__("numpy").asarray(vector(gb)),
    "power(-1)": lambda gb: matrix(gb).power(-1).new(),
    "v.apply(binary.plus)": lambda gb: vector(gb).apply(gb.binary.plus).new(),
    "v.apply(indexunary.valueeq, left=1)": lambda gb: vector(gb).apply(gb.indexunary.valueeq, left=1).new(),
    "v.reduce(binary.minus)": lambda gb: vector(gb).reduce(gb.binary.minus).new(),
    "1 in A": lambda gb: 1 in matrix(gb),
}


@pytest.mark.parametrize("name", BAD_CALLS)
def test_bad_calls_raise_as_python_graphblas(backend: str, name: str) -> None:
    raises_same(BAD_CALLS[name], backend)
