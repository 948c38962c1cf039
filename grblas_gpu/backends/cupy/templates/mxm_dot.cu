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
// `heavy` (their rows beside them in `heavy_rows`): from the front (counters[0]) those whose
// shorter list has at most `warp_short` columns, for {{KERNEL}}_warp (a warp per entry), and from
// the back (counters[1]) the rest, for {{KERNEL}}_block (a block per entry): a hub row meeting a
// hub column then takes a block, not one thread.
// `variant` bits choose how lists are searched.  Bit 0 (SIZED_SEARCH): a thread searches its
// first column by binary search and the others by binary search too where the longer list
// exceeds the square of the shorter (a gallop costs 2 log2(long / short) loads a column, a binary
// search log2(long)), else by gallop.  Without it: gallops only.  Bit 1 (CHUNKED_GROUPS): each
// lane of a warp or block takes a contiguous run of the shorter list, finds its first column by
// binary search and the others by a linear scan (lists of similar lengths: a lane-local merge,
// reading whole cache lines), a gallop or a binary search; without it, lanes take every 32nd
// (or blockDim-th) column and gallop.
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

// The first position in [lo, hi) of the sorted idx whose column is >= key, by binary search.
__device__ __forceinline__ int64_t dot_lower_bound(const {{INDEX_T}}* __restrict__ idx, int64_t lo, int64_t hi,
                                                   int64_t key) {
    while (lo < hi) {
        const int64_t mid = lo + ((hi - lo) >> 1);
        if ((int64_t)idx[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// Search modes: the first position in [lo, hi) whose column is >= key, found by a linear scan
// from lo, a gallop from lo or a binary search of [lo, hi).
enum { DOT_LINEAR = 0, DOT_GALLOP = 1, DOT_BINARY = 2 };

__device__ __forceinline__ int64_t dot_find(const {{INDEX_T}}* __restrict__ idx, int64_t lo, int64_t hi, int64_t key,
                                            int mode) {
    if (mode == DOT_LINEAR) {
        while (lo < hi && (int64_t)idx[lo] < key) ++lo;
        return lo;
    }
    return mode == DOT_GALLOP ? dot_gallop(idx, lo, hi, key) : dot_lower_bound(idx, lo, hi, key);
}

// The mode for a run of the shorter list (ns columns) in the longer (nl): a linear scan where
// the lists are of similar lengths, a gallop where consecutive columns lie close (the square of
// the ratio below nl), else a binary search.
__device__ __forceinline__ int dot_mode(int64_t ns, int64_t nl) {
    if (nl <= {{LINEAR_RATIO}} * ns) return DOT_LINEAR;
    const int64_t r = nl / ns;
    return r * r < nl ? DOT_GALLOP : DOT_BINARY;
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
// each searched for in the longer list from lo on (the first by `first_mode`, the others by
// `mode`); lo is left where the last search ended.
template <typename M, bool SHORT_IS_A>
__device__ __forceinline__ void dot_search(const DotPair& d, int64_t s0, int64_t s1, int64_t stride, int64_t& lo,
                                           int first_mode, int mode, typename M::T& acc, bool& valid) {
    const {{INDEX_T}}* __restrict__ s_idx = SHORT_IS_A ? d.a_idx : d.b_idx;
    const {{INDEX_T}}* __restrict__ l_idx = SHORT_IS_A ? d.b_idx : d.a_idx;
    const int64_t l1 = SHORT_IS_A ? d.b1 : d.a1;
    int how = first_mode;
    for (int64_t ps = s0; ps < s1 && lo < l1; ps += stride) {
        const int64_t k = (int64_t)s_idx[ps];
        lo = dot_find(l_idx, lo, l1, k, how);
        how = mode;
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
__device__ __forceinline__ void dot_thread(const DotPair& d, int variant, typename M::T& acc, bool& valid) {
    const int64_t la = d.a1 - d.a0, lb = d.b1 - d.b0;
    if ((int64_t)d.a_idx[d.a1 - 1] < (int64_t)d.b_idx[d.b0] || (int64_t)d.b_idx[d.b1 - 1] < (int64_t)d.a_idx[d.a0]) {
        return;  // the column ranges do not meet
    }
    const bool sized = (variant & 1) != 0;
    const int64_t s = la < lb ? la : lb, l = la < lb ? lb : la;
    const int first = sized ? DOT_BINARY : DOT_GALLOP, mode = sized && l > s * s ? DOT_BINARY : DOT_GALLOP;
    int64_t lo;
    if (la * {{SEARCH_RATIO}} <= lb) {
        lo = d.b0;
        dot_search<M, true>(d, d.a0, d.a1, 1, lo, first, mode, acc, valid);
    } else if (lb * {{SEARCH_RATIO}} <= la) {
        lo = d.a0;
        dot_search<M, false>(d, d.b0, d.b1, 1, lo, first, mode, acc, valid);
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

// Whether every lane of the group (a warp when WARP, else the block) may stop: some lane's
// result can no longer change.  Every lane of the group must call it.
template <typename M, bool WARP>
__device__ __forceinline__ bool dot_group_done(typename M::T acc, bool valid) {
    if constexpr (!(M::is_any || M::has_terminal)) return false;
    else if constexpr (WARP) return gb_group_done<M>(acc, valid, 0xffffffffu);
    else return __syncthreads_or(dot_done<M>(acc, valid)) != 0;
}

// Lane g of a group of G lanes (a warp, or a block when not WARP) folds its share of one dot
// product, the shorter list being A's row when SHORT_IS_A: a contiguous run of columns with
// CHUNKED_GROUPS (variant bit 1), else every G-th column from s0 + g.  Work goes in rounds of
// ROUND columns a lane, the group checking for an early exit between rounds.
template <typename M, bool SHORT_IS_A, bool WARP>
__device__ __forceinline__ void dot_group(const DotPair& d, int64_t g, int64_t G, int variant,
                                          typename M::T& acc, bool& valid) {
    const int64_t s0 = SHORT_IS_A ? d.a0 : d.b0, s1 = SHORT_IS_A ? d.a1 : d.b1;
    const int64_t l0 = SHORT_IS_A ? d.b0 : d.a0, l1 = SHORT_IS_A ? d.b1 : d.a1;
    int64_t lo = l0;
    if ((variant & 2) != 0) {
        const int64_t ns = s1 - s0, c = (ns + G - 1) / G, cs = s0 + g * c, ce = cs + c < s1 ? cs + c : s1;
        const int mode = dot_mode(ns, l1 - l0);
        for (int64_t t = 0; t < c; t += {{ROUND}}) {
            const int64_t b = cs + t, e = b + {{ROUND}} < ce ? b + {{ROUND}} : ce;
            if (b < e) dot_search<M, SHORT_IS_A>(d, b, e, 1, lo, t == 0 ? DOT_BINARY : mode, mode, acc, valid);
            if (dot_group_done<M, WARP>(acc, valid)) break;
        }
    } else {
        for (int64_t base = s0; base < s1; base += G * {{ROUND}}) {
            const int64_t end = base + G * {{ROUND}} < s1 ? base + G * {{ROUND}} : s1;
            dot_search<M, SHORT_IS_A>(d, base + g, end, G, lo, DOT_GALLOP, DOT_GALLOP, acc, valid);
            if (dot_group_done<M, WARP>(acc, valid)) break;
        }
    }
}

// Thread per mask entry, blocks of 256 consecutive entries (two threads find the rows of the
// block's first and last entries, the others search only between those).  Entries costing
// more than light_cost are listed in heavy (warp-aggregated atomics on counters).
extern "C" __global__ void __launch_bounds__(256) {{KERNEL}}(
        const {{PTR_T}}* __restrict__ m_ptr, const {{INDEX_T}}* __restrict__ m_idx, int64_t nvals, int64_t nrows,
        const {{PTR_T}}* __restrict__ a_ptr, const {{INDEX_T}}* __restrict__ a_idx, const {{A_T}}* __restrict__ a_vals,
        const {{PTR_T}}* __restrict__ b_ptr, const {{INDEX_T}}* __restrict__ b_idx, const {{B_T}}* __restrict__ b_vals,
        {{T}}* __restrict__ out, bool* __restrict__ keep, int64_t* __restrict__ heavy, int64_t* __restrict__ heavy_rows,
        unsigned long long* __restrict__ counters, int64_t light_cost, int64_t warp_short, int variant) {
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
            const int64_t at = list == 0 ? slot : nvals - 1 - slot;
            heavy[at] = p;
            heavy_rows[at] = d.i;
        }
    }
    if (kind != 1) return;
    typename M::T acc = M::identity();
    bool valid = false;
    dot_thread<M>(d, variant, acc, valid);
    keep[p] = valid;
    if (valid) out[p] = acc;
}

// A warp per listed entry heavy[0 .. counters[0]): the lanes share the shorter list's columns
// (see `variant`), each searching for its own in the longer list, then the warp combines them.
extern "C" __global__ void __launch_bounds__(256) {{KERNEL}}_warp(
        const {{INDEX_T}}* __restrict__ m_idx,
        const {{PTR_T}}* __restrict__ a_ptr, const {{INDEX_T}}* __restrict__ a_idx, const {{A_T}}* __restrict__ a_vals,
        const {{PTR_T}}* __restrict__ b_ptr, const {{INDEX_T}}* __restrict__ b_idx, const {{B_T}}* __restrict__ b_vals,
        {{T}}* __restrict__ out, bool* __restrict__ keep, const int64_t* __restrict__ heavy,
        const int64_t* __restrict__ heavy_rows, const unsigned long long* __restrict__ counters, int variant) {
    typedef {{MONOID}} M;
    const int lane = (int)(threadIdx.x & 31u);
    const int64_t count = (int64_t)counters[0];
    for (int64_t w = gb_thread_id() >> 5; w < count; w += gb_thread_count() >> 5) {
        const int64_t p = heavy[w];
        const DotPair d = dot_pair(m_idx, a_ptr, a_idx, a_vals, b_ptr, b_idx, b_vals, p, heavy_rows[w]);
        typename M::T acc = M::identity();
        bool valid = false;
        if (d.a1 - d.a0 <= d.b1 - d.b0) dot_group<M, true, true>(d, lane, 32, variant, acc, valid);
        else dot_group<M, false, true>(d, lane, 32, variant, acc, valid);
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
        const {{INDEX_T}}* __restrict__ m_idx, int64_t nvals,
        const {{PTR_T}}* __restrict__ a_ptr, const {{INDEX_T}}* __restrict__ a_idx, const {{A_T}}* __restrict__ a_vals,
        const {{PTR_T}}* __restrict__ b_ptr, const {{INDEX_T}}* __restrict__ b_idx, const {{B_T}}* __restrict__ b_vals,
        {{T}}* __restrict__ out, bool* __restrict__ keep, const int64_t* __restrict__ heavy,
        const int64_t* __restrict__ heavy_rows, const unsigned long long* __restrict__ counters, int variant) {
    typedef {{MONOID}} M;
    const int64_t count = (int64_t)counters[1];
    for (int64_t q = blockIdx.x; q < count; q += gridDim.x) {
        __syncthreads();  // the last entry's block reduction has been read
        const int64_t at = nvals - 1 - q, p = heavy[at];
        const DotPair d = dot_pair(m_idx, a_ptr, a_idx, a_vals, b_ptr, b_idx, b_vals, p, heavy_rows[at]);
        typename M::T acc = M::identity();
        bool valid = false;
        if (d.a1 - d.a0 <= d.b1 - d.b0) dot_group<M, true, false>(d, threadIdx.x, blockDim.x, variant, acc, valid);
        else dot_group<M, false, false>(d, threadIdx.x, blockDim.x, variant, acc, valid);
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
