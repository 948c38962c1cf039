"""The built-in operators, with python-graphblas names.

Each entry gives a NumPy implementation and a CUDA C expression with the same
meaning; :mod:`.cmath` holds the C semantics the NumPy side reproduces.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..dtypes import BOOL, FP32, FP64, INT64, DataType
from ..exceptions import DomainMismatch
from . import cmath as cm
from .base import (
    BinaryOp,
    IndexUnaryOp,
    Monoid,
    Positions,
    TypedBinaryOp,
    TypedIndexUnaryOp,
    TypedUnaryOp,
    UnaryOp,
)

UNARY: dict[str, UnaryOp] = {}
BINARY: dict[str, BinaryOp] = {}
MONOID: dict[str, Monoid] = {}
INDEXUNARY: dict[str, IndexUnaryOp] = {}

# Domain rules: which input types an operator computes in, given the type asked for.


def _dom_all(t: DataType) -> DataType:
    return t


def _dom_float(t: DataType) -> DataType:
    return t if t.is_float else FP64


def _dom_bool(t: DataType) -> DataType:
    return BOOL


def _dom_int(t: DataType) -> DataType:
    if t.is_float:
        raise DomainMismatch(f"bitwise operators need integer types, not {t}")
    return t


def _lims(t: DataType) -> tuple[str, str]:
    return cm.c_literal(t.min, t), cm.c_literal(t.max, t)


# ------------------------------------------------------------------------------ unary


def _unary(name: str, dom: Callable[[DataType], DataType], np_f: Callable[[DataType], Callable],
           cuda: Callable[[DataType], str], out: Callable[[DataType], DataType] = lambda t: t) -> None:
    def build(t: DataType) -> TypedUnaryOp:
        it = dom(t)
        return TypedUnaryOp(name, it, out(it), np_f(it), cuda(it))

    UNARY[name] = UnaryOp(name, builder=build)


def _constant(value: Any) -> Callable[[DataType], Any]:
    """A function of the type that returns ``value`` for every type (binds a loop variable)."""
    return lambda t: value


def _float_unary(name: str, np_func: Callable, c_name: str | None = None) -> None:
    _unary(name, _dom_float, lambda t: np_func, lambda t: f"{c_name or name}(x)")


_unary("identity", _dom_all, lambda t: lambda x: x.copy(), lambda t: "x")
_unary("ainv", _dom_all,
       lambda t: (lambda x: x.copy()) if t.is_bool else np.negative,
       lambda t: "x" if t.is_bool else "(Z)(0 - x)")
_unary("minv", _dom_all,
       lambda t: (lambda x: np.ones_like(x)) if t.is_bool
       else (lambda x: cm.int_cdiv(np.ones_like(x), x, t)) if t.is_integer
       else (lambda x: 1 / x),
       lambda t: "true" if t.is_bool
       else f"gb_idiv<Z>((Z)1, x, {_lims(t)[0]}, {_lims(t)[1]})" if t.is_integer
       else "(Z)1 / x")
_unary("abs", _dom_all,
       lambda t: (lambda x: x.copy()) if (t.is_bool or t.is_unsigned) else np.abs,
       lambda t: "x" if (t.is_bool or t.is_unsigned) else ("fabs(x)" if t.is_float else "(Z)(x < 0 ? 0 - x : x)"))
_unary("lnot", _dom_all,
       lambda t: np.logical_not if t.is_bool else (lambda x: (x == 0).astype(t.np_type)),
       lambda t: "!x" if t.is_bool else "(Z)(x == 0)")
_unary("bnot", _dom_int,
       lambda t: np.logical_not if t.is_bool else np.invert,
       lambda t: "!x" if t.is_bool else "(Z)(~x)")
_unary("one", _dom_all, lambda t: np.ones_like, lambda t: "(Z)1")
for _n in ("sqrt", "exp", "log", "log2", "log10", "exp2", "sin", "cos", "tan", "sinh", "cosh", "tanh",
           "floor", "ceil", "trunc", "expm1", "log1p", "cbrt"):
    _float_unary(_n, getattr(np, _n))
_float_unary("asin", np.arcsin)
_float_unary("acos", np.arccos)
_float_unary("atan", np.arctan)
_unary("round", _dom_all, lambda t: cm.c_round if t.is_float else (lambda x: x.copy()),
       lambda t: "gb_round(x)" if t.is_float else "x")
_unary("signum", _dom_all,
       lambda t: cm.c_sign if t.is_float else (lambda x: np.sign(x).astype(t.np_type) if not t.is_bool else x.copy()),
       lambda t: "x" if t.is_bool else "gb_sign<Z>(x)")
_f: Callable[..., Any]  # the NumPy function of each operator the loops below define
for _n, _f in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)):
    _unary(_n, _dom_float, _constant(_f), _constant(f"{_n}(x)"), out=lambda t: BOOL)


# ------------------------------------------------------------------------------ binary


def _binary(name: str, dom: Callable[[DataType], DataType], np_f: Callable[[DataType], Callable],
            cuda: Callable[[DataType], str], *, out: Callable[[DataType], DataType] = lambda t: t,
            commutative: bool = False, positional: bool = False) -> BinaryOp:
    def build(t: DataType) -> TypedBinaryOp:
        it = dom(t)
        f = np_f(it)
        return TypedBinaryOp(name, it, it, out(it), lambda x, y, pos: f(x, y, pos), cuda(it),
                             positional=positional, commutative=commutative)

    op = BinaryOp(name, builder=build)
    BINARY[name] = op
    return op


def _plain(f: Callable[[Any, Any], Any]) -> Callable[[DataType], Callable]:
    """An implementation that ignores positions and types."""
    return lambda t: lambda x, y, pos: f(x, y)


def _typed(f: Callable[[Any, Any, DataType], Any]) -> Callable[[DataType], Callable]:
    return lambda t: lambda x, y, pos: f(x, y, t)


def _cu(expr: str) -> Callable[[DataType], str]:
    return lambda t: expr


def _as_input_type(f: Callable[[Any, Any], Any]) -> Callable[[DataType], Callable]:
    """A comparison or logical ufunc whose BOOL result is given in the input type."""
    return lambda t: lambda x, y, pos: f(x, y).astype(t.np_type, copy=False)


_binary("first", _dom_all, _plain(lambda x, y: x.copy()), _cu("x"))
_binary("second", _dom_all, _plain(lambda x, y: np.array(y, copy=True)), _cu("y"))
_binary("any", _dom_all, _plain(lambda x, y: x.copy()), _cu("x"), commutative=True)
for _pair_name in ("pair", "oneb"):
    _binary(_pair_name, _dom_all, _typed(lambda x, y, t: np.ones(np.broadcast(x, y).shape, t.np_type)),
            _cu("(Z)1"), commutative=True)
_binary("plus", _dom_all,
        _typed(lambda x, y, t: np.logical_or(x, y) if t.is_bool else np.add(x, y)),
        lambda t: "(x || y)" if t.is_bool else "(Z)(x + y)", commutative=True)
_binary("minus", _dom_all,
        _typed(lambda x, y, t: np.not_equal(x, y) if t.is_bool else np.subtract(x, y)),
        lambda t: "(x != y)" if t.is_bool else "(Z)(x - y)")
_binary("rminus", _dom_all,
        _typed(lambda x, y, t: np.not_equal(x, y) if t.is_bool else np.subtract(y, x)),
        lambda t: "(x != y)" if t.is_bool else "(Z)(y - x)")
_binary("times", _dom_all,
        _typed(lambda x, y, t: np.logical_and(x, y) if t.is_bool else np.multiply(x, y)),
        lambda t: "(x && y)" if t.is_bool else "(Z)(x * y)", commutative=True)
_binary("truediv", _dom_float, _plain(np.true_divide), _cu("(x / y)"))
_binary("cdiv", _dom_all,
        _typed(lambda x, y, t: x.copy() if t.is_bool else (cm.int_cdiv(x, y, t) if t.is_integer else x / y)),
        lambda t: "x" if t.is_bool else (f"gb_idiv<Z>(x, y, {_lims(t)[0]}, {_lims(t)[1]})" if t.is_integer else "(x / y)"))
_binary("floordiv", _dom_all,
        _typed(lambda x, y, t: x.copy() if t.is_bool else (cm.int_floordiv(x, y, t) if t.is_integer else np.floor(x / y))),
        lambda t: "x" if t.is_bool else (f"gb_ifloordiv<Z>(x, y, {_lims(t)[0]}, {_lims(t)[1]})" if t.is_integer else "floor(x / y)"))
_binary("fmod", _dom_float, _plain(np.fmod), _cu("fmod(x, y)"))  # C's fmod; integers as FP64, as there
_binary("pow", _dom_all,
        _typed(lambda x, y, t: cm.bool_pow(x, y) if t.is_bool else (cm.int_pow(x, y, t) if t.is_integer else cm.c_pow(x, y))),
        lambda t: "(x || !y)" if t.is_bool else (
            f"gb_ipow<Z>(x, y, {_lims(t)[0]}, {_lims(t)[1]})" if t.is_integer
            else "((isnan(x) || isnan(y)) ? x + y : pow(x, y))"))  # SuiteSparse's GB_pow: NaN in, NaN out
_binary("min", _dom_all,
        _typed(lambda x, y, t: np.fmin(x, y) if t.is_float else np.minimum(x, y)),
        lambda t: "fmin(x, y)" if t.is_float else "(x < y ? x : y)", commutative=True)
_binary("max", _dom_all,
        _typed(lambda x, y, t: np.fmax(x, y) if t.is_float else np.maximum(x, y)),
        lambda t: "fmax(x, y)" if t.is_float else "(x > y ? x : y)", commutative=True)
for _n, _f, _c, _comm in (("eq", np.equal, "==", True), ("ne", np.not_equal, "!=", True),
                          ("gt", np.greater, ">", False), ("lt", np.less, "<", False),
                          ("ge", np.greater_equal, ">=", False), ("le", np.less_equal, "<=", False)):
    _binary(_n, _dom_all, _plain(_f), _cu(f"(x {_c} y)"), out=lambda t: BOOL, commutative=_comm)
for _n, _f, _c, _comm in (("iseq", np.equal, "==", True), ("isne", np.not_equal, "!=", True),
                          ("isgt", np.greater, ">", False), ("islt", np.less, "<", False),
                          ("isge", np.greater_equal, ">=", False), ("isle", np.less_equal, "<=", False)):
    # SuiteSparse's ISEQ and friends: the comparison as 1 or 0 in the input type.
    _binary(_n, _dom_all, _as_input_type(_f), _cu(f"(Z)(x {_c} y)"), commutative=_comm)


def _logical_cuda(c_op: str) -> Callable[[DataType], str]:
    """``x OP y`` of truth values: of BOOL directly, else of ``v != 0``, as 1 or 0 in the type."""
    return lambda t: f"(x {c_op} y)" if t.is_bool else f"(Z)((x != 0) {c_op} (y != 0))"


# land, lor and lxor compute in the input type (1 or 0 there), as SuiteSparse's and
# python-graphblas's do; their monoids and semirings are BOOL's (see _monoid below).
for _n, _f, _c in (("lor", np.logical_or, "||"), ("land", np.logical_and, "&&"), ("lxor", np.logical_xor, "!=")):
    _binary(_n, _dom_all, _as_input_type(_f), _logical_cuda(_c), commutative=True)
_binary("lxnor", _dom_bool, _plain(np.equal), _cu("(x == y)"), commutative=True)
for _n, _f, _c in (("bor", np.bitwise_or, "(Z)(x | y)"), ("band", np.bitwise_and, "(Z)(x & y)"),
                   ("bxor", np.bitwise_xor, "(Z)(x ^ y)")):
    _binary(_n, _dom_int, _plain(_f), _cu(_c), commutative=True)
_binary("bxnor", _dom_int, _typed(lambda x, y, t: np.equal(x, y) if t.is_bool else np.invert(np.bitwise_xor(x, y))),
        lambda t: "(x == y)" if t.is_bool else "(Z)(~(x ^ y))", commutative=True)
def _dom_binom(t: DataType) -> DataType:
    if not t.is_integer:
        raise DomainMismatch(f"binom works on integer types, not {t}")
    return t


# Computed in INT64 whatever the integer input type, as python-graphblas's binom.
_binary("binom", _dom_binom, _plain(cm.binom), _cu("(Z)gb_binom((int64_t)x, (int64_t)y)"), out=lambda t: INT64)
_binary("atan2", _dom_float, _plain(np.arctan2), _cu("atan2(x, y)"))
_binary("hypot", _dom_float, _plain(np.hypot), _cu("hypot(x, y)"), commutative=True)


def _positional(name: str, field: str) -> None:
    def f(t: DataType) -> Callable:
        def impl(x: Any, y: Any, pos: Positions | None) -> Any:
            assert pos is not None, f"{name} needs positions"
            n = np.broadcast(x, y).shape
            return np.broadcast_to(np.asarray(getattr(pos, field), dtype=np.int64), n).copy()

        return impl

    _binary(name, _dom_all, f, _cu(f"(Z){field}"), out=lambda t: INT64, positional=True)


for _n, _fld in (("firsti", "xi"), ("firstj", "xj"), ("secondi", "yi"), ("secondj", "yj")):
    _positional(_n, _fld)


# ------------------------------------------------------------------------------ monoids


def _monoid(name: str, identity: Callable[[DataType], Any], terminal: Callable[[DataType], Any] | None = None,
            ufunc: Callable[[DataType], Any] | None = None, is_any: bool = False,
            domain: Callable[[DataType], DataType] | None = None) -> None:
    MONOID[name] = Monoid(name, binop=BINARY[name], identity_of=identity, terminal_of=terminal,
                          ufunc_of=ufunc, is_any=is_any, domain_of=domain)


_monoid("plus", lambda t: 0 if not t.is_bool else False,
        lambda t: True if t.is_bool else None,
        lambda t: np.logical_or if t.is_bool else np.add)
_monoid("times", lambda t: 1 if not t.is_bool else True,
        lambda t: (0 if t.is_integer else (False if t.is_bool else None)),
        lambda t: np.logical_and if t.is_bool else np.multiply)
_monoid("min", lambda t: t.max, lambda t: t.min, lambda t: np.fmin if t.is_float else np.minimum)
_monoid("max", lambda t: t.min, lambda t: t.max, lambda t: np.fmax if t.is_float else np.maximum)
_monoid("any", lambda t: 0 if not t.is_bool else False, lambda t: None, is_any=True)
_monoid("lor", lambda t: False, lambda t: True, lambda t: np.logical_or, domain=_dom_bool)
_monoid("land", lambda t: True, lambda t: False, lambda t: np.logical_and, domain=_dom_bool)
_monoid("lxor", lambda t: False, None, lambda t: np.logical_xor, domain=_dom_bool)
_monoid("lxnor", lambda t: True, None, None, domain=_dom_bool)
_monoid("bor", lambda t: 0, lambda t: ~np.array(0, t.np_type) if not t.is_bool else True,
        lambda t: np.bitwise_or)
_monoid("band", lambda t: ~np.array(0, t.np_type) if not t.is_bool else True, lambda t: 0,
        lambda t: np.bitwise_and)
_monoid("bxor", lambda t: 0, None, lambda t: np.bitwise_xor)
_monoid("bxnor", lambda t: ~np.array(0, t.np_type) if not t.is_bool else True, None, None)
MONOID["eq"] = MONOID["lxnor"]

# ------------------------------------------------------------------------------ index-unary


def _compare_value(f: Callable[[Any, Any], Any]) -> Callable[[Any, Any, Any, Any], Any]:
    """The index-unary function ``f(x, thunk)`` of an entry's value (binds a loop variable)."""
    return lambda x, i, j, s: f(x, s)


def _indexunary(name: str, np_f: Callable[[Any, Any, Any, Any], Any], cuda: str, *,
                out: Callable[[DataType], DataType], uses_value: bool,
                thunk: Callable[[DataType], DataType] = lambda t: INT64) -> None:
    def build(t: DataType) -> TypedIndexUnaryOp:
        return TypedIndexUnaryOp(name, t, thunk(t), out(t), np_f, cuda, uses_value)

    INDEXUNARY[name] = IndexUnaryOp(name, builder=build)


def _bool_out(t: DataType) -> DataType:
    return BOOL


def _i64(x: Any) -> Any:
    return np.asarray(x, dtype=np.int64)


_indexunary("rowindex", lambda x, i, j, s: _i64(i) + s, "(Z)(i + thunk)", out=lambda t: INT64, uses_value=False)
_indexunary("colindex", lambda x, i, j, s: _i64(j) + s, "(Z)(j + thunk)", out=lambda t: INT64, uses_value=False)
_indexunary("diagindex", lambda x, i, j, s: _i64(j) - _i64(i) + s, "(Z)(j - i + thunk)", out=lambda t: INT64,
            uses_value=False)
_indexunary("tril", lambda x, i, j, s: _i64(j) <= _i64(i) + s, "(j <= i + thunk)", out=_bool_out, uses_value=False)
_indexunary("triu", lambda x, i, j, s: _i64(j) >= _i64(i) + s, "(j >= i + thunk)", out=_bool_out, uses_value=False)
_indexunary("diag", lambda x, i, j, s: _i64(j) == _i64(i) + s, "(j == i + thunk)", out=_bool_out, uses_value=False)
_indexunary("offdiag", lambda x, i, j, s: _i64(j) != _i64(i) + s, "(j != i + thunk)", out=_bool_out,
            uses_value=False)
_indexunary("rowle", lambda x, i, j, s: _i64(i) <= s, "(i <= thunk)", out=_bool_out, uses_value=False)
_indexunary("rowgt", lambda x, i, j, s: _i64(i) > s, "(i > thunk)", out=_bool_out, uses_value=False)
_indexunary("colle", lambda x, i, j, s: _i64(j) <= s, "(j <= thunk)", out=_bool_out, uses_value=False)
_indexunary("colgt", lambda x, i, j, s: _i64(j) > s, "(j > thunk)", out=_bool_out, uses_value=False)
for _n, _f, _c in (("valueeq", np.equal, "=="), ("valuene", np.not_equal, "!="), ("valuelt", np.less, "<"),
                   ("valuele", np.less_equal, "<="), ("valuegt", np.greater, ">"),
                   ("valuege", np.greater_equal, ">=")):
    _indexunary(_n, _compare_value(_f), f"(x {_c} thunk)", out=_bool_out,
                uses_value=True, thunk=lambda t: t)

# A Vector's index is its row (python-graphblas's names for Vectors).
_indexunary("index", lambda x, i, j, s: _i64(i) + s, "(Z)(i + thunk)", out=lambda t: INT64, uses_value=False)
_indexunary("indexle", lambda x, i, j, s: _i64(i) <= s, "(i <= thunk)", out=_bool_out, uses_value=False)
_indexunary("indexgt", lambda x, i, j, s: _i64(i) > s, "(i > thunk)", out=_bool_out, uses_value=False)

SELECT_NAMES = ("tril", "triu", "diag", "offdiag", "rowle", "rowgt", "colle", "colgt", "indexle", "indexgt",
                "valueeq", "valuene", "valuelt", "valuele", "valuegt", "valuege")

# Semirings listed as built in: the named ones the kernel registry renders for every type.
BUILTIN_SEMIRINGS = (
    "plus_times", "plus_pair", "plus_first", "plus_second", "plus_min", "plus_max", "plus_plus",
    "min_plus", "max_plus", "min_times", "max_times", "min_max", "max_min", "min_min", "max_max",
    "min_first", "min_second", "max_first", "max_second", "any_pair", "any_first", "any_second",
    "any_secondi", "any_firsti", "any_secondj", "min_secondi", "min_firsti", "max_secondi",
    "lor_land", "land_lor", "lxor_land", "lxnor_lor", "lor_pair", "lor_first", "lor_second",
    "times_times", "times_plus", "bor_band", "band_bor", "bxor_band",
)

FP_TYPES = (FP32, FP64)
