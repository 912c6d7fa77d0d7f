/* The moments of a large run's step view (bgpsim.viz.steps): the journal's outcome changes applied
 * moment by moment, and after each moment the ASes per (tier, outcome), the traffic each tier sends
 * to the attacker and the outcome of the largest transit ASes. The traffic is summed again, in AS
 * index order as numpy's bincount sums it, only after a moment in which some AS moved to or from the
 * attacker (outcome 0): the same floats as the Python it replaces. */
#include "core.h"
#include "rov.h" /* release() */

enum { WHO, WHAT, ENDS, TIER, WEIGHT, OUT, TOP, COUNTS, TRAFFIC, FRESH, TOP_OUT, K };

/* journal_moments(who, what, ends, tier, weight, out, top, outcomes, counts, traffic, fresh, top_out):
 * events k < ends[m] (who: int64 AS, what: int8 outcome below `outcomes`) make moment m; tier (int8,
 * 0-2), weight (float64) and out (int8, the outcomes at the start, left at the end) per AS; top
 * (int64) the ASes whose outcome each moment records. Filled per moment: counts (int64, the ASes
 * per tier and outcome), traffic (float64, 3), fresh (uint8: 1 where the traffic was summed again)
 * and top_out (int8). */
static PyObject *journal_moments(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[K];
    Py_ssize_t outcomes;
    if (!PyArg_ParseTuple(args, "OOOOOOOnOOOO:journal_moments", &o[WHO], &o[WHAT], &o[ENDS], &o[TIER], &o[WEIGHT],
                          &o[OUT], &o[TOP], &outcomes, &o[COUNTS], &o[TRAFFIC], &o[FRESH], &o[TOP_OUT]))
        return NULL;
    static const char *const name[K] = {"who", "what", "ends", "tier", "weight", "out", "top", "counts", "traffic",
                                        "fresh", "top_out"};
    Py_ssize_t len[K];
    for (int i = 0; i < K; i++)
        if ((len[i] = PyObject_Length(o[i])) < 0)
            return NULL;
    Py_ssize_t events = len[WHO], moments = len[ENDS], n = len[TIER], ntop = len[TOP], cells = 3 * outcomes;
    if (outcomes < 1 || outcomes > 127)
        return PyErr_Format(PyExc_ValueError, "journal_moments: %zd outcomes, want 1 to 127", outcomes);
    Py_ssize_t size[K] = {8, 1, 8, 1, 8, 1, 8, 8, 8, 1, 1};
    Py_ssize_t count[K] = {events, events, moments, n, n, n, ntop, moments * cells, moments * 3, moments, moments * ntop};
    Py_buffer v[K];
    int got = 0;
    for (; got < K; got++)
        if (array_view(o[got], &v[got], size[got], count[got], name[got]) < 0)
            goto fail;
    const int64_t *who = v[WHO].buf, *ends = v[ENDS].buf, *top = v[TOP].buf;
    const int8_t *what = v[WHAT].buf, *tier = v[TIER].buf;
    const double *weight = v[WEIGHT].buf;
    int8_t *out = v[OUT].buf, *top_out = v[TOP_OUT].buf;
    int64_t *counts = v[COUNTS].buf;
    double *traffic = v[TRAFFIC].buf;
    uint8_t *fresh = v[FRESH].buf;
    for (Py_ssize_t i = 0; i < n; i++)
        if (tier[i] < 0 || tier[i] > 2 || out[i] < 0 || out[i] >= outcomes) {
            PyErr_Format(PyExc_ValueError, "journal_moments: AS %zd: tier %d or outcome %d out of range", i, tier[i], out[i]);
            goto fail;
        }
    for (Py_ssize_t k = 0; k < events; k++)
        if (who[k] < 0 || who[k] >= n || what[k] < 0 || what[k] >= outcomes) {
            PyErr_Format(PyExc_ValueError, "journal_moments: event %zd: AS %lld or outcome %d out of range", k,
                         (long long)who[k], what[k]);
            goto fail;
        }
    for (Py_ssize_t m = 0; m < moments; m++)
        if (ends[m] < (m ? ends[m - 1] : 0) || ends[m] > events) {
            PyErr_Format(PyExc_ValueError, "journal_moments: moment %zd ends at event %lld: want ascending ends up to %zd",
                         m, (long long)ends[m], events);
            goto fail;
        }
    for (Py_ssize_t j = 0; j < ntop; j++)
        if (top[j] < 0 || top[j] >= n) {
            PyErr_Format(PyExc_ValueError, "journal_moments: top AS %lld out of range", (long long)top[j]);
            goto fail;
        }
    /* per AS: the moment (plus one) it last changed in, and its outcome before that moment; now: the
     * ASes per (tier, outcome), kept up to date */
    int64_t *stamp = calloc((size_t)n + 1, sizeof *stamp), *now = calloc((size_t)cells, sizeof *now);
    int8_t *before = malloc((size_t)n + 1);
    if (!stamp || !now || !before) {
        free(stamp), free(now), free(before);
        PyErr_NoMemory();
        goto fail;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++)
        now[tier[i] * outcomes + out[i]]++;
    Py_ssize_t e = 0;
    for (Py_ssize_t m = 0; m < moments; m++) {
        int moved = 0;
        for (; e < ends[m]; e++) {
            int64_t i = who[e];
            if (stamp[i] != m + 1)
                stamp[i] = m + 1, before[i] = out[i];
            now[tier[i] * outcomes + out[i]]--;
            now[tier[i] * outcomes + what[e]]++;
            out[i] = what[e];
        }
        for (Py_ssize_t k = m ? ends[m - 1] : 0; k < ends[m] && !moved; k++)
            moved = (before[who[k]] == 0) != (out[who[k]] == 0);
        double *w = traffic + 3 * m;
        if (moved || m == 0) {
            w[0] = w[1] = w[2] = 0.0;
            for (Py_ssize_t i = 0; i < n; i++)
                if (out[i] == 0)
                    w[tier[i]] += weight[i];
            fresh[m] = 1;
        } else {
            w[0] = w[-3], w[1] = w[-2], w[2] = w[-1];
            fresh[m] = 0;
        }
        memcpy(counts + cells * m, now, (size_t)cells * sizeof *now);
        for (Py_ssize_t j = 0; j < ntop; j++)
            top_out[ntop * m + j] = out[top[j]];
    }
    Py_END_ALLOW_THREADS
    free(stamp), free(now), free(before);
    release(v, got);
    Py_RETURN_NONE;
fail:
    release(v, got);
    return NULL;
}

PyMethodDef moments_methods[] = {
    {"journal_moments", journal_moments, METH_VARARGS, "A large run's step view, moment by moment, from its journal."},
    {NULL, NULL, 0, NULL},
};
