"""``gb.agg``: aggregators, reductions beyond one monoid, as in python-graphblas.

``v.reduce(agg.mean)``, ``A.reduce_rowwise(agg.argmin)``, ``A.reduce_scalar(agg.count)``;
names work too (``v.reduce("argmin")``) and so does typing (``agg.sum[FP32]``).  Each is a
composition of the algebra's own operations (reductions with monoids, element-wise maps,
masked products), so it runs on either backend.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._operations import bind_evaluator
from .dtypes import ALL_TYPES, BOOL, FP64, INT64, DataType, lookup_dtype
from .exceptions import InvalidValue
from .operators import binary, indexunary, monoid, semiring, unary
from .scalar import Scalar

__all__ = ["Aggregator", "TypedAggregator", "is_aggregator", "aggregate_expr"]


# ----------------------------------------------------------------------------- building blocks
# ``axis``: "scalar" (everything to one Scalar), "rows" or "cols" (a Matrix to a Vector).

def _reduce(obj: Any, axis: str, mon: Any) -> Any:
    if axis == "rows":
        return obj.reduce_rowwise(mon).new()
    if axis == "cols":
        return obj.reduce_columnwise(mon).new()
    return (obj.reduce_scalar(mon) if obj.kind == "Matrix" else obj.reduce(mon)).new()


def _cast(obj: Any, t: DataType) -> Any:
    return obj if obj.dtype == t else obj.dup(t)


def _combine(x: Any, y: Any, op: Any) -> Any:
    """``op(x, y)`` of two results of one shape (Scalars, or Vectors on their common entries)."""
    if isinstance(x, Scalar):
        if x.is_empty or y.is_empty:
            return Scalar(FP64)
        import numpy as np

        typed = op[FP64]
        return Scalar.from_value(typed(np.float64(x.value), np.float64(y.value))[()], FP64)
    return x.ewise_mult(y, op).new()


def _count(obj: Any, axis: str) -> Any:
    return _reduce(_cast(unary.one(obj).new(), INT64), axis, monoid.plus)


def _sum_as(obj: Any, axis: str, t: DataType) -> Any:
    return _reduce(_cast(obj, t), axis, monoid.plus)


def _mapped_sum(obj: Any, axis: str, op: Any) -> Any:
    return _reduce(op(_cast(obj, FP64)).new(), axis, monoid.plus)


def _mean(obj: Any, axis: str) -> Any:
    return _combine(_sum_as(obj, axis, FP64), _count(obj, axis), binary.truediv)


def _geometric_mean(obj: Any, axis: str) -> Any:
    """``exp(mean(log(x)))``."""
    m = _mean(_cast(obj, FP64).apply(unary.log).new(), axis)
    if isinstance(m, Scalar):
        return m if m.is_empty else Scalar.from_value(math.exp(m.value), FP64)
    return m.apply(unary.exp).new()


def _harmonic_mean(obj: Any, axis: str) -> Any:
    """``count / sum(1 / x)``."""
    return _combine(_count(obj, axis), _mapped_sum(obj, axis, unary.minv), binary.truediv)


def _squares(obj: Any) -> Any:
    x = _cast(obj, FP64)
    return x.ewise_mult(x, binary.times).new()


def _variance(obj: Any, axis: str, ddof: int) -> Any:
    n = _count(obj, axis)
    mean = _mean(obj, axis)
    mean_sq = _combine(_reduce(_squares(obj), axis, monoid.plus), n, binary.truediv)
    var = _combine(mean_sq, _combine(mean, mean, binary.times), binary.minus)
    var = _clip_zero(var)
    if ddof:
        if isinstance(n, Scalar):
            fewer = n if n.is_empty else Scalar.from_value(n.value - ddof, FP64)
        else:
            fewer = binary.minus(_cast(n, FP64), ddof).new()
        var = _combine(var, _combine(n, fewer, binary.truediv), binary.times)
        if isinstance(var, Scalar) and not var.is_empty and not math.isfinite(var.value):
            return Scalar(FP64)
    return var


def _clip_zero(x: Any) -> Any:
    """Rounding makes a variance of equal values a hair below zero; clip it."""
    if isinstance(x, Scalar):
        return x if x.is_empty else Scalar.from_value(max(x.value, 0.0), FP64)
    return binary.max(x, 0.0).new()


def _sqrt(x: Any) -> Any:
    if isinstance(x, Scalar):
        return x if x.is_empty else Scalar.from_value(math.sqrt(x.value), FP64)
    return x.apply(unary.sqrt).new()


def _log_of_sum(obj: Any, axis: str, base: float) -> Any:
    """``log_base(sum(base ** x))``: python-graphblas's logaddexp and logaddexp2 aggregators."""
    powers = _cast(obj, FP64).apply(binary.pow, left=base).new()
    total = _reduce(powers, axis, monoid.plus)
    if isinstance(total, Scalar):
        return total if total.is_empty else Scalar.from_value(math.log(total.value, base), FP64)
    return total.apply(unary.log if base == math.e else unary.log2).new()


def _std(obj: Any, axis: str, ddof: int) -> Any:
    return _sqrt(_variance(obj, axis, ddof))


def _by_position(obj: Any, axis: str, pick_max: bool, want: str) -> Any:
    """argmin / argmax (``want`` "arg") or first / last value and index (``want`` "value",
    "index"): the smallest index where the value is the min (max), or the entry of the smallest
    (largest) index.  Ties go to the smallest index."""
    extreme = monoid.max if pick_max else monoid.min
    if obj.kind == "Vector":
        if axis != "scalar":
            raise InvalidValue("a Vector reduces to a Scalar")
        return _vector_position(obj, extreme, want)
    if axis == "scalar":
        raise ValueError(f"Aggregator {'arg' + ('max' if pick_max else 'min') if want == 'arg' else want} "
                         "cannot be used to reduce a Matrix to a Scalar; reduce rowwise or columnwise")
    M = obj if axis == "rows" else obj.T.new()
    cols = indexunary.colindex(M).new()
    if want == "arg":
        m = M.reduce_rowwise(extreme).new()
        hit = m.diag().mxm(M, semiring.any_eq).new()  # true where the entry equals its row's extreme
        return indexunary.colindex(hit).new(mask=hit.V).reduce_rowwise(monoid.min).new()
    at = cols.reduce_rowwise(extreme).new()
    if want == "index":
        return at
    hit = at.diag().mxm(cols, semiring.any_eq).new()
    return M.dup(mask=hit.V).reduce_rowwise(monoid.any).new()


def _vector_position(v: Any, extreme: Any, want: str) -> Scalar:
    if v.nvals == 0:
        return Scalar(v.dtype if want == "value" else INT64)
    idx = indexunary.index(v).new()
    if want == "arg":
        m = v.reduce(extreme).new()
        hit = v.select("valueeq", m.value).new() if m.value == m.value else v.select(unary.isnan(v).new())
        return indexunary.index(hit).new().reduce(monoid.min).new()
    at = idx.reduce(extreme).new()
    if want == "index":
        return at
    return Scalar.from_value(v[at.value].new().value, v.dtype)


# ----------------------------------------------------------------------------- the aggregators


@dataclass(frozen=True, eq=False)
class Aggregator:
    """A named reduction: ``compute(obj, axis)`` gives a Scalar (axis "scalar") or a Vector
    (axis "rows" / "cols"); ``out`` maps the input type to the result type."""

    name: str
    compute: Callable[[Any, str], Any]
    out: Callable[[DataType], DataType]

    kind = "aggregator"

    def __getitem__(self, dtype: Any) -> TypedAggregator:
        t = lookup_dtype(dtype)
        if t not in self.types:
            raise KeyError(f"{self.name} does not work with {t}")  # python-graphblas's class and words
        return TypedAggregator(self, t)

    @property
    def types(self) -> list[DataType]:
        """The input types this aggregator is defined on (python-graphblas's lists: no BOOL for
        sums, norms and means of inverses; the bitwise ones on unsigned integers)."""
        if self.name in _UNSIGNED_ONLY:
            return [t for t in ALL_TYPES if t.is_unsigned]
        return [t for t in ALL_TYPES if not (t.is_bool and self.name in _NO_BOOL)]

    def __contains__(self, dtype: Any) -> bool:
        return lookup_dtype(dtype) in self.types

    def __call__(self, val: Any, *, rowwise: bool = False, columnwise: bool = False) -> Any:
        """``agg.sum(v)``, ``agg.sum(A, rowwise=True)``: the reduction as an expression."""
        if rowwise and columnwise:
            raise ValueError("rowwise and columnwise cannot both be True")
        if getattr(val, "kind", None) not in ("Vector", "Matrix"):
            raise TypeError(f"Bad type for argument of {self!r}: {type(val).__name__}; expected a Vector or Matrix")
        if val.kind == "Vector" and (rowwise or columnwise):
            raise ValueError(f"{'rowwise' if rowwise else 'columnwise'}=True is only for a Matrix: "
                             f"a Vector reduces to a Scalar, {self!r}(v)")
        if val.kind == "Vector" or not (rowwise or columnwise):
            return val.reduce_scalar(self) if val.kind == "Matrix" else val.reduce(self)
        return val.reduce_rowwise(self) if rowwise else val.reduce_columnwise(self)

    def __repr__(self) -> str:
        return f"agg.{self.name}"


@dataclass(frozen=True, eq=False)
class TypedAggregator:
    """An aggregator whose input is first cast to ``dtype``."""

    parent: Aggregator
    type: DataType

    kind = "aggregator"

    @property
    def name(self) -> str:
        """The aggregator's name."""
        return self.parent.name

    def compute(self, obj: Any, axis: str) -> Any:
        """The reduction of ``obj`` cast to this type."""
        return self.parent.compute(_cast(obj, self.type), axis)

    def out(self, t: DataType) -> DataType:
        """The result type: a counting aggregator counts in its type (``agg.count[INT16]``)."""
        return self.type if self.name in _COUNTING else self.parent.out(self.type)

    @property
    def return_type(self) -> DataType:
        """The result type (python-graphblas's name)."""
        return self.out(self.type)

    def __call__(self, val: Any, *, rowwise: bool = False, columnwise: bool = False) -> Any:
        """``agg.sum[FP32](v)``: the reduction as an expression (see :meth:`Aggregator.__call__`)."""
        return Aggregator.__call__(self, val, rowwise=rowwise, columnwise=columnwise)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"agg.{self.name}[{self.type}]"


_NO_BOOL = {"L0norm", "L1norm", "L2norm", "count_nonzero", "count_zero", "harmonic_mean", "hypot", "logaddexp",
            "logaddexp2", "sum", "sum_of_inverses", "sum_of_squares"}
_UNSIGNED_ONLY = {"bitwise_all", "bitwise_any"}


def _same(t: DataType) -> DataType:
    return t


def _sum_type(t: DataType) -> DataType:
    return INT64 if t.is_bool else t


def _monoid_agg(name: str, mon: Any, out: Callable[[DataType], DataType] = _same, cast: DataType | None = None) -> None:
    def compute(obj: Any, axis: str) -> Any:
        src = _cast(obj, cast) if cast is not None else obj
        if mon is monoid.plus and src.dtype.is_bool:
            src = _cast(src, INT64)
        return _reduce(src, axis, mon)

    _register(name, compute, out)


_AGGREGATORS: dict[str, Aggregator] = {}
_COUNTING = ("count", "count_nonzero", "count_zero", "exists", "L0norm")
# What a reduction of nothing gives with allow_empty=False (the others stay empty).
_IDENTITY = {"sum": 0, "prod": 1, "count": 0, "count_nonzero": 0, "count_zero": 0, "L0norm": 0, "exists": 0,
             "any": False, "all": True, "sum_of_squares": 0, "sum_of_inverses": 0, "L1norm": 0, "L2norm": 0,
             "Linfnorm": 0, "hypot": 0}


def _register(name: str, compute: Callable[[Any, str], Any], out: Callable[[DataType], DataType]) -> None:
    _AGGREGATORS[name] = Aggregator(name, compute, out)


def _fp64(t: DataType) -> DataType:
    return FP64


def _int64(t: DataType) -> DataType:
    return INT64


def _bool(t: DataType) -> DataType:
    return BOOL


_monoid_agg("sum", monoid.plus, _sum_type)
_monoid_agg("prod", monoid.times, _sum_type)
_monoid_agg("min", monoid.min)
_monoid_agg("max", monoid.max)
_monoid_agg("any_value", monoid.any)
_monoid_agg("any", monoid.lor, _bool, BOOL)
_monoid_agg("all", monoid.land, _bool, BOOL)
_monoid_agg("bitwise_any", monoid.bor)
_monoid_agg("bitwise_all", monoid.band)
_register("count", _count, _int64)
_register("exists", lambda o, a: _reduce(_cast(unary.one(o).new(), INT64), a, monoid.any), _int64)
def _count_where(obj: Any, axis: str, compare: str) -> Any:
    """How many values compare true with 0, counted in the input's type (0 where none do)."""
    hits = obj.apply(binary[compare], right=0).new(_sum_type(obj.dtype))
    return _reduce(hits, axis, monoid.plus)


_register("count_nonzero", lambda o, a: _count_where(o, a, "ne"), _sum_type)
_register("count_zero", lambda o, a: _count_where(o, a, "eq"), _sum_type)
_register("L0norm", lambda o, a: _count_where(o, a, "ne"), _sum_type)
_register("mean", _mean, _fp64)
_register("sum_of_squares", lambda o, a: _reduce(_squares(o), a, monoid.plus), _fp64)
_register("sum_of_inverses", lambda o, a: _mapped_sum(o, a, unary.minv), _fp64)
_register("L1norm", lambda o, a: _mapped_sum(o, a, unary.abs), _fp64)
_register("L2norm", lambda o, a: _sqrt(_reduce(_squares(o), a, monoid.plus)), _fp64)
_register("Linfnorm", lambda o, a: _reduce(unary.abs(_cast(o, FP64)).new(), a, monoid.max), _fp64)
_register("varp", lambda o, a: _variance(o, a, 0), _fp64)
_register("vars", lambda o, a: _variance(o, a, 1), _fp64)
_register("stdp", lambda o, a: _std(o, a, 0), _fp64)
_register("stds", lambda o, a: _std(o, a, 1), _fp64)
_register("argmin", lambda o, a: _by_position(o, a, False, "arg"), _int64)
_register("argmax", lambda o, a: _by_position(o, a, True, "arg"), _int64)
_register("first", lambda o, a: _by_position(o, a, False, "value"), _same)
_register("last", lambda o, a: _by_position(o, a, True, "value"), _same)
_register("first_index", lambda o, a: _by_position(o, a, False, "index"), _int64)
_register("last_index", lambda o, a: _by_position(o, a, True, "index"), _int64)
_register("geometric_mean", _geometric_mean, _fp64)
_register("harmonic_mean", _harmonic_mean, _fp64)
_register("logaddexp", lambda o, a: _log_of_sum(o, a, math.e), _fp64)
_register("logaddexp2", lambda o, a: _log_of_sum(o, a, 2.0), _fp64)
_register("hypot", lambda o, a: _sqrt(_reduce(_squares(o), a, monoid.plus)), _fp64)
_register("root_mean_square", lambda o, a: _sqrt(_combine(_reduce(_squares(o), a, monoid.plus), _count(o, a),
                                                         binary.truediv)), _fp64)
_register("peak_to_peak", lambda o, a: _combine(_reduce(o, a, monoid.max), _reduce(o, a, monoid.min),
                                                binary.minus), _fp64)


class _AggNamespace:
    """Name lookup for :func:`grblas_gpu.op.aggregator_from_string`."""

    def __contains__(self, name: str) -> bool:
        return name in _AGGREGATORS

    def __getitem__(self, name: str) -> Aggregator:
        return _AGGREGATORS[name]


_NAMESPACE = _AggNamespace()


def is_aggregator(op: Any) -> bool:
    """Whether ``op`` is an aggregator, or the name of one that is not also a monoid."""
    if isinstance(op, (Aggregator, TypedAggregator)):
        return True
    return isinstance(op, str) and op in _AGGREGATORS and op not in monoid


def aggregate_expr(obj: Any, op: Any, axis: str, allow_empty: bool = True) -> Any:
    """The expression of reducing ``obj`` with an aggregator (``axis``: "scalar", "rows", "cols")."""
    from .expressions import Expression

    agg = _AGGREGATORS[op] if isinstance(op, str) else op
    if not allow_empty and agg.name not in _IDENTITY:
        raise ValueError(f"allow_empty=False not allowed when using Aggregators such as {agg!r}: nothing is "
                         f"its value over no entries (those of one monoid take its identity: {', '.join(_IDENTITY)})")
    out = agg.out(obj.dtype)
    shape: tuple[int, ...] = ()
    kind = "Scalar"
    if axis != "scalar":
        kind, shape = "Vector", (obj.shape[0] if axis == "rows" else obj.shape[1],)
    return Expression(f"reduce({agg.name})", kind, shape, out, obj._be, "aggregate", (obj,), (agg, axis, allow_empty))


def _aggregate(expr: Any, mask: Any) -> Any:
    """An ``aggregate`` expression's result: its object reduced by the aggregator."""
    (obj,), (agg, axis, allow_empty), kind, out = expr.args, expr.params, expr.kind, expr.dtype
    result = agg.compute(obj, axis)
    if kind == "Scalar" and result.is_empty and not allow_empty and agg.name in _IDENTITY:
        return Scalar.from_value(_IDENTITY[agg.name], out, backend=obj.backend)
    if result.dtype != out:
        result = Scalar.from_value(result.value, out) if kind == "Scalar" else result.dup(out)
    return result



bind_evaluator("aggregate", _aggregate)

def __getattr__(name: str) -> Any:
    if name == "ss":
        raise AttributeError("agg.ss: the suitesparse backend's own aggregators are not provided")
    try:
        return _AGGREGATORS[name]
    except KeyError:
        raise AttributeError(f"module 'grblas_gpu.agg' has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted(set(__all__) | set(_AGGREGATORS) | {"ss"})
