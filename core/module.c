/* bgpsim._core: the compiled core of bgpsim's route data and of the converged-state solver (docs/core.md). Each part of it is a file
 * of its own with its table of functions; this joins them into one module. */
#include "core.h"
#include "aspath.h"
#include "bgptext.h"
#include "events.h"
#include "mrt.h"
#include "pathtable.h"
#include "rislive.h"
#include "timed.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

static PyMethodDef methods[64];

/* glibc's malloc told to keep freed blocks for the next ones: by default a block of 128 KiB or more
 * (a batch's columns, a routes.csv text) is mapped afresh and unmapped when freed, so every batch
 * faults its pages in again, and each unmapping interrupts the process's other threads. And one
 * arena for every thread: a block freed by one thread (a batch read on one, checked on another) is
 * there for the next allocation of any (a tenth less memory touched on `validate`). Call it before
 * the threads start. False where the C library is not glibc (nothing done). */
static PyObject *hold_freed_memory(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
#ifdef __GLIBC__
    if (mallopt(M_MMAP_THRESHOLD, 32 << 20) && mallopt(M_TRIM_THRESHOLD, 512 << 20) && mallopt(M_ARENA_MAX, 1))
        Py_RETURN_TRUE;
#endif
    Py_RETURN_FALSE;
}

static PyMethodDef module_methods[] = {
    {"hold_freed_memory", hold_freed_memory, METH_NOARGS,
     "hold_freed_memory() -> bool: freed memory kept for reuse (glibc: blocks under 32 MiB taken from the heap, "
     "up to 512 MiB of free heap kept, one arena for every thread); for a long pass that frees and makes large "
     "blocks batch after batch, called before its threads start."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "bgpsim._core",
    .m_doc = "The compiled core of bgpsim's route data readers and writers, the converged-state solver's sweeps and the timed engine's speakers.",
    .m_size = -1,
    .m_methods = methods,
};

static void join(PyMethodDef *part, int *n)
{
    for (; part->ml_name != NULL; part++)
        methods[(*n)++] = *part;
}

PyMODINIT_FUNC PyInit__core(void)
{
    int n = 0;
    join(vrps_methods, &n);
    join(rows_methods, &n);
    join(rov_methods, &n);
    join(rov_reasons_methods, &n);
    join(rov_index_methods, &n);
    join(bgptext_methods, &n);
    join(conflicts_methods, &n);
    join(bzip2_methods, &n);
    join(rtr_methods, &n);
    join(steady_methods, &n);
    join(steady_trace_methods, &n);
    join(dataplane_methods, &n);
    join(cones_methods, &n);
    join(moments_methods, &n);
    join(module_methods, &n);
    methods[n] = (PyMethodDef){NULL, NULL, 0, NULL};
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && (mrt_add_types(m) < 0 || path_table_add_type(m) < 0 || ris_reader_add_type(m) < 0 ||
                      event_queue_add_type(m) < 0 || speakers_add_type(m) < 0))
        Py_CLEAR(m);
    return m;
}
