"""What runs on a worker: one partition's share of an operation, on ordinary local objects.

Every function here takes and returns local ``Vector``/``Matrix`` objects (a partition of a
distributed one) and never changes an argument: a write works on a copy, so a failed call
leaves the distributed object as it was, and Dask may rerun a task.  The operation itself is
done by the ordinary single-process algebra, so the C API semantics are the same by
construction; only the pieces before a product (the all-gathered vector) and after one (the
partial results of other partitions, folded with the semiring's monoid) are made here.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..matrix import Matrix
from ..scalar import Scalar
from ..vector import Vector

__all__ = ["Write", "join", "split", "run_local", "run_gather", "run_partial", "run_fold"]


@dataclass(frozen=True)
class Write:
    """How a partition's result is written: as a new object (``new``) or into the output
    partition through a mask, accumulator and replace flag, as ``out(mask, accum, replace,
    changed=) << value``.  ``mask`` is ``(structure, complement)`` when a mask is given."""

    new: bool
    dtype: Any = None
    mask: tuple[bool, bool] | None = None
    accum: Any = None
    replace: bool = False
    changed: bool = False
    in_place: bool = False  # write into ``out`` itself (inside an SPMD call, where no retry needs the old one)


def _mask_of(block: Any, how: tuple[bool, bool] | None) -> Any:
    if how is None:
        return None
    m = block.S if how[0] else block.V
    return ~m if how[1] else m


def write(how: Write, value: Any, out: Any, mask: Any, changed: Any) -> Any:
    """The partition of the result: ``value`` (an Expression, a local object or a Python
    scalar) written as ``how`` says.  An update returns ``(out, changed)`` when ``changed``
    is asked for, else ``out``."""
    m = _mask_of(mask, how.mask)
    if how.new:
        if isinstance(value, (Vector, Matrix)):
            return value.dup(how.dtype, mask=m) if m is not None or how.dtype is not None else value.dup()
        return value.new(how.dtype, mask=m)
    result = out if how.in_place else out.dup()
    frontier = (changed if how.in_place else changed.dup()) if how.changed else None
    result(m, how.accum, replace=how.replace, changed=frontier) << value
    return (result, frontier) if how.changed else result


def run_local(make: Callable[..., Any], how: Write, out: Any, mask: Any, changed: Any, *inputs: Any) -> Any:
    """An element-wise operation (no exchange): ``make(*inputs)`` on this partition's
    operands, written as ``how`` says."""
    return write(how, make(*inputs), out, mask, changed)


def run_gather(make: Callable[..., Any], how: Write, comm: Any, offsets: Sequence[int], out: Any, mask: Any,
               changed: Any, block: Any, *pieces: Any, counts: Sequence[int] | None = None,
               ones: Sequence[Sequence[int]] | None = None) -> Any:
    """``A_p u`` (or any ``make(A_p, u)``) with ``u`` all-gathered: from ``pieces`` (every
    partition of u, moved by Dask) or, where ``comm`` is given, by its all-gather of this
    worker's piece (NCCL; ``counts``, ``ones``: every piece's count and one value where
    already agreed)."""
    whole = comm.allgather(pieces[0], offsets, counts, ones) if comm is not None else join(list(pieces), offsets)
    return write(how, make(block, whole), out, mask, changed)


def run_partial(make: Callable[..., Any], offsets: Sequence[int], *inputs: Any) -> tuple[Any, ...]:
    """This partition's contribution to a product whose output is partitioned elsewhere
    (``u_p' A_p``, ``A_p' u_p``): the full-size partial result cut at ``offsets``."""
    partial = make(*inputs)
    return tuple(split(partial if isinstance(partial, Vector) else partial.new(), offsets))


def frontier_edges(M: Matrix, v: Vector) -> int:
    """The entries of the rows of ``M`` that ``v``'s entries index (``v`` has one position per
    row of ``M``)."""
    if not v.nvals:
        return 0
    if v._full:
        return int(M.nvals)
    if v._sp is None:
        return int(M._be.sum_selected(M._row_lengths(), flags=v._bitmap()[0]))
    return int(M._be.sum_selected(M._row_lengths(), rows=v._sparse()[0]))


def run_fold(monoid: Any, how: Write, out: Any, mask: Any, changed: Any, *pieces: Any) -> Any:
    """The partial results for this partition from every partition (in partition order),
    folded with the product's monoid, then written as ``how`` says."""
    return write(how, fold(monoid, list(pieces)), out, mask, changed)


def run_exchange_fold(make: Callable[..., Any], monoid: Any, how: Write, comm: Any, offsets: Sequence[int],
                      out: Any, mask: Any, changed: Any, *inputs: Any) -> Any:
    """:func:`run_partial`, the all-to-all exchange of the pieces through ``comm`` (NCCL) and
    :func:`run_fold`, in one task."""
    pieces = comm.alltoall(run_partial(make, offsets, *inputs))
    return run_fold(monoid, how, out, mask, changed, *pieces)


def fold(monoid: Any, pieces: list[Vector]) -> Vector:
    """The pieces combined with ``monoid`` (a union: a position present in one piece only
    keeps that value), left to right."""
    acc = pieces[0]
    for p in pieces[1:]:
        if p.nvals:
            acc = acc.ewise_add(p, monoid).new() if acc.nvals else p
    return acc


def join(blocks: list[Vector], offsets: Sequence[int]) -> Vector:
    """The Vector of size ``offsets[-1]`` made of ``blocks`` placed at ``offsets``: sparse
    (indices, values) when few entries are present, else a bitmap."""
    first = blocks[0]
    be, t, size = first._be, first.dtype, int(offsets[-1])
    xp = be.xp
    count = sum(b.nvals for b in blocks)
    if count * 4 < size:
        idx, vals = [], []
        for off, b in zip(offsets, blocks, strict=False):
            i, v = b._sparse()
            idx.append(i + off)
            vals.append(v)
        return Vector._from_parts(be, t, size, xp.concatenate(idx), xp.concatenate(vals))
    maps = [b._bitmap() for b in blocks]
    return Vector._from_bitmap(be, t, size, xp.concatenate([m[0] for m in maps]), xp.concatenate([m[1] for m in maps]),
                               count)


def split(v: Vector, offsets: Sequence[int]) -> list[Vector]:
    """``v`` cut at ``offsets`` into Vectors of the partitions' sizes (copies)."""
    be, t = v._be, v.dtype
    parts = []
    if v._is_bitmap:
        bits, vals = v._bitmap()
        for lo, hi in itertools.pairwise(offsets):
            parts.append(Vector._from_bitmap(be, t, hi - lo, bits[lo:hi].copy(), vals[lo:hi].copy()))
        return parts
    idx, vals = v._sparse()
    cuts = be.xp.searchsorted(idx, be.xp.asarray(np.asarray(offsets, dtype=np.int64)))
    cuts = [int(c) for c in cuts]
    for k, (lo, hi) in enumerate(itertools.pairwise(offsets)):
        a, b = cuts[k], cuts[k + 1]
        parts.append(Vector._from_parts(be, t, hi - lo, idx[a:b] - lo, vals[a:b].copy()))
    return parts


# ---------------------------------------------------------------- small reads
def nvals(block: Any) -> int:
    """The partition's number of entries."""
    return int(block.nvals)


def reduce_block(make: Callable[..., Any], *inputs: Any) -> tuple[bool, Any, Any]:
    """A reduction of this partition to a scalar: (empty?, value, dtype)."""
    s = make(*inputs)
    s = s.new() if not isinstance(s, Scalar) else s
    return s.is_empty, (None if s.is_empty else s.value), s.dtype


def coo_of(block: Any, offset: int) -> tuple[np.ndarray, ...]:
    """The partition's entries on the host, row (or position) indices made global."""
    parts = block.to_coo()
    return (np.asarray(parts[0]) + offset, *[np.asarray(p) for p in parts[1:]])


def getitem(t: Any, i: int) -> Any:
    """``t[i]`` (one of a task's several results)."""
    return t[i]


def memory_in_use() -> dict[str, int]:
    """Bytes the worker's device holds now (CuPy's pool) or 0 without CuPy."""
    try:
        import cupy

        pool = cupy.get_default_memory_pool()
        return {"used": int(pool.used_bytes()), "held": int(pool.total_bytes())}
    except Exception:  # noqa: BLE001 - no CuPy, or no device: a CPU worker
        return {"used": 0, "held": 0}
