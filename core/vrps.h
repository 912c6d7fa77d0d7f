/* The VRP readers (vrps_csv.c, vrps_json.c) and what they share (vrps_fields.c): the columns they
 * fill, the faults they report, the fields both formats hold. */
#ifndef BGPSIM_VRPS_H
#define BGPSIM_VRPS_H

#include "core.h"  /* first: Python.h sets the feature macros */

#include <pthread.h>
#include <stdatomic.h>

#define MAX_ASN 0xFFFFFFFFu          /* RFC 6793 */
#define MAX_TA_CHARS 256             /* rpki.vrps.payloads.MAX_TA_LENGTH */
#define MAX_TAS 4096                 /* distinct trust anchor names in one file */

/* One distinct trust anchor name, and where it was first seen (its checks that need Unicode
 * tables, str.isprintable, are made by the caller, who names that place). */
typedef struct {
    char *name;
    Py_ssize_t len;
    Py_ssize_t line;                 /* CSV: line; JSON: index of the ROA */
} ta_name;

/* The columns of the VRPs read, one entry per VRP. */
typedef struct {
    column asn, version, hi, lo, plen, maxlen, ta, expires;
    ta_name tas[MAX_TAS];
    int ntas;
    Py_ssize_t count;
} vrp_columns;

/* A fault: a message as a Python format string whose {} take `values`, and where it is. */
enum { WHERE_NONE, WHERE_LINE, WHERE_POSITION, WHERE_PATH };
enum { VALUE_TEXT, VALUE_JSON, VALUE_INT, VALUE_KIND };
/* text (UTF-8); JSON text (the caller loads it); a number; JSON text named by its kind ("a list") */
typedef struct {
    int kind;
    Py_ssize_t at, n;               /* the value's bytes, copied into the fault's store */
    long long number;
} fault_value;
typedef struct {
    const char *format;
    int where;
    Py_ssize_t line, column;
    char path[160];
    int nvalues;
    fault_value values[4];
    unsigned char store[4096];      /* copies: the text they come from may be gone when it is raised */
    Py_ssize_t used;
} fault;

void vrp_columns_reserve(vrp_columns *o, Py_ssize_t bytes);   /* room for the VRPs of a file this long */
void vrp_columns_release(vrp_columns *o);

/* set a fault (format and values); the reader adds where */
void fault_set(fault *f, const char *format);
void fault_text(fault *f, const unsigned char *p, Py_ssize_t n);
void fault_json(fault *f, const unsigned char *p, Py_ssize_t n);
void fault_int(fault *f, long long number);

/* Addresses as inet_pton reads them (no leading zeros in IPv4 octets; RFC 4291 section 2.2): 0, or -1. */
int ipv4_address(const unsigned char *s, const unsigned char *e, uint32_t *out);
int ipv6_address(const unsigned char *s, const unsigned char *e, uint64_t *hi, uint64_t *lo);

/* The fields (rpki.vrps.fields): each gives 0, or -1 with the fault set. */
int parse_decimal(const unsigned char *s, const unsigned char *e, int max_digits, uint64_t *out);
int parse_prefix_text(const unsigned char *s, const unsigned char *e, fault *f, int *version, uint64_t *hi,
                      uint64_t *lo, unsigned *plen);
int check_max_length(uint64_t maxlen, int version, unsigned plen, const unsigned char *prefix,
                     Py_ssize_t prefix_len, const unsigned char *raw, Py_ssize_t raw_len, fault *f);
int add_ta(vrp_columns *o, const unsigned char *p, Py_ssize_t n, Py_ssize_t where, fault *f, uint16_t *index);
int put_vrp(vrp_columns *o, uint32_t asn, int version, uint64_t hi, uint64_t lo, unsigned plen, unsigned maxlen,
            uint16_t ta, int64_t expires);
Py_ssize_t utf8_check(const unsigned char *p, Py_ssize_t n);   /* offset of the first bad byte, or -1 */

int vrp_columns_join(vrp_columns *o, vrp_columns *b, Py_ssize_t where, fault *f);

/* A file of SPLIT_MIN bytes or more is read by two threads: the second reads from a line's or an
 * element's start near the middle, into columns of its own; its VRPs are joined to the first's
 * once the first has read up to there, if it met no fault. After a fault in the second half, the
 * first thread reads that half again itself, so that a fault is told with its line or element
 * number, and the first of two faults is the one told (vrps_split.c). */
#define SPLIT_MIN (1 << 20)
typedef struct split {
    vrp_columns o;                  /* the half's VRPs */
    fault f;                        /* its fault, never told: the first thread reads that half again */
    int rc;                         /* what `read` gave: 0, or -1 */
    atomic_int quit;                /* the first thread went wrong before the half: it is not wanted */
    pthread_t thread;
    int (*read)(struct split *);
} split;
/* a reader's half (its struct begins with a split), zeroed, with room for the VRPs of `bytes` */
split *split_new(size_t size, Py_ssize_t bytes);
int split_run(split *s, int (*read)(split *));  /* `read` started on a thread: 0; or -1, s freed */
int split_wait(split *s, int wanted);           /* the thread's end (asked to stop, if not wanted): rc */
int split_unwanted(split *s);                   /* for `read`: stop, the half is not wanted */
void split_free(split *s);

/* The readers: 0, or -1 with the fault set. `flavour` names what was read. */
int read_vrp_csv(const unsigned char *p, Py_ssize_t n, vrp_columns *o, fault *f, const char **flavour);

/* JSON: the top-level keys other than "roas" are handed back as spans of the text, for the caller */
typedef struct {
    char key[64];
    Py_ssize_t start, end;
    int duplicate;                  /* the key was seen before */
    int read;                       /* "roas", read into the columns */
} json_span;
enum { TOOL_UNKNOWN, TOOL_RPKI_CLIENT, TOOL_ROUTINATOR };
#define MAX_SPANS 16
typedef struct {
    json_span spans[MAX_SPANS];
    int nspans;
    int tool;                       /* told by the metadata's keys, when it came before the ROAs */
    Py_ssize_t top_start, top_end;  /* the whole value (not an object: the caller names its kind) */
    /* the first ROA (index, -1 none) with a key only one tool writes, or a pair the other forbids:
     * which tool wrote the file is told by the metadata, which may come after the ROAs */
    Py_ssize_t with_source, with_expires, with_ta_and_source, without_ta_or_source;
} json_doc;
int read_vrp_json(const unsigned char *p, Py_ssize_t n, vrp_columns *o, json_doc *d, fault *f);

#endif
