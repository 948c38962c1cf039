"""Community detection by label propagation (CDLP), as defined by LDBC Graphalytics."""

from __future__ import annotations

from grblas_gpu import INT64, Matrix, Vector, binary, indexunary, monoid, semiring, unary
from grblas_gpu.progress import tick

from ._checks import check_count, check_numeric, check_square, check_vertex_memory

__all__ = ["cdlp"]


def cdlp(A: Matrix, max_iter: int = 10, directed: bool | None = None) -> Vector:
    """Community labels (INT64, one per vertex) by synchronous label propagation.

    Every vertex starts with its own id as label.  In each of ``max_iter`` rounds,
    all vertices at once take the label that is most frequent among their
    neighbours, the smallest such label on a tie; a vertex without neighbours
    keeps its label.  The rounds stop early at a fixed point (the result is the
    same: a fixed point never moves again).

    With the one-hot label matrix ``P`` (``P[u, label(u)] = 1``), the label counts
    are ``C = A P + A' P`` over the ``plus_pair`` semiring: ``C[v, l]`` counts the
    out-neighbours plus the in-neighbours of ``v`` labelled ``l``, so a neighbour
    linked both ways counts twice (the Graphalytics rule for directed graphs).
    The new label of ``v`` is the smallest column of row ``v`` of ``C`` whose
    count equals the row maximum.

    ``directed``: ``None`` or ``True`` use ``A`` as given (``A[u, w]``: edge
    ``u -> w``).  For a symmetric ``A`` (an undirected graph stored both ways)
    ``C = 2 A P``, which has the same most frequent labels as the undirected rule,
    so no symmetry test is needed.  ``False`` makes the graph undirected first:
    ``C = S P`` with ``S`` the pattern of ``A | A'``, each neighbour counted once.
    Values are ignored; a self-loop makes a vertex its own neighbour (counted
    twice when directed, once when ``directed=False``).

    Reference: LDBC Graphalytics benchmark specification (Iosup et al., "The LDBC
    Graphalytics Benchmark", arXiv:2011.15028), section "Community Detection using
    Label Propagation"; Raghavan, Albert, Kumara, Phys. Rev. E 76, 036106 (2007).
    """
    check_square(A, "cdlp")
    check_numeric(A, "cdlp")
    check_vertex_memory(A, "cdlp", 48, host_per_vertex=80)
    max_iter = check_count(max_iter, "max_iter", "cdlp")
    n = A.nrows
    backend = A.backend
    E = A.apply(unary.one).new(dtype=INT64)
    if directed is False:
        E = E.ewise_add(E.T, binary.first).new()
    vertices = list(range(n))
    labels = Vector.from_coo(vertices, vertices, size=n, dtype=INT64, backend=backend)
    for _ in range(max_iter):
        tick("cdlp", max_iter)
        ids, current = labels.to_coo()
        P = Matrix.from_coo(ids, current, 1, nrows=n, ncols=n, dtype=INT64, backend=backend)
        counts = E.mxm(P, semiring.plus_pair).new()
        if directed is not False:
            counts(binary.plus) << E.T.mxm(P, semiring.plus_pair)
        # Keep the entries of each row equal to that row's maximum; the smallest column wins.
        row_max = counts.reduce_rowwise(monoid.max).new().diag()
        at_max = row_max.mxm(counts, semiring.min_first).new()
        is_mode = counts.ewise_mult(at_max, binary.eq).new().select("valueeq", True).new()
        new_labels = is_mode.apply(indexunary.colindex, 0).new().reduce_rowwise(monoid.min).new()
        previous = labels.dup()
        labels(binary.second) << new_labels  # vertices without neighbours keep their label
        if labels.isequal(previous):
            break
    return labels
