// u' A from A's own rows, without its transpose: every stored A[k, r] whose row k has a value
// in x (x_present[k], or every row where x_present is null) combines its term into out[r] with
// the monoid, atomically; present[r] records that a term arrived.  out must hold the monoid's
// identity and present false beforehand.  Where `mask` is given, only the positions r with
// mask[r] != complement receive terms.  The entries are shared evenly, whatever the rows'
// lengths: each warp takes one contiguous range of them (a multiple of 32), lane l entries
// l, l + 32, ... of it, and finds its first entry's row by one binary search of the row
// pointers, then steps along the rows (so a hub row is spread over many warps).
// Positions given to MULT: {{POSITIONS_DOC}}, with r the output (column) index.
template <typename M>
__device__ __forceinline__ void {{KERNEL}}_combine(typename M::T* addr, typename M::T v) {
    {{COMBINE}};
}

extern "C" __global__ void {{KERNEL}}(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{A}}* __restrict__ values, const {{XV}}* __restrict__ x, const bool* __restrict__ x_present,
        int64_t nrows, int64_t nnz, const bool* __restrict__ mask, int complement,
        {{T}}* __restrict__ out, bool* __restrict__ present) {
    typedef {{MONOID}} M;
    const int64_t warps = gb_thread_count() >> 5;
    const int64_t per = (((nnz + warps - 1) / warps) + 31) & ~(int64_t)31;  // entries of a warp
    const int64_t first = (gb_thread_id() >> 5) * per;
    const int64_t end = min(nnz, first + per);
    int64_t e = first + (threadIdx.x & 31);
    if (e >= end) return;
    int64_t lo = 0, hi = nrows - 1;  // the row of entry e: the last k with indptr[k] <= e
    while (lo < hi) {
        const int64_t mid = (lo + hi + 1) >> 1;
        if ((int64_t)indptr[mid] <= e) lo = mid; else hi = mid - 1;
    }
    int64_t k = lo;
    int64_t row_end = (int64_t)indptr[k + 1];
    for (; e < end; e += 32) {
        while (row_end <= e) row_end = (int64_t)indptr[++k + 1];  // later entries lie in later rows
        if (x_present != nullptr && !x_present[k]) continue;
        const int64_t r = (int64_t)indices[e];
        if (mask != nullptr && mask[r] == (bool)complement) continue;
        const {{XV}} xk = {{READS_X}} ? x[k] : ({{XV}})0;
        const {{A}} a = {{READS_A}} ? values[e] : ({{A}})0;  // values may be null when unread
        {{KERNEL}}_combine<M>(&out[r], {{PRODUCT}});
        present[r] = true;
    }
}
