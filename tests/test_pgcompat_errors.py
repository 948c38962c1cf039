"""Bad arguments raise python-graphblas's exception classes with the words its tests match
(ours add a hint after them), and the index forms python-graphblas accepts give its results."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from pgcompat import graphblas, matrix, raises_same, same, vector

import grblas_gpu


def raises_like(snippet: Any, backend: str, match: str) -> None:
    """Both libraries raise; ours is an instance of theirs' builtin base and both messages
    contain ``match``."""
    base = raises_same(snippet, backend)
    for lib in (graphblas, grblas_gpu):
        with grblas_gpu.use_backend(backend), pytest.raises(base) as info:
            snippet(lib)
        assert re.search(match, str(info.value)), f"{lib.__name__}: {info.value}"


def _scalar_masked(t: Any) -> None:
    t(mask=t) << t


MESSAGES = {
    "from_coo duplicates": (lambda gb: gb.Vector.from_coo([1, 1], [1, 2], size=3), "Duplicate indices found"),
    "mask on a Scalar": (lambda gb: _scalar_masked(gb.Scalar.from_value(1.0)), "Mask not allowed for Scalars"),
    "assign an object": (lambda gb: vector(gb, int).__setitem__(slice(None), object()), "Bad type for arg"),
    "apply a semiring": (lambda gb: vector(gb).apply(gb.semiring.min_plus),
                         "apply only accepts UnaryOp with no scalars or BinaryOp"),
    "apply left and right": (lambda gb: vector(gb).apply(gb.binary.plus, left=1, right=1), "Cannot provide both"),
    "select thunk": (lambda gb: vector(gb).select(gb.select.valuegt, object()), "thunk"),
    "reduce with minus": (lambda gb: vector(gb).reduce(gb.binary.minus), "Expected type: Monoid"),
    "accum a semiring": (lambda gb: vector(gb)(accum=gb.semiring.min_plus), "Expected type: BinaryOp"),
    "ewise_union default": (lambda gb: vector(gb).ewise_union(vector(gb), gb.binary.plus, vector(gb), 0),
                            "Literal scalars"),
    "Vector.get of a list": (lambda gb: vector(gb).get([0, 1]), "Bad index in Vector.get"),
    "Matrix.get of a list": (lambda gb: matrix(gb).get(0, [0, 1]), "Bad row, col"),
    "Vector key": (lambda gb: vector(gb)[vector(gb, int)].new(), "Invalid type for index"),
    "Vector key assign": (lambda gb: vector(gb).__setitem__(vector(gb), 1), "Invalid type for index: Vector"),
    "A << None": (lambda gb: matrix(gb) << None, "Assignment value must be a valid expression"),
    "bool(A)": (lambda gb: bool(matrix(gb)), "not defined"),
    "np.asarray(A.T)": (lambda gb: np.asarray(matrix(gb).T), "TransposedMatrix can't be directly converted"),
    "agg rowwise and columnwise": (lambda gb: gb.agg.sum(matrix(gb), rowwise=True, columnwise=True),
                                   "cannot both be True"),
    "from_dense 1-d": (lambda gb: gb.Matrix.from_dense([1, 2, 3]), "is required to create a dense"),
    "setdiag out of range": (lambda gb: matrix(gb).setdiag(1, 9), "diagonal is out of range"),
    "Scalar.ewise_add(Vector)": (lambda gb: gb.Scalar.from_value(1).ewise_add(vector(gb)), "Literal scalars also"),
    "to_dense with gaps": (lambda gb: vector(gb).to_dense(), "fill_value must be given"),
    "Matrix to_dense with gaps": (lambda gb: matrix(gb).to_dense(), "fill_value must be given"),
    "float Scalar index": (lambda gb: vector(gb)[gb.Scalar.from_value(1.0)], "An integer is required for indexing"),
    "[0] in v": (lambda gb: [0] in vector(gb), ""),
    "Vector.from_coo([], [])": (lambda gb: gb.Vector.from_coo([], []), "Unable to infer size"),
    "Matrix.from_coo([], [], [])": (lambda gb: gb.Matrix.from_coo([], [], []), "Unable to infer nrows"),
    "from_pairs(array)": (lambda gb: gb.Vector.from_pairs(np.array([[0, 1], [2, 3]])), "use `Vector.from_coo`"),
    "from_pairs([])": (lambda gb: gb.Vector.from_pairs([]), "Unable to infer size"),
    "v[2](w.S) << 7": (lambda gb: vector(gb)[2](vector(gb).S) << 7, "Single element assign does not accept a submask"),
    "select(mask, thunk)": (lambda gb: vector(gb).select(vector(gb).S, 777), "thunk"),
    "v | s": (lambda gb: vector(gb) | gb.Scalar.from_value(1.0), "Bad type for argument"),
    "1 & v": (lambda gb: 1 & vector(gb), "Bad type for argument"),
    "s | A": (lambda gb: gb.Scalar.from_value(1.0) | matrix(gb), "Bad type for argument"),
    "v @ s": (lambda gb: vector(gb) @ gb.Scalar.from_value(1.0), "Bad type for argument"),
    "binary.plus(v, v)": (lambda gb: gb.binary.plus(vector(gb), vector(gb)), "Bad type for keyword argument `right="),
    "M.S | int Vector": (lambda gb: vector(gb, int).S | vector(gb, int), "Mask must be"),
    "M.S.new(mask=int Vector)": (lambda gb: vector(gb).S.new(mask=vector(gb, int)), "Mask must be"),
    "M.S | object()": (lambda gb: vector(gb).S | object(), "Invalid mask"),
    "Vector.from_scalar(v)": (lambda gb: gb.Vector.from_scalar(vector(gb), size=2), "Literal scalars also accepted"),
    "Matrix.from_scalar(A)": (lambda gb: gb.Matrix.from_scalar(matrix(gb), nrows=2, ncols=3),
                              "Literal scalars also accepted"),
    "to_dense(object())": (lambda gb: vector(gb).to_dense(object()), "Bad type for keyword argument `fill_value"),
    "w[0] = object()": (lambda gb: vector(gb).__setitem__(0, object()), "Bad type for arg"),
    "v[[0, 1]](A.S) << 88": (lambda gb: vector(gb)[[0, 1]](matrix(gb).S) << 88, "Mask object must be type Vector"),
    "C[0, 0](v.S) << 1": (lambda gb: matrix(gb)[0, 0](vector(gb).S) << 1,
                          "Unable to use Vector mask on single element assignment to a Matrix"),
    "v.reduce(semiring)": (lambda gb: vector(gb).reduce(gb.semiring.plus_times), "to get the Monoid"),
    "to_scipy_sparse bad format": (lambda gb: gb.io.to_scipy_sparse(matrix(gb), "bad format"), "Invalid format"),
}


@pytest.mark.parametrize("name", MESSAGES)
def test_message(backend: str, name: str) -> None:
    snippet, match = MESSAGES[name]
    raises_like(snippet, backend, match)


def test_sub_assign_mask_of_the_wrong_kind(backend: str) -> None:
    def vector_mask(gb: Any) -> None:
        A = matrix(gb)
        A[[0, 1], [0, 1]](vector(gb, bool).S) << 1

    def matrix_mask(gb: Any) -> None:
        A = matrix(gb)
        A[0, [0, 1]](matrix(gb, bool).S) << 1

    raises_like(vector_mask, backend, "Unable to use Vector mask on Matrix assignment to a Matrix")
    raises_like(matrix_mask, backend, "Indices for subassign imply Vector submask, but got Matrix mask instead")


def _delete(gb: Any, key: Any, make: Any = vector) -> Any:
    x = make(gb)
    del x[key]
    return x


INDEX_FORMS = {
    "v[[-1, -3]]": lambda gb: vector(gb)[[-1, -3]].new(),
    "v[[-4]]": lambda gb: vector(gb)[[-4]].new(),
    "v[Scalar(-1)]": lambda gb: vector(gb)[gb.Scalar.from_value(-1)].new(),
    "v[[Scalar(1), 0]]": lambda gb: vector(gb)[[gb.Scalar.from_value(1, "UINT8"), 0]].new(),
    "A[-1, [-1, 0]]": lambda gb: matrix(gb)[-1, [-1, 0]].new(),
    "w[[-1]] = 9": lambda gb: _assigned(gb),
    "del v[1:3]": lambda gb: _delete(gb, slice(1, 3)),
    "del v[[0, 3]]": lambda gb: _delete(gb, [0, 3]),
    "del A[0, :]": lambda gb: _delete(gb, (0, slice(None)), matrix),
    "del A[[0, 3], [1, 3]]": lambda gb: _delete(gb, ([0, 3], [1, 3]), matrix),
    "1 in v, 2 in v": lambda gb: (1 in vector(gb), 2 in vector(gb)),
    "v.select((v > 0).new())": lambda gb: vector(gb).select((vector(gb) > 0).new()),
    "v.select(w.S)": lambda gb: vector(gb).select(gb.Vector.from_coo([1, 2], [0, 0], size=4).S),
    "v.select(w.V)": lambda gb: vector(gb).select(gb.Vector.from_coo([0, 1], [True, False], size=4).V),
    "v.select(~(v != 2))": lambda gb: vector(gb).select(~(vector(gb) != 2)),
    "A.select(B.S)": lambda gb: matrix(gb).select(gb.Matrix.from_coo([0, 3], [0, 3], 1, nrows=4, ncols=4).S),
    "Scalar(int, is_cscalar=True)": lambda gb: gb.Scalar(int, is_cscalar=True),
    "Vector.from_pairs([], size=4)": lambda gb: gb.Vector.from_pairs([], size=4),
    "(M.S | bool Vector).new()": lambda gb: (vector(gb).S | gb.Vector.from_coo([1, 2], [True, False], size=4)).new(),
    "(bool Vector & ~M.S).new()": lambda gb: (gb.Vector.from_coo([1, 2], [True, True], size=4) & ~vector(gb).S).new(),
    "M.S.new(mask=bool Vector, complement=True)": lambda gb: vector(gb).S.new(
        mask=gb.Vector.from_coo([0, 2], [True, True], size=4), complement=True),
    # (index arrays compared as int64: ours are int32 where they fit, as documented)
    "A.to_csr(sort=False, dtype=int)": lambda gb: _wide(matrix(gb).to_csr(sort=False, dtype=int)),
    "A.T.to_csc(dtype=float)": lambda gb: _wide(matrix(gb).T.to_csc(dtype=float)),
    "A.to_dcsr()": lambda gb: gb.Matrix.from_coo([0, 3], [1, 0], [1.5, 2.5], nrows=5, ncols=3).to_dcsr(),
    "A.to_dcsc(dtype=int)": lambda gb: gb.Matrix.from_coo([0, 3], [1, 0], [1.5, 2.5], nrows=5, ncols=3).to_dcsc(
        dtype=int),
    "from_dcsr": lambda gb: gb.Matrix.from_dcsr([0, 2], [0, 1, 2], [1, 0], [10, 20], ncols=3),
    "from_dcsr scalar": lambda gb: gb.Matrix.from_dcsr([0, 2], [0, 1, 2], [1, 0], 100),
    "from_dcsc": lambda gb: gb.Matrix.from_dcsc([0, 1], [0, 1, 2], [2, 0], [20, 10], ncols=3),
    "from_dcsr empty": lambda gb: gb.Matrix.from_dcsr([], [0], [], [], nrows=2, ncols=2, dtype=int),
    "Vector.from_dict({})": lambda gb: gb.Vector.from_dict({}),
    "binary.plus(1 | (s | t))": lambda gb: gb.binary.plus(1 | (gb.Scalar.from_value(2) | gb.Scalar(int))).new(),
    "np.array(s)": lambda gb: np.array(gb.Scalar.from_value(5)),
    "np.array([s, s], dtype=float)": lambda gb: np.array([gb.Scalar.from_value(5)] * 2, dtype=float),
    "binary.plus((s | t) | u)": lambda gb: gb.binary.plus((gb.Scalar.from_value(1) | gb.Scalar.from_value(2))
                                                           | gb.Scalar(int)).new(),
    "binary.times((1 | t) | 5)": lambda gb: gb.binary.times((1 | gb.Scalar.from_value(2)) | 5).new(),
    "monoid.max((s & t) & 3)": lambda gb: gb.monoid.max((gb.Scalar.from_value(1) & gb.Scalar.from_value(4)) & 3).new(),
}


def _wide(arrays: Any) -> Any:
    *indices, values = arrays
    return (*(np.asarray(i).astype(np.int64) for i in indices), values)


def _assigned(gb: Any) -> Any:
    w = vector(gb)
    w[[-1]] = 9
    return w


@pytest.mark.parametrize("name", INDEX_FORMS)
def test_index_forms(backend: str, name: str) -> None:
    same(INDEX_FORMS[name], backend)


def test_index_out_of_range_negative(backend: str) -> None:
    raises_same(lambda gb: vector(gb)[[-5]].new(), backend)
    raises_same(lambda gb: vector(gb)[gb.Scalar.from_value(-5)].new(), backend)
