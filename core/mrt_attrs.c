/* The path attribute block of an UPDATE or of an MRT RIB entry, scanned as bgpsim.wire.attributes.
 * scan_attributes scans it: the framing of each attribute (RFC 4271 section 4.3), every length the
 * RFCs fix, ORIGIN, AS_PATH and AS4_PATH (merged, RFC 6793 section 4.2.3), MP_REACH_NLRI and
 * MP_UNREACH_NLRI (RFC 4760 sections 3 and 4; RFC 6396 section 4.3.4 in RIB entries), BGPsec_PATH
 * (RFC 8205 section 3).
 *
 * Faults are handled as RFC 7606 says (section 2): a fault in an attribute that only it carries
 * (AGGREGATOR, ATOMIC_AGGREGATE, the AS4 attributes, an external peer's LOCAL_PREF) discards that
 * attribute, with a warning; a fault in one that the routes depend on, a missing mandatory attribute
 * or an attribute block that overruns after its MP_REACH_NLRI or MP_UNREACH_NLRI makes the UPDATE a
 * withdrawal of its routes (mrt_update.c); a damaged MP_REACH_NLRI or MP_UNREACH_NLRI, or an overrun
 * before one, which hides which routes those are, fails the record, as does any fault in a RIB
 * entry, which has nothing to withdraw. A repeated attribute: the first
 * one counts (section 3 g).
 *
 * A path is kept as uint32 words, per segment: type, count, then the ASNs; the distinct paths of
 * one call are interned (mrt_intern_path) and handed to Python in that form. */
#include "aspath.h"
#include "mrt.h"

enum { ORIGIN = 1, AS_PATH = 2, NEXT_HOP = 3, MED = 4, LOCAL_PREF = 5, ATOMIC_AGGREGATE = 6, AGGREGATOR = 7,
       COMMUNITIES = 8, ORIGINATOR_ID = 9, CLUSTER_LIST = 10, MP_REACH = 14, MP_UNREACH = 15, EXT_COMMUNITIES = 16,
       AS4_PATH = 17, AS4_AGGREGATOR = 18, IPV6_EXT_COMMUNITIES = 25, LARGE_COMMUNITY = 32, BGPSEC_PATH = 33 };

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

/* the attribute types this scan knows: name, the flags RFC 4271 section 4.3 gives them (WK well-known,
 * OT optional transitive, ON optional non-transitive), and what a fault in one costs (RFC 7606 section 7,
 * RFC 6793 section 6, RFC 8092 section 6, RFC 8205 section 5.2) */
enum { WK = 1, OT, ON };
typedef struct {
    const char *name, *section;
    uint8_t kind, cost;
} attr_type;

static const attr_type *known(unsigned code)
{
    static const attr_type types[] = {
        [ORIGIN] = {"ORIGIN", "RFC 7606 section 7.1", WK, A_WITHDRAW},
        [AS_PATH] = {"AS_PATH", "RFC 7606 section 7.2", WK, A_WITHDRAW},
        [NEXT_HOP] = {"NEXT_HOP", "RFC 7606 section 7.3", WK, A_WITHDRAW},
        [MED] = {"MULTI_EXIT_DISC", "RFC 7606 section 7.4", ON, A_WITHDRAW},
        [LOCAL_PREF] = {"LOCAL_PREF", "RFC 7606 section 7.5", WK, A_WITHDRAW},
        [ATOMIC_AGGREGATE] = {"ATOMIC_AGGREGATE", "RFC 7606 section 7.6", WK, A_DISCARD},
        [AGGREGATOR] = {"AGGREGATOR", "RFC 7606 section 7.7", OT, A_DISCARD},
        [COMMUNITIES] = {"COMMUNITIES", "RFC 7606 section 7.8", OT, A_WITHDRAW},
        [ORIGINATOR_ID] = {"ORIGINATOR_ID", "RFC 7606 section 7.9", ON, A_WITHDRAW},
        [CLUSTER_LIST] = {"CLUSTER_LIST", "RFC 7606 section 7.10", ON, A_WITHDRAW},
        [MP_REACH] = {"MP_REACH_NLRI", "RFC 7606 section 7.11", ON, A_RESET},
        [MP_UNREACH] = {"MP_UNREACH_NLRI", "RFC 7606 section 7.11", ON, A_RESET},
        [EXT_COMMUNITIES] = {"EXTENDED_COMMUNITIES", "RFC 7606 section 7.14", OT, A_WITHDRAW},
        [AS4_PATH] = {"AS4_PATH", "RFC 6793 section 6", OT, A_DISCARD},
        [AS4_AGGREGATOR] = {"AS4_AGGREGATOR", "RFC 6793 section 6", OT, A_DISCARD},
        [IPV6_EXT_COMMUNITIES] = {"IPV6_EXTENDED_COMMUNITIES", "RFC 7606 section 7.15", OT, A_WITHDRAW},
        [LARGE_COMMUNITY] = {"LARGE_COMMUNITY", "RFC 8092 section 6", OT, A_WITHDRAW},
        [BGPSEC_PATH] = {"BGPsec_PATH", "RFC 8205 section 5.2", ON, A_WITHDRAW},
    };
    return code < sizeof types / sizeof *types && types[code].name ? &types[code] : NULL;
}

/* the length a type fixes: 1 when n fits (RFC 7606 section 7 and the RFCs it names) */
static int length_fits(unsigned code, Py_ssize_t n, const char **want)
{
    switch (code) {
    case ORIGIN: *want = "1 byte"; return n == 1;
    case NEXT_HOP: case MED: case LOCAL_PREF: case ORIGINATOR_ID: *want = "4 bytes"; return n == 4;
    case ATOMIC_AGGREGATE: *want = "0 bytes"; return n == 0;
    case AGGREGATOR: *want = "6 or 8 bytes"; return n == 6 || n == 8;
    case AS4_AGGREGATOR: *want = "8 bytes"; return n == 8;
    case COMMUNITIES: case CLUSTER_LIST: *want = "a non-zero multiple of 4 bytes"; return n > 0 && n % 4 == 0;
    case EXT_COMMUNITIES: *want = "a non-zero multiple of 8 bytes"; return n > 0 && n % 8 == 0;
    case IPV6_EXT_COMMUNITIES: *want = "a non-zero multiple of 20 bytes"; return n > 0 && n % 20 == 0;
    case LARGE_COMMUNITY: *want = "a non-zero multiple of 12 bytes"; return n > 0 && n % 12 == 0;
    default: return 1;
    }
}

int mrt_attr_fault(mrt_err *e, Py_ssize_t v, unsigned flags, unsigned code, Py_ssize_t n)
{
    const attr_type *t = known(code);
    if (t == NULL)
        return A_OK;
    /* RFC 4271 section 4.3: well-known attributes are transitive, Partial only on optional transitive ones */
    unsigned want = t->kind == WK ? 0x40 : t->kind == OT ? 0xC0 : 0x80, mask = t->kind == OT ? 0xC0 : 0xE0;
    if ((flags & mask) != want) {
        mrt_fail(e, v - (flags & 0x10 ? 4 : 3), "%s (RFC 7606 section 3 c): want flags %s (0x%02x), got 0x%02x", t->name,
                 t->kind == WK ? "well-known" : t->kind == OT ? "optional transitive" : "optional non-transitive",
                 want, flags & 0xF0);
        return t->cost;
    }
    const char *w = NULL;
    if (!length_fits(code, n, &w)) {
        mrt_fail(e, v, "%s (%s): want %s, got %zd", t->name, t->section, w, n);
        return t->cost;
    }
    return A_OK;
}

/* where a note on the record's body[off] is, as the skip warnings say it (mrt.c handle): the stream
 * offset, or the offset in the message for MRTCore.update */
long long mrt_where(const mrt_ctx *c, Py_ssize_t off)
{
    return c->at >= 0 ? (long long)(c->at + 12 + off) : (long long)off;
}

/* the record fails with `why` (its offset in the block at `at`): -1 */
static int fail_at(mrt_ctx *c, const mrt_err *why, Py_ssize_t at)
{
    c->err = *why;
    c->err.off += at;
    return -1;
}

/* RFC 7606 section 2, attribute discard: a warning, the rest read. 0, or -2 no memory */
static int discard(mrt_ctx *c, const mrt_err *why, Py_ssize_t at)
{
    return mrt_warn(c->out, "byte %lld: %s; attribute discarded (RFC 7606 section 2)", mrt_where(c, at + why->off),
                    why->msg) < 0 ? -2 : 0;
}

/* RFC 7606 section 2, treat-as-withdraw: the UPDATE's routes withdrawn (the first fault is the one told);
 * a RIB entry, which has none to withdraw, fails. 0 or -1 */
static int withdraw(mrt_ctx *c, mrt_attrs *a, int from, const mrt_err *why, Py_ssize_t at)
{
    if (from == FROM_RIB)
        return fail_at(c, why, at);
    if (!a->withdraw) {
        a->withdraw = 1;
        a->why = *why;
        a->why.off += at;
    }
    return 0;
}

/* RFC 7606 section 4: a block that overruns withdraws the routes, if they can all be found: an
 * MP_REACH_NLRI or MP_UNREACH_NLRI goes first (section 5.1), so one not seen before the fault may be
 * hidden behind it, and the record fails (section 5.3: NLRI that cannot be found reset the session) */
static int overrun(mrt_ctx *c, mrt_attrs *a, int from, const mrt_err *why, Py_ssize_t at)
{
    if (!a->has_reach && !a->has_unreach) {
        size_t n = strlen(why->msg);
        fail_at(c, why, at);
        snprintf(c->err.msg + n, sizeof c->err.msg - n, ", before any MP_REACH_NLRI (RFC 7606 section 5.3)");
        return -1;
    }
    return withdraw(c, a, from, why, at);
}

int mrt_scan_attrs(mrt_ctx *c, Py_ssize_t at, Py_ssize_t end, int asn_size, int rib_afi, int from, mrt_attrs *a)
{
    const uint8_t *b = c->body + at;
    mrt_err *e = &c->err, why;
    column *path = &c->scratch[0], *as4 = &c->scratch[1], *eff = &c->scratch[2];
    int have_path = 0, have_as4 = 0, have_bgpsec = 0, r;
    Py_ssize_t pos = 0, bgpsec_at = 0;
    uint8_t seen[32] = {0};
    memset(a, 0, sizeof *a);
    while (pos < end) {
        /* RFC 7606 section 4: an attribute that overruns the block makes it unreadable from there on */
        if (pos + 3 > end || ((b[pos] & 0x10) && pos + 4 > end)) {
            mrt_fail(&why, pos, "path attribute (RFC 7606 section 4): want a %d-byte header, got %zd bytes",
                     b[pos] & 0x10 ? 4 : 3, end - pos);
            if (overrun(c, a, from, &why, at) < 0)
                return -1;
            break;
        }
        unsigned flags = b[pos], code = b[pos + 1];
        Py_ssize_t v = pos + (flags & 0x10 ? 4 : 3);
        Py_ssize_t n = flags & 0x10 ? get16(b + pos + 2) : b[pos + 2];
        if (v + n > end) {
            mrt_fail(&why, v, "path attribute type %u (RFC 7606 section 4): want %zd bytes, got %zd", code, n, end - v);
            if (overrun(c, a, from, &why, at) < 0)
                return -1;
            break;
        }
        Py_ssize_t hdr = pos;
        pos = v + n;
        if (seen[code >> 3] & (1 << (code & 7))) { /* RFC 7606 section 3 g */
            if (code == MP_REACH || code == MP_UNREACH)
                return mrt_fail(e, at + hdr, "%s (RFC 7606 section 3 g): want it once, got it again", known(code)->name);
            mrt_fail(&why, hdr, "path attribute type %u (RFC 7606 section 3 g): want it once, got it again", code);
            if (discard(c, &why, at) < 0)
                return -2;
            continue;
        }
        seen[code >> 3] |= (uint8_t)(1 << (code & 7));
        int cost = mrt_attr_fault(&why, v, flags, code, n);
        if (cost == A_OK) {
            r = 0;
            switch (code) {
            case AS_PATH:
                r = as_path(&why, b, v, pos, asn_size, path);
                have_path = r == 0;
                break;
            case ORIGIN:
                a->has_origin = 1;
                if (b[v] > 2)
                    r = mrt_fail(&why, v, "ORIGIN (RFC 7606 section 7.1): want 0 (IGP), 1 (EGP) or 2 (INCOMPLETE), "
                                 "got %u", b[v]);
                break;
            case NEXT_HOP:
                a->has_next_hop = 1;
                break;
            case MP_REACH:
                if (rib_afi) { /* RFC 6396 section 4.3.4: next-hop length and next hop only */
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
                r = mp_reach(&why, b, v, pos, a);
                break;
            case MP_UNREACH: /* RFC 4760 section 4 */
                if (n < 3) {
                    r = mrt_fail(&why, v, "MP_UNREACH_NLRI (RFC 4760 section 4): want at least 3 bytes, got %zd", n);
                    break;
                }
                a->u_afi = get16(b + v);
                a->u_safi = b[v + 2];
                a->u_start = v + 3;
                a->u_end = pos;
                a->has_unreach = 1;
                break;
            case AS4_PATH: /* RFC 6793 section 3 */
                r = as_path(&why, b, v, pos, 4, as4);
                have_as4 = r == 0;
                break;
            case BGPSEC_PATH:
                r = bgpsec_path(&why, b, v, pos, eff);
                have_bgpsec = r == 0;
                bgpsec_at = v;
                break;
            default:
                break;
            }
            if (r == -2)
                return -2;
            if (r == 0)
                continue;
            cost = known(code)->cost;
        }
        /* LOCAL_PREF from an external peer is not its to give (RFC 7606 section 7.5) */
        if (code == LOCAL_PREF && from == FROM_EBGP)
            cost = A_DISCARD;
        if (cost == A_RESET)
            return fail_at(c, &why, at);
        if (cost == A_WITHDRAW) {
            if (withdraw(c, a, from, &why, at) < 0)
                return -1;
        } else if (discard(c, &why, at) < 0) {
            return -2;
        }
    }
    if (have_bgpsec && have_path) {
        mrt_fail(&why, bgpsec_at, "BGPsec_PATH (RFC 8205 section 5.2): want AS_PATH or BGPsec_PATH, not both");
        if (withdraw(c, a, from, &why, at) < 0)
            return -1;
    }
    const column *p = NULL;
    if (have_bgpsec) {
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
