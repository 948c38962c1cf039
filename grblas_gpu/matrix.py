"""Matrix: a sparse matrix stored as CSR, its transpose built on first need and cached."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _sparse as sp
from .backends import get_backend
from .collection import Collection
from .dtypes import FP64, DataType, cast_scalar, lookup_dtype
from .exceptions import DimensionMismatch, InvalidValue, NotImplementedException, NoValue
from .expressions import Expression, Updater
from .indexing import resolve_scalar_index
from .limits import check_dimension, require_bytes
from .operators.base import Positions
from .ops.indexing import extract_expr
from .ops.reduction import reduce_rows_expr, reduce_scalar_expr
from .ops.structural import kronecker_expr, matrix_diag, transpose_csr
from .scalar import Scalar
from .storage import build_entries, building_backend, host_array, infer_dtype

_HEAVIEST_ROWS = 1 << 16  # row lengths kept for Matrix._most_entries


class Matrix(Collection):
    """A sparse ``nrows x ncols`` matrix; a missing entry is not zero."""

    kind = "Matrix"

    def __init__(self, dtype: Any = FP64, nrows: int = 0, ncols: int = 0, *, backend: str | None = None,
                 name: str | None = None) -> None:
        self._be = get_backend(backend)
        self._dtype = lookup_dtype(dtype)
        self._nrows = _check_dim(nrows, "nrows")
        self._ncols = _check_dim(ncols, "ncols")
        self.clear()
        self.name = name

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_coo(cls, rows: Any, cols: Any, values: Any = 1.0, nrows: int | None = None,
                 ncols: int | None = None, *, dtype: Any = None, dup_op: Any = None,
                 backend: str | None = None, name: str | None = None) -> "Matrix":
        """A Matrix from coordinates and values (a scalar value is given to every entry)."""
        be = get_backend(backend)
        build = building_backend(be, rows, cols, values)
        r = host_array(build, rows, np.int64, "rows")
        c = host_array(build, cols, np.int64, "cols")
        t = infer_dtype(values, dtype)
        nrows = int(r.max()) + 1 if nrows is None and len(r) else (nrows or 0)
        ncols = int(c.max()) + 1 if ncols is None and len(c) else (ncols or 0)
        A = cls(t, nrows, ncols, backend=be.name, name=name)
        rs, cs, vals = build_entries(build, [r, c], [A._nrows, A._ncols], values, t, dup_op)
        A._set_sorted(*(be.asarray(a) for a in (rs, cs, vals)))
        return A

    @classmethod
    def from_dense(cls, values: Any, missing_value: Any = None, *, dtype: Any = None,
                   backend: str | None = None, name: str | None = None) -> "Matrix":
        """A Matrix with an entry at every position, except where the value is ``missing_value``."""
        be = get_backend(backend)
        try:
            arr = be.asarray(values)
        except (ValueError, TypeError) as exc:  # a ragged list, or values that are not numbers
            raise InvalidValue(f"from_dense needs a rectangular array of numbers: {exc}") from None
        if arr.ndim != 2:
            raise DimensionMismatch(f"from_dense needs a 2-D array for a Matrix, got shape {arr.shape}")
        t = lookup_dtype(dtype) if dtype is not None else lookup_dtype(arr.dtype)
        keep = _present(be.xp, arr, missing_value)
        r, c = be.xp.nonzero(keep)
        return cls.from_coo(r, c, arr[r, c], arr.shape[0], arr.shape[1], dtype=t, backend=be.name, name=name)

    @classmethod
    def from_csr(cls, indptr: Any, col_indices: Any, values: Any = 1.0, ncols: int | None = None, *,
                 dtype: Any = None, backend: str | None = None, name: str | None = None) -> "Matrix":
        """A Matrix from CSR arrays (column indices sorted or not; no duplicates)."""
        be = get_backend(backend)
        ptr = host_array(be, indptr, np.int64, "indptr")
        if len(ptr) == 0 or int(ptr[0]) != 0 or bool((ptr[1:] < ptr[:-1]).any()):
            raise InvalidValue("indptr must start at 0 and never decrease")
        idx = host_array(be, col_indices, np.int64, "col_indices")
        if int(ptr[-1]) != len(idx):
            raise DimensionMismatch(f"indptr ends at {int(ptr[-1])} but there are {len(idx)} column indices")
        rows = sp.csr_rows(be.xp, ptr)
        return cls.from_coo(rows, idx, values, len(ptr) - 1, ncols, dtype=dtype, backend=be.name, name=name)

    @classmethod
    def from_csc(cls, indptr: Any, row_indices: Any, values: Any = 1.0, nrows: int | None = None, *,
                 dtype: Any = None, backend: str | None = None, name: str | None = None) -> "Matrix":
        """A Matrix from CSC arrays."""
        T = cls.from_csr(indptr, row_indices, values, nrows, dtype=dtype, backend=backend)
        out = T._transposed().dup()
        out.name = name
        return out

    @classmethod
    def from_scalar(cls, value: Any, nrows: int, ncols: int, dtype: Any = None, *,
                    backend: str | None = None, name: str | None = None) -> "Matrix":
        """A full Matrix with every entry equal to ``value``."""
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
                     values: Any) -> "Matrix":
        """A Matrix from entries already sorted by (row, col) and unique."""
        A = cls(dtype, nrows, ncols, backend=be.name)
        A._set_sorted(rows, cols, be.cast(values, dtype))
        return A

    # Storage: CSR row pointers, or (hypersparse, when row pointers would dwarf the entries)
    # the row of every entry.  Either gives the other on demand.
    def _set_csr(self, indptr: Any, indices: Any, values: Any) -> None:
        # int32 row pointers and column indices where they fit (each decided on its own: the
        # kernels take int64 pointers beside int32 indices, as a matrix of 2**31 entries needs).
        self._ptr: Any = indptr.astype(sp.index_dtype(len(indices) + 1), copy=False)
        self._rowidx: Any = None
        self._indices = indices.astype(sp.index_dtype(self._ncols), copy=False)
        self._vals = values
        self._T: Matrix | None = None
        self._derived: dict[Any, Any] = {}  # see _memo

    def _set_sorted(self, rows: Any, cols: Any, values: Any) -> None:
        if self._nrows <= 8 * len(cols) + 2**20:
            self._set_csr(sp.rows_to_indptr(self._be.xp, rows, self._nrows), cols, values)
            return
        self._set_csr(self._be.xp.zeros(0, dtype=np.int64), cols, values)
        self._ptr, self._rowidx = None, rows.astype(np.int64, copy=False)

    @property
    def _indptr(self) -> Any:
        """CSR row pointers (built on first need for a hypersparse matrix)."""
        if self._ptr is None:
            if self._nrows > 2**31:
                raise NotImplementedException(
                    f"this operation needs row pointers for all {self._nrows} rows of a hypersparse matrix")
            self._ptr = sp.rows_to_indptr(self._be.xp, self._rowidx, self._nrows)
        return self._ptr

    def _memo(self, key: Any, make: Any) -> Any:
        """``make()``, a value derived from the stored arrays, computed once until they change."""
        try:
            return self._derived[key]
        except KeyError:
            made = self._derived[key] = make()
            return made

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

    def _values_as(self, t: DataType) -> Any:
        """The stored values cast to ``t``, cached: a loop of products casts them once."""
        vals = self._vals
        if vals.dtype == t.np_type:  # (most often: no cast, and no cache key to hash)
            return vals
        return self._memo(("values", t), lambda: self._be.cast(vals, t))

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
    def T(self) -> "TransposedMatrix":  # noqa: N802 - GraphBLAS name
        """The transpose, for use in an expression (``A.T.new()`` materialises it)."""
        return TransposedMatrix(self)

    # ---------------------------------------------------------------- export
    def to_coo(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, cols, values) as NumPy arrays, sorted by row then column."""
        h = self._be.to_host
        return h(self._rows()).astype(np.int64), h(self._indices).astype(np.int64), h(self._vals).copy()

    def to_csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(indptr, col_indices, values) as NumPy arrays."""
        h = self._be.to_host
        return h(self._indptr).astype(np.int64), h(self._indices).astype(np.int64), h(self._vals).copy()

    def to_csc(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(indptr, row_indices, values) as NumPy arrays."""
        return self._transposed().to_csr()

    def to_dense(self, fill_value: Any = None, dtype: Any = None) -> np.ndarray:
        """A dense NumPy array; missing entries get ``fill_value`` (required if any are missing)."""
        t = lookup_dtype(dtype) if dtype is not None else self._dtype
        if fill_value is None and self.nvals < self._nrows * self._ncols:
            raise NoValue("some entries are missing; give fill_value= for them")
        fill = cast_scalar(0 if fill_value is None else fill_value, t)
        require_bytes(self._nrows * self._ncols * t.itemsize, "numpy", f"a dense {self._nrows}x{self._ncols} array")
        out = np.full(self.shape, fill, dtype=t.np_type)
        r, c, v = self.to_coo()
        out[r, c] = v
        return out

    def to(self, backend: str) -> "Matrix":
        """A copy on another backend (``"numpy"`` or ``"cupy"``)."""
        be = get_backend(backend)
        h = self._be.to_host
        return Matrix._from_sorted(be, self._dtype, self._nrows, self._ncols, be.asarray(h(self._rows())),
                                   be.asarray(h(self._indices)), be.asarray(h(self._vals)))

    # ---------------------------------------------------------------- elements
    def __getitem__(self, key: Any) -> Expression:
        return extract_expr(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        if _is_element(key) and not hasattr(value, "kind"):
            self._set_element(resolve_scalar_index(key[0], self._nrows, "row"),
                              resolve_scalar_index(key[1], self._ncols, "column"), value)
        else:
            Updater(self)[key] = value

    def __delitem__(self, key: Any) -> None:
        if not _is_element(key):
            raise InvalidValue("del needs one element: del A[i, j]")
        i = resolve_scalar_index(key[0], self._nrows, "row")
        j = resolve_scalar_index(key[1], self._ncols, "column")
        at, found = self._locate(i, j)
        if found:
            keep = self._be.xp.ones(self.nvals, dtype=bool)
            keep[at] = False
            self._set_sorted(self._rows()[keep], self._indices[keep], self._vals[keep])

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
        val = self[row, col].value
        return default if val is None else val

    # ---------------------------------------------------------------- housekeeping
    def dup(self, dtype: Any = None, *, mask: Any = None, name: str | None = None) -> "Matrix":
        """A copy, optionally cast to ``dtype`` and keeping only the entries under ``mask``."""
        if mask is not None:
            return self._as_expression().new(dtype, mask=mask, name=name)
        t = lookup_dtype(dtype) if dtype is not None else self._dtype
        A = Matrix._from_sorted(self._be, t, self._nrows, self._ncols, self._rows().copy(), self._indices.copy(),
                                self._vals.copy())
        A.name = name
        return A

    def clear(self) -> None:
        """Remove every entry."""
        xp = self._be.xp
        empty = xp.zeros(0, dtype=np.int64)
        self._set_sorted(empty, empty, xp.zeros(0, dtype=self._dtype.np_type))

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
        return multiply.mxm_expr(self, other, op)

    def mxv(self, u: Any, op: Any = "plus_times", *, method: str = "auto") -> Expression:
        """``A u`` over the semiring ``op``; ``method`` is "auto", "push" or "pull"."""
        return multiply.mxv_expr(self, u, op, method)

    def reduce_rowwise(self, op: Any = "plus") -> Expression:
        """A Vector: each row reduced with the monoid ``op`` (empty rows have no entry)."""
        return reduce_rows_expr(self, op, transpose=False)

    def reduce_columnwise(self, op: Any = "plus") -> Expression:
        """A Vector: each column reduced with the monoid ``op``."""
        return reduce_rows_expr(self, op, transpose=True)

    def reduce_scalar(self, op: Any = "plus", *, allow_empty: bool = True) -> Expression:
        """A Scalar: all entries reduced with the monoid ``op``."""
        return reduce_scalar_expr(self, op, allow_empty)

    def kronecker(self, other: Any, op: Any = "times") -> Expression:
        """The Kronecker product, entries combined with ``op``."""
        return kronecker_expr(self, other, op)

    def diag(self, k: int = 0) -> Any:
        """Diagonal ``k`` as a Vector."""
        return matrix_diag(self, k)

    # ---------------------------------------------------------------- internals for the glue
    def _transposed(self) -> "Matrix":
        """The transpose as a Matrix, cached until this matrix changes."""
        if self._T is None:
            self._T = transpose_csr(self)
        return self._T

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

    def _from_entries(self, e: sp.Entries, ks: sp.KeySpace, dtype: DataType) -> "Matrix":
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


class TransposedMatrix:
    """``A.T``: the transpose of a Matrix inside an expression."""

    kind = "Matrix"

    def __init__(self, parent: Matrix) -> None:
        self.parent = parent

    @property
    def shape(self) -> tuple[int, int]:
        """The transposed shape."""
        return (self.parent.ncols, self.parent.nrows)

    @property
    def nrows(self) -> int:
        """Rows of the transpose."""
        return self.parent.ncols

    @property
    def ncols(self) -> int:
        """Columns of the transpose."""
        return self.parent.nrows

    @property
    def dtype(self) -> DataType:
        """The parent's type."""
        return self.parent.dtype

    @property
    def backend(self) -> str:
        """The parent's backend."""
        return self.parent.backend

    @property
    def T(self) -> Matrix:  # noqa: N802
        """The transpose of the transpose: the parent."""
        return self.parent

    def new(self, dtype: Any = None, *, mask: Any = None, name: str | None = None) -> Matrix:
        """The transpose as a new Matrix."""
        return self._as_expression().new(dtype, mask=mask, name=name)

    def _as_expression(self) -> Expression:
        p = self.parent
        return Expression("transpose", "Matrix", self.shape, p.dtype, p._be, lambda mask: p._transposed(), (p,))

    def __getitem__(self, key: Any) -> Expression:
        return self.parent._transposed()[key]

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
        return getattr(self.parent._transposed(), name)

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


def _present(xp: Any, arr: Any, missing_value: Any) -> Any:
    """Which elements of a dense array become entries (NaN as missing_value matches NaN)."""
    if missing_value is None:
        return xp.ones(arr.shape, dtype=bool)
    if isinstance(missing_value, float) and np.isnan(missing_value):
        return ~xp.isnan(arr) if arr.dtype.kind == "f" else xp.ones(arr.shape, dtype=bool)
    return arr != missing_value


def _check_dim(n: Any, what: str) -> int:
    return check_dimension(n, what)


def _is_element(key: Any) -> bool:
    return (isinstance(key, tuple) and len(key) == 2
            and all(isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)) for k in key))


__all__ = ["Matrix", "TransposedMatrix", "as_matrix"]

# At the end: ops.multiply imports this module (Matrix, as_matrix), and Vector's, which
# imports _present from here; all are defined by now.
from .ops import multiply  # noqa: E402
