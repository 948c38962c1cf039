"""Transpose, Kronecker product and diagonals."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _sparse as sp
from .._operations import bind_evaluator, bind_operations
from ..dtypes import BOOL, unify
from ..exceptions import DimensionMismatch, InvalidValue
from ..expressions import Expression, check_same_backend
from ..limits import check_dimension, check_product_dimension
from ..mask import Mask
from ..matrix import Matrix, as_matrix
from ..operators import typed_binary
from ..operators.base import Positions
from ..storage import pointer_dtype, stable_argsort
from ..vector import Vector


def transpose_csr(A: Any) -> Any:
    """The transpose of ``A`` as a new Matrix (CSR of A', i.e. A's CSC).

    One stable sort of the column indices (entries are in row order, so equal columns keep
    their rows ascending); the new row pointers come from the column counts.  Work and
    memory O(entries + columns); no int64 copy of int32 indices beyond the permutation."""
    be = A._be
    xp = be.xp
    idx = A._indices
    nnz = int(idx.shape[0])
    if xp is np and A.ncols <= 8 * nnz + 2**20:
        ptr, rows, vals = _counting_transpose(A, pointer_dtype(nnz))
        return Matrix._from_csr_parts(be, A.dtype, A.ncols, A.nrows, ptr, rows, vals)
    if A._rowidx is None and A.ncols <= 8 * nnz + 2**20:  # the GPU's counting sort (no int64 permutation)
        parts = be.transpose_csr(A._ptr, idx, A._vals, A.nrows, A.ncols, pointer_dtype(nnz), sp.index_dtype(A.nrows))
        if parts is not None:
            return Matrix._from_csr_parts(be, A.dtype, A.ncols, A.nrows, *parts)
    order = stable_argsort(xp, idx)
    cols = idx[order]
    rows = _entry_rows(A)[order]
    if A.ncols > 8 * nnz + 2**20:  # the transpose is hypersparse: it keeps the row list
        return Matrix._from_sorted(be, A.dtype, A.ncols, A.nrows, cols.astype(np.int64), rows, A._vals[order])
    ptr = xp.searchsorted(cols, xp.arange(A.ncols + 1, dtype=cols.dtype) if A.ncols < 2**31 - 1 else
                          sp.arange(xp, A.ncols + 1)).astype(pointer_dtype(nnz), copy=False)
    del cols
    return Matrix._from_csr_parts(be, A.dtype, A.ncols, A.nrows, ptr, rows, A._vals[order])


def pattern_transposable(A: Any) -> bool:
    """Whether :func:`pattern_transpose` makes A' without values for ``A``."""
    nnz = A.nvals
    return (A._be.xp is not np and A._rowidx is None and A.ncols <= 8 * nnz + 2**20
            and A._vals.flags.c_contiguous)


def pattern_transpose(A: Any) -> Any:
    """A' without A's values, for products that never read them (BFS's): a BOOL Matrix of the
    transposed pattern, every value true, where the GPU's counting sort applies (it carries one
    byte an entry, a view of the start of A's values, then set to true, instead of the values:
    with FP32 values 0.68x the full transpose at kron 22); else None."""
    be = A._be
    idx, vals = A._indices, A._vals
    nnz = int(idx.shape[0])
    if not pattern_transposable(A):
        return None
    carried = vals.view(np.uint8)[:nnz]
    parts = be.transpose_csr(A._ptr, idx, carried, A.nrows, A.ncols, pointer_dtype(nnz), sp.index_dtype(A.nrows))
    if parts is None:
        return None
    ptr, rows, out = parts
    out.fill(1)
    T = Matrix._from_csr_parts(be, BOOL, A.ncols, A.nrows, ptr, rows, out.view(np.bool_))
    T._store.transpose = A._snapshot()  # (A'' is A's pattern: a push along A''s rows copies nothing)
    return T


_BLOCK = 1 << 16  # entries: the least a block of the CPU transpose takes


def _counting_transpose(A: Any, ptr_type: Any) -> tuple[Any, Any, Any]:
    """(row pointers, row indices, values) of A' on the CPU by a counting sort over blocks of
    entries: the column counts give the pointers, then each block's entries are placed after
    those of earlier blocks (a stable sort of the block).  Temporaries are bounded by a block,
    so the peak is the transpose itself and a small share more."""
    idx, vals = A._indices, A._vals
    nnz, ncols = int(idx.shape[0]), A.ncols
    block = max(_BLOCK, nnz >> 7)
    counts = np.zeros(ncols, dtype=np.int64)
    for lo in range(0, nnz, block):
        counts += np.bincount(idx[lo:lo + block], minlength=ncols)
    ptr = np.zeros(ncols + 1, dtype=ptr_type)
    np.cumsum(counts, out=ptr[1:])
    nxt = counts  # reused: where the next entry of each column goes
    nxt[:] = ptr[:-1]
    rows = np.empty(nnz, dtype=sp.index_dtype(A.nrows))
    out = np.empty(nnz, dtype=vals.dtype)
    row_of = A._rowidx if A._rowidx is not None else None
    for lo in range(0, nnz, block):
        hi = min(nnz, lo + block)
        order = np.argsort(idx[lo:hi], kind="stable")
        cols = idx[lo:hi][order]
        new = np.empty(hi - lo, dtype=bool)
        new[0] = True
        np.not_equal(cols[1:], cols[:-1], out=new[1:])
        first = np.flatnonzero(new)
        rank = np.arange(hi - lo) - first[np.cumsum(new) - 1]
        pos = nxt[cols] + rank
        entry_rows = row_of[lo:hi] if row_of is not None else \
            np.searchsorted(A._ptr, np.arange(lo, hi), side="right") - 1
        rows[pos] = entry_rows[order]
        out[pos] = vals[lo:hi][order]
        nxt[cols[first]] += np.diff(np.append(first, hi - lo))
    return ptr, rows, out


def _entry_rows(A: Any) -> Any:
    """The row of every entry of ``A``, in the index type its transpose stores."""
    xp = A._be.xp
    t = sp.index_dtype(A.nrows)
    if A._rowidx is not None:
        return A._rowidx.astype(t, copy=False)
    ptr = A._ptr
    if xp is np:
        return np.repeat(np.arange(A.nrows, dtype=t), np.diff(ptr))
    return sp.csr_rows(xp, ptr).astype(t, copy=False)


def kronecker_expr(A: Any, B: Any, op: Any) -> Expression:
    """The Kronecker product of two matrices, entries combined by ``op``."""
    A, B = as_matrix(A), as_matrix(B)
    check_same_backend(A, B)
    typed = typed_binary(op.mult if hasattr(op, "mult") and not hasattr(op, "identity") else op,
                         unify(A.dtype, B.dtype))
    shape = (check_product_dimension(A.nrows, B.nrows, "Kronecker product rows"),
             check_product_dimension(A.ncols, B.ncols, "Kronecker product columns"))
    return Expression(f"kronecker({typed.name})", "Matrix", shape, typed.out_type, A._be, "kronecker", (A, B),
                      (typed,))


def _kronecker(expr: Expression, mask: Mask | None) -> Matrix:
    """A ``kronecker`` expression's result."""
    (A, B), (typed,), (nrows, ncols) = expr.args, expr.params, expr.shape
    be = A._be
    xp = be.xp
    na, nb = A.nvals, B.nvals
    ia = xp.repeat(A._rows(), nb)
    ja = xp.repeat(A._indices.astype(np.int64), nb)
    ib = xp.tile(B._rows(), na)
    jb = xp.tile(B._indices.astype(np.int64), na)
    i, j = ia * B.nrows + ib, ja * B.ncols + jb
    pos = Positions(i, j, i, j) if typed.positional else None
    vals = sp.apply_binary(be, typed, xp.repeat(A._vals, nb), xp.tile(B._vals, na), pos)
    out = Matrix(typed.out_type, nrows, ncols, backend=be.name)
    order = sp.lexsort_pairs(xp, i, j)
    ks = out._keyspace([out])
    if not ks.linear:
        ks = sp.KeySpace(xp, nrows, ncols, [i], [j])
    return out._from_entries(sp.Entries(ks.encode(i[order], j[order]), vals[order]), ks, typed.out_type)


def matrix_diag(A: Any, k: int = 0) -> Any:
    """Diagonal ``k`` of a Matrix as a Vector (index = row for k >= 0, column for k < 0)."""
    k = _diagonal_number(k)
    be = A._be
    if not -A.nrows < k < A.ncols:  # no such diagonal: an empty Vector (and no int64 overflow)
        return Vector._from_parts(be, A.dtype, 0, be.xp.zeros(0, dtype=np.int64), A._vals[:0])
    rows = A._rows()
    cols = A._indices.astype(np.int64)
    on = cols - rows == k
    size = max(0, min(A.nrows, A.ncols - k) if k >= 0 else min(A.nrows + k, A.ncols))
    idx = rows[on] if k >= 0 else cols[on]
    return Vector._from_parts(be, A.dtype, size, idx, A._vals[on])


def vector_diag(v: Any, k: int = 0) -> Any:
    """A square Matrix of size ``v.size + |k|`` with ``v`` on diagonal ``k``."""
    k = _diagonal_number(k)
    be = v._be
    n = check_dimension(v.size + abs(k), "the diagonal matrix's size")
    rows = v._idx + (0 if k >= 0 else -k)
    cols = v._idx + (max(k, 0))
    return Matrix._from_sorted(be, v.dtype, n, n, rows, cols, v._vals.copy())


def _diagonal_number(k: Any) -> int:
    if getattr(k, "kind", None) == "Scalar" and hasattr(k, "require_value"):
        k = k.require_value()  # a Scalar k, as python-graphblas allows
    if not isinstance(k, (int, np.integer)) or isinstance(k, (bool, np.bool_)):
        raise InvalidValue(f"the diagonal k must be an integer, not {type(k).__name__}")
    return int(k)


def check_square(A: Any, what: str) -> None:
    """Raise DimensionMismatch unless ``A`` is square."""
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"{what} needs a square matrix, got {A.nrows}x{A.ncols}")


bind_evaluator("kronecker", _kronecker)
bind_operations(kronecker_expr=kronecker_expr, matrix_diag=matrix_diag, vector_diag=vector_diag,
                transpose_csr=transpose_csr)
