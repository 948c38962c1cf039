"""Masks: ``M.S`` (structure), ``M.V`` (values) and their complements ``~M.S``, ``~M.V``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._sparse import Entries, arange, isin_sorted
from .dtypes import BOOL
from .exceptions import DomainMismatch


@dataclass(frozen=True)
class Mask:
    """Which positions of the output an operation may write.

    ``structure``: every stored entry of ``parent`` counts; otherwise only entries
    whose value is true when cast to BOOL.  ``complement`` inverts the set.
    """

    parent: Any
    structure: bool = False
    complement: bool = False

    def __init__(self, parent: Any, structure: bool = False, complement: bool = False) -> None:
        # The generated __init__ of a frozen dataclass sets each field through
        # object.__setattr__; filling the instance's dict is the same, and cheaper (a mask is
        # made in most statements).
        fields = self.__dict__
        fields["parent"] = parent
        fields["structure"] = structure
        fields["complement"] = complement

    def __bool__(self) -> bool:
        raise TypeError("__bool__ not defined for objects of type Mask: a mask selects positions, it has no "
                        "truth value (python-graphblas raises too); test M.parent.nvals instead")

    def __invert__(self) -> Mask:
        return Mask(self.parent, self.structure, not self.complement)

    @property
    def value(self) -> bool:
        """True for a value mask (``M.V``), python-graphblas's flag beside ``structure``."""
        return not self.structure

    def __or__(self, other: Any) -> Mask:
        """``M | N``: a mask allowing a write where either allows one (its own structure)."""
        return self._combined(other, "lor")

    def __and__(self, other: Any) -> Mask:
        """``M & N``: a mask allowing a write where both allow one."""
        return self._combined(other, "land")

    def __ror__(self, other: Any) -> Mask:
        return self._combined(other, "lor")

    def __rand__(self, other: Any) -> Mask:
        return self._combined(other, "land")

    def _combined(self, other: Any, op: str) -> Mask:
        other = _bool_object_mask(other)
        if not isinstance(other, Mask):
            raise TypeError(f"Invalid mask: {type(other).__name__}; combine masks such as A.S | B.V")
        a, b = self.new(), other.new()
        both = a.ewise_add(b, op) if op == "lor" else a.ewise_mult(b, op)
        return Mask(both.new().select("valueeq", True).new(), structure=True)

    def new(self, dtype: Any = None, *, mask: Any = None, complement: bool = False, name: str | None = None) -> Any:
        """The mask as a value, python-graphblas's ``(~A.S).new()``: an object of the parent's
        shape holding ``True`` (cast to ``dtype``) where the mask allows a write.  A complement
        is as dense as the positions it allows."""
        if complement:  # the positions the result would not hold
            held = self.new(dtype, mask=mask)
            return Mask(held, structure=True, complement=True).new(dtype, name=name)
        dtype = BOOL if dtype is None else dtype
        parent = self.parent
        if self.complement:
            full = type(parent).from_scalar(True, *parent.shape, backend=parent.backend)
            out = type(parent)(dtype, *parent.shape, backend=parent.backend, name=name)
            out(mask=self) << full
        else:
            allowed = parent if self.structure else parent.select("valuene", False).new()
            out = allowed.apply("one").new(dtype, name=name)
        if mask is not None:
            mask = _bool_object_mask(mask)
            if not isinstance(mask, Mask):
                raise TypeError(f"Invalid mask: {type(mask).__name__}; use M.S, M.V or their complements")
            out = out.dup(mask=mask, name=name)
        return out

    def __repr__(self) -> str:
        kind = "S" if self.structure else "V"
        return f"{'~' if self.complement else ''}{self.parent.name or 'mask'}.{kind}"

    def entries(self, be: Any, keyspace: Any) -> Entries:
        """The parent's entries that count (all of them for a structural mask, else those
        whose value is true), before any complement."""
        m: Entries = self.parent._entries(keyspace)
        return m if self.structure else m.take(be.cast(m.values, BOOL))

    def selector(self, be: Any, keyspace: Any) -> Any:
        """A function: keys -> boolean per key, does the mask allow writing there.  The mask's
        allowed set is built once, for any number of calls."""
        m = self.entries(be, keyspace)

        def members(keys: Any) -> Any:
            inside = isin_sorted(be.xp, keys, m.keys)
            return ~inside if self.complement else inside

        return members

    def members(self, be: Any, keys: Any, keyspace: Any) -> Any:
        """Boolean per key: does the mask allow writing there."""
        return self.selector(be, keyspace)(keys)

    def dense_rows(self, be: Any, size: int) -> Any:
        """For a vector mask: a dense boolean array of the allowed positions."""
        if self.parent._is_bitmap:
            return self.allowed_bits(be)
        keys = arange(be.xp, size)
        return self.members(be, keys, None)


    # ------------------------------------------------------------ a Vector mask's bitmap
    def allowed_bits(self, be: Any, within: Any = None) -> Any:
        """The positions a Vector mask allows, as a boolean array (and-ed with ``within``, a
        boolean array, where given): the parent's presence itself for a plain ``.S``."""
        if self.structure and not self.complement and within is None:
            return self.parent._bitmap()[0]
        return be.mask_allowed(*self.bitmap_operands(), within)

    def allowed_bits_counted(self, be: Any, within: Any) -> tuple[Any, Any]:
        """The positions a Vector mask allows within ``within`` (a boolean array), and their
        number where the backend counts them in the same pass (else None)."""
        return be.mask_allowed_counted(*self.bitmap_operands(), within)

    def bitmap_operands(self) -> tuple[Any, Any, bool]:
        """A Vector mask as the backend's mask pass takes it: (presence, values or None for a
        structural mask, complement)."""
        bits, vals = self.parent._bitmap()
        return bits, None if self.structure else vals, self.complement


def _bool_object_mask(x: Any) -> Any:
    """A BOOL Vector or Matrix combined with a Mask is its value mask (python-graphblas's
    ``M.S | v``); another type raises, as there it must say which: ``v.V`` or ``v.S``."""
    if isinstance(x, Mask) or getattr(x, "kind", None) not in ("Vector", "Matrix") or not hasattr(x, "_entries"):
        return x
    if not x.dtype.is_bool:
        raise TypeError(f"Mask must be a BOOL object or indicate values (M.V) or structure (M.S), not a {x.dtype} {x.kind}")
    return Mask(x)


def as_mask(mask: Any) -> Mask | None:
    """A Mask from a Mask, a Vector/Matrix (its value mask) or None."""
    if mask is None or isinstance(mask, Mask):
        return mask
    if getattr(mask, "kind", None) in ("Matrix", "Vector") and getattr(type(mask), "is_expression", False):
        mask = mask.new()  # an expression (``A < 2``): the value mask of its result
    if hasattr(mask, "_entries"):
        return Mask(mask)
    if getattr(mask, "kind", None) == "Scalar":
        raise DomainMismatch("Mask not allowed for Scalars: a mask must be a Vector or Matrix (or its .S / .V)")
    raise DomainMismatch(f"a mask must be a Vector or Matrix (or its .S / .V), not {type(mask).__name__}")
