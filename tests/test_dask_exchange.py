"""The vector exchanges of grblas_gpu.dask's NCCL path (all-gather, all-to-all), over a
transport of threads with NCCL's grouped semantics and NumPy buffers: every piece form (full,
sparse, bitmap, empty) and byte layout (BOOL, INT32, FP64) arrives as sent."""

from __future__ import annotations

import itertools
import socket
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

import grblas_gpu as gb
from grblas_gpu.dask._hostcomm import PeerLost, SocketComm
from grblas_gpu.dask._local import join, split
from grblas_gpu.dask._nccl import Exchange, _form


class _Hub:
    """What the ranks' threads share: a barrier and the buffers posted in a step."""

    def __init__(self, nranks: int) -> None:
        self.barrier = threading.Barrier(nranks, timeout=20)
        self.ints: dict[int, np.ndarray] = {}
        self.posted: dict[tuple[Any, ...], np.ndarray] = {}
        self.groups = 0  # exchanges run (counted by rank 0)


class ThreadExchange(Exchange):
    """An Exchange whose grouped operations run at the group's end, as NCCL's do."""

    def __init__(self, hub: _Hub, nranks: int, rank: int) -> None:
        self.hub, self.nranks, self.rank, self.xp = hub, nranks, rank, np
        self.ops: list[tuple[Any, ...]] | None = None

    def _allgather_ints(self, values: Sequence[int]) -> np.ndarray:
        self.hub.ints[self.rank] = np.asarray(values, dtype=np.int64)
        self.hub.barrier.wait()
        out = np.stack([self.hub.ints[r] for r in range(self.nranks)])
        self.hub.barrier.wait()
        return out

    def _group_start(self) -> None:
        self.ops = []

    def _bcast(self, buf: Any, root: int) -> None:
        assert self.ops is not None, "a broadcast outside a group"
        self.ops.append(("bcast", buf, root))

    def _send(self, buf: Any, peer: int) -> None:
        assert self.ops is not None
        self.ops.append(("send", buf, peer))

    def _recv(self, buf: Any, peer: int) -> None:
        assert self.ops is not None
        self.ops.append(("recv", buf, peer))

    def _group_end(self) -> None:
        ops, self.ops = self.ops or [], None
        seq: dict[tuple[Any, ...], int] = {}

        def key(*k: Any) -> tuple[Any, ...]:
            n = seq.get(k, 0)
            seq[k] = n + 1
            return (*k, n)

        keyed = []
        for kind, buf, other in ops:
            if kind == "bcast":
                k = key("b", other)
                if other == self.rank:
                    self.hub.posted[k] = buf.copy()
                else:
                    keyed.append((k, buf))
            elif kind == "send":
                self.hub.posted[key("p", self.rank, other)] = buf.copy()
            else:
                keyed.append((key("p", other, self.rank), buf))
        self.hub.barrier.wait()
        for k, buf in keyed:
            got = self.hub.posted[k]
            assert got.size == buf.size, f"{k}: {got.size} bytes sent, {buf.size} expected"
            buf[...] = got
        self.hub.barrier.wait()
        if self.rank == 0:
            self.hub.posted.clear()
            self.hub.groups += 1
        self.hub.barrier.wait()


def _socket_comms(nranks: int) -> list[SocketComm]:
    """The host exchange of CPU workers, its ranks joined by socket pairs in this process."""
    peers: list[dict[int, socket.socket]] = [{} for _ in range(nranks)]
    for p in range(nranks):
        for q in range(p + 1, nranks):
            peers[p][q], peers[q][p] = socket.socketpair()
    return [SocketComm(peers[r], nranks, r) for r in range(nranks)]


def _run(nranks: int, fn: Callable[[Any], Any], transport: str = "threads") -> list[Any]:
    hub = _Hub(nranks)
    results: list[Any] = [None] * nranks
    errors: list[BaseException] = []
    comms = _socket_comms(nranks) if transport == "sockets" else [ThreadExchange(hub, nranks, r) for r in range(nranks)]

    def one(r: int) -> None:
        try:
            results[r] = fn(comms[r])
        except BaseException as exc:  # noqa: BLE001 - reported by the test thread below
            errors.append(exc)
            hub.barrier.abort()
            for c in comms:
                if isinstance(c, SocketComm):
                    c.abort()

    threads = [threading.Thread(target=one, args=(r,)) for r in range(nranks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def _vector(rng: np.random.Generator, size: int, density: float, dtype: Any) -> gb.Vector:
    idx = np.flatnonzero(rng.random(size) < density) if density < 1 else np.arange(size)
    vals = (rng.random(len(idx)) * 100).astype(gb.lookup_dtype(dtype).np_type)
    v = gb.Vector.from_coo(idx, vals, size=size, dtype=dtype, backend="numpy")
    if density >= 0.3:
        v._bitmap()  # held as a bitmap too, as a dense vector would be
    return v


@pytest.mark.parametrize("transport", ["threads", "sockets"])
@pytest.mark.parametrize("dtype", ["BOOL", "INT32", "FP64"])
def test_allgather_every_form(dtype: str, transport: str) -> None:
    rng = np.random.default_rng(1)
    offsets = [0, 40, 40, 100, 160]  # one partition is empty
    densities = [1.0, 0.0, 0.02, 0.8]  # full, empty, sparse, bitmap
    blocks = [_vector(rng, b - a, d, dtype) for a, b, d in zip(offsets[:-1], offsets[1:], densities, strict=True)]
    item = gb.lookup_dtype(dtype).np_type.itemsize
    assert {_form(b.nvals, b.size, item) for b in blocks} == {"full", "sparse", "bitmap"}
    want = join(blocks, offsets)
    got = _run(4, lambda ex: ex.allgather(blocks[ex.rank], offsets), transport)
    for g in got:
        assert g.isequal(want, check_dtype=True)


@pytest.mark.parametrize("transport", ["threads", "sockets"])
@pytest.mark.parametrize("dtype", ["BOOL", "INT32", "FP64"])
def test_allgather_of_full_pieces(dtype: str, transport: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every piece full (an empty partition among them): each lands in its place in the whole
    vector, which is full, with no join."""
    from grblas_gpu.dask import _local

    rng = np.random.default_rng(3)
    offsets = [0, 40, 40, 100, 161]
    blocks = [_vector(rng, b - a, 1.0, dtype) for a, b in itertools.pairwise(offsets)]
    want = join(blocks, offsets)
    monkeypatch.setattr(_local, "join", None)  # (not called)
    got = _run(4, lambda ex: ex.allgather(blocks[ex.rank], offsets, [b.nvals for b in blocks]), transport)
    for g in got:
        assert g.isequal(want, check_dtype=True) and g.nvals == 161 and g._full


@pytest.mark.parametrize("transport", ["threads", "sockets"])
@pytest.mark.parametrize("dtype", ["BOOL", "INT64", "FP64", "UINT64"])
def test_allgather_into_place_when_dense(dtype: str, transport: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dense whole with no sparse piece (pieces of one value, bitmaps, full ones, an empty
    partition): each received straight into its place, as join would place them."""
    from grblas_gpu.dask import _local

    rng = np.random.default_rng(6)
    t = gb.lookup_dtype(dtype)
    one = {"BOOL": True, "INT64": -7, "FP64": -2.5, "UINT64": 2**64 - 3}[dtype]
    offsets = [0, 1000, 2000, 2000, 3000, 3016]
    blocks = []
    for k, (a, b) in enumerate(itertools.pairwise(offsets)):
        if k == 0 or k == 4:  # one value, sent as presence bits
            idx = np.flatnonzero(rng.random(b - a) < 0.9)
            blocks.append(gb.Vector.from_coo(idx, np.full(len(idx), one, dtype=t.np_type), size=b - a, dtype=t,
                                             backend="numpy"))
        else:  # a bitmap of several values, empty, full
            blocks.append(_vector(rng, b - a, (0, 0.8, 1.0, 1.0)[k], dtype))
    item = t.np_type.itemsize
    forms = {_form(b.nvals, b.size, item) for b in blocks}
    assert "sparse" not in forms and {"full", "bitmap"} <= forms
    want = join(blocks, offsets)
    found: list[list[Any]] = []
    one_values = Exchange._one_values

    def seen(self: Any, *args: Any) -> Any:
        out = one_values(self, *args)
        found.append(out)
        return out

    monkeypatch.setattr(_local, "join", None)  # (not called)
    monkeypatch.setattr(Exchange, "_one_values", seen)
    got = _run(5, lambda ex: ex.allgather(blocks[ex.rank], offsets), transport)
    assert len(found) == 5 and all(f[0] is not None and f[4] is not None for f in found)  # (sent as bits)
    for g in got:
        assert g.isequal(want, check_dtype=True) and g.nvals == want.nvals


@pytest.mark.parametrize("transport", ["threads", "sockets"])
@pytest.mark.parametrize("dtype", ["BOOL", "INT32", "FP64"])
def test_alltoall_every_form(dtype: str, transport: str) -> None:
    rng = np.random.default_rng(2)
    offsets = [0, 50, 51, 120]
    partials = [_vector(rng, 120, d, dtype) for d in (0.01, 0.8, 1.0)]
    cut = [split(p, offsets) for p in partials]
    item = gb.lookup_dtype(dtype).np_type.itemsize
    assert {_form(c.nvals, c.size, item) for pieces in cut for c in pieces} >= {"full", "sparse", "bitmap"}
    got = _run(3, lambda ex: ex.alltoall(cut[ex.rank]), transport)
    for q, pieces in enumerate(got):
        assert len(pieces) == 3
        for p, piece in enumerate(pieces):
            assert piece.isequal(cut[p][q], check_dtype=True), (p, q)


def test_large_buffers_and_objects_over_sockets() -> None:
    """Buffers far above a socket's kernel buffer both ways at once (the sends run beside the
    receives, so no pair blocks), and small objects all-gathered; a closed peer raises PeerLost."""
    n = 3_000_000
    full = [gb.Vector.from_coo(np.arange(n), np.full(n, r, np.float64), size=n, backend="numpy") for r in range(2)]
    got = _run(2, lambda ex: (ex.alltoall([full[ex.rank], full[ex.rank]]), ex.allgather_object(("r", ex.rank)),
                              ex.allgather_object(7 + ex.rank)), "sockets")
    for q, (pieces, objs, ints) in enumerate(got):
        assert [p.reduce(gb.monoid.max).new().value for p in pieces] == [0.0, 1.0]
        assert objs == [("r", 0), ("r", 1)] and ints == [7, 8]
    a, b = _socket_comms(2)
    b.abort()
    with pytest.raises(PeerLost):
        a.allgather_object(1)


def test_algorithms_through_the_collective_path() -> None:
    """The five algorithms with every product's exchange made inside the workers' tasks
    (the path NCCL takes), over the thread transport: 2 workers in threads of this process."""
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster
    from grblas_gpu.algorithms import bfs_levels, connected_components, pagerank, sssp, widest_path

    import grblas_gpu.dask as gd
    from grblas_gpu.dask._nccl import install_comm

    n = 300
    rng = np.random.default_rng(3)
    r, c = rng.integers(0, n, 1500), rng.integers(0, n, 1500)
    A = gb.Matrix.from_coo(r, c, rng.integers(1, 9, 1500), nrows=n, ncols=n, dup_op=gb.binary.min, backend="numpy")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        D = gd.distribute(A, client, backend="numpy", exchange="nccl")
        ctx = D.layout.context
        hub = _Hub(2)
        for k, w in enumerate(ctx.workers):
            install_comm(ctx.key, w, ThreadExchange(hub, 2, k))
        ctx.comm_ready = True
        assert bfs_levels(D, 0).gather("numpy").isequal(bfs_levels(A, 0), check_dtype=True)
        assert sssp(D, 0).gather("numpy").isequal(sssp(A, 0), check_dtype=True)
        Af = A.dup(gb.FP64)
        assert widest_path(D.dup(gb.FP64), 0).gather("numpy").isequal(widest_path(Af, 0), check_dtype=True)
        assert connected_components(D).gather("numpy").isequal(connected_components(A), check_dtype=True)
        assert pagerank(D, tol=1e-4).gather("numpy").isclose(pagerank(A, tol=1e-4), rel_tol=1e-9)
        assert hub.groups > 20  # the products went through the transport


@pytest.mark.parametrize("transport", ["threads", "sockets"])
@pytest.mark.parametrize("identity", [None, 0.0])
def test_allgather_scalar_with_and_without_the_identity(transport: str, identity: Any) -> None:
    """Every rank's Scalar, empty ones included, then combined as the client combines them:
    with the monoid's identity the empties move as the identity (a rank holding a value reads
    nothing), without it their emptiness is exchanged first; all empty gives empty."""
    for values in ([1.5, None, 4.0], [None, None, None], [None, 2.0, None], [1.0, 2.0, 3.0]):
        def fn(comm: Any, values: list[Any] = values) -> Any:
            s = gb.Scalar.from_value(values[comm.rank], gb.FP64, backend="numpy")
            return comm.allgather_scalar(s, identity).reduce(gb.monoid.plus[gb.FP64]).new()

        present = [v for v in values if v is not None]
        for got in _run(3, fn, transport):
            assert got.is_empty == (not present)
            if present:
                assert got.value == sum(present)


def _agreed_first(ex: Any, piece: Any, offsets: list[int]) -> Any:
    """The counts and the one values agreed in one exchange before the all-gather (as a BFS
    frontier's count, edges and level are inside an SPMD call)."""
    both = ex.allgather_ints([piece.nvals, *ex.one_value_word(piece)])
    return ex.allgather(piece, offsets, [int(c) for c in both[:, 0]], [(int(f), int(w)) for f, w in both[:, 1:]])


@pytest.mark.parametrize("agreed", [False, True])
@pytest.mark.parametrize("transport", ["threads", "sockets"])
@pytest.mark.parametrize("dtype", ["BOOL", "INT64", "FP64", "UINT64"])
def test_allgather_of_pieces_with_one_value(dtype: str, transport: str, agreed: bool) -> None:
    """Pieces whose entries share one value travel as presence bits and the value: a BFS
    frontier's level, as a bitmap or a list, next to pieces that are not of one value
    (among them -0.0 beside 0.0, equal but not the same bits) and small ones sent as they are;
    the values found in the all-gather's own exchange or agreed with the counts before it."""
    rng = np.random.default_rng(4)
    t = gb.lookup_dtype(dtype)
    offsets = [0, 1000, 2000, 3000, 3010, 4000]
    one = {"BOOL": True, "INT64": 7, "FP64": -2.5, "UINT64": 2**64 - 3}[dtype]
    blocks = []
    for k, (a, b) in enumerate(itertools.pairwise(offsets)):
        idx = np.flatnonzero(rng.random(b - a) < (0.7, 0.2, 0.5, 1.0, 0.01)[k])
        vals = np.full(len(idx), one, dtype=t.np_type)
        if k == 2 and dtype != "BOOL":  # differs in one entry only
            vals[len(vals) // 2] = -0.0 if dtype == "FP64" and one == 0 else 0
        v = gb.Vector.from_coo(idx, vals, size=b - a, dtype=t, backend="numpy")
        if k == 0:
            v._bitmap()
        blocks.append(v)
    if dtype == "FP64":  # one value of 0.0 beside a -0.0: not one value
        blocks[1] = gb.Vector.from_coo([0, 5, 9], np.array([0.0, -0.0, 0.0]), size=1000, backend="numpy")
    want = join(blocks, offsets)
    sent: list[Any] = []
    one_valued = Exchange._one_valued

    def spy(self: Any, *args: Any) -> Any:
        sent.append(args[-1])
        return one_valued(self, *args)

    exchanges: list[int] = []
    one_values = Exchange._one_values

    def counted(self: Any, *args: Any) -> Any:
        exchanges.append(self.rank)
        return one_values(self, *args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Exchange, "_one_valued", spy)
        mp.setattr(Exchange, "_one_values", counted)
        if agreed:
            got = _run(5, lambda ex: _agreed_first(ex, blocks[ex.rank], offsets), transport)
        else:
            got = _run(5, lambda ex: ex.allgather(blocks[ex.rank], offsets), transport)
    assert len(exchanges) == (0 if agreed else 5)
    for g in got:
        assert g.isequal(want, check_dtype=True)
        idx, vals = g.to_coo()
        assert np.array_equal(np.signbit(vals.astype(np.float64)), np.signbit(want.to_coo()[1].astype(np.float64)))
    assert len(sent) == 5 * {"FP64": 1, "BOOL": 3}.get(dtype, 2)  # the pieces of one value, on every rank
    assert all(v == one for v in sent)
