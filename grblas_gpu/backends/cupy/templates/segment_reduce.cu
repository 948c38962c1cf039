// A group of `group` lanes (a power of two <= 32, chosen by the caller from the mean
// segment length) reduces one segment: strided partial results, then a shuffle tree.
// Returns the segment's result in lane 0 (the segment must not be empty).
template <typename M>
__device__ __forceinline__ typename M::T gb_reduce_range(const typename M::T* __restrict__ values, int64_t start,
                                                         int64_t end, int lane, int group) {
    if constexpr (M::is_any) return values[start];
    const unsigned mask = gb_group_mask(group);
    typename M::T acc = values[start];  // any value; replaced by the first real one below
    bool valid = false;
    for (int64_t base = start; base < end; base += group) {
        const int64_t p = base + lane;
        if (p < end) {
            const typename M::T v = values[p];
            acc = valid ? M::call(acc, v) : v;
            valid = true;
        }
        if (gb_group_done<M>(acc, valid, mask)) break;
    }
    return gb_group_reduce<M>(acc, valid, mask, group);
}

// out[s] = MONOID over values[offsets[s] : offsets[s+1]] for every segment s (none empty).
extern "C" __global__ void {{KERNEL}}(
        const {{T}}* __restrict__ values, const {{INDEX_T}}* __restrict__ offsets, int64_t nseg,
        {{T}}* __restrict__ out, int group) {
    typedef {{MONOID}} M;
    const int64_t tid = gb_thread_id();
    const int64_t s = tid / group;
    const int lane = (int)(tid & (group - 1));
    if (s >= nseg) return;  // whole groups leave together: groups never straddle this test
    const typename M::T acc = gb_reduce_range<M>(values, (int64_t)offsets[s], (int64_t)offsets[s + 1], lane, group);
    if (lane == 0) out[s] = acc;
}

// out[b] = MONOID over the values[0:n] that block b's threads visit, striding over the whole
// grid: a whole array in two passes (the partials, then one block over them).  The launcher
// gives at most one block per blockDim.x values, so every block visits at least one.
extern "C" __global__ void {{KERNEL}}_strided(const {{T}}* __restrict__ values, int64_t n, {{T}}* __restrict__ out) {
    typedef {{MONOID}} M;
    typename M::T acc = values[0];  // any value; replaced by the first real one below
    bool valid = false;
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) {
        const typename M::T v = values[k];
        acc = valid ? M::call(acc, v) : v;
        valid = true;
    }
    acc = gb_block_reduce<M>(acc, valid);
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}
