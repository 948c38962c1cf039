// z[k] = OP(x[k])
extern "C" __global__ void {{KERNEL}}(
        const {{X}}* __restrict__ x, {{Z}}* __restrict__ z, int64_t n) {
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) {
        z[k] = {{OP}}::call(x[k]);
    }
}
