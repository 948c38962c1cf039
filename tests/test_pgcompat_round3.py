"""python-graphblas forms mended in the third round: nested products under one semiring,
``input_mask=``, Scalars with operators, in-place operators on expressions; each runs on
both libraries and the results (or the exception's builtin class) are compared."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pgcompat import matrix, other, raises_same, same, vector


def _identity_like(gb: Any) -> Any:
    return gb.Matrix.from_coo([0, 1, 2, 3], [0, 1, 2, 3], [1, 1, 1, 1], nrows=4, ncols=4)


def _row_extract_masked(gb: Any, by_vector: bool) -> Any:
    A, M = matrix(gb), other(gb)
    return A[1, [0, 1, 3]].new(input_mask=M[1, :].new().S if by_vector else M.S)


def _into_with_input_mask(gb: Any) -> Any:
    v, m = vector(gb), gb.Vector.from_coo([0, 3], [1, 1], size=4)
    w = gb.Vector(v.dtype, size=3)
    w(input_mask=m.S) << v[[0, 1, 3]]
    return w


def _scalar_union_default(gb: Any) -> Any:
    s, t = gb.Scalar.from_value(5), gb.Scalar(int)
    return s.ewise_union(t, gb.binary.plus, 10, 20).new()


SAME = {
    "plus_plus(v @ (v @ D))": lambda gb: gb.op.plus_plus(vector(gb) @ (vector(gb) @ _identity_like(gb))),
    "min_plus((A @ B) @ A)": lambda gb: gb.semiring.min_plus((matrix(gb) @ other(gb)) @ matrix(gb)),
    "max_first(A @ (B @ v))": lambda gb: gb.semiring.max_first(matrix(gb) @ (other(gb) @ vector(gb))),
    "v[idx].new(input_mask=m.S)": lambda gb: vector(gb)[[0, 1, 3]].new(
        input_mask=gb.Vector.from_coo([1, 3], [0, 0], size=4).S),
    "v[idx].new(input_mask=m.V)": lambda gb: vector(gb)[[0, 1, 3]].new(
        input_mask=gb.Vector.from_coo([1, 3], [0, 1], size=4).V),
    "A[i, cols].new(input_mask=M.S)": lambda gb: _row_extract_masked(gb, False),
    "A[i, cols].new(input_mask=row.S)": lambda gb: _row_extract_masked(gb, True),
    "A[rows, cols].new(input_mask=M.V)": lambda gb: matrix(gb)[[0, 1, 3], [0, 3]].new(input_mask=other(gb).V),
    "w(input_mask=m.S) << v[idx]": _into_with_input_mask,
    "binary.plus(s, 2)": lambda gb: gb.binary.plus(gb.Scalar.from_value(5), 2).new(),
    "binary.minus(2, s)": lambda gb: gb.binary.minus(2, gb.Scalar.from_value(5)).new(),
    "select.value(s < 10)": lambda gb: gb.select.value(gb.Scalar.from_value(5) < 10).new(),
    "select.value(s > 10)": lambda gb: gb.select.value(gb.Scalar.from_value(5) > 10).new(),
    "select.valueeq(s, 5)": lambda gb: gb.select.valueeq(gb.Scalar.from_value(5), 5).new(),
    "s.ewise_union(empty, defaults)": _scalar_union_default,
    "binary.plus((1 | s) | t, defaults)": lambda gb: gb.binary.plus(
        (1 | gb.Scalar.from_value(2)) | gb.Scalar(int), left_default=10, right_default=10).new(),
    "Matrix.from_edgelist(triples)": lambda gb: gb.Matrix.from_edgelist([[0, 1, 10], [2, 3, 20]]),
    "Matrix.from_edgelist([], nrows, ncols)": lambda gb: gb.Matrix.from_edgelist([], nrows=2, ncols=3, dtype=int),
    "Matrix.from_dicts(list, order='colwise')": lambda gb: gb.Matrix.from_dicts(
        [{1: 2}, {}, {0: 3, 2: 4}], order="colwise"),
    "Vector.from_coo(float list)": lambda gb: gb.Vector.from_coo([1.2, 3.4], [1, 2]),
    "(A + A) @ (A + A)": lambda gb: (matrix(gb) + matrix(gb)) @ (other(gb) + other(gb)),
    "min_plus((A @ B) @ (B @ A))": lambda gb: gb.semiring.min_plus((matrix(gb) @ other(gb)) @ (other(gb) @ matrix(gb))),
    "M.S.value, M.V.value": lambda gb: (matrix(gb).S.value, matrix(gb).V.value, matrix(gb).S.structure),
    "io.from_networkx(multigraph, weight=None)": lambda gb: gb.io.from_networkx(
        _multigraph(), nodelist=[0, 1, 2], weight=None),
    "v.reduce(agg.logaddexp)": lambda gb: vector(gb).reduce(gb.agg.logaddexp).new(),
    "A.reduce_rowwise(agg.logaddexp2)": lambda gb: matrix(gb).reduce_rowwise(gb.agg.logaddexp2).new(),
    "v.ewise_mult(w, min)": lambda gb: vector(gb).ewise_mult(vector(gb) * 2, min).new(),
    "v(max) << w": lambda gb: _accumulate_with_builtin_max(gb),
    "unary.register_new('folder.name', f)": lambda gb: _nested_name(gb),
    "parameterized op used bare and with parameters": lambda gb: _parameterized(gb),
    "agg.geometric_mean, agg.harmonic_mean": lambda gb: (
        (vector(gb) * vector(gb)).reduce(gb.agg.geometric_mean).new(),
        matrix(gb).apply(gb.unary.abs).reduce_rowwise(gb.agg.harmonic_mean).new()),
    "A.setdiag(x, mask=, accum=)": lambda gb: _setdiag_masked(gb),
    "A.power(0, plus_min), A.T.power(3)": lambda gb: (
        matrix(gb, int).power(0, gb.semiring.plus_min).new(), matrix(gb).T.power(3).new()),
    "binary.times[bool].monoid": lambda gb: repr(gb.binary.times[bool].monoid).split(".")[-1],
    "binary.eq[bool].monoid, monoid.numpy.equal": lambda gb: (
        gb.binary.eq[bool].monoid is gb.monoid.numpy.equal[bool], gb.binary.eq[int].monoid is None,
        gb.binary.plus[bool].monoid is None),
    "reduce_rowwise(user binop once it has a monoid)": lambda gb: _user_binop_monoid(gb),
    "Matrix.from_csr(..., nrows=)": lambda gb: gb.Matrix.from_csr(*matrix(gb).to_csr(), nrows=4),
    "divmod(A, 3), divmod(-3, A)": lambda gb: (divmod(matrix(gb, int), 3), divmod(-3, matrix(gb, int))),
    "binary.fmod(A, 3), fmod(3, A)": lambda gb: (gb.binary.fmod(matrix(gb, int), 3), gb.binary.fmod(3, matrix(gb))),
    "binary.plus(binary.times(A & B) & C)": lambda gb: gb.binary.plus(
        gb.binary.times(matrix(gb) & other(gb)) & matrix(gb)),
    "find_opclass": lambda gb: [_opclass(gb, x) for x in (
        gb.unary.minv, gb.binary.times, gb.monoid.max, gb.semiring.plus_plus, gb.binary.plus["INT64"],
        gb.select.tril, gb.indexunary.rowindex, "foobar")],
}


def _user_binop(gb: Any) -> Any:
    def plus(x: Any, y: Any) -> Any:
        return x + y

    return gb.binary.register_anonymous(plus)


def _user_binop_monoid(gb: Any) -> Any:
    binop = _user_binop(gb)
    gb.monoid.register_anonymous(binop, 0)
    return matrix(gb).reduce_rowwise(binop).new(), binop.monoid is not None


def _setdiag_masked(gb: Any) -> Any:
    A = gb.Matrix(int, 2, 2)
    v = gb.Vector(int, 2)
    v[0] = 1
    A.setdiag(v)
    A.setdiag(v, accum=gb.binary.plus)
    A.setdiag(10, mask=v.S, accum="+")
    A.setdiag(99, mask=~v.S)
    B = A.dup()
    B.setdiag(v, accum="second")
    return A, B


def _accumulate_with_builtin_max(gb: Any) -> Any:
    v = vector(gb)
    v(max) << gb.Vector.from_coo([0, 1, 2], [1.0, 1.0, 1.0], size=4)
    return v


_NAMES = iter(range(10**6))


def _nested_name(gb: Any) -> Any:
    name = f"round3_{next(_NAMES)}"
    gb.unary.register_new(f"{name}.plus_three", lambda x: x + 3)
    return vector(gb).apply(getattr(gb.unary, name).plus_three).new()


def _parameterized(gb: Any) -> Any:
    def plus_x(x: Any = 0) -> Any:
        def inner(val: Any) -> Any:
            return val + x

        return inner

    op = gb.unary.register_anonymous(plus_x, parameterized=True)
    v = vector(gb, "INT32")
    return v.apply(op).new(), v.apply(op(10)).new(), v.apply(op(x=3)).new()


def _no_nodes() -> Any:
    import networkx as nx

    return nx.DiGraph()


def _multigraph() -> Any:
    import networkx as nx

    return nx.MultiGraph([(0, 1), (0, 1), (1, 2)])


def _opclass(gb: Any, x: Any) -> str:
    from importlib import import_module

    operator = import_module("graphblas.core.operator" if gb.__name__ == "graphblas" else "grblas_gpu.operators")
    name = operator.find_opclass(x)[1]
    return "unknown" if name == operator.UNKNOWN_OPCLASS else name


@pytest.mark.parametrize("name", SAME)
def test_same_result(backend: str, name: str) -> None:
    same(SAME[name], backend)


def _get_semiring(gb: Any) -> Any:
    from importlib import import_module

    return import_module("graphblas.core.operator" if gb.__name__ == "graphblas" else "grblas_gpu.operators").get_semiring


def _assign_list_to_element(gb: Any) -> None:
    v = vector(gb)
    v()[0] = [1]


def _assign_matrix_to_element(gb: Any) -> None:
    A = matrix(gb)
    A[0, 0] = A


def _assign_long_list(gb: Any) -> None:
    v = vector(gb)
    v[[0, 1]] = [1, 2, 3]


def _assign_element_with_vector_mask(gb: Any) -> None:
    C = matrix(gb)
    v = gb.Vector.from_coo([0], [1.0], size=4)
    C(v.S)[0, 0] << v


def _iadd_expression(gb: Any) -> None:
    expr = gb.binary.plus(matrix(gb) & matrix(gb))
    expr += 1


def _ior_expression(gb: Any) -> None:
    expr = vector(gb) | vector(gb)
    expr |= vector(gb)


def _scalar_union_empty_default(gb: Any) -> None:
    s, t = gb.Scalar.from_value(5), gb.Scalar(int)
    s.ewise_union(t, gb.binary.plus, 10, t).new()


def _input_mask_and_mask(gb: Any) -> None:
    m = gb.Vector.from_coo([0], [1], size=3)
    vector(gb)[[0, 1, 3]].new(input_mask=m.S, mask=m.S)


def _input_mask_on_assign(gb: Any) -> None:
    A = matrix(gb)
    A(input_mask=other(gb).S)[[0], [0]] = 1


RAISES = {
    "expr |= v": _ior_expression,
    "s.ewise_union(t, op, 10, empty)": _scalar_union_empty_default,
    "s(input_mask=s)": lambda gb: gb.Scalar.from_value(1)(input_mask=gb.Scalar.from_value(1)),
    "s(replace=True)": lambda gb: gb.Scalar.from_value(1)(replace=True),
    "input_mask= with mask=": _input_mask_and_mask,
    "input_mask=M (no .S)": lambda gb: vector(gb)[[0, 1]].new(input_mask=vector(gb)),
    "input_mask of the wrong size": lambda gb: vector(gb)[[0, 1]].new(
        input_mask=gb.Vector.from_coo([0], [1], size=3).S),
    "Vector input_mask of a submatrix": lambda gb: matrix(gb)[[0], [0]].new(input_mask=vector(gb).S),
    "Matrix input_mask of a Vector": lambda gb: vector(gb)[[0, 1]].new(input_mask=matrix(gb).S),
    "input_mask of a single element": lambda gb: matrix(gb)[0, 0].new(input_mask=other(gb).S),
    "input_mask on assign": _input_mask_on_assign,
    "Matrix(None, float)": lambda gb: gb.Matrix(None, float),
    "from_edgelist(triples, values=)": lambda gb: gb.Matrix.from_edgelist([[0, 1, 10], [2, 3, 20]], values=0),
    "from_edgelist(array n x 3)": lambda gb: gb.Matrix.from_edgelist(np.array([[0, 1, 10], [2, 3, 20]])),
    "from_edgelist(4-tuples)": lambda gb: gb.Matrix.from_edgelist([[0, 1, 2, 3], [4, 5, 6, 7]]),
    "from_edgelist([]) without sizes": lambda gb: gb.Matrix.from_edgelist([]),
    "from_dicts(list, nrows=3)": lambda gb: gb.Matrix.from_dicts([{1: 2}, {}, {0: 3, 2: 4}, {}], nrows=3),
    "reduce(agg.mean, allow_empty=False)": lambda gb: vector(gb).reduce(gb.agg.mean, allow_empty=False),
    "agg.sum(v, rowwise=True)": lambda gb: gb.agg.sum(vector(gb), rowwise=True),
    "get_semiring(binary, monoid)": lambda gb: _get_semiring(gb)(gb.binary.plus, gb.monoid.times),
    "get_semiring(monoid, None)": lambda gb: _get_semiring(gb)(gb.monoid.plus, None),
    "v.select(v == 1, 777)": lambda gb: vector(gb).select(vector(gb) == 1, 777),
    "select.register_anonymous(non-BOOL)": lambda gb: gb.select.register_anonymous(lambda x, i, j, t: 3 * x - t),
    "unary.register_anonymous(object())": lambda gb: gb.unary.register_anonymous(object()),
    "range(float Scalar)": lambda gb: range(gb.Scalar.from_value(5.0)),
    "v()[0] = [1]": _assign_list_to_element,
    "A[0, 0] = A": _assign_matrix_to_element,
    "v[[0, 1]] = [1, 2, 3]": _assign_long_list,
    "reduce_rowwise(user binop without a monoid)": lambda gb: matrix(gb).reduce_rowwise(_user_binop(gb)).new(),
    "C(v.S)[0, 0] << v": lambda gb: _assign_element_with_vector_mask(gb),
    "Matrix.from_csr(..., nrows=wrong)": lambda gb: gb.Matrix.from_csr(*matrix(gb).to_csr(), nrows=8),
    "Matrix.from_csc(..., ncols=wrong)": lambda gb: gb.Matrix.from_csc(*matrix(gb).to_csc(), ncols=8),
    "io.from_networkx(graph without nodes)": lambda gb: gb.io.from_networkx(_no_nodes()),
    "expr += 1": lambda gb: _iadd_expression(gb),
    "6 ^ B (BOOL)": lambda gb: 6 ^ matrix(gb, bool),
    "agg.sum(7)": lambda gb: gb.agg.sum(7),
    "A.power(0, min_first)": lambda gb: matrix(gb).power(0, gb.semiring.min_first),
    "A.setdiag(object())": lambda gb: matrix(gb).setdiag(object()),
    "A.setdiag(x, mask of the wrong length)": lambda gb: matrix(gb).setdiag(1.0, mask=vector(gb)[:3].new().S),
    "Vector.from_pairs(triples)": lambda gb: gb.Vector.from_pairs([[1, 2, 3], [4, 5, 6]]),
    "Matrix.from_coo([0], [], [0])": lambda gb: gb.Matrix.from_coo([0], [], [0]),
    "v.reduce(binary.plus[bool])": lambda gb: vector(gb, bool).reduce(gb.binary.plus[bool]),
    "input_mask of an apply": lambda gb: matrix(gb)(input_mask=other(gb).S).update(matrix(gb).apply(gb.unary.ainv)),
}


@pytest.mark.parametrize("name", RAISES)
def test_raises_as_python_graphblas(backend: str, name: str) -> None:
    raises_same(RAISES[name], backend)


def test_sum_of_a_short_vector_in_order() -> None:
    """On the NumPy backend a float sum adds the terms in order, to the last bit as
    python-graphblas (SuiteSparse): graphblas-algorithms' average_clustering is compared with
    networkx's exact value.  (The CuPy backend sums as a tree: equal up to reassociation.)"""
    import graphblas

    import grblas_gpu

    values = [1.0, 1.0, 1 / 3, 0.0]
    ours = grblas_gpu.Vector.from_coo([0, 1, 2, 3], values, backend="numpy").reduce().new().value
    theirs = graphblas.Vector.from_coo([0, 1, 2, 3], values).reduce().new().value
    assert ours == theirs == (1.0 + 1.0 + 1 / 3) + 0.0
