"""Vector exchanges between CPU workers: the :class:`~._nccl.Exchange` over TCP sockets
between the worker processes (a full mesh, one connection per pair of workers).

The mesh is made once per cluster layout, in two steps run through Dask: every worker opens
a listening socket and returns its address (:func:`listen`); the client hands the list to
all of them and each connects to the workers of lower rank and accepts those of higher rank
(:func:`join_mesh`).  The grouped operations run at the group's end, as NCCL's do: one
thread per peer sends while this thread receives in rank order, so no pair of workers can
block each other however large the buffers.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._nccl import Exchange, _me, install_comm

__all__ = ["PeerLost", "SocketComm", "listen", "join_mesh"]

_LISTENERS: dict[tuple[str, str], socket.socket] = {}
"""Listening sockets opened by :func:`listen`, by (layout key, worker address), until joined."""
_CONNECT_S = 60.0
"""How long making the mesh may take (a worker that never joins makes it fail)."""


class PeerLost(ConnectionError):
    """A peer's connection closed in the middle of an exchange (its worker died or its
    exchange was aborted)."""


def listen(key: str, dask_worker: Any = None) -> tuple[str, int]:
    """Open this worker's listening socket for the mesh ``key``; its (host, port)."""
    me = _me(dask_worker)
    host = me.split("://")[-1].rsplit(":", 1)[0] or "127.0.0.1"
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, 0))
    s.listen(64)
    s.settimeout(_CONNECT_S)
    old = _LISTENERS.pop((key, me), None)
    if old is not None:
        old.close()
    _LISTENERS[key, me] = s
    return host, int(s.getsockname()[1])


def join_mesh(key: str, addresses: Sequence[tuple[str, int]], rank: int, backend: str = "numpy") -> int:
    """Connect to every other rank (``addresses`` from :func:`listen`, in rank order) and hold
    the :class:`SocketComm` as this worker's communicator ``key`` (its buffers on ``backend``'s
    device: GPU workers without NCCL stage them through the host)."""
    me = _me()
    listener = _LISTENERS.pop((key, me))
    n = len(addresses)
    peers: dict[int, socket.socket] = {}
    try:
        for r in range(rank):
            host, port = addresses[r]
            s = socket.create_connection((str(host), int(port)), timeout=_CONNECT_S)
            s.sendall(struct.pack("<q", rank))
            peers[r] = s
        for _ in range(rank + 1, n):
            s, _addr = listener.accept()
            s.settimeout(_CONNECT_S)
            (r,) = struct.unpack("<q", _recv_exact(s, 8))
            peers[int(r)] = s
    except BaseException:
        for s in peers.values():
            s.close()
        raise
    finally:
        listener.close()
    for s in peers.values():
        s.settimeout(None)  # an exchange waits as long as its peers compute
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    install_comm(key, me, SocketComm(peers, n, rank, _array_module(backend)))
    return rank


def _array_module(backend: str) -> Any:
    if backend == "cupy":
        import cupy

        return cupy
    return np


def _recv_exact(s: socket.socket, nbytes: int) -> bytes:
    buf = bytearray(nbytes)
    _recv_into(s, memoryview(buf))
    return bytes(buf)


def _recv_into(s: socket.socket, view: memoryview) -> None:
    got = 0
    while got < len(view):
        try:
            k = s.recv_into(view[got:])
        except OSError as exc:
            raise PeerLost(f"a peer's connection failed during an exchange: {exc}") from exc
        if k == 0:
            raise PeerLost("a peer closed its connection during an exchange (its worker left)")
        got += k


class SocketComm(Exchange):
    """:class:`Exchange` over TCP connections to every other rank (buffers of ``xp``: NumPy's,
    or CuPy's staged through the host)."""

    def __init__(self, peers: dict[int, socket.socket], nranks: int, rank: int, xp: Any = np) -> None:
        self.peers, self.nranks, self.rank, self.xp = peers, nranks, rank, xp
        self.ops: list[tuple[str, Any, int]] | None = None

    def _allgather_ints(self, values: Sequence[int]) -> np.ndarray:
        mine = np.asarray(values, dtype=np.int64)  # (host buffers whatever xp is)
        out = np.empty((self.nranks, len(mine)), dtype=np.int64)
        out[self.rank] = mine
        self._group_start()
        for r in range(self.nranks):
            if r != self.rank:
                self._send(mine.view(np.uint8), r)
                self._recv(out[r].view(np.uint8), r)
        self._group_end()
        return out

    def _group_start(self) -> None:
        self.ops = []

    def _bcast(self, buf: Any, root: int) -> None:
        if root == self.rank:
            for r in range(self.nranks):
                if r != self.rank:
                    self._send(buf, r)
        else:
            self._recv(buf, root)

    def _send(self, buf: Any, peer: int) -> None:
        assert self.ops is not None, "a send outside a group"
        self.ops.append(("send", buf, peer))

    def _recv(self, buf: Any, peer: int) -> None:
        assert self.ops is not None, "a receive outside a group"
        self.ops.append(("recv", buf, peer))

    def _group_end(self) -> None:
        ops, self.ops = self.ops or [], None
        sends: dict[int, list[Any]] = {}
        for kind, buf, peer in ops:
            if kind == "send":  # (a device buffer through the host, copied here, on this thread's stream)
                sends.setdefault(peer, []).append(buf.get() if hasattr(buf, "get") else buf)
        errors: list[BaseException] = []

        def send_all(peer: int, bufs: list[Any]) -> None:
            try:
                for b in bufs:
                    self.peers[peer].sendall(np.ascontiguousarray(b).view(np.uint8).data)
            except OSError as exc:
                errors.append(PeerLost(f"sending to rank {peer} failed: {exc}"))

        threads = [threading.Thread(target=send_all, args=item, daemon=True) for item in sends.items()]
        for t in threads:
            t.start()
        try:
            for kind, buf, peer in ops:
                if kind == "recv" and buf.size:
                    if hasattr(buf, "get"):  # a device buffer: received on the host, then copied
                        host = np.empty(buf.size, dtype=np.uint8)
                        _recv_into(self.peers[peer], memoryview(host.data).cast("B"))
                        buf.set(host)
                    else:
                        _recv_into(self.peers[peer], memoryview(buf).cast("B"))
        finally:
            for t in threads:
                t.join()
        if errors:
            raise errors[0]

    def abort(self) -> None:
        """Close every connection: a rank blocked in an exchange with this one fails."""
        for s in self.peers.values():
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
