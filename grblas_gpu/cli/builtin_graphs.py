"""Graphs generated inside the project, so the command line has data anywhere.

Every generator is deterministic (a seeded NumPy ``Generator``), vectorised and fast:
the default graphs (2**12 vertices) take a few milliseconds.

* ``kron``: a Kronecker (R-MAT) graph as in the GAP benchmark suite: ``16 * n`` edge
  draws with initiator probabilities a=0.57, b=0.19, c=0.19, d=0.05, vertex ids
  shuffled, self-loops and repeated edges dropped, made undirected.  Power-law degrees.
* ``grid``: a 2-D grid (a road-like graph): each vertex joined to its right and lower
  neighbour, undirected, about ``2**(scale/2)`` vertices a side.  Large diameter.

Weights are integers drawn uniformly in [1, 255] (as GAP does for SSSP), one per
undirected edge, so ``A[i, j] == A[j, i]``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from grblas_gpu import INT64, Matrix

__all__ = [
    "BUILTIN_GRAPHS",
    "DEFAULT_GRAPH",
    "DEFAULT_SCALE",
    "DEFAULT_SEED",
    "BuiltinGraph",
    "builtin_matrix",
    "generate",
    "grid",
    "kron",
]

DEFAULT_GRAPH = "kron"
DEFAULT_SCALE = 12
DEFAULT_SEED = 27491095
MAX_WEIGHT = 255
_RMAT_ABC = (0.57, 0.19, 0.19)
_EDGE_FACTOR = 16


@dataclass(frozen=True)
class BuiltinGraph:
    """A generated undirected graph as COO arrays: each edge is stored in both directions."""

    name: str
    description: str
    n: int
    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray

    @property
    def nedges(self) -> int:
        """The number of undirected edges (half the stored entries: there are no self-loops)."""
        return len(self.rows) // 2


def _undirected(
    src: np.ndarray, dst: np.ndarray, n: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Drop self-loops and repeats, weight each remaining edge once, store both directions."""
    keep = src != dst
    lo = np.minimum(src[keep], dst[keep]).astype(np.int64)
    hi = np.maximum(src[keep], dst[keep]).astype(np.int64)
    keys = np.unique(lo * n + hi)
    lo, hi = keys // n, keys % n
    weights = rng.integers(1, MAX_WEIGHT + 1, size=len(keys), dtype=np.int64)
    return np.concatenate([lo, hi]), np.concatenate([hi, lo]), np.concatenate([weights, weights])


def _rmat_edges(scale: int, nedges: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``nedges`` R-MAT draws: one quadrant choice per edge and per bit of the vertex id."""
    a, b, c = _RMAT_ABC
    src = np.zeros(nedges, dtype=np.int64)
    dst = np.zeros(nedges, dtype=np.int64)
    for _ in range(scale):
        r = rng.random(nedges)
        row_bit = r >= a + b
        col_bit = ((r >= a) & (r < a + b)) | (r >= a + b + c)
        src = 2 * src + row_bit
        dst = 2 * dst + col_bit
    return src, dst


def kron(scale: int = DEFAULT_SCALE, seed: int = DEFAULT_SEED) -> BuiltinGraph:
    """A GAP-style Kronecker graph of ``2**scale`` vertices (see the module documentation)."""
    rng = np.random.default_rng(seed)
    n = 1 << scale
    src, dst = _rmat_edges(scale, _EDGE_FACTOR * n, rng)
    perm = rng.permutation(n)
    rows, cols, vals = _undirected(perm[src], perm[dst], n, rng)
    desc = f"Kronecker (R-MAT) graph, scale {scale}, edge factor {_EDGE_FACTOR}, seed {seed}"
    return BuiltinGraph("kron", desc, n, rows, cols, vals)


def grid(scale: int = DEFAULT_SCALE, seed: int = DEFAULT_SEED) -> BuiltinGraph:
    """A 2-D grid, ``2**ceil(scale/2)`` wide and ``2**floor(scale/2)`` high, with random weights."""
    rng = np.random.default_rng(seed)
    width, height = 1 << ((scale + 1) // 2), 1 << (scale // 2)
    n = width * height
    v = np.arange(n, dtype=np.int64).reshape(height, width)
    src = np.concatenate([v[:, :-1].ravel(), v[:-1, :].ravel()])
    dst = np.concatenate([v[:, 1:].ravel(), v[1:, :].ravel()])
    rows, cols, vals = _undirected(src, dst, n, rng)
    desc = f"2-D grid {width} x {height} (road-like), seed {seed}"
    return BuiltinGraph("grid", desc, n, rows, cols, vals)


#: Generators by name, for ``grblas-gpu --builtin NAME``.
BUILTIN_GRAPHS: dict[str, Callable[[int, int], BuiltinGraph]] = {"kron": kron, "grid": grid}


def generate(name: str = DEFAULT_GRAPH, scale: int = DEFAULT_SCALE, seed: int = DEFAULT_SEED) -> BuiltinGraph:
    """The built-in graph ``name`` with ``2**scale`` vertices; ``ValueError`` for an unknown name or scale."""
    if name not in BUILTIN_GRAPHS:
        raise ValueError(f"unknown built-in graph {name!r}: choose one of {', '.join(BUILTIN_GRAPHS)}")
    if not 1 <= scale <= 26:
        raise ValueError(f"built-in graph scale must be between 1 and 26, got {scale}")
    return BUILTIN_GRAPHS[name](scale, seed)


def builtin_matrix(
    name: str = DEFAULT_GRAPH, scale: int = DEFAULT_SCALE, seed: int = DEFAULT_SEED, *, backend: str | None = None
) -> Matrix:
    """The built-in graph ``name`` as an INT64 adjacency :class:`~grblas_gpu.Matrix`."""
    g = generate(name, scale, seed)
    return Matrix.from_coo(g.rows, g.cols, g.values, nrows=g.n, ncols=g.n, dtype=INT64, backend=backend)
