/* The lines of routes.csv (bgpsim.validate.check). Route i of group k = group[i] is written
 *
 *   time[k][.usec[k]] peers[peer[k]] prefix paths.post(post[k]) states[status[i]] tails[tail[k]]
 *
 * but for a route with a status of its own (why[j] for i = why_index[j]: an invalid route's status and
 * reason) or a line end of its own (end[j] for i = end_index[j]: a bogon's finding, a BGPsec verdict),
 * which take the place of states[status[i]] or tails[tail[k]]. The time is bgpdump's, with the
 * microseconds of a BGP4MP_ET record (none where usec[k] is negative). What a group's fields hold is made once per peer
 * and per ASPA verdict and findings in Python, and per AS path in the PathTable (pathtable.c); nothing
 * here is per group in Python. */
#include "core.h"
#include "pathtable.h"
#include "text.h"

typedef struct {
    const char *p;
    Py_ssize_t n;
} piece;

/* the bytes objects of a list, as pieces (NULL and an exception if one is not bytes) */
static piece *pieces(PyObject *list, Py_ssize_t *count)
{
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "want a list of bytes");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(list);
    piece *out = PyMem_Malloc(sizeof *out * (size_t)(n ? n : 1));
    if (out == NULL)
        return (piece *)PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *b = PyList_GET_ITEM(list, i);
        if (!PyBytes_Check(b)) {
            PyMem_Free(out);
            PyErr_SetString(PyExc_TypeError, "want a list of bytes");
            return NULL;
        }
        out[i] = (piece){PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b)};
    }
    *count = n;
    return out;
}

/* "time" or "time.usec" (usec zero-padded to six digits at least), as Python's f"{t}.{u:06d}", into
 * b (48 bytes); its length */
static int time_text(char *b, int64_t t, int64_t usec)
{
    if (t < 0)  /* no dump has such times; written all the same */
        return usec >= 0 ? snprintf(b, 48, "%lld.%06lld", (long long)t, (long long)usec)
                         : snprintf(b, 48, "%lld", (long long)t);
    int m = decimal_text((uint64_t)t, 1, b);
    if (usec >= 0) {
        b[m++] = '.';
        m += decimal_text((uint64_t)usec, 6, b + m);
    }
    return m;
}

enum { R_GROUP, R_STATUS, R_AFI, R_HI, R_LO, R_PLEN, G_TIME, G_USEC, G_PEER, G_POST, G_TAIL, WHY_INDEX, END_INDEX,
       NCOLS };
enum { L_PEERS, L_STATES, L_TAILS, L_WHY, L_END, NLISTS };

static inline char *put(char *o, const char *p, Py_ssize_t n)
{
    memcpy(o, p, (size_t)n);
    return o + n;
}

/* the route numbers of an override list: increasing, each a route's */
static int increasing(const int64_t *at, Py_ssize_t n, Py_ssize_t routes, const char *name)
{
    for (Py_ssize_t j = 0; j < n; j++)
        if (at[j] < 0 || at[j] >= routes || (j && at[j] <= at[j - 1])) {
            PyErr_Format(PyExc_ValueError, "%s: want increasing route numbers", name);
            return -1;
        }
    return 0;
}

static PyObject *csv_rows(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cols[NCOLS], *lists[NLISTS], *paths;
    Py_buffer v[NCOLS];
    static const Py_ssize_t SIZE[NCOLS] = {8, 1, 1, 8, 8, 1, 8, 8, 8, 8, 8, 8, 8};
    static const char *const NAME[NCOLS] = {"group", "status", "afi", "hi", "lo", "plen", "time", "usec", "peer",
                                            "post", "tail", "why_index", "end_index"};
    piece *p[NLISTS] = {0};
    Py_ssize_t len[NLISTS], size[NCOLS];
    PyObject *out = NULL;
    int got = 0;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOOOOO", &cols[R_GROUP], &cols[R_STATUS], &cols[R_AFI], &cols[R_HI],
                          &cols[R_LO], &cols[R_PLEN], &cols[G_TIME], &cols[G_USEC], &cols[G_PEER], &cols[G_POST],
                          &cols[G_TAIL], &lists[L_PEERS], &paths, &lists[L_STATES], &lists[L_TAILS],
                          &cols[WHY_INDEX], &lists[L_WHY], &cols[END_INDEX], &lists[L_END]))
        return NULL;
    if (!PyObject_TypeCheck(paths, &PathTableType)) {
        PyErr_SetString(PyExc_TypeError, "paths: want a PathTable");
        return NULL;
    }
    Py_ssize_t n = PyObject_Length(cols[R_GROUP]), ng = PyObject_Length(cols[G_TIME]),
               nwhy = PyObject_Length(lists[L_WHY]), nend = PyObject_Length(lists[L_END]);
    if (n < 0 || ng < 0 || nwhy < 0 || nend < 0)
        return NULL;
    for (int k = 0; k < NCOLS; k++)
        size[k] = k < G_TIME ? n : k < WHY_INDEX ? ng : k == WHY_INDEX ? nwhy : nend;
    for (; got < NCOLS; got++)
        if (array_view(cols[got], &v[got], SIZE[got], size[got], NAME[got]) < 0)
            goto done;
    for (int k = 0; k < NLISTS; k++)
        if ((p[k] = pieces(lists[k], &len[k])) == NULL)
            goto done;
    const int64_t *group = v[R_GROUP].buf, *why = v[WHY_INDEX].buf, *end = v[END_INDEX].buf, *time = v[G_TIME].buf,
                  *usec = v[G_USEC].buf, *peer = v[G_PEER].buf, *post = v[G_POST].buf, *tail = v[G_TAIL].buf;
    const uint8_t *status = v[R_STATUS].buf, *afi = v[R_AFI].buf, *plen = v[R_PLEN].buf;
    const uint64_t *hi = v[R_HI].buf, *lo = v[R_LO].buf;
    const char *pp;
    Py_ssize_t pn;
    for (Py_ssize_t k = 0; k < ng; k++)  /* every index in range before the GIL goes */
        if (peer[k] < 0 || peer[k] >= len[L_PEERS] || path_table_post(paths, post[k], &pp, &pn) < 0 || tail[k] < 0
            || tail[k] >= len[L_TAILS]) {
            PyErr_Format(PyExc_ValueError, "group %zd: peer, post or tail out of range", k);
            goto done;
        }
    for (Py_ssize_t i = 0; i < n; i++)
        if (group[i] < 0 || group[i] >= ng || status[i] >= len[L_STATES] || (afi[i] != 1 && afi[i] != 2)
            || plen[i] > (afi[i] == 1 ? 32 : 128)) {
            PyErr_Format(PyExc_ValueError, "route %zd: group, status, afi or length out of range", i);
            goto done;
        }
    if (increasing(why, nwhy, n, "why_index") < 0 || increasing(end, nend, n, "end_index") < 0)
        goto done;
    /* the exact length first, so that the lines are written once, straight into the bytes object:
     * no growing buffer copied as it doubles, and no copy of it made while the GIL is held */
    Py_ssize_t *glen = PyMem_RawMalloc(sizeof *glen * (size_t)(ng ? ng : 1)), total = 0, j = 0, m = 0;
    if (glen == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    char text[PREFIX_TEXT_MAX], when[48];
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < ng; k++) {  /* what each route of group k has of its group's */
        path_table_post(paths, post[k], &pp, &pn);
        glen[k] = time_text(when, time[k], usec[k]) + p[L_PEERS][peer[k]].n + pn;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        total += glen[group[i]] + prefix_text_length(afi[i], hi[i], lo[i], plen[i]);
        total += j < nwhy && why[j] == i ? p[L_WHY][j++].n : p[L_STATES][status[i]].n;
        total += m < nend && end[m] == i ? p[L_END][m++].n : p[L_TAILS][tail[group[i]]].n;
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(glen);
    out = PyBytes_FromStringAndSize(NULL, total);
    if (out == NULL)
        goto done;
    char *o = PyBytes_AS_STRING(out);
    Py_BEGIN_ALLOW_THREADS  /* the bytes object is this call's alone until it returns */
    j = m = 0;
    int64_t last = -1;  /* the group whose time is in `when`: a group's routes come one after another */
    int wn = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t k = group[i];
        const piece *pe = &p[L_PEERS][peer[k]];
        if (k != last)
            wn = time_text(when, time[k], usec[k]), last = k;
        o = put(o, when, wn);
        o = put(o, pe->p, pe->n);
        o = put(o, text, prefix_text(afi[i], hi[i], lo[i], plen[i], text));
        const piece *b = j < nwhy && why[j] == i ? &p[L_WHY][j++] : &p[L_STATES][status[i]];
        const piece *t = m < nend && end[m] == i ? &p[L_END][m++] : &p[L_TAILS][tail[k]];
        path_table_post(paths, post[k], &pp, &pn);
        o = put(o, pp, pn);
        o = put(o, b->p, b->n);
        o = put(o, t->p, t->n);
    }
    Py_END_ALLOW_THREADS
    if (o != PyBytes_AS_STRING(out) + total) {  /* the two passes disagree: a fault of this file */
        Py_CLEAR(out);
        PyErr_SetString(PyExc_SystemError, "csv_rows: the lines' length was worked out wrong");
    }
done:
    for (int k = 0; k < got; k++)
        PyBuffer_Release(&v[k]);
    for (int k = 0; k < NLISTS; k++)
        PyMem_Free(p[k]);
    return out;
}

PyMethodDef rows_methods[] = {
    {"csv_rows", csv_rows, METH_VARARGS,
     "csv_rows(group, status, afi, hi, lo, plen, time, usec, peer, post, tail, peers, paths, states, tails, "
     "why_index, why, end_index, end) -> bytes: routes.csv lines (route columns int64, uint8, uint8, uint64, "
     "uint64, uint8; group columns int64; paths a PathTable; lists of bytes; why_index and end_index int64 "
     "increasing: the routes whose status fields are why[j], whose line end is end[j])"},
    {NULL, NULL, 0, NULL},
};
