/* One `bgpdump -m` line, checked field by field in the order of bgpsim/mrt/text.py (TextReader.parse,
 * _attrs), so the first fault found is the one text.py names. The field lists are bgpdump 1.6's
 * (bgpsim/mrt/bgpdump.py):
 *
 *   RECORD|time|B or A|peer|peer_as|prefix[|path_id]|as_path|origin|next_hop|local_pref|med|communities|AG|agg|
 *   RECORD|time|B or A|peer|peer_as|prefix[|path_id]|as_path|origin|communities|AG|agg|  (MP next hop of odd length)
 *   RECORD|time|W|peer|peer_as|prefix[|path_id]
 *   RECORD|time|STATE|peer|peer_as|old_state|new_state
 *
 * _ET records give the time as seconds.microseconds (RFC 6396 section 3), _AP records a path id after
 * the prefix (RFC 7911 section 3). A good line becomes one route of the open group, or opens a new one. */
#include "bgptext.h"

#define MAXF 17 /* fields kept: at most 7 before the attributes, 9 attribute fields, one more */

const char *const bt_record_names[BT_NAMES] = {
    "BGP4MP", "BGP4MP_ET", "BGP4MP_LOCAL", "BGP4MP_ET_LOCAL", "BGP4MP_AP", "BGP4MP_ET_AP", "BGP4MP_LOCAL_AP",
    "BGP4MP_ET_LOCAL_AP", "TABLE_DUMP", "TABLE_DUMP2", "TABLE_DUMP2_AP", "BGP"};

static int is_n(bt_span f, const char *s, size_t n) { return (size_t)f.n == n && memcmp(f.p, s, n) == 0; }
#define is(f, literal) is_n((f), literal, sizeof literal - 1)

static const uint8_t NAME_LEN[BT_NAMES] = {6, 9, 12, 15, 9, 12, 15, 18, 10, 11, 14, 3};

static int fault_n(bt_ctx *c, const char *before, long long n, const char *after)
{
    bt_msg(c, before);
    bt_msg_int(c, n);
    bt_msg(c, after);
    return -1;
}

void bt_flush_group(bt_ctx *c)
{
    if (!c->have_group)
        return;
    const bt_group *g = &c->cur;
    COLUMN_PUT(&c->g[BG_RECORD], uint8_t, g->record);
    COLUMN_PUT(&c->g[BG_TIME], int64_t, g->time);
    COLUMN_PUT(&c->g[BG_USEC], int32_t, g->usec);
    COLUMN_PUT(&c->g[BG_KIND], uint8_t, g->kind);
    COLUMN_PUT(&c->g[BG_PEER], int32_t, g->peer);
    COLUMN_PUT(&c->g[BG_FIRST], int64_t, g->first);
    COLUMN_PUT(&c->g[BG_COUNT], int32_t, g->count);
    COLUMN_PUT(&c->g[BG_PATH], int32_t, g->path);
    COLUMN_PUT(&c->g[BG_ORIGIN], int64_t, g->origin);
    COLUMN_PUT(&c->g[BG_OLD_STATE], uint16_t, g->old_state);
    COLUMN_PUT(&c->g[BG_NEW_STATE], uint16_t, g->new_state);
    COLUMN_PUT(&c->g[BG_ATTR_START], int64_t, g->attr_start);
    COLUMN_PUT(&c->g[BG_ATTR_END], int64_t, g->attr_end);
    COLUMN_PUT(&c->g[BG_LINE], int64_t, g->line);
    c->have_group = 0;
}

/* the path read into c->segs / c->asns in the form the MRT reader gives too (native uint32 words,
 * per segment: type, count, the ASNs), interned; -3 no memory */
static int32_t path_index(bt_ctx *c)
{
    const int64_t *segs = (const int64_t *)c->segs.data;
    const uint32_t *asns = (const uint32_t *)c->asns.data;
    Py_ssize_t nsegs = c->segs.len / 16, a = 0;
    column *o = &c->canon;
    o->len = 0;
    for (Py_ssize_t s = 0; s < nsegs; s++) {
        uint32_t head[2] = {(uint32_t)segs[2 * s], (uint32_t)segs[2 * s + 1]};
        if (column_put(o, head, 8) < 0 || (head[1] && column_put(o, asns + a, 4 * (Py_ssize_t)head[1]) < 0))
            return -3;
        a += head[1];
    }
    int32_t i = intern_key(&c->paths, o->data, o->len);
    return i < 0 ? -3 : i;
}

/* text._attrs (and the next hop check before it) of the attribute fields a[0..na) */
static int attrs(bt_ctx *c, const bt_span *a, int na, int64_t *origin)
{
    int nine = na == 9;
    uint8_t raw[16];
    int afi;
    uint32_t v;
    if (nine && bt_address(c, a[2], "next hop", raw, &afi) < 0)
        return -1;
    *origin = -2;
    if (a[0].n) {
        int r = bt_as_path(c, a[0], origin);
        if (r < 0)
            return r;
    }
    if (!is(a[1], "IGP") && !is(a[1], "EGP") && !is(a[1], "INCOMPLETE")) {
        bt_msg(c, "origin (RFC 4271 section 4.3 a): want IGP, EGP or INCOMPLETE, got ");
        bt_msg_repr(c, a[1].p, a[1].n);
        return -1;
    }
    if (nine && (bt_u32(c, a[3], "LOCAL_PREF", &v) < 0 || bt_u32(c, a[4], "MED", &v) < 0))
        return -1;
    bt_span comm = a[nine ? 5 : 2], ag = a[nine ? 6 : 3], agg = a[nine ? 7 : 4];
    for (Py_ssize_t k = 0; comm.n && k <= comm.n;) { /* comm.split(" ") */
        Py_ssize_t e = k;
        while (e < comm.n && comm.p[e] != ' ')
            e++;
        if (bt_community(c, (bt_span){comm.p + k, e - k}) < 0)
            return -1;
        k = e + 1;
    }
    if (!is(ag, "AG") && !is(ag, "NAG")) {
        bt_msg(c, "atomic aggregate: want AG or NAG, got ");
        bt_msg_repr(c, ag.p, ag.n);
        return -1;
    }
    if (agg.n) {
        Py_ssize_t sp = 0;
        while (sp < agg.n && agg.p[sp] != ' ')
            sp++;
        bt_span ip = {agg.p + sp + 1, agg.n - sp - 1};
        int colon = 0;
        for (Py_ssize_t i = 0; sp < agg.n && i < ip.n; i++)
            colon |= ip.p[i] == ':';
        if (sp == agg.n || colon) {
            bt_msg(c, "aggregator (RFC 4271 section 4.3 g): want 'ASN IPv4', got ");
            bt_msg_repr(c, agg.p, agg.n);
            return -1;
        }
        if (bt_u32(c, (bt_span){agg.p, sp}, "aggregator", &v) < 0 || bt_address(c, ip, "aggregator", raw, &afi) < 0)
            return -1;
    }
    return 0;
}

int bt_line(bt_ctx *c, Py_ssize_t start, Py_ssize_t n, int64_t number)
{
    const uint8_t *s = c->buf + start;
    c->msg.len = 0;
    if (n > BT_MAX_LINE)
        return fault_n(c, "line of ", (long long)n, " bytes; want at most 1048576"); /* BT_MAX_LINE */
    for (Py_ssize_t i = 0; i < n; i++)
        if (s[i] >= 0x80) {
            char t[64];
            snprintf(t, sizeof t, "want ASCII text, got byte 0x%02x at column %lld", s[i], (long long)i + 1);
            bt_msg(c, t);
            return -1;
        }
    bt_span f[MAXF];
    Py_ssize_t nf = 0;
    for (Py_ssize_t p = 0;;) { /* text.split("|") */
        Py_ssize_t e = p;
        while (e < n && s[e] != '|')
            e++;
        if (nf < MAXF)
            f[nf] = (bt_span){s + p, e - p};
        nf++;
        if (e == n)
            break;
        p = e + 1;
    }
    if (nf < 6)
        return fault_n(c, "want at least 6 '|'-separated fields, got ", (long long)nf, "");
    int record = 0;
    while (record < BT_BGP && !is_n(f[0], bt_record_names[record], NAME_LEN[record]))
        record++;
    if (record == BT_BGP) {
        bt_msg(c, "want a record name such as TABLE_DUMP2 or BGP4MP, got ");
        bt_msg_repr(c, f[0].p, f[0].n < 40 ? f[0].n : 40);
        return -1;
    }
    int rib = record >= BT_TABLE_DUMP, et = !rib && (record & BT_ET);
    int ap = rib ? record == BT_TABLE_DUMP2_AP : !!(record & BT_AP);
    uint32_t time, asn;
    int32_t usec = -1;
    if (et) {
        Py_ssize_t dot = 0;
        while (dot < f[1].n && f[1].p[dot] != '.')
            dot++;
        bt_span us = {f[1].p + dot + 1, f[1].n - dot - 1};
        int ok = dot < f[1].n && us.n == 6;
        for (Py_ssize_t i = 0; ok && i < 6; i++)
            ok = us.p[i] >= '0' && us.p[i] <= '9';
        if (!ok) {
            bt_msg(c, "time of ");
            bt_msg(c, bt_record_names[record]);
            bt_msg(c, " (RFC 6396 section 3): want seconds.microseconds, got ");
            bt_msg_repr(c, f[1].p, f[1].n < 40 ? f[1].n : 40);
            return -1;
        }
        if (bt_u32(c, (bt_span){f[1].p, dot}, "time", &time) < 0)
            return -1;
        usec = 0;
        for (int i = 0; i < 6; i++)
            usec = usec * 10 + (us.p[i] - '0');
    } else if (bt_u32(c, f[1], "time", &time) < 0) {
        return -1;
    }
    uint8_t peer_raw[16];
    int peer_afi;
    if (bt_address(c, f[3], "peer address", peer_raw, &peer_afi) < 0 || bt_u32(c, f[4], "peer AS", &asn) < 0)
        return -1;
    bt_group g = {.time = time, .usec = usec, .record = (uint8_t)record, .path = -1, .origin = -2,
                  .attr_start = -1, .attr_end = -1, .line = number, .first = c->nroutes};
    uint64_t hi = 0, lo = 0;
    int afi = 0, plen = 0, canonical = 1;
    int64_t path_id = -1;
    if (is(f[2], "STATE")) {
        uint32_t old, new;
        if (rib || nf != 7)
            return fault_n(c, "STATE line (RFC 6396 section 4.4.1): want 7 fields of a BGP4MP record, got ",
                           (long long)nf, "");
        if (bt_u32(c, f[5], "old state", &old) < 0 || bt_u32(c, f[6], "new state", &new) < 0)
            return -1;
        if (old > 0xFFFF || new > 0xFFFF) {
            bt_msg(c, "STATE line (RFC 6396 section 4.4.1): want 16-bit states");
            return -1;
        }
        g.kind = BT_STATE, g.old_state = (uint16_t)old, g.new_state = (uint16_t)new;
    } else {
        if (rib ? !is(f[2], "B") : !is(f[2], "A") && !is(f[2], "W")) {
            bt_msg(c, rib ? "want kind B for " : "want kind A, W or STATE for ");
            bt_msg(c, bt_record_names[record]);
            bt_msg(c, ", got ");
            bt_msg_repr(c, f[2].p, f[2].n < 20 ? f[2].n : 20);
            return -1;
        }
        if (bt_prefix(c, f[5], &afi, &hi, &lo, &plen, &canonical) < 0)
            return -1;
        int tail = 6;
        if (ap) {
            uint32_t id;
            if (nf < 7) {
                bt_msg(c, "want a path id after the prefix (RFC 7911 section 3)");
                return -1;
            }
            if (bt_u32(c, f[6], "path id", &id) < 0)
                return -1;
            path_id = id, tail = 7;
        }
        if (f[2].p[0] == 'W') {
            if (nf != tail) {
                fault_n(c, "withdrawal: want ", tail, " fields, got ");
                return fault_n(c, "", (long long)nf, "");
            }
            g.kind = BT_WITHDRAW;
        } else {
            Py_ssize_t na = nf - tail;
            if (!(na == 9 && f[tail + 8].n == 0) && !(na == 6 && f[tail + 5].n == 0)) {
                fault_n(c, "announcement: want ", tail + 9, " fields ending in '|' (or ");
                fault_n(c, "", tail + 6, " without next hop, LOCAL_PREF and MED), got ");
                return fault_n(c, "", (long long)nf, "");
            }
            g.kind = rib ? BT_RIB : BT_ANNOUNCE;
            g.attr_start = f[tail].p - c->buf;
            g.attr_end = start + n;
            Py_ssize_t span = n - (f[tail].p - s);
            /* text.py caches its checks by the attribute text; here the last text read is kept */
            if (c->last_end >= 0 && c->last_end - c->last_start == span &&
                memcmp(c->buf + c->last_start, f[tail].p, (size_t)span) == 0) {
                g.path = c->last_path, g.origin = c->last_origin;
            } else {
                int r = attrs(c, f + tail, (int)na, &g.origin);
                if (r < 0)
                    return r;
                if (f[tail].n && (g.path = path_index(c)) == -3)
                    return -2;
                c->last_start = g.attr_start, c->last_end = g.attr_end;
                c->last_path = g.path, c->last_origin = g.origin;
            }
        }
    }
    /* the line is good: its peer, its group, its route */
    if (c->last_peer >= 0 && asn == c->last_peer_as && f[3].n == c->last_peer_len &&
        memcmp(f[3].p, c->buf + c->last_peer_at, (size_t)f[3].n) == 0) {
        g.peer = c->last_peer;
    } else {
        uint8_t key[4 + 64];
        memcpy(key, &asn, 4);
        memcpy(key + 4, f[3].p, (size_t)f[3].n); /* bt_address took it: shorter than 64 */
        if ((g.peer = intern_key(&c->peers, key, 4 + f[3].n)) < 0)
            return -2;
        c->last_peer = g.peer, c->last_peer_as = asn, c->last_peer_at = f[3].p - c->buf, c->last_peer_len = f[3].n;
    }
    bt_group *o = &c->cur;
    int same = c->have_group && g.kind != BT_STATE && o->kind == g.kind && o->record == g.record && o->time == g.time &&
               o->usec == g.usec && o->peer == g.peer && o->attr_end - o->attr_start == g.attr_end - g.attr_start &&
               (g.attr_start < 0 ||
                memcmp(c->buf + o->attr_start, c->buf + g.attr_start, (size_t)(g.attr_end - g.attr_start)) == 0);
    if (!same) {
        bt_flush_group(c);
        c->cur = g;
        c->have_group = 1;
    }
    if (g.kind == BT_STATE)
        return 0;
    COLUMN_PUT(&c->r[BR_HI], uint64_t, hi);
    COLUMN_PUT(&c->r[BR_LO], uint64_t, lo);
    COLUMN_PUT(&c->r[BR_PLEN], uint8_t, (uint8_t)plen);
    COLUMN_PUT(&c->r[BR_PATH_ID], int64_t, path_id);
    COLUMN_PUT(&c->r[BR_AFI], uint8_t, (uint8_t)afi);
    if (!canonical) {
        COLUMN_PUT(&c->odd, int64_t, c->nroutes);
        COLUMN_PUT(&c->odd, int64_t, f[5].p - c->buf);
        COLUMN_PUT(&c->odd, int64_t, f[5].n);
    }
    c->nroutes++;
    c->cur.count++;
    return 0;
}
