/* EventQueue (events.c): the timed engine's event core, a heap of (time, sequence, event).
 *
 * An event is either a Python call (handler 0: o1(*o2)) or one of a registered owner's own kinds,
 * which the owner's C function handles without Python (timed.c's UPDATEs and MRAI expiries). The
 * protocol lives with the owner; the queue only orders events. */
#ifndef BGPSIM_EVENTS_H
#define BGPSIM_EVENTS_H

#include "core.h"

typedef struct {
    double t;
    uint64_t seq;
    int32_t handler, a, b, c;
    PyObject *o1, *o2; /* owned references, or NULL */
} event;

/* An owner's handler: -1 with a Python exception set. */
typedef int (*event_fn)(PyObject *owner, event *ev);

#define EVENT_HANDLERS 8

typedef struct {
    PyObject_HEAD
    column heap; /* the events, a 4-ary heap */
    uint64_t seq;
    double now;
    long long processed;
    int handlers;
    PyObject *owner[EVENT_HANDLERS]; /* borrowed: an owner holds its queue and leaves it when it goes */
    event_fn fn[EVENT_HANDLERS];
} EventQueue;

extern PyTypeObject EventQueueType;
int event_queue_register(EventQueue *q, PyObject *owner, event_fn fn); /* the handler's number; -1 */
void event_queue_unregister(EventQueue *q, int handler); /* the owner goes: its events are dropped */
/* Schedule at t (never before now); o1 and o2 are new references taken by the queue. -1: no memory. */
int event_queue_push(EventQueue *q, double t, int handler, int32_t a, int32_t b, int32_t c, PyObject *o1,
                     PyObject *o2);
int event_queue_add_type(PyObject *module);

#endif
