/* bgpsim._core, MRT part: what the MRT reader's files share (RFC 6396).
 *
 * mrt.c         the MRTCore type: framing (RFC 6396 section 2), the calls
 * mrt_out.c     the columns and tables a call fills, handed to Python
 * mrt_records.c the record types: BGP (5), TABLE_DUMP (12), TABLE_DUMP_V2 (13), BGP4MP(_ET) (16, 17)
 * mrt_update.c  one UPDATE (RFC 4271 section 4.3) and its prefixes (RFC 4760, RFC 7911)
 * mrt_attrs.c   the path attribute scan, AS_PATH and AS4_PATH (RFC 6793), BGPsec_PATH (RFC 8205)
 * mrt_addpath.c ADD-PATH sessions (RFC 7911): OPENs dumped in BGP4MP records, and the NLRI heuristic
 * mrt_text.c    bgpdump -m lines of a call's groups and routes
 *
 * Parsing runs without the GIL: everything goes into `column`s and C tables, turned into Python
 * objects once the GIL is held again. Every read is checked against the bytes given; a fault inside a
 * record is a warning with the text bgpsim's Python reader gives (bgpsim/mrt/decoder.py). */
#ifndef BGPSIM_MRT_H
#define BGPSIM_MRT_H

#include "core.h"
#include "intern.h"
#include <stdarg.h>

#define MRT_MAX_RECORD (1 << 24) /* bgpsim.mrt.framing.MAX_RECORD */

/* record names as bgpdump prints them: BGP4MP codes are 0 (BGP4MP) or 1 (_ET), + 2 for _LOCAL,
 * + 4 for _AP */
enum { R_BGP4MP = 0, R_ET = 1, R_LOCAL = 2, R_AP = 4, R_TABLE_DUMP = 8, R_TABLE_DUMP2 = 9, R_TABLE_DUMP2_AP = 10,
       R_BGP = 11, R_BGP4MP_ENTRY = 12, R_COUNT = 13 };
extern const char *const mrt_record_names[R_COUNT];

enum { K_ANNOUNCE = 0, K_WITHDRAW = 1, K_RIB = 2, K_STATE = 3 };
/* next hop of a group: None, NEXT_HOP of the attributes (FROM_ATTRS), "" (an MP next hop of an odd
 * length in an UPDATE), or the address bytes at nh_start (nh_len 4 or 16) */
enum { NH_NONE = 0, NH_ATTRS = 1, NH_EMPTY = 2, NH_ADDR = 3 };

/* one group: the prefixes of one record sharing everything but the prefix (decoder.py) */
typedef struct {
    int64_t offset, usec, local_as, attr_start, attr_end, nh_start, origin;
    uint32_t time;
    int32_t peer, path;
    uint16_t old_state, new_state;
    uint8_t record, kind, afi, asn_size, rib_afi, nh_kind, nh_len, bgpsec;
} mrt_group;

enum { G_OFFSET, G_RECORD, G_TIME, G_USEC, G_KIND, G_AFI, G_PEER, G_LOCAL_AS, G_FIRST, G_COUNT, G_ATTR_START,
       G_ATTR_END, G_ASN_SIZE, G_RIB_AFI, G_NH_KIND, G_NH_START, G_NH_LEN, G_PATH, G_ORIGIN, G_BGPSEC, G_OLD_STATE,
       G_NEW_STATE, G_NCOLS };
enum { T_HI, T_LO, T_PLEN, T_PATH_ID, T_NCOLS };

typedef peer_key mrt_peer; /* a peer: address (4 or 16 bytes) and AS (intern.h) */

/* ADD-PATH state of one BGP session seen in BGP4MP records (mrt_addpath.c) */
typedef struct {
    uint8_t peer[16], local[16];
    uint8_t alen;
    uint32_t peer_as, local_as;
    uint8_t caps[2][2][3]; /* per side (0 the peer, 1 the local speaker), AFI 1-2, SAFI 1-3: RFC 7911
                              section 4 Send/Receive bits of the side's OPEN */
    uint8_t have[2];       /* that side's OPEN was seen */
} mrt_session;

/* the columns and lists one call fills */
typedef struct {
    column g[G_NCOLS], t[T_NCOLS];
    column warnings;       /* texts, each ending in '\0' */
    intern_table paths;    /* the distinct paths: uint32 words, see mrt_attrs.c */
    Py_ssize_t ngroups, nroutes;
} mrt_out;

/* what one read keeps of a file (the Python object's C part) */
typedef struct {
    intern_table peers;       /* the file's peer table: peer_keys (intern_peer, intern_peer_at) */
    int32_t *pit;             /* PEER_INDEX_TABLE entry -> index in `peers`, or -1 until used */
    mrt_peer *pit_peers;
    Py_ssize_t npit;
    int have_pit;
    uint8_t warned[65536 / 8]; /* record types already warned about */
    int64_t records;          /* records framed */
    int first_checked, stopped;
    int64_t skip, skip_at;    /* an over-MAX record being skipped: bytes left, its offset */
    uint32_t skip_len;
    uint16_t skip_type, skip_sub;
    mrt_session *sessions;    /* ADD-PATH sessions (mrt_addpath.c) */
    int32_t *session_slots;   /* their hash table */
    Py_ssize_t nsessions;
} mrt_file;

/* a fault: what was wanted, and where (an offset in the bytes being parsed) */
typedef struct {
    char msg[480];
    Py_ssize_t off;
} mrt_err;

/* the record being decoded */
typedef struct {
    mrt_file *f;
    mrt_out *out;
    const uint8_t *buf;       /* the call's buffer: spans in the columns are offsets in it */
    const uint8_t *body;      /* the record's message */
    Py_ssize_t n, body_at;    /* its length, its offset in buf */
    int64_t at;               /* the record's stream offset */
    uint32_t ts;
    uint16_t type, sub;
    mrt_err err;
    int fatal;                /* an InputError: reading stops */
    column scratch[3];        /* AS_PATH, AS4_PATH, the effective path: uint32 words */
    const mrt_session *session; /* the UPDATE's session, for ADD-PATH detection (or NULL) */
    int sent_by_local;        /* the UPDATE was sent by the local speaker (a _LOCAL subtype) */
    int ibgp;                 /* ... between speakers of one AS (RFC 7606 section 7.5) */
} mrt_ctx;

/* the attributes of one block, as much as a reader of routes needs (wire/attributes.py) */
typedef struct {
    int has_reach, has_unreach, has_path, has_origin, has_next_hop, bgpsec;
    int withdraw;                             /* RFC 7606 section 2: treat-as-withdraw, for `why` */
    mrt_err why;                              /* its offset in the body */
    uint32_t r_afi, r_safi, r_nhlen;
    Py_ssize_t r_nh, r_nh_len, r_nlri, r_end; /* r_nh_len 0: no next hop text (_next_hop gives None) */
    uint32_t u_afi, u_safi;
    Py_ssize_t u_start, u_end;
    int32_t path;
    int64_t origin;
} mrt_attrs;

/* column_put of n >= 0 bytes (core.h's memcpy wants a buffer even for none) */
static inline int mrt_put(column *c, const void *p, Py_ssize_t n)
{
    return n > 0 ? column_put(c, p, n) : (c->failed ? -1 : 0);
}

/* a column handed to Python: its name and numpy dtype */
typedef struct {
    const char *name, *dtype;
    int size;
} mrt_column;

/* mrt_out.c */
extern const mrt_column mrt_group_cols[G_NCOLS], mrt_route_cols[T_NCOLS];
void mrt_out_free(mrt_out *o);
void mrt_out_rollback(mrt_out *o, Py_ssize_t ngroups, Py_ssize_t nroutes);
PyObject *mrt_out_columns(mrt_out *o, int routes);
PyObject *mrt_out_warnings(mrt_out *o);
int mrt_fail(mrt_err *e, Py_ssize_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int mrt_warn(mrt_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int mrt_emit_group(mrt_out *o, const mrt_group *g, Py_ssize_t first_route);
int mrt_emit_route(mrt_out *o, const uint8_t *addr, int nbytes, int width, int plen, int64_t path_id);
void mrt_group_init(mrt_group *g, const mrt_ctx *c, int record, int kind);

/* mrt.c */
int mrt_add_types(PyObject *module);

/* mrt_attrs.c: the attribute block c->body[at:at + end], from a RIB entry or an UPDATE of an external
 * or internal peer; 0, -1 a fault in c->err (offset in the body), -2 no memory. A fault's cost
 * (RFC 7606 section 2): */
enum { A_OK, A_DISCARD, A_WITHDRAW, A_RESET };
enum { FROM_RIB, FROM_EBGP, FROM_IBGP };
int mrt_scan_attrs(mrt_ctx *c, Py_ssize_t at, Py_ssize_t end, int asn_size, int rib_afi, int from, mrt_attrs *a);
int mrt_attr_fault(mrt_err *e, Py_ssize_t v, unsigned flags, unsigned code, Py_ssize_t n);
long long mrt_where(const mrt_ctx *c, Py_ssize_t off); /* a warning's byte: stream offset, or the message's */
int32_t mrt_intern_path(mrt_out *o, const column *words);

/* mrt_update.c; addpath: 0, 1, ADDPATH_DETECT (per field, mrt_field_addpath), or ADDPATH_FAMILIES with
 * ADDPATH_V4 and/or ADDPATH_V6: the unicast families a session negotiated it for (RFC 7911 section 4) */
#define ADDPATH_DETECT 2
#define ADDPATH_FAMILIES 4
#define ADDPATH_V4 8
#define ADDPATH_V6 16
int mrt_update_groups(mrt_ctx *c, Py_ssize_t p, Py_ssize_t end, const mrt_group *tmpl, int asn_size, int addpath);
int mrt_prefixes(mrt_ctx *c, Py_ssize_t pos, Py_ssize_t stop, int afi, int addpath, mrt_err *damage);

/* mrt_records.c: 0, -1 a fault in c->err (offset in the body), -2 no memory */
int mrt_record(mrt_ctx *c);

/* mrt_text.c: MRTCore.bgpdump(buf, groups, routes, paths) */
PyObject *mrt_bgpdump(mrt_file *f, PyObject *args);

/* mrt_addpath.c */
mrt_session *mrt_session_find(mrt_file *f, const uint8_t *peer, const uint8_t *local, int alen, uint32_t peer_as,
                              uint32_t local_as);
int mrt_addpath_open(mrt_ctx *c, Py_ssize_t p, Py_ssize_t end, const uint8_t *peer, const uint8_t *local, int alen,
                     uint32_t peer_as, uint32_t local_as, int sent_by_local);
void mrt_session_state(mrt_file *f, const uint8_t *peer, const uint8_t *local, int alen, uint32_t peer_as,
                       uint32_t local_as, unsigned new_state);
int mrt_field_addpath(const mrt_ctx *c, unsigned afi, unsigned safi, Py_ssize_t pos, Py_ssize_t stop);
void mrt_sessions_free(mrt_file *f);

#endif
