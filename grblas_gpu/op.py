"""``gb.op``: every operator by name in one namespace, and operators named by strings.

As in python-graphblas: ``op.plus`` (a binary operator), ``op.plus_times`` (a semiring),
``op.abs`` (unary), ``op.tril`` (select); ``op.from_string("min.+")``, ``"+[int]"``,
``"plus_times"``, ``"abs[FP32]"``.  Each namespace has its own ``from_string`` too
(``binary.from_string("+")``).
"""

from __future__ import annotations

from typing import Any

from .dtypes import lookup_dtype
from .operators import Namespace, binary, indexunary, monoid, select, semiring, unary

__all__ = ["from_string"]

_STR_TO_UNARY = {"-": "ainv", "~": "lnot"}
_STR_TO_SELECT = {"<": "valuelt", ">": "valuegt", "<=": "valuele", ">=": "valuege", "!=": "valuene",
                  "==": "valueeq", "col<=": "colle", "col>": "colgt", "row<=": "rowle", "row>": "rowgt",
                  "index<=": "indexle", "index>": "indexgt"}
_STR_TO_BINARY = {"<": "lt", ">": "gt", "<=": "le", ">=": "ge", "!=": "ne", "==": "eq", "+": "plus",
                  "-": "minus", "*": "times", "/": "truediv", "//": "floordiv", "**": "pow", "&": "land",
                  "|": "lor", "^": "lxor"}
_STR_TO_MONOID = {"==": "eq", "+": "plus", "*": "times", "&": "land", "|": "lor", "^": "lxor"}
_EXAMPLES = {"unary": "abs[int]", "binary": "+[int]", "monoid": "+[int]", "semiring": "min.+[int]",
             "indexunary": "rowindex", "select": "tril", "agg": "sum[int]"}


def _from_string(string: str, ns: Any, mapping: dict[str, str], kind: str) -> Any:
    """The operator a string names in one namespace: a name or symbol, maybe typed (``"+[int]"``)."""
    example = _EXAMPLES[kind]
    s = string.lower().strip()
    base, *rest = s.split("[")
    if len(rest) > 1:
        raise ValueError(f'Bad {kind} string: {string!r}.  Contains too many "[".  Example usage: {example!r}')
    if rest and not rest[0].endswith("]"):
        raise ValueError(f'Bad {kind} string: {string!r}.  Datatype specification does not end with "]".  '
                         f"Example usage: {example!r}")
    if "]" in base:
        raise ValueError(f'Bad {kind} string: {string!r}.  "]" not matched by "[".  Example usage: {example!r}')
    name = mapping.get(base, base)
    if name not in ns:
        raise ValueError(f"Unknown {kind} string: {string!r}.  Example usage: {example!r}")
    op = ns[name]
    return op[lookup_dtype(rest[0][:-1])] if rest else op


def unary_from_string(string: str) -> Any:
    """A unary operator from its name or symbol (``"abs"``, ``"-"``, ``"abs[int]"``)."""
    return _from_string(string, unary, _STR_TO_UNARY, "unary")


def binary_from_string(string: str) -> Any:
    """A binary operator from its name or symbol (``"plus"``, ``"+"``, ``"+[int]"``)."""
    return _from_string(string, binary, _STR_TO_BINARY, "binary")


def monoid_from_string(string: str) -> Any:
    """A monoid from its name or symbol (``"min"``, ``"+"``, ``"+[FP32]"``)."""
    return _from_string(string, monoid, _STR_TO_MONOID, "monoid")


def indexunary_from_string(string: str) -> Any:
    """An index-unary operator from its name or symbol (``"rowindex"``, ``"row<="``)."""
    return _from_string(string, indexunary, _STR_TO_SELECT, "indexunary")


def select_from_string(string: str) -> Any:
    """A select operator from its name or symbol (``"tril"``, ``"<="``, ``"row<="``)."""
    return _from_string(string, select, _STR_TO_SELECT, "select")


def semiring_from_string(string: str) -> Any:
    """A semiring from ``"plus_times"`` or ``"monoid.binary"`` (``"min.+"``, ``"+.*[FP32]"``)."""
    parts = string.split(".")
    if len(parts) == 1:
        return _from_string(string, semiring, {}, "semiring")
    if len(parts) != 2:
        raise ValueError(f"Bad semiring string: {string!r}.  The monoid and binaryop should be separated by "
                         'exactly one period, ".".  Example usage: min.+[int]')
    add, _, dtype = parts[1].partition("[")
    m, b = monoid_from_string(parts[0]), binary_from_string(add)
    sr = semiring[f"{m.name}_{b.name}"]
    return sr[lookup_dtype(dtype[:-1])] if dtype else sr


def aggregator_from_string(string: str) -> Any:
    """An aggregator from its name or symbol (``"sum"``, ``"+"``, ``"argmin"``)."""
    from . import agg

    return _from_string(string, agg._NAMESPACE, {"+": "sum", "*": "prod", "&": "all", "|": "any"}, "agg")


def from_string(string: str) -> Any:
    """The operator a string names, trying unary, binary, monoid, semiring, index-unary, select
    and aggregator names in that order (``"abs"``, ``"+"``, ``"min.+"``, ``"tril"``)."""
    for find in (unary_from_string, binary_from_string, monoid_from_string, semiring_from_string,
                 indexunary_from_string, select_from_string, aggregator_from_string):
        try:
            return find(string)
        except Exception:  # noqa: BLE001, S112 - the next namespace may know the name
            continue
    raise ValueError(f"Unknown op string: {string!r}.  Example usage: 'abs[int]'")


for _ns, _find in ((unary, unary_from_string), (binary, binary_from_string), (monoid, monoid_from_string),
                   (semiring, semiring_from_string), (indexunary, indexunary_from_string),
                   (select, select_from_string)):
    _ns.from_string = _find  # type: ignore[union-attr]
for _ns, _symbols in ((unary, _STR_TO_UNARY), (binary, _STR_TO_BINARY), (monoid, _STR_TO_MONOID),
                      (indexunary, _STR_TO_SELECT), (select, _STR_TO_SELECT)):
    _ns._symbols = _symbols  # type: ignore[union-attr] # binary["+"], A.apply("==", 1)

_NAMESPACES: tuple[Namespace, ...] = (unary, binary, monoid, semiring, indexunary, select)


class _NumpyNames:
    """``op.numpy.add``: NumPy's names over the operator namespaces, binary operators first."""

    def __getattr__(self, name: str) -> Any:
        for ns in (binary, unary, monoid, semiring):
            if not name.startswith("_") and name in ns.numpy:  # type: ignore[attr-defined]
                return ns.numpy[name]  # type: ignore[attr-defined]
        raise AttributeError(f"module 'grblas_gpu.op.numpy' has no attribute {name!r}")

    def __dir__(self) -> list[str]:
        return sorted({n for ns in (binary, unary, monoid, semiring) for n in dir(ns.numpy)})  # type: ignore[attr-defined]


numpy = _NumpyNames()


def __getattr__(name: str) -> Any:
    # python-graphblas's order: a binary operator before the monoid of the same name; any
    # "add_mult" name a semiring; a monoid without a binary operator of its name (registered
    # from one of another name) is found too.
    if name == "ss":
        raise AttributeError("op.ss: the suitesparse backend's own operators are not provided")
    for ns in (binary, unary, indexunary, select, monoid, semiring):
        if not name.startswith("_") and name in ns:
            return ns[name]
    raise AttributeError(f"module 'grblas_gpu.op' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(__all__) | {n for ns in _NAMESPACES for n in dir(ns)})
