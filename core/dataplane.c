/* The timed run's data plane, one move of a next hop at a time (bgpsim.sim.dataplane.Forwarding.update),
 * on the Python lists the class keeps: each AS's next hop and outcome, the times it changed, its
 * in-tree (a set of the ASes forwarding to it), the counts and the running sum of diverted traffic.
 * The in-trees stay Python sets, walked through their iterator, so the ASes of a move change outcome
 * in the order the Python did (the journal's order, and the running sum's, are the run's outputs). */
#include "core.h"

#define ATTACKER 0  /* outcomes (bgpsim.sim.dataplane) */
#define VICTIM 1
#define DISCONNECTED 2
#define LOOP 3

enum { NH, OUTCOME, CHANGED_AT, ATTACKER_AT, CHILDREN, IS_SOURCE, WEIGHT, COUNTS, NOTES, K };

static int item_int(PyObject *list, Py_ssize_t k, Py_ssize_t *got)
{
    *got = PyLong_AsSsize_t(PyList_GET_ITEM(list, k));
    return *got == -1 && PyErr_Occurred() ? -1 : 0;
}

static int set_int(PyObject *list, Py_ssize_t k, Py_ssize_t v)
{
    PyObject *o = PyLong_FromSsize_t(v);
    return o ? PyList_SetItem(list, k, o) : -1;  /* steals o */
}

static int set_obj(PyObject *list, Py_ssize_t k, PyObject *o)
{
    Py_INCREF(o);
    return PyList_SetItem(list, k, o);
}

/* AS k (the int object `who`, shared with its in-tree set, as the Python shared it) takes outcome
 * `out`, if it had another */
static int take(PyObject *const *s, Py_ssize_t k, PyObject *who, Py_ssize_t out, PyObject *now, double *diverted)
{
    Py_ssize_t was;
    if (item_int(s[OUTCOME], k, &was) < 0)
        return -1;
    if (was == out)
        return 0;
    if (was < 0 || was > LOOP) {
        PyErr_Format(PyExc_ValueError, "dataplane_move: AS %zd has outcome %zd", k, was);
        return -1;
    }
    if (set_int(s[OUTCOME], k, out) < 0 || set_obj(s[CHANGED_AT], k, now) < 0)
        return -1;
    if (s[NOTES] != Py_None) {
        PyObject *note = Py_BuildValue("(OOn)", now, who, out);
        int rc = note ? PyList_Append(s[NOTES], note) : -1;
        Py_XDECREF(note);
        if (rc < 0)
            return -1;
    }
    if (out == ATTACKER && PyList_GET_ITEM(s[ATTACKER_AT], k) == Py_None && set_obj(s[ATTACKER_AT], k, now) < 0)
        return -1;
    int source = PyObject_IsTrue(PyList_GET_ITEM(s[IS_SOURCE], k));
    if (source <= 0)
        return source;
    Py_ssize_t c_was, c_out;
    if (item_int(s[COUNTS], was, &c_was) < 0 || set_int(s[COUNTS], was, c_was - 1) < 0 ||
        item_int(s[COUNTS], out, &c_out) < 0 || set_int(s[COUNTS], out, c_out + 1) < 0)
        return -1;
    if (was == ATTACKER || out == ATTACKER) {
        double w = PyFloat_AsDouble(PyList_GET_ITEM(s[WEIGHT], k));
        if (w == -1.0 && PyErr_Occurred())
            return -1;
        if (was == ATTACKER)
            *diverted -= w;
        if (out == ATTACKER)
            *diverted += w;
    }
    return 0;
}

/* dataplane_move(state, i, nh, now, diverted, attacker, victim) -> (moved, diverted): AS i's next hop
 * moves to nh. state: the lists (nh, outcome, changed_at, attacker_at, children, is_source, weight,
 * counts, notes or None: the journal's outcome changes, appended to). moved: -1 when nh was i's next
 * hop already, 0 when no outcome changed, 1 when some did. */
static PyObject *dataplane_move(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *state, *now;
    Py_ssize_t i, nh, attacker, victim;
    double diverted;
    if (!PyArg_ParseTuple(args, "O!nnO!dnn:dataplane_move", &PyTuple_Type, &state, &i, &nh, &PyFloat_Type, &now,
                          &diverted, &attacker, &victim))
        return NULL;
    if (PyTuple_GET_SIZE(state) != K)
        return PyErr_Format(PyExc_TypeError, "dataplane_move: want a state of %d lists", K);
    PyObject *const *s = &PyTuple_GET_ITEM(state, 0);
    Py_ssize_t n = PyList_Check(s[NH]) ? PyList_GET_SIZE(s[NH]) : -1;
    for (int k = 0; k < K; k++)
        if ((k != NOTES || s[k] != Py_None) && (!PyList_Check(s[k]) || (k != COUNTS && k != NOTES && PyList_GET_SIZE(s[k]) != n)
                                                || (k == COUNTS && PyList_GET_SIZE(s[k]) != LOOP + 1)))
            return PyErr_Format(PyExc_TypeError, "dataplane_move: state %d: want a list of one item per AS", k);
    if (i < 0 || i >= n || nh < -1 || nh >= n)
        return PyErr_Format(PyExc_ValueError, "dataplane_move: AS %zd, next hop %zd: want 0 to %zd", i, nh, n - 1);
    Py_ssize_t old;
    if (item_int(s[NH], i, &old) < 0)
        return NULL;
    if (old == nh)
        return Py_BuildValue("(nd)", (Py_ssize_t)-1, diverted);
    if (old < -1 || old >= n)
        return PyErr_Format(PyExc_ValueError, "dataplane_move: AS %zd had next hop %zd", i, old);
    if (set_int(s[NH], i, nh) < 0)
        return NULL;
    if (i == attacker || i == victim)
        return Py_BuildValue("(nd)", (Py_ssize_t)0, diverted);
    PyObject *me = PyLong_FromSsize_t(i);
    if (!me)
        return NULL;
    int rc = 0;
    if (old >= 0 && old != i)  /* i leaves its old next hop's in-tree, joins the new one's */
        rc = PySet_Discard(PyList_GET_ITEM(s[CHILDREN], old), me) < 0 ? -1 : 0;
    if (rc == 0 && nh >= 0 && nh != i) {
        PyObject *kids = PyList_GET_ITEM(s[CHILDREN], nh);
        if (kids == Py_None) {
            kids = PySet_New(NULL);
            rc = !kids || PySet_Add(kids, me) < 0 || PyList_SetItem(s[CHILDREN], nh, kids) < 0 ? -1 : 0;
        } else
            rc = PySet_Add(kids, me);
    }
    Py_DECREF(me);
    if (rc < 0)
        return NULL;
    /* i's outcome: its own, or the end of the walk from nh (a terminal, i itself: a loop, or round
     * another cycle: the ASes seen are marked once the walk is long, as cycles are rare) */
    Py_ssize_t out = nh < 0 ? DISCONNECTED : nh == i ? VICTIM : -1;
    uint8_t *seen = NULL;
    for (Py_ssize_t j = nh, steps = 0; out < 0; steps++) {
        Py_ssize_t k;
        if (j == attacker) {
            out = ATTACKER;
            break;
        }
        if (item_int(s[NH], j, &k) < 0 || k >= n) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "dataplane_move: AS %zd has next hop %zd", j, k);
            PyMem_Free(seen);
            return NULL;
        }
        if (j == victim || k == j)
            out = VICTIM;
        else if (k < 0)
            out = DISCONNECTED;
        else if (j == i)
            out = LOOP;
        else if (steps > 32) {
            if (!seen && !(seen = PyMem_Calloc((size_t)n, 1)))
                return PyErr_NoMemory();
            if (seen[j])
                out = LOOP;
            seen[j] = 1;
        }
        j = k;
    }
    PyMem_Free(seen);
    Py_ssize_t was;
    if (item_int(s[OUTCOME], i, &was) < 0)
        return NULL;
    if (out == was)
        return Py_BuildValue("(nd)", (Py_ssize_t)0, diverted);
    /* every AS of i's in-tree takes `out`, depth first as a stack of the sets' members: a tree, but
     * where i is on a cycle (LOOP), which leads back to i (visited, then). The stack holds each AS's
     * int object, borrowed from the set that holds it (no set changes meanwhile). */
    Py_ssize_t cap = 64, top = 0, pushed = 1;
    PyObject **stack = PyMem_Malloc((size_t)cap * sizeof *stack), *root = PyLong_FromSsize_t(i);
    uint8_t *visited = out == LOOP ? PyMem_Calloc((size_t)n, 1) : NULL;
    if (!stack || !root || (out == LOOP && !visited)) {
        PyMem_Free(stack), PyMem_Free(visited), Py_XDECREF(root);
        return PyErr_NoMemory();
    }
    stack[top++] = root;
    if (visited)
        visited[i] = 1;
    rc = 0;
    while (top && rc == 0) {
        PyObject *who = stack[--top];
        Py_ssize_t k = PyLong_AsSsize_t(who);
        if ((rc = take(s, k, who, out, now, &diverted)) < 0)
            break;
        PyObject *kids = PyList_GET_ITEM(s[CHILDREN], k), *it, *c;
        if (kids == Py_None || PySet_GET_SIZE(kids) == 0)
            continue;
        if (!(it = PyObject_GetIter(kids))) {
            rc = -1;
            break;
        }
        while ((c = PyIter_Next(it))) {
            Py_ssize_t x = PyLong_AsSsize_t(c);
            Py_DECREF(c);  /* the set keeps it alive */
            if (x < 0 || x >= n || ++pushed > n + 1) {  /* each AS is in one in-tree: met once */
                if (!PyErr_Occurred())
                    PyErr_Format(PyExc_ValueError, "dataplane_move: in-tree of AS %zd holds %zd", k, x);
                rc = -1;
                break;
            }
            if (visited) {
                if (visited[x])
                    continue;
                visited[x] = 1;
            }
            if (top == cap) {
                PyObject **more = PyMem_Realloc(stack, (size_t)(cap *= 2) * sizeof *stack);
                if (!more) {
                    PyErr_NoMemory();
                    rc = -1;
                    break;
                }
                stack = more;
            }
            stack[top++] = c;  /* borrowed: the set holds it */
        }
        Py_DECREF(it);
        if (rc == 0 && PyErr_Occurred())
            rc = -1;
    }
    PyMem_Free(stack), PyMem_Free(visited);
    Py_DECREF(root);
    if (rc < 0)
        return NULL;
    return Py_BuildValue("(nd)", (Py_ssize_t)1, diverted);
}

PyMethodDef dataplane_methods[] = {
    {"dataplane_move", dataplane_move, METH_VARARGS, "One move of a next hop in a timed run's data plane, in place."},
    {NULL, NULL, 0, NULL},
};
