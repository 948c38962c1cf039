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
