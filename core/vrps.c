/* read_vrps: a relying party's VRP file (CSV of any flavour, or rpki-client or Routinator JSON) as
 * columns, for rpki.vrps.read. Parsed without the GIL; a fault is raised as
 * ValueError(format, where, *values): the caller words it (rpki.vrps.read.core_fault). */
#include <stddef.h>

#include "vrps.h"

static const char *const COLUMNS[] = {"asn", "version", "hi", "lo", "plen", "maxlen", "ta", "expires"};
enum { NCOLUMNS = sizeof COLUMNS / sizeof *COLUMNS };
/* where each is in vrp_columns, and the bytes a VRP takes in it (put_vrp) */
static const size_t AT[NCOLUMNS] = {offsetof(vrp_columns, asn), offsetof(vrp_columns, version),
                                    offsetof(vrp_columns, hi), offsetof(vrp_columns, lo), offsetof(vrp_columns, plen),
                                    offsetof(vrp_columns, maxlen), offsetof(vrp_columns, ta),
                                    offsetof(vrp_columns, expires)};
static const Py_ssize_t WIDTH[NCOLUMNS] = {4, 1, 8, 8, 1, 1, 2, 8};

static column *column_of(vrp_columns *o, int k)
{
    return (column *)((char *)o + AT[k]);
}

static PyObject *where_of(const fault *f, const unsigned char *p)
{
    switch (f->where) {
    case WHERE_LINE:
        return PyLong_FromSsize_t(f->line);
    case WHERE_POSITION: {  /* an offset: line and column (characters, from 1) */
        Py_ssize_t line = 1, column = 1;
        for (Py_ssize_t i = 0; i < f->line; i++) {
            if (p[i] == '\n')
                line++, column = 1;
            else if ((p[i] & 0xC0) != 0x80)
                column++;
        }
        return PyUnicode_FromFormat("%zd:%zd", line, column);
    }
    case WHERE_PATH:
        return PyUnicode_FromString(f->path);
    default:
        Py_RETURN_NONE;
    }
}

static PyObject *raise_fault(const fault *f, const unsigned char *p)
{
    PyObject *args = PyTuple_New(2 + f->nvalues);
    if (args == NULL)
        return NULL;
    PyTuple_SET_ITEM(args, 0, PyUnicode_FromString(f->format));
    PyTuple_SET_ITEM(args, 1, where_of(f, p));
    for (int i = 0; i < f->nvalues; i++) {
        const fault_value *v = &f->values[i];
        const char *s = (const char *)f->store + v->at;
        PyObject *o;
        if (v->kind == VALUE_INT)
            o = PyLong_FromLongLong(v->number);
        else if (v->kind == VALUE_TEXT)
            o = PyUnicode_DecodeUTF8(s, v->n, "replace");
        else
            o = Py_BuildValue("(sy#)", v->kind == VALUE_JSON ? "json" : "kind", s, v->n);
        PyTuple_SET_ITEM(args, 2 + i, o);
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++)
        if (PyTuple_GET_ITEM(args, i) == NULL) {
            Py_DECREF(args);
            return NULL;
        }
    PyErr_SetObject(PyExc_ValueError, args);
    Py_DECREF(args);
    return NULL;
}

void vrp_columns_release(vrp_columns *o)
{
    for (int k = 0; k < NCOLUMNS; k++)
        column_free(column_of(o, k));
    for (int t = 0; t < o->ntas; t++)
        PyMem_RawFree(o->tas[t].name);
    o->ntas = 0;
}

/* b's VRPs after o's (those of a file's second half, read by another thread), b's trust anchors
 * added to o's as met at `where` (the line or ROA number of b's first) plus their own: -1 if they
 * do not fit (too many trust anchors, no memory; f says which), none of b's VRPs then taken */
int vrp_columns_join(vrp_columns *o, vrp_columns *b, Py_ssize_t where, fault *f)
{
    uint16_t map[MAX_TAS];
    for (int t = 0; t < b->ntas; t++)
        if (add_ta(o, (const unsigned char *)b->tas[t].name, b->tas[t].len, where + b->tas[t].line, f, &map[t]) < 0)
            return -1;
    for (int k = 0; k < NCOLUMNS; k++)
        if (column_reserve(column_of(o, k), column_of(b, k)->len) < 0) {
            fault_set(f, "out of memory");
            return -1;
        }
    Py_ssize_t from = o->ta.len / 2;
    for (int k = 0; k < NCOLUMNS; k++)
        column_put(column_of(o, k), column_of(b, k)->data, column_of(b, k)->len);
    uint16_t *ta = (uint16_t *)o->ta.data;
    for (Py_ssize_t i = from; i < o->ta.len / 2; i++)
        ta[i] = map[ta[i]];
    o->count += b->count;
    return 0;
}

/* the columns as a dict (their memory goes to the bytes objects; the caller frees the rest of o) */
static PyObject *result(vrp_columns *o, const char *format, const json_doc *d)
{
    PyObject *out = PyDict_New(), *v;
    if (out == NULL)
        return NULL;
    for (int k = 0; k < NCOLUMNS; k++) {
        if ((v = column_take(column_of(o, k))) == NULL || PyDict_SetItemString(out, COLUMNS[k], v) < 0)
            goto fail;
        Py_DECREF(v);
    }
    if ((v = PyList_New(o->ntas)) == NULL)
        goto fail;
    for (int t = 0; t < o->ntas; t++)
        PyList_SET_ITEM(v, t, Py_BuildValue("(Nn)", PyUnicode_DecodeUTF8(o->tas[t].name, o->tas[t].len, "replace"),
                                            o->tas[t].line));
    if (PyDict_SetItemString(out, "tas", v) < 0)
        goto fail;
    Py_DECREF(v);
    if ((v = PyUnicode_FromString(format)) == NULL || PyDict_SetItemString(out, "format", v) < 0)
        goto fail;
    Py_DECREF(v);
    if (d != NULL) {
        if ((v = PyList_New(d->nspans)) == NULL)
            goto fail;
        for (int i = 0; i < d->nspans; i++)
            PyList_SET_ITEM(v, i, Py_BuildValue("(snnii)", d->spans[i].key, d->spans[i].start, d->spans[i].end,
                                                d->spans[i].duplicate, d->spans[i].read));
        if (PyDict_SetItemString(out, "spans", v) < 0)
            goto fail;
        Py_DECREF(v);
        v = Py_BuildValue("{s:n,s:n,s:n,s:n,s:(nn)}", "with_source", d->with_source, "with_expires", d->with_expires,
                          "with_ta_and_source", d->with_ta_and_source, "without_ta_or_source",
                          d->without_ta_or_source, "top", d->top_start, d->top_end);
        if (v == NULL || PyDict_SetItemString(out, "roas", v) < 0)
            goto fail;
        Py_DECREF(v);
    }
    return out;
fail:
    Py_XDECREF(v);
    Py_DECREF(out);
    return NULL;
}

/* Room for the VRPs a file of n bytes may hold, so that the columns are not copied as they grow:
 * a VRP takes some 40 bytes of CSV and more of JSON; room never touched costs no memory. A file
 * denser than that grows its columns as ever. */
void vrp_columns_reserve(vrp_columns *o, Py_ssize_t n)
{
    Py_ssize_t vrps = n / 32 + 16;
    for (int k = 0; k < NCOLUMNS; k++)
        column_reserve(column_of(o, k), vrps * WIDTH[k]);  /* a failure here shows when the column is filled */
}

static PyObject *read_vrps(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *p = view.buf;
    Py_ssize_t n = view.len, bad;
    vrp_columns *o = PyMem_RawCalloc(1, sizeof *o);
    fault *f = PyMem_RawCalloc(1, sizeof *f);
    json_doc d;
    const char *format = "json";
    int rc, is_json = 0;
    PyObject *out = NULL;
    if (o == NULL || f == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    vrp_columns_reserve(o, n);
    Py_BEGIN_ALLOW_THREADS
    bad = utf8_check(p, n);
    if (bad < 0) {
        Py_ssize_t i = 0;
        while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
            i++;
        is_json = i < n && (p[i] == '{' || p[i] == '[');
        rc = is_json ? read_vrp_json(p, n, o, &d, f) : read_vrp_csv(p, n, o, f, &format);
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0) {  /* rpki.vrps.files.decode_text's fault */
        Py_ssize_t line = 1;
        for (Py_ssize_t i = 0; i < bad; i++)
            line += p[i] == '\n';
        fault_set(f, "not UTF-8 (byte {})");
        fault_int(f, bad);
        f->where = WHERE_LINE, f->line = line;
        raise_fault(f, p);
    } else if (rc < 0) {
        raise_fault(f, p);
    } else {
        out = result(o, format, is_json ? &d : NULL);
    }
done:
    if (o != NULL)
        vrp_columns_release(o);
    PyMem_RawFree(o);
    PyMem_RawFree(f);
    PyBuffer_Release(&view);
    return out;
}

PyMethodDef vrps_methods[] = {
    {"read_vrps", read_vrps, METH_O,
     "read_vrps(data) -> dict: the VRPs of a CSV or JSON relying-party file, as columns"},
    {NULL, NULL, 0, NULL},
};
