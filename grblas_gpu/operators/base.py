"""Operator classes: polymorphic operators and their typed instances.

An operator is defined once and rendered twice: a NumPy implementation for the
CPU backend and a CUDA C expression for the kernels of the GPU backend.

CUDA expressions are written in terms of
- unary: ``x`` (type ``X``), result type ``Z``;
- binary: ``x`` (``X``), ``y`` (``Y``) and the positions ``xi, xj, yi, yj``
  (int64 row/column of each operand; used only by positional operators);
- index-unary: ``x`` (``X``), ``i``, ``j`` (int64) and ``thunk`` (``T``).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._operations import operations
from ..dtypes import DataType, lookup_dtype, unify
from ..exceptions import DomainMismatch

__all__ = [
    "Positions",
    "TypedUnaryOp",
    "TypedBinaryOp",
    "TypedIndexUnaryOp",
    "TypedMonoid",
    "TypedSemiring",
    "UnaryOp",
    "BinaryOp",
    "IndexUnaryOp",
    "SelectOp",
    "Monoid",
    "Semiring",
]


@dataclass
class Positions:
    """Row/column of each operand of a positional binary operator (arrays or ints)."""

    xi: Any = 0
    xj: Any = 0
    yi: Any = 0
    yj: Any = 0

    def swapped(self) -> Positions:
        """The positions with the two operands exchanged."""
        return Positions(self.yi, self.yj, self.xi, self.xj)


# ---------------------------------------------------------------------------- typed


@dataclass(frozen=True, eq=False)
class TypedUnaryOp:
    """A unary operator on one input type: ``z = f(x)``."""

    name: str
    in_type: DataType
    out_type: DataType
    np_func: Callable[[Any], Any]
    cuda: str

    kind = "unary"

    def __call__(self, val: Any) -> Any:
        """``op(v)``: apply to a Vector, Matrix or Scalar (python-graphblas's shorthand)."""
        return operations.call_operator(self, val)

    @property
    def key(self) -> str:
        """A name unique per operator and types, usable in generated code."""
        return f"{self.name}_{self.in_type.name}"

    def __repr__(self) -> str:
        return f"unary.{self.name}[{self.in_type}]"


@dataclass(frozen=True, eq=False)
class TypedBinaryOp:
    """A binary operator on input types (x_type, y_type): ``z = f(x, y)``."""

    name: str
    x_type: DataType
    y_type: DataType
    out_type: DataType
    np_func: Callable[[Any, Any, Positions | None], Any]
    cuda: str
    positional: bool = False
    is_flipped: bool = False
    commutative: bool = False

    @property
    def key(self) -> str:
        """A name unique per operator and types, usable in generated code."""
        flip = "_flip" if self.is_flipped else ""
        return f"{self.name}{flip}_{self.x_type.name}_{self.y_type.name}"

    def reads(self, operand: str) -> bool:
        """Whether the operator uses the value of operand ``"x"`` or ``"y"`` (``second`` does
        not read x, ``pair`` neither): a product need not load an operand it ignores."""
        return _mentions(self.cuda, operand)

    kind = "binary"

    def __call__(self, x: Any, y: Any = None, pos: Positions | None = None, **kwargs: Any) -> Any:
        """Apply to NumPy arrays (or scalars) already cast to ``x_type`` and ``y_type``; on
        objects, python-graphblas's shorthand (``op(A, 1)``, ``op(A | B)``: see
        :func:`grblas_gpu.operator_calls.call_operator`)."""
        if kwargs or y is None or hasattr(x, "kind") or hasattr(y, "kind"):
            return operations.call_operator(self, x, y, **kwargs)
        with np.errstate(all="ignore"):
            z = np.asarray(self.np_func(x, y, pos))
        shape = np.broadcast(x, y).shape
        if z.shape != shape:
            z = np.broadcast_to(z, shape).copy()
        return z if z.dtype == self.out_type.np_type else z.astype(self.out_type.np_type)

    def flipped(self) -> TypedBinaryOp:
        """The operator with its operands exchanged: ``f'(x, y) = f(y, x)``."""
        if self.commutative and self.x_type == self.y_type:
            return self
        f = self.np_func
        cuda = (
            self.cuda.replace("xi", "\x01").replace("xj", "\x02")
            .replace("yi", "xi").replace("yj", "xj")
            .replace("\x01", "yi").replace("\x02", "yj")
        )
        cuda = _swap_xy(cuda)
        return TypedBinaryOp(
            self.name,
            self.y_type,
            self.x_type,
            self.out_type,
            lambda x, y, pos: f(y, x, pos.swapped() if pos is not None else None),
            cuda,
            self.positional,
            not self.is_flipped,
            self.commutative,
        )

    def __repr__(self) -> str:
        return f"binary.{self.name}[{self.x_type}]"


@functools.cache
def _mentions(expr: str, name: str) -> bool:
    """Whether the C expression uses the identifier ``name`` (cached: asked on every product)."""
    return re.search(rf"\b{name}\b", expr) is not None


def _swap_xy(expr: str) -> str:
    """Exchange the identifiers ``x`` and ``y`` in a C expression."""
    import re

    return re.sub(r"\b([xy])\b", lambda m: "y" if m.group(1) == "x" else "x", expr)


@dataclass(frozen=True, eq=False)
class TypedIndexUnaryOp:
    """An index-unary operator: ``z = f(x, i, j, thunk)``."""

    name: str
    in_type: DataType
    thunk_type: DataType
    out_type: DataType
    np_func: Callable[[Any, Any, Any, Any], Any]
    cuda: str
    uses_value: bool = True
    is_select: bool = False  # from the ``select`` namespace: called, it selects

    @property
    def kind(self) -> str:
        """"select" for a select operator, else "indexunary"."""
        return "select" if self.is_select else "indexunary"

    def __call__(self, val: Any, thunk: Any = None) -> Any:
        """``op(A, thunk)``: select (a select operator) or apply (python-graphblas's shorthand)."""
        return operations.call_operator(self, val, thunk)

    @property
    def key(self) -> str:
        """A name unique per operator and types, usable in generated code."""
        return f"{self.name}_{self.in_type.name}_{self.thunk_type.name}"

    def __repr__(self) -> str:
        return f"indexunary.{self.name}[{self.in_type}]"


@dataclass(frozen=True, eq=False)
class TypedMonoid:
    """A commutative, associative binary operator with an identity (and maybe a terminal)."""

    name: str
    op: TypedBinaryOp
    identity: Any
    terminal: Any = None
    ufunc: Any = None  # NumPy ufunc with the same meaning, for reduceat; None: pairwise
    is_any: bool = False

    kind = "monoid"

    def __call__(self, left: Any, right: Any = None, **kwargs: Any) -> Any:
        """``op(A | B)``, ``op(A, 1)``: python-graphblas's shorthand (see :mod:`grblas_gpu.infix`)."""
        return operations.call_operator(self, left, right, **kwargs)

    @property
    def type(self) -> DataType:
        """The monoid's domain."""
        return self.op.out_type

    @property
    def stops_early(self) -> bool:
        """True for ANY (any one term will do) and monoids over BOOL (LOR and LAND reach their
        terminal value soon): a reduction over them usually stops within its first terms,
        which the pull kernels exploit."""
        return self.is_any or self.type.is_bool

    @property
    def key(self) -> str:
        """A name unique per monoid and type, usable in generated code."""
        return f"{self.name}_{self.type.name}"

    @property
    def binaryop(self) -> TypedBinaryOp:
        """The monoid's binary operator (python-graphblas's name for :attr:`op`)."""
        return self.op

    def __repr__(self) -> str:
        return f"monoid.{self.name}[{self.type}]"


@dataclass(frozen=True, eq=False)
class TypedSemiring:
    """An additive monoid and a multiplicative operator whose output is the monoid's domain."""

    name: str
    monoid: TypedMonoid
    mult: TypedBinaryOp

    kind = "semiring"

    def __call__(self, left: Any, right: Any = None) -> Any:
        """``op(A @ B)``: the product over this semiring (python-graphblas's shorthand)."""
        return operations.call_operator(self, left, right)

    @property
    def key(self) -> str:
        """A name unique per semiring and types, usable in generated code."""
        return f"{self.monoid.key}__{self.mult.key}"

    @functools.cached_property
    def out_type(self) -> DataType:
        """The type of the result (kept: every product statement asks for it)."""
        return self.monoid.type

    @property
    def binaryop(self) -> TypedBinaryOp:
        """The multiplicative operator (python-graphblas's name for :attr:`mult`)."""
        return self.mult

    def flipped(self) -> TypedSemiring:
        """The semiring with the multiplicative operator's operands exchanged."""
        return TypedSemiring(self.name, self.monoid, self.mult.flipped())

    def __repr__(self) -> str:
        return f"semiring.{self.name}[{self.mult.x_type}]"


# ---------------------------------------------------------------------------- polymorphic


@dataclass(eq=False)
class _Polymorphic:
    """An operator that makes a typed instance for each type it is asked for."""

    name: str
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    kind = "op"

    def __getitem__(self, dtype: Any) -> Any:
        t = dtype if dtype.__class__ is DataType else lookup_dtype(dtype)
        typed = self._cache.get(t)
        if typed is None:
            typed = self._cache[t] = self._build(t)
            if getattr(typed, "parent", None) is None:
                object.__setattr__(typed, "parent", self)  # python-graphblas's op[int].parent
        return typed

    def _build(self, t: DataType) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def __call__(self, left: Any, right: Any = None, **kwargs: Any) -> Any:
        """This operator on objects, python-graphblas's shorthand: ``semiring.min_plus(A @ B)``,
        ``binary.max(A | B)``, ``unary.abs(v)``, ``binary.plus(A, 1)``, ``select.triu(A, 1)``
        (see :func:`grblas_gpu.operator_calls.call_operator`)."""
        return operations.call_operator(self, left, right, **kwargs)

    @property
    def types(self) -> list[DataType]:
        """The types this operator is defined on (``binary.band.types``: the integers)."""
        from ..dtypes import ALL_TYPES

        found = []
        for t in ALL_TYPES:
            try:
                typed = self[t]
            except (TypeError, ValueError, ArithmeticError):
                continue
            if typed.kind == "monoid" and typed.type != t and hasattr(getattr(self, "binop", None), "orig_func"):
                continue  # a user monoid whose function leaves the type (x + y + 1 on BOOL), as there
            found.append(t)
        return found

    def __contains__(self, dtype: Any) -> bool:
        """``int in binary.plus``, ``"INT64" in monoid.min``: whether the operator is defined on the type."""
        try:
            t = lookup_dtype(dtype)
        except (TypeError, ValueError):
            return False
        return t in self.types

    def __repr__(self) -> str:
        return f"{self.kind}.{self.name}"


@dataclass(eq=False, repr=False)
class UnaryOp(_Polymorphic):
    """A polymorphic unary operator; ``op[dtype]`` gives the typed instance."""

    builder: Callable[[DataType], TypedUnaryOp] | None = None
    kind = "unary"

    def _build(self, t: DataType) -> TypedUnaryOp:
        assert self.builder is not None
        return self.builder(t)


@dataclass(eq=False, repr=False)
class BinaryOp(_Polymorphic):
    """A polymorphic binary operator; ``op[dtype]`` gives the typed instance."""

    builder: Callable[[DataType], TypedBinaryOp] | None = None
    monoid_name: str | None = None
    kind = "binary"

    def _build(self, t: DataType) -> TypedBinaryOp:
        assert self.builder is not None
        return self.builder(t)

    def resolve(self, left: DataType, right: DataType | None = None) -> TypedBinaryOp:
        """The typed instance for operands of these types."""
        return self[left if right is None else unify(left, right)]


@dataclass(eq=False, repr=False)
class IndexUnaryOp(_Polymorphic):
    """A polymorphic index-unary operator ``f(x, i, j, thunk)``."""

    builder: Callable[[DataType], TypedIndexUnaryOp] | None = None
    kind = "indexunary"

    def _build(self, t: DataType) -> TypedIndexUnaryOp:
        assert self.builder is not None
        return self.builder(t)


@dataclass(eq=False, repr=False)
class SelectOp(IndexUnaryOp):
    """An index-unary operator of the ``select`` namespace: called on an object, it selects
    (``select.triu(A, 1)``) where the same operator of ``indexunary`` applies."""

    kind = "select"

    def _build(self, t: DataType) -> TypedIndexUnaryOp:
        assert self.builder is not None
        typed = self.builder(t)
        return typed if typed.is_select else dataclasses.replace(typed, is_select=True)


@dataclass(eq=False, repr=False)
class Monoid(_Polymorphic):
    """A polymorphic monoid: a BinaryOp with an identity (and a terminal where one exists)."""

    binop: BinaryOp | None = None
    identity_of: Callable[[DataType], Any] | None = None
    terminal_of: Callable[[DataType], Any] | None = None
    ufunc_of: Callable[[DataType], Any] | None = None
    is_any: bool = False
    domain_of: Callable[[DataType], DataType] | None = None
    """The type the monoid computes in for a type asked for (the logical monoids: BOOL for
    every type, as python-graphblas's ``monoid.land[INT64]`` is ``monoid.land[BOOL]``)."""
    kind = "monoid"

    def _build(self, t: DataType) -> TypedMonoid:
        assert self.binop is not None and self.identity_of is not None
        if self.domain_of is not None and self.domain_of(t) != t:
            return self[self.domain_of(t)]
        op = self.binop[t]
        if op.x_type != op.out_type or op.y_type != op.out_type:
            # A monoid needs T x T -> T; fall back to the operator's own domain.
            if op.out_type != t:
                return self[op.out_type]
            raise DomainMismatch(f"monoid {self.name} is not defined on {t}")
        terminal = self.terminal_of(t) if self.terminal_of else None
        ufunc = self.ufunc_of(t) if self.ufunc_of else None
        return TypedMonoid(self.name, op, _as_type(self.identity_of(t), t), _as_type(terminal, t), ufunc, self.is_any)


@dataclass(eq=False, repr=False)
class Semiring(_Polymorphic):
    """A polymorphic semiring ``add_mult``; ``semiring[dtype]`` types the multiply at dtype."""

    monoid: Monoid | None = None
    mult: BinaryOp | None = None
    kind = "semiring"

    @property
    def binaryop(self) -> BinaryOp | None:
        """The multiplicative operator (python-graphblas's name for :attr:`mult`)."""
        return self.mult

    def _build(self, t: DataType) -> TypedSemiring:
        assert self.monoid is not None and self.mult is not None
        if t.is_bool and self.mult.name == "pair" and self.monoid.name in ("plus", "times"):
            # Counting over BOOL counts in INT64, as python-graphblas's plus_pair[BOOL] does.
            t = lookup_dtype("INT64")
        if self.monoid.domain_of is not None:  # lor_land[INT64] is lor_land[BOOL], as there
            t = self.monoid.domain_of(t)
        mult = self.mult[t]
        return TypedSemiring(self.name, self.monoid[mult.out_type], mult)


def _as_type(value: Any, t: DataType) -> Any:
    if value is None:
        return None
    return np.array(value).astype(t.np_type)[()]
