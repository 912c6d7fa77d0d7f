/* PathTable: the distinct AS paths `bgpsim validate` has met, each numbered once (its slot) with
 * what its routes' lines and checks need of it: its routes.csv fields ",as_path,origin_as," (the path
 * quoted when it holds a comma, as csv does), its RFC 6811 origin, and its flags (HAS_SET, SUSPECT,
 * NOTHING: aspath.h). A batch of routes hands in its paths once (add) and gets their slots; csv_rows
 * (rows.c) writes the fields straight from here. A path whose origin is the speaker's own (NO_PATH)
 * gets one more entry per origin the routes give it (own): its fields with that origin.
 *
 * Paths are the core's words (aspath.h); a key is those bytes, or for an own entry the path's bytes,
 * a zero byte and the origin (a length no path has: paths are whole words), interned (intern.c):
 * a key's slot is its number there. */
#include "intern.h"
#include "pathtable.h"

typedef struct {
    Py_ssize_t post, post_len;  /* the fields, in `posts` */
    int64_t origin;
    uint8_t flags;
} entry;

typedef struct {
    PyObject_HEAD
    uint32_t *lo, *hi;  /* the special-purpose AS ranges; NULL until made */
    Py_ssize_t nr;
    intern_table keys;
    column entries, posts;  /* an entry per key */
    uint32_t *seq;  /* path_flags' room */
    Py_ssize_t room;
} PathTable;

#define ENTRY(t, i) (((entry *)(t)->entries.data)[i])
#define ENTRIES(t) ((t)->entries.len / (Py_ssize_t)sizeof(entry))

/* the slot of key p[0:n] (-1: no memory); *fresh when it has no entry yet (new_entry makes it) */
static Py_ssize_t slot_of(PathTable *t, const void *p, Py_ssize_t n, int *fresh)
{
    Py_ssize_t slot = intern_key(&t->keys, p, n);
    *fresh = slot >= ENTRIES(t);
    return slot;
}

/* the entry of the key just added: its fields text[0:tn], origin and flags; -1: no memory */
static int new_entry(PathTable *t, const char *text, Py_ssize_t tn, int64_t origin, int flags)
{
    entry e = {t->posts.len, tn, origin, (uint8_t)flags};
    column_put(&t->posts, text, tn);
    column_put(&t->entries, &e, sizeof e);
    return t->posts.failed || t->entries.failed ? -1 : 0;
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
    if (self->lo == NULL || self->hi == NULL) {
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
    if (t->lo != NULL)
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
        Py_ssize_t nw = PyBytes_GET_SIZE(p) / 4;
        if (!whole(w, nw)) {
            PyErr_Format(PyExc_ValueError, "path %zd: want whole segments of types 1 to 4", i);
            goto done;
        }
        int fresh;
        Py_ssize_t slot = slot_of(t, w, 4 * nw, &fresh);
        if (slot >= 0 && fresh) {
            if (nw > t->room) {
                PyMem_RawFree(t->seq);
                t->room = nw > 256 ? nw : 256;
                if ((t->seq = PyMem_RawMalloc(sizeof *t->seq * (size_t)t->room)) == NULL)
                    t->room = 0, slot = -1;
            }
            if (slot >= 0) {
                int64_t origin = path_origin(w, nw);
                int f = path_flags(w, nw, t->lo, t->hi, t->nr, t->seq);
                fields(&text, w, nw, origin);
                PyObject *index = NULL;
                if (text.failed || new_entry(t, text.data, text.len, origin, f) < 0
                    || (index = PyLong_FromSsize_t(i)) == NULL || PyList_Append(new, index) < 0)
                    slot = -1;
                Py_XDECREF(index);
            }
        }
        if (slot < 0) {
            if (!PyErr_Occurred())
                PyErr_NoMemory();
            goto done;
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
        if (slot[i] < 0 || slot[i] >= ENTRIES(t) || origin[i] < 0) {
            PyErr_Format(PyExc_ValueError, "item %zd: want a slot of the table and an origin AS", i);
            Py_CLEAR(out);
            goto done;
        }
        entry e = ENTRY(t, slot[i]);  /* a copy: the arenas move as entries are added */
        Py_ssize_t len;
        const char *words = intern_at(&t->keys, slot[i], &len);
        key.len = 0;
        column_put(&key, words, len);
        column_put(&key, "", 1);
        column_put(&key, &origin[i], 8);
        int fresh = 0;
        Py_ssize_t own = key.failed ? -1 : slot_of(t, key.data, key.len, &fresh);
        if (own >= 0 && fresh) {
            text.len = 0;
            column_put(&text, t->posts.data + e.post, e.post_len - 1);  /* ",as_path,," less its last comma */
            column_put_u(&text, (uint64_t)origin[i]);
            column_put(&text, ",", 1);
            if (text.failed || new_entry(t, text.data, text.len, origin[i], e.flags) < 0)
                own = -1;
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
        return PyErr_Format(PyExc_IndexError, "slot %zd: the table has %zd", slot, ENTRIES(t));
    return PyBytes_FromStringAndSize(p, n);
}

static PyObject *table_clear(PathTable *t, PyObject *unused)
{
    (void)unused;
    if (ready(t) < 0)
        return NULL;
    intern_free(&t->keys);
    t->posts.len = t->entries.len = 0;
    Py_RETURN_NONE;
}

static Py_ssize_t table_len(PathTable *t)
{
    return ENTRIES(t);
}

static void table_dealloc(PathTable *t)
{
    column_free(&t->entries);
    intern_free(&t->keys);
    column_free(&t->posts);
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
    if (slot < 0 || slot >= ENTRIES(t))
        return -1;
    *p = t->posts.data + ENTRY(t, slot).post;
    *n = ENTRY(t, slot).post_len;
    return 0;
}

/* the type, and the flags add() gives as its class attributes */
int path_table_add_type(PyObject *module)
{
    static const struct { const char *name; int value; } FLAGS[] = {
        {"HAS_SET", HAS_SET}, {"SUSPECT", SUSPECT}, {"NOTHING", NOTHING}};
    if (PyType_Ready(&PathTableType) < 0)
        return -1;
    for (size_t k = 0; k < sizeof FLAGS / sizeof *FLAGS; k++) {
        PyObject *v = PyLong_FromLong(FLAGS[k].value);
        int r = v == NULL ? -1 : PyDict_SetItemString(PathTableType.tp_dict, FLAGS[k].name, v);
        Py_XDECREF(v);
        if (r < 0)
            return -1;
    }
    PyType_Modified(&PathTableType);
    return PyModule_AddType(module, &PathTableType);
}
