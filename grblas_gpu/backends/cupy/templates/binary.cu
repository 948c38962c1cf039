// z[k] = OP(x[k], y[k]) with either operand an array (_vv) or a bound scalar (_vs, _sv by value;
// _vd, _dv in device memory).
// Positions: per element (array) or constant (null pointer and value).
struct gb_positions {
    const int64_t* xi; int64_t xi0;
    const int64_t* xj; int64_t xj0;
    const int64_t* yi; int64_t yi0;
    const int64_t* yj; int64_t yj0;
};

__device__ __forceinline__ {{Z}} gb_apply({{X}} x, {{Y}} y, const gb_positions& p, int64_t k) {
    if constexpr ({{OP}}::positional) {
        return {{OP}}::call(x, y, gb_at(p.xi, p.xi0, k), gb_at(p.xj, p.xj0, k),
                              gb_at(p.yi, p.yi0, k), gb_at(p.yj, p.yj0, k));
    }
    return {{OP}}::call(x, y, 0, 0, 0, 0);
}

#define GB_POSITION_PARAMS \
    const int64_t* xi, int64_t xi0, const int64_t* xj, int64_t xj0, \
    const int64_t* yi, int64_t yi0, const int64_t* yj, int64_t yj0

extern "C" __global__ void {{KERNEL}}_vv(
        const {{X}}* __restrict__ x, const {{Y}}* __restrict__ y, {{Z}}* __restrict__ z, int64_t n,
        GB_POSITION_PARAMS) {
    const gb_positions p = {xi, xi0, xj, xj0, yi, yi0, yj, yj0};
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) z[k] = gb_apply(x[k], y[k], p, k);
}

extern "C" __global__ void {{KERNEL}}_vs(
        const {{X}}* __restrict__ x, {{Y}} y, {{Z}}* __restrict__ z, int64_t n, GB_POSITION_PARAMS) {
    const gb_positions p = {xi, xi0, xj, xj0, yi, yi0, yj, yj0};
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) z[k] = gb_apply(x[k], y, p, k);
}

extern "C" __global__ void {{KERNEL}}_sv(
        {{X}} x, const {{Y}}* __restrict__ y, {{Z}}* __restrict__ z, int64_t n, GB_POSITION_PARAMS) {
    const gb_positions p = {xi, xi0, xj, xj0, yi, yi0, yj, yj0};
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) z[k] = gb_apply(x, y[k], p, k);
}

// A bound scalar held in device memory (a reduction's result not read back): _vd reads y
// there, _dv reads x there.
extern "C" __global__ void {{KERNEL}}_vd(
        const {{X}}* __restrict__ x, const {{Y}}* __restrict__ y_at, {{Z}}* __restrict__ z, int64_t n,
        GB_POSITION_PARAMS) {
    const gb_positions p = {xi, xi0, xj, xj0, yi, yi0, yj, yj0};
    const {{Y}} y = *y_at;
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) z[k] = gb_apply(x[k], y, p, k);
}

extern "C" __global__ void {{KERNEL}}_dv(
        const {{X}}* __restrict__ x_at, const {{Y}}* __restrict__ y, {{Z}}* __restrict__ z, int64_t n,
        GB_POSITION_PARAMS) {
    const gb_positions p = {xi, xi0, xj, xj0, yi, yi0, yj, yj0};
    const {{X}} x = *x_at;
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) z[k] = gb_apply(x, y[k], p, k);
}

// eWiseUnion of two bitmaps in one pass (non-positional operators): z = OP(x', y'), x' being
// x[k] where x holds an entry and x_default where not (y' likewise), at every position either
// holds; z_bits = x_bits | y_bits.  Values where neither holds are left unwritten.
extern "C" __global__ void {{KERNEL}}_union(
        const bool* __restrict__ x_bits, const {{X}}* __restrict__ x, const bool* __restrict__ y_bits,
        const {{Y}}* __restrict__ y, {{X}} x_default, {{Y}} y_default, {{Z}}* __restrict__ z,
        bool* __restrict__ z_bits, int64_t n) {
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) {
        const bool in_x = x_bits[k], in_y = y_bits[k];
        z_bits[k] = in_x || in_y;
        if (in_x || in_y) z[k] = {{OP}}::call(in_x ? x[k] : x_default, in_y ? y[k] : y_default, 0, 0, 0, 0);
    }
}

// eWiseAdd of two bitmaps in one pass, for an operator whose inputs and output share one type
// (so a lone value passes through uncast): z = OP(x, y) where both hold an entry, the lone
// value where one does; z_bits = x_bits | y_bits.  Values where neither holds are left unwritten.
extern "C" __global__ void {{KERNEL}}_add(
        const bool* __restrict__ x_bits, const {{X}}* __restrict__ x, const bool* __restrict__ y_bits,
        const {{Y}}* __restrict__ y, {{Z}}* __restrict__ z, bool* __restrict__ z_bits, int64_t n) {
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) {
        const bool in_x = x_bits[k], in_y = y_bits[k];
        z_bits[k] = in_x || in_y;
        if (in_x && in_y) z[k] = {{OP}}::call(x[k], y[k], 0, 0, 0, 0);
        else if (in_x) z[k] = x[k];
        else if (in_y) z[k] = y[k];
    }
}

// The same in place into x: wherever y holds an entry, x[k] = OP(x[k], y[k]) where x holds one
// too, else y[k]; x_bits[k] = true.  x is read and written, so it carries no __restrict__.
extern "C" __global__ void {{KERNEL}}_add_into(
        bool* x_bits, {{X}}* x, const bool* __restrict__ y_bits, const {{Y}}* __restrict__ y, int64_t n) {
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) {
        if (!y_bits[k]) continue;
        x[k] = x_bits[k] ? ({{X}}){{OP}}::call(x[k], y[k], 0, 0, 0, 0) : ({{X}})y[k];
        x_bits[k] = true;
    }
}

// The same, reporting what changed: z is x's bitmap with y added in (z may be x itself, in
// place: then only y's positions are written).  d_bits[k] is set where the result's entry is
// new or differs from x[k] (a NaN matches a NaN), and d[k] then holds it; where state is
// non-null, the set d_bits are counted as the count kernels do (total to *counted).  x and z
// may be one array, so neither carries __restrict__.
extern "C" __global__ void {{KERNEL}}_add_changes(
        const bool* x_bits, const {{X}}* x, const bool* __restrict__ y_bits, const {{Y}}* __restrict__ y,
        bool* z_bits, {{X}}* z, bool* __restrict__ d_bits, {{X}}* __restrict__ d, int64_t n,
        unsigned long long* __restrict__ state, unsigned long long* counted) {
    const bool in_place = z == x;
    unsigned long long changes = 0ull;
    for (int64_t k = gb_thread_id(); k < n; k += gb_thread_count()) {
        const bool in_x = x_bits[k];
        bool changed = false;
        if (y_bits[k]) {
            const {{X}} now = in_x ? ({{X}}){{OP}}::call(x[k], y[k], 0, 0, 0, 0) : ({{X}})y[k];
            changed = !in_x || !gb_same(now, x[k]);
            if (changed || !in_place) z[k] = now;
            if (changed) d[k] = now;
            z_bits[k] = true;
        } else if (!in_place) {
            z_bits[k] = in_x;
            if (in_x) z[k] = x[k];
        }
        d_bits[k] = changed;
        changes += changed;
    }
    if (state != 0) gb_count_finish(changes, state, counted);
}

#undef GB_POSITION_PARAMS
