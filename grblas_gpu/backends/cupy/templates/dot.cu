// out[b] = MONOID over the products MULT(x[k], y[k]) (positions (0, k, k, 0)) of the k in
// [0, n) that block b's threads visit, striding over the whole grid: the first pass of an
// inner product of two full vectors, with no array of products made.  Four strides at a time,
// so each thread has four pairs of loads in flight.  The launcher gives at most one block
// per blockDim.x elements, so every block visits at least one.
extern "C" __global__ void {{KERNEL}}(const {{X}}* __restrict__ x, const {{Y}}* __restrict__ y, int64_t n,
                                     {{T}}* __restrict__ out) {
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
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}
