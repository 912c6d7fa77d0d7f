/* The values of a RIS Live message (rislive.h): names in any case, AS numbers, addresses, prefixes,
 * the timestamp, the AS_PATH and the attributes checked but not kept. */
#include "rislive.h"

#include <math.h>
#include <stdarg.h>

/* a name in lower case (n at most 13) -> its key, -1 for the names read past */
static int key_of(const char *k, Py_ssize_t n)
{
#define IS(word) (memcmp(k, word, sizeof word - 1) == 0)
    switch (n) {
    case 2: return IS("id") ? KEY_ID : -1;
    case 4: return IS("peer") ? KEY_PEER : IS("type") ? KEY_TYPE : IS("path") ? KEY_PATH : IS("data") ? KEY_DATA : -1;
    case 5: return IS("state") ? KEY_STATE : -1;
    case 6: return IS("origin") ? KEY_ORIGIN : IS("bgpsec") ? KEY_BGPSEC : -1;
    case 8: return IS("peer_asn") ? KEY_PEER_ASN : IS("next_hop") ? KEY_NEXT_HOP : IS("prefixes") ? KEY_PREFIXES : -1;
    case 9: return IS("timestamp") ? KEY_TIMESTAMP : IS("community") ? KEY_COMMUNITY : -1;
    case 11: return IS("withdrawals") ? KEY_WITHDRAWALS : -1;
    case 13: return IS("announcements") ? KEY_ANNOUNCEMENTS : IS("bgpsec_target") ? KEY_BGPSEC_TARGET : -1;
    default: return -1;
    }
#undef IS
}

int ris_fail(msg *m, const char *want, span value, const char *key, ...)
{
    va_list ap;
    m->want = want, m->value = value;
    m->key[0] = 0;
    if (key != NULL) {
        va_start(ap, key);
        vsnprintf(m->key, sizeof m->key, key, ap);
        va_end(ap);
    }
    return -1;
}

/* a member's name -> its key; a name not in lower case is noted (once per message) */
static int name(msg *m, const unsigned char *k, Py_ssize_t n)
{
    char low[16];
    int upper = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if ((unsigned)(k[i] - 'A') < 26u) {
            upper = 1;
            break;
        }
    if (!upper)
        return n <= 13 ? key_of((const char *)k, n) : -1;
    if (m->names == NULL && (m->names = PyList_New(0)) == NULL)
        return -2;
    if (PyList_GET_SIZE(m->names) < MAX_NAMES) {
        PyObject *o = PyUnicode_DecodeUTF8((const char *)k, n, "replace");
        int in = o == NULL ? -1 : PySequence_Contains(m->names, o);
        int bad = in < 0 || (in == 0 && PyList_Append(m->names, o) < 0);
        Py_XDECREF(o);
        if (bad)
            return -2;
    }
    if (n > 13)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++)
        low[i] = (char)((unsigned)(k[i] - 'A') < 26u ? k[i] | 0x20 : k[i]);
    return key_of(low, n);
}

typedef struct { msg *m; span *v, *data; } members;  /* data: where a "data" object's members go, or NULL */

static int member(json *j, const unsigned char *k, Py_ssize_t n, void *arg)
{
    members *a = arg;
    int key = name(a->m, k, n);
    const unsigned char *start = j->p;
    if (key == -2)  /* a Python error */
        return -1;
    if (key == KEY_DATA && a->data != NULL && *j->p == '{') {  /* the envelope's data, read in the same walk */
        members in = {a->m, a->data, NULL};
        for (int i = 0; i < NKEYS; i++)
            a->data[i] = NONE;
        j->p++;
        if (object(j, member, &in) < 0)
            return -1;
    } else if (value(j) < 0) {
        return -1;
    }
    if (key >= 0)
        a->v[key] = (span){start, j->p};  /* the last of a name given twice, as a dict keeps it */
    return 0;
}

int ris_object(msg *m, json *j, span *out, span *data)
{
    members a = {m, out, data};
    for (int i = 0; i < NKEYS; i++)
        out[i] = NONE;
    if (data != NULL)
        for (int i = 0; i < NKEYS; i++)
            data[i] = NONE;
    j->p++;
    return object(j, member, &a);
}

/* a string's text (the document's or buf's); n -1 when it is longer than MAX_FIELD */
void ris_text(msg *m, span v, unsigned char *buf, const unsigned char **t, Py_ssize_t *n)
{
    json j = at(m, v);
    string(&j, buf, t, n);  /* walked once already: it is good JSON */
}

/* a JSON integer's value: 0, or -1 when v is no integer, is negative or is over `max` */
int ris_integer(span v, uint64_t max, uint64_t *out)
{
    const unsigned char *p = v.p;
    uint64_t x = 0;
    if (p == NULL || (unsigned)*p - '0' > 9)
        return (p != NULL && *p == '-' && v.e - p == 2 && p[1] == '0') ? (*out = 0, 0) : -1;
    for (; p < v.e && (unsigned)*p - '0' < 10; p++) {
        if (x > (max - (*p - '0')) / 10)
            return -1;
        x = x * 10 + (*p - '0');
    }
    if (p != v.e)
        return -1;  /* a fraction or an exponent */
    *out = x;
    return 0;
}

/* an AS number: a JSON integer, or a string of decimal digits (RIS Live writes peer_asn so) */
static int asn_of(msg *m, span v, uint32_t *out)
{
    uint64_t x;
    if (is_string(v)) {
        unsigned char buf[MAX_FIELD];
        const unsigned char *t;
        Py_ssize_t n;
        ris_text(m, v, buf, &t, &n);
        if (n <= 0)
            return -1;
        span d = {t, t + n};
        while (d.e - d.p > 1 && *d.p == '0')
            d.p++;
        if (ris_integer(d, 0xFFFFFFFFu, &x) < 0)
            return -1;
    } else if (ris_integer(v, 0xFFFFFFFFu, &x) < 0) {
        return -1;
    }
    *out = (uint32_t)x;
    return 0;
}

/* an address as inet_pton reads it: afi 1 or 2 */
static int address_of(const unsigned char *s, const unsigned char *e, int *afi, uint64_t *hi, uint64_t *lo)
{
    if (memchr(s, ':', (size_t)(e - s)) != NULL) {
        *afi = 2;
        return ipv6_address(s, e, hi, lo);
    }
    uint32_t a;
    *afi = 1, *hi = 0;
    if (ipv4_address(s, e, &a) < 0)
        return -1;
    *lo = a;
    return 0;
}

/* the address's first len bits */
void ris_masked(int afi, unsigned len, uint64_t *hi, uint64_t *lo)
{
    if (afi == 2) {
        *hi &= len == 0 ? 0 : ~0ULL << (len >= 64 ? 0 : 64 - len);
        *lo &= len <= 64 ? 0 : ~0ULL << (128 - len);
    } else {
        *lo &= len == 0 ? 0 : (0xFFFFFFFFULL << (32 - len)) & 0xFFFFFFFFULL;
    }
}

/* "address/length", its host bits cleared (as bgpdump does) */
int ris_prefix(msg *m, span v, const char *key, Py_ssize_t i, Py_ssize_t k, int *afi, uint64_t *hi, uint64_t *lo,
               unsigned *plen)
{
    unsigned char buf[MAX_FIELD];
    const unsigned char *t;
    Py_ssize_t n;
    if (!is_string(v))
        return ris_fail(m, "want a prefix string", NONE, key, i, k);
    ris_text(m, v, buf, &t, &n);
    const unsigned char *slash = n > 0 ? memchr(t, '/', (size_t)n) : NULL;
    unsigned len = 0;
    int ok = slash != NULL && t + n - slash - 1 >= 1 && t + n - slash - 1 <= 3;
    for (Py_ssize_t c = ok ? slash + 1 - t : n; c < n; c++)  /* the length: 1 to 3 digits */
        ok = ok && (unsigned)t[c] - '0' < 10, len = len * 10 + (t[c] - '0');
    ok = ok && address_of(t, slash, afi, hi, lo) == 0 && len <= (*afi == 2 ? 128u : 32u);
    if (!ok)
        return ris_fail(m, "want a prefix, got {!r}", v, key, i, k);
    ris_masked(*afi, len, hi, lo);
    *plen = len;
    return 0;
}

/* ---- the header every ris_message has: timestamp, peer, peer_asn -------------------------------- */

int ris_header(msg *m)
{
    RisReader *r = m->r;
    span ts = m->v[KEY_TIMESTAMP], peer = m->v[KEY_PEER];
    uint64_t whole;
    if (ris_integer(ts, (1ULL << 33) - 1, &whole) == 0) {
        r->time = (int64_t)whole, r->usec = -1;
    } else {
        /* a float: the seconds and the microseconds, rounded half to even as Python's round() */
        char num[64];
        double x;
        int integer;
        json j = at(m, ts);
        if (ts.p == NULL || ts.e - ts.p >= (Py_ssize_t)sizeof num || ((unsigned)*ts.p - '0' > 9 && *ts.p != '-')
            || number(&j, &integer) < 0 || integer)
            return ris_fail(m, "want a timestamp", NONE, "timestamp");
        memcpy(num, ts.p, (size_t)(ts.e - ts.p));
        num[ts.e - ts.p] = 0;
        x = strtod(num, NULL);
        if (!(x >= 0 && x < 8589934592.0))
            return ris_fail(m, "want a timestamp", NONE, "timestamp");
        r->time = (int64_t)x;
        r->usec = (int64_t)nearbyint((x - (double)r->time) * 1e6);
        if (r->usec >= 1000000)
            r->time++, r->usec = 0;
    }
    if (!is_string(peer))
        return ris_fail(m, "want the peer's address", NONE, "peer");
    unsigned char buf[MAX_FIELD];
    const unsigned char *t;
    Py_ssize_t n;
    int afi;
    uint64_t hi, lo;
    uint32_t asn;
    ris_text(m, peer, buf, &t, &n);
    if (n <= 0 || address_of(t, t + n, &afi, &hi, &lo) < 0)
        return ris_fail(m, "want the peer's address, got {!r}", peer, "peer");
    if (asn_of(m, m->v[KEY_PEER_ASN], &asn) < 0)
        return ris_fail(m, "want an AS number", NONE, "peer_asn");
    uint8_t addr[16];
    for (int k = 0; k < 8; k++)
        addr[k] = (uint8_t)(hi >> (56 - 8 * k)), addr[8 + k] = (uint8_t)(lo >> (56 - 8 * k));
    memset(&r->pending, 0, sizeof r->pending);  /* interned whole, padding included */
    r->pending.alen = afi == 1 ? 4 : 16;
    memcpy(r->pending.addr, afi == 1 ? addr + 12 : addr, r->pending.alen);
    r->pending.asn = asn;
    return 0;
}

/* ---- the AS_PATH: consecutive ASes an AS_SEQUENCE, a list inside an AS_SET --------------------- */

typedef struct { msg *m; Py_ssize_t index, seq; } path_walk;  /* seq: the open sequence's header, -1 */

/* an AS of the path at j: 0, or -1 with the fault named path[index] */
static int path_asn(json *j, path_walk *w, uint32_t *asn)
{
    const unsigned char *start = j->p;
    if (value(j) < 0)
        return -1;
    if (asn_of(w->m, (span){start, j->p}, asn) < 0)
        return ris_fail(w->m, "want an AS number", NONE, "path[%zd]", w->index);
    return 0;
}

static int set_member(json *j, Py_ssize_t index, void *arg)
{
    path_walk *w = arg;
    uint32_t asn;
    (void)index;
    if (path_asn(j, w, &asn) < 0)
        return -1;
    column_put(&w->m->r->words, &asn, 4);
    return 0;
}

static void segment(column *c, uint32_t type)
{
    uint32_t head[2] = {type, 0};
    column_put(c, head, 8);
}

static int path_element(json *j, Py_ssize_t index, void *arg)
{
    path_walk *w = arg;
    column *c = &w->m->r->words;
    w->index = index;
    if (*j->p == '[') {
        Py_ssize_t head = c->len / 4;
        segment(c, AS_SET);
        w->seq = -1;
        j->p++;
        Py_ssize_t before = c->len;
        if (list(j, set_member, w) < 0)
            return -1;
        if (!c->failed)
            ((uint32_t *)c->data)[head + 1] = (uint32_t)((c->len - before) / 4);
        return 0;
    }
    uint32_t asn;
    if (path_asn(j, w, &asn) < 0)
        return -1;
    if (w->seq < 0) {
        w->seq = c->len / 4;
        segment(c, AS_SEQUENCE);
    }
    column_put(c, &asn, 4);
    if (!c->failed)
        ((uint32_t *)c->data)[w->seq + 1]++;
    return 0;
}

/* the words column is empty when this begins */
int ris_path(msg *m)
{
    span v = m->v[KEY_PATH];
    if (v.p == NULL)
        return 0;
    if (!is_list(v))
        return ris_fail(m, "want a list of AS numbers", NONE, "path");
    json j = at(m, v);
    j.p++;
    path_walk w = {m, 0, -1};
    if (list(&j, path_element, &w) < 0)
        return -1;
    return m->r->words.failed ? (PyErr_NoMemory(), -1) : 0;
}

/* ---- the other attributes: checked, not kept (routes.csv and the alerts do not carry them) ------ */

typedef struct { span e[3]; Py_ssize_t n; } three;  /* the first elements of a list, and its length */

static int first_three(json *j, Py_ssize_t index, void *arg)
{
    three *t = arg;
    const unsigned char *start = j->p;
    if (value(j) < 0)
        return -1;
    if (index < 3)
        t->e[index] = (span){start, j->p};
    t->n = index + 1;
    return 0;
}

/* a JSON integer or true or false: what Python's isinstance(x, int) holds */
static int int_like(span v)
{
    if (v.p == NULL)
        return 0;
    if (*v.p == 't' || *v.p == 'f')
        return 1;
    if (*v.p != '-' && (unsigned)*v.p - '0' > 9)
        return 0;
    for (const unsigned char *p = v.p; p < v.e; p++)
        if (*p == '.' || *p == 'e' || *p == 'E')
            return 0;
    return 1;
}

/* [[AS, value], ...]: a pair whose value is an integer wants an AS number first; the rest is passed over */
static int community(json *j, Py_ssize_t index, void *arg)
{
    msg *m = arg;
    uint32_t asn;
    (void)index;
    if (*j->p != '[')
        return value(j);
    three t = {{{NULL, NULL}, {NULL, NULL}, {NULL, NULL}}, 0};
    j->p++;
    if (list(j, first_three, &t) < 0)
        return -1;
    if (t.n == 2 && int_like(t.e[1]) && asn_of(m, t.e[0], &asn) < 0)
        return ris_fail(m, "want an AS number", NONE, "community");
    return 0;
}

/* ORIGIN in any case; COMMUNITY's pairs */
int ris_attributes(msg *m)
{
    span o = m->v[KEY_ORIGIN], c = m->v[KEY_COMMUNITY];
    if (o.p != NULL && !is_null(o)) {
        unsigned char buf[MAX_FIELD];
        const unsigned char *t;
        Py_ssize_t n;
        int ok = is_string(o);
        if (ok) {
            ris_text(m, o, buf, &t, &n);
            ok = same_word(t, n, "IGP") || same_word(t, n, "EGP") || same_word(t, n, "INCOMPLETE");
        }
        if (!ok)
            return ris_fail(m, "want IGP, EGP or INCOMPLETE", NONE, "origin");
    }
    if (c.p != NULL) {
        if (!is_list(c))
            return ris_fail(m, "want a list of [AS, value] pairs", NONE, "community");
        json j = at(m, c);
        j.p++;
        if (list(&j, community, m) < 0)
            return -1;
    }
    if (m->v[KEY_BGPSEC].p != NULL && !is_null(m->v[KEY_BGPSEC]) && !is_string(m->v[KEY_BGPSEC]))
        return ris_fail(m, "want the BGPsec_PATH value in hex", NONE, "bgpsec");
    return 0;
}
