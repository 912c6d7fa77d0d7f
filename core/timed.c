/* The timed engine's protocol, receiving (bgpsim.sim.engine.timed says what it models): an UPDATE
 * received and judged, taken into the Adj-RIB-In, the route chosen (RFC 4271 section 9.1) and
 * installed; sending is timed_send.c.
 *
 * Each function follows one step of the model, in the order the model takes them, so that a seed
 * gives the same run event for event: the same draws of the run's random.Random, the same events in
 * the same order. */
#include "timed.h"

#include <math.h>

static PyObject *str_policy_key, *str_hear, *str_refresh_hole, *str_holes_inside, *str_rost_changed, *str_loc_rib,
    *str_rib_in, *str_detailed;

int speakers_names(void)
{
    if (str_policy_key != NULL)
        return 0;
#define NAME(v, s) if ((v = PyUnicode_InternFromString(s)) == NULL) return -1
    NAME(str_policy_key, "_policy_key");
    NAME(str_hear, "_hear");
    NAME(str_refresh_hole, "_refresh_hole");
    NAME(str_holes_inside, "_holes_inside");
    NAME(str_rost_changed, "_rost_changed");
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

PyObject *speakers_call(Speakers *S, PyObject *name, const char *fmt, ...)
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

PyObject *speakers_prefixed(PyObject *head, int times, PyObject *path)
{
    Py_ssize_t len = PyTuple_GET_SIZE(path);
    PyObject *t = PyTuple_New(len + times);
    if (t == NULL)
        return NULL;
    for (int k = 0; k < times; k++) {
        Py_INCREF(head);
        PyTuple_SET_ITEM(t, k, head);
    }
    for (Py_ssize_t k = 0; k < len; k++) {
        Py_INCREF(PyTuple_GET_ITEM(path, k));
        PyTuple_SET_ITEM(t, times + k, PyTuple_GET_ITEM(path, k));
    }
    return t;
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
    int ranked = S->any_rank && rslot >= 0 && !isnan(S->rank[rslot]);
    judged *last = NULL; /* the standard model's entry depends on the sender, the class and the path only */
    if (pol == Py_None && !ranked && rel >= 0 && rel <= PROVIDER) {
        last = &S->judged[(size_t)s * (PROVIDER + 1) + rel];
        if (last->entry != NULL && last->path == path && last->p == p) {
            Py_INCREF(last->entry);
            return last->entry;
        }
    }
    if (pol != Py_None) {
        key = speakers_call(S, str_policy_key, "iiiOiO", s, r, p, path, rel, NONE(signed_) ? Py_None : signed_);
        if (key == NULL || key == Py_None)
            return key;
        if (!PyTuple_CheckExact(key) || PyTuple_GET_SIZE(key) < 1) {
            Py_DECREF(key);
            PyErr_SetString(PyExc_TypeError, "a policy's key is a tuple");
            return NULL;
        }
    } else {
        key = PyTuple_New(4); /* (rel, 0, length, next hop): the standard model's */
        if (key == NULL)
            return NULL;
        PyObject *fields[4] = {PyLong_FromLong(rel), PyLong_FromLong(0), PyLong_FromSsize_t(PyTuple_GET_SIZE(path)),
                               S->ints[s]};
        Py_INCREF(fields[3]);
        for (int k = 0; k < 4; k++) {
            if (fields[k] == NULL) {
                for (int x = k; x < 4; x++)
                    Py_XDECREF(fields[x]);
                Py_DECREF(key);
                return NULL;
            }
            PyTuple_SET_ITEM(key, k, fields[k]);
        }
    }
    if (ranked) { /* LOCAL_PREF replaces the relationship */
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
    PyObject *entry = PyTuple_New(3), *how = PyLong_FromLong(rel);
    if (entry == NULL || how == NULL) {
        Py_XDECREF(entry);
        Py_XDECREF(how);
        Py_DECREF(key);
        return NULL;
    }
    Py_INCREF(path);
    PyTuple_SET_ITEM(entry, 0, key);
    PyTuple_SET_ITEM(entry, 1, how);
    PyTuple_SET_ITEM(entry, 2, path);
    if (last != NULL) { /* shared by the sender's other receivers of this class: tuples, read only */
        Py_INCREF(entry);
        Py_XSETREF(last->entry, entry);
        last->path = path;
        last->p = p;
    }
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
        if (old == NULL || call_done(speakers_call(S, str_rost_changed, "iiOO", r, p, old, entry)) < 0)
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
    PyObject *adv = entry == Py_None ? (Py_INCREF(Py_None), Py_None)
                                     : speakers_prefixed(S->ints[r], 1, PyTuple_GET_ITEM(entry, 2));
    if (adv == NULL || speakers_set_cell(S->adv, p, r, adv) < 0)
        return -1;
    S->last_change = S->q->now;
    if (speakers_fib_changed(S, r, p) < 0)
        return -1;
    if (!NONE(S->on_change) && call_done(PyObject_CallFunctionObjArgs(S->on_change, S->ints[r], S->ints[p], NULL)) < 0)
        return -1;
    if (speakers_export(S, r, p) < 0)
        return -1;
    if (S->flags[r] & F_ROVPP)
        return call_done(speakers_call(S, str_holes_inside, "ii", r, p));
    return 0;
}

int speakers_reselect(Speakers *S, int r, int p)
{
    PyObject *cur = speakers_cell(S->loc, p, r), *rib = speakers_cell(S->rib_in, p, r);
    if (cur == NULL || rib == NULL)
        return -1;
    if (cur != Py_None && PyLong_AsLong(PyTuple_GET_ITEM(cur, 1)) == ORIGIN)
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
        PyObject *kept = speakers_call(S, str_hear, "iiiOiO", s, r, p, path, rel, signed_);
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
        return call_done(speakers_call(S, str_refresh_hole, "ii", r, p));
    return 0;
}

int speakers_event(PyObject *self, event *ev)
{
    Speakers *S = (Speakers *)self;
    if (ev->a == UPDATE)
        return deliver(S, ev->b, ev->c, S->rel_at[ev->b], ev->o1 == NULL ? Py_None : ev->o1,
                       ev->o2 == NULL ? Py_None : ev->o2);
    return speakers_mrai_expires(S, ev->b);
}
