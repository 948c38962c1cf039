// grblas_gpu generated kernels: helpers shared by the kernel templates.

// The unsigned integer type of each size that atomicCAS takes.
template <int N> struct gb_bits_of;
template <> struct gb_bits_of<4> { typedef unsigned int U; };
template <> struct gb_bits_of<8> { typedef unsigned long long U; };

// Reinterpret a value's bits (NVRTC has no memcpy builtin; a union does it in both compilers).
template <typename T, typename U> __device__ __forceinline__ U gb_to_bits(T v) {
    union { T t; U u; } x;
    x.t = v;
    return x.u;
}
template <typename T, typename U> __device__ __forceinline__ T gb_from_bits(U b) {
    union { T t; U u; } x;
    x.u = b;
    return x.t;
}

__device__ __forceinline__ int64_t gb_thread_id() {
    return (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ int64_t gb_thread_count() {
    return (int64_t)gridDim.x * blockDim.x;
}

// A position operand: element k of p, or the constant c where p is null.
__device__ __forceinline__ int64_t gb_at(const int64_t* p, int64_t c, int64_t k) {
    return p ? p[k] : c;
}

// Lanes of the calling thread's group of g lanes (g a power of two <= 32).
__device__ __forceinline__ unsigned gb_group_mask(int g) {
    unsigned lane = threadIdx.x & 31u;
    unsigned bits = g >= 32 ? 0xffffffffu : ((1u << g) - 1u);
    return bits << (lane & ~(unsigned)(g - 1));
}

// A load of data read once (the entries of a matrix in SpMV): cache-streaming, so it is the
// first to leave L1 and L2 and the gathered vector stays cached.  Plain load for types
// __ldcs has no overload for.
template <typename T> __device__ __forceinline__ T gb_load_once(const T* p) { return *p; }
template <> __device__ __forceinline__ float gb_load_once<float>(const float* p) { return __ldcs(p); }
template <> __device__ __forceinline__ double gb_load_once<double>(const double* p) { return __ldcs(p); }
template <> __device__ __forceinline__ int32_t gb_load_once<int32_t>(const int32_t* p) { return __ldcs(p); }
template <> __device__ __forceinline__ int64_t gb_load_once<int64_t>(const int64_t* p) {
    return (int64_t)__ldcs((const long long*)p);
}

// The shuffle intrinsics have no overloads for bool and 8/16-bit integers: such values
// travel widened to a 32-bit word.
template <typename T> struct gb_shfl_word { typedef T W; };
template <> struct gb_shfl_word<bool> { typedef int W; };
template <> struct gb_shfl_word<int8_t> { typedef int W; };
template <> struct gb_shfl_word<int16_t> { typedef int W; };
template <> struct gb_shfl_word<uint8_t> { typedef unsigned W; };
template <> struct gb_shfl_word<uint16_t> { typedef unsigned W; };

template <typename T> __device__ __forceinline__ T gb_shfl_down(unsigned mask, T v, int d, int w) {
    typedef typename gb_shfl_word<T>::W W;
    return (T)__shfl_down_sync(mask, (W)v, d, w);
}
template <typename T> __device__ __forceinline__ T gb_shfl_up(unsigned mask, T v, int d) {
    typedef typename gb_shfl_word<T>::W W;
    return (T)__shfl_up_sync(mask, (W)v, d);
}
template <typename T> __device__ __forceinline__ T gb_shfl(unsigned mask, T v, int src) {
    typedef typename gb_shfl_word<T>::W W;
    return (T)__shfl_sync(mask, (W)v, src);
}

// Combine the partial results of a group with monoid M.  Lanes without a
// value (valid false) are skipped, so no identity is needed: starting from the
// identity would change some results (min over only NaN is NaN, not +inf).
template <typename M>
__device__ __forceinline__ typename M::T gb_group_reduce(typename M::T acc, bool& valid, unsigned mask, int g) {
    for (int d = g >> 1; d > 0; d >>= 1) {
        typename M::T other = gb_shfl_down(mask, acc, d, g);
        bool other_valid = gb_shfl_down(mask, valid, d, g);
        if (other_valid) {
            acc = valid ? M::call(acc, other) : other;
            valid = true;
        }
    }
    return acc;
}

// Combine one partial result per thread of the block with monoid M (blockDim.x a multiple
// of 32); the result, valid where some thread held one, is in thread 0.  Every thread of the
// block must call it (it synchronises the block).
template <typename M>
__device__ __forceinline__ typename M::T gb_block_reduce(typename M::T acc, bool& valid) {
    __shared__ typename M::T warp_acc[32];
    __shared__ bool warp_valid[32];
    acc = gb_group_reduce<M>(acc, valid, 0xffffffffu, 32);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {
        warp_acc[warp] = acc;
        warp_valid[warp] = valid;
    }
    __syncthreads();
    if (warp == 0) {
        valid = lane < (int)(blockDim.x >> 5) && warp_valid[lane];
        if (valid) acc = warp_acc[lane];
        acc = gb_group_reduce<M>(acc, valid, 0xffffffffu, 32);
    }
    return acc;
}

// True when every lane of the group may stop: some lane holds the monoid's
// terminal value (or, for an ANY monoid, any value at all).
template <typename M>
__device__ __forceinline__ bool gb_group_done(typename M::T acc, bool valid, unsigned mask) {
    if constexpr (!(M::is_any || M::has_terminal)) return false;
    bool hit = valid && (M::is_any || acc == M::terminal());
    return (__ballot_sync(mask, hit) & mask) != 0u;
}

// *addr = M(*addr, v) atomically.  4- and 8-byte types use a compare-and-swap loop on the
// bits (any monoid, float NaN rules kept); an ANY monoid just stores (any value will do);
// on 1-byte BOOL only the idempotent lor/land (a monotone store) are supported, which the
// code generator checks (atomic_push_supported).
template <typename M>
__device__ __forceinline__ void gb_atomic_combine(typename M::T* addr, typename M::T v) {
    typedef typename M::T T;
    if constexpr (M::is_any) {
        *addr = v;
    } else if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
        typedef typename gb_bits_of<sizeof(T)>::U U;
        U* bits = reinterpret_cast<U*>(addr);
        U old = *bits, assumed;
        do {
            assumed = old;
            const T next = M::call(gb_from_bits<T, U>(assumed), v);
            const U next_bits = gb_to_bits<T, U>(next);
            if (next_bits == assumed) return;
            old = atomicCAS(bits, assumed, next_bits);
        } while (old != assumed);
    } else {  // compiled into claiming kernels of 1- and 2-byte types, never run: relaxes() combines 4 and 8
        const T cur = *addr;
        const T next = M::call(cur, v);
        if (next != cur) *addr = next;
    }
}

// Whether two values are the same: equal, or both NaN (a NaN that stays a NaN is no change).
template <class T>
__device__ __forceinline__ bool gb_same(T a, T b) {
    return a == b || (a != a && b != b);
}

// *addr = M(*addr, v) atomically, as gb_atomic_combine does; true where this call changed the
// value (gb_same: an equal value or a NaN for a NaN is no change).
template <typename M>
__device__ __forceinline__ bool gb_atomic_combine_changed(typename M::T* addr, typename M::T v) {
    typedef typename M::T T;
    if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
        typedef typename gb_bits_of<sizeof(T)>::U U;
        U* bits = reinterpret_cast<U*>(addr);
        U old = *bits, assumed;
        do {
            assumed = old;
            const T cur = gb_from_bits<T, U>(assumed);
            const T next = M::is_any ? v : M::call(cur, v);
            if (gb_same(next, cur)) return false;
            old = atomicCAS(bits, assumed, gb_to_bits<T, U>(next));
        } while (old != assumed);
        return true;
    } else {  // compiled into claiming kernels of 1- and 2-byte types, never run: relaxes() combines 4 and 8
        const T cur = *addr;
        const T next = M::is_any ? v : M::call(cur, v);
        if (gb_same(next, cur)) return false;
        *addr = next;
        return true;
    }
}

// Adds a block's part (thread 0's ``mine``) to state[0]; the block that finishes last writes the
// total to *out, page-locked host memory the host reads once the stream is done, and sets state
// (total, finished blocks) back to zero for the next launch.  No memset before and no copy after.
__device__ __forceinline__ void gb_total_finish(unsigned long long mine, unsigned long long* state,
                                                unsigned long long* out) {
    if (threadIdx.x != 0) return;
    if (mine != 0ull) atomicAdd(&state[0], mine);
    __threadfence();  // this block's part is in before its finish is counted
    if (atomicAdd(&state[1], 1ull) == (unsigned long long)gridDim.x - 1ull) {
        *(volatile unsigned long long*)out = atomicExch(&state[0], 0ull);
        state[1] = 0ull;
        __threadfence_system();
    }
}

// Sums one count per thread of the block and adds the block's sum to the total as
// gb_total_finish does.  Every thread of the block must call it (it synchronises the block).
__device__ __forceinline__ void gb_count_finish(unsigned long long mine, unsigned long long* state,
                                                unsigned long long* out) {
    __shared__ unsigned long long block_sum;
    if (threadIdx.x == 0) block_sum = 0ull;
    __syncthreads();
    for (int d = 16; d > 0; d >>= 1) mine += __shfl_down_sync(0xffffffffu, mine, d);
    if ((threadIdx.x & 31) == 0 && mine != 0ull) atomicAdd(&block_sum, mine);
    __syncthreads();
    gb_total_finish(block_sum, state, out);
}

// Sets the flag *flag; 1 for the one call that changed it from false, however many set it
// at once, else 0.  An atomic OR on the aligned 4-byte word holding the flag, tried only
// while the flag reads false.  The word lies inside the flag array's allocation: device
// allocations start 256-byte aligned and span whole 4-byte words.
__device__ __forceinline__ unsigned gb_set_flag(bool* flag) {
    if (*(volatile bool*)flag) return 0u;
    const unsigned long long at = (unsigned long long)flag;
    const unsigned bit = 1u << (8u * (unsigned)(at & 3ull));
    return (atomicOr((unsigned*)(at & ~3ull), bit) & bit) == 0u ? 1u : 0u;
}
