"""python-graphblas methods of Vector and Matrix that the algebra builds from its own
operations: ``ndim``, iteration over stored indices, dictionaries, ``build``, ``outer``,
``power``, ``setdiag``, ``reposition``, and a clear error for ``np.asarray(v)``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ._operations import bind_evaluator, operations, result_types
from .exceptions import DimensionMismatch, InvalidValue, OutputNotEmpty


class CompatMethods:
    """Methods shared by Vector and Matrix (mixed into :class:`grblas_gpu.collection.Collection`)."""

    __slots__ = ()

    kind: str

    @property
    def ndim(self) -> int:
        """1 for a Vector, 2 for a Matrix."""
        return 1 if self.kind == "Vector" else 2

    def __iter__(self) -> Iterator[Any]:
        """The stored indices (a Vector) or (row, column) pairs (a Matrix), in order."""
        coo = self.to_coo()  # type: ignore[attr-defined]
        if self.kind == "Vector":
            return iter(coo[0].tolist())
        return zip(coo[0].tolist(), coo[1].tolist())

    def __contains__(self, key: Any) -> bool:
        """``(i, j) in A``: whether the Matrix stores an entry there (a Vector: ``i in v``)."""
        if self.kind == "Vector":
            if not isinstance(key, (int, np.integer)) or isinstance(key, bool):
                raise TypeError(f"Invalid index for a Vector: {key!r}; use an integer")
        elif not (isinstance(key, tuple) and len(key) == 2
                  and all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in key)):
            raise TypeError(f"Invalid index for a Matrix: {key!r}; use a (row, column) pair of integers")
        return self[key].new().value is not None  # type: ignore[index]

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """A full Vector on the CuPy backend shares its values with ``cupy.asarray(v)``, torch
        and numba as a CUDA array (no copy; the library never writes them in place).  Absent on
        the CPU, for a Matrix, and while an entry is missing (then ``hasattr`` is False)."""
        if self.kind != "Vector" or self.backend != "cupy":  # type: ignore[attr-defined]
            raise AttributeError("__cuda_array_interface__ is for a full Vector on the cupy backend")
        if self.nvals != self.size:  # type: ignore[attr-defined]
            raise AttributeError("__cuda_array_interface__ needs a full Vector; some entries are missing")
        vec: Any = self
        vec._bitmap()
        # (shared from now on, as __dlpack__ marks it: never written in place)
        return vec._store.export_values(vec._be).__cuda_array_interface__

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        name = "v" if self.kind == "Vector" else "A"
        raise TypeError(f"{type(self).__name__} can't be directly converted to a numpy array; perhaps use "
                        f"`{name}.to_coo()` or `{name}.to_dense(fill_value)` instead")

    # ---------------------------------------------------------------- dictionaries
    def to_dict(self) -> dict[int, Any]:
        """A Vector's entries as ``{index: value}``."""
        if self.kind != "Vector":
            raise AttributeError("to_dict is for a Vector; a Matrix has to_dicts")
        idx, vals = self.to_coo()  # type: ignore[attr-defined]
        return dict(zip(idx.tolist(), vals.tolist()))

    def to_dicts(self, order: str = "rowwise") -> dict[int, dict[int, Any]]:
        """A Matrix's entries as ``{row: {col: value}}`` (``order="columnwise"``:
        ``{col: {row: value}}``)."""
        if self.kind != "Matrix":
            raise AttributeError("to_dicts is for a Matrix; a Vector has to_dict")
        rows, cols, vals = self.to_coo()  # type: ignore[attr-defined]
        outer, inner = _order(order, rows, cols)
        out: dict[int, dict[int, Any]] = {}
        for i, j, x in zip(outer.tolist(), inner.tolist(), vals.tolist()):
            out.setdefault(i, {})[j] = x
        return out

    def to_edgelist(self, dtype: Any = None, *, values: bool = True, sort: bool = True) -> tuple[Any, Any]:
        """A Matrix's entries as an ``n x 2`` array of (row, column) pairs and their values."""
        if self.kind != "Matrix":
            raise AttributeError("to_edgelist is for a Matrix")
        rows, cols, vals = self.to_coo(dtype, values=values)  # type: ignore[attr-defined]
        return np.column_stack([rows, cols]), vals

    # ---------------------------------------------------------------- build
    def build(self, *args: Any, dup_op: Any = None, clear: bool = False, **sizes: Any) -> None:
        """Fill an empty object from coordinates and values (``v.build(indices, values)``,
        ``A.build(rows, cols, values)``); ``clear=True`` empties it first, and ``size`` /
        ``nrows``, ``ncols`` resize it.  OutputNotEmpty if it holds entries otherwise."""
        if not clear and self.nvals:  # type: ignore[attr-defined]
            raise OutputNotEmpty(f"{self.kind} must be empty to build it; pass clear=True to replace its entries")
        cls = type(self)
        if self.kind == "Vector":
            size = sizes.pop("size", None)
            if sizes:
                raise TypeError(f"unexpected arguments {sorted(sizes)}")
            if size is not None:
                self.resize(size)  # type: ignore[attr-defined]
            indices, values = _coords(args, 2)
            built = cls.from_coo(indices, values, size=self.size, dtype=self.dtype,  # type: ignore[attr-defined]
                                 dup_op=dup_op, backend=self.backend)  # type: ignore[attr-defined]
        else:
            nrows, ncols = sizes.pop("nrows", None), sizes.pop("ncols", None)
            if sizes:
                raise TypeError(f"unexpected arguments {sorted(sizes)}")
            if nrows is not None or ncols is not None:
                self.resize(nrows if nrows is not None else self.nrows,  # type: ignore[attr-defined]
                            ncols if ncols is not None else self.ncols)  # type: ignore[attr-defined]
            rows, cols, values = _coords(args, 3)
            built = cls.from_coo(rows, cols, values, nrows=self.nrows, ncols=self.ncols,  # type: ignore[attr-defined]
                                 dtype=self.dtype, dup_op=dup_op, backend=self.backend)  # type: ignore[attr-defined]
        self.clear()  # type: ignore[attr-defined]
        self << built  # type: ignore[operator]

    # ---------------------------------------------------------------- structure
    def outer(self, other: Any, op: Any = "times") -> Any:
        """The outer product of two Vectors: ``M[i, j] = op(self[i], other[j])``."""
        return operations.outer_expr(self, other, op)

    def power(self, n: int, op: Any = "plus_times") -> Any:
        """``A`` multiplied by itself ``n`` times over the semiring ``op`` (``n = 0``: the
        identity, ones on the diagonal), as an expression."""
        from .expressions import Expression

        if self.kind != "Matrix":
            raise AttributeError("power is for a square Matrix")
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise TypeError(f"n must be a nonnegative integer, got {type(n).__name__}")
        if n < 0:
            raise ValueError(f"n must be a nonnegative integer, got {n}")
        if self.nrows != self.ncols:  # type: ignore[attr-defined]
            raise DimensionMismatch(f"power needs a square Matrix; it is {self.nrows}x{self.ncols}")  # type: ignore[attr-defined]
        A = self
        if n == 0:
            _unit(op, self.dtype)  # type: ignore[attr-defined] # checked now, before the expression

        dtype = self.dtype if n == 0 else self.mxm(self, op).dtype  # type: ignore[attr-defined]
        return Expression(f"power({n})", "Matrix", self.shape, dtype, self._be, "power", (A,), (int(n), op))  # type: ignore[attr-defined]

    def setdiag(self, values: Any, k: int = 0, *, mask: Any = None, accum: Any = None) -> None:
        """Set diagonal ``k`` of a Matrix to a scalar (every position of it) or to a Vector
        or array of the diagonal's length (missing Vector entries remove the diagonal's).

        ``mask`` (a mask of the diagonal's length or of the Matrix's shape) limits the positions
        written; ``accum`` combines with the entries there (which then stay where ``values`` has
        none), as an assign does."""
        Vector = result_types.Vector  # (the objects' class, bound as it loads)

        if self.kind != "Matrix":
            raise AttributeError("setdiag is for a Matrix")
        nrows, ncols = self.nrows, self.ncols  # type: ignore[attr-defined]
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
            raise TypeError(f"k must be an integer, got {type(k).__name__}")
        length = max(0, min(nrows + min(k, 0), ncols - max(k, 0)))
        if length == 0 and not (-nrows < k < ncols or (k == 0 and nrows * ncols == 0)):
            raise IndexError(f"k={k}: diagonal is out of range for a {nrows}x{ncols} Matrix")
        if isinstance(values, Vector):
            if values.size != length:
                raise DimensionMismatch(f"Dimensions not compatible: a Vector of size {values.size} for a diagonal "
                                        f"of length {length}")
            d = values
        elif np.ndim(values) == 0:
            if not isinstance(values, (int, float, bool, np.generic)) and getattr(values, "kind", None) != "Scalar":
                raise TypeError(f"Bad type for argument `values` in Matrix.setdiag: {type(values).__name__}; "
                                "expected a Vector, an array or a scalar")
            d = Vector.from_scalar(values.value if hasattr(values, "value") else values, length,
                                   backend=self.backend)  # type: ignore[attr-defined]
        else:
            arr = np.asarray(values)
            if arr.shape != (length,):
                raise DimensionMismatch(f"Dimensions not compatible: an array of shape {arr.shape} for a diagonal "
                                        f"of length {length}")
            d = Vector.from_dense(arr, backend=self.backend)  # type: ignore[attr-defined]
        cls: Any = type(self)
        dtype = self.dtype  # type: ignore[attr-defined]
        if mask is None and accum is None:
            idx, vals = d.to_coo()
            rows, cols = idx - min(k, 0), idx + max(k, 0)
            kept = self.select("offdiag", k).new()  # type: ignore[attr-defined]
            r0, c0, v0 = kept.to_coo()
            new = cls.from_coo(np.concatenate([r0, rows]), np.concatenate([c0, cols]),
                               np.concatenate([v0.astype(dtype.np_type), vals.astype(dtype.np_type)]),
                               nrows=nrows, ncols=ncols, dtype=dtype, backend=self.backend)  # type: ignore[attr-defined]
            self << new  # type: ignore[operator]
            return
        on_diagonal = _diagonal_matrix(cls, Vector.from_scalar(True, length), k, nrows, ncols, self.backend)  # type: ignore[attr-defined]
        if mask is not None:
            on_diagonal = on_diagonal.dup(mask=_diagonal_mask(cls, mask, k, nrows, ncols, self.backend))  # type: ignore[attr-defined]
        D = _diagonal_matrix(cls, d, k, nrows, ncols, self.backend)  # type: ignore[attr-defined]
        self(on_diagonal.S, accum) << D  # type: ignore[operator]

    def reposition(self, *offsets: Any, **sizes: Any) -> Any:
        """The entries moved by an offset (``v.reposition(k, size=n)``,
        ``A.reposition(dr, dc, nrows=, ncols=)``); entries moved outside are dropped."""
        from .expressions import Expression

        be_name = self.backend  # type: ignore[attr-defined]
        cls = type(self)
        if self.kind == "Vector":
            if len(offsets) != 1:
                raise TypeError("Vector.reposition takes one offset")
            size = sizes.get("size") or self.size  # type: ignore[attr-defined]
            shape: tuple[int, ...] = (size,)
        else:
            if len(offsets) != 2:
                raise TypeError("Matrix.reposition takes a row and a column offset")
            shape = (sizes.get("nrows") or self.nrows, sizes.get("ncols") or self.ncols)  # type: ignore[attr-defined]
        for off in offsets:
            if not isinstance(off, (int, np.integer)) or isinstance(off, bool):
                raise TypeError(f"offsets must be integers, got {type(off).__name__}")
        return Expression("reposition", self.kind, shape, self.dtype, self._be, "reposition", (self,),  # type: ignore[attr-defined]
                          (offsets, cls, be_name))


def _power(expr: Any, mask: Any) -> Any:
    """A ``power`` expression's result: its Matrix multiplied by itself n times (by squaring)."""
    (A,), (n, op) = expr.args, expr.params
    if n == 0:
        Vector = result_types.Vector  # (the objects' class, bound as it loads)
        return Vector.from_scalar(_unit(op, A.dtype), A.nrows, A.dtype, backend=A.backend).diag()
    result, base, k = None, A, n
    while k:
        if k & 1:
            result = base.dup() if result is None else result.mxm(base, op).new()
        k >>= 1
        if k:
            base = base.mxm(base, op).new()
    return result


def _reposition(expr: Any, mask: Any) -> Any:
    """A ``reposition`` expression's result: its object's entries moved by the offsets."""
    (src,), (offsets, cls, be_name), shape = expr.args, expr.params, expr.shape
    coo = src.to_coo()
    coords = [c + int(o) for c, o in zip(coo[:-1], offsets)]
    keep = np.ones(len(coo[-1]), dtype=bool)
    for c, n in zip(coords, shape):
        keep &= (c >= 0) & (c < n)
    parts = [c[keep] for c in coords] + [coo[-1][keep]]
    if src.kind == "Vector":
        return cls.from_coo(*parts, size=shape[0], dtype=src.dtype, backend=be_name)
    return cls.from_coo(*parts, nrows=shape[0], ncols=shape[1], dtype=src.dtype, backend=be_name)


def _unit(op: Any, dtype: Any) -> Any:
    """The diagonal of ``A.power(0, op)``: the identity of the multiply's monoid (1 for times,
    the type's largest value for min); a multiply without a monoid raises ValueError."""
    from .operators import typed_semiring

    found = typed_semiring(op, dtype).mult.monoid  # type: ignore[attr-defined]
    if found is None:
        raise InvalidValue(f"power(0, {op!r}): the semiring's binaryop must be associated with a monoid "
                           "(its identity is the diagonal of the 0th power)")
    return found.identity


def _diagonal_matrix(cls: Any, d: Any, k: int, nrows: int, ncols: int, backend: str) -> Any:
    """A Matrix holding Vector ``d`` on diagonal ``k``."""
    idx, vals = d.to_coo()
    return cls.from_coo(idx - min(k, 0), idx + max(k, 0), vals, nrows=nrows, ncols=ncols, dtype=d.dtype,
                        backend=backend)


def _diagonal_mask(cls: Any, mask: Any, k: int, nrows: int, ncols: int, backend: str) -> Any:
    """A setdiag mask as a Matrix mask: one of the diagonal's length is laid on diagonal ``k``."""
    from .mask import Mask, as_mask

    m = as_mask(mask)
    if m is None:
        return m
    if m.parent.kind == "Matrix":
        if tuple(m.parent.shape) != (nrows, ncols):
            raise DimensionMismatch(f"Matrix mask in setdiag is the wrong shape: {tuple(m.parent.shape)}, "
                                    f"not {(nrows, ncols)}")
        return m
    length = max(0, min(nrows + min(k, 0), ncols - max(k, 0)))
    if m.parent.size != length:
        raise DimensionMismatch(f"Vector mask in setdiag is the wrong length: {m.parent.size}, not the "
                                f"diagonal's {length}")
    return Mask(_diagonal_matrix(cls, m.parent, k, nrows, ncols, backend), m.structure, m.complement)


def _order(order: str, rows: Any, cols: Any) -> tuple[Any, Any]:
    """python-graphblas's names of an order (``"colwise"``, ``"F"``, ...), case aside."""
    val = order.lower() if isinstance(order, str) else order
    if val in ("rowwise", "row", "rows", "r", "c"):
        return rows, cols
    if val in ("columnwise", "colwise", "column", "columns", "col", "cols", "f"):
        return cols, rows
    raise ValueError(f"Bad value for order: {order!r}.  Expected \"rowwise\", \"columnwise\", \"rows\", "
                     "\"columns\", \"C\", or \"F\"")


def _coords(args: tuple[Any, ...], n: int) -> tuple[Any, ...]:
    if len(args) == n - 1:
        return (*args, 1.0)
    if len(args) != n:
        raise TypeError(f"build takes {n - 1} coordinate array(s) and values, got {len(args)} arguments")
    return args


def from_dict(cls: Any, d: dict[int, Any], dtype: Any = None, *, size: int | None = None,
              backend: str | None = None, name: str | None = None) -> Any:
    """A Vector from ``{index: value}``."""
    if not isinstance(d, dict):
        raise TypeError(f"from_dict needs a dict, got {type(d).__name__}")
    if not d and size is None:  # python-graphblas: an empty dict gives a Vector of size 0
        size = 0
    return cls.from_coo(np.fromiter(d.keys(), np.int64, len(d)), list(d.values()) if d else [],
                        size=size, dtype=dtype, backend=backend, name=name)


def from_pairs(cls: Any, pairs: Any, dtype: Any = None, *, size: int | None = None, dup_op: Any = None,
               backend: str | None = None, name: str | None = None) -> Any:
    """A Vector from ``[(index, value), ...]``."""
    if isinstance(pairs, np.ndarray) or hasattr(pairs, "__dlpack__"):
        raise TypeError("from_pairs takes a list of (index, value) pairs; for arrays use `Vector.from_coo`")
    pairs = list(pairs)
    if not pairs:
        if size is None:
            raise InvalidValue("Unable to infer size from no pairs: give size=")
        return cls(dtype if dtype is not None else "FP64", size, backend=backend, name=name)
    if any(len(p) != 2 for p in pairs):
        raise ValueError("Each item in the pair list must be a (index, value) pair of two elements")
    indices, values = zip(*pairs)
    return cls.from_coo(np.asarray(indices, dtype=np.int64), list(values), size=size, dtype=dtype, dup_op=dup_op,
                        backend=backend, name=name)


def from_dicts(cls: Any, d: dict[int, dict[int, Any]], dtype: Any = None, *, order: str = "rowwise",
               nrows: int | None = None, ncols: int | None = None, backend: str | None = None,
               name: str | None = None) -> Any:
    """A Matrix from ``{row: {col: value}}`` (``order="columnwise"``: ``{col: {row: value}}``);
    a list of dicts is one dict per row (column)."""
    if isinstance(d, list):
        rowwise = _order(order, 0, 1)[0] == 0
        given = nrows if rowwise else ncols
        if given is not None and given != len(d):
            what = "nrows" if rowwise else "ncols"
            raise ValueError(f"{what} must be equal to the number of dicts ({len(d)}), got {given}")
        d = dict(enumerate(d))
    if not isinstance(d, dict):
        raise TypeError(f"from_dicts needs a dict of dicts, got {type(d).__name__}")
    outer = np.fromiter((i for i, inner in d.items() for _ in inner), np.int64)
    inner = np.fromiter((j for row in d.values() for j in row), np.int64)
    vals = [x for row in d.values() for x in row.values()]
    rows, cols = _order(order, outer, inner)
    # Sizes not given: one past the largest key, empty inner dicts counted.
    n_outer = max(d, default=-1) + 1
    n_inner = int(inner.max()) + 1 if len(inner) else 0
    sizes = (n_outer, n_inner) if rows is outer else (n_inner, n_outer)
    nrows = sizes[0] if nrows is None else nrows
    ncols = sizes[1] if ncols is None else ncols
    if not vals:
        return cls(dtype if dtype is not None else "FP64", nrows, ncols, backend=backend, name=name)
    return cls.from_coo(rows, cols, vals, nrows=nrows, ncols=ncols, dtype=dtype, backend=backend, name=name)


__all__ = ["CompatMethods", "from_dict", "from_dicts", "InvalidValue"]


def is_dtype_like(x: Any) -> bool:
    """Whether a positional argument names a type (``INT64``, ``"FP32"``, ``int``, ``np.float32``)
    rather than a size."""
    from .dtypes import DataType

    return isinstance(x, (DataType, str, type, np.dtype))


def coo_values(vals: Any, dtype: Any) -> Any:
    """A host copy of the values, cast to ``dtype`` when given."""
    from .dtypes import lookup_dtype

    return vals.copy() if dtype is None else vals.astype(lookup_dtype(dtype).np_type)


def dense_type(own: Any, fill_value: Any, dtype: Any) -> Any:
    """The type of a dense export: ``dtype``, else one holding the values and ``fill_value``."""
    from .dtypes import dtype_of_value, lookup_dtype, unify

    if fill_value is not None and not isinstance(fill_value, (bool, int, float, np.generic)) \
            and getattr(fill_value, "kind", None) != "Scalar":
        raise TypeError(f"Bad type for keyword argument `fill_value`: {type(fill_value).__name__}; "
                        "expected a number or a Scalar")
    if dtype is not None:
        return lookup_dtype(dtype)
    if fill_value is None or getattr(fill_value, "kind", None) == "Scalar":
        return own if fill_value is None else unify(own, fill_value.dtype)
    fill_type = dtype_of_value(fill_value)
    if isinstance(fill_value, (bool, int)) and not isinstance(fill_value, np.generic):
        return own if not (own.is_bool and not isinstance(fill_value, bool)) else fill_type
    return unify(own, fill_type)


def named(obj: Any, dtype: Any, name: str | None) -> Any:
    """``obj`` (a new object) cast to ``dtype`` and named ``name`` where given."""
    if dtype is not None and obj.dtype != dtype:
        obj = obj.dup(dtype)
    if name is not None:
        obj.name = name
    return obj


def from_edgelist(cls: Any, edgelist: Any, values: Any = None, dtype: Any = None, *, nrows: int | None = None,
                  ncols: int | None = None, dup_op: Any = None, backend: str | None = None,
                  name: str | None = None) -> Any:
    """A Matrix from an ``n x 2`` edge list (``[(u, v), ...]``) and optional values (default 1)."""
    if isinstance(edgelist, np.ndarray):
        if edgelist.ndim != 2:
            raise ValueError(f"edgelist array must have 2 dimensions (nvals x 2); got {edgelist.ndim}")
        if edgelist.shape[1] == 3:
            raise ValueError("edgelist as NumPy array only supports ``(row, column)``; "
                             "values must be passed separately.")
        if edgelist.shape[1] != 2:
            raise ValueError("Last dimension of edgelist array must be length 2 (for row and column); "
                             f"got {edgelist.shape[1]}")
    elif len(edgelist):
        width = {len(e) for e in edgelist}
        if width not in ({2}, {3}):
            raise ValueError("Each item in the edgelist must have two or three elements (for row and column "
                             f"index, and maybe values); got {sorted(width)}")
        if width == {3}:  # python-graphblas's [(u, v, value), ...]
            if values is not None:
                raise TypeError("Too many sources of values: from `edgelist` triples and from `values=` argument")
            values = [e[2] for e in edgelist]
            edgelist = [e[:2] for e in edgelist]
    elif nrows is None or ncols is None:
        raise ValueError("Unable to infer nrows and ncols from an empty edgelist: give nrows= and ncols=")
    edges = np.asarray(edgelist)
    if edges.size == 0:
        edges = edges.reshape(0, 2).astype(np.int64)
    vals = 1.0 if values is None else values
    return cls.from_coo(edges[:, 0], edges[:, 1], vals, nrows=nrows, ncols=ncols, dtype=dtype, dup_op=dup_op,
                        backend=backend, name=name)


def _given_dtype(dtype: Any) -> Any:
    """A constructor's dtype: None raises TypeError (python-graphblas's words), not FP64."""
    if dtype is None:
        from .exceptions import DomainMismatch

        raise DomainMismatch("Bad dtype: None.  A valid dtype must be provided (FP64, INT64, BOOL, ...)")
    return dtype


def scalar_dup_op(values: Any, dup_op: Any) -> Any:
    """With one value for every entry, repeated coordinates agree: they are one entry (as in
    python-graphblas's ``Vector.from_coo([0, 1, 1], 7)``), not an error."""
    if dup_op is None and np.ndim(values) == 0 and not hasattr(values, "__len__"):
        return "any"
    return dup_op


def require_scalar_value(value: Any) -> None:
    """``from_scalar(v)`` of a Vector or Matrix raises TypeError (python-graphblas's words)."""
    if getattr(value, "kind", None) in ("Vector", "Matrix"):
        raise TypeError(f"Bad type for argument `value`: {type(value).__name__}; expected a Scalar. "
                        "Literal scalars also accepted")


bind_evaluator("power", _power)
bind_evaluator("reposition", _reposition)
