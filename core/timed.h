/* Speakers (timed.c, timed_type.c): the BGP speakers of the timed engine, one per AS, one session per
 * link, driven by an EventQueue (events.h). bgpsim.sim.engine.timed.TimedEngine is its Python face.
 *
 * The RIBs stay Python objects the rest of bgpsim reads (per prefix, a list of one entry per AS): the
 * Loc-RIB entry (key, rel, path), what the AS advertises ((i,) + path) and the Adj-RIB-In (a dict:
 * neighbour -> entry). The Adj-RIBs-Out (the path last sent on each session), the sessions, their MRAI
 * timers and the routers' queues are arrays here. What a defence decides is asked of Python, and only
 * for its adopters; so is every optional part of a run (journal, wiretap, BGPsec, RoST, ROV++). */
#ifndef BGPSIM_TIMED_H
#define BGPSIM_TIMED_H

#include "events.h"

/* bgpsim.policy's relationship classes: what a neighbour is to an AS, and how it learned a route */
enum { ORIGIN = 0, CUSTOMER = 1, PEER = 2, PROVIDER = 3 };

/* per-AS flags */
enum { F_SUPPRESS = 1, F_ROVPP = 2, F_HEARS = 4, F_ROST = 8 };

typedef struct {
    column prefixes; /* int32 prefix indices, each once */
    int active;
} held_prefixes;     /* what a session's MRAI timer holds back */

typedef struct {
    PyObject **path; /* per session (slot): the path last sent, or NULL (nothing, or withdrawn) */
    int32_t *count;  /* per AS: how many of its sessions hold a path */
} adj_rib_out;       /* one prefix's Adj-RIBs-Out, every AS's */

typedef struct {
    PyObject *entry; /* owned: the Adj-RIB-In entry last made of a route from this AS, or NULL */
    PyObject *path;  /* borrowed (the entry holds it): the path it was made of */
    int32_t p;
} judged;            /* per AS and class of receiver: what its UPDATE became in the standard model */

typedef struct {
    int32_t *covering; /* the prefixes covering the target, most specific first */
    int count;
    uint8_t *watched;  /* per prefix: one of them? */
    int32_t *next_hop; /* per AS: where it sends packets for the target (timed_fib.c); NULL: not watched */
} fib_watch;

typedef struct {
    PyObject_HEAD
    int32_t n, k, slots, nints;
    /* AS i's sessions are the slots off[i] .. off[i + 1] - 1: its customers, then peers (from
       peers_at[i]), then providers (from providers_at[i]), each group in index order */
    int32_t *off, *peers_at, *providers_at;
    int32_t *nbr, *owner, *back; /* per slot: the neighbour, the AS, the slot of the way back */
    int8_t *rel_at, *nbr_is;     /* per slot: how the neighbour learns our routes, what it is to us */
    double *delay, *mrai_until, *rank; /* rank: NaN, or the LOCAL_PREF rank of routes learned here */
    int32_t *prepend;
    uint8_t *down;
    held_prefixes *held;
    double *busy; /* per AS: when its router is next idle */
    uint8_t *flags;
    PyObject **ints; /* the AS indices as Python ints */
    EventQueue *q;
    int handler;
    PyObject *loc, *adv, *rib_in, *policy, *random;
    adj_rib_out *out; /* per prefix; its arrays made when it is first sent */
    PyObject *on_change, *on_next_hop, *journal, *tap, *crypto, *withheld, *tagged;
    fib_watch fib;
    judged *judged; /* per AS, 4 classes: an UPDATE sent to many receivers of one class judged once */
    double mrai, jitter_lo, jitter_hi;
    int mrai_withdrawals, any_rovpp, any_rank;
    int proc_kind; /* 0 uniform(a, b), 1 constant a, 2 exponential of mean a */
    double proc_a, proc_b;
    long long messages, hole_kept, hole_told;
    double last_change;
} Speakers;

#define NONE(x) ((x) == NULL || (x) == Py_None)

enum { UPDATE = 0, MRAI_EXPIRES = 1 }; /* the speakers' events: an UPDATE handled, an MRAI timer out */

/* timed.c (receiving) and timed_send.c (sending): the protocol; each returns -1 with a Python
 * exception set */
int speakers_event(PyObject *self, event *ev);
PyObject *speakers_judge(Speakers *S, int s, int r, int p, PyObject *path, int rel, PyObject *signed_, int rslot);
int speakers_take(Speakers *S, int s, int r, int p, PyObject *entry);
int speakers_install(Speakers *S, int r, int p, PyObject *entry);
int speakers_export(Speakers *S, int r, int p);
int speakers_reselect(Speakers *S, int r, int p);
PyObject *speakers_wanted(Speakers *S, int r, int slot, int p);
int speakers_transmit(Speakers *S, int r, int slot, int p, PyObject *val);
PyObject *speakers_signed(Speakers *S, int p, int r, int j); /* r's BGPsec_PATH to j, a new reference: None unsigned */
int speakers_tap(Speakers *S, double now, int r, int j, int p, PyObject *val, PyObject *signed_); /* the wiretap told */
int speakers_out_ready(Speakers *S, int p);              /* prefix p's Adj-RIBs-Out made: -1 no memory */
void speakers_out_put(Speakers *S, int p, int slot, PyObject *val); /* val: borrowed; None clears */
int speakers_exports(Speakers *S, int r, PyObject *cur, int j_is); /* 1, 0, or -1 */
int speakers_mrai_expires(Speakers *S, int slot);
PyObject *speakers_call(Speakers *S, PyObject *name, const char *fmt, ...); /* a method of the Python face */
PyObject *speakers_prefixed(PyObject *head, int times, PyObject *path); /* (head,) * times + path */
int speakers_names(void); /* the Python face's method names, interned once */

static inline int call_done(PyObject *r) /* a Python call's result dropped: 0, or -1 if it raised */
{
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}
PyObject *speakers_cell(PyObject *table, int p, int i);             /* borrowed; NULL + error if malformed */
int speakers_set_cell(PyObject *table, int p, int i, PyObject *v);  /* v: a new reference, taken */

/* timed_warm.c: the warm start of prefix p (one Loc-RIB entry per AS); None, or the index of an AS
   whose route the Adj-RIBs-In do not hold */
PyObject *speakers_warm(Speakers *S, int p, PyObject *given);
int speakers_add_type(PyObject *module);

/* timed_fib.c: each AS's next hop toward one target address, watched as its Loc-RIB changes */
PyObject *speakers_watch_fib(Speakers *S, PyObject *args); /* watch_fib(covering) -> every AS's next hop */
int speakers_fib_changed(Speakers *S, int r, int p);       /* r's Loc-RIB for p changed: on_next_hop if it moved */
void speakers_fib_free(Speakers *S);
int speakers_fib_names(void);

#endif
