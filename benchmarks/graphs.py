"""Benchmark graphs as host CSR arrays (NumPy only).

* ``kronecker``: the GAP Kronecker generator (A, B, C = 0.57, 0.19, 0.19; 16 edges per
  vertex; vertex ids randomly permuted; self-loops and duplicates removed), directed and
  symmetric.  Edges are generated in chunks with every level's random bits drawn at once
  for the whole chunk, and held as int32 ids, so scale 26 (about 1 G edges) fits in host
  memory.  From scale :data:`GPU_BUILD_SCALE` (27: 4.3 G symmetric edges, a 34 GiB CSR) the
  edges are drawn on the GPU and the CSR is made a range of rows at a time
  (:func:`kronecker_by_row_ranges`): no int64 copy of the whole edge list is ever held.
* ``grid``: a 2-D 4-neighbour grid, a road-like graph of high diameter.
* ``load_snap`` / ``load_file``: SNAP edge lists, Matrix Market or ``.npz`` CSR files.

Edge weights of generated graphs are uniform integers in [1, 255] taken from a hash of the
unordered vertex pair, so a symmetric graph gets the same weight in both directions and
duplicate edges agree on their weight.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

KRON_A, KRON_B, KRON_C = 0.57, 0.19, 0.19
EDGE_FACTOR = 16
CHUNK_EDGES = 1 << 22


def _threads() -> int:
    """Worker threads for generation (NumPy releases the GIL inside large array operations)."""
    return max(1, min(16, os.cpu_count() or 1))


@dataclass
class Graph:
    """A graph as CSR arrays: ``indices[indptr[i]:indptr[i+1]]`` are the heads of i's edges."""

    name: str
    kind: str
    n: int
    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray
    symmetric: bool
    build_s: float = 0.0
    info: dict = field(default_factory=dict)

    @property
    def nnz(self) -> int:
        """Number of stored (directed) edges."""
        return int(self.indices.size)

    @property
    def nbytes(self) -> int:
        """Bytes of the CSR arrays (indptr, indices, float32 weights)."""
        return int(self.indptr.nbytes + self.indices.nbytes + self.weights.nbytes)

    def max_degree_vertex(self) -> int:
        """The vertex with the most out-edges (the lowest id among ties)."""
        return int(np.argmax(np.diff(self.indptr)))

    def summary(self) -> dict:
        """Sizes for the results file."""
        return {"name": self.name, "kind": self.kind, "vertices": self.n, "edges": self.nnz,
                "symmetric": self.symmetric, "csr_bytes": self.nbytes,
                "build_s": round(self.build_s, 3), **self.info}


def _id_bits(n: int) -> int:
    """Bits needed to hold a vertex id below ``n``."""
    return max(1, int(n - 1).bit_length())


def _hash(xp: Any, u: Any, v: Any, seed: int) -> Any:
    """:func:`hash_weights` in one piece, of NumPy or CuPy arrays (``xp`` their module)."""
    lo = xp.minimum(u, v).astype(np.uint32)
    hi = xp.maximum(u, v).astype(np.uint32)
    h = lo * np.uint32(0x9E3779B1)
    h ^= hi + np.uint32((seed * 0x85EBCA6B) & 0xFFFFFFFF)
    h ^= h >> np.uint32(16)
    h *= np.uint32(0x85EBCA6B)
    h ^= h >> np.uint32(13)
    h *= np.uint32(0xC2B2AE35)
    h ^= h >> np.uint32(16)
    return ((h >> np.uint32(8)) * np.uint32(255) >> np.uint32(24)).astype(np.float32) + np.float32(1.0)


def hash_weights(u: np.ndarray, v: np.ndarray, seed: int) -> np.ndarray:
    """Integer weights in [1, 255] (as float32) from a 32-bit hash of the pair {u, v}.

    Large inputs are hashed in threaded chunks.
    """
    if u.size > 2 * CHUNK_EDGES:
        out = np.empty(u.size, dtype=np.float32)
        bounds = list(range(0, u.size, CHUNK_EDGES))

        def one(s: int) -> None:
            out[s:s + CHUNK_EDGES] = hash_weights(u[s:s + CHUNK_EDGES], v[s:s + CHUNK_EDGES], seed)

        with ThreadPoolExecutor(_threads()) as pool:
            list(pool.map(one, bounds))
        return out
    return _hash(np, u, v, seed)


def _keys(src: np.ndarray, dst: np.ndarray, bits: int) -> np.ndarray:
    """Edge keys ``src << bits | dst`` as int64 (sorting them sorts by row, then column)."""
    return (src.astype(np.int64) << bits) | dst.astype(np.int64)


GPU_SORT_MIN = 1 << 26


def _unique_sorted_gpu(keys: np.ndarray) -> np.ndarray | None:
    """The distinct values of ``keys``, sorted on the GPU (None without one or the memory)."""
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() == 0 or cupy.cuda.Device().mem_info[0] < 4 * keys.nbytes:
            return None
        d = cupy.asarray(keys)
        d.sort()
        keep = cupy.empty(d.size, dtype=bool)
        keep[0] = True
        cupy.not_equal(d[1:], d[:-1], out=keep[1:])
        out = d[keep].get()
        del d, keep
        cupy.get_default_memory_pool().free_all_blocks()
        return out
    except Exception:  # noqa: BLE001 - no usable GPU: sort on the host
        return None


def _unique_sorted(keys: np.ndarray) -> np.ndarray:
    """Sort ``keys`` (in place on the host) and return its distinct values; large arrays are
    sorted on the GPU when there is one (NumPy's sort is single-threaded: minutes at scale 26)."""
    if keys.size >= GPU_SORT_MIN:
        found = _unique_sorted_gpu(keys)
        if found is not None:
            return found
    keys.sort()
    if keys.size == 0:
        return keys
    keep = np.empty(keys.size, dtype=bool)
    keep[0] = True
    np.not_equal(keys[1:], keys[:-1], out=keep[1:])
    return keys[keep]


def _csr_from_unique_keys(keys: np.ndarray, n: int, bits: int, seed: int,
                          weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR (indptr int64, indices int32, weights float32) from sorted distinct keys."""
    rows = (keys >> bits).astype(np.int32)
    cols = (keys & ((1 << bits) - 1)).astype(np.int32)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    if weights is None:
        weights = hash_weights(rows, cols, seed)
    return indptr, cols, weights


def _swap_keys(keys: np.ndarray, bits: int) -> np.ndarray:
    """The keys of the reversed edges."""
    return ((keys & ((1 << bits) - 1)) << bits) | (keys >> bits)


def kronecker_chunk(scale: int, m: int, rng: np.random.Generator,
                    perm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``m`` Kronecker edges (int32 ids, permuted, self-loops dropped)."""
    src = np.zeros(m, dtype=np.int32)
    dst = np.zeros(m, dtype=np.int32)
    ab, abc = KRON_A + KRON_B, KRON_A + KRON_B + KRON_C
    for _ in range(scale):
        r = rng.random(m, dtype=np.float32)
        src <<= 1
        dst <<= 1
        src |= r >= ab
        dst |= ((r > KRON_A) & (r < ab)) | (r > abc)
    src, dst = perm[src], perm[dst]
    keep = src != dst
    return src[keep], dst[keep]


def kronecker_keys(scale: int, seed: int, edge_factor: int = EDGE_FACTOR) -> np.ndarray:
    """Distinct sorted directed edge keys of a Kronecker graph of ``2**scale`` vertices.

    Chunks run in threads, each with its own random stream spawned from ``seed``, so the
    graph depends only on ``seed`` and ``scale``.
    """
    n = 1 << scale
    seq = np.random.SeedSequence(seed)
    perm_seq, chunk_seq = seq.spawn(2)
    perm = np.random.default_rng(perm_seq).permutation(n).astype(np.int32)
    total = n * edge_factor
    starts = list(range(0, total, CHUNK_EDGES))
    seeds = chunk_seq.spawn(len(starts))

    def one(i: int) -> np.ndarray:
        m = min(CHUNK_EDGES, total - starts[i])
        src, dst = kronecker_chunk(scale, m, np.random.default_rng(seeds[i]), perm)
        return _keys(src, dst, scale)

    with ThreadPoolExecutor(_threads()) as pool:
        parts = list(pool.map(one, range(len(starts))))
    keys = np.concatenate(parts)
    del parts
    return _unique_sorted(keys)


def kronecker(scale: int, seed: int = 42) -> tuple[Graph, Graph]:
    """The directed and the symmetric Kronecker graph of ``2**scale`` vertices."""
    import time

    t0 = time.perf_counter()
    n = 1 << scale
    keys = kronecker_keys(scale, seed)
    directed = Graph(f"kron{scale}", "kron-directed", n,
                     *_csr_from_unique_keys(keys, n, scale, seed), symmetric=False)
    directed.build_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    sym = np.concatenate([keys, _swap_keys(keys, scale)])
    del keys
    sym = _unique_sorted(sym)
    symmetric = Graph(f"kron{scale}-sym", "kron-symmetric", n,
                      *_csr_from_unique_keys(sym, n, scale, seed), symmetric=True)
    symmetric.build_s = time.perf_counter() - t1
    return directed, symmetric


def kronecker_symmetric(scale: int, seed: int = 42) -> Graph:
    """The symmetric Kronecker graph of ``2**scale`` vertices alone (the same graph as
    :func:`kronecker`'s second, without building the directed CSR; from scale
    :data:`GPU_BUILD_SCALE`, where a GPU has room, the graph of :func:`kronecker_by_row_ranges`)."""
    import time

    if scale >= GPU_BUILD_SCALE:
        g = kronecker_on_gpu(scale, seed, symmetric=True)
        if g is not None:
            return g
    t0 = time.perf_counter()
    n = 1 << scale
    keys = kronecker_keys(scale, seed)
    sym = np.concatenate([keys, _swap_keys(keys, scale)])
    del keys
    sym = _unique_sorted(sym)
    g = Graph(f"kron{scale}-sym", "kron-symmetric", n, *_csr_from_unique_keys(sym, n, scale, seed),
              symmetric=True)
    g.build_s = time.perf_counter() - t0
    return g


def from_edges(name: str, kind: str, src: np.ndarray, dst: np.ndarray, n: int, *,
               symmetric: bool, seed: int = 42, drop_self_loops: bool = True) -> Graph:
    """A CSR graph from an edge list (duplicates removed; reversed edges added if symmetric)."""
    bits = _id_bits(n)
    keep = src != dst if drop_self_loops else np.ones(src.size, dtype=bool)
    keys = _keys(src[keep], dst[keep], bits)
    if symmetric:
        keys = np.concatenate([keys, _swap_keys(keys, bits)])
    keys = _unique_sorted(keys)
    return Graph(name, kind, n, *_csr_from_unique_keys(keys, n, bits, seed), symmetric=symmetric)


def grid(side: int, seed: int = 42) -> Graph:
    """A ``side x side`` 4-neighbour grid with random weights (symmetric; high diameter)."""
    ids = np.arange(side * side, dtype=np.int32).reshape(side, side)
    right = (ids[:, :-1].ravel(), ids[:, 1:].ravel())
    down = (ids[:-1, :].ravel(), ids[1:, :].ravel())
    src = np.concatenate([right[0], down[0]])
    dst = np.concatenate([right[1], down[1]])
    g = from_edges(f"grid{side}", "grid", src, dst, side * side, symmetric=True, seed=seed)
    g.info["side"] = side
    return g


def _read_edge_list(path: Path) -> np.ndarray:
    """Two integer columns from a SNAP edge list (``#`` comments; spaces, tabs or commas)."""
    text = path.read_text()
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", "%"))]
    flat = " ".join(ln.replace(",", " ").replace("\t", " ") for ln in lines).split()
    width = len(lines[0].replace(",", " ").split()) if lines else 2
    arr = np.array(flat, dtype=np.float64).reshape(-1, width)
    return arr[:, :2].astype(np.int64)


def snap_dir() -> Path | None:
    """The shared SNAP data folder, if present (``GRBLAS_GPU_DATA`` or ``../shared/data``)."""
    here = Path(__file__).resolve().parent.parent
    candidates: list[str | Path] = [os.environ.get("GRBLAS_GPU_DATA", ""), here.parent / "shared" / "data",
                  here / "shared" / "data"]
    for base in candidates:
        if base and (Path(base) / "snap").is_dir():
            return Path(base) / "snap"
    return None


def load_snap(seed: int = 42) -> list[Graph]:
    """The SNAP graphs of the shared data folder (directed and symmetric), or none."""
    folder = snap_dir()
    if folder is None:
        return []
    graphs = []
    for path in sorted(folder.iterdir()):
        if path.suffix not in (".txt", ".csv"):
            continue
        edges = _read_edge_list(path)
        ids, inv = np.unique(edges.ravel(), return_inverse=True)
        src, dst = inv.reshape(-1, 2).T.astype(np.int32)
        stem = path.stem
        for sym in (False, True):
            g = from_edges(stem + ("-sym" if sym else ""), "snap", src, dst, ids.size,
                           symmetric=sym, seed=seed)
            graphs.append(g)
    return graphs


def load_file(path: str | os.PathLike, seed: int = 42) -> Graph:
    """A user graph: Matrix Market (scipy.io.mmread) or ``.npz`` with CSR arrays.

    The file's values are kept as weights (float32); a pattern file gets hashed weights.
    """
    path = Path(path)
    if path.suffix == ".npz":
        z = np.load(path)
        indptr = z["indptr"].astype(np.int64)
        indices = z["indices"].astype(np.int32)
        n = max(indptr.size - 1, int(indices.max()) + 1 if indices.size else 0)
        data = z.get("data")
    else:
        import scipy.io
        import scipy.sparse

        m = scipy.sparse.csr_matrix(scipy.io.mmread(str(path)))
        m.sum_duplicates()
        m.sort_indices()
        n = max(m.shape)
        m.resize((n, n))
        indptr, indices, data = m.indptr.astype(np.int64), m.indices.astype(np.int32), m.data
    if indptr.size - 1 < n:
        indptr = np.concatenate([indptr, np.full(n + 1 - indptr.size, indptr[-1])])
    rows = np.repeat(np.arange(n, dtype=np.int32), np.diff(indptr))
    weights = (hash_weights(rows, indices, seed) if data is None
               else np.asarray(data, dtype=np.float32))
    return Graph(path.stem, "file", n, indptr, indices, weights, symmetric=False)


GPU_BUILD_SCALE = 27
"""From this scale the symmetric Kronecker graph is drawn and made on the GPU where it fits
(NumPy would take minutes to draw 2 G edges and sort 4 G keys)."""
BUCKET_KEYS = 1 << 28
"""Edge keys (int64) a range of rows of :func:`kronecker_by_row_ranges` holds at most, about."""
DRAW_EDGES = 1 << 28
"""Edges drawn at once on the GPU (each level's random numbers for them: 1 GiB)."""


def kronecker_on_gpu(scale: int, seed: int = 42, symmetric: bool = True) -> Graph | None:
    """The Kronecker graph of ``2**scale`` vertices drawn on the GPU (CuPy's random streams: the
    same distribution as :func:`kronecker`, another sample) and made a range of rows at a time
    (:func:`kronecker_by_row_ranges`); None without CuPy, a GPU or the room (about 9 bytes
    an edge drawn, 3 more while a range is picked out, a range's keys and their sort)."""
    import time

    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() == 0:
            return None
        total = (1 << scale) * EDGE_FACTOR
        if cupy.cuda.Device().mem_info[0] < 11 * total + 48 * BUCKET_KEYS:
            return None
    except Exception:  # noqa: BLE001 - no usable GPU
        return None
    t0 = time.perf_counter()
    src, dst = kronecker_edges_gpu(scale, seed)
    g = kronecker_by_row_ranges(cupy, src, dst, scale, seed, symmetric)
    del src, dst
    cupy.get_default_memory_pool().free_all_blocks()
    g.build_s = time.perf_counter() - t0
    g.info["drawn_on"] = "gpu"
    return g


def kronecker_edges_gpu(scale: int, seed: int, edge_factor: int = EDGE_FACTOR) -> tuple[Any, Any]:
    """``2**scale * edge_factor`` Kronecker edges as two int32 CuPy arrays (ids permuted;
    self-loops and duplicates kept), drawn :data:`DRAW_EDGES` at a time."""
    import cupy

    total = (1 << scale) * edge_factor
    src = cupy.empty(total, dtype=np.int32)
    dst = cupy.empty(total, dtype=np.int32)
    start = 0
    for s, d in kronecker_chunks_gpu(scale, seed, edge_factor):
        src[start:start + s.size] = s
        dst[start:start + d.size] = d
        start += s.size
    return src, dst


def kronecker_chunks_gpu(scale: int, seed: int, edge_factor: int = EDGE_FACTOR) -> Iterator[tuple[Any, Any]]:
    """The edges of :func:`kronecker_edges_gpu`, :data:`DRAW_EDGES` at a time: (src, dst) int32
    CuPy arrays of each chunk in turn, from the same random stream (so the same edges)."""
    import cupy

    n = 1 << scale
    total = n * edge_factor
    rs = cupy.random.RandomState(seed)
    perm = rs.permutation(n).astype(np.int32)
    ab, abc = KRON_A + KRON_B, KRON_A + KRON_B + KRON_C
    for start in range(0, total, DRAW_EDGES):
        m = min(DRAW_EDGES, total - start)
        s = cupy.zeros(m, dtype=np.int32)
        d = cupy.zeros(m, dtype=np.int32)
        for _ in range(scale):
            r = rs.random_sample(m, dtype=np.float32)
            s <<= 1
            d <<= 1
            s |= r >= ab
            d |= ((r > KRON_A) & (r < ab)) | (r > abc)
            del r
        s = perm[s]
        d = perm[d]
        yield s, d
        del s, d


def kronecker_rows_gpu(scale: int, seed: int, lo: int, hi: int,
                       edge_factor: int = EDGE_FACTOR) -> tuple[Any, Any, Any]:
    """Rows ``lo:hi`` of the symmetric graph of :func:`kronecker_on_gpu` (the same seed: the
    same edges, the same hashed weights), made on this GPU as CSR arrays (CuPy: int64
    ``indptr`` of ``hi - lo + 1``, int32 columns, float32 weights) without the whole edge
    list: every edge is drawn, :data:`DRAW_EDGES` at a time from the same stream, and only
    those with an end in ``lo:hi`` are kept, as int32 (row - lo, column) pairs in row ranges
    of about :data:`BUCKET_KEYS` edges; each range is then sorted and made unique on its own.
    Device memory: about 8 bytes per kept edge, the CSR (8 more), a chunk's draw (12 bytes
    an edge of :data:`DRAW_EDGES`) and one range's sort."""
    import cupy

    n = 1 << scale
    rows = hi - lo
    expected = 2 * n * edge_factor * rows // n
    nb = max(1, min(max(rows, 1), -(-expected // BUCKET_KEYS)))
    cuts = [-(-rows * b // nb) for b in range(nb + 1)]  # bucket b holds local rows r with r * nb // rows == b
    pieces: list[list[tuple[Any, Any]]] = [[] for _ in range(nb)]
    kept = 0
    for s, d in kronecker_chunks_gpu(scale, seed, edge_factor):
        for a, b in ((s, d), (d, s)):
            at = cupy.flatnonzero((a >= lo) & (a < hi) & (a != b))
            r = a[at] - np.int32(lo)
            c = b[at]
            del at
            kept += int(r.size)
            if nb == 1:
                pieces[0].append((r, c))
                continue
            which = r.astype(np.int64) * nb // rows
            for k in range(nb):
                sel = cupy.flatnonzero(which == k)
                pieces[k].append((r[sel], c[sel]))
            del r, c, which
        del s, d
    counts = cupy.zeros(rows, dtype=np.int64)
    indices = cupy.empty(kept, dtype=np.int32)
    weights = cupy.empty(kept, dtype=np.float32)
    nnz = 0
    for k in range(nb):
        parts, pieces[k] = pieces[k], []
        keys = (cupy.concatenate([(r.astype(np.int64) << scale) | c.astype(np.int64) for r, c in parts])
                if parts else cupy.empty(0, dtype=np.int64))
        del parts
        r, c = _unique_pairs(cupy, keys, scale)
        del keys
        m = int(c.size)
        if m == 0:
            continue
        counts[cuts[k]:cuts[k + 1]] = cupy.bincount(r - np.int32(cuts[k]), minlength=cuts[k + 1] - cuts[k])
        indices[nnz:nnz + m] = c
        weights[nnz:nnz + m] = _hash(cupy, r + np.int32(lo), c, seed)
        del r, c
        nnz += m
    indptr = cupy.zeros(rows + 1, dtype=np.int64)
    cupy.cumsum(counts, out=indptr[1:])
    return indptr, indices[:nnz], weights[:nnz]


def _unique_pairs(xp: Any, keys: Any, scale: int) -> tuple[Any, Any]:
    """The (row, column) pairs of packed ``row << scale | column`` keys (int64, sorted here in
    place), each pair once, as two int32 arrays in row-major order."""
    keys.sort()
    if keys.size:
        keep = xp.empty(keys.size, dtype=bool)
        keep[0] = True
        xp.not_equal(keys[1:], keys[:-1], out=keep[1:])
        keys = keys[keep]
    return (keys >> scale).astype(np.int32), (keys & ((1 << scale) - 1)).astype(np.int32)


def kronecker_by_row_ranges(xp: Any, src: Any, dst: Any, scale: int, seed: int = 42, symmetric: bool = True,
                            buckets: int | None = None) -> Graph:
    """The CSR graph of the edges ``src -> dst`` (int32 arrays of module ``xp``, NumPy or CuPy;
    ``2**scale`` vertices; with ``symmetric`` each edge in both directions; self-loops and
    duplicates dropped) made one range of rows at a time: the keys of a range's edges are
    sorted and made unique, and its columns and hashed weights copied to the host arrays.
    Only one range's keys (about :data:`BUCKET_KEYS`, or ``buckets`` ranges) are held in int64."""
    n = 1 << scale
    drawn = int(src.size)
    if buckets is None:
        want = -(-drawn * (2 if symmetric else 1) // BUCKET_KEYS)
        buckets = 1 << max(0, (want - 1).bit_length())
    buckets = min(buckets, n)
    shift = scale - (buckets.bit_length() - 1)
    span = 1 << shift  # rows of a range
    bound = drawn * (2 if symmetric else 1)
    indices = np.empty(bound, dtype=np.int32)  # (an upper bound: pages past the last edge are never touched)
    weights = np.empty(bound, dtype=np.float32)
    counts = np.zeros(n, dtype=np.int64)
    nnz = 0
    for b in range(buckets):
        local, cols = _unique_pairs(xp, _range_keys(xp, src, dst, b, shift, scale, symmetric), scale)
        m = int(cols.size)
        counts[b * span:(b + 1) * span] = _host(xp.bincount(local, minlength=span))
        w = _hash(xp, local + np.int32(b * span), cols, seed)
        _to_host(cols, indices[nnz:nnz + m])
        _to_host(w, weights[nnz:nnz + m])
        del local, cols, w
        nnz += m
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    name = f"kron{scale}" + ("-sym" if symmetric else "")
    return Graph(name, "kron-symmetric" if symmetric else "kron-directed", n, indptr, indices[:nnz], weights[:nnz],
                 symmetric=symmetric, info={"row_ranges": buckets})


def _range_keys(xp: Any, src: Any, dst: Any, b: int, shift: int, scale: int, symmetric: bool) -> Any:
    """int64 keys ``(row - first row) << scale | column`` of the edges whose row lies in range
    ``b`` (rows ``b << shift`` to ``(b + 1) << shift``), self-loops left out."""
    low, first, end = (1 << shift) - 1, b << shift, (b + 1) << shift
    parts = []
    for rows, cols in ((src, dst), (dst, src)) if symmetric else ((src, dst),):
        at = xp.flatnonzero((rows >= first) & (rows < end) & (rows != cols))
        r, c = rows[at], cols[at]
        del at
        parts.append(((r & low).astype(np.int64) << scale) | c.astype(np.int64))
        del r, c
    return parts[0] if len(parts) == 1 else xp.concatenate(parts)


def _host(a: Any) -> np.ndarray:
    """``a`` as a NumPy array (copied from the GPU where it is a CuPy one)."""
    return a if isinstance(a, np.ndarray) else a.get()


def _to_host(a: Any, out: np.ndarray) -> None:
    """Copy ``a`` (NumPy or CuPy) into the host array ``out``."""
    if isinstance(a, np.ndarray):
        out[...] = a
    else:
        a.get(out=out)
