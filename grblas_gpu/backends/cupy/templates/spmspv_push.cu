// Push SpMSpV: for every frontier entry (k, x[k]), every stored A[k, j] of row k adds its
// term into out[j] with the monoid, atomically; present[j] records that a term arrived.
// out must hold the monoid's identity and present false beforehand.  A group of `group`
// lanes (a power of two <= 32) walks one frontier row.
// Positions given to MULT: {{POSITIONS_DOC}}, with r the output index j.
extern "C" __global__ void {{KERNEL}}(
        const {{INDEX_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{A}}* __restrict__ values, const int64_t* __restrict__ frontier,
        const {{XV}}* __restrict__ fvals, int64_t nfront,
        {{T}}* __restrict__ out, bool* __restrict__ present, int group) {
    typedef {{MONOID}} M;
    const int64_t tid = gb_thread_id();
    const int64_t f = tid / group;
    const int lane = (int)(tid & (group - 1));
    if (f >= nfront) return;
    const int64_t k = frontier[f];
    const {{XV}} xk = {{READS_X}} ? fvals[f] : ({{XV}})0;
    const int64_t end = (int64_t)indptr[k + 1];
    for (int64_t p = (int64_t)indptr[k] + lane; p < end; p += group) {
        const int64_t r = (int64_t)indices[p];
        const {{A}} a = {{READS_A}} ? values[p] : ({{A}})0;  // values may be null when unread
        gb_atomic_combine<M>(&out[r], {{PRODUCT}});
        present[r] = true;
    }
}

// The same push from a frontier given as a bitmap over all n rows (no list of its entries
// needed): each warp takes 32 consecutive rows, finds those in the frontier with one ballot,
// and walks each of their rows with all 32 lanes.
extern "C" __global__ void {{KERNEL}}_bitmap(
        const {{INDEX_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{A}}* __restrict__ values, const bool* __restrict__ in_frontier,
        const {{XV}}* __restrict__ fvals, int64_t n, {{T}}* __restrict__ out, bool* __restrict__ present) {
    typedef {{MONOID}} M;
    const int64_t first = (gb_thread_id() >> 5) << 5;
    const int lane = threadIdx.x & 31;
    if (first >= n) return;  // whole warps leave together
    unsigned todo = __ballot_sync(0xffffffffu, first + lane < n && in_frontier[first + lane]);
    while (todo != 0u) {
        const int64_t k = first + (__ffs(todo) - 1);
        todo &= todo - 1u;
        const {{XV}} xk = {{READS_X}} ? fvals[k] : ({{XV}})0;
        const int64_t end = (int64_t)indptr[k + 1];
        for (int64_t p = (int64_t)indptr[k] + lane; p < end; p += 32) {
            const int64_t r = (int64_t)indices[p];
            const {{A}} a = {{READS_A}} ? values[p] : ({{A}})0;  // values may be null when unread
            gb_atomic_combine<M>(&out[r], {{PRODUCT}});
            present[r] = true;
        }
    }
}
