/* bgpsim._core: what every part of the compiled core shares.
 *
 * The core reads route data (MRT records, VRP files, bgpdump text) into columns, writes columns
 * back as text, and walks the VRP index of route origin validation (rov.c). Each part is one file,
 * one protocol object or format, and registers its functions through its *_methods table, which
 * module.c joins into the module's.
 *
 * Columns go to Python as bytes objects (numpy views them with np.frombuffer). They are built in a
 * `column` that grows by doubling; a fault found while parsing comes back to the caller as a code
 * and a place, and is raised once the GIL is held again. */
#ifndef BGPSIM_CORE_H
#define BGPSIM_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* A growing byte array; `failed` once an allocation failed (every later put is ignored). */
typedef struct {
    char *data;
    Py_ssize_t len, cap;
    int failed;
} column;

static inline int column_reserve(column *c, Py_ssize_t more)
{
    if (c->failed)
        return -1;
    if (c->len + more <= c->cap)
        return 0;
    Py_ssize_t cap = c->cap ? c->cap : 16; /* small: a million columns of a few items (MRAI-held prefixes) */
    while (cap < c->len + more) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            c->failed = 1;
            return -1;
        }
        cap *= 2;
    }
    char *p = PyMem_RawRealloc(c->data, (size_t)cap);
    if (p == NULL) {
        c->failed = 1;
        return -1;
    }
    c->data = p;
    c->cap = cap;
    return 0;
}

static inline int column_put(column *c, const void *p, Py_ssize_t n)
{
    if (column_reserve(c, n) < 0)
        return -1;
    memcpy(c->data + c->len, p, (size_t)n);
    c->len += n;
    return 0;
}

#define COLUMN_PUT(c, type, value) do { type v_ = (value); column_put((c), &v_, sizeof v_); } while (0)

/* a C string (none of its bytes when it is empty) */
static inline void column_puts(column *c, const char *s)
{
    size_t n = strlen(s);
    if (n)
        column_put(c, s, (Py_ssize_t)n);
}

/* a number in decimal (printf would be most of the time of a writer) */
static inline void column_put_u(column *c, uint64_t v)
{
    char t[24];
    int n = 0;
    do
        t[23 - n++] = (char)('0' + v % 10);
    while (v /= 10);
    column_put(c, t + 24 - n, n);
}

static inline void column_free(column *c)
{
    PyMem_RawFree(c->data);
    c->data = NULL;
    c->len = c->cap = 0;
}

/* The column as a bytes object (NULL and MemoryError if it could not grow); the column is freed. */
static inline PyObject *column_take(column *c)
{
    PyObject *b = c->failed ? PyErr_NoMemory() : PyBytes_FromStringAndSize(c->data ? c->data : "", c->len);
    column_free(c);
    return b;
}

/* An array handed in by Python (a numpy column, bytes): C-contiguous, one dimension, `n` items of
 * `size` bytes; else ValueError naming it and saying what was wanted. Release the view after. */
static inline int array_view(PyObject *o, Py_buffer *view, Py_ssize_t size, Py_ssize_t n, const char *name)
{
    if (PyObject_GetBuffer(o, view, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->ndim > 1 || view->itemsize != size || view->len != size * n) {
        PyErr_Format(PyExc_ValueError, "%s: want a one-dimensional array of %zd items of %zd bytes", name, n, size);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* Big-endian reads; the caller has checked that the bytes are there. */
static inline uint32_t get16(const unsigned char *p) { return (uint32_t)p[0] << 8 | p[1]; }
static inline uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

extern PyMethodDef vrps_methods[];
extern PyMethodDef rows_methods[];
extern PyMethodDef rov_methods[];
extern PyMethodDef rov_reasons_methods[];
extern PyMethodDef rov_index_methods[];
extern PyMethodDef conflicts_methods[];
extern PyMethodDef bzip2_methods[];
extern PyMethodDef rtr_methods[];
extern PyMethodDef steady_methods[];
extern PyMethodDef steady_trace_methods[];
extern PyMethodDef dataplane_methods[];
extern PyMethodDef cones_methods[];
extern PyMethodDef moments_methods[];

#endif
