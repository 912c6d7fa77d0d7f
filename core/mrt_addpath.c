/* ADD-PATH (RFC 7911) in BGP4MP MESSAGE records written without the _ADDPATH subtypes of RFC 8050
 * (BIRD writes an ADD-PATH session's messages as plain BGP4MP_MESSAGE_AS4 records).
 *
 * RFC 7911 section 4: each speaker's OPEN lists, per (AFI, SAFI), whether it can receive (1) and
 * send (2) path identifiers; a message carries them for a family when its sender advertised send
 * and its receiver advertised receive (section 5). The OPENs dumped in the file are kept per session
 * (peer and local address and AS; AS_TRANS, RFC 6793, matches any AS, since an OPEN may be dumped
 * in a 2-byte-AS record): a MESSAGE record's OPEN is the peer's, a MESSAGE_LOCAL record's the local
 * speaker's. A state change to Idle, Connect or Active (RFC 4271 section 8.2.2) ends the session
 * and forgets its OPENs.
 *
 * Where the OPENs do not decide (one or both not in the file), a prefix field is read as ADD-PATH
 * when it parses as ADD-PATH prefixes and not as plain ones: the heuristic of Wireshark's BGP
 * dissector (detect_add_path_prefix46), whose plain reading also fails on bits set past a prefix's
 * length and on a /0 that is not the field's only prefix. */
#include "mrt.h"

#define MAX_SESSIONS 4096
#define AS_TRANS 23456

static int as_match(uint32_t a, uint32_t b) { return a == b || a == AS_TRANS || b == AS_TRANS; }

/* sessions are found by their two addresses (open addressing over 2 * MAX_SESSIONS slots: index + 1),
 * then their ASes */
#define SLOTS (2 * MAX_SESSIONS)

static unsigned slot_of(const uint8_t *peer, const uint8_t *local, int alen)
{
    uint32_t h = 2166136261u ^ (uint32_t)alen;
    for (int i = 0; i < alen; i++)
        h = (h ^ peer[i]) * 16777619u, h = (h ^ local[i]) * 16777619u;
    return h & (SLOTS - 1);
}

static void rehash(mrt_file *f)
{
    memset(f->session_slots, 0, sizeof(int32_t) * SLOTS);
    for (Py_ssize_t i = 0; i < f->nsessions; i++) {
        const mrt_session *s = &f->sessions[i];
        unsigned k = slot_of(s->peer, s->local, s->alen);
        while (f->session_slots[k])
            k = (k + 1) & (SLOTS - 1);
        f->session_slots[k] = (int32_t)i + 1;
    }
}

mrt_session *mrt_session_find(mrt_file *f, const uint8_t *peer, const uint8_t *local, int alen, uint32_t peer_as,
                              uint32_t local_as)
{
    if (f->session_slots == NULL)
        return NULL;
    for (unsigned k = slot_of(peer, local, alen); f->session_slots[k]; k = (k + 1) & (SLOTS - 1)) {
        mrt_session *s = &f->sessions[f->session_slots[k] - 1];
        if (s->alen == alen && memcmp(s->peer, peer, (size_t)alen) == 0 && memcmp(s->local, local, (size_t)alen) == 0 &&
            as_match(s->peer_as, peer_as) && as_match(s->local_as, local_as))
            return s;
    }
    return NULL;
}

/* RFC 4271 section 4.2, RFC 9072 section 2, RFC 5492 section 4: the ADD-PATH capabilities of the
 * OPEN body b[p:end] into caps; 0, or -1 for a malformed OPEN (wire/open.py's checks) */
static int open_caps(const uint8_t *b, Py_ssize_t p, Py_ssize_t end, uint8_t caps[2][3])
{
    if (end - p < 10)
        return -1;
    Py_ssize_t plen = b[p + 9], q = p + 10;
    int wide = 0;
    if (plen == 255 && q < end && b[q] == 255) {
        if (q + 3 > end)
            return -1;
        plen = get16(b + q + 1);
        q += 3;
        wide = 1;
    }
    if (q + plen > end)
        return -1;
    Py_ssize_t pend = q + plen, hdr = wide ? 3 : 2;
    while (q < pend) {
        if (q + hdr > pend)
            return -1;
        unsigned ptype = b[q];
        Py_ssize_t vlen = wide ? get16(b + q + 1) : b[q + 1], v = q + hdr;
        if (v + vlen > pend)
            return -1;
        for (Py_ssize_t c = v; ptype == 2 && c < v + vlen;) { /* capabilities */
            if (c + 2 > v + vlen)
                return -1;
            unsigned code = b[c], clen = b[c + 1];
            Py_ssize_t cv = c + 2;
            if (cv + clen > v + vlen)
                return -1;
            if (code == 69) { /* ADD-PATH: (AFI 2, SAFI 1, Send/Receive 1) triples */
                if (clen % 4)
                    return -1;
                for (Py_ssize_t t = cv; t < cv + clen; t += 4) {
                    unsigned afi = get16(b + t), safi = b[t + 2];
                    if (afi >= 1 && afi <= 2 && safi >= 1 && safi <= 3)
                        caps[afi - 1][safi - 1] = b[t + 3] & 3;
                }
            }
            c = cv + clen;
        }
        q = v + vlen;
    }
    return 0;
}

/* an OPEN in a BGP4MP MESSAGE record: the sender's capabilities kept for its session */
int mrt_addpath_open(mrt_ctx *c, Py_ssize_t p, Py_ssize_t end, const uint8_t *peer, const uint8_t *local, int alen,
                     uint32_t peer_as, uint32_t local_as, int sent_by_local)
{
    uint8_t caps[2][3];
    memset(caps, 0, sizeof caps);
    if (open_caps(c->body, p, end, caps) < 0)
        return 0; /* not read: the session's capabilities stay unknown */
    mrt_file *f = c->f;
    mrt_session *s = mrt_session_find(f, peer, local, alen, peer_as, local_as);
    if (s == NULL) {
        if (f->session_slots == NULL && (f->session_slots = PyMem_RawCalloc(SLOTS, sizeof(int32_t))) == NULL)
            return -2;
        if (f->nsessions == MAX_SESSIONS) { /* the oldest goes */
            memmove(f->sessions, f->sessions + 1, sizeof *s * (MAX_SESSIONS - 1));
            f->nsessions--;
            rehash(f);
        }
        if (f->nsessions % 64 == 0) {
            mrt_session *t = PyMem_RawRealloc(f->sessions, sizeof *t * (size_t)(f->nsessions + 64));
            if (t == NULL)
                return -2;
            f->sessions = t;
        }
        s = &f->sessions[f->nsessions++];
        memset(s, 0, sizeof *s);
        memcpy(s->peer, peer, (size_t)alen);
        memcpy(s->local, local, (size_t)alen);
        s->alen = (uint8_t)alen;
        s->peer_as = peer_as;
        s->local_as = local_as;
        unsigned k = slot_of(peer, local, alen);
        while (f->session_slots[k])
            k = (k + 1) & (SLOTS - 1);
        f->session_slots[k] = (int32_t)f->nsessions;
    }
    int side = sent_by_local ? 1 : 0;
    memcpy(s->caps[side], caps, sizeof caps);
    s->have[side] = 1;
    return 0;
}

/* a state change of a session: Idle, Connect or Active end it (RFC 4271 section 8.2.2) */
void mrt_session_state(mrt_file *f, const uint8_t *peer, const uint8_t *local, int alen, uint32_t peer_as,
                       uint32_t local_as, unsigned new_state)
{
    mrt_session *s = mrt_session_find(f, peer, local, alen, peer_as, local_as);
    if (s != NULL && new_state >= 1 && new_state <= 3)
        s->have[0] = s->have[1] = 0;
}

/* the field parses wholly as prefixes, plain or ADD-PATH (no bits set past a length) */
static int parses(const uint8_t *b, Py_ssize_t pos, Py_ssize_t stop, int maxbits, int addpath, int *zero)
{
    while (pos < stop) {
        if (addpath) {
            if (pos + 5 > stop)
                return 0;
            pos += 4;
        }
        int plen = b[pos];
        if (plen > maxbits)
            return 0;
        if (plen == 0)
            *zero = 1;
        pos += 1 + (plen + 7) / 8;
        if (pos > stop)
            return 0;
        if (plen % 8 && (b[pos - 1] & (0xFF >> (plen % 8))))
            return 0;
    }
    return 1;
}

/* whether the prefix field body[pos:stop] of family (afi, safi) of the UPDATE being read carries
 * path identifiers: the session's OPENs (c->session), else the heuristic */
int mrt_field_addpath(const mrt_ctx *c, unsigned afi, unsigned safi, Py_ssize_t pos, Py_ssize_t stop)
{
    if (pos >= stop || afi < 1 || afi > 2 || safi < 1 || safi > 3)
        return 0;
    const mrt_session *s = c->session;
    if (s != NULL) {
        int tx = c->sent_by_local ? 1 : 0, rx = 1 - tx;
        if (s->have[tx] && !(s->caps[tx][afi - 1][safi - 1] & 2))
            return 0; /* the sender cannot send path identifiers */
        if (s->have[rx] && !(s->caps[rx][afi - 1][safi - 1] & 1))
            return 0; /* the receiver cannot take them */
        if (s->have[tx] && s->have[rx])
            return 1;
    }
    int maxbits = afi == 1 ? 32 : 128, zero = 0, zero_ap = 0;
    if (!parses(c->body, pos, stop, maxbits, 1, &zero_ap))
        return 0;
    int plain = parses(c->body, pos, stop, maxbits, 0, &zero);
    return !plain || (zero && stop - pos > 1);
}

void mrt_sessions_free(mrt_file *f)
{
    PyMem_RawFree(f->sessions);
    PyMem_RawFree(f->session_slots);
    f->sessions = NULL;
    f->session_slots = NULL;
    f->nsessions = 0;
}
