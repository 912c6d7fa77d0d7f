/* Byte strings interned in the order first seen: an open-addressing table of FNV-1a hashes over
 * the keys, which lie end to end in one column. */
#include "intern.h"

static uint64_t hash(const uint8_t *p, Py_ssize_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (Py_ssize_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static Py_ssize_t key_at(const intern_table *t, Py_ssize_t i, Py_ssize_t *len)
{
    const int64_t *end = (const int64_t *)t->off.data;
    Py_ssize_t s = i ? (Py_ssize_t)end[i - 1] : 0;
    *len = (Py_ssize_t)end[i] - s;
    return s;
}

const char *intern_at(const intern_table *t, Py_ssize_t i, Py_ssize_t *len)
{
    return t->data.data + key_at(t, i, len);
}

/* the index of `key` in t, added if new; -1: no memory */
int32_t intern_key(intern_table *t, const void *key, Py_ssize_t n)
{
    if ((t->n + 1) * 2 > t->nslots) { /* grow and rehash */
        Py_ssize_t slots = t->nslots ? t->nslots * 2 : 256;
        int32_t *s = PyMem_RawCalloc((size_t)slots, sizeof *s);
        if (s == NULL)
            return -1;
        for (Py_ssize_t i = 0; i < t->n; i++) {
            Py_ssize_t len, at = key_at(t, i, &len);
            Py_ssize_t k = (Py_ssize_t)(hash((const uint8_t *)t->data.data + at, len) & (uint64_t)(slots - 1));
            while (s[k])
                k = (k + 1) & (slots - 1);
            s[k] = (int32_t)i + 1;
        }
        PyMem_RawFree(t->slots);
        t->slots = s;
        t->nslots = slots;
    }
    Py_ssize_t k = (Py_ssize_t)(hash(key, n) & (uint64_t)(t->nslots - 1));
    while (t->slots[k]) {
        int32_t i = t->slots[k] - 1;
        Py_ssize_t len, at = key_at(t, i, &len);
        if (len == n && (n == 0 || memcmp(t->data.data + at, key, (size_t)n) == 0))
            return i;
        k = (k + 1) & (t->nslots - 1);
    }
    if (n > 0 && column_put(&t->data, key, n) < 0)
        return -1;
    COLUMN_PUT(&t->off, int64_t, t->data.len);
    if (t->off.failed)
        return -1;
    t->slots[k] = (int32_t)t->n + 1;
    return (int32_t)t->n++;
}

void intern_free(intern_table *t)
{
    column_free(&t->data);
    column_free(&t->off);
    PyMem_RawFree(t->slots);
    t->slots = NULL;
    t->nslots = t->n = 0;
}

PyObject *intern_list(const intern_table *t)
{
    PyObject *l = PyList_New(t->n);
    for (Py_ssize_t i = 0; l && i < t->n; i++) {
        Py_ssize_t len;
        const char *p = intern_at(t, i, &len);
        PyObject *b = PyBytes_FromStringAndSize(len ? p : "", len);
        if (b == NULL)
            Py_CLEAR(l);
        else
            PyList_SET_ITEM(l, i, b);
    }
    return l;
}

int32_t intern_peer(intern_table *t, const uint8_t *addr, int alen, uint32_t asn)
{
    peer_key p;
    memset(&p, 0, sizeof p); /* the key is the whole struct, padding included */
    memcpy(p.addr, addr, (size_t)alen);
    p.alen = (uint8_t)alen;
    p.asn = asn;
    return intern_key(t, &p, sizeof p);
}

peer_key intern_peer_at(const intern_table *t, Py_ssize_t i)
{
    peer_key p;
    Py_ssize_t len;
    memcpy(&p, intern_at(t, i, &len), sizeof p);
    return p;
}
