// The nonzero bytes of a 16-byte word.
__device__ __forceinline__ unsigned gb_nonzero_bytes(uint4 w) {
    return (__popc(__vcmpne4(w.x, 0u)) + __popc(__vcmpne4(w.y, 0u)) + __popc(__vcmpne4(w.z, 0u)) +
            __popc(__vcmpne4(w.w, 0u))) >> 3;
}

// flags[0:n] as 16-byte words: `head` flags before the first 16-byte boundary, `words` whole
// words from there (`packed`), and the flags from `tail` on after the last of them.
struct gb_flag_words {
    const unsigned char* bytes;
    const uint4* packed;
    int64_t head, words, tail;
};

__device__ __forceinline__ gb_flag_words gb_flag_layout(const bool* flags, int64_t n) {
    gb_flag_words f;
    f.bytes = (const unsigned char*)flags;
    const int64_t misaligned = (int64_t)((unsigned long long)f.bytes & 15ull);
    f.head = misaligned == 0 ? 0 : (n < 16 - misaligned ? n : 16 - misaligned);
    f.words = (n - f.head) >> 4;
    f.tail = f.head + (f.words << 4);
    f.packed = (const uint4*)(f.bytes + f.head);
    return f;
}

// *out = the number of true flags in flags[0:n].  Flags are read 16 at a time from the first
// 16-byte boundary on; the few before it and after the last whole word are read one by one.
// One atomic add per block: a grid bounded by the launcher keeps those few (one per warp of a
// grid covering n serialised on the counter for ~0.1 ms at 4 M).
extern "C" __global__ void {{KERNEL}}(const bool* __restrict__ flags, int64_t n,
                                     unsigned long long* __restrict__ state, unsigned long long* out) {
    const int64_t tid = gb_thread_id(), stride = gb_thread_count();
    const gb_flag_words f = gb_flag_layout(flags, n);
    unsigned long long mine = 0ull;
    for (int64_t k = tid; k < f.words; k += stride) mine += gb_nonzero_bytes(f.packed[k]);
    if (tid < f.head) mine += f.bytes[tid] != 0;
    if (tid < n - f.tail) mine += f.bytes[f.tail + tid] != 0;
    gb_count_finish(mine, state, out);
}

// *out = the sum of values[k] over the k with flags[k] (flags non-null, k < n), or over the
// k in rows[0:n] (rows non-null); values are non-negative.  Flags are read 16 at a time as in
// the count above (a byte a thread took 18-35 us at 4 M, against 2.7 for the count), and
// values only where a flag is set.  One atomic add per block.
extern "C" __global__ void {{KERNEL}}_sum(const int64_t* __restrict__ values, const bool* __restrict__ flags,
                                         const int64_t* __restrict__ rows, int64_t n,
                                         unsigned long long* __restrict__ state, unsigned long long* out) {
    unsigned long long mine = 0ull;
    const int64_t tid = gb_thread_id(), stride = gb_thread_count();
    if (rows != 0) {
        for (int64_t i = tid; i < n; i += stride) mine += (unsigned long long)values[rows[i]];
    } else {
        const gb_flag_words f = gb_flag_layout(flags, n);
        for (int64_t k = tid; k < f.words; k += stride) {
            const uint4 w = f.packed[k];
            if ((w.x | w.y | w.z | w.w) == 0u) continue;
            const unsigned parts[4] = {w.x, w.y, w.z, w.w};
            const int64_t base = f.head + (k << 4);
#pragma unroll
            for (int j = 0; j < 16; ++j) {
                if ((parts[j >> 2] >> ((j & 3) << 3)) & 0xffu) mine += (unsigned long long)values[base + j];
            }
        }
        if (tid < f.head && f.bytes[tid]) mine += (unsigned long long)values[tid];
        if (tid < n - f.tail && f.bytes[f.tail + tid]) mine += (unsigned long long)values[f.tail + tid];
    }
    gb_count_finish(mine, state, out);
}
