/* AS paths (aspath.h): the RFC 6811 origin, bgpdump's text, and whether a path can hold a finding of
 * `bgpsim validate` (its flags, which the PathTable keeps: pathtable.c). */
#include "aspath.h"

#include <stdlib.h>

/* RFC 6811 section 2 (attributes.origin_of): the rightmost AS of a final AS_SEQUENCE; the speaker's own
 * AS (NO_PATH: the peer's, in a dump) after a final confederation segment or for an empty path; NONE
 * after any other final segment */
int64_t path_origin(const uint32_t *w, Py_ssize_t n)
{
    Py_ssize_t last = -1;
    for (Py_ssize_t i = 0; i + 2 <= n && w[i + 1] <= n - i - 2; i += 2 + w[i + 1])
        last = i;
    if (last < 0 || w[last] == AS_CONFED_SEQUENCE || w[last] == AS_CONFED_SET)
        return NO_PATH;
    if (w[last] == AS_SEQUENCE && w[last + 1])
        return w[last + 1 + w[last + 1]];
    return ORIGIN_NONE;
}

void path_text(column *o, const uint32_t *w, Py_ssize_t n)
{
    static const char open[5] = {0, '{', 0, '(', '['}, close[5] = {0, '}', 0, ')', ']'};
    for (Py_ssize_t i = 0; i + 2 <= n && w[i + 1] <= n - i - 2; i += 2 + w[i + 1]) {
        uint32_t t = w[i] >= 1 && w[i] <= 4 ? w[i] : AS_SEQUENCE, count = w[i + 1];
        char sep = t == AS_SET || t == AS_CONFED_SET ? ',' : ' ';
        if (i)
            column_put(o, " ", 1);
        if (open[t])
            column_put(o, &open[t], 1);
        for (uint32_t k = 0; k < count; k++) {
            if (k)
                column_put(o, &sep, 1);
            column_put_u(o, w[i + 2 + k]);
        }
        if (close[t])
            column_put(o, &close[t], 1);
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* whether an AS is in one of the sorted ranges lo[k]..hi[k] */
static int special(uint32_t as, const uint32_t *lo, const uint32_t *hi, Py_ssize_t nr)
{
    Py_ssize_t a = 0, b = nr; /* the first range starting above `as` */
    while (a < b) {
        Py_ssize_t m = (a + b) / 2;
        if (lo[m] <= as)
            a = m + 1;
        else
            b = m;
    }
    return a > 0 && as <= hi[a - 1];
}

/* the flags of one path (paths.py PathJudge.judge says what each finding is): an AS_SET; a
 * special-purpose AS among the ASes of its sequences and sets, or an AS twice apart in its sequences
 * once prepending is collapsed (confederation segments never leave the confederation, RFC 5065
 * section 5: not looked at); no AS at all. `seq` has room for the path's ASes. */
int path_flags(const uint32_t *w, Py_ssize_t n, const uint32_t *lo, const uint32_t *hi, Py_ssize_t nr,
                      uint32_t *seq)
{
    int flags = 0, any = 0;
    Py_ssize_t m = 0;
    for (Py_ssize_t i = 0; i < n; i += 2 + w[i + 1]) {
        uint32_t t = w[i], count = w[i + 1];
        if (t != AS_SEQUENCE && t != AS_SET)
            continue;
        any |= count > 0 || t == AS_SET; /* an AS_SET, even empty, is judged (as-set) */
        if (t == AS_SET)
            flags |= HAS_SET;
        for (uint32_t k = 0; k < count; k++) {
            uint32_t as = w[i + 2 + k];
            if (special(as, lo, hi, nr))
                flags |= SUSPECT;
            if (t == AS_SEQUENCE && (m == 0 || seq[m - 1] != as))
                seq[m++] = as;
        }
    }
    if (!any)
        return flags | NOTHING;
    if (m <= 32) {
        for (Py_ssize_t a = 0; a < m; a++)
            for (Py_ssize_t b = a + 1; b < m; b++)
                if (seq[a] == seq[b])
                    return flags | SUSPECT;
    } else {
        qsort(seq, (size_t)m, sizeof *seq, cmp_u32);
        for (Py_ssize_t a = 1; a < m; a++)
            if (seq[a] == seq[a - 1])
                return flags | SUSPECT;
    }
    return flags;
}

/* whether `n` words hold whole segments of types 1 to 4 */
int whole(const uint32_t *w, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    while (i < n) {
        if (i + 2 > n || w[i] < 1 || w[i] > 4 || w[i + 1] > n - i - 2)
            return 0;
        i += 2 + w[i + 1];
    }
    return 1;
}

int u32_array(PyObject *o, Py_buffer *v, const char *name)
{
    if (PyObject_GetBuffer(o, v, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (v->len % 4) {
        PyErr_Format(PyExc_ValueError, "%s: want uint32 items", name);
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}
