"""Dense (bitmap) versions of the vector operations, for vectors held as presence + values.

They compute the same results as the key-based glue in :mod:`._sparse` but with
element-wise kernels over whole arrays: no sorting and no host round trip.  Values
at absent positions are arbitrary and never read.  Used when an operand is already
in bitmap form (see ``Vector._is_bitmap``), so no O(size) work is added to sparse
computations.
"""

from __future__ import annotations

from typing import Any

from . import _sparse as sp
from .dtypes import DataType
from .mask import Mask
from .operators.base import Positions, TypedBinaryOp


def wants_bitmap(*vectors: Any) -> bool:
    """True when every operand is a Vector and one of them is already a bitmap."""
    # A plain loop: this runs in every write and element-wise operation.
    some_bitmap = False
    for v in vectors:
        if v is None:
            continue
        if getattr(v, "kind", None) != "Vector":
            return False
        some_bitmap = some_bitmap or v._is_bitmap
    return some_bitmap


def mask_bits(be: Any, mask: Mask, within: Any = None) -> Any:
    """The positions a Vector mask allows, as a boolean array (see :meth:`Mask.allowed_bits`)."""
    return mask.allowed_bits(be, within)


def _positions(be: Any, op: TypedBinaryOp, size: int) -> Positions | None:
    if not op.positional:
        return None
    i = sp.arange(be.xp, size)
    return Positions(i, 0, i, 0)


def combine(be: Any, op: TypedBinaryOp, x: Any, y: Any, size: int) -> Any:
    """``op`` over whole dense arrays (operands cast to its input types)."""
    return sp.apply_binary(be, op, x, y, _positions(be, op, size))


def write_vector(C: Any, T: Any, mask: Mask | None, accum: TypedBinaryOp | None, replace: bool) -> None:
    """``C(mask, accum, replace) << T`` for Vectors, on bitmaps (the C API rule of expressions.py)."""
    be = C._be
    xp = be.xp
    if C._count == 0:  # nothing of C to combine with or keep: no bitmap of C is made
        accum, replace = None, True
    t_bits, t_vals = T._bitmap()
    if accum is None:
        z_bits, z_vals = t_bits, be.cast(t_vals, C.dtype)
        z_count = T._count
    elif be.adds_in_one_pass(accum) and accum.x_type == C.dtype == T.dtype:  # one kernel
        if mask is None and C._owns_bitmap(reading=(t_bits, t_vals)):  # into C: only T's positions are touched
            z_bits, z_vals = C._bm
            be.ewise_add_into(accum, z_bits, z_vals, t_bits, t_vals)
        else:
            c_bits, c_vals = C._bitmap()
            z_vals, z_bits = be.ewise_add(accum, c_bits, c_vals, t_bits, t_vals)
        z_count = _full_count(C, C, T)
    elif C._full and mask is None:  # C keeps every position; T's entries update theirs
        c_bits, c_vals = C._bitmap()
        z_bits, z_count = c_bits, C.size
        z_vals = be.cast(combine(be, accum, c_vals, t_vals, C.size), C.dtype)
        if not T._full:
            z_vals = xp.where(t_bits, z_vals, be.cast(c_vals, C.dtype))
    else:
        c_bits, c_vals = C._bitmap()
        both = combine(be, accum, c_vals, t_vals, C.size)
        z_vals = xp.where(c_bits & t_bits, be.cast(both, C.dtype),
                          xp.where(t_bits, be.cast(t_vals, C.dtype), be.cast(c_vals, C.dtype)))
        z_bits = c_bits | t_bits
        z_count = _full_count(C, C, T)
    inside = T._store.take_inside()  # the mark holds for this write only
    # A product that applied this mask itself (T._inside) left nothing for replace to drop.
    if mask is not None and not (replace and accum is None and inside is mask):
        if replace:
            z_bits, z_count = mask.allowed_bits_counted(be, z_bits)
        else:
            c_bits, c_vals = C._bitmap()
            z_bits, z_vals = be.select_bitmap(mask_bits(be, mask), z_bits, z_vals, c_bits, be.cast(c_vals, C.dtype))
            z_count = C.size if C._full and z_count == C.size else None
    # No copy: C's store counts the arrays it now shares with T's (or with C's own old
    # ones), and an array two stores hold is written in place by neither.
    C._set_bitmap(z_bits, z_vals, z_count)


def assign_scalar(C: Any, value: Any, mask: Mask, replace: bool) -> None:
    """``C(mask, replace) << s`` with no accumulator, for a Vector on bitmaps: ``s`` (already
    of C's type) where the mask allows, C's entries elsewhere (none under ``replace``)."""
    be = C._be
    m = mask_bits(be, mask)
    if replace:
        C._set_bitmap(m, be.full(C.size, value, C.dtype))
        return
    if C._owns_bitmap(reading=(m,)):  # written in place: a pass over the mask, not a copy of C
        bits, vals = C._bm
        be.set_where(m, value, bits, vals)
        C._set_bitmap(bits, vals, C.size if C._full else None)
        return
    c_bits, c_vals = C._bitmap()
    z_bits, z_vals = be.select_bitmap(m, None, value, c_bits, be.cast(c_vals, C.dtype))
    C._set_bitmap(z_bits, z_vals, C.size if C._full else None)


def _full_count(out: Any, *operands: Any, every: bool = False) -> int | None:
    """``out.size`` when the result is known to be full: when any operand is full (a union),
    or every one is (``every``, an intersection); else None (unknown)."""
    test = all if every else any
    return out.size if test(v._full for v in operands) else None


def ewise(a: Any, b: Any, op: TypedBinaryOp, out: DataType, union: bool,
          defaults: tuple[Any, Any] | None) -> Any:
    """eWiseAdd (``union``), eWiseMult or eWiseUnion (``defaults``) of two Vectors on bitmaps."""
    cls = type(a)  # (the operands' class: this module sits below vector.py and does not import it)
    be = a._be
    xp = be.xp
    a_bits, a_vals = a._bitmap()
    b_bits, b_vals = b._bitmap()
    if union and defaults is not None and not op.positional:  # one kernel
        vals, bits = be.ewise_union(op, a_bits, a_vals, b_bits, b_vals, *defaults)
        return cls._from_bitmap(be, out, a.size, bits, be.cast(vals, out), _full_count(a, a, b))
    if union and defaults is None and be.adds_in_one_pass(op) and a.dtype == b.dtype == op.x_type == out:
        vals, bits = be.ewise_add(op, a_bits, a_vals, b_bits, b_vals)  # one kernel
        return cls._from_bitmap(be, out, a.size, bits, vals, _full_count(a, a, b))
    both = be.cast(combine(be, op, a_vals, b_vals, a.size), out)
    if a._full and b._full:  # union and intersection alike: every position, no bit operations
        return cls._from_bitmap(be, out, a.size, a_bits, both, a.size)
    if not union:
        return cls._from_bitmap(be, out, a.size, a_bits & b_bits, both, _full_count(a, a, b, every=True))
    if defaults is None:
        lone_a, lone_b = be.cast(a_vals, out), be.cast(b_vals, out)
    else:
        left_default, right_default = defaults
        lone_a = be.cast(combine(be, op, a_vals, right_default, a.size), out)
        lone_b = be.cast(combine(be, op, left_default, b_vals, a.size), out)
    vals = xp.where(a_bits & b_bits, both, xp.where(a_bits, lone_a, lone_b))
    return cls._from_bitmap(be, out, a.size, a_bits | b_bits, vals, _full_count(a, a, b))


def ewise_union_into(C: Any, a: Any, b: Any, op: TypedBinaryOp, defaults: tuple[Any, Any]) -> bool:
    """``C << a.ewise_union(b, op, *defaults)`` computed into C's own bitmap (one kernel and no
    new arrays), where C is a Vector of ``op``'s output type that holds a bitmap nothing else
    refers to, is neither operand, and an operand is a bitmap; False, with nothing done,
    otherwise."""
    if (getattr(C, "kind", None) != "Vector" or C is a or C is b or op.positional
            or C.dtype != op.out_type or not wants_bitmap(a, b) or not C._owns_bitmap()):
        return False
    z_bits, z_vals = C._bm
    a_bits, a_vals = a._bitmap()
    b_bits, b_vals = b._bitmap()
    C._be.ewise_union(op, a_bits, a_vals, b_bits, b_vals, *defaults, out=(z_vals, z_bits))
    C._set_bitmap(z_bits, z_vals, _full_count(C, a, b))
    return True


def map_values(v: Any, f: Any, out: DataType) -> Any:
    """A Vector with ``v``'s structure and values ``f(be, dense values, positions)``."""
    be = v._be
    bits, vals = v._bitmap()

    def positions(keys: Any) -> Positions:  # only positional operators ask; keys are 0..size-1
        i = sp.arange(be.xp, v.size)
        return Positions(i, 0, i, 0)

    return type(v)._from_bitmap(be, out, v.size, bits, f(be, sp.Entries(None, vals), positions), v._count)


def keep_where(v: Any, keep: Any) -> Any:
    """``v`` restricted to the positions where ``keep`` is true (select)."""
    bits, vals = v._bitmap()
    return type(v)._from_bitmap(v._be, v.dtype, v.size, bits & keep, vals)


def add_reporting(C: Any, T: Any, accum: TypedBinaryOp, D: Any) -> bool:
    """``C(accum, changed=D) << T`` with no mask in one kernel, where ``accum`` adds in one
    pass and C, T and D share its type and an operand is a bitmap: C is written in place
    where it holds a bitmap alone (else new arrays), and so is D.  False, with nothing done,
    otherwise."""
    be = C._be
    if (T is D or not wants_bitmap(C, T) or not be.adds_in_one_pass(accum)
            or not accum.x_type == C.dtype == T.dtype == D.dtype):
        return False
    z = C._bm if T is not C and C._owns_bitmap() else None
    d = D._bm if D._owns_bitmap() else None
    c_bits, c_vals = C._bitmap()
    t_bits, t_vals = T._bitmap()
    z_bits, z_vals, d_bits, d_vals, count = be.ewise_add_changes(accum, c_bits, c_vals, t_bits, t_vals, z, d)
    C._set_bitmap(z_bits, z_vals, _full_count(C, C, T))
    D._set_bitmap(d_bits, d_vals, count)
    return True


def changes(C: Any, before: Any) -> tuple[Any, Any]:
    """(presence, values) of the entries of ``C`` that ``before`` (a Vector of C's type and
    size) lacks or holds with another value (a NaN matching a NaN)."""
    xp = C._be.xp
    now_bits, now_vals = C._bitmap()
    old_bits, old_vals = before._bitmap()
    same = now_vals == old_vals
    if now_vals.dtype.kind == "f":
        same |= xp.isnan(now_vals) & xp.isnan(old_vals)
    return now_bits & ~(old_bits & same), now_vals
