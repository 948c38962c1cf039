struct {{NAME}} {
    typedef {{X}} X;
    typedef {{T}} T;
    typedef {{Z}} Z;
    static __device__ __forceinline__ Z call(X x, int64_t i, int64_t j, T thunk) { return (Z)({{EXPR}}); }
};
