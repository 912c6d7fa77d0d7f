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

static PyMethodDef methods[64];

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
    methods[n] = (PyMethodDef){NULL, NULL, 0, NULL};
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && (mrt_add_types(m) < 0 || path_table_add_type(m) < 0 || ris_reader_add_type(m) < 0 ||
                      event_queue_add_type(m) < 0 || speakers_add_type(m) < 0))
        Py_CLEAR(m);
    return m;
}
