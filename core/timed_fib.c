/* The speakers' forwarding toward one target address: each AS's FIB next hop, the longest match over
 * the prefixes that cover the target (most specific first), kept as the Loc-RIBs change. The data
 * plane (bgpsim.sim.dataplane) is told only when an AS's next hop changes: most Loc-RIB changes of a
 * covering prefix leave it where it was (a new path through the same neighbour). */
#include "timed.h"

static PyObject *str_blackhole;

/* Where AS i sends packets for the target: -1 nowhere (no route, a ROV++ blackhole, or a BLACKHOLE
 * route from the origin, RFC 7999), i itself (it originates the prefix), else the neighbour. */
static int next_hop(Speakers *S, int i, int *nh)
{
    for (int c = 0; c < S->fib.count; c++) {
        int p = S->fib.covering[c];
        PyObject *e = speakers_cell(S->loc, p, i);
        if (e == NULL)
            return -1;
        if (e == Py_None)
            continue;
        if (S->any_rovpp) { /* only ROV++ adopters make blackholes */
            long long pref = PyLong_AsLongLong(PyTuple_GET_ITEM(PyTuple_GET_ITEM(e, 0), 1));
            if (pref == -1 && PyErr_Occurred())
                return -1;
            if (pref >= S->hole_kept) { /* a ROV++ blackhole: dropped here */
                *nh = -1;
                return 0;
            }
        }
        long rel = PyLong_AsLong(PyTuple_GET_ITEM(e, 1));
        if (rel == -1 && PyErr_Occurred())
            return -1;
        if (rel == ORIGIN) {
            *nh = i;
            return 0;
        }
        PyObject *path = PyTuple_GET_ITEM(e, 2);
        PyObject *first = PyTuple_GET_ITEM(path, 0), *origin = PyTuple_GET_ITEM(path, PyTuple_GET_SIZE(path) - 1);
        if (PyDict_GET_SIZE(S->tagged) > 0 && PyObject_RichCompareBool(first, origin, Py_EQ) == 1) {
            PyObject *key = Py_BuildValue("(iO)", p, first);
            PyObject *tag = key == NULL ? NULL : PyDict_GetItemWithError(S->tagged, key);
            Py_XDECREF(key);
            if (tag == NULL && PyErr_Occurred())
                return -1;
            if (tag != NULL && PyUnicode_Check(tag) && PyUnicode_Compare(tag, str_blackhole) == 0) {
                *nh = -1;
                return 0;
            }
        }
        long j = PyLong_AsLong(first);
        if (j == -1 && PyErr_Occurred())
            return -1;
        *nh = (int)j;
        return 0;
    }
    *nh = -1;
    return 0;
}

int speakers_fib_changed(Speakers *S, int r, int p)
{
    if (S->fib.next_hop == NULL || !S->fib.watched[p])
        return 0;
    int nh;
    if (next_hop(S, r, &nh) < 0)
        return -1;
    if (nh == S->fib.next_hop[r])
        return 0;
    S->fib.next_hop[r] = nh;
    if (NONE(S->on_next_hop))
        return 0;
    return call_done(PyObject_CallFunction(S->on_next_hop, "ii", r, nh));
}

PyObject *speakers_watch_fib(Speakers *S, PyObject *args)
{
    PyObject *covering;
    if (!PyArg_ParseTuple(args, "O!:watch_fib", &PyList_Type, &covering))
        return NULL;
    if (S->fib.next_hop != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "watch_fib: the FIB is watched already");
        return NULL;
    }
    int count = (int)PyList_GET_SIZE(covering);
    int32_t *order = PyMem_Calloc((size_t)count + 1, 4);
    uint8_t *watched = PyMem_Calloc((size_t)S->k + 1, 1);
    int32_t *nhs = PyMem_Calloc((size_t)S->n + 1, 4);
    PyObject *result = NULL;
    if (order == NULL || watched == NULL || nhs == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (int c = 0; c < count; c++) {
        long p = PyLong_AsLong(PyList_GET_ITEM(covering, c));
        if (p == -1 && PyErr_Occurred())
            goto fail;
        if (p < 0 || p >= S->k) {
            PyErr_Format(PyExc_IndexError, "watch_fib: no prefix with index %ld", p);
            goto fail;
        }
        order[c] = (int32_t)p;
        watched[p] = 1;
    }
    S->fib.covering = order;
    S->fib.count = count;
    if ((result = PyList_New(S->n)) == NULL)
        goto fail;
    for (int i = 0; i < S->n; i++) {
        int nh;
        PyObject *x;
        if (next_hop(S, i, &nh) < 0 || (x = PyLong_FromLong(nh)) == NULL)
            goto fail;
        nhs[i] = nh;
        PyList_SET_ITEM(result, i, x);
    }
    S->fib.watched = watched;
    S->fib.next_hop = nhs;
    return result;
fail:
    Py_XDECREF(result);
    S->fib.covering = NULL;
    S->fib.count = 0;
    PyMem_Free(order);
    PyMem_Free(watched);
    PyMem_Free(nhs);
    return NULL;
}

void speakers_fib_free(Speakers *S)
{
    PyMem_Free(S->fib.covering);
    PyMem_Free(S->fib.watched);
    PyMem_Free(S->fib.next_hop);
    S->fib.covering = S->fib.next_hop = NULL;
    S->fib.watched = NULL;
    S->fib.count = 0;
}

int speakers_fib_names(void)
{
    return (str_blackhole = PyUnicode_InternFromString("blackhole")) == NULL ? -1 : 0;
}
