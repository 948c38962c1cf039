{{COMMON}}

// The bin of a row of `key` columns (or terms): 0 for none, b in 1..9 for at most 16 << (b - 1),
// beyond dense_from (<= 4096): 11 (a global hash table) for at most hash_most, else 10 (the
// dense accumulator).
__device__ __forceinline__ int sg_bin_of(int64_t key, int64_t dense_from, int64_t hash_most) {
    if (key <= 0) return 0;
    if (key > dense_from) return key <= hash_most ? 11 : 10;
    const int lg = key <= 1 ? 0 : 64 - __clzll((long long)(key - 1));  // ceil(log2(key))
    return min(max(lg - 3, 1), 10);
}

// Adds a block's per-bin row counts (block_counts, 16 words) to counts.  Every thread of the
// block must call it.
__device__ __forceinline__ void sg_flush_counts(unsigned* block_counts, unsigned long long* counts) {
    __syncthreads();
    if (threadIdx.x < 16 && block_counts[threadIdx.x] != 0u)
        atomicAdd(&counts[threadIdx.x], (unsigned long long)block_counts[threadIdx.x]);
}

// Bound on the columns of each row of C = A B and its bin, 2^llog lanes per row (about A's mean
// row length), a grid stride over the rows: the row's terms (the flops: the lengths of the rows
// of B that A's row names), at most the mask row's length (a mask) or the columns it leaves
// (a complemented mask), at most ncols; but a row of at most short_most terms is bounded by
// its terms, and a longer one by more than short_most (bound <= short_most: a short row).
// counts[b] (zeroed before) gets the rows of bin b (see sg_bin_of); a row without terms gets
// row_nnz 0 (no count kernel lists it).
extern "C" __global__ void {{KERNEL}}_flops(
        const sg_ptr_t* __restrict__ a_ptr, const sg_index_t* __restrict__ a_idx,
        const sg_ptr_t* __restrict__ b_ptr, const sg_ptr_t* __restrict__ m_ptr, int complement,
        int64_t nrows, int64_t ncols, int llog, int64_t dense_from, int64_t hash_most, int64_t short_most,
        int64_t* __restrict__ bound,
        int8_t* __restrict__ bins, unsigned long long* __restrict__ counts, int64_t* __restrict__ row_nnz) {
    __shared__ unsigned block_counts[16];
    if (threadIdx.x < 16) block_counts[threadIdx.x] = 0u;
    __syncthreads();
    const int lanes = 1 << llog, lane = threadIdx.x & (lanes - 1);
    const int64_t per_block = blockDim.x >> llog, stride = (int64_t)gridDim.x * per_block;
    for (int64_t first = (int64_t)blockIdx.x * per_block; first < nrows; first += stride) {
        const int64_t i = first + (threadIdx.x >> llog);
        int64_t f = 0;
        if (i < nrows) {
            const sg_ptr_t end = a_ptr[i + 1];
            for (sg_ptr_t p = a_ptr[i] + lane; p < end; p += lanes) {
                const int64_t k = (int64_t)a_idx[p];
                f += (int64_t)(b_ptr[k + 1] - b_ptr[k]);
            }
        }
        for (int d = lanes >> 1; d > 0; d >>= 1) f += __shfl_xor_sync(0xffffffffu, f, d);  // whole warps
        if (i < nrows && lane == 0) {
            int64_t capped = f;
            if (m_ptr != nullptr) {
                const int64_t held = (int64_t)(m_ptr[i + 1] - m_ptr[i]);
                capped = min(capped, complement ? ncols - held : held);
            }
            capped = min(capped, ncols);
            // A row of at most short_most terms keeps its count of terms (the short-row kernels
            // hold a term a lane); a longer one is bounded by more than short_most.
            if (capped > 0 && short_most > 0) capped = f <= short_most ? f : max(capped, short_most + 1);
            f = capped;
            bound[i] = f;
            const int b = sg_bin_of(f, dense_from, hash_most);
            bins[i] = (int8_t)b;
            atomicAdd(&block_counts[b], 1u);
            if (b == 0) row_nnz[i] = 0;
        }
    }
    sg_flush_counts(block_counts, counts);
}

// The numeric bin of each row (see sg_bin_of) from key = nnz where the row has entries and
// then at least min(bound / 4, 4096) (an exact size, given more lanes where it has many
// terms); rows of at most short_most terms go to bin 0 (the short-row kernel fills them from
// the symbolic pass's lists).  counts[b] (zeroed before) gets the rows of bin b.  A grid
// stride over the rows.
extern "C" __global__ void {{KERNEL}}_bins(const int64_t* __restrict__ bound, const int64_t* __restrict__ nnz,
                                           int64_t nrows, int64_t dense_from, int64_t hash_most,
                                           int64_t short_most, int8_t* __restrict__ bins,
                                           unsigned long long* __restrict__ counts) {
    __shared__ unsigned block_counts[16];
    if (threadIdx.x < 16) block_counts[threadIdx.x] = 0u;
    __syncthreads();
    for (int64_t i = gb_thread_id(); i < nrows; i += gb_thread_count()) {
        const int64_t key = nnz[i] == 0 || bound[i] <= short_most ? 0 : max(nnz[i], min(bound[i] >> 2, (int64_t)4096));
        const int b = sg_bin_of(key, dense_from, hash_most);
        bins[i] = (int8_t)b;
        atomicAdd(&block_counts[b], 1u);
    }
    sg_flush_counts(block_counts, counts);
}

// The row ids grouped by bin, a thread per row: bin b's rows go to order[start_b ..) where
// start_b is the sum of counts[0 .. b) (counts as the bins kernel left them, 16 words); cursor
// (16 zeroed words) hands out places, a block's rows of one bin taking them together (rows
// stay near their neighbours, as in a sort by bin, without the sort's passes).
extern "C" __global__ void {{KERNEL}}_group(const int8_t* __restrict__ bins, int64_t nrows,
                                            const unsigned long long* __restrict__ counts,
                                            unsigned long long* __restrict__ cursor, int64_t* __restrict__ order) {
    __shared__ unsigned local[16];
    __shared__ unsigned long long base[16];
    if (threadIdx.x < 16) local[threadIdx.x] = 0u;
    __syncthreads();
    const int64_t i = gb_thread_id();
    int b = -1;
    unsigned rank = 0u;
    if (i < nrows) {
        b = bins[i];
        rank = atomicAdd(&local[b], 1u);
    }
    __syncthreads();
    if (threadIdx.x < 16) {
        unsigned long long start = 0ull;
        for (int c = 0; c < (int)threadIdx.x; ++c) start += counts[c];
        const unsigned n = local[threadIdx.x];
        base[threadIdx.x] = n != 0u ? start + atomicAdd(&cursor[threadIdx.x], (unsigned long long)n) : 0ull;
    }
    __syncthreads();
    if (b >= 0) order[base[b] + rank] = i;
}

// Symbolic pass, shared-memory tables: the number of columns of each listed row, written to
// row_nnz.  A group of 2^glog lanes per row, blockDim.x / 2^glog rows per block, a table of
// 2^tlog keys per row in dynamic shared memory (then one counter per row).  rows null: row r
// is row r where its bin (bins[r]) is at most most_bin (a table fits it), else left alone.
extern "C" __global__ void __launch_bounds__(1024) {{KERNEL}}_count(
        const sg_ptr_t* __restrict__ a_ptr, const sg_index_t* __restrict__ a_idx,
        const sg_ptr_t* __restrict__ b_ptr, const sg_index_t* __restrict__ b_idx,
        const sg_ptr_t* __restrict__ m_ptr, const sg_index_t* __restrict__ m_idx, int complement,
        const int64_t* __restrict__ rows, int64_t nlisted, const int8_t* __restrict__ bins, int most_bin,
        int glog, int tlog, int wlog, int64_t* __restrict__ row_nnz) {
    extern __shared__ __align__(16) unsigned char sg_smem[];
    const int per_block = blockDim.x >> glog;
    const int slot = threadIdx.x >> glog, lane = threadIdx.x & ((1 << glog) - 1);
    sg_key_t* all_keys = (sg_key_t*)sg_smem;
    unsigned* counts = (unsigned*)(all_keys + ((size_t)per_block << tlog));
    for (int t = threadIdx.x; t < (per_block << tlog); t += blockDim.x) all_keys[t] = sg_empty;
    if (threadIdx.x < per_block) counts[threadIdx.x] = 0u;
    __syncthreads();
    sg_key_t* keys = all_keys + ((size_t)slot << tlog);
    const unsigned hmask = (1u << tlog) - 1u;
    const int64_t r = (int64_t)blockIdx.x * per_block + slot;
    const int64_t i = r >= nlisted ? -1 : rows != nullptr ? rows[r] : bins[r] <= most_bin ? r : -1;
    unsigned mine = 0u;
    if (i >= 0) {
        sg_walk(a_ptr, a_idx, b_ptr, b_idx, m_ptr, m_idx, complement, i, lane, glog, wlog,
                [&](sg_ptr_t, int64_t, sg_ptr_t, int64_t j) {
                    bool claimed;
                    sg_insert(keys, hmask, j, &claimed);
                    mine += claimed ? 1u : 0u;
                });
    }
    if (mine != 0u) atomicAdd(&counts[slot], mine);
    __syncthreads();
    if (i >= 0 && lane == 0) row_nnz[i] = (int64_t)counts[slot];
}

// Symbolic pass for the longest rows: a block per listed row counts its columns in a bitmap
// of nwords words, in `work` (nwords words per block) or, where `work` is null, in dynamic
// shared memory.  blockDim.x == 2^glog.
extern "C" __global__ void __launch_bounds__(1024) {{KERNEL}}_count_dense(
        const sg_ptr_t* __restrict__ a_ptr, const sg_index_t* __restrict__ a_idx,
        const sg_ptr_t* __restrict__ b_ptr, const sg_index_t* __restrict__ b_idx,
        const sg_ptr_t* __restrict__ m_ptr, const sg_index_t* __restrict__ m_idx, int complement,
        const int64_t* __restrict__ rows, int glog, int wlog, int64_t nwords, unsigned* work,
        int64_t* __restrict__ row_nnz) {
    extern __shared__ __align__(16) unsigned char sg_smem[];
    __shared__ unsigned long long total;
    unsigned* bits = work != nullptr ? work + (size_t)blockIdx.x * (size_t)nwords : (unsigned*)sg_smem;
    for (int64_t w = threadIdx.x; w < nwords; w += blockDim.x) bits[w] = 0u;
    if (threadIdx.x == 0) total = 0ull;
    __syncthreads();
    const int64_t i = rows[blockIdx.x];
    unsigned long long mine = 0ull;
    sg_walk(a_ptr, a_idx, b_ptr, b_idx, m_ptr, m_idx, complement, i, threadIdx.x, glog, wlog,
            [&](sg_ptr_t, int64_t, sg_ptr_t, int64_t j) { mine += sg_set_bit(bits, j) ? 1ull : 0ull; });
    if (mine != 0ull) atomicAdd(&total, mine);
    __syncthreads();
    if (threadIdx.x == 0) row_nnz[i] = (int64_t)total;
}

// Symbolic pass for long rows of wide products: a block per listed row counts its columns in
// a global open-addressing table of keys[toff[r] .. toff[r + 1]) (a power of two, at least
// twice the row's bound: memory bounded by the row's terms, not by ncols).  blockDim.x == 2^glog.
extern "C" __global__ void __launch_bounds__(1024) {{KERNEL}}_count_hash(
        const sg_ptr_t* __restrict__ a_ptr, const sg_index_t* __restrict__ a_idx,
        const sg_ptr_t* __restrict__ b_ptr, const sg_index_t* __restrict__ b_idx,
        const sg_ptr_t* __restrict__ m_ptr, const sg_index_t* __restrict__ m_idx, int complement,
        const int64_t* __restrict__ rows, int glog, int wlog, const int64_t* __restrict__ toff,
        sg_key_t* work, int64_t* __restrict__ row_nnz) {
    __shared__ unsigned long long total;
    sg_key_t* keys = work + toff[blockIdx.x];
    const int64_t size = toff[blockIdx.x + 1] - toff[blockIdx.x];
    for (int64_t t = threadIdx.x; t < size; t += blockDim.x) keys[t] = sg_empty;
    if (threadIdx.x == 0) total = 0ull;
    __syncthreads();
    const int64_t i = rows[blockIdx.x];
    const unsigned hmask = (unsigned)(size - 1);
    unsigned long long mine = 0ull;
    sg_walk(a_ptr, a_idx, b_ptr, b_idx, m_ptr, m_idx, complement, i, threadIdx.x, glog, wlog,
            [&](sg_ptr_t, int64_t, sg_ptr_t, int64_t j) {
                bool claimed;
                sg_insert(keys, hmask, j, &claimed);
                mine += claimed ? 1ull : 0ull;
            });
    if (mine != 0ull) atomicAdd(&total, mine);
    __syncthreads();
    if (threadIdx.x == 0) row_nnz[i] = (int64_t)total;
}

// Symbolic pass for short rows (at most 2^glog terms, glog 4 or 5): a group of 2^glog lanes per
// row holds the row's terms that the mask allows in registers, one a lane, sorts their columns
// across the group and counts the distinct ones; no shared memory, no atomics.  Rows as sg_short_row
// lists them.  Blocks of 256 threads.
extern "C" __global__ void __launch_bounds__(256) {{KERNEL}}_count_short(
        const sg_ptr_t* __restrict__ a_ptr, const sg_index_t* __restrict__ a_idx,
        const sg_ptr_t* __restrict__ b_ptr, const sg_index_t* __restrict__ b_idx,
        const sg_ptr_t* __restrict__ m_ptr, const sg_index_t* __restrict__ m_idx, int complement,
        const int64_t* __restrict__ rows, int64_t nlisted, const int8_t* __restrict__ bins, int want, int glog,
        int64_t* __restrict__ row_nnz) {
    const int lane = threadIdx.x & ((1 << glog) - 1);
    const int64_t r = (((int64_t)blockIdx.x * blockDim.x) + threadIdx.x) >> glog;
    const int64_t i = sg_short_row(rows, nlisted, bins, want, r);
    sg_ptr_t pa, pb;
    int64_t k, j;
    sg_key_t key = sg_empty;
    if (sg_short_term(a_ptr, a_idx, b_ptr, b_idx, m_ptr, m_idx, complement, i, lane, glog, &pa, &k, &pb, &j))
        key = (sg_key_t)j;
    unsigned none = 0u;
    sg_short_sort<false>(&key, &none, lane, glog);
    int rank, count;
    sg_short_distinct(key, lane, glog, &rank, &count);
    if (i >= 0 && lane == 0) row_nnz[i] = (int64_t)count;
}
