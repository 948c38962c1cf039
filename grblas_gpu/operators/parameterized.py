"""python-graphblas's parameterized monoids and semirings.

A monoid made of a parameterized binary operator (``BinaryOp.register_anonymous(f,
parameterized=True)``) is parameterized too: used bare, it is the monoid of the operator's
defaults; ``monoid(*params)`` is the monoid of ``binop(*params)`` with the identity
``identity(*params)`` (an identity given as a function must have the factory's signature; a
value is used for every set of parameters).  A semiring with a parameterized monoid or
multiply is parameterized the same way (both parameterized: one signature).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from .base import BinaryOp, Monoid, Semiring
from .pg_attributes import with_parameters

__all__ = ["is_parameterized", "parameterized_monoid", "parameterized_semiring", "check_semiring_parts"]


def is_parameterized(op: Any) -> bool:
    """Whether ``op`` is a parameterized operator, monoid or semiring (``op(*params)`` makes one)."""
    return bool(getattr(op, "parameterized", False))


def _signature(op: Any) -> inspect.Signature:
    return op.__dict__["param_signature"] if "param_signature" in op.__dict__ else inspect.signature(op.orig_func)


def parameterized_monoid(name: str, binop: Any, identity: Any, is_idempotent: bool,
                         make: Callable[..., Monoid]) -> Monoid:
    """The monoid of a parameterized ``binop`` (see the module's text); ``make(name, binop,
    identity, is_idempotent=)`` makes a plain monoid."""
    if not is_parameterized(binop):
        raise TypeError("binaryop must be parameterized")
    sig = _signature(binop)
    if callable(identity):
        got = inspect.signature(identity)
        if got != sig:
            raise ValueError(f"Signatures of binaryop and identity passed to ParameterizedMonoid must be the "
                             f"same.  Got:\n    binaryop{sig}\n    !=\n    identity{got}")

    def of(*args: Any, **kwargs: Any) -> Monoid:
        return make(name, binop(*args, **kwargs), identity(*args, **kwargs) if callable(identity) else identity,
                    is_idempotent=is_idempotent)

    if not isinstance(binop, BinaryOp):  # a factory without defaults: only monoid(*params) works
        return _Factory(of, binop.orig_func, name, "monoid")  # type: ignore[return-value]
    # The bare monoid's identity is read when a type is first asked for (a factory may raise).
    default = make(name, binop, (lambda t: identity()) if callable(identity) else identity,
                   is_idempotent=is_idempotent)
    binop._made.clear()  # type: ignore[attr-defined] # operators made before now keep no monoid, as there
    default.__dict__["param_signature"] = sig
    return with_parameters(default, _Factory(of, binop.orig_func, name, "monoid"))  # type: ignore[attr-defined]


def check_semiring_parts(add: Any, mult: Any) -> None:
    """python-graphblas's TypeErrors for a semiring of the wrong parts."""
    if isinstance(add, BinaryOp):
        raise TypeError(f"add must be a Monoid (Expected type: Monoid), got the binary operator {add!r}")
    if isinstance(mult, Monoid):
        raise TypeError(f"binaryop must be a BinaryOp (Expected type: BinaryOp), got the monoid {mult!r}")


def parameterized_semiring(name: str | None, add: Monoid, mult: BinaryOp, make: Callable[..., Semiring]) -> Semiring:
    """The semiring of a monoid and a binary operator of which one or both are parameterized;
    ``make(name, add, mult)`` makes a plain semiring."""
    if not isinstance(add, Monoid):
        raise TypeError("monoid must be of type Monoid or ParameterizedMonoid")
    if not isinstance(mult, BinaryOp):
        raise TypeError("binaryop must be of type BinaryOp or ParameterizedBinaryOp")
    if not (is_parameterized(add) or is_parameterized(mult)):
        raise TypeError("At least one of monoid or binaryop must be parameterized")
    sig = _signature(mult if is_parameterized(mult) else add)
    if is_parameterized(add) and is_parameterized(mult) and _signature(add) != sig:
        raise ValueError(f"Signatures of monoid and binaryop passed to ParameterizedSemiring must be the same.  "
                         f"Got:\n    monoid{_signature(add)}\n    !=\n    binaryop{sig}\n\nPerhaps call monoid or "
                         "binaryop with parameters before creating the semiring.")
    label = name if name is not None else f"{add.name}_{mult.name}"

    def of(*args: Any, **kwargs: Any) -> Semiring:
        return make(label, add(*args, **kwargs) if is_parameterized(add) else add,
                    mult(*args, **kwargs) if is_parameterized(mult) else mult)

    default = make(label, add, mult)
    default.__dict__["param_signature"] = sig
    factory = getattr(mult if is_parameterized(mult) else add, "orig_func")  # noqa: B009 - set on the instance
    return with_parameters(default, _Factory(of, factory, label, "semiring"))


class _Factory:
    """``factory(*params)``: the monoid or semiring of those parameters (``orig_func``: the
    binary operator's factory, whose signature the parameters follow)."""

    parameterized = True
    is_positional = False

    def __init__(self, of: Callable[..., Any], orig_func: Any, name: str, kind: str) -> None:
        self.kind = kind
        self._of = of
        self.orig_func = orig_func
        self.name = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._of(*args, **kwargs)

    def __repr__(self) -> str:
        return f"{self.name} (parameterized)"

