/* The VRP index's walks (rov.c), shared with the reasons of invalid routes (rov_reasons.c). */
#ifndef BGPSIM_ROV_H
#define BGPSIM_ROV_H

#include "core.h"

enum { VALID, INVALID_ASN, INVALID_LENGTH, NOT_FOUND };  /* rpki.rov.STATES */
enum { FAULT_NONE, FAULT_PARENT, FAULT_SPAN, FAULT_PREFIX_LENGTH, FAULT_ROUTE_LENGTH };

typedef struct {
    int code;
    Py_ssize_t at;
} walk_fault;

typedef struct {
    int bits;
    Py_ssize_t n;            /* prefixes */
    const uint64_t *start;
    const uint8_t *length;
    const int32_t *parent;
    const int32_t *first;    /* n + 1 */
    Py_ssize_t rows;         /* first[] points below this */
} tree;

/* h ones in the low bits (0 <= h <= 64): what a prefix's last address adds to its first */
static inline uint64_t low_ones(int h)
{
    return h >= 64 ? UINT64_MAX : h > 0 ? UINT64_MAX >> (64 - h) : 0;
}

static inline void set_fault(walk_fault *f, int code, Py_ssize_t at)
{
    if (f->code == FAULT_NONE)
        f->code = code, f->at = at;
}

/* the last of prefixes a..b-1 starting at or before s, knowing that prefix a - 1 does (or a is 0):
 * a - 1 when none of them does */
static inline Py_ssize_t search(const tree *t, uint64_t s, Py_ssize_t a, Py_ssize_t b)
{
    while (a < b) {
        Py_ssize_t mid = a + (b - a) / 2;
        if (t->start[mid] <= s)
            a = mid + 1;
        else
            b = mid;
    }
    return a - 1;
}

/* the last prefix starting at or before s (-1: none) */
static inline Py_ssize_t last_at_or_before(const tree *t, uint64_t s)
{
    return search(t, s, 0, t->n);
}

/* the same, from `from`, the answer for an address at or below s (else a search from scratch):
 * a gallop forward, then a binary search within its last step. Routes in address order take a few
 * steps each, in memory just read, where a search from scratch takes twenty. */
static inline Py_ssize_t last_from(const tree *t, uint64_t s, Py_ssize_t from)
{
    if (from < 0 || from >= t->n || t->start[from] > s)
        return last_at_or_before(t, s);
    Py_ssize_t lo = from, step = 1; /* start[lo] <= s */
    while (step <= t->n - 1 - lo && t->start[lo + step] <= s)
        lo += step, step *= 2;
    return search(t, s, lo + 1, step <= t->n - 1 - lo ? lo + step : t->n); /* start[lo + step] > s */
}

/* prefix i's parent; -1 and a fault when it is neither -1 nor an earlier prefix (the walk ends) */
static inline Py_ssize_t up(const tree *t, Py_ssize_t i, walk_fault *f)
{
    int32_t p = t->parent[i];
    if (p >= -1 && p < i)
        return p;
    set_fault(f, FAULT_PARENT, i);
    return -1;
}

/* whether prefix i holds the route from s to `end` (RFC 6811 section 2, "covered") */
static inline int holds(const tree *t, Py_ssize_t i, uint64_t end, int64_t length, walk_fault *f)
{
    int k = t->length[i];
    if (k > t->bits) {
        set_fault(f, FAULT_PREFIX_LENGTH, i);
        return 0;
    }
    return k <= length && t->start[i] + low_ones(t->bits - k) >= end;
}

/* prefix i's rows into a, b; 0 and a fault unless 0 <= a <= b <= rows */
static inline int span(const tree *t, Py_ssize_t i, Py_ssize_t *a, Py_ssize_t *b, walk_fault *f)
{
    *a = t->first[i], *b = t->first[i + 1];
    if (*a < 0 || *a > *b || *b > t->rows) {
        set_fault(f, FAULT_SPAN, i);
        return 0;
    }
    return 1;
}

/* the last address of a route (0 and a fault when its length is outside 0..bits) */
static inline int route_end(const tree *t, uint64_t s, int64_t length, Py_ssize_t r, uint64_t *end, walk_fault *f)
{
    if (length < 0 || length > t->bits) {
        set_fault(f, FAULT_ROUTE_LENGTH, r);
        return 0;
    }
    *end = s + low_ones(t->bits - (int)length);
    return 1;
}

/* the rows of the VRPs whose prefix holds the route from s to `end` (`length` long), most specific
 * first, appended to `rows` as int64: a climb from the last prefix starting at or before s */
static inline void holding_rows(const tree *t, uint64_t s, uint64_t end, int64_t length, column *rows, walk_fault *f)
{
    for (Py_ssize_t i = last_at_or_before(t, s); i >= 0; i = up(t, i, f)) {
        Py_ssize_t a, b;
        if (holds(t, i, end, length, f) && span(t, i, &a, &b, f))
            for (; a < b; a++)
                COLUMN_PUT(rows, int64_t, a);
    }
}

/* A walk's arguments: bits (32 or 64); the tree's start, length, parent and first (n + 1 items);
 * `extra` columns of the index, of m items (the first one's length; first[] points below m, or
 * below first[n] when there are none); then `routes` columns of q items. */
typedef struct {
    tree t;
    Py_ssize_t q;
    int k;
    Py_buffer v[16];
} walk_args;

int raise_fault(const walk_fault *f, int bits);
int take_args(PyObject *args, int extra, int routes, const Py_ssize_t *size, const char *const *name, walk_args *w);
void release(Py_buffer *v, int k);

#endif
