// *count += the number of true flags in flags[0:n]: each warp counts its flags with a ballot
// per 32, then one atomic add per warp (count must start at 0).
extern "C" __global__ void {{KERNEL}}(const bool* __restrict__ flags, int64_t n,
                                     unsigned long long* __restrict__ count) {
    unsigned long long mine = 0;
    const int64_t first = (gb_thread_id() >> 5) << 5, stride = gb_thread_count();
    const int lane = threadIdx.x & 31;
    for (int64_t base = first; base < n; base += stride) {
        const unsigned bits = __ballot_sync(0xffffffffu, base + lane < n && flags[base + lane]);
        mine += (unsigned)__popc(bits);
    }
    if (lane == 0 && mine != 0ull) atomicAdd(count, mine);
}

// *total += the sum of values[k] over the k with flags[k] (flags non-null, k < n), or over the
// k in rows[0:n] (rows non-null); values are non-negative.  Each warp sums its share by
// shuffles, then one atomic add per warp (total must start at 0).
extern "C" __global__ void {{KERNEL}}_sum(const int64_t* __restrict__ values, const bool* __restrict__ flags,
                                         const int64_t* __restrict__ rows, int64_t n,
                                         unsigned long long* __restrict__ total) {
    unsigned long long mine = 0;
    for (int64_t i = gb_thread_id(); i < n; i += gb_thread_count()) {
        if (rows != 0) mine += (unsigned long long)values[rows[i]];
        else if (flags[i]) mine += (unsigned long long)values[i];
    }
    for (int d = 16; d > 0; d >>= 1) mine += __shfl_down_sync(0xffffffffu, mine, d);
    if ((threadIdx.x & 31) == 0 && mine != 0ull) atomicAdd(total, mine);
}
