/* The lines of routes.csv (bgpsim.validate.check): route i's line is head[k], its prefix as text,
 * then own[i] when it has a line end of its own (an invalid route's reason, a bogon's finding),
 * else mid[k] + state[status[i]] + tail[k], for its group k = group[i]. The fields a group's routes
 * share are made once per group in Python; the prefixes and the joining are done here. */
#include "core.h"
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

static PyObject *csv_rows(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cols[8], *lists[5];
    Py_buffer v[8];
    static const Py_ssize_t SIZE[8] = {8, 1, 1, 8, 8, 1, 8, 0};
    static const char *const NAME[8] = {"group", "status", "afi", "hi", "lo", "plen", "own_index"};
    piece *p[5] = {0};
    Py_ssize_t np_[5], n, nown;
    PyObject *out = NULL;
    int got = 0;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOO", &cols[0], &cols[1], &cols[2], &cols[3], &cols[4], &cols[5],
                          &lists[0], &lists[1], &lists[2], &lists[3], &cols[6], &lists[4]))
        return NULL;
    n = PyObject_Length(cols[0]);
    nown = PyObject_Length(lists[4]);
    if (n < 0 || nown < 0)
        return NULL;
    for (; got < 7; got++)
        if (array_view(cols[got], &v[got], SIZE[got], got < 6 ? n : nown, NAME[got]) < 0)
            goto done;
    for (int k = 0; k < 5; k++)
        if ((p[k] = pieces(lists[k], &np_[k])) == NULL)
            goto done;
    const int64_t *group = v[0].buf, *own = v[6].buf;
    const uint8_t *status = v[1].buf, *afi = v[2].buf, *plen = v[5].buf;
    const uint64_t *hi = v[3].buf, *lo = v[4].buf;
    for (Py_ssize_t i = 0; i < n; i++)  /* every index in range before the GIL goes */
        if (group[i] < 0 || group[i] >= np_[0] || group[i] >= np_[1] || group[i] >= np_[3] || status[i] >= np_[2]
            || (afi[i] != 1 && afi[i] != 2) || plen[i] > (afi[i] == 1 ? 32 : 128)) {
            PyErr_Format(PyExc_ValueError, "route %zd: group, status, afi or length out of range", i);
            goto done;
        }
    for (Py_ssize_t j = 0; j < nown; j++)
        if (own[j] < 0 || own[j] >= n || (j && own[j] <= own[j - 1])) {
            PyErr_SetString(PyExc_ValueError, "own_index: want increasing route numbers");
            goto done;
        }
    column c = {0};
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t j = 0;
    char text[PREFIX_TEXT_MAX];
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t k = group[i];
        int t = prefix_text(afi[i], hi[i], lo[i], plen[i], text);
        column_put(&c, p[0][k].p, p[0][k].n);
        column_put(&c, text, t);
        if (j < nown && own[j] == i) {
            column_put(&c, p[4][j].p, p[4][j].n);
            j++;
        } else {
            column_put(&c, p[1][k].p, p[1][k].n);
            column_put(&c, p[2][status[i]].p, p[2][status[i]].n);
            column_put(&c, p[3][k].p, p[3][k].n);
        }
    }
    Py_END_ALLOW_THREADS
    out = column_take(&c);
done:
    for (int k = 0; k < got; k++)
        PyBuffer_Release(&v[k]);
    for (int k = 0; k < 5; k++)
        PyMem_Free(p[k]);
    return out;
}

static PyObject *prefix_texts(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cols[4];
    Py_buffer v[4];
    static const Py_ssize_t SIZE[4] = {1, 8, 8, 1};
    static const char *const NAME[4] = {"afi", "hi", "lo", "plen"};
    int got = 0;
    PyObject *out = NULL;
    if (!PyArg_ParseTuple(args, "OOOO", &cols[0], &cols[1], &cols[2], &cols[3]))
        return NULL;
    Py_ssize_t n = PyObject_Length(cols[0]);
    if (n < 0)
        return NULL;
    for (; got < 4; got++)
        if (array_view(cols[got], &v[got], SIZE[got], n, NAME[got]) < 0)
            goto done;
    const uint8_t *afi = v[0].buf, *plen = v[3].buf;
    const uint64_t *hi = v[1].buf, *lo = v[2].buf;
    if ((out = PyList_New(n)) == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        char text[PREFIX_TEXT_MAX];
        if ((afi[i] != 1 && afi[i] != 2) || plen[i] > (afi[i] == 1 ? 32 : 128)) {
            Py_CLEAR(out);
            PyErr_Format(PyExc_ValueError, "route %zd: afi or length out of range", i);
            goto done;
        }
        PyObject *s = PyUnicode_FromStringAndSize(text, prefix_text(afi[i], hi[i], lo[i], plen[i], text));
        if (s == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i, s);
    }
done:
    for (int k = 0; k < got; k++)
        PyBuffer_Release(&v[k]);
    return out;
}

PyMethodDef rows_methods[] = {
    {"csv_rows", csv_rows, METH_VARARGS,
     "csv_rows(group, status, afi, hi, lo, plen, head, mid, state, tail, own_index, own) -> bytes: routes.csv "
     "lines (columns int64, uint8, uint8, uint64, uint64, uint8; lists of bytes; own_index int64 increasing)"},
    {"prefix_texts", prefix_texts, METH_VARARGS,
     "prefix_texts(afi, hi, lo, plen) -> list[str]: each prefix as bgpdump writes it"},
    {NULL, NULL, 0, NULL},
};
