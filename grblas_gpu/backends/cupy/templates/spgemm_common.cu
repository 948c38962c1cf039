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
