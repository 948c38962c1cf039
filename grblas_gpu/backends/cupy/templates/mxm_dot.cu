// Masked SpGEMM in dot-product form (SuiteSparse's "dot3"): C<M> = A B' as one dot product per
// position (i, j) of the structural mask M, intersecting the sorted column lists A(i, :) and
// bt(j, :) (bt holds B's columns as rows) and combining the matched terms with the monoid:
//   C(i, j) = MONOID over k in A(i, :) and bt(j, :) of MULT(A(i, k), bt(j, k)),
// positions given to MULT (xi, xj, yi, yj) = (i, k, k, j).  C(i, j) exists where some k is
// common.  Every kernel writes out[p] (where an entry exists) and keep[p] for the mask entries p
// it owns; {{KERNEL}}_compact then packs the kept ones.
//
// Work is balanced by a cost per entry: the cheaper of a merge (la + lb loads) and a search of
// the shorter list's columns in the longer (short * log2(long)).  The main kernel, a thread per
// mask entry, computes the entries whose cost is at most `light_cost` and lists the others in
// `heavy`: from the front (counters[0]) those whose shorter list has at most `warp_short`
// columns, for {{KERNEL}}_warp (a warp per entry), and from the back (counters[1]) the rest, for
// {{KERNEL}}_block (a block per entry): a hub row meeting a hub column then takes a block, not
// one thread.  Searches gallop from where the thread's previous search ended.
// ANY monoids stop at the first common k, monoids with a terminal value once it is reached.

// The row holding mask entry p: the largest r in [lo, hi) with ptr[r] <= p (ptr[lo] <= p).
__device__ __forceinline__ int64_t dot_row_of(const {{PTR_T}}* __restrict__ ptr, int64_t lo, int64_t hi, int64_t p) {
    while (hi - lo > 1) {
        const int64_t mid = lo + ((hi - lo) >> 1);
        if ((int64_t)ptr[mid] <= p) lo = mid; else hi = mid;
    }
    return lo;
}

// The first position in [lo, hi) of the sorted idx whose column is >= key (hi where none):
// a gallop from lo (1, 2, 4, ... ahead), then a binary search of the bracket it found.
__device__ __forceinline__ int64_t dot_gallop(const {{INDEX_T}}* __restrict__ idx, int64_t lo, int64_t hi,
                                              int64_t key) {
    int64_t step = 1, probe = lo;
    while (probe < hi && (int64_t)idx[probe] < key) {
        lo = probe + 1;
        probe += step;
        step <<= 1;
    }
    if (probe < hi) hi = probe;  // idx[probe] >= key: the answer lies in [lo, probe]
    while (lo < hi) {
        const int64_t mid = lo + ((hi - lo) >> 1);
        if ((int64_t)idx[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// One dot product: A(i, :) is [a0, a1) of a_idx / a_vals, bt(j, :) is [b0, b1) of b_idx / b_vals.
struct DotPair {
    const {{INDEX_T}}* __restrict__ a_idx;
    const {{A_T}}* __restrict__ a_vals;
    const {{INDEX_T}}* __restrict__ b_idx;
    const {{B_T}}* __restrict__ b_vals;
    int64_t a0, a1, b0, b1, i, j;

    // The term of column k, found at a_idx[pa] and b_idx[pb].
    __device__ __forceinline__ {{T}} term(int64_t pa, int64_t pb, int64_t k) const {
        const {{A_T}} a = {{READS_A}} ? a_vals[pa] : ({{A_T}})0;  // values may be null when unread
        const {{B_T}} b = {{READS_B}} ? b_vals[pb] : ({{B_T}})0;
        const int64_t i = this->i, j = this->j;
        return {{PRODUCT}};
    }
};

template <typename M>
__device__ __forceinline__ void dot_fold(typename M::T& acc, bool& valid, typename M::T v) {
    acc = valid ? M::call(acc, v) : v;
    valid = true;
}

// Whether (acc, valid) can no longer change: an ANY monoid holding a value, or the terminal.
template <typename M>
__device__ __forceinline__ bool dot_done(typename M::T acc, bool valid) {
    if constexpr (M::is_any) return valid;
    else if constexpr (M::has_terminal) return valid && acc == M::terminal();
    else return false;
}

// The columns of the shorter list (A's row when SHORT_IS_A) at s0, s0 + stride, ... below s1,
// each searched for in the longer list from lo on; lo is left where the last search ended.
template <typename M, bool SHORT_IS_A>
__device__ __forceinline__ void dot_search(const DotPair& d, int64_t s0, int64_t s1, int64_t stride, int64_t& lo,
                                           typename M::T& acc, bool& valid) {
    const {{INDEX_T}}* __restrict__ s_idx = SHORT_IS_A ? d.a_idx : d.b_idx;
    const {{INDEX_T}}* __restrict__ l_idx = SHORT_IS_A ? d.b_idx : d.a_idx;
    const int64_t l1 = SHORT_IS_A ? d.b1 : d.a1;
    for (int64_t ps = s0; ps < s1 && lo < l1; ps += stride) {
        const int64_t k = (int64_t)s_idx[ps];
        lo = dot_gallop(l_idx, lo, l1, k);
        if (lo < l1 && (int64_t)l_idx[lo] == k) {
            dot_fold<M>(acc, valid, SHORT_IS_A ? d.term(ps, lo, k) : d.term(lo, ps, k));
            ++lo;
            if (dot_done<M>(acc, valid)) return;
        }
    }
}

// The two lists merged by one thread.
template <typename M>
__device__ __forceinline__ void dot_merge(const DotPair& d, typename M::T& acc, bool& valid) {
    int64_t pa = d.a0, pb = d.b0;
    int64_t ka = (int64_t)d.a_idx[pa], kb = (int64_t)d.b_idx[pb];
    while (true) {
        if (ka < kb) {
            if (++pa == d.a1) return;
            ka = (int64_t)d.a_idx[pa];
        } else if (kb < ka) {
            if (++pb == d.b1) return;
            kb = (int64_t)d.b_idx[pb];
        } else {
            dot_fold<M>(acc, valid, d.term(pa, pb, ka));
            if (dot_done<M>(acc, valid) || ++pa == d.a1 || ++pb == d.b1) return;
            ka = (int64_t)d.a_idx[pa];
            kb = (int64_t)d.b_idx[pb];
        }
    }
}

// The whole dot product by one thread (both lists non-empty): a search when one list is
// much longer than the other, else a merge.
template <typename M>
__device__ __forceinline__ void dot_thread(const DotPair& d, typename M::T& acc, bool& valid) {
    const int64_t la = d.a1 - d.a0, lb = d.b1 - d.b0;
    if ((int64_t)d.a_idx[d.a1 - 1] < (int64_t)d.b_idx[d.b0] || (int64_t)d.b_idx[d.b1 - 1] < (int64_t)d.a_idx[d.a0]) {
        return;  // the column ranges do not meet
    }
    int64_t lo;
    if (la * {{SEARCH_RATIO}} <= lb) {
        lo = d.b0;
        dot_search<M, true>(d, d.a0, d.a1, 1, lo, acc, valid);
    } else if (lb * {{SEARCH_RATIO}} <= la) {
        lo = d.a0;
        dot_search<M, false>(d, d.b0, d.b1, 1, lo, acc, valid);
    } else {
        dot_merge<M>(d, acc, valid);
    }
}

// The cost of a dot product of lists of la and lb columns (see the top).
__device__ __forceinline__ int64_t dot_cost(int64_t la, int64_t lb) {
    const int64_t s = la < lb ? la : lb, l = la < lb ? lb : la;
    const int64_t search = s * (int64_t)(65 - __clzll((unsigned long long)l));
    return search < la + lb ? search : la + lb;
}

// The pair of mask entry p in row i.
__device__ __forceinline__ DotPair dot_pair(
        const {{INDEX_T}}* __restrict__ m_idx,
        const {{PTR_T}}* __restrict__ a_ptr, const {{INDEX_T}}* __restrict__ a_idx, const {{A_T}}* __restrict__ a_vals,
        const {{PTR_T}}* __restrict__ b_ptr, const {{INDEX_T}}* __restrict__ b_idx, const {{B_T}}* __restrict__ b_vals,
        int64_t p, int64_t i) {
    DotPair d;
    d.a_idx = a_idx;
    d.a_vals = a_vals;
    d.b_idx = b_idx;
    d.b_vals = b_vals;
    d.i = i;
    d.j = (int64_t)m_idx[p];
    d.a0 = (int64_t)a_ptr[i];
    d.a1 = (int64_t)a_ptr[i + 1];
    d.b0 = (int64_t)b_ptr[d.j];
    d.b1 = (int64_t)b_ptr[d.j + 1];
    return d;
}

// Thread per mask entry, blocks of 256 consecutive entries (two threads find the rows of the
// block's first and last entries, the others search only between those).  Entries costing
// more than light_cost are listed in heavy (warp-aggregated atomics on counters).
extern "C" __global__ void __launch_bounds__(256) {{KERNEL}}(
        const {{PTR_T}}* __restrict__ m_ptr, const {{INDEX_T}}* __restrict__ m_idx, int64_t nvals, int64_t nrows,
        const {{PTR_T}}* __restrict__ a_ptr, const {{INDEX_T}}* __restrict__ a_idx, const {{A_T}}* __restrict__ a_vals,
        const {{PTR_T}}* __restrict__ b_ptr, const {{INDEX_T}}* __restrict__ b_idx, const {{B_T}}* __restrict__ b_vals,
        {{T}}* __restrict__ out, bool* __restrict__ keep, int64_t* __restrict__ heavy,
        unsigned long long* __restrict__ counters, int64_t light_cost, int64_t warp_short) {
    typedef {{MONOID}} M;
    __shared__ int64_t rows[2];
    const int64_t first = (int64_t)blockIdx.x * blockDim.x;
    const int64_t last = (first + blockDim.x < nvals ? first + blockDim.x : nvals) - 1;
    if (threadIdx.x == 0) rows[0] = dot_row_of(m_ptr, 0, nrows, first);
    if (threadIdx.x == 32) rows[1] = dot_row_of(m_ptr, 0, nrows, last);
    __syncthreads();
    const int64_t p = first + threadIdx.x;
    int kind = 0;  // 0: nothing to do here, 1: computed here, 2: a warp's, 3: a block's
    DotPair d;
    if (p < nvals) {
        d = dot_pair(m_idx, a_ptr, a_idx, a_vals, b_ptr, b_idx, b_vals, p, dot_row_of(m_ptr, rows[0], rows[1] + 1, p));
        const int64_t la = d.a1 - d.a0, lb = d.b1 - d.b0;
        if (la == 0 || lb == 0) keep[p] = false;
        else if (dot_cost(la, lb) <= light_cost) kind = 1;
        else kind = (la < lb ? la : lb) <= warp_short ? 2 : 3;
    }
    const unsigned lane = threadIdx.x & 31u;
    for (int list = 0; list < 2; ++list) {
        const unsigned want = __ballot_sync(0xffffffffu, kind == 2 + list);
        if (want == 0u) continue;
        unsigned long long base = 0ull;
        if (lane == (unsigned)(__ffs(want) - 1)) base = atomicAdd(&counters[list], (unsigned long long)__popc(want));
        base = __shfl_sync(0xffffffffu, base, __ffs(want) - 1);
        if (kind == 2 + list) {
            const int64_t slot = (int64_t)base + __popc(want & ((1u << lane) - 1u));
            heavy[list == 0 ? slot : nvals - 1 - slot] = p;
        }
    }
    if (kind != 1) return;
    typename M::T acc = M::identity();
    bool valid = false;
    dot_thread<M>(d, acc, valid);
    keep[p] = valid;
    if (valid) out[p] = acc;
}

// A warp per listed entry heavy[0 .. counters[0]): the lanes take the shorter list's columns
// in turn, each searching for its own in the longer list, then the warp combines them.
extern "C" __global__ void __launch_bounds__(256) {{KERNEL}}_warp(
        const {{PTR_T}}* __restrict__ m_ptr, const {{INDEX_T}}* __restrict__ m_idx, int64_t nrows,
        const {{PTR_T}}* __restrict__ a_ptr, const {{INDEX_T}}* __restrict__ a_idx, const {{A_T}}* __restrict__ a_vals,
        const {{PTR_T}}* __restrict__ b_ptr, const {{INDEX_T}}* __restrict__ b_idx, const {{B_T}}* __restrict__ b_vals,
        {{T}}* __restrict__ out, bool* __restrict__ keep, const int64_t* __restrict__ heavy,
        const unsigned long long* __restrict__ counters) {
    typedef {{MONOID}} M;
    const int lane = (int)(threadIdx.x & 31u);
    const int64_t count = (int64_t)counters[0];
    for (int64_t w = gb_thread_id() >> 5; w < count; w += gb_thread_count() >> 5) {
        const int64_t p = heavy[w];
        const DotPair d = dot_pair(m_idx, a_ptr, a_idx, a_vals, b_ptr, b_idx, b_vals, p, dot_row_of(m_ptr, 0, nrows, p));
        const bool short_a = d.a1 - d.a0 <= d.b1 - d.b0;
        const int64_t s0 = short_a ? d.a0 : d.b0, s1 = short_a ? d.a1 : d.b1;
        typename M::T acc = M::identity();
        bool valid = false;
        int64_t lo = short_a ? d.b0 : d.a0;
        for (int64_t base = s0; base < s1; base += 32 * {{ROUND}}) {
            // Each lane searches up to ROUND of its columns (base + lane, + 32, ...) a round.
            const int64_t end = base + 32 * {{ROUND}} < s1 ? base + 32 * {{ROUND}} : s1;
            if (short_a) dot_search<M, true>(d, base + lane, end, 32, lo, acc, valid);
            else dot_search<M, false>(d, base + lane, end, 32, lo, acc, valid);
            if (gb_group_done<M>(acc, valid, 0xffffffffu)) break;
        }
        acc = gb_group_reduce<M>(acc, valid, 0xffffffffu, 32);
        if (lane == 0) {
            keep[p] = valid;
            if (valid) out[p] = acc;
        }
    }
}

// A block per listed entry heavy[nvals - 1 - q] for q in [0, counters[1]): the block's
// threads share the shorter list's columns as the warp kernel's lanes do.
extern "C" __global__ void __launch_bounds__(256) {{KERNEL}}_block(
        const {{PTR_T}}* __restrict__ m_ptr, const {{INDEX_T}}* __restrict__ m_idx, int64_t nvals, int64_t nrows,
        const {{PTR_T}}* __restrict__ a_ptr, const {{INDEX_T}}* __restrict__ a_idx, const {{A_T}}* __restrict__ a_vals,
        const {{PTR_T}}* __restrict__ b_ptr, const {{INDEX_T}}* __restrict__ b_idx, const {{B_T}}* __restrict__ b_vals,
        {{T}}* __restrict__ out, bool* __restrict__ keep, const int64_t* __restrict__ heavy,
        const unsigned long long* __restrict__ counters) {
    typedef {{MONOID}} M;
    const int64_t count = (int64_t)counters[1];
    const int64_t threads = blockDim.x;
    for (int64_t q = blockIdx.x; q < count; q += gridDim.x) {
        __syncthreads();  // the last round's block reduction has been read
        const int64_t p = heavy[nvals - 1 - q];
        const DotPair d = dot_pair(m_idx, a_ptr, a_idx, a_vals, b_ptr, b_idx, b_vals, p, dot_row_of(m_ptr, 0, nrows, p));
        const bool short_a = d.a1 - d.a0 <= d.b1 - d.b0;
        const int64_t s0 = short_a ? d.a0 : d.b0, s1 = short_a ? d.a1 : d.b1;
        typename M::T acc = M::identity();
        bool valid = false;
        int64_t lo = short_a ? d.b0 : d.a0;
        for (int64_t base = s0; base < s1; base += threads * {{ROUND}}) {
            const int64_t end = base + threads * {{ROUND}} < s1 ? base + threads * {{ROUND}} : s1;
            if (short_a) dot_search<M, true>(d, base + threadIdx.x, end, threads, lo, acc, valid);
            else dot_search<M, false>(d, base + threadIdx.x, end, threads, lo, acc, valid);
            if constexpr (M::is_any || M::has_terminal) {
                if (__syncthreads_or(dot_done<M>(acc, valid))) break;
            }
        }
        acc = gb_block_reduce<M>(acc, valid);
        if (threadIdx.x == 0) {
            keep[p] = valid;
            if (valid) out[p] = acc;
        }
    }
}

// Pack the kept entries: entry p (keep[p]) goes to slot before[p], the number kept before it.
extern "C" __global__ void {{KERNEL}}_compact(
        const bool* __restrict__ keep, const int64_t* __restrict__ before, const {{INDEX_T}}* __restrict__ m_idx,
        const {{T}}* __restrict__ vals, int64_t nvals, {{INDEX_T}}* __restrict__ out_idx,
        {{T}}* __restrict__ out_vals) {
    for (int64_t p = gb_thread_id(); p < nvals; p += gb_thread_count()) {
        if (keep[p]) {
            const int64_t slot = before[p];
            out_idx[slot] = m_idx[p];
            out_vals[slot] = vals[p];
        }
    }
}
