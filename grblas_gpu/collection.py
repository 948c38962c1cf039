"""What Vector and Matrix share: masks, ``<<``, comparison and the element-wise operations.

Element-wise operations work on sorted keys (see :mod:`._sparse`), so one
implementation serves both shapes.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from . import _bitmap
from . import _sparse as sp
from ._compat_methods import CompatMethods
from ._infix_methods import InfixMethods
from ._operations import bind_evaluator, operations
from .backends import PicklesBackendByName
from .dtypes import BOOL, FP64, INT64, DataType, cast_scalar, lookup_dtype, unify
from .exceptions import DimensionMismatch, DomainMismatch, InvalidValue
from .expressions import Expression, Output, Updater, check_same_backend, parse_output_args, write_plain
from .infix import matmul
from .mask import Mask, as_mask
from .op import select_from_string
from .operators import (
    BinaryOp,
    IndexUnaryOp,
    Monoid,
    Semiring,
    TypedBinaryOp,
    TypedIndexUnaryOp,
    TypedMonoid,
    TypedSemiring,
    TypedUnaryOp,
    UnaryOp,
    binary,
    catalog,
    get_indexunary,
    get_semiring,
    indexunary,
    typed_binary,
    typed_indexunary,
    unary,
)
from .operators import select as select_ns
from .scalar import Scalar

if TYPE_CHECKING:
    from .matrix import Matrix, TransposedMatrix
    from .vector import Vector


class Collection(InfixMethods, CompatMethods, PicklesBackendByName):
    """Base of Vector and Matrix."""

    kind = "Collection"
    _be: Any
    _dtype: DataType
    name: str | None

    if TYPE_CHECKING:  # what Vector and Matrix each implement, and the shared code here calls
        @property
        def shape(self) -> tuple[int, ...]: ...
        @property
        def nvals(self) -> int: ...
        @property
        def _vals(self) -> Any: ...
        def _keyspace(self, objs: list[Any]) -> Any: ...
        def _entries(self, ks: Any) -> sp.Entries: ...
        def _set_entries(self, e: sp.Entries, ks: Any) -> None: ...
        def _from_entries(self, e: sp.Entries, ks: Any, dtype: DataType) -> Collection: ...
        def _positions_of(self, ks: Any, same: bool = True) -> Any: ...
        def _coords_of(self, keys: Any, ks: Any) -> tuple[Any, Any]: ...

    # ---------------------------------------------------------------- basics
    @property
    def dtype(self) -> DataType:
        """The type of the stored values."""
        return self._dtype

    @property
    def backend(self) -> str:
        """The backend whose arrays hold the data: ``"numpy"`` or ``"cupy"``."""
        return self._be.name

    @property
    def S(self) -> Mask:
        """Structural mask: every stored entry allows a write."""
        return Mask(self, structure=True)

    @property
    def V(self) -> Mask:
        """Value mask: stored entries whose value is true allow a write."""
        return Mask(self, structure=False)

    def __call__(self, *args: Any, mask: Any = None, accum: Any = None, replace: bool = False,
                 changed: Any = None, input_mask: Any = None) -> Updater:
        """The output with a mask, accumulator and replace flag, for ``<<``.

        Positional arguments are recognised by type, as in python-graphblas:
        ``C(M.S)``, ``C(binary.plus)``, ``C(~M.S, binary.min, replace=True)``.

        ``changed`` (an extension, not in the GraphBLAS C API; Vector outputs only): a Vector
        of the output's size that the write sets to the entries it made new or different
        (equal values, or NaN and NaN, are no change), with their new values cast to its type;
        its old entries are dropped, and so are entries the write removed (they have no
        value).  ``dist(binary.min, changed=frontier) << frontier.vxm(A, semiring.min_plus)``
        is a Bellman-Ford round: it keeps the shorter paths and makes the vertices they reach
        the next frontier.  Without a mask, with an accumulator that adds in one pass and one
        type throughout, it is one kernel over bitmaps.

        ``input_mask`` masks the input of an extract written here (``w(input_mask=m.S) << v[idx]``).
        """
        return Updater(self, *parse_output_args(args, mask, accum, replace), changed=changed,
                       input_mask=input_mask)

    def __lshift__(self, value: Any) -> None:
        write_plain(self, value)

    def update(self, value: Any) -> None:
        """Same as ``self << value``."""
        write_plain(self, value)

    def _as_expression(self) -> Expression:
        return Expression(f"{self.name or self.kind.lower()}", self.kind, self.shape, self._dtype, self._be,
                          "value", (self,), (self,))

    def _replace_with(self, other: Collection) -> None:
        """Take ``other``'s entries, cast to this object's type."""
        ks = self._keyspace([other])
        e = other._entries(ks)
        self._set_entries(sp.Entries(e.keys, self._be.cast(e.values, self._dtype)), ks)

    def wait(self, how: str = "materialize") -> Any:
        """Block until pending device work on this object is done; returns the object
        (python-graphblas's ``A.wait()``; ``how`` is "materialize" or "complete", the same here)."""
        _check_wait(how)
        self._be.synchronize()
        return self

    # ---------------------------------------------------------------- comparison
    def isequal(self, other: Collection, *, check_dtype: bool = False) -> bool:
        """Same shape, same structure and equal values (and same type when ``check_dtype``)."""
        return self._compare(other, check_dtype, lambda a, b: self._be.xp.all(a == b))

    def isclose(self, other: Collection, *, rel_tol: float = 1e-7, abs_tol: float = 0.0,
                check_dtype: bool = False) -> bool:
        """Same shape and structure, values within ``rel_tol``/``abs_tol`` (NaN equals NaN)."""
        xp = self._be.xp
        return self._compare(other, check_dtype,
                             lambda a, b: xp.all(xp.isclose(a, b, rtol=rel_tol, atol=abs_tol, equal_nan=True)))

    def _compare(self, other: Any, check_dtype: bool, values_equal: Any) -> bool:
        other = _operand(other)  # A.T and expressions compare by their value
        if not isinstance(other, Collection) or other.kind != self.kind:
            raise DomainMismatch(f"cannot compare a {self.kind} with {type(other).__name__}")
        if tuple(self.shape) != tuple(other.shape) or (check_dtype and self.dtype != other.dtype):
            return False
        check_same_backend(self, other)
        if self.nvals != other.nvals:
            return False
        ks = self._keyspace([self, other])
        a, b = self._entries(ks), other._entries(ks)
        if not bool(self._be.xp.all(a.keys == b.keys)):
            return False
        t = unify(self.dtype, other.dtype)
        xa, xb = self._be.cast(a.values, t), self._be.cast(b.values, t)
        return bool(values_equal(xa, xb))

    def __bool__(self) -> bool:
        raise TypeError(f"__bool__ not defined for objects of type {type(self).__name__}: the truth value of a "
                        f"{self.kind} is ambiguous; compare .nvals")

    # ---------------------------------------------------------------- element-wise
    def ewise_add(self, other: Collection | TransposedMatrix, op: Any = "plus") -> Expression:
        """Union of entries: ``op`` where both exist, the lone value where one does."""
        return self._ewise(other, op, "ewise_add", union=True)

    def ewise_mult(self, other: Collection | TransposedMatrix, op: Any = "times") -> Expression:
        """Intersection of entries, combined by ``op``."""
        return self._ewise(other, op, "ewise_mult", union=False)

    def ewise_union(self, other: Collection | TransposedMatrix, op: Any, left_default: Any, right_default: Any) -> Expression:
        """Union of entries; a lone value is combined with the other side's default."""
        return self._ewise(other, op, "ewise_union", union=True, defaults=(left_default, right_default))

    def _ewise(self, other: Any, op: Any, name: str, union: bool,
               defaults: tuple[Any, Any] | None = None) -> Expression:
        left, right = _operand(self), _operand(other)
        if isinstance(right, Collection) and right.kind != left.kind:
            return operations.broadcast_ewise(left, right, op, union, defaults)
        if not isinstance(right, Collection):
            raise DomainMismatch(f"{name} needs two {left.kind} objects (or a Vector and a Matrix), "
                            f"got {type(right).__name__}")
        shape = tuple(left.shape)
        if shape != tuple(right.shape):
            raise DimensionMismatch(f"{name}: shapes {shape} and {tuple(right.shape)} differ")
        check_same_backend(left, right)
        t = unify(left.dtype, right.dtype)
        if defaults is not None:
            defaults = (_scalar_value(defaults[0]), _scalar_value(defaults[1]))
            # float defaults beside integers compute in floats (as python-graphblas upcasts)
            t = unify(unify(t, scalar_type(defaults[0], t)), scalar_type(defaults[1], t))
        typed = _typed_ewise_op(op, union, t)
        return Expression(name, left.kind, shape, typed.out_type, left._be, "ewise", (left, right),
                          (typed, union, defaults))

    # ---------------------------------------------------------------- apply / select
    def apply(self, op: Any, right: Any = None, *, left: Any = None) -> Expression:
        """``op(x)`` per entry; ``op(x, right)``/``op(left, x)`` for a BinaryOp with a bound
        scalar; ``op(x, i, j, right)`` for an IndexUnaryOp (``right`` is the thunk)."""
        return _apply_expr(self, op, right, left)

    def select(self, op: Any, thunk: Any = None) -> Expression:
        """Keep the entries for which the IndexUnaryOp ``op(x, i, j, thunk)`` is true; ``op`` may
        also be a mask or a BOOL object of the same shape (python-graphblas's ``v.select(w.S)``,
        ``v.select((v == 1).new())``): the entries it allows."""
        if isinstance(op, Mask) or getattr(op, "kind", None) == self.kind and getattr(op, "_applied", None) is None:
            return _select_by_mask(self, op, thunk)
        if getattr(op, "_applied", None) is not None and thunk is not None:
            raise DomainMismatch("select by a comparison (A.select(A < 5)) takes no thunk: the comparison holds it")
        return _select_expr(self, op, 0 if thunk is None else thunk)

    # ---------------------------------------------------------------- infix forms
    def __matmul__(self, other: Any) -> Any:
        return matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return matmul(other, self)

    # ---------------------------------------------------------------- repr helpers
    def _repr_header(self) -> str:
        dims = "x".join(str(s) for s in self.shape)
        name = f" {self.name}" if self.name else ""
        return f"{self.kind}{name}: {dims}, {self.nvals} entries, {self.dtype}, {self._be.name}"


def _check_wait(how: str) -> None:
    if how not in ("materialize", "complete"):
        raise ValueError(f'`how` argument must be "materialize" or "complete"; got {how!r}')


def _operand(obj: Any) -> Any:
    """A collection operand: ``A.T`` and expressions are materialised."""
    if isinstance(obj, Expression):
        return obj.new()
    if hasattr(obj, "parent") and hasattr(obj.parent, "_transposed"):
        return obj.parent._transposed()
    return obj


def _from_python_function(op: Any, nargs: int) -> Any:
    """A plain Python function given as an operator (``v.apply(lambda x: x + 1)``, as
    python-graphblas allows): an anonymous user-defined operator of it."""
    import types

    if not isinstance(op, types.FunctionType):
        return op
    return (unary if nargs == 1 else binary).register_anonymous(op, getattr(op, "__name__", "anonymous"))


def _typed_ewise_op(op: Any, union: bool, dtype: DataType) -> Any:
    """The typed operator of an element-wise operation given a BinaryOp, Monoid, Semiring
    (its add for the union, its multiply for the intersection), a typed one, or a name."""
    op = _from_python_function(op, 2)
    if isinstance(op, TypedSemiring):
        return op.monoid.op if union else op.mult
    if isinstance(op, str) and "_" in op and op not in catalog.BINARY:
        op = get_semiring(op)
    if isinstance(op, Semiring):
        assert op.monoid is not None and op.mult is not None
        op = op.monoid.binop if union else op.mult
    return typed_binary(op, dtype)


def _scalar_value(v: Any) -> Any:
    if isinstance(v, Scalar):
        return v.require_value()
    if isinstance(v, Expression) and v.kind == "Scalar":
        return v.new().require_value()
    if isinstance(v, (int, float, bool, np.generic)):
        return v
    raise DomainMismatch(f"Bad type for a scalar argument (a thunk, a default or a bound value): {type(v).__name__}; "
                         "expected a Scalar. Literal scalars also accepted")


def _apply_expr(obj: Collection, op: Any, right: Any, left: Any) -> Expression:
    shape = tuple(obj.shape)
    op = _from_python_function(op, 1 if right is None and left is None else 2)
    if isinstance(op, str):
        op = _lookup_apply_op(op)
    if isinstance(op, (Monoid, TypedMonoid)):
        op = op.binop if isinstance(op, Monoid) else op.op
    if isinstance(op, (UnaryOp, TypedUnaryOp)):
        if right is not None or left is not None:
            raise DomainMismatch(f"unary operator {op.name} takes no scalar")
        typed_u = op if isinstance(op, TypedUnaryOp) else op[obj.dtype]
        return Expression(f"apply({op.name})", obj.kind, shape, typed_u.out_type, obj._be, "apply_unary", (obj,),
                          (typed_u,))
    if isinstance(op, (IndexUnaryOp, TypedIndexUnaryOp)):
        if left is not None:
            raise DomainMismatch(f"Do not pass `left` when applying IndexUnaryOp {op.name}: its thunk is right=")
        return _indexunary_expr(obj, op, 0 if right is None else right, select=False)
    if isinstance(op, (BinaryOp, TypedBinaryOp)):
        if left is not None and right is not None:
            raise DomainMismatch(f"Cannot provide both `left` and `right` to apply with binary operator {op.name}")
        if left is None and right is None:
            raise DomainMismatch(f"apply with binary operator {op.name} needs exactly one of left= or right= "
                                 "(a UnaryOp applies alone)")
        s = _bound_scalar(left if left is not None else right, obj)
        typed_b = typed_binary(op, unify(obj.dtype, scalar_type(s, obj.dtype)))
        bound_type = typed_b.x_type if left is not None else typed_b.y_type
        if isinstance(s, Scalar):  # held on the device: bound there, not read back
            bound = obj._be.cast(s._on_device(), bound_type)
        else:
            bound = cast_scalar(s, bound_type)
        return Expression(f"apply({op.name})", obj.kind, shape, typed_b.out_type, obj._be, "apply_bound", (obj,),
                          (typed_b, bound, left is not None))
    raise DomainMismatch("apply only accepts UnaryOp with no scalars or BinaryOp with `left` or `right` scalar "
                         f"(or IndexUnaryOp with a thunk), not {op!r}")


def _bound_scalar(v: Any, obj: Collection) -> Any:
    """A bound operand of ``apply``: a Scalar whose value is still on ``obj``'s device stays a
    Scalar (read there by the kernel); anything else becomes a host value."""
    if isinstance(v, Expression) and v.kind == "Scalar":
        v = v.new()
    if isinstance(v, Scalar) and v._on_device() is not None and v.backend == obj.backend:
        return v
    return _scalar_value(v)


def scalar_type(s: Any, other: DataType) -> DataType:
    """The type a scalar takes beside values of type ``other``: NumPy scalars keep theirs;
    a Python int or float adopts ``other`` where it fits, as in python-graphblas."""
    if isinstance(s, Scalar):
        return s.dtype
    if isinstance(s, np.generic):
        return lookup_dtype(s.dtype)
    if isinstance(s, bool):
        return BOOL
    if isinstance(s, int):
        return other if not other.is_bool else INT64
    return other if other.is_float else FP64


def _lookup_apply_op(name: str) -> Any:
    for ns in (unary, indexunary, binary):
        if name in ns:
            return ns[name]
    raise InvalidValue(f"no unary, index-unary or binary operator named {name!r}")


def _ewise(expr: Expression, mask: Mask | None) -> Any:
    """An ``ewise`` expression's result: the union or intersection of its two objects' entries."""
    (a, b), (typed, union, defaults) = expr.args, expr.params
    out = typed.out_type
    if _bitmap.wants_bitmap(a, b):
        return _bitmap.ewise(a, b, typed, out, union, defaults)
    ks = a._keyspace([a, b])
    ea, eb = a._entries(ks), b._entries(ks)
    pos_of = a._positions_of(ks, same=True)
    be = a._be
    if union:
        ld, rd = defaults if defaults is not None else (None, None)
        e = sp.union(be, ea, eb, typed, out, pos_of, ld, rd)
    else:
        e = sp.intersection(be, ea, eb, typed, pos_of)
    return a._from_entries(e, ks, out)


def _ewise_write(expr: Expression, output: Output) -> bool:
    """``C << union``, no mask, accumulator or report: into C's bitmap, where it can."""
    (left, right), (typed, _, defaults) = expr.args, expr.params
    return (defaults is not None and output.mask is None and output.accum is None and output.changed is None
            and _bitmap.ewise_union_into(output.target, left, right, typed, defaults))


def _map_values(expr: Expression, f: Any, positional: bool) -> Any:
    """The new object of an element-wise map of ``expr``'s one object: ``f(be, entries,
    positions)`` -> the new values of every entry.  A map that reads no position
    (``positional`` False) of a Matrix keeps its structure as it is: no keys are made and the
    new Matrix holds the same index arrays."""
    (src,), out = expr.args, expr.dtype
    if _bitmap.wants_bitmap(src):
        return _bitmap.map_values(src, f, out)
    if not positional and src.kind == "Matrix":
        return cast("Matrix", src)._with_values(f(src._be, sp.Entries(None, src._vals), None), out)
    ks = src._keyspace([src])
    e = src._entries(ks)
    be = src._be
    return src._from_entries(sp.Entries(e.keys, f(be, e, src._positions_of(ks, same=True))), ks, out)


def _apply_unary(expr: Expression, mask: Mask | None) -> Any:
    """An ``apply_unary`` expression's result: its unary operator on every entry."""
    (typed_u,) = expr.params
    return _map_values(expr, partial(_unary_values, typed_u), positional=False)


def _unary_values(typed_u: Any, be: Any, e: sp.Entries, pos: Any) -> Any:
    return be.unary(typed_u, be.cast(e.values, typed_u.in_type))


def _apply_bound(expr: Expression, mask: Mask | None) -> Any:
    """An ``apply_bound`` expression's result: its binary operator on every entry and the
    bound scalar (on the left with ``bound_left``)."""
    typed_b, bound, bound_left = expr.params
    return _map_values(expr, partial(_bound_values, typed_b, bound, bound_left), positional=typed_b.positional)


def _bound_values(typed_b: Any, bound: Any, bound_left: bool, be: Any, e: sp.Entries, pos: Any) -> Any:
    x = be.cast(e.values, typed_b.y_type if bound_left else typed_b.x_type)
    p = pos(e.keys) if typed_b.positional else None
    return be.binary(typed_b, bound, x, p) if bound_left else be.binary(typed_b, x, bound, p)


def _indexunary_expr(obj: Collection, op: Any, thunk: Any, select: bool) -> Expression:
    s = _scalar_value(thunk)
    typed = typed_indexunary(op, obj.dtype)
    if select and typed.out_type != BOOL:
        raise DomainMismatch(f"select needs an operator that returns BOOL; {op.name} returns {typed.out_type}")
    thunk_v = cast_scalar(s, typed.thunk_type)
    name = f"{'select' if select else 'apply'}({op.name})"
    return Expression(name, obj.kind, tuple(obj.shape), obj.dtype if select else typed.out_type, obj._be,
                      "indexunary", (obj,), (typed, thunk_v, select))


def _indexunary(expr: Expression, mask: Mask | None) -> Any:
    """An ``indexunary`` expression's result: its operator applied to (or selecting by) every entry."""
    (src,), (typed, thunk_v, select) = expr.args, expr.params
    be = src._be
    if _bitmap.wants_bitmap(src):
        vec = cast("Vector", src)  # only a Vector is held as a bitmap
        bits, dense = vec._bitmap()
        z = be.indexunary(typed, be.cast(dense, typed.in_type), sp.arange(be.xp, vec.size), 0, thunk_v)
        if select:
            return _bitmap.keep_where(vec, be.cast(z, BOOL))
        return type(vec)._from_bitmap(be, typed.out_type, vec.size, bits, z, vec._count)
    ks = src._keyspace([src])
    e = src._entries(ks)
    i, j = src._coords_of(e.keys, ks)
    z = be.indexunary(typed, be.cast(e.values, typed.in_type), i, j, thunk_v)
    if select:
        return src._from_entries(e.take(be.cast(z, BOOL)), ks, src.dtype)
    return src._from_entries(sp.Entries(e.keys, z), ks, typed.out_type)


_VALUE_SELECTS = {"==": "valueeq", "!=": "valuene", "<": "valuelt", "<=": "valuele", ">": "valuegt",
                  ">=": "valuege"}


def _select_by_mask(obj: Collection, mask: Any, thunk: Any) -> Expression:
    if thunk is not None:
        raise DomainMismatch("select with a mask or a BOOL object takes no thunk")
    m = as_mask(mask)
    if m is None or m.parent.kind != obj.kind or tuple(m.parent.shape) != tuple(obj.shape):
        raise DomainMismatch(f"select by a mask needs a mask of the {obj.kind}'s shape {tuple(obj.shape)}")
    return cast(Any, obj).dup(mask=m)._as_expression()


def _select_expr(obj: Collection, op: Any, thunk: Any) -> Expression:
    applied = getattr(op, "_applied", None)
    if applied is not None and (applied[1] is obj or getattr(applied[1], "parent", None) is obj):
        # A.select(A < 5), python-graphblas's rewrite: select.valuelt(A, 5)
        op, thunk = f"value{applied[0]}", applied[2]
    if isinstance(op, str):
        op = _VALUE_SELECTS.get(op, op)
        if op in select_ns:
            op = select_ns[op]
        else:
            try:
                op = select_from_string(op)  # python-graphblas's "row<=", "index>", "col>"
            except ValueError:
                op = get_indexunary(op)
    return _indexunary_expr(obj, op, thunk, select=True)


bind_evaluator("ewise", _ewise, _ewise_write)
bind_evaluator("apply_unary", _apply_unary)
bind_evaluator("apply_bound", _apply_bound)
bind_evaluator("indexunary", _indexunary)
