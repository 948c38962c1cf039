"""An independent dense model of the GraphBLAS C API 2.1 operations.

A sparse object is modelled as :class:`Obj`: a dense ``values`` array and a
boolean ``present`` array of the object's shape (a Scalar has shape ``()``).
Values at absent positions are meaningless and are never read.

Everything here is written from the spec text, without importing grblas_gpu:
the operator table, C-style casts, the semiring product, and the
mask / accumulate / replace rule (spec section "ops_accum_z", "ops_mask_replace"):

1. T = the operation's result (inputs transposed as the descriptor says).
2. m = ind(M) (structure) or {i : bool(M(i))} (value); complemented under COMP.
3. Z = T without accum; with accum the union of C and T, accum(C, T) where both exist.
4. replace: C = Z ∩ m.  merge: C = (C ∩ ¬m) ∪ (Z ∩ m).

Conventions where the spec leaves the choice to the implementation follow
SuiteSparse:GraphBLAS: float -> int casts truncate toward zero, saturate at the
type's limits and send NaN to 0; integer ``x / 0`` is 0, the type's max or its
min by the sign of x; BOOL arithmetic is ``plus = lor``, ``minus = lxor``,
``times = land``, ``div = first``, ``min = land``, ``max = lor``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# ----------------------------------------------------------------------------- types

BOOL = np.dtype(np.bool_)
INT8, INT16, INT32, INT64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
UINT8, UINT16, UINT32, UINT64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
FP32, FP64 = np.dtype(np.float32), np.dtype(np.float64)
ALL_TYPES = (BOOL, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, FP32, FP64)
TYPE_NAMES = {
    BOOL: "BOOL", INT8: "INT8", INT16: "INT16", INT32: "INT32", INT64: "INT64", UINT8: "UINT8",
    UINT16: "UINT16", UINT32: "UINT32", UINT64: "UINT64", FP32: "FP32", FP64: "FP64",
}


def is_float(t: np.dtype) -> bool:
    return t.kind == "f"


def is_int(t: np.dtype) -> bool:
    return t.kind in "iu"


def type_min(t: np.dtype) -> Any:
    if t == BOOL:
        return False
    if is_float(t):
        return -np.inf
    return np.iinfo(t).min


def type_max(t: np.dtype) -> Any:
    if t == BOOL:
        return True
    if is_float(t):
        return np.inf
    return np.iinfo(t).max


def unify(a: np.dtype, b: np.dtype) -> np.dtype:
    """The type a polymorphic operator computes in for operands of types a and b."""
    return a if a == b else np.promote_types(a, b)


def cast(x: Any, t: np.dtype) -> np.ndarray:
    """C-style cast of an array (or scalar) to ``t``.

    to BOOL: nonzero (NaN included) is true.  float -> int: truncate, saturate,
    NaN -> 0.  int -> narrower int: wraps modulo 2**bits (two's complement).
    """
    x = np.asarray(x)
    t = np.dtype(t)
    if t == BOOL:
        return x != 0
    if x.dtype.kind == "f" and is_int(t):
        info = np.iinfo(t)
        out = np.zeros(x.shape, dtype=t)
        with np.errstate(invalid="ignore"):
            tr = np.trunc(x.astype(np.float64))
            hi = tr >= float(info.max)  # float(max) may round up: compare with >=
            lo = tr <= float(info.min)
            ok = ~(hi | lo | np.isnan(tr))
        out[ok] = tr[ok].astype(t)
        out[hi] = info.max
        out[lo] = info.min
        return out
    with np.errstate(all="ignore"):
        return x.astype(t)


# ----------------------------------------------------------------------------- operators
# Each binary operator: a domain rule (type asked for -> type it computes in), the output
# type rule, and a function f(x, y, t, pos) of arrays already cast to the domain type t.
# pos = (xi, xj, yi, yj): the row and column of each operand, used by positional operators.


def _dom_all(t: np.dtype) -> np.dtype:
    return t


def _dom_float(t: np.dtype) -> np.dtype:
    return t if is_float(t) else FP64


def _dom_bool(t: np.dtype) -> np.dtype:
    return BOOL


def _dom_int(t: np.dtype) -> np.dtype:
    if not (is_int(t) or t == BOOL):
        raise TypeError(f"bitwise operator on {t}")
    return t


def _int_div(x: np.ndarray, y: np.ndarray, t: np.dtype, floor: bool) -> np.ndarray:
    """Integer division computed exactly in Python integers, then wrapped into ``t``."""
    x, y = np.broadcast_arrays(x, y)
    out = np.empty(x.shape, dtype=t)
    info = np.iinfo(t)
    bits = 8 * t.itemsize
    for idx in np.ndindex(x.shape):
        a, b = int(x[idx]), int(y[idx])
        if b == 0:
            q = 0 if a == 0 else (info.max if a > 0 else info.min)
        elif floor:
            q = a // b
        else:  # C: truncate toward zero
            q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        if q > info.max:  # only INT_MIN / -1: wraps as in two's complement
            q -= 1 << bits
        out[idx] = q
    return out


def _pow(x: np.ndarray, y: np.ndarray, t: np.dtype) -> np.ndarray:
    if t == BOOL:
        return x | ~y
    if is_float(t):
        with np.errstate(all="ignore"):
            return np.power(x, y)
    with np.errstate(all="ignore"):
        return cast(np.power(x.astype(np.float64), y.astype(np.float64)), t)


def _bool_or(f_bool: Callable, f_num: Callable) -> Callable:
    return lambda x, y, t, pos: f_bool(x, y) if t == BOOL else f_num(x, y)


def _same(t: np.dtype) -> np.dtype:
    return t


def _to_bool(t: np.dtype) -> np.dtype:
    return BOOL


def _to_int64(t: np.dtype) -> np.dtype:
    return INT64


@dataclass(frozen=True)
class BinOp:
    name: str
    domain: Callable[[np.dtype], np.dtype]
    out: Callable[[np.dtype], np.dtype]
    f: Callable[..., Any]
    positional: bool = False

    def __call__(self, x: Any, y: Any, t: np.dtype, pos: Any = None) -> np.ndarray:
        """Apply at the type ``t`` asked for: cast both operands to the domain, compute, cast to the output."""
        d = self.domain(np.dtype(t))
        xc, yc = cast(x, d), cast(y, d)
        with np.errstate(all="ignore"):
            z = np.asarray(self.f(xc, yc, d, pos))
        shape = np.broadcast_shapes(np.shape(xc), np.shape(yc))
        return cast(np.broadcast_to(z, shape), self.out(d))

    def out_type(self, t: np.dtype) -> np.dtype:
        return self.out(self.domain(np.dtype(t)))


def _positional(which: int) -> Callable:
    def f(x: Any, y: Any, t: np.dtype, pos: Any) -> Any:
        assert pos is not None, "positional operator needs positions"
        return np.asarray(pos[which], dtype=np.int64)

    return f


BINARY: dict[str, BinOp] = {}


def _of_values(f: Callable[[Any, Any], Any]) -> Callable[[Any, Any, Any, Any], Any]:
    """A binary operator's reference of the two values only (binds a loop variable)."""
    return lambda x, y, t, pos: f(x, y)


def _def(name: str, f: Callable, domain: Callable = _dom_all, out: Callable = _same, positional: bool = False) -> None:
    BINARY[name] = BinOp(name, domain, out, f, positional)


_def("first", lambda x, y, t, pos: x)
_def("second", lambda x, y, t, pos: y)
_def("any", lambda x, y, t, pos: x)  # nondeterministic in the spec; tests check membership only
_def("pair", lambda x, y, t, pos: np.ones(np.broadcast_shapes(np.shape(x), np.shape(y)), t))
_def("oneb", BINARY["pair"].f)
_def("plus", _bool_or(np.logical_or, np.add))
_def("minus", _bool_or(np.not_equal, np.subtract))
_def("rminus", _bool_or(np.not_equal, lambda x, y: np.subtract(y, x)))
_def("times", _bool_or(np.logical_and, np.multiply))
_def("truediv", lambda x, y, t, pos: np.true_divide(x, y), domain=_dom_float)
_def("cdiv", lambda x, y, t, pos: x if t == BOOL else (_int_div(x, y, t, False) if is_int(t) else x / y))
_def("floordiv", lambda x, y, t, pos: x if t == BOOL else (_int_div(x, y, t, True) if is_int(t) else np.floor(x / y)))
_def("min", lambda x, y, t, pos: np.fmin(x, y) if is_float(t) else np.minimum(x, y))
_def("max", lambda x, y, t, pos: np.fmax(x, y) if is_float(t) else np.maximum(x, y))
_def("pow", lambda x, y, t, pos: _pow(x, y, t))
for _n, _f in (("eq", np.equal), ("ne", np.not_equal), ("gt", np.greater), ("lt", np.less),
               ("ge", np.greater_equal), ("le", np.less_equal)):
    _def(_n, _of_values(_f), out=_to_bool)
# land, lor, lxor: truth values as 1 or 0 in the input type (SuiteSparse's); lxnor in BOOL only.
for _n, _f in (("lor", np.logical_or), ("land", np.logical_and), ("lxor", np.logical_xor)):
    _def(_n, _of_values(_f))
_def("lxnor", _of_values(np.equal), domain=_dom_bool)
for _n, _f in (("iseq", np.equal), ("isne", np.not_equal), ("isgt", np.greater), ("islt", np.less),
               ("isge", np.greater_equal), ("isle", np.less_equal)):
    _def(_n, _of_values(_f))  # the comparison as 1 or 0 in the input type
for _n, _f in (("bor", np.bitwise_or), ("band", np.bitwise_and), ("bxor", np.bitwise_xor),
               ("bxnor", lambda x, y: np.invert(np.bitwise_xor(x, y)))):
    _def(_n, _of_values(_f), domain=_dom_int)
for _which, _n in enumerate(("firsti", "firstj", "secondi", "secondj")):
    _def(_n, _positional(_which), out=_to_int64, positional=True)


@dataclass(frozen=True)
class MonoidDef:
    name: str
    op: BinOp
    identity: Callable[[np.dtype], Any]


MONOID: dict[str, MonoidDef] = {
    "plus": MonoidDef("plus", BINARY["plus"], lambda t: False if t == BOOL else 0),
    "times": MonoidDef("times", BINARY["times"], lambda t: True if t == BOOL else 1),
    "min": MonoidDef("min", BINARY["min"], type_max),
    "max": MonoidDef("max", BINARY["max"], type_min),
    "any": MonoidDef("any", BINARY["any"], lambda t: False if t == BOOL else 0),
    # The logical monoids compute in BOOL whatever the type asked for.
    "lor": MonoidDef("lor", BinOp("lor", _dom_bool, _same, _of_values(np.logical_or)), lambda t: False),
    "land": MonoidDef("land", BinOp("land", _dom_bool, _same, _of_values(np.logical_and)), lambda t: True),
    "lxor": MonoidDef("lxor", BinOp("lxor", _dom_bool, _same, _of_values(np.logical_xor)), lambda t: False),
    "lxnor": MonoidDef("lxnor", BINARY["lxnor"], lambda t: True),
    "bor": MonoidDef("bor", BINARY["bor"], lambda t: 0),
    "band": MonoidDef("band", BINARY["band"], lambda t: np.invert(np.zeros((), t)) if t != BOOL else True),
    "bxor": MonoidDef("bxor", BINARY["bxor"], lambda t: 0),
}

# Unary operators: (domain rule, output rule, f(x, t)).
UNARY: dict[str, tuple[Callable, Callable, Callable]] = {
    "identity": (_dom_all, _same, lambda x, t: x),
    "ainv": (_dom_all, _same, lambda x, t: x if t == BOOL else np.negative(x)),
    "abs": (_dom_all, _same, lambda x, t: x if (t == BOOL or t.kind == "u") else np.abs(x)),
    "lnot": (_dom_all, _same, lambda x, t: ~x if t == BOOL else (x == 0).astype(t)),
    "one": (_dom_all, _same, lambda x, t: np.ones_like(x)),
    "minv": (_dom_all, _same, lambda x, t: np.ones_like(x) if t == BOOL
             else (_int_div(np.ones_like(x), x, t, False) if is_int(t) else 1 / x)),
    "bnot": (_dom_int, _same, lambda x, t: ~x),
    "sqrt": (_dom_float, _same, lambda x, t: np.sqrt(x)),
    "exp": (_dom_float, _same, lambda x, t: np.exp(x)),
    "isnan": (_dom_float, _to_bool, lambda x, t: np.isnan(x)),
}


def unary(name: str, x: Any, t: np.dtype) -> np.ndarray:
    dom, out, f = UNARY[name]
    d = dom(np.dtype(t))
    with np.errstate(all="ignore"):
        return cast(f(cast(x, d), d), out(d))


def unary_out_type(name: str, t: np.dtype) -> np.dtype:
    dom, out, _ = UNARY[name]
    return out(dom(np.dtype(t)))


# Index-unary operators f(x, i, j, thunk) -> (output type rule, function).
def _iu(f: Callable, out: Callable = _to_bool) -> tuple[Callable, Callable]:
    return out, f


INDEXUNARY: dict[str, tuple[Callable, Callable]] = {
    "rowindex": _iu(lambda x, i, j, s: i + s, _to_int64),
    "colindex": _iu(lambda x, i, j, s: j + s, _to_int64),
    "diagindex": _iu(lambda x, i, j, s: j - i + s, _to_int64),
    "tril": _iu(lambda x, i, j, s: j <= i + s),
    "triu": _iu(lambda x, i, j, s: j >= i + s),
    "diag": _iu(lambda x, i, j, s: j == i + s),
    "offdiag": _iu(lambda x, i, j, s: j != i + s),
    "rowle": _iu(lambda x, i, j, s: i <= s),
    "rowgt": _iu(lambda x, i, j, s: i > s),
    "colle": _iu(lambda x, i, j, s: j <= s),
    "colgt": _iu(lambda x, i, j, s: j > s),
    "valueeq": _iu(lambda x, i, j, s: x == s),
    "valuene": _iu(lambda x, i, j, s: x != s),
    "valuelt": _iu(lambda x, i, j, s: x < s),
    "valuele": _iu(lambda x, i, j, s: x <= s),
    "valuegt": _iu(lambda x, i, j, s: x > s),
    "valuege": _iu(lambda x, i, j, s: x >= s),
}

# ----------------------------------------------------------------------------- objects


@dataclass
class Obj:
    """A sparse Matrix (2-d), Vector (1-d) or Scalar (0-d): dense values + presence."""

    values: np.ndarray
    present: np.ndarray

    def __post_init__(self) -> None:
        self.values = np.asarray(self.values)
        self.present = np.asarray(self.present, dtype=bool)
        assert self.values.shape == self.present.shape, (self.values.shape, self.present.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.values.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self.values.shape

    @property
    def nvals(self) -> int:
        return int(self.present.sum())

    def copy(self) -> Obj:
        return Obj(self.values.copy(), self.present.copy())

    def astype(self, t: np.dtype) -> Obj:
        return Obj(cast(self.values, t), self.present.copy())

    @property
    def T(self) -> Obj:
        return Obj(self.values.T.copy(), self.present.T.copy())

    def coo(self) -> tuple[np.ndarray, ...]:
        """(indices..., values) of the entries in row-major order."""
        idx = np.nonzero(self.present)
        return (*[i.astype(np.int64) for i in idx], self.values[idx])

    def __repr__(self) -> str:
        return f"Obj(dtype={self.dtype}, shape={self.shape}, coo={self.coo()})"


def empty(shape: tuple[int, ...], t: np.dtype) -> Obj:
    return Obj(np.zeros(shape, dtype=t), np.zeros(shape, dtype=bool))


def from_coo(shape: tuple[int, ...], indices: Sequence[Sequence[int]], values: Sequence[Any], t: np.dtype) -> Obj:
    out = empty(shape, t)
    if len(values):
        idx = tuple(np.asarray(i, dtype=np.int64) for i in indices)
        out.values[idx] = cast(np.asarray(values), t)
        out.present[idx] = True
    return out


def from_dense(values: Any, present: Any = None) -> Obj:
    values = np.asarray(values)
    return Obj(values.copy(), np.ones(values.shape, bool) if present is None else np.asarray(present))


def random_values(rng: np.random.Generator, shape: tuple[int, ...], t: np.dtype, small: bool = False) -> np.ndarray:
    """Random values of type ``t``: small integers for exactness, a zero now and then."""
    t = np.dtype(t)
    if t == BOOL:
        return rng.random(shape) < 0.6
    if t.kind == "u":
        return rng.integers(0, 4 if small else 10, size=shape).astype(t)
    if t.kind == "i":
        return rng.integers(-3 if small else -9, 4 if small else 10, size=shape).astype(t)
    return (rng.integers(-8, 9, size=shape) / 4).astype(t)


def random(rng: np.random.Generator, shape: tuple[int, ...], t: np.dtype, density: float = 0.5,
           small: bool = False) -> Obj:
    """A random sparse object; explicit zeros are stored like any other value."""
    return Obj(random_values(rng, shape, t, small), rng.random(shape) < density)


def isequal(a: Obj, b: Obj) -> bool:
    """Same shape, structure and values (NaN equals NaN)."""
    if a.shape != b.shape or not np.array_equal(a.present, b.present):
        return False
    va, vb = a.values[a.present], b.values[b.present]
    if is_float(va.dtype) or is_float(vb.dtype):
        return bool(np.all((va == vb) | (np.isnan(va) & np.isnan(vb))))
    return bool(np.array_equal(va, vb))


# ----------------------------------------------------------------------------- output rule


def mask_set(mask: Obj, structure: bool = False, complement: bool = False) -> np.ndarray:
    """The set m of positions the mask allows, as a boolean array."""
    m = mask.present.copy() if structure else (mask.present & cast(mask.values, BOOL))
    return ~m if complement else m


def write(C: Obj, T: Obj, mask: Obj | None = None, accum: str | BinOp | None = None, replace: bool = False,
          structure: bool = False, complement: bool = False) -> Obj:
    """C<m, replace> = C accum T: spec 2.1 section 3.3, steps 2 to 4. Returns a new object of C's type."""
    assert C.shape == T.shape, (C.shape, T.shape)
    ct = C.dtype
    # Z = accum(C, T) over the union, or T.
    if accum is None:
        Z = T.astype(ct)
    else:
        op = BINARY[accum] if isinstance(accum, str) else accum
        t = ct  # an untyped accumulator takes C's type (python-graphblas's get_typed_op(accum, C.dtype))
        both = C.present & T.present
        zv = np.where(T.present, cast(T.values, ct), C.values)
        if both.any():
            zv = zv.copy()
            zv[both] = cast(op(C.values[both], T.values[both], t), ct)
        Z = Obj(zv, C.present | T.present)
    if mask is None:
        m = np.ones(C.shape, dtype=bool)
        if complement:  # a complemented empty mask allows nothing
            m[...] = False
    else:
        assert mask.shape == C.shape, (mask.shape, C.shape)
        m = mask_set(mask, structure, complement)
    if replace:
        return Obj(np.where(m, Z.values, C.values), Z.present & m)
    keep_c = C.present & ~m
    take_z = Z.present & m
    return Obj(np.where(take_z, Z.values, C.values), keep_c | take_z)


# ----------------------------------------------------------------------------- operations


def _as_matrix_row(u: Obj) -> Obj:
    return Obj(u.values[None, :], u.present[None, :])


def _as_matrix_col(u: Obj) -> Obj:
    return Obj(u.values[:, None], u.present[:, None])


def mxm(A: Obj, B: Obj, add: str | MonoidDef, mult: str | BinOp, t: np.dtype | None = None) -> Obj:
    """T(i,j) = add over k of mult(A(i,k), B(k,j)) for k where both exist; absent when no k.

    ``t`` is the type the multiply is asked for (default: unify(A, B)).  The monoid
    works in the multiply's output type.  Terms are added in increasing k.
    """
    mon = MONOID[add] if isinstance(add, str) else add
    mop = BINARY[mult] if isinstance(mult, str) else mult
    m, kA = A.shape
    kB, n = B.shape
    assert kA == kB, (A.shape, B.shape)
    t = unify(A.dtype, B.dtype) if t is None else np.dtype(t)
    if t == np.bool_ and getattr(mop, "name", mult) == "pair" and getattr(mon, "name", add) in ("plus", "times"):
        t = np.dtype(np.int64)  # counting over BOOL counts in INT64, as python-graphblas's plus_pair does
    if getattr(mon, "name", add) in ("lor", "land", "lxor", "lxnor"):
        t = np.dtype(np.bool_)  # a logical monoid's semiring is BOOL's (lor_land[INT64] is lor_land[BOOL])
    zt = mop.out_type(t)
    acc = np.zeros((m, n), dtype=zt)
    have = np.zeros((m, n), dtype=bool)
    ii = np.arange(m)[:, None]
    jj = np.arange(n)[None, :]
    for k in range(kA):
        tp = A.present[:, k][:, None] & B.present[k, :][None, :]
        if not tp.any():
            continue
        pos = (ii, np.full((1, 1), k), np.full((1, 1), k), jj)
        term = mop(A.values[:, k][:, None], B.values[k, :][None, :], t, pos)
        term = np.broadcast_to(term, (m, n))
        both = have & tp
        new = acc.copy()
        if both.any():
            new[both] = mon.op(acc[both], term[both], zt)
        only = tp & ~have
        new[only] = term[only]
        acc, have = new, have | tp
    return Obj(acc, have)


def mxm_candidates(A: Obj, B: Obj, mult: str, t: np.dtype | None = None) -> list[list[set]]:
    """For an ANY monoid: the set of product values each output entry may take."""
    mop = BINARY[mult]
    t = unify(A.dtype, B.dtype) if t is None else np.dtype(t)
    m, kk = A.shape
    n = B.shape[1]
    out: list[list[set]] = [[set() for _ in range(n)] for _ in range(m)]
    for i in range(m):
        for j in range(n):
            for k in range(kk):
                if A.present[i, k] and B.present[k, j]:
                    z = mop(A.values[i, k], B.values[k, j], t, (i, k, k, j))
                    out[i][j].add(z[()].item())
    return out


def mxv(A: Obj, u: Obj, add: str, mult: str, t: np.dtype | None = None) -> Obj:
    """w = A (+.*) u, with u a column: positions of u(k) are (k, 0)."""
    r = mxm(A, _as_matrix_col(u), add, mult, t)
    return Obj(r.values[:, 0], r.present[:, 0])


def vxm(u: Obj, A: Obj, add: str, mult: str, t: np.dtype | None = None) -> Obj:
    """w' = u' (+.*) A, with u a row: positions of u(k) are (0, k)."""
    r = mxm(_as_matrix_row(u), A, add, mult, t)
    return Obj(r.values[0, :], r.present[0, :])


def ewise_add(A: Obj, B: Obj, op: str, t: np.dtype | None = None) -> Obj:
    """Union: op(a, b) where both exist; a lone value passes through, cast to op's output type."""
    o = BINARY[op]
    t = unify(A.dtype, B.dtype) if t is None else np.dtype(t)
    zt = o.out_type(t)
    both = A.present & B.present
    v = np.where(A.present, cast(A.values, zt), cast(B.values, zt))
    if both.any():
        v[both] = o(A.values[both], B.values[both], t)
    return Obj(v, A.present | B.present)


def ewise_mult(A: Obj, B: Obj, op: str, t: np.dtype | None = None) -> Obj:
    """Intersection: op(a, b) where both exist."""
    o = BINARY[op]
    t = unify(A.dtype, B.dtype) if t is None else np.dtype(t)
    both = A.present & B.present
    v = np.zeros(A.shape, dtype=o.out_type(t))
    if both.any():
        v[both] = o(A.values[both], B.values[both], t)
    return Obj(v, both)


def ewise_union(A: Obj, B: Obj, op: str, alpha: Any, beta: Any, t: np.dtype | None = None) -> Obj:
    """Union with defaults: op(a, b), op(a, beta) where only A exists, op(alpha, b) where only B does."""
    o = BINARY[op]
    t = unify(A.dtype, B.dtype) if t is None else np.dtype(t)
    pres = A.present | B.present
    v = np.zeros(A.shape, dtype=o.out_type(t))
    if pres.any():
        av = np.where(A.present, cast(A.values, t), cast(alpha, t))
        bv = np.where(B.present, cast(B.values, t), cast(beta, t))
        v[pres] = o(av[pres], bv[pres], t)
    return Obj(v, pres)


def apply_unary(A: Obj, name: str, t: np.dtype | None = None) -> Obj:
    t = A.dtype if t is None else np.dtype(t)
    zt = unary_out_type(name, t)
    v = np.zeros(A.shape, dtype=zt)
    v[A.present] = unary(name, A.values[A.present], t)
    return Obj(v, A.present.copy())


def apply_bind(A: Obj, op: str, scalar: Any, side: str, t: np.dtype | None = None) -> Obj:
    """apply with a BinaryOp: ``side="left"`` computes op(s, a), ``"right"`` op(a, s)."""
    o = BINARY[op]
    s = np.asarray(scalar)
    t = unify(A.dtype, s.dtype) if t is None else np.dtype(t)
    v = np.zeros(A.shape, dtype=o.out_type(t))
    a = A.values[A.present]
    v[A.present] = o(s, a, t) if side == "left" else o(a, s, t)
    return Obj(v, A.present.copy())


def _index_grids(shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    if len(shape) == 2:
        return np.arange(shape[0], dtype=np.int64)[:, None], np.arange(shape[1], dtype=np.int64)[None, :]
    return np.arange(shape[0], dtype=np.int64), np.zeros(shape, dtype=np.int64)  # vector: i = index, j = 0


def apply_index(A: Obj, name: str, thunk: Any) -> Obj:
    out, f = INDEXUNARY[name]
    i, j = _index_grids(A.shape)
    z = np.broadcast_to(f(A.values, i, j, thunk), A.shape)
    zt = out(A.dtype)
    return Obj(np.where(A.present, cast(z, zt), np.zeros((), zt)), A.present.copy())


def select(A: Obj, name: str, thunk: Any) -> Obj:
    """Keep the entries where the index-unary operator is true.  Value thunks are cast to A's type."""
    _, f = INDEXUNARY[name]
    i, j = _index_grids(A.shape)
    if name.startswith("value"):
        thunk = cast(thunk, A.dtype)[()]
    keep = np.broadcast_to(cast(f(A.values, i, j, thunk), BOOL), A.shape)
    return Obj(A.values.copy(), A.present & keep)


def _reduce_axis(A: Obj, monoid: str, axis: int) -> Obj:
    """Fold along ``axis`` in increasing index; absent where nothing to fold."""
    mon = MONOID[monoid]
    vals = np.moveaxis(A.values, axis, -1)
    pres = np.moveaxis(A.present, axis, -1)
    zt = mon.op.out_type(A.dtype)
    acc = np.zeros(vals.shape[:-1], dtype=zt)
    have = np.zeros(vals.shape[:-1], dtype=bool)
    for k in range(vals.shape[-1]):
        tp = pres[..., k]
        term = cast(vals[..., k], zt)
        both = tp & have
        new = np.where(tp & ~have, term, acc)
        if both.any():
            new[both] = mon.op(acc[both], term[both], zt)
        acc, have = new, have | tp
    return Obj(acc, have)


def reduce_rowwise(A: Obj, monoid: str) -> Obj:
    return _reduce_axis(A, monoid, 1)


def reduce_columnwise(A: Obj, monoid: str) -> Obj:
    return _reduce_axis(A, monoid, 0)


def reduce_scalar(A: Obj, monoid: str) -> Obj:
    """Reduce all entries to a Scalar; empty when A has none (as for a GrB_Scalar output)."""
    flat = Obj(A.values.reshape(-1), A.present.reshape(-1))
    return _reduce_axis(flat, monoid, 0)


def _indices(index: Any, n: int) -> np.ndarray:
    if isinstance(index, slice):
        return np.arange(n, dtype=np.int64)[index]
    return np.asarray(index, dtype=np.int64).reshape(-1)


def extract(A: Obj, *index: Any) -> Obj:
    """T = A(I, J) (or u(I)); index lists may repeat; slices are Python slices."""
    idx = [_indices(ix, n) for ix, n in zip(index, A.shape)]
    grid = np.ix_(*idx)
    return Obj(A.values[grid], A.present[grid])


def assign(C: Obj, source: Obj | Any, index: Sequence[Any], mask: Obj | None = None, accum: str | None = None,
           replace: bool = False, structure: bool = False, complement: bool = False) -> Obj:
    """C<M, replace>(I, J) = C(I, J) accum source, as GrB_assign (mask of C's size).

    Inside the region I x J: without accum the region becomes the source (entries
    the source lacks are deleted); with accum, the union with accum(C, source).
    Outside the region Z = C. Then the mask / replace write over the whole of C.
    A non-Obj ``source`` is a scalar: every position of the region gets it.
    """
    idx = [_indices(ix, n) for ix, n in zip(index, C.shape)]
    grid = np.ix_(*idx)
    region_shape = tuple(len(i) for i in idx)
    if not isinstance(source, Obj):
        s = np.asarray(source)
        source = Obj(np.full(region_shape, s, dtype=s.dtype), np.ones(region_shape, dtype=bool))
    assert source.shape == region_shape, (source.shape, region_shape)
    sub = Obj(C.values[grid], C.present[grid])
    zsub = write(sub, source, accum=accum)  # no mask: region replaced or accumulated
    Z = C.copy()
    Z.values[grid] = zsub.values
    Z.present[grid] = zsub.present
    return write(C, Z, mask, None, replace, structure, complement)


def assign_row(C: Obj, i: int, source: Obj | Any, cols: Any, mask: Obj | None = None, accum: str | None = None,
               replace: bool = False, structure: bool = False, complement: bool = False) -> Obj:
    """GrB_Row_assign: C(i, :)<m, replace>(J) = C(i, J) accum u; only row i of C can change."""
    row = Obj(C.values[i, :].copy(), C.present[i, :].copy())
    new = assign(row, source, (cols,), mask, accum, replace, structure, complement)
    out = C.copy()
    out.values[i, :] = new.values
    out.present[i, :] = new.present
    return out


def assign_col(C: Obj, j: int, source: Obj | Any, rows: Any, mask: Obj | None = None, accum: str | None = None,
               replace: bool = False, structure: bool = False, complement: bool = False) -> Obj:
    """GrB_Col_assign: C(:, j)<m, replace>(I) = C(I, j) accum u; only column j of C can change."""
    return assign_row(C.T, j, source, rows, mask, accum, replace, structure, complement).T


def transpose(A: Obj) -> Obj:
    return A.T


def kronecker(A: Obj, B: Obj, op: str, t: np.dtype | None = None) -> Obj:
    """T(i*mB + k, j*nB + l) = op(A(i,j), B(k,l)) where both exist."""
    o = BINARY[op]
    t = unify(A.dtype, B.dtype) if t is None else np.dtype(t)
    (ma, na), (mb, nb) = A.shape, B.shape
    av = A.values[:, None, :, None]
    bv = B.values[None, :, None, :]
    pres = (A.present[:, None, :, None] & B.present[None, :, None, :]).reshape(ma * mb, na * nb)
    v = o(np.broadcast_to(av, (ma, mb, na, nb)), np.broadcast_to(bv, (ma, mb, na, nb)), t).reshape(ma * mb, na * nb)
    return Obj(np.where(pres, v, np.zeros((), v.dtype)), pres)


def matrix_diag(A: Obj, k: int = 0) -> Obj:
    """The k-th diagonal of A as a Vector (GrB_Vector_diag)."""
    m, n = A.shape
    ii = np.arange(max(0, -k), max(max(0, -k), min(m, n - k)))
    jj = ii + k
    return Obj(A.values[ii, jj], A.present[ii, jj])


def vector_diag(u: Obj, k: int = 0) -> Obj:
    """A square Matrix of size n + |k| with u on its k-th diagonal (GrB_Matrix_diag)."""
    n = u.shape[0] + abs(k)
    out = empty((n, n), u.dtype)
    ii = np.arange(u.shape[0]) + max(0, -k)
    jj = ii + k
    out.values[ii, jj] = u.values
    out.present[ii, jj] = u.present
    return out
