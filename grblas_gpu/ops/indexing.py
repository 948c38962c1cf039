"""Extract (``A[rows, cols]``) and assign (``C(mask, accum)[rows, cols] << B``).

Assign follows the C API: inside the region ``rows x cols`` the source replaces
``C`` (entries the source lacks are deleted), or with an accumulator is combined
with it; then the result is written into ``C`` through the mask over the whole of
``C``, so ``replace`` clears entries outside the mask even outside the region.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _bitmap
from .. import _sparse as sp
from .._operations import bind_evaluator, bind_operations
from ..dtypes import cast_scalar, dtype_of_value, lookup_dtype
from ..exceptions import DimensionMismatch, DomainMismatch
from ..expressions import (
    Expression,
    Updater,
    as_expression,
    check_same_backend,
    is_scalar_like,
    split_key,
    write_result,
)
from ..indexing import ALL, resolve_index
from ..limits import require_bytes
from ..mask import Mask
from ..matrix import Matrix
from ..operators import typed_binary
from ..scalar import Scalar
from ..vector import Vector

# ------------------------------------------------------------------------------ extract


def extract_expr(obj: Any, key: Any) -> Expression:
    """``obj[key]`` as an expression (a Scalar, Vector or Matrix result)."""
    if obj.kind == "Vector":
        idx, scalar = resolve_index(split_key(obj, key)[0], obj.size)
        expr = _vector_extract(obj, idx, scalar)
    else:
        rows_key, cols_key = split_key(obj, key)
        I, i_scalar = resolve_index(rows_key, obj.nrows, "row")
        J, j_scalar = resolve_index(cols_key, obj.ncols, "column")
        expr = _matrix_extract(obj, I, J, i_scalar, j_scalar)
    expr._assign_target = (obj, key)  # type: ignore[attr-defined]
    return expr


def _vector_extract(v: Any, idx: np.ndarray | None, scalar: bool) -> Expression:
    size = v.size if idx is None else len(idx)
    kind = "Scalar" if scalar else "Vector"
    return Expression("extract", kind, () if scalar else (size,), v.dtype, v._be, "extract_vector", (v,),
                      (idx, scalar, size))


def _extract_vector(expr: Expression, mask: Mask | None) -> Any:
    """An ``extract_vector`` expression's result: the Vector's entries at its indices."""
    (v,), (idx, scalar, size) = expr.args, expr.params
    be = v._be
    xp = be.xp
    if idx is None:
        out = v.dup()
    else:
        want = be.asarray(idx)
        pos = xp.searchsorted(v._idx, want)
        pos = xp.minimum(pos, max(v.nvals - 1, 0))
        found = (v._idx[pos] == want) if v.nvals else xp.zeros(len(want), dtype=bool)
        q = xp.flatnonzero(found).astype(np.int64)
        out = Vector._from_parts(be, v.dtype, size, q, v._vals[pos[q]])
    return _as_scalar(out) if scalar else out


def _matrix_extract(A: Any, I: np.ndarray | None, J: np.ndarray | None, i_scalar: bool,
                    j_scalar: bool) -> Expression:
    nr = A.nrows if I is None else len(I)
    nc = A.ncols if J is None else len(J)
    params = (I, J, i_scalar, j_scalar, nr, nc)
    if i_scalar and j_scalar:
        return Expression("extract", "Scalar", (), A.dtype, A._be, "extract_matrix", (A,), params)
    if i_scalar or j_scalar:
        return Expression("extract", "Vector", (nc if i_scalar else nr,), A.dtype, A._be, "extract_matrix", (A,),
                          params)
    return Expression("extract", "Matrix", (nr, nc), A.dtype, A._be, "extract_matrix", (A,), params)


def _extract_matrix(expr: Expression, mask: Mask | None) -> Any:
    """An ``extract_matrix`` expression's result: the Matrix's entries at its rows and columns."""
    (A,), (I, J, i_scalar, j_scalar, nr, nc) = expr.args, expr.params
    r, c, vals = _submatrix(A, I, J)
    be = A._be
    if i_scalar and j_scalar:
        s = Scalar(A.dtype, backend=be.name)
        if len(vals):
            s._put(be.to_host(vals[:1])[0])
        return s
    if i_scalar:
        return Vector._from_parts(be, A.dtype, nc, c, vals)
    if j_scalar:
        return Vector._from_parts(be, A.dtype, nr, r, vals)
    return Matrix._from_sorted(be, A.dtype, nr, nc, r, c, vals)


def _submatrix(A: Any, I: np.ndarray | None, J: np.ndarray | None) -> tuple[Any, Any, Any]:
    """Sorted (row, col, value) of ``A[I, J]`` in output coordinates."""
    be = A._be
    xp = be.xp
    if I is None:
        r, p = A._rows(), sp.arange(xp, A.nvals)
    else:
        r, p = sp.expand_ranges(xp, *A._row_ranges(be.asarray(I)))
    c = A._indices[p].astype(np.int64)
    if J is not None:
        r, c, p = _map_columns(xp, be.asarray(J), r, c, p)
        order = sp.lexsort_pairs(xp, r, c)
        r, c, p = r[order], c[order], p[order]
    return r, c, A._vals[p]


def _map_columns(xp: Any, J: Any, r: Any, c: Any, p: Any) -> tuple[Any, Any, Any]:
    """Each entry in column ``c`` goes to every output column q with J[q] == c."""
    order = xp.argsort(J)
    Js = J[order]
    lo = xp.searchsorted(Js, c, side="left").astype(np.int64)
    hi = xp.searchsorted(Js, c, side="right").astype(np.int64)
    ptr = xp.zeros(len(c) + 1, dtype=np.int64)
    xp.cumsum(hi - lo, out=ptr[1:])
    request = sp.segment_ids(xp, ptr, int(ptr[-1]))
    slot = lo[request] + (sp.arange(xp, len(request)) - ptr[request])
    return r[request], order[slot].astype(np.int64), p[request]


def _as_scalar(v: Any) -> Scalar:
    s = Scalar(v.dtype, backend=v.backend)
    if v.nvals:
        s._put(v._be.to_host(v._vals[:1])[0])
    return s


# ------------------------------------------------------------------------------ assign


def assign(updater: Updater, rows_key: Any, cols_key: Any, value: Any) -> None:
    """Assign ``value`` into the region of ``updater.target`` (see the module docstring)."""
    C = updater.target
    if C.kind == "Vector":
        I, _ = resolve_index(_all_if_none(rows_key), C.size)
        J, j_scalar, i_scalar = None, False, False
    else:
        I, i_scalar = resolve_index(_all_if_none(rows_key), C.nrows, "row")
        J, j_scalar = resolve_index(_all_if_none(cols_key), C.ncols, "column")
    if C.kind == "Matrix" and updater.mask is not None and updater.mask.parent.kind == "Vector":
        _assign_row_or_column(updater, rows_key, cols_key, value, i_scalar, j_scalar)
        return
    if C.kind == "Vector" and I is None and is_scalar_like(value):
        mask = updater.mask
        if _bitmap.wants_bitmap(C, mask.parent if mask is not None else None):
            if _assign_scalar_everywhere(updater, value):
                return
        elif (mask is not None and not mask.complement and mask.parent.kind == "Vector"
              and _assign_scalar_at_mask(updater, value)):
            return
    region = _region_shape(C, I, J, i_scalar, j_scalar)
    source = _source_collection(C, value, region, I, J, i_scalar, j_scalar, updater.mask)
    new_c = _assigned(C, source, I, J, updater.accum)
    write_result(C, new_c, updater.mask, None, updater.replace)


def _scalar_and_type(value: Any) -> tuple[Any, Any] | None:
    """(value, type) of a scalar-like assign source; None for an empty Scalar."""
    v = value.new() if isinstance(value, Expression) else value
    if isinstance(v, Scalar) and v.is_empty:
        return None
    raw = v.require_value() if isinstance(v, Scalar) else v
    return raw, v.dtype if isinstance(v, Scalar) else dtype_of_value(raw)


def _assign_scalar_at_mask(updater: Updater, value: Any) -> bool:
    """``w(mask, accum, replace)[:] << s`` for a sparse Vector mask, not complemented: only
    the mask's positions can change, so ``s`` is written as a Vector of those positions (work
    in the mask's entries, not the Vector's size).  False for an empty Scalar."""
    scalar = _scalar_and_type(value)
    if scalar is None:
        return False
    raw, t = scalar
    C, mask = updater.target, updater.mask
    assert mask is not None  # called under a mask only
    be = C._be
    keys = mask.entries(be, None).keys
    fill = be.full(keys.shape[0], raw, t)
    source = Vector._from_parts(be, t, C.size, keys, fill)
    if C._count == 0 and updater.accum is None:  # the source lies in the mask; C has nothing to keep
        write_result(C, source, None, None, False)
    else:
        write_result(C, source, mask, updater.accum, updater.replace)
    return True


def _assign_scalar_everywhere(updater: Updater, value: Any) -> bool:
    """``w(mask, accum, replace)[:] << s`` on bitmaps: the same as writing a full Vector of ``s``
    (inside the region ``C'(i) = accum(C(i), s)`` or ``s``; then the masked write).  Returns
    False for an empty Scalar, which the general path handles."""
    scalar = _scalar_and_type(value)
    if scalar is None:
        return False
    raw, t = scalar
    C = updater.target
    if updater.accum is None and updater.mask is not None:  # no full Vector of s needed
        _bitmap.assign_scalar(C, cast_scalar(cast_scalar(raw, t), C.dtype), updater.mask, updater.replace)
        return True

    op = typed_binary(updater.accum, C.dtype) if updater.accum is not None else None
    _bitmap.write_vector(C, Vector.from_scalar(raw, C.size, t, backend=C.backend), updater.mask, op, updater.replace)
    return True


def _assign_row_or_column(updater: Updater, rows_key: Any, cols_key: Any, value: Any, i_scalar: bool,
                          j_scalar: bool) -> None:
    """GrB_Row_assign / GrB_Col_assign: the Vector mask, accumulator and replace act on one row
    (or column) of C; the rest of C is untouched."""
    C = updater.target
    if i_scalar == j_scalar:
        # a TypeError, as python-graphblas raises: a mask of the wrong kind for this assign
        raise DomainMismatch("Unable to use Vector mask on this assignment to a Matrix: a Vector mask on a "
                             "Matrix output needs a row or column assign, C(mask)[i, cols]")
    line_key = (rows_key, slice(None)) if i_scalar else (slice(None), cols_key)
    line = C[line_key].new()
    Updater(line, updater.mask, updater.accum, updater.replace)[cols_key if i_scalar else rows_key] << value
    Updater(C)[line_key] << line


def _all_if_none(key: Any) -> Any:
    """``None`` (no index given) means every index."""
    return ALL if key is None else key


def _region_shape(C: Any, I: Any, J: Any, i_scalar: bool, j_scalar: bool) -> tuple[int, ...]:
    n_i = (C.size if C.kind == "Vector" else C.nrows) if I is None else len(I)
    if C.kind == "Vector":
        return (n_i,)
    n_j = C.ncols if J is None else len(J)
    if i_scalar:
        return (n_j,)
    if j_scalar:
        return (n_i,)
    return (n_i, n_j)


def _source_collection(C: Any, value: Any, region: tuple[int, ...], I: Any, J: Any, i_scalar: bool,
                       j_scalar: bool, mask: Mask | None) -> Any:
    """The source as a collection of C's shape, in C's coordinates."""
    be = C._be
    xp = be.xp
    if is_scalar_like(value):
        v = value.new() if isinstance(value, Expression) else value
        if isinstance(v, Scalar) and v.is_empty:
            return _empty_like(C, C.dtype)
        raw = v.require_value() if isinstance(v, Scalar) else v
        t = v.dtype if isinstance(v, Scalar) else dtype_of_value(raw)
        coords = _scalar_region_coords(C, I, J, mask)
        vals = xp.full(len(coords[0]), np.asarray(raw, dtype=t.np_type)[()], dtype=t.np_type)
        return _collection_from_coords(C, coords, vals, t)
    expr = as_expression(value)
    single = (C.kind == "Vector" and i_scalar) or (i_scalar and j_scalar)
    if len(expr.shape) != (0 if single else len(region)):
        # a Matrix into a row, a Vector into one element: python-graphblas's TypeError and words
        raise DomainMismatch(f"Bad type for assign: a {expr.kind} of shape {expr.shape} into a region of "
                             f"shape {region}; the value must have the region's rank (or be a scalar)")
    if tuple(expr.shape) != region:
        raise DimensionMismatch(f"shape mismatch: assign: source of shape {expr.shape} does not fit the region "
                                f"of shape {region}")
    check_same_backend(C, expr)
    src = expr.compute(None)
    if src.kind == "Vector":
        idx = src._idx
        if C.kind == "Vector":
            coords = [_map(xp, I, idx)]
        elif i_scalar:
            coords = [xp.full(len(idx), int(I[0]), dtype=np.int64), _map(xp, J, idx)]
        else:
            coords = [_map(xp, I, idx), xp.full(len(idx), int(J[0]), dtype=np.int64)]
        return _collection_from_coords(C, coords, src._vals, src.dtype)
    rows, cols = src._rows(), src._indices.astype(np.int64)
    return _collection_from_coords(C, [_map(xp, I, rows), _map(xp, J, cols)], src._vals, src.dtype)


def _map(xp: Any, index: Any, local: Any) -> Any:
    return local.astype(np.int64) if index is None else xp.asarray(index)[local]


def _scalar_region_coords(C: Any, I: Any, J: Any, mask: Mask | None) -> list[Any]:
    """Every position of the region (only the mask's, when the mask allows no more)."""
    be = C._be
    xp = be.xp
    if I is None and (C.kind == "Vector" or J is None) and mask is not None and not mask.complement:
        m = mask.parent
        ks = m._keyspace([m])
        e = m._entries(ks)
        if not mask.structure:
            e = e.take(be.cast(e.values, lookup_dtype(bool)))
        return [e.keys] if C.kind == "Vector" else list(m._coords_of(e.keys, ks))
    n_rows = (C.size if C.kind == "Vector" else C.nrows) if I is None else len(I)
    n_cols = 1 if C.kind == "Vector" else (C.ncols if J is None else len(J))
    # (coordinates, values, then C's copy with them: about 32 bytes a position)
    require_bytes(n_rows * n_cols * 32, be.name, f"assigning a scalar to {n_rows * n_cols} positions")
    rows = sp.arange(xp, C.size if C.kind == "Vector" else C.nrows) if I is None else be.asarray(I)
    if C.kind == "Vector":
        return [rows]
    cols = sp.arange(xp, C.ncols) if J is None else be.asarray(J)
    return [xp.repeat(rows, len(cols)), xp.tile(cols, len(rows))]


def _collection_from_coords(C: Any, coords: list[Any], vals: Any, dtype: Any) -> Any:
    """A collection of C's shape; where coordinates repeat, the last value wins."""
    be = C._be
    xp = be.xp
    if C.kind == "Vector":
        order = sp.lexsort_pairs(xp, xp.zeros(len(coords[0]), dtype=np.int64), coords[0], stable_ties=True)
        idx, v = coords[0][order], vals[order]
        last = _last_of_runs(xp, [idx])
        return Vector._from_parts(be, dtype, C.size, idx[last], v[last])
    order = sp.lexsort_pairs(xp, coords[0], coords[1], stable_ties=True)
    r, c, v = coords[0][order], coords[1][order], vals[order]
    last = _last_of_runs(xp, [r, c])
    r, c, v = r[last], c[last], v[last]
    return Matrix._from_sorted(be, dtype, C.nrows, C.ncols, r, c, v)


def _last_of_runs(xp: Any, coords: list[Any]) -> Any:
    n = len(coords[0])
    last = xp.ones(n, dtype=bool)
    if n > 1:
        same = xp.ones(n - 1, dtype=bool)
        for c in coords:
            same &= c[1:] == c[:-1]
        last[:-1] = ~same
    return last


def _empty_like(C: Any, dtype: Any) -> Any:
    if C.kind == "Vector":
        return Vector(dtype, C.size, backend=C.backend)
    return Matrix(dtype, C.nrows, C.ncols, backend=C.backend)


def _assigned(C: Any, S: Any, I: Any, J: Any, accum: Any) -> Any:
    """C with the region replaced by S (or combined with it by ``accum``)."""
    be = C._be
    ks = C._keyspace([C, S])
    c, s = C._entries(ks), S._entries(ks)
    inside = _in_region(C, c.keys, ks, I, J)
    outside = c.take(~inside)
    if accum is None:
        region = sp.Entries(s.keys, be.cast(s.values, C.dtype))
    else:
        op = typed_binary(accum, C.dtype)
        region = sp.union(be, c.take(inside), s, op, C.dtype, C._positions_of(ks))
    return C._from_entries(sp.merge_disjoint(be, [outside, region], C.dtype), ks, C.dtype)


def _in_region(C: Any, keys: Any, ks: Any, I: Any, J: Any) -> Any:
    be = C._be
    xp = be.xp
    if C.kind == "Vector":
        return xp.ones(len(keys), dtype=bool) if I is None else sp.isin_sorted(xp, keys, xp.unique(be.asarray(I)))
    rows, cols = C._coords_of(keys, ks)
    inside = xp.ones(len(keys), dtype=bool)
    if I is not None:
        inside &= sp.isin_sorted(xp, rows, xp.unique(be.asarray(I)))
    if J is not None:
        inside &= sp.isin_sorted(xp, cols, xp.unique(be.asarray(J)))
    return inside


__all__ = ["extract_expr", "assign", "DomainMismatch"]


bind_evaluator("extract_vector", _extract_vector)
bind_evaluator("extract_matrix", _extract_matrix)
bind_operations(assign=assign, extract_expr=extract_expr)
