/* MOAS and sub-prefix conflicts (bgpsim.validate.conflicts, whose docstring says what each is) from
 * the distinct (prefix, origin + 1) rows of one IP version, sorted by network, length and origin:
 * one pass, the prefixes still open kept on a stack (prefixes nest or are disjoint, so the open ones
 * that hold the next prefix are a chain and its nearest is on top). A default route is nobody's
 * covering prefix: it covers every prefix and is nobody's. */
#include "core.h"
#include "text.h"

typedef struct {
    uint64_t hi, lo;
} u128;

static int before(u128 a, u128 b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }

/* the last address of a prefix of `bits` (32 or 128; IPv4 in lo) */
static u128 last(uint64_t hi, uint64_t lo, unsigned len, unsigned bits)
{
    unsigned host = bits - len;  /* bits of the host part: those of hi beyond 64 */
    if (host > 64)
        return (u128){hi | UINT64_MAX >> (128 - host), UINT64_MAX};
    return (u128){hi, lo | (host ? UINT64_MAX >> (64 - host) : 0)};
}

/* "a,b,c" of the origins of rows [from, to) */
static void put_origins(column *c, const uint64_t *origin1, Py_ssize_t from, Py_ssize_t to)
{
    for (Py_ssize_t r = from; r < to; r++) {
        if (r > from)
            column_put(c, ",", 1);
        column_put_u(c, origin1[r] - 1);
    }
}

static PyObject *origins_list(const uint64_t *origin1, Py_ssize_t from, Py_ssize_t to)
{
    PyObject *l = PyList_New(to - from);
    for (Py_ssize_t r = from; l != NULL && r < to; r++) {
        PyObject *o = PyLong_FromUnsignedLongLong(origin1[r] - 1);
        if (o == NULL)
            Py_CLEAR(l);
        else
            PyList_SET_ITEM(l, r - from, o);
    }
    return l;
}

static PyObject *conflicts(PyObject *self, PyObject *args)
{
    (void)self;
    int version;
    PyObject *cols[4], *moas = NULL, *subs = NULL, *out = NULL;
    Py_buffer v[4];
    static const Py_ssize_t SIZE[4] = {8, 8, 8, 8};
    static const char *const NAME[4] = {"hi", "lo", "length", "origin1"};
    Py_ssize_t *open = NULL, *pstart = NULL;
    column line = {0};
    int got = 0;
    if (!PyArg_ParseTuple(args, "iOOOO", &version, &cols[0], &cols[1], &cols[2], &cols[3]))
        return NULL;
    if (version != 4 && version != 6) {
        PyErr_SetString(PyExc_ValueError, "version: want 4 or 6");
        return NULL;
    }
    Py_ssize_t n = PyObject_Length(cols[0]);
    if (n < 0)
        return NULL;
    for (; got < 4; got++)
        if (array_view(cols[got], &v[got], SIZE[got], n, NAME[got]) < 0)
            goto done;
    const uint64_t *hi = v[0].buf, *lo = v[1].buf, *len = v[2].buf, *origin1 = v[3].buf;
    unsigned bits = version == 4 ? 32 : 128;
    for (Py_ssize_t r = 0; r < n; r++) {  /* what the pass below relies on */
        const uint64_t a[4] = {hi[r - !!r], lo[r - !!r], len[r - !!r], origin1[r - !!r]}, b[4] = {hi[r], lo[r], len[r],
                                                                                               origin1[r]};
        int k = 0;
        while (k < 4 && a[k] == b[k])
            k++;
        if (len[r] > bits || (version == 4 && (hi[r] || lo[r] >> 32)) || origin1[r] > (uint64_t)UINT32_MAX + 1
            || (r && (k == 4 || a[k] > b[k]))) {
            PyErr_Format(PyExc_ValueError, "row %zd: want distinct rows sorted by network, length and origin", r);
            goto done;
        }
    }
    /* prefix k: rows pstart[k] to pstart[k + 1]; its rows with an origin from `lead` on */
    if ((open = PyMem_Malloc(sizeof *open * (size_t)(n + 1))) == NULL
        || (pstart = PyMem_Malloc(sizeof *pstart * (size_t)(n + 1))) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t np_ = 0;
    for (Py_ssize_t r = 0; r < n; r++)
        if (!r || hi[r] != hi[r - 1] || lo[r] != lo[r - 1] || len[r] != len[r - 1])
            pstart[np_++] = r;
    pstart[np_] = n;
    if ((moas = PyList_New(0)) == NULL)
        goto done;
    Py_ssize_t nsubs = 0;
    Py_ssize_t depth = 0;
    char text[PREFIX_TEXT_MAX], cover[PREFIX_TEXT_MAX];
    int afi = version == 4 ? 1 : 2;
    for (Py_ssize_t k = 0; k < np_; k++) {
        Py_ssize_t r0 = pstart[k], r1 = pstart[k + 1], lead = r0 + (origin1[r0] == 0);
        int tn = -1;  /* the prefix as text, once a finding needs it (most prefixes have none) */
        if (r1 - lead > 1) {  /* more than one origin */
            tn = prefix_text(afi, hi[r0], lo[r0], (unsigned)len[r0], text);
            PyObject *t = PyUnicode_FromStringAndSize(text, tn), *o = origins_list(origin1, lead, r1);
            PyObject *pair = t && o ? PyTuple_Pack(2, t, o) : NULL;
            Py_XDECREF(t);
            Py_XDECREF(o);
            if (pair == NULL || PyList_Append(moas, pair) < 0) {
                Py_XDECREF(pair);
                goto done;
            }
            Py_DECREF(pair);
        }
        if (len[r0] == 0)  /* a default route: neither covered nor covering */
            continue;
        u128 start = {hi[r0], lo[r0]};
        while (depth) {  /* the open prefixes that end before this one starts are closed */
            Py_ssize_t q = pstart[open[depth - 1]];
            if (!before(last(hi[q], lo[q], (unsigned)len[q], bits), start))
                break;
            depth--;
        }
        if (depth) {
            Py_ssize_t c0 = pstart[open[depth - 1]], c1 = pstart[open[depth - 1] + 1];
            Py_ssize_t clead = c0 + (origin1[c0] == 0);
            int cn = -1;
            for (Py_ssize_t r = lead, j = clead; clead < c1 && r < r1; r++) {  /* origins both sorted */
                while (j < c1 && origin1[j] < origin1[r])
                    j++;
                if (j < c1 && origin1[j] == origin1[r])
                    continue;
                if (cn < 0)
                    cn = prefix_text(afi, hi[c0], lo[c0], (unsigned)len[c0], cover);
                if (tn < 0)
                    tn = prefix_text(afi, hi[r0], lo[r0], (unsigned)len[r0], text);
                if (nsubs++)
                    column_puts(&line, ",\n");
                column_puts(&line, "{\"kind\":\"subprefix\",\"prefix\":\"");
                column_put(&line, text, tn);
                column_puts(&line, "\",\"origin\":");
                column_put_u(&line, origin1[r] - 1);
                column_puts(&line, ",\"covering\":\"");
                column_put(&line, cover, cn);
                column_puts(&line, "\",\"covering_origins\":[");
                put_origins(&line, origin1, clead, c1);
                column_puts(&line, "]}");
            }
        }
        open[depth++] = k;
    }
    if (line.failed) {
        PyErr_NoMemory();
        goto done;
    }
    if ((subs = PyUnicode_DecodeASCII(line.data ? line.data : "", line.len, "strict")) != NULL)
        out = Py_BuildValue("(OOn)", moas, subs, nsubs);
done:
    Py_XDECREF(moas);
    Py_XDECREF(subs);
    PyMem_Free(open);
    PyMem_Free(pstart);
    column_free(&line);
    for (int k = 0; k < got; k++)
        PyBuffer_Release(&v[k]);
    return out;
}

PyMethodDef conflicts_methods[] = {
    {"conflicts", conflicts, METH_VARARGS,
     "conflicts(version, hi, lo, length, origin1) -> (moas, subprefix, n): from distinct (prefix, origin + 1) "
     "rows sorted (uint64 columns; IPv4 in lo), the MOAS prefixes as (text, origins) and the n sub-prefix findings "
     "as their findings.json lines, joined by ',\\n'"},
    {NULL, NULL, 0, NULL},
};
