/* RisReader (rislive.h): the batch of rows a message adds to, the peers numbered for good, the
 * watch list, and the type's methods. */
#include "rislive.h"

#include <structmember.h>

/* the message's peer numbered: 0, or -1 and MemoryError */
int ris_number_peer(RisReader *r)
{
    r->peer = intern_key(&r->peers, &r->pending, sizeof r->pending);
    return r->peer < 0 ? (PyErr_NoMemory(), -1) : 0;
}

/* ---- the watch list, and the rows -------------------------------------------------------------- */

/* a watched prefix covers (afi, hi, lo, plen): a binary search in the run of each watched length up
 * to plen */
static int covered(RisReader *r, int afi, uint64_t hi, uint64_t lo, unsigned plen)
{
    int k = afi - 1;
    for (int run = 0; run < r->nruns[k] && r->wlen[k][r->run[k][run]] <= plen; run++) {
        Py_ssize_t a = r->run[k][run], b = r->run[k][run + 1], end = b;
        uint64_t h = hi, l = lo;
        ris_masked(afi, r->wlen[k][a], &h, &l);
        while (a < b) {
            Py_ssize_t mid = a + (b - a) / 2;
            if (r->whi[k][mid] < h || (r->whi[k][mid] == h && r->wlo[k][mid] < l))
                a = mid + 1;
            else
                b = mid;
        }
        if (a < end && r->whi[k][a] == h && r->wlo[k][a] == l)
            return 1;
    }
    return 0;
}

/* a watched AS in the path words */
int ris_watched_as(RisReader *r)
{
    const uint32_t *w = (const uint32_t *)r->words.data;
    Py_ssize_t n = r->words.len / 4;
    if (!r->nwasn)
        return 0;
    for (Py_ssize_t i = 0; i + 2 <= n; i += 2 + w[i + 1])
        for (uint32_t k = 0; k < w[i + 1]; k++) {
            uint32_t a = w[i + 2 + k];
            Py_ssize_t lo = 0, hi = r->nwasn;
            while (lo < hi) {
                Py_ssize_t mid = lo + (hi - lo) / 2;
                if (r->wasn[mid] < a)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < r->nwasn && r->wasn[lo] == a)
                return 1;
        }
    return 0;
}

void ris_row(msg *m, uint8_t kind, int afi, uint64_t hi, uint64_t lo, unsigned plen, int hit)
{
    RisReader *r = m->r;
    COLUMN_PUT(&r->kind, uint8_t, kind);
    COLUMN_PUT(&r->afi, uint8_t, (uint8_t)afi);
    COLUMN_PUT(&r->hi, uint64_t, hi);
    COLUMN_PUT(&r->lo, uint64_t, lo);
    COLUMN_PUT(&r->plen, uint8_t, (uint8_t)plen);
    COLUMN_PUT(&r->group, int32_t, (int32_t)r->groups);
    if (hit || covered(r, afi, hi, lo, plen))
        COLUMN_PUT(&r->hits, int64_t, (int64_t)r->rows);
    r->rows++;
}

/* the rows and group of the last message forgotten */
void ris_truncate(RisReader *r)
{
    column *rows[] = {&r->kind, &r->afi, &r->hi, &r->lo, &r->plen, &r->group};
    column *groups[] = {&r->gtime, &r->gusec, &r->gpeer, &r->gpath, &r->gfirst, &r->gorigin};
    static const Py_ssize_t row_size[] = {1, 1, 8, 8, 1, 4}, group_size[] = {8, 8, 4, 8, 8, 8};
    for (int k = 0; k < 6; k++) {
        if (rows[k]->len > r->last_rows * row_size[k])
            rows[k]->len = r->last_rows * row_size[k];
        if (groups[k]->len > r->last_groups * group_size[k])
            groups[k]->len = r->last_groups * group_size[k];
    }
    r->rows = r->last_rows, r->groups = r->last_groups;
    r->hits.len = 0;
}

/* ---- the type ---------------------------------------------------------------------------------- */

static PyObject *reader_undo(RisReader *r, PyObject *unused)
{
    (void)unused;
    ris_truncate(r);
    Py_RETURN_NONE;
}

static PyObject *reader_watched(RisReader *r, PyObject *unused)
{
    (void)unused;
    Py_ssize_t n = r->hits.len / 8;
    PyObject *rows = PyList_New(n);
    if (rows == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t k = ((const int64_t *)r->hits.data)[i];
        PyObject *t = Py_BuildValue("(iiKKi)", ((uint8_t *)r->kind.data)[k], ((uint8_t *)r->afi.data)[k],
                                    (unsigned long long)((uint64_t *)r->hi.data)[k],
                                    (unsigned long long)((uint64_t *)r->lo.data)[k], ((uint8_t *)r->plen.data)[k]);
        if (t == NULL) {
            Py_DECREF(rows);
            return NULL;
        }
        PyList_SET_ITEM(rows, i, t);
    }
    PyObject *usec = r->usec < 0 ? Py_NewRef(Py_None) : PyLong_FromLongLong(r->usec);
    return Py_BuildValue("(LNny#LN)", (long long)r->time, usec, r->peer, r->words.data ? r->words.data : "",
                         r->words.len, (long long)r->origin, rows);
}

static PyObject *reader_take(RisReader *r, PyObject *unused)
{
    (void)unused;
    static const char *const NAMES[] = {"kind", "afi", "hi", "lo", "plen", "group", "time", "usec", "peer", "path",
                                        "first", "origin"};
    column *c[] = {&r->kind, &r->afi, &r->hi, &r->lo, &r->plen, &r->group, &r->gtime, &r->gusec, &r->gpeer,
                   &r->gpath, &r->gfirst, &r->gorigin};
    if (r->rows == 0)
        Py_RETURN_NONE;
    PyObject *out = PyDict_New(), *paths = intern_list(&r->paths);
    if (out == NULL || paths == NULL || PyDict_SetItemString(out, "paths", paths) < 0)
        goto fail;
    Py_DECREF(paths);
    for (int k = 0; k < 12; k++) {
        PyObject *v = column_take(c[k]);
        if (v == NULL || PyDict_SetItemString(out, NAMES[k], v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(v);
    }
    intern_free(&r->paths);
    r->rows = r->groups = r->last_rows = r->last_groups = 0;
    r->hits.len = 0;
    return out;
fail:
    Py_XDECREF(out), Py_XDECREF(paths);
    return NULL;
}

static PyObject *reader_peer(RisReader *r, PyObject *arg)
{
    Py_ssize_t i = PyLong_AsSsize_t(arg);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= r->peers.n)
        return PyErr_Format(PyExc_IndexError, "no peer %zd", i);
    peer_key p = intern_peer_at(&r->peers, i);
    return Py_BuildValue("(y#I)", p.addr, (Py_ssize_t)p.alen, p.asn);
}

static int by_prefix(const void *x, const void *y)
{
    const uint64_t *a = x, *b = y;  /* (length, hi, lo) */
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return 0;
}

static int by_asn(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* watch(prefixes, asns): prefixes an iterable of (afi, hi, lo, plen), asns of AS numbers */
static PyObject *reader_watch(RisReader *r, PyObject *args)
{
    PyObject *prefixes, *asns;
    if (!PyArg_ParseTuple(args, "OO", &prefixes, &asns))
        return NULL;
    PyObject *p = PySequence_Fast(prefixes, "watch: want a sequence of (afi, hi, lo, plen)");
    PyObject *a = p == NULL ? NULL : PySequence_Fast(asns, "watch: want a sequence of AS numbers");
    if (a == NULL) {
        Py_XDECREF(p);
        return NULL;
    }
    Py_ssize_t np = PySequence_Fast_GET_SIZE(p), na = PySequence_Fast_GET_SIZE(a);
    uint64_t *e = PyMem_Calloc((size_t)np + 1, 3 * sizeof *e);
    uint32_t *w = PyMem_Calloc((size_t)na + 1, sizeof *w);
    int afis[2] = {0, 0};
    if (e == NULL || w == NULL)
        goto nomem;
    for (Py_ssize_t i = 0; i < np; i++) {
        int afi;
        unsigned long long hi, lo;
        unsigned plen;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(p, i), "iKKI", &afi, &hi, &lo, &plen))
            goto fail;
        if ((afi != 1 && afi != 2) || plen > (afi == 2 ? 128u : 32u)) {
            PyErr_SetString(PyExc_ValueError, "watch: want afi 1 or 2 and a length the address holds");
            goto fail;
        }
        uint64_t h = hi, l = lo;
        ris_masked(afi, plen, &h, &l);
        e[3 * i] = (uint64_t)afi << 8 | plen, e[3 * i + 1] = h, e[3 * i + 2] = l;
        afis[afi - 1]++;
    }
    for (Py_ssize_t i = 0; i < na; i++) {
        unsigned long v = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(a, i));
        if ((v == (unsigned long)-1 && PyErr_Occurred()) || v > 0xFFFFFFFFul) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "watch: want AS numbers");
            goto fail;
        }
        w[i] = (uint32_t)v;
    }
    qsort(e, (size_t)np, 3 * sizeof *e, by_prefix);  /* by AFI, then length, then address */
    qsort(w, (size_t)na, sizeof *w, by_asn);
    for (int k = 0; k < 2; k++) {
        PyMem_Free(r->whi[k]), PyMem_Free(r->wlo[k]), PyMem_Free(r->wlen[k]);
        r->whi[k] = PyMem_Malloc((size_t)afis[k] * 8 + 8), r->wlo[k] = PyMem_Malloc((size_t)afis[k] * 8 + 8);
        r->wlen[k] = PyMem_Malloc((size_t)afis[k] + 1);
        r->wn[k] = 0, r->nruns[k] = 0;
        if (r->whi[k] == NULL || r->wlo[k] == NULL || r->wlen[k] == NULL)
            goto nomem;
    }
    for (Py_ssize_t i = 0; i < np; i++) {
        int k = (int)(e[3 * i] >> 8) - 1;
        Py_ssize_t at = r->wn[k];
        uint8_t len = (uint8_t)e[3 * i];
        if (at > 0 && r->wlen[k][at - 1] == len && r->whi[k][at - 1] == e[3 * i + 1] && r->wlo[k][at - 1] == e[3 * i + 2])
            continue;  /* twice */
        if (at == 0 || r->wlen[k][at - 1] != len)
            r->run[k][r->nruns[k]++] = at;
        r->wlen[k][at] = len, r->whi[k][at] = e[3 * i + 1], r->wlo[k][at] = e[3 * i + 2];
        r->wn[k]++;
    }
    for (int k = 0; k < 2; k++)
        r->run[k][r->nruns[k]] = r->wn[k];
    PyMem_Free(r->wasn);
    r->wasn = w, r->nwasn = na;
    PyMem_Free(e);
    Py_DECREF(p), Py_DECREF(a);
    Py_RETURN_NONE;
nomem:
    PyErr_NoMemory();
fail:
    PyMem_Free(e), PyMem_Free(w);
    Py_DECREF(p), Py_DECREF(a);
    return NULL;
}

static int reader_init(RisReader *r, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "", kwlist))
        return -1;
    if (r->m == NULL && (r->m = PyMem_Calloc(1, sizeof *r->m)) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void reader_dealloc(RisReader *r)
{
    column *c[] = {&r->kind, &r->afi, &r->hi, &r->lo, &r->plen, &r->group, &r->gtime, &r->gusec, &r->gpeer,
                   &r->gpath, &r->gfirst, &r->gorigin, &r->hits, &r->words};
    for (size_t k = 0; k < sizeof c / sizeof *c; k++)
        column_free(c[k]);
    intern_free(&r->paths), intern_free(&r->peers);
    for (int k = 0; k < 2; k++)
        PyMem_Free(r->whi[k]), PyMem_Free(r->wlo[k]), PyMem_Free(r->wlen[k]);
    PyMem_Free(r->wasn);
    PyMem_Free(r->m);
    Py_TYPE(r)->tp_free((PyObject *)r);
}

static PyMethodDef reader_methods[] = {
    {"read", (PyCFunction)ris_read, METH_O,
     "read(payload) -> (kind, type, id, rows, hits, extra, names): one RIS Live message (bytes). kind: the envelope's type in lower case ('ris_message' for a bare data object); type: "
     "a ris_message's data type in upper case (RIS_PEER_STATE for STATE), else None; id: the data's id string or "
     "None; rows: the rows an UPDATE added to the batch; hits: how many of them watched() gives; extra: a "
     "server message's data as JSON bytes, a peer state's (time, usec or None, peer, BGP FSM state), an UPDATE's "
     "(group, BGPsec_PATH hex, bgpsec_target or None) when it has one, else None; names: the names not written in "
     "lower case, or None. A fault: ValueError((format, key or None, value or None)), the batch unchanged"},
    {"undo", (PyCFunction)reader_undo, METH_NOARGS, "undo(): the last message's rows taken out of the batch"},
    {"watched", (PyCFunction)reader_watched, METH_NOARGS,
     "watched() -> (time, usec or None, peer, path words, origin, [(kind, afi, hi, lo, plen), ...]): the last "
     "UPDATE's rows a watched prefix covers (or, announced, with a watched AS in the path)"},
    {"take", (PyCFunction)reader_take, METH_NOARGS,
     "take() -> dict or None: the batch's columns as bytes (rows: kind uint8 0 announced 1 withdrawn, afi uint8, "
     "hi lo uint64, plen uint8, group int32; groups: time usec int64, peer int32, path first origin int64) and "
     "'paths', the path words each group's `path` indexes; the batch is then empty"},
    {"peer", (PyCFunction)reader_peer, METH_O, "peer(i) -> (address bytes, AS): the peer numbered i"},
    {"watch", (PyCFunction)reader_watch, METH_VARARGS,
     "watch(prefixes, asns): what watched() looks for: prefixes as (afi, hi, lo, plen), AS numbers"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef reader_members[] = {
    {"rows", T_PYSSIZET, offsetof(RisReader, rows), READONLY, "rows in the batch"},
    {"peers", T_PYSSIZET, offsetof(RisReader, peers.n), READONLY, "peers numbered so far"},
    {NULL, 0, 0, 0, NULL},
};

PyTypeObject RisReaderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bgpsim._core.RisReader",
    .tp_basicsize = sizeof(RisReader),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "RisReader(): RIS Live messages read into the columns `bgpsim validate` checks (core/rislive.c)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)reader_init,
    .tp_dealloc = (destructor)reader_dealloc,
    .tp_methods = reader_methods,
    .tp_members = reader_members,
};

int ris_reader_add_type(PyObject *module)
{
    if (PyType_Ready(&RisReaderType) < 0)
        return -1;
    S_UPDATE = PyUnicode_InternFromString("UPDATE");
    S_PEER_STATE = PyUnicode_InternFromString("RIS_PEER_STATE");
    S_RIS_MESSAGE = PyUnicode_InternFromString("ris_message");
    if (S_UPDATE == NULL || S_PEER_STATE == NULL || S_RIS_MESSAGE == NULL)
        return -1;
    Py_INCREF(&RisReaderType);
    return PyModule_AddObject(module, "RisReader", (PyObject *)&RisReaderType);
}
