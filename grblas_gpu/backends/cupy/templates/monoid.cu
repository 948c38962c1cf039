struct {{NAME}} {
    typedef {{T}} T;
    static constexpr bool is_any = {{IS_ANY}};
    static constexpr bool has_terminal = {{HAS_TERMINAL}};
    static __device__ __forceinline__ T identity() { return {{IDENTITY}}; }
    // Meaningful only where has_terminal (otherwise the identity, never compared).
    static __device__ __forceinline__ T terminal() { return {{TERMINAL}}; }
    static __device__ __forceinline__ T call(T x, T y) { return {{OP}}::call(x, y, 0, 0, 0, 0); }
};
