/* The compiled strict parser of the readers (an optional extension: grblas_gpu.io._cparse).
 *
 * parse():     one chunk of whole lines into int64 / float64 columns.
 * sort_rows(): entries into row order (a counting sort by row, then each row by column).
 *
 * Both only ever answer where the answer is certain: anything the grammar below does not
 * cover (a malformed token, an overflow, a character outside it, a repeat) makes them
 * return a negative count, and the caller gives the chunk to the pure path, which reads it
 * the same way and names the line of the error.  The grammar is a subset of what the pure
 * path accepts, so both give the same arrays, bit for bit.
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

static int parse_int(Cursor *s, int64_t *out)
{
    int negative = 0;
    uint64_t v = 0, limit;
    if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
        negative = *s->p++ == '-';
    limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (s->p == s->end || !is_digit(*s->p))
        return 0;
    for (; s->p < s->end && is_digit(*s->p); s->p++) {
        uint64_t d = (uint64_t)(*s->p - '0');
        if (v > (limit - d) / 10)
            return 0; /* past int64: the pure path says so */
        v = v * 10 + d;
    }
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

/* m * 10**e where the result is certainly the correctly rounded double, else 0.
 * With m < 2**53 and |e| <= 22 both operands are exact doubles: one rounding (Clinger).
 * With a 64-bit long double, m < 2**64 and |e| <= 27 are exact there; the one rounding to
 * 64 bits is followed by one to 53, which can differ from a direct rounding only where the
 * first lands exactly halfway between two doubles (low 11 bits 100 0000 0000). */
static int fast_scale(uint64_t m, int e, double *out)
{
    if (m < (1ULL << 53) && e >= -22 && e <= 22) {
        *out = e >= 0 ? (double)m * exact_powers[e] : (double)m / exact_powers[-e];
        return 1;
    }
#if LDBL_MANT_DIG == 64
    if (e >= -27 && e <= 27) {
        long double p = 1.0L, y;
        int exp2;
        for (int i = 0; i < (e < 0 ? -e : e); i++)
            p *= 10.0L;
        y = e >= 0 ? (long double)m * p : (long double)m / p;
        if (((uint64_t)(frexpl(y, &exp2) * 0x1p64L) & 0x7FF) == 0x400)
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
    const char *start = s->p;
    int negative = 0, digits = 0, inexact = 0, e = 0, fraction = 0;
    uint64_t m = 0;
    if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
        negative = *s->p++ == '-';
    if (s->p < s->end && (*s->p | 0x20) >= 'i' && (*s->p | 0x20) <= 'n')
        return parse_non_finite(s, negative, out);
    for (; s->p < s->end; s->p++) {
        if (is_digit(*s->p)) {
            digits++;
            if (m < 1000000000000000000ULL) { /* 19 digits fit 64 bits; strtod reads longer ones */
                m = m * 10 + (uint64_t)(*s->p - '0');
                e -= fraction;
            } else
                inexact = 1;
        } else if (*s->p == '.' && !fraction)
            fraction = 1;
        else
            break;
    }
    if (!digits)
        return 0;
    if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
        int64_t x;
        s->p++;
        if (!parse_int(s, &x))
            return 0; /* (an exponent past int64 is read by the pure path) */
        if (x < -100000 || x > 100000)
            inexact = 1;
        else
            e += (int)x;
    }
    if (!token_ends(s))
        return 0;
    if (!inexact && m == 0) {
        *out = negative ? -0.0 : 0.0;
        return 1;
    }
    if (!inexact && fast_scale(m, e, out)) {
        if (negative)
            *out = -*out;
        return 1;
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
        if (n > 0 && end - p >= n && memcmp(p, L->prefixes[k].buf, (size_t)n) == 0)
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

/* The records of data[0:n]; -1 where the pure path must read it. */
static int64_t parse_lines(const Layout *L, const char *data, Py_ssize_t n)
{
    Cursor s = {data, data + n};
    int64_t records = 0, line = L->first_line;
    while (s.p < s.end) {
        const char *eol = memchr(s.p, '\n', (size_t)(s.end - s.p));
        const char *stop = eol ? eol : s.end;
        if (is_comment(L, s.p, stop)) {
            s.p = stop;
        } else {
            while (s.p < stop && is_separator(*s.p))
                s.p++;
            if (s.p < stop) {
                if (records == L->capacity || !parse_fields(L, &s, records))
                    return -1;
                L->lines[records++] = line;
            }
        }
        s.p = stop + (eol != NULL);
        line++;
    }
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
             "parse(data, kinds, comments, columns, lines, first_line) -> int\n\n"
             "Parse the whole lines of ``data`` into ``columns`` (a list of writable int64 or float64\n"
             "arrays, one per letter of ``kinds``: b'i' or b'f') and each record's line number\n"
             "into ``lines`` (int64; the first line of ``data`` is ``first_line``).  Lines whose\n"
             "first non-blank bytes are one of ``comments`` (a tuple of bytes) and blank lines are\n"
             "skipped.  Returns the number of records, or -1 where the pure path must read the\n"
             "chunk (anything outside the strict grammar, more records than ``lines`` holds).");

static PyObject *parse(PyObject *self, PyObject *args)
{
    Py_buffer data, columns[MAX_FIELDS], lines;
    PyObject *kinds, *comments, *column_list;
    Layout L;
    long long first_line;
    int64_t found;
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
    found = parse_lines(&L, (const char *)data.buf, data.len);
    Py_END_ALLOW_THREADS
    release(L.prefixes, L.nprefixes);
    release(columns, L.width);
    PyBuffer_Release(&data);
    PyBuffer_Release(&lines);
    return PyLong_FromLongLong(found);
fail:
    PyBuffer_Release(&data);
    PyBuffer_Release(&lines);
    return NULL;
}

/* ----------------------------------------------------------------------------- row order */

static int bits(uint64_t n) /* the bits that hold every number below n */
{
    int b = 1;
    while (b < 64 && (n - 1) >> b)
        b++;
    return b;
}

static int64_t index_at(const Py_buffer *v, Py_ssize_t k)
{
    return v->itemsize == 4 ? ((const int32_t *)v->buf)[k] : ((const int64_t *)v->buf)[k];
}

static int compare_words(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void sort_words(uint64_t *w, int64_t n)
{
    if (n > 16) {
        qsort(w, (size_t)n, sizeof *w, compare_words);
        return;
    }
    for (int64_t i = 1; i < n; i++) { /* insertion sort: most rows are short */
        uint64_t x = w[i];
        int64_t j = i;
        for (; j > 0 && w[j - 1] > x; j--)
            w[j] = w[j - 1];
        w[j] = x;
    }
}

typedef struct {
    Py_buffer rows, cols, order, ptr, out_cols, out_src;
    int64_t n, nrows, ncols;
    int has_order, keep_first, shift;
} Sort;

/* Row counts into ptr[1..nrows], then their running sum; -2 for an index outside the shape. */
static int count_rows(Sort *S, int64_t *ptr)
{
    memset(ptr, 0, (size_t)(S->nrows + 1) * sizeof *ptr);
    for (int64_t k = 0; k < S->n; k++) {
        int64_t r = index_at(&S->rows, k), c = index_at(&S->cols, k);
        if (r < 0 || r >= S->nrows || c < 0 || c >= S->ncols)
            return -2;
        ptr[r + 1]++;
    }
    for (int64_t r = 0; r < S->nrows; r++)
        ptr[r + 1] += ptr[r];
    return 0;
}

/* Each entry's word (column above its source position) into its row's place; ptr[r] is the
 * cursor of row r, which ends at the next row's start, so ptr moves up one place after. */
static void scatter(Sort *S, int64_t *ptr, uint64_t *words)
{
    const int64_t *order = (const int64_t *)S->order.buf;
    for (int64_t k = 0; k < S->n; k++) {
        int64_t r = index_at(&S->rows, k);
        uint64_t src = S->has_order ? (uint64_t)order[k] : (uint64_t)k;
        words[ptr[r]++] = ((uint64_t)index_at(&S->cols, k) << S->shift) | src;
    }
    memmove(ptr + 1, ptr, (size_t)S->nrows * sizeof *ptr);
    ptr[0] = 0;
}

/* Sort each row, drop (keep_first) or refuse (-1) a repeated column, write the outputs. */
static int64_t sort_each_row(Sort *S, int64_t *ptr, uint64_t *words)
{
    uint64_t mask = S->shift == 64 ? ~0ULL : (1ULL << S->shift) - 1;
    int64_t *src = (int64_t *)S->out_src.buf, w = 0, start = 0;
    for (int64_t r = 0; r < S->nrows; r++) {
        int64_t stop = ptr[r + 1];
        uint64_t previous = 0;
        sort_words(words + start, stop - start);
        ptr[r] = w;
        for (int64_t k = start; k < stop; k++) {
            uint64_t col = words[k] >> S->shift;
            if (k > start && col == previous) {
                if (!S->keep_first)
                    return -1;
                continue;
            }
            previous = col;
            if (S->out_cols.itemsize == 4)
                ((int32_t *)S->out_cols.buf)[w] = (int32_t)col;
            else
                ((int64_t *)S->out_cols.buf)[w] = (int64_t)col;
            src[w++] = (int64_t)(words[k] & mask);
        }
        start = stop;
    }
    ptr[S->nrows] = w;
    return w;
}

static int64_t sort_entries(Sort *S)
{
    int64_t *ptr = (int64_t *)S->ptr.buf, found;
    uint64_t *words;
    if (count_rows(S, ptr) < 0)
        return -2;
    words = malloc((size_t)(S->n ? S->n : 1) * sizeof *words);
    if (words == NULL)
        return -3;
    scatter(S, ptr, words);
    found = sort_each_row(S, ptr, words);
    free(words);
    return found;
}

static int index_view(PyObject *obj, Py_buffer *v, int writable, Py_ssize_t length)
{
    if (PyObject_GetBuffer(obj, v, (writable ? PyBUF_WRITABLE : 0) | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if ((v->itemsize != 4 && v->itemsize != 8) || v->len != v->itemsize * length) {
        PyErr_SetString(PyExc_ValueError, "sort_rows: arrays of 4- or 8-byte integers of the right length expected");
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(sort_rows_doc,
             "sort_rows(rows, cols, order, nrows, ncols, keep_first, ptr, out_cols, out_src) -> int\n\n"
             "Entries ``(rows[k], cols[k])`` (int32 or int64 arrays) in row-major order: ``ptr``\n"
             "(int64, nrows + 1) gets the row pointers, ``out_cols`` (int32 or int64) the columns\n"
             "and ``out_src`` (int64) where each came from: ``order[k]`` (an int64 array, or None\n"
             "for ``k``).  Equal entries are ordered by it; with ``keep_first`` only the first is\n"
             "kept.  Returns the number kept, -1 for a repeat without ``keep_first``, -2 where\n"
             "column and order do not fit 64 bits together or an index is outside the shape, -3\n"
             "where memory ran out.");

static PyObject *sort_rows(PyObject *self, PyObject *args)
{
    Sort S;
    PyObject *rows, *cols, *order, *ptr, *out_cols, *out_src;
    long long nrows, ncols;
    int64_t found = -2;
    (void)self;
    memset(&S, 0, sizeof S);
    if (!PyArg_ParseTuple(args, "OOOLLpOOO", &rows, &cols, &order, &nrows, &ncols, &S.keep_first, &ptr, &out_cols,
                          &out_src))
        return NULL;
    if (nrows < 0 || ncols < 0 || index_view(rows, &S.rows, 0, PyObject_Length(rows)) < 0)
        return PyErr_Occurred() ? NULL : PyLong_FromLong(-2);
    S.n = (int64_t)(S.rows.len / S.rows.itemsize);
    S.nrows = nrows;
    S.ncols = ncols;
    S.has_order = order != Py_None;
    if (index_view(cols, &S.cols, 0, S.n) < 0)
        goto rows_only;
    if (index_view(S.has_order ? order : cols, &S.order, 0, S.n) < 0)
        goto cols_too;
    if (index_view(ptr, &S.ptr, 1, nrows + 1) < 0)
        goto order_too;
    if (index_view(out_cols, &S.out_cols, 1, S.n) < 0)
        goto ptr_too;
    if (index_view(out_src, &S.out_src, 1, S.n) < 0)
        goto out_cols_too;
    S.shift = bits(S.n > 1 ? (uint64_t)S.n : 2);
    if (S.ptr.itemsize == 8 && S.out_src.itemsize == 8 && (!S.has_order || S.order.itemsize == 8)
        && bits(ncols > 1 ? (uint64_t)ncols : 2) + S.shift <= 64) {
        Py_BEGIN_ALLOW_THREADS
        found = sort_entries(&S);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&S.out_src);
out_cols_too:
    PyBuffer_Release(&S.out_cols);
ptr_too:
    PyBuffer_Release(&S.ptr);
order_too:
    PyBuffer_Release(&S.order);
cols_too:
    PyBuffer_Release(&S.cols);
rows_only:
    PyBuffer_Release(&S.rows);
    if (PyErr_Occurred())
        return NULL;
    return PyLong_FromLongLong(found);
}

static PyMethodDef methods[] = {
    {"parse", parse, METH_VARARGS, parse_doc},
    {"sort_rows", sort_rows, METH_VARARGS, sort_rows_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cparse", "The readers' compiled strict parser (see grblas_gpu/io/_cparse.c).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cparse(void) { return PyModule_Create(&module); }
