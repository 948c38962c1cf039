"""python-graphblas's infix forms, expressions computed on use, broadcasting, methods and
the answers that used to differ silently, each compared with python-graphblas."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pgcompat import matrix, other, raises_same, same, vector


def _inplace_add(gb: Any) -> Any:
    x = vector(gb)
    x += x @ matrix(gb)
    return x


def _inplace_matmul(gb: Any) -> Any:
    x = vector(gb)
    x @= matrix(gb)
    return x


def _inplace_sub_matrix(gb: Any) -> Any:
    A = matrix(gb)
    A -= other(gb)
    return A


INFIX = {
    "A + B": lambda gb: matrix(gb) + other(gb),
    "A - B": lambda gb: matrix(gb) - other(gb),
    "A - A.T": lambda gb: matrix(gb) - matrix(gb).T,
    "A.T - A": lambda gb: matrix(gb).T - matrix(gb),
    "A * B": lambda gb: matrix(gb) * other(gb),
    "A / B": lambda gb: matrix(gb) / other(gb),
    "A < 2": lambda gb: matrix(gb) < 2,
    "A >= B": lambda gb: matrix(gb) >= other(gb),
    "A == B": lambda gb: matrix(gb) == other(gb),
    "A != 4": lambda gb: matrix(gb) != 4,
    "2 * v": lambda gb: 2 * vector(gb),
    "v - 15": lambda gb: vector(gb) - 15,
    "1 - v": lambda gb: 1 - vector(gb),
    "v ** 2": lambda gb: vector(gb) ** 2,
    "-v": lambda gb: -vector(gb),
    "abs(v)": lambda gb: abs(vector(gb)),
    "~(A < 2)": lambda gb: ~(matrix(gb) < 2).new(),
    "(A < 2) ^ (B > 0)": lambda gb: (matrix(gb) < 2).new() ^ (other(gb) > 0).new(),
    "x += x @ A": _inplace_add,
    "A -= B": _inplace_sub_matrix,
    "x @= A": _inplace_matmul,
    "ewise_union float defaults": lambda gb: vector(gb, int).ewise_union(vector(gb, int).apply(gb.unary.one),
                                                                         gb.monoid.plus, 10.5, 20.25),
    "s + 1": lambda gb: gb.Scalar.from_value(3) + 1,
    "s.ewise_add(t)": lambda gb: gb.Scalar.from_value(3).ewise_add(gb.Scalar.from_value(4.5)),
    "s.ewise_add(empty)": lambda gb: gb.Scalar.from_value(3).ewise_add(gb.Scalar(int)),
    "s.ewise_mult(empty)": lambda gb: gb.Scalar.from_value(3).ewise_mult(gb.Scalar(int)),
}


@pytest.mark.parametrize("name", INFIX)
def test_infix(backend: str, name: str) -> None:
    same(INFIX[name], backend)


COMPUTED_ON_USE = {
    "(A @ B).nvals": lambda gb: (matrix(gb) @ other(gb)).nvals,
    "v.reduce().get(0)": lambda gb: vector(gb).reduce().get(0),
    "v.reduce() == 4": lambda gb: vector(gb).reduce() == 4,
    "v.reduce() == 5": lambda gb: vector(gb).reduce() == 5,
    "(A @ B)[0, 2]": lambda gb: (matrix(gb) @ other(gb))[0, 2].new(),
    "(A @ B).to_coo()": lambda gb: (matrix(gb) @ other(gb)).to_coo(),
    "int(v.reduce())": lambda gb: int(vector(gb).reduce()),
    "(v + v).reduce()": lambda gb: (vector(gb) + vector(gb)).reduce(),
}


@pytest.mark.parametrize("name", COMPUTED_ON_USE)
def test_expression_computed_on_use(backend: str, name: str) -> None:
    same(COMPUTED_ON_USE[name], backend)


BROADCAST = {
    "binary.second(v & A)": lambda gb: gb.binary.second(vector(gb) & matrix(gb)),
    "binary.minus(A & v)": lambda gb: gb.binary.minus(matrix(gb) & vector(gb)),
    "monoid.plus(v | A)": lambda gb: gb.monoid.plus(vector(gb) | matrix(gb)),
    "binary.minus(A | v)": lambda gb: gb.binary.minus(matrix(gb) | vector(gb)),
    "(A < 2) | (v > 0)": lambda gb: (matrix(gb) < 2).new() | (vector(gb) > 0).new(),
    "A.ewise_mult(v)": lambda gb: matrix(gb).ewise_mult(vector(gb), gb.binary.plus),
    "v.ewise_union(A)": lambda gb: vector(gb).ewise_union(matrix(gb), gb.binary.minus, 100, 200),
    "A * v": lambda gb: matrix(gb) * vector(gb),
}


@pytest.mark.parametrize("name", BROADCAST)
def test_vector_with_matrix(backend: str, name: str) -> None:
    same(BROADCAST[name], backend)


def test_broadcast_size_mismatch(backend: str) -> None:
    raises_same(lambda gb: vector(gb).ewise_mult(other(gb)[:3, :].new()), backend)


def _build(gb: Any) -> Any:
    A = gb.Matrix(float, 3, 3)
    A.build([0, 1, 1], [2, 0, 0], [1.0, 2.0, 3.0], dup_op=gb.binary.plus)
    return A


def _setdiag(gb: Any) -> Any:
    A = matrix(gb)
    A.setdiag(9)
    return A


def _setdiag_vector(gb: Any) -> Any:
    A = matrix(gb)
    A.setdiag(gb.Vector.from_coo([0, 2], [1.0, 2.0], size=3), 1)
    return A


def _subassign(gb: Any) -> Any:
    C = matrix(gb)
    v = gb.Vector.from_coo([1, 2], [7.0, 8.0], size=4)
    C[0, :](v.S) << v
    return C


def _fill_all(v: Any) -> Any:
    v[...] << 1
    return v


def _assign_list(gb: Any) -> Any:
    v = vector(gb)
    v[[0, 2]] = [10.0, 20.0]
    A = matrix(gb)
    A[1, :] = [1.0, 2.0, 3.0, 4.0]
    return v, A


def _subassign_column_part(gb: Any) -> Any:
    A = matrix(gb)
    m = gb.Vector.from_coo([1], [True], size=2)
    v = gb.Vector.from_coo([0, 1], [10.0, 20.0])
    A[[0, 1], 0](m.S) << v
    A[1, [1, 2]](m.V, accum=gb.binary.plus).update(v)
    A[[0, 2], 1](m.S, gb.binary.plus, replace=True) << v
    A[[2, 3], 3](m.S) << 99
    return A


METHODS = {
    "sub-assign into part of a column, accum, replace, scalar": _subassign_column_part,
    "assign a list": _assign_list,
    "from_coo scalar with repeats": lambda gb: gb.Vector.from_coo([0, 1, 1, 3], 7),
    "Matrix.from_coo scalar with repeats": lambda gb: gb.Matrix.from_coo([0, 0, 1], [1, 1, 0], 2.5),
    "reduce(agg.sum, allow_empty=False)": lambda gb: gb.Vector(int, 5).reduce(gb.agg.sum, allow_empty=False),
    "reduce(agg.count[INT16])": lambda gb: vector(gb, "INT8").reduce(gb.agg.count["INT16"]),
    "build": _build,
    "to_dicts": lambda gb: matrix(gb).to_dicts(),
    "to_dicts columnwise": lambda gb: matrix(gb).to_dicts("columnwise"),
    "from_dicts": lambda gb: gb.Matrix.from_dicts({0: {1: 2.0}, 2: {0: 3.0}}, nrows=3, ncols=3),
    "Vector.to_dict": lambda gb: vector(gb).to_dict(),
    "Vector.from_dict": lambda gb: gb.Vector.from_dict({1: 2, 3: 4}, size=5),
    "Vector.from_pairs": lambda gb: gb.Vector.from_pairs([(0, 1), (3, 2.5)]),
    "from_dicts(list)": lambda gb: gb.Matrix.from_dicts([{1: 2}, {0: 3}]),
    "outer": lambda gb: vector(gb).outer(vector(gb)),
    "outer minus": lambda gb: vector(gb).outer(gb.Vector.from_coo([1], [1.0], size=2), gb.binary.minus),
    "power(3)": lambda gb: matrix(gb).power(3),
    "power(0)": lambda gb: matrix(gb).power(0),
    "power min_plus": lambda gb: matrix(gb).power(2, gb.semiring.min_plus),
    "setdiag(9)": _setdiag,
    "setdiag(Vector, 1)": _setdiag_vector,
    "reposition": lambda gb: matrix(gb).reposition(1, -1),
    "Vector.reposition": lambda gb: vector(gb).reposition(2, size=6),
    "ndim": lambda gb: (matrix(gb).ndim, vector(gb).ndim, gb.Scalar.from_value(1).ndim),
    "(~A.S).new(A.dtype)": lambda gb: (~matrix(gb).S).new(matrix(gb).dtype),
    "A.V.new()": lambda gb: (matrix(gb) - matrix(gb)).new().V.new(),
    "C[0, :](v.S) << v": _subassign,
    "dup(mask=v > 1)": lambda gb: vector(gb).dup(mask=vector(gb) > 1),
    "diag(Scalar k)": lambda gb: matrix(gb).diag(gb.Scalar.from_value(1)),
    "(0, 2) in A, (2, 0) in A.T": lambda gb: ((0, 2) in matrix(gb), (2, 0) in matrix(gb).T, (1, 0) in matrix(gb)),
    "set(A.T)": lambda gb: sorted(matrix(gb).T),
    "(v.S | w.S).new()": lambda gb: (vector(gb).S | gb.Vector.from_coo([2], [0], size=4).S).new(),
    "(~v.S & w.V).new()": lambda gb: (~vector(gb).S & gb.Vector.from_coo([1, 2], [0, 1], size=4).V).new(),
    "to_edgelist": lambda gb: matrix(gb).to_edgelist(),
    "M.new(mask=N, complement=True)": lambda gb: (~vector(gb).S).new(int, mask=gb.Vector.from_coo([2, 3], [1, 0], size=4)
                                                                      .V, complement=True),
    "M.new(mask=N)": lambda gb: vector(gb).V.new(float, mask=~gb.Vector.from_coo([1], [1], size=4).S),
    "v[...] << 1": lambda gb: _fill_all(vector(gb)),
}


@pytest.mark.parametrize("name", METHODS)
def test_methods(backend: str, name: str) -> None:
    same(METHODS[name], backend)


def test_build_on_full_raises(backend: str) -> None:
    raises_same(lambda gb: matrix(gb).build([0], [0], [1.0]), backend)


def _waits_to_itself(A: Any) -> bool:
    return A.wait() is A


SILENT = {
    "dtype == 'FP64'": lambda gb: (matrix(gb).dtype == "FP64", matrix(gb).dtype == "INT64"),
    "dtype == float": lambda gb: (matrix(gb).dtype == float, matrix(gb).dtype == int),
    "dtype == np.float64": lambda gb: (matrix(gb).dtype == np.float64, matrix(gb).dtype == np.int32),
    "list(v)": lambda gb: list(vector(gb)),
    "list(A)": lambda gb: list(matrix(gb)),
    "to_dense(6.5) of integers": lambda gb: matrix(gb, int).to_dense(6.5),
    "Vector.to_dense(0.5)": lambda gb: vector(gb, int).to_dense(0.5),
    "A.wait() is A": lambda gb: _waits_to_itself(matrix(gb)),
}


@pytest.mark.parametrize("name", SILENT)
def test_formerly_silent_differences(backend: str, name: str) -> None:
    same(SILENT[name], backend)


def test_asarray_of_sparse_raises(backend: str) -> None:
    raises_same(lambda gb: np.asarray(vector(gb)), backend)
    raises_same(lambda gb: np.asarray(matrix(gb)), backend)


def test_cuda_array_interface_of_a_full_vector(backend: str) -> None:
    import grblas_gpu as gb

    full = gb.Vector.from_dense([1.0, 2.5, -3.0], backend=backend)
    if backend != "cupy":
        assert not hasattr(full, "__cuda_array_interface__")
        return
    import cupy

    assert cupy.asarray(full).tolist() == [1.0, 2.5, -3.0]
    assert not hasattr(gb.Vector.from_coo([0], [1.0], size=3, backend=backend), "__cuda_array_interface__")
