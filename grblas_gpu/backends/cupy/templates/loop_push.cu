// One iteration of a frontier loop run on the device (see backends/cupy/capture.py): the
// statement  C(~C.S, changed=D) << D' A  (claim: an ANY monoid, the first term to reach an
// empty position of C stays) or  C(monoid, changed=D) << D' A  (relax: a full C, min or max).
// The frontier D is a queue of row ids; its values are C's (what the statement makes them),
// except at the run's first iteration, which reads them from `first` (aligned with the queue).
// The loop's state lives in device memory, so a captured graph of several of these kernels
// replays with no host work: the iteration count, the queue lengths (three, rotating: the one
// read, the one written, the one cleared for the next iteration) and the stop flags.  Every
// block reads them on entry, and the last block to finish advances them, so each kernel of a
// graph sees the state its predecessor left.  A kernel whose frontier is empty, whose limit is
// reached or whose loop was stopped does nothing but count itself finished.
// Positions given to MULT: {{POSITIONS_DOC}}, with r the output index.
#define GB_LOOP_IT 0
#define GB_LOOP_STOP 1
#define GB_LOOP_BLOCKS 2
#define GB_LOOP_COUNT 3
#define GB_LOOP_LIMIT 6
#define GB_LOOP_HANDOVER 7
#define GB_LOOP_REQUEST 8
#define GB_LOOP_EDGES 9
#define GB_LOOP_EDGE_HANDOVER 12

extern "C" __global__ void {{KERNEL}}_step(
        const {{PTR_T}}* __restrict__ indptr, const {{INDEX_T}}* __restrict__ indices,
        const {{A}}* __restrict__ values, bool* __restrict__ c_bits, {{T}}* __restrict__ c,
        int* __restrict__ q0, int* __restrict__ q1, const {{T}}* __restrict__ first,
        int* __restrict__ stamp, long long* __restrict__ state) {
    typedef {{MONOID}} M;
    const long long it = state[GB_LOOP_IT];
    const long long cin = state[GB_LOOP_COUNT + it % 3];
    const bool active = state[GB_LOOP_STOP] == 0 && it < state[GB_LOOP_LIMIT] && cin > 0;
    if (active) {
        const int* qin = (it & 1) ? q1 : q0;
        int* qout = (it & 1) ? q0 : q1;
        unsigned long long* cout = (unsigned long long*)&state[GB_LOOP_COUNT + (it + 1) % 3];
        unsigned long long* edges = (unsigned long long*)&state[GB_LOOP_EDGES + (it + 1) % 3];
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            state[GB_LOOP_COUNT + (it + 2) % 3] = 0;
            state[GB_LOOP_EDGES + (it + 2) % 3] = 0;
        }
        const long long handover = state[GB_LOOP_HANDOVER];
        const long long edge_handover = state[GB_LOOP_EDGE_HANDOVER];
        const int mark = (int)(it + 1);  // stamps are 0 when a run starts
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
        // The warp's lanes that queue a position, in one atomic add (all 32 lanes call it); the
        // queue's length and its rows' entries past the handover limits stop the loop after
        // this iteration (the caller multiplies a large frontier otherwise).
        auto enqueue = [&](bool add, long long r) {
            const unsigned adding = __ballot_sync(0xffffffffu, add);
            if (adding == 0u) return;
            const int leader = __ffs(adding) - 1;
            const unsigned length = add ? (unsigned)((long long)indptr[r + 1] - (long long)indptr[r]) : 0u;
            const unsigned warp_edges = __reduce_add_sync(0xffffffffu, length);
            unsigned long long at = 0ull;
            if (lane == leader) {
                at = atomicAdd(cout, (unsigned long long)__popc(adding));
                const unsigned long long e = atomicAdd(edges, (unsigned long long)warp_edges) + warp_edges;
                if ((long long)(at + __popc(adding)) > handover || (long long)e > edge_handover)
                    state[GB_LOOP_REQUEST] = 1;
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
                k = qin[f];
                if ({{READS_X}}) xk = (it == 0 && first != nullptr) ? ({{XV}})first[f] : ({{XV}})c[k];
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
    // The last block to finish advances the state for the next kernel.
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        const unsigned long long done = atomicAdd((unsigned long long*)&state[GB_LOOP_BLOCKS], 1ull);
        if (done == (unsigned long long)gridDim.x - 1ull) {
            __threadfence();
            state[GB_LOOP_BLOCKS] = 0;
            if (active) {
                state[GB_LOOP_IT] = it + 1;
                if (*(volatile long long*)&state[GB_LOOP_REQUEST]) state[GB_LOOP_STOP] = 1;
            }
        }
    }
}
