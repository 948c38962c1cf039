// Pull SpMV over CSR rows, merge-path schedule (Merrill and Garland, "Merge-based
// parallel sparse matrix-vector multiplication", SC 2016): every thread consumes the
// same number of merge items, a merge item being either a stored entry or a row's end,
// so power-law rows and runs of empty rows cost the same per item.
//   out[r] = ADD_k MULT(A[r,k], x[k])  (or MULT(x[k], A[r,k]) when vector first)
// over the k with x_present[k] (all k when x_present is null); rows with row_mask[r]
// false (when row_mask is non-null) get no result.  present[r] says whether any term
// existed; out[r] is 0 where not.  With accumulate set, out and present hold a vector C on
// entry and each row's result is joined into it: out[r] = C[r] ADD (the row's terms) where
// C has an entry, the row's result elsewhere (C(ADD) << A x in one pass; no row mask);
// present[r] is then written only where it was false.  No early exit: the backend uses
// this schedule for monoids without a terminal value, and for multipliers that do not read
// positions (products are formed before their row is known, so r is 0 in {{PRODUCT}}).
// The values are stored as {{AV}} and read as {{A}}: a_load converts each as it is loaded.
//
// Block b handles merge items [b * TILE, (b + 1) * TILE); tile_row[b] (from the plan) is
// the row at that diagonal.  The block stages the products of its entries and its rows'
// end offsets in shared memory, each thread finds its start by a merge-path search and
// consumes ITEMS items.  A row that ends inside a thread is written by it; partial sums
// that cross threads are joined by a segmented scan over the block, and those that
// cross blocks are left in carry_* (one per block) for {{KERNEL}}_fixup.
//
// A column index k < 0 names x_hot[~k] and x_present_hot[~k] instead of x[k] and
// x_present[k]: the backend may gather the most used entries of x next to each other
// ({{KERNEL}}_gather) and pass column indices that point there to {{KERNEL}}_hot, so that the
// gathers of a power-law graph's hub columns share cache lines.
#define GB_MERGE_BLOCK {{MERGE_BLOCK}}
#define GB_MERGE_ITEMS {{MERGE_ITEMS}}
#define GB_MERGE_TILE (GB_MERGE_BLOCK * GB_MERGE_ITEMS)
#define GB_MERGE_BLOCKS_PER_SM {{MERGE_BLOCKS_PER_SM}}
static_assert(GB_MERGE_TILE < 65535, "row ends are staged as 16-bit offsets within a tile");

// A partial result: a value, whether it holds any term, and whether it starts a new
// segment (a thread that finished a row resets what flows past it).
template <typename M> struct gb_merge_part {
    typename M::T value;
    bool valid;
    bool reset;
};

// left then right (in order), for the segmented scan.
template <typename M>
__device__ __forceinline__ gb_merge_part<M> gb_merge_join(const gb_merge_part<M>& left, gb_merge_part<M> right) {
    if (!right.reset && left.valid) {
        right.value = right.valid ? M::call(left.value, right.value) : left.value;
        right.valid = true;
    }
    right.reset = right.reset || left.reset;
    return right;
}

// Write row i's result p (joined into the entry out[i] already holds, with accumulate).
template <typename M>
__device__ __forceinline__ void gb_merge_put(typename M::T* out, bool* present, int64_t i,
                                             const gb_merge_part<M>& p, bool accumulate) {
    if (accumulate && present[i]) {
        if (p.valid) out[i] = M::call(out[i], p.value);
    } else {
        out[i] = p.valid ? p.value : (typename M::T)0;
        present[i] = p.valid;
    }
}

template <typename M>
__device__ __forceinline__ gb_merge_part<M> gb_merge_shfl_up(unsigned mask, const gb_merge_part<M>& p, int d) {
    gb_merge_part<M> q;
    q.value = gb_shfl_up(mask, p.value, d);
    q.valid = gb_shfl_up(mask, p.valid, d);
    q.reset = gb_shfl_up(mask, p.reset, d);
    return q;
}

// The main kernel's parameters and their names, shared by its two entry points.
#define GB_MERGE_PARAMS \
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices, \
        const {{AV}}* __restrict__ values, const {{XV}}* __restrict__ x, \
        const {{XV}}* __restrict__ x_hot, const bool* __restrict__ x_present_hot, \
        const bool* __restrict__ x_present, const bool* __restrict__ row_mask, \
        const int64_t* __restrict__ tile_row, int64_t nrows, \
        {{T}}* __restrict__ out, bool* __restrict__ present, \
        int64_t* __restrict__ carry_row, {{T}}* __restrict__ carry_value, bool* __restrict__ carry_valid, \
        int accumulate
#define GB_MERGE_ARGS \
        indptr, indices, values, x, x_hot, x_present_hot, x_present, row_mask, tile_row, nrows, out, present, \
        carry_row, carry_value, carry_valid, accumulate

// The main kernel's body; HOT says whether column indices k < 0 may occur (the entry points
// differ only in it, so that a pull without the cache runs code with no test of k's sign).
template <bool HOT>
__device__ __forceinline__ void gb_merge_tile(GB_MERGE_PARAMS) {
    typedef {{MONOID}} M;
    typedef typename M::T T;
    __shared__ T prod[GB_MERGE_TILE];
    __shared__ bool term_ok[GB_MERGE_TILE];
    __shared__ unsigned short row_end[GB_MERGE_TILE + 1];  // offsets from nz0: see the staging
    __shared__ gb_merge_part<M> warp_total[GB_MERGE_BLOCK / 32];

    const int64_t nnz = (int64_t)indptr[nrows];
    const int64_t total = nrows + nnz;
    const int64_t d0 = (int64_t)blockIdx.x * GB_MERGE_TILE;
    const int64_t d1 = min(d0 + GB_MERGE_TILE, total);
    const int64_t r0 = tile_row[blockIdx.x], r1 = tile_row[blockIdx.x + 1];
    const int64_t nz0 = d0 - r0, nz1 = d1 - r1;

    // Stage: the products of this tile's entries and the end offsets of its rows.  The
    // column indices are loaded first.  The matrix is read once (streaming loads keep x in
    // cache); term_ok is only kept when some x[k] may be absent.
    const bool x_full = x_present == 0;
    const int nz_count = (int)(nz1 - nz0);  // at most GB_MERGE_TILE
    {{INDEX_T}} cols[GB_MERGE_ITEMS];
#pragma unroll
    for (int s = 0; s < GB_MERGE_ITEMS; ++s) {
        const int q = s * GB_MERGE_BLOCK + threadIdx.x;
        cols[s] = q < nz_count ? gb_load_once(indices + nz0 + q) : ({{INDEX_T}})0;
    }
    // An entry's product, from its value a, x's entry xk and its column k (r: see the top).
    const auto product = [&](const {{A}} a, const {{XV}} xk, const int64_t k) -> T {
        const int64_t r = 0;
        return {{PRODUCT}};
    };
    if (x_full) {
        // All of a thread's loads of A and x first, then its products: with a branch per
        // entry between them, each load waited for the one before.
        {{A}} as[GB_MERGE_ITEMS];
        {{XV}} xs[GB_MERGE_ITEMS];
#pragma unroll
        for (int s = 0; s < GB_MERGE_ITEMS; ++s) {
            const int q = s * GB_MERGE_BLOCK + threadIdx.x;
            const int64_t k = (int64_t)cols[s];
            as[s] = ({{READS_A}} && q < nz_count) ? a_load::call(gb_load_once(values + nz0 + q)) : ({{A}})0;  // null when unread
            xs[s] = ({{READS_X}} && q < nz_count) ? ((HOT && k < 0) ? x_hot[~k] : x[k]) : ({{XV}})0;
        }
#pragma unroll
        for (int s = 0; s < GB_MERGE_ITEMS; ++s) {
            const int q = s * GB_MERGE_BLOCK + threadIdx.x;
            if (q < nz_count) prod[q] = product(as[s], xs[s], cols[s]);
        }
    } else {
        // Only the present x[k] are loaded (a sparse x skips most of its gathers).
#pragma unroll
        for (int s = 0; s < GB_MERGE_ITEMS; ++s) {
            const int q = s * GB_MERGE_BLOCK + threadIdx.x;
            if (q < nz_count) {
                const int64_t k = (int64_t)cols[s];
                const bool ok = (HOT && k < 0) ? x_present_hot[~k] : x_present[k];
                if (ok) {
                    const {{A}} a = {{READS_A}} ? a_load::call(gb_load_once(values + nz0 + q)) : ({{A}})0;
                    const {{XV}} xk = {{READS_X}} ? ((HOT && k < 0) ? x_hot[~k] : x[k]) : ({{XV}})0;
                    prod[q] = product(a, xk, k);
                }
                term_ok[q] = ok;
            }
        }
    }
    // Row ends as offsets from the tile's first entry, 2 bytes each instead of 4 or 8: less
    // shared memory a block leaves more of the SM to L1 (see the launch bounds).  Rows before
    // r1 end inside the tile; row r1's end, anywhere after it, is kept as just past it.
    const int64_t last_row = min(r1, nrows - 1);
    for (int64_t q = r0 + threadIdx.x; q <= last_row; q += GB_MERGE_BLOCK) {
        row_end[q - r0] = (unsigned short)min((int64_t)gb_load_once(indptr + q + 1) - nz0, (int64_t)nz_count + 1);
    }
    __syncthreads();

    // This thread's start: the first of its diagonal's rows whose end is not yet merged.
    const int64_t diag = d0 + (int64_t)threadIdx.x * GB_MERGE_ITEMS;
    int64_t lo = 0, hi = last_row - r0 + 1;
    while (lo < hi) {
        const int64_t mid = (lo + hi) >> 1;
        if (nz0 + (int64_t)row_end[mid] + r0 + mid + 1 <= diag) lo = mid + 1; else hi = mid;
    }
    int64_t i = r0 + lo, j = diag - i;
    const int64_t stop = min(diag + GB_MERGE_ITEMS, d1);

    gb_merge_part<M> head, tail;  // head: the first row this thread finished; tail: the open row
    head.valid = false;
    head.reset = false;
    tail.value = (T)0;
    tail.valid = false;
    tail.reset = false;
    int64_t head_row = i;
    bool row_on = row_mask == 0 || i >= nrows || row_mask[i];
    for (int64_t d = diag; d < stop; ++d) {
        if (j < nz0 + (int64_t)row_end[i - r0]) {
            if (row_on && (x_full || term_ok[j - nz0])) {
                const T v = prod[j - nz0];
                // Joined always, then selected: written as a choice of calls, min and max
                // compiled to a branch (kron scale 22 through the column cache: min_plus
                // 594 -> 582 us, max_min 595 -> 585, plus_times 567 -> 563).
                const T joined = M::call(tail.value, v);
                tail.value = tail.valid ? joined : v;
                tail.valid = true;
            }
            ++j;
        } else {
            if (!head.reset) {  // the first finished row waits for the carry from the left
                head.value = tail.value;
                head.valid = tail.valid;
                head.reset = true;
                head_row = i;
            } else {
                gb_merge_put<M>(out, present, i, tail, accumulate);
            }
            tail.valid = false;
            ++i;
            row_on = row_mask == 0 || i >= nrows || row_mask[i];
        }
    }
    tail.reset = head.reset;

    // Segmented inclusive scan of the tails over the block, in thread order.
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    gb_merge_part<M> scan = tail;
    for (int d = 1; d < 32; d <<= 1) {
        const gb_merge_part<M> left = gb_merge_shfl_up<M>(0xffffffffu, scan, d);
        if (lane >= d) scan = gb_merge_join<M>(left, scan);
    }
    if (lane == 31) warp_total[warp] = scan;
    __syncthreads();
    gb_merge_part<M> before;  // what flows in from earlier warps of the block
    before.valid = false;
    before.reset = false;
    for (int w = 0; w < warp; ++w) before = gb_merge_join<M>(before, warp_total[w]);
    scan = gb_merge_join<M>(before, scan);
    gb_merge_part<M> carry_in = gb_merge_shfl_up<M>(0xffffffffu, scan, 1);
    if (lane == 0) carry_in = before;

    if (head.reset) {  // carry_in is the open part of head_row from earlier threads
        carry_in.reset = false;
        head.reset = false;
        gb_merge_put<M>(out, present, head_row, gb_merge_join<M>(carry_in, head), accumulate);
    }
    if (threadIdx.x == GB_MERGE_BLOCK - 1) {  // the part of row r1 that crosses into later blocks
        carry_row[blockIdx.x] = r1 < nrows ? r1 : -1;
        carry_value[blockIdx.x] = scan.value;
        carry_valid[blockIdx.x] = scan.valid;
    }
}

// At least GB_MERGE_BLOCKS_PER_SM blocks an SM (6 of 256 threads: the compiler may use up to 40
// registers a thread), and the backend asks for just the shared memory they need: the gathers
// of x hit L1 more often with the rest.  6 blocks fit in the H100's 100 KB size, which leaves
// 156 KB of L1.  Left to choose, the driver keeps more: its speed matches a request for 50%
// (the 132 KB size, 124 KB of L1).  Kron scale 22, FP32, through the column cache, the kernels
// alone in one process, rounds alternating with cuSPARSE, ratios to it (plus_times /
// min_plus): the driver's choice 1.012 / 0.995; 100 KB 0.946 / 0.937; 164 KB 1.12 / 1.08
// (another run); with 16-bit row ends, 100 KB 0.921 / 0.920 and 64 KB (5 blocks) 0.903 / 0.920.
extern "C" __global__ void __launch_bounds__(GB_MERGE_BLOCK, GB_MERGE_BLOCKS_PER_SM) {{KERNEL}}(GB_MERGE_PARAMS) {
    gb_merge_tile<false>(GB_MERGE_ARGS);
}

extern "C" __global__ void __launch_bounds__(GB_MERGE_BLOCK, GB_MERGE_BLOCKS_PER_SM) {{KERNEL}}_hot(GB_MERGE_PARAMS) {
    gb_merge_tile<true>(GB_MERGE_ARGS);
}
#undef GB_MERGE_PARAMS  // other modules of one unit define their own
#undef GB_MERGE_ARGS

// Join a row's carries acc (its earlier part) into what the block that finished it wrote.
template <typename M>
__device__ __forceinline__ void gb_merge_carry_put(typename M::T* out, bool* present, int64_t r, typename M::T acc) {
    if (present[r]) {
        out[r] = M::call(acc, out[r]);
    } else {  // (presence already true is not written: a caller may share it)
        out[r] = acc;
        present[r] = true;
    }
}

// Join each row's block carries (in block order) into the value written by the block that
// finished the row.  Warp w takes carries [32 w, 32 w + 32), a lane each: a segmented scan over
// the lanes joins each run of carries of one row, and the run's last lane writes it.  A run
// that began in an earlier warp is that warp's to finish; a run still open at lane 31 is
// followed by the whole warp, 32 carries at a time (a hub row crosses many tiles).  A warp
// per carry, as before, ran 32 times the threads and took 9.6 us at kron scale 22 (now 7.5).
extern "C" __global__ void {{KERNEL}}_fixup(
        const int64_t* __restrict__ carry_row, const {{T}}* __restrict__ carry_value,
        const bool* __restrict__ carry_valid, int64_t ncarry,
        {{T}}* __restrict__ out, bool* __restrict__ present) {
    typedef {{MONOID}} M;
    typedef typename M::T T;
    const int64_t c = gb_thread_id();
    const int lane = threadIdx.x & 31;
    if (c - lane >= ncarry) return;  // the whole warp is past the carries
    const bool mine = c < ncarry;
    const int64_t r = mine ? carry_row[c] : -1;
    int64_t prev = gb_shfl_up(0xffffffffu, r, 1);
    if (lane == 0) prev = c > 0 ? carry_row[c - 1] : -2;
    int64_t next = gb_shfl_down(0xffffffffu, r, 1, 32);
    if (lane == 31) next = c + 1 < ncarry ? carry_row[c + 1] : -2;
    gb_merge_part<M> p;
    p.valid = mine && r >= 0 && carry_valid[c];
    p.value = p.valid ? carry_value[c] : (T)0;
    p.reset = r != prev;  // a run of carries of one row starts here
    for (int d = 1; d < 32; d <<= 1) {
        const gb_merge_part<M> left = gb_merge_shfl_up<M>(0xffffffffu, p, d);
        if (lane >= d) p = gb_merge_join<M>(left, p);
    }
    // The run through lane 0 that began in an earlier warp is that warp's to finish.
    const int64_t first_row = gb_shfl(0xffffffffu, r, 0);
    const bool first_continues = gb_shfl(0xffffffffu, (int)(r == prev), 0) != 0;
    const bool ours = mine && r >= 0 && !(first_continues && r == first_row);
    if (gb_shfl(0xffffffffu, (int)(ours && next == r), 31) != 0) {  // lane 31's run goes on
        const int64_t row = gb_shfl(0xffffffffu, r, 31);
        T run = gb_shfl(0xffffffffu, p.value, 31);
        bool run_valid = gb_shfl(0xffffffffu, p.valid, 31);
        for (int64_t base = c - lane + 32; base < ncarry; base += 32) {
            const int64_t q = base + lane;
            bool v = q < ncarry && carry_row[q] == row && carry_valid[q];
            T part = v ? carry_value[q] : (T)0;
            part = gb_group_reduce<M>(part, v, 0xffffffffu, 32);
            if (gb_shfl(0xffffffffu, v, 0)) {
                part = gb_shfl(0xffffffffu, part, 0);
                run = run_valid ? M::call(run, part) : part;
                run_valid = true;
            }
            if (__ballot_sync(0xffffffffu, q < ncarry && carry_row[q] != row) != 0u) break;
        }
        if (lane == 31 && run_valid) gb_merge_carry_put<M>(out, present, row, run);
    }
    if (ours && next != r && p.valid) gb_merge_carry_put<M>(out, present, r, p.value);  // a run that ends here
}

// x_hot[i] = x[hot[i]] and x_present_hot[i] = x_present[hot[i]] for i < n (each where its
// source is non-null): the entries that column indices ~i stand for.
extern "C" __global__ void {{KERNEL}}_gather(const {{XV}}* __restrict__ x, const bool* __restrict__ x_present,
                                            const {{INDEX_T}}* __restrict__ hot, int64_t n,
                                            {{XV}}* __restrict__ x_hot, bool* __restrict__ x_present_hot) {
    for (int64_t i = gb_thread_id(); i < n; i += gb_thread_count()) {
        if (x != 0) x_hot[i] = x[hot[i]];
        if (x_present != 0) x_present_hot[i] = x_present[hot[i]];
    }
}
