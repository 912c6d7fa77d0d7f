/* The VRP index of route origin validation (bgpsim.rpki.rov._Family) from VRPs sorted by (start,
 * length): each distinct prefix (its first VRP, start and length), and each prefix's (ASN, best
 * maxLength) pairs in ASN order, the pairs rov.c's walks search. AS0 has no pair: it covers but
 * never validates (RFC 6811 section 2, RFC 7607). One pass; a prefix's pairs are sorted among
 * themselves (a few as a rule). */
#include "core.h"

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* ASN << 8 | maxLength, sorted: the last of an ASN is its best */
static void sort_words(uint64_t *w, Py_ssize_t n)
{
    if (n > 16) {
        qsort(w, (size_t)n, sizeof *w, by_value);
        return;
    }
    for (Py_ssize_t i = 1; i < n; i++)
        for (Py_ssize_t j = i; j > 0 && w[j - 1] > w[j]; j--) {
            uint64_t t = w[j];
            w[j] = w[j - 1], w[j - 1] = t;
        }
}

static PyObject *rov_index(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[4], *out = NULL, *a[6] = {0};
    Py_buffer v[4];
    static const Py_ssize_t SIZE[4] = {8, 1, 1, 4};
    static const char *const NAME[4] = {"start", "length", "max_length", "asn"};
    if (!PyArg_ParseTuple(args, "OOOO", &o[0], &o[1], &o[2], &o[3]))
        return NULL;
    Py_ssize_t n = PyObject_Length(o[0]);
    if (n < 0)
        return NULL;
    int got = 0;
    for (; got < 4; got++)
        if (array_view(o[got], &v[got], SIZE[got], n, NAME[got]) < 0)
            goto done;
    const uint64_t *start = v[0].buf;
    const uint8_t *length = v[1].buf, *max_length = v[2].buf;
    const uint32_t *asn = v[3].buf;
    Py_ssize_t prefixes = 0, nonzero = 0, widest = 0, run = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int same = i && start[i] == start[i - 1] && length[i] == length[i - 1];
        if (i && !same && (start[i] < start[i - 1] || (start[i] == start[i - 1] && length[i] < length[i - 1]))) {
            PyErr_Format(PyExc_ValueError, "VRP %zd: want VRPs sorted by start and length", i);
            goto done;
        }
        prefixes += !same;
        run = same ? run + 1 : 1;
        widest = run > widest ? run : widest;
        nonzero += asn[i] != 0;
    }
    if (n >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "want fewer than 2**31 VRPs");
        goto done;
    }
    /* first and pair_first: int32, prefixes + 1; start uint64, length uint8; pair uint64, pair_max uint8 */
    static const Py_ssize_t WIDTH[6] = {4, 8, 1, 8, 1, 4};
    const Py_ssize_t COUNT[6] = {prefixes + 1, prefixes, prefixes, nonzero, nonzero, prefixes + 1};
    for (int k = 0; k < 6; k++)
        if ((a[k] = PyByteArray_FromStringAndSize(NULL, WIDTH[k] * COUNT[k])) == NULL)
            goto done;
    uint64_t *scratch = PyMem_RawMalloc(sizeof *scratch * (size_t)(widest ? widest : 1));
    if (scratch == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int32_t *first = (int32_t *)PyByteArray_AS_STRING(a[0]), *pair_first = (int32_t *)PyByteArray_AS_STRING(a[5]);
    uint64_t *pstart = (uint64_t *)PyByteArray_AS_STRING(a[1]), *pair = (uint64_t *)PyByteArray_AS_STRING(a[3]);
    uint8_t *plength = (uint8_t *)PyByteArray_AS_STRING(a[2]), *pair_max = (uint8_t *)PyByteArray_AS_STRING(a[4]);
    Py_ssize_t pairs = 0;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < n; k++) {
        Py_ssize_t j = i, w = 0;
        for (; j < n && start[j] == start[i] && length[j] == length[i]; j++)
            if (asn[j])
                scratch[w++] = (uint64_t)asn[j] << 8 | max_length[j];
        first[k] = (int32_t)i, pstart[k] = start[i], plength[k] = length[i], pair_first[k] = (int32_t)pairs;
        sort_words(scratch, w);
        for (Py_ssize_t x = 0; x < w; x++)
            if (x + 1 == w || scratch[x + 1] >> 8 != scratch[x] >> 8) {  /* an ASN's last: its best */
                pair[pairs] = (uint64_t)k << 32 | scratch[x] >> 8;
                pair_max[pairs++] = (uint8_t)scratch[x];
            }
        i = j;
    }
    first[k] = (int32_t)n, pair_first[k] = (int32_t)pairs;
    Py_END_ALLOW_THREADS
    PyMem_RawFree(scratch);
    if (PyByteArray_Resize(a[3], 8 * pairs) < 0 || PyByteArray_Resize(a[4], pairs) < 0)
        goto done;
    out = PyTuple_Pack(6, a[0], a[1], a[2], a[3], a[4], a[5]);
done:
    for (int k = 0; k < 6; k++)
        Py_XDECREF(a[k]);
    for (int k = 0; k < got; k++)
        PyBuffer_Release(&v[k]);
    return out;
}

PyMethodDef rov_index_methods[] = {
    {"rov_index", rov_index, METH_VARARGS,
     "rov_index(start, length, max_length, asn) -> (first, start, length, pair, pair_max, pair_first): from "
     "VRPs sorted by (start, length) (uint64, uint8, uint8, uint32), each distinct prefix's first VRP (int32, "
     "and n last), start and length, and the (prefix << 32 | ASN, best maxLength) pairs (uint64, uint8; AS0 "
     "none) in order, prefix k's from pair_first[k] (int32, and the count last); bytearrays"},
    {NULL, NULL, 0, NULL},
};
