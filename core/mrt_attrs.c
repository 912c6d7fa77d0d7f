/* The path attribute block of an UPDATE or of an MRT RIB entry, scanned as bgpsim.wire.attributes.
 * scan_attributes scans it: the framing of each attribute (RFC 4271 section 4.3), every length the
 * RFCs fix, ORIGIN, AS_PATH and AS4_PATH (merged, RFC 6793 section 4.2.3), MP_REACH_NLRI and
 * MP_UNREACH_NLRI (RFC 4760 sections 3 and 4; RFC 6396 section 4.3.4 in RIB entries), BGPsec_PATH
 * (RFC 8205 section 3). A repeated attribute: the last one counts, each one is checked.
 *
 * A path is kept as uint32 words, per segment: type, count, then the ASNs; the distinct paths of
 * one call are interned (mrt_intern_path) and handed to Python in that form. */
#include "aspath.h"
#include "mrt.h"

enum { ORIGIN = 1, AS_PATH = 2, NEXT_HOP = 3, MED = 4, LOCAL_PREF = 5, ATOMIC_AGGREGATE = 6, AGGREGATOR = 7,
       COMMUNITIES = 8, MP_REACH = 14, MP_UNREACH = 15, AS4_PATH = 17, AS4_AGGREGATOR = 18, LARGE_COMMUNITY = 32,
       BGPSEC_PATH = 33 };

static int put32(column *c, uint32_t v) { return column_put(c, &v, 4); }

/* RFC 4271 section 4.3, RFC 5065 section 3: the segments of an AS_PATH (or AS4_PATH) value b[pos:end] */
static int as_path(mrt_err *e, const uint8_t *b, Py_ssize_t pos, Py_ssize_t end, int asn_size, column *out)
{
    out->len = 0;
    while (pos < end) {
        if (pos + 2 > end)
            return mrt_fail(e, pos, "AS_PATH (RFC 4271 section 4.3): want a 2-byte segment header, got %zd byte",
                            end - pos);
        unsigned stype = b[pos], count = b[pos + 1];
        if (stype < 1 || stype > 4)
            return mrt_fail(e, pos, "AS_PATH (RFC 4271 section 4.3, RFC 5065 section 3): want segment type 1 to 4, "
                            "got %u", stype);
        pos += 2;
        Py_ssize_t need = (Py_ssize_t)count * asn_size;
        if (pos + need > end)
            return mrt_fail(e, pos, "AS_PATH (RFC 4271 section 4.3): segment of %u %d-byte ASNs wants %zd bytes, "
                            "got %zd", count, asn_size, need, end - pos);
        if (column_reserve(out, 4 * (2 + (Py_ssize_t)count)) < 0)
            return -2;
        put32(out, stype);
        put32(out, count);
        for (unsigned i = 0; i < count; i++)
            put32(out, asn_size == 4 ? get32(b + pos + 4 * i) : get16(b + pos + 2 * i));
        pos += need;
    }
    return 0;
}

/* bgpdump's count of a path for RFC 6793 section 4.2.3: every AS of a segment one, a set one */
static Py_ssize_t merge_count(const column *p)
{
    const uint32_t *w = (const uint32_t *)p->data;
    Py_ssize_t n = p->len / 4, total = 0;
    for (Py_ssize_t i = 0; i < n; i += 2 + w[i + 1])
        total += w[i] == AS_SET ? 1 : w[i + 1];
    return total;
}

/* RFC 6793 section 4.2.3 (aspath.merge_as4_path): an AS4_PATH longer than AS_PATH is ignored;
 * otherwise the leading ASes of AS_PATH that AS4_PATH lacks, then AS4_PATH */
static int merge_as4(const column *path, const column *as4, column *out)
{
    Py_ssize_t n_old = merge_count(path), n_new = merge_count(as4);
    out->len = 0;
    if (n_new > n_old)
        return mrt_put(out, path->data, path->len);
    Py_ssize_t keep = n_old - n_new;
    const uint32_t *w = (const uint32_t *)path->data;
    Py_ssize_t n = path->len / 4;
    for (Py_ssize_t i = 0; i < n && keep > 0; i += 2 + w[i + 1]) {
        uint32_t stype = w[i], count = w[i + 1];
        if (stype == AS_SET) {
            mrt_put(out, w + i, 4 * (2 + (Py_ssize_t)count));
            keep -= 1;
        } else if (count <= keep) {
            mrt_put(out, w + i, 4 * (2 + (Py_ssize_t)count));
            keep -= count;
        } else {
            put32(out, stype);
            put32(out, (uint32_t)keep);
            mrt_put(out, w + i + 2, 4 * keep);
            keep = 0;
        }
    }
    mrt_put(out, as4->data, as4->len);
    return out->failed ? -2 : 0;
}

#define BFAIL(off, sec, ...) mrt_fail_more(e, v + (off), sec, __VA_ARGS__)

/* "BGPsec_PATH (RFC 8205 section 3): reason", and " (RFC 8205 section x)" when the section is not 3 */
static int mrt_fail_more(mrt_err *e, Py_ssize_t off, const char *sec, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int mrt_fail_more(mrt_err *e, Py_ssize_t off, const char *sec, const char *fmt, ...)
{
    char reason[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (strcmp(sec, "3") == 0)
        return mrt_fail(e, off, "BGPsec_PATH (RFC 8205 section 3): %s", reason);
    return mrt_fail(e, off, "BGPsec_PATH (RFC 8205 section 3): %s (RFC 8205 section %s)", reason, sec);
}

/* RFC 8205 section 3 (rpki/bgpsec/path.py decode): the BGPsec_PATH value b[v:end] checked; its path
 * (section 4.4, wire/bgpsec.path_of) in `out`: each AS pCount times, most recent first, runs of
 * Confed_Segment ASes as AS_CONFED_SEQUENCE */
static int bgpsec_path(mrt_err *e, const uint8_t *b, Py_ssize_t v, Py_ssize_t end, column *out)
{
    Py_ssize_t len = end - v;
    const uint8_t *x = b + v;
    if (len < 2)
        return BFAIL(0, "3.1", "Secure_Path Length: want 2 bytes, got %zd", len);
    Py_ssize_t sp = get16(x);
    if (sp < 8 || (sp - 2) % 6)
        return BFAIL(0, "3.1", "Secure_Path Length: want 2 + 6 N with N >= 1, got %zd", sp);
    if (sp > len)
        return BFAIL(0, "3.1", "Secure_Path: want %zd bytes, got %zd", sp, len);
    Py_ssize_t nseg = (sp - 2) / 6, pos = sp;
    if (pos == len)
        return BFAIL(pos, "3", "want at least one Signature_Block after the Secure_Path");
    int nblocks = 0;
    unsigned suites[2] = {0, 0};
    while (pos < len) {
        if (nblocks == 2)
            return BFAIL(pos, "3", "want at most 2 Signature_Blocks, got more");
        if (pos + 3 > len)
            return BFAIL(pos, "3.2", "Signature_Block header: want 3 bytes, got %zd", len - pos);
        Py_ssize_t sb = get16(x + pos), stop = pos + sb;
        unsigned suite = x[pos + 2];
        if (sb < 3 || stop > len)
            return BFAIL(pos, "3.2", "Signature_Block Length: want 3 to %zd, got %zd", len - pos, sb);
        Py_ssize_t nsig = 0, p = pos + 3;
        while (p < stop) {
            if (p + 22 > stop)
                return BFAIL(p, "3.2", "Signature Segment: want a 22-byte header, got %zd bytes", stop - p);
            Py_ssize_t sl = get16(x + p + 20), q = p + 22 + sl;
            if (sl == 0 || q > stop)
                return BFAIL(p + 20, "3.2", "Signature Length: want 1 to %zd, got %zd", stop - p - 22, sl);
            nsig++;
            p = q;
        }
        if (nsig != nseg)
            return BFAIL(pos, "5.2", "Signature_Block (suite %u): want one Signature Segment per Secure_Path "
                         "Segment (%zd), got %zd", suite, nseg, nsig);
        for (int i = 0; i < nblocks; i++)
            if (suites[i] == suite)
                return BFAIL(pos, "3", "two Signature_Blocks with algorithm suite %u: want different suites", suite);
        suites[nblocks++] = suite;
        pos = stop;
    }
    out->len = 0;
    uint32_t stype = 0;
    Py_ssize_t head = -1; /* word index of the open segment's header */
    for (Py_ssize_t i = 0; i < nseg; i++) {
        const uint8_t *s = x + 2 + 6 * i;
        uint32_t t = s[1] & 0x80 ? AS_CONFED_SEQUENCE : AS_SEQUENCE;
        if (t != stype) {
            if (head >= 0 && ((uint32_t *)out->data)[head + 1] == 0)
                out->len = 4 * head; /* an empty run is dropped */
            stype = t;
            head = out->len / 4;
            put32(out, t);
            put32(out, 0);
        }
        if (column_reserve(out, 4 * (Py_ssize_t)s[0]) < 0)
            return -2;
        for (unsigned k = 0; k < s[0]; k++)
            put32(out, get32(s + 2));
        ((uint32_t *)out->data)[head + 1] += s[0];
    }
    if (head >= 0 && ((uint32_t *)out->data)[head + 1] == 0)
        out->len = 4 * head;
    return out->failed ? -2 : 0;
}

/* mp.py _next_hop: where the next hop's address is, for the lengths it reads (0: None) */
static void next_hop(Py_ssize_t p, unsigned nhlen, Py_ssize_t *at, Py_ssize_t *len)
{
    *at = p;
    *len = 0;
    if (nhlen == 4 || nhlen == 16)
        *len = nhlen;
    else if (nhlen == 32)
        *len = 16;
    else if (nhlen == 24 || nhlen == 48) /* RFC 4659: an 8-byte RD, then the address */
        *at = p + 8, *len = 16;
    else if (nhlen == 12)
        *at = p + 8, *len = 4;
}

/* RFC 4760 section 3 */
static int mp_reach(mrt_err *e, const uint8_t *b, Py_ssize_t pos, Py_ssize_t end, mrt_attrs *a)
{
    if (end - pos < 5)
        return mrt_fail(e, pos, "MP_REACH_NLRI (RFC 4760 section 3): want at least 5 bytes, got %zd", end - pos);
    unsigned nhlen = b[pos + 3];
    Py_ssize_t p = pos + 4;
    if (p + nhlen + 1 > end)
        return mrt_fail(e, p - 1, "MP_REACH_NLRI (RFC 4760 section 3): next hop of %u bytes and the reserved byte "
                        "want %u bytes, got %zd", nhlen, nhlen + 1, end - p);
    a->r_afi = get16(b + pos);
    a->r_safi = b[pos + 2];
    a->r_nhlen = nhlen;
    next_hop(p, nhlen, &a->r_nh, &a->r_nh_len);
    a->r_nlri = p + nhlen + 1;
    a->r_end = end;
    a->has_reach = 1;
    return 0;
}

int mrt_scan_attrs(mrt_ctx *c, const uint8_t *b, Py_ssize_t end, int asn_size, int rib_afi, mrt_attrs *a)
{
    mrt_err *e = &c->err;
    column *path = &c->scratch[0], *as4 = &c->scratch[1], *eff = &c->scratch[2];
    int have_path = 0, have_as4 = 0, have_bgpsec = 0, r;
    Py_ssize_t pos = 0, bgpsec_at = 0;
    memset(a, 0, sizeof *a);
    while (pos < end) {
        if (pos + 3 > end)
            return mrt_fail(e, pos, "path attribute (RFC 4271 section 4.3): want a 3-byte header, got %zd bytes",
                            end - pos);
        unsigned code = b[pos + 1];
        Py_ssize_t v;
        if (b[pos] & 0x10) { /* Extended Length */
            if (pos + 4 > end)
                return mrt_fail(e, pos, "path attribute (RFC 4271 section 4.3): want a 4-byte extended-length "
                                "header, got %zd bytes", end - pos);
            v = pos + 4;
            pos = v + get16(b + pos + 2);
        } else {
            v = pos + 3;
            pos = v + b[pos + 2];
        }
        Py_ssize_t n = pos - v;
        if (pos > end)
            return mrt_fail(e, v, "path attribute type %u (RFC 4271 section 4.3): want %zd bytes, got %zd", code, n,
                            end - v);
        switch (code) {
        case AS_PATH:
            if ((r = as_path(e, b, v, pos, asn_size, path)) < 0)
                return r;
            have_path = 1;
            break;
        case ORIGIN:
            if (n != 1)
                return mrt_fail(e, v, "ORIGIN (RFC 4271 section 4.3 a): want 1 bytes, got %zd", n);
            break;
        case NEXT_HOP:
        case MED:
        case LOCAL_PREF:
            if (n != 4)
                return mrt_fail(e, v, "%s (RFC 4271 section 4.3 %s): want 4 bytes, got %zd",
                                code == NEXT_HOP ? "NEXT_HOP" : code == MED ? "MULTI_EXIT_DISC" : "LOCAL_PREF",
                                code == NEXT_HOP ? "c" : code == MED ? "d" : "e", n);
            break;
        case COMMUNITIES: /* RFC 1997 */
            if (n & 3)
                return mrt_fail(e, v, "COMMUNITIES (RFC 1997): want a multiple of 4 bytes, got %zd", n);
            break;
        case MP_REACH:
            if (rib_afi) { /* RFC 6396 section 4.3.4: next-hop length and next hop only */
                if (n < 1)
                    return mrt_fail(e, v, "MP_REACH_NLRI (RFC 6396 section 4.3.4): want a next-hop length, got "
                                    "nothing");
                unsigned nhlen = b[v];
                if (v + 1 + nhlen == pos && (nhlen == 4 || nhlen == 12 || nhlen == 16 || nhlen == 24 ||
                                             nhlen == 32 || nhlen == 48)) {
                    a->r_afi = (uint32_t)rib_afi;
                    a->r_safi = 1;
                    a->r_nhlen = nhlen;
                    next_hop(v + 1, nhlen, &a->r_nh, &a->r_nh_len);
                    a->r_nlri = a->r_end = pos;
                    a->has_reach = 1;
                    break;
                }
            }
            if ((r = mp_reach(e, b, v, pos, a)) < 0)
                return r;
            break;
        case MP_UNREACH: /* RFC 4760 section 4 */
            if (n < 3)
                return mrt_fail(e, v, "MP_UNREACH_NLRI (RFC 4760 section 4): want at least 3 bytes, got %zd", n);
            a->u_afi = get16(b + v);
            a->u_safi = b[v + 2];
            a->u_start = v + 3;
            a->u_end = pos;
            a->has_unreach = 1;
            break;
        case AGGREGATOR: /* RFC 4271 section 4.3 g; RFC 6793 section 3 */
            if (n != 6 && n != 8)
                return mrt_fail(e, v, "AGGREGATOR (RFC 4271 section 4.3 g, RFC 6793 section 3): want 6 or 8 bytes, "
                                "got %zd", n);
            break;
        case ATOMIC_AGGREGATE:
            if (n != 0)
                return mrt_fail(e, v, "ATOMIC_AGGREGATE (RFC 4271 section 4.3 f): want 0 bytes, got %zd", n);
            break;
        case LARGE_COMMUNITY:
            if (n % 12)
                return mrt_fail(e, v, "LARGE_COMMUNITY (RFC 8092 section 3): want a multiple of 12 bytes, got %zd",
                                n);
            break;
        case AS4_PATH: /* RFC 6793 section 3 */
            if ((r = as_path(e, b, v, pos, 4, as4)) < 0)
                return r;
            have_as4 = 1;
            break;
        case AS4_AGGREGATOR:
            if (n != 8)
                return mrt_fail(e, v, "AS4_AGGREGATOR (RFC 6793 section 3): want 8 bytes, got %zd", n);
            break;
        case BGPSEC_PATH:
            if ((r = bgpsec_path(e, b, v, pos, eff)) < 0)
                return r;
            have_bgpsec = 1;
            bgpsec_at = v;
            break;
        default:
            break;
        }
    }
    const column *p = NULL;
    if (have_bgpsec) {
        if (have_path)
            return mrt_fail(e, bgpsec_at, "RFC 8205 section 3: want AS_PATH or BGPsec_PATH, not both");
        p = eff; /* RFC 8205 section 4.4 */
        a->bgpsec = 1;
    } else if (have_path) {
        p = path;
        if (have_as4 && asn_size == 2) { /* RFC 6793 section 4.2.3 */
            if (merge_as4(path, as4, eff) < 0)
                return -2;
            p = eff;
        }
    }
    if (p == NULL) {
        a->path = -1;
        a->origin = -2;
        return 0;
    }
    a->has_path = 1;
    a->origin = path_origin((const uint32_t *)p->data, p->len / 4);
    a->path = mrt_intern_path(c->out, p);
    return a->path < 0 ? -2 : 0;
}

/* the index of the path `words` in this call's list, added if new; -1: no memory */
int32_t mrt_intern_path(mrt_out *o, const column *words)
{
    return intern_key(&o->paths, words->data, words->len);
}
