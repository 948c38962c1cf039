// Pull SpMV over CSR rows, vector-CSR schedule: a group of `group` lanes (a power of
// two <= 32, chosen by the caller from the mean row length) per row.
//   out[r] = ADD_k MULT(A[r,k], x[k])  (or MULT(x[k], A[r,k]) when vector first)
// over the k with x_present[k] (all k when x_present is null), for rows with
// row_mask[r] != mask_complement (all rows when row_mask is null).  present[r] says
// whether any term existed (not written when present is null); out[r] is 0 where not.
// A group stops early once its row reaches the monoid's terminal value (any value for
// an ANY monoid).
// Rows with more than `long_row` entries (when long_row > 0) are left to
// {{KERNEL}}_long, a block per row, so that one power-law row does not hold up a lane
// group.  With `rows` non-null the kernel computes rows[0..nrows) only (one length class
// of a binned matrix).
// With `c` non-null (a claiming pull), rows where c_bits[r] is set are skipped (the mask
// ~C.S, in place of row_mask, which is then null) and each computed row's result is also
// written into c, c_bits[r] set (a row is read and written by its own group only):
// C(~C.S) << A x in the pass that computes it, with out and present the entries it added.
// Positions given to MULT: {{POSITIONS_DOC}}.
// The values are stored as {{AV}} and read as {{A}}: a_load converts each as it is loaded.
// Fold entry p of row r into (acc, valid): the product of A[r, k] and x[k], when x[k] is present.
__device__ __forceinline__ void {{KERNEL}}_term(
        const {{INDEX_T}}* __restrict__ indices, const {{AV}}* __restrict__ values,
        const {{XV}}* __restrict__ x, const bool* __restrict__ x_present, int64_t p, int64_t r,
        typename {{MONOID}}::T& acc, bool& valid) {
    typedef {{MONOID}} M;
    const int64_t k = (int64_t)indices[p];
    if (x_present == 0 || x_present[k]) {
        const {{A}} a = {{READS_A}} ? a_load::call(values[p]) : ({{A}})0;  // values may be null when unread
        const {{XV}} xk = {{READS_X}} ? x[k] : ({{XV}})0;
        const typename M::T v = {{PRODUCT}};
        acc = valid ? M::call(acc, v) : v;
        valid = true;
    }
}

// Whether row r is left out: where c_bits (a claiming pull) holds an entry, else where row_mask
// (when given) equals mask_complement.
__device__ __forceinline__ bool gb_vector_skips(const bool* row_mask, int mask_complement, const bool* c_bits,
                                                int64_t r) {
    if (c_bits != 0) return c_bits[r];
    return row_mask != 0 && row_mask[r] == (mask_complement != 0);
}

// Write row r's result (acc where valid): into out and present, and where c is non-null
// (a claiming pull) into c too, with c_bits[r] set.
template <typename M>
__device__ __forceinline__ void gb_vector_put(typename M::T* out, bool* present, typename M::T* c, bool* c_bits,
                                              int64_t r, typename M::T acc, bool valid) {
    out[r] = valid ? acc : (typename M::T)0;
    if (present != 0) present[r] = valid;
    if (c != 0 && valid) {
        c[r] = acc;
        c_bits[r] = true;
    }
}

// Row r by the group of `group` lanes this thread is lane `lane` of.
__device__ __forceinline__ void {{KERNEL}}_row(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{AV}}* __restrict__ values, const {{XV}}* __restrict__ x,
        const bool* __restrict__ x_present, const bool* __restrict__ row_mask, int mask_complement,
        {{T}}* __restrict__ out, bool* __restrict__ present, {{T}}* __restrict__ c, bool* __restrict__ c_bits,
        int64_t r, int lane, int group) {
    typedef {{MONOID}} M;
    if (gb_vector_skips(row_mask, mask_complement, c_bits, r)) {
        if (lane == 0) {
            out[r] = (typename M::T)0;
            if (present != 0) present[r] = false;
        }
        return;
    }
    const unsigned mask = gb_group_mask(group);
    typename M::T acc = (typename M::T)0;
    bool valid = false;
    const int64_t end = (int64_t)indptr[r + 1];
    for (int64_t base = (int64_t)indptr[r]; base < end; base += group) {
        const int64_t p = base + lane;
        if (p < end) {{KERNEL}}_term(indices, values, x, x_present, p, r, acc, valid);
        if (gb_group_done<M>(acc, valid, mask)) break;
    }
    acc = gb_group_reduce<M>(acc, valid, mask, group);
    if (lane == 0) gb_vector_put<M>(out, present, c, c_bits, r, acc, valid);
}

extern "C" __global__ void {{KERNEL}}(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{AV}}* __restrict__ values, const {{XV}}* __restrict__ x,
        const bool* __restrict__ x_present, const bool* __restrict__ row_mask, int mask_complement,
        const int64_t* __restrict__ rows, int64_t nrows,
        {{T}}* __restrict__ out, bool* __restrict__ present, {{T}}* __restrict__ c, bool* __restrict__ c_bits,
        int64_t long_row, int group) {
    const int64_t tid = gb_thread_id();
    const int64_t item = tid / group;
    if (item >= nrows) return;  // whole groups leave together
    const int64_t r = rows != 0 ? rows[item] : item;
    if (long_row > 0 && (int64_t)indptr[r + 1] - (int64_t)indptr[r] > long_row) return;
    {{KERNEL}}_row(indptr, indices, values, x, x_present, row_mask, mask_complement, out, present, c, c_bits, r,
                   (int)(tid & (group - 1)), group);
}

// Every length class of a binned matrix in one launch: class k takes the blocks from
// table[4k] on, and its table[4k + 2] rows from rows[table[4k + 1]], with table[4k + 3]
// lanes a row (the blocks of each class start at a block boundary, so lane groups line up
// as in the kernel above).
extern "C" __global__ void {{KERNEL}}_binned(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{AV}}* __restrict__ values, const {{XV}}* __restrict__ x,
        const bool* __restrict__ x_present, const bool* __restrict__ row_mask, int mask_complement,
        const int64_t* __restrict__ rows, const int64_t* __restrict__ table, int nclasses,
        {{T}}* __restrict__ out, bool* __restrict__ present, {{T}}* __restrict__ c, bool* __restrict__ c_bits) {
    int k = 0;
    while (k + 1 < nclasses && (int64_t)blockIdx.x >= table[4 * (k + 1)]) ++k;
    const int64_t* mine = table + 4 * k;  // first block, first row, rows, lanes a row
    const int group = (int)mine[3];
    const int64_t tid = ((int64_t)blockIdx.x - mine[0]) * blockDim.x + threadIdx.x;
    const int64_t item = tid / group;
    if (item >= mine[2]) return;  // whole groups leave together
    {{KERNEL}}_row(indptr, indices, values, x, x_present, row_mask, mask_complement, out, present, c, c_bits,
                   rows[mine[1] + item], (int)(tid & (group - 1)), group);
}

// The long rows listed in `rows`: one block of 256 threads per row, a strided partial
// product per thread, then the block's reduction (gb_block_reduce).
extern "C" __global__ void {{KERNEL}}_long(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{AV}}* __restrict__ values, const {{XV}}* __restrict__ x,
        const bool* __restrict__ x_present, const bool* __restrict__ row_mask, int mask_complement,
        const int64_t* __restrict__ rows, {{T}}* __restrict__ out, bool* __restrict__ present,
        {{T}}* __restrict__ c, bool* __restrict__ c_bits) {
    typedef {{MONOID}} M;
    const int64_t r = rows[blockIdx.x];
    if (gb_vector_skips(row_mask, mask_complement, c_bits, r)) {
        if (threadIdx.x == 0) {
            out[r] = (typename M::T)0;
            if (present != 0) present[r] = false;
        }
        return;
    }
    typename M::T acc = (typename M::T)0;
    bool valid = false;
    const int64_t end = (int64_t)indptr[r + 1];
    for (int64_t base = (int64_t)indptr[r]; base < end; base += blockDim.x) {
        const int64_t p = base + threadIdx.x;
        if (p < end) {{KERNEL}}_term(indices, values, x, x_present, p, r, acc, valid);
        if constexpr (M::is_any || M::has_terminal) {
            if (__syncthreads_or(valid && (M::is_any || acc == M::terminal()))) break;
        }
    }
    acc = gb_block_reduce<M>(acc, valid);
    if (threadIdx.x == 0) gb_vector_put<M>(out, present, c, c_bits, r, acc, valid);
}
