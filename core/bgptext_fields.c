/* The fields of a `bgpdump -m` line, checked as bgpsim/mrt/text.py checks them, with its messages:
 * 32-bit numbers (RFC 6793 ASNs, RFC 4271 section 4.3 LOCAL_PREF and MED), addresses by inet_pton
 * (the function Python's socket.inet_pton calls: RFC 4291 section 2.2 text for IPv6, four decimal
 * octets without leading zeros for IPv4), prefixes, AS paths as bgpdump writes the segments of RFC 4271
 * section 4.3 and RFC 5065 section 3 ("a b", "{a,b}", "(a b)", "[a,b]"), RFC 1997 communities. Where
 * text.py's message shows a value with {x!r}, the text here is Python's repr of that str. */
#include "bgptext.h"
#include "text.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <sys/socket.h>

void bt_msg(bt_ctx *c, const char *s) { column_put(&c->msg, s, (Py_ssize_t)strlen(s)); }

void bt_msg_n(bt_ctx *c, const uint8_t *p, Py_ssize_t n)
{
    if (n > 0)
        column_put(&c->msg, p, n);
}

void bt_msg_int(bt_ctx *c, long long v)
{
    char t[24];
    int k = snprintf(t, sizeof t, "%lld", v);
    column_put(&c->msg, t, k);
}

/* repr() of an ASCII str: '...' unless it holds ' and no ", escapes as Python writes them */
void bt_msg_repr(bt_ctx *c, const uint8_t *p, Py_ssize_t n)
{
    int sq = 0, dq = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        sq |= p[i] == '\'', dq |= p[i] == '"';
    char q = sq && !dq ? '"' : '\'';
    if (column_reserve(&c->msg, 4 * n + 2) < 0)
        return;
    char *o = c->msg.data + c->msg.len;
    *o++ = q;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint8_t b = p[i];
        if (b == (uint8_t)q || b == '\\')
            *o++ = '\\', *o++ = (char)b;
        else if (b == '\t')
            *o++ = '\\', *o++ = 't';
        else if (b == '\n')
            *o++ = '\\', *o++ = 'n';
        else if (b == '\r')
            *o++ = '\\', *o++ = 'r';
        else if (b < 0x20 || b >= 0x7f)
            *o++ = '\\', *o++ = 'x', *o++ = "0123456789abcdef"[b >> 4], *o++ = "0123456789abcdef"[b & 15];
        else
            *o++ = (char)b;
    }
    *o++ = q;
    c->msg.len = o - c->msg.data;
}

static int digits(bt_span f)
{
    if (f.n == 0)
        return 0;
    for (Py_ssize_t i = 0; i < f.n; i++)
        if (f.p[i] < '0' || f.p[i] > '9')
            return 0;
    return 1;
}

static Py_ssize_t find(bt_span f, uint8_t ch)
{
    for (Py_ssize_t i = 0; i < f.n; i++)
        if (f.p[i] == ch)
            return i;
    return -1;
}

/* the value of at most 19 digits */
static uint64_t value(bt_span f)
{
    uint64_t v = 0;
    for (Py_ssize_t i = 0; i < f.n; i++)
        v = v * 10 + (uint64_t)(f.p[i] - '0');
    return v;
}

/* text._u32 */
int bt_u32(bt_ctx *c, bt_span f, const char *what, uint32_t *out)
{
    if (!digits(f) || f.n > 10) {
        bt_msg(c, what);
        bt_msg(c, ": want a number 0 to 4294967295, got ");
        bt_msg_repr(c, f.p, f.n);
        return -1;
    }
    uint64_t v = value(f);
    if (v > 0xFFFFFFFFu) {
        bt_msg(c, what);
        bt_msg(c, ": want a number 0 to 4294967295, got ");
        bt_msg_n(c, f.p, f.n);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* text._address: inet_pton(AF_INET6 if ":" in the text else AF_INET); afi 2 or 1 */
int bt_address(bt_ctx *c, bt_span f, const char *what, uint8_t out[16], int *afi)
{
    char t[64];
    int v6 = find(f, ':') >= 0;
    /* no address text is longer than 45 characters; Python refuses an embedded NUL */
    if (f.n < (Py_ssize_t)sizeof t && find(f, 0) < 0) {
        if (f.n > 0)
            memcpy(t, f.p, (size_t)f.n);
        t[f.n] = 0;
        if (inet_pton(v6 ? AF_INET6 : AF_INET, t, out) == 1) {
            *afi = v6 ? 2 : 1;
            return 0;
        }
    }
    bt_msg(c, what);
    bt_msg(c, ": want an IPv4 or IPv6 address, got ");
    bt_msg_repr(c, f.p, f.n);
    return -1;
}

/* text._prefix; the numbers of ipaddress.ip_network(text, strict=False) (host bits cleared), and
 * whether text.c's prefix_text gives the text back */
int bt_prefix(bt_ctx *c, bt_span f, int *afi, uint64_t *hi, uint64_t *lo, int *plen, int *canonical)
{
    Py_ssize_t slash = find(f, '/');
    bt_span len = {f.p + slash + 1, f.n - slash - 1};
    if (slash < 0 || !digits(len) || len.n > 3) {
        bt_msg(c, "prefix: want address/length, got ");
        bt_msg_repr(c, f.p, f.n);
        return -1;
    }
    uint8_t raw[16];
    if (bt_address(c, (bt_span){f.p, slash}, "prefix", raw, afi) < 0)
        return -1;
    int bits = *afi == 2 ? 128 : 32, n = (int)value(len);
    if (n > bits) {
        bt_msg(c, *afi == 2 ? "prefix (RFC 4271 section 4.3): want a length <= 128, got "
                            : "prefix (RFC 4271 section 4.3): want a length <= 32, got ");
        bt_msg_n(c, len.p, len.n);
        return -1;
    }
    if (*afi == 1) {
        *hi = 0;
        *lo = n ? (uint64_t)(get32(raw) & (0xFFFFFFFFu << (32 - n))) : 0;
    } else {
        uint64_t h = 0, l = 0;
        for (int i = 0; i < 8; i++)
            h = h << 8 | raw[i], l = l << 8 | raw[8 + i];
        *hi = n == 0 ? 0 : n >= 64 ? h : h & ~(~0ULL >> n);
        *lo = n <= 64 ? 0 : n == 128 ? l : l & ~(~0ULL >> (n - 64));
    }
    *plen = n;
    char t[PREFIX_TEXT_MAX];
    int k = prefix_text(*afi, *hi, *lo, (unsigned)n, t);
    *canonical = k == f.n && memcmp(t, f.p, (size_t)k) == 0;
    return 0;
}

/* one more ASN of the path being read, in segment `type` (a new segment unless it continues one) */
static int put_asn(bt_ctx *c, uint32_t asn, int type, int fresh)
{
    int64_t *segs = (int64_t *)c->segs.data;
    if (fresh || c->segs.len == 0 || segs[c->segs.len / 8 - 2] != type) {
        COLUMN_PUT(&c->segs, int64_t, type);
        COLUMN_PUT(&c->segs, int64_t, 0);
        segs = (int64_t *)c->segs.data;
    }
    if (c->segs.failed || column_put(&c->asns, &asn, 4) < 0)
        return -2;
    segs[c->segs.len / 8 - 1]++;
    return 0;
}

/* text._as_path: the segments into c->segs (int64 type, count) and c->asns, the origin AS as
 * attributes.origin_of gives it (RFC 6811 section 2): the last AS of a final AS_SEQUENCE, -2 (the
 * speaker's own) after a final confederation segment, else -1 (NONE) */
int bt_as_path(bt_ctx *c, bt_span f, int64_t *origin)
{
    const uint8_t *t = f.p;
    Py_ssize_t n = f.n, pos = 0;
    c->segs.len = c->asns.len = 0;
    while (pos < n) {
        uint8_t ch = t[pos];
        Py_ssize_t next;
        if (ch == '{' || ch == '(' || ch == '[') { /* \{([0-9,]+)\} \(([0-9 ]+)\) \[([0-9,]+)\] */
            uint8_t close = ch == '{' ? '}' : ch == '(' ? ')' : ']', sep = ch == '(' ? ' ' : ',';
            int type = ch == '{' ? 1 : ch == '(' ? 3 : 4;
            Py_ssize_t j = pos + 1;
            while (j < n && ((t[j] >= '0' && t[j] <= '9') || t[j] == sep))
                j++;
            if (j == pos + 1 || j >= n || t[j] != close)
                goto nomatch;
            int fresh = 1;
            for (Py_ssize_t k = pos + 1;;) { /* body.split(sep) */
                Py_ssize_t e = k;
                while (e < j && t[e] != sep)
                    e++;
                uint32_t asn;
                if (bt_u32(c, (bt_span){t + k, e - k}, "AS path", &asn) < 0)
                    return -1;
                if (put_asn(c, asn, type, fresh) < 0)
                    return -2;
                fresh = 0;
                if (e == j)
                    break;
                k = e + 1;
            }
            next = j + 1;
        } else if (ch >= '0' && ch <= '9') { /* ([0-9]+): a run of a sequence */
            Py_ssize_t j = pos;
            while (j < n && t[j] >= '0' && t[j] <= '9')
                j++;
            uint32_t asn;
            if (bt_u32(c, (bt_span){t + pos, j - pos}, "AS path", &asn) < 0)
                return -1;
            if (put_asn(c, asn, 2, 0) < 0)
                return -2;
            next = j;
        } else {
            goto nomatch;
        }
        pos = next;
        if (pos < n) {
            if (t[pos] != ' ' || pos + 1 == n) {
                bt_msg(c, "AS path: want one space between segments at character ");
                bt_msg_int(c, (long long)pos + 1);
                return -1;
            }
            pos++;
        }
    }
    const int64_t *segs = (const int64_t *)c->segs.data;
    int64_t last = segs[c->segs.len / 8 - 2];
    *origin = last == 2 ? (int64_t)((const uint32_t *)c->asns.data)[c->asns.len / 4 - 1] : last >= 3 ? -2 : -1;
    return 0;
nomatch:
    bt_msg(c, "AS path: want ASNs, {set}, (confed sequence) or [confed set] at character ");
    bt_msg_int(c, (long long)pos + 1);
    bt_msg(c, ", got ");
    bt_msg_repr(c, t + pos, n - pos < 20 ? n - pos : 20);
    return -1;
}

/* text._community */
int bt_community(bt_ctx *c, bt_span f)
{
    static const char *const named[] = {"no-export", "no-advertise", "local-AS"};
    for (int i = 0; i < 3; i++)
        if ((size_t)f.n == strlen(named[i]) && memcmp(f.p, named[i], (size_t)f.n) == 0)
            return 0;
    Py_ssize_t colon = find(f, ':');
    bt_span hi = {f.p, colon}, lo = {f.p + colon + 1, f.n - colon - 1};
    if (colon < 0 || !digits(hi) || !digits(lo) || hi.n > 5 || lo.n > 5 || value(hi) > 0xFFFF ||
        value(lo) > 0xFFFF) {
        bt_msg(c, "community (RFC 1997): want asn:value with 16-bit halves, got ");
        bt_msg_repr(c, f.p, f.n);
        return -1;
    }
    return 0;
}
