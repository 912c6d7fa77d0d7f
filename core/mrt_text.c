/* `bgpdump -m` lines (bgpdump 1.6) of the groups and routes of one MRTCore.read, byte for byte as
 * bgpsim/mrt/bgpdump.py writes them:
 *
 *   TABLE_DUMP2|time|B|peer|peer_as|prefix|as_path|origin|next_hop|local_pref|med|communities|AG|aggregator|
 *   BGP4MP_ET|time.usec|W|peer|peer_as|prefix[|path_id]       BGP4MP|time|STATE|peer|peer_as|old|new
 *   BGP|time|A|...|med<communities>|...   BGP|time|W|peer|peer_as|peer/length   (bgpdump's quirks)
 *
 * The attributes are read again from their block in the buffer (the scan of mrt_attrs.c has checked
 * it): for each type the first one counts, as in wire/attributes.py, and one it discarded is skipped. Absent LOCAL_PREF and MED print 0,
 * an absent ORIGIN INCOMPLETE, an absent next hop 255.255.255.255; an MP next hop of an odd length
 * drops next hop, LOCAL_PREF and MED; an AGGREGATOR of AS_TRANS from a 2-byte speaker is replaced by
 * AS4_AGGREGATOR (RFC 6793 section 4.2.3). */
#include "aspath.h"
#include "mrt.h"
#include "text.h"

/* a character */
static void put_c(column *o, char c) { mrt_put(o, &c, 1); }

static void put_ipv4(column *o, const uint8_t *a)
{
    char t[PREFIX_TEXT_MAX];
    mrt_put(o, t, ipv4_text(get32(a), t));
}

/* nlri.py address_text (text.c: as bgpdump prints addresses) */
static void put_addr(column *o, const uint8_t *a, int alen)
{
    char t[PREFIX_TEXT_MAX];
    if (alen == 4) {
        put_ipv4(o, a);
        return;
    }
    uint64_t hi = (uint64_t)get32(a) << 32 | get32(a + 4), lo = (uint64_t)get32(a + 8) << 32 | get32(a + 12);
    mrt_put(o, t, ipv6_text(hi, lo, t));
}

/* bgpdump.py _tail: from the AS path to the end of the line */
static void put_tail(column *o, const uint8_t *buf, int64_t s, int64_t e, int asn_size, const uint32_t *path,
                     Py_ssize_t path_len, int nh_kind, const uint8_t *nh, int nh_len, int mrtd)
{
    int origin = -1, atomic = 0;
    const uint8_t *nexthop = NULL, *med = NULL, *lp = NULL, *comm = NULL, *agg = NULL, *agg4 = NULL;
    Py_ssize_t ncomm = 0, nagg = 0;
    uint8_t seen[32] = {0};
    mrt_err why;
    for (Py_ssize_t pos = s; pos >= 0 && pos + 3 <= e;) { /* RFC 4271 section 4.3 */
        unsigned flags = buf[pos], code = buf[pos + 1];
        Py_ssize_t v = pos + 3, n = buf[pos + 2];
        if (flags & 0x10) {
            if (pos + 4 > e)
                break;
            v = pos + 4, n = get16(buf + pos + 2);
        }
        if (v + n > e)
            break;
        pos = v + n;
        /* the first of a type counts, and one the scan discarded is not there (RFC 7606 sections 3 g and 2) */
        if (seen[code >> 3] & (1 << (code & 7)))
            continue;
        seen[code >> 3] |= (uint8_t)(1 << (code & 7));
        if (mrt_attr_fault(&why, v, flags, code, n) != A_OK)
            continue;
        if (code == 1)
            origin = buf[v];
        else if (code == 3)
            nexthop = buf + v;
        else if (code == 4)
            med = buf + v;
        else if (code == 5)
            lp = buf + v;
        else if (code == 6)
            atomic = 1;
        else if (code == 7)
            agg = buf + v, nagg = n;
        else if (code == 8)
            comm = buf + v, ncomm = n / 4;
        else if (code == 18)
            agg4 = buf + v;
    }
    if (path)
        path_text(o, path, path_len);
    column_puts(o, origin == 0 ? "|IGP|" : origin == 1 ? "|EGP|" : "|INCOMPLETE|");
    if (nh_kind != NH_EMPTY) {
        if (nh_kind == NH_ADDR)
            put_addr(o, nh, nh_len);
        else if (nh_kind == NH_ATTRS && nexthop)
            put_addr(o, nexthop, 4);
        else
            column_puts(o, "255.255.255.255");
        put_c(o, '|');
        column_put_u(o, lp ? get32(lp) : 0);
        put_c(o, '|');
        column_put_u(o, med ? get32(med) : 0);
        if (!mrtd)
            put_c(o, '|');
    }
    for (Py_ssize_t i = 0; i < ncomm; i++) { /* RFC 1997 */
        uint32_t c = get32(comm + 4 * i);
        if (i)
            column_puts(o, " ");
        if (c == 0xFFFFFF01)
            column_puts(o, "no-export");
        else if (c == 0xFFFFFF02)
            column_puts(o, "no-advertise");
        else if (c == 0xFFFFFF03)
            column_puts(o, "local-AS");
        else
            column_put_u(o, c >> 16), put_c(o, ':'), column_put_u(o, c & 0xFFFF);
    }
    column_puts(o, atomic ? "|AG|" : "|NAG|");
    if (agg) { /* RFC 4271 section 4.3 g, RFC 6793 sections 3 and 4.2.3 */
        uint32_t asn = nagg == 6 ? get16(agg) : get32(agg);
        const uint8_t *ip = agg + nagg - 4;
        if (asn_size == 2 && asn == 23456 && agg4)
            asn = get32(agg4), ip = agg4 + 4;
        if (get32(ip) != 0xFFFFFFFF) {
            column_put_u(o, asn);
            put_c(o, ' ');
            put_ipv4(o, ip);
        }
    }
    column_puts(o, "|");
}

/* a column of the dict given, checked to hold n items of `size` bytes (n -1: any; set) */
static const uint8_t *col(PyObject *d, const char *name, int size, Py_ssize_t *n)
{
    PyObject *b = PyDict_GetItemString(d, name);
    if (b == NULL || !PyBytes_Check(b) || PyBytes_GET_SIZE(b) % size ||
        (*n >= 0 && PyBytes_GET_SIZE(b) / size != *n)) {
        PyErr_Format(PyExc_ValueError, "bgpdump: column %s missing or of the wrong size", name);
        return NULL;
    }
    *n = PyBytes_GET_SIZE(b) / size;
    return (const uint8_t *)PyBytes_AS_STRING(b);
}

#define GET(type, p, i) (*(const type *)((p) + sizeof(type) * (size_t)(i)))

PyObject *mrt_bgpdump(mrt_file *f, PyObject *args)
{
    Py_buffer view;
    PyObject *groups, *routes, *paths;
    if (!PyArg_ParseTuple(args, "y*O!O!O!:bgpdump", &view, &PyDict_Type, &groups, &PyDict_Type, &routes, &PyList_Type,
                          &paths))
        return NULL;
    Py_ssize_t ng = -1, nr = -1;
    const uint8_t *g_off = col(groups, "offset", 8, &ng), *g_rec = g_off ? col(groups, "record", 1, &ng) : NULL;
    const uint8_t *g_time = g_rec ? col(groups, "time", 4, &ng) : NULL, *g_usec = g_time ? col(groups, "usec", 8, &ng) : NULL;
    const uint8_t *g_kind = g_usec ? col(groups, "kind", 1, &ng) : NULL, *g_afi = g_kind ? col(groups, "afi", 1, &ng) : NULL;
    const uint8_t *g_peer = g_afi ? col(groups, "peer", 4, &ng) : NULL, *g_first = g_peer ? col(groups, "first", 8, &ng) : NULL;
    const uint8_t *g_count = g_first ? col(groups, "count", 4, &ng) : NULL;
    const uint8_t *g_as = g_count ? col(groups, "attr_start", 8, &ng) : NULL, *g_ae = g_as ? col(groups, "attr_end", 8, &ng) : NULL;
    const uint8_t *g_asn = g_ae ? col(groups, "asn_size", 1, &ng) : NULL, *g_nk = g_asn ? col(groups, "nh_kind", 1, &ng) : NULL;
    const uint8_t *g_ns = g_nk ? col(groups, "nh_start", 8, &ng) : NULL, *g_nl = g_ns ? col(groups, "nh_len", 1, &ng) : NULL;
    const uint8_t *g_path = g_nl ? col(groups, "path", 4, &ng) : NULL, *g_old = g_path ? col(groups, "old_state", 2, &ng) : NULL;
    const uint8_t *g_new = g_old ? col(groups, "new_state", 2, &ng) : NULL;
    const uint8_t *r_hi = g_new ? col(routes, "hi", 8, &nr) : NULL, *r_lo = r_hi ? col(routes, "lo", 8, &nr) : NULL;
    const uint8_t *r_plen = r_lo ? col(routes, "plen", 1, &nr) : NULL, *r_pid = r_plen ? col(routes, "path_id", 8, &nr) : NULL;
    (void)g_off;
    if (r_pid == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const uint8_t *buf = view.buf;
    Py_ssize_t blen = view.len, npaths = PyList_GET_SIZE(paths);
    for (Py_ssize_t i = 0; i < npaths; i++)
        if (!PyBytes_Check(PyList_GET_ITEM(paths, i)) || PyBytes_GET_SIZE(PyList_GET_ITEM(paths, i)) % 4) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError, "bgpdump: paths must be bytes of uint32 words");
            return NULL;
        }
    column o = {0}, hd = {0};
    const char *bad = NULL;
    for (Py_ssize_t i = 0; i < ng && !bad; i++) {
        int rec = GET(uint8_t, g_rec, i), kind = GET(uint8_t, g_kind, i);
        int32_t peer = GET(int32_t, g_peer, i), pi = GET(int32_t, g_path, i);
        int64_t first = GET(int64_t, g_first, i), count = GET(uint32_t, g_count, i);
        int64_t as = GET(int64_t, g_as, i), ae = GET(int64_t, g_ae, i), ns = GET(int64_t, g_ns, i);
        int nk = GET(uint8_t, g_nk, i), nl = GET(uint8_t, g_nl, i), afi = GET(uint8_t, g_afi, i);
        int64_t usec = GET(int64_t, g_usec, i);
        if (rec >= R_COUNT || kind > K_STATE || peer < 0 || peer >= f->peers.n || first < 0 || first + count > nr ||
            (as >= 0 && (ae < as || ae > blen)) || pi >= npaths || (nk == NH_ADDR && (ns < 0 || (nl != 4 && nl != 16) ||
            ns + nl > blen)) || (kind != K_STATE && afi != 1 && afi != 2)) {
            bad = "bgpdump: a group's fields do not fit the buffer, peers, paths or routes";
            break;
        }
        const mrt_peer pe = intern_peer_at(&f->peers, peer);
        /* the line's head, up to the prefix: record|time|kind|peer|peer_as| */
        hd.len = 0;
        column_puts(&hd, mrt_record_names[rec]);
        put_c(&hd, '|');
        column_put_u(&hd, GET(uint32_t, g_time, i));
        if (usec >= 0) {
            char t[8];
            int64_t u = usec;
            for (int d = 5; d >= 0; d--, u /= 10)
                t[d] = (char)('0' + u % 10);
            put_c(&hd, '.');
            if (u) /* more than 6 digits */
                column_put_u(&hd, (uint64_t)u);
            mrt_put(&hd, t, 6);
        }
        column_puts(&hd, kind == K_STATE ? "|STATE|" : kind == K_WITHDRAW ? "|W|" : kind == K_ANNOUNCE ? "|A|" : "|B|");
        Py_ssize_t peer_at = hd.len;
        put_addr(&hd, pe.addr, pe.alen);
        Py_ssize_t peer_len = hd.len - peer_at;
        put_c(&hd, '|');
        column_put_u(&hd, pe.asn);
        put_c(&hd, '|');
        if (hd.failed)
            break;
        if (kind == K_STATE) {
            mrt_put(&o, hd.data, hd.len);
            column_put_u(&o, GET(uint16_t, g_old, i));
            put_c(&o, '|');
            column_put_u(&o, GET(uint16_t, g_new, i));
            put_c(&o, '\n');
            continue;
        }
        Py_ssize_t tail_at = -1, tail_len = 0; /* the group's tail, written once and copied */
        for (int64_t k = first; k < first + count; k++) {
            int plen = GET(uint8_t, r_plen, k);
            int64_t pid = GET(int64_t, r_pid, k);
            mrt_put(&o, hd.data, hd.len);
            if (rec == R_BGP && kind == K_WITHDRAW) { /* bgpdump prints the peer's address as the prefix's */
                mrt_put(&o, hd.data + peer_at, peer_len);
                put_c(&o, '/');
                column_put_u(&o, (uint64_t)plen);
                put_c(&o, '\n');
                continue;
            }
            uint8_t a[16];
            uint64_t hi = GET(uint64_t, r_hi, k), lo = GET(uint64_t, r_lo, k);
            for (int b = 0; b < 8; b++)
                a[b] = (uint8_t)(hi >> (56 - 8 * b)), a[8 + b] = (uint8_t)(lo >> (56 - 8 * b));
            put_addr(&o, afi == 1 ? a + 12 : a, afi == 1 ? 4 : 16);
            put_c(&o, '/');
            column_put_u(&o, (uint64_t)plen);
            if (pid >= 0 && rec != R_BGP) {
                put_c(&o, '|');
                column_put_u(&o, (uint64_t)pid);
            }
            if (kind == K_WITHDRAW) {
                put_c(&o, '\n');
                continue;
            }
            put_c(&o, '|');
            if (tail_at >= 0) {
                if (tail_len && column_reserve(&o, tail_len) == 0) { /* reserved first: data may move */
                    memcpy(o.data + o.len, o.data + tail_at, (size_t)tail_len);
                    o.len += tail_len;
                }
            } else {
                Py_ssize_t at = o.len;
                PyObject *p = pi >= 0 ? PyList_GET_ITEM(paths, pi) : NULL;
                put_tail(&o, buf, as, ae, GET(uint8_t, g_asn, i), p ? (const uint32_t *)PyBytes_AS_STRING(p) : NULL,
                         p ? PyBytes_GET_SIZE(p) / 4 : 0, nk, nk == NH_ADDR ? buf + ns : NULL, nl, rec == R_BGP);
                tail_at = at, tail_len = o.len - at;
            }
            put_c(&o, '\n');
        }
    }
    int nomem = hd.failed;
    column_free(&hd);
    PyBuffer_Release(&view);
    if (bad || nomem) {
        column_free(&o);
        if (nomem)
            return PyErr_NoMemory();
        PyErr_SetString(PyExc_ValueError, bad);
        return NULL;
    }
    return column_take(&o);
}
