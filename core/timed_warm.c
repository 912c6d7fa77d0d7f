/* The timed engine's warm start (bgpsim.sim.engine.warm): a converged Loc-RIB installed in every
 * speaker as if every UPDATE that led to it had been sent, so a run starts from routing at rest. */
#include "timed.h"

static PyObject *keep; /* the Python face's _keep: what an AS that keeps its UPDATEs heard */

/* Every UPDATE AS i sends for prefix p at a warm start (bgpsim.sim.engine.warm) */
static int warm_sends(Speakers *S, int i, int p, PyObject *e, PyObject *out, PyObject *rib_in)
{
    PyObject *path = PyTuple_GET_ITEM(e, 2);
    long first_hop = PyTuple_GET_SIZE(path) ? PyLong_AsLong(PyTuple_GET_ITEM(path, 0)) : -1;
    for (int slot = S->off[i]; slot < S->off[i + 1]; slot++) /* what it had sent before: forgotten */
        speakers_out_put(S, p, slot, Py_None);
    const int starts[4] = {S->off[i], S->peers_at[i], S->providers_at[i], S->off[i + 1]};
    int err = 0;
    for (int g = 0; g < 3 && !err; g++) {
        int ok = speakers_exports(S, i, e, CUSTOMER + g);
        if (ok <= 0) {
            err = ok < 0;
            continue;
        }
        for (int slot = starts[g]; slot < starts[g + 1] && !err; slot++) {
            int j = S->nbr[slot], rel_at = S->rel_at[slot];
            if (j == first_hop || S->down[slot])
                continue;
            speakers_out_put(S, p, slot, out);
            PyObject *signed_ = speakers_signed(S, p, i, j);
            if (signed_ == NULL) {
                err = 1;
                break;
            }
            int failed = speakers_tap(S, 0.0, i, j, p, out, signed_) < 0 ||
                         ((S->flags[j] & F_HEARS) &&
                          call_done(PyObject_CallMethodObjArgs((PyObject *)S, keep, S->ints[p], S->ints[i], S->ints[j],
                                                               out, S->ints[rel_at], signed_, NULL)) < 0);
            PyObject *entry = failed ? NULL : speakers_judge(S, i, j, p, out, rel_at, signed_, S->back[slot]);
            Py_DECREF(signed_);
            if (entry == NULL) {
                err = 1;
                break;
            }
            if (entry != Py_None) {
                PyObject *rib = PyList_GET_ITEM(rib_in, j);
                if (rib == Py_None) {
                    if ((rib = PyDict_New()) == NULL || PyList_SetItem(rib_in, j, rib) < 0)
                        err = 1;
                }
                err = err || PyDict_SetItem(rib, S->ints[i], entry) < 0;
            }
            Py_DECREF(entry);
        }
    }
    return err ? -1 : 0;
}

PyObject *speakers_warm(Speakers *S, int p, PyObject *given)
{
    if (keep == NULL && (keep = PyUnicode_InternFromString("_keep")) == NULL)
        return NULL;
    int n = S->n;
    if (PyList_GET_SIZE(given) != n) {
        PyErr_SetString(PyExc_ValueError, "a warm start takes one Loc-RIB entry per AS");
        return NULL;
    }
    PyObject *loc = PyList_GetSlice(given, 0, n), *adv = PyList_New(n);
    int32_t *order = PyMem_Malloc(((size_t)n + 1) * 4);
    PyObject *result = NULL;
    if (loc == NULL || adv == NULL || order == NULL) {
        if (order == NULL)
            PyErr_NoMemory();
        goto end;
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        PyObject *e = PyList_GET_ITEM(loc, i), *a = Py_None;
        if (e == Py_None) {
            Py_INCREF(a);
        } else if (!PyTuple_CheckExact(e) || PyTuple_GET_SIZE(e) != 3 || (a = speakers_prefixed(S->ints[i], 1, PyTuple_GET_ITEM(e, 2))) == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "a Loc-RIB entry is (key, rel, path)");
            goto end;
        } else {
            order[m++] = i;
        }
        PyList_SET_ITEM(adv, i, a);
    }
    if (!NONE(S->crypto)) { /* an AS signs what it received: nearer the origin first (a stable sort) */
        int32_t *by = PyMem_Malloc(((size_t)m + 1) * 4);
        if (by == NULL) {
            PyErr_NoMemory();
            goto end;
        }
        int at = 0;
        for (Py_ssize_t len = 1; at < m; len++)
            for (int k = 0; k < m; k++)
                if (PyTuple_GET_SIZE(PyList_GET_ITEM(adv, order[k])) == len)
                    by[at++] = order[k];
        memcpy(order, by, (size_t)m * 4);
        PyMem_Free(by);
    }
    Py_INCREF(loc);
    Py_INCREF(adv);
    if (PyList_SetItem(S->loc, p, loc) < 0 || PyList_SetItem(S->adv, p, adv) < 0)
        goto end;
    PyObject *rib_in = PyList_GET_ITEM(S->rib_in, p);
    if (speakers_out_ready(S, p) < 0)
        goto end;
    if (!PyList_CheckExact(rib_in) || PyList_GET_SIZE(rib_in) != n) {
        PyErr_SetString(PyExc_TypeError, "a RIB of the timed engine is not a list of one entry per AS");
        goto end;
    }
    for (int k = 0; k < m; k++) {
        int i = order[k];
        if (warm_sends(S, i, p, PyList_GET_ITEM(loc, i), PyList_GET_ITEM(adv, i), rib_in) < 0)
            goto end;
    }
    /* The solver's entries must be the very objects in the Adj-RIBs-In (selection compares identity). */
    for (int j = 0; j < n; j++) {
        PyObject *e = PyList_GET_ITEM(loc, j);
        if (e == Py_None || PyLong_AsLong(PyTuple_GET_ITEM(e, 1)) == ORIGIN)
            continue;
        PyObject *rib = PyList_GET_ITEM(rib_in, j), *path = PyTuple_GET_ITEM(e, 2);
        PyObject *chosen = rib == Py_None || PyTuple_GET_SIZE(path) == 0 ? NULL : PyDict_GetItemWithError(rib, PyTuple_GET_ITEM(path, 0));
        int eq = chosen == NULL ? 0 : PyObject_RichCompareBool(chosen, e, Py_EQ);
        if (eq < 0)
            goto end;
        if (!eq) {
            result = PyLong_FromLong(j); /* the AS that disagrees */
            goto end;
        }
        Py_INCREF(chosen);
        PyList_SetItem(loc, j, chosen);
    }
    result = Py_None;
    Py_INCREF(result);
end:
    Py_XDECREF(loc);
    Py_XDECREF(adv);
    PyMem_Free(order);
    return result;
}

