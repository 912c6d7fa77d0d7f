/* The timed engine's warm start (bgpsim.sim.engine.warm): a converged Loc-RIB installed in every
 * speaker as if every UPDATE that led to it had been sent, so a run starts from routing at rest. */
#include "timed.h"

static PyObject *keep; /* the Python face's _keep: what an AS that keeps its UPDATEs heard */

static PyObject *tuple_after(PyObject *head, PyObject *path) /* (head,) + path */
{
    Py_ssize_t len = PyTuple_GET_SIZE(path);
    PyObject *t = PyTuple_New(len + 1);
    if (t == NULL)
        return NULL;
    Py_INCREF(head);
    PyTuple_SET_ITEM(t, 0, head);
    for (Py_ssize_t k = 0; k < len; k++) {
        Py_INCREF(PyTuple_GET_ITEM(path, k));
        PyTuple_SET_ITEM(t, k + 1, PyTuple_GET_ITEM(path, k));
    }
    return t;
}

/* Every UPDATE AS i sends for prefix p at a warm start (bgpsim.sim.engine.warm) */
static int warm_sends(Speakers *S, int i, int p, PyObject *e, PyObject *out, PyObject *rib_in)
{
    PyObject *path = PyTuple_GET_ITEM(e, 2), *pol = PyList_GET_ITEM(S->policy, i);
    long first_hop = PyTuple_GET_SIZE(path) ? PyLong_AsLong(PyTuple_GET_ITEM(path, 0)) : -1;
    long rel = PyLong_AsLong(PyTuple_GET_ITEM(e, 1));
    for (int slot = S->off[i]; slot < S->off[i + 1]; slot++) /* what it had sent before: forgotten */
        speakers_out_put(S, p, slot, Py_None);
    const int starts[4] = {S->off[i], S->peers_at[i], S->providers_at[i], S->off[i + 1]};
    int err = 0;
    for (int g = 0; g < 3 && !err; g++) {
        int j_is = CUSTOMER + g, ok;
        if (pol == Py_None) {
            ok = rel <= CUSTOMER || j_is == CUSTOMER;
        } else {
            PyObject *x = PyObject_CallMethod(pol, "exports", "li", rel, j_is);
            ok = x == NULL ? -1 : PyObject_IsTrue(x);
            Py_XDECREF(x);
        }
        if (ok <= 0) {
            err = ok < 0;
            continue;
        }
        for (int slot = starts[g]; slot < starts[g + 1] && !err; slot++) {
            int j = S->nbr[slot], rel_at = S->rel_at[slot];
            if (j == first_hop || S->down[slot])
                continue;
            speakers_out_put(S, p, slot, out);
            PyObject *signed_ = Py_None;
            Py_INCREF(signed_);
            if (!NONE(S->crypto))
                Py_SETREF(signed_, PyObject_CallMethod(S->crypto, "outgoing", "OOOO", (PyObject *)S, S->ints[p],
                                                       S->ints[i], S->ints[j]));
            if (signed_ == NULL) {
                err = 1;
                break;
            }
            PyObject *x = Py_None;
            Py_INCREF(x);
            if (!NONE(S->tap))
                Py_SETREF(x, PyObject_CallMethod(S->tap, "sent", "diiiOO", 0.0, i, j, p, out, signed_));
            if (x != NULL && (S->flags[j] & F_HEARS))
                Py_SETREF(x, PyObject_CallMethodObjArgs((PyObject *)S, keep, S->ints[p], S->ints[i], S->ints[j],
                                                        out, S->ints[rel_at], signed_,
                                                        NULL));
            PyObject *entry = x == NULL ? NULL : speakers_judge(S, i, j, p, out, rel_at, signed_, S->back[slot]);
            Py_XDECREF(x);
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

PyObject *speakers_warm(Speakers *S, PyObject *args)
{
    int p;
    PyObject *given;
    if (S->off == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the speakers are not set up");
        return NULL;
    }
    if (keep == NULL && (keep = PyUnicode_InternFromString("_keep")) == NULL)
        return NULL;
    if (!PyArg_ParseTuple(args, "iO!:_warm", &p, &PyList_Type, &given))
        return NULL;
    if (p < 0 || p >= S->k) {
        PyErr_Format(PyExc_IndexError, "no prefix with index %d", p);
        return NULL;
    }
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
        } else if (!PyTuple_CheckExact(e) || PyTuple_GET_SIZE(e) != 3 || (a = tuple_after(S->ints[i], PyTuple_GET_ITEM(e, 2))) == NULL) {
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

