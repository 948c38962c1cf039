"""Vector exchanges between GPU workers through NCCL (CuPy's bindings), device to device.

One communicator per worker process and cluster layout, made once: worker 0 makes the unique
id, Dask hands it to every worker, and each joins as its rank (as raft-dask's comms do).  The
exchanges are collectives: every worker must call them in the same order, which the client
ensures by chaining each worker's collective tasks (see ``layout.Context``).

A partition travels in the form that is smallest for its count of entries: its values alone
when full, (indices, values) when sparse, (presence, values) otherwise; every rank knows each
piece's form from the counts exchanged first, so no one sends a form name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..vector import Vector

__all__ = ["unique_id", "join_comm", "leave_comm", "abort_comm", "get_comm", "NcclComm"]

_COMMS: dict[str, NcclComm] = {}
"""The communicators this worker process has joined, by layout key."""


def unique_id() -> Any:
    """A fresh NCCL unique id (run on one worker; the client may have no GPU)."""
    from cupy.cuda import nccl

    return nccl.get_unique_id()


def join_comm(key: str, uid: Any, nranks: int, rank: int) -> int:
    """Join the communicator ``key`` as ``rank`` of ``nranks`` (blocks until all have joined)."""
    from cupy.cuda import nccl

    _COMMS[key] = NcclComm(nccl.NcclCommunicator(nranks, uid, rank), nranks, rank)
    return rank


def leave_comm(key: str) -> None:
    """Drop this worker's communicator ``key`` (after a worker was lost it cannot be used)."""
    comm = _COMMS.pop(key, None)
    if comm is not None:
        comm.comm.destroy()


def abort_comm(key: str) -> None:
    """Abort this worker's communicator ``key`` (run beside a task blocked in a collective
    whose partner died: ``ncclCommAbort`` makes it return with an error, freeing the worker)."""
    comm = _COMMS.pop(key, None)
    if comm is not None:
        comm.comm.abort()


def get_comm(key: str) -> NcclComm:
    """This worker's communicator ``key``."""
    return _COMMS[key]


def _form(count: int, size: int, itemsize: int) -> str:
    if count == size:
        return "full"
    return "sparse" if count * (8 + itemsize) < size * (1 + itemsize) else "bitmap"


class NcclComm:
    """The exchanges the distributed operations need, over one NCCL communicator."""

    def __init__(self, comm: Any, nranks: int, rank: int) -> None:
        self.comm, self.nranks, self.rank = comm, nranks, rank

    # ------------------------------------------------------------ primitives
    def _stream(self) -> int:
        import cupy

        return cupy.cuda.get_current_stream().ptr

    def _allgather_ints(self, values: Sequence[int]) -> np.ndarray:
        """Every rank's ``values`` (the same length on all), as an (nranks, len) host array."""
        import cupy
        from cupy.cuda import nccl

        send = cupy.asarray(np.asarray(values, dtype=np.int64))
        recv = cupy.empty(len(values) * self.nranks, dtype=np.int64)
        self.comm.allGather(send.data.ptr, recv.data.ptr, len(values), nccl.NCCL_INT64, self._stream())
        return cupy.asnumpy(recv).reshape(self.nranks, len(values))

    @staticmethod
    def _bytes(a: Any) -> Any:
        import cupy

        return cupy.ascontiguousarray(a).view(cupy.uint8)

    def _arrays_of(self, v: Vector, form: str) -> list[Any]:
        if form == "full":
            return [v._bitmap()[1]]
        if form == "sparse":
            return list(v._sparse())
        bits, vals = v._bitmap()
        return [bits, vals]

    def _empty_arrays(self, form: str, count: int, size: int, dtype: Any) -> list[Any]:
        import cupy

        if form == "full":
            return [cupy.empty(size, dtype=dtype)]
        if form == "sparse":
            return [cupy.empty(count, dtype=np.int64), cupy.empty(count, dtype=dtype)]
        return [cupy.empty(size, dtype=bool), cupy.empty(size, dtype=dtype)]

    @staticmethod
    def _vector(be: Any, t: Any, form: str, count: int, size: int, arrays: list[Any]) -> Vector:
        if form == "full":
            return Vector._from_bitmap(be, t, size, be.full(size, True, _bool()), arrays[0], size)
        if form == "sparse":
            return Vector._from_parts(be, t, size, arrays[0], arrays[1])
        return Vector._from_bitmap(be, t, size, arrays[0], arrays[1], count)

    # ------------------------------------------------------------ exchanges
    def allgather(self, piece: Vector, offsets: Sequence[int]) -> Vector:
        """The whole vector from every rank's partition ``piece`` (rank r holds positions
        ``offsets[r]:offsets[r+1]``): counts first, then each piece broadcast from its rank
        in its own form; joined as in ``_local.join``."""
        from cupy.cuda import nccl

        from ._local import join

        counts = self._allgather_ints([piece.nvals])[:, 0]
        be, t = piece._be, piece.dtype
        pieces, keep = [], []  # keep: the buffers stay alive until the group has run
        nccl.groupStart()
        try:
            for r in range(self.nranks):
                size = offsets[r + 1] - offsets[r]
                form = _form(int(counts[r]), size, t.np_type.itemsize)
                arrays = (self._arrays_of(piece, form) if r == self.rank
                          else self._empty_arrays(form, int(counts[r]), size, t.np_type))
                for a in arrays:
                    b = self._bytes(a)
                    keep.append(b)
                    if b.size:
                        self.comm.bcast(b.data.ptr, b.size, nccl.NCCL_UINT8, r, self._stream())
                pieces.append((form, int(counts[r]), size, arrays))
        finally:
            nccl.groupEnd()
        return join([self._vector(be, t, *p) for p in pieces], offsets)

    def alltoall(self, slices: Sequence[Vector]) -> list[Vector]:
        """Rank r's ``slices[q]`` to rank q, for every pair: the pieces of this rank's
        partition from every rank, in rank order."""
        from cupy.cuda import nccl

        counts = self._allgather_ints([s.nvals for s in slices])  # counts[p, q]: p's piece for q
        mine = slices[self.rank]
        be, t, size = mine._be, mine.dtype, mine.size
        item = t.np_type.itemsize
        received: list[Any] = []
        keep = []  # the send buffers stay alive until the group has run
        nccl.groupStart()
        try:
            for q in range(self.nranks):  # what this rank sends
                if q == self.rank:
                    continue
                form = _form(int(counts[self.rank, q]), slices[q].size, item)
                for a in self._arrays_of(slices[q], form):
                    b = self._bytes(a)
                    keep.append(b)
                    if b.size:
                        self.comm.send(b.data.ptr, b.size, nccl.NCCL_UINT8, q, self._stream())
            for p in range(self.nranks):  # what it receives
                if p == self.rank:
                    received.append(None)
                    continue
                form = _form(int(counts[p, self.rank]), size, item)
                arrays = self._empty_arrays(form, int(counts[p, self.rank]), size, t.np_type)
                for a in arrays:
                    b = a.view(np.uint8)
                    if b.size:
                        self.comm.recv(b.data.ptr, b.size, nccl.NCCL_UINT8, p, self._stream())
                received.append((form, int(counts[p, self.rank]), size, arrays))
        finally:
            nccl.groupEnd()
        return [mine if r is None else self._vector(be, t, *r) for r in received]


def _bool() -> Any:
    from ..dtypes import BOOL

    return BOOL
