/* bgpsim._core, bgpdump text part: `bgpdump -m` lines (bgpsim/mrt/bgpdump.py writes them) read back
 * into columns, with the checks and messages of bgpsim/mrt/text.py.
 *
 * bgptext.c         read_bgpdump_text: lines, groups, the columns handed to Python
 * bgptext_line.c    one line: its fields, record name, kind, time, peer, prefix, path id, attributes
 * bgptext_fields.c  numbers, addresses (inet_pton), prefixes, AS paths (RFC 4271 section 4.3, RFC 5065
 *                   section 3), communities (RFC 1997); fault messages (Python's repr of a str); the
 *                   interning of peers and paths
 *
 * Parsing runs without the GIL; every read is checked against the bytes given. */
#ifndef BGPSIM_BGPTEXT_H
#define BGPSIM_BGPTEXT_H

#include "core.h"
#include "intern.h"

extern PyMethodDef bgptext_methods[];

#define BT_MAX_LINE (1 << 20) /* bgpsim.mrt.text.MAX_LINE */

/* record names (the codes of mrt.h): BGP4MP + 1 for _ET, + 2 for _LOCAL, + 4 for _AP; then the RIB
 * records. text.py accepts codes 0 to 10; BGP (11) is in the table for the MRT reader's sake only. */
enum { BT_ET = 1, BT_LOCAL = 2, BT_AP = 4, BT_TABLE_DUMP = 8, BT_TABLE_DUMP2 = 9, BT_TABLE_DUMP2_AP = 10,
       BT_BGP = 11, BT_NAMES = 12 };
extern const char *const bt_record_names[BT_NAMES];

enum { BT_ANNOUNCE = 0, BT_WITHDRAW = 1, BT_RIB = 2, BT_STATE = 3 };

enum { BG_RECORD, BG_TIME, BG_USEC, BG_KIND, BG_PEER, BG_FIRST, BG_COUNT, BG_PATH, BG_ORIGIN, BG_OLD_STATE,
       BG_NEW_STATE, BG_ATTR_START, BG_ATTR_END, BG_LINE, BG_NCOLS };
enum { BR_HI, BR_LO, BR_PLEN, BR_PATH_ID, BR_AFI, BR_NCOLS };

/* a field of a line */
typedef struct {
    const uint8_t *p;
    Py_ssize_t n;
} bt_span;


/* one group: consecutive routes sharing record, time, usec, kind, peer and attribute text */
typedef struct {
    int64_t time, first, origin, attr_start, attr_end, line;
    int32_t usec, peer, count, path;
    uint16_t old_state, new_state;
    uint8_t record, kind;
} bt_group;

/* one call's parse */
typedef struct {
    const uint8_t *buf;
    Py_ssize_t len;
    int strict, nomem;
    column g[BG_NCOLS], r[BR_NCOLS];
    intern_table peers, paths;
    column odd;               /* int64 triples (route, offset, length): prefix texts prefix_text() does not give */
    column warn, warn_end, warn_line; /* warning texts end to end; int64 ends; int64 line numbers */
    column msg;               /* the fault of the line being read */
    column asns, segs, canon; /* scratch: a path's ASNs (uint32), its segments (int64 type, count), its bytes */
    Py_ssize_t last_start, last_end; /* the attribute text checked last (-1 none), its path and origin */
    int32_t last_path;
    int64_t last_origin;
    int32_t last_peer;        /* the peer of the last good line (-1 none): its AS, its text in buf */
    uint32_t last_peer_as;
    Py_ssize_t last_peer_at, last_peer_len;
    bt_group cur;             /* the open group */
    int have_group;
    int64_t nroutes;
    int64_t err_line;         /* strict: the line of the fault (0 none), where it starts in buf */
    Py_ssize_t err_off;
} bt_ctx;

/* bgptext_fields.c. The checks return 0, or -1 with the message in c->msg (a str's repr where
 * text.py has {x!r}); -2 is no memory. */
void bt_msg(bt_ctx *c, const char *s);
void bt_msg_n(bt_ctx *c, const uint8_t *p, Py_ssize_t n);
void bt_msg_repr(bt_ctx *c, const uint8_t *p, Py_ssize_t n);
void bt_msg_int(bt_ctx *c, long long v);
int bt_u32(bt_ctx *c, bt_span f, const char *what, uint32_t *out);
int bt_address(bt_ctx *c, bt_span f, const char *what, uint8_t out[16], int *afi);
int bt_prefix(bt_ctx *c, bt_span f, int *afi, uint64_t *hi, uint64_t *lo, int *plen, int *canonical);
int bt_as_path(bt_ctx *c, bt_span f, int64_t *origin); /* into c->segs, c->asns */
int bt_community(bt_ctx *c, bt_span f);

/* bgptext_line.c: one line (no newline): 0 read, -1 a fault in c->msg, -2 no memory */
int bt_line(bt_ctx *c, Py_ssize_t start, Py_ssize_t n, int64_t number);
void bt_flush_group(bt_ctx *c);

#endif
