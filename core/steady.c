/* The converged-state solver's three sweeps for the standard model (bgpsim.sim.engine.steady):
 * Gao-Rexford preference (customer, then peer, then provider routes), the shortest path, then the
 * lowest next-hop index; export valley-free. A policy reaches these sweeps only as masks, per kind of
 * seed (announcement) and sweep, of the ASes that refuse every route of that seed (ROV and the policies
 * like it, whose verdict is the same for every offer of one seed's routes): each offer is checked
 * against its seed's mask, or, with one kind of seed, each receiver once; and as one bit of the path
 * that the sweeps carry (BGPsec's "secure"). Other policies run on the solver's arrays in Python.
 *
 * The topology comes as CSR lists (the providers and the peers of each AS, int32) and the ASes in
 * ascending order of customer-to-provider rank. A customer's rank is below each of its providers',
 * so in the up sweep an AS's customers have all made their offers before it chooses, and in the down
 * sweep its providers are final. The up sweep visits only providers of ASes that got a route (a
 * hijack from a stub climbs a small cone); the down sweep visits every AS.
 *
 * The arrays come from our own code; every index read from one is checked before use, and a bad one
 * is a ValueError naming it. */
#include "core.h"
#include "rov.h"  /* release() */

#define NONE 9      /* relationship class of an AS without a route (bgpsim.sim.engine.steady.NONE) */
#define ORIGIN 0
#define CUSTOMER 1
#define PEER 2
#define PROVIDER 3
#define NH_BITS 24  /* score = length << 25 | demoted << 24 | next hop: the minimum is the routing decision */
#define LEN_SHIFT (NH_BITS + 1)
#define NO_OFFER INT64_MAX
#define MAX_KINDS 8  /* kinds of seed the masks tell apart: the solver's verdicts, few */
/* what a receiver asks of an offer: nothing (the standard model); whether it refuses every route (one
 * kind of seed and no bit: a mask per receiver); or, per offer, the mask of its seed's kind and the bit */
#define NONE_ASKED 0
#define PER_RECEIVER 1
#define PER_OFFER 2
#define CLOSED (-1)  /* below every score: an AS that takes no offer in this sweep */

typedef struct {
    Py_ssize_t n;
    /* the peers of each AS, by AS index; its providers by its position in `order` (the ASes by
     * ascending rank), so that the down sweep reads its lists in order; `pos` inverts `order` */
    const int32_t *qs, *q, *ps, *p, *order, *pos, *rank;
    int8_t *rel;
    int64_t *nh, *length, *seed;
    int64_t *ready;  /* the score each AS offers its neighbours: NO_OFFER without a route */
    /* per kind of seed, per sweep (customer, peer, provider): the ASes that refuse that seed's routes;
     * NULL without a policy. kind: each seed's kind. */
    const uint8_t **blocked;
    const int32_t *kind;
    Py_ssize_t nseeds, nkinds;
    /* a one-bit attribute of each AS's route (BGPsec's "secure", Peerlock's "holds a tier-1"), or NULL:
     * t taking x's route gets bit[x] & keep[t] | set[t]; refuse, per sweep: the ASes that refuse a
     * route with the bit set (or NULL); demote: the ASes that rank a route without it below one with
     * it, after the path length (or NULL) */
    uint8_t *bit;
    const uint8_t *keep, *set, *refuse[3], *demote;
    int32_t top;  /* the highest rank */
    Py_ssize_t lq, lp;  /* the lengths of the lists q and p */
    int bad;  /* an index out of range was met */
} sweeps;

static inline int in_range(sweeps *s, int64_t i, int64_t hi)
{
    if (i >= 0 && i < hi)
        return 1;
    s->bad = 1;
    return 0;
}

/* the list lo..hi of row i of a CSR with starts `st` over a list of `len` entries, if sound */
static inline int row(sweeps *s, const int32_t *st, int64_t i, Py_ssize_t len, int32_t *lo, int32_t *hi)
{
    *lo = st[i], *hi = st[i + 1];
    if (*lo >= 0 && *lo <= *hi && *hi <= len)
        return 1;
    s->bad = 1;
    return 0;
}

/* whether t refuses, over cls, the route of x (which has one) */
static inline int refuses(sweeps *s, int32_t t, int cls, int32_t x, const int checks)
{
    if (checks != PER_OFFER)
        return checks == PER_RECEIVER && s->blocked[cls - CUSTOMER][t];
    const uint8_t *r = s->refuse[cls - CUSTOMER];
    if (r && r[t] && s->bit[x])
        return 1;
    if (!s->blocked)
        return 0;
    int64_t k = s->seed[x];
    if (!in_range(s, k, s->nseeds))
        return 1;
    return s->blocked[3 * s->kind[k] + cls - CUSTOMER][t];
}

/* the score of x's route (which it has) as t ranks it */
static inline int64_t score_to(const sweeps *s, int32_t t, int32_t x, const int checks)
{
    if (checks != PER_OFFER)
        return s->ready[x];
    return s->ready[x] | (int64_t)(s->demote && s->demote[t] && !s->bit[x]) << NH_BITS;
}

/* the best offer to t among the providers lo..hi of the list p that t takes: the lowest score */
static inline int64_t best_of(sweeps *s, int32_t t, int32_t lo, int32_t hi, const int checks)
{
    int64_t best = NO_OFFER;
    for (int32_t k = lo; k < hi; k++) {
        int32_t x = s->p[k];
        if (!in_range(s, x, s->n))
            return NO_OFFER;
        if (s->ready[x] < best && !refuses(s, t, PROVIDER, x, checks)) {
            int64_t score = score_to(s, t, x, checks);
            if (score < best)
                best = score;
        }
    }
    return best;
}

static inline void settle(sweeps *s, int32_t t, int64_t best, int cls)
{
    int64_t x = best & ((1 << NH_BITS) - 1);
    s->rel[t] = (int8_t)cls;
    s->nh[t] = x;
    s->length[t] = (best >> LEN_SHIFT) + 1;  /* the sender's length is in its score */
    s->ready[t] = s->length[t] << LEN_SHIFT | t;
    s->seed[t] = s->seed[x];
    if (s->bit)
        s->bit[t] = (s->bit[x] & s->keep[t]) | s->set[t];
}

/* AS x, with its own or a customer route, offers it to each of its providers that takes it: the
 * provider keeps the best offer (offer[p]) and is queued in its rank's list (head/next), once. */
static inline void offer_up(sweeps *s, int32_t x, int32_t *head, int32_t *next, int64_t *offer, const int checks)
{
    int32_t lo, hi;
    if (!in_range(s, s->pos[x], s->n) || !row(s, s->ps, s->pos[x], s->lp, &lo, &hi))
        return;
    for (int32_t k = lo; k < hi; k++) {
        int32_t p = s->p[k];
        if (!in_range(s, p, s->n) || refuses(s, p, CUSTOMER, x, checks))
            continue;
        int64_t score = score_to(s, p, x, checks);
        if (offer[p] != NO_OFFER) {  /* queued already */
            if (score < offer[p])
                offer[p] = score;
            continue;
        }
        int32_t r = s->rank[p];
        if (!in_range(s, r, (int64_t)s->top + 1))
            continue;
        offer[p] = score;
        next[p] = head[r];
        head[r] = p;
    }
}

/* checks: what a receiver asks of an offer (NONE_ASKED, PER_RECEIVER or PER_OFFER); the loops are
 * compiled once for each */
static inline __attribute__((always_inline)) int sweep_all(sweeps *s, const int32_t *origins, Py_ssize_t norigins,
                                                           const int checks)
{
    Py_ssize_t n = s->n;
    int32_t *head = malloc(((size_t)s->top + 1) * sizeof *head), *next = malloc((size_t)n * sizeof *next);
    int32_t *touched = malloc((size_t)n * sizeof *touched);  /* ASes with their own or a customer route */
    int64_t *offer = malloc((size_t)n * sizeof *offer);  /* the best offer to each AS, while it is open */
    s->ready = malloc((size_t)n * sizeof *s->ready);
    if (!head || !next || !touched || !offer || !s->ready) {
        free(head), free(next), free(touched), free(offer), free(s->ready);
        return -1;
    }
    for (int32_t r = 0; r <= s->top; r++)
        head[r] = -1;
    for (Py_ssize_t i = 0; i < n; i++)
        s->ready[i] = offer[i] = NO_OFFER;
    Py_ssize_t ntouched = 0;
    for (Py_ssize_t i = 0; i < norigins; i++) {
        int32_t x = origins[i];
        if (!in_range(s, x, n) || !in_range(s, s->length[x], (int64_t)1 << (62 - LEN_SHIFT)))
            continue;
        s->ready[x] = s->length[x] << LEN_SHIFT | x;
        touched[ntouched++] = x;
        offer_up(s, x, head, next, offer, checks);
    }
    /* 1. up: rank by rank, each queued AS without a route takes its customers' best offer */
    for (int32_t r = 0; r <= s->top && !s->bad; r++)
        for (int32_t t = head[r]; t >= 0; t = next[t]) {
            int64_t best = offer[t];
            offer[t] = NO_OFFER;
            if (s->rel[t] != NONE)  /* an origin */
                continue;
            settle(s, t, best, CUSTOMER);
            touched[ntouched++] = t;
            offer_up(s, t, head, next, offer, checks);
        }
    /* 2. across: the peers of every AS with its own or a customer route, on the state after sweep 1.
     * The ASes that have a route are marked CLOSED in `offer`, so an offer reads one array. */
    for (Py_ssize_t i = 0; i < ntouched; i++)
        offer[touched[i]] = CLOSED;
    Py_ssize_t nwant = 0;
    int32_t *want = next;  /* reused: the ASes offered a peer route */
    for (Py_ssize_t i = 0; i < ntouched && !s->bad; i++) {
        int32_t x = touched[i], lo, hi;
        if (!row(s, s->qs, x, s->lq, &lo, &hi))
            continue;
        for (int32_t k = lo; k < hi; k++) {
            int32_t y = s->q[k];
            if (!in_range(s, y, n))
                break;
            if (offer[y] == CLOSED || refuses(s, y, PEER, x, checks))
                continue;
            int64_t score = score_to(s, y, x, checks);
            if (offer[y] == NO_OFFER) {  /* the first offer to y (the up sweep left none) */
                offer[y] = score;
                want[nwant++] = y;
            } else if (score < offer[y])
                offer[y] = score;
        }
    }
    for (Py_ssize_t i = 0; i < nwant; i++)
        settle(s, want[i], offer[want[i]], PEER);
    /* 3. down: from the top rank, each AS without a route takes its providers' best */
    for (Py_ssize_t i = n - 1; i >= 0 && !s->bad; i--) {
        int32_t t = s->order[i], lo, hi;
        if (!in_range(s, t, n) || s->rel[t] != NONE || (checks == PER_RECEIVER && s->blocked[PROVIDER - CUSTOMER][t])
            || !row(s, s->ps, i, s->lp, &lo, &hi))
            continue;  /* a receiver's mask is read once, not for each provider */
        int64_t best = best_of(s, t, lo, hi, checks == PER_OFFER ? PER_OFFER : NONE_ASKED);
        if (best != NO_OFFER)
            settle(s, t, best, PROVIDER);
    }
    free(head), free(next), free(touched), free(offer), free(s->ready);
    return 0;
}

static int run_sweeps(sweeps *s, const int32_t *origins, Py_ssize_t norigins)
{
    if (s->bit || (s->blocked && s->nkinds > 1))
        return sweep_all(s, origins, norigins, PER_OFFER);
    return s->blocked ? sweep_all(s, origins, norigins, PER_RECEIVER) : sweep_all(s, origins, norigins, NONE_ASKED);
}

/* steady_sweeps(qs, q, ps, p, order, pos, rank, top, rel, nh, length, seed, origins, blocked[, bit]):
 * the three sweeps, on the solver's arrays in place. qs/q: the peers of each AS (CSR, int32); order:
 * the ASes by ascending rank, pos its inverse; ps/p: the providers of the AS at each position of
 * `order`; rank: each AS's, at most top; rel (int8), nh, length, seed (int64): the state, the
 * origins' set already; origins (int32): the ASes that originate; blocked: None, or (masks, kind):
 * kind (int32) gives each seed's kind, masks three uint8 masks per kind (customer, peer and provider
 * sweeps: the ASes that refuse the routes of a seed of that kind); bit: None, or a one-bit attribute
 * (sweeps.bit) as (bit, keep, set, refuse, demote): uint8 each, refuse a tuple of three, each or demote
 * None where no AS does so; the origins' bits set already. Each route takes its next hop's seed. */
static PyObject *steady_sweeps(PyObject *self, PyObject *args)
{
    (void)self;
    enum { QS, Q, PS, P, ORDER, POS, RANK, REL, NH, LENGTH, SEED, ORIGINS, K };
    PyObject *o[K], *blocked, *bit = Py_None;
    int top;
    if (!PyArg_ParseTuple(args, "OOOOOOOiOOOOOO|O:steady_sweeps", &o[QS], &o[Q], &o[PS], &o[P], &o[ORDER], &o[POS],
                          &o[RANK], &top, &o[REL], &o[NH], &o[LENGTH], &o[SEED], &o[ORIGINS], &blocked, &bit))
        return NULL;
    static const char *const name[K] = {"qs", "q", "ps", "p", "order", "pos", "rank", "rel", "nh", "length", "seed",
                                        "origins"};
    Py_ssize_t n = PyObject_Length(o[REL]), len[K];
    if (n < 0)
        return NULL;
    if (n >= (1 << NH_BITS) || top < 0)
        return PyErr_Format(PyExc_ValueError, "%zd ASes, top rank %d: want fewer than 2**%d, and a rank", n, top, NH_BITS);
    for (int i = 0; i < K; i++)
        if ((len[i] = PyObject_Length(o[i])) < 0)
            return NULL;
    Py_ssize_t size[K] = {4, 4, 4, 4, 4, 4, 4, 1, 8, 8, 8, 4};
    Py_ssize_t count[K] = {n + 1, len[Q], n + 1, len[P], n, n, n, n, n, n, n, len[ORIGINS]};
    Py_buffer v[K + 1 + 3 * MAX_KINDS + 7];
    int got = 0;
    const uint8_t **masks = NULL;  /* before any `goto fail`, which frees it */
    for (; got < K; got++)
        if (array_view(o[got], &v[got], size[got], count[got], name[got]) < 0)
            goto fail;
    sweeps s = {.n = n, .qs = v[QS].buf, .q = v[Q].buf, .ps = v[PS].buf, .p = v[P].buf, .order = v[ORDER].buf,
                .pos = v[POS].buf, .rank = v[RANK].buf, .rel = v[REL].buf, .nh = v[NH].buf, .length = v[LENGTH].buf,
                .seed = v[SEED].buf, .top = top, .lq = len[Q], .lp = len[P]};
    if (blocked != Py_None) {  /* (masks, kind): 3 masks per kind of seed, each seed's kind */
        PyObject *ms;
        if (!PyTuple_Check(blocked) || PyTuple_GET_SIZE(blocked) != 2 || !PyTuple_Check(ms = PyTuple_GET_ITEM(blocked, 0))
            || PyTuple_GET_SIZE(ms) % 3 || PyTuple_GET_SIZE(ms) > 3 * MAX_KINDS) {
            PyErr_SetString(PyExc_TypeError, "blocked: want None or (masks, kind), three masks per kind of seed");
            goto fail;
        }
        Py_ssize_t nmasks = PyTuple_GET_SIZE(ms), nseeds = PyObject_Length(PyTuple_GET_ITEM(blocked, 1));
        if (nseeds < 0 || array_view(PyTuple_GET_ITEM(blocked, 1), &v[got], 4, nseeds, "kind") < 0)
            goto fail;
        s.kind = v[got++].buf, s.nseeds = nseeds;
        for (Py_ssize_t k = 0; k < s.nseeds; k++)
            if (s.kind[k] < 0 || 3 * (Py_ssize_t)s.kind[k] >= nmasks) {
                PyErr_Format(PyExc_ValueError, "kind: seed %zd has kind %d, want 0 to %zd", k, s.kind[k], nmasks / 3 - 1);
                goto fail;
            }
        masks = PyMem_Malloc((size_t)(nmasks ? nmasks : 1) * sizeof *masks);
        if (!masks) {
            PyErr_NoMemory();
            goto fail;
        }
        for (Py_ssize_t k = 0; k < nmasks; got++, k++) {
            if (array_view(PyTuple_GET_ITEM(ms, k), &v[got], 1, n, "blocked") < 0)
                goto fail;
            masks[k] = v[got].buf;
        }
        s.blocked = masks, s.nkinds = nmasks / 3;
    }
    if (bit != Py_None) {  /* (bit, keep, set, (refuse per sweep, or None), demote or None) */
        PyObject *refuse;
        if (!PyTuple_Check(bit) || PyTuple_GET_SIZE(bit) != 5 || !PyTuple_Check(refuse = PyTuple_GET_ITEM(bit, 3))
            || PyTuple_GET_SIZE(refuse) != 3) {
            PyErr_SetString(PyExc_TypeError, "bit: want None or (bit, keep, set, (three masks or None), demote or None)");
            goto fail;
        }
        PyObject *arrays[7] = {PyTuple_GET_ITEM(bit, 0), PyTuple_GET_ITEM(bit, 1), PyTuple_GET_ITEM(bit, 2),
                               PyTuple_GET_ITEM(refuse, 0), PyTuple_GET_ITEM(refuse, 1), PyTuple_GET_ITEM(refuse, 2),
                               PyTuple_GET_ITEM(bit, 4)};
        const uint8_t **into[7] = {(const uint8_t **)&s.bit, &s.keep, &s.set, &s.refuse[0], &s.refuse[1],
                                   &s.refuse[2], &s.demote};
        for (int k = 0; k < 7; k++) {
            if (k >= 3 && arrays[k] == Py_None)
                continue;
            if (array_view(arrays[k], &v[got], 1, n, "bit") < 0)
                goto fail;
            *into[k] = v[got++].buf;
        }
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_sweeps(&s, v[ORIGINS].buf, len[ORIGINS]);
    Py_END_ALLOW_THREADS
    release(v, got);
    PyMem_Free(masks);
    if (rc < 0)
        return PyErr_NoMemory();
    if (s.bad)
        return PyErr_Format(PyExc_ValueError, "steady_sweeps: an AS index, seed, rank, length or list start out of "
                            "range (want indices below %zd, ranks up to %d)", n, top);
    Py_RETURN_NONE;
fail:
    release(v, got);
    PyMem_Free(masks);
    return NULL;
}

PyMethodDef steady_methods[] = {
    {"steady_sweeps", steady_sweeps, METH_VARARGS, "The converged-state solver's three sweeps, in place."},
    {NULL, NULL, 0, NULL},
};
