/* The MRT record types bgpsim reads (RFC 6396 section 4), one decoder each, as bgpsim/mrt/tables.py,
 * bgp4mp.py and legacy.py read them:
 * - BGP (5), the deprecated type of 1999-2000 RIS dumps (appendix B);
 * - TABLE_DUMP (12, section 4.2), TABLE_DUMP_V2 (13, section 4.3; RFC 8050 section 4);
 * - BGP4MP (16, section 4.4) and BGP4MP_ET (17, section 3; RFC 8050 section 3), their UPDATEs
 *   through mrt_update.c, and BGP4MP_ENTRY (subtype 2, draft-ietf-grow-mrt).
 * A decoder gives 0, -1 with the fault in c->err (its offset in the record's message), or -2 (no
 * memory); c->fatal set means reading stops (a RIB record before any PEER_INDEX_TABLE). */
#include "mrt.h"

#define FAIL(off, ...) mrt_fail(&c->err, (off), __VA_ARGS__)

static int rib_group(mrt_ctx *c, mrt_group *g, const mrt_attrs *a, Py_ssize_t attr_at, Py_ssize_t attr_len,
                     const uint8_t *pfx, int pfx_len, int plen, int64_t pid)
{
    Py_ssize_t first = c->out->nroutes;
    g->attr_start = c->body_at + attr_at;
    g->attr_end = g->attr_start + attr_len;
    g->path = a->path;
    g->origin = a->origin;
    g->bgpsec = (uint8_t)a->bgpsec;
    if (mrt_emit_route(c->out, pfx, pfx_len, g->afi == 1 ? 4 : 16, plen, pid) < 0 || mrt_emit_group(c->out, g, first) < 0)
        return -2;
    return 0;
}

static int scan(mrt_ctx *c, Py_ssize_t at, Py_ssize_t len, int asn_size, int rib_afi, mrt_attrs *a)
{
    return mrt_scan_attrs(c, at, len, asn_size, rib_afi, FROM_RIB, a);
}

/* the attributes (2-byte ASNs) after their 2-byte length at `at`, scanned into a; *len that length
 * (`what`: the record and its section, for a fault) */
static int attr_block(mrt_ctx *c, Py_ssize_t at, const char *what, Py_ssize_t *len, mrt_attrs *a)
{
    *len = get16(c->body + at);
    if (at + 2 + *len > c->n)
        return FAIL(at, "%s: attribute length %zd wants %zd bytes, got %zd", what, *len, *len, c->n - at - 2);
    return scan(c, at + 2, *len, 2, 0, a);
}

/* the next hop of an MP_REACH_NLRI (mp.py _next_hop: None for the lengths it does not read) */
static void mp_next_hop(mrt_ctx *c, mrt_group *g, const mrt_attrs *a, Py_ssize_t attr_at)
{
    g->nh_kind = a->r_nh_len ? NH_ADDR : NH_NONE;
    g->nh_start = c->body_at + attr_at + a->r_nh;
    g->nh_len = (uint8_t)a->r_nh_len;
}

/* RFC 6396 section 4.2: view, sequence, prefix, length, status, originated time, peer address and
 * AS, attributes (2-byte ASNs) */
static int table_dump(mrt_ctx *c)
{
    const uint8_t *b = c->body;
    Py_ssize_t n = c->n;
    int alen;
    if (c->sub == 1)
        alen = 4;
    else if (c->sub == 2)
        alen = 16;
    else
        return FAIL(0, "TABLE_DUMP (RFC 6396 section 4.2): want subtype 1 (AFI_IPv4) or 2 (AFI_IPv6), got %u", c->sub);
    Py_ssize_t fixed = 2 + 2 + alen + 1 + 1 + 4 + alen + 2 + 2;
    if (n < fixed)
        return FAIL(0, "TABLE_DUMP (RFC 6396 section 4.2): want at least %zd bytes, got %zd", fixed, n);
    int plen = b[4 + alen];
    if (plen > alen * 8)
        return FAIL(4 + alen, "TABLE_DUMP (RFC 6396 section 4.2): want a prefix length <= %d, got %d", alen * 8, plen);
    Py_ssize_t attr_len;
    mrt_attrs a;
    int r = attr_block(c, fixed - 2, "TABLE_DUMP (RFC 6396 section 4.2)", &attr_len, &a);
    if (r < 0)
        return r;
    mrt_group g;
    mrt_group_init(&g, c, R_TABLE_DUMP, K_RIB);
    g.afi = (uint8_t)c->sub;
    g.asn_size = 2;
    g.nh_kind = NH_ATTRS;
    if (a.has_reach && a.r_afi == 2)
        mp_next_hop(c, &g, &a, fixed);
    g.peer = intern_peer(&c->f->peers, b + 10 + alen, alen, get16(b + 10 + 2 * alen));
    if (g.peer < 0)
        return -2;
    return rib_group(c, &g, &a, fixed, attr_len, b + 4, alen, plen, -1);
}

/* RFC 6396 section 4.3.1: collector BGP ID, view name, peer count, then each peer's type, BGP ID,
 * address (4 or 16 bytes: type bit 0) and AS (2 or 4 bytes: type bit 1) */
static int peer_index(mrt_ctx *c)
{
    const uint8_t *b = c->body;
    Py_ssize_t n = c->n;
    if (n < 8)
        return FAIL(0, "PEER_INDEX_TABLE (RFC 6396 section 4.3.1): want at least 8 bytes, got %zd", n);
    Py_ssize_t vlen = get16(b + 4), p = 6 + vlen;
    if (p + 2 > n)
        return FAIL(4, "PEER_INDEX_TABLE (RFC 6396 section 4.3.1): view name of %zd bytes and the peer count want "
                    "%zd bytes, got %zd", vlen, vlen + 2, n - 6);
    Py_ssize_t count = get16(b + p);
    p += 2;
    mrt_peer *peers = PyMem_RawMalloc(sizeof *peers * (size_t)(count ? count : 1));
    int32_t *idx = PyMem_RawMalloc(sizeof *idx * (size_t)(count ? count : 1));
    if (peers == NULL || idx == NULL) {
        PyMem_RawFree(peers);
        PyMem_RawFree(idx);
        return -2;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (p + 1 > n) {
            FAIL(p, "PEER_INDEX_TABLE (RFC 6396 section 4.3.1): want a peer entry, got the end");
            goto fail;
        }
        unsigned ptype = b[p];
        int ilen = ptype & 1 ? 16 : 4, aslen = ptype & 2 ? 4 : 2, need = 1 + 4 + ilen + aslen;
        if (p + need > n) {
            FAIL(p, "PEER_INDEX_TABLE (RFC 6396 section 4.3.1): peer entry of type %u wants %d bytes, got %zd", ptype,
                 need, n - p);
            goto fail;
        }
        memcpy(peers[i].addr, b + p + 5, (size_t)ilen);
        peers[i].alen = (uint8_t)ilen;
        peers[i].asn = aslen == 4 ? get32(b + p + 5 + ilen) : get16(b + p + 5 + ilen);
        idx[i] = -1;
        p += need;
    }
    PyMem_RawFree(c->f->pit_peers);
    PyMem_RawFree(c->f->pit);
    c->f->pit_peers = peers;
    c->f->pit = idx;
    c->f->npit = count;
    c->f->have_pit = 1;
    return 0;
fail:
    PyMem_RawFree(peers);
    PyMem_RawFree(idx);
    return -1;
}

/* RFC 6396 section 4.3 (and RFC 8050 section 4): a PEER_INDEX_TABLE is kept; a RIB record gives one
 * group per entry (section 4.3.4: peer index, originated time, [path id], attributes); a fault
 * drops the whole record */
static int table_dump_v2(mrt_ctx *c)
{
    const uint8_t *b = c->body;
    Py_ssize_t n = c->n;
    unsigned sub = c->sub;
    if (sub == 1)
        return peer_index(c);
    if (!((sub >= 2 && sub <= 5) || (sub >= 8 && sub <= 11)))
        return 0; /* RIB_GENERIC (6), GEO_PEER_TABLE (7): no routes we model */
    int afi = (sub == 2 || sub == 3 || sub == 8 || sub == 9) ? 1 : 2, addpath = sub >= 8;
    int maxbits = afi == 1 ? 32 : 128;
    if (!c->f->have_pit) {
        c->fatal = 1;
        snprintf(c->err.msg, sizeof c->err.msg, "TABLE_DUMP_V2 RIB record (RFC 6396 section 4.3.2) before any "
                 "PEER_INDEX_TABLE (section 4.3.1): want the peer table first");
        return -1;
    }
    if (n < 5)
        return FAIL(0, "RIB record (RFC 6396 section 4.3.2): want at least 5 bytes, got %zd", n);
    int plen = b[4];
    if (plen > maxbits)
        return FAIL(4, "RIB record (RFC 6396 section 4.3.2): want a prefix length <= %d, got %d", maxbits, plen);
    Py_ssize_t pb = (plen + 7) >> 3, p = 5 + pb;
    if (p + 2 > n)
        return FAIL(5, "RIB record (RFC 6396 section 4.3.2): /%d and the entry count want %zd bytes, got %zd", plen,
                    pb + 2, n - 5);
    Py_ssize_t count = get16(b + p);
    p += 2;
    Py_ssize_t hdr = addpath ? 10 : 6;
    mrt_group g;
    mrt_group_init(&g, c, addpath ? R_TABLE_DUMP2_AP : R_TABLE_DUMP2, K_RIB);
    g.afi = (uint8_t)afi;
    g.asn_size = 4;
    g.rib_afi = (uint8_t)afi;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (p + hdr + 2 > n)
            return FAIL(p, "RIB entry (RFC 6396 section 4.3.4): want %zd header bytes, got %zd", hdr + 2, n - p);
        unsigned idx = get16(b + p);
        int64_t pid = addpath ? (int64_t)get32(b + p + 6) : -1;
        Py_ssize_t alen = get16(b + p + hdr), a0 = p + hdr + 2;
        if (a0 + alen > n)
            return FAIL(p + hdr, "RIB entry (RFC 6396 section 4.3.4): attribute length %zd wants %zd bytes, got %zd",
                        alen, alen, n - a0);
        if ((Py_ssize_t)idx >= c->f->npit)
            return FAIL(p, "RIB entry (RFC 6396 section 4.3.4): want a peer index < %zd, got %u", c->f->npit, idx);
        mrt_attrs a;
        int r = scan(c, a0, alen, 4, afi, &a);
        if (r < 0)
            return r;
        g.nh_kind = NH_ATTRS;
        if (a.has_reach)
            mp_next_hop(c, &g, &a, a0);
        if (c->f->pit[idx] < 0) {
            const mrt_peer *pe = &c->f->pit_peers[idx];
            if ((c->f->pit[idx] = intern_peer(&c->f->peers, pe->addr, pe->alen, pe->asn)) < 0)
                return -2;
        }
        g.peer = c->f->pit[idx];
        if (rib_group(c, &g, &a, a0, alen, b + 5, (int)pb, plen, pid) < 0)
            return -2;
        p = a0 + alen;
    }
    return 0;
}

/* RFC 6396 sections 4.4.1 and 4.4.4: peer AS, local AS, interface index, AFI, the two addresses,
 * old state, new state */
static int state_change(mrt_ctx *c, Py_ssize_t p, int record, int64_t usec, int asn_size)
{
    const uint8_t *b = c->body;
    Py_ssize_t n = c->n - p;
    mrt_group g;
    mrt_group_init(&g, c, record, K_STATE);
    g.usec = usec;
    if (n == 8 && asn_size == 2) {
        /* Zebra once wrote state changes of 8 bytes: the two ASNs and the states; bgpdump reads
         * them so and prints 0.0.0.0 as the peer address */
        static const uint8_t zero[4] = {0, 0, 0, 0};
        g.peer = intern_peer(&c->f->peers, zero, 4, get16(b + p));
        g.local_as = get16(b + p + 2);
        g.old_state = (uint16_t)get16(b + p + 4);
        g.new_state = (uint16_t)get16(b + p + 6);
    } else {
        Py_ssize_t fixed = 2 * asn_size + 4;
        if (n < fixed)
            return FAIL(p, "BGP4MP_STATE_CHANGE (RFC 6396 section 4.4.1): want %zd header bytes, got %zd", fixed, n);
        unsigned afi = get16(b + p + fixed - 2);
        if (afi != 1 && afi != 2)
            return FAIL(p + fixed - 2, "BGP4MP_STATE_CHANGE (RFC 6396 section 4.4.1): want address family 1 or 2, "
                        "got %u", afi);
        int alen = afi == 1 ? 4 : 16;
        if (n != fixed + 2 * alen + 4) /* bgpdump takes no other length */
            return FAIL(p, "BGP4MP_STATE_CHANGE (RFC 6396 section 4.4.1): want %zd bytes for address family %u, got "
                        "%zd", fixed + 2 * alen + 4, afi, n);
        uint32_t peer_as = asn_size == 2 ? get16(b + p) : get32(b + p);
        g.local_as = asn_size == 2 ? get16(b + p + 2) : get32(b + p + 4);
        Py_ssize_t q = p + fixed;
        g.peer = intern_peer(&c->f->peers, b + q, alen, peer_as);
        g.old_state = (uint16_t)get16(b + q + 2 * alen);
        g.new_state = (uint16_t)get16(b + q + 2 * alen + 2);
        mrt_session_state(c->f, b + q, b + q + alen, alen, peer_as, (uint32_t)g.local_as, g.new_state);
    }
    if (g.peer < 0 || mrt_emit_group(c->out, &g, c->out->nroutes) < 0)
        return -2;
    return 0;
}

/* BGP4MP_ENTRY (subtype 2, draft-ietf-grow-mrt; OpenBGPD writes it, bgpdump does not read it): peer
 * AS, local AS, interface index, AFI, two addresses (OpenBGPD puts its own first: the second is the
 * peer's), view, status, time last changed, AFI, SAFI, next-hop length, next hop, prefix length,
 * prefix, attribute length, attributes (2-byte ASNs) */
static int entry(mrt_ctx *c, Py_ssize_t p, int64_t usec)
{
    const uint8_t *b = c->body;
    Py_ssize_t n = c->n;
    if (p + 8 > n)
        return FAIL(p, "BGP4MP_ENTRY (draft-ietf-grow-mrt): want an 8-byte header, got %zd bytes", n - p);
    unsigned afi = get16(b + p + 6);
    if (afi != 1 && afi != 2)
        return FAIL(p + 6, "BGP4MP_ENTRY (draft-ietf-grow-mrt): want address family 1 or 2, got %u", afi);
    Py_ssize_t alen = afi == 1 ? 4 : 16, q = p + 8 + 2 * alen + 8;
    if (q + 4 > n)
        return FAIL(p, "BGP4MP_ENTRY (draft-ietf-grow-mrt): want %zd bytes before the next hop, got %zd", q + 4 - p,
                    n - p);
    const uint8_t *peer = b + p + 8 + alen;
    unsigned afi2 = get16(b + q), nh_len = b[q + 3];
    int plen_max = afi2 == 1 ? 32 : afi2 == 2 ? 128 : 0;
    if (!plen_max)
        return FAIL(q, "BGP4MP_ENTRY (draft-ietf-grow-mrt): want prefix address family 1 or 2, got %u", afi2);
    q += 4;
    if (q + nh_len + 1 > n || (nh_len != 0 && nh_len != (unsigned)plen_max / 8 && nh_len != (unsigned)plen_max / 4))
        return FAIL(q - 1, "BGP4MP_ENTRY (draft-ietf-grow-mrt): want a next hop of 0, %d or %d bytes within the "
                    "record, got %u", plen_max / 8, plen_max / 4, nh_len);
    mrt_group g;
    mrt_group_init(&g, c, R_BGP4MP_ENTRY, K_RIB);
    g.usec = usec;
    g.afi = (uint8_t)afi2;
    g.asn_size = 2;
    g.nh_kind = NH_ATTRS;
    if (nh_len) { /* a global IPv6 one comes first */
        g.nh_kind = NH_ADDR;
        g.nh_start = c->body_at + q;
        g.nh_len = (uint8_t)(plen_max / 8);
    }
    q += nh_len;
    int plen = b[q];
    Py_ssize_t size = (plen + 7) / 8;
    if (plen > plen_max || q + 1 + size + 2 > n)
        return FAIL(q, "BGP4MP_ENTRY (draft-ietf-grow-mrt): want a prefix length <= %d within the record, got %d",
                    plen_max, plen);
    const uint8_t *pfx = b + q + 1;
    q += 1 + size;
    Py_ssize_t attr_len;
    mrt_attrs a;
    int r = attr_block(c, q, "BGP4MP_ENTRY (draft-ietf-grow-mrt)", &attr_len, &a);
    if (r < 0)
        return r;
    q += 2;
    if ((g.peer = intern_peer(&c->f->peers, peer, (int)alen, get16(b + p))) < 0)
        return -2;
    return rib_group(c, &g, &a, q, attr_len, pfx, (int)size, plen, -1);
}

/* MESSAGE subtypes (sections 4.4.2, 4.4.3, 4.4.5, 4.4.6; RFC 8050 section 3): ASN size, sent by the
 * local speaker, ADD-PATH; indexed by subtype, 0: not a MESSAGE */
static const struct { uint8_t asn_size, local, addpath; } MESSAGES[12] = {
    [1] = {2, 0, 0}, [4] = {4, 0, 0}, [6] = {2, 1, 0}, [7] = {4, 1, 0},
    [8] = {2, 0, 1}, [9] = {4, 0, 1}, [10] = {2, 1, 1}, [11] = {4, 1, 1}};

/* BGP4MP (type 16) and BGP4MP_ET (17: a microsecond field first, section 3) */
static int bgp4mp(mrt_ctx *c)
{
    const uint8_t *b = c->body;
    Py_ssize_t n = c->n, p = 0;
    int64_t usec = -1;
    int record = R_BGP4MP;
    if (c->type == 17) {
        if (n < 4)
            return FAIL(0, "BGP4MP_ET (RFC 6396 section 3): want a 4-byte microsecond field, got %zd bytes", n);
        usec = get32(b);
        p = 4;
        record = R_ET;
    }
    unsigned sub = c->sub;
    if (sub == 0 || sub == 5)
        return state_change(c, p, record, usec, sub == 0 ? 2 : 4);
    if (sub == 2)
        return entry(c, p, usec);
    if (sub >= 12 || !MESSAGES[sub].asn_size)
        return 0; /* SNAPSHOT and the like: no routes */
    int asn_size = MESSAGES[sub].asn_size, local = MESSAGES[sub].local, addpath = MESSAGES[sub].addpath;
    Py_ssize_t fixed = 2 * asn_size + 4;
    if (p + fixed > n)
        return FAIL(p, "BGP4MP (RFC 6396 section 4.4): want %zd header bytes, got %zd", fixed, n - p);
    uint32_t peer_as = asn_size == 2 ? get16(b + p) : get32(b + p);
    uint32_t local_as = asn_size == 2 ? get16(b + p + 2) : get32(b + p + 4);
    unsigned ifindex = get16(b + p + fixed - 4), afi = get16(b + p + fixed - 2);
    p += fixed;
    int alen;
    if (afi == 1)
        alen = 4;
    else if (afi == 2)
        alen = 16;
    else if (afi == 0xFFFF && ifindex == 0xFFFF)
        return 0; /* Zebra wrote OPEN messages without interface, family or addresses: no routes */
    else
        return FAIL(p - 2, "BGP4MP (RFC 6396 section 4.4): want address family 1 or 2, got %u", afi);
    if (p + 2 * alen > n)
        return FAIL(p, "BGP4MP (RFC 6396 section 4.4): want two %d-byte addresses, got %zd bytes", alen, n - p);
    const uint8_t *peer_ip = b + p;
    mrt_group g;
    mrt_group_init(&g, c, record, K_ANNOUNCE);
    g.usec = usec;
    uint32_t gpeer_as = peer_as;
    g.local_as = local_as;
    c->ibgp = peer_as == local_as;
    if (local) { /* sent by the local speaker: its address and AS are the route's peer */
        g.record |= R_LOCAL;
        peer_ip = b + p + alen;
        gpeer_as = local_as;
        g.local_as = peer_as;
    }
    p += 2 * alen;
    /* RFC 4271 section 4.1 */
    if (n - p < 19)
        return FAIL(p, "BGP message header (RFC 4271 section 4.1): want 19 bytes, got %zd", n - p);
    Py_ssize_t length = get16(b + p + 16);
    if (length < 19 || p + length > n)
        return FAIL(p + 16, "BGP message header (RFC 4271 section 4.1): length field says %zd, want 19 to %zd", length,
                    n - p);
    int mtype = b[p + 18];
    if (!addpath) { /* RFC 7911: from the session's OPENs, or the NLRI */
        const uint8_t *hp = b + p - 2 * alen, *hl = b + p - alen; /* the header's peer and local addresses */
        if (mtype == 1)
            return mrt_addpath_open(c, p + 19, p + length, hp, hl, alen, peer_as, local_as, local);
        c->session = mrt_session_find(c->f, hp, hl, alen, peer_as, local_as);
        c->sent_by_local = local;
        addpath = ADDPATH_DETECT;
    }
    if (mtype != 2)
        return 0;
    if (addpath == 1)
        g.record |= R_AP;
    if ((g.peer = intern_peer(&c->f->peers, peer_ip, alen, gpeer_as)) < 0)
        return -2;
    return mrt_update_groups(c, p + 19, p + length, &g, asn_size, addpath);
}

/* RFC 6396 appendix B: BGP_UPDATE (1): peer AS and address, local AS and address, an UPDATE without
 * its header (2-byte ASNs, IPv4 only); BGP_STATE_CHANGE (3): peer AS and address, old and new state */
static int legacy(mrt_ctx *c)
{
    const uint8_t *b = c->body;
    Py_ssize_t n = c->n;
    mrt_group g;
    if (c->sub == 3) {
        if (n < 10)
            return FAIL(0, "BGP_STATE_CHANGE (RFC 6396 appendix B): want 10 bytes, got %zd", n);
        mrt_group_init(&g, c, R_BGP, K_STATE);
        g.old_state = (uint16_t)get16(b + 6);
        g.new_state = (uint16_t)get16(b + 8);
        if ((g.peer = intern_peer(&c->f->peers, b + 2, 4, get16(b))) < 0 || mrt_emit_group(c->out, &g, c->out->nroutes) < 0)
            return -2;
        return 0;
    }
    if (c->sub != 1)
        return 0;
    if (n < 12)
        return FAIL(0, "BGP_UPDATE (RFC 6396 appendix B): want 12 bytes of peer and local AS and address, got %zd", n);
    mrt_group_init(&g, c, R_BGP, K_ANNOUNCE);
    g.local_as = get16(b + 6);
    c->ibgp = get16(b) == get16(b + 6);
    if ((g.peer = intern_peer(&c->f->peers, b + 2, 4, get16(b))) < 0)
        return -2;
    return mrt_update_groups(c, 12, n, &g, 2, 0);
}

int mrt_record(mrt_ctx *c)
{
    switch (c->type) {
    case 5:
        return legacy(c);
    case 12:
        return table_dump(c);
    case 13:
        return table_dump_v2(c);
    default:
        return bgp4mp(c);
    }
}
