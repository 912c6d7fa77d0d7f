/* RIS Live messages (https://ris-live.ripe.net/manual/) read into the columns `bgpsim validate` checks:
 * RisReader, whose Python side is bgpsim.live.rislive.Reader.
 *
 * A message is the server's envelope {"type": ..., "data": ...} or a bare ris_message data object
 * (bgpsim's MQTT feed). A ris_message's UPDATE becomes one group (time, peer, AS_PATH in the core's
 * words, aspath.h) and a row per announced or withdrawn prefix, appended to the batch take() hands
 * over. Names are matched in any case, and those spelled otherwise are handed back (for a warning);
 * what carries meaning (timestamp, peer, AS numbers, paths, prefixes, ORIGIN) is checked, and a fault
 * is a ValueError (format, key, value) that leaves the batch as it was. The rows a watch list may
 * care about (a watched prefix covers them, or a watched AS is in the path) are kept for watched().
 *
 * rislive.c reads a message, rislive_fields.c its values, rislive_batch.c is the type: the batch,
 * the peers, the watch list. */
#ifndef BGPSIM_RISLIVE_H
#define BGPSIM_RISLIVE_H

#include "json.h"
#include "aspath.h"
#include "intern.h"

#include <strings.h>

#define MAX_MESSAGE (1 << 20)   /* bytes: a RIS Live message holds one UPDATE (at most 64 KiB on the wire) */
#define MAX_NAMES 16            /* names spelled otherwise, handed back per message */

enum { KEY_TIMESTAMP, KEY_PEER, KEY_PEER_ASN, KEY_ID, KEY_TYPE, KEY_PATH, KEY_COMMUNITY, KEY_ORIGIN, KEY_ANNOUNCEMENTS,
       KEY_WITHDRAWALS, KEY_BGPSEC, KEY_BGPSEC_TARGET, KEY_STATE, KEY_DATA, KEY_NEXT_HOP, KEY_PREFIXES, NKEYS };

typedef struct { const unsigned char *p, *e; } span;   /* a value's text; p NULL: absent */

struct msg;

typedef struct {
    PyObject_HEAD
    struct msg *m;                                       /* the message being read (read() sets it up) */
    /* the batch: a row per prefix, a group per UPDATE */
    column kind, afi, hi, lo, plen, group;               /* uint8, uint8, uint64, uint64, uint8, int32 */
    column gtime, gusec, gpeer, gpath, gfirst, gorigin;  /* int64, int64, int32, int64, int64, int64 */
    intern_table paths;                                  /* the batch's distinct paths, in the core's words */
    Py_ssize_t rows, groups;
    intern_table peers;                                  /* the peers met, numbered for good (peer_key) */
    /* the watch list: per AFI its prefixes sorted by (length, address), and the ASes, sorted */
    uint64_t *whi[2], *wlo[2]; uint8_t *wlen[2]; Py_ssize_t wn[2];
    Py_ssize_t run[2][130]; int nruns[2];                /* where each length's run starts (and the end) */
    uint32_t *wasn; Py_ssize_t nwasn;
    /* the last message read: its group, its rows, its words, the rows a watch list may want */
    Py_ssize_t last_rows, last_groups;
    column words, hits;                                  /* uint32 path words; int64 row indexes */
    peer_key pending;                                    /* the message's peer, numbered once it is read */
    int64_t time, usec, origin;
    Py_ssize_t peer;
} RisReader;

/* one message being read */
typedef struct msg {
    RisReader *r;
    const unsigned char *s;
    fault f;                      /* a JSON syntax fault (json.c) */
    const char *want;             /* else ours: "want ..." (a format with {} for `value`), at `key` */
    char key[160];
    span value;
    PyObject *names;              /* the names spelled otherwise */
    span v[NKEYS];                /* the data object's values by key */
} msg;

static const span NONE = {NULL, NULL};

static inline json at(msg *m, span v) { return (json){m->s, v.p, v.e, &m->f, 0}; }
static inline int is_string(span v) { return v.p != NULL && *v.p == '"'; }
static inline int is_null(span v) { return v.p != NULL && *v.p == 'n'; }
static inline int is_list(span v) { return v.p != NULL && *v.p == '['; }
/* text t of n bytes is `word`, in any case (ASCII) */
static inline int same_word(const unsigned char *t, Py_ssize_t n, const char *word)
{
    return n == (Py_ssize_t)strlen(word) && strncasecmp((const char *)t, word, (size_t)n) == 0;
}

/* rislive_fields.c: each gives 0, or -1 with the message's fault set (or a Python error) */
int ris_fail(msg *m, const char *want, span value, const char *key, ...);  /* -1 */
/* the members of the object at j (its '{') into out by key, and those of a "data" object in it into data
 * (NULL: none), in one walk */
int ris_object(msg *m, json *j, span *out, span *data);
void ris_text(msg *m, span v, unsigned char *buf, const unsigned char **t, Py_ssize_t *n);
int ris_integer(span v, uint64_t max, uint64_t *out);
/* a prefix; `key` a format of its place, with i and k (made only for a fault) */
int ris_prefix(msg *m, span v, const char *key, Py_ssize_t i, Py_ssize_t k, int *afi, uint64_t *hi, uint64_t *lo,
               unsigned *plen);
void ris_masked(int afi, unsigned len, uint64_t *hi, uint64_t *lo);
int ris_header(msg *m);      /* timestamp, peer, peer_asn: into the reader's time, usec and pending peer */
int ris_path(msg *m);        /* AS_PATH into the reader's words */
int ris_attributes(msg *m);  /* ORIGIN, COMMUNITY, BGPsec_PATH checked */

/* rislive_batch.c */
int ris_reader_add_type(PyObject *module);
int ris_number_peer(RisReader *r);  /* the pending peer numbered */
int ris_watched_as(RisReader *r);   /* a watched AS in the words */
void ris_row(msg *m, uint8_t kind, int afi, uint64_t hi, uint64_t lo, unsigned plen, int hit);
void ris_truncate(RisReader *r);    /* the last message's rows and group forgotten */

/* rislive.c */
extern PyObject *S_UPDATE, *S_PEER_STATE, *S_RIS_MESSAGE;
PyObject *ris_read(RisReader *r, PyObject *payload);

#endif
