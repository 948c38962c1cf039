{{COMMON}}

// Numeric pass of C = A B over the semiring: MULT(A(i, k), B(k, j)) with positions (i, k, k, j),
// cast to the monoid's type T and combined into the accumulator slot of column j.  Slots hold
// S: T itself for 4- and 8-byte types, a 32-bit word for narrower ones (atomics need 4 bytes).
typedef {{A}} sg_a_t;
typedef {{B}} sg_b_t;
typedef {{T}} sg_t;
typedef {{S}} sg_s_t;
typedef {{OUT_INDEX_T}} sg_out_index_t;
typedef {{MONOID}} sg_monoid;
static constexpr bool sg_reads_a = {{READS_A}};
static constexpr bool sg_reads_b = {{READS_B}};

// What an accumulator slot starts from: the identity, or where that is not exact for every
// term, a value the monoid treats as one that is (NaN for fmin/fmax, which a sole NaN term
// keeps; -0.0 for a float sum, which a sole -0.0 term keeps).
__device__ __forceinline__ sg_s_t sg_init() { return (sg_s_t)({{INIT}}); }

__device__ __forceinline__ sg_t sg_term(const sg_a_t* __restrict__ a_val, const sg_b_t* __restrict__ b_val,
                                        int64_t i, sg_ptr_t pa, int64_t k, sg_ptr_t pb, int64_t j) {
    const sg_a_t a = sg_reads_a ? a_val[pa] : (sg_a_t)0;  // a value array may be null where unread
    const sg_b_t b = sg_reads_b ? b_val[pb] : (sg_b_t)0;
    return {{PRODUCT}};
}

// *slot = monoid(*slot, v) atomically: a compare-and-swap loop on the slot's bits (any
// monoid, user-defined ones included, NaN rules kept).
__device__ __forceinline__ void sg_cas_combine(sg_s_t* slot, sg_t v) {
    typedef typename gb_bits_of<sizeof(sg_s_t)>::U U;
    U* bits = reinterpret_cast<U*>(slot);
    U old = *(volatile U*)bits, assumed;
    do {
        assumed = old;
        const sg_s_t next = (sg_s_t)sg_monoid::call((sg_t)gb_from_bits<sg_s_t, U>(assumed), v);
        const U next_bits = gb_to_bits<sg_s_t, U>(next);
        if (next_bits == assumed) return;
        old = atomicCAS(bits, assumed, next_bits);
    } while (old != assumed);
}

// Adds term v to the slot: the hardware atomic where the monoid has one ({{COMBINE_NAME}}).
__device__ __forceinline__ void sg_combine(sg_s_t* slot, sg_t v) {
    {{COMBINE}};
}

// Takes the term of column j whose slot is `slot` (`claimed`: this call made the slot's
// column present).  ANY: the first term claims the column and no other combines.
__device__ __forceinline__ void sg_take(sg_s_t* slot, bool claimed, const sg_a_t* a_val, const sg_b_t* b_val,
                                        int64_t i, sg_ptr_t pa, int64_t k, sg_ptr_t pb, int64_t j) {
    if constexpr (sg_monoid::is_any) {
        if (claimed) *slot = (sg_s_t)sg_term(a_val, b_val, i, pa, k, pb, j);
    } else {
        sg_combine(slot, sg_term(a_val, b_val, i, pa, k, pb, j));
    }
}

// Sorts each group's table (2^tlog keys, their values beside) by key, bitonically, the group's
// 2^glog lanes sharing each stage; empty slots (all ones) go last.  Every thread of the block
// must call it (all groups of a block have tables of one size).
__device__ __forceinline__ void sg_bitonic(sg_key_t* keys, sg_s_t* vals, int tlog, int lane, int glog) {
    const int n = 1 << tlog, half = n >> 1, g = 1 << glog;
    for (int k = 2; k <= n; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int t = lane; t < half; t += g) {
                const int x = ((t & ~(j - 1)) << 1) | (t & (j - 1));  // t with a 0 bit inserted at j
                const int y = x | j;
                const sg_key_t kx = keys[x], ky = keys[y];
                if ((kx > ky) == ((x & k) == 0)) {
                    keys[x] = ky;
                    keys[y] = kx;
                    const sg_s_t vx = vals[x];
                    vals[x] = vals[y];
                    vals[y] = vx;
                }
            }
            __syncthreads();
        }
    }
}

// Tables of at most 2^SG_RANK_TLOG slots are written by rank instead of sorted.
#define SG_RANK_TLOG 6

// Writes a group's table (2^tlog keys, values beside) at base, each present key at its rank
// (the number of present keys below it): no barrier, where a bitonic sort takes one a stage.
// The group's lanes read the table from a slot-dependent start, so the groups of a warp read
// different banks.
__device__ __forceinline__ void sg_write_ranked(const sg_key_t* keys, const sg_s_t* vals, int tlog, int lane,
                                                int glog, int slot, int64_t base, sg_out_index_t* __restrict__ c_idx,
                                                sg_t* __restrict__ c_val) {
    const int n = 1 << tlog;
    for (int t = lane; t < n; t += (1 << glog)) {
        const sg_key_t key = keys[t];
        if (key == sg_empty) continue;
        int rank = 0;
        for (int u = 0; u < n; ++u) rank += keys[(u + slot) & (n - 1)] < key ? 1 : 0;  // empty: all ones
        c_idx[base + rank] = (sg_out_index_t)key;
        c_val[base + rank] = (sg_t)vals[t];
    }
}

// Numeric pass, shared-memory tables: the entries of each listed row, written sorted at
// c_ptr[i].  Groups and tables as in the symbolic count (a table of 2^tlog keys, then one of
// 2^tlog slots, per row); the table has at least twice as many slots as the row has entries.
extern "C" __global__ void __launch_bounds__(1024) {{KERNEL}}_fill(
        const sg_ptr_t* __restrict__ a_ptr, const sg_index_t* __restrict__ a_idx, const sg_a_t* __restrict__ a_val,
        const sg_ptr_t* __restrict__ b_ptr, const sg_index_t* __restrict__ b_idx, const sg_b_t* __restrict__ b_val,
        const sg_ptr_t* __restrict__ m_ptr, const sg_index_t* __restrict__ m_idx, int complement,
        const int64_t* __restrict__ rows, int64_t nlisted, int glog, int tlog, int wlog,
        const int64_t* __restrict__ c_ptr, sg_out_index_t* __restrict__ c_idx, sg_t* __restrict__ c_val) {
    extern __shared__ __align__(16) unsigned char sg_smem[];
    const int per_block = blockDim.x >> glog;
    const int slot = threadIdx.x >> glog, lane = threadIdx.x & ((1 << glog) - 1);
    const int all = per_block << tlog;
    sg_key_t* all_keys = (sg_key_t*)sg_smem;
    sg_s_t* all_vals = (sg_s_t*)(all_keys + all);  // 2^tlog >= 32 keys a row: 8-byte aligned
    for (int t = threadIdx.x; t < all; t += blockDim.x) {
        all_keys[t] = sg_empty;
        all_vals[t] = sg_init();
    }
    __syncthreads();
    sg_key_t* keys = all_keys + ((size_t)slot << tlog);
    sg_s_t* vals = all_vals + ((size_t)slot << tlog);
    const unsigned hmask = (1u << tlog) - 1u;
    const int64_t r = (int64_t)blockIdx.x * per_block + slot;
    const int64_t i = r < nlisted ? (rows != nullptr ? rows[r] : r) : 0;
    if (r < nlisted) {
        sg_walk(a_ptr, a_idx, b_ptr, b_idx, m_ptr, m_idx, complement, i, lane, glog, wlog,
                [&](sg_ptr_t pa, int64_t k, sg_ptr_t pb, int64_t j) {
                    bool claimed;
                    const unsigned h = sg_insert(keys, hmask, j, &claimed);
                    sg_take(vals + h, claimed, a_val, b_val, i, pa, k, pb, j);
                });
    }
    __syncthreads();
    if (tlog <= SG_RANK_TLOG) {  // small tables: each entry goes to its rank, no sort
        if (r < nlisted) sg_write_ranked(keys, vals, tlog, lane, glog, slot, c_ptr[i], c_idx, c_val);
        return;
    }
    sg_bitonic(keys, vals, tlog, lane, glog);
    if (r < nlisted) {
        const int64_t base = c_ptr[i], n = c_ptr[i + 1] - base;
        for (int64_t t = lane; t < n; t += (1 << glog)) {
            c_idx[base + t] = (sg_out_index_t)keys[t];
            c_val[base + t] = (sg_t)vals[t];
        }
    }
}

// Numeric pass for the longest rows: a block (2^glog threads) per listed row accumulates into
// a dense row and a bitmap of its columns, then writes the columns in order, so the row comes
// out sorted.  The dense row is in work_bits and work_vals (ncols slots, one of each per
// block), or where those are null in dynamic shared memory (the bitmap, then the slots from
// the next multiple of 8 bytes), `window` columns at a time: a pass over the row's terms per
// window, each taking the terms of its columns.
extern "C" __global__ void __launch_bounds__(1024) {{KERNEL}}_fill_dense(
        const sg_ptr_t* __restrict__ a_ptr, const sg_index_t* __restrict__ a_idx, const sg_a_t* __restrict__ a_val,
        const sg_ptr_t* __restrict__ b_ptr, const sg_index_t* __restrict__ b_idx, const sg_b_t* __restrict__ b_val,
        const sg_ptr_t* __restrict__ m_ptr, const sg_index_t* __restrict__ m_idx, int complement,
        const int64_t* __restrict__ rows, int glog, int wlog, int64_t ncols, int64_t window, unsigned* work_bits,
        sg_s_t* work_vals, const int64_t* __restrict__ c_ptr, sg_out_index_t* __restrict__ c_idx,
        sg_t* __restrict__ c_val) {
    extern __shared__ __align__(16) unsigned char sg_smem[];
    const int64_t win = work_bits != nullptr ? ncols : window;
    unsigned* bits = (unsigned*)sg_smem;
    sg_s_t* vals = (sg_s_t*)(sg_smem + ((((win + 31) >> 5) * 4 + 7) & ~(int64_t)7));
    if (work_bits != nullptr) {
        bits = work_bits + (size_t)blockIdx.x * (size_t)((ncols + 31) >> 5);
        vals = work_vals + (size_t)blockIdx.x * (size_t)ncols;
    }
    const int64_t i = rows[blockIdx.x];
    int64_t base = c_ptr[i];
    for (int64_t lo = 0; lo < ncols; lo += win) {
        const int64_t span = min(win, ncols - lo), nwords = (span + 31) >> 5;
        for (int64_t w = threadIdx.x; w < nwords; w += blockDim.x) bits[w] = 0u;
        if constexpr (!sg_monoid::is_any) {
            for (int64_t c = threadIdx.x; c < span; c += blockDim.x) vals[c] = sg_init();
        }
        __syncthreads();
        sg_walk(a_ptr, a_idx, b_ptr, b_idx, m_ptr, m_idx, complement, i, threadIdx.x, glog, wlog,
                [&](sg_ptr_t pa, int64_t k, sg_ptr_t pb, int64_t j) {
                    if (j < lo || j >= lo + span) return;
                    const bool claimed = sg_set_bit(bits, j - lo);
                    sg_take(vals + (j - lo), claimed, a_val, b_val, i, pa, k, pb, j);
                });
        __syncthreads();
        for (int64_t w0 = 0; w0 < nwords; w0 += blockDim.x) {
            const int64_t w = w0 + threadIdx.x;
            unsigned word = w < nwords ? bits[w] : 0u;
            unsigned total;
            int64_t at = base + (int64_t)sg_block_scan((unsigned)__popc(word), &total);
            while (word != 0u) {
                const int64_t c = (w << 5) + (__ffs(word) - 1);
                word &= word - 1u;
                c_idx[at] = (sg_out_index_t)(lo + c);
                c_val[at] = (sg_t)vals[c];
                ++at;
            }
            base += total;
        }
        __syncthreads();  // the window is read before the next one clears it
    }
}

// Numeric pass for long rows of wide products: a block per listed row accumulates into a
// global open-addressing table (keys and slots at toff[r] .. toff[r + 1], a power of two at
// least twice the row's entries), then writes its entries unordered at c_ptr[i] (the caller
// sorts these rows).  blockDim.x == 2^glog.
extern "C" __global__ void __launch_bounds__(1024) {{KERNEL}}_fill_hash(
        const sg_ptr_t* __restrict__ a_ptr, const sg_index_t* __restrict__ a_idx, const sg_a_t* __restrict__ a_val,
        const sg_ptr_t* __restrict__ b_ptr, const sg_index_t* __restrict__ b_idx, const sg_b_t* __restrict__ b_val,
        const sg_ptr_t* __restrict__ m_ptr, const sg_index_t* __restrict__ m_idx, int complement,
        const int64_t* __restrict__ rows, int glog, int wlog, const int64_t* __restrict__ toff, sg_key_t* work_keys,
        sg_s_t* work_vals, const int64_t* __restrict__ c_ptr, sg_out_index_t* __restrict__ c_idx,
        sg_t* __restrict__ c_val) {
    __shared__ unsigned long long placed;
    sg_key_t* keys = work_keys + toff[blockIdx.x];
    sg_s_t* vals = work_vals + toff[blockIdx.x];
    const int64_t size = toff[blockIdx.x + 1] - toff[blockIdx.x];
    for (int64_t t = threadIdx.x; t < size; t += blockDim.x) {
        keys[t] = sg_empty;
        vals[t] = sg_init();
    }
    if (threadIdx.x == 0) placed = 0ull;
    __syncthreads();
    const int64_t i = rows[blockIdx.x];
    const unsigned hmask = (unsigned)(size - 1);
    sg_walk(a_ptr, a_idx, b_ptr, b_idx, m_ptr, m_idx, complement, i, threadIdx.x, glog, wlog,
            [&](sg_ptr_t pa, int64_t k, sg_ptr_t pb, int64_t j) {
                bool claimed;
                const unsigned h = sg_insert(keys, hmask, j, &claimed);
                sg_take(vals + h, claimed, a_val, b_val, i, pa, k, pb, j);
            });
    __syncthreads();
    const int64_t base = c_ptr[i];
    for (int64_t t = threadIdx.x; t < size; t += blockDim.x) {
        const sg_key_t key = ((volatile sg_key_t*)keys)[t];
        if (key == sg_empty) continue;
        const int64_t at = base + (int64_t)atomicAdd(&placed, 1ull);
        c_idx[at] = (sg_out_index_t)key;
        c_val[at] = (sg_t)((volatile sg_s_t*)vals)[t];
    }
}

// Numeric pass for short rows (at most 2^glog terms, glog 4 or 5): a group of 2^glog lanes per
// row holds the row's terms that the mask allows in registers, one a lane, sorts them by column across
// the group (shuffles), combines each column's run with the monoid (a segmented scan, earlier
// terms first) and writes the run's last lane at its rank: the row comes out sorted, with no
// shared memory, atomics or identity.  Rows as sg_short_row lists them.  Blocks of 256 threads.
extern "C" __global__ void __launch_bounds__(256) {{KERNEL}}_fill_short(
        const sg_ptr_t* __restrict__ a_ptr, const sg_index_t* __restrict__ a_idx, const sg_a_t* __restrict__ a_val,
        const sg_ptr_t* __restrict__ b_ptr, const sg_index_t* __restrict__ b_idx, const sg_b_t* __restrict__ b_val,
        const sg_ptr_t* __restrict__ m_ptr, const sg_index_t* __restrict__ m_idx, int complement,
        const int64_t* __restrict__ rows, int64_t nlisted, const int8_t* __restrict__ bins, int want, int glog,
        const int64_t* __restrict__ c_ptr, sg_out_index_t* __restrict__ c_idx, sg_t* __restrict__ c_val) {
    typedef typename gb_bits_of<sizeof(sg_s_t)>::U U;
    const int g = 1 << glog;
    const int lane = threadIdx.x & (g - 1);
    const int64_t r = (((int64_t)blockIdx.x * blockDim.x) + threadIdx.x) >> glog;
    const int64_t i = sg_short_row(rows, nlisted, bins, want, r);
    sg_ptr_t pa, pb;
    int64_t k, j;
    sg_key_t key = sg_empty;
    U bits = (U)0;
    if (sg_short_term(a_ptr, a_idx, b_ptr, b_idx, m_ptr, m_idx, complement, i, lane, glog, &pa, &k, &pb, &j)) {
        key = (sg_key_t)j;
        bits = gb_to_bits<sg_s_t, U>((sg_s_t)sg_term(a_val, b_val, i, pa, k, pb, j));
    }
    sg_short_sort<true>(&key, &bits, lane, glog);
    if constexpr (!sg_monoid::is_any) {
        for (int d = 1; d < g; d <<= 1) {  // segmented inclusive scan: equal keys are adjacent
            const sg_key_t before = __shfl_up_sync(0xffffffffu, key, d, g);
            const U before_bits = __shfl_up_sync(0xffffffffu, bits, d, g);
            if (lane >= d && before == key && key != sg_empty) {
                const sg_t v = sg_monoid::call((sg_t)gb_from_bits<sg_s_t, U>(before_bits),
                                               (sg_t)gb_from_bits<sg_s_t, U>(bits));
                bits = gb_to_bits<sg_s_t, U>((sg_s_t)v);
            }
        }
    }
    int rank, count;
    if (sg_short_distinct(key, lane, glog, &rank, &count) && i >= 0) {
        const int64_t at = c_ptr[i] + rank;
        c_idx[at] = (sg_out_index_t)key;
        c_val[at] = (sg_t)gb_from_bits<sg_s_t, U>(bits);
    }
}
