"""DistMatrix and DistVector: a Matrix and a Vector whose partitions live on Dask workers.

They answer the part of the public ``Matrix``/``Vector`` API that the algorithms use (see
docs/dask.md for the list), with the same C API semantics: each partition's share of an
operation is done by the ordinary algebra on its worker (``_local``), and only vectors move:

* ``A.mxv(u)``: ``u`` is all-gathered (sparse when it has few entries, else as a bitmap or
  its values alone), then each worker multiplies its row block: ``w_k = A_k u``.
* ``u.vxm(A)`` and ``A.T.mxv(u)``: each worker multiplies its own part, ``u_k' A_k``, giving a
  partial result over all columns; the pieces go to the partitions that own them (all-to-all)
  and are folded there with the semiring's monoid, in partition order.
* with a matrix known to be symmetric, each product takes the first form for a dense ``u``
  and the second for a sparse one (see ``_product``).
* element-wise operations, apply, select, masks, accumulators and ``changed=`` are local to
  each partition (operands with the same Layout are aligned).
* reductions to a scalar combine the partitions' values on the client with the same monoid.

A ``Vector.from_coo``/``from_scalar``/``Vector(...)`` whose ``backend=`` is a distributed
Matrix's ``backend`` (a :class:`Placement`) makes a DistVector partitioned as the Matrix's rows
(or columns, by size): that is how an algorithm written for one process makes its vectors
on the workers without knowing.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from typing_extensions import Self

from .._transposed import TransposedView
from ..dtypes import DataType, lookup_dtype, unify
from ..exceptions import DimensionMismatch, InvalidValue, NotImplementedException
from ..expressions import parse_output_args
from ..matrix import Matrix
from ..operators import semiring as semiring_ns
from ..operators import typed_semiring
from ..scalar import Scalar
from ..vector import Vector
from . import _local
from ._local import Write
from .blocks import rebuild
from .errors import PartitionMismatch
from .layout import Layout

__all__ = ["DistMatrix", "DistVector", "DistMask", "DistExpr", "Placement"]


class Placement(str):
    """A distributed Matrix's ``backend``: equal to its workers' backend name ("numpy" or
    "cupy"), and carrying the Matrix's layouts, so that ``Vector.from_coo(...,
    backend=A.backend)`` makes a DistVector partitioned as A (rows, or columns by size)."""

    layouts: tuple[Layout, ...]

    def __new__(cls, name: str, layouts: tuple[Layout, ...]) -> Self:
        """The placement named ``name`` over ``layouts`` (the first matching a size is used)."""
        p = super().__new__(cls, name)
        p.layouts = layouts
        return p

    def __reduce__(self) -> Any:  # sent to a worker, it is the plain backend name
        return (str, (str(self),))

    def layout_for(self, size: int) -> Layout:
        """The layout of a vector of ``size`` positions."""
        for lay in self.layouts:
            if lay.size == size:
                return lay
        raise DimensionMismatch(f"no partitioning of size {size} here (sizes {[x.size for x in self.layouts]})")

    def vector_from_coo(self, indices: Any, values: Any, size: int | None, *, dtype: Any = None,
                        dup_op: Any = None, name: str | None = None) -> DistVector:
        """``Vector.from_coo`` on the workers."""
        if size is None:
            raise InvalidValue("a distributed Vector.from_coo needs its size")
        local = Vector.from_coo(indices, values, size, dtype=dtype, dup_op=dup_op, backend="numpy")
        return DistVector.from_local(local, self.layout_for(size), name=name)

    def vector_from_scalar(self, value: Any, size: int, dtype: Any = None, *, name: str | None = None) -> DistVector:
        """``Vector.from_scalar`` on the workers (each makes its own part)."""
        lay = self.layout_for(size)
        t = Vector.from_scalar(value, 1, dtype, backend="numpy").dtype
        be = lay.context.backend
        futs = [lay.context.submit(Vector.from_scalar, _plain(value), lay.part_size(k), t, backend=be, part=k)
                for k in range(lay.nparts)]
        lay.context.wait(futs, "Vector.from_scalar")
        v = DistVector._make(lay, t, futs, name)
        v._nvals_seen = size
        return v

    def new_vector(self, dtype: Any, size: int, *, name: str | None = None) -> DistVector:
        """An empty ``Vector(dtype, size)`` on the workers."""
        lay = self.layout_for(size)
        t = lookup_dtype(dtype)
        futs = [lay.context.submit(Vector, t, lay.part_size(k), backend=lay.context.backend, part=k)
                for k in range(lay.nparts)]
        lay.context.wait(futs, "Vector()")
        return DistVector._make(lay, t, futs, name)


def _plain(value: Any) -> Any:
    """A value to send to a worker: a local Scalar becomes a NumPy scalar of its type."""
    if isinstance(value, Scalar):
        return np.array(value.value, dtype=value.dtype.np_type)[()] if not value.is_empty else None
    return value


def _resolve_semiring(op: Any) -> Any:
    return getattr(semiring_ns, op) if isinstance(op, str) else op


# ---------------------------------------------------------------- masks and writes
class DistMask:
    """``v.S``, ``v.V`` and their complements for a distributed ``v``."""

    def __init__(self, parent: DistVector | DistMatrix, structure: bool, complement: bool = False) -> None:
        self.parent, self.structure, self.complement = parent, structure, complement

    def __invert__(self) -> DistMask:
        return DistMask(self.parent, self.structure, not self.complement)

    @property
    def how(self) -> tuple[bool, bool]:
        """(structural?, complemented?)."""
        return self.structure, self.complement


class DistUpdater:
    """``out(mask, accum, replace, changed=)``: the left side of ``<<`` for a distributed ``out``."""

    def __init__(self, out: DistCollection, mask: Any, accum: Any, replace: bool, changed: Any) -> None:
        if mask is not None and not isinstance(mask, DistMask):
            raise PartitionMismatch(f"the mask of a distributed output must be distributed too, got {type(mask).__name__}")
        if changed is not None and not isinstance(changed, DistVector):
            raise PartitionMismatch("changed= of a distributed output must be a distributed Vector")
        if replace and mask is None:
            raise InvalidValue("replace=True needs a mask")
        self.out, self.mask, self.accum, self.replace, self.changed = out, mask, accum, replace, changed

    def __lshift__(self, value: Any) -> None:
        self.update(value)

    def update(self, value: Any) -> None:
        """Write ``value`` (a DistExpr, a distributed object of the output's layout, or a scalar)."""
        out = self.out
        if isinstance(value, DistCollection):
            value = value._as_expr()
        elif isinstance(value, (Vector, Matrix)):
            raise PartitionMismatch(f"a local {value.kind} cannot be written into a distributed one: distribute it")
        elif not isinstance(value, DistExpr):
            v = _plain(value)
            value = DistExpr("local", out.kind, out._layout, out.dtype, lambda: v, (), f"assign {value!r}",
                             ncols=out.shape[-1], full=v is not None)
        full = _stays_full(out, value, self.mask, self.accum, self.replace)
        how = Write(False, None, self.mask.how if self.mask else None, self.accum, self.replace,
                    self.changed is not None, in_place=out._layout.context.client is None)
        blocks, changed = _execute(value, how, out, self.mask, self.changed)
        out._take(blocks)
        if full:
            out._known_full()
        if self.changed is not None:
            self.changed._take(changed)
            if how.in_place and value.form in ("gather", "scatter"):  # its count is read with its rows' entries
                self.changed._weigh_by = next((x for x in value.inputs if isinstance(x, DistMatrix)
                                               and x._symmetric is True and x._layout is self.changed._layout), None)


def _stays_full(out: DistCollection, value: DistExpr, mask: Any, accum: Any, replace: bool) -> bool:
    """Whether the Vector ``out`` is full after ``out(mask, accum, replace) << value``, known
    without reading it: where ``value`` is full, or ``out`` was and keeps its entries (an
    accumulator, or a mask outside which nothing is removed)."""
    if out.kind != "Vector" or replace:
        return False
    was = out._is_known_full()
    if mask is None:
        return value.full or (accum is not None and was)
    return was and (value.full or accum is not None)


# ---------------------------------------------------------------- expressions
class DistExpr:
    """An operation on distributed operands, run by ``.new()`` or by ``out(...) << expr``.

    ``form`` says how the partitions meet: ``local`` (aligned operands, no exchange),
    ``gather`` (``make(A_k, u)`` with ``u`` all-gathered), ``scatter`` (partial products folded
    with ``monoid`` where they belong) or ``scalar`` (a reduction combined on the client)."""

    def __init__(self, form: str, kind: str, layout: Layout, dtype: DataType, make: Callable[..., Any],
                 inputs: tuple[Any, ...], name: str, *, monoid: Any = None, in_layout: Layout | None = None,
                 combine: Any = None, allow_empty: bool = True, ncols: int | None = None, full: bool = False) -> None:
        if ncols is None and kind == "Matrix":
            ncols = inputs[0].ncols
        self.ncols = ncols
        self.form, self.kind, self._layout, self.dtype = form, kind, layout, dtype
        self.make, self.inputs, self.name = make, inputs, name
        self.monoid, self.in_layout, self.combine, self.allow_empty = monoid, in_layout, combine, allow_empty
        self.full = full  # a Vector with every position present on every worker (known without reading it)
        self.copy_of: DistCollection | None = None  # the operand of a copy: its counts are the copy's

    def new(self, dtype: Any = None, *, mask: Any = None, name: str | None = None) -> Any:
        """The result as a new distributed object (or a local Scalar for a reduction)."""
        if self.form == "scalar":
            return _reduce(self, dtype)
        if mask is not None and not isinstance(mask, DistMask):
            raise PartitionMismatch("the mask of a distributed result must be distributed too")
        how = Write(True, lookup_dtype(dtype) if dtype is not None else None, mask.how if mask else None)
        futs, _ = _execute(self, how, None, mask, None)
        t = lookup_dtype(dtype) if dtype is not None else self.dtype
        cls = DistVector if self.kind == "Vector" else DistMatrix
        out = cls._make(self._layout, t, futs, name, **self._shape_kw())
        if self.full and mask is None:
            out._known_full()
        elif self.copy_of is not None and mask is None:  # (a dup: the counts known stay known)
            out._nvals_seen, out._counts_seen = self.copy_of._nvals_seen, self.copy_of._counts_seen
        return out

    def _shape_kw(self) -> dict[str, Any]:
        return {"ncols": self.ncols} if self.kind == "Matrix" else {}

    @property
    def value(self) -> Any:
        """A reduction's value (``expr.new().value``)."""
        return self.new().value

    def __repr__(self) -> str:
        return f"DistExpr({self.name}, {self.form})"


def _dummy(x: Any) -> Any:
    """A local object of ``x``'s type and kind of one position, to find an expression's type
    (and its domain errors) on the client before any worker is asked; a Scalar operand (one
    left on a worker's device inside an SPMD call) stands in as a host Scalar of its type,
    so that the probe never reads it back (which would wait for the device)."""
    if isinstance(x, DistMatrix):
        return _empty_local("Matrix", x.dtype)
    if isinstance(x, DistVector):
        return _empty_local("Vector", x.dtype)
    if isinstance(x, Scalar):
        return _empty_local("Scalar", x.dtype)
    return x


@functools.lru_cache(maxsize=64)
def _empty_local(kind: str, dtype: DataType) -> Any:
    """An empty one-position local object, or a Scalar holding 1 (shared: the probes only read it)."""
    if kind == "Scalar":
        return Scalar.from_value(1, dtype, backend="numpy")
    return Matrix(dtype, 1, 1, backend="numpy") if kind == "Matrix" else Vector(dtype, 1, backend="numpy")


def _probe(make: Callable[..., Any], *inputs: Any) -> DataType:
    out = make(*[_dummy(x) for x in inputs])
    return out.dtype


def _blk(x: Any, k: int) -> Any:
    return x._blocks[k] if isinstance(x, DistCollection) else x


def _probe_write(expr: DistExpr, how: Write, out: Any, mask: Any, changed: Any) -> None:
    """Run the write on one-position local stand-ins: type and operator errors are raised here,
    before anything changes on the workers."""
    if expr.form == "scalar":
        return
    value = expr.make(*[_dummy(x) for x in expr.inputs])
    _local.write(dataclasses.replace(how, in_place=False), value, _dummy(out) if out is not None else None,
                 _dummy(mask.parent) if mask is not None else None, _dummy(changed) if changed is not None else None)


def _check_operands(expr: DistExpr, out: Any, mask: Any, changed: Any) -> None:
    lay = expr._layout
    what = expr.name
    for x in (out, mask.parent if mask is not None else None, changed):
        if x is None:
            continue
        if x.shape != _out_shape(expr, x):
            raise DimensionMismatch(f"{what}: the output, mask and changed= must have the result's shape")
        lay.require_same(x._layout, what)


def _out_shape(expr: DistExpr, x: Any) -> tuple[int, ...]:
    if expr.kind == "Vector":
        return (lay_size(expr._layout),)
    assert expr.ncols is not None  # set for every Matrix expression
    return (lay_size(expr._layout), expr.ncols)


def lay_size(lay: Layout) -> int:
    """The number of positions of a layout."""
    return lay.size


def _execute(expr: DistExpr, how: Write, out: Any, mask: DistMask | None, changed: Any) -> tuple[list[Any], Any]:
    """Run ``expr`` on every partition, written as ``how`` says: the result's partitions (and
    those of ``changed``), after every task has finished."""
    _check_operands(expr, out, mask, changed)
    if expr._layout.context.client is not None:  # (inside an SPMD call the write itself raises: the call fails)
        _probe_write(expr, how, out, mask, changed)
    lay = expr._layout
    ctx = lay.context
    m = mask.parent if mask is not None else None
    n = lay.nparts
    if expr.form == "local":
        futs = [ctx.submit(_local.run_local, expr.make, how, _blk(out, k), _blk(m, k), _blk(changed, k),
                           *[_blk(x, k) for x in expr.inputs], part=k) for k in range(n)]
    elif expr.form == "gather":
        A, u = expr.inputs
        offs = u._layout.offsets
        if ctx.nccl:
            ctx.ensure_comm()
            futs = [ctx.submit(_nccl_gather, getattr(ctx, "comm", ctx.key), expr.make, how, offs, _blk(out, k), _blk(m, k),
                               _blk(changed, k), A._blocks[k], u._blocks[k], u._counts_seen, u._ones_seen, part=k)
                     for k in range(n)]
        else:
            futs = [ctx.submit(_local.run_gather, expr.make, how, None, offs, _blk(out, k), _blk(m, k),
                               _blk(changed, k), A._blocks[k], *u._blocks, part=k) for k in range(n)]
    else:  # scatter
        offs = lay.offsets
        if ctx.nccl:
            ctx.ensure_comm()
            futs = [ctx.submit(_nccl_scatter, getattr(ctx, "comm", ctx.key), expr.make, expr.monoid, how, offs, _blk(out, k), _blk(m, k),
                               _blk(changed, k), *[_blk(x, k) for x in expr.inputs], part=k) for k in range(n)]
        else:
            partial = [ctx.submit(_local.run_partial, expr.make, offs, *[_blk(x, k) for x in expr.inputs], part=k)
                       for k in range(n)]
            pieces = [[ctx.submit(_local.getitem, partial[k], q, part=k) for q in range(n)] for k in range(n)]
            futs = [ctx.submit(_local.run_fold, expr.monoid, how, _blk(out, q), _blk(m, q), _blk(changed, q),
                               *[pieces[k][q] for k in range(n)], part=q) for q in range(n)]
    if how.changed:
        outs = [ctx.submit(_local.getitem, f, 0, part=k) for k, f in enumerate(futs)]
        chs = [ctx.submit(_local.getitem, f, 1, part=k) for k, f in enumerate(futs)]
        ctx.wait(outs + chs, expr.name)
        return outs, chs
    ctx.wait(futs, expr.name)
    return futs, None


def _comm(key: Any) -> Any:
    """The communicator: given (inside an SPMD call), or this worker's of the layout ``key``."""
    from ._nccl import get_comm

    return get_comm(key) if isinstance(key, str) else key


def _nccl_gather(key: Any, make: Any, how: Write, offsets: Any, out: Any, mask: Any, changed: Any, block: Any,
                 piece: Any, counts: Any = None, ones: Any = None) -> Any:
    return _local.run_gather(make, how, _comm(key), offsets, out, mask, changed, block, piece, counts=counts,
                             ones=ones)


def _nccl_scatter(key: Any, make: Any, monoid: Any, how: Write, offsets: Any, out: Any, mask: Any, changed: Any,
                  *inputs: Any) -> Any:
    return _local.run_exchange_fold(make, monoid, how, _comm(key), offsets, out, mask, changed, *inputs)


def _reduce(expr: DistExpr, dtype: Any) -> Scalar:
    """A reduction: every partition's value, combined on the client with the same monoid."""
    lay = expr._layout
    ctx = lay.context
    if ctx.client is None:  # an SPMD call: each worker's Scalar, left on its device (no read, no wait)
        s = expr.make(*[_blk(x, ctx.rank) for x in expr.inputs])  # type: ignore[attr-defined]
        s = s.new() if not isinstance(s, Scalar) else s
        if lay.nparts > 1:  # every worker's value, moved device to device, combined here as by the client
            identity = getattr(expr.combine, "identity", None)  # (a typed monoid's: its values then move alone)
            s = ctx.comm.allgather_scalar(s, identity).reduce(expr.combine,  # type: ignore[attr-defined]
                                                              allow_empty=expr.allow_empty).new()
        return s.dup(dtype) if dtype is not None else s
    futs = [ctx.submit(_local.reduce_block, expr.make, *[_blk(x, k) for x in expr.inputs], part=k)
            for k in range(lay.nparts)]
    parts = ctx.gather(futs, expr.name)
    values = [v for empty, v, _ in parts if not empty]
    t = parts[0][2]
    local = Vector.from_coo(np.arange(len(values)), np.array(values, dtype=t.np_type), size=max(len(values), 1),
                            dtype=t, backend="numpy")
    s = local.reduce(expr.combine, allow_empty=expr.allow_empty).new()
    return s.dup(dtype) if dtype is not None else s


# ---------------------------------------------------------------- the objects
class DistCollection:
    """What DistVector and DistMatrix share: partitions (futures pinned to workers), a layout
    of the first dimension, and the element-wise operations."""

    kind = "Collection"
    _layout: Layout
    _blocks: list[Any]
    _dtype: DataType
    name: str | None
    _nvals_seen: int | None = None  # the count last read, until the next write
    _counts_seen: tuple[int, ...] | None = None  # and each partition's (read together inside an SPMD call)
    _ones_seen: Any = None  # and each partition's one value shared by its entries (Exchange.one_value_word)
    _weigh_by: Any = None  # inside an SPMD call, the symmetric matrix whose product made this as changed=
    _edges_seen: int | None = None  # the entries of its rows that this vector's entries index
    if TYPE_CHECKING:  # each subclass's own
        @property
        def shape(self) -> tuple[int, ...]: ...

    # ------------------------------------------------------------ basics
    @property
    def dtype(self) -> DataType:
        """The type of the stored values."""
        return self._dtype

    @property
    def backend(self) -> str:
        """The workers' backend ("numpy" or "cupy"), as a :class:`Placement` of this layout."""
        return Placement(self._layout.context.backend, self._layouts())

    def _layouts(self) -> tuple[Layout, ...]:
        return (self._layout,)

    @property
    def layout(self) -> Layout:
        """Where the partitions are: offsets of the first dimension over the workers."""
        return self._layout

    @property
    def partitions(self) -> list[Any]:
        """The partitions: one Dask future per worker, each holding a local Vector/Matrix."""
        return list(self._blocks)

    @property
    def client(self) -> Any:
        """The ``dask.distributed`` client."""
        return self._layout.context.client

    @property
    def nvals(self) -> int:
        """The number of entries (one small read from each worker)."""
        if self._nvals_seen is not None:
            return self._nvals_seen
        ctx = self._layout.context
        if ctx.client is None and self._weigh_by is not None:
            # the count, the rows' entries and the one value the entries share (a BFS level), in
            # one exchange: the all-gather of a product over A then needs none of its own
            block = self._blocks[ctx.rank]  # type: ignore[attr-defined]
            comm = ctx.comm  # type: ignore[attr-defined]
            mine = [_local.nvals(block), _local.frontier_edges(self._weigh_by._blocks[ctx.rank], block)]  # type: ignore[attr-defined]
            one = hasattr(comm, "one_value_word")
            all_ = comm.allgather_ints(mine + (comm.one_value_word(block) if one else []))
            counts = tuple(int(c) for c in all_[:, 0])
            self._edges_seen = int(all_[:, 1].sum())
            if one:
                self._ones_seen = [(int(f), int(w)) for f, w in all_[:, 2:4]]
        else:
            futs = [ctx.submit(_local.nvals, b, part=k) for k, b in enumerate(self._blocks)]
            counts = tuple(int(c) for c in ctx.gather(futs, f"{self.kind}.nvals"))
        self._nvals_seen = sum(counts)
        if ctx.client is None:  # (an exchange of this vector's pieces then skips its own count exchange)
            self._counts_seen = counts
        return self._nvals_seen

    def _is_known_full(self) -> bool:
        """Whether this is a Vector known to hold every position (made so, or counted)."""
        return self.kind == "Vector" and self._nvals_seen == self._layout.size

    def _known_full(self) -> None:
        """Record that this Vector holds every position (by how it was made): its count and
        each partition's are then known on every worker without an exchange (inside an SPMD
        call a product's all-gather of it needs none, nor waits for the device)."""
        lay = self._layout
        self._nvals_seen = lay.size
        if lay.context.client is None:
            self._counts_seen = tuple(lay.part_size(k) for k in range(lay.nparts))

    def _edges(self, A: DistMatrix) -> int:
        """Inside an SPMD call, how many entries of the rows of ``A`` (partitioned as this
        vector) its entries index, agreed by all workers (read with the count where a product
        over ``A`` made this vector, else exchanged now)."""
        if self._edges_seen is None or self._weigh_by is not A:
            ctx = self._layout.context
            mine = _local.frontier_edges(A._blocks[ctx.rank], self._blocks[ctx.rank])  # type: ignore[attr-defined]
            self._edges_seen = int(ctx.comm.allgather_ints([mine])[:, 0].sum())  # type: ignore[attr-defined]
            self._weigh_by = A
        return self._edges_seen

    @property
    def S(self) -> DistMask:
        """Structural mask."""
        return DistMask(self, True)  # type: ignore[arg-type]

    @property
    def V(self) -> DistMask:
        """Value mask."""
        return DistMask(self, False)  # type: ignore[arg-type]

    def __call__(self, *args: Any, mask: Any = None, accum: Any = None, replace: bool = False,
                 changed: Any = None) -> DistUpdater:
        """The output with mask, accumulator, replace and ``changed=`` (as ``Vector.__call__``)."""
        mask, accum, replace = parse_output_args(args, mask, accum, replace)
        return DistUpdater(self, mask, accum, replace, changed)

    def __lshift__(self, value: Any) -> None:
        DistUpdater(self, None, None, False, None).update(value)

    def update(self, value: Any) -> None:
        """Same as ``self << value``."""
        self << value

    def _take(self, blocks: list[Any]) -> None:
        """Hold the partitions a write made."""
        self._blocks, self._nvals_seen, self._counts_seen, self._ones_seen = blocks, None, None, None
        self._weigh_by, self._edges_seen = None, None
        self._forget()

    def _forget(self) -> None:
        """Drop what was derived from the old entries."""

    def _as_expr(self) -> DistExpr:
        e = DistExpr("local", self.kind, self._layout, self.dtype, _identity, (self,), self.kind.lower(),
                     full=self._is_known_full())
        e.copy_of = self
        return e

    def wait(self) -> None:
        """Block until every partition is computed."""
        self._layout.context.wait(self._blocks, "wait")

    # ------------------------------------------------------------ element-wise
    def _local_expr(self, name: str, make: Callable[..., Any], *others: Any, full: str = "") -> DistExpr:
        """An element-wise expression; ``full``: its result is full where all its distributed
        operands are (``"all"``), where any is (``"any"``), or not known (``""``)."""
        operands = (self, *others)
        for o in others:
            if isinstance(o, (Vector, Matrix)) and not isinstance(o, DistCollection):
                raise PartitionMismatch(f"{name}: a local {o.kind} cannot meet a distributed one: distribute it")
            if isinstance(o, DistCollection):
                if o.shape != self.shape:
                    raise DimensionMismatch(f"{name}: shapes {self.shape} and {o.shape} differ")
                self._layout.require_same(o._layout, name)
        dist = [o._is_known_full() for o in operands if isinstance(o, DistCollection)]
        known = (full == "all" and all(dist)) or (full == "any" and any(dist))
        return DistExpr("local", self.kind, self._layout, _probe(make, *operands), make, operands, name, full=known)

    def ewise_add(self, other: Any, op: Any = "plus") -> DistExpr:
        """Union of the two structures, ``op`` where both have an entry."""
        return self._local_expr("ewise_add", lambda a, b: a.ewise_add(b, op), other, full="any")

    def ewise_mult(self, other: Any, op: Any = "times") -> DistExpr:
        """Intersection of the two structures."""
        return self._local_expr("ewise_mult", lambda a, b: a.ewise_mult(b, op), other, full="all")

    def ewise_union(self, other: Any, op: Any, left_default: Any, right_default: Any) -> DistExpr:
        """Union, with the defaults standing in for a missing entry on either side."""
        ld, rd = _plain(left_default), _plain(right_default)
        return self._local_expr("ewise_union", lambda a, b: a.ewise_union(b, op, ld, rd), other, full="any")

    def _scalar_arg(self, x: Any) -> Any:
        """A scalar operand for the partitions: inside an SPMD call a local Scalar as it is (on
        the workers' device: no read), else its value."""
        return x if isinstance(x, Scalar) and self._layout.context.client is None else _plain(x)

    def apply(self, op: Any, right: Any = None, *, left: Any = None) -> DistExpr:
        """``op`` on every entry (a BinaryOp with a bound ``left`` or ``right`` scalar)."""
        _refuse_positional(op, self.dtype, "apply")
        r, lf = self._scalar_arg(right), self._scalar_arg(left)
        if isinstance(r, Scalar) or isinstance(lf, Scalar):  # operands, so that the probe stands in for them
            return self._local_expr("apply", lambda a, rr, ll: a.apply(op, rr, left=ll), r, lf, full="all")
        return self._local_expr("apply", lambda a: a.apply(op, r, left=lf), full="all")

    def select(self, op: Any, thunk: Any = 0) -> DistExpr:
        """The entries ``op`` keeps (by value: ``select.value*``)."""
        _refuse_positional(op, self.dtype, "select")
        th = _plain(thunk)
        return self._local_expr("select", lambda a: a.select(op, th))

    def reduce_scalar_expr(self, op: Any, allow_empty: bool, name: str, make: Callable[..., Any]) -> DistExpr:
        """A reduction to a scalar (shared by Vector.reduce and Matrix.reduce_scalar)."""
        return DistExpr("scalar", "Scalar", self._layout, self.dtype, make, (self,), name, combine=op,
                        allow_empty=allow_empty)

    def gather(self, backend: str | None = None) -> Any:
        """The ordinary (local) object with the same entries, on ``backend`` (the client's
        default where None)."""
        raise NotImplementedError

    def _coo(self) -> list[tuple[np.ndarray, ...]]:
        ctx, offs = self._layout.context, self._layout.offsets
        futs = [ctx.submit(_local.coo_of, b, offs[k], part=k) for k, b in enumerate(self._blocks)]
        return ctx.gather(futs, f"{self.kind}.gather")

    def __repr__(self) -> str:
        ctx = self._layout.context
        return (f"<Dist{self.kind} {self.shape} {self.dtype} in {self._layout.nparts} partitions on "
                f"{ctx.backend} workers, exchange {ctx.exchange}>")


def _refuse_positional(op: Any, dtype: DataType, what: str) -> None:
    """``NotImplementedException`` for an operator that reads entries' positions: on a
    partition it would see local row numbers."""
    name = getattr(op, "name", op)
    if isinstance(op, str):
        positional = not name.startswith("value") and any(k in name for k in ("index", "tri", "diag", "offdiag"))
        positional = positional or name.endswith(("firsti", "firstj", "secondi", "secondj", "firsti1", "secondi1"))
    elif "IndexUnary" in type(op).__name__ or getattr(op, "kind", None) in ("indexunary", "select"):
        positional = not str(name).startswith("value")
    else:
        try:
            typed = op[dtype] if getattr(op, "kind", None) == "binary" else op
        except Exception:  # noqa: BLE001 - not typable here: the operation itself will say why
            return
        positional = bool(getattr(typed, "positional", False))
    if positional:
        raise NotImplementedException(f"{what}: positional operators ({name}) would see the partitions' local "
                                      "row numbers; gather() first")


_INLINE_BYTES = 1 << 20
"""Arrays larger than this go to a worker by ``scatter``, not inside a task's arguments."""


def _vector_piece(piece: tuple[np.ndarray, np.ndarray], size: int, dtype: DataType, backend: str) -> Vector:
    return Vector.from_coo(piece[0], piece[1], size, dtype=dtype, backend=backend)


def _identity(x: Any) -> Any:
    return x


class DistVector(DistCollection, Vector):  # type: ignore[misc]  # distributed expressions, not local ones
    """A Vector cut into contiguous blocks, one per worker (see the module docstring)."""

    kind = "Vector"

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # made by _make, from_local or a Placement
        raise NotImplementedException("make a DistVector with grblas_gpu.dask.distribute or Vector.from_coo/"
                                      "from_scalar(..., backend=A.backend) of a distributed A")

    @classmethod
    def _make(cls, layout: Layout, dtype: DataType, blocks: list[Any], name: str | None = None,
              **_: Any) -> DistVector:
        v = object.__new__(cls)
        v._layout, v._dtype, v._blocks, v.name = layout, dtype, list(blocks), name
        return v

    @classmethod
    def from_local(cls, v: Vector, layout: Layout, name: str | None = None) -> DistVector:
        """``v`` cut at the layout's offsets, each piece sent to its worker."""
        if v.size != layout.size:
            raise DimensionMismatch(f"a Vector of size {v.size} cannot take a partitioning of size {layout.size}")
        idx, vals = v.to_coo()
        offs = layout.offsets
        cuts = np.searchsorted(idx, offs)
        ctx = layout.context
        futs = []
        for k in range(layout.nparts):
            piece: Any = (idx[cuts[k]:cuts[k + 1]] - offs[k], vals[cuts[k]:cuts[k + 1]])
            if ctx.client is not None and piece[0].nbytes + piece[1].nbytes > _INLINE_BYTES:  # sent as data
                [piece] = ctx.client.scatter([piece], workers=[ctx.workers[k]])
            futs.append(ctx.submit(_vector_piece, piece, layout.part_size(k), v.dtype, ctx.backend, part=k))
        ctx.wait(futs, "distribute")
        d = cls._make(layout, v.dtype, futs, name or v.name)
        d._nvals_seen = len(idx)
        if ctx.client is None:  # (every worker cut the same v: each partition's count is known)
            d._counts_seen = tuple(int(cuts[k + 1] - cuts[k]) for k in range(layout.nparts))
        return d

    @property
    def size(self) -> int:
        """The number of positions."""
        return self._layout.size

    @property
    def shape(self) -> tuple[int]:
        """``(size,)``."""
        return (self._layout.size,)

    def dup(self, dtype: Any = None, *, clear: bool = False, mask: Any = None, name: str | None = None,
            **opts: Any) -> DistVector:
        """A copy (cast to ``dtype``, through ``mask``)."""
        _no_clear(clear)
        return self._as_expr().new(dtype, mask=mask, name=name)

    def vxm(self, A: Any, op: Any = "plus_times", *, method: str = "auto") -> DistExpr:  # type: ignore[override]
        """``u' A`` (see :func:`_product`)."""
        return _product("vxm", A, self, op, method)

    def reduce(self, op: Any = "plus", *, allow_empty: bool = True) -> DistExpr:  # type: ignore[override]
        """The entries combined with the monoid ``op`` (to a Scalar)."""
        return self.reduce_scalar_expr(op, allow_empty, "reduce", lambda v: v.reduce(op, allow_empty=allow_empty))

    def inner(self, other: Any, op: Any = "plus_times") -> DistExpr:  # type: ignore[override]
        """``u . v`` over the semiring ``op`` (to a Scalar)."""
        sr = _resolve_semiring(op)
        e = self._local_expr("inner", lambda a, b: a.inner(b, sr), other)
        return DistExpr("scalar", "Scalar", self._layout, e.dtype, e.make, e.inputs, "inner", combine=sr.monoid)

    def to_coo(self, dtype: Any = None, *, indices: bool = True, values: bool = True,
               sort: bool = True) -> tuple[Any, Any]:
        """Indices and values of every entry, gathered on the client (as Vector.to_coo)."""
        parts = self._coo()
        t = lookup_dtype(dtype) if dtype is not None else self.dtype
        return (np.concatenate([p[0] for p in parts]).astype(np.int64) if indices else None,
                np.concatenate([p[1] for p in parts]).astype(t.np_type) if values else None)

    def gather(self, backend: str | None = None) -> Vector:
        """The ordinary Vector with the same entries."""
        idx, vals = self.to_coo()
        return Vector.from_coo(idx, vals, size=self.size, dtype=self.dtype, backend=backend)


_DENSE = 1 / 16
"""A vector with this share of its positions present or more is all-gathered for a product
with a symmetric matrix (a pull over each worker's rows); a sparser one stays where it is and
each worker pushes from its part, unless its rows hold many entries (see :func:`_pulls`)."""

EDGE_RULE = True
"""Whether a sparse vector whose rows hold many of a symmetric matrix's entries is pulled
(:func:`_pulls`); off, the choice is by its share of positions alone (for comparison)."""


GATHER_PUSH: bool | None = None
"""Whether a sparse vector is all-gathered and pushed through the transpose of each worker's
rows (see :func:`_pushes_gathered`): None, where the product never reads the matrix's values
and the backend makes their pattern's transpose (the GPU's); True, wherever the values are not
read (the CPU then builds the row block's transpose); False, never."""


def _pushes_gathered(A: DistMatrix, sr: Any) -> bool:
    """Whether ``A u`` over ``sr`` for a sparse ``u`` and a symmetric ``A`` is done inside an
    SPMD call by all-gathering ``u`` (its entries alone) and pushing it, masked by the output,
    through the transpose of the worker's row block ``A_k'`` (the columns of A that are the
    worker's rows; without values: one byte and an index an entry, kept with the block).  The
    other way, each worker pushes its part over its rows unmasked and the partial results,
    as large as the entries pushed, are exchanged and folded."""
    ctx = A._layout.context
    if ctx.client is not None or GATHER_PUSH is False:
        return False
    from ..ops.multiply import _pull_types
    from ..ops.structural import pattern_transposable

    if _pull_types(sr, False)[1] is not None:  # (the product reads A's values: the transpose would hold them)
        return False
    return GATHER_PUSH is True or pattern_transposable(A._blocks[ctx.rank])  # type: ignore[attr-defined]


def _pulls(A: DistMatrix, u: DistVector, typed: Any, method: str) -> bool:
    """Whether ``u`` is all-gathered and pulled (the gather form) for a product with the
    symmetric ``A``: when ``method`` says so, when :data:`_DENSE` of its positions are present,
    or (inside an SPMD call) when its rows hold the backend's share of A's entries beyond which
    one process pulls too (``MatVecCapabilities``: 5% for a BFS).  A push would expand every
    one of those entries, unmasked, then exchange and fold the partial results, where the
    pull gathers ``u`` once and stops early on each worker's rows (direction optimization,
    Beamer et al., SC 2012; the count of entries is agreed with ``u``'s own where a product
    made ``u``, see :meth:`DistCollection.nvals`)."""
    if method != "auto":
        return method == "pull"
    count = u.nvals
    if count >= u.size * _DENSE:
        return True
    ctx = A._layout.context
    if count == 0 or ctx.client is not None or not EDGE_RULE:
        return False
    from ..ops.multiply import _push_limits

    block = A._blocks[ctx.rank]  # type: ignore[attr-defined]
    share = _push_limits(typed, block._be)[1]
    return u._edges(A) >= share * A.nvals


def _product(kind: str, A: Any, u: Any, op: Any, method: str) -> DistExpr:
    """``A u`` (``mxv``), ``A' u`` (``tmxv``) or ``u' A`` (``vxm``) over the semiring ``op``,
    typed as the single-process product types it.

    Two forms: *gather* (``u`` all-gathered, then ``A_k u`` on each worker: a pull over the
    worker's own rows, the result already where it belongs) and *scatter* (each worker's
    ``u_k' A_k`` or ``A_k' u_k``, a push from its part of ``u`` over its rows, the partial
    results folded with the monoid where they belong).  ``A u`` needs the gather form and
    ``u' A``, ``A' u`` the scatter form, except for a matrix known to be symmetric, where
    ``A' = A`` lets each take either: the gather form for a dense ``u``, the scatter form for
    a sparse one; neither then builds the transpose of a worker's rows."""
    name = "vxm" if kind == "vxm" else "mxv"
    if not isinstance(A, DistMatrix) or not isinstance(u, DistVector):
        raise PartitionMismatch(f"{name}: a distributed Matrix and a distributed Vector are needed, got "
                                f"{type(A).__name__} and {type(u).__name__}")
    inner = A.ncols if kind == "mxv" else A.nrows
    if u.size != inner:
        raise DimensionMismatch(f"{name}: a {A.nrows}x{A.ncols} Matrix{' (transposed)' if kind == 'tmxv' else ''} "
                                f"and a Vector of size {u.size}")
    if u._layout.context is not A._layout.context or kind != "mxv":
        A._layout.require_same(u._layout, name)
    typed = typed_semiring(_resolve_semiring(op), unify(A.dtype, u.dtype))
    if typed.mult.positional:
        raise NotImplementedException(f"{name}: positional operators ({typed.mult.name}) would see the partitions' "
                                      "local row numbers; gather() first")
    symmetric = A._symmetric is True and u._layout.same(A._layout)
    gather = _pulls(A, u, typed, method) if symmetric else kind == "mxv"
    local = method
    if symmetric and method == "auto":
        # a dense u gathered is pulled over the worker's rows; a sparse one is gathered and
        # pushed through the pattern of the row block's transpose where that is made
        local = "pull" if gather else "push"
        gather = gather or _pushes_gathered(A, typed.flipped() if kind == "vxm" else typed)
    if gather:
        sr = typed.flipped() if kind == "vxm" else typed  # u' A = A u with the operands exchanged when A' = A

        def rows_product(M: Any, x: Any) -> Any:
            return M.mxv(x, sr, method=local)

        return DistExpr("gather", "Vector", A._layout if kind == "mxv" else A._col_layout, _probe(rows_product, A, u),
                        rows_product, (A, u), name)
    # Any other sparse u of a symmetric A is pushed from each worker's rows, without the mask (it
    # is cut by the output's rows): a pull of it would walk the transpose of the worker's row
    # block (with values here), as large as the block; the local planner builds none for a push.
    how = "push" if symmetric and method == "auto" else method
    if kind == "vxm":
        def push(x: Any, M: Any) -> Any:
            return x.vxm(M, typed, method=how)
    else:  # A' u, or A u = A' u for a symmetric A
        def push(x: Any, M: Any) -> Any:
            return M.T.mxv(x, typed, method=how)
    return DistExpr("scatter", "Vector", A._col_layout if kind != "mxv" else A._layout, _probe(push, u, A), push,
                    (u, A), name, monoid=typed.monoid)


class DistTransposed(TransposedView):
    """``A.T`` of a DistMatrix: what ``A.T.mxv(u)`` needs."""

    parent: DistMatrix

    def mxv(self, u: Any, op: Any = "plus_times", *, method: str = "auto") -> DistExpr:  # type: ignore[override]
        """``A' u`` (see :func:`_product`)."""
        return _product("tmxv", self.parent, u, op, method)


class DistMatrix(DistCollection, Matrix):  # type: ignore[misc]  # distributed expressions, not local ones
    """A Matrix cut into row blocks, one per worker, each a local ``Matrix`` of its rows and
    all columns (see the module docstring; docs/dask.md says how 2-D blocks would follow)."""

    kind = "Matrix"
    runs_spmd = True
    """The algorithms carrying :func:`.spmd.spmd` run on every worker at once when given one."""
    _col_layout: Layout
    _ncols: int
    _symmetric: bool | None
    _kept: dict[Any, Any]
    _recipe: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedException("make a DistMatrix with grblas_gpu.dask.distribute or read_graph")

    @classmethod
    def _make(cls, layout: Layout, dtype: DataType, blocks: list[Any], name: str | None = None, *,
              ncols: int = 0, col_layout: Layout | None = None, symmetric: bool | None = None,
              recipe: Any = None) -> DistMatrix:
        A = object.__new__(cls)
        A._layout, A._dtype, A._blocks, A.name, A._ncols = layout, dtype, list(blocks), name, ncols
        A._col_layout = col_layout if col_layout is not None else _col_layout_of(layout, ncols)
        A._symmetric, A._kept, A._recipe = symmetric, {}, recipe
        return A

    def _layouts(self) -> tuple[Layout, ...]:
        return (self._layout, self._col_layout)

    def _forget(self) -> None:
        self._symmetric, self._kept = None, {}

    @property
    def nrows(self) -> int:
        """Rows."""
        return self._layout.size

    @property
    def ncols(self) -> int:
        """Columns."""
        return self._ncols

    @property
    def shape(self) -> tuple[int, int]:
        """``(nrows, ncols)``."""
        return (self._layout.size, self._ncols)

    @property
    def T(self) -> DistTransposed:  # type: ignore[override]
        """The transpose, for ``A.T.mxv(u)``."""
        return DistTransposed(self)

    def _memo(self, key: Any, make: Any) -> Any:
        """``make()``, kept with the matrix until its entries change."""
        if key not in self._kept:
            self._kept[key] = make()
        return self._kept[key]

    @property
    def is_symmetric(self) -> bool:
        """Whether the matrix equals its transpose: known when declared (read_graph of a
        symmetric file, ``distribute`` of a matrix known to be), else found once by comparing
        every block ``A[rows_k, rows_q]`` with the transpose of ``A[rows_q, rows_k]`` on ``q``'s
        worker."""
        if self._symmetric is None:
            if self._layout.context.client is None:  # inside an SPMD call: found before it (spmd's needs_symmetry)
                raise NotImplementedException("is_symmetric inside an SPMD call: decorate with "
                                              "spmd(needs_symmetry=True)")
            self._symmetric = self.nrows == self.ncols and _compare_with_transpose(self)
        return self._symmetric

    @is_symmetric.setter
    def is_symmetric(self, value: bool) -> None:
        self._symmetric = bool(value)

    def dup(self, dtype: Any = None, *, clear: bool = False, mask: Any = None, name: str | None = None,
            **opts: Any) -> DistMatrix:
        """A copy (cast to ``dtype``)."""
        _no_clear(clear)
        B = self._as_expr().new(dtype, mask=mask, name=name)
        B._col_layout = self._col_layout
        if dtype is None or lookup_dtype(dtype) == self.dtype:
            B._symmetric = self._symmetric
        return B

    def mxv(self, u: Any, op: Any = "plus_times", *, method: str = "auto") -> DistExpr:  # type: ignore[override]
        """``A u`` (see :func:`_product`)."""
        return _product("mxv", self, u, op, method)

    def reduce_rowwise(self, op: Any = "plus") -> DistExpr:  # type: ignore[override]
        """Each row's entries combined with the monoid ``op`` (a Vector partitioned as the rows)."""
        def make(M: Any) -> Any:
            return M.reduce_rowwise(op)

        return DistExpr("local", "Vector", self._layout, _probe(make, self), make, (self,), "reduce_rowwise")

    def reduce_scalar(self, op: Any = "plus", *, allow_empty: bool = True) -> DistExpr:  # type: ignore[override]
        """Every entry combined with the monoid ``op`` (to a Scalar)."""
        return self.reduce_scalar_expr(op, allow_empty, "reduce_scalar",
                                       lambda M: M.reduce_scalar(op, allow_empty=allow_empty))

    def to_coo(self, dtype: Any = None, *, rows: bool = True, columns: bool = True, values: bool = True,
               sort: bool = True) -> tuple[Any, Any, Any]:
        """Rows, columns and values of every entry, gathered on the client (as Matrix.to_coo)."""
        parts = self._coo()
        t = lookup_dtype(dtype) if dtype is not None else self.dtype
        return (np.concatenate([p[0] for p in parts]).astype(np.int64) if rows else None,
                np.concatenate([p[1] for p in parts]).astype(np.int64) if columns else None,
                np.concatenate([p[2] for p in parts]).astype(t.np_type) if values else None)

    def gather(self, backend: str | None = None) -> Matrix:
        """The ordinary Matrix with the same entries."""
        r, c, v = self.to_coo()
        return Matrix.from_coo(r, c, v, self.nrows, self.ncols, dtype=self.dtype, backend=backend,
                               symmetric=self._symmetric)

    def rebuild(self, source: Matrix | None = None) -> list[int]:
        """Make again the partitions whose worker was lost, on workers of the client now
        holding none (or the least loaded), from the file it was read from or from
        ``source`` (the local Matrix it was distributed from).  The partitions on live
        workers stay where they are.  Returns the rebuilt partitions' numbers; vectors made
        from the old layout no longer meet this matrix."""
        return rebuild(self, source)


def _no_clear(clear: bool) -> None:
    if clear:
        raise NotImplementedException("dup(clear=True) of a distributed object: make an empty local one and "
                                      "distribute it")


def _col_layout_of(rows: Layout, ncols: int) -> Layout:
    from .layout import even_offsets

    if ncols == rows.size:
        return rows
    return Layout(rows.context, even_offsets(ncols, rows.nparts))


def _compare_with_transpose(A: DistMatrix) -> bool:
    """Whether every block ``A[rows_k, rows_q]`` equals the transpose of ``A[rows_q, rows_k]``
    (blocks moved by Dask: this runs once per matrix)."""
    lay = A._layout
    ctx, offs, n = lay.context, lay.offsets, lay.nparts
    cut = [[ctx.submit(_cut_columns, A._blocks[k], offs[q], offs[q + 1], part=k) for q in range(n)] for k in range(n)]
    checks = [ctx.submit(_equal_transposed, cut[k][q], cut[q][k], part=q) for k in range(n) for q in range(n)]
    return all(ctx.gather(checks, "is_symmetric"))


def _cut_columns(M: Matrix, lo: int, hi: int) -> Matrix:
    return M[:, lo:hi].new()


def _equal_transposed(mine: Matrix, theirs: Matrix) -> bool:
    return bool(mine.isequal(theirs.T.new()))


# Inherited Vector/Matrix methods that would read local storage: refused with a clear message.
def _not_distributed(name: str) -> Callable[..., Any]:
    def refuse(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedException(f"{name} is not available on a distributed {self.kind} yet: "
                                      f".gather() it first")
    refuse.__name__ = name
    refuse.__doc__ = f"Not available distributed (``{name}``): gather first."
    return refuse


for _name in ("__getitem__", "__setitem__", "__delitem__", "get", "to_dense", "resize", "clear", "diag",
              "__contains__", "__len__", "to", "isequal", "isclose", "__dlpack__"):
    setattr(DistVector, _name, _not_distributed(_name))
for _name in ("__getitem__", "__setitem__", "__delitem__", "get", "to_dense", "resize", "clear", "diag", "mxm",
              "kronecker", "reduce_columnwise", "to_csr", "to_csc", "to", "isequal", "isclose", "memory_usage",
              "free_kept"):
    setattr(DistMatrix, _name, _not_distributed(_name))
