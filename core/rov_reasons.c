/* Why a route is invalid (RFC 6811 section 2), as `bgpsim validate` writes it in routes.csv: its
 * status and the reason, quoted, naming the VRPs that hold the route.
 *
 *   invalid-length,"/24 is longer than maxLength 22 of the VRP 192.0.2.0/22 AS64496"
 *       the VRP of the route's origin with the longest maxLength (the most specific of those)
 *   invalid-asn,"covered by VRPs of AS1 AS2 (192.0.2.0/24 the most specific); none for AS3"
 *       the ASNs of every VRP holding the route, sorted as text, five at most ("and 4 more"); an
 *       origin of NONE (the path ends in an AS_SET) is "origin NONE (an AS_SET)"
 *
 * VRP prefixes are written as RFC 5952 section 4 has them. rov_reasons walks the index of rov.c for
 * many routes at once; reason_text writes the reason of one route whose VRPs are given (an IPv6
 * route longer than /64, which VRPs longer than /64, kept outside the index, may hold). */
#include "rov.h"
#include "text.h"

#include <stdlib.h>

typedef struct {
    uint64_t hi, lo;  /* the VRP's network (IPv4 in lo) */
    unsigned length, max;
    uint32_t asn;
} held;

typedef struct {
    held *rows;
    Py_ssize_t n, cap;
    char (*names)[16];  /* "AS4294967295" */
    Py_ssize_t names_cap;
} scratch;

static int grow(void **p, Py_ssize_t *cap, Py_ssize_t want, size_t size)
{
    if (want <= *cap)
        return 0;
    Py_ssize_t n = *cap ? *cap : 16;
    while (n < want)
        n *= 2;
    void *q = PyMem_RawRealloc(*p, (size_t)n * size);
    if (q == NULL)
        return -1;
    *p = q, *cap = n;
    return 0;
}

static void put_int(column *c, int64_t v)
{
    if (v < 0)
        column_puts(c, "-");
    column_put_u(c, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

static void put_prefix(column *c, int version, const held *h)
{
    char t[PREFIX_TEXT_MAX];
    int k = version == 4 ? ipv4_text((uint32_t)h->lo, t) : ipv6_text_rfc5952(h->hi, h->lo, t);
    t[k++] = '/';
    column_put(c, t, k);
    column_put_u(c, h->length);
}

static int by_text(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* The field of one route into c (emptied first): -1 when the VRPs do not bear out its state (an
 * invalid-length route with no VRP of its origin, an invalid route with none at all), -2 when
 * memory ran out. */
static int reason(column *c, scratch *s, int version, int state, int64_t length, int64_t origin)
{
    const held *rows = s->rows;
    Py_ssize_t n = s->n;
    c->len = 0;
    if (state == INVALID_LENGTH) {
        const held *best = NULL;
        for (Py_ssize_t i = 0; i < n; i++)
            if ((int64_t)rows[i].asn == origin && (best == NULL || rows[i].max > best->max))
                best = &rows[i];
        if (best == NULL)
            return -1;
        column_puts(c, "invalid-length,\"/");
        put_int(c, length);
        column_puts(c, " is longer than maxLength ");
        column_put_u(c, best->max);
        column_puts(c, " of the VRP ");
        put_prefix(c, version, best);
        column_puts(c, " AS");
        column_put_u(c, best->asn);
        column_puts(c, "\"");
        return c->failed ? -2 : 0;
    }
    if (state != INVALID_ASN || n == 0)
        return -1;
    if (grow((void **)&s->names, &s->names_cap, n, sizeof *s->names) < 0)
        return -2;
    for (Py_ssize_t i = 0; i < n; i++)
        snprintf(s->names[i], sizeof s->names[i], "AS%u", (unsigned)rows[i].asn);
    qsort(s->names, (size_t)n, sizeof *s->names, by_text);
    Py_ssize_t distinct = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (distinct == 0 || strcmp(s->names[i], s->names[distinct - 1]) != 0)
            memmove(s->names[distinct++], s->names[i], sizeof *s->names);
    column_puts(c, "invalid-asn,\"covered by VRPs of ");
    for (Py_ssize_t i = 0; i < distinct && i < 5; i++) {
        if (i)
            column_puts(c, " ");
        column_puts(c, s->names[i]);
    }
    if (distinct > 5) {
        column_puts(c, " and ");
        column_put_u(c, (uint64_t)(distinct - 5));
        column_puts(c, " more");
    }
    column_puts(c, " (");
    put_prefix(c, version, &rows[0]);
    column_puts(c, " the most specific); none for ");
    if (origin == -1) {
        column_puts(c, "origin NONE (an AS_SET)");
    } else {
        column_puts(c, "AS");
        put_int(c, origin);
    }
    column_puts(c, "\"");
    return c->failed ? -2 : 0;
}

static void scratch_free(scratch *s)
{
    PyMem_RawFree(s->rows);
    PyMem_RawFree(s->names);
}

static PyObject *reason_fault(int code, Py_ssize_t r)
{
    if (code == -2)
        return PyErr_NoMemory();
    return PyErr_Format(PyExc_ValueError, "route %zd: want the state of an invalid route that its VRPs bear out", r);
}

static PyObject *rov_reasons(PyObject *self, PyObject *args)
{
    (void)self;
    static const Py_ssize_t SIZE[] = {8, 1, 4, 4, 8, 8, 1, 1, 4, 8, 8, 8, 1};
    static const char *const NAME[] = {"start", "length", "parent", "first", "row hi", "row lo", "row length",
                                       "row maxLength", "row ASN", "route start", "route length", "route origin",
                                       "route state"};
    walk_args w;
    if (take_args(args, 5, 4, SIZE, NAME, &w) < 0)
        return NULL;
    const tree *t = &w.t;
    const uint64_t *hi = w.v[4].buf, *lo = w.v[5].buf, *s = w.v[9].buf;
    const uint8_t *rlen = w.v[6].buf, *rmax = w.v[7].buf, *state = w.v[12].buf;
    const uint32_t *asn = w.v[8].buf;
    const int64_t *length = w.v[10].buf, *origin = w.v[11].buf;
    int version = t->bits == 32 ? 4 : 6;
    PyObject *out = PyList_New(w.q);
    scratch sc = {0};
    column text = {0}, found = {0};  /* found: the rows holding the route */
    walk_fault f = {FAULT_NONE, 0};
    uint64_t end;
    for (Py_ssize_t r = 0; out != NULL && r < w.q; r++) {
        if (!route_end(t, s[r], length[r], r, &end, &f))
            break;
        found.len = 0;
        holding_rows(t, s[r], end, length[r], &found, &f);
        sc.n = found.len / 8;
        if (found.failed || grow((void **)&sc.rows, &sc.cap, sc.n, sizeof *sc.rows) < 0) {
            Py_CLEAR(out);
            PyErr_NoMemory();
            break;
        }
        for (Py_ssize_t k = 0; k < sc.n; k++) {
            int64_t a = ((const int64_t *)found.data)[k];
            sc.rows[k] = (held){version == 6 ? hi[a] : 0, lo[a], rlen[a], rmax[a], asn[a]};
        }
        if (out == NULL || f.code != FAULT_NONE)
            break;
        int code = reason(&text, &sc, version, state[r], length[r], origin[r]);
        PyObject *b = code == 0 ? PyBytes_FromStringAndSize(text.data, text.len) : reason_fault(code, r);
        if (b == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, r, b);
    }
    if (out != NULL && raise_fault(&f, t->bits) < 0)
        Py_CLEAR(out);
    column_free(&text);
    column_free(&found);
    scratch_free(&sc);
    release(w.v, w.k);
    return out;
}

/* reason_text(version, state, length, origin, rows): rows (network, length, maxLength, ASN) as
 * Python ints, most specific first */
static PyObject *reason_text(PyObject *self, PyObject *args)
{
    (void)self;
    int version, state;
    long long length, origin;
    PyObject *rows;
    if (!PyArg_ParseTuple(args, "iiLLO!", &version, &state, &length, &origin, &PyList_Type, &rows))
        return NULL;
    if (version != 4 && version != 6)
        return PyErr_Format(PyExc_ValueError, "version: want 4 or 6, not %d", version);
    scratch sc = {0};
    column text = {0};
    PyObject *out = NULL, *bits64 = PyLong_FromLong(64);
    Py_ssize_t n = PyList_GET_SIZE(rows);
    if (bits64 == NULL)
        return NULL;
    if (grow((void **)&sc.rows, &sc.cap, n, sizeof *sc.rows) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *row = PyList_GET_ITEM(rows, i), *net, *high = NULL;
        unsigned long long v[3];
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 4)
            goto bad_row;
        for (int k = 0; k < 3; k++) {
            v[k] = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(row, k + 1));
            if (PyErr_Occurred() || (k < 2 && v[k] > 128) || (k == 2 && v[k] > UINT32_MAX))
                goto bad_row;
        }
        net = PyTuple_GET_ITEM(row, 0);
        sc.rows[i].lo = PyLong_AsUnsignedLongLongMask(net);
        if (PyErr_Occurred() || (high = PyNumber_Rshift(net, bits64)) == NULL)
            goto bad_row;
        sc.rows[i].hi = PyLong_AsUnsignedLongLong(high);
        Py_DECREF(high);
        if (PyErr_Occurred())
            goto bad_row;
        sc.rows[i].length = (unsigned)v[0], sc.rows[i].max = (unsigned)v[1], sc.rows[i].asn = (uint32_t)v[2];
        sc.n++;
        continue;
    bad_row:
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "rows[%zd]: want (network, length, maxLength, ASN) as numbers", i);
        goto done;
    }
    int code = reason(&text, &sc, version, state, length, origin);
    out = code == 0 ? PyBytes_FromStringAndSize(text.data, text.len) : reason_fault(code, 0);
done:
    Py_DECREF(bits64);
    column_free(&text);
    scratch_free(&sc);
    return out;
}

PyMethodDef rov_reasons_methods[] = {
    {"rov_reasons", rov_reasons, METH_VARARGS,
     "rov_reasons(bits, start, length, parent, first, row_hi, row_lo, row_length, row_max, row_asn, route_start, "
     "route_length, route_origin, route_state) -> [bytes]: each invalid route's status and reason fields (the "
     "index as rov_holding takes it, and its rows' columns uint64, uint64, uint8, uint8, uint32; the routes' "
     "uint64, int64, int64, uint8: states 1 or 2, rpki.rov.STATES)"},
    {"reason_text", reason_text, METH_VARARGS,
     "reason_text(version, state, length, origin, rows) -> bytes: one route's status and reason fields; rows a "
     "list of (network, length, maxLength, ASN), most specific first"},
    {NULL, NULL, 0, NULL},
};
