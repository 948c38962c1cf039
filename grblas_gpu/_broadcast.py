"""A Vector with a Matrix in an element-wise operation (python-graphblas's broadcasting), and
the outer product of two Vectors.

- ``v op A`` (``v.size == A.nrows``): ``v[i]`` meets every entry of row ``i``;
- ``A op v`` (``v.size == A.ncols``): ``v[j]`` meets every entry of column ``j``.

The intersection is one product with a diagonal matrix (``diag(v) any.op A``); the union and
ewise_union spread the Vector over the rows or columns first (an outer product), as
python-graphblas does.
"""

from __future__ import annotations

from typing import Any

from ._operations import bind_evaluator, bind_operations
from .dtypes import unify
from .exceptions import DimensionMismatch
from .expressions import Expression, check_same_backend
from .operators import Semiring, binary, get_monoid, typed_binary


def _collection(x: Any) -> Any:
    """A Matrix or Vector operand (``A.T`` and expressions computed)."""
    if isinstance(x, Expression):
        return x.new()
    parent = getattr(x, "parent", None)
    if parent is not None and hasattr(parent, "_transposed"):
        return parent._transposed()
    return x


def broadcast_ewise(left: Any, right: Any, op: Any, union: bool,
                    defaults: tuple[Any, Any] | None = None) -> Expression:
    """``left`` and ``right``, one a Vector and one a Matrix, combined element-wise by ``op``
    (the union when ``union``; with ``defaults``, python-graphblas's ewise_union)."""
    left, right = _collection(left), _collection(right)
    check_same_backend(left, right)
    vector_left = left.kind == "Vector"
    v, A = (left, right) if vector_left else (right, left)
    need = A.nrows if vector_left else A.ncols
    if v.size != need:
        side, what = ("left", "columns") if vector_left else ("right", "rows")
        dim = "nrows" if vector_left else "ncols"
        raise DimensionMismatch(
            f"Dimensions not compatible for broadcasting Vector from the {side} to {what} of Matrix.  "
            f"Matrix.{dim} (={need}) must equal Vector.size (={v.size}).")
    typed = typed_binary(op, unify(left.dtype, right.dtype))
    name = "ewise_union" if defaults is not None else ("ewise_add" if union else "ewise_mult")
    return Expression(name, "Matrix", tuple(A.shape), typed.out_type, A._be, "broadcast_ewise", (left, right),
                      (typed, op, union, defaults))


def _broadcast_ewise(expr: Expression, mask: Any) -> Any:
    """A ``broadcast_ewise`` expression's result: its Vector spread over its Matrix's rows or
    columns and combined with it (an intersection through a diagonal product)."""
    (left, right), (typed, op, union, defaults) = expr.args, expr.params
    vector_left = left.kind == "Vector"
    v, A = (left, right) if vector_left else (right, left)
    if not union:
        sr = Semiring(f"any_{typed.name}", monoid=get_monoid("any"), mult=_polymorphic(op))
        if vector_left:
            return v.diag().mxm(A, sr[typed.x_type]).new()
        return A.mxm(v.diag(), sr[typed.x_type]).new()
    spread = _spread(v, A, vector_left)
    a, b = (spread, A) if vector_left else (A, spread)
    if defaults is not None:
        return a.ewise_union(b, op, *defaults).new()
    return a.ewise_add(b, op).new()


def _polymorphic(op: Any) -> Any:
    """The polymorphic binary operator of ``op`` (a name, a typed or polymorphic operator)."""
    if isinstance(op, str):
        return binary[op]
    if hasattr(op, "x_type"):  # typed: its name in the catalog
        return binary[op.name]
    return getattr(op, "binop", None) or op


def _spread(v: Any, A: Any, down_rows: bool) -> Any:
    """``v`` repeated along every column (``down_rows``: ``M[i, j] = v[i]``) or every row
    (``M[i, j] = v[j]``) of a Matrix of ``A``'s shape."""
    from .vector import Vector

    n = A.ncols if down_rows else A.nrows
    full = Vector.from_scalar(True, n, backend=A.backend)
    if down_rows:
        return outer_expr(v, full, binary.first).new()
    return outer_expr(full, v, binary.second).new()


def outer_expr(u: Any, v: Any, op: Any = "times") -> Expression:
    """The outer product ``M[i, j] = op(u[i], v[j])`` of two Vectors (python-graphblas's ``outer``)."""
    u, v = _collection(u), _collection(v)
    if getattr(u, "kind", None) != "Vector" or getattr(v, "kind", None) != "Vector":
        raise TypeError(f"outer needs two Vectors, got {type(u).__name__} and {type(v).__name__}")
    check_same_backend(u, v)
    if isinstance(op, Semiring):
        op = op.mult
    typed = typed_binary(getattr(op, "binop", None) or op, unify(u.dtype, v.dtype))
    return Expression(f"outer({typed.name})", "Matrix", (u.size, v.size), typed.out_type, u._be, "outer", (u, v),
                      (typed,))


def _outer(expr: Expression, mask: Any) -> Any:
    """An ``outer`` expression's result: the Kronecker product of u as a column and v as a row."""
    from .matrix import Matrix
    from .ops.structural import kronecker_expr

    (u, v), (typed,), be = expr.args, expr.params, expr._be
    zu = be.xp.zeros(u.nvals, dtype="int64")
    zv = be.xp.zeros(v.nvals, dtype="int64")
    col = Matrix._from_sorted(be, u.dtype, u.size, 1, u._idx, zu, u._vals)
    row = Matrix._from_sorted(be, v.dtype, 1, v.size, zv, v._idx, v._vals)
    return kronecker_expr(col, row, typed).new()


bind_evaluator("broadcast_ewise", _broadcast_ewise)
bind_evaluator("outer", _outer)
bind_operations(broadcast_ewise=broadcast_ewise, outer_expr=outer_expr)
