"""python-graphblas's operator attributes and ``.numpy`` namespaces: each compared with
python-graphblas's answer."""

from __future__ import annotations

from typing import Any

import pytest
from pgcompat import graphblas, same, vector

import grblas_gpu


def _name(x: Any) -> Any:
    return None if x is None else x.name


ATTRIBUTES = {
    "binary.plus.monoid": lambda gb: _name(gb.binary.plus.monoid),
    "binary.minus.monoid": lambda gb: gb.binary.minus.monoid,
    "binary.plus[int].monoid is monoid.plus[int]": lambda gb: gb.binary.plus[int].monoid is gb.monoid.plus[int],
    "binary.first.commutes_to": lambda gb: _name(gb.binary.first.commutes_to),
    "binary.lt.commutes_to": lambda gb: _name(gb.binary.lt.commutes_to),
    "binary.atan2.commutes_to": lambda gb: gb.binary.atan2.commutes_to,
    "binary.plus.is_commutative": lambda gb: gb.binary.plus.is_commutative,
    "binary.first.is_commutative": lambda gb: gb.binary.first.is_commutative,
    "monoid.plus.commutes_to is self": lambda gb: gb.monoid.plus.commutes_to is gb.monoid.plus,
    "semiring.any_first.commutes_to": lambda gb: _name(gb.semiring.any_first.commutes_to),
    "semiring.plus_times.is_commutative": lambda gb: gb.semiring.plus_times.is_commutative,
    "monoid.min.is_idempotent": lambda gb: (gb.monoid.min.is_idempotent, gb.monoid.plus.is_idempotent),
    "monoid.plus.binaryop": lambda gb: gb.monoid.plus.binaryop is gb.binary.plus,
    "binary.plus[int].parent": lambda gb: gb.binary.plus[int].parent is gb.binary.plus,
    "is_positional": lambda gb: (gb.unary.exp.is_positional, gb.binary.firsti.is_positional,
                                 gb.binary.plus.is_positional),
    "monoid.plus.identities[INT64]": lambda gb: gb.monoid.plus.identities[gb.dtypes.INT64],
    "semiring.register_anonymous name": lambda gb: gb.semiring.register_anonymous(gb.monoid.min,
                                                                                  gb.binary.plus).name,
    "binary.numpy.minimum[int].monoid": lambda gb: gb.binary.numpy.minimum[int].monoid
    is gb.monoid.numpy.minimum[int],
}


@pytest.mark.parametrize("name", ATTRIBUTES)
def test_attribute(name: str) -> None:
    same(ATTRIBUTES[name])


NUMPY_OPS = {
    "v.ewise_mult(v, binary.numpy.add)": lambda gb: vector(gb).ewise_mult(vector(gb), gb.binary.numpy.add),
    "v.ewise_add(w, binary.numpy.maximum)": lambda gb: vector(gb).ewise_add(
        gb.Vector.from_coo([0, 2], [9.0, 1.0], size=4), gb.binary.numpy.maximum),
    "v.ewise_mult(v, binary.numpy.subtract)": lambda gb: vector(gb).ewise_mult(vector(gb, int),
                                                                               gb.binary.numpy.subtract),
    "v.apply(unary.numpy.fabs)": lambda gb: vector(gb).apply(gb.unary.numpy.fabs),
    "v.apply(unary.numpy.negative)": lambda gb: vector(gb).apply(gb.unary.numpy.negative),
    "v.reduce(monoid.numpy.add)": lambda gb: vector(gb).reduce(gb.monoid.numpy.add),
    "v.reduce(monoid.numpy.maximum)": lambda gb: vector(gb).reduce(gb.monoid.numpy.maximum),
    "v @ A with semiring.numpy.add_multiply": lambda gb: vector(gb).vxm(
        gb.Matrix.from_coo([0, 1, 3], [1, 2, 0], [2.0, 3.0, 4.0], nrows=4, ncols=4), gb.semiring.numpy.add_multiply),
    "v % w": lambda gb: vector(gb) % gb.Vector.from_coo([0, 1, 3], [3.0, -2.0, 2.5], size=4),
    "v % 2, 7 % v": lambda gb: ((vector(gb, int) % 2).new(), (7 % vector(gb, int)).new()),
    "binary.numpy.mod": lambda gb: vector(gb, int).ewise_mult(vector(gb, int).apply(gb.binary.plus, right=10),
                                                             gb.binary.numpy.mod),
    "op.numpy.add": lambda gb: vector(gb).ewise_mult(vector(gb), gb.op.numpy.add),
}


@pytest.mark.parametrize("name", NUMPY_OPS)
def test_numpy_namespace(backend: str, name: str) -> None:
    same(NUMPY_OPS[name], backend)


def test_class_register_and_parameterized(backend: str) -> None:
    def plus_x(x: Any) -> Any:
        return lambda y: y + x

    def run(gb: Any) -> Any:
        op = gb.core.operator.UnaryOp.register_anonymous(plus_x, parameterized=True) if gb is graphblas \
            else gb.UnaryOp.register_anonymous(plus_x, parameterized=True)
        return vector(gb).apply(op(10))

    same(run, backend)
    op = grblas_gpu.BinaryOp.register_anonymous(lambda x, y: x - 2 * y)
    assert op.orig_func(3, 1) == 1
    got = vector(grblas_gpu).ewise_mult(vector(grblas_gpu), op).new()
    assert got.to_coo()[1].tolist() == [-2.0, 5.0, -7.0]


def test_ss_names_say_suitesparse() -> None:
    # python-graphblas's test (its suitesparse backend has them; other backends raise so)
    for ns in (grblas_gpu.op, grblas_gpu.unary, grblas_gpu.binary, grblas_gpu.semiring):
        with pytest.raises(AttributeError, match="suitesparse"):
            ns.ss  # noqa: B018


IO_FORMS = {
    "to_scipy_sparse(v, csr)": lambda gb: gb.io.to_scipy_sparse(vector(gb), "csr").toarray(),
    "to_scipy_sparse(v, csc)": lambda gb: gb.io.to_scipy_sparse(vector(gb), "csc").toarray(),
    "mmread(f, engine) with dup_op": lambda gb: gb.io.mmread(_mm(), "scipy", dup_op=gb.binary.plus),
    "mmwrite(BytesIO, engine=) then mmread": lambda gb: _mm_round_trip(gb),
    "to_networkx(edge_attribute=None)": lambda gb: sorted(
        gb.io.to_networkx(gb.Matrix.from_coo([0, 1, 1], [0, 0, 1], [1, 2, 3]), edge_attribute=None).edges(data=True)),
    "to_networkx()": lambda gb: sorted(
        gb.io.to_networkx(gb.Matrix.from_coo([0, 1, 1], [0, 0, 1], [1, 2, 3])).edges(data=True)),
    "from_scipy_sparse(dup_op=)": lambda gb: gb.io.from_scipy_sparse(_duplicated_coo(), dup_op=gb.binary.max),
}

_MM = "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 3 1\n2 2 2\n3 1 3\n3 1 4\n"


def _mm() -> Any:
    import io

    return io.StringIO(_MM)


def _mm_round_trip(gb: Any) -> Any:
    import io

    out = io.BytesIO()
    gb.io.mmwrite(out, gb.Matrix.from_coo([0, 0, 3], [1, 4, 0], [1, 0, 2], nrows=5, ncols=6), engine="scipy")
    out.seek(0)
    return gb.io.mmread(out, "auto")


def _duplicated_coo() -> Any:
    import scipy.sparse as sps

    return sps.coo_array(([1, 2, 3, 4], ([0, 1, 2, 2], [2, 1, 0, 0])), shape=(3, 3))


@pytest.mark.parametrize("name", IO_FORMS)
def test_io_options(backend: str, name: str) -> None:
    same(IO_FORMS[name], backend)


def test_io_errors(backend: str) -> None:
    from test_pgcompat_errors import raises_like

    raises_like(lambda gb: gb.io.mmread(_mm(), "scipy"), backend, "Duplicate indices found")
    raises_like(lambda gb: gb.io.mmread(_mm(), engine="bad_engine"), backend, "Bad engine value")
