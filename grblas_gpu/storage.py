"""Storage: building sorted, duplicate-free entries from user input, and the store that owns
a Matrix's arrays (its CSR at rest, the forms derived from it, and what is shared)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from . import _sparse as sp
from .backends import get_backend
from .dtypes import DataType, cast_scalar, dtype_of_value, lookup_dtype
from .exceptions import DimensionMismatch, IndexOutOfBound, IndexTypeError, InvalidIndex, InvalidValue
from .operators import TypedBinaryOp, catalog, get_binary, typed_binary

_HOST_BUILD_MAX = 1 << 16  # entries; larger inputs are sorted on the object's own backend


def building_backend(be: Any, *inputs: Any) -> Any:
    """The backend to validate, sort and deduplicate user input on: the CPU when every input
    is a small host object (a few NumPy calls instead of a dozen kernel launches and read
    backs; a BFS source is one entry), else ``be``.  The result is moved to ``be`` after."""
    if be.name == "numpy":
        return be
    on_host = all(not hasattr(x, "__cuda_array_interface__") and np.size(x) <= _HOST_BUILD_MAX for x in inputs)
    return get_backend("numpy") if on_host else be


def host_array(be: Any, x: Any, dtype: Any, what: str) -> Any:
    """``x`` as a 1-D integer array of the backend (of ``dtype``; None: of any integer type),
    validated."""
    if isinstance(x, (list, tuple)) and x and all(type(i) is int for i in x):
        x = _exact_indices(x, what)  # NumPy alone would pass [0, 2**64 - 2] through float64
    arr = be.asarray(x)
    if isinstance(x, (list, tuple)) and arr.dtype.kind == "f":
        arr = arr.astype(np.int64)  # a Python list is cast, as NumPy casts (python-graphblas's rule)
    if arr.ndim != 1:
        raise InvalidIndex(f"{what} must be one-dimensional, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and bool(be.xp.all(arr == be.xp.trunc(arr))):
            return arr.astype(dtype or np.int64)
        raise IndexTypeError(f"{what} must be integers, not {arr.dtype}")
    if dtype is None:  # any integer type, the caller's array where it is one
        return arr if arr.dtype.kind in "iu" else arr.astype(np.int64)
    return arr.astype(dtype, copy=False)


def _exact_indices(x: Any, what: str) -> Any:
    """A list of Python ints as int64 exactly: past 2**63 InvalidValue, past 2**64 OverflowError
    (python-graphblas's classes)."""
    try:
        return np.array(x, dtype=np.int64)
    except OverflowError:
        big = np.array(x, dtype=np.uint64)  # raises OverflowError past 2**64
        raise InvalidValue(f"{what} must be below 2**63, got {int(big.max())}") from None


def infer_dtype(values: Any, dtype: Any) -> DataType:
    """The type of new entries: ``dtype`` if given, else that of ``values``."""
    if dtype is not None:
        return lookup_dtype(dtype)
    if hasattr(values, "require_value"):  # a Scalar
        return values.dtype
    if isinstance(values, (bool, int, float, np.generic)):
        return dtype_of_value(values)
    return lookup_dtype(np.asarray(values).dtype if not hasattr(values, "dtype") else values.dtype)


_PLAIN_NUMBERS = (bool, int, float)


def one_entry_index(indices: Any, values: Any, size: int, dup_op: Any) -> int | None:
    """The index of a Vector's one entry where the input is that plain case (a BFS source):
    one Python int in range of an int ``size``, one Python number (or a list of one) as the
    value, no ``dup_op``; else None (the general path builds it, with its checks).  The
    entry is then built without sorting or deduplicating, with the same results."""
    if indices.__class__ not in (list, tuple) or len(indices) != 1 or dup_op is not None or size.__class__ is not int:
        return None
    i = indices[0]
    if i.__class__ is not int or not 0 <= i < size:
        return None
    if values.__class__ in (list, tuple):
        if len(values) != 1 or values[0].__class__ not in _PLAIN_NUMBERS:
            return None
    elif values.__class__ not in _PLAIN_NUMBERS:
        return None
    return i


def one_entry_value(values: Any, t: DataType) -> np.ndarray:
    """The value of the one entry :func:`one_entry_index` accepted, as a NumPy array of one
    element of type ``t``, made as :func:`build_entries` makes values."""
    return _values_array(get_backend("numpy"), values, 1, t)


def build_entries(be: Any, coords: list[Any], dims: list[int], values: Any, t: DataType,
                  dup_op: Any) -> tuple[Any, ...]:
    """Validate, sort and deduplicate coordinates; returns (*sorted coords, values).

    Duplicates are an error unless ``dup_op`` combines them (in input order).
    """
    xp = be.xp
    n = len(coords[0])
    _check_lengths(coords, values)
    for c, d, name in zip(coords, dims, ("index", "column") if len(coords) == 2 else ("index",)):
        if n and (int(c.min()) < 0 or int(c.max()) >= d):
            bad = int(c[(c < 0) | (c >= d)][0])
            label = "row" if len(coords) == 2 and c is coords[0] else name
            raise IndexOutOfBound(f"{label} {bad} is out of range for dimension {d}")
    vals = _values_array(be, values, n, t)
    if n < 2:  # nothing to sort or combine (a BFS source); copies, as the sorted path makes
        return (*[c.astype(np.int64) for c in coords], vals.copy())
    # One stable sort (duplicates stay in input order for dup_op): of the indices, or of
    # packed row * ncols + col keys (a radix sort on the GPU; no stacked copies of the input).
    order = sort_pairs(xp, coords[0], coords[1], dims[0], dims[1]) if len(coords) == 2 else \
        stable_argsort(xp, coords[0])
    coords = [c[order].astype(np.int64, copy=False) for c in coords]
    vals = vals[order]
    del order
    dup = xp.ones(n - 1, dtype=bool)
    for c in coords:
        dup &= c[1:] == c[:-1]
    if not bool(dup.any()):
        return (*coords, vals)
    if dup_op is None:
        first = int(xp.flatnonzero(dup)[0])
        where = tuple(int(c[first]) for c in coords)
        raise InvalidValue(f"Duplicate indices found: an entry at {where[0] if len(where) == 1 else where}; pass dup_op= to combine duplicates")
    return _combine_duplicates(be, coords, vals, dup, t, dup_op)


def _check_lengths(coords: list[Any], values: Any) -> None:
    """Coordinates and values of one length (python-graphblas's words, then which differ)."""
    lengths = [len(c) for c in coords]
    shape = None if hasattr(values, "require_value") or np.ndim(values) == 0 else np.shape(values)
    if shape is not None and len(shape) == 1:
        lengths.append(shape[0])
    if len(set(lengths)) > 1:
        names = "`indices` and `values`" if len(coords) == 1 else "`rows` and `columns` and `values`"
        raise DimensionMismatch(f"{names} lengths must match: {', '.join(map(str, lengths))} (one value per "
                                "coordinate, or one value for all)")


def _values_array(be: Any, values: Any, n: int, t: DataType) -> Any:
    xp = be.xp
    if hasattr(values, "require_value"):
        values = values.require_value()
    if isinstance(values, (bool, int, float, np.generic)):
        return xp.full(n, cast_scalar(values, t), dtype=t.np_type)
    arr = be.asarray(exact_list(values, t))
    if arr.ndim != 1 or len(arr) != n:
        raise DimensionMismatch(f"values must be a scalar or a 1-D array of length {n}, got shape {arr.shape}")
    return be.cast(arr, t)


def exact_list(values: Any, t: DataType) -> Any:
    """A Python list of ints as an array of integer type ``t`` directly (NumPy alone would
    pass ``[2**53 + 1, 2**64 - 2]`` through float64 and lose digits)."""
    if t.is_integer and isinstance(values, (list, tuple)) and all(isinstance(v, int) for v in values):
        try:
            return np.array(values, dtype=t.np_type)
        except OverflowError:
            return values
    return values


def _combine_duplicates(be: Any, coords: list[Any], vals: Any, dup: Any, t: DataType, dup_op: Any) -> tuple[Any, ...]:
    xp = be.xp
    n = len(vals)
    flag = xp.ones(n, dtype=bool)
    flag[1:] = ~dup
    starts = xp.flatnonzero(flag).astype(np.int64)
    offsets = xp.concatenate([starts, xp.asarray([n], dtype=np.int64)])
    typed = typed_binary(dup_op, t)
    out_coords = [c[starts] for c in coords]
    if typed.name == "first":
        return (*out_coords, vals[starts])
    if typed.name == "second":
        return (*out_coords, vals[offsets[1:] - 1])
    mon = catalog.MONOID.get(typed.name)
    builtin = not isinstance(dup_op, TypedBinaryOp) and mon is not None and mon.binop is get_binary(dup_op)
    if builtin and mon is not None and typed.out_type == t and typed.x_type == t:
        return (*out_coords, be.segment_reduce(mon[t], vals, offsets))
    return (*out_coords, _left_fold(be, typed, vals, offsets, t))


def _left_fold(be: Any, op: Any, vals: Any, offsets: Any, t: DataType) -> Any:
    """Fold each segment left to right with a (maybe non-associative) operator."""
    xp = be.xp
    starts, counts = offsets[:-1], offsets[1:] - offsets[:-1]
    acc = vals[starts]
    for r in range(1, int(counts.max())):
        live = xp.flatnonzero(counts > r)
        acc[live] = be.cast(be.binary(op, be.cast(acc[live], op.x_type), be.cast(vals[starts[live] + r], op.y_type)), t)
    return acc


# ----------------------------------------------------------------------------- the store

_WIDE_POINTERS = [False]  # tests force int64 row pointers on small matrices (see wide_pointers)


@contextmanager
def wide_pointers() -> Iterator[None]:
    """Inside: every matrix made gets int64 row pointers, as one of 2**31 entries or more
    does (for tests of that path on small matrices)."""
    _WIDE_POINTERS.append(True)
    try:
        yield
    finally:
        _WIDE_POINTERS.pop()


def pointer_dtype(nnz: int) -> Any:
    """The type of row pointers to ``nnz`` entries: int32 where they fit, else int64."""
    return np.int64 if _WIDE_POINTERS[-1] else sp.index_dtype(nnz + 1)


class MatrixStore:
    """The arrays of one Matrix: what it holds at rest and the forms derived from them.

    At rest: the CSR (``ptr``, ``indices``, ``vals``), or, for a hypersparse matrix, the row
    of every entry (``rowidx``) in place of ``ptr``.  Nothing else is kept at rest.

    Derived forms are built by the Matrix on need and kept here until :meth:`drop_derived`
    or until the arrays change (a new store): the transpose, SpMV plans, row
    lengths (``derived``, keyed by what they are), and a hypersparse matrix's row pointers.
    A symmetric matrix (``symmetric`` True, declared or found) is its own transpose, so it
    never keeps one.

    ``shared``: whether the at-rest arrays are also the caller's (given to a constructor or
    handed out by an export).  The library never writes an array of a store in place, shared
    or not; a NumPy array that is shared is made read-only, so a write by the caller raises
    instead of changing the matrix silently.
    """

    __slots__ = ("ptr", "rowidx", "indices", "vals", "shared", "derived", "transpose", "symmetric", "ptr_built")

    def __init__(self, ptr: Any, rowidx: Any, indices: Any, vals: Any, *, shared: bool = False,
                 symmetric: bool | None = None) -> None:
        self.ptr, self.rowidx, self.indices, self.vals = ptr, rowidx, indices, vals
        self.shared = shared
        self.symmetric = symmetric
        self.derived: dict[Any, Any] = {}
        self.transpose: Any = None
        self.ptr_built = False  # ptr derived from rowidx (a hypersparse matrix's, on need)

    def at_rest(self) -> list[Any]:
        """The arrays held at rest."""
        first = self.rowidx if self.rowidx is not None else self.ptr
        return [a for a in (first, self.indices, self.vals) if a is not None]

    def nbytes_at_rest(self) -> int:
        """Bytes of the arrays held at rest."""
        return sum(int(a.nbytes) for a in self.at_rest())

    def nbytes_derived(self, seen: set[Any] | None = None) -> int:
        """Bytes of the derived forms now kept (arrays the at-rest ones view are not counted;
        nor, with ``seen``, those counted already)."""
        seen = set() if seen is None else seen
        seen.add(id(self))
        seen.update(_memory_key(a) for a in self.at_rest())
        parts = [self.derived, self.transpose] + ([self.ptr] if self.ptr_built else [])
        return sum(_nbytes(p, seen) for p in parts)

    def drop_derived(self) -> None:
        """Forget every derived form (each is built again on next need)."""
        self.derived.clear()
        self.transpose = None
        if self.ptr_built:
            self.ptr, self.ptr_built = None, False


def _memory_key(a: Any) -> tuple[int, int]:
    """Where an array's memory lies: (address, bytes)."""
    data = getattr(a, "data", None)
    ptr = getattr(data, "ptr", None)  # a CuPy array
    if ptr is None:
        ptr = a.__array_interface__["data"][0]
    return int(ptr), int(a.nbytes)


def _nbytes(obj: Any, seen: set[Any]) -> int:
    """Bytes of the arrays reachable from ``obj`` (each block counted once)."""
    if obj is None or isinstance(obj, (int, float, str, bool, bytes)):
        return 0
    array = hasattr(obj, "nbytes") and hasattr(obj, "__array_interface__") or hasattr(obj, "__cuda_array_interface__")
    if array and not hasattr(obj, "_store"):  # (a GPU Vector kept as a derived form has the interface too)
        key = _memory_key(obj)
        if key in seen:
            return 0
        seen.add(key)
        return int(obj.nbytes)
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    if isinstance(obj, dict):
        return sum(_nbytes(v, seen) for v in obj.values())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return sum(_nbytes(v, seen) for v in obj)
    store = getattr(obj, "_store", None)
    if isinstance(store, MatrixStore):  # a Matrix (a transpose): its arrays, each counted once
        if id(store) in seen:
            return 0
        rest = sum(_nbytes(a, seen) for a in store.at_rest())
        return rest + store.nbytes_derived(seen)
    if isinstance(store, VectorStore):  # a Vector: the forms it holds
        return _nbytes([store.sparse, store.bitmap], seen)
    if hasattr(obj, "__dataclass_fields__"):  # a backend's plan and the like
        return sum(_nbytes(getattr(obj, f, None), seen) for f in obj.__dataclass_fields__)
    return 0  # kernels, operators, backends: not this matrix's memory


# ----------------------------------------------------------------------------- Vector, Scalar

# Which arrays stores hold, and how many stores hold each: a store may write an array in
# place only where it is the one holder.  Counted by the stores themselves (an array, and
# each array it views, counted once per store that holds it; the count drops when the store
# lets the array go or is collected), never by the interpreter's reference counts.
_HOLDERS: dict[int, int] = {}
# Held arrays that something other than a store holds too (a Matrix's cached forms, a
# DLPack consumer): never written in place while a store holds them.
_HELD_ELSEWHERE: set[int] = set()


def _memory_chain(a: Any) -> Iterator[int]:
    """Ids of ``a`` and of every array (or buffer) whose memory it views."""
    while a is not None:
        yield id(a)
        a = getattr(a, "base", None)


def _take(arrays: tuple[Any, ...]) -> None:
    for a in arrays:
        for key in _memory_chain(a):
            _HOLDERS[key] = _HOLDERS.get(key, 0) + 1


def _let_go(arrays: tuple[Any, ...]) -> None:
    for a in arrays:
        for key in _memory_chain(a):
            left = _HOLDERS.get(key, 1) - 1
            if left:
                _HOLDERS[key] = left
            else:
                _HOLDERS.pop(key, None)
                _HELD_ELSEWHERE.discard(key)


def _alone(be: Any, a: Any) -> bool:
    """Whether ``a`` may be written in place by the one store that holds it: one block of its
    own (not a view), held by no other store and by nothing outside the stores."""
    key = id(a)
    return _HOLDERS.get(key) == 1 and key not in _HELD_ELSEWHERE and be.owns_block(a)


class VectorStore:
    """The arrays of one Vector: its forms, its count of entries, and what it shares.

    Forms: ``sparse`` (sorted int64 indices, values) and ``bitmap`` (presence, dense values);
    at least one is set, and each is derived from the other on need (:meth:`sparse_form`,
    :meth:`bitmap_form`), except for a Vector of one entry made on the host (a BFS's source),
    which may hold only ``entry``: (index, a NumPy array of its one value), moved to the
    device as the sparse form the first time a form is asked for (:meth:`set_entry`; a
    frontier loop reads it without the move).  ``count``: the number of entries where known
    (an int, or a count the device is still making that ``int()`` reads), else None.
    ``weight``: (weak reference to a matrix M, the summed lengths of M's rows that the
    entries index), queued by the product that made the entries (see ops.multiply);
    ``inside``: the Mask a product applied itself (the write that follows need not apply it
    again; read once, then cleared).  Both are dropped with the forms.

    Sharing is explicit: every array a store holds is counted as held by it, so arrays pass
    between Vectors freely (``u << v`` shares v's arrays with u, as does a result that keeps
    its operand's presence), and :meth:`writable` tells whether this store alone holds its
    bitmap, the one condition for a write in place.  Arrays that something other than a store
    keeps too are named when they are set (``also_held``) and are never written in place.
    """

    __slots__ = ("sparse", "bitmap", "entry", "count", "weight", "inside", "_held")

    def __init__(self) -> None:
        self.sparse: tuple[Any, Any] | None = None
        self.bitmap: tuple[Any, Any] | None = None
        self.entry: tuple[int, np.ndarray] | None = None
        self.count: Any = None
        self.weight: Any = None
        self.inside: Any = None
        self._held: tuple[Any, ...] = ()

    def __del__(self) -> None:
        try:
            _let_go(self._held)
        except (TypeError, AttributeError):  # at interpreter exit the module's globals may be gone
            pass

    def __getstate__(self) -> dict[str, Any]:
        """For pickling: the forms and the count (read), not the weight or the mark."""
        count = None if self.count is None else int(self.count)
        return {"sparse": self.sparse, "bitmap": self.bitmap, "entry": self.entry, "count": count}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.sparse, self.bitmap, self.count = state["sparse"], state["bitmap"], state["count"]
        self.entry = state.get("entry")
        self.weight = self.inside = None
        self._held = ()
        self._hold_forms()

    def _hold_forms(self, also_held: tuple[Any, ...] = ()) -> None:
        """Count the arrays of the forms now set as held here (and let go of those no longer)."""
        new = (self.sparse or ()) + (self.bitmap or ())
        _take(new)
        for a in also_held:
            if any(a is h for h in new):  # (an array not held here is no store's to mark)
                _HELD_ELSEWHERE.update(_memory_chain(a))
        old, self._held = self._held, new
        _let_go(old)

    # ------------------------------------------------------------ setting the forms
    def set_entry(self, index: int, value: np.ndarray) -> None:
        """Hold one entry on the host alone: ``index`` and ``value``, a NumPy array of one
        element of the Vector's type (no device work until a form is asked for)."""
        self.sparse, self.bitmap, self.entry = None, None, (index, value)
        self.count, self.weight, self.inside = 1, None, None
        self._hold_forms()

    def set_sparse(self, idx: Any, vals: Any) -> None:
        """Hold (indices, values) alone: the bitmap, the weight and the mark are dropped."""
        self.sparse, self.bitmap, self.entry = (idx, vals), None, None
        self.count, self.weight, self.inside = int(idx.shape[0]), None, None
        self._hold_forms()

    def set_bitmap(self, bits: Any, vals: Any, count: Any = None, also_held: tuple[Any, ...] = ()) -> None:
        """Hold (presence, values) alone; ``count``, when the caller knows it, spares a count
        on the device; ``also_held``: those of the arrays that something other than a store
        keeps too (a Matrix's cached forms), never to be written in place."""
        self.sparse, self.bitmap, self.entry = None, (bits, vals), None
        self.count, self.weight, self.inside = count, None, None
        self._hold_forms(also_held)

    def share(self, other: VectorStore) -> None:
        """Hold ``other``'s forms and count too (neither is then written in place)."""
        self.sparse, self.bitmap, self.count = other.sparse, other.bitmap, other.count
        self.entry = other.entry
        self.weight, self.inside = None, None
        self._hold_forms()

    def export_values(self, be: Any) -> Any:
        """The bitmap's values for a consumer outside the library (DLPack): a view of them,
        which the store holds from now on in their place, so they are never written in place
        while the consumer may read them."""
        assert self.bitmap is not None  # (the caller made the bitmap)
        bits, vals = self.bitmap
        if be.owns_block(vals):
            vals = vals.view()
            self.bitmap = (bits, vals)
        self._hold_forms(also_held=(vals,))  # (the view and the memory it views: the consumer's too)
        return vals

    def mark_inside(self, mask: Any) -> None:
        """Mark the entries as lying inside ``mask`` (a product applied it itself)."""
        self.inside = mask

    def take_inside(self) -> Any:
        """The mask the entries lie inside, or None; the mark holds for one write only."""
        inside, self.inside = self.inside, None
        return inside

    def queue_weight(self, be: Any, matrix_ref: Any, row_lengths: Any) -> None:
        """Queue on the device the count of the bitmap's entries, then the sum of
        ``row_lengths`` at them (kept, with ``matrix_ref``, as the weight)."""
        assert self.bitmap is not None  # (the caller checked)
        self.count = be.count_ahead(self.count, self.bitmap[0])
        weight = be.sum_selected_queued(row_lengths, self.bitmap[0])
        if weight is not None:
            self.weight = (matrix_ref, weight)

    # ------------------------------------------------------------ reading
    def sparse_form(self, be: Any) -> tuple[Any, Any]:
        """(sorted int64 indices, values), derived from the bitmap or moved from the entry on
        the host (and kept) if needed."""
        if self.sparse is None and self.bitmap is None:
            assert self.entry is not None  # (one form is always set)
            index, value = self.entry
            self.sparse = (be.asarray(np.array([index], dtype=np.int64)), be.asarray(value.copy()))
            self._hold_forms()
        elif self.sparse is None:
            assert self.bitmap is not None
            bits, vals = self.bitmap
            idx = be.xp.flatnonzero(bits).astype(np.int64)
            self.sparse = (idx, vals[idx])
            self.count = int(idx.shape[0])
            self._hold_forms()
        return self.sparse

    def bitmap_form(self, be: Any, size: int) -> tuple[Any, Any]:
        """(presence, dense values), derived from the sparse form (and kept) if needed."""
        if self.bitmap is None:
            self.bitmap = be.bitmap_of(*self.sparse_form(be), size)
            self._hold_forms()
        return self.bitmap

    def nvals(self, be: Any) -> int:
        """The number of entries (a count on the device where no form tells it)."""
        count = self.count
        if count.__class__ is int:
            return count
        if count is not None:  # a NumPy integer, or a count a kernel writes as it makes the bitmap
            count = int(count)
        elif self.sparse is not None:
            count = int(self.sparse[0].shape[0])
        else:
            assert self.bitmap is not None
            count = be.count_true(self.bitmap[0])
        self.count = count
        return count

    def writable(self, be: Any, dtype: Any, values_only: bool = False, reading: tuple[Any, ...] = ()) -> bool:
        """Whether the bitmap of values of ``dtype`` may be written in place: this store
        alone holds it (see the class notes), and no array in ``reading`` (the operation's
        inputs) is one of its own.  ``values_only``: the presence array may be shared (for a
        write that changes values only)."""
        bm = self.bitmap
        if bm is None or bm[1].dtype != dtype or not _alone(be, bm[1]) or not (values_only or _alone(be, bm[0])):
            return False
        return not any(r is bm[0] or r is bm[1] for r in reading)

    def nbytes(self) -> int:
        """Bytes of the arrays held (an array held in both forms counted once)."""
        return _nbytes([self.sparse, self.bitmap], set())


class ScalarStore:
    """The value of one Scalar: on the host (a NumPy scalar), or on the device (a 1-element
    array not yet read back), or none."""

    __slots__ = ("host", "device")

    def __init__(self) -> None:
        self.host: Any = None
        self.device: Any = None

    def set(self, value: Any) -> None:
        """Hold ``value`` (a NumPy scalar of the Scalar's type, or None: empty) on the host."""
        self.host, self.device = value, None

    def hold(self, values: Any) -> None:
        """Hold the value of a 1-element backend array, not read back."""
        self.host, self.device = None, values

    def read(self, be: Any) -> Any:
        """The value as a NumPy scalar (read back from the device first if held there)."""
        if self.device is not None:
            self.host = be.to_host(self.device.reshape(1))[0]
            self.device = None
        return self.host

    def on_device(self) -> Any:
        """The value as a 0-d backend array when it has not been read back, else None."""
        return None if self.device is None else self.device.reshape(())

    @property
    def is_empty(self) -> bool:
        """True when no value is held."""
        return self.host is None and self.device is None


# ----------------------------------------------------------------------------- sharing


def holds_safely(be: Any, a: Any, copy: bool | None) -> Any:
    """``a`` (an array of the backend) as a store may hold it: ``a`` itself where it may be
    shared, else a copy.

    ``copy=None``: a C-contiguous NumPy array is shared and made read-only, with every array
    it views (its chain of bases), so that a write through them raises ValueError instead of
    changing the matrix silently; one whose memory belongs to a writeable non-NumPy buffer
    (a bytearray, a writeable memory map, another library's tensor) is copied.  Views made
    of the same memory before the call keep their own flags, so a caller who holds such a
    view and means to write it passes ``copy=True``.  A CuPy array is copied (it cannot be
    made read-only).  ``copy=False``: as None, but CuPy arrays are shared too (the caller
    must not write them).  ``copy=True``: always a copy."""
    if copy:
        return be.copy(a)
    if isinstance(a, np.ndarray):
        if not a.flags.c_contiguous:
            return a.copy()
        chain = []
        b: Any = a
        while isinstance(b, np.ndarray):
            chain.append(b)
            b = b.base
        if b is not None and not _read_only_buffer(b):
            return a.copy()
        for x in chain:
            x.flags.writeable = False
        return a
    return a if copy is False and a.flags.c_contiguous else be.copy(a)


def _read_only_buffer(b: Any) -> bool:
    """Whether a buffer that an array views (not an array) cannot be written."""
    try:
        return bool(memoryview(b).readonly)
    except TypeError:
        return False


def read_only(a: Any) -> Any:
    """A NumPy array that a store holds, made read-only for handing out: the array itself
    when it owns its memory (the store never writes it anyway), else a read-only view.
    Others are returned as they are."""
    if isinstance(a, np.ndarray) and a.flags.writeable:
        if a.base is None:
            a.flags.writeable = False
            return a
        a = a.view()
        a.flags.writeable = False
    return a


# ----------------------------------------------------------------------------- CSR input


def index_input(be: Any, x: Any, what: str) -> Any:
    """``x`` as a 1-D integer array of the backend, int32 or int64 (the caller's own array
    where it already is one)."""
    arr = host_array(be, x, None, what)
    return arr if arr.dtype in (np.int32, np.int64) else arr.astype(np.int64)


def csr_input(be: Any, indptr: Any, indices: Any, values: Any, ncols: int | None, t: DataType,
              copy: bool | None, hold: bool = True) -> tuple[Any, Any, Any, int, bool]:
    """CSR arrays a store may hold, from a caller's: (ptr, indices, values, ncols, shared).

    One vectorised pass validates them: pointers start at 0, never decrease and end at the
    number of indices; indices lie in ``[0, ncols)`` and increase strictly within each row.
    Sorted input is taken as it is (shared where the types match: see :func:`holds_safely`);
    only the rows that are out of order are sorted, in a copy.  A repeated column in a row
    raises InvalidValue.  ``hold=False``: the arrays are only read (for a matrix made from
    them at once, such as a transpose), so the caller's are neither frozen nor copied."""
    ptr, idx = index_input(be, indptr, "indptr"), index_input(be, indices, "col_indices")
    xp = be.xp
    nnz = int(idx.shape[0])
    if len(ptr) == 0 or int(ptr[0]) != 0 or bool((ptr[1:] < ptr[:-1]).any()):
        raise InvalidValue("indptr must start at 0 and never decrease")
    if int(ptr[-1]) != nnz:
        raise DimensionMismatch(f"indptr ends at {int(ptr[-1])} but there are {nnz} column indices")
    lo, hi = (int(idx.min()), int(idx.max())) if nnz else (0, -1)
    ncols = hi + 1 if ncols is None else ncols
    if lo < 0 or hi >= ncols:
        raise IndexOutOfBound(f"column {lo if lo < 0 else hi} is out of range for dimension {ncols}")
    vals = _values_array(be, values, nnz, t)
    mine = {id(a) for a in (ptr, idx, vals)} - {id(indptr), id(indices), id(values)}
    if idx.dtype != sp.index_dtype(ncols):
        idx = idx.astype(sp.index_dtype(ncols))
        mine.add(id(idx))
    if id(ptr) in mine or (ptr.dtype == np.int32 and _WIDE_POINTERS[-1]):
        ptr = ptr.astype(pointer_dtype(nnz), copy=False)
        mine.add(id(ptr))
    unsorted = _unsorted_rows(xp, ptr, idx)
    if unsorted is not None:
        idx, vals = _sort_rows(be, ptr, idx, vals, unsorted, ncols, mine)
        mine.update((id(idx), id(vals)))
    held = [a if id(a) in mine or not hold else holds_safely(be, a, copy) for a in (ptr, idx, vals)]
    shared = any(h is a and id(a) not in mine for h, a in zip(held, (ptr, idx, vals)))
    return held[0], held[1], held[2], ncols, shared


def _unsorted_rows(xp: Any, ptr: Any, idx: Any) -> Any:
    """The rows whose indices do not increase strictly, or None when there are none."""
    nnz = int(idx.shape[0])
    if nnz < 2:
        return None
    rises = idx[1:] > idx[:-1]
    starts = ptr[1:-1]
    starts = starts[(starts > 0) & (starts < nnz)]
    rises[starts - 1] = True  # a row's first index is compared with nothing
    if bool(rises.all()):
        return None
    falls = xp.flatnonzero(~rises)
    del rises
    return xp.unique(xp.searchsorted(ptr, falls, side="right") - 1)


def _sort_rows(be: Any, ptr: Any, idx: Any, vals: Any, rows: Any, ncols: int, mine: set[int]) -> tuple[Any, Any]:
    """``idx`` and ``vals`` with the entries of ``rows`` sorted by column (in copies unless
    they are the library's own); a column repeated in a row raises InvalidValue."""
    xp = be.xp
    p64 = ptr.astype(np.int64, copy=False)
    starts = p64[rows]
    request, pos = sp.expand_ranges(xp, starts, p64[rows + 1] - starts)
    cols = idx[pos].astype(np.int64)
    order = sort_pairs(xp, request, cols, len(rows), ncols)
    cols, request = cols[order], request[order]
    same = (cols[1:] == cols[:-1]) & (request[1:] == request[:-1])
    if bool(same.any()):
        k = int(xp.flatnonzero(same)[0])
        raise InvalidValue(f"duplicate entry at ({int(rows[request[k]])}, {int(cols[k])})")
    idx = idx if id(idx) in mine else idx.copy()
    vals = vals if id(vals) in mine else vals.copy()
    idx[pos] = cols.astype(idx.dtype)
    vals[pos] = vals[pos[order]]
    return idx, vals


def sort_pairs(xp: Any, major: Any, minor: Any, nmajor: int, nminor: int) -> Any:
    """The stable permutation sorting (major, minor) pairs: one sort of packed keys
    ``major * nminor + minor`` where they fit in int64 (a radix sort on the GPU), else a
    lexicographic sort of both."""
    if len(major) == 0:
        return xp.zeros(0, dtype=np.int64)
    if nmajor * max(nminor, 1) <= sp.INT64_MAX:
        key = major.astype(np.int64)  # a copy, made the key in place
        key *= nminor
        key += minor
        return stable_argsort(xp, key)
    return sp.lexsort_pairs(xp, major, minor)


def stable_argsort(xp: Any, key: Any) -> Any:
    """The stable sorting permutation of ``key`` (CuPy's sort is a radix sort, stable)."""
    return xp.argsort(key, kind="stable") if xp is np else xp.argsort(key)
