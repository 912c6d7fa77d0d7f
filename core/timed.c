/* The timed engine's protocol (bgpsim.sim.engine.timed says what it models): an UPDATE received, the
 * route chosen (RFC 4271 section 9.1), every session brought up to date, MRAI (section 9.2.1.1).
 *
 * Each function follows one step of the model, in the order the model takes them, so that a seed
 * gives the same run event for event: the same draws of the run's random.Random, the same events in
 * the same order. */
#include "timed.h"

#include <math.h>

enum { UPDATE = 0, MRAI_EXPIRES = 1 }; /* the events of ours: an UPDATE handled, an MRAI timer out */

static PyObject *str_policy_key, *str_hear, *str_held, *str_refresh_hole, *str_holes_inside, *str_rost_changed,
    *str_exports, *str_outgoing, *str_sent, *str_loc_rib, *str_rib_in, *str_detailed;

static int intern_names(void)
{
    if (str_policy_key != NULL)
        return 0;
#define NAME(v, s) if ((v = PyUnicode_InternFromString(s)) == NULL) return -1
    NAME(str_policy_key, "_policy_key");
    NAME(str_hear, "_hear");
    NAME(str_held, "_held");
    NAME(str_refresh_hole, "_refresh_hole");
    NAME(str_holes_inside, "_holes_inside");
    NAME(str_rost_changed, "_rost_changed");
    NAME(str_exports, "exports");
    NAME(str_outgoing, "outgoing");
    NAME(str_sent, "sent");
    NAME(str_loc_rib, "loc_rib");
    NAME(str_rib_in, "rib_in");
    NAME(str_detailed, "detailed");
#undef NAME
    return 0;
}

PyObject *speakers_cell(PyObject *table, int p, int i)
{
    PyObject *row = PyList_GET_ITEM(table, p);
    if (!PyList_CheckExact(row) || i >= PyList_GET_SIZE(row)) {
        PyErr_SetString(PyExc_TypeError, "a RIB of the timed engine is not a list of one entry per AS");
        return NULL;
    }
    return PyList_GET_ITEM(row, i);
}

int speakers_set_cell(PyObject *table, int p, int i, PyObject *v)
{
    PyObject *row = PyList_GET_ITEM(table, p);
    if (!PyList_CheckExact(row) || i >= PyList_GET_SIZE(row)) {
        Py_DECREF(v);
        PyErr_SetString(PyExc_TypeError, "a RIB of the timed engine is not a list of one entry per AS");
        return -1;
    }
    return PyList_SetItem(row, i, v);
}

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

static inline long small(PyObject *x) /* a relationship class or key field */
{
    return PyLong_AsLong(x);
}

/* a < b for Loc-RIB entries (key, rel, path), as Python compares tuples; keys are 4-tuples of numbers */
static int entry_lt(PyObject *a, PyObject *b)
{
    PyObject *ka = PyTuple_GET_ITEM(a, 0), *kb = PyTuple_GET_ITEM(b, 0);
    if (PyTuple_CheckExact(ka) && PyTuple_CheckExact(kb) && PyTuple_GET_SIZE(ka) == PyTuple_GET_SIZE(kb)) {
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(ka); k++) {
            PyObject *x = PyTuple_GET_ITEM(ka, k), *y = PyTuple_GET_ITEM(kb, k);
            if (x == y)
                continue;
            if (PyLong_CheckExact(x) && PyLong_CheckExact(y)) {
                int o1, o2;
                long long u = PyLong_AsLongLongAndOverflow(x, &o1), v = PyLong_AsLongLongAndOverflow(y, &o2);
                if (!o1 && !o2) {
                    if (u == v)
                        continue;
                    return u < v;
                }
            }
            int eq = PyObject_RichCompareBool(x, y, Py_EQ);
            if (eq < 0)
                return -1;
            if (eq)
                continue;
            return PyObject_RichCompareBool(x, y, Py_LT);
        }
    }
    return PyObject_RichCompareBool(a, b, Py_LT);
}

/* the best entry of an Adj-RIB-In (first of equals, as min() keeps), borrowed; NULL: -1 with error */
static PyObject *best_of(PyObject *rib)
{
    PyObject *best = NULL, *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(rib, &pos, &k, &v)) {
        if (best == NULL) {
            best = v;
            continue;
        }
        int lt = entry_lt(v, best);
        if (lt < 0)
            return NULL;
        if (lt)
            best = v;
    }
    return best != NULL ? best : Py_None;
}

static int contains(PyObject *path, int r)
{
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(path); k++)
        if (PyLong_AsLong(PyTuple_GET_ITEM(path, k)) == r)
            return 1;
    return 0;
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

static PyObject *call_self(Speakers *S, PyObject *name, const char *fmt, ...)
{
    va_list va;
    va_start(va, fmt);
    PyObject *args = Py_VaBuildValue(fmt, va);
    va_end(va);
    if (args == NULL)
        return NULL;
    PyObject *f = PyObject_GetAttr((PyObject *)S, name);
    PyObject *r = f == NULL ? NULL : PyObject_Call(f, args, NULL);
    Py_XDECREF(f);
    Py_DECREF(args);
    return r;
}

static int call_done(PyObject *r)
{
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* ---- receiving ------------------------------------------------------------------------------ */

PyObject *speakers_judge(Speakers *S, int s, int r, int p, PyObject *path, int rel, PyObject *signed_, int rslot)
{
    if (!PyTuple_CheckExact(path)) {
        PyErr_SetString(PyExc_TypeError, "an AS path is a tuple of AS indices");
        return NULL;
    }
    if (contains(path, r))
        Py_RETURN_NONE; /* a loop */
    PyObject *pol = PyList_GET_ITEM(S->policy, r), *key;
    if (pol != Py_None) {
        key = call_self(S, str_policy_key, "iiiOiO", s, r, p, path, rel, NONE(signed_) ? Py_None : signed_);
        if (key == NULL || key == Py_None)
            return key;
        if (!PyTuple_CheckExact(key) || PyTuple_GET_SIZE(key) < 1) {
            Py_DECREF(key);
            PyErr_SetString(PyExc_TypeError, "a policy's key is a tuple");
            return NULL;
        }
    } else {
        key = Py_BuildValue("(iinO)", rel, 0, PyTuple_GET_SIZE(path), S->ints[s]);
        if (key == NULL)
            return NULL;
    }
    if (S->any_rank && rslot >= 0 && !isnan(S->rank[rslot])) { /* LOCAL_PREF replaces the relationship */
        PyObject *rank = PyFloat_FromDouble(S->rank[rslot]);
        if (rank == NULL || PyTuple_GET_SIZE(key) < 1) {
            Py_XDECREF(rank);
            Py_DECREF(key);
            return NULL;
        }
        PyObject *k2 = PyTuple_New(PyTuple_GET_SIZE(key));
        if (k2 == NULL) {
            Py_DECREF(rank);
            Py_DECREF(key);
            return NULL;
        }
        PyTuple_SET_ITEM(k2, 0, rank);
        for (Py_ssize_t k = 1; k < PyTuple_GET_SIZE(key); k++) {
            Py_INCREF(PyTuple_GET_ITEM(key, k));
            PyTuple_SET_ITEM(k2, k, PyTuple_GET_ITEM(key, k));
        }
        Py_DECREF(key);
        key = k2;
    }
    PyObject *entry = Py_BuildValue("(NiO)", key, rel, path);
    return entry;
}

static int journal_rib_in(Speakers *S, int r, int s, int p, PyObject *entry)
{
    if (NONE(S->journal))
        return 0;
    PyObject *d = PyObject_GetAttr(S->journal, str_detailed); /* Adj-RIBs-In: graphs to draw alone */
    if (d == NULL)
        return -1;
    int on = PyObject_IsTrue(d);
    Py_DECREF(d);
    if (on <= 0)
        return on;
    PyObject *now = PyFloat_FromDouble(S->q->now);
    if (now == NULL)
        return -1;
    int err = call_done(PyObject_CallMethodObjArgs(S->journal, str_rib_in, now, S->ints[r], S->ints[s], S->ints[p],
                                                   entry, NULL));
    Py_DECREF(now);
    return err;
}

int speakers_take(Speakers *S, int s, int r, int p, PyObject *entry)
{
    PyObject *rib = speakers_cell(S->rib_in, p, r), *cur = speakers_cell(S->loc, p, r), *new;
    if (rib == NULL || cur == NULL)
        return -1;
    PyObject *key = S->ints[s];
    if (entry == Py_None) {
        if (rib == Py_None)
            return 0;
        PyObject *old = PyDict_GetItemWithError(rib, key);
        if (old == NULL)
            return PyErr_Occurred() ? -1 : 0;
        Py_INCREF(old);
        Py_INCREF(cur);
        int err = PyDict_DelItem(rib, key) < 0 || journal_rib_in(S, r, s, p, Py_None) < 0;
        int same = cur == old;
        Py_DECREF(old);
        Py_DECREF(cur);
        if (err)
            return -1;
        if (!same)
            return 0;
        new = best_of(rib);
    } else {
        if (rib == Py_None) {
            PyObject *d = PyDict_New();
            if (d == NULL || speakers_set_cell(S->rib_in, p, r, d) < 0)
                return -1;
            rib = d;
        }
        PyObject *old = PyDict_GetItemWithError(rib, key);
        if (old == NULL && PyErr_Occurred())
            return -1;
        Py_XINCREF(old);
        Py_INCREF(cur);
        int err = PyDict_SetItem(rib, key, entry) < 0 || journal_rib_in(S, r, s, p, entry) < 0;
        int lt = err || cur == Py_None ? 0 : entry_lt(entry, cur);
        int cur_was_old = cur == old;
        Py_XDECREF(old);
        Py_DECREF(cur);
        if (err || lt < 0)
            return -1;
        if (cur == Py_None || lt)
            new = entry;
        else if (cur_was_old)
            new = best_of(rib);
        else
            return 0;
    }
    if (new == NULL)
        return -1;
    Py_INCREF(new);
    int r2 = speakers_install(S, r, p, new);
    Py_DECREF(new);
    return r2;
}

int speakers_install(Speakers *S, int r, int p, PyObject *entry)
{
    if (S->flags[r] & F_ROST) {
        PyObject *old = speakers_cell(S->loc, p, r);
        if (old == NULL || call_done(call_self(S, str_rost_changed, "iiOO", r, p, old, entry)) < 0)
            return -1;
    }
    Py_INCREF(entry);
    if (speakers_set_cell(S->loc, p, r, entry) < 0)
        return -1;
    if (!NONE(S->journal)) {
        PyObject *now = PyFloat_FromDouble(S->q->now);
        if (now == NULL || call_done(PyObject_CallMethodObjArgs(S->journal, str_loc_rib, now, S->ints[r],
                                                                S->ints[p], entry, NULL)) < 0) {
            Py_XDECREF(now);
            return -1;
        }
        Py_DECREF(now);
    }
    PyObject *adv = Py_None;
    if (entry == Py_None) {
        Py_INCREF(adv);
    } else {
        PyObject *path = PyTuple_GET_ITEM(entry, 2);
        Py_ssize_t len = PyTuple_GET_SIZE(path);
        adv = PyTuple_New(len + 1);
        if (adv == NULL)
            return -1;
        Py_INCREF(S->ints[r]);
        PyTuple_SET_ITEM(adv, 0, S->ints[r]);
        for (Py_ssize_t k = 0; k < len; k++) {
            Py_INCREF(PyTuple_GET_ITEM(path, k));
            PyTuple_SET_ITEM(adv, k + 1, PyTuple_GET_ITEM(path, k));
        }
    }
    if (speakers_set_cell(S->adv, p, r, adv) < 0)
        return -1;
    S->last_change = S->q->now;
    if (!NONE(S->on_change) && call_done(PyObject_CallFunctionObjArgs(S->on_change, S->ints[r], S->ints[p], NULL)) < 0)
        return -1;
    if (speakers_export(S, r, p) < 0)
        return -1;
    if (S->flags[r] & F_ROVPP)
        return call_done(call_self(S, str_holes_inside, "ii", r, p));
    return 0;
}

int speakers_reselect(Speakers *S, int r, int p)
{
    PyObject *cur = speakers_cell(S->loc, p, r), *rib = speakers_cell(S->rib_in, p, r);
    if (cur == NULL || rib == NULL)
        return -1;
    if (cur != Py_None && small(PyTuple_GET_ITEM(cur, 1)) == ORIGIN)
        return 0;
    PyObject *new = NONE(rib) ? Py_None : best_of(rib);
    if (new == NULL)
        return -1;
    if (new == cur)
        return 0;
    Py_INCREF(new);
    int r2 = speakers_install(S, r, p, new);
    Py_DECREF(new);
    return r2;
}

static int deliver(Speakers *S, int slot, int p, int rel, PyObject *path, PyObject *signed_)
{
    int s = S->owner[slot], r = S->nbr[slot];
    if (S->down[slot])
        return 0; /* the session died while the message was in flight */
    Py_INCREF(path);
    if (S->flags[r] & F_HEARS) { /* kept whole (RoST, ROV++, new VRPs): Python's */
        PyObject *kept = call_self(S, str_hear, "iiiOiO", s, r, p, path, rel, signed_);
        Py_DECREF(path);
        if (kept == NULL)
            return -1;
        path = kept;
    }
    PyObject *entry = path == Py_None ? (Py_INCREF(Py_None), Py_None)
                                      : speakers_judge(S, s, r, p, path, rel, signed_, S->back[slot]);
    Py_DECREF(path);
    if (entry == NULL)
        return -1;
    int err = speakers_take(S, s, r, p, entry);
    Py_DECREF(entry);
    if (err < 0)
        return -1;
    if (S->flags[r] & F_ROVPP)
        return call_done(call_self(S, str_refresh_hole, "ii", r, p));
    return 0;
}

/* ---- sending -------------------------------------------------------------------------------- */

static int held(Speakers *S, int r, int p) /* a community keeps r's route in r (Python's _held) */
{
    if (NONE(S->tagged) || !PyDict_Check(S->tagged) || PyDict_GET_SIZE(S->tagged) == 0)
        return 0;
    PyObject *x = call_self(S, str_held, "ii", r, p);
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
    long rel = small(PyTuple_GET_ITEM(cur, 1));
    if (pol == Py_None)
        return rel <= CUSTOMER || j_is == CUSTOMER;
    if (S->any_rovpp) {
        long pref = small(PyTuple_GET_ITEM(PyTuple_GET_ITEM(cur, 0), 1));
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

static PyObject *prepended(Speakers *S, int r, int slot, PyObject *v) /* new reference */
{
    int extra = S->prepend[slot];
    Py_ssize_t len = PyTuple_GET_SIZE(v);
    PyObject *t = PyTuple_New(len + extra);
    if (t == NULL)
        return NULL;
    for (int k = 0; k < extra; k++) {
        Py_INCREF(S->ints[r]);
        PyTuple_SET_ITEM(t, k, S->ints[r]);
    }
    for (Py_ssize_t k = 0; k < len; k++) {
        Py_INCREF(PyTuple_GET_ITEM(v, k));
        PyTuple_SET_ITEM(t, extra + k, PyTuple_GET_ITEM(v, k));
    }
    return t;
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
                h->n = 0;
                if (event_queue_push(q, S->mrai_until[slot], S->handler, MRAI_EXPIRES, slot, 0, NULL, NULL) < 0)
                    return -1;
            }
            for (int k = 0; k < h->n; k++)
                if (h->p[k] == p)
                    return 0;
            if (h->n == h->cap) {
                int cap = h->cap ? h->cap * 2 : 4;
                int32_t *m = PyMem_Realloc(h->p, (size_t)cap * sizeof(int32_t));
                if (m == NULL) {
                    PyErr_NoMemory();
                    return -1;
                }
                h->p = m;
                h->cap = cap;
            }
            h->p[h->n++] = p;
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
    PyObject *signed_ = NULL;
    if (!NONE(S->crypto) && val != Py_None) {
        signed_ = PyObject_CallMethodObjArgs(S->crypto, str_outgoing, (PyObject *)S, S->ints[p],
                                             S->ints[r], S->ints[j], NULL);
        if (signed_ == NULL)
            return -1;
        if (signed_ == Py_None)
            Py_CLEAR(signed_);
    }
    if (!NONE(S->tap)) {
        PyObject *x = PyObject_CallMethod(S->tap, "sent", "diiiOO", q->now, r, j, p, val,
                                          signed_ == NULL ? Py_None : signed_);
        if (x == NULL) {
            Py_XDECREF(signed_);
            return -1;
        }
        Py_DECREF(x);
    }
    int err = event_queue_push(q, t, S->handler, UPDATE, slot, p, val == Py_None ? NULL : val, signed_);
    Py_XDECREF(signed_);
    return err;
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
    long first_hop = -1;
    if (out != Py_None && PyTuple_GET_SIZE(PyTuple_GET_ITEM(cur, 2)))
        first_hop = PyLong_AsLong(PyTuple_GET_ITEM(PyTuple_GET_ITEM(cur, 2), 0));
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
            int j = S->nbr[slot];
            PyObject *v = ok ? out : Py_None;
            if (v != Py_None && (j == first_hop || (excl != Py_None && PySet_Contains(excl, S->ints[j]) == 1)))
                v = Py_None;
            if (v != Py_None && S->prepend[slot]) {
                if ((v = prepended(S, r, slot, v)) == NULL) {
                    err = 1;
                    break;
                }
            } else {
                Py_INCREF(v);
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
    PyObject *cur = speakers_cell(S->loc, p, r), *path = PyTuple_GET_ITEM(cur, 2);
    int j = S->nbr[slot];
    if (PyTuple_GET_SIZE(path) && PyLong_AsLong(PyTuple_GET_ITEM(path, 0)) == j)
        Py_RETURN_NONE;
    PyObject *excl = withheld_from(S, r, p);
    if (excl == NULL)
        return NULL;
    int in = excl != Py_None && PySet_Contains(excl, S->ints[j]) == 1;
    Py_DECREF(excl);
    if (in)
        Py_RETURN_NONE;
    int ok = speakers_exports(S, r, cur, S->nbr_is[slot]);
    if (ok <= 0)
        return ok < 0 ? NULL : (Py_INCREF(Py_None), Py_None);
    if (S->prepend[slot])
        return prepended(S, r, slot, out);
    Py_INCREF(out);
    return out;
}

static int cmp_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int mrai_expires(Speakers *S, int slot)
{
    held_prefixes *h = &S->held[slot];
    if (!h->active)
        return 0;
    h->active = 0;
    if (S->down[slot])
        return 0;
    int r = S->owner[slot], announced = 0;
    int n = h->n;
    int32_t *ps = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int32_t));
    if (ps == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(ps, h->p, (size_t)n * sizeof(int32_t));
    qsort(ps, (size_t)n, sizeof(int32_t), cmp_int32);
    int err = 0;
    for (int k = 0; k < n && !err; k++) {
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
    PyMem_Free(ps);
    if (err)
        return -1;
    if (announced && S->mrai > 0)
        return mrai_start(S, slot);
    return 0;
}

int speakers_event(PyObject *self, event *ev)
{
    Speakers *S = (Speakers *)self;
    if (ev->a == UPDATE)
        return deliver(S, ev->b, ev->c, S->rel_at[ev->b], ev->o1 == NULL ? Py_None : ev->o1,
                       ev->o2 == NULL ? Py_None : ev->o2);
    return mrai_expires(S, ev->b);
}

int speakers_names(void)
{
    return intern_names();
}
