/* Customer cones (bgpsim.graph.topology's `cone_sizes`): how many ASes each AS reaches going down
 * provider-to-customer links, itself included, as CAIDA defines the cone. Cones are bitsets, one bit
 * per AS, built bottom-up (customers before their providers) and freed once every provider has used
 * them. */
#include "core.h"
#include "rov.h" /* release() */

/* customer_cones(start, cust, order, sizes): AS i's customers are cust[start[i]:start[i + 1]]
 * (int64); `order` (int64) lists every AS, each after its customers; sizes (int64, filled) gets each
 * cone's size. A customer whose cone is gone (an order that is not bottom-up) counts as itself. */
static PyObject *customer_cones(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[4];
    if (!PyArg_ParseTuple(args, "OOOO:customer_cones", &o[0], &o[1], &o[2], &o[3]))
        return NULL;
    Py_ssize_t n = PyObject_Length(o[2]), m = PyObject_Length(o[1]);
    if (n < 0 || m < 0)
        return NULL;
    const Py_ssize_t len[4] = {n + 1, m, n, n};
    static const char *const name[4] = {"start", "cust", "order", "sizes"};
    Py_buffer v[4];
    int got = 0;
    for (; got < 4; got++)
        if (array_view(o[got], &v[got], 8, len[got], name[got]) < 0)
            goto fail;
    const int64_t *start = v[0].buf, *cust = v[1].buf, *order = v[2].buf;
    int64_t *sizes = v[3].buf;
    if (start[0] != 0 || start[n] != m) {
        PyErr_Format(PyExc_ValueError, "customer_cones: start runs from %lld to %lld, want 0 to %zd",
                     (long long)start[0], (long long)start[n], m);
        goto fail;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (start[i] > start[i + 1] || order[i] < 0 || order[i] >= n) {
            PyErr_Format(PyExc_ValueError, "customer_cones: AS %zd: start or order out of range", i);
            goto fail;
        }
    for (Py_ssize_t e = 0; e < m; e++)
        if (cust[e] < 0 || cust[e] >= n) {
            PyErr_Format(PyExc_ValueError, "customer_cones: customer %lld out of range", (long long)cust[e]);
            goto fail;
        }
    size_t words = ((size_t)n + 63) / 64;
    int64_t *waiting = calloc((size_t)n + 1, sizeof *waiting); /* providers yet to take the cone */
    uint64_t **cone = calloc((size_t)n + 1, sizeof *cone);
    if (!waiting || !cone) {
        free(waiting), free(cone);
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t e = 0; e < m; e++)
        waiting[cust[e]]++;
    int failed = 0;
    for (Py_ssize_t k = 0; k < n && !failed; k++) {
        int64_t i = order[k];
        sizes[i] = 1;
        if (start[i] == start[i + 1])
            continue;
        uint64_t *bits = calloc(words, sizeof *bits);
        if (bits == NULL) {
            failed = 1;
            break;
        }
        bits[i / 64] |= 1ULL << (i % 64);
        for (int64_t e = start[i]; e < start[i + 1]; e++) {
            int64_t c = cust[e];
            if (cone[c] != NULL)
                for (size_t w = 0; w < words; w++)
                    bits[w] |= cone[c][w];
            else
                bits[c / 64] |= 1ULL << (c % 64);
            if (--waiting[c] == 0) {
                free(cone[c]);
                cone[c] = NULL;
            }
        }
        int64_t count = 0;
        for (size_t w = 0; w < words; w++)
            count += __builtin_popcountll(bits[w]);
        sizes[i] = count;
        if (waiting[i] > 0 && cone[i] == NULL)
            cone[i] = bits;
        else
            free(bits);
    }
    for (Py_ssize_t i = 0; i < n; i++)
        free(cone[i]);
    free(cone), free(waiting);
    if (failed) {
        PyErr_NoMemory();
        goto fail;
    }
    release(v, got);
    Py_RETURN_NONE;
fail:
    release(v, got);
    return NULL;
}

PyMethodDef cones_methods[] = {
    {"customer_cones", customer_cones, METH_VARARGS, "Each AS's customer-cone size, from its customers' lists."},
    {NULL, NULL, 0, NULL},
};
