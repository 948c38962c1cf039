"""Delayed expressions and the one place where mask, accumulator and replace are applied.

``C(mask, accum, replace) << expr`` computes ``T = expr`` and writes it into ``C``
by the GraphBLAS C API 2.1 rule:

1. ``Z = T`` without an accumulator; otherwise ``Z = accum(C, T)`` on the union
   of their entries (lone entries of either pass through).
2. Without a mask, ``C = Z``.  With one, ``m`` is its structure (``.S``) or its
   true values, complemented under ``~``; then ``C = Z ∩ m`` under replace, else
   ``C = (C ∩ ¬m) ∪ (Z ∩ m)``.

Every argument is validated before ``C`` changes, so an error leaves ``C`` as it was.

The left side of ``<<`` is an :class:`Output` (target, mask, accumulator, replace, changed),
built once by :class:`Updater` and handed to the expression: :meth:`Expression.write` writes
it in the operation's own pass where the operation can (a product pulled into its output, a
masked product computed under the mask); otherwise the executor (:meth:`Updater.update`)
computes the expression and writes the result by the rule above (:func:`write_result`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _bitmap
from . import _sparse as sp
from ._infix_methods import InfixMethods
from ._input_mask import check_input_mask, with_input_mask
from ._operations import bind_evaluator, evaluators, operations, result_types
from .backends import get_backend
from .dtypes import DataType, lookup_dtype
from .exceptions import DimensionMismatch, DomainMismatch, GraphBLASError, InvalidValue, OutOfMemory
from .infix import matmul, tag
from .mask import Mask, as_mask
from .operators import BinaryOp, Monoid, TypedBinaryOp, get_binary, typed_binary


@dataclass(slots=True, eq=False)
class Output:
    """Where a statement writes: ``target(mask, accum, replace, changed=changed) << expr``.

    ``mask`` is a :class:`~grblas_gpu.mask.Mask` or None, ``accum`` a BinaryOp (or None),
    ``changed`` a Vector that is to hold the entries the write makes new or different (or
    None).  Built once per statement, checked, and handed to the expression (slotted, not
    frozen: a loop of products makes one per statement)."""

    target: Any
    mask: Mask | None = None
    accum: Any = None
    replace: bool = False
    changed: Any = None


class Expression(InfixMethods):
    """A delayed computation; ``<<`` into an output or ``.new()`` runs it.

    An expression is data, as python-graphblas's are: its operation's name (``method``, such
    as ``"kronecker"`` or ``"apply_bound"``), its operands (``args``: the objects it reads) and
    its operator and options (``params``, a tuple the operation reads), beside the result's
    kind, shape, type and backend.  It holds no function: the executor (:class:`Updater`)
    runs it by :meth:`compute` and :meth:`write`, which dispatch on ``method`` to the
    operation's :class:`~grblas_gpu._operations.Evaluator` (bound by the operation's module
    as it loads, :func:`~grblas_gpu._operations.bind_evaluator`).  A subclass only adds fields
    (the mat-vec products keep their planner and its last choice with them).

    Used as a value it computes itself once, as python-graphblas's expressions do
    (``(A @ B).nvals``, ``v.reduce().get(0)``, ``v.reduce() == 3``): any public attribute it
    lacks is read from its result.
    """

    is_expression = True
    """Marks an expression for the modules below this one (a mask, the display): ``A < 2`` as
    a mask is its result's values."""

    def __init__(self, name: str, kind: str, shape: tuple[int, ...], dtype: DataType, backend: Any,
                 method: str, args: tuple[Any, ...] = (), params: tuple[Any, ...] = ()) -> None:
        self.name = name
        self.kind = kind  # "Matrix", "Vector" or "Scalar"
        self.shape = shape
        self.dtype = dtype
        self._be = get_backend(backend) if isinstance(backend, str) else backend
        self.method = method
        self.args = args
        self.params = params

    @property
    def backend(self) -> str:
        """The backend the result will live on (``"numpy"`` or ``"cupy"``)."""
        return self._be.name

    def compute(self, mask: Mask | None = None) -> Any:
        """Evaluate to a new object (``mask`` is a hint: entries outside it may be skipped)."""
        return self.guarded(evaluators[self.method].compute, self, mask)

    def guarded(self, run: Callable[..., Any], *args: Any) -> Any:
        """``run(*args)``, a step of this expression, with a failed allocation raised as
        OutOfMemory naming the expression."""
        try:
            return run(*args)
        except MemoryError as exc:  # an allocation the memory check let through failed after all
            if isinstance(exc, GraphBLASError):
                raise
            raise OutOfMemory(f"{self.name}: {exc}") from exc

    def write(self, out: Output) -> bool:
        """``out << self`` in the operation's own pass, where it can (its result joined into the
        target as it is computed, computed into the target's storage, computed under the mask
        and taken as it is, or written with its changes reported as it goes); False, with
        nothing done, where it cannot (the executor then computes a new result and writes it).
        ``out`` is checked against the expression already."""
        write = evaluators[self.method].write
        return write is not None and write(self, out)

    def add_into(self, target: Any, accum: Any) -> bool:
        """:meth:`write` of ``target(accum) << self`` (no mask)."""
        return self.write(Output(target, accum=accum))

    def write_into(self, target: Any) -> bool:
        """:meth:`write` of ``target << self`` (no mask, no accumulator)."""
        return self.write(Output(target))

    def report_into(self, target: Any, mask: Mask | None, accum: Any, replace: bool, changed: Any) -> bool:
        """:meth:`write` of ``target(mask, accum, replace, changed=changed) << self``."""
        return self.write(Output(target, mask, accum, replace, changed))

    def reported(self, changed: Any) -> None:
        """Told once ``changed`` holds the entries a write of this expression made new or
        different (by :meth:`report_into` or otherwise): the operation may queue work that a
        later statement on them will ask for."""
        reported = evaluators[self.method].reported
        if reported is not None:
            reported(self, changed)

    def new(self, dtype: Any = None, *, mask: Any = None, accum: Any = None, name: str | None = None,
            nthreads: int | None = None, **opts: Any) -> Any:
        """Evaluate into a new object of ``dtype`` (default: the expression's type).

        ``nthreads`` and other python-graphblas descriptor options are accepted and ignored;
        ``accum`` is allowed only as python-graphblas allows it (it has nothing to add to)."""
        if accum is not None:
            raise TypeError("new() takes no accum: the new object is empty, there is nothing to accumulate into")
        if opts.get("input_mask") is not None:
            check_input_mask(opts["input_mask"], mask)
            return with_input_mask(self, opts["input_mask"]).new(dtype, name=name)
        out = empty_like_expr(self, lookup_dtype(dtype) if dtype is not None else self.dtype, name)
        if mask is None:
            write_plain(out, self)
        else:
            Updater(out, mask=mask).update(self)
        return out

    @property
    def value(self) -> Any:
        """For an expression with a scalar result: its Python value (None if empty)."""
        if self.kind != "Scalar":
            raise InvalidValue(f"{self.name} gives a {self.kind}; .value is only for scalar results")
        return self.new().value

    def __repr__(self) -> str:
        dims = "x".join(str(s) for s in self.shape) or "scalar"
        return f"<{self.kind}Expression {self.name}: {dims}, {self.dtype}>"

    def __matmul__(self, other: Any) -> Any:
        """``(A @ B) @ (C @ D)``: the product of the two computed expressions, tagged with the
        expressions themselves so that an operator applied to it still applies at every level
        (an expression with a Vector or Matrix is served by their ``__rmatmul__``)."""
        if not isinstance(other, Expression):
            return NotImplemented
        expr = matmul(self._result(), other._result())
        return expr if expr is NotImplemented else tag(expr, "matmul", self, other)

    # ---------------------------------------------------------------- computed on use
    def _result(self) -> Any:
        """The computed result (once; later uses read the same object)."""
        got = self.__dict__.get("_computed")
        if got is None:
            got = self.__dict__["_computed"] = self.new()
        return got

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._result(), name)

    @property
    def ndim(self) -> int:
        """0, 1 or 2: a Scalar, Vector or Matrix result."""
        return len(self.shape)

    def __eq__(self, other: object) -> Any:  # type: ignore[override]
        if self.kind == "Scalar":
            return self._result() == other
        return InfixMethods.__eq__(self, other)

    def __ne__(self, other: object) -> Any:  # type: ignore[override]
        if self.kind == "Scalar":
            return not self._result() == other
        return InfixMethods.__ne__(self, other)

    __hash__ = object.__hash__  # type: ignore[assignment]

    def __bool__(self) -> bool:
        return bool(self._result())

    def __int__(self) -> int:
        return int(self._result())

    def __float__(self) -> float:
        return float(self._result())

    def __index__(self) -> int:
        return int(self._result())

    def __iter__(self) -> Any:
        return iter(self._result())

    def __len__(self) -> int:
        return len(self._result())

    def __contains__(self, key: Any) -> bool:
        return key in self._result()

    def __getitem__(self, key: Any) -> Any:
        return self._result()[key]

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        return self._result().__array__(dtype)

    def __call__(self, *args: Any, mask: Any = None, accum: Any = None, replace: bool = False) -> SubAssign:
        """``C[rows, cols](mask, accum, replace) << B``: python-graphblas's sub-assign, whose
        mask has the shape of the indexed region (extract expressions only)."""
        target = getattr(self, "_assign_target", None)
        if target is None or getattr(self, "_read_only", False):
            raise TypeError(f"{self.name} is an expression and not callable: only an indexed object, "
                            "C[rows, cols](mask), takes a mask")
        return SubAssign(target[0], target[1], *parse_output_args(args, mask, accum, replace))

    def __lshift__(self, value: Any) -> None:
        """``A[rows, cols] << B``: assign into the indexed region of ``A`` (extract expressions only)."""
        target = getattr(self, "_assign_target", None)
        if target is None or getattr(self, "_read_only", False):  # python-graphblas: a TypeError
            raise DomainMismatch(f"{self.name} does not support item assignment: only A[rows, cols] << value "
                                 "assigns (not A.T[rows, cols], nor an expression)")
        obj, key = target
        Updater(obj)[key] << value

    def update(self, value: Any) -> None:
        """Same as ``self << value``."""
        self << value


def empty_like_expr(expr: Expression, dtype: DataType, name: str | None) -> Any:
    """An empty output object that ``expr`` can be written into."""
    be = expr.backend
    if expr.kind == "Matrix":
        return result_types.Matrix(dtype, *expr.shape, backend=be, name=name)
    if expr.kind == "Vector":
        return result_types.Vector(dtype, expr.shape[0], backend=be, name=name)
    return result_types.Scalar(dtype, backend=be, name=name)


class _Replace:
    """``replace``: positionally in ``C(mask, replace)``, the same as ``replace=True``
    (python-graphblas's ``from graphblas import replace``)."""

    def __repr__(self) -> str:
        return "replace"

    def __bool__(self) -> bool:
        return True


replace = _Replace()


def _undefined(what: str) -> Any:
    """``__bool__`` and ``__eq__`` for a left side of ``<<`` or a mask: a TypeError, as
    python-graphblas raises (the truth of ``C(mask)`` or ``M.S == N.S`` means nothing)."""
    def refuse(self: Any, *args: Any) -> Any:
        raise TypeError(f"{what} not defined for objects of type {type(self).__name__}: it is the target of "
                        "an assignment or a mask, not a value (read its .parent or compute a value first)")

    return refuse


def parse_output_args(args: tuple[Any, ...], mask: Any, accum: Any, replace: bool) -> tuple[Any, Any, bool]:
    """Sort positional ``C(...)`` arguments into (mask, accum, replace) by their type."""
    for a in args:
        if isinstance(a, (bool, _Replace)):
            replace = bool(a)
        elif isinstance(a, (BinaryOp, Monoid, str)) or a is min or a is max:
            if accum is not None:
                raise InvalidValue("two accumulators given")
            accum = a
        elif a is not None:
            if mask is not None:
                raise InvalidValue("two masks given")
            mask = a
    return mask, accum, replace


def write_plain(target: Any, value: Any) -> None:
    """``target << value`` with no mask, accumulator or replace: what :class:`Updater` does
    for it, with an expression of the target's kind, shape and backend written at once (a
    statement a loop repeats makes no Updater: each call of the statement path costs host
    time that a small product's kernel does not cover)."""
    if (isinstance(value, Expression) and value.kind == target.kind and value._be is target._be
            and value.shape == target.shape):
        if not value.write(Output(target)):
            write_result(target, value.compute(None), None, None, False)
        return
    Updater(target).update(value)


# Set by grblas_gpu.loops while it traces a loop's body: given each statement (the Updater and
# its value) before it runs, it returns True for one it keeps to run later (or on the device).
recorder: Callable[[Updater, Any], bool] | None = None


class Updater:
    """An output with its mask, accumulator and replace flag: the left side of ``<<``, and the
    executor of what is written into it (:meth:`update`).  Its :class:`Output` is built once,
    as it is made, and handed to each expression written."""

    __bool__ = _undefined("__bool__")
    __eq__ = _undefined("__eq__")  # type: ignore[assignment]
    __hash__ = object.__hash__  # type: ignore[assignment]

    def __init__(self, target: Any, mask: Any = None, accum: Any = None, replace: bool = False,
                 changed: Any = None, input_mask: Any = None) -> None:
        self.target = target
        self.input_mask = input_mask
        if input_mask is not None:
            check_input_mask(input_mask, mask)
        self.mask = as_mask(mask)
        self.accum = (accum if isinstance(accum, TypedBinaryOp) else get_binary(accum)) if accum is not None else None
        self.replace = bool(replace)
        self.changed = changed
        if self.mask is not None:
            # A Vector mask on a Matrix output is only for a row or column assign (checked there).
            line_mask = target.kind == "Matrix" and self.mask.parent.kind == "Vector"
            if not line_mask:
                _check_mask(target, self.mask)
        if changed is not None:
            _check_changed(target, changed)
        self.output = Output(target, self.mask, self.accum, self.replace, changed)

    def __lshift__(self, value: Any) -> None:
        self.update(value)

    def update(self, value: Any) -> None:
        """Compute ``value`` and write it into the target by the mask/accumulate rule."""
        if self.input_mask is not None:
            value = with_input_mask(value, self.input_mask)
        if recorder is not None and recorder(self, value):
            return
        try:
            self._update(value)
        except MemoryError as exc:  # an allocation the memory checks let through failed after all
            if isinstance(exc, GraphBLASError):
                raise
            raise OutOfMemory(f"writing into {type(self.target).__name__}: {exc}") from exc

    def _update(self, value: Any) -> None:
        if self.changed is not None:
            self._update_reporting(value)
            return
        target = self.target
        if is_scalar_like(value):
            if target.kind == "Scalar":
                assign_scalar_value(self, value)
            else:
                operations.assign(self, None, None, value)
            return
        expr = self._expression(value)
        if expr.write(self.output):
            return
        result = expr.compute(self.mask)
        write_result(target, result, self.mask, self.accum, self.replace)

    def _expression(self, value: Any) -> Expression:
        """``value`` as an Expression that can be written into the target (checked)."""
        target = self.target
        expr = as_expression(value)
        if self.mask is not None:
            _check_mask(target, self.mask)
        if expr.kind != target.kind or tuple(expr.shape) != tuple(target.shape):
            raise DimensionMismatch(
                f"cannot write a {expr.kind} of shape {expr.shape} ({expr.name}) into a {target.kind} "
                f"of shape {target.shape}"
            )
        check_same_backend(target, expr)
        return expr

    def _update_reporting(self, value: Any) -> None:
        """:meth:`update`, then ``changed`` holds the entries it made new or different."""
        C, D = self.target, self.changed
        _check_changed(C, D)  # again: either may have been resized since ``C(...)``
        if is_scalar_like(value):
            plain = Updater(C, self.mask, self.accum, self.replace)
            report_changes(C, D, lambda: plain.update(value))
            return
        expr = self._expression(value)
        self._report_expression(expr, C, D)
        expr.reported(D)

    def _report_expression(self, expr: Expression, C: Any, D: Any) -> None:
        """:meth:`_update_reporting` of an expression: its own one-pass write where it has one,
        else the product written and its changes found."""
        if expr.write(self.output):
            return
        T = expr.compute(self.mask)
        fills = fills_gaps(C, self.mask, self.accum, self.replace)
        # Without a mask, the write is C(accum) << T; filling C's gaps, it is C(first) << T.
        accum = get_binary("first") if fills else (self.accum if self.mask is None else None)
        if fills and T._inside is self.mask:
            # The product kept to C's gaps itself: each of its entries is new.
            T._store.take_inside()
            write_result(C, T, None, accum, False)
            write_result(D, T, None, None, False)
            return
        if accum is not None and _bitmap.add_reporting(C, T, typed_binary(accum, C.dtype), D):
            return
        report_changes(C, D, lambda: write_result(C, T, self.mask, self.accum, self.replace))

    def __getitem__(self, key: Any) -> AssignTarget:
        self._no_input_mask()
        return AssignTarget(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._no_input_mask()
        AssignTarget(self, key).update(value)

    def _no_input_mask(self) -> None:
        if self.input_mask is not None:
            raise TypeError("`input_mask` argument may only be used for extract, not for assign: "
                            "C(input_mask=M.S) << A[rows, cols]")


class SubAssign:
    """``C[rows, cols](mask, accum, replace)``: the left side of a sub-assign.  The region is
    read out, written by the mask / accumulate rule, and assigned back whole, so positions of
    the region outside the mask keep their entries (unless ``replace``) and the rest of ``C``
    is untouched."""

    __bool__ = _undefined("__bool__")
    __eq__ = _undefined("__eq__")  # type: ignore[assignment]
    __hash__ = object.__hash__  # type: ignore[assignment]

    def __init__(self, target: Any, key: Any, mask: Any, accum: Any, replace: bool) -> None:
        self.target, self.key = target, key
        self.mask, self.accum, self.replace = mask, accum, replace

    def __lshift__(self, value: Any) -> None:
        self.update(value)

    def update(self, value: Any) -> None:
        """Write ``value`` into the region by the mask / accumulate rule."""
        region = self.target[self.key].new()
        if getattr(region, "kind", None) == "Scalar":
            if self.mask is not None:
                kind = getattr(as_mask(self.mask), "parent", None)
                hint = (f"Unable to use {kind.kind} mask on single element assignment to a {self.target.kind}. "
                        if kind is not None and kind.kind != self.target.kind else "")
                raise DomainMismatch(f"{hint}Single element assign does not accept a submask: mask the target, "
                                     "C(M.S)[i] << x")
            Updater(self.target, accum=self.accum)[self.key] << value
            return
        m = as_mask(self.mask)
        if m is not None and m.parent.kind != region.kind:
            raise DomainMismatch(_submask_message(region.kind, m.parent.kind))
        Updater(region, mask=m, accum=self.accum, replace=self.replace) << (
            value if not is_scalar_like(value) else _filled(region, value, m))
        Updater(self.target)[self.key] << region


def _filled(region: Any, value: Any, mask: Any) -> Any:
    """A scalar spread over the region's shape (where the mask allows), to write as a value."""
    out = region.dup(clear=True)
    Updater(out, mask=mask)[(slice(None),) * len(region.shape)] << value
    return out


class AssignTarget:
    """``C(mask, accum)[rows, cols]``: the left side of an assign."""

    def __init__(self, updater: Updater, key: Any) -> None:
        self.updater = updater
        self.key = key

    def __lshift__(self, value: Any) -> None:
        self.update(value)

    def update(self, value: Any) -> None:
        """Assign ``value`` (a scalar, a collection, or a dense list / array of the region's
        shape, as python-graphblas allows) into the indexed region."""
        up = self.updater
        if isinstance(value, (list, tuple, np.ndarray)):
            value = _dense_value(up.target, self.key, value)
        if up.changed is None:
            operations.assign(up, *split_key(up.target, self.key), value)
            return
        _check_changed(up.target, up.changed)
        plain = Updater(up.target, up.mask, up.accum, up.replace)
        report_changes(up.target, up.changed, lambda: operations.assign(plain, *split_key(up.target, self.key), value))


def _submask_message(region: str, mask: str) -> str:
    """python-graphblas's words for a sub-assign mask of the wrong kind, and the fix."""
    if region == "Matrix":
        return (f"Unable to use {mask} mask on Matrix assignment to a Matrix region: the mask of a "
                "sub-assign has the region's shape")
    return (f"Indices for subassign imply {region} submask, but got {mask} mask instead (Mask object must be "
            f"type {region}: the mask of a sub-assign has the region's shape)")


def _dense_value(target: Any, key: Any, value: Any) -> Any:
    """A list or array assigned into ``target[key]``: a full Vector or Matrix of the region."""
    region = target[key]
    arr = np.asarray(value)
    if region.kind == "Scalar":
        raise DomainMismatch(f"Bad type for assign: a list or array of shape {arr.shape} into one element; "
                             "assign a number")
    if arr.ndim != len(region.shape):
        raise DimensionMismatch(f"shape mismatch: a value of shape {arr.shape} for a region of shape "
                                f"{tuple(region.shape)}")
    cls: Any = result_types.of(region.kind)
    return cls.from_dense(arr, dtype=target.dtype if arr.dtype == object else None, backend=target.backend)


def report_changes(C: Any, D: Any, write: Callable[[], None]) -> None:
    """Run ``write`` (a write into the Vector ``C``), then set ``D`` to the entries it made new
    or different: C's new value there, cast to D's type.  If ``write`` raises, D is untouched."""
    before = C._sharing_copy()  # C's arrays are then shared, so the write cannot change them in place
    write()
    bits, vals = _bitmap.changes(C, before)
    D._set_bitmap(bits, C._be.cast(vals, D.dtype))


def fills_gaps(C: Any, mask: Mask | None, accum: Any, replace: bool) -> bool:
    """Whether ``C(mask, accum, replace) << T`` writes T only where C has no entry and keeps
    C's own: the mask ``~C.S``, no accumulator, no replace (the same as ``C(first) << T``
    without a mask)."""
    return (mask is not None and mask.parent is C and mask.structure and mask.complement
            and accum is None and not replace)


def _check_changed(target: Any, changed: Any) -> None:
    """``changed=``: a Vector of the target's size on its backend, other than the target."""
    if target.kind != "Vector":
        raise InvalidValue(f"changed= reports the changes of a Vector output, not of a {target.kind}")
    if getattr(changed, "kind", None) != "Vector":
        raise InvalidValue(f"changed= takes a Vector, got {type(changed).__name__}")
    if changed is target:
        raise InvalidValue("changed= must be another Vector than the output it reports on")
    if changed._size != target._size:
        raise DimensionMismatch(f"changed= Vector of size {changed.size} does not match output of size {target.size}")
    check_same_backend(target, changed)


def split_key(target: Any, key: Any) -> tuple[Any, Any]:
    """(rows, cols) of a matrix key, or (indices, None) of a vector key; ``...`` is everything."""
    if key is Ellipsis:
        key = (slice(None), slice(None)) if target.kind == "Matrix" else slice(None)
    if target.kind == "Matrix":
        if not isinstance(key, tuple) or len(key) != 2:
            raise InvalidValue(f"a Matrix index needs [rows, cols], got {key!r}")
        return key
    if isinstance(key, tuple):
        if len(key) != 1:
            raise InvalidValue(f"a Vector index needs one index, got {key!r}")
        key = key[0]
    return key, None


def is_scalar_like(value: Any) -> bool:
    """A Python/NumPy number, a Scalar, or an expression with a scalar result."""
    if isinstance(value, Expression):
        return value.kind == "Scalar"
    return isinstance(value, (int, float, bool, np.generic, result_types.Scalar))


def as_expression(value: Any) -> Expression:
    """An Expression for ``value``: an expression, or a collection (copied as it is)."""
    if isinstance(value, Expression):
        return value
    if hasattr(value, "_as_expression"):
        return value._as_expression()
    raise DomainMismatch(f"Bad type for argument `value`: {type(value).__name__}. Assignment value must be a "
                         "valid expression (a Vector, Matrix or Scalar, an expression over them, or a number)")


def check_same_backend(*objs: Any) -> None:
    """Raise InvalidValue if the objects' arrays live on different backends."""
    # A Scalar's value can always be read back to the host, so it meets objects of either backend.
    # (A loop, not a set of names: this runs several times per statement.)
    if len(objs) == 2 and objs[0] is not None and objs[1] is not None and objs[0]._be is objs[1]._be:
        return  # the common case, two objects on one backend object (one is made per name)
    first = None
    for o in objs:
        if o is None or getattr(o, "kind", None) == "Scalar":
            continue
        be = o._be  # backends are made once per name: identity, then the name, decide
        if first is None:
            first = be
        elif be is not first and be.name != first.name:
            _raise_mixed_backends(objs)


def _raise_mixed_backends(objs: tuple[Any, ...]) -> None:
    names = {o.backend for o in objs if o is not None and getattr(o, "kind", None) != "Scalar"}
    raise InvalidValue(
        f"objects on different backends ({', '.join(sorted(names))}) cannot meet in one operation; "
        "move one with .to(backend)"
    )


def _check_mask(target: Any, mask: Mask) -> None:
    if target.kind == "Scalar":
        raise InvalidValue("a Scalar output takes no mask")
    if mask.parent.kind != target.kind or mask.parent.shape != target.shape:
        raise DimensionMismatch(
            f"mask of shape {mask.parent.shape} does not match output of shape {target.shape}")
    check_same_backend(target, mask.parent)


def write_result(C: Any, T: Any, mask: Mask | None, accum: Any, replace: bool) -> None:
    """Write the computed ``T`` into ``C`` under ``mask``, ``accum`` and ``replace``."""
    if C.kind == "Scalar":
        _write_scalar(C, T, accum)
        return
    be = C._be
    if C.kind == "Vector" and _bitmap.wants_bitmap(C, T, mask.parent if mask is not None else None):
        op = typed_binary(accum, C.dtype) if accum is not None else None
        _bitmap.write_vector(C, T, mask, op, replace)
        return
    if mask is None and accum is None:
        C._replace_with(T)
        return
    ks = C._keyspace([C, T] + ([mask.parent] if mask is not None else []))
    c, t = C._entries(ks), T._entries(ks)
    if accum is not None:
        op = typed_binary(accum, C.dtype)
        z = sp.union(be, c, t, op, C.dtype, pos_of=C._positions_of(ks, same=True))
    else:
        z = sp.Entries(t.keys, be.cast(t.values, C.dtype))
    if mask is not None:
        allowed = mask.selector(be, ks)
        z = z.take(allowed(z.keys))
        if not replace:
            kept = c.take(~allowed(c.keys))
            z = sp.merge_disjoint(be, [kept, z], C.dtype)
    C._set_entries(z, ks)


def _write_scalar(C: Any, T: Any, accum: Any) -> None:
    if accum is None or C.is_empty:
        C._take_value(T)
    elif not T.is_empty:
        op = typed_binary(accum, C.dtype)
        z = op(np.asarray(C._value).astype(op.x_type.np_type), np.asarray(T._value).astype(op.y_type.np_type))
        C._set_value(z[()], op.out_type)


def assign_scalar_value(updater: Updater, value: Any) -> None:
    """``s(accum) << x`` for a Scalar output."""
    if isinstance(value, Expression):
        check_same_backend(updater.target, value)
        src = value.compute(None)
    else:
        scalar = result_types.Scalar
        src = value if isinstance(value, scalar) else scalar.from_value(value)
    _write_scalar(updater.target, src, updater.accum)


def _as_it_is(expr: Expression, mask: Mask | None) -> Any:
    """The ``"value"`` expression's result: the object it holds (its one parameter), as it is."""
    return expr.params[0]


bind_evaluator("value", _as_it_is)
