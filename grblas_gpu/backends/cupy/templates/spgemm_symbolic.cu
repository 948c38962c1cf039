{{COMMON}}

// Bound on the columns of each row of C = A B (a warp per row): its terms (the flops: the
// lengths of the rows of B that A's row names), at most the mask row's length (a mask) or
// the columns it leaves (a complemented mask), at most ncols.
extern "C" __global__ void {{KERNEL}}_flops(
        const sg_ptr_t* __restrict__ a_ptr, const sg_index_t* __restrict__ a_idx,
        const sg_ptr_t* __restrict__ b_ptr, const sg_ptr_t* __restrict__ m_ptr, int complement,
        int64_t nrows, int64_t ncols, int64_t* __restrict__ bound) {
    const int64_t i = gb_thread_id() >> 5;
    const int lane = threadIdx.x & 31;
    if (i >= nrows) return;  // the whole warp
    int64_t f = 0;
    const sg_ptr_t end = a_ptr[i + 1];
    for (sg_ptr_t p = a_ptr[i] + lane; p < end; p += 32) {
        const int64_t k = (int64_t)a_idx[p];
        f += (int64_t)(b_ptr[k + 1] - b_ptr[k]);
    }
    for (int d = 16; d > 0; d >>= 1) f += __shfl_xor_sync(0xffffffffu, f, d);
    if (lane == 0) {
        if (m_ptr != nullptr) {
            const int64_t held = (int64_t)(m_ptr[i + 1] - m_ptr[i]);
            f = min(f, complement ? ncols - held : held);
        }
        bound[i] = min(f, ncols);
    }
}

// The bin of each row from its size (key): 0 for none, b in 1..9 for at most 16 << (b - 1),
// 10 beyond 4096; counts[b] (zeroed before) gets the rows of bin b.  With `nnz` non-null,
// key = nnz where the row has entries and then at least min(bound / 4, 4096): a numeric bin by
// exact size, given more lanes where it has many terms.
extern "C" __global__ void {{KERNEL}}_bins(const int64_t* __restrict__ bound, const int64_t* __restrict__ nnz,
                                           int64_t nrows, int8_t* __restrict__ bins,
                                           unsigned long long* __restrict__ counts) {
    __shared__ unsigned block_counts[16];
    if (threadIdx.x < 16) block_counts[threadIdx.x] = 0u;
    __syncthreads();
    for (int64_t i = gb_thread_id(); i < nrows; i += gb_thread_count()) {
        int64_t key = bound[i];
        if (nnz != nullptr) key = nnz[i] == 0 ? 0 : max(nnz[i], min(key >> 2, (int64_t)4096));
        int b = 0;
        if (key > 0) {
            const int lg = key <= 1 ? 0 : 64 - __clzll((long long)(key - 1));  // ceil(log2(key))
            b = min(max(lg - 3, 1), 10);
        }
        bins[i] = (int8_t)b;
        atomicAdd(&block_counts[b], 1u);
    }
    __syncthreads();
    if (threadIdx.x < 16 && block_counts[threadIdx.x] != 0u)
        atomicAdd(&counts[threadIdx.x], (unsigned long long)block_counts[threadIdx.x]);
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
// 2^tlog keys per row in dynamic shared memory (then one counter per row).
extern "C" __global__ void __launch_bounds__(1024) {{KERNEL}}_count(
        const sg_ptr_t* __restrict__ a_ptr, const sg_index_t* __restrict__ a_idx,
        const sg_ptr_t* __restrict__ b_ptr, const sg_index_t* __restrict__ b_idx,
        const sg_ptr_t* __restrict__ m_ptr, const sg_index_t* __restrict__ m_idx, int complement,
        const int64_t* __restrict__ rows, int64_t nlisted, int glog, int tlog, int wlog,
        int64_t* __restrict__ row_nnz) {
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
    unsigned mine = 0u;
    if (r < nlisted) {
        sg_walk(a_ptr, a_idx, b_ptr, b_idx, m_ptr, m_idx, complement, rows[r], lane, glog, wlog,
                [&](sg_ptr_t, int64_t, sg_ptr_t, int64_t j) {
                    bool claimed;
                    sg_insert(keys, hmask, j, &claimed);
                    mine += claimed ? 1u : 0u;
                });
    }
    if (mine != 0u) atomicAdd(&counts[slot], mine);
    __syncthreads();
    if (r < nlisted && lane == 0) row_nnz[rows[r]] = (int64_t)counts[slot];
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
