struct {{NAME}} {
    typedef {{X}} X;
    typedef {{Y}} Y;
    typedef {{Z}} Z;
    static constexpr bool positional = {{POSITIONAL}};
    static __device__ __forceinline__ Z call(X x, Y y, int64_t xi, int64_t xj, int64_t yi, int64_t yj) {
        return (Z)({{EXPR}});
    }
};
