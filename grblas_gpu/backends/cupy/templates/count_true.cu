// The nonzero bytes of a 16-byte word.
__device__ __forceinline__ unsigned gb_nonzero_bytes(uint4 w) {
    return (__popc(__vcmpne4(w.x, 0u)) + __popc(__vcmpne4(w.y, 0u)) + __popc(__vcmpne4(w.z, 0u)) +
            __popc(__vcmpne4(w.w, 0u))) >> 3;
}

// *out = the number of true flags in flags[0:n].  Flags are read 16 at a time from the first
// 16-byte boundary on; the few before it and after the last whole word are read one by one.
// One atomic add per block: a grid bounded by the launcher keeps those few (one per warp of a
// grid covering n serialised on the counter for ~0.1 ms at 4 M).
extern "C" __global__ void {{KERNEL}}(const bool* __restrict__ flags, int64_t n,
                                     unsigned long long* __restrict__ state, unsigned long long* out) {
    const unsigned char* bytes = (const unsigned char*)flags;
    const int64_t tid = gb_thread_id(), stride = gb_thread_count();
    const int64_t misaligned = (int64_t)((unsigned long long)bytes & 15ull);
    const int64_t head = misaligned == 0 ? 0 : (n < 16 - misaligned ? n : 16 - misaligned);
    const int64_t words = (n - head) >> 4, tail = head + (words << 4);
    const uint4* packed = (const uint4*)(bytes + head);
    unsigned long long mine = 0ull;
    for (int64_t k = tid; k < words; k += stride) mine += gb_nonzero_bytes(packed[k]);
    if (tid < head) mine += bytes[tid] != 0;
    if (tid < n - tail) mine += bytes[tail + tid] != 0;
    gb_count_finish(mine, state, out);
}

// *out = the sum of values[k] over the k with flags[k] (flags non-null, k < n), or over the
// k in rows[0:n] (rows non-null); values are non-negative.  One atomic add per block.
extern "C" __global__ void {{KERNEL}}_sum(const int64_t* __restrict__ values, const bool* __restrict__ flags,
                                         const int64_t* __restrict__ rows, int64_t n,
                                         unsigned long long* __restrict__ state, unsigned long long* out) {
    unsigned long long mine = 0ull;
    for (int64_t i = gb_thread_id(); i < n; i += gb_thread_count()) {
        if (rows != 0) mine += (unsigned long long)values[rows[i]];
        else if (flags[i]) mine += (unsigned long long)values[i];
    }
    gb_count_finish(mine, state, out);
}
