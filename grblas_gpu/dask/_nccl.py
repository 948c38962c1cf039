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

__all__ = ["unique_id", "join_comm", "install_comm", "abort_comm", "get_comm", "Exchange", "NcclComm"]

_COMMS: dict[tuple[str, str], Exchange] = {}
"""The communicators joined in this process, by (layout key, worker address): a process
running several workers in threads holds one per worker."""


def _me(dask_worker: Any = None) -> str:
    if dask_worker is None:
        from distributed import get_worker

        dask_worker = get_worker()
    return str(dask_worker.address)


def unique_id() -> Any:
    """A fresh NCCL unique id (run on one worker; the client may have no GPU)."""
    from cupy.cuda import nccl

    return nccl.get_unique_id()


def join_comm(key: str, uid: Any, nranks: int, rank: int) -> int:
    """Join the communicator ``key`` as ``rank`` of ``nranks`` (blocks until all have joined)."""
    from cupy.cuda import nccl

    _COMMS[key, _me()] = NcclComm(nccl.NcclCommunicator(nranks, uid, rank), nranks, rank)
    return rank


def install_comm(key: str, address: str, comm: Exchange) -> None:
    """Hold ``comm`` as worker ``address``'s communicator ``key`` (another transport)."""
    _COMMS[key, address] = comm


def abort_comm(key: str, dask_worker: Any = None) -> None:
    """Abort this worker's communicator ``key`` (run beside a task blocked in a collective
    whose partner died, through ``client.run``: ``ncclCommAbort``, or closing the sockets of
    a host exchange, makes it return with an error, freeing the worker)."""
    comm = _COMMS.pop((key, _me(dask_worker)), None)
    if comm is not None:
        comm.abort()


def get_comm(key: str) -> Exchange:
    """This worker's communicator ``key``."""
    return _COMMS[key, _me()]


def _form(count: int, size: int, itemsize: int) -> str:
    if count == size:
        return "full"
    return "sparse" if count * (8 + itemsize) < size * (1 + itemsize) else "bitmap"


_WORDS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _one_value_pays(form: str, count: int, size: int, itemsize: int) -> bool:
    """Whether a piece of this form is worth testing for one value shared by all its entries:
    sent as presence bits (``size / 8`` bytes) it would be at least four times smaller."""
    if form == "full" or itemsize not in _WORDS:
        return False
    sent = count * (8 + itemsize) if form == "sparse" else size * (1 + itemsize)
    return sent >= (size + 7) // 8 * 4


def _bits_value(word: int, dtype: Any) -> Any:
    """The value of type ``dtype`` whose bits are the int64 ``word`` (as :meth:`Exchange._one_value` sends it)."""
    w = _WORDS[np.dtype(dtype).itemsize]
    return np.array([word], dtype=np.int64).view(np.uint64).astype(w).view(dtype)[0]


class Exchange:
    """The vector exchanges the distributed operations need, over a transport that gives an
    all-gather of a few integers, broadcasts and point-to-point sends of byte buffers, grouped
    (the NCCL model: a group's operations run together at its end).  :class:`NcclComm` is the
    transport between GPU workers; the tests give one over threads."""

    nranks: int
    rank: int
    xp: Any  # the array module of the buffers

    # ------------------------------------------------------------ the transport
    def _allgather_ints(self, values: Sequence[int]) -> np.ndarray:
        """Every rank's ``values`` (the same length on all), as an (nranks, len) host array."""
        raise NotImplementedError

    def _group_start(self) -> None:
        raise NotImplementedError

    def _group_end(self) -> None:
        raise NotImplementedError

    def _bcast(self, buf: Any, root: int) -> None:
        """``root``'s bytes ``buf`` into every rank's ``buf``."""
        raise NotImplementedError

    def _send(self, buf: Any, peer: int) -> None:
        raise NotImplementedError

    def _recv(self, buf: Any, peer: int) -> None:
        raise NotImplementedError

    def abort(self) -> None:
        """Make every exchange in progress on this rank fail (the communicator is not used again)."""

    # ------------------------------------------------------------ small objects
    def allgather_ints(self, values: Sequence[int]) -> np.ndarray:
        """Every rank's ``values`` (the same length on all), as an (nranks, len) host array."""
        if self.nranks == 1:
            return np.asarray([values], dtype=np.int64)
        return self._allgather_ints(values)

    def allgather_object(self, obj: Any) -> list[Any]:
        """Every rank's ``obj`` (pickled; for small objects: counts, reductions), in rank order."""
        import pickle

        if self.nranks == 1:
            return [obj]
        if isinstance(obj, (int, np.integer)) and not isinstance(obj, bool):
            return [int(x) for x in self._allgather_ints([int(obj)])[:, 0]]
        data = np.frombuffer(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), dtype=np.uint8)
        sizes = self._allgather_ints([len(data)])[:, 0]
        bufs = [self.xp.asarray(data) if r == self.rank else self.xp.empty(int(sizes[r]), dtype=np.uint8)
                for r in range(self.nranks)]
        self._group_start()
        try:
            for r, b in enumerate(bufs):
                if b.size:
                    self._bcast(b, r)
        finally:
            self._group_end()
        host = [np.asarray(b.get() if hasattr(b, "get") else b) for b in bufs]
        return [obj if r == self.rank else pickle.loads(host[r].tobytes()) for r in range(self.nranks)]

    def allgather_scalar(self, s: Any, identity: Any = None) -> Vector:
        """Every rank's local Scalar ``s`` (one type on all ranks) as a Vector of ``nranks``
        positions on this rank's device: rank r's value at r, no entry where its Scalar is
        empty.  A value left on the device (a reduction not read back) moves device to device,
        unread.  Whether each is empty goes through the host, except with the ``identity`` of
        the monoid that will combine them: then it moves with the values, an empty rank's
        value counts as the identity, and only a rank whose own Scalar is empty reads the
        others' (to know whether all are), so a rank holding a value never waits."""
        be, t = s._be, s.dtype
        xp = self.xp
        vals = xp.zeros(self.nranks, dtype=t.np_type)
        if not s.is_empty:
            dev = s._store.on_device()
            vals[self.rank] = dev if dev is not None else s._store.host
        if identity is None:
            present = self._allgather_ints([0 if s.is_empty else 1])[:, 0]
            flags = None
        else:
            flags = xp.zeros(self.nranks, dtype=np.uint8)
            flags[self.rank] = 0 if s.is_empty else 1
        self._group_start()
        try:
            for r in range(self.nranks):
                if flags is not None:
                    self._bcast(vals[r:r + 1].view(xp.uint8), r)
                    self._bcast(flags[r:r + 1], r)
                elif present[r]:
                    self._bcast(vals[r:r + 1].view(xp.uint8), r)
        finally:
            self._group_end()
        every = be.xp.arange(self.nranks, dtype=np.int64)
        if flags is not None:
            if not s.is_empty:  # the result has a value: the empty ranks' count as the identity
                filled = xp.where(flags.astype(bool), vals, xp.asarray(identity, dtype=t.np_type))
                return Vector._from_parts(be, t, self.nranks, every, filled)
            present = np.asarray(flags.get() if hasattr(flags, "get") else flags)
        idx = np.flatnonzero(present).astype(np.int64)
        if idx.size == self.nranks:
            return Vector._from_parts(be, t, self.nranks, every, vals)
        return Vector._from_parts(be, t, self.nranks, be.xp.asarray(idx), vals[be.xp.asarray(idx)])

    # ------------------------------------------------------------ pieces
    def _bytes(self, a: Any) -> Any:
        return self.xp.ascontiguousarray(a).view(self.xp.uint8)

    def _arrays_of(self, v: Vector, form: str) -> list[Any]:
        if form == "one":
            return [self.xp.packbits(v._bitmap()[0])]
        if form == "full":
            return [v._bitmap()[1]]
        if form == "sparse":
            return list(v._sparse())
        bits, vals = v._bitmap()
        return [bits, vals]

    def _empty_arrays(self, form: str, count: int, size: int, dtype: Any) -> list[Any]:
        xp = self.xp
        if form == "one":
            return [xp.empty((size + 7) // 8, dtype=np.uint8)]
        if form == "full":
            return [xp.empty(size, dtype=dtype)]
        if form == "sparse":
            return [xp.empty(count, dtype=np.int64), xp.empty(count, dtype=dtype)]
        return [xp.empty(size, dtype=bool), xp.empty(size, dtype=dtype)]

    @staticmethod
    def _vector(be: Any, t: Any, form: str, count: int, size: int, arrays: list[Any]) -> Vector:
        if form == "full":
            return Vector._from_bitmap(be, t, size, be.full(size, True, _bool()), arrays[0], size)
        if form == "sparse":
            return Vector._from_parts(be, t, size, arrays[0], arrays[1])
        return Vector._from_bitmap(be, t, size, arrays[0], arrays[1], count)

    # ------------------------------------------------------------ exchanges
    def allgather(self, piece: Vector, offsets: Sequence[int], counts: Sequence[int] | None = None,
                  ones: Sequence[Sequence[int]] | None = None) -> Vector:
        """The whole vector from every rank's partition ``piece`` (rank r holds positions
        ``offsets[r]:offsets[r+1]``): counts first (unless given: every rank's, agreed
        already), then each piece broadcast from its rank in its own form; joined as in
        ``_local.join``.  ``ones``: every rank's :meth:`one_value_word` of its piece, where
        agreed with the counts (else exchanged here where a piece is worth testing)."""
        from ._local import join

        if self.nranks == 1:
            return piece
        if counts is None:  # (given, they are the same on every rank: no rank may skip the exchange alone)
            counts = [int(c) for c in self._allgather_ints([piece.nvals])[:, 0]]
        be, t = piece._be, piece.dtype
        item = t.np_type.itemsize
        sizes = [offsets[r + 1] - offsets[r] for r in range(self.nranks)]
        forms = [_form(int(counts[r]), sizes[r], item) for r in range(self.nranks)]
        worth = [_one_value_pays(forms[r], int(counts[r]), sizes[r], item) for r in range(self.nranks)]
        values: list[Any] = [None] * self.nranks
        if ones is not None:
            values = [_bits_value(int(w), t.np_type) if one and worth[r] else None
                      for r, (one, w) in enumerate(ones)]
        elif any(worth):  # (the same on every rank: from the agreed counts)
            values = self._one_values(piece, worth[self.rank])
        forms = ["one" if v is not None else f for f, v in zip(forms, values, strict=True)]
        if "sparse" not in forms and sum(int(c) for c in counts) * 4 >= int(offsets[-1]):
            return self._allgather_dense(piece, offsets, [int(c) for c in counts], forms, values)
        pieces, keep = [], []  # keep: the buffers stay alive until the group has run
        self._group_start()
        try:
            for r in range(self.nranks):
                size = sizes[r]
                form = forms[r]
                arrays = (self._arrays_of(piece, form) if r == self.rank
                          else self._empty_arrays(form, int(counts[r]), size, t.np_type))
                for a in arrays:
                    b = self._bytes(a) if r == self.rank else a.view(self.xp.uint8)
                    keep.append(b)
                    if b.size:
                        self._bcast(b, r)
                pieces.append((form, int(counts[r]), size, arrays))
        finally:
            self._group_end()
        got = [self._vector(be, t, *p) if p[0] != "one" else self._one_valued(be, t, *p, values[r])
               for r, p in enumerate(pieces)]
        return join(got, offsets)

    def _allgather_dense(self, piece: Vector, offsets: Sequence[int], counts: list[int], forms: list[str],
                         values: list[Any]) -> Vector:
        """:meth:`allgather` where the whole is dense (a bitmap, as ``join`` makes it) and no
        piece is sent sparse (PageRank's full vectors, a BFS's large levels): each piece is
        received straight into its place in the whole's presence and values (presence bits
        unpacked there, a one value filled in), so that no join copies them again."""
        xp, be, t = self.xp, piece._be, piece.dtype
        size = int(offsets[-1])
        full = all(f == "full" for f in forms)
        bits = be.full(size, True, _bool()) if full else xp.empty(size, dtype=bool)
        vals = xp.empty(size, dtype=t.np_type)
        packed: dict[int, Any] = {}
        keep = []  # the buffers stay alive until the group has run
        self._group_start()
        try:
            for r in range(self.nranks):
                lo, hi = int(offsets[r]), int(offsets[r + 1])
                if r == self.rank:
                    present, own = piece._bitmap()
                    vals[lo:hi] = own
                    if not full:
                        bits[lo:hi] = present
                    bufs = [self._bytes(a) for a in self._arrays_of(piece, forms[r])]
                elif forms[r] == "one":
                    packed[r] = xp.empty((hi - lo + 7) // 8, dtype=np.uint8)
                    bufs = [packed[r]]
                elif forms[r] == "full":
                    bufs = [vals[lo:hi].view(np.uint8)]
                else:  # a bitmap
                    bufs = [bits[lo:hi].view(np.uint8), vals[lo:hi].view(np.uint8)]
                for b in bufs:
                    keep.append(b)
                    if b.size:
                        self._bcast(b, r)
        finally:
            self._group_end()
        for r in range(self.nranks):
            lo, hi = int(offsets[r]), int(offsets[r + 1])
            if r != self.rank and forms[r] == "one":
                bits[lo:hi] = self._unpacked(packed[r], hi - lo)
                vals[lo:hi] = values[r]
            elif r != self.rank and forms[r] == "full" and not full:
                bits[lo:hi] = True
        return Vector._from_bitmap(be, t, size, bits, vals, sum(counts))

    def _one_values(self, piece: Vector, test: bool) -> list[Any]:
        """Every rank's one value shared by all its piece's entries (of the piece's type), or
        None where they differ or the rank did not ``test``: one exchange of the values' bits."""
        got = self._allgather_ints(self.one_value_word(piece, test))
        return [_bits_value(int(w), piece.dtype.np_type) if one else None for one, w in got]

    def one_value_word(self, piece: Vector, test: bool | None = None) -> list[int]:
        """``[1, bits]`` where every entry of ``piece`` has the value whose bits are ``bits``
        (an int64), else ``[0, 0]``; not looked at unless ``test`` (None: where the piece's
        form makes it worth it, as :meth:`allgather` decides)."""
        if test is None:
            count, size, item = int(piece.nvals), piece.size, piece.dtype.np_type.itemsize
            test = _one_value_pays(_form(count, size, item), count, size, item)
        mine = [0, 0]
        if test and piece.nvals:
            xp = self.xp
            word = _WORDS[piece.dtype.np_type.itemsize]
            if piece._sp is not None or not piece._is_bitmap:
                bits = piece._sparse()[1].view(word)
            else:
                present, vals = piece._bitmap()
                bits = vals.view(word)[present]
            lo, hi = bits.min(), bits.max()  # (compared as bits: -0.0 is not 0.0, and NaNs may differ)
            both = xp.stack([(lo == hi).astype(np.int64), lo.astype(np.int64)])
            mine = [int(x) for x in (both.get() if hasattr(both, "get") else both)]
        return mine

    def _one_valued(self, be: Any, t: Any, form: str, count: int, size: int, arrays: list[Any], value: Any) -> Vector:
        """A piece sent as presence bits with its one value."""
        present = self._unpacked(arrays[0], size)
        return Vector._from_bitmap(be, t, size, present, self.xp.full(size, value, dtype=t.np_type), count)

    def _unpacked(self, packed: Any, size: int) -> Any:
        """The ``size`` presence flags that ``packbits`` packed into ``packed``."""
        return self.xp.unpackbits(packed)[:size].astype(bool)

    def alltoall(self, slices: Sequence[Vector]) -> list[Vector]:
        """Rank r's ``slices[q]`` to rank q, for every pair: the pieces of this rank's
        partition from every rank, in rank order."""
        if self.nranks == 1:
            return list(slices)
        counts = self._allgather_ints([s.nvals for s in slices])  # counts[p, q]: p's piece for q
        mine = slices[self.rank]
        be, t, size = mine._be, mine.dtype, mine.size
        item = t.np_type.itemsize
        received: list[Any] = []
        keep = []  # the send buffers stay alive until the group has run
        self._group_start()
        try:
            for q in range(self.nranks):  # what this rank sends
                if q == self.rank:
                    continue
                form = _form(int(counts[self.rank, q]), slices[q].size, item)
                for a in self._arrays_of(slices[q], form):
                    b = self._bytes(a)
                    keep.append(b)
                    if b.size:
                        self._send(b, q)
            for p in range(self.nranks):  # what it receives
                if p == self.rank:
                    received.append(None)
                    continue
                form = _form(int(counts[p, self.rank]), size, item)
                arrays = self._empty_arrays(form, int(counts[p, self.rank]), size, t.np_type)
                for a in arrays:
                    b = a.view(self.xp.uint8)
                    if b.size:
                        self._recv(b, p)
                received.append((form, int(counts[p, self.rank]), size, arrays))
        finally:
            self._group_end()
        return [mine if r is None else self._vector(be, t, *r) for r in received]


class NcclComm(Exchange):
    """:class:`Exchange` over one NCCL communicator (CuPy's bindings), device to device."""

    def __init__(self, comm: Any, nranks: int, rank: int) -> None:
        import cupy

        self.comm, self.nranks, self.rank, self.xp = comm, nranks, rank, cupy

    def abort(self) -> None:
        """``ncclCommAbort``."""
        self.comm.abort()

    def _stream(self) -> int:
        return int(self.xp.cuda.get_current_stream().ptr)

    def _allgather_ints(self, values: Sequence[int]) -> np.ndarray:
        from cupy.cuda import nccl

        cp = self.xp
        send = cp.asarray(np.asarray(values, dtype=np.int64))
        recv = cp.empty(len(values) * self.nranks, dtype=np.int64)
        self.comm.allGather(send.data.ptr, recv.data.ptr, len(values), nccl.NCCL_INT64, self._stream())
        return np.asarray(cp.asnumpy(recv)).reshape(self.nranks, len(values))

    def _group_start(self) -> None:
        from cupy.cuda import nccl

        nccl.groupStart()

    def _group_end(self) -> None:
        from cupy.cuda import nccl

        nccl.groupEnd()

    def _bcast(self, buf: Any, root: int) -> None:
        from cupy.cuda import nccl

        self.comm.bcast(buf.data.ptr, buf.size, nccl.NCCL_UINT8, root, self._stream())

    def _send(self, buf: Any, peer: int) -> None:
        from cupy.cuda import nccl

        self.comm.send(buf.data.ptr, buf.size, nccl.NCCL_UINT8, peer, self._stream())

    def _recv(self, buf: Any, peer: int) -> None:
        from cupy.cuda import nccl

        self.comm.recv(buf.data.ptr, buf.size, nccl.NCCL_UINT8, peer, self._stream())


def _bool() -> Any:
    from ..dtypes import BOOL

    return BOOL
