/* One BGP UPDATE message as groups of routes (bgpsim/mrt/update.py): what BGP4MP and BGP4MP_ET
 * MESSAGE records (RFC 6396 section 4.4), the historic BGP_UPDATE record (appendix B) and a captured
 * session (MRTCore.update) carry.
 *
 * RFC 4271 section 4.3: withdrawn routes, path attributes, NLRI; MP_UNREACH_NLRI and MP_REACH_NLRI
 * (RFC 4760 sections 4 and 3) carry the other families; with ADD-PATH (RFC 7911 section 3) each
 * prefix has a path id. Groups come in the order withdrawn, MP_UNREACH, NLRI, MP_REACH. A damaged
 * prefix field keeps the whole prefixes before the fault and the other fields are still read, as
 * bgpdump does; the first fault is the one reported. A fault in the attributes is handled as RFC 7606
 * says (mrt_attrs.c): an UPDATE whose routes it costs announces them as withdrawals, with a warning. */
#include "mrt.h"

/* RFC 4271 section 4.3, RFC 4760 section 5, RFC 7911 section 3: the prefixes in body[pos:stop] as
 * routes; a fault is put in `damage` unless one is there already (the routes before it are kept) */
int mrt_prefixes(mrt_ctx *c, Py_ssize_t pos, Py_ssize_t stop, int afi, int addpath, mrt_err *damage)
{
    const uint8_t *b = c->body;
    int maxbits = afi == 1 ? 32 : 128;
    mrt_err e;
    while (pos < stop) {
        int64_t pid = -1;
        if (addpath) {
            if (pos + 5 > stop) {
                mrt_fail(&e, pos, "ADD-PATH NLRI (RFC 7911 section 3): want a 4-byte path id and a length, got %zd "
                         "bytes", stop - pos);
                goto fault;
            }
            pid = get32(b + pos);
            pos += 4;
        }
        int plen = b[pos];
        if (plen > maxbits) {
            mrt_fail(&e, pos, "NLRI (RFC 4271 section 4.3): want a prefix length <= %d, got %d", maxbits, plen);
            goto fault;
        }
        Py_ssize_t q = pos + 1;
        pos = q + ((plen + 7) >> 3);
        if (pos > stop) {
            mrt_fail(&e, q, "NLRI (RFC 4271 section 4.3): /%d wants %zd address bytes, got %zd", plen, pos - q,
                     stop - q);
            goto fault;
        }
        if (mrt_emit_route(c->out, b + q, (int)(pos - q), afi == 1 ? 4 : 16, plen, pid) < 0)
            return -2;
    }
    return 0;
fault:
    if (!damage->msg[0])
        *damage = e;
    return 0;
}

/* one group of the prefixes parsed since route `first`, if any */
static int group(mrt_ctx *c, const mrt_group *g, Py_ssize_t first)
{
    if (c->out->nroutes == first)
        return 0;
    return mrt_emit_group(c->out, g, first);
}

/* whether a prefix field carries path ids (RFC 7911 section 3); with ADDPATH_DETECT decided per
 * field, with ADDPATH_FAMILIES by its family; then the group's record name gets _AP when it does */
static int field_addpath(const mrt_ctx *c, int addpath, unsigned afi, unsigned safi, Py_ssize_t pos, Py_ssize_t stop,
                         mrt_group *g, const mrt_group *tmpl)
{
    if (addpath != ADDPATH_DETECT && !(addpath & ADDPATH_FAMILIES))
        return addpath;
    int ap = addpath & ADDPATH_FAMILIES
                 ? safi == 1 && (addpath & (afi == 1 ? ADDPATH_V4 : afi == 2 ? ADDPATH_V6 : 0)) != 0
                 : mrt_field_addpath(c, afi, safi, pos, stop);
    g->record = (uint8_t)(ap ? tmpl->record | R_AP : tmpl->record);
    return ap;
}

/* the prefix field body[pos:stop] of family afi/safi as one group of `kind` (g: the group so far),
 * if it holds any; damage in it goes to `damage` (the first is kept). 0, or -2 no memory. */
static int prefix_field(mrt_ctx *c, mrt_group *g, const mrt_group *tmpl, int addpath, unsigned afi, unsigned safi,
                        Py_ssize_t pos, Py_ssize_t stop, int kind, mrt_err *damage)
{
    Py_ssize_t first = c->out->nroutes;
    int ap = field_addpath(c, addpath, afi, safi, pos, stop, g, tmpl);
    if (mrt_prefixes(c, pos, stop, (int)afi, ap, damage) < 0)
        return -2;
    g->kind = (uint8_t)kind;
    g->afi = (uint8_t)afi;
    return group(c, g, first);
}

/* the groups of the UPDATE body body[p:end] (after the 19-byte header); `tmpl` holds what the
 * record says (record name, time, peer, local AS). 0, -1 a fault in c->err, -2 no memory. */
int mrt_update_groups(mrt_ctx *c, Py_ssize_t p, Py_ssize_t end, const mrt_group *tmpl, int asn_size, int addpath)
{
    const uint8_t *b = c->body;
    if (end - p < 4) /* RFC 4271 section 4.3 */
        return mrt_fail(&c->err, p, "UPDATE (RFC 4271 section 4.3): want at least 4 bytes, got %zd", end - p);
    Py_ssize_t wlen = get16(b + p), w0 = p + 2, w1 = w0 + wlen;
    if (w1 + 2 > end)
        return mrt_fail(&c->err, p, "UPDATE (RFC 4271 section 4.3): Withdrawn Routes Length %zd wants %zd more "
                        "bytes, got %zd", wlen, wlen + 2, end - w0);
    Py_ssize_t alen = get16(b + w1), a0 = w1 + 2, a1 = a0 + alen;
    if (a1 > end)
        return mrt_fail(&c->err, a0 - 2, "UPDATE (RFC 4271 section 4.3): Total Path Attribute Length %zd wants %zd "
                        "bytes, got %zd", alen, alen, end - a0);
    mrt_err damage;
    damage.msg[0] = 0;
    mrt_group g = *tmpl;
    int legacy = tmpl->record == R_BGP; /* the historic BGP type's sessions had no multiprotocol extensions */
    if (w1 > w0 && prefix_field(c, &g, tmpl, addpath, 1, 1, w0, w1, K_WITHDRAW, &damage) < 0)
        return -2;
    mrt_attrs a;
    int have_attrs = a1 > a0;
    if (have_attrs) {
        int r = mrt_scan_attrs(c, a0, alen, asn_size, 0, c->ibgp ? FROM_IBGP : FROM_EBGP, &a);
        if (r < 0)
            return r;
        if (a.has_unreach && (a.u_afi == 1 || a.u_afi == 2) && a.u_safi >= 1 && a.u_safi <= 3 && !legacy
            && prefix_field(c, &g, tmpl, addpath, a.u_afi, a.u_safi, a0 + a.u_start, a0 + a.u_end, K_WITHDRAW,
                            &damage) < 0) /* RFC 4760 section 4 */
            return -2;
    } else {
        memset(&a, 0, sizeof a);
    }
    int reach = have_attrs && a.has_reach && !legacy && (a.r_afi == 1 || a.r_afi == 2) && a.r_safi >= 1 &&
                a.r_safi <= 3 && a.r_end > a.r_nlri;
    /* RFC 7606 section 3 d: routes want ORIGIN and AS_PATH, and NEXT_HOP for those of the NLRI field
     * (RFC 4760 section 3) */
    if (!a.withdraw && (end > a1 || reach)) {
        const char *missing = !a.has_origin ? "ORIGIN" : !a.has_path ? "AS_PATH" : end > a1 && !a.has_next_hop ?
                              "NEXT_HOP" : NULL;
        if (missing) {
            mrt_fail(&a.why, a0 - 2, "UPDATE (RFC 7606 section 3 d): announces routes without %s", missing);
            a.withdraw = 1;
        }
    }
    if (a.withdraw) { /* RFC 7606 section 2: the routes it announces are withdrawn */
        if (mrt_warn(c->out, "byte %lld: %s; its routes treated as withdrawn (RFC 7606 section 2)",
                     mrt_where(c, a.why.off), a.why.msg) < 0)
            return -2;
        mrt_group w = *tmpl;
        if (end > a1 && prefix_field(c, &w, tmpl, addpath, 1, 1, a1, end, K_WITHDRAW, &damage) < 0)
            return -2;
        if (reach && prefix_field(c, &w, tmpl, addpath, a.r_afi, a.r_safi, a0 + a.r_nlri, a0 + a.r_end, K_WITHDRAW,
                                  &damage) < 0)
            return -2;
    } else {
        if (have_attrs) {
            g.attr_start = c->body_at + a0;
            g.attr_end = c->body_at + a1;
            g.asn_size = (uint8_t)asn_size;
            g.path = a.path;
            g.origin = a.origin;
            g.bgpsec = (uint8_t)a.bgpsec;
        }
        if (end > a1) {
            g.nh_kind = have_attrs ? NH_ATTRS : NH_NONE;
            if (prefix_field(c, &g, tmpl, addpath, 1, 1, a1, end, K_ANNOUNCE, &damage) < 0)
                return -2;
        }
        if (reach) {
            /* RFC 4760 section 3: next hops of 4, 16 or 32 bytes (IPv4, IPv6, IPv6 global and link-local) are read */
            if (a.r_nhlen == 4 || a.r_nhlen == 16 || a.r_nhlen == 32) {
                g.nh_kind = NH_ADDR;
                g.nh_start = c->body_at + a0 + a.r_nh;
                g.nh_len = (uint8_t)a.r_nh_len;
            } else {
                g.nh_kind = NH_EMPTY;
            }
            if (prefix_field(c, &g, tmpl, addpath, a.r_afi, a.r_safi, a0 + a.r_nlri, a0 + a.r_end, K_ANNOUNCE,
                             &damage) < 0)
                return -2;
        }
    }
    if (damage.msg[0]) {
        c->err = damage;
        return -1;
    }
    return 0;
}
