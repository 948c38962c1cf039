"""python-graphblas's operator attributes and namespaces on top of the operator catalog.

- ``binary.numpy``, ``unary.numpy``, ``monoid.numpy``, ``semiring.numpy``: NumPy's ufunc names
  (``add``, ``maximum``, ``logical_or``, ``add_multiply``) for the built-in operators of the same
  meaning;
- ``BinaryOp.monoid``, ``commutes_to``, ``is_positional``; ``Monoid.binaryop``,
  ``is_idempotent``, ``commutes_to``; their typed forms;
- ``UnaryOp.register_new`` ... ``Semiring.register_anonymous`` (the namespaces' methods),
  ``register_anonymous(f, parameterized=True)`` and ``op.orig_func``.
"""

from __future__ import annotations

from typing import Any

from .base import (
    BinaryOp,
    IndexUnaryOp,
    Monoid,
    SelectOp,
    Semiring,
    TypedBinaryOp,
    TypedIndexUnaryOp,
    TypedMonoid,
    TypedSemiring,
    TypedUnaryOp,
    UnaryOp,
)
from .catalog import BINARY, MONOID
from .ufuncs import UFUNC_BINARY, UFUNC_MONOID, UFUNC_UNARY

NUMPY_UNARY = {
    "negative": "ainv", "absolute": "abs", "fabs": "abs", "sqrt": "sqrt", "cbrt": "cbrt", "exp": "exp",
    "exp2": "exp2", "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p",
    "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "reciprocal": "minv", "sign": "signum",
    "logical_not": "lnot", "invert": "bnot", "bitwise_not": "bnot", "trunc": "trunc", "floor": "floor",
    "ceil": "ceil", "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite", "positive": "identity",
}
NUMPY_BINARY = {
    "add": "plus", "subtract": "minus", "multiply": "times", "divide": "truediv", "true_divide": "truediv",
    "floor_divide": "floordiv", "maximum": "max", "minimum": "min", "fmax": "max", "fmin": "min",
    "power": "pow", "hypot": "hypot", "arctan2": "atan2", "equal": "eq", "not_equal": "ne", "greater": "gt",
    "greater_equal": "ge", "less": "lt", "less_equal": "le", "logical_and": "land", "logical_or": "lor",
    "logical_xor": "lxor", "bitwise_and": "band", "bitwise_or": "bor", "bitwise_xor": "bxor",
}
NUMPY_MONOID = {
    "add": "plus", "multiply": "times", "maximum": "max", "minimum": "min", "fmax": "max", "fmin": "min",
    "hypot": "hypot", "logical_and": "land", "logical_or": "lor", "logical_xor": "lxor",
    "bitwise_and": "band", "bitwise_or": "bor", "bitwise_xor": "bxor",
    "equal": "eq",
}
NUMPY_UNARY.update(UFUNC_UNARY)
NUMPY_BINARY.update(UFUNC_BINARY)
NUMPY_MONOID.update(UFUNC_MONOID)

# Operators equal to themselves with the operands swapped, and the pairs that swap into each other.
_COMMUTATIVE = {"plus", "times", "max", "min", "eq", "ne", "land", "lor", "lxor", "lxnor", "band", "bor",
                "bxor", "bxnor", "pair", "oneb", "any", "hypot", "iseq", "isne"}
_SWAPS = {"first": "second", "lt": "gt", "le": "ge", "minus": "rminus", "firsti": "secondj",
          "firstj": "secondi", "islt": "isgt", "isle": "isge"}
_SWAPS.update({v: k for k, v in _SWAPS.items()})
_IDEMPOTENT = {"min", "max", "any", "land", "lor", "band", "bor"}
_POSITIONAL = {"firsti", "firstj", "secondi", "secondj", "firsti1", "firstj1", "secondi1", "secondj1"}


def numpy_namespaces(ns: Any, unary: Any, binary: Any, monoid: Any, semiring: Any) -> None:
    """Attach ``.numpy`` to each operator namespace (``ns`` is the Namespace class)."""

    class SemiringNumpy(ns):  # type: ignore[misc, valid-type]
        def _missing(self, name: str) -> Any:
            for at in range(1, len(name)):
                add, mult = name[:at], name[at + 1:]
                if name[at] == "_" and add in NUMPY_MONOID and mult in NUMPY_BINARY:
                    return semiring[f"{NUMPY_MONOID[add]}_{NUMPY_BINARY[mult]}"]
            return super()._missing(name)

        def __dir__(self) -> list[str]:
            return sorted(f"{a}_{m}" for a in NUMPY_MONOID for m in NUMPY_BINARY)

    unary.numpy = ns("unary.numpy", {k: unary[v] for k, v in NUMPY_UNARY.items() if v in unary})
    table = {k: binary[v] for k, v in NUMPY_BINARY.items() if v in binary}
    from .udf import binary_from_function

    python_mod: Any = "lambda x, y: x % y"  # the source text of Python's %
    table["mod"] = table["remainder"] = binary_from_function("mod", python_mod)
    binary.numpy = ns("binary.numpy", table)
    monoid.numpy = ns("monoid.numpy", {k: monoid[v] for k, v in NUMPY_MONOID.items() if v in monoid})
    semiring.numpy = SemiringNumpy("semiring.numpy", {})


def _binary_monoid(self: BinaryOp) -> Monoid | None:
    """The built-in monoid of this operator, or None (``binary.plus.monoid is monoid.plus``)."""
    m = MONOID.get(self.name)
    if m is not None and m.binop is self:
        return m
    own = self.__dict__.get("user_monoid")
    factory, args, kwargs = self.__dict__.get("param_monoid", (None, (), {}))
    if own is None and factory is not None:  # made by a parameterized operator that has a monoid
        try:
            own = factory(*args, **kwargs)
        except Exception:  # noqa: BLE001 - python-graphblas: no monoid where its identity fails
            own = None
    return own


# On BOOL, python-graphblas's monoids of these operators are the logical ones (plus has none).
_BOOL_MONOIDS = {"plus": None, "times": "land", "min": "land", "max": "lor", "eq": "lxnor", "ne": "lxor"}


def _typed_binary_monoid(self: TypedBinaryOp) -> TypedMonoid | None:
    if self.x_type != self.out_type or self.y_type != self.out_type:
        return None
    if self.out_type.is_bool and self.name in _BOOL_MONOIDS:
        name = _BOOL_MONOIDS[self.name]
        return None if name is None else MONOID[name][self.out_type]
    parent = getattr(self, "parent", None)
    m = _binary_monoid(parent) if parent is not None else None
    return None if m is None else m[self.out_type]


def _identities(self: Monoid) -> dict[Any, Any]:
    """``monoid.plus.identities``: the identity of each type the monoid is defined on."""
    out = {}
    for t in self.types:
        try:
            out[t] = self[t].identity
        except (TypeError, ValueError):
            continue
    return out


def _commutes_to(self: Any) -> Any:
    """The operator that gives the same result with the operands swapped, or None."""
    name = self.name
    if name in _COMMUTATIVE:
        return self
    other = _SWAPS.get(name)
    if other is None:
        return None
    op = BINARY.get(other)
    if isinstance(self, TypedBinaryOp) and op is not None:
        return op[self.x_type]
    return op


def _semiring_commutes_to(self: Any) -> Any:
    mult = self.mult if isinstance(self, Semiring) else None
    if mult is None:
        return None
    other = _commutes_to(mult)
    if other is None or self.monoid is None:
        return None
    return _namespaces["semiring"][f"{self.monoid.name}_{other.name}"]


def _typed_semiring_commutes_to(self: TypedSemiring) -> Any:
    parent = getattr(self, "parent", None)
    other = _semiring_commutes_to(parent) if parent is not None else None
    return None if other is None else other[self.mult.x_type]


def _is_idempotent(self: Any) -> bool:
    """True where ``op(x, x) == x`` (min, max, any, land, lor, band, bor; a user monoid: as
    registered, ``is_idempotent=``)."""
    poly = self if isinstance(self, Monoid) else getattr(self, "parent", None)
    flag = poly.__dict__.get("user_idempotent") if poly is not None else None
    return flag if flag is not None else self.name in _IDEMPOTENT


class ParameterizedOp:
    """``register_anonymous(f, parameterized=True)``: ``op(*params)`` makes the operator of
    ``f(*params)`` (python-graphblas's parameterized operators)."""

    def __init__(self, register: Any, func: Any, name: str) -> None:
        self._register = register
        self.orig_func = func
        self.name = name
        self.parameterized = True
        self.is_positional = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._register(self.orig_func(*args, **kwargs), self.name)

    def __repr__(self) -> str:
        return f"{self.name} (parameterized)"


def anonymous(make: Any, func: Any, name: str | None, parameterized: bool) -> Any:
    """``register_anonymous``'s body for operators made from a function: the operator (with
    ``orig_func``), or a :class:`ParameterizedOp`."""
    if not callable(func):
        raise TypeError(f"UDF argument must be a function, got {type(func).__name__}")
    label = name if name is not None else getattr(func, "__name__", "anonymous")
    if label == "<lambda>":
        label = "anonymous"
    if parameterized:
        wrapper = ParameterizedOp(lambda f, n: anonymous(make, f, n, False), func, label)
        try:
            default = anonymous(make, func(), label, False)
        except TypeError:  # the factory has parameters without defaults: only op(*params) works
            return wrapper
        return with_parameters(default, wrapper)
    op = make(label, func)
    op.orig_func = func
    return op


_PARAMETERIZED: dict[type, type] = {}


def with_parameters(default: Any, wrapper: Any) -> Any:
    """The operator of the factory's defaults that also takes parameters: ``op(A, 1)``-style calls
    on objects stay the shorthand, ``op(1)`` or ``op(x=10)`` (numbers only) make the operator of
    those parameters (one per set of parameters)."""
    base = type(default)
    cls = _PARAMETERIZED.get(base)
    if cls is None:
        def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
            if _on_objects(args, kwargs):
                return base.__call__(self, *args, **kwargs)
            key = (args, tuple(sorted(kwargs.items())))
            made = self._made.get(key)
            if made is None:
                made = self._made[key] = self._wrapper(*args, **kwargs)
                # the monoid (if any) this operator's parameters make: read by ``made.monoid``
                made.__dict__["param_monoid"] = (self.__dict__.get("user_monoid"), args, kwargs)
            return made

        cls = _PARAMETERIZED[base] = type(f"Parameterized{base.__name__}", (base,),
                                          {"__call__": __call__, "parameterized": True,
                                           "__doc__": with_parameters.__doc__})
    default.__class__ = cls
    default._wrapper, default._made = wrapper, {}
    default.orig_func = wrapper.orig_func
    return default


def _on_objects(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether a call's arguments are objects (Vectors, Matrices, Scalars, expressions)."""
    return any(getattr(a, "kind", None) in ("Matrix", "Vector", "Scalar") or hasattr(a, "_infix")
               for a in (*args, *kwargs.values()))


_namespaces: dict[str, Any] = {}


def install(unary: Any, binary: Any, monoid: Any, semiring: Any, indexunary: Any, select: Any) -> None:
    """Attach the attributes to the operator classes (once, as the package loads)."""
    _namespaces["semiring"] = semiring
    attach: list[tuple[tuple[type, ...], str, Any]] = [
        ((BinaryOp,), "monoid", property(_binary_monoid)),
        ((TypedBinaryOp,), "monoid", property(_typed_binary_monoid)),
        ((BinaryOp, TypedBinaryOp, Monoid, TypedMonoid), "commutes_to", property(_commutes_to)),
        ((Semiring,), "commutes_to", property(_semiring_commutes_to)),
        ((TypedSemiring,), "commutes_to", property(_typed_semiring_commutes_to)),
        ((BinaryOp, TypedBinaryOp, Monoid, TypedMonoid, Semiring, TypedSemiring), "is_commutative",
         property(lambda self: self.commutes_to is self)),
        ((Monoid,), "identities", property(_identities)),
        ((Monoid, TypedMonoid), "is_idempotent", property(_is_idempotent)),
        ((Monoid,), "binaryop", property(lambda self: self.binop)),
        ((TypedUnaryOp, TypedBinaryOp, TypedMonoid, TypedSemiring, TypedIndexUnaryOp), "orig_func",
         property(lambda self: getattr(getattr(self, "parent", None), "orig_func", None))),
        ((UnaryOp, BinaryOp, Monoid, Semiring, IndexUnaryOp, TypedUnaryOp, TypedBinaryOp, TypedMonoid,
          TypedSemiring), "is_positional", property(lambda self: self.name in _POSITIONAL)),
    ]
    attach += [  # a typed operator's input and result types and its class's name
        ((TypedUnaryOp, TypedIndexUnaryOp), "type", property(lambda self: self.in_type)),
        ((TypedBinaryOp,), "type", property(lambda self: self.x_type)),
        ((TypedSemiring,), "type", property(lambda self: self.mult.x_type)),
        ((TypedUnaryOp, TypedBinaryOp, TypedIndexUnaryOp, TypedSemiring), "return_type",
         property(lambda self: self.out_type)),
        ((TypedMonoid,), "return_type", property(lambda self: self.type)),
        ((TypedUnaryOp,), "opclass", "UnaryOp"), ((TypedBinaryOp,), "opclass", "BinaryOp"),
        ((TypedMonoid,), "opclass", "Monoid"), ((TypedSemiring,), "opclass", "Semiring"),
        ((TypedIndexUnaryOp,), "opclass", property(lambda self: "SelectOp" if self.is_select else "IndexUnaryOp")),
    ]
    for cls, ns in ((UnaryOp, unary), (BinaryOp, binary), (IndexUnaryOp, indexunary), (SelectOp, select),
                    (Monoid, monoid), (Semiring, semiring)):
        attach.append(((cls,), "register_new", staticmethod(ns.register_new)))
        attach.append(((cls,), "register_anonymous", staticmethod(ns.register_anonymous)))
    for classes, name, value in attach:
        for target in classes:
            setattr(target, name, value)
