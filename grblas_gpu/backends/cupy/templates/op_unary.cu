struct {{NAME}} {
    typedef {{X}} X;
    typedef {{Z}} Z;
    static __device__ __forceinline__ Z call(X x) { return (Z)({{EXPR}}); }
};
