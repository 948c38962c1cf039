// Push SpMSpV: for every frontier entry (k, x[k]), every stored A[k, j] of row k adds its
// term into out[j] with the monoid, atomically; present[j] records that a term arrived.
// out must hold the monoid's identity (anything for an ANY monoid, which just stores) and
// present false beforehand.  Where `mask` is given, only the positions j with
// mask[j] != complement receive terms (a mask applied as the product is made).  A group of
// `group` lanes (a power of two <= 32) walks one frontier row.
// Positions given to MULT: {{POSITIONS_DOC}}, with r the output index j.
// The values are stored as {{AV}} and read as {{A}}: a_load converts each as it is loaded.
extern "C" __global__ void {{KERNEL}}(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{AV}}* __restrict__ values, const int64_t* __restrict__ frontier,
        const {{XV}}* __restrict__ fvals, int64_t nfront,
        const bool* __restrict__ mask, int complement, {{T}}* __restrict__ out,
        bool* __restrict__ present, int group) {
    typedef {{MONOID}} M;
    const int64_t tid = gb_thread_id();
    const int64_t f = tid / group;
    const int lane = (int)(tid & (group - 1));
    if (f >= nfront) return;
    const int64_t k = frontier[f];
    const {{XV}} xk = {{READS_X}} ? fvals[f] : ({{XV}})0;
    const int64_t end = (int64_t)indptr[k + 1];
    for (int64_t p = (int64_t)indptr[k] + lane; p < end; p += group) {
        const int64_t r = (int64_t)indices[p];
        if (mask != nullptr && mask[r] == (bool)complement) continue;
        const {{A}} a = {{READS_A}} ? a_load::call(values[p]) : ({{A}})0;  // values may be null when unread
        gb_atomic_combine<M>(&out[r], {{PRODUCT}});
        present[r] = true;
    }
}

// The walk of a frontier given as a bitmap over all n rows (no list of its entries needed),
// shared by the bitmap pushes: each warp takes 32 consecutive rows at a time (a grid stride
// over the rows) and walks each of their frontier rows with all 32 lanes, one row after
// another, except that where more of them are short (at most GB_LANE_ROW entries) than the
// longest of those is long, each short row is walked by its own lane, side by side (a
// clustered frontier of short rows, as on a road graph, would otherwise take a step per row).
// `entry(k, xk, p)` takes entry p of frontier row k (value xk) and returns what it adds to the
// lane's count; after each warp step every lane calls `done(k, in)` for its row k (k may be
// n or more; `in`: k is in the frontier).  Returns the lane's count.
#define GB_LANE_ROW {{LANE_ROW}}
template <typename Entry, typename Done>
__device__ __forceinline__ unsigned long long {{KERNEL}}_walk(
        const {{PTR_T}}* __restrict__ indptr, const bool* in_frontier, const {{XV}}* fvals, int64_t n,
        Entry entry, Done done) {
    const int lane = threadIdx.x & 31;
    const int64_t stride = gb_thread_count() & ~(int64_t)31;
    unsigned long long added = 0ull;
    for (int64_t first = gb_thread_id() & ~(int64_t)31; first < n; first += stride) {  // whole warps together
        const int64_t k = first + lane;
        const bool in = k < n && in_frontier[k];
        int64_t begin = 0, end = 0;
        if (in) {
            begin = (int64_t)indptr[k];
            end = (int64_t)indptr[k + 1];
        }
        // Short rows side by side take as many steps as the longest of them; one after
        // another, one step each: whichever is fewer (the same choice across the warp).
        const int64_t length = end - begin;
        const bool short_row = length > 0 && length <= GB_LANE_ROW;
        const unsigned shorts = __ballot_sync(0xffffffffu, short_row);
        bool by_lane = false;
        if (shorts != 0u) {
            int longest = short_row ? (int)length : 0;
            for (int d = 16; d > 0; d >>= 1) longest = max(longest, __shfl_xor_sync(0xffffffffu, longest, d));
            by_lane = short_row && __popc(shorts) > longest;
        }
        if (by_lane) {
            const {{XV}} xk = {{READS_X}} ? fvals[k] : ({{XV}})0;
            for (int64_t p = begin; p < end; ++p) added += entry(k, xk, p);
        }
        unsigned todo = __ballot_sync(0xffffffffu, length > 0 && !by_lane);
        while (todo != 0u) {
            const int owner = __ffs(todo) - 1;
            todo &= todo - 1u;
            const int64_t row = first + owner;
            const int64_t row_end = __shfl_sync(0xffffffffu, end, owner);
            const {{XV}} xk = {{READS_X}} ? fvals[row] : ({{XV}})0;
            for (int64_t p = __shfl_sync(0xffffffffu, begin, owner) + lane; p < row_end; p += 32)
                added += entry(row, xk, p);
        }
        done(k, in);
    }
    return added;
}

// The same push from a frontier given as a bitmap (the walk above).
// Where `state` is given (as for the count kernels: zero before and after), the positions
// that become present are counted as they are set and the block that finishes last writes
// their number to *counted (page-locked host memory): the result's entries, with no pass
// over it to count them.
extern "C" __global__ void {{KERNEL}}_bitmap(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{AV}}* __restrict__ values, const bool* __restrict__ in_frontier,
        const {{XV}}* __restrict__ fvals, int64_t n, const bool* __restrict__ mask, int complement,
        {{T}}* __restrict__ out, bool* __restrict__ present, unsigned long long* __restrict__ state,
        unsigned long long* counted) {
    typedef {{MONOID}} M;
    // Entry p of frontier row k (value xk) combined into out[r]; 1 if it made r present.
    auto push_entry = [&](int64_t k, {{XV}} xk, int64_t p) -> unsigned {
        const int64_t r = (int64_t)indices[p];
        if (mask != nullptr && mask[r] == (bool)complement) return 0u;
        const {{A}} a = {{READS_A}} ? a_load::call(values[p]) : ({{A}})0;  // values may be null when unread
        gb_atomic_combine<M>(&out[r], {{PRODUCT}});
        if (state != nullptr) return gb_set_flag(&present[r]);
        present[r] = true;
        return 0u;
    };
    const unsigned long long added = {{KERNEL}}_walk(indptr, in_frontier, fvals, n, push_entry,
                                                     [](int64_t, bool) {});
    if (state != nullptr) gb_count_finish(added, state, counted);
}

// The bitmap push with its terms written straight into the output c, held in place, reporting
// what changed: d_bits[r] is set (and counted as the bitmap push counts) where c[r] changes.
// Without c_bits, c is a full vector and each term is combined into it (c = c (+) the terms);
// a term that changes c[r] is combined into d[r] too.  For a selective monoid (min, max) the
// last term that changes c[r] is the best, so d[r] ends as c's new value; d must hold the
// identity beforehand.  With c_bits (c's presence), a term goes only where c has no entry
// yet: the first to reach r claims it (an ANY monoid) and is c's and d's value there.
// d_bits must be false beforehand.  With `consume`, each warp then leaves its rows of the
// frontier so (presence false, values `identity`), ready to be the d of a later push.
extern "C" __global__ void {{KERNEL}}_relax(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{AV}}* __restrict__ values, bool* __restrict__ in_frontier, {{XV}}* __restrict__ fvals,
        int64_t n, bool* __restrict__ c_bits, {{T}}* __restrict__ c, bool* __restrict__ d_bits,
        {{T}}* __restrict__ d, int consume, {{T}} identity, unsigned long long* __restrict__ state,
        unsigned long long* counted) {
    typedef {{MONOID}} M;
    auto relax_entry = [&](int64_t k, {{XV}} xk, int64_t p) -> unsigned {
        const int64_t r = (int64_t)indices[p];
        const {{A}} a = {{READS_A}} ? a_load::call(values[p]) : ({{A}})0;  // values may be null when unread
        const {{T}} term = {{PRODUCT}};
        if (c_bits != nullptr) {
            if (!gb_set_flag(&c_bits[r])) return 0u;  // r had an entry, or another term claimed it
            c[r] = term;
            d[r] = term;
            d_bits[r] = true;
            return 1u;
        }
        if (!gb_atomic_combine_changed<M>(&c[r], term)) return 0u;
        gb_atomic_combine<M>(&d[r], term);
        return gb_set_flag(&d_bits[r]);
    };
    auto clean = [&](int64_t k, bool in) {
        if (!consume) return;
        __syncwarp();  // every lane has read the warp's frontier values
        if (k < n) {
            if (in) in_frontier[k] = false;
            fvals[k] = ({{XV}})identity;
        }
    };
    const unsigned long long added = {{KERNEL}}_walk(indptr, in_frontier, fvals, n, relax_entry, clean);
    if (state != nullptr) gb_count_finish(added, state, counted);
}

// The same push balanced over the frontier's stored entries rather than its rows, for
// matrices with long rows (one hub row would keep a single group busy): the entries of the
// listed rows, concatenated, are cut into tiles of 32 * GB_PUSH_ITEMS, a warp per tile (grid
// stride), lane l taking entries l, l + 32, ...  ends[f] is the inclusive prefix sum of the
// rows' lengths, so the entry e belongs to the first frontier row f with ends[f] > e.
// `entry(k, xk, p)` takes entry p of frontier row k (value xk).
#define GB_PUSH_ITEMS {{PUSH_ITEMS}}
template <typename Entry>
__device__ __forceinline__ void {{KERNEL}}_tiles(
        const {{PTR_T}}* __restrict__ indptr, const int64_t* __restrict__ frontier,
        const {{XV}}* __restrict__ fvals, int64_t nfront, const int64_t* __restrict__ ends, Entry entry) {
    const int64_t total = ends[nfront - 1];
    const int64_t tile_size = 32 * GB_PUSH_ITEMS;
    const int64_t stride = (gb_thread_count() >> 5) * tile_size;
    const int lane = threadIdx.x & 31;
    for (int64_t tile = (gb_thread_id() >> 5) * tile_size; tile < total; tile += stride) {
        int64_t e = tile + lane;
        if (e >= total) break;
        int64_t lo = 0, hi = nfront - 1;  // the row of entry e
        while (lo < hi) {
            const int64_t mid = (lo + hi) >> 1;
            if (ends[mid] > e) hi = mid; else lo = mid + 1;
        }
        int64_t f = lo;
        for (int s = 0; s < GB_PUSH_ITEMS && e < total; ++s, e += 32) {
            while (ends[f] <= e) ++f;  // later entries of this lane lie in later rows
            const int64_t k = frontier[f];
            const int64_t p = (int64_t)indptr[k] + (e - (f > 0 ? ends[f - 1] : 0));
            const {{XV}} xk = {{READS_X}} ? fvals[f] : ({{XV}})0;
            entry(k, xk, p);
        }
    }
}

extern "C" __global__ void {{KERNEL}}_balanced(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{AV}}* __restrict__ values, const int64_t* __restrict__ frontier,
        const {{XV}}* __restrict__ fvals, int64_t nfront, const int64_t* __restrict__ ends,
        const bool* __restrict__ mask, int complement, {{T}}* __restrict__ out,
        bool* __restrict__ present) {
    typedef {{MONOID}} M;
    auto push_entry = [&](int64_t k, {{XV}} xk, int64_t p) {
        const int64_t r = (int64_t)indices[p];
        if (mask != nullptr && mask[r] == (bool)complement) return;
        const {{A}} a = {{READS_A}} ? a_load::call(values[p]) : ({{A}})0;  // values may be null when unread
        gb_atomic_combine<M>(&out[r], {{PRODUCT}});
        present[r] = true;
    };
    {{KERNEL}}_tiles(indptr, frontier, fvals, nfront, ends, push_entry);
}

// The balanced push written straight into the output c where it has no entry yet (c_bits
// false), as the relax kernel's claim does: the first term to reach r claims it and is c's
// and d's value there, d_bits[r] set (d_bits false beforehand).  For a listed frontier with
// long rows (a BFS source that is a hub).
extern "C" __global__ void {{KERNEL}}_balanced_claim(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{AV}}* __restrict__ values, const int64_t* __restrict__ frontier,
        const {{XV}}* __restrict__ fvals, int64_t nfront, const int64_t* __restrict__ ends,
        bool* __restrict__ c_bits, {{T}}* __restrict__ c, bool* __restrict__ d_bits, {{T}}* __restrict__ d) {
    auto claim_entry = [&](int64_t k, {{XV}} xk, int64_t p) {
        const int64_t r = (int64_t)indices[p];
        if (!gb_set_flag(&c_bits[r])) return;  // r had an entry, or another term claimed it
        const {{A}} a = {{READS_A}} ? a_load::call(values[p]) : ({{A}})0;  // values may be null when unread
        const {{T}} term = {{PRODUCT}};
        c[r] = term;
        d[r] = term;
        d_bits[r] = true;
    };
    {{KERNEL}}_tiles(indptr, frontier, fvals, nfront, ends, claim_entry);
}

// ends[f] = the lengths of rows frontier[0..f] summed (the balanced push's `ends`), by one
// block of at most 1024 threads: thread t sums a run of consecutive frontier rows, the block
// scans the runs' sums, then each thread writes the running sums of its run.
extern "C" __global__ void {{KERNEL}}_ends(const {{PTR_T}}* __restrict__ indptr, const int64_t* __restrict__ frontier,
                                          int64_t nfront, int64_t* __restrict__ ends) {
    __shared__ int64_t sums[1024];
    const int t = threadIdx.x;
    const int64_t run = (nfront + blockDim.x - 1) / blockDim.x;
    const int64_t lo = min(nfront, (int64_t)t * run), hi = min(nfront, lo + run);
    int64_t s = 0;
    for (int64_t f = lo; f < hi; ++f) {
        const int64_t k = frontier[f];
        s += (int64_t)indptr[k + 1] - (int64_t)indptr[k];
    }
    sums[t] = s;
    __syncthreads();
    for (int d = 1; d < (int)blockDim.x; d <<= 1) {  // inclusive scan of the runs' sums
        const int64_t before = t >= d ? sums[t - d] : 0;
        __syncthreads();
        sums[t] += before;
        __syncthreads();
    }
    int64_t acc = t > 0 ? sums[t - 1] : 0;
    for (int64_t f = lo; f < hi; ++f) {
        const int64_t k = frontier[f];
        acc += (int64_t)indptr[k + 1] - (int64_t)indptr[k];
        ends[f] = acc;
    }
}
