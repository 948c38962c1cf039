// u' A from A's own rows, without its transpose: every stored A[k, r] whose row k has a value
// in x (x_present[k], or every row where x_present is null) combines its term into out[r] with
// the monoid, atomically; present[r] records that a term arrived.  out must hold the monoid's
// identity and present false beforehand.  Where `mask` is given, only the positions r with
// mask[r] != complement receive terms.  The entries are shared evenly, whatever the rows'
// lengths: a warp takes tiles of 32 * GB_COLUMN_ITEMS consecutive entries (a grid stride),
// lane l entries l, l + 32, ... of its tile, and finds its first entry's row by a binary
// search of the row pointers (so a hub row is spread over many warps).
// Positions given to MULT: {{POSITIONS_DOC}}, with r the output (column) index.
// The values are stored as {{AV}} and read as {{A}}: a_load converts each as it is loaded.
#define GB_COLUMN_ITEMS {{ITEMS}}

template <typename M>
__device__ __forceinline__ void {{KERNEL}}_combine(typename M::T* addr, typename M::T v) {
    {{COMBINE}};
}

extern "C" __global__ void {{KERNEL}}(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{AV}}* __restrict__ values, const {{XV}}* __restrict__ x, const bool* __restrict__ x_present,
        int64_t nrows, int64_t nnz, const bool* __restrict__ mask, int complement,
        {{T}}* __restrict__ out, bool* __restrict__ present) {
    typedef {{MONOID}} M;
    const int64_t tile_size = 32 * GB_COLUMN_ITEMS;
    const int64_t stride = (gb_thread_count() >> 5) * tile_size;
    const int lane = threadIdx.x & 31;
    for (int64_t tile = (gb_thread_id() >> 5) * tile_size; tile < nnz; tile += stride) {
        int64_t e = tile + lane;
        if (e >= nnz) break;
        int64_t lo = 0, hi = nrows - 1;  // the row of entry e: the last k with indptr[k] <= e
        while (lo < hi) {
            const int64_t mid = (lo + hi + 1) >> 1;
            if ((int64_t)indptr[mid] <= e) lo = mid; else hi = mid - 1;
        }
        int64_t k = lo;
        for (int s = 0; s < GB_COLUMN_ITEMS && e < nnz; ++s, e += 32) {
            while ((int64_t)indptr[k + 1] <= e) ++k;  // later entries of this lane lie in later rows
            if (x_present != nullptr && !x_present[k]) continue;
            const int64_t r = (int64_t)indices[e];
            if (mask != nullptr && mask[r] == (bool)complement) continue;
            const {{XV}} xk = {{READS_X}} ? x[k] : ({{XV}})0;
            const {{A}} a = {{READS_A}} ? a_load::call(values[e]) : ({{A}})0;  // values may be null when unread
            {{KERNEL}}_combine<M>(&out[r], {{PRODUCT}});
            if (!present[r]) present[r] = true;  // (read first: a column's later terms write nothing)
        }
    }
}
