// CSR transpose by a counting sort: the transpose's own arrays and an ncols-sized cursor are
// all it allocates (no sorting permutation, no int64 copy of the entries' rows).
//   count:   counts[c + 1] += 1 for every entry of column c (counts zeroed; scanned after)
//   scatter: each entry's row goes to the next free slot of its column (slots taken by atomics,
//            so a column's rows come out in any order)
//   sort_short / sort_block: each column's rows sorted in place (a thread per short column, a
//            block per listed medium one; longer columns are sorted by the host one by one)
//   values:  each entry of the transpose reads its value from row r of the matrix, found by a
//            binary search for its column there (the rows are sorted and duplicate-free)
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

extern "C" __global__ void {{KERNEL}}_scatter(const {{PTR}}* __restrict__ ptr, int64_t nrows,
                                             const {{IDX}}* __restrict__ idx, int64_t nnz,
                                             {{TPTR}}* cursor, {{TIDX}}* __restrict__ rows) {
    const int64_t lane = threadIdx.x & 31, warps = gb_thread_count() >> 5;
    for (int64_t base = (gb_thread_id() >> 5) * (32 * GB_ITEMS); base < nnz; base += warps * (32 * GB_ITEMS)) {
        int64_t e = base + lane;
        if (e >= nnz) continue;
        int64_t r = gb_segment_of(ptr, 0, nrows, e);
        for (int i = 0; i < GB_ITEMS && e < nnz; ++i, e += 32) {
            while ((int64_t)ptr[r + 1] <= e) ++r;
            rows[(int64_t)gb_take_slot(gb_slot(cursor + idx[e]))] = ({{TIDX}})r;
        }
    }
}

// Columns of 2..{{SHORT}} rows, one thread each: an insertion sort in registers.
extern "C" __global__ void {{KERNEL}}_sort_short(const {{TPTR}}* __restrict__ tptr, int64_t ncols,
                                                {{TIDX}}* __restrict__ rows) {
    for (int64_t c = gb_thread_id(); c < ncols; c += gb_thread_count()) {
        const int64_t s = tptr[c], len = (int64_t)tptr[c + 1] - s;
        if (len < 2 || len > {{SHORT}}) continue;
        {{TIDX}} v[{{SHORT}}];
        for (int k = 0; k < len; ++k) {
            const {{TIDX}} x = rows[s + k];
            int j = k;
            while (j > 0 && v[j - 1] > x) { v[j] = v[j - 1]; --j; }
            v[j] = x;
        }
        for (int k = 0; k < len; ++k) rows[s + k] = v[k];
    }
}

// The listed columns (more than {{SHORT}}, at most {{BLOCK_KEYS}} rows), one block each: a
// bitonic sort in shared memory, padded to a power of two with the largest value.
extern "C" __global__ void {{KERNEL}}_sort_block(const {{TPTR}}* __restrict__ tptr, const int64_t* __restrict__ cols,
                                                int64_t ncols, {{TIDX}}* __restrict__ rows) {
    __shared__ {{TIDX}} keys[{{BLOCK_KEYS}}];
    for (int64_t b = blockIdx.x; b < ncols; b += gridDim.x) {
        const int64_t c = cols[b], s = tptr[c], len = (int64_t)tptr[c + 1] - s;
        int n2 = 1;
        while (n2 < len) n2 <<= 1;
        for (int i = threadIdx.x; i < n2; i += blockDim.x) keys[i] = i < len ? rows[s + i] : ({{TIDX}})({{TIDX_MAX}});
        __syncthreads();
        for (int k = 2; k <= n2; k <<= 1) {
            for (int j = k >> 1; j > 0; j >>= 1) {
                for (int i = threadIdx.x; i < n2; i += blockDim.x) {
                    const int ixj = i ^ j;
                    if (ixj > i) {
                        const {{TIDX}} a = keys[i], z = keys[ixj];
                        if ((a > z) == ((i & k) == 0)) { keys[i] = z; keys[ixj] = a; }
                    }
                }
                __syncthreads();
            }
        }
        for (int i = threadIdx.x; i < len; i += blockDim.x) rows[s + i] = keys[i];
        __syncthreads();
    }
}

extern "C" __global__ void {{KERNEL}}_values(const {{TPTR}}* __restrict__ tptr, int64_t ncols,
                                            const {{TIDX}}* __restrict__ rows, int64_t nnz,
                                            const {{PTR}}* __restrict__ ptr, const {{IDX}}* __restrict__ idx,
                                            const {{VAL}}* __restrict__ vals, {{VAL}}* __restrict__ out) {
    const int64_t lane = threadIdx.x & 31, warps = gb_thread_count() >> 5;
    for (int64_t base = (gb_thread_id() >> 5) * (32 * GB_ITEMS); base < nnz; base += warps * (32 * GB_ITEMS)) {
        int64_t p = base + lane;
        if (p >= nnz) continue;
        int64_t c = gb_segment_of(tptr, 0, ncols, p);
        for (int i = 0; i < GB_ITEMS && p < nnz; ++i, p += 32) {
            while ((int64_t)tptr[c + 1] <= p) ++c;
            const int64_t r = rows[p];
            int64_t lo = ptr[r], hi = (int64_t)ptr[r + 1] - 1;  // column c is in row r's entries
            while (lo < hi) {
                const int64_t mid = lo + ((hi - lo) >> 1);
                if ((int64_t)idx[mid] < c) lo = mid + 1; else hi = mid;
            }
            out[p] = vals[lo];
        }
    }
}

// Long columns, sorted a batch at a time by one sort of packed keys: entry p of the batch
// (the listed columns' entries one column after another, column k's from starts[k]) becomes
// (k << 32) | its row, so sorting the keys sorts each column's rows and keeps columns apart.
// Only rows below 2**32 are packed (the host sorts longer-indexed columns one by one).
extern "C" __global__ void {{KERNEL}}_pack(const {{TPTR}}* __restrict__ tptr, const int64_t* __restrict__ cols,
                                          const int64_t* __restrict__ starts, int64_t ncols, int64_t total,
                                          const {{TIDX}}* __restrict__ rows, unsigned long long* __restrict__ keys) {
    int64_t k = 0;
    for (int64_t p = gb_thread_id(); p < total; p += gb_thread_count()) {
        k = gb_segment_of(starts, k, ncols, p);
        const int64_t at = (int64_t)tptr[cols[k]] + (p - starts[k]);
        keys[p] = ((unsigned long long)k << 32) | (unsigned long long)(unsigned int)rows[at];
    }
}

extern "C" __global__ void {{KERNEL}}_unpack(const {{TPTR}}* __restrict__ tptr, const int64_t* __restrict__ cols,
                                            const int64_t* __restrict__ starts, int64_t ncols, int64_t total,
                                            const unsigned long long* __restrict__ keys, {{TIDX}}* __restrict__ rows) {
    int64_t k = 0;
    for (int64_t p = gb_thread_id(); p < total; p += gb_thread_count()) {
        k = gb_segment_of(starts, k, ncols, p);
        rows[(int64_t)tptr[cols[k]] + (p - starts[k])] = ({{TIDX}})(keys[p] & 0xffffffffull);
    }
}
