/* The timed engine's protocol, sending: every session brought up to date with an AS's Loc-RIB, the
 * MRAI timer (RFC 4271 section 9.2.1.1) holding and releasing announcements, an UPDATE scheduled at
 * the receiver's router, as bgpsim.sim.engine.timed describes. The same draws of the run's
 * random.Random as Python's would be, in the same order. */
#include "timed.h"

#include <math.h>

int speakers_out_ready(Speakers *S, int p)
{
    adj_rib_out *o = &S->out[p];
    if (o->path != NULL)
        return 0;
    o->path = PyMem_Calloc((size_t)S->slots + 1, sizeof(PyObject *));
    o->count = PyMem_Calloc((size_t)S->n + 1, sizeof(int32_t));
    if (o->path == NULL || o->count == NULL) {
        PyMem_Free(o->path);
        PyMem_Free(o->count);
        o->path = NULL;
        o->count = NULL;
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

void speakers_out_put(Speakers *S, int p, int slot, PyObject *val)
{
    adj_rib_out *o = &S->out[p];
    PyObject *old = o->path[slot];
    if (val == Py_None) {
        if (old == NULL)
            return;
        o->path[slot] = NULL;
        o->count[S->owner[slot]]--;
    } else {
        Py_INCREF(val);
        o->path[slot] = val;
        if (old == NULL)
            o->count[S->owner[slot]]++;
    }
    Py_XDECREF(old);
}

static inline int32_t sent_count(Speakers *S, int p, int r)
{
    return S->out[p].count == NULL ? 0 : S->out[p].count[r];
}

static int draw(Speakers *S, double *x)
{
    PyObject *r = PyObject_CallNoArgs(S->random);
    if (r == NULL)
        return -1;
    *x = PyFloat_AsDouble(r);
    Py_DECREF(r);
    return *x == -1.0 && PyErr_Occurred() ? -1 : 0;
}

static int mrai_start(Speakers *S, int slot) /* random.uniform(lo, hi) of the jitter, as Python draws it */
{
    double x;
    if (draw(S, &x) < 0)
        return -1;
    S->mrai_until[slot] = S->q->now + S->mrai * (S->jitter_lo + (S->jitter_hi - S->jitter_lo) * x);
    return 0;
}

static int processing(Speakers *S, double *d)
{
    double x;
    if (S->proc_kind == 1) {
        *d = S->proc_a;
        return 0;
    }
    if (S->proc_kind == 2 && S->proc_a == 0.0) {
        *d = 0.0;
        return 0;
    }
    if (draw(S, &x) < 0)
        return -1;
    if (S->proc_kind == 0)
        *d = S->proc_a + (S->proc_b - S->proc_a) * x;
    else
        *d = -log(1.0 - x) / (1.0 / S->proc_a); /* random.expovariate(1 / mean) */
    return 0;
}

static int held(Speakers *S, int r, int p) /* a community keeps r's route in r (Python's _held) */
{
    if (NONE(S->tagged) || !PyDict_Check(S->tagged) || PyDict_GET_SIZE(S->tagged) == 0)
        return 0;
    static PyObject *name;
    if (name == NULL && (name = PyUnicode_InternFromString("_held")) == NULL)
        return -1;
    PyObject *x = speakers_call(S, name, "ii", r, p);
    if (x == NULL)
        return -1;
    int t = PyObject_IsTrue(x);
    Py_DECREF(x);
    return t;
}

static PyObject *withheld_from(Speakers *S, int r, int p) /* new reference: a set, or None */
{
    if (NONE(S->withheld) || !PyDict_Check(S->withheld) || PyDict_GET_SIZE(S->withheld) == 0)
        Py_RETURN_NONE;
    PyObject *k = PyTuple_Pack(2, S->ints[p], S->ints[r]);
    if (k == NULL)
        return NULL;
    PyObject *got = PyDict_GetItemWithError(S->withheld, k);
    Py_DECREF(k);
    if (got == NULL)
        return PyErr_Occurred() ? NULL : (Py_INCREF(Py_None), Py_None);
    Py_INCREF(got);
    return got;
}

int speakers_exports(Speakers *S, int r, PyObject *cur, int j_is)
{
    PyObject *pol = PyList_GET_ITEM(S->policy, r);
    long rel = PyLong_AsLong(PyTuple_GET_ITEM(cur, 1));
    if (pol == Py_None)
        return rel <= CUSTOMER || j_is == CUSTOMER;
    if (S->any_rovpp) {
        long pref = PyLong_AsLong(PyTuple_GET_ITEM(PyTuple_GET_ITEM(cur, 0), 1));
        if (pref >= S->hole_kept) /* a ROV++ blackhole: to customers, when its version says so */
            return pref == S->hole_told && j_is == CUSTOMER;
    }
    PyObject *x = PyObject_CallMethod(pol, "exports", "li", rel, j_is);
    if (x == NULL)
        return -1;
    int t = PyObject_IsTrue(x);
    Py_DECREF(x);
    return t;
}

/* What r sends on session `slot` of path `out`, whose group's export rule said `ok`: nothing back to the
   neighbour it came from (`first_hop`) nor to one it withholds the prefix from (`excl`); prepended as
   configured. A new reference. */
static PyObject *path_for(Speakers *S, int r, int slot, PyObject *out, int ok, long first_hop, PyObject *excl)
{
    int j = S->nbr[slot];
    if (!ok || out == Py_None || j == first_hop || (excl != Py_None && PySet_Contains(excl, S->ints[j]) == 1))
        Py_RETURN_NONE;
    if (S->prepend[slot])
        return speakers_prefixed(S->ints[r], S->prepend[slot], out);
    Py_INCREF(out);
    return out;
}

static long first_hop(PyObject *cur) /* the neighbour a Loc-RIB entry came from; -1: r's own */
{
    PyObject *path = PyTuple_GET_ITEM(cur, 2);
    return PyTuple_GET_SIZE(path) ? PyLong_AsLong(PyTuple_GET_ITEM(path, 0)) : -1;
}

static int same_sent(Speakers *S, int p, int slot, PyObject *v) /* what the neighbour last heard is v: 1, 0, -1 */
{
    PyObject *prev = S->out[p].path[slot];
    if (prev == NULL)
        return v == Py_None;
    return prev == v ? 1 : PyObject_RichCompareBool(prev, v, Py_EQ);
}

static int offer(Speakers *S, int r, int slot, int p, PyObject *val)
{
    EventQueue *q = S->q;
    if (S->mrai > 0 && (val != Py_None || S->mrai_withdrawals)) {
        if (S->mrai_until[slot] > q->now) { /* held until the timer expires */
            held_prefixes *h = &S->held[slot];
            if (!h->active) {
                h->active = 1;
                h->prefixes.len = 0;
                if (event_queue_push(q, S->mrai_until[slot], S->handler, MRAI_EXPIRES, slot, 0, NULL, NULL) < 0)
                    return -1;
            }
            const int32_t *ps = (const int32_t *)h->prefixes.data;
            for (Py_ssize_t k = 0; k < h->prefixes.len / 4; k++)
                if (ps[k] == p)
                    return 0;
            COLUMN_PUT(&h->prefixes, int32_t, p);
            if (h->prefixes.failed) {
                PyErr_NoMemory();
                return -1;
            }
            return 0;
        }
        if (mrai_start(S, slot) < 0)
            return -1;
    }
    return speakers_transmit(S, r, slot, p, val);
}

int speakers_transmit(Speakers *S, int r, int slot, int p, PyObject *val)
{
    int j = S->nbr[slot];
    EventQueue *q = S->q;
    if (speakers_out_ready(S, p) < 0)
        return -1;
    speakers_out_put(S, p, slot, val);
    double t = q->now + S->delay[slot], d;
    if (S->busy[j] > t)
        t = S->busy[j];
    if (processing(S, &d) < 0)
        return -1;
    t += d;
    S->busy[j] = t;
    S->messages++;
    PyObject *signed_ = val == Py_None ? (Py_INCREF(Py_None), Py_None) : speakers_signed(S, p, r, j);
    if (signed_ == NULL)
        return -1;
    int err = speakers_tap(S, q->now, r, j, p, val, signed_) < 0 ||
              event_queue_push(q, t, S->handler, UPDATE, slot, p, val == Py_None ? NULL : val,
                               signed_ == Py_None ? NULL : signed_) < 0;
    Py_DECREF(signed_);
    return err ? -1 : 0;
}

PyObject *speakers_signed(Speakers *S, int p, int r, int j)
{
    if (NONE(S->crypto))
        Py_RETURN_NONE;
    return PyObject_CallMethod(S->crypto, "outgoing", "OOOO", (PyObject *)S, S->ints[p], S->ints[r], S->ints[j]);
}

int speakers_tap(Speakers *S, double now, int r, int j, int p, PyObject *val, PyObject *signed_)
{
    if (NONE(S->tap))
        return 0;
    return call_done(PyObject_CallMethod(S->tap, "sent", "diiiOO", now, r, j, p, val, signed_));
}

int speakers_export(Speakers *S, int r, int p)
{
    PyObject *out = speakers_cell(S->adv, p, r);
    if (out == NULL)
        return -1;
    if (out != Py_None) {
        int h = held(S, r, p);
        if (h < 0)
            return -1;
        if (h)
            out = Py_None; /* withdraw what it may have sent before */
    }
    if (out == Py_None && sent_count(S, p, r) == 0)
        return 0;
    if (speakers_out_ready(S, p) < 0)
        return -1;
    PyObject *cur = speakers_cell(S->loc, p, r);
    long from = out == Py_None ? -1 : first_hop(cur);
    PyObject *excl = withheld_from(S, r, p);
    if (excl == NULL)
        return -1;
    Py_INCREF(out);
    Py_INCREF(cur);
    int err = 0;
    const int starts[4] = {S->off[r], S->peers_at[r], S->providers_at[r], S->off[r + 1]};
    for (int g = 0; g < 3 && !err; g++) {
        int j_is = g + 1, ok = 0; /* customers, peers, providers */
        if (out == Py_None) {
            if (sent_count(S, p, r) == 0)
                break;
        } else if ((ok = speakers_exports(S, r, cur, j_is)) < 0) {
            err = 1;
            break;
        }
        for (int slot = starts[g]; slot < starts[g + 1] && !err; slot++) {
            PyObject *v = path_for(S, r, slot, out, ok, from, excl);
            if (v == NULL) {
                err = 1;
                break;
            }
            int same = same_sent(S, p, slot, v);
            if (same < 0)
                err = 1;
            else if (!same && !S->down[slot] && !(v == Py_None && (S->flags[r] & F_SUPPRESS)))
                err = offer(S, r, slot, p, v) < 0;
            Py_DECREF(v);
        }
    }
    Py_DECREF(out);
    Py_DECREF(cur);
    Py_DECREF(excl);
    return err ? -1 : 0;
}

PyObject *speakers_wanted(Speakers *S, int r, int slot, int p)
{
    PyObject *out = speakers_cell(S->adv, p, r);
    if (out == NULL)
        return NULL;
    if (out == Py_None)
        Py_RETURN_NONE;
    int h = held(S, r, p);
    if (h)
        return h < 0 ? NULL : (Py_INCREF(Py_None), Py_None);
    PyObject *cur = speakers_cell(S->loc, p, r), *excl = withheld_from(S, r, p);
    if (excl == NULL)
        return NULL;
    int ok = speakers_exports(S, r, cur, S->nbr_is[slot]);
    PyObject *v = ok < 0 ? NULL : path_for(S, r, slot, out, ok, first_hop(cur), excl);
    Py_DECREF(excl);
    return v;
}

static int cmp_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int speakers_mrai_expires(Speakers *S, int slot)
{
    held_prefixes *h = &S->held[slot];
    if (!h->active)
        return 0;
    h->active = 0;
    if (S->down[slot])
        return 0;
    int r = S->owner[slot], announced = 0, err = 0;
    int32_t *ps = (int32_t *)h->prefixes.data; /* no one adds to them before the timer starts again */
    Py_ssize_t n = h->prefixes.len / 4;
    if (n > 1)
        qsort(ps, (size_t)n, sizeof(int32_t), cmp_int32);
    for (Py_ssize_t k = 0; k < n && !err; k++) {
        int p = ps[k];
        PyObject *val = speakers_wanted(S, r, slot, p);
        if (val == NULL || speakers_out_ready(S, p) < 0) {
            Py_XDECREF(val);
            err = 1;
            break;
        }
        int same = same_sent(S, p, slot, val);
        if (same < 0)
            err = 1;
        else if (!same && !(val == Py_None && (S->flags[r] & F_SUPPRESS))) {
            err = speakers_transmit(S, r, slot, p, val) < 0;
            announced = announced || val != Py_None || S->mrai_withdrawals;
        }
        Py_DECREF(val);
    }
    if (err)
        return -1;
    if (announced && S->mrai > 0)
        return mrai_start(S, slot);
    return 0;
}

