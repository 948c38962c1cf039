"""Operator namespaces: ``unary``, ``binary``, ``monoid``, ``semiring``, ``indexunary``, ``select``.

Each is polymorphic (``binary.plus``) and typed by indexing (``binary.plus["FP32"]``).
Names are python-graphblas's; strings work wherever an operator is expected
(``A.mxv(u, "min_plus")``).  Semirings are ``add_mult`` for any monoid ``add``
and binary operator ``mult``.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import InvalidValue
from . import catalog
from .base import (
    BinaryOp,
    IndexUnaryOp,
    Monoid,
    Positions,
    SelectOp,
    Semiring,
    TypedBinaryOp,
    TypedIndexUnaryOp,
    TypedMonoid,
    TypedSemiring,
    TypedUnaryOp,
    UnaryOp,
)
from .parameterized import (
    check_semiring_parts,
    is_parameterized,
    parameterized_monoid,
    parameterized_semiring,
)
from .pg_attributes import anonymous, install, numpy_namespaces

__all__ = [
    "unary", "binary", "monoid", "semiring", "indexunary", "select",
    "UnaryOp", "BinaryOp", "Monoid", "Semiring", "IndexUnaryOp",
    "TypedUnaryOp", "TypedBinaryOp", "TypedMonoid", "TypedSemiring", "TypedIndexUnaryOp",
    "Positions", "SelectOp", "get_semiring", "get_monoid", "get_binary", "get_unary", "get_indexunary",
    "find_opclass", "UNKNOWN_OPCLASS", "OpPath", "ParameterizedMonoid", "ParameterizedSemiring",
]


class Namespace:
    """Attribute and item access to a family of operators; ``register_new`` adds one."""

    def __init__(self, kind: str, table: dict[str, Any]) -> None:
        self._kind = kind
        self._table = table
        self._paths: dict[str, OpPath] = {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") and name not in self.__dict__.get("_table", {}):  # "_user_op" may be registered
            raise AttributeError(f"namespace {self.__dict__.get('_kind')!r} has no attribute {name!r}")
        if name == "ss":
            raise AttributeError(f"{self._kind}.ss: the suitesparse backend's own operators are not provided")
        try:
            op = self[name]
        except InvalidValue as exc:
            raise AttributeError(str(exc)) from None
        # Kept as a plain attribute: names are never rebound, and ``semiring.plus_times`` is
        # read in most statements (this method then no longer runs for it).
        self.__dict__[name] = op
        return op

    def __getitem__(self, name: str) -> Any:
        op = self._table.get(name)
        if op is None:
            head, dot, rest = name.partition(".")
            sub = self._folder(head) if dot else None
            op = sub[rest] if sub is not None else self._missing(name)
        return op

    def _folder(self, head: str) -> Namespace | None:
        """The namespace a dotted name's first part names (``numpy``, a registered path), or None."""
        sub = self._paths.get(head) or self.__dict__.get(head)
        return sub if isinstance(sub, Namespace) else None

    def _missing(self, name: str) -> Any:
        path = self._paths.get(name)
        if path is not None:
            return path
        symbol = getattr(self, "_symbols", {}).get(name)  # "+", "<=": set by grblas_gpu.op
        if symbol is not None:
            return self[symbol]
        raise InvalidValue(f"no {self._kind} operator named {name!r}; known: {', '.join(sorted(self._table))}")

    def __contains__(self, name: str) -> bool:
        try:
            self[name]
        except InvalidValue:
            return False
        return True

    def __dir__(self) -> list[str]:
        return sorted(self._table)

    def __iter__(self):
        return iter(sorted(self._table))

    def _register(self, name: str, op: Any) -> Any:
        head, dot, rest = name.partition(".")
        if dot:  # python-graphblas's nested names: "incrementers.plus_three", "numpy.f"
            sub = self.__dict__.get(head)
            if isinstance(sub, Namespace) and not isinstance(sub, OpPath):
                return sub._register(rest, op)
            if head in self._table:
                raise AttributeError(f"{self._kind}.{head} is already defined as an operator, not a path")
            path = self._paths.get(head)
            if path is None:
                path = self._paths[head] = OpPath(f"{self._kind}.{head}", {})
            return path._register(rest, op)
        if name in self._paths:
            raise AttributeError(f"{self._kind}.{name} is already defined as a path of operators")
        if name in self._table:
            raise InvalidValue(f"a {self._kind} operator named {name!r} already exists")
        self._table[name] = op
        return op

    def __repr__(self) -> str:
        return f"<namespace {self._kind}: {len(self._table)} operators>"


class OpPath(Namespace):
    """A folder of operators registered under a dotted name (``unary.incrementers.plus_three``)."""

    def _register(self, name: str, op: Any) -> Any:
        if name in self._table or name in self._paths:
            raise AttributeError(f"{self._kind}.{name} is already defined")
        return super()._register(name, op)


class _FunctionNamespace(Namespace):
    """A namespace of operators made from one Python function (see :mod:`.udf`)."""

    def _make(self, name: str, func: Any) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def register_new(self, name: str, func: Any, *, parameterized: bool = False, lazy: bool = False,
                     is_udt: bool = False) -> Any:
        """Define an operator from a Python function and add it to the namespace; each type's
        instance is made on first use whatever ``lazy`` says (python-graphblas's keyword)."""
        # the operator is named by the last part of a dotted name (its name goes into generated code)
        leaf = name.rpartition(".")[2]
        return self._register(name, self.register_anonymous(func, leaf, parameterized=parameterized))

    def register_anonymous(self, func: Any, name: str | None = None, *, parameterized: bool = False,
                           is_udt: bool = False) -> Any:
        """An operator from a Python function, not added to the namespace; ``parameterized=True``:
        ``op(*params)`` makes the operator of ``func(*params)``."""
        return anonymous(self._make, func, name, parameterized)


class _UnaryNamespace(_FunctionNamespace):
    """Unary operators; ``register_new(name, f)`` with ``f(x)``."""

    def _make(self, name: str, func: Any) -> UnaryOp:
        from .udf import unary_from_function

        return unary_from_function(name, func)


class _BinaryNamespace(_FunctionNamespace):
    """Binary operators; ``register_new(name, f)`` with ``f(x, y)``."""

    def _make(self, name: str, func: Any) -> BinaryOp:
        from .udf import binary_from_function

        return binary_from_function(name, func)


class _IndexUnaryNamespace(_FunctionNamespace):
    """Index-unary operators; ``register_new(name, f)`` with ``f(x, i, j, thunk)``."""

    def _make(self, name: str, func: Any) -> IndexUnaryOp:
        from .udf import indexunary_from_function

        return indexunary_from_function(name, func)


class _MonoidNamespace(Namespace):
    def register_new(self, name: str, binop: Any, identity: Any, terminal: Any = None, *,
                     is_idempotent: bool = False, lazy: bool = False) -> Monoid:
        """Define a monoid from an associative, commutative binary operator and its identity
        (``lazy`` is accepted: each type's instance is made on first use either way)."""
        return self._register(name, self.register_anonymous(binop, identity, terminal, name=name,
                                                            is_idempotent=is_idempotent))

    def register_anonymous(self, binop: Any, identity: Any, terminal: Any = None, name: str | None = None, *,
                           is_idempotent: bool = False) -> Monoid:
        """A monoid without adding it to the namespace; of a parameterized operator, a
        parameterized monoid (see :mod:`.parameterized`)."""
        if isinstance(binop, (Monoid, TypedMonoid)) or getattr(binop, "kind", None) == "monoid":
            raise TypeError(f"binop must be a BinaryOp (Expected type: BinaryOp), got the monoid {binop!r}")
        op = binop if is_parameterized(binop) else get_binary(binop)
        label = name if name is not None else op.name
        if is_parameterized(op):
            return parameterized_monoid(label, op, identity, is_idempotent, make_monoid)
        return make_monoid(label, op, identity, terminal, is_idempotent=is_idempotent)


class _SemiringNamespace(Namespace):
    def _missing(self, name: str) -> Semiring:
        add, sep, mult = name.partition("_")
        if not sep or add not in monoid or mult not in binary:
            raise InvalidValue(
                f"no semiring named {name!r}: a semiring is 'add_mult' with add a monoid "
                f"({', '.join(sorted(catalog.MONOID))}) and mult a binary operator"
            )
        sr = Semiring(name, monoid=monoid[add], mult=binary[mult])
        self._table[name] = sr
        return sr

    def register_new(self, name: str, add: Any, mult: Any, *, lazy: bool = False) -> Semiring:
        """Define a semiring from a monoid and a binary operator (``lazy`` is accepted: each
        type's instance is made on first use either way)."""
        return self._register(name, self.register_anonymous(add, mult, name))

    def register_anonymous(self, add: Any, mult: Any, name: str | None = None) -> Semiring:
        """A semiring without adding it to the namespace (named ``add_mult`` by default); of a
        parameterized monoid or operator, a parameterized semiring (see :mod:`.parameterized`)."""
        check_semiring_parts(add, mult)
        m, b = get_monoid(add), get_binary(mult)
        if is_parameterized(m) or is_parameterized(b):
            return parameterized_semiring(name, m, b, _plain_semiring)
        return _plain_semiring(name if name is not None else f"{m.name}_{b.name}", m, b)

    def __dir__(self) -> list[str]:
        every = {f"{m}_{b}" for m in monoid._table for b in binary._table}  # each names a semiring
        return sorted(set(self._table) | set(catalog.BUILTIN_SEMIRINGS) | every)


def _plain_semiring(name: str, add: Monoid, mult: BinaryOp) -> Semiring:
    return Semiring(name, monoid=add, mult=mult)


def ParameterizedMonoid(name: str, binaryop: Any, identity: Any, *, is_idempotent: bool = False) -> Monoid:
    """python-graphblas's constructor (a class there, a function here): the parameterized
    monoid of a parameterized ``binaryop``; a TypeError for any other operator."""
    return parameterized_monoid(name, binaryop, identity, is_idempotent, make_monoid)


def ParameterizedSemiring(name: str | None, monoid: Any, binaryop: Any) -> Semiring:
    """python-graphblas's constructor (a class there, a function here): the parameterized
    semiring of a monoid and a binary operator of which at least one is parameterized."""
    return parameterized_semiring(name, monoid, binaryop, _plain_semiring)


def make_monoid(name: str, binop: Any, identity: Any, terminal: Any = None, *, is_idempotent: bool = False) -> Monoid:
    """A Monoid from a binary operator and an identity (a value, or a function of the type)."""
    op = get_binary(binop)
    for value, what in ((identity, "identity"), (terminal, "terminal")):
        if value is not None and not callable(value):
            _check_monoid_value(value, what)
    ident = identity if callable(identity) else (lambda t: identity)
    term = None if terminal is None else (terminal if callable(terminal) else (lambda t: terminal))
    made = Monoid(name, binop=op, identity_of=ident, terminal_of=term)
    made.__dict__["user_idempotent"] = is_idempotent
    if hasattr(op, "orig_func") and op.__dict__.get("user_monoid") is None:
        op.__dict__["user_monoid"] = made  # python-graphblas's binop.monoid, once a monoid is made of it
    return made


def _check_monoid_value(value: Any, what: str) -> None:
    """A monoid's identity or terminal given as a value must be a number (checked now, not at
    the first use of the monoid)."""
    from ..dtypes import dtype_of_value
    from ..exceptions import DomainMismatch

    try:
        dtype_of_value(value)
    except DomainMismatch as exc:
        raise DomainMismatch(f"a monoid's {what} must be a number or a function of the type: {exc}") from None


unary = _UnaryNamespace("unary", catalog.UNARY)
binary = _BinaryNamespace("binary", catalog.BINARY)
monoid = _MonoidNamespace("monoid", catalog.MONOID)
semiring = _SemiringNamespace("semiring", {})
indexunary = _IndexUnaryNamespace("indexunary", catalog.INDEXUNARY)


class _SelectNamespace(_IndexUnaryNamespace):
    """The select operators; called, it is the C-style ``select(C, mask, accum, op, A, thunk, desc)``
    (which :mod:`grblas_gpu.functional`, a floor above the operators, binds here as it loads)."""

    function: Any = None

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        self.function(*args, **kwargs)

    def register_new(self, name: str, func: Any, *, parameterized: bool = False, lazy: bool = False,
                     is_udt: bool = False) -> Any:
        """A select operator from ``f(x, i, j, thunk) -> bool``, added to the namespace; with
        ``lazy=True`` (python-graphblas's keyword) it is added to ``indexunary`` now and checked
        on first use here (a function that does not return BOOL then raises once)."""
        if not lazy:
            made = super().register_new(name, func, parameterized=parameterized)
            if name not in indexunary:  # python-graphblas adds it to both namespaces
                indexunary.register_new(name, func, parameterized=parameterized)
            return made
        indexunary.register_new(name, func, parameterized=parameterized)
        self.__dict__.setdefault("_pending", {})[name] = (func, parameterized)
        return None

    def __getattr__(self, name: str) -> Any:
        pending = self.__dict__.get("_pending", {}).pop(name, None)
        if pending is not None:  # registered with lazy=True: made now, its errors raised as they are
            return self._register(name, self.register_anonymous(pending[0], name, parameterized=pending[1]))
        return super().__getattr__(name)

    def _make(self, name: str, func: Any) -> SelectOp:
        """A select operator from ``f(x, i, j, thunk) -> bool``."""
        from .udf import indexunary_from_function

        op = indexunary_from_function(name, func)
        out = _result_type(op)
        if out is not None and not out.is_bool:
            raise InvalidValue(f"SelectOp must have BOOL return type: {name} gives {out} (use indexunary for "
                               "an operator that computes values)")
        return SelectOp(name, builder=op.builder)

    def value(self, expr: Any) -> Any:
        """``select.value(A > 0)``: ``select.valuegt(A, 0)``, nicer to read."""
        return _select_from_comparison(expr, "value")

    def row(self, expr: Any) -> Any:
        """``select.row(A <= 5)``: ``select.rowle(A, 5)``."""
        return _select_from_comparison(expr, "row")

    def column(self, expr: Any) -> Any:
        """``select.column(A <= 5)``: ``select.colle(A, 5)``."""
        return _select_from_comparison(expr, "col")

    def index(self, expr: Any) -> Any:
        """``select.index(v <= 5)``: ``select.indexle(v, 5)``."""
        return _select_from_comparison(expr, "index")


def _result_type(op: Any) -> Any:
    """The result type of a user-defined index-unary operator on INT64 (None where it has none)."""
    try:
        return op["INT64"].out_type
    except (TypeError, ValueError, ArithmeticError):
        return None


def _select_from_comparison(expr: Any, prefix: str) -> Any:
    """The select a comparison of an object with a scalar (``A < 5``) names: ``value`` keeps the
    entries whose value compares true; ``row``/``col``/``index`` compare the position."""
    applied = getattr(expr, "_applied", None)
    if applied is None:
        raise TypeError(f"Expected a comparison such as select.{prefix}(x <= 5), got {type(expr).__name__}")
    opname, obj, thunk = applied
    name = prefix + opname
    if name not in select:
        if prefix == "value":
            raise ValueError(f"Unknown or unregistered select method: {name}")
        # Positions have only <= and >: x < t is x <= t - 1, x >= t is x > t - 1.
        shift = {"lt": "le", "ge": "gt"}.get(opname)
        if shift is None:
            raise ValueError(f"Unknown or unregistered select method: {name}")
        name, thunk = prefix + shift, int(thunk) - 1
    return select[name](obj, thunk)


select = _SelectNamespace("select", {n: SelectOp(n, builder=catalog.INDEXUNARY[n].builder)
                                     for n in catalog.SELECT_NAMES})


# Python's builtins that name an operator (python-graphblas accepts ``v.ewise_mult(w, min)``).
_BUILTINS = {min: "min", max: "max", abs: "abs"}


def _get(ns: Namespace, cls: type, op: Any, what: str) -> Any:
    if isinstance(op, cls):
        return op
    if isinstance(op, str):
        return ns[op]
    if getattr(op, "__module__", None) == "builtins" and op in _BUILTINS and _BUILTINS[op] in ns:
        return ns[_BUILTINS[op]]
    # A TypeError (DomainMismatch is one), as python-graphblas raises for an operator of the wrong kind.
    from ..exceptions import DomainMismatch

    raise DomainMismatch(f"Expected type: {cls.__name__}: a {what} (or its name), got {op!r}")


def get_unary(op: Any) -> UnaryOp:
    """A UnaryOp from an operator or its name."""
    return _get(unary, UnaryOp, op, "unary operator")


def get_binary(op: Any) -> BinaryOp:
    """A BinaryOp from an operator, a monoid (its operator) or a name."""
    if isinstance(op, Monoid):
        assert op.binop is not None
        return op.binop
    return _get(binary, BinaryOp, op, "binary operator")


def get_monoid(op: Any) -> Monoid:
    """A Monoid from a monoid, a binary operator that has a built-in monoid, or a name."""
    if isinstance(op, BinaryOp):
        if op.name in catalog.MONOID and catalog.MONOID[op.name].binop is op:
            return catalog.MONOID[op.name]
        made = op.monoid  # type: ignore[attr-defined] # a user monoid (pg_attributes' property)
        if made is not None:
            return made
        if hasattr(op, "orig_func") and not getattr(op, "parameterized", False):
            from ..exceptions import NotImplementedException

            raise NotImplementedException(
                f"the user-defined binary operator {op.name!r} has no monoid: make one, "
                f"Monoid.register_anonymous({op.name}, identity), to reduce with it")
        from ..exceptions import DomainMismatch  # a TypeError, as python-graphblas raises

        raise DomainMismatch(f"Expected type: Monoid, Aggregator; binary operator {op.name!r} has no monoid")
    if isinstance(op, Semiring):
        from ..exceptions import DomainMismatch

        raise DomainMismatch(f"Expected type: Monoid, Aggregator; got {op!r}: use `{op!r}.monoid` to get the Monoid")
    return _get(monoid, Monoid, op, "monoid")


def get_semiring(op: Any, mult: Any = None) -> Semiring:
    """A Semiring from a semiring or its name (``"min_plus"``), or from a monoid and a binary
    operator (python-graphblas's ``get_semiring(monoid.plus, binary.times)``)."""
    if mult is not None:
        if isinstance(op, (BinaryOp, TypedBinaryOp)) and isinstance(mult, (Monoid, TypedMonoid)):
            from ..exceptions import DomainMismatch

            raise DomainMismatch(f"get_semiring({op!r}, {mult!r}): the monoid comes first, then the binary "
                                 "operator; did you switch the arguments?")
        m, b = get_monoid(op), get_binary(mult)
        return semiring[f"{m.name}_{b.name}"] if m.name in catalog.MONOID and b.name in catalog.BINARY \
            else semiring.register_anonymous(m, b)
    if isinstance(op, (Monoid, TypedMonoid)):
        from ..exceptions import DomainMismatch

        raise DomainMismatch(f"get_semiring({op!r}): a monoid makes a semiring with a BinaryOp, "
                             f"get_semiring({op!r}, binary.times)")
    return _get(semiring, Semiring, op, "semiring")


def get_indexunary(op: Any) -> IndexUnaryOp:
    """An IndexUnaryOp from an operator or its name."""
    return _get(indexunary, IndexUnaryOp, op, "index-unary operator")


# ----------------------------------------------------------------------------- typing at a call site
# Operations accept polymorphic operators (typed by their operands) or typed ones (used as given).


def typed_semiring(op: Any, dtype: Any) -> TypedSemiring:
    """The typed semiring for operands of ``dtype`` (a typed semiring is kept as is)."""
    if isinstance(op, TypedSemiring):
        return op
    return (op if isinstance(op, Semiring) else get_semiring(op))[dtype]


def typed_binary(op: Any, dtype: Any) -> TypedBinaryOp:
    """The typed binary operator for ``dtype`` (a Monoid or Semiring gives its own operator)."""
    if isinstance(op, TypedBinaryOp):
        return op
    if isinstance(op, TypedMonoid):
        return op.op
    return get_binary(op)[dtype]


def typed_monoid(op: Any, dtype: Any) -> TypedMonoid:
    """The typed monoid for ``dtype`` (a typed binary operator gives its monoid, if it has one)."""
    if isinstance(op, TypedBinaryOp):
        found = op.monoid  # type: ignore[attr-defined]
        if found is None:
            from ..exceptions import DomainMismatch

            raise DomainMismatch(f"{op!r} is not part of a Monoid for {op.out_type.name} datatype "
                                 "(Expected type: Monoid)")
        return found
    return op if isinstance(op, TypedMonoid) else get_monoid(op)[dtype]


def typed_indexunary(op: Any, dtype: Any) -> TypedIndexUnaryOp:
    """The typed index-unary operator for ``dtype``."""
    return op if isinstance(op, TypedIndexUnaryOp) else get_indexunary(op)[dtype]


UNKNOWN_OPCLASS = "UnknownOpClass"
_OPCLASSES = (
    ((Semiring, TypedSemiring), "Semiring"), ((Monoid, TypedMonoid), "Monoid"),
    ((BinaryOp, TypedBinaryOp), "BinaryOp"), ((UnaryOp, TypedUnaryOp), "UnaryOp"),
    ((SelectOp,), "SelectOp"), ((IndexUnaryOp, TypedIndexUnaryOp), "IndexUnaryOp"),
)


def find_opclass(op: Any) -> tuple[Any, str]:
    """``(op, its class name)``: "Semiring", "Monoid", "BinaryOp", "UnaryOp", "SelectOp",
    "IndexUnaryOp", "Aggregator", or :data:`UNKNOWN_OPCLASS` (python-graphblas's function)."""
    if isinstance(op, TypedIndexUnaryOp) and op.is_select:
        return op, "SelectOp"
    for classes, name in _OPCLASSES:
        if isinstance(op, classes):
            return op, name
    if type(op).__name__ in ("Aggregator", "TypedAggregator"):
        return op, "Aggregator"
    return op, UNKNOWN_OPCLASS


install(unary, binary, monoid, semiring, indexunary, select)
numpy_namespaces(Namespace, unary, binary, monoid, semiring)
