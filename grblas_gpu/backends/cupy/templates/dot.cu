// out[0] = MONOID over the products MULT(x[k], y[k]) (positions (0, k, k, 0)) of k in [0, n),
// in one launch, with no array of products made: each block reduces the k it visits,
// striding over the whole grid four strides at a time (four pairs of loads in flight per
// thread), into partial[blockIdx.x]; the block that finishes last reduces the partials in
// block order (the same result whichever block that is) and sets the finished-block count
// state[1] back to zero for the next launch.  The launcher gives at most one block per
// blockDim.x elements, so every block visits at least one.
extern "C" __global__ void {{KERNEL}}(const {{X}}* __restrict__ x, const {{Y}}* __restrict__ y, int64_t n,
                                     {{T}}* partial, {{T}}* __restrict__ out, unsigned long long* state) {
    typedef {{MONOID}} M;
    typedef typename M::T T;
    auto product = [&](int64_t k) -> T { return {{PRODUCT}}; };
    const int64_t stride = gb_thread_count();
    T acc = M::identity();  // any value; replaced by the first real one below
    bool valid = false;
    int64_t k = gb_thread_id();
    for (; k + 3 * stride < n; k += 4 * stride) {
        const T a = product(k), b = product(k + stride), c = product(k + 2 * stride), d = product(k + 3 * stride);
        const T v = M::call(M::call(a, b), M::call(c, d));
        acc = valid ? M::call(acc, v) : v;
        valid = true;
    }
    for (; k < n; k += stride) {
        const T v = product(k);
        acc = valid ? M::call(acc, v) : v;
        valid = true;
    }
    acc = gb_block_reduce<M>(acc, valid);
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = acc;
        __threadfence();  // this block's partial is in before its finish is counted
        last = atomicAdd(&state[1], 1ull) == (unsigned long long)gridDim.x - 1ull;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    acc = M::identity();
    valid = false;
    for (int64_t b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
        const T v = *(volatile T*)&partial[b];  // written by other blocks: not through this SM's cache
        acc = valid ? M::call(acc, v) : v;
        valid = true;
    }
    acc = gb_block_reduce<M>(acc, valid);
    if (threadIdx.x == 0) {
        out[0] = acc;
        state[1] = 0ull;
    }
}
