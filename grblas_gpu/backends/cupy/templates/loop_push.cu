// Iterations of a frontier loop run on the device (see backends/cupy/capture.py): the
// statement  C(~C.S, changed=D) << D' A  (claim: an ANY monoid, the first term to reach an
// empty position of C stays) or  C(monoid, changed=D) << D' A  (relax: a full C, min or max).
// The frontier D is a queue of row ids whose values are C's (what the statement makes them),
// except at a run's first iteration, which reads rows and values from `first_rows`, `first`.
//
// Two kernels run iterations, both on the loop's state in device memory:
// - `_step`, one iteration over the whole GPU, k of them captured in a CUDA graph.  Iteration
//   i = state[BASE] + j of a graph's kernel j (batches are multiples of 6) reads queue i % 2 and
//   its length state[COUNT + i % 3], writes the other queue and the next length, and clears
//   the length after that for the next kernel; each reads all it decides on at entry, written
//   by the kernels before it, so every block of a kernel decides alike.  A kernel whose
//   frontier is at most state[SMALL] long (so empty too), or whose loop a kernel before it
//   stopped (STOP, or OVER: a frontier past the handover length), does nothing: iterations
//   after the end cost an empty launch.  The first kernel to stop sets STOP and RAN (the
//   kernels that ran).
// - `_block` (and `_block_small` for a claim of a small graph: see `block_run`), one block of
//   GB_LOOP_BLOCK threads running iteration after iteration with a
//   block barrier between them (no launch per iteration), while the frontier is at most
//   state[BLOCK_LIMIT] long (at most GB_LOOP_HELD: its queue is then also kept in shared
//   memory), for at most state[MOST] iterations, from iteration state[BASE]; it leaves the
//   state as the next `_step` expects it (BASE, the length; STOP, OVER and FRESH cleared) and
//   RAN the iterations it ran, and copies the state to the host's page-locked `host_state`.
//   (After a graph, the host writes BASE and MOST for it.)  Given a claim's C by its entries
//   (`seeds` of them, at `seed_rows`), it first makes C's bitmap (`size` positions) itself.
//   At a run's start (`from_host`) it first reads the state from `host_state`, where the host
//   wrote it: no copy is queued before the launch.
// - `_grid`, every block of the GPU (a cooperative launch) running iteration after iteration
//   with a grid barrier between them, for frontiers between the block kernel's and the
//   handover: where the driver has cooperative launches, it takes the graphs' place.
// - `_cluster`, the same in one cluster of GB_LOOP_CLUSTER blocks (compute capability 9.0 and
//   later): the cluster's hardware barrier between iterations, the lengths in the first
//   block's shared memory and a claim's presence, a bit a position, spread over the blocks'
//   shared memory (distributed shared memory: a claim is an atomic in an SM, not in L2).
//   The host launches it for a claim alone, in the grid kernel's place and for more of the
//   block kernel's frontiers.
// An iteration: a lane takes a frontier row; rows of up to 32 entries side by side, a lane
// each, GB_LOOP_UNROLL entries at a time (their loads and atomics issued together), longer
// rows by the whole warp; each term claims C's empty position (an atomic or on C's presence)
// or combines into C atomically, and a position that changed is queued once (the claim, or a
// stamp per position for a relax: mark 1 + i % 2, cleared as its row is taken) with one
// atomic add per warp.  state[TOTAL] counts the positions queued (for a claim: C's new entries).
// Positions given to MULT: {{POSITIONS_DOC}}, with r the output index.
#define GB_LOOP_STOP 0
#define GB_LOOP_FRESH 1
#define GB_LOOP_RAN 2
#define GB_LOOP_COUNT 3
#define GB_LOOP_HANDOVER 6
#define GB_LOOP_BASE 7
#define GB_LOOP_MOST 8
#define GB_LOOP_SMALL 9
#define GB_LOOP_BLOCK_LIMIT 10
#define GB_LOOP_TOTAL 11
#define GB_LOOP_OVER 12
#define GB_LOOP_STATE_WORDS {{STATE_WORDS}}  // (13 and 14, 15 and 16: a run's one-entry frontier and seed)
#define GB_LOOP_UNROLL 4
#define GB_LOOP_BLOCK {{BLOCK_THREADS}}
#define GB_LOOP_HELD 4096
#define GB_LOOP_HELD_BITS {{HELD_BITS}}
#define GB_LOOP_PULL_SHARE {{PULL_SHARE}}
#define GB_LOOP_GRID {{GRID_THREADS}}
// Which kernel an iteration runs in (the template argument MODE below).
#define GB_LOOP_IN_STEP 0
#define GB_LOOP_IN_BLOCK 1
#define GB_LOOP_IN_GRID 2
#define GB_LOOP_IN_CLUSTER 3
#define GB_LOOP_CLUSTER {{CLUSTER}}
#define GB_LOOP_CLUSTER_THREADS {{CLUSTER_THREADS}}
// The cluster kernel is compiled where clusters exist (elsewhere its body is empty, and the
// host never launches it).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GB_LOOP_CLUSTERS 1
#define GB_LOOP_CLUSTER_DIMS __cluster_dims__(GB_LOOP_CLUSTER, 1, 1)
#else
#define GB_LOOP_CLUSTERS 0
#define GB_LOOP_CLUSTER_DIMS
#endif

// The loop's arrays and the iteration's place: what one iteration reads and writes.  The
// arrays come first, in the order `loop_level` gives them.
struct {{KERNEL}}_level {
    const {{PTR_T}}* indptr;
    const {{INDEX_T}}* indices;
    const {{AV}}* values;
    bool* c_bits;
    {{T}}* c;
    const int64_t* first_rows;
    const {{T}}* first;
    int* stamp;
    long long* state;
    const int* qin;                  // the frontier (global memory), unless fresh or held
    const int* qin_held = nullptr;   // the frontier in shared memory (the block kernel's), or null
    int* qout;                       // the next frontier (global memory)
    int* qout_held = nullptr;        // its first GB_LOOP_HELD entries in shared memory too, or null
    const unsigned long long* rin = nullptr;  // the frontier rows' entry ranges (see `row_range`), or null
    unsigned long long* rout = nullptr;       // the next frontier's, or null
    unsigned long long* cout;  // the next frontier's length (global or shared memory)
    unsigned* held_bits = nullptr;  // the cluster kernel's claims: C's presence (see `take_bits`)
    // A wide kernel's claim whose product reads the frontier's values: the frontier rows' values
    // (read with the rows, not after them from C), and the next frontier's, or null.
    const {{T}}* vin = nullptr;
    {{T}}* vout = nullptr;
    int cin;                   // the frontier's length (below 2**31: positions are)
    long long handover = 0x7fffffffffffffffLL;  // a next frontier past it sets STOP (none by default)
    bool fresh;
    int mark, last_mark;
};

namespace {

typedef {{MONOID}} M;
typedef {{T}} T;
// Entry positions in the row pointers' type; row and column ids (below 2**31: see
// grblas_gpu.loops.device_form) in 32 bits: fewer registers and no 64-bit index arithmetic.
typedef {{PTR_T}} P;

// The kernels that run over several SMs: the frontier's rows carry their entry ranges, and the
// lengths are counted once a level.
__device__ constexpr bool wide(int mode) { return mode == GB_LOOP_IN_GRID || mode == GB_LOOP_IN_CLUSTER; }

// Block `rank`'s copy of shared-memory address p, in the cluster's distributed shared memory
// (a generic address: loads, stores and atomics reach that block's shared memory).
template <typename U>
__device__ __forceinline__ U* in_block(U* p, unsigned rank) {
#if GB_LOOP_CLUSTERS
    unsigned long long out;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(out) : "l"(p), "r"(rank));
    return reinterpret_cast<U*>(out);
#else
    return p;
#endif
}

__device__ __forceinline__ T product(const {{KERNEL}}_level& L, long long k, {{XV}} xk, long long p, long long r) {
    const {{A}} a = {{READS_A}} ? a_load::call(L.values[p]) : ({{A}})0;  // values may be null when unread
    return {{PRODUCT}};
}

// A row's entries [begin, end) in a word: begin (below 2**48) above the length, or above 0xffff
// where the row is as long or longer (then its end is read from the row pointers).
__device__ __forceinline__ unsigned long long row_range(P begin, P end) {
    const unsigned long long length = (unsigned long long)(end - begin);
    return ((unsigned long long)begin << 16) | (length < 0xffffull ? length : 0xffffull);
}

// The largest of the warp's values (one instruction from compute capability 8.0).
__device__ __forceinline__ int warp_max(int value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xffffffffu, value);
#else
    for (int d = 16; d > 0; d >>= 1) value = max(value, __shfl_xor_sync(0xffffffffu, value, d));
    return value;
#endif
}

// Queue the positions r[u] where add[u], for the warp's lanes together: one atomic add per
// warp (every lane calls it with the same N); in the wide kernels, with their rows' ranges (and
// C's values val[u] there, where L.vout is set).
template <int MODE, int N>
__device__ __forceinline__ void enqueue(const {{KERNEL}}_level& L, const bool (&add)[N], const int (&r)[N],
                                        const P (&row_at)[N], const P (&row_stop)[N], const T (&val)[N]) {
    constexpr bool BLOCK = MODE == GB_LOOP_IN_BLOCK;
    const int lane = threadIdx.x & 31;
    // The warp's positions in the order (u, lane): a vote per u, each position's place the
    // count of those before it (votes, not a prefix sum of shuffles: a level's chain of
    // dependent instructions is most of its time where the frontier is a few rows a warp).
    const unsigned before = (1u << lane) - 1u;
    int place[N], total = 0;
#pragma unroll
    for (int u = 0; u < N; ++u) {
        const unsigned votes = __ballot_sync(0xffffffffu, add[u]);
        place[u] = total + __popc(votes & before);
        total += __popc(votes);
    }
    if (total == 0) return;
    unsigned long long at = 0ull;
    if (lane == 31) {
        at = atomicAdd(L.cout, (unsigned long long)total);
        // (the grid kernel counts its levels' lengths once a level instead: fewer atomics on the
        // state's line, which every warp's queue add and length read reach)
        if (!wide(MODE)) atomicAdd((unsigned long long*)&L.state[GB_LOOP_TOTAL], (unsigned long long)total);
        // (OVER, not STOP: the other blocks of this kernel may not have read STOP yet)
        if (!BLOCK && (long long)(at + total) > L.handover) L.state[GB_LOOP_OVER] = 1;  // read by the next kernels
    }
    const long long first = (long long)__shfl_sync(0xffffffffu, at, 31);
#pragma unroll
    for (int u = 0; u < N; ++u) {
        if (add[u]) {
            const long long pos = first + place[u];
            L.qout[pos] = r[u];
            if (BLOCK && pos < GB_LOOP_HELD) L.qout_held[pos] = r[u];
            if (wide(MODE)) L.rout[pos] = row_range(row_at[u], row_stop[u]);
            if (wide(MODE) && L.vout != nullptr) L.vout[pos] = val[u];
        }
    }
}

// The block kernel's next iteration reads the rows it queues now: their row pointers,
// loaded beside this iteration's atomics, come into the SM's L1 cache, and their columns are
// fetched there (see `fetch_rows`), so that iteration's first two loads hit L1.
__device__ __forceinline__ void prefetch_l1(const void* p) {
    asm volatile("prefetch.global.L1 [%0];" :: "l"(p));
}

// The terms of row k (value xk) at entries p[u] (where live[u]), reaching positions r[u]:
// on return live[u] tells whether the term changed C at r[u] and r[u] is to be queued.
// Loads, then atomics, each of all the terms at once.  In the block kernel, r[u]'s
// row pointer (loaded beside the atomics; see `prefetch_l1`): row_at[u]; in the grid kernel,
// r[u]'s row [row_at[u], row_stop[u]) likewise, which the next iteration reads with r[u]
// rather than after it (one wait fewer).  A claim's new values of C: val[u].
template <int MODE, int N>
__device__ __forceinline__ void visit(const {{KERNEL}}_level& L, int k, {{XV}} xk, const P (&p)[N], const int (&r)[N],
                                      bool (&live)[N], P (&row_at)[N], P (&row_stop)[N], T (&val)[N]) {
    constexpr bool RANGED = wide(MODE);
    constexpr bool ahead = MODE != GB_LOOP_IN_STEP;
    if constexpr (M::is_any) {  // claim (the ANY monoid's only form): set r's presence bit (a byte of a word)
        unsigned bit[N], got[N];
#pragma unroll
        for (int u = 0; u < N; ++u) {
            if constexpr (MODE == GB_LOOP_IN_CLUSTER) {  // (a bit of the cluster's shared memory)
                const unsigned w = (unsigned)r[u] >> 5;
                bit[u] = 1u << ((unsigned)r[u] & 31u);
                got[u] = live[u] ? atomicOr(in_block(L.held_bits + w / GB_LOOP_CLUSTER, w % GB_LOOP_CLUSTER), bit[u])
                                 : bit[u];
            } else {
                const unsigned long long at = (unsigned long long)&L.c_bits[live[u] ? r[u] : 0];
                bit[u] = 1u << (8u * (unsigned)(at & 3ull));
                got[u] = live[u] ? atomicOr((unsigned*)(at & ~3ull), bit[u]) : bit[u];
            }
            row_at[u] = ahead && live[u] ? L.indptr[r[u]] : 0;
            row_stop[u] = RANGED && live[u] ? L.indptr[r[u] + 1] : 0;
        }
#pragma unroll
        for (int u = 0; u < N; ++u) {
            live[u] = (got[u] & bit[u]) == 0u;
            if (live[u]) {
                val[u] = product(L, k, xk, p[u], r[u]);
                L.c[r[u]] = val[u];
            }
        }
    } else {
        // Live across the compare-and-swaps: C's old bits and what each swap saw (the term is
        // computed again where a swap failed, which is rare), so that the block kernel's 64
        // registers a thread hold four terms in flight without spilling.
        typedef typename gb_bits_of<sizeof(T)>::U U;
        U old[N], seen[N];
#pragma unroll
        for (int u = 0; u < N; ++u) {
            if (live[u]) old[u] = __ldcg(reinterpret_cast<const U*>(L.c) + r[u]);
        }
#pragma unroll
        for (int u = 0; u < N; ++u) {  // one compare-and-swap each, all issued together
            if (live[u]) {
                const T was_value = gb_from_bits<T, U>(old[u]);
                const T want = M::call(was_value, product(L, k, xk, p[u], r[u]));
                live[u] = !gb_same(want, was_value);
                if (live[u]) seen[u] = atomicCAS(reinterpret_cast<U*>(&L.c[r[u]]), old[u], gb_to_bits<T, U>(want));
            }
            row_at[u] = ahead && live[u] ? L.indptr[r[u]] : 0;
            row_stop[u] = RANGED && live[u] ? L.indptr[r[u] + 1] : 0;
        }
        int was[N];
#pragma unroll
        for (int u = 0; u < N; ++u) {
            if (live[u]) {
                if (seen[u] != old[u]) {  // another term came first: combine again
                    live[u] = gb_atomic_combine_changed<M>(&L.c[r[u]], product(L, k, xk, p[u], r[u]));
                }
                was[u] = live[u] ? atomicExch(&L.stamp[r[u]], L.mark) : L.mark;
            }
        }
#pragma unroll
        for (int u = 0; u < N; ++u) live[u] = live[u] && was[u] != L.mark;
    }
}

// Fetch into L1 the first columns of the rows just queued (where live[u]; see `prefetch_l1`).
template <int MODE, int N>
__device__ __forceinline__ void fetch_rows(const {{KERNEL}}_level& L, const bool (&live)[N], const P (&row_at)[N]) {
    if constexpr (MODE == GB_LOOP_IN_BLOCK) {
#pragma unroll
        for (int u = 0; u < N; ++u) {
            if (live[u]) prefetch_l1(&L.indices[row_at[u]]);
        }
    }
}

// One iteration over frontier entries base0, base0 + stride, ... (stride a multiple of 32; the
// warp's lanes take 32 entries side by side; in the block kernel entries base, base + W, ...,
// base + 31 W for W warps, base0 a warp's index: a frontier of a few hundred rows is shared by
// all the block's warps, not held by its first warps 32 rows each).
// `ahead`: where not negative, the queue's entry base0 + lane, loaded already, and
// `ahead_range` its range where L.rin is set (the grid kernel loads them beside the length).
// A run's first frontier of at most 32 rows in the small graphs' block kernel (NARROW) is narrow: every warp reads
// all of it (row f in lane f), walks the short rows f with f % warps == its index, and a share
// of every long row (its 128-entry steps dealt round the warps), so that a hub row's terms at
// a BFS's first level are claimed by the whole block side by side, not by one warp step after
// step.  (Not at every small level: a mesh's, of a few short rows, then costs every warp the
// rows' loads, 0.4 us a level more on an H100.)
template <int MODE, bool NARROW = false>
__device__ __forceinline__ void iterate(const {{KERNEL}}_level& L, int base0, int stride, int ahead = -1,
                                        unsigned long long ahead_range = 0ull, T ahead_value = (T)0) {
    constexpr int WARPS = GB_LOOP_BLOCK / 32;
    const int lane = threadIdx.x & 31;
    const bool narrow = NARROW && MODE == GB_LOOP_IN_BLOCK && L.fresh && L.cin <= 32;
    const int warp = (int)(threadIdx.x >> 5);
    for (int base = narrow ? 0 : base0; base < L.cin; base += narrow ? 32 : stride) {
        const int f = narrow ? lane : base + (MODE == GB_LOOP_IN_BLOCK ? WARPS * lane : lane);
        const bool in = f < L.cin;
        int k = 0;
        P begin = 0, end = 0;
        {{XV}} xk = ({{XV}})0;
        if (in) {
            k = L.fresh ? (int)L.first_rows[f]
                : ahead >= 0 && base == base0 ? ahead
                : (L.qin_held != nullptr ? L.qin_held[f] : __ldcg(&L.qin[f]));
            if (!M::is_any && !L.fresh) atomicCAS(&L.stamp[k], L.last_mark, 0);  // k leaves the queue
            if ({{READS_X}}) {
                xk = L.fresh ? ({{XV}})L.first[f]
                     : L.vin == nullptr ? ({{XV}})__ldcg(&L.c[k])
                     : ({{XV}})(ahead >= 0 && base == base0 ? ahead_value : __ldcg(&L.vin[f]));
            }
            if (wide(MODE) && L.rin != nullptr) {
                const unsigned long long range = ahead >= 0 && base == base0 ? ahead_range : __ldcg(&L.rin[f]);
                const unsigned length = (unsigned)(range & 0xffffull);
                begin = (P)(range >> 16);
                end = length != 0xffffu ? begin + (P)length : L.indptr[k + 1];
            } else {
                begin = L.indptr[k];
                end = L.indptr[k + 1];
            }
        }
        const P length = end - begin;
        const bool short_row = length <= 32;
        const bool walks_short = short_row && (!narrow || f % WARPS == warp);
        int steps = walks_short ? (int)((length + GB_LOOP_UNROLL - 1) / GB_LOOP_UNROLL) : 0;
        steps = warp_max(steps);
        for (int s = 0; s < steps; ++s) {
            P p[GB_LOOP_UNROLL], row_at[GB_LOOP_UNROLL], row_stop[GB_LOOP_UNROLL];
            int r[GB_LOOP_UNROLL];
            bool live[GB_LOOP_UNROLL];
            T val[GB_LOOP_UNROLL];
#pragma unroll
            for (int u = 0; u < GB_LOOP_UNROLL; ++u) {
                const int off = s * GB_LOOP_UNROLL + u;
                live[u] = walks_short && off < length;
                p[u] = live[u] ? begin + off : begin;  // (never past the last entry: no overflow)
                r[u] = live[u] ? (int)L.indices[p[u]] : 0;
            }
            visit<MODE, GB_LOOP_UNROLL>(L, k, xk, p, r, live, row_at, row_stop, val);
            enqueue<MODE, GB_LOOP_UNROLL>(L, live, r, row_at, row_stop, val);
            fetch_rows<MODE, GB_LOOP_UNROLL>(L, live, row_at);
        }
        unsigned todo = __ballot_sync(0xffffffffu, !short_row);
        while (todo != 0u) {
            const int owner = __ffs(todo) - 1;
            todo &= todo - 1u;
            const int row = __shfl_sync(0xffffffffu, k, owner);
            const long long row_end = (long long)__shfl_sync(0xffffffffu, end, owner);
            const {{XV}} row_x = gb_shfl(0xffffffffu, xk, owner);
            // (GB_LOOP_UNROLL entries a lane at a time: a row of 1,024 entries in 8 steps, or in
            // one step of 8 warps when narrow)
            const long long first_step = narrow ? 32 * GB_LOOP_UNROLL * warp : 0;
            for (long long p0 = (long long)__shfl_sync(0xffffffffu, begin, owner) + first_step; p0 < row_end;
                 p0 += 32 * GB_LOOP_UNROLL * (narrow ? WARPS : 1)) {
                P p[GB_LOOP_UNROLL], row_at[GB_LOOP_UNROLL], row_stop[GB_LOOP_UNROLL];
                int r[GB_LOOP_UNROLL];
                bool live[GB_LOOP_UNROLL];
                T val[GB_LOOP_UNROLL];
#pragma unroll
                for (int u = 0; u < GB_LOOP_UNROLL; ++u) {
                    const long long e = p0 + 32 * u + lane;
                    live[u] = e < row_end;
                    p[u] = live[u] ? (P)e : (P)p0;
                    r[u] = live[u] ? (int)L.indices[p[u]] : 0;
                }
                visit<MODE, GB_LOOP_UNROLL>(L, row, row_x, p, r, live, row_at, row_stop, val);
                enqueue<MODE, GB_LOOP_UNROLL>(L, live, r, row_at, row_stop, val);
                fetch_rows<MODE, GB_LOOP_UNROLL>(L, live, row_at);
            }
        }
    }
}

// A pull level of the block kernel: a claim whose presence is held in shared memory, from a
// frontier of at least 1/GB_LOOP_PULL_SHARE of the positions (not the run's first: its values
// are C's).  The frontier's rows are marked in `front`; then each position not yet claimed
// looks through its row of the transpose (`t_*`: the rows that reach it) for a frontier row
// and takes the first it finds, as the ordinary statement's pull does with the complemented
// mask.  A BFS from a small graph's hub reaches half of it at its second level: there the
// pull reads a few entries a position where the push would walk every frontier row.
__device__ __forceinline__ void pull(const {{KERNEL}}_level& L, const P* __restrict__ t_indptr,
                                     const {{INDEX_T}}* __restrict__ t_indices, const {{AV}}* __restrict__ t_values,
                                     unsigned* front, long long size) {
    const int words = (int)((size + 31) >> 5);
    for (int w = threadIdx.x; w < words; w += GB_LOOP_BLOCK) front[w] = 0u;
    __syncthreads();
    for (int f = threadIdx.x; f < L.cin; f += GB_LOOP_BLOCK) {
        const int k = L.qin_held != nullptr ? L.qin_held[f] : __ldcg(&L.qin[f]);
        atomicOr(&front[k >> 5], 1u << (k & 31));
    }
    __syncthreads();
    {{KERNEL}}_level T = L;  // (the transpose's entries: `product` reads its values)
    T.indptr = t_indptr;
    T.indices = t_indices;
    T.values = t_values;
    for (long long j0 = 0; j0 < size; j0 += GB_LOOP_BLOCK) {  // (every lane the same steps: enqueue is a warp's)
        const int j = (int)(j0 + threadIdx.x);
        bool add[1] = {false};
        const int r[1] = {j};
        const P none[1] = {0};
        const {{T}} no_value[1] = {({{T}})0};
        if (j < size && !L.c_bits[j]) {
            for (P p = t_indptr[j], end = t_indptr[j + 1]; p < end; ++p) {
                const int k = (int)t_indices[p];
                if ((front[k >> 5] >> (k & 31)) & 1u) {
                    const {{XV}} xk = {{READS_X}} ? ({{XV}})__ldcg(&L.c[k]) : ({{XV}})0;
                    L.c[j] = product(T, k, xk, p, j);
                    L.c_bits[j] = true;  // (this thread's position alone)
                    add[0] = true;
                    break;
                }
            }
        }
        enqueue<GB_LOOP_IN_BLOCK, 1>(L, add, r, none, none, no_value);
    }
}

// C's bitmap made from its entries by the block (no launches for it).
__device__ __forceinline__ void sow(bool* c_bits, T* c, const int64_t* __restrict__ rows, const T* __restrict__ vals,
                                 long long count, long long size) {
    for (long long p = threadIdx.x; p < size; p += GB_LOOP_BLOCK) c_bits[p] = false;
    __syncthreads();
    for (long long e = threadIdx.x; e < count; e += GB_LOOP_BLOCK) {
        const long long r = rows[e];
        c_bits[r] = true;
        c[r] = vals[e];
    }
    __syncthreads();
}

// Every block of the grid waits here for all the others (all co-resident: a cooperative
// launch).  Block 0 adds 2**31 - (blocks - 1) and each other block 1 to the counter, so its top
// bit flips once all have come and its low bits are as before: no reset between barriers
// (the barrier of cooperative groups' grid, without its header).
// The block's writes are released by its arrival (the block barrier before it makes them
// the arriving thread's) and the others' acquired by the loads that see the flip.
__device__ __forceinline__ void grid_barrier(unsigned* counter) {
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1u) : 1u;
        unsigned before, now;
        asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(before) : "l"(counter), "r"(add) : "memory");
        do {
            asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(now) : "l"(counter) : "memory");
        } while (((before ^ now) & 0x80000000u) == 0u);
    }
    __syncthreads();
}

// Every block of the cluster waits here for all the others: the cluster's hardware barrier,
// which releases the block's writes (shared and global memory) and acquires the others'.
__device__ __forceinline__ void cluster_barrier() {
#if GB_LOOP_CLUSTERS
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}

__device__ __forceinline__ unsigned cluster_rank() {
    unsigned rank = 0u;
#if GB_LOOP_CLUSTERS
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
#endif
    return rank;
}

// The cluster kernel holds a claim's presence in the cluster's shared memory, a bit a position:
// word w (positions 32 w to 32 w + 31) in block w % GB_LOOP_CLUSTER at w / GB_LOOP_CLUSTER, so
// that a level's neighbouring positions spread over the blocks.  Each block takes its words
// from C's presence bytes at the start and gives them back at the end.
__device__ __forceinline__ bool whole_word(const bool* c_bits, long long w, long long size) {
    return 32 * w + 32 <= size && ((unsigned long long)c_bits & 15ull) == 0ull;  // (two 16-byte accesses)
}

__device__ __forceinline__ void take_bits(unsigned* held, const bool* c_bits, long long size, unsigned rank) {
    const long long words = (size + 31) >> 5;
    for (long long w = rank + (long long)GB_LOOP_CLUSTER * threadIdx.x; w < words;
         w += (long long)GB_LOOP_CLUSTER * blockDim.x) {
        unsigned word = 0u;
        if (whole_word(c_bits, w, size)) {
            const uint4 a = reinterpret_cast<const uint4*>(c_bits + 32 * w)[0];
            const uint4 b = reinterpret_cast<const uint4*>(c_bits + 32 * w)[1];
            const unsigned four[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};  // (4 bytes of 0 or 1 each)
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                const unsigned x = four[k];
                word |= ((x & 1u) | ((x >> 7) & 2u) | ((x >> 14) & 4u) | ((x >> 21) & 8u)) << (4 * k);
            }
        } else {
            for (int k = 0; k < 32 && 32 * w + k < size; ++k) word |= (c_bits[32 * w + k] ? 1u : 0u) << k;
        }
        held[w / GB_LOOP_CLUSTER] = word;
    }
}

__device__ __forceinline__ void give_bits(const unsigned* held, bool* c_bits, long long size, unsigned rank) {
    const long long words = (size + 31) >> 5;
    for (long long w = rank + (long long)GB_LOOP_CLUSTER * threadIdx.x; w < words;
         w += (long long)GB_LOOP_CLUSTER * blockDim.x) {
        const unsigned word = held[w / GB_LOOP_CLUSTER];
        if (whole_word(c_bits, w, size)) {
            unsigned four[8];
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                const unsigned x = word >> (4 * k);
                four[k] = (x & 1u) | ((x & 2u) << 7) | ((x & 4u) << 14) | ((x & 8u) << 21);
            }
            reinterpret_cast<uint4*>(c_bits + 32 * w)[0] = make_uint4(four[0], four[1], four[2], four[3]);
            reinterpret_cast<uint4*>(c_bits + 32 * w)[1] = make_uint4(four[4], four[5], four[6], four[7]);
        } else {
            for (int k = 0; k < 32 && 32 * w + k < size; ++k) c_bits[32 * w + k] = ((word >> k) & 1u) != 0u;
        }
    }
}

// The state a run leaves for the next (iteration i, `ran` iterations run; the next count
// cleared) and for the host (page-locked memory, mapped: no copy after the launch).
__device__ __forceinline__ void hand_back(long long* state, volatile long long* host_state, int i, long long ran) {
    state[GB_LOOP_COUNT + (i + 1) % 3] = 0;
    state[GB_LOOP_BASE] = i % 6;
    state[GB_LOOP_RAN] = ran;
    state[GB_LOOP_STOP] = 0;
    state[GB_LOOP_OVER] = 0;
    if (ran > 0) state[GB_LOOP_FRESH] = 0;
    __threadfence();
    for (int w = 0; w <= GB_LOOP_OVER; ++w) host_state[w] = state[w];
}

// A level of the loop's arrays, as every kernel starts it: no frontier held in shared memory,
// no entry ranges, no handover limit (the struct's defaults; a kernel that has them sets them,
// and the iteration's place, before each level).
__device__ __forceinline__ {{KERNEL}}_level loop_level(const {{PTR_T}}* indptr, const {{INDEX_T}}* indices,
                                                      const {{AV}}* values, bool* c_bits, {{T}}* c,
                                                      const int64_t* first_rows, const {{T}}* first, int* stamp,
                                                      long long* state) {
    return {{KERNEL}}_level{indptr, indices, values, c_bits, c, first_rows, first, stamp, state};
}

// A wide kernel's queues, two of each (by the iteration's parity): rows, their rows' entry
// ranges and, where the queue carries them, C's values at them (v0 and v1 null otherwise).
struct wide_queues {
    int* q0;
    int* q1;
    unsigned long long* r0;
    unsigned long long* r1;
    T* v0;
    T* v1;
    int capacity;  // (the queues' size)
};

// A wide kernel's first frontier entry of a lane (see `wide_level`): row (-1: none), range, value.
struct wide_ahead {
    int row;
    unsigned long long range;
    T value;
};

// Level i of a wide kernel, `ran` levels after its launch: L's queues set, and the first
// frontier entry of the thread's lane (`mine`) loaded, before the frontier's length is known
// (the caller reads it after this): one wait after the barrier, not two.  Ranges and values
// are read only where this launch wrote them (after its first level).
__device__ __forceinline__ wide_ahead wide_level({{KERNEL}}_level& L, const wide_queues& Q, int i, long long ran,
                                                 bool fresh, int mine) {
    const bool odd = (i & 1) != 0;
    L.qin = odd ? Q.q1 : Q.q0;
    L.qout = odd ? Q.q0 : Q.q1;
    L.rin = ran > 0 ? (odd ? Q.r1 : Q.r0) : nullptr;
    L.rout = odd ? Q.r0 : Q.r1;
    L.vin = ran > 0 ? (odd ? Q.v1 : Q.v0) : nullptr;
    L.vout = odd ? Q.v0 : Q.v1;
    L.fresh = fresh && ran == 0;
    L.mark = 1 + (i & 1);
    L.last_mark = 2 - (i & 1);
    const bool held = mine < Q.capacity;
    return wide_ahead{!L.fresh && held ? __ldcg(&L.qin[mine]) : -1,
                      L.rin != nullptr && held ? __ldcg(&L.rin[mine]) : 0ull,
                      L.vin != nullptr && held ? __ldcg(&L.vin[mine]) : (T)0};
}

}  // namespace

extern "C" __global__ void {{KERNEL}}_step(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{AV}}* __restrict__ values, bool* c_bits, {{T}}* c, int* q0, int* q1,
        const int64_t* __restrict__ first_rows, const {{T}}* __restrict__ first, int* stamp, long long* state,
        int j) {
    const int i = j + (int)state[GB_LOOP_BASE];
    const long long cin = state[GB_LOOP_COUNT + i % 3];
    const bool fresh = j == 0 && state[GB_LOOP_FRESH] != 0;
    const bool first_thread = blockIdx.x == 0 && threadIdx.x == 0;
    if (j == 1 && first_thread) state[GB_LOOP_FRESH] = 0;  // (kernel 0 has read it)
    if (state[GB_LOOP_STOP] != 0 || state[GB_LOOP_OVER] != 0 || cin <= state[GB_LOOP_SMALL]) {
        // The loop is over (or goes on in the block kernel): the kernels after this one must
        // not take up a length slot this one left as it was (it would be a spent queue's).
        if (first_thread && state[GB_LOOP_STOP] == 0) {
            state[GB_LOOP_STOP] = 1;
            state[GB_LOOP_RAN] = j;
        }
        return;
    }
    if (first_thread) {
        state[GB_LOOP_COUNT + (i + 2) % 3] = 0;
        state[GB_LOOP_RAN] = j + 1;
    }
    {{KERNEL}}_level L = loop_level(indptr, indices, values, c_bits, c, first_rows, first, stamp, state);
    L.qin = (i & 1) ? q1 : q0;
    L.qout = (i & 1) ? q0 : q1;
    L.cout = (unsigned long long*)&state[GB_LOOP_COUNT + (i + 1) % 3];
    L.cin = (int)cin;
    L.handover = state[GB_LOOP_HANDOVER];
    L.fresh = fresh;
    L.mark = 1 + (i & 1);
    L.last_mark = 2 - (i & 1);
    iterate<GB_LOOP_IN_STEP>(L, (int)((gb_thread_id() >> 5) << 5), (int)gb_thread_count());
}

// The block kernel's parameters and their names, shared by its two entry points.
#define GB_LOOP_BLOCK_PARAMS \
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices, \
        const {{AV}}* __restrict__ values, bool* c_bits, {{T}}* c, int* q0, int* q1, \
        const int64_t* __restrict__ first_rows, const {{T}}* __restrict__ first, int* stamp, long long* state, \
        const int64_t* __restrict__ seed_rows, const {{T}}* __restrict__ seed, long long seeds, long long from_host, \
        long long size, volatile long long* host_state, const {{PTR_T}}* __restrict__ t_indptr, \
        const {{INDEX_T}}* __restrict__ t_indices, const {{AV}}* __restrict__ t_values
#define GB_LOOP_BLOCK_ARGS \
        indptr, indices, values, c_bits, c, q0, q1, first_rows, first, stamp, state, seed_rows, seed, seeds, \
        from_host, size, host_state, t_indptr, t_indices, t_values

// The block kernel's run.  SMALL (`_block_small`, for a claim of at most GB_LOOP_HELD_BITS
// positions): C's presence held in shared memory, pull levels where the transpose is given
// (t_indptr not null), a narrow first frontier's long rows walked by every warp.  Else
// (`_block`) none of these, compiled out: with them behind run-time tests in one kernel a
// path's level cost 1.80 us on an H100, against 1.61 so (docs/loops.md, eighth round).
template <bool SMALL>
__device__ __forceinline__ void block_run(GB_LOOP_BLOCK_PARAMS) {
    __shared__ int held[2][GB_LOOP_HELD];
    __shared__ unsigned long long counts[3];
    // A claim's presence of at most GB_LOOP_HELD_BITS positions is held in shared memory while
    // the block runs (copied back at its end): a level's terms claim positions by atomics in
    // the SM, not in L2, where the many terms of a small graph's level that reach the same few
    // hundred positions wait on each other.
    __shared__ unsigned bits_held[SMALL ? GB_LOOP_HELD_BITS / 4 : 1];
    __shared__ unsigned front[SMALL ? GB_LOOP_HELD_BITS / 32 : 1];  // a pull level's frontier, a bit a position
    constexpr bool bits_in_block = SMALL && M::is_any;  // (the host launches SMALL for such a claim alone)
    const bool pulls = bits_in_block && t_indptr != nullptr;
    bool* bits = bits_in_block ? reinterpret_cast<bool*>(bits_held) : c_bits;
    if (from_host) {  // a run's start: its state is read from the host's page-locked words, not copied before
        if (threadIdx.x < GB_LOOP_STATE_WORDS) state[threadIdx.x] = host_state[threadIdx.x];
        __syncthreads();
    }
    if constexpr (M::is_any) {  // (a claim's C only: the relax's registers are all taken)
        if (seeds > 0) {
            sow(bits, c, seed_rows, seed, seeds, size);  // C given by its entries
        } else if (bits_in_block) {
            for (long long p = threadIdx.x; p < size; p += GB_LOOP_BLOCK) bits[p] = c_bits[p];
        }
    }
    const int base = (int)state[GB_LOOP_BASE];
    const long long most = state[GB_LOOP_MOST];
    const long long limit = min(state[GB_LOOP_BLOCK_LIMIT], (long long)GB_LOOP_HELD);
    const bool fresh = state[GB_LOOP_FRESH] != 0;
    if (threadIdx.x == 0) {
        counts[base % 3] = (unsigned long long)state[GB_LOOP_COUNT + base % 3];
        counts[(base + 1) % 3] = 0ull;
    }
    __syncthreads();
    {{KERNEL}}_level L = loop_level(indptr, indices, values, bits, c, first_rows, first, stamp, state);
    long long ran = 0;
    int i = base;
    while (ran < most) {
        const long long cin = (long long)counts[i % 3];
        if (cin == 0 || cin > limit) break;  // (limit: at most GB_LOOP_HELD)
        if (threadIdx.x == 0) counts[(i + 2) % 3] = 0ull;  // read at the last iteration, written at the next
        L.qin = (i & 1) ? q1 : q0;
        L.qin_held = ran > 0 ? held[i & 1] : nullptr;  // (the first iteration's frontier is in global memory)
        L.qout = (i & 1) ? q0 : q1;
        L.qout_held = held[(i + 1) & 1];
        L.cout = &counts[(i + 1) % 3];
        L.cin = (int)cin;
        L.fresh = fresh && ran == 0;
        L.mark = 1 + (i & 1);
        L.last_mark = 2 - (i & 1);
        if (pulls && !L.fresh && cin * GB_LOOP_PULL_SHARE >= size) {
            pull(L, t_indptr, t_indices, t_values, front, size);
        } else {
            iterate<GB_LOOP_IN_BLOCK, SMALL>(L, (int)(threadIdx.x >> 5), GB_LOOP_BLOCK);
        }
        __syncthreads();
        ++ran;
        ++i;
    }
    if (bits_in_block) {  // (the loop's last barrier, or the one before it, ends the claims)
        for (long long p = threadIdx.x; p < size; p += GB_LOOP_BLOCK) c_bits[p] = bits[p];
    }
    if (threadIdx.x == 0) {
        state[GB_LOOP_COUNT + i % 3] = (long long)counts[i % 3];
        hand_back(state, host_state, i, ran);
    }
}

extern "C" __global__ void __launch_bounds__(GB_LOOP_BLOCK) {{KERNEL}}_block(GB_LOOP_BLOCK_PARAMS) {
    block_run<false>(GB_LOOP_BLOCK_ARGS);
}

extern "C" __global__ void __launch_bounds__(GB_LOOP_BLOCK) {{KERNEL}}_block_small(GB_LOOP_BLOCK_PARAMS) {
    block_run<true>(GB_LOOP_BLOCK_ARGS);
}
#undef GB_LOOP_BLOCK_PARAMS  // other modules of one unit define their own
#undef GB_LOOP_BLOCK_ARGS

// Iterations over the whole GPU in one launch (a cooperative one: every block resident), a
// grid barrier between them, while the frontier is longer than state[SMALL] (shorter ones go
// to the block kernel) and at most state[HANDOVER], for at most state[MOST] iterations from
// state[BASE]; the lengths are the state's (global memory).  It leaves the state as `_block`
// does.  A frontier's rows go to the warps 32 at a time, dealt to the blocks in turn (a
// frontier of a few hundred rows is spread over as many SMs, not the first blocks' warps).
// The queues carry their rows' entry ranges (r0, r1) and, for a claim whose product reads the
// frontier's values, C's values at them (v0, v1; null otherwise): a level's first loads are
// the queue's, all together, not the queue's and then C's.
extern "C" __global__ void __launch_bounds__(GB_LOOP_GRID, 1) {{KERNEL}}_grid(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{AV}}* __restrict__ values, bool* c_bits, {{T}}* c, int* q0, int* q1,
        const int64_t* __restrict__ first_rows, const {{T}}* __restrict__ first, int* stamp, long long* state,
        unsigned* barrier, unsigned long long* r0, unsigned long long* r1, int capacity,
        volatile long long* host_state, {{T}}* v0, {{T}}* v1) {
    const int base = (int)state[GB_LOOP_BASE];
    const long long most = state[GB_LOOP_MOST];
    const long long low = state[GB_LOOP_SMALL];
    const long long high = state[GB_LOOP_HANDOVER];
    const bool fresh = state[GB_LOOP_FRESH] != 0;
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    // (no handover limit in the level: it is checked here, at each iteration's start)
    {{KERNEL}}_level L = loop_level(indptr, indices, values, c_bits, c, first_rows, first, stamp, state);
    const int start = (int)(((threadIdx.x >> 5) * gridDim.x + blockIdx.x) << 5);
    const int stride = (int)(gridDim.x * blockDim.x);
    long long ran = 0, queued = 0;
    int i = base;
    const wide_queues Q{q0, q1, r0, r1, v0, v1, capacity};
    const int mine = start + (int)(threadIdx.x & 31);
    while (ran < most) {
        const wide_ahead ahead = wide_level(L, Q, i, ran, fresh, mine);
        // A plain load: the SM's first warp to ask brings it to L1 and the others find it there
        // (through L2 every warp's load would reach the one line); the barrier's acquire has
        // dropped L1's older lines.
        const long long cin = state[GB_LOOP_COUNT + i % 3];
        if (lead && ran > 0) queued += cin;  // (the last iteration's new rows)
        if (cin <= low || cin > high) break;  // (every block reads the same length: they stop alike)
        if (lead) state[GB_LOOP_COUNT + (i + 2) % 3] = 0;  // read at the last iteration, written at the next
        L.cout = (unsigned long long*)&state[GB_LOOP_COUNT + (i + 1) % 3];
        L.cin = (int)cin;
        iterate<GB_LOOP_IN_GRID>(L, start, stride, ahead.row, ahead.range, ahead.value);
        grid_barrier(barrier);
        ++ran;
        ++i;
    }
    if (lead) {
        if (ran == most && ran > 0) queued += state[GB_LOOP_COUNT + i % 3];  // (not read above)
        state[GB_LOOP_TOTAL] += queued;
        hand_back(state, host_state, i, ran);
    }
}

// The grid kernel's iterations in one cluster of GB_LOOP_CLUSTER blocks (a launch of that many):
// the cluster's barrier between them (no cooperative launch: a cluster's blocks run at once),
// the lengths in the first block's shared memory (`lengths`, read and counted through the
// distributed shared memory) and, for a claim, C's presence in the blocks' shared memory (a
// bit a position, `size` of them: see `take_bits`; the launch gives each block its share as
// dynamic shared memory).  It leaves the state, and C's presence bytes, as the grid kernel
// does.  Compiled where clusters exist (compute capability 9.0 and later).
extern "C" __global__ void __launch_bounds__(GB_LOOP_CLUSTER_THREADS, 1) GB_LOOP_CLUSTER_DIMS {{KERNEL}}_cluster(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{AV}}* __restrict__ values, bool* c_bits, {{T}}* c, int* q0, int* q1,
        const int64_t* __restrict__ first_rows, const {{T}}* __restrict__ first, int* stamp, long long* state,
        unsigned long long* r0, unsigned long long* r1, int capacity, volatile long long* host_state,
        long long size, {{T}}* v0, {{T}}* v1) {
#if GB_LOOP_CLUSTERS
    extern __shared__ unsigned held_bits[];
    __shared__ unsigned long long counts[3];  // (the first block's are the lengths)
    const unsigned rank = cluster_rank();
    const int base = (int)state[GB_LOOP_BASE];
    const long long most = state[GB_LOOP_MOST];
    const long long low = state[GB_LOOP_SMALL];
    const long long high = state[GB_LOOP_HANDOVER];
    const bool fresh = state[GB_LOOP_FRESH] != 0;
    const bool lead = rank == 0u && threadIdx.x == 0;
    if (lead) {
        counts[base % 3] = (unsigned long long)state[GB_LOOP_COUNT + base % 3];
        counts[(base + 1) % 3] = 0ull;
    }
    if constexpr (M::is_any) take_bits(held_bits, c_bits, size, rank);
    cluster_barrier();
    unsigned long long* lengths = in_block(counts, 0u);
    {{KERNEL}}_level L = loop_level(indptr, indices, values, c_bits, c, first_rows, first, stamp, state);
    L.held_bits = held_bits;
    const int start = (int)((((threadIdx.x >> 5) * GB_LOOP_CLUSTER) + rank) << 5);
    const int stride = (int)(GB_LOOP_CLUSTER * blockDim.x);
    long long ran = 0, queued = 0;
    int i = base;
    const wide_queues Q{q0, q1, r0, r1, v0, v1, capacity};
    const int mine = start + (int)(threadIdx.x & 31);
    while (ran < most) {
        const wide_ahead ahead = wide_level(L, Q, i, ran, fresh, mine);  // (as in the grid kernel)
        const long long cin = (long long)lengths[i % 3];
        if (lead && ran > 0) queued += cin;
        if (cin <= low || cin > high) break;
        if (lead) counts[(i + 2) % 3] = 0ull;
        L.cout = &lengths[(i + 1) % 3];
        L.cin = (int)cin;
        iterate<GB_LOOP_IN_CLUSTER>(L, start, stride, ahead.row, ahead.range, ahead.value);
        cluster_barrier();
        ++ran;
        ++i;
    }
    cluster_barrier();  // (every block has read the first block's lengths: it may exit)
    if constexpr (M::is_any) give_bits(held_bits, c_bits, size, rank);
    if (lead) {
        if (ran == most && ran > 0) queued += (long long)counts[i % 3];
        state[GB_LOOP_COUNT + i % 3] = (long long)counts[i % 3];
        state[GB_LOOP_TOTAL] += queued;
        hand_back(state, host_state, i, ran);
    }
#endif
}
