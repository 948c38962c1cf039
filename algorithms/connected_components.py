"""Weakly connected components by min-label propagation."""

from __future__ import annotations

import numpy as np

from grblas_gpu import BOOL, INT64, Matrix, Vector, binary, semiring
from grblas_gpu.dask.spmd import spmd
from grblas_gpu.loops import frontier_loop, may_run_on_device
from grblas_gpu.progress import tick

from ._checks import check_numeric, check_square, check_vertex_memory

__all__ = ["connected_components"]


@spmd(needs_symmetry=True)
def connected_components(A: Matrix) -> Vector:
    """Component label of every vertex: the smallest vertex id in its component (INT64).

    Edge directions are ignored (weakly connected components): the algorithm
    works on the symmetric pattern ``S = A + A'``, as ``S x = A x (min) A' x`` (A' is
    A's kept transpose, or A itself when symmetric; S itself is built only on the GPU, see
    below).

    Math: start with ``label[v] = v``.  Each round, every vertex takes the smallest
    label among itself and its neighbours: ``label <- label min (S min.second label)``
    where ``(S min.second label)[i] = min_k { label[k] : S[i, k] present }``.  Only
    vertices whose label dropped last round (the frontier) send labels again: for a
    symmetric A a round is ``labels(min, changed=frontier) << A min.second frontier``.  The
    labels stop changing after at most ``diameter`` rounds, when every vertex holds
    the smallest id of its component.

    On the GPU, where the device loop may take A (short rows), a directed A's rounds run on
    ``S`` itself, made once and kept with A (up to twice A's entries), so that a round is one
    statement there too.

    Semiring: ``min_second``.  Every vertex gets an entry (isolated ones keep their id).

    Reference: Kepner and Gilbert, *Graph Algorithms in the Language of Linear
    Algebra*, SIAM 2011, ch. 2 (label propagation); for a faster variant see
    Y. Zhang, A. Azad, Z. Hu, "FastSV", SIAM PP 2020.
    """
    check_square(A, "connected_components")
    check_numeric(A, "connected_components")
    check_vertex_memory(A, "connected_components", 48, host_per_vertex=8)
    n = A.nrows
    # Off the device loop S = A + A' is not built: labels travel along A and, unless A is
    # symmetric, along A' too (A's transpose, built once and kept with A; finding out builds
    # it).  min_second never reads the matrix's values.
    symmetric = A.is_symmetric
    if not symmetric and may_run_on_device(A):  # one statement a round, over S (made once, kept with A)
        G = A
        A, symmetric = G._memo("symmetric pattern", lambda: _symmetric_pattern(G)), True
    send = semiring.min_second[INT64]
    ids = np.arange(n, dtype=np.int64)
    labels = Vector.from_coo(ids, ids, size=n, dtype=INT64, backend=A.backend)
    frontier = labels.dup()
    if symmetric:  # a round is one statement (on the GPU, rounds replayed on the device)
        for _ in frontier_loop(frontier, A):
            tick("connected_components")
            labels(binary.min, changed=frontier) << A.mxv(frontier, send)
        return labels
    while frontier.nvals:
        tick("connected_components")
        sent = frontier
        frontier = A.mxv(sent, send).new()
        if not symmetric:
            frontier(binary.min) << A.T.mxv(sent, send)
        smaller = frontier.ewise_mult(labels, binary.lt).new()
        frontier(smaller.V, replace=True) << frontier  # drop labels that are not smaller
        labels(binary.min) << frontier
    return labels


def _symmetric_pattern(A: Matrix) -> Matrix:
    """``S = A + A'`` as a BOOL pattern (every value true), declared symmetric."""
    S = A.ewise_add(A.T, binary.pair).new(BOOL)
    S.is_symmetric = True
    return S
