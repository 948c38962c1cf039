"""Vector: a sparse vector stored as sorted indices and their values."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _sparse as sp
from ._compat_methods import (
    _given_dtype,
    coo_values,
    dense_type,
    from_dict,
    from_pairs,
    is_dtype_like,
    named,
    require_scalar_value,
    scalar_dup_op,
)
from ._operations import bind_result_type, operations
from .backends import get_backend
from .collection import Collection
from .dtypes import BOOL, FP64, DataType, cast_scalar, lookup_dtype
from .exceptions import DimensionMismatch, FillValueRequired, InvalidValue, NoValue
from .expressions import Expression, Updater
from .indexing import resolve_index, resolve_scalar_index
from .limits import check_dimension, require_bytes
from .matrix import _present
from .operators.base import Positions
from .scalar import Scalar
from .storage import (
    VectorStore,
    build_entries,
    building_backend,
    exact_list,
    host_array,
    infer_dtype,
    one_entry_index,
    one_entry_value,
)


class Vector(Collection):
    """A sparse vector of ``size`` positions; a missing entry is not zero.

    Storage: sorted indices and values ("sparse"), or a presence array and a dense
    value array ("bitmap"), or both; each is derived from the other on first need.
    Operations on dense vectors (PageRank's, a pull frontier) work on the bitmap and
    avoid sorting and host round trips.  A :class:`~grblas_gpu.storage.VectorStore` holds
    the forms and says when they may be written in place.
    """

    kind = "Vector"
    _store: VectorStore

    def __init__(self, dtype: Any = FP64, size: int = 0, *, backend: str | None = None,
                 name: str | None = None) -> None:
        self._describe(get_backend(backend), _given_dtype(dtype), size, name)
        self._store = VectorStore()
        self._set_sparse(_empty_array(self._be, _INT64), _empty_array(self._be, self._dtype.np_type))

    def _describe(self, be: Any, dtype: Any, size: int, name: str | None) -> None:
        """Set the backend, type, size and name (everything but the storage)."""
        self._be = be
        self._dtype = lookup_dtype(dtype)
        self._size = _check_size(size)
        self.name = name

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_coo(cls, indices: Any, values: Any = 1.0, size_or_dtype: Any = None, *, size: int | None = None,
                 dtype: Any = None, dup_op: Any = None, backend: str | None = None,
                 name: str | None = None) -> Vector:
        """A Vector from indices and values (a scalar value is given to every entry).  The
        third positional argument may be the type, as in python-graphblas
        (``Vector.from_coo(indices, values, INT64, size=5)``)."""
        if size_or_dtype is not None:
            if is_dtype_like(size_or_dtype):
                dtype = size_or_dtype
            else:
                size = size_or_dtype
        if hasattr(backend, "vector_from_coo"):  # a distributed Matrix's placement (grblas_gpu.dask)
            return backend.vector_from_coo(indices, values, size, dtype=dtype, dup_op=dup_op, name=name)  # type: ignore[union-attr]
        be = get_backend(backend)
        if size is not None and (i := one_entry_index(indices, values, size, dup_op)) is not None:
            # one plain entry (a BFS source): no sort, no dedup, kept on the host until needed
            v = cls._without_storage(be, infer_dtype(values, dtype), size, name)
            v._store.set_entry(i, one_entry_value(values, v._dtype))
            return v
        build = building_backend(be, indices, values)
        idx = host_array(build, indices, np.int64, "indices")
        t = infer_dtype(values, dtype)
        if size is None:
            if not len(idx):
                raise InvalidValue("No indices provided. Unable to infer size.")
            size = int(idx.max()) + 1
        v = cls._without_storage(be, t, size, name)
        keys, vals = build_entries(build, [idx], [v._size], values, t, scalar_dup_op(values, dup_op))
        v._set_sparse(be.asarray(keys), be.asarray(vals))
        return v

    @classmethod
    def from_dense(cls, values: Any, missing_value: Any = None, *, dtype: Any = None,
                   backend: str | None = None, name: str | None = None) -> Vector:
        """A Vector with an entry at every position, except where the value is ``missing_value``."""
        be = get_backend(backend)
        try:
            arr = be.asarray(exact_list(values, lookup_dtype(dtype)) if dtype is not None else values)
        except (ValueError, TypeError) as exc:  # a ragged list, or values that are not numbers
            raise InvalidValue(f"from_dense needs a 1-D array of numbers: {exc}") from None
        if arr.ndim != 1:
            raise DimensionMismatch(f"from_dense needs a 1-D array for a Vector: array must be 1d, got shape "
                                    f"{arr.shape}")
        t = lookup_dtype(dtype) if dtype is not None else lookup_dtype(arr.dtype)
        v = cls(t, arr.shape[0], backend=be.name, name=name)
        keep = _present(be.xp, arr, missing_value)
        v._set_bitmap(keep, be.cast(arr, t).copy(), v._size if missing_value is None else None)
        return v

    @classmethod
    def from_scalar(cls, value: Any, size: int, dtype: Any = None, *, backend: str | None = None,
                    name: str | None = None) -> Vector:
        """A full Vector with every entry equal to ``value``."""
        if hasattr(backend, "vector_from_scalar"):  # a distributed Matrix's placement (grblas_gpu.dask)
            return backend.vector_from_scalar(value, size, dtype, name=name)  # type: ignore[union-attr]
        require_scalar_value(value)
        be = get_backend(backend)
        t = infer_dtype(value, dtype)
        v = cls._without_storage(be, t, size, name)
        v._set_bitmap(be.full(v._size, True, BOOL), be.full(v._size, _plain(value), t), v._size)
        return v

    @classmethod
    def from_dlpack(cls, x: Any, *, dtype: Any = None, backend: str | None = None, copy: bool | None = None,
                    name: str | None = None) -> Vector:
        """A full Vector over a 1-D array of any DLPack producer: a torch tensor, a CuPy or
        NumPy array, a JAX array.

        The backend is the array's device (CUDA: "cupy", CPU: "numpy") unless ``backend``
        names another (then the values are copied there).  Where the device and type match,
        the Vector views the producer's memory, not a copy (``copy=True`` copies): the library
        never writes that memory in place, but a write through the producer changes the
        Vector's values.  ``dtype`` casts (a copy).
        """
        device = x.__dlpack_device__()[0] if hasattr(x, "__dlpack_device__") else 1
        be = get_backend(backend if backend is not None else ("numpy" if device == 1 else "cupy"))
        try:
            arr = be.xp.from_dlpack(x)
        except (BufferError, RuntimeError, TypeError, ValueError):  # on another device
            arr = be.asarray(np.from_dlpack(x) if device == 1 else _cupy_from_dlpack(x))
        if arr.ndim != 1:
            raise DimensionMismatch(f"from_dlpack needs a 1-D array for a Vector, got shape {arr.shape}")
        t = lookup_dtype(dtype) if dtype is not None else lookup_dtype(arr.dtype)
        vals = be.cast(arr, t)
        if copy or not vals.flags.c_contiguous:
            vals = be.xp.ascontiguousarray(vals).copy()
        elif vals is arr:
            vals = vals.view()  # a view: never taken for the library's in-place writes
        v = cls._without_storage(be, t, arr.shape[0], name)
        v._set_bitmap(be.full(v._size, True, BOOL), vals, v._size)
        return v

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        """The values of a full Vector, for ``torch.from_dlpack``, ``cupy.from_dlpack``,
        ``numpy.from_dlpack``: the Vector's own memory, not a copy (unless ``copy``).  The
        library never writes it in place afterwards (a later write to the Vector makes new
        arrays), so the consumer's array keeps today's values; a write through the consumer
        changes the Vector.  A Vector with a missing entry raises NoValue."""
        if self.nvals != self._size:
            raise NoValue(f"{self._size - self.nvals} entries are missing; only a full Vector exports by DLPack")
        vals = self._bitmap()[1]
        vals = self._be.copy(vals) if copy else self._store.export_values(self._be)
        kwargs = {k: a for k, a in (("stream", stream), ("max_version", max_version), ("dl_device", dl_device))
                  if a is not None}
        return vals.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        """(DLPack device type, device id) of the values: (1, 0) on the CPU, (2, id) on a GPU."""
        return self._be.xp.empty(0, dtype=np.int8).__dlpack_device__()

    @classmethod
    def _without_storage(cls, be: Any, dtype: Any, size: int, name: str | None = None) -> Vector:
        """A Vector whose storage the caller sets next: ``__init__`` less its empty arrays
        (the internal constructors below run once or more per statement)."""
        v = cls.__new__(cls)
        v._describe(be, dtype, size, name)
        v._store = VectorStore()
        return v

    @classmethod
    def _from_parts(cls, be: Any, dtype: DataType, size: int, idx: Any, vals: Any) -> Vector:
        v = cls._without_storage(be, dtype, size)
        v._set_sparse(idx.astype(np.int64, copy=False), be.cast(vals, dtype))
        return v

    @classmethod
    def _from_bitmap(cls, be: Any, dtype: DataType, size: int, bits: Any, vals: Any,
                     count: Any = None, also_held: tuple[Any, ...] = ()) -> Vector:
        """A Vector from a presence array and dense values (values where absent are ignored);
        ``count``, when known, is the number of true bits (an int, or a count the device is
        still making that ``int()`` reads: see ``nvals``); ``also_held``: as for
        :meth:`_set_bitmap`."""
        v = cls._without_storage(be, dtype, size)
        v._set_bitmap(bits, be.cast(vals, dtype), count, also_held)
        return v

    # ---------------------------------------------------------------- storage forms
    def _set_sparse(self, idx: Any, vals: Any) -> None:
        self._store.set_sparse(idx, vals)

    def _set_bitmap(self, bits: Any, vals: Any, count: Any = None, also_held: tuple[Any, ...] = ()) -> None:
        """Hold the bitmap (presence, values) alone.  ``count`` (true bits), when the caller
        knows it, spares nvals a count on the device; ``also_held``: those arrays that
        something other than a Vector keeps too (a Matrix's cached forms)."""
        self._store.set_bitmap(bits, vals, count, also_held)

    def _sparse(self) -> tuple[Any, Any]:
        """(sorted int64 indices, values), derived from the bitmap if needed."""
        return self._store.sparse_form(self._be)

    def _bitmap(self) -> tuple[Any, Any]:
        """(presence, dense values), derived from the sparse form if needed; for reading
        within an operation (one that keeps them puts them in a Vector, which counts them)."""
        return self._store.bitmap_form(self._be, self._size)

    def _owns_bitmap(self, values_only: bool = False, reading: tuple[Any, ...] = ()) -> bool:
        """Whether this Vector holds a bitmap of its own type that nothing else holds (no other
        Vector, cache or caller, and no array whose memory it views) and that is none of the
        arrays in ``reading``: only then may it be written in place (see
        :meth:`VectorStore.writable`).  ``values_only``: the presence array may be shared (for
        a write that changes values only)."""
        return self._store.writable(self._be, self._dtype.np_type, values_only, reading)

    @property
    def _sp(self) -> tuple[Any, Any] | None:
        """The sparse form (indices, values) where held (a one entry kept on the host is
        moved to the device for it), else None."""
        store = self._store
        return store.sparse if store.entry is None else self._sparse()

    def _host_entry(self) -> tuple[int, np.ndarray] | None:
        """The one entry (index, a NumPy array of its value) where it is kept on the host (see
        :class:`~grblas_gpu.storage.VectorStore`), else None."""
        return self._store.entry

    @property
    def _bm(self) -> tuple[Any, Any] | None:
        """The bitmap form (presence, values) where held, else None."""
        return self._store.bitmap

    @property
    def _count(self) -> Any:
        """The number of entries where known without a read (an int, or a count the device is
        making), else None."""
        return self._store.count

    @property
    def _weight(self) -> Any:
        """(weak reference to a matrix M, the summed lengths of M's rows that the entries
        index, on the device) where a product queued it, else None."""
        return self._store.weight

    @property
    def _inside(self) -> Any:
        """The Mask a product that made these entries applied itself, else None."""
        return self._store.inside

    @property
    def _idx(self) -> Any:
        return self._sparse()[0]

    @property
    def _vals(self) -> Any:
        return self._sparse()[1]

    @property
    def _full(self) -> bool:
        """True when every position is known to hold an entry (no device read to find out)."""
        return self._count == self._size

    @property
    def _is_bitmap(self) -> bool:
        """True when the bitmap form is at hand (no conversion needed)."""
        return self._bm is not None

    # ---------------------------------------------------------------- properties
    @property
    def size(self) -> int:
        """Number of positions."""
        return self._size

    @property
    def shape(self) -> tuple[int]:
        """``(size,)``."""
        return (self._size,)

    @property
    def nvals(self) -> int:
        """Number of stored entries."""
        count = self._store.count
        if count.__class__ is int:
            return count
        return self._store.nvals(self._be)

    # ---------------------------------------------------------------- export
    def to_coo(self, dtype: Any = None, *, indices: bool = True, values: bool = True,
               sort: bool = True) -> tuple[Any, Any]:
        """(indices, values) as NumPy arrays, indices ascending; a part not asked for
        (``values=False``) is None, and ``dtype`` casts the values."""
        return (self._be.to_host(self._idx).copy() if indices else None,
                coo_values(self._be.to_host(self._vals), dtype) if values else None)

    def to_dense(self, fill_value: Any = None, dtype: Any = None) -> np.ndarray:
        """A dense NumPy array; missing entries get ``fill_value`` (required if any are missing;
        without ``dtype`` the array's type holds both)."""
        t = dense_type(self._dtype, fill_value, dtype)
        if fill_value is None and self.nvals < self._size:
            raise FillValueRequired(f"fill_value must be given: {self._size - self.nvals} entries are missing")
        fill = cast_scalar(0 if fill_value is None else fill_value, t)
        require_bytes(self._size * t.itemsize, "numpy", f"a dense array of {self._size} values")
        out = np.full(self._size, fill, dtype=t.np_type)
        idx, vals = self.to_coo()
        out[idx] = vals
        return out

    def to(self, backend: str) -> Vector:
        """A copy on another backend (``"numpy"`` or ``"cupy"``)."""
        be = get_backend(backend)
        return Vector._from_parts(be, self._dtype, self._size, be.asarray(self._be.to_host(self._idx)),
                                  be.asarray(self._be.to_host(self._vals)))

    from_dict = classmethod(from_dict)
    from_pairs = classmethod(from_pairs)

    # ---------------------------------------------------------------- elements
    def __getitem__(self, key: Any) -> Expression:
        return operations.extract_expr(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        if _is_int(key) and not hasattr(value, "kind"):
            self._set_element(resolve_scalar_index(key, self._size), value)
        else:
            Updater(self)[key] = value

    def __delitem__(self, key: Any) -> None:
        """``del v[i]``; ``del v[[1, 3]]`` and ``del v[1:3]`` remove every entry they index."""
        xp = self._be.xp
        idx, _ = resolve_index(key, self._size)
        keep = (xp.zeros(self.nvals, dtype=bool) if idx is None
                else ~xp.isin(self._idx, xp.asarray(idx, dtype=self._idx.dtype)))
        self._set_sparse(self._idx[keep], self._vals[keep])

    def _set_element(self, i: int, value: Any) -> None:
        xp = self._be.xp
        v = cast_scalar(_plain(value), self._dtype)
        pos = int(xp.searchsorted(self._idx, xp.asarray([i], dtype=np.int64))[0])
        idx, vals = self._idx, self._vals
        if pos < self.nvals and int(idx[pos]) == i:
            vals = vals.copy()
            vals[pos] = v
            self._set_sparse(idx, vals)
            return
        self._set_sparse(xp.concatenate([idx[:pos], xp.asarray([i], dtype=np.int64), idx[pos:]]),
                         xp.concatenate([vals[:pos], xp.asarray([v], dtype=self._dtype.np_type), vals[pos:]]))

    def get(self, index: int, default: Any = None) -> Any:
        """The value at ``index``, or ``default`` when missing."""
        if not _is_int(index) and getattr(index, "kind", None) != "Scalar":
            raise InvalidValue(f"Bad index in Vector.get: {index!r}; one integer index is expected")
        val = self[index].value
        return default if val is None else val

    # ---------------------------------------------------------------- housekeeping
    def dup(self, dtype: Any = None, *, clear: bool = False, mask: Any = None, name: str | None = None,
            **opts: Any) -> Vector:
        """A copy, optionally cast to ``dtype`` and keeping only the entries under ``mask``;
        ``clear=True``: an empty Vector of the same size and type."""
        if clear:
            return Vector(dtype if dtype is not None else self._dtype, self._size, backend=self._be.name, name=name)
        if mask is not None:
            return self._as_expression().new(dtype, mask=mask, name=name)
        t = lookup_dtype(dtype) if dtype is not None else self._dtype
        if t == self._dtype and self._store.bitmap is None:
            # Sorted entries are never written in place (only a bitmap a store alone holds
            # is: see VectorStore), so the copy may hold the same arrays: no device copies.
            v = self._sharing_copy()
            v.name = name
            return v
        copy = self._be.copy
        if self._is_bitmap:
            bits, vals = self._bitmap()
            v = Vector._from_bitmap(self._be, t, self._size, copy(bits), copy(vals), self._count)
        else:
            v = Vector._from_parts(self._be, t, self._size, copy(self._idx), copy(self._vals))
        v.name = name
        return v

    def _sharing_copy(self) -> Vector:
        """A Vector holding this one's arrays, not copies: while it lives neither is written in
        place (a shared array never is: see :meth:`_owns_bitmap`), so it keeps today's entries."""
        v = Vector._without_storage(self._be, self._dtype, self._size)
        v._store.share(self._store)
        return v

    def clear(self) -> None:
        """Remove every entry."""
        xp = self._be.xp
        self._set_sparse(xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=self._dtype.np_type))

    def resize(self, size: int) -> None:
        """Change the size; entries beyond it are dropped."""
        size = _check_size(size)
        keep = self._idx < size
        idx, vals = self._idx[keep], self._vals[keep]
        self._size = size
        self._set_sparse(idx, vals)

    # ---------------------------------------------------------------- operations
    def vxm(self, A: Any, op: Any = "plus_times", *, method: str = "auto") -> Expression:
        """``u' A`` over the semiring ``op``; ``method`` is "auto", "push" or "pull"."""
        return operations.vxm_expr(self, A, op, method)

    def reduce(self, op: Any = "plus", *, allow_empty: bool = True) -> Expression:
        """Reduce all entries to a Scalar with the monoid ``op`` (empty gives an empty Scalar,
        or the identity when ``allow_empty`` is False)."""
        return operations.reduce_scalar_expr(self, op, allow_empty)

    def inner(self, other: Vector, op: Any = "plus_times") -> Expression:
        """The dot product ``u' v`` over the semiring ``op``, as a Scalar expression."""
        return operations.inner_expr(self, other, op)

    def diag(self, k: int = 0, *, name: str | None = None) -> Any:
        """A square Matrix with this Vector on diagonal ``k``."""
        return named(operations.vector_diag(self, k), None, name)

    # ---------------------------------------------------------------- internals for the glue
    def _keyspace(self, objs: list[Any]) -> None:
        return None

    def _entries(self, ks: Any) -> sp.Entries:
        return sp.Entries(self._idx, self._vals)

    def _set_entries(self, e: sp.Entries, ks: Any) -> None:
        vals = self._be.cast(e.values, self._dtype) if len(e) else self._be.xp.zeros(0, self._dtype.np_type)
        self._set_sparse(e.keys.astype(np.int64, copy=False), vals)

    def _from_entries(self, e: sp.Entries, ks: Any, dtype: DataType) -> Vector:
        vals = e.values if len(e) else self._be.xp.zeros(0, dtype.np_type)
        return Vector._from_parts(self._be, dtype, self._size, e.keys, vals)

    def _positions_of(self, ks: Any, same: bool = True) -> Any:
        return lambda keys: Positions(keys, 0, keys, 0)

    def _coords_of(self, keys: Any, ks: Any) -> tuple[Any, Any]:
        return keys, 0

    def _dense(self, t: DataType) -> tuple[Any, Any]:
        """(values, present) dense arrays, values cast to ``t``; present is None when full."""
        bits, vals = self._bitmap()
        if vals.dtype != t.np_type:
            vals = self._be.cast(vals, t)
        return vals, None if self._full else bits

    # ---------------------------------------------------------------- display
    def __repr__(self) -> str:
        idx, vals = self.to_coo() if self.nvals <= 1000 else (self._be.to_host(self._idx[:10]),
                                                               self._be.to_host(self._vals[:10]))
        shown = ", ".join(f"{i}: {v}" for i, v in zip(idx[:10].tolist(), vals[:10].tolist()))
        more = ", ..." if self.nvals > 10 else ""
        return f"<{self._repr_header()}>{{{shown}{more}}}"

    def _repr_html_(self) -> str:
        from .display import vector_html

        return vector_html(self)

    def __len__(self) -> int:
        return self._size

    def __contains__(self, index: int) -> bool:
        if not _is_int(index) and getattr(index, "kind", None) != "Scalar":
            raise TypeError(f"Invalid index for `in`: {index!r}; one integer index is expected")
        return self[index].value is not None


_EMPTY: dict[tuple[str, np.dtype], Any] = {}
_INT64 = np.dtype(np.int64)


def _cupy_from_dlpack(x: Any) -> Any:
    import cupy

    return cupy.from_dlpack(x)


def _empty_array(be: Any, dtype: np.dtype) -> Any:
    """A shared empty array (a shared array is never written in place, so sharing is safe)."""
    key = (be.name, dtype)
    if key not in _EMPTY:
        _EMPTY[key] = be.xp.zeros(0, dtype=dtype)
    return _EMPTY[key]


def _check_size(n: Any) -> int:
    return check_dimension(n, "size")


def _is_int(key: Any) -> bool:
    return isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_))


def _plain(value: Any) -> Any:
    return value.require_value() if isinstance(value, Scalar) else value

bind_result_type(Vector)
