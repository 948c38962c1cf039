// out[s] = MONOID over values[offsets[s] : offsets[s+1]] for every segment s (none empty).
// A group of `group` lanes (a power of two <= 32, chosen by the caller from the mean
// segment length) reduces one segment: strided partial results, then a shuffle tree.
extern "C" __global__ void {{KERNEL}}(
        const {{T}}* __restrict__ values, const {{INDEX_T}}* __restrict__ offsets, int64_t nseg,
        {{T}}* __restrict__ out, int group) {
    typedef {{MONOID}} M;
    const int64_t tid = gb_thread_id();
    const int64_t s = tid / group;
    const int lane = (int)(tid & (group - 1));
    if (s >= nseg) return;  // whole groups leave together: groups never straddle this test
    const int64_t start = (int64_t)offsets[s];
    const int64_t end = (int64_t)offsets[s + 1];
    if constexpr (M::is_any) {
        if (lane == 0) out[s] = values[start];
        return;
    }
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
    acc = gb_group_reduce<M>(acc, valid, mask, group);
    if (lane == 0) out[s] = acc;
}
