/* Route origin validation (RFC 6811) over the VRP index of bgpsim.rpki.rov (its _Family): the
 * state of many routes, the VRPs holding each, and the nesting of sorted prefixes the index is
 * built on.
 *
 * The index of one address family: distinct prefixes sorted by (start, length), `bits` wide (32 for
 * IPv4; 64, an IPv6 address's first half); parent[i], the nearest prefix holding prefix i, comes
 * before i (-1: none); first[i] to first[i + 1] are prefix i's rows (its VRPs, or its (prefix,
 * ASN) pairs). Prefixes nest or are disjoint, so those holding a route are a chain: the last prefix
 * starting at or before the route, or an ancestor of it, and that one's ancestors.
 *
 * The arrays come from our own code, but every index read from one is checked before use; a bad
 * one ends the walk with a fault, raised as ValueError once the GIL is held again. */
#include "rov.h"

/* the pair of `asn` among pairs a..b (one prefix's: sorted by ASN, the low 32 bits); -1: none */
static inline Py_ssize_t find_asn(const uint64_t *pair, Py_ssize_t a, Py_ssize_t b, uint32_t asn)
{
    Py_ssize_t lo = a, hi = b;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if ((uint32_t)pair[mid] < asn)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < b && (uint32_t)pair[lo] == asn ? lo : -1;
}

/* RFC 6811 section 2: valid when a covering VRP names the origin with a maxLength at least the
 * route's length; else invalid when covered (the reason: no VRP names it, or too long); else
 * not found. An origin of NONE (section 2: the path ends in an AS_SET; negative here) matches no
 * VRP, nor does AS0 (RFC 7607), which has no pairs. */
static int route_state(const tree *t, const uint64_t *pair, const uint8_t *pair_max, uint64_t s, uint64_t end,
                       int64_t length, int64_t origin, Py_ssize_t *last, walk_fault *f)
{
    Py_ssize_t i = *last = last_from(t, s, *last);  /* the previous route's, for the next */
    while (i >= 0 && !holds(t, i, end, length, f))
        i = up(t, i, f);
    if (i < 0)
        return NOT_FOUND;
    if (origin < 0 || origin > UINT32_MAX)
        return INVALID_ASN;
    int best = -1;
    for (; i >= 0; i = up(t, i, f)) {
        Py_ssize_t a, b, k;
        if (!span(t, i, &a, &b, f))
            break;
        if ((k = find_asn(pair, a, b, (uint32_t)origin)) >= 0 && pair_max[k] > best)
            best = pair_max[k];
    }
    return best < 0 ? INVALID_ASN : best >= length ? VALID : INVALID_LENGTH;
}

int raise_fault(const walk_fault *f, int bits)
{
    switch (f->code) {
    case FAULT_PARENT:
        PyErr_Format(PyExc_ValueError, "parent[%zd]: want -1 or an earlier prefix", f->at);
        return -1;
    case FAULT_SPAN:
        PyErr_Format(PyExc_ValueError, "first[%zd], first[%zd + 1]: want increasing rows within the table", f->at, f->at);
        return -1;
    case FAULT_PREFIX_LENGTH:
        PyErr_Format(PyExc_ValueError, "length[%zd]: want at most %d", f->at, bits);
        return -1;
    case FAULT_ROUTE_LENGTH:
        PyErr_Format(PyExc_ValueError, "route %zd: want a length of 0 to %d", f->at, bits);
        return -1;
    }
    return 0;
}

/* the buffers of k arrays (array_view): all of them, or none and an exception */
static int views(PyObject *const *o, Py_buffer *v, const Py_ssize_t *size, const Py_ssize_t *count,
                 const char *const *name, int k)
{
    for (int got = 0; got < k; got++)
        if (array_view(o[got], &v[got], size[got], count[got], name[got]) < 0) {
            while (got--)
                PyBuffer_Release(&v[got]);
            return -1;
        }
    return 0;
}

void release(Py_buffer *v, int k)
{
    while (k--)
        PyBuffer_Release(&v[k]);
}

int take_args(PyObject *args, int extra, int routes, const Py_ssize_t *size, const char *const *name,
                     walk_args *w)
{
    w->k = 4 + extra + routes;
    if (PyTuple_GET_SIZE(args) != 1 + w->k) {
        PyErr_Format(PyExc_TypeError, "want %d arguments", 1 + w->k);
        return -1;
    }
    PyObject **o = PySequence_Fast_ITEMS(args);  /* METH_VARARGS: a tuple */
    long bits = PyLong_AsLong(o[0]);
    if (bits == -1 && PyErr_Occurred())
        return -1;
    if (bits != 32 && bits != 64) {
        PyErr_Format(PyExc_ValueError, "bits: want 32 or 64, not %ld", bits);
        return -1;
    }
    Py_ssize_t count[16], n, m = 0;
    if ((n = PyObject_Length(o[1])) < 0 || (extra && (m = PyObject_Length(o[5])) < 0)
        || (w->q = PyObject_Length(o[5 + extra])) < 0)
        return -1;
    for (int i = 0; i < w->k; i++)
        count[i] = i < 3 ? n : i == 3 ? n + 1 : i < 4 + extra ? m : w->q;
    if (views(o + 1, w->v, size, count, name, w->k) < 0)
        return -1;
    const int32_t *first = w->v[3].buf;
    w->t = (tree){(int)bits, n, w->v[0].buf, w->v[1].buf, w->v[2].buf, first, extra ? m : first[n]};
    return 0;
}

static PyObject *rov_validate(PyObject *self, PyObject *args)
{
    (void)self;
    static const Py_ssize_t SIZE[] = {8, 1, 4, 4, 8, 1, 8, 8, 8};
    static const char *const NAME[] = {"start", "length", "parent", "pair_first", "pair", "pair_max",
                                       "route start", "route length", "route origin"};
    walk_args w;
    if (take_args(args, 2, 3, SIZE, NAME, &w) < 0)
        return NULL;
    PyObject *out = PyByteArray_FromStringAndSize(NULL, w.q);
    if (out != NULL) {
        const uint64_t *pair = w.v[4].buf, *s = w.v[6].buf;
        const uint8_t *pair_max = w.v[5].buf;
        const int64_t *length = w.v[7].buf, *origin = w.v[8].buf;
        uint8_t *state = (uint8_t *)PyByteArray_AS_STRING(out);
        walk_fault f = {FAULT_NONE, 0};
        Py_BEGIN_ALLOW_THREADS
        uint64_t end;
        Py_ssize_t last = -1;
        for (Py_ssize_t r = 0; r < w.q && f.code == FAULT_NONE && route_end(&w.t, s[r], length[r], r, &end, &f); r++)
            state[r] = (uint8_t)route_state(&w.t, pair, pair_max, s[r], end, length[r], origin[r], &last, &f);
        Py_END_ALLOW_THREADS
        if (raise_fault(&f, w.t.bits) < 0)
            Py_CLEAR(out);
    }
    release(w.v, w.k);
    return out;
}

static PyObject *rov_holding(PyObject *self, PyObject *args)
{
    (void)self;
    static const Py_ssize_t SIZE[] = {8, 1, 4, 4, 8, 8};
    static const char *const NAME[] = {"start", "length", "parent", "first", "route start", "route length"};
    walk_args w;
    if (take_args(args, 0, 2, SIZE, NAME, &w) < 0)
        return NULL;
    const uint64_t *s = w.v[4].buf;
    const int64_t *length = w.v[5].buf;
    column offsets = {0}, rows = {0};
    walk_fault f = {FAULT_NONE, 0};
    Py_BEGIN_ALLOW_THREADS
    uint64_t end;
    for (Py_ssize_t r = 0; r < w.q && f.code == FAULT_NONE && route_end(&w.t, s[r], length[r], r, &end, &f); r++) {
        COLUMN_PUT(&offsets, int64_t, rows.len / 8);
        holding_rows(&w.t, s[r], end, length[r], &rows, &f);
    }
    COLUMN_PUT(&offsets, int64_t, rows.len / 8);
    Py_END_ALLOW_THREADS
    release(w.v, w.k);
    PyObject *a = column_take(&offsets), *b = column_take(&rows), *out = NULL;
    if (a != NULL && b != NULL && raise_fault(&f, w.t.bits) == 0)
        out = PyTuple_Pack(2, a, b);
    Py_XDECREF(a);
    Py_XDECREF(b);
    return out;
}

/* One scan, the prefixes still open kept as a chain: the last prefix and its ancestors (prefixes
 * nest or are disjoint, so those open at i's start all hold i). Addresses hi << 64 | lo, `bits`
 * wide; the end is the network address plus the host bits' ones, carried over 128 bits. */
static inline int ends_before(uint64_t ehi, uint64_t elo, uint64_t shi, uint64_t slo)
{
    return ehi < shi || (ehi == shi && elo < slo);
}

static PyObject *nest(PyObject *self, PyObject *args)
{
    (void)self;
    enum { K = 3 };
    PyObject *o[K];
    Py_buffer v[K];
    int bits;
    static const Py_ssize_t SIZE[K] = {8, 1, 8};
    static const char *const NAME[K] = {"lo", "length", "hi"};
    if (!PyArg_ParseTuple(args, "iOOO", &bits, &o[2], &o[0], &o[1]))  /* hi last: it may be None */
        return NULL;
    if (bits != 32 && bits != 64 && bits != 128)
        return PyErr_Format(PyExc_ValueError, "bits: want 32, 64 or 128, not %d", bits);
    int k = o[2] == Py_None ? 2 : 3;
    if (k == 2 && bits > 64)
        return PyErr_Format(PyExc_ValueError, "hi: want the upper 64 bits of %d-bit addresses", bits);
    Py_ssize_t n = PyObject_Length(o[0]);
    if (n < 0)
        return NULL;
    const Py_ssize_t COUNT[K] = {n, n, n};
    if (views(o, v, SIZE, COUNT, NAME, k) < 0)
        return NULL;
    PyObject *out = PyByteArray_FromStringAndSize(NULL, n * 8);
    if (out != NULL) {
        const uint64_t *lo = v[0].buf, *hi = k == 3 ? v[2].buf : NULL;
        const uint8_t *length = v[1].buf;
        int64_t *parent = (int64_t *)PyByteArray_AS_STRING(out);
        walk_fault f = {FAULT_NONE, 0};
        Py_BEGIN_ALLOW_THREADS
        Py_ssize_t top = -1;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (length[i] > bits) {
                set_fault(&f, FAULT_PREFIX_LENGTH, i);
                break;
            }
            uint64_t shi = hi ? hi[i] : 0;
            while (top >= 0) {
                int h = bits - length[top];
                uint64_t elo = lo[top] + low_ones(h), carry = elo < lo[top];
                uint64_t ehi = (hi ? hi[top] : 0) + (h > 64 ? low_ones(h - 64) : 0) + carry;
                if (!ends_before(ehi, elo, shi, lo[i]))
                    break;
                top = parent[top];  /* set below: before top */
            }
            parent[i] = top;
            top = i;
        }
        Py_END_ALLOW_THREADS
        if (raise_fault(&f, bits) < 0)
            Py_CLEAR(out);
    }
    release(v, k);
    return out;
}

PyMethodDef rov_methods[] = {
    {"rov_validate", rov_validate, METH_VARARGS,
     "rov_validate(bits, start, length, parent, pair_first, pair, pair_max, route_start, route_length, "
     "route_origin) -> bytearray: each route's RFC 6811 state, an index into rpki.rov.STATES (columns uint64, "
     "uint8, int32, int32, uint64, uint8; the routes' uint64, int64, int64)"},
    {"rov_holding", rov_holding, METH_VARARGS,
     "rov_holding(bits, start, length, parent, first, route_start, route_length) -> (offsets, rows): route i's "
     "VRP rows, most specific first, are rows[offsets[i]:offsets[i + 1]] (bytes of int64; columns uint64, "
     "uint8, int32, int32; the routes' uint64, int64)"},
    {"nest", nest, METH_VARARGS,
     "nest(bits, hi, lo, length) -> bytearray of int64: each prefix's nearest enclosing prefix (-1: none), for "
     "prefixes sorted by (address, length) that nest or are disjoint; hi, lo uint64 (hi None: zeros, bits <= "
     "64), length uint8"},
    {NULL, NULL, 0, NULL},
};
