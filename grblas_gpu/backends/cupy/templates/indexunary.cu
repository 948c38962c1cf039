// z[k] = OP(x[k], i, j, thunk); i and j per element (array) or constant (null pointer and value).
extern "C" __global__ void {{KERNEL}}(
        const {{X}}* __restrict__ x, {{Z}}* __restrict__ z, int64_t n,
        const int64_t* __restrict__ i, int64_t i0, const int64_t* __restrict__ j, int64_t j0, {{T}} thunk) {
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) {
        z[k] = {{OP}}::call(x[k], gb_at(i, i0, k), gb_at(j, j0, k), thunk);
    }
}
