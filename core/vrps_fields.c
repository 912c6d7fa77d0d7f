/* The fields of validated payloads, read as rpki.vrps.fields reads them: prefixes (addresses as
 * inet_pton reads them: RFC 4291 section 2.2 for IPv6, no leading zeros in IPv4 octets), decimal
 * numbers without leading zeros, trust anchor names; and the columns they go to. */
#include "vrps.h"

void fault_set(fault *f, const char *format)
{
    f->format = format;
    f->nvalues = 0;
    f->used = 0;
}

static fault_value *next_value(fault *f)
{
    return f->nvalues < 4 ? &f->values[f->nvalues++] : &f->values[3];
}

static void copy(fault *f, int kind, const unsigned char *p, Py_ssize_t n)
{
    fault_value *v = next_value(f);
    Py_ssize_t room = (Py_ssize_t)sizeof f->store - f->used;
    v->kind = kind;
    v->at = f->used;
    v->n = n < room ? n : room;  /* a value longer than the store is cut (the caller says so) */
    memcpy(f->store + f->used, p, (size_t)v->n);
    f->used += v->n;
}

void fault_text(fault *f, const unsigned char *p, Py_ssize_t n)
{
    copy(f, VALUE_TEXT, p, n);
}

void fault_json(fault *f, const unsigned char *p, Py_ssize_t n)
{
    copy(f, VALUE_JSON, p, n);
}

void fault_int(fault *f, long long number)
{
    fault_value *v = next_value(f);
    v->kind = VALUE_INT, v->number = number;
}

/* A decimal number of at most `max_digits` digits, without leading zeros (fields.DIGITS_RE). */
int parse_decimal(const unsigned char *s, const unsigned char *e, int max_digits, uint64_t *out)
{
    uint64_t v = 0;
    if (s >= e || e - s > max_digits || (*s == '0' && e - s > 1))
        return -1;
    for (; s < e; s++) {
        unsigned d = (unsigned)*s - '0';
        if (d > 9)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* inet_pton(AF_INET): four decimal octets, no leading zeros */
int ipv4_address(const unsigned char *s, const unsigned char *e, uint32_t *out)
{
    uint32_t a = 0;
    for (int i = 0; i < 4; i++) {
        const unsigned char *t = s;
        uint64_t octet;
        while (t < e && *t != '.')
            t++;
        if ((i < 3) != (t < e) || parse_decimal(s, t, 3, &octet) < 0 || octet > 255)
            return -1;
        a = a << 8 | (uint32_t)octet;
        s = t + 1;
    }
    *out = a;
    return 0;
}

static int hex_digit(unsigned c)
{
    if (c - '0' < 10)
        return (int)(c - '0');
    c |= 0x20;
    return c - 'a' < 6 ? (int)(c - 'a' + 10) : -1;
}

/* inet_pton(AF_INET6), RFC 4291 section 2.2: groups of 1-4 hex digits, one "::" standing for at
 * least one group, an IPv4 address in the last 32 bits */
int ipv6_address(const unsigned char *s, const unsigned char *e, uint64_t *hi, uint64_t *lo)
{
    uint8_t b[16] = {0};
    int at = 0, gap = -1, digits = 0;
    unsigned group = 0;
    const unsigned char *token = s;
    if (s < e && *s == ':' && (e - s < 2 || s[1] != ':'))
        return -1;
    if (s < e && *s == ':')
        s++;
    for (; s < e; s++) {
        int h = hex_digit(*s);
        if (h >= 0) {
            if (++digits > 4)
                return -1;
            group = group << 4 | (unsigned)h;
        } else if (*s == ':') {
            token = s + 1;
            if (!digits) {
                if (gap >= 0)
                    return -1;
                gap = at;
                continue;
            }
            if (s + 1 == e || at + 2 > 16)
                return -1;
            b[at++] = (uint8_t)(group >> 8), b[at++] = (uint8_t)group;
            group = 0, digits = 0;
        } else if (*s == '.') {
            uint32_t v4;
            if (at + 4 > 16 || ipv4_address(token, e, &v4) < 0)
                return -1;
            b[at++] = (uint8_t)(v4 >> 24), b[at++] = (uint8_t)(v4 >> 16);
            b[at++] = (uint8_t)(v4 >> 8), b[at++] = (uint8_t)v4;
            digits = 0;
            break;
        } else {
            return -1;
        }
    }
    if (digits) {
        if (at + 2 > 16)
            return -1;
        b[at++] = (uint8_t)(group >> 8), b[at++] = (uint8_t)group;
    }
    if (gap >= 0) {
        if (at == 16)
            return -1;
        int tail = at - gap;
        memmove(b + 16 - tail, b + gap, (size_t)tail);
        memset(b + gap, 0, (size_t)(16 - tail - gap));
        at = 16;
    }
    if (at != 16)
        return -1;
    uint64_t h = 0, l = 0;
    for (int i = 0; i < 8; i++)
        h = h << 8 | b[i], l = l << 8 | b[8 + i];
    *hi = h, *lo = l;
    return 0;
}

/* fields.parse_prefix_numbers: "[0-9A-Fa-f:.]{2,45}/(0|[1-9][0-9]{0,2})", the address by
 * inet_pton, the length at most the address's bits, no host bits */
int parse_prefix_text(const unsigned char *s, const unsigned char *e, fault *f, int *version, uint64_t *hi,
                      uint64_t *lo, unsigned *plen)
{
    const unsigned char *slash = memchr(s, '/', (size_t)(e - s));
    uint64_t n;
    int v6 = 0, ok = slash != NULL && slash - s >= 2 && slash - s <= 45
                     && parse_decimal(slash + 1, e, 3, &n) == 0;
    for (const unsigned char *p = s; ok && p < slash; p++) {
        if (*p == ':')
            v6 = 1;
        else if (*p != '.' && hex_digit(*p) < 0)
            ok = 0;
    }
    if (ok) {
        uint32_t a;
        *hi = 0;
        ok = v6 ? ipv6_address(s, slash, hi, lo) == 0 : ipv4_address(s, slash, &a) == 0;
        if (!v6)
            *lo = a;
    }
    if (!ok) {
        fault_set(f, "want a prefix like 192.0.2.0/24 or 2001:db8::/32, got {!r}");
        fault_text(f, s, e - s);
        return -1;
    }
    unsigned bits = v6 ? 128 : 32;
    if (n > bits) {
        fault_set(f, "bad prefix {!r}: length {} is longer than {}");
        fault_text(f, s, e - s), fault_int(f, (long long)n), fault_int(f, bits);
        return -1;
    }
    uint64_t host_hi = n >= 64 ? 0 : ~0ULL >> n;
    uint64_t host_lo = v6 ? (n <= 64 ? ~0ULL : n == 128 ? 0 : ~0ULL >> (n - 64))
                          : (n == 32 ? 0 : 0xFFFFFFFFULL >> n);
    if ((v6 && (*hi & host_hi)) || (*lo & host_lo)) {
        fault_set(f, "bad prefix {!r}: host bits set");
        fault_text(f, s, e - s);
        return -1;
    }
    *version = v6 ? 6 : 4;
    *plen = (unsigned)n;
    return 0;
}

int check_max_length(uint64_t maxlen, int version, unsigned plen, const unsigned char *prefix,
                     Py_ssize_t prefix_len, const unsigned char *raw, Py_ssize_t raw_len, fault *f)
{
    unsigned bits = version == 6 ? 128 : 32;
    if (maxlen < plen || maxlen > bits) {
        fault_set(f, "want a maxLength from {} to {} for {}, got {!r}");
        fault_int(f, plen), fault_int(f, bits), fault_text(f, prefix, prefix_len), fault_json(f, raw, raw_len);
        return -1;
    }
    return 0;
}

/* fields.parse_ta: 1 to 256 characters, no comma, double quote or backslash, nothing unprintable
 * (control characters here; the caller checks the rest of str.isprintable on each distinct name) */
int add_ta(vrp_columns *o, const unsigned char *p, Py_ssize_t n, Py_ssize_t where, fault *f, uint16_t *index)
{
    for (int t = o->ntas - 1; t >= 0; t--) {
        const unsigned char *name = (const unsigned char *)o->tas[t].name;
        Py_ssize_t k = 0;
        if (o->tas[t].len != n)
            continue;
        while (k < n && name[k] == p[k])  /* a byte loop: names are short, and a call per VRP costs more */
            k++;
        if (k == n) {
            *index = (uint16_t)t;
            return 0;
        }
    }
    Py_ssize_t chars = 0;
    int ok = n > 0;
    for (Py_ssize_t k = 0; k < n && ok; k++) {
        unsigned c = p[k];
        chars += (c & 0xC0) != 0x80;
        ok = c >= 0x20 && c != 0x7f && c != ',' && c != '"' && c != '\\';
    }
    if (!ok || chars > MAX_TA_CHARS) {
        fault_set(f, "want a trust anchor name (printable, no comma, quote or backslash, at most 256 characters), "
                     "got {!r}");
        fault_text(f, p, n);
        return -1;
    }
    if (o->ntas == MAX_TAS) {
        fault_set(f, "more than {} distinct trust anchor names; want fewer");
        fault_int(f, MAX_TAS);
        return -1;
    }
    ta_name *t = &o->tas[o->ntas];
    if ((t->name = PyMem_RawMalloc((size_t)n)) == NULL) {
        fault_set(f, "out of memory");
        return -1;
    }
    memcpy(t->name, p, (size_t)n);
    t->len = n, t->line = where;
    *index = (uint16_t)o->ntas++;
    return 0;
}

int put_vrp(vrp_columns *o, uint32_t asn, int version, uint64_t hi, uint64_t lo, unsigned plen, unsigned maxlen,
            uint16_t ta, int64_t expires)
{
    COLUMN_PUT(&o->asn, uint32_t, asn);
    COLUMN_PUT(&o->version, int8_t, (int8_t)version);
    COLUMN_PUT(&o->hi, uint64_t, hi);
    COLUMN_PUT(&o->lo, uint64_t, lo);
    COLUMN_PUT(&o->plen, uint8_t, (uint8_t)plen);
    COLUMN_PUT(&o->maxlen, uint8_t, (uint8_t)maxlen);
    COLUMN_PUT(&o->ta, uint16_t, ta);
    COLUMN_PUT(&o->expires, int64_t, expires);
    o->count++;
    return o->expires.failed ? -1 : 0;
}

/* RFC 3629 UTF-8 (no overlongs, no surrogates, at most U+10FFFF): the first bad byte, or -1 */
Py_ssize_t utf8_check(const unsigned char *p, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    while (i < n) {
        while (i + 8 <= n) {  /* ASCII, eight bytes at a time */
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (w & 0x8080808080808080ULL)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        unsigned c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC2 ? 1 : -1;
        if (more < 0 || c > 0xF4 || i + more >= n)
            return i;
        unsigned c1 = p[i + 1];
        if ((c1 & 0xC0) != 0x80 || (c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F)
            || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F))
            return i;
        for (int k = 2; k <= more; k++)
            if ((p[i + k] & 0xC0) != 0x80)
                return i;
        i += more + 1;
    }
    return -1;
}
