/* EventQueue: the event core of the timed engine (bgpsim.sim.engine.events).
 *
 * A heap of events ordered by (time, sequence): the sequence number breaks ties between events
 * at the same time in the order they were scheduled, so every run with the same seed replays
 * identically. Python schedules calls (`at`); a registered owner (timed.c) schedules its own kinds,
 * which cost no Python call. */
#include "events.h"

#include <math.h>
#include <structmember.h>

static inline int before(const event *x, const event *y)
{
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

/* A 4-ary heap: half the levels of a binary one, each level's children in one or two cache lines. Any
   heap pops the same order: (time, sequence) is unique. */
static void sift_up(event *h, Py_ssize_t k)
{
    event e = h[k];
    while (k > 0) {
        Py_ssize_t up = (k - 1) / 4;
        if (!before(&e, &h[up]))
            break;
        h[k] = h[up];
        k = up;
    }
    h[k] = e;
}

static void sift_down(event *h, Py_ssize_t n, Py_ssize_t k)
{
    event e = h[k];
    for (;;) {
        Py_ssize_t c = 4 * k + 1, best = c;
        if (c >= n)
            break;
        Py_ssize_t end = c + 4 < n ? c + 4 : n;
        for (Py_ssize_t x = c + 1; x < end; x++)
            if (before(&h[x], &h[best]))
                best = x;
        if (!before(&h[best], &e))
            break;
        h[k] = h[best];
        k = best;
    }
    h[k] = e;
}

int event_queue_register(EventQueue *q, PyObject *owner, event_fn fn)
{
    if (q->handlers >= EVENT_HANDLERS) {
        PyErr_SetString(PyExc_RuntimeError, "an event queue takes at most 7 engines");
        return -1;
    }
    q->owner[q->handlers] = owner;
    q->fn[q->handlers] = fn;
    return q->handlers++;
}

void event_queue_unregister(EventQueue *q, int handler)
{
    if (handler > 0 && handler < q->handlers) {
        q->owner[handler] = NULL;
        q->fn[handler] = NULL;
    }
}

static inline Py_ssize_t pending(const EventQueue *q)
{
    return q->heap.len / (Py_ssize_t)sizeof(event);
}

int event_queue_push(EventQueue *q, double t, int handler, int32_t a, int32_t b, int32_t c, PyObject *o1,
                     PyObject *o2)
{
    if (t < q->now)
        t = q->now;
    COLUMN_PUT(&q->heap, event, ((event){t, ++q->seq, handler, a, b, c, o1, o2}));
    if (q->heap.failed) {
        PyErr_NoMemory();
        return -1;
    }
    Py_XINCREF(o1);
    Py_XINCREF(o2);
    sift_up((event *)q->heap.data, pending(q) - 1);
    return 0;
}

static int queue_init(EventQueue *q, PyObject *args, PyObject *kw)
{
    if (!PyArg_ParseTuple(args, ":EventQueue") || (kw != NULL && PyDict_GET_SIZE(kw))) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "EventQueue() takes no arguments");
        return -1;
    }
    q->handlers = 1; /* 0: Python calls */
    return 0;
}

static PyObject *queue_at(EventQueue *q, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 2) {
        PyErr_SetString(PyExc_TypeError, "at(time, action, *args)");
        return NULL;
    }
    double t = PyFloat_AsDouble(args[0]);
    if (t == -1.0 && PyErr_Occurred())
        return NULL;
    PyObject *rest = PyTuple_New(nargs - 2);
    if (rest == NULL)
        return NULL;
    for (Py_ssize_t k = 2; k < nargs; k++) {
        Py_INCREF(args[k]);
        PyTuple_SET_ITEM(rest, k - 2, args[k]);
    }
    int r = event_queue_push(q, t, 0, 0, 0, 0, args[1], rest);
    Py_DECREF(rest);
    if (r < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *queue_run(EventQueue *q, PyObject *args, PyObject *kw)
{
    static char *names[] = {"until", "tick", "tick_every", NULL};
    double until = INFINITY;
    PyObject *tick = Py_None;
    long tick_every = 20000;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|dOl:run", names, &until, &tick, &tick_every))
        return NULL;
    if (tick_every < 1)
        tick_every = 1;
    long countdown = tick_every;
    event *h;
    Py_ssize_t n;
    while ((n = pending(q)) > 0 && (h = (event *)q->heap.data)[0].t <= until) {
        event e = h[0];
        h[0] = h[--n];
        q->heap.len -= (Py_ssize_t)sizeof(event);
        if (n > 0)
            sift_down(h, n, 0);
        q->now = e.t;
        int failed;
        if (e.handler == 0) {
            PyObject *r = PyObject_Call(e.o1, e.o2, NULL);
            failed = r == NULL;
            Py_XDECREF(r);
        } else if (q->fn[e.handler] != NULL) {
            failed = q->fn[e.handler](q->owner[e.handler], &e) < 0;
        } else {
            failed = 0; /* its owner is gone */
        }
        Py_XDECREF(e.o1);
        Py_XDECREF(e.o2);
        if (failed)
            return NULL;
        q->processed++;
        if (tick != Py_None && --countdown == 0) {
            countdown = tick_every;
            PyObject *r = PyObject_CallFunction(tick, "Ld", q->processed, e.t);
            if (r == NULL)
                return NULL;
            Py_DECREF(r);
        }
    }
    Py_RETURN_NONE;
}

static Py_ssize_t queue_len(EventQueue *q)
{
    return pending(q);
}

static int queue_traverse(EventQueue *q, visitproc visit, void *arg)
{
    event *h = (event *)q->heap.data;
    for (Py_ssize_t k = 0; k < pending(q); k++) {
        Py_VISIT(h[k].o1);
        Py_VISIT(h[k].o2);
    }
    return 0;
}

static int queue_clear(EventQueue *q)
{
    event *h = (event *)q->heap.data;
    Py_ssize_t n = pending(q);
    q->heap.len = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_CLEAR(h[k].o1);
        Py_CLEAR(h[k].o2);
    }
    return 0;
}

static void queue_dealloc(EventQueue *q)
{
    PyObject_GC_UnTrack(q);
    queue_clear(q);
    column_free(&q->heap);
    Py_TYPE(q)->tp_free((PyObject *)q);
}

static PyMethodDef queue_methods[] = {
    {"at", (PyCFunction)(void (*)(void))queue_at, METH_FASTCALL,
     "at(time, action, *args): run action(*args) at simulated time (never before now)"},
    {"run", (PyCFunction)(void (*)(void))queue_run, METH_VARARGS | METH_KEYWORDS,
     "run(until=inf, tick=None, tick_every=20000): process events in time order until the queue empties or "
     "the next is after `until`; tick(processed, now) every tick_every events (progress bars)"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef queue_members[] = {
    {"now", T_DOUBLE, offsetof(EventQueue, now), 0, "the simulated time of the event being handled"},
    {"processed", T_LONGLONG, offsetof(EventQueue, processed), READONLY, "events handled so far"},
    {NULL, 0, 0, 0, NULL},
};

static PySequenceMethods queue_sequence = {.sq_length = (lenfunc)queue_len};

PyTypeObject EventQueueType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bgpsim._core.EventQueue",
    .tp_basicsize = sizeof(EventQueue),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "EventQueue(): a priority queue of (time, sequence, event); ties run in the order scheduled",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)queue_init,
    .tp_dealloc = (destructor)queue_dealloc,
    .tp_traverse = (traverseproc)queue_traverse,
    .tp_clear = (inquiry)queue_clear,
    .tp_methods = queue_methods,
    .tp_members = queue_members,
    .tp_as_sequence = &queue_sequence,
};

int event_queue_add_type(PyObject *module)
{
    if (PyType_Ready(&EventQueueType) < 0)
        return -1;
    Py_INCREF(&EventQueueType);
    if (PyModule_AddObject(module, "EventQueue", (PyObject *)&EventQueueType) < 0) {
        Py_DECREF(&EventQueueType);
        return -1;
    }
    return 0;
}
