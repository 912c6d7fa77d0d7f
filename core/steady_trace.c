/* The converged-state solver's walks over one prefix's routes (bgpsim.sim.trial, bgpsim.sim.destinations):
 * where each AS's packets go (steady_trace), and how many ASes route through each AS (steady_descendants).
 * The routes come from core/steady.c's sweeps, or the solver's array path; every index is checked before it
 * is used. */
#include "core.h"
#include "rov.h"  /* release() */

#define NONE 9          /* relationship class of an AS without a route (bgpsim.sim.engine.steady.NONE) */
#define DISCONNECTED 2  /* outcomes (bgpsim.sim.dataplane) */
#define LOOP 3

/* The seed of x's route, an index into role (-1, no route, is the last seed's, as for an unrouted hop),
   or -1 when out of range or missing from an AS with a route */
static inline Py_ssize_t seed_of(const int64_t *seed, const int8_t *rel, Py_ssize_t nseeds, int64_t x)
{
    int64_t s = seed[x];
    if (s < -1 || s >= nseeds || (s == -1 && rel[x] != NONE))
        return -1;
    return s < 0 ? s + nseeds : s;
}

/* The walks of steady_trace, a hop at a time for all of them, as bgpsim.sim.trial.trace words it; each
   next hop and seed checked as it is read. Returns -1, or an AS whose next hop or seed is out of range. */
static int64_t walk(int8_t *out, const int8_t *rel, const int64_t *nh, const int64_t *seed, const int8_t *role,
                    Py_ssize_t n, Py_ssize_t nseeds, int64_t *xs, int64_t *cur, int8_t *tmp, Py_ssize_t m, int max_hops)
{
    for (Py_ssize_t j = 0; j < m; j++)
        if ((cur[j] = nh[xs[j]]) < -1 || cur[j] >= n)
            return xs[j];
    for (int step = 0; step <= max_hops; step++) {
        Py_ssize_t k = 0;
        for (Py_ssize_t j = 0; j < m; j++)  /* x is an origin of this prefix */
            if (cur[j] < 0) {
                Py_ssize_t s = seed_of(seed, rel, nseeds, xs[j]);
                if (s < 0)
                    return xs[j];
                out[xs[j]] = role[s];
            } else
                xs[k] = xs[j], cur[k++] = cur[j];
        if (!(m = k))
            return -1;
        for (Py_ssize_t j = 0; j < m; j++)  /* the hops' outcomes, as the step before left them */
            tmp[j] = out[cur[j]];
        k = 0;
        for (Py_ssize_t j = 0; j < m; j++)
            if (tmp[j] >= 0)
                out[xs[j]] = tmp[j];
            else
                xs[k] = xs[j], cur[k++] = cur[j];
        m = k, k = 0;
        for (Py_ssize_t j = 0; j < m; j++) {  /* the hop originates this prefix */
            int64_t h = nh[cur[j]];
            if (h < -1 || h >= n)
                return cur[j];
            if (h < 0) {
                Py_ssize_t s = seed_of(seed, rel, nseeds, cur[j]);
                if (s < 0)
                    return cur[j];
                out[xs[j]] = role[s];
            } else
                xs[k] = xs[j], cur[k++] = h;
        }
        m = k;
    }
    for (Py_ssize_t j = 0; j < m; j++)
        out[xs[j]] = LOOP;
    return -1;
}

/* steady_trace(out, rel, nh, seed, role, seed_at, hole, first, max_hops, attacker, victim): where the
 * packets of every AS still without an outcome (out < 0, int8) go on one prefix's routes (rel, nh,
 * seed of bgpsim.sim.engine.steady.Ribs): along next hops until a hop with an outcome, or the
 * route's origin (the role of its seed, int8 per seed; seed_at: each seed's AS); LOOP after max_hops
 * hops (bgpsim.sim.trial.trace). hole: None, or ROV++'s blackholes (int8), where traffic stops;
 * first: the most specific prefix, where every AS takes its route's origin's role unless some next
 * hop is the attacker or the victim without announcing the route. */
static PyObject *steady_trace(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[6], *hole_o;
    int first, max_hops;
    long long attacker, victim;
    if (!PyArg_ParseTuple(args, "OOOOOOOpiLL:steady_trace", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &hole_o,
                          &first, &max_hops, &attacker, &victim))
        return NULL;
    Py_ssize_t n = PyObject_Length(o[0]), nseeds = PyObject_Length(o[4]);
    if (n < 0 || nseeds < 0)
        return NULL;
    static const char *const name[6] = {"out", "rel", "nh", "seed", "role", "seed_at"};
    Py_ssize_t size[6] = {1, 1, 8, 8, 1, 8}, count[6] = {n, n, n, n, nseeds, nseeds};
    Py_buffer v[7];
    int got = 0;
    for (; got < 6; got++)
        if (array_view(o[got], &v[got], size[got], count[got], name[got]) < 0)
            goto fail;
    const int8_t *hole = NULL;
    if (hole_o != Py_None) {
        if (array_view(hole_o, &v[got], 1, n, "hole") < 0)
            goto fail;
        hole = v[got++].buf;
    }
    int8_t *out = v[0].buf;
    const int8_t *rel = v[1].buf, *role = v[4].buf;
    const int64_t *nh = v[2].buf, *seed = v[3].buf, *seed_at = v[5].buf;
    if (nseeds == 0)
        goto done;
    /* whether some AS's next hop is the attacker or the victim on a route of another seed; each next hop
       and seed is checked where it is used as an index (checking every one, every call, was a third of
       the walks' time) */
    int through = 0;
    int64_t bad = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t h = nh[i];
        if ((h == attacker) | (h == victim)) {  /* no branch on h < 0, which a random tenth of ASes are */
            Py_ssize_t s = seed_of(seed, rel, nseeds, i);
            if (s < 0) {
                bad = i;
                goto report;
            }
            through |= h != seed_at[s];
        }
    }
    if (hole)  /* blackholes stop traffic */
        for (Py_ssize_t i = 0; i < n; i++)
            if (out[i] < 0 && hole[i] > 0)
                out[i] = DISCONNECTED;
    if (first && !through && !hole) {  /* every hop takes this prefix too: the route's announcer it is */
        int missing = 0;  /* branches only on what never happens: an AS with a route, no seed */
        for (Py_ssize_t i = 0; i < n; i++) {
            int8_t o = out[i];
            int64_t s = seed[i];
            int take = (o < 0) & (rel[i] != NONE), ok = (uint64_t)s < (uint64_t)nseeds;
            missing |= take & !ok;
            out[i] = take & ok ? role[ok ? s : 0] : o;
        }
        if (missing)
            for (Py_ssize_t i = 0; i < n && bad < 0; i++)
                if (out[i] < 0 && rel[i] != NONE && (uint64_t)seed[i] >= (uint64_t)nseeds)
                    bad = i;
        if (bad >= 0)
            goto report;
        goto done;
    }
    int64_t *xs = malloc((size_t)n * sizeof *xs), *cur = malloc((size_t)n * sizeof *cur);
    int8_t *tmp = malloc((size_t)n);
    if (!xs || !cur || !tmp) {
        free(xs), free(cur), free(tmp);
        PyErr_NoMemory();
        goto fail;
    }
    Py_ssize_t m = 0;  /* the ASes to walk, found without a branch */
    for (Py_ssize_t i = 0; i < n; i++) {
        xs[m] = i;
        m += (out[i] < 0) & (rel[i] != NONE);
    }
    bad = m ? walk(out, rel, nh, seed, role, n, nseeds, xs, cur, tmp, m, max_hops) : -1;
    free(xs), free(cur), free(tmp);
    if (bad < 0)
        goto done;
report:
    PyErr_Format(PyExc_ValueError, "steady_trace: AS %lld: next hop %lld or seed %lld out of range", (long long)bad,
                 (long long)nh[bad], (long long)seed[bad]);
    goto fail;
done:
    release(v, got);
    Py_RETURN_NONE;
fail:
    release(v, got);
    return NULL;
}

/* steady_descendants(nh, length, origin, desc): for every AS, how many other ASes route through it
 * toward one origin (desc, int64, filled; 0 for the origin itself). The next hops of a converged
 * state form a tree rooted at the origin, each learned route one AS longer than its next hop's: each
 * routed AS counts once at its next hop, then the ASes, longest route first, add what they gathered
 * to their next hops (bgpsim.sim.destinations' transit centrality). */
static PyObject *steady_descendants(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[3];
    Py_ssize_t origin;
    if (!PyArg_ParseTuple(args, "OOnO:steady_descendants", &o[0], &o[1], &origin, &o[2]))
        return NULL;
    Py_ssize_t n = PyObject_Length(o[0]);
    if (n < 0)
        return NULL;
    static const char *const name[3] = {"nh", "length", "desc"};
    Py_buffer v[3];
    int got = 0;
    for (; got < 3; got++)
        if (array_view(o[got], &v[got], 8, n, name[got]) < 0)
            goto fail;
    const int64_t *nh = v[0].buf, *length = v[1].buf;
    int64_t *desc = v[2].buf, longest = 0;
    if (origin < 0 || origin >= n) {
        PyErr_Format(PyExc_ValueError, "steady_descendants: origin %zd: want 0 to %zd", origin, n - 1);
        goto fail;
    }
    memset(desc, 0, (size_t)n * sizeof *desc);
    for (Py_ssize_t i = 0; i < n; i++) {  /* checked, and each routed AS counted at its next hop */
        if (nh[i] < -1 || nh[i] >= n || length[i] < 0 || length[i] > n + 1) {
            PyErr_Format(PyExc_ValueError, "steady_descendants: AS %zd: next hop %lld or length %lld out of range", i,
                         (long long)nh[i], (long long)length[i]);
            goto fail;
        }
        if (nh[i] >= 0)
            desc[nh[i]]++;
        if (length[i] > longest)
            longest = length[i];
    }
    /* the parents (ASes others route through, themselves with a next hop), by the length of their
     * routes: a counting sort; they are few */
    Py_ssize_t *start = calloc((size_t)longest + 2, sizeof *start), *by = malloc((size_t)n * sizeof *by);
    if (!start || !by) {
        free(start), free(by);
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (desc[i] && length[i] >= 2 && nh[i] >= 0)
            start[length[i] + 1]++;
    for (int64_t l = 0; l <= longest; l++)
        start[l + 1] += start[l];
    for (Py_ssize_t i = 0; i < n; i++)
        if (desc[i] && length[i] >= 2 && nh[i] >= 0)
            by[start[length[i]]++] = i;  /* start[l] ends as the end of length l */
    for (Py_ssize_t k = start[longest] - 1; k >= 0; k--) {  /* longest first */
        Py_ssize_t x = by[k];
        desc[nh[x]] += desc[x];
    }
    desc[origin] = 0;
    free(start), free(by);
    release(v, got);
    Py_RETURN_NONE;
fail:
    release(v, got);
    return NULL;
}

PyMethodDef steady_trace_methods[] = {
    {"steady_trace", steady_trace, METH_VARARGS, "Where every AS's packets go on one prefix's routes, in place."},
    {"steady_descendants", steady_descendants, METH_VARARGS, "How many ASes route through each AS toward one origin."},
    {NULL, NULL, 0, NULL},
};
