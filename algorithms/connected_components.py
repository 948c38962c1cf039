"""Weakly connected components: a few rounds of min-label propagation, then FastSV."""

from __future__ import annotations

from typing import Any

import numpy as np

from grblas_gpu import BOOL, INT64, Matrix, Vector, binary, semiring
from grblas_gpu.backends import get_backend
from grblas_gpu.dask.spmd import spmd
from grblas_gpu.loops import frontier_loop
from grblas_gpu.progress import tick

from ._checks import check_numeric, check_square, check_vertex_memory

__all__ = ["BYTES_PER_VERTEX", "PROPAGATION_ROUNDS", "connected_components"]

#: Rounds of label propagation before FastSV takes over.  Kron graphs end within them
#: (kron 18: 8 rounds, kron 20: 6), so they run as before; a mesh or a road map (about
#: diameter rounds) goes on with FastSV (about log2(diameter) rounds).  FastSV alone was
#: faster on the CPU on kron 16-18 too, but its rounds are full-vector products: on a small
#: graph, or on the GPU, propagation's shrinking frontiers cost less.
PROPAGATION_ROUNDS = 10

#: Working memory a vertex, checked before any work.  FastSV holds f, gp, mngp, the round's
#: changes and the hooking's product (8-byte values and a presence byte each), the parent
#: matrix P (8-byte pointers, 4-byte columns, a BOOL value) and what the hooking's product
#: keeps with it, and the products' temporaries: 133 bytes a vertex at the peak on the CPU
#: backend (a directed 300 x 300 grid, tracemalloc; propagation alone: 109).
BYTES_PER_VERTEX = 136


@spmd(needs_symmetry=True)
def connected_components(A: Matrix) -> Vector:
    """Component label of every vertex: the smallest vertex id in its component (INT64).

    Edge directions are ignored (weakly connected components): the algorithm works on
    the symmetric pattern ``S = A + A'`` without building it, as ``S x = A x (min) A' x``
    (A' is A's kept transpose, or A itself when symmetric).

    First, min-label propagation: start with ``label[v] = v``; each round every vertex
    whose label dropped last round (the frontier) sends it to its neighbours,
    ``labels(min, changed=frontier) << A min.second frontier`` (and ``A'`` for a directed
    A; for a symmetric A on the GPU the rounds run on the device loop).  It ends in
    ``diameter`` rounds: kron-like graphs end here, within :data:`PROPAGATION_ROUNDS`.

    Then, where labels still drop, FastSV from those labels (a forest: ``f[v] <= v``, a
    vertex of v's component): a parent vector ``f`` and the grandparent
    ``gp = f[f]``.  Each round, with ``mngp[i] = min(mngp[i], min { gp[k] : S[i, k] })``:
    stochastic hooking ``f[f[i]] = min(f[f[i]], mngp[i])``, aggressive hooking
    ``f = min(f, mngp)``, shortcutting ``f = min(f, gp)``, then ``gp = f[f]``; stop when
    ``gp`` does not change.  Labels only fall, a vertex's label is always a vertex of its
    component and the smallest id is never relabelled, so at the end every vertex holds
    its component's smallest id.  Rounds: about ``log(diameter)`` on meshes and roads
    (against ``diameter`` rounds of two statements each for propagation).  ``f[f]`` and
    the hooking (an assign where indices repeat, combined by min) are products with the
    parent matrix ``P`` (``P[i, f[i]]``, one entry a row): ``gp = P min.second f`` and
    ``f[p] min= (mngp min.first P)[p]``.

    Semiring: ``min_second`` (``min_first`` for the hooking).  Every vertex gets an entry.

    Reference: Kepner and Gilbert, *Graph Algorithms in the Language of Linear Algebra*,
    SIAM 2011, ch. 2 (label propagation); Y. Zhang, A. Azad, Z. Hu, "FastSV: a
    distributed-memory connected component algorithm with fast convergence", SIAM PP
    2020 (LAGraph's ``LG_CC_FastSV5``).
    """
    check_square(A, "connected_components")
    check_numeric(A, "connected_components")
    # S = A + A' is never built (it would cost up to twice A's entries, beyond the 1.5x of
    # A's CSR that an algorithm may hold); the working memory is vertex-sized only.
    check_vertex_memory(A, "connected_components", BYTES_PER_VERTEX, host_per_vertex=8)
    n = A.nrows
    ids = np.arange(n, dtype=np.int64)
    labels = Vector.from_coo(ids, ids, size=n, dtype=INT64, backend=A.backend)
    frontier = labels.dup()
    # (a distributed A propagates to the end: FastSV's parent matrix is built from f's
    # values on one device, which a distributed Vector does not export)
    distributed = getattr(type(A), "runs_spmd", False)
    _propagate(A, labels, frontier, None if distributed else PROPAGATION_ROUNDS)
    return _fastsv(A, labels) if frontier.nvals else labels


def _propagate(A: Matrix, labels: Vector, frontier: Vector, rounds: int | None) -> None:
    """At most ``rounds`` rounds (None: no bound) of min-label propagation; ``frontier``:
    the labels that dropped in the last round (empty when every label is final)."""
    send = semiring.min_second[INT64]
    if A.is_symmetric:  # a round is one statement (on the GPU, rounds replayed on the device)
        for _ in frontier_loop(frontier, A, limit=rounds):
            tick("connected_components")
            labels(binary.min, changed=frontier) << A.mxv(frontier, send)
        return
    done = 0
    while frontier.nvals and (rounds is None or done < rounds):  # two products a round, on the host
        done += 1
        tick("connected_components")
        sent = frontier.dup()
        frontier << A.mxv(sent, send)
        frontier(binary.min) << A.T.mxv(sent, send)
        labels(binary.min, changed=frontier) << frontier  # keeps the labels that dropped


def _fastsv(A: Matrix, f: Vector) -> Vector:
    """FastSV's rounds from a forest of labels ``f`` (``f[v] <= v``, a vertex of v's
    component; see :func:`connected_components`); returns ``f``."""
    n = f.size
    send, hook = semiring.min_second[INT64], semiring.min_first[INT64]
    xp = get_backend(A.backend).xp
    pointers = xp.arange(n + 1, dtype=np.int64)
    P = _parents(f, pointers, xp)
    gp = P.mxv(f, send).new()
    mngp = gp.dup()
    changed = Vector(INT64, n, backend=A.backend)
    while True:
        tick("connected_components")
        mngp(binary.min) << A.mxv(gp, send)  # min over neighbours' grandparents, both ways
        if not A.is_symmetric:
            mngp(binary.min) << A.T.mxv(gp, send)
        f(binary.min) << mngp.vxm(P, hook)  # stochastic hooking: f[f[i]] min= mngp[i]
        f(binary.min) << mngp.ewise_mult(gp, binary.min)  # aggressive hooking, shortcutting
        P = _parents(f, pointers, xp)  # (kept for the next round's hooking)
        gp(changed=changed) << P.mxv(f, send)  # gp = f[f]
        if not changed.nvals:
            return f


def _parents(f: Vector, pointers: Any, xp: Any) -> Matrix:
    """``P[i, f[i]]`` for a full ``f``: row ``i`` holds one entry, in column ``f[i]``."""
    cols = xp.from_dlpack(f).astype(np.int32 if f.size < 2**31 else np.int64)
    return Matrix.from_csr(pointers, cols, True, f.size, dtype=BOOL, backend=f.backend, copy=False)
