// CSR transpose by a counting sort: the transpose's own arrays and an ncols-sized cursor are
// all it allocates (no sorting permutation, no int64 copy of the entries' rows).
//   count:   counts[c + 1] += 1 for every entry of column c (counts zeroed; scanned after)
//   scatter: each entry's row and value go to the next free slot of its column (slots taken by
//            atomics, so a column's (row, value) pairs come out in any order)
//   sort_short / sort_warp / sort_block: each column's pairs sorted by row in place (a thread
//            per short column, a warp or a block per listed medium one)
//   pack / unpack: longer columns, a batch at a time, by one sort of packed keys (the host)
// PTR / IDX: the matrix's pointer and column types; TPTR / TIDX: the transpose's; VAL: an
// unsigned type the size of a value (values are copied as bits).

// The last r in [lo, n) with ptr[r] <= e (ptr[lo] <= e, ptr nondecreasing).
template <typename P>
__device__ __forceinline__ int64_t gb_segment_of(const P* __restrict__ ptr, int64_t lo, int64_t n, int64_t e) {
    int64_t hi = n;
    while (hi - lo > 1) {
        const int64_t mid = lo + ((hi - lo) >> 1);
        if ((int64_t)ptr[mid] <= e) lo = mid; else hi = mid;
    }
    return lo;
}

__device__ __forceinline__ unsigned int gb_take_slot(unsigned int* slot) { return atomicAdd(slot, 1u); }
__device__ __forceinline__ unsigned long long gb_take_slot(unsigned long long* slot) {
    return atomicAdd(slot, 1ull);
}
__device__ __forceinline__ unsigned int* gb_slot(int32_t* p) { return (unsigned int*)p; }
__device__ __forceinline__ unsigned long long* gb_slot(int64_t* p) { return (unsigned long long*)p; }

extern "C" __global__ void {{KERNEL}}_count(const {{IDX}}* __restrict__ idx, int64_t nnz, {{TPTR}}* counts) {
    for (int64_t e = gb_thread_id(); e < nnz; e += gb_thread_count()) gb_take_slot(gb_slot(counts + idx[e] + 1));
}

// Each warp takes chunks of 32 * GB_ITEMS consecutive entries (lanes read consecutive entries);
// a lane finds the row of its first entry of a chunk by a binary search and walks forward to the
// rows of its next ones (a search per entry cost more than the rest of the scatter).
#define GB_ITEMS 32

// Only entries of columns [c0, c1) are placed: the host runs column ranges whose slots fit
// the L2 cache one after another, so the scattered writes of a range meet in the cache and
// reach memory as whole sectors.
extern "C" __global__ void {{KERNEL}}_scatter(const {{PTR}}* __restrict__ ptr, int64_t nrows,
                                             const {{IDX}}* __restrict__ idx, const {{VAL}}* __restrict__ vals,
                                             int64_t nnz, int64_t c0, int64_t c1, {{TPTR}}* cursor,
                                             {{TIDX}}* __restrict__ rows, {{VAL}}* __restrict__ out) {
    const int64_t lane = threadIdx.x & 31, warps = gb_thread_count() >> 5;
    for (int64_t base = (gb_thread_id() >> 5) * (32 * GB_ITEMS); base < nnz; base += warps * (32 * GB_ITEMS)) {
        int64_t e = base + lane;
        if (e >= nnz) continue;
        int64_t r = gb_segment_of(ptr, 0, nrows, e);
        for (int i = 0; i < GB_ITEMS && e < nnz; ++i, e += 32) {
            while ((int64_t)ptr[r + 1] <= e) ++r;
            const int64_t c = idx[e];
            if (c < c0 || c >= c1) continue;
            const int64_t slot = (int64_t)gb_take_slot(gb_slot(cursor + c));
            rows[slot] = ({{TIDX}})r;
            out[slot] = vals[e];
        }
    }
}

// Columns of 2..{{SHORT}} entries, one thread each: an insertion sort of the pairs in registers.
extern "C" __global__ void {{KERNEL}}_sort_short(const {{TPTR}}* __restrict__ tptr, int64_t ncols,
                                                {{TIDX}}* __restrict__ rows, {{VAL}}* __restrict__ out) {
    for (int64_t c = gb_thread_id(); c < ncols; c += gb_thread_count()) {
        const int64_t s = tptr[c], len = (int64_t)tptr[c + 1] - s;
        if (len < 2 || len > {{SHORT}}) continue;
        {{TIDX}} k[{{SHORT}}];
        {{VAL}} v[{{SHORT}}];
        for (int i = 0; i < len; ++i) {
            const {{TIDX}} x = rows[s + i];
            const {{VAL}} y = out[s + i];
            int j = i;
            while (j > 0 && k[j - 1] > x) { k[j] = k[j - 1]; v[j] = v[j - 1]; --j; }
            k[j] = x;
            v[j] = y;
        }
        for (int i = 0; i < len; ++i) { rows[s + i] = k[i]; out[s + i] = v[i]; }
    }
}

// One column's pairs (len <= CAP) sorted by THREADS threads (a warp or the block; tid their
// rank): a bitonic sort of (row, position) in shared memory, padded to a power of two with the
// largest row, then each value moved to its row's place through registers.
template <int THREADS, int CAP, bool WARP>
__device__ __forceinline__ void gb_sort_column(int64_t s, int64_t len, int tid, {{TIDX}}* __restrict__ rows,
                                               {{VAL}}* __restrict__ out, {{TIDX}}* keys, uint16_t* at) {
    int n2 = 1;
    while (n2 < len) n2 <<= 1;
    for (int i = tid; i < n2; i += THREADS) {
        keys[i] = i < len ? rows[s + i] : ({{TIDX}})({{TIDX_MAX}});
        at[i] = (uint16_t)i;
    }
    if (WARP) __syncwarp(); else __syncthreads();
    for (int k = 2; k <= n2; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int q = tid; q < (n2 >> 1); q += THREADS) {  // pair q: i with bit j clear, and i | j
                const int i = ((q & ~(j - 1)) << 1) | (q & (j - 1)), ixj = i | j;
                const {{TIDX}} a = keys[i], z = keys[ixj];
                if ((a > z) == ((i & k) == 0)) {
                    keys[i] = z;
                    keys[ixj] = a;
                    const uint16_t t = at[i];
                    at[i] = at[ixj];
                    at[ixj] = t;
                }
            }
            if (WARP) __syncwarp(); else __syncthreads();
        }
    }
    {{VAL}} v[CAP / THREADS];
#pragma unroll
    for (int t = 0; t < CAP / THREADS; ++t) {
        const int i = tid + t * THREADS;
        if (i < len) v[t] = out[s + at[i]];
    }
    if (WARP) __syncwarp(); else __syncthreads();
#pragma unroll
    for (int t = 0; t < CAP / THREADS; ++t) {
        const int i = tid + t * THREADS;
        if (i < len) { rows[s + i] = keys[i]; out[s + i] = v[t]; }
    }
    if (WARP) __syncwarp(); else __syncthreads();
}

// The listed columns ({{SHORT}} < len <= {{WARP_KEYS}}), one warp each; blocks of {{THREADS}}.
extern "C" __global__ void {{KERNEL}}_sort_warp(const {{TPTR}}* __restrict__ tptr, const int64_t* __restrict__ cols,
                                               int64_t ncols, {{TIDX}}* __restrict__ rows,
                                               {{VAL}}* __restrict__ out) {
    __shared__ {{TIDX}} keys[{{THREADS}} / 32][{{WARP_KEYS}}];
    __shared__ uint16_t at[{{THREADS}} / 32][{{WARP_KEYS}}];
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    for (int64_t b = (int64_t)blockIdx.x * ({{THREADS}} / 32) + w; b < ncols; b += (int64_t)gridDim.x * ({{THREADS}} / 32)) {
        const int64_t c = cols[b], s = tptr[c];
        gb_sort_column<32, {{WARP_KEYS}}, true>(s, (int64_t)tptr[c + 1] - s, lane, rows, out, keys[w], at[w]);
    }
}

// The listed columns ({{WARP_KEYS}} < len <= {{BLOCK_KEYS}}), one block of {{THREADS}} each.
extern "C" __global__ void {{KERNEL}}_sort_block(const {{TPTR}}* __restrict__ tptr, const int64_t* __restrict__ cols,
                                                int64_t ncols, {{TIDX}}* __restrict__ rows,
                                                {{VAL}}* __restrict__ out) {
    __shared__ {{TIDX}} keys[{{BLOCK_KEYS}}];
    __shared__ uint16_t at[{{BLOCK_KEYS}}];
    for (int64_t b = blockIdx.x; b < ncols; b += gridDim.x) {
        const int64_t c = cols[b], s = tptr[c];
        gb_sort_column<{{THREADS}}, {{BLOCK_KEYS}}, false>(s, (int64_t)tptr[c + 1] - s, threadIdx.x, rows, out,
                                                           keys, at);
    }
}

// Long columns, sorted a batch at a time by one sort of packed keys: entry p of the batch
// (the listed columns' entries one column after another, column k's from starts[k]) becomes
// ((k << row_bits | row) << 32) | payload, where the payload is the value's bits (values of
// at most 4 bytes) or p (its value copied to held[p]); k < 2**(32 - row_bits), so sorting the
// keys sorts each column's pairs by row and keeps columns apart.  Rows of 32 bits only.
extern "C" __global__ void {{KERNEL}}_pack(const {{TPTR}}* __restrict__ tptr, const int64_t* __restrict__ cols,
                                          const int64_t* __restrict__ starts, int64_t ncols, int64_t total,
                                          int row_bits, const {{TIDX}}* __restrict__ rows,
                                          const {{VAL}}* __restrict__ out, unsigned long long* __restrict__ keys,
                                          {{VAL}}* __restrict__ held) {
    int64_t k = 0;
    for (int64_t p = gb_thread_id(); p < total; p += gb_thread_count()) {
        k = gb_segment_of(starts, k, ncols, p);
        const int64_t at = (int64_t)tptr[cols[k]] + (p - starts[k]);
        const unsigned long long high = ((unsigned long long)k << row_bits) | (unsigned long long)rows[at];
        unsigned long long payload;
        if (sizeof({{VAL}}) <= 4) {
            payload = (unsigned long long)out[at];
        } else {
            payload = (unsigned long long)p;
            held[p] = out[at];
        }
        keys[p] = (high << 32) | payload;
    }
}

extern "C" __global__ void {{KERNEL}}_unpack(const {{TPTR}}* __restrict__ tptr, const int64_t* __restrict__ cols,
                                            const int64_t* __restrict__ starts, int64_t ncols, int64_t total,
                                            int row_bits, const unsigned long long* __restrict__ keys,
                                            const {{VAL}}* __restrict__ held, {{TIDX}}* __restrict__ rows,
                                            {{VAL}}* __restrict__ out) {
    int64_t k = 0;
    const unsigned long long row_mask = (1ull << row_bits) - 1ull;
    for (int64_t p = gb_thread_id(); p < total; p += gb_thread_count()) {
        k = gb_segment_of(starts, k, ncols, p);
        const int64_t at = (int64_t)tptr[cols[k]] + (p - starts[k]);
        const unsigned long long key = keys[p], payload = key & 0xffffffffull;
        rows[at] = ({{TIDX}})((key >> 32) & row_mask);
        out[at] = sizeof({{VAL}}) <= 4 ? ({{VAL}})payload : held[payload];
    }
}
