"""python-graphblas forms mended in the fourth round: parameterized monoids and semirings,
``lazy=``, ``binary.binom``, aggregator types, user monoid types, and the errors
python-graphblas raises (class and, where its tests match them, words); each runs on both
libraries and the results, or the exceptions, are compared."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from pgcompat import graphblas, raises_same, same

import grblas_gpu

_names = itertools.count()


def _name(stem: str) -> str:
    """A fresh operator name (each snippet runs on both libraries, on each backend)."""
    return f"r4_{stem}_{next(_names)}"


def _operator_module(gb: Any) -> Any:
    from importlib import import_module

    return import_module("graphblas.core.operator" if gb.__name__ == "graphblas" else "grblas_gpu.operators")


def plus_plus_x(x: int = 0) -> Any:
    def inner(left: Any, right: Any) -> Any:
        return left + right + x

    return inner


def plus_plus_x_identity(x: int = 0) -> Any:
    return -x


def logaddexp(base: float) -> Any:
    def inner(x: Any, y: Any) -> Any:
        return np.log(base**x + base**y) / np.log(base)

    return inner


def _int_vector(gb: Any, dtype: Any = "INT32") -> Any:
    return gb.Vector.from_coo([0, 1, 3], [1, 2, -4], dtype=dtype, size=4)


def _parameterized_monoid(gb: Any) -> Any:
    o = _operator_module(gb)
    return o.Monoid.register_anonymous(o.BinaryOp.register_anonymous(plus_plus_x, parameterized=True),
                                       plus_plus_x_identity, name="my_monoid")


def _monoid_forms(gb: Any) -> Any:
    m, v = _parameterized_monoid(gb), _int_vector(gb)
    return [v.ewise_add(v, m).new(), v.ewise_mult(v, m(1)).new(), v.reduce(m).new(), v.reduce(m(1)).new(),
            gb.Vector.from_coo([0, 0, 1, 3], [1, 0, 2, -4], dtype="INT32", dup_op=m), m.name,
            m.is_idempotent, m(1).is_idempotent]


def _monoid_links(gb: Any) -> Any:
    op = _operator_module(gb).BinaryOp.register_anonymous(plus_plus_x, parameterized=True)
    early = op(1)
    before = op.monoid is None
    m = _operator_module(gb).Monoid.register_anonymous(op, plus_plus_x_identity)
    return [before, op.monoid is m, op(1).monoid is m(1), m(2) is op(2).monoid, early.monoid is None]


def _monoid_of_a_factory(gb: Any) -> Any:
    fv = gb.Vector.from_coo([0, 1, 3], [1.0, 2.0, -4.0])
    m = _operator_module(gb).Monoid.register_anonymous(_operator_module(gb).BinaryOp.register_anonymous(logaddexp, parameterized=True), -np.inf)
    return fv.ewise_mult(fv, m(2)).new()


def _semiring_forms(gb: Any) -> Any:
    op = _operator_module(gb).BinaryOp.register_anonymous(plus_plus_x, parameterized=True)
    m = _operator_module(gb).Monoid.register_anonymous(op, plus_plus_x_identity)
    both = _operator_module(gb).Semiring.register_anonymous(m, op, name="my_semiring")
    A = gb.Matrix.from_coo([0, 0, 1, 1], [0, 1, 0, 1], [1, 2, 3, 4])
    x = gb.Vector.from_coo([0, 1], [10, 20])
    monoid_only = _operator_module(gb).Semiring.register_anonymous(m, gb.binary.plus)
    binop_only = _operator_module(gb).Semiring.register_anonymous(gb.monoid.plus, op)
    return [both.name, A.mxv(x, both).new(), A.mxv(x, both(1)).new(), x.vxm(A.T, both(1)).new(),
            A.mxm(A, both(1)).new(), A.mxm(A, monoid_only(0)).new(), A.mxm(A, binop_only).new(),
            A.reduce_rowwise(op).new()]


def _user_monoid_types(gb: Any) -> Any:
    name = _name("ppo")
    _operator_module(gb).BinaryOp.register_new(name, lambda x, y: x + y + 1)
    m = _operator_module(gb).Monoid.register_anonymous(getattr(gb.binary, name), -1)
    v1 = gb.Vector.from_coo([0, 1, 3], [1, 2, -4], dtype="INT32")
    v2 = gb.Vector.from_coo([0, 2, 3], [2, 3, 7], dtype="INT32")
    return [sorted(str(t) for t in m.types if not str(t).startswith("FC")), v1.ewise_add(v2, m).new(),
            sorted(str(t) for t in gb.monoid.lor.types)]


def _lazy(gb: Any) -> Any:
    u, b, m, s = _name("lu"), _name("lb"), _name("lm"), _name("ls")
    _operator_module(gb).UnaryOp.register_new(u, lambda x: x, lazy=True)
    _operator_module(gb).BinaryOp.register_new(b, lambda x, y: x + y, lazy=True)
    _operator_module(gb).Monoid.register_new(m, b, 0, lazy=True)
    _operator_module(gb).Semiring.register_new(s, m, b, lazy=True)
    _operator_module(gb).UnaryOp.register_new(f"numpy.{u}", lambda x: x, lazy=True)
    v = gb.Vector.from_coo([0, 2], [1, 2], size=3)
    return [isinstance(getattr(gb.op, m), _operator_module(gb).Monoid),
            isinstance(getattr(gb.semiring, s), _operator_module(gb).Semiring),
            gb.op.from_string(f"numpy.{u}") is getattr(gb.unary.numpy, u), v.reduce(getattr(gb.monoid, m)).new()]


def _lazy_select(gb: Any) -> Any:
    name = _name("sel")

    def threex_minusthunk(x: Any, row: Any, col: Any, thunk: Any) -> Any:
        return 3 * x - thunk

    out: list[Any] = [gb.select.register_new(name, threex_minusthunk, lazy=True), hasattr(gb.indexunary, name)]
    try:
        getattr(gb.select, name)
    except ValueError as exc:
        out.append("SelectOp must have BOOL return type" in str(exc))
    out.append(hasattr(gb.select, name))
    return out


def _binom(gb: Any) -> Any:
    v = gb.Vector.from_coo([0, 1, 2, 3], [3, 4, 5, 67])
    small = gb.Vector.from_coo([0, 1, 2], [3, 4, 5], dtype="UINT8")
    return [v.apply(gb.binary.binom, 2).new(), v.apply(gb.binary.binom, 30).new(), v.apply(gb.binary.binom, -1).new(),
            v.apply(gb.binary.binom, left=4).new(), small.apply(gb.binary.binom, 2).new(),
            small.ewise_mult(gb.Vector.from_coo([0, 1, 2], [1, 2, 3], dtype="INT8"), gb.binary.binom).new(),
            gb.op.binom is gb.binary.binom]


def _agg_types(gb: Any) -> Any:
    a = gb.agg
    return ["INT64" in a.sum_of_inverses, "BOOL" in a.sum_of_inverses, "BOOL" in a.count, "BOOL" in a.mean,
            str(a.sum_of_inverses["INT64"].return_type), str(a.varp["INT64"].return_type), "ss" in dir(a),
            [n for n in ("sum", "L2norm", "hypot", "first", "any_value") if "BOOL" in getattr(a, n)]]


def _large_vector(gb: Any) -> Any:
    u = gb.Vector.from_coo([0, 2**59], [0, 1])
    return [u.size, u[2**59].new()]


SAME = {
    "parameterized monoid": _monoid_forms,
    "parameterized monoid and its operator": _monoid_links,
    "monoid of a factory without defaults": _monoid_of_a_factory,
    "parameterized semirings": _semiring_forms,
    "user monoid types": _user_monoid_types,
    "lazy=": _lazy,
    "select.register_new(lazy=True)": _lazy_select,
    "binary.binom": _binom,
    "aggregator types": _agg_types,
    "indices near 2**59": _large_vector,
    "list of float indices": lambda gb: gb.Vector.from_coo([1.2, 3.4], [1, 2]),
    "typed operators' type, return_type, opclass": lambda gb: [
        [str(x.type), str(x.return_type), x.opclass] for x in (
            gb.binary.plus[int], gb.binary.lt["FP32"], gb.unary.abs["FP32"], gb.unary.isnan[float],
            gb.monoid.plus["INT8"], gb.semiring.plus_times[int], gb.semiring.min_plus["FP32"])]
        + [gb.select.tril["FP64"].opclass, gb.indexunary.rowindex["FP64"].opclass],
    "a type in an operator": lambda gb: [int in gb.binary.plus, "int64" in gb.binary.plus, "FP64" in gb.binary.band,
                                         "FP32" in gb.monoid.min, bool in gb.unary.abs],
    "from_scipy_sparse(name=)": lambda gb: gb.io.from_scipy_sparse(
        __import__("scipy.sparse").sparse.coo_array(([1, 2], ([0, 1], [1, 0])), shape=(2, 2)), name="A").name,
    "dir(op) and dir(semiring) list every semiring": lambda gb: [len(dir(gb.op)) > 300, "min_plus" in dir(gb.semiring),
                                                                  "plus_times" in dir(gb.semiring)],
}


@pytest.mark.parametrize("name", SAME)
def test_same_result(backend: str, name: str) -> None:
    same(SAME[name], backend)


def _matrices(gb: Any) -> tuple[Any, Any]:
    A = gb.Matrix.from_coo([0, 0, 1, 1], [0, 1, 0, 1], [True, True, False, True])
    B = gb.Matrix.from_coo([0, 0, 1, 1], [0, 1, 0, 1], [1, 2, 3, 4])
    return A, B


def _signature_mismatch(gb: Any) -> Any:
    return _operator_module(gb).Monoid.register_anonymous(_operator_module(gb).BinaryOp.register_anonymous(plus_plus_x, parameterized=True),
                                        lambda y=0: -y)


def _semiring_signature_mismatch(gb: Any) -> Any:
    def other(y: int = 0) -> Any:
        def inner(left: Any, right: Any) -> Any:
            return left + right - y

        return inner

    m = _operator_module(gb).Monoid.register_anonymous(_operator_module(gb).BinaryOp.register_anonymous(plus_plus_x, parameterized=True),
                                     plus_plus_x_identity)
    return _operator_module(gb).Semiring.register_anonymous(m, _operator_module(gb).BinaryOp.register_anonymous(other, parameterized=True))


RAISES = {  # (snippet, python-graphblas's words where its tests match them)
    "float index array": (lambda gb: gb.Vector.from_coo(np.array([1.2, 3.4]), [1, 2]),
                          "indices must be integers, not float64"),
    "index past 2**64": (lambda gb: gb.Vector.from_coo([0, 2**64], [0, 1]), None),
    "index lengths (Vector)": (lambda gb: gb.Vector.from_coo([0], [1, 2]), "`indices` and `values` lengths must match"),
    "index lengths (Matrix)": (lambda gb: gb.Matrix.from_coo([0], [1, 2], [0]),
                               "`rows` and `columns` and `values` lengths must match: 1, 2, 1"),
    "a tuple as one index": (lambda gb: _matrices(gb)[1][1, (0, 1)], None),
    "a float index array": (lambda gb: _matrices(gb)[1][1, np.array([0, 1], dtype=float)], "Invalid dtype"),
    "a 2-d index array": (lambda gb: _matrices(gb)[1][1, np.array([[0, 1]])], "Invalid number of dimensions"),
    "A.T[i, j] << x": (lambda gb: _matrices(gb)[1].T[1, 0] << 10, "does not support item assignment"),
    "A.T[:, :] << B": (lambda gb: _matrices(gb)[1].T[:, :] << _matrices(gb)[1], "does not support item assignment"),
    "A.T << B": (lambda gb: _matrices(gb)[1].T << _matrices(gb)[1], None),
    "A.T[i, j]()": (lambda gb: _matrices(gb)[1].T[1, 0](), "not callable"),
    "A.T(mask=)": (lambda gb: _matrices(gb)[1].T(mask=_matrices(gb)[0].V), "not callable"),
    "B(mask=A.T.V)": (lambda gb: _matrices(gb)[1](mask=_matrices(gb)[0].T.V), None),
    "bool(A.S)": (lambda gb: bool(_matrices(gb)[1].S), "not defined"),
    "bool(A[i, j]())": (lambda gb: bool(_matrices(gb)[1][1, 0]()), "not defined"),
    "A() == A()": (lambda gb: _matrices(gb)[1]() == _matrices(gb)[1](), "not defined"),
    "identity's signature": (_signature_mismatch, "Signatures"),
    "semiring's signatures": (_semiring_signature_mismatch, "Signatures"),
    "ParameterizedMonoid of a plain operator": (
        lambda gb: _operator_module(gb).ParameterizedMonoid("bad", gb.binary.plus, 0), "binaryop must be parameterized"),
    "ParameterizedSemiring of plain parts": (
        lambda gb: _operator_module(gb).ParameterizedSemiring("bad", gb.monoid.plus, gb.binary.plus), "At least one of"),
    "monoid of a monoid": (lambda gb: _operator_module(gb).Monoid.register_anonymous(gb.monoid.plus, 0), "must be a BinaryOp"),
    "semiring of two operators": (lambda gb: _operator_module(gb).Semiring.register_anonymous(gb.binary.plus, gb.binary.plus),
                                  "must be a Monoid"),
    "semiring of two monoids": (lambda gb: _operator_module(gb).Semiring.register_anonymous(gb.monoid.plus, gb.monoid.plus),
                                "must be a BinaryOp"),
    "agg.sum_of_inverses[BOOL]": (lambda gb: gb.agg.sum_of_inverses["BOOL"], "BOOL"),
    "a UDF returning a Vector": (lambda gb: _operator_module(gb).BinaryOp.register_anonymous(lambda x, y: gb.Vector(int, 2)),
                                 "Unable to parse function using Numba"),
}


@pytest.mark.parametrize("name", RAISES)
def test_raises_as_python_graphblas(backend: str, name: str) -> None:
    snippet, words = RAISES[name]
    base = raises_same(snippet, backend)
    if words is not None:
        with grblas_gpu.use_backend(backend), pytest.raises(base, match=words):
            snippet(grblas_gpu)


@pytest.mark.parametrize("snippet, cls", [
    (lambda gb: gb.Vector.from_coo([0, 2**64 - 2], [0, 1]), "InvalidValue"),
    (lambda gb: gb.Vector.from_coo([0, 2**64], [0, 1]), "OverflowError"),
    (lambda gb: gb.Vector.from_coo(np.array([1.2, 3.4]), [1, 2]), "ValueError"),
])
def test_error_class_named_as_python_graphblas(snippet: Any, cls: str) -> None:
    """python-graphblas's GrB-named class (its builtin where it raises one), ours by the same name."""
    with pytest.raises(Exception) as theirs:
        snippet(graphblas)
    assert type(theirs.value).__name__ == cls or cls == "ValueError"
    ours = getattr(grblas_gpu.exceptions, cls, None) or __builtins__[cls]  # type: ignore[index]
    with pytest.raises(ours):
        snippet(grblas_gpu)


def test_transpose_is_not_written() -> None:
    """``B.T[1, 0] << 10`` raised nothing and wrote a temporary transpose: B stays as it was."""
    B = grblas_gpu.Matrix.from_coo([0, 0, 1, 1], [0, 1, 0, 1], [1, 2, 3, 4])
    with pytest.raises(TypeError):
        B.T[1, 0] << 10
    assert B.isequal(grblas_gpu.Matrix.from_coo([0, 0, 1, 1], [0, 1, 0, 1], [1, 2, 3, 4]))
