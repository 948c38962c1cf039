// Row-wise Gustavson SpGEMM, shared by the symbolic and the numeric modules: the index types,
// the hash table, the walk over a row's terms and the mask test.
typedef {{PTR_T}} sg_ptr_t;
typedef {{INDEX_T}} sg_index_t;
typedef {{KEY_T}} sg_key_t;  // an unsigned key as wide as a column index; all ones marks an empty slot
static constexpr sg_key_t sg_empty = (sg_key_t)~(sg_key_t)0;

// Whether the sorted row m_idx[lo, hi) holds column j (binary search).
__device__ __forceinline__ bool sg_in_row(const sg_index_t* __restrict__ m_idx, sg_ptr_t lo, sg_ptr_t hi, int64_t j) {
    sg_ptr_t n = hi - lo;
    while (n > 0) {
        const sg_ptr_t half = n >> 1;
        if ((int64_t)m_idx[lo + half] < j) {
            lo += half + 1;
            n -= half + 1;
        } else {
            n = half;
        }
    }
    return lo < hi && (int64_t)m_idx[lo] == j;
}

// Calls term(pa, k, pb, j) for every term A(i, k) B(k, j) of row i that the mask allows (m_ptr
// null: every term).  The 2^glog lanes of a row's group split into sub-groups of 2^wlog lanes:
// each sub-group takes every (2^(glog - wlog))-th entry of A's row, its lanes stride over the
// matching row of B (short rows of B, as on a road graph, keep narrow sub-groups busy).
template <typename Term>
__device__ __forceinline__ void sg_walk(const sg_ptr_t* __restrict__ a_ptr, const sg_index_t* __restrict__ a_idx,
                                        const sg_ptr_t* __restrict__ b_ptr, const sg_index_t* __restrict__ b_idx,
                                        const sg_ptr_t* __restrict__ m_ptr, const sg_index_t* __restrict__ m_idx,
                                        int complement, int64_t i, int lane, int glog, int wlog, Term term) {
    const int w = 1 << wlog;
    const int nsub = 1 << (glog - wlog);
    const int wl = lane & (w - 1);
    sg_ptr_t m_lo = 0, m_hi = 0;
    if (m_ptr != nullptr) {
        m_lo = m_ptr[i];
        m_hi = m_ptr[i + 1];
    }
    const sg_ptr_t a_end = a_ptr[i + 1];
    for (sg_ptr_t pa = a_ptr[i] + (lane >> wlog); pa < a_end; pa += nsub) {
        const int64_t k = (int64_t)a_idx[pa];
        const sg_ptr_t b_end = b_ptr[k + 1];
        for (sg_ptr_t pb = b_ptr[k] + wl; pb < b_end; pb += w) {
            const int64_t j = (int64_t)b_idx[pb];
            if (m_ptr != nullptr && sg_in_row(m_idx, m_lo, m_hi, j) == (complement != 0)) continue;
            term(pa, k, pb, j);
        }
    }
}

// The slot of column j in the open-addressing table keys[0 .. hmask] (linear probing), put
// there by this call (*claimed true) or found.  The table never fills: it has at least twice
// as many slots as the row has columns.
__device__ __forceinline__ unsigned sg_insert(sg_key_t* keys, unsigned hmask, int64_t j, bool* claimed) {
    const sg_key_t key = (sg_key_t)j;
    unsigned h = (unsigned)((unsigned long long)j * 107ull) & hmask;
    while (true) {
        sg_key_t cur = ((volatile sg_key_t*)keys)[h];
        if (cur == sg_empty) cur = atomicCAS(keys + h, sg_empty, key);
        if (cur == sg_empty || cur == key) {
            *claimed = cur == sg_empty;
            return h;
        }
        h = (h + 1u) & hmask;
    }
}

// Sets bit j of bits; true where this call set it.
__device__ __forceinline__ bool sg_set_bit(unsigned* bits, int64_t j) {
    const unsigned bit = 1u << (unsigned)(j & 31);
    unsigned* word = bits + (j >> 5);
    if (*(volatile unsigned*)word & bit) return false;
    return (atomicOr(word, bit) & bit) == 0u;
}

// Exclusive prefix sum over the block of one count per thread (blockDim.x a multiple of 32);
// *total gets the block's sum.  Every thread of the block must call it.
__device__ __forceinline__ unsigned sg_block_scan(unsigned x, unsigned* total) {
    __shared__ unsigned sg_warp_sum[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    unsigned incl = x;
    for (int d = 1; d < 32; d <<= 1) {
        const unsigned y = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d) incl += y;
    }
    if (lane == 31) sg_warp_sum[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        unsigned s = lane < nwarps ? sg_warp_sum[lane] : 0u;
        for (int d = 1; d < 32; d <<= 1) {
            const unsigned y = __shfl_up_sync(0xffffffffu, s, d);
            if (lane >= d) s += y;
        }
        sg_warp_sum[lane] = s;
    }
    __syncthreads();
    const unsigned before = warp > 0 ? sg_warp_sum[warp - 1] : 0u;
    *total = sg_warp_sum[nwarps - 1];
    __syncthreads();  // every thread has read the sums before a next call rewrites them
    return before + incl - x;
}

// The row of group r of a short-row launch, or -1 for none: rows[r] (r < nlisted), or where rows
// is null row r itself, then only where bins is null or bins[r] == want.
__device__ __forceinline__ int64_t sg_short_row(const int64_t* __restrict__ rows, int64_t nlisted,
                                                const int8_t* __restrict__ bins, int want, int64_t r) {
    if (r >= nlisted) return -1;
    if (rows != nullptr) return rows[r];
    return bins == nullptr || bins[r] == want ? r : -1;
}

// Short rows (at most 2^glog terms, glog <= 5): the group of 2^glog lanes of row i (i < 0: a
// group without a row) gathers the row's terms, one a lane, in registers: lane t gets term t
// (A's entries in order, each with its row of B in order) as (*pa, *k, *pb, *j) and returns
// true where the mask allows it (m_ptr null: always); lanes past the row's terms return false.
// A's row is read 2^glog entries at a time, each lane's row of B length scanned across the
// group by shuffles; a lane finds the entry of its term by a binary search over the scan.
// Every lane of the warp must call it.
__device__ __forceinline__ bool sg_short_term(const sg_ptr_t* __restrict__ a_ptr, const sg_index_t* __restrict__ a_idx,
                                              const sg_ptr_t* __restrict__ b_ptr, const sg_index_t* __restrict__ b_idx,
                                              const sg_ptr_t* __restrict__ m_ptr, const sg_index_t* __restrict__ m_idx,
                                              int complement, int64_t i, int lane, int glog, sg_ptr_t* pa_out,
                                              int64_t* k_out, sg_ptr_t* pb_out, int64_t* j_out) {
    const int g = 1 << glog;
    sg_ptr_t a_lo = 0, a_hi = 0, m_lo = 0, m_hi = 0;
    if (i >= 0) {
        a_lo = a_ptr[i];
        a_hi = a_ptr[i + 1];
        if (m_ptr != nullptr) {
            m_lo = m_ptr[i];
            m_hi = m_ptr[i + 1];
        }
    }
    long long chunks = (long long)((a_hi - a_lo + g - 1) >> glog);  // the warp loops for its longest row
    for (int d = 16; d > 0; d >>= 1) chunks = max(chunks, __shfl_xor_sync(0xffffffffu, chunks, d));
    bool have = false;
    int before = 0;  // terms of the row's earlier chunks
    for (long long c = 0; c < chunks; ++c) {
        const sg_ptr_t first = a_lo + (sg_ptr_t)(c << glog);
        const sg_ptr_t p = first + lane;
        long long k = 0, b_lo = 0;
        int len = 0;
        if (p < a_hi) {
            k = (long long)a_idx[p];
            b_lo = (long long)b_ptr[k];
            len = (int)((long long)b_ptr[k + 1] - b_lo);
        }
        int incl = len;
        for (int d = 1; d < g; d <<= 1) {
            const int y = __shfl_up_sync(0xffffffffu, incl, d, g);
            if (lane >= d) incl += y;
        }
        const int total = __shfl_sync(0xffffffffu, incl, g - 1, g);
        const int t = lane - before;  // this lane's term among the chunk's
        int e = 0;  // the first entry of the chunk whose inclusive count exceeds t
        for (int step = g >> 1; step > 0; step >>= 1) {
            if (__shfl_sync(0xffffffffu, incl, e + step - 1, g) <= t) e += step;
        }
        const long long ke = __shfl_sync(0xffffffffu, k, e, g);
        const long long be = __shfl_sync(0xffffffffu, b_lo, e, g);
        const int excl = __shfl_sync(0xffffffffu, incl - len, e, g);
        if (t >= 0 && t < total) {
            *pa_out = first + e;
            *k_out = (int64_t)ke;
            *pb_out = (sg_ptr_t)(be + (t - excl));
            *j_out = (int64_t)b_idx[*pb_out];
            have = m_ptr == nullptr || sg_in_row(m_idx, m_lo, m_hi, *j_out) != (complement != 0);
        }
        before += total;
    }
    return have;
}

// Sorts the group's keys, one a lane, by key (bitonic, by shuffles across the 2^glog lanes),
// each with its value bits where WITH_BITS; empty keys (all ones) go last.
template <bool WITH_BITS, typename U>
__device__ __forceinline__ void sg_short_sort(sg_key_t* key, U* bits, int lane, int glog) {
    const int g = 1 << glog;
    for (int k = 2; k <= g; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            const sg_key_t other = __shfl_xor_sync(0xffffffffu, *key, j, g);
            U other_bits = (U)0;
            if constexpr (WITH_BITS) other_bits = __shfl_xor_sync(0xffffffffu, *bits, j, g);
            const bool low = (lane & j) == 0, up = (lane & k) == 0;  // the lower lane of an ascending pair keeps the smaller
            if (low == up ? other < *key : other > *key) {
                *key = other;
                if constexpr (WITH_BITS) *bits = other_bits;
            }
        }
    }
}

// After sg_short_sort: whether this lane holds the last of its key's run (a distinct column),
// the number of distinct columns of lanes below it in the group (*rank) and in all the group
// (*count).  Every lane of the warp must call it.
__device__ __forceinline__ bool sg_short_distinct(sg_key_t key, int lane, int glog, int* rank, int* count) {
    const int g = 1 << glog;
    const sg_key_t next = __shfl_down_sync(0xffffffffu, key, 1, g);
    const bool last = key != sg_empty && (lane == g - 1 || next != key);
    const unsigned group = __ballot_sync(0xffffffffu, last) >> ((threadIdx.x & 31) & ~(g - 1));
    const unsigned all = g == 32 ? 0xffffffffu : (1u << g) - 1u;
    *rank = __popc(group & ((1u << lane) - 1u));
    *count = __popc(group & all);
    return last;
}
