"""Matrix: a sparse matrix stored as CSR (in a MatrixStore); its transpose and other derived
forms are built on first need, counted, and can be dropped."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dcsr
from . import _sparse as sp
from ._compat_methods import (
    CompatMethods,
    _given_dtype,
    coo_values,
    dense_type,
    from_dicts,
    from_edgelist,
    is_dtype_like,
    named,
    require_scalar_value,
    scalar_dup_op,
)
from ._infix_methods import InfixMethods
from ._operations import bind_evaluator, bind_result_type, operations
from ._transposed import TransposedView
from .backends import get_backend
from .collection import Collection
from .dtypes import FP64, DataType, cast_scalar, lookup_dtype
from .exceptions import DimensionMismatch, DomainMismatch, FillValueRequired, InvalidValue, NotImplementedException
from .expressions import Expression, Updater
from .indexing import resolve_index, resolve_scalar_index
from .limits import check_dimension, require_bytes
from .operators.base import Positions
from .scalar import Scalar
from .storage import (
    MatrixStore,
    build_entries,
    building_backend,
    csr_input,
    host_array,
    infer_dtype,
    pointer_dtype,
    read_only,
)

_HEAVIEST_ROWS = 1 << 16  # row lengths kept for Matrix._most_entries


class Matrix(Collection):
    """A sparse ``nrows x ncols`` matrix; a missing entry is not zero."""

    kind = "Matrix"

    def __init__(self, dtype: Any = FP64, nrows: int = 0, ncols: int = 0, *, backend: str | None = None,
                 name: str | None = None) -> None:
        self._be = get_backend(backend)
        self._dtype = lookup_dtype(_given_dtype(dtype))
        self._nrows = _check_dim(nrows, "nrows")
        self._ncols = _check_dim(ncols, "ncols")
        self.clear()
        self.name = name

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_coo(cls, rows: Any, cols: Any, values: Any = 1.0, nrows_or_dtype: Any = None,
                 ncols: int | None = None, *, nrows: int | None = None, dtype: Any = None, dup_op: Any = None,
                 backend: str | None = None, name: str | None = None,
                 symmetric: bool | None = None) -> Matrix:
        """A Matrix from coordinates and values (a scalar value is given to every entry).

        The fourth positional argument may be the type, as in python-graphblas
        (``Matrix.from_coo(rows, cols, values, INT64, nrows=3, ncols=3)``).

        The coordinates are sorted (one stable sort of packed ``row * ncols + col`` keys) into
        new arrays: the caller's are never held.  ``symmetric=True`` declares the matrix equal
        to its transpose (not checked; see :attr:`is_symmetric`)."""
        if is_dtype_like(nrows_or_dtype):
            dtype = nrows_or_dtype
        elif nrows_or_dtype is not None:
            nrows = nrows_or_dtype
        be = get_backend(backend)
        build = building_backend(be, rows, cols, values)
        r = host_array(build, rows, np.int64, "rows")
        c = host_array(build, cols, np.int64, "cols")
        t = infer_dtype(values, dtype)
        for idx, n, what in ((r, nrows, "row"), (c, ncols, "column")):
            if n is None and not len(idx):
                raise InvalidValue(f"No {what} indices provided. Unable to infer {'nrows' if what == 'row' else 'ncols'}.")
        nrows = int(r.max()) + 1 if nrows is None else nrows
        ncols = int(c.max()) + 1 if ncols is None else ncols
        A = cls(t, nrows, ncols, backend=be.name, name=name)
        rs, cs, vals = build_entries(build, [r, c], [A._nrows, A._ncols], values, t, scalar_dup_op(values, dup_op))
        A._set_sorted(*(be.asarray(a) for a in (rs, cs, vals)))
        A._declare(symmetric)
        return A

    @classmethod
    def from_dense(cls, values: Any, missing_value: Any = None, *, dtype: Any = None,
                   backend: str | None = None, name: str | None = None) -> Matrix:
        """A Matrix with an entry at every position, except where the value is ``missing_value``."""
        be = get_backend(backend)
        try:
            arr = be.asarray(values)
        except (ValueError, TypeError) as exc:  # a ragged list, or values that are not numbers
            raise InvalidValue(f"from_dense needs a rectangular array of numbers: {exc}") from None
        if arr.ndim != 2:
            raise DimensionMismatch("A 2-dimensional array is required to create a dense Matrix: array must be 2d, "
                                    f"got shape {arr.shape}")
        t = lookup_dtype(dtype) if dtype is not None else lookup_dtype(arr.dtype)
        keep = _present(be.xp, arr, missing_value)
        r, c = be.xp.nonzero(keep)
        return cls.from_coo(r, c, arr[r, c], arr.shape[0], arr.shape[1], dtype=t, backend=be.name, name=name)

    @classmethod
    def from_csr(cls, indptr: Any, col_indices: Any, values: Any = 1.0, ncols: int | None = None, *,
                 dtype: Any = None, backend: str | None = None, name: str | None = None,
                 copy: bool | None = None, symmetric: bool | None = None, nrows: int | None = None) -> Matrix:
        """A Matrix from CSR arrays: row ``i`` holds ``col_indices[indptr[i]:indptr[i+1]]``.

        One vectorised pass validates the input: ``indptr`` starts at 0, never decreases and
        ends at ``len(col_indices)`` (else InvalidValue / DimensionMismatch); every index is in
        ``[0, ncols)`` (IndexOutOfBound); no column repeats within a row (InvalidValue).
        Rows whose indices are out of order are sorted (only those rows, in a copy).

        Sharing: where an array is already of the type the Matrix stores (int32 or int64
        ``indptr``; int32 ``col_indices`` for fewer than 2**31 columns; ``values`` of the
        matrix's type; C-contiguous, on the backend's device), it is held as it is, not
        copied.  The library never writes a held array in place.  ``copy=None`` (default):
        a NumPy array is shared and made read-only (with the arrays it views), so that a later
        write through it raises ValueError instead of changing the matrix silently; memory of
        a writeable non-NumPy buffer is copied, and so are CuPy arrays (they cannot be made
        read-only).  Other views of the same memory made before the call keep their flags:
        pass ``copy=True`` to keep writing through them.  ``copy=False`` shares CuPy arrays
        too: the caller must not write them afterwards.  ``copy=True`` always copies.
        ``A.memory_usage()["shared"]`` tells whether anything is shared.

        ``symmetric=True`` declares the matrix equal to its transpose (not checked; see
        :attr:`is_symmetric`).  ``nrows`` (python-graphblas's keyword), if given, must be
        ``len(indptr) - 1``.
        """
        _check_pointer_count(indptr, nrows, "nrows")
        return cls._csr_built(indptr, col_indices, values, ncols, dtype, backend, name, copy, symmetric, True)

    @classmethod
    def _csr_built(cls, indptr: Any, col_indices: Any, values: Any, ncols: int | None, dtype: Any,
                   backend: str | None, name: str | None, copy: bool | None, symmetric: bool | None,
                   hold: bool) -> Matrix:
        """:meth:`from_csr`; with ``hold=False`` the caller's arrays are only read (see
        :func:`grblas_gpu.storage.csr_input`): the Matrix must not outlive the call."""
        be = get_backend(backend)
        t = infer_dtype(values, dtype)
        ptr, idx, vals, ncols, shared = csr_input(be, indptr, col_indices, values, ncols, t, copy, hold)
        A = cls(t, len(ptr) - 1, ncols, backend=be.name, name=name)
        A._store = MatrixStore(ptr, None, idx, vals, shared=shared and hold)
        A._declare(symmetric)
        return A

    @classmethod
    def from_csc(cls, indptr: Any, row_indices: Any, values: Any = 1.0, nrows: int | None = None, *,
                 dtype: Any = None, backend: str | None = None, name: str | None = None,
                 copy: bool | None = None, symmetric: bool | None = None, ncols: int | None = None) -> Matrix:
        """A Matrix from CSC arrays: column ``j`` holds ``row_indices[indptr[j]:indptr[j+1]]``.

        Validated as :meth:`from_csr` validates; the CSR the Matrix stores is made from them
        by one sort (the caller's arrays are read, never held, frozen or written).  A matrix
        declared ``symmetric`` has the same CSR and CSC, so its arrays are taken as
        :meth:`from_csr` takes them (``copy`` applies then); ``ncols``, if given, must be
        ``len(indptr) - 1``."""
        _check_pointer_count(indptr, ncols, "ncols")
        T = cls._csr_built(indptr, row_indices, values, nrows, dtype, backend, name, copy, symmetric,
                           hold=bool(symmetric))
        if symmetric:
            return T
        out = operations.transpose_csr(T)  # new arrays: T, which may hold the caller's, is dropped
        out.name = name
        return out

    @classmethod
    def from_scalar(cls, value: Any, nrows: int, ncols: int, dtype: Any = None, *,
                    backend: str | None = None, name: str | None = None) -> Matrix:
        """A full Matrix with every entry equal to ``value``."""
        require_scalar_value(value)
        be = get_backend(backend)
        xp = be.xp
        t = infer_dtype(value, dtype)
        A = cls(t, nrows, ncols, backend=be.name, name=name)
        n = A._nrows * A._ncols
        require_bytes(n * (t.itemsize + 8) + 8 * A._nrows, be.name, f"a full {A._nrows}x{A._ncols} Matrix")
        indptr = sp.arange(xp, A._nrows + 1) * A._ncols
        indices = xp.tile(xp.arange(A._ncols, dtype=sp.index_dtype(A._ncols)), A._nrows)
        v = value.require_value() if isinstance(value, Scalar) else value
        A._set_csr(indptr, indices, xp.full(n, cast_scalar(v, t), dtype=t.np_type))
        return A

    @classmethod
    def _from_sorted(cls, be: Any, dtype: DataType, nrows: int, ncols: int, rows: Any, cols: Any,
                     values: Any) -> Matrix:
        """A Matrix from entries already sorted by (row, col) and unique."""
        A = cls(dtype, nrows, ncols, backend=be.name)
        A._set_sorted(rows, cols, be.cast(values, dtype))
        return A

    @classmethod
    def _from_csr_parts(cls, be: Any, dtype: DataType, nrows: int, ncols: int, ptr: Any, indices: Any,
                        values: Any) -> Matrix:
        """A Matrix holding the library's own sorted, duplicate-free CSR arrays (not copied)."""
        A = cls(dtype, nrows, ncols, backend=be.name)
        A._set_csr(ptr, indices, be.cast(values, dtype))
        return A

    # Storage: one MatrixStore (see grblas_gpu.storage) holds the arrays.  At rest: CSR row
    # pointers, or (hypersparse, when row pointers would dwarf the entries) the row of every
    # entry; either gives the other on demand.  The private names other modules read
    # (_ptr, _rowidx, _indices, _vals, _T, _derived) are views of the store.
    _store: MatrixStore

    def _set_csr(self, indptr: Any, indices: Any, values: Any) -> None:
        # int32 row pointers and column indices where they fit (each decided on its own: the
        # kernels take int64 pointers beside int32 indices, as a matrix of 2**31 entries needs).
        self._store = MatrixStore(indptr.astype(pointer_dtype(len(indices)), copy=False), None,
                                  indices.astype(sp.index_dtype(self._ncols), copy=False), values)

    def _set_sorted(self, rows: Any, cols: Any, values: Any) -> None:
        if self._nrows <= 8 * len(cols) + 2**20:
            self._set_csr(sp.rows_to_indptr(self._be.xp, rows, self._nrows), cols, values)
            return
        self._store = MatrixStore(None, rows.astype(np.int64, copy=False),
                                  cols.astype(sp.index_dtype(self._ncols), copy=False), values)

    @property
    def _ptr(self) -> Any:
        """CSR row pointers, or None for a hypersparse matrix until :attr:`_indptr` builds them."""
        return self._store.ptr

    @property
    def _rowidx(self) -> Any:
        """The row of every entry (int64) of a hypersparse matrix, else None."""
        return self._store.rowidx

    @property
    def _indices(self) -> Any:
        """The column of every entry (int32 where the columns fit, else int64), row by row."""
        return self._store.indices

    @property
    def _vals(self) -> Any:
        """The value of every entry, row by row."""
        return self._store.vals

    @property
    def _T(self) -> Matrix | None:
        """The transpose when at hand (this matrix itself when symmetric), else None."""
        st = self._store
        return self if st.symmetric else st.transpose

    @property
    def _derived(self) -> dict[Any, Any]:
        """Derived values kept with the arrays (see :meth:`_memo`)."""
        return self._store.derived

    @property
    def _indptr(self) -> Any:
        """CSR row pointers (built on first need for a hypersparse matrix, and counted as derived)."""
        st = self._store
        if st.ptr is None:
            if self._nrows > 2**31:
                raise NotImplementedException(
                    f"this operation needs row pointers for all {self._nrows} rows of a hypersparse matrix")
            st.ptr, st.ptr_built = sp.rows_to_indptr(self._be.xp, st.rowidx, self._nrows), True
        return st.ptr

    def _memo(self, key: Any, make: Any) -> Any:
        """``make()``, a value derived from the stored arrays, computed once until they change
        (or :meth:`free_derived` drops it)."""
        derived = self._store.derived
        try:
            return derived[key]
        except KeyError:
            made = derived[key] = make()
            return made

    # ---------------------------------------------------------------- memory
    def memory_usage(self) -> dict[str, Any]:
        """Bytes this Matrix holds: ``at_rest`` (its CSR, or hypersparse row list),
        ``derived`` (the transpose, plans, row lengths now kept: built on need,
        dropped by :meth:`free_derived`), and ``shared``: whether the at-rest arrays are also
        held by the caller (given to :meth:`from_csr` or handed out by an export)."""
        st = self._store
        return {"at_rest": st.nbytes_at_rest(), "derived": st.nbytes_derived(), "shared": st.shared}

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays this Matrix holds now, at rest and derived."""
        st = self._store
        return st.nbytes_at_rest() + st.nbytes_derived()

    def free_derived(self) -> None:
        """Drop every derived form (the transpose, plans, row lengths); each is
        built again when next needed.  The entries are untouched."""
        self._store.drop_derived()

    @property
    def is_symmetric(self) -> bool:
        """Whether the matrix equals its transpose (structure and values).

        Known when declared (``symmetric=`` on construction, or by setting this property, which
        is not checked) or found once: the first look compares the matrix with its transpose
        (which it builds, and keeps only when they differ; so does every first use of the
        transpose of a square matrix).  A symmetric matrix is its own
        transpose: no second copy is built for ``A.T`` or for pulling ``u' A``.  Any change to
        the entries forgets what was known."""
        st = self._store
        if st.symmetric is None:
            st.symmetric = self._nrows == self._ncols and self._equals_transpose()
        return bool(st.symmetric)

    @is_symmetric.setter
    def is_symmetric(self, value: bool) -> None:
        self._declare(bool(value))

    def _declare(self, symmetric: bool | None) -> None:
        """Record a declared symmetry (None: unknown)."""
        if symmetric is None:
            return
        if symmetric and self._nrows != self._ncols:
            raise DimensionMismatch(f"a {self._nrows} x {self._ncols} matrix cannot be symmetric")
        st = self._store
        st.symmetric = bool(symmetric)
        if symmetric:
            st.transpose = None

    def _equals_transpose(self) -> bool:
        st = self._store
        if st.ptr is not None and st.transpose is None:
            # A row whose length differs from its column's count settles it: no transpose is
            # built (and kept) to find out that a directed graph is not symmetric.
            counts = self._be.occurrences(self._indices, self._ncols)
            if bool((counts != self._row_lengths()).any()):
                return False
        return self._transposed() is self  # (building the transpose compares it)

    def _spmv_plan(self) -> Any:
        """The backend's SpMV plan for this matrix (its work split into balanced tiles)."""
        return self._memo("spmv_plan", lambda: self._be.spmv_plan(self._indptr, self._indices, self.ncols))

    def _nonempty_rows(self) -> int:
        """How many rows hold at least one entry (one host read, then cached)."""
        return self._memo("nonempty_rows", lambda: self._be.count_true(self._nonempty_flags()))

    def _nonempty_flags(self) -> Any:
        """Whether each row holds an entry (bool array, cached; shared, never written)."""
        return self._memo("nonempty_flags", lambda: self._row_lengths() > 0)

    def _row_lengths(self) -> Any:
        """The number of entries of every row (int64 array, cached)."""
        return self._memo("row_lengths", lambda: self._be.xp.diff(self._indptr.astype(np.int64, copy=False)))

    def _longest_row(self) -> int:
        """The most entries in one row."""
        return self._most_entries(1)

    def _most_entries(self, k: int) -> int:
        """The most entries any ``k`` rows hold together: a bound on a frontier's work known
        from its size alone (the lengths of the longest rows, sorted once and kept on the host)."""
        def heaviest() -> np.ndarray:
            top = self._be.xp.sort(self._row_lengths())[::-1][:_HEAVIEST_ROWS]
            return np.concatenate([[0], np.cumsum(self._be.to_host(top))])

        totals = self._memo("heaviest_rows", heaviest)
        held = len(totals) - 1
        if k <= held:
            return int(totals[k])
        return int(totals[held] + (k - held) * (totals[held] - totals[held - 1]))  # the rest are no longer

    def _row_ranges(self, rows: Any) -> tuple[Any, Any]:
        """(start, count) of the stored entries of each of ``rows``."""
        if self._ptr is not None:
            starts = self._ptr[rows]
            return starts, self._ptr[rows + 1] - starts
        xp = self._be.xp
        lo = xp.searchsorted(self._rowidx, rows, side="left").astype(np.int64)
        return lo, xp.searchsorted(self._rowidx, rows, side="right").astype(np.int64) - lo

    # ---------------------------------------------------------------- properties
    @property
    def nrows(self) -> int:
        """Number of rows."""
        return self._nrows

    @property
    def ncols(self) -> int:
        """Number of columns."""
        return self._ncols

    @property
    def shape(self) -> tuple[int, int]:
        """``(nrows, ncols)``."""
        return (self._nrows, self._ncols)

    @property
    def nvals(self) -> int:
        """Number of stored entries."""
        return int(self._indices.shape[0])

    @property
    def T(self) -> TransposedMatrix:
        """The transpose, for use in an expression (``A.T.new()`` materialises it)."""
        return TransposedMatrix(self)

    # ---------------------------------------------------------------- export
    def to_coo(self, dtype: Any = None, *, rows: bool = True, columns: bool = True, values: bool = True,
               sort: bool = True) -> tuple[Any, Any, Any]:
        """(rows, cols, values) as NumPy arrays, sorted by row then column; a part not asked
        for (``values=False``...) is None, and ``dtype`` casts the values."""
        h = self._be.to_host
        return (h(self._rows()).astype(np.int64) if rows else None,
                h(self._indices).astype(np.int64) if columns else None,
                coo_values(h(self._vals), dtype) if values else None)

    def to_csr(self, dtype: Any = None, *, sort: bool = True, copy: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(indptr, col_indices, values) as NumPy arrays; ``dtype`` casts the values (a copy) and
        ``sort`` is python-graphblas's keyword (the columns of a row are always sorted here).

        The integer arrays are of the types the Matrix stores (int32 where they fit, else
        int64).  On the CPU backend they are the Matrix's own arrays as read-only views (no
        copy; a write raises ValueError); from the GPU, host copies.  ``copy=True``: writable
        copies with int64 indices, whatever the backend."""
        if dtype is not None:
            indptr, cols, vals = self.to_csr(copy=copy)
            return indptr, cols, vals.astype(lookup_dtype(dtype).np_type)
        h = self._be.to_host
        parts = (self._indptr, self._indices, self._vals)
        if copy:
            return h(parts[0]).astype(np.int64), h(parts[1]).astype(np.int64), h(parts[2]).copy()
        if self._be.name == "numpy":
            self._store.shared = True
            return tuple(read_only(a) for a in parts)  # type: ignore[return-value]
        return tuple(h(a) for a in parts)  # type: ignore[return-value]

    def to_csc(self, dtype: Any = None, *, sort: bool = True, copy: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(indptr, row_indices, values) as NumPy arrays: the CSR of the transpose, shared
        or copied as :meth:`to_csr` says (the transpose is built, and kept as a derived form)."""
        return self._transposed().to_csr(dtype, copy=copy)

    to_dcsr = _dcsr.to_dcsr
    to_dcsc = _dcsr.to_dcsc
    from_dcsr = classmethod(_dcsr.from_dcsr)
    from_dcsc = classmethod(_dcsr.from_dcsc)

    def to_dense(self, fill_value: Any = None, dtype: Any = None) -> np.ndarray:
        """A dense NumPy array; missing entries get ``fill_value`` (required if any are missing;
        without ``dtype`` the array's type holds both, as ``A.to_dense(6.5)`` of integers is FP64)."""
        t = dense_type(self._dtype, fill_value, dtype)
        if fill_value is None and self.nvals < self._nrows * self._ncols:
            raise FillValueRequired("fill_value must be given: some entries are missing")
        fill = cast_scalar(0 if fill_value is None else fill_value, t)
        require_bytes(self._nrows * self._ncols * t.itemsize, "numpy", f"a dense {self._nrows}x{self._ncols} array")
        out = np.full(self.shape, fill, dtype=t.np_type)
        r, c, v = self.to_coo()
        out[r, c] = v
        return out

    def to(self, backend: str) -> Matrix:
        """A copy on another backend (``"numpy"`` or ``"cupy"``)."""
        be = get_backend(backend)
        h = self._be.to_host
        st = self._store
        parts = [None if a is None else be.asarray(h(a)) for a in (st.ptr, st.rowidx, st.indices, st.vals)]
        if st.ptr_built:
            parts[0] = None
        A = Matrix(self._dtype, self._nrows, self._ncols, backend=be.name)
        A._store = MatrixStore(*parts, symmetric=st.symmetric)
        return A

    from_dicts = classmethod(from_dicts)
    from_edgelist = classmethod(from_edgelist)

    # ---------------------------------------------------------------- elements
    def __getitem__(self, key: Any) -> Expression:
        return operations.extract_expr(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        if _is_element(key) and not hasattr(value, "kind"):
            self._set_element(resolve_scalar_index(key[0], self._nrows, "row"),
                              resolve_scalar_index(key[1], self._ncols, "column"), value)
        else:
            Updater(self)[key] = value

    def __delitem__(self, key: Any) -> None:
        if not _is_element(key):
            self._delete_region(key)
            return
        i = resolve_scalar_index(key[0], self._nrows, "row")
        j = resolve_scalar_index(key[1], self._ncols, "column")
        at, found = self._locate(i, j)
        if found:
            keep = self._be.xp.ones(self.nvals, dtype=bool)
            keep[at] = False
            self._set_sorted(self._rows()[keep], self._indices[keep], self._vals[keep])

    def _delete_region(self, key: Any) -> None:
        """``del A[rows, cols]``: remove every entry in the region (python-graphblas's form)."""
        if not isinstance(key, tuple) or len(key) != 2:
            raise InvalidValue("del needs a row and a column index: del A[rows, cols]")
        xp = self._be.xp
        drop = xp.ones(self.nvals, dtype=bool)
        for k, n, coords, what in ((key[0], self._nrows, self._rows(), "row"),
                                   (key[1], self._ncols, self._indices, "column")):
            idx, _ = resolve_index(k, n, what)
            if idx is not None:
                drop &= xp.isin(coords, xp.asarray(idx, dtype=coords.dtype))
        self._set_sorted(self._rows()[~drop], self._indices[~drop], self._vals[~drop])

    def _locate(self, i: int, j: int) -> tuple[int, bool]:
        """Where entry (i, j) is stored, or would be inserted; and whether it exists."""
        xp = self._be.xp
        start, count = (int(x[0]) for x in self._row_ranges(xp.asarray([i], dtype=np.int64)))
        row = self._indices[start:start + count]
        at = start + int(xp.searchsorted(row, xp.asarray([j], dtype=row.dtype))[0])
        return at, at < start + count and int(self._indices[at]) == j

    def _set_element(self, i: int, j: int, value: Any) -> None:
        xp = self._be.xp
        v = cast_scalar(value.require_value() if isinstance(value, Scalar) else value, self._dtype)
        at, found = self._locate(i, j)
        if found:
            # Arrays may be shared between objects (results are not copied), so never write in place.
            vals = self._vals.copy()
            vals[at] = v
            self._set_sorted(self._rows(), self._indices, vals)
            return
        rows = self._rows()

        def insert(a: Any, x: Any) -> Any:
            return xp.concatenate([a[:at], xp.asarray([x], dtype=a.dtype), a[at:]])

        self._set_sorted(insert(rows, i), insert(self._indices, j), insert(self._vals, v))

    def get(self, row: int, col: int, default: Any = None) -> Any:
        """The value at (row, col), or ``default`` when missing."""
        if not _is_element((row, col)):
            raise InvalidValue(f"Bad row, col in Matrix.get: {(row, col)!r}; two integer indices are expected")
        val = self[row, col].value
        return default if val is None else val

    # ---------------------------------------------------------------- housekeeping
    def dup(self, dtype: Any = None, *, clear: bool = False, mask: Any = None, name: str | None = None,
            **opts: Any) -> Matrix:
        """A copy, optionally cast to ``dtype`` and keeping only the entries under ``mask``;
        ``clear=True``: an empty Matrix of the same shape and type."""
        if clear:
            return Matrix(dtype if dtype is not None else self._dtype, self._nrows, self._ncols,
                          backend=self._be.name, name=name)
        if mask is not None:
            return self._as_expression().new(dtype, mask=mask, name=name)
        t = lookup_dtype(dtype) if dtype is not None else self._dtype
        st = self._store
        copy = self._be.copy
        ptr, rowidx, indices = (None if a is None or a is st.ptr and st.ptr_built else copy(a)
                                for a in (st.ptr, st.rowidx, st.indices))
        A = Matrix(t, self._nrows, self._ncols, backend=self._be.name, name=name)
        A._store = MatrixStore(ptr, rowidx, indices, self._be.cast(st.vals, t) if t != self._dtype else copy(st.vals),
                               symmetric=st.symmetric)
        return A

    def _replace_with(self, other: Any) -> None:
        """Take ``other``'s entries, cast to this matrix's type: a Matrix of the same shape on
        the same backend hands over its arrays as they are (no round trip through sorted keys;
        no array of a store is written in place, so both may hold them)."""
        if not (isinstance(other, Matrix) and other.shape == self.shape and other._be is self._be):
            super()._replace_with(other)
            return
        st = other._store
        same = other._dtype == self._dtype
        vals = st.vals if same else self._be.cast(st.vals, self._dtype)
        # A cast keeps a symmetry (equal values cast equal), not an asymmetry.
        symmetric = st.symmetric if same else (True if st.symmetric else None)
        self._store = MatrixStore(None if st.ptr_built else st.ptr, st.rowidx, st.indices, vals,
                                  shared=st.shared, symmetric=symmetric)

    def _with_values(self, values: Any, dtype: DataType) -> Matrix:
        """A Matrix of this one's structure holding ``values`` (one per entry, of ``dtype``):
        the result of an element-wise map.  The structure's arrays are held by both (the
        library writes no array of a store in place); a known symmetry is kept, as a map of
        equal values gives equal values."""
        st = self._store
        ptr = None if st.ptr_built else st.ptr
        A = Matrix(dtype, self._nrows, self._ncols, backend=self._be.name)
        A._store = MatrixStore(ptr, st.rowidx, st.indices, values, shared=st.shared,
                               symmetric=True if st.symmetric else None)
        return A

    def clear(self) -> None:
        """Remove every entry."""
        xp = self._be.xp
        empty = xp.zeros(0, dtype=np.int64)
        values = xp.zeros(0, dtype=self._dtype.np_type)
        if self._nrows <= 2**20:  # (as _set_sorted decides) zero pointers: one memset, no search
            self._set_csr(xp.zeros(self._nrows + 1, dtype=pointer_dtype(0)), empty, values)
        else:
            self._set_sorted(empty, empty, values)

    def resize(self, nrows: int, ncols: int) -> None:
        """Change the shape; entries outside it are dropped."""
        nrows, ncols = _check_dim(nrows, "nrows"), _check_dim(ncols, "ncols")
        rows = self._rows()
        keep = (rows < nrows) & (self._indices < ncols)
        self._nrows, self._ncols = nrows, ncols
        self._set_sorted(rows[keep], self._indices[keep], self._vals[keep])

    # ---------------------------------------------------------------- operations
    def mxm(self, other: Any, op: Any = "plus_times") -> Expression:
        """``A B`` over the semiring ``op``."""
        return operations.mxm_expr(self, other, op)

    def mxv(self, u: Any, op: Any = "plus_times", *, method: str = "auto") -> Expression:
        """``A u`` over the semiring ``op``; ``method`` is "auto", "push" or "pull"."""
        return operations.mxv_expr(self, u, op, method)

    def reduce_rowwise(self, op: Any = "plus") -> Expression:
        """A Vector: each row reduced with the monoid ``op`` (empty rows have no entry)."""
        return operations.reduce_rows_expr(self, op, transpose=False)

    def reduce_columnwise(self, op: Any = "plus") -> Expression:
        """A Vector: each column reduced with the monoid ``op``."""
        return operations.reduce_rows_expr(self, op, transpose=True)

    def reduce_scalar(self, op: Any = "plus", *, allow_empty: bool = True) -> Expression:
        """A Scalar: all entries reduced with the monoid ``op``."""
        return operations.reduce_scalar_expr(self, op, allow_empty)

    def kronecker(self, other: Any, op: Any = "times") -> Expression:
        """The Kronecker product, entries combined with ``op``."""
        return operations.kronecker_expr(self, other, op)

    def diag(self, k: int = 0, dtype: Any = None, *, name: str | None = None) -> Any:
        """Diagonal ``k`` as a Vector."""
        return named(operations.matrix_diag(self, k), dtype, name)

    # ---------------------------------------------------------------- internals for the glue
    def _transposed(self) -> Matrix:
        """The transpose as a Matrix (never written: shared by every use), kept as a derived
        form until this matrix changes or :meth:`free_derived`; a symmetric matrix itself."""
        st = self._store
        if st.symmetric:
            return self
        if st.transpose is None:
            T = operations.transpose_csr(self)
            if st.symmetric is None and self._nrows == self._ncols and _same_csr(self, T):
                st.symmetric = True  # found so once: no transpose is kept
                return self
            st.symmetric = False if st.symmetric is None and self._nrows == self._ncols else st.symmetric
            st.transpose = T
            T._store.transpose = self._snapshot()  # A'' is A: a product through T' copies nothing
        return st.transpose

    def _snapshot(self) -> Matrix:
        """A Matrix holding this one's at-rest arrays as they are now (not copies: they are
        never written in place), so it keeps today's entries whatever this one becomes."""
        st = self._store
        M = Matrix.__new__(Matrix)
        M._be, M._dtype, M._nrows, M._ncols, M.name = self._be, self._dtype, self._nrows, self._ncols, None
        M._store = MatrixStore(None if st.ptr_built else st.ptr, st.rowidx, st.indices, st.vals,
                               shared=st.shared, symmetric=st.symmetric)
        return M

    def _rows(self) -> Any:
        """The row of every stored entry (int64)."""
        return self._rowidx if self._rowidx is not None else sp.csr_rows(self._be.xp, self._ptr)

    def _keyspace(self, objs: list[Any]) -> sp.KeySpace:
        xp = self._be.xp
        if self._nrows * self._ncols <= 2**63 - 1:
            return sp.KeySpace(xp, self._nrows, self._ncols, [], [])
        mats = [o for o in objs if isinstance(o, Matrix)]
        return sp.KeySpace(xp, self._nrows, self._ncols, [m._rows() for m in mats], [m._indices for m in mats])

    def _entries(self, ks: sp.KeySpace) -> sp.Entries:
        return sp.Entries(ks.encode(self._rows(), self._indices), self._vals)

    def _set_entries(self, e: sp.Entries, ks: sp.KeySpace) -> None:
        rows, cols = ks.decode(e.keys)
        vals = self._be.cast(e.values, self._dtype) if len(e) else self._be.xp.zeros(0, self._dtype.np_type)
        self._set_sorted(rows, cols, vals)

    def _from_entries(self, e: sp.Entries, ks: sp.KeySpace, dtype: DataType) -> Matrix:
        rows, cols = ks.decode(e.keys)
        vals = e.values if len(e) else self._be.xp.zeros(0, dtype.np_type)
        return Matrix._from_sorted(self._be, dtype, self._nrows, self._ncols, rows, cols, vals)

    def _positions_of(self, ks: sp.KeySpace, same: bool = True) -> Any:
        def pos(keys: Any) -> Positions:
            i, j = ks.decode(keys)
            return Positions(i, j, i, j)

        return pos

    def _coords_of(self, keys: Any, ks: sp.KeySpace) -> tuple[Any, Any]:
        return ks.decode(keys)

    # ---------------------------------------------------------------- display
    def __repr__(self) -> str:
        r, c, v = (self._be.to_host(a[:10]) for a in (self._rows(), self._indices, self._vals))
        shown = ", ".join(f"({i}, {j}): {x}" for i, j, x in zip(r.tolist(), c.tolist(), v.tolist()))
        more = ", ..." if self.nvals > 10 else ""
        return f"<{self._repr_header()}>{{{shown}{more}}}"

    def _repr_html_(self) -> str:
        from .display import matrix_html

        return matrix_html(self)


class TransposedMatrix(TransposedView, InfixMethods, CompatMethods):
    """``A.T``: the transpose of a Matrix inside an expression."""

    parent: Matrix

    @property
    def _be(self) -> Any:
        """The parent's backend (read by python-graphblas's methods, ``A.T.power(n)``)."""
        return self.parent._be

    def mxv(self, u: Any, op: Any = "plus_times", *, method: str = "auto") -> Expression:
        """``A' u``: from the parent's own rows where its backend can and its transpose is not
        held (no transpose is built: the CPU), else through the parent's kept transpose."""
        return operations.transposed_mxv_expr(self.parent, u, op, method)

    def new(self, dtype: Any = None, *, mask: Any = None, name: str | None = None) -> Matrix:
        """The transpose as a new Matrix."""
        return self._as_expression().new(dtype, mask=mask, name=name)

    def _as_expression(self) -> Expression:
        p = self.parent
        return Expression("transpose", "Matrix", self.shape, p.dtype, p._be, "transpose", (p,))

    def __getitem__(self, key: Any) -> Expression:
        expr = self.parent._transposed()[key]
        expr._read_only = True  # type: ignore[attr-defined] # A.T[i, j] << x would write a temporary
        return expr

    def __matmul__(self, other: Any) -> Any:
        return self.parent._transposed() @ other

    def __rmatmul__(self, other: Any) -> Any:
        return other @ self.parent._transposed()

    def __or__(self, other: Any) -> Any:
        return self.parent._transposed() | other

    def __and__(self, other: Any) -> Any:
        return self.parent._transposed() & other

    def __getattr__(self, name: str) -> Any:
        # Every other method acts on the materialised (cached) transpose.
        if name.startswith("_") and name not in ("_transposed",):
            raise AttributeError(name)
        if name in ("S", "V"):  # python-graphblas's rule: a transpose is no mask
            raise AttributeError(f"'TransposedMatrix' object has no attribute {name!r}: mask with "
                                 f"A.T.new().{name}, or transpose the rest of the statement")
        return getattr(self.parent._transposed(), name)

    def __lshift__(self, value: Any) -> None:
        raise DomainMismatch("A transpose cannot be assigned into (A.T << B): assign the transpose, A << B.T; "
                             "of an expression, .T is that of its (autocompute) result")

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        raise DomainMismatch("'TransposedMatrix' object is not callable: give the mask to the output, "
                             "C(mask) << A.T")

    def __repr__(self) -> str:
        return f"<Transposed {self.parent._repr_header()}>"




def as_matrix(obj: Any) -> Matrix:
    """A Matrix operand: a Matrix, ``A.T`` (materialised) or a Matrix expression (computed)."""
    if isinstance(obj, Matrix):
        return obj
    if isinstance(obj, TransposedMatrix):
        return obj.parent._transposed()
    if isinstance(obj, Expression) and obj.kind == "Matrix":
        return obj.new()
    raise InvalidValue(f"expected a Matrix, got {type(obj).__name__}")


def _same_csr(A: Matrix, B: Matrix) -> bool:
    """Whether two matrices of one shape hold the same entries and values (NaN differs)."""
    xp = A._be.xp
    if A._ptr is None or B._ptr is None:  # hypersparse: not asked (its row pointers may not fit)
        return False
    return bool(xp.array_equal(A._ptr, B._ptr) and xp.array_equal(A._indices, B._indices)
                and xp.array_equal(A._vals, B._vals))


def _present(xp: Any, arr: Any, missing_value: Any) -> Any:
    """Which elements of a dense array become entries (NaN as missing_value matches NaN)."""
    if missing_value is None:
        return xp.ones(arr.shape, dtype=bool)
    if isinstance(missing_value, float) and np.isnan(missing_value):
        return ~xp.isnan(arr) if arr.dtype.kind == "f" else xp.ones(arr.shape, dtype=bool)
    return arr != missing_value


def _check_pointer_count(indptr: Any, n: int | None, what: str) -> None:
    """python-graphblas's ``nrows=`` of ``from_csr`` (``ncols=`` of ``from_csc``): it must
    agree with the pointers."""
    if n is not None and n != len(indptr) - 1:
        raise InvalidValue(f"{what} must be len(indptr) - 1 = {len(indptr) - 1}, got {n}")


def _check_dim(n: Any, what: str) -> int:
    return check_dimension(n, what)


def _is_element(key: Any) -> bool:
    return (isinstance(key, tuple) and len(key) == 2
            and all(isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)) for k in key))


__all__ = ["Matrix", "TransposedMatrix", "as_matrix"]
bind_result_type(Matrix)


def _transpose(expr: Expression, mask: Any) -> Matrix:
    """A ``transpose`` expression's result: its Matrix's transpose (built and kept with it)."""
    return expr.args[0]._transposed()  # type: ignore[no-any-return]


bind_evaluator("transpose", _transpose)
