/* PathTable: the distinct AS paths `bgpsim validate` has met, each numbered once (its slot) with
 * what its routes' lines and checks need of it: its routes.csv fields ",as_path,origin_as," (the path
 * quoted when it holds a comma, as csv does), its RFC 6811 origin, and its flags (HAS_SET, SUSPECT,
 * NOTHING: aspath.h). A batch of routes hands in its paths once (add) and gets their slots; csv_rows
 * (rows.c) writes the fields straight from here. A path whose origin is the speaker's own (NO_PATH)
 * gets one more entry per origin the routes give it (own): its fields with that origin.
 *
 * Paths are the core's words (aspath.h); a key is those bytes, or for an own entry the path's bytes,
 * a zero byte and the origin (a length no path has: paths are whole words). Open addressing over
 * a power-of-two table, kept at most half full. */
#include "pathtable.h"

typedef struct {
    Py_ssize_t key, key_len, post, post_len;  /* offsets into the arenas */
    uint64_t hash;
    int64_t origin;
    uint8_t flags;
} entry;

typedef struct {
    PyObject_HEAD
    uint32_t *lo, *hi;  /* the special-purpose AS ranges */
    Py_ssize_t nr;
    column entries, keys, posts;
    Py_ssize_t n;
    int64_t *bucket;  /* slot + 1; 0: empty */
    Py_ssize_t nbucket;
    uint32_t *seq;  /* path_flags' room */
    Py_ssize_t room;
} PathTable;

#define ENTRY(t, i) (((entry *)(t)->entries.data)[i])

static uint64_t hash_bytes(const unsigned char *p, Py_ssize_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
    for (Py_ssize_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001B3ULL;
    return h ^ h >> 29;
}

static int rehash(PathTable *t, Py_ssize_t want)
{
    Py_ssize_t nb = t->nbucket ? t->nbucket : 1024;
    while (nb < 2 * want)
        nb *= 2;
    if (nb == t->nbucket)
        return 0;
    int64_t *b = PyMem_RawCalloc((size_t)nb, sizeof *b);
    if (b == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < t->n; i++) {
        Py_ssize_t k = (Py_ssize_t)(ENTRY(t, i).hash & (uint64_t)(nb - 1));
        while (b[k])
            k = (k + 1) & (nb - 1);
        b[k] = i + 1;
    }
    PyMem_RawFree(t->bucket);
    t->bucket = b, t->nbucket = nb;
    return 0;
}

/* the slot of key p[0:n], or -1 with *at the empty bucket where it would go */
static Py_ssize_t find(PathTable *t, const void *p, Py_ssize_t n, uint64_t h, Py_ssize_t *at)
{
    Py_ssize_t k = (Py_ssize_t)(h & (uint64_t)(t->nbucket - 1));
    for (; t->bucket[k]; k = (k + 1) & (t->nbucket - 1)) {
        const entry *e = &ENTRY(t, t->bucket[k] - 1);
        if (e->hash == h && e->key_len == n && memcmp(t->keys.data + e->key, p, (size_t)n) == 0)
            return t->bucket[k] - 1;
    }
    *at = k;
    return -1;
}

/* a new entry for key p[0:n] at bucket `at`, its fields in text[0:tn]; its slot, or -1 (memory) */
static Py_ssize_t insert(PathTable *t, const void *p, Py_ssize_t n, uint64_t h, Py_ssize_t at, const char *text,
                         Py_ssize_t tn, int64_t origin, int flags)
{
    entry e = {t->keys.len, n, t->posts.len, tn, h, origin, (uint8_t)flags};
    column_put(&t->keys, p, n);
    column_put(&t->posts, text, tn);
    column_put(&t->entries, &e, sizeof e);
    if (t->keys.failed || t->posts.failed || t->entries.failed)
        return -1;
    t->bucket[at] = ++t->n;
    if (2 * t->n > t->nbucket && rehash(t, t->n) < 0)
        return -1;
    return t->n - 1;
}

/* ",as_path,origin_as," of a path of n words */
static void fields(column *text, const uint32_t *w, Py_ssize_t n, int64_t origin)
{
    text->len = 0;
    column_put(text, ",", 1);
    Py_ssize_t at = text->len;
    path_text(text, w, n);
    if (!text->failed && memchr(text->data + at, ',', (size_t)(text->len - at)) != NULL) {
        column_put(text, "\"", 1);
        if (!text->failed) {
            memmove(text->data + at + 1, text->data + at, (size_t)(text->len - at - 1));
            text->data[at] = '"';
        }
        column_put(text, "\"", 1);
    }
    column_put(text, ",", 1);
    if (origin >= 0)
        column_put_u(text, (uint64_t)origin);
    column_put(text, ",", 1);
}

static int table_init(PathTable *self, PyObject *args, PyObject *kwds)
{
    PyObject *olo, *ohi;
    Py_buffer vlo, vhi;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "PathTable takes no keyword arguments");
        return -1;
    }
    if (self->lo != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "PathTable: made once");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "OO", &olo, &ohi) || u32_array(olo, &vlo, "special_lo") < 0)
        return -1;
    int ok = -1;
    if (u32_array(ohi, &vhi, "special_hi") < 0) {
        PyBuffer_Release(&vlo);
        return -1;
    }
    const uint32_t *lo = vlo.buf, *hi = vhi.buf;
    Py_ssize_t nr = vlo.len / 4;
    if (vhi.len != vlo.len) {
        PyErr_SetString(PyExc_ValueError, "special_lo, special_hi: want as many of each");
        goto done;
    }
    for (Py_ssize_t k = 0; k < nr; k++)
        if (lo[k] > hi[k] || (k && lo[k] <= hi[k - 1])) {
            PyErr_SetString(PyExc_ValueError, "special_lo, special_hi: want sorted ranges apart");
            goto done;
        }
    self->lo = PyMem_RawMalloc(4 * (size_t)(nr + 1));
    self->hi = PyMem_RawMalloc(4 * (size_t)(nr + 1));
    if (self->lo == NULL || self->hi == NULL || rehash(self, 0) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(self->lo, lo, 4 * (size_t)nr);
    memcpy(self->hi, hi, 4 * (size_t)nr);
    self->nr = nr;
    ok = 0;
done:
    PyBuffer_Release(&vlo);
    PyBuffer_Release(&vhi);
    return ok;
}

static int ready(PathTable *t)
{
    if (t->bucket != NULL)
        return 0;
    PyErr_SetString(PyExc_RuntimeError, "PathTable: not made (want PathTable(special_lo, special_hi))");
    return -1;
}

static PyObject *table_add(PathTable *t, PyObject *args)
{
    PyObject *paths, *slots = NULL, *flags = NULL, *origins = NULL, *new = NULL, *out = NULL;
    column text = {0};
    if (!PyArg_ParseTuple(args, "O!", &PyList_Type, &paths) || ready(t) < 0)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(paths);
    if ((slots = PyBytes_FromStringAndSize(NULL, 8 * n)) == NULL || (flags = PyBytes_FromStringAndSize(NULL, n)) == NULL
        || (origins = PyBytes_FromStringAndSize(NULL, 8 * n)) == NULL || (new = PyList_New(0)) == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *p = PyList_GET_ITEM(paths, i);
        if (!PyBytes_Check(p) || PyBytes_GET_SIZE(p) % 4) {
            PyErr_Format(PyExc_ValueError, "path %zd: want bytes of uint32 words", i);
            goto done;
        }
        const uint32_t *w = (const uint32_t *)PyBytes_AS_STRING(p);
        Py_ssize_t nw = PyBytes_GET_SIZE(p) / 4, at = 0;
        uint64_t h = hash_bytes((const unsigned char *)w, 4 * nw);
        Py_ssize_t slot = find(t, w, 4 * nw, h, &at);
        if (slot < 0) {
            if (!whole(w, nw)) {
                PyErr_Format(PyExc_ValueError, "path %zd: want whole segments of types 1 to 4", i);
                goto done;
            }
            if (nw > t->room) {
                PyMem_RawFree(t->seq);
                t->room = nw > 256 ? nw : 256;
                if ((t->seq = PyMem_RawMalloc(sizeof *t->seq * (size_t)t->room)) == NULL) {
                    t->room = 0;
                    PyErr_NoMemory();
                    goto done;
                }
            }
            int64_t origin = path_origin(w, nw);
            fields(&text, w, nw, origin);
            PyObject *index = PyLong_FromSsize_t(i);
            if (text.failed || index == NULL || PyList_Append(new, index) < 0
                || (slot = insert(t, w, 4 * nw, h, at, text.data, text.len, origin,
                                  path_flags(w, nw, t->lo, t->hi, t->nr, t->seq))) < 0) {
                Py_XDECREF(index);
                if (!PyErr_Occurred())
                    PyErr_NoMemory();
                goto done;
            }
            Py_DECREF(index);
        }
        int64_t s = slot;
        memcpy(PyBytes_AS_STRING(slots) + 8 * i, &s, 8);
        memcpy(PyBytes_AS_STRING(origins) + 8 * i, &ENTRY(t, slot).origin, 8);
        PyBytes_AS_STRING(flags)[i] = (char)ENTRY(t, slot).flags;
    }
    out = PyTuple_Pack(4, slots, flags, origins, new);
done:
    column_free(&text);
    Py_XDECREF(slots);
    Py_XDECREF(flags);
    Py_XDECREF(origins);
    Py_XDECREF(new);
    return out;
}

static PyObject *table_own(PathTable *t, PyObject *args)
{
    PyObject *os, *oo, *out = NULL;
    Py_buffer vs, vo;
    column key = {0}, text = {0};
    if (!PyArg_ParseTuple(args, "OO", &os, &oo) || ready(t) < 0)
        return NULL;
    Py_ssize_t n = PyObject_Length(os);
    if (n < 0 || array_view(os, &vs, 8, n, "slots") < 0)
        return NULL;
    if (array_view(oo, &vo, 8, n, "origins") < 0) {
        PyBuffer_Release(&vs);
        return NULL;
    }
    const int64_t *slot = vs.buf, *origin = vo.buf;
    if ((out = PyBytes_FromStringAndSize(NULL, 8 * n)) == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (slot[i] < 0 || slot[i] >= t->n || origin[i] < 0) {
            PyErr_Format(PyExc_ValueError, "item %zd: want a slot of the table and an origin AS", i);
            Py_CLEAR(out);
            goto done;
        }
        entry e = ENTRY(t, slot[i]);  /* a copy: the arenas move as entries are added */
        key.len = 0;
        column_put(&key, t->keys.data + e.key, e.key_len);
        column_put(&key, "", 1);
        column_put(&key, &origin[i], 8);
        uint64_t h = hash_bytes((const unsigned char *)key.data, key.len);
        Py_ssize_t at = 0, own = key.failed ? -1 : find(t, key.data, key.len, h, &at);
        if (own < 0 && !key.failed) {
            text.len = 0;
            column_put(&text, t->posts.data + e.post, e.post_len - 1);  /* ",as_path,," less its last comma */
            column_put_u(&text, (uint64_t)origin[i]);
            column_put(&text, ",", 1);
            own = text.failed ? -1 : insert(t, key.data, key.len, h, at, text.data, text.len, origin[i], e.flags);
        }
        if (own < 0) {
            PyErr_NoMemory();
            Py_CLEAR(out);
            goto done;
        }
        int64_t s = own;
        memcpy(PyBytes_AS_STRING(out) + 8 * i, &s, 8);
    }
done:
    column_free(&key);
    column_free(&text);
    PyBuffer_Release(&vs);
    PyBuffer_Release(&vo);
    return out;
}

static PyObject *table_post(PathTable *t, PyObject *args)
{
    Py_ssize_t slot;
    const char *p;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "n", &slot))
        return NULL;
    if (path_table_post((PyObject *)t, slot, &p, &n) < 0)
        return PyErr_Format(PyExc_IndexError, "slot %zd: the table has %zd", slot, t->n);
    return PyBytes_FromStringAndSize(p, n);
}

static PyObject *table_clear(PathTable *t, PyObject *unused)
{
    (void)unused;
    if (ready(t) < 0)
        return NULL;
    t->n = t->keys.len = t->posts.len = t->entries.len = 0;
    memset(t->bucket, 0, sizeof *t->bucket * (size_t)t->nbucket);
    Py_RETURN_NONE;
}

static Py_ssize_t table_len(PathTable *t)
{
    return t->n;
}

static void table_dealloc(PathTable *t)
{
    column_free(&t->entries);
    column_free(&t->keys);
    column_free(&t->posts);
    PyMem_RawFree(t->bucket);
    PyMem_RawFree(t->seq);
    PyMem_RawFree(t->lo);
    PyMem_RawFree(t->hi);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static PyMethodDef table_methods[] = {
    {"add", (PyCFunction)table_add, METH_VARARGS,
     "add(paths) -> (slots, flags, origins, new): each path's slot (bytes of int64), flags (uint8) and RFC 6811 "
     "origin (int64: -1 NONE, -2 the speaker's own); `new`: the indexes of the paths added now"},
    {"own", (PyCFunction)table_own, METH_VARARGS,
     "own(slots, origins) -> bytes of int64: for paths whose origin is the speaker's own, the slots of their "
     "fields with the origin given (int64 arrays)"},
    {"post", (PyCFunction)table_post, METH_VARARGS, "post(slot) -> bytes: the slot's ',as_path,origin_as,'"},
    {"clear", (PyCFunction)table_clear, METH_NOARGS, "clear(): every path forgotten"},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods table_sequence = {.sq_length = (lenfunc)table_len};

PyTypeObject PathTableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bgpsim._core.PathTable",
    .tp_basicsize = sizeof(PathTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "PathTable(special_lo, special_hi): the distinct AS paths met, numbered, with their routes.csv "
              "fields, RFC 6811 origin and flags (special_lo, special_hi: the special-purpose AS ranges, uint32)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)table_init,
    .tp_dealloc = (destructor)table_dealloc,
    .tp_methods = table_methods,
    .tp_as_sequence = &table_sequence,
};

int path_table_post(PyObject *o, int64_t slot, const char **p, Py_ssize_t *n)
{
    PathTable *t = (PathTable *)o;
    if (slot < 0 || slot >= t->n)
        return -1;
    *p = t->posts.data + ENTRY(t, slot).post;
    *n = ENTRY(t, slot).post_len;
    return 0;
}

int path_table_add_type(PyObject *module)
{
    if (PyType_Ready(&PathTableType) < 0)
        return -1;
    return PyModule_AddType(module, &PathTableType);
}
