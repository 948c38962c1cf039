// One iteration of a frontier loop run on the device (see backends/cupy/capture.py): the
// statement  C(~C.S, changed=D) << D' A  (claim: an ANY monoid, the first term to reach an
// empty position of C stays) or  C(monoid, changed=D) << D' A  (relax: a full C, min or max).
// The frontier D is a queue of row ids whose values are C's (what the statement makes them),
// except at a run's first iteration, which reads rows and values from `first_rows`, `first`.
// The loop's state is device memory, so a captured graph of these kernels replays with no
// host work.  Kernel `j` of a graph (batches are multiples of 6) reads queue j % 2 and its
// length state[COUNT + j % 3], writes the other queue and the next length, and clears the
// length after that for kernel j + 1; each reads all it decides on at entry, written by the
// kernels before it, so every block of a kernel decides alike.  A kernel whose frontier is
// empty, or whose loop a kernel before it stopped (a frontier past the handover limits, or an
// empty one), does nothing: iterations after the end cost an empty launch.  `stamp` (relax only) marks the
// positions queued by an iteration (mark 1 + j % 2), each cleared as its row is taken.
// Positions given to MULT: {{POSITIONS_DOC}}, with r the output index.
#define GB_LOOP_STOP 0
#define GB_LOOP_FRESH 1
#define GB_LOOP_RAN 2
#define GB_LOOP_COUNT 3
#define GB_LOOP_HANDOVER 6

extern "C" __global__ void {{KERNEL}}_step(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{A}}* __restrict__ values, bool* __restrict__ c_bits, {{T}}* __restrict__ c,
        int* __restrict__ q0, int* __restrict__ q1, const int64_t* __restrict__ first_rows,
        const {{T}}* __restrict__ first, int* __restrict__ stamp, long long* __restrict__ state, int j) {
    typedef {{MONOID}} M;
    const long long cin = state[GB_LOOP_COUNT + j % 3];
    const bool fresh = j == 0 && state[GB_LOOP_FRESH] != 0;
    if (state[GB_LOOP_STOP] != 0 || cin == 0) {
        // The loop is over: the kernels after this one must not take up a length slot this
        // one left as it was (it would be an earlier, spent queue).
        if (cin == 0 && blockIdx.x == 0 && threadIdx.x == 0) state[GB_LOOP_STOP] = 1;
        return;
    }
    {
        const int* qin = (j & 1) ? q1 : q0;
        int* qout = (j & 1) ? q0 : q1;
        unsigned long long* cout = (unsigned long long*)&state[GB_LOOP_COUNT + (j + 1) % 3];
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            state[GB_LOOP_COUNT + (j + 2) % 3] = 0;
            state[GB_LOOP_RAN] = j + 1;
            if (j == 1) state[GB_LOOP_FRESH] = 0;
        }
        const long long handover = state[GB_LOOP_HANDOVER];
        const int mark = 1 + (j & 1), last_mark = 2 - (j & 1);
        const int lane = threadIdx.x & 31;
        const unsigned lower = (1u << lane) - 1u;
        const long long warps = gb_thread_count() >> 5;
        // Entry p of row k (value xk) reaching position r: true when it changed C there and r
        // is not queued yet in this iteration.
        auto visit = [&](long long k, {{XV}} xk, long long p, long long r) -> bool {
            const {{A}} a = {{READS_A}} ? values[p] : ({{A}})0;  // values may be null when unread
            if (c_bits != nullptr) {
                if (!gb_set_flag(&c_bits[r])) return false;  // r had an entry, or another term claimed it
                c[r] = {{PRODUCT}};
                return true;
            }
            if (!gb_atomic_combine_changed<M>(&c[r], {{PRODUCT}})) return false;
            return atomicExch(&stamp[r], mark) != mark;
        };
        // The warp's lanes that queue a position, in one atomic add (all 32 lanes call it); a
        // queue longer than the handover length stops the loop after this iteration (the
        // caller multiplies a large frontier otherwise).
        auto enqueue = [&](bool add, long long r) {
            const unsigned adding = __ballot_sync(0xffffffffu, add);
            if (adding == 0u) return;
            const int leader = __ffs(adding) - 1;
            unsigned long long at = 0ull;
            if (lane == leader) {
                at = atomicAdd(cout, (unsigned long long)__popc(adding));
                if ((long long)(at + __popc(adding)) > handover) state[GB_LOOP_STOP] = 1;  // read by the next kernels
            }
            at = __shfl_sync(0xffffffffu, at, leader);
            if (add) qout[at + __popc(adding & lower)] = (int)r;
        };
        for (long long base = (gb_thread_id() >> 5) << 5; base < cin; base += warps << 5) {
            const long long f = base + lane;
            const bool in = f < cin;
            long long k = 0, begin = 0, end = 0;
            {{XV}} xk = ({{XV}})0;
            if (in) {
                k = fresh ? first_rows[f] : (long long)qin[f];
                if (!fresh && stamp != nullptr) atomicCAS(&stamp[k], last_mark, 0);  // k leaves the queue
                if ({{READS_X}}) xk = fresh ? ({{XV}})first[f] : ({{XV}})c[k];
                begin = (long long)indptr[k];
                end = (long long)indptr[k + 1];
            }
            // Rows of at most 32 entries side by side, a lane each; longer ones by the whole warp.
            const long long length = end - begin;
            const bool short_row = length <= 32;
            int longest = short_row ? (int)length : 0;
            for (int d = 16; d > 0; d >>= 1) longest = max(longest, __shfl_xor_sync(0xffffffffu, longest, d));
            for (int s = 0; s < longest; ++s) {
                bool add = false;
                long long r = 0;
                if (short_row && s < length) {
                    r = (long long)indices[begin + s];
                    add = visit(k, xk, begin + s, r);
                }
                enqueue(add, r);
            }
            unsigned todo = __ballot_sync(0xffffffffu, !short_row);
            while (todo != 0u) {
                const int owner = __ffs(todo) - 1;
                todo &= todo - 1u;
                const long long row = __shfl_sync(0xffffffffu, k, owner);
                const long long row_end = __shfl_sync(0xffffffffu, end, owner);
                const {{XV}} row_x = __shfl_sync(0xffffffffu, xk, owner);
                for (long long p0 = __shfl_sync(0xffffffffu, begin, owner); p0 < row_end; p0 += 32) {
                    const long long p = p0 + lane;
                    bool add = false;
                    long long r = 0;
                    if (p < row_end) {
                        r = (long long)indices[p];
                        add = visit(row, row_x, p, r);
                    }
                    enqueue(add, r);
                }
            }
        }
    }
}
