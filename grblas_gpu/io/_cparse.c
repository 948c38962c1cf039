/* The compiled strict parser of the readers (an optional extension: grblas_gpu.io._cparse).
 *
 * parse() reads one chunk of whole lines into int64 / float64 columns.  It answers only
 * where the answer is certain: anything the grammar below does not cover (a malformed
 * token, an overflow, a character outside it) makes it return -1, and the caller gives
 * the chunk to the other paths; the pure one reads it the same way and names the line of
 * the error.  The grammar is a subset of what the pure path accepts, so both give the
 * same arrays, bit for bit.
 *
 *   int:   [+-]?[0-9]+                               (fits int64)
 *   float: [+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?   (finite, no overflow)
 *          [+-]?(inf|infinity|nan)                   (any case)
 *   fields are split by spaces and tabs (\r, \f, \v too); a line is blank, a comment (its
 *   first non-blank bytes, blanks being [ \t\f\v], are a prefix), or exactly the fields.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 8
#define MAX_PREFIXES 8
#define LONG_TOKEN 100 /* longer numbers go to the pure path */

typedef struct {
    const char *p, *end;
} Cursor;

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }
static int is_separator(char c) { return is_blank(c) || c == '\r'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int token_ends(const Cursor *s) { return s->p == s->end || *s->p == '\n' || is_separator(*s->p); }

/* ----------------------------------------------------------------------------- numbers */

/* Eight ASCII digits at p as a number, or -1 (fast_float's SWAR: all eight in a few
 * multiplications; the byte order is little-endian's). */
static int64_t eight_digits(const char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t high = 0xF0F0F0F0F0F0F0F0ULL;
    uint64_t x;
    memcpy(&x, p, 8);
    if (((x & high) | (((x + 0x0606060606060606ULL) & high) >> 4)) != 0x3333333333333333ULL)
        return -1;
    x -= 0x3030303030303030ULL;
    x = x * 10 + (x >> 8);
    x = (((x & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32)))
         + (((x >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32))))
        >> 32;
    return (int64_t)x;
#else
    (void)p;
    return -1;
#endif
}

/* The digits at *pp into m (wrapping past 19 digits: the caller counts them); their count.
 * ``swar``: eight at a time first (a loss on short numbers such as indices). */
static int64_t read_digits(const char **pp, const char *end, uint64_t *m, int swar)
{
    const char *p = *pp, *start = p;
    uint64_t v = *m;
    int64_t eight;
    for (; swar && end - p >= 8 && (eight = eight_digits(p)) >= 0; p += 8)
        v = v * 100000000 + (uint64_t)eight;
    for (; p < end && is_digit(*p); p++)
        v = v * 10 + (uint64_t)(*p - '0');
    *pp = p;
    *m = v;
    return p - start;
}

static int parse_int(Cursor *s, int64_t *out)
{
    const char *p = s->p; /* (a local: the compiler keeps it in a register) */
    int negative = 0;
    int64_t digits;
    uint64_t v = 0;
    if (p < s->end && (*p == '+' || *p == '-'))
        negative = *p++ == '-';
    digits = read_digits(&p, s->end, &v, 0);
    s->p = p;
    /* 19 digits cannot wrap 64 bits; more (leading zeros, or past int64) go to the pure path */
    if (digits == 0 || digits > 19 || v > (uint64_t)INT64_MAX + negative)
        return 0;
    *out = negative ? (int64_t)(0 - v) : (int64_t)v;
    return token_ends(s);
}

static int match_word(Cursor *s, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(s->end - s->p) < n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((s->p[i] | 0x20) != word[i])
            return 0;
    s->p += n;
    return 1;
}

static int parse_non_finite(Cursor *s, int negative, double *out)
{
    if (match_word(s, "nan"))
        *out = copysign(NAN, negative ? -1.0 : 1.0);
    else if (match_word(s, "inf")) {
        match_word(s, "inity");
        *out = negative ? -INFINITY : INFINITY;
    } else
        return 0;
    return token_ends(s);
}

static const double exact_powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
#define EXTENDED 1 /* the x87 80-bit format: its low 8 bytes are the whole 64-bit mantissa */
static const long double extended_powers[] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
    1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
#endif

/* m * 10**e where the result is certainly the correctly rounded double, else 0.
 * With m < 2**53 and |e| <= 22 both operands are exact doubles: one rounding (Clinger).
 * With the x87 format, m < 2**64 and |e| <= 27 are exact there; the one rounding to 64
 * bits is followed by one to 53, which can differ from a direct rounding only where the
 * first lands exactly halfway between two doubles (low 11 bits 100 0000 0000). */
static int fast_scale(uint64_t m, int e, double *out)
{
    if (m < (1ULL << 53) && e >= -22 && e <= 22) {
        *out = e >= 0 ? (double)m * exact_powers[e] : (double)m / exact_powers[-e];
        return 1;
    }
#ifdef EXTENDED
    if (e >= -27 && e <= 27) {
        long double y = e >= 0 ? (long double)m * extended_powers[e] : (long double)m / extended_powers[-e];
        uint64_t mantissa;
        memcpy(&mantissa, &y, sizeof mantissa);
        if ((mantissa & 0x7FF) == 0x400)
            return 0;
        *out = (double)y;
        return 1;
    }
#endif
    return 0;
}

/* strtod on a copy of the token (the chunk has no terminating NUL); the grammar was checked. */
static int slow_scale(const char *start, const char *stop, double *out)
{
    char buf[LONG_TOKEN + 1];
    char *end;
    size_t n = (size_t)(stop - start);
    if (n > LONG_TOKEN)
        return 0;
    memcpy(buf, start, n);
    buf[n] = 0;
    *out = strtod(buf, &end);
    return end == buf + n && isfinite(*out); /* (a locale whose point is not '.' stops early) */
}

static int parse_float(Cursor *s, double *out)
{
    const char *start = s->p, *p = s->p;
    int negative = 0;
    int64_t whole, fraction = 0, e;
    uint64_t m = 0;
    if (p < s->end && (*p == '+' || *p == '-'))
        negative = *p++ == '-';
    if (p < s->end && (*p | 0x20) >= 'i' && (*p | 0x20) <= 'n') {
        s->p = p;
        return parse_non_finite(s, negative, out);
    }
    whole = read_digits(&p, s->end, &m, 0);
    if (p < s->end && *p == '.') {
        p++;
        fraction = read_digits(&p, s->end, &m, 1);
    }
    if (whole + fraction == 0)
        return 0;
    e = -fraction;
    s->p = p;
    if (p < s->end && (*p == 'e' || *p == 'E')) {
        int64_t x;
        s->p++;
        if (!parse_int(s, &x))
            return 0; /* (an exponent past int64 is read by the pure path) */
        e = x < -100000 || x > 100000 ? INT64_MAX : e + x; /* far out: strtod says 0 or overflow */
    }
    if (!token_ends(s))
        return 0;
    if (whole + fraction <= 19 && e != INT64_MAX) { /* m is exact (19 digits fit 64 bits) */
        if (m == 0) {
            *out = negative ? -0.0 : 0.0;
            return 1;
        }
        if (fast_scale(m, (int)e, out)) {
            if (negative)
                *out = -*out;
            return 1;
        }
    }
    return slow_scale(start, s->p, out);
}

/* ----------------------------------------------------------------------------- lines */

typedef struct {
    const char *kinds; /* 'i' (int64) or 'f' (float64) per field */
    int width;
    char *columns[MAX_FIELDS];
    int64_t *lines;
    int64_t capacity, first_line;
    Py_buffer prefixes[MAX_PREFIXES];
    int nprefixes;
} Layout;

static int is_comment(const Layout *L, const char *p, const char *end)
{
    while (p < end && is_blank(*p))
        p++;
    for (int k = 0; k < L->nprefixes; k++) {
        Py_ssize_t n = L->prefixes[k].len;
        const char *prefix = L->prefixes[k].buf;
        if (n > 0 && end - p >= n && *p == *prefix && memcmp(p, prefix, (size_t)n) == 0)
            return 1;
    }
    return 0;
}

/* The fields of the line at s->p into record r; 1 when they are exactly the line's. */
static int parse_fields(const Layout *L, Cursor *s, int64_t r)
{
    for (int j = 0; j < L->width; j++) {
        if (j > 0) {
            if (s->p == s->end || !is_separator(*s->p))
                return 0;
            while (s->p < s->end && is_separator(*s->p))
                s->p++;
        }
        if (L->kinds[j] == 'i') {
            if (!parse_int(s, (int64_t *)L->columns[j] + r))
                return 0;
        } else if (!parse_float(s, (double *)L->columns[j] + r))
            return 0;
    }
    while (s->p < s->end && is_separator(*s->p))
        s->p++;
    return s->p == s->end || *s->p == '\n';
}

static int fill_lines(const Layout *L, int64_t records)
{
    for (int64_t k = 0; k < records; k++)
        L->lines[k] = L->first_line + k;
    return 1;
}

/* The records of data[0:n] (its lines into *lines); -1 where the pure path must read it. */
static int64_t parse_lines(const Layout *L, const char *data, Py_ssize_t n, int64_t *lines)
{
    Cursor s = {data, data + n};
    int64_t records = 0, line = L->first_line;
    int skipped = 0; /* the lines are written from the first skipped line on (else record k is on line first + k) */
    for (; s.p < s.end; line++) {
        if (L->nprefixes && is_comment(L, s.p, s.end)) {
            const char *eol = memchr(s.p, '\n', (size_t)(s.end - s.p));
            s.p = eol ? eol + 1 : s.end;
            skipped = skipped || fill_lines(L, records);
            continue;
        }
        while (s.p < s.end && is_separator(*s.p))
            s.p++;
        if (s.p < s.end && *s.p != '\n') {
            if (records == L->capacity || !parse_fields(L, &s, records))
                return -1;
            if (skipped)
                L->lines[records] = line;
            records++;
        } else
            skipped = skipped || fill_lines(L, records);
        s.p += s.p < s.end; /* past the line break */
    }
    *lines = line - L->first_line;
    return records;
}

static int get_buffers(PyObject *list, Py_buffer *views, int count, Py_ssize_t itemsize, Py_ssize_t length)
{
    for (int j = 0; j < count; j++) {
        if (PyObject_GetBuffer(PyList_GET_ITEM(list, j), &views[j], PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
            while (j--)
                PyBuffer_Release(&views[j]);
            return -1;
        }
        if (views[j].len < itemsize * length) {
            PyErr_SetString(PyExc_ValueError, "an output array is too short");
            for (; j >= 0; j--)
                PyBuffer_Release(&views[j]);
            return -1;
        }
    }
    return 0;
}

static void release(Py_buffer *views, int count)
{
    for (int j = 0; j < count; j++)
        PyBuffer_Release(&views[j]);
}

PyDoc_STRVAR(parse_doc,
             "parse(data, kinds, comments, columns, lines, first_line) -> (records, line_count)\n\n"
             "Parse the whole lines of ``data`` into ``columns`` (a list of writable int64 or float64\n"
             "arrays, one per letter of ``kinds``: b'i' or b'f') and each record's line number\n"
             "into ``lines`` (int64; the first line of ``data`` is ``first_line``) where some line\n"
             "was skipped (``lines`` is left alone where every line is a record).  Lines whose\n"
             "first non-blank bytes are one of ``comments`` (a tuple of bytes) and blank lines are\n"
             "skipped.  Returns the number of records and of lines, or (-1, 0) where the pure path\n"
             "must read the chunk (anything outside the strict grammar, more records than ``lines``\n"
             "holds).");

static PyObject *parse(PyObject *self, PyObject *args)
{
    Py_buffer data, columns[MAX_FIELDS], lines;
    PyObject *kinds, *comments, *column_list;
    Layout L;
    long long first_line;
    int64_t found, line_count = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*SO!O!w*L", &data, &kinds, &PyTuple_Type, &comments, &PyList_Type, &column_list,
                          &lines, &first_line))
        return NULL;
    L.kinds = PyBytes_AS_STRING(kinds);
    L.width = (int)PyBytes_GET_SIZE(kinds);
    L.nprefixes = (int)PyTuple_GET_SIZE(comments);
    L.capacity = (int64_t)(lines.len / (Py_ssize_t)sizeof(int64_t));
    L.lines = (int64_t *)lines.buf;
    L.first_line = first_line;
    if (L.width < 1 || L.width > MAX_FIELDS || PyList_GET_SIZE(column_list) != L.width || L.nprefixes > MAX_PREFIXES
        || strspn(L.kinds, "if") != (size_t)L.width) {
        PyErr_SetString(PyExc_ValueError, "parse: bad kinds, columns or comments");
        goto fail;
    }
    if (get_buffers(column_list, columns, L.width, 8, L.capacity) < 0)
        goto fail;
    for (int k = 0; k < L.nprefixes; k++)
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(comments, k), &L.prefixes[k], PyBUF_SIMPLE) < 0) {
            release(L.prefixes, k);
            release(columns, L.width);
            goto fail;
        }
    for (int j = 0; j < L.width; j++)
        L.columns[j] = (char *)columns[j].buf;
    Py_BEGIN_ALLOW_THREADS
    found = parse_lines(&L, (const char *)data.buf, data.len, &line_count);
    Py_END_ALLOW_THREADS
    release(L.prefixes, L.nprefixes);
    release(columns, L.width);
    PyBuffer_Release(&data);
    PyBuffer_Release(&lines);
    return Py_BuildValue("LL", (long long)found, (long long)(found < 0 ? 0 : line_count));
fail:
    PyBuffer_Release(&data);
    PyBuffer_Release(&lines);
    return NULL;
}

PyDoc_STRVAR(count_newlines_doc, "count_newlines(data) -> int\n\nThe number of b'\\n' bytes in ``data``.");

static PyObject *count_newlines(PyObject *self, PyObject *arg)
{
    Py_buffer data;
    int64_t count = 0;
    (void)self;
    if (PyObject_GetBuffer(arg, &data, PyBUF_SIMPLE) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    const char *p = data.buf, *end = p + data.len;
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        count++;
        p++;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    return PyLong_FromLongLong(count);
}

static PyMethodDef methods[] = {
    {"count_newlines", count_newlines, METH_O, count_newlines_doc},
    {"parse", parse, METH_VARARGS, parse_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cparse", "The readers' compiled strict parser (see grblas_gpu/io/_cparse.c).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cparse(void) { return PyModule_Create(&module); }
