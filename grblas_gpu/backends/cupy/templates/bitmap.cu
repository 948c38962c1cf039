// Steps of vector writes on bitmaps (presence flags and values of type {{T}}), one pass each.

// z[k]: the mask allows k (its presence flag and, where values is non-null, its value as a
// bool; inverted where complement is nonzero), and within[k] where within is non-null.  Where
// state is non-null, the true z[k] are counted as the count kernels do (total to *counted).
extern "C" __global__ void {{KERNEL}}_allowed(const bool* __restrict__ bits, const {{T}}* __restrict__ values,
                                             int complement, const bool* __restrict__ within,
                                             bool* __restrict__ z, int64_t n,
                                             unsigned long long* __restrict__ state, unsigned long long* counted) {
    unsigned long long kept = 0ull;
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) {
        const bool allowed = bits[k] && (values == 0 || {{VALUE_AS_BOOL}});
        const bool keep = allowed != (complement != 0) && (within == 0 || within[k]);
        z[k] = keep;
        kept += keep;
    }
    if (state != 0) gb_count_finish(kept, state, counted);
}

// Where m[k]: presence a_bits[k] (true where a_bits is null) and value a_vals[k]; elsewhere
// c_bits[k] and c_vals[k].
extern "C" __global__ void {{KERNEL}}_select(const bool* __restrict__ m, const bool* __restrict__ a_bits,
                                            const {{T}}* __restrict__ a_vals, const bool* __restrict__ c_bits,
                                            const {{T}}* __restrict__ c_vals, bool* __restrict__ z_bits,
                                            {{T}}* __restrict__ z_vals, int64_t n) {
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) {
        const bool take = m[k];
        z_bits[k] = take ? (a_bits == 0 || a_bits[k]) : c_bits[k];
        z_vals[k] = take ? a_vals[k] : c_vals[k];
    }
}

// The same with the one value a wherever m[k] (present there).
extern "C" __global__ void {{KERNEL}}_select_scalar(const bool* __restrict__ m, {{T}} a,
                                                   const bool* __restrict__ c_bits, const {{T}}* __restrict__ c_vals,
                                                   bool* __restrict__ z_bits, {{T}}* __restrict__ z_vals, int64_t n) {
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) {
        const bool take = m[k];
        z_bits[k] = take || c_bits[k];
        z_vals[k] = take ? a : c_vals[k];
    }
}

// bits[k] = true and values[k] = a wherever m[k], in place (the caller owns both arrays).
// A flag a thread, so that a warp's writes are adjacent (16 flags a thread, skipping zero
// words, measured 2.6 x slower for masks of 4-50% of 4 M positions).
extern "C" __global__ void {{KERNEL}}_set_where(const bool* __restrict__ m, {{T}} a, bool* __restrict__ bits,
                                               {{T}}* __restrict__ values, int64_t n) {
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) {
        if (m[k]) {
            bits[k] = true;
            values[k] = a;
        }
    }
}

// z[k] = a for every k.
extern "C" __global__ void {{KERNEL}}_fill({{T}} a, {{T}}* __restrict__ z, int64_t n) {
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) z[k] = a;
}

// z[k] = a and bits[k] = false for every k: an empty bitmap whose values hold a (a push's
// result before its terms are combined in: the monoid's identity), in one pass.
extern "C" __global__ void {{KERNEL}}_reset({{T}} a, {{T}}* __restrict__ z, bool* __restrict__ bits, int64_t n) {
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) {
        z[k] = a;
        bits[k] = false;
    }
}

// bits[idx[i]] = true and values[idx[i]] = vals[i] for each of the n entries: a sparse vector
// spread into bitmap form (bits all false beforehand; values elsewhere are left as they are).
extern "C" __global__ void {{KERNEL}}_scatter(const int64_t* __restrict__ idx, const {{T}}* __restrict__ vals,
                                             bool* __restrict__ bits, {{T}}* __restrict__ values, int64_t n) {
    for (int64_t i = gb_thread_id(); i < n; i += gb_thread_count()) {
        const int64_t k = idx[i];
        bits[k] = true;
        values[k] = vals[i];
    }
}
