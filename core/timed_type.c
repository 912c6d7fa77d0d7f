/* Speakers as a Python type: its sessions set up from the graph's arrays, and the steps Python's
 * TimedEngine takes itself (announcements, links, LOCAL_PREF, prepending, new VRPs); the warm start
 * is timed_warm.c. */
#include "timed.h"

#include <math.h>
#include <structmember.h>

static int slot_of(Speakers *S, int r, int j) /* r's session with j, or -1 */
{
    if (r < 0 || r >= S->n)
        return -1;
    const int starts[4] = {S->off[r], S->peers_at[r], S->providers_at[r], S->off[r + 1]};
    for (int g = 0; g < 3; g++) {
        int lo = starts[g], hi = starts[g + 1];
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (S->nbr[mid] < j)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < starts[g + 1] && S->nbr[lo] == j)
            return lo;
    }
    return -1;
}

static int checked_as(Speakers *S, long i)
{
    if (i < 0 || i >= S->n) {
        PyErr_Format(PyExc_IndexError, "no AS with index %ld", i);
        return -1;
    }
    return 0;
}

static int checked_prefix(Speakers *S, long p)
{
    if (p < 0 || p >= S->k) {
        PyErr_Format(PyExc_IndexError, "no prefix with index %ld", p);
        return -1;
    }
    return 0;
}

static void *sized(Py_buffer *b, Py_ssize_t count, Py_ssize_t item, const char *what)
{
    if (b->len != count * item) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, wanted %zd", what, b->len, count * item);
        return NULL;
    }
    return b->buf;
}

static PyObject *rows(int k, int n) /* k lists of n Nones */
{
    PyObject *t = PyList_New(k);
    for (int p = 0; t != NULL && p < k; p++) {
        PyObject *row = PyList_New(n);
        if (row == NULL) {
            Py_CLEAR(t);
            break;
        }
        for (int i = 0; i < n; i++) {
            Py_INCREF(Py_None);
            PyList_SET_ITEM(row, i, Py_None);
        }
        PyList_SET_ITEM(t, p, row);
    }
    return t;
}

static PyObject *sp_setup(Speakers *S, PyObject *args)
{
    PyObject *q, *policy, *random;
    int k;
    Py_buffer off, peers_at, providers_at, nbr, delay;
    double mrai, lo, hi, pa, pb;
    int mw, pk;
    long long hole_kept, hole_told;
    if (S->off != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the speakers are set up already");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O!iy*y*y*y*y*O!Odddpiddll:_setup", &EventQueueType, &q, &k, &off, &peers_at,
                          &providers_at, &nbr, &delay, &PyList_Type, &policy, &random, &mrai, &lo, &hi, &mw,
                          &pk, &pa, &pb, &hole_kept, &hole_told))
        return NULL;
    PyObject *result = NULL;
    int n = (int)(peers_at.len / 4), slots = (int)(nbr.len / 4);
    int32_t *o = sized(&off, n + 1, 4, "off"), *pe = sized(&peers_at, n, 4, "peers_at"),
            *pr = sized(&providers_at, n, 4, "providers_at"), *nb = sized(&nbr, slots, 4, "nbr");
    double *de = sized(&delay, slots, 8, "delay");
    if (o == NULL || pe == NULL || pr == NULL || nb == NULL || de == NULL)
        goto done;
    if (PyList_GET_SIZE(policy) != n || k < 0 || o[0] != 0 || o[n] != slots) {
        PyErr_SetString(PyExc_ValueError, "the sessions do not match the ASes");
        goto done;
    }
    for (int i = 0; i < n; i++)
        if (!(o[i] <= pe[i] && pe[i] <= pr[i] && pr[i] <= o[i + 1])) {
            PyErr_Format(PyExc_ValueError, "the sessions of AS index %d are out of order", i);
            goto done;
        }
    for (int s = 0; s < slots; s++)
        if (nb[s] < 0 || nb[s] >= n) {
            PyErr_Format(PyExc_ValueError, "session %d: no AS with index %d", s, nb[s]);
            goto done;
        }
    S->n = n;
    S->k = k;
    S->slots = slots;
    int m = n > k ? n : k;
    m = m > PROVIDER + 1 ? m : PROVIDER + 1; /* the relationship classes too */
    S->nints = m;
    S->off = PyMem_Calloc((size_t)n + 1, 4);
    S->peers_at = PyMem_Calloc((size_t)n + 1, 4);
    S->providers_at = PyMem_Calloc((size_t)n + 1, 4);
    S->nbr = PyMem_Calloc((size_t)slots + 1, 4);
    S->owner = PyMem_Calloc((size_t)slots + 1, 4);
    S->back = PyMem_Calloc((size_t)slots + 1, 4);
    S->rel_at = PyMem_Calloc((size_t)slots + 1, 1);
    S->nbr_is = PyMem_Calloc((size_t)slots + 1, 1);
    S->delay = PyMem_Calloc((size_t)slots + 1, 8);
    S->mrai_until = PyMem_Calloc((size_t)slots + 1, 8);
    S->rank = PyMem_Calloc((size_t)slots + 1, 8);
    S->prepend = PyMem_Calloc((size_t)slots + 1, 4);
    S->down = PyMem_Calloc((size_t)slots + 1, 1);
    S->held = PyMem_Calloc((size_t)slots + 1, sizeof(held_prefixes));
    S->busy = PyMem_Calloc((size_t)n + 1, 8);
    S->flags = PyMem_Calloc((size_t)n + 1, 1);
    S->judged = PyMem_Calloc(((size_t)n + 1) * (PROVIDER + 1), sizeof(judged));
    S->ints = PyMem_Calloc((size_t)m + 1, sizeof(PyObject *));
    if (!S->off || !S->peers_at || !S->providers_at || !S->nbr || !S->owner || !S->back || !S->rel_at ||
        !S->nbr_is || !S->delay || !S->mrai_until || !S->rank || !S->prepend || !S->down || !S->held || !S->busy ||
        !S->flags || !S->judged || !S->ints) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(S->off, o, ((size_t)n + 1) * 4);
    memcpy(S->peers_at, pe, (size_t)n * 4);
    memcpy(S->providers_at, pr, (size_t)n * 4);
    memcpy(S->nbr, nb, (size_t)slots * 4);
    memcpy(S->delay, de, (size_t)slots * 8);
    for (int i = 0; i < m; i++)
        if ((S->ints[i] = PyLong_FromLong(i)) == NULL)
            goto done;
    for (int i = 0; i < n; i++)
        for (int s = o[i]; s < o[i + 1]; s++) {
            int g = s < pe[i] ? 0 : s < pr[i] ? 1 : 2; /* customers, peers, providers */
            S->owner[s] = i;
            S->nbr_is[s] = (int8_t)(CUSTOMER + g);
            S->rel_at[s] = (int8_t)(PROVIDER - g); /* a customer learns our routes from its provider */
            S->mrai_until[s] = -1.0;
            S->rank[s] = NAN;
        }
    for (int s = 0; s < slots; s++) {
        int b = slot_of(S, S->nbr[s], S->owner[s]);
        if (b < 0) {
            PyErr_Format(PyExc_ValueError, "the session of AS index %d with %d has no way back", S->owner[s], S->nbr[s]);
            goto done;
        }
        S->back[s] = b;
    }
    S->q = (EventQueue *)q;
    Py_INCREF(q);
    if ((S->handler = event_queue_register(S->q, (PyObject *)S, speakers_event)) < 0)
        goto done;
    Py_INCREF(policy);
    Py_XSETREF(S->policy, policy);
    Py_INCREF(random);
    Py_XSETREF(S->random, random);
    if ((S->loc = rows(k, n)) == NULL || (S->adv = rows(k, n)) == NULL || (S->rib_in = rows(k, n)) == NULL)
        goto done;
    if ((S->out = PyMem_Calloc((size_t)k + 1, sizeof(adj_rib_out))) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    S->mrai = mrai;
    S->jitter_lo = lo;
    S->jitter_hi = hi;
    S->mrai_withdrawals = mw;
    S->proc_kind = pk;
    S->proc_a = pa;
    S->proc_b = pb;
    S->hole_kept = hole_kept;
    S->hole_told = hole_told;
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&off);
    PyBuffer_Release(&peers_at);
    PyBuffer_Release(&providers_at);
    PyBuffer_Release(&nbr);
    PyBuffer_Release(&delay);
    return result;
}

#define READY(S) do { if ((S)->off == NULL) { PyErr_SetString(PyExc_RuntimeError, "the speakers are not set up"); return NULL; } } while (0)

static PyObject *done(int err)
{
    if (err < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *sp_take(Speakers *S, PyObject *args)
{
    int s, r, p;
    PyObject *entry;
    READY(S);
    if (!PyArg_ParseTuple(args, "iiiO:_take", &s, &r, &p, &entry) || checked_as(S, s) || checked_as(S, r) ||
        checked_prefix(S, p))
        return NULL;
    return done(speakers_take(S, s, r, p, entry));
}

static PyObject *sp_install(Speakers *S, PyObject *args)
{
    int r, p;
    PyObject *entry;
    READY(S);
    if (!PyArg_ParseTuple(args, "iiO:_install", &r, &p, &entry) || checked_as(S, r) || checked_prefix(S, p))
        return NULL;
    return done(speakers_install(S, r, p, entry));
}

static PyObject *sp_export(Speakers *S, PyObject *args)
{
    int r, p;
    READY(S);
    if (!PyArg_ParseTuple(args, "ii:_export", &r, &p) || checked_as(S, r) || checked_prefix(S, p))
        return NULL;
    return done(speakers_export(S, r, p));
}

static PyObject *sp_reselect(Speakers *S, PyObject *args)
{
    int r, p;
    READY(S);
    if (!PyArg_ParseTuple(args, "ii:_reselect", &r, &p) || checked_as(S, r) || checked_prefix(S, p))
        return NULL;
    return done(speakers_reselect(S, r, p));
}

static PyObject *sp_judge(Speakers *S, PyObject *args)
{
    int s, r, p, rel;
    PyObject *path, *signed_ = Py_None;
    READY(S);
    if (!PyArg_ParseTuple(args, "iiiOi|O:_judge", &s, &r, &p, &path, &rel, &signed_) || checked_as(S, s) ||
        checked_as(S, r) || checked_prefix(S, p))
        return NULL;
    return speakers_judge(S, s, r, p, path, rel, signed_, slot_of(S, r, s));
}

static int session_slot(Speakers *S, int r, int j) /* r's session with j; -1 with LookupError */
{
    int slot = slot_of(S, r, j);
    if (slot < 0)
        PyErr_Format(PyExc_LookupError, "AS indices %d and %d are not neighbours", r, j);
    return slot;
}

static PyObject *sp_wanted(Speakers *S, PyObject *args)
{
    int r, j, p, slot;
    READY(S);
    if (!PyArg_ParseTuple(args, "iii:_wanted", &r, &j, &p) || checked_prefix(S, p) || (slot = session_slot(S, r, j)) < 0)
        return NULL;
    return speakers_wanted(S, r, slot, p);
}

static PyObject *sp_transmit(Speakers *S, PyObject *args)
{
    int r, j, p, slot;
    PyObject *val;
    READY(S);
    if (!PyArg_ParseTuple(args, "iiiO:_transmit", &r, &j, &p, &val) || checked_prefix(S, p) ||
        (slot = session_slot(S, r, j)) < 0)
        return NULL;
    return done(speakers_transmit(S, r, slot, p, val));
}

static PyObject *sp_session(Speakers *S, PyObject *args)
{
    int i, j;
    READY(S);
    if (!PyArg_ParseTuple(args, "ii:_session", &i, &j))
        return NULL;
    int slot = slot_of(S, i, j);
    if (slot < 0)
        Py_RETURN_NONE;
    return Py_BuildValue("(dii)", S->delay[slot], S->rel_at[slot], S->nbr_is[slot]);
}

static PyObject *sp_set_down(Speakers *S, PyObject *args)
{
    int a, b, down;
    READY(S);
    if (!PyArg_ParseTuple(args, "iip:_set_down", &a, &b, &down))
        return NULL;
    int ab = session_slot(S, a, b), ba = ab < 0 ? -1 : session_slot(S, b, a);
    if (ba < 0)
        return NULL;
    const int both[2] = {ab, ba};
    for (int k = 0; k < 2; k++) {
        S->down[both[k]] = (uint8_t)down;
        if (down) { /* what the timers held and what was sent go with the session */
            S->held[both[k]].active = 0;
            S->mrai_until[both[k]] = -1.0;
            for (int p = 0; p < S->k; p++)
                if (S->out[p].path != NULL)
                    speakers_out_put(S, p, both[k], Py_None);
        }
    }
    Py_RETURN_NONE;
}

static PyObject *sp_set_rank(Speakers *S, PyObject *args)
{
    int r, s;
    PyObject *rank;
    READY(S);
    if (!PyArg_ParseTuple(args, "iiO:_set_rank", &r, &s, &rank))
        return NULL;
    int slot = session_slot(S, r, s);
    if (slot < 0)
        return NULL;
    double x = rank == Py_None ? NAN : PyFloat_AsDouble(rank);
    if (x == -1.0 && PyErr_Occurred())
        return NULL;
    S->rank[slot] = x;
    S->any_rank = 1;
    Py_RETURN_NONE;
}

static PyObject *sp_set_prepend(Speakers *S, PyObject *args)
{
    int r, j, times;
    READY(S);
    if (!PyArg_ParseTuple(args, "iii:_set_prepend", &r, &j, &times))
        return NULL;
    int slot = session_slot(S, r, j);
    if (slot < 0)
        return NULL;
    if (times < 0) {
        PyErr_Format(PyExc_ValueError, "prepending %d times", times);
        return NULL;
    }
    S->prepend[slot] = times;
    Py_RETURN_NONE;
}

static PyObject *sp_set_flag(Speakers *S, PyObject *args)
{
    int i, flag;
    READY(S);
    if (!PyArg_ParseTuple(args, "ii:_set_flag", &i, &flag) || checked_as(S, i))
        return NULL;
    S->flags[i] |= (uint8_t)flag;
    S->any_rovpp |= flag == F_ROVPP;
    Py_RETURN_NONE;
}

static PyObject *sp_warm(Speakers *S, PyObject *args)
{
    int p;
    PyObject *given;
    READY(S);
    if (!PyArg_ParseTuple(args, "iO!:_warm", &p, &PyList_Type, &given) || checked_prefix(S, p))
        return NULL;
    return speakers_warm(S, p, given);
}

static PyMethodDef sp_methods[] = {
    {"_setup", (PyCFunction)sp_setup, METH_VARARGS, "the sessions and timing, from TimedEngine.__init__"},
    {"_take", (PyCFunction)sp_take, METH_VARARGS, "_take(s, r, p, entry): r's Adj-RIB-In for p from s becomes entry; r chooses again"},
    {"_install", (PyCFunction)sp_install, METH_VARARGS, "_install(r, p, entry): r's Loc-RIB for p, sent on"},
    {"_export", (PyCFunction)sp_export, METH_VARARGS, "_export(r, p): every session of r brought up to date for p"},
    {"_reselect", (PyCFunction)sp_reselect, METH_VARARGS, "_reselect(r, p): r chooses again from its Adj-RIB-In"},
    {"_judge", (PyCFunction)sp_judge, METH_VARARGS, "_judge(s, r, p, path, rel, signed=None): r's Adj-RIB-In entry for path from s, or None"},
    {"_wanted", (PyCFunction)sp_wanted, METH_VARARGS, "_wanted(r, j, p): what r's Adj-RIB-Out for p should hold for j"},
    {"_transmit", (PyCFunction)sp_transmit, METH_VARARGS, "_transmit(r, j, p, path): an UPDATE sent now"},
    {"_session", (PyCFunction)sp_session, METH_VARARGS, "_session(i, j): (link delay, how j learns i's routes, what j is to i), or None"},
    {"_set_down", (PyCFunction)sp_set_down, METH_VARARGS, "_set_down(a, b, down): the link a-b down (its timers cleared) or up"},
    {"_set_rank", (PyCFunction)sp_set_rank, METH_VARARGS, "_set_rank(r, s, rank or None): the rank of the routes r learns from s"},
    {"_set_prepend", (PyCFunction)sp_set_prepend, METH_VARARGS, "_set_prepend(r, j, times): r prepends its AS that many more times toward j"},
    {"_set_flag", (PyCFunction)sp_set_flag, METH_VARARGS, "_set_flag(i, flag): one of FLAGS set for AS i, for the rest of the run"},
    {"_warm", (PyCFunction)sp_warm, METH_VARARGS, "_warm(p, loc): a converged Loc-RIB installed; None, or the index of an AS that disagrees"},
    {"watch_fib", (PyCFunction)speakers_watch_fib, METH_VARARGS,
     "watch_fib(covering): every AS's next hop toward a target (-1 none or dropped, itself: it originates), the "
     "longest match over `covering`, the prefixes covering the target, most specific first; from then on "
     "on_next_hop(i, nh) each time one moves"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef sp_members[] = {
    {"q", T_OBJECT, offsetof(Speakers, q), READONLY, "the EventQueue"},
    {"loc", T_OBJECT, offsetof(Speakers, loc), READONLY, "per prefix, each AS's Loc-RIB entry (key, rel, path) or None"},
    {"adv", T_OBJECT, offsetof(Speakers, adv), READONLY, "per prefix, what each AS advertises: (i,) + its path, or None"},
    {"rib_in", T_OBJECT, offsetof(Speakers, rib_in), READONLY, "per prefix, each AS's Adj-RIB-In: neighbour -> entry"},
    {"policy", T_OBJECT, offsetof(Speakers, policy), READONLY, "each AS's Policy, or None"},
    {"on_change", T_OBJECT, offsetof(Speakers, on_change), 0, "on_change(i, p): AS i's Loc-RIB for p changed"},
    {"on_next_hop", T_OBJECT, offsetof(Speakers, on_next_hop), 0, "on_next_hop(i, nh): AS i's next hop moved (watch_fib)"},
    {"journal", T_OBJECT, offsetof(Speakers, journal), 0, "bgpsim.sim.journal.Journal, or None"},
    {"tap", T_OBJECT, offsetof(Speakers, tap), 0, "bgpsim.sim.wiretap.Wiretap, or None"},
    {"crypto", T_OBJECT, offsetof(Speakers, crypto), 0, "bgpsim.sim.crypto.CryptoLoop, or None"},
    {"withheld", T_OBJECT, offsetof(Speakers, withheld), 0, "(p, i) -> the neighbours i withholds p from"},
    {"tagged", T_OBJECT, offsetof(Speakers, tagged), 0, "(p, i) -> the community i announces p with"},
    {"messages", T_LONGLONG, offsetof(Speakers, messages), 0, "UPDATEs sent"},
    {"last_change", T_DOUBLE, offsetof(Speakers, last_change), 0, "when a Loc-RIB last changed"},
    {NULL, 0, 0, 0, NULL},
};

static PyObject *sp_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    (void)args;
    (void)kw;
    Speakers *S = (Speakers *)type->tp_alloc(type, 0);
    if (S == NULL)
        return NULL;
    PyObject **none[] = {&S->on_change, &S->on_next_hop, &S->journal, &S->tap, &S->crypto};
    for (size_t k = 0; k < sizeof none / sizeof none[0]; k++) {
        Py_INCREF(Py_None);
        *none[k] = Py_None;
    }
    if ((S->withheld = PyDict_New()) == NULL || (S->tagged = PyDict_New()) == NULL) {
        Py_DECREF(S);
        return NULL;
    }
    return (PyObject *)S;
}

static int sp_traverse(Speakers *S, visitproc visit, void *arg)
{
    Py_VISIT(S->q);
    Py_VISIT(S->loc);
    Py_VISIT(S->adv);
    Py_VISIT(S->rib_in);
    Py_VISIT(S->policy);
    Py_VISIT(S->random);
    Py_VISIT(S->on_change);
    Py_VISIT(S->on_next_hop);
    Py_VISIT(S->journal);
    Py_VISIT(S->tap);
    Py_VISIT(S->crypto);
    Py_VISIT(S->withheld);
    Py_VISIT(S->tagged);
    return 0;
}

static int sp_clear(Speakers *S)
{
    if (S->q != NULL)
        event_queue_unregister(S->q, S->handler);
    Py_CLEAR(S->q);
    Py_CLEAR(S->loc);
    Py_CLEAR(S->adv);
    Py_CLEAR(S->rib_in);
    Py_CLEAR(S->policy);
    Py_CLEAR(S->random);
    Py_CLEAR(S->on_change);
    Py_CLEAR(S->on_next_hop);
    Py_CLEAR(S->journal);
    Py_CLEAR(S->tap);
    Py_CLEAR(S->crypto);
    Py_CLEAR(S->withheld);
    Py_CLEAR(S->tagged);
    if (S->judged != NULL)
        for (size_t k = 0; k < ((size_t)S->n + 1) * (PROVIDER + 1); k++)
            Py_CLEAR(S->judged[k].entry);
    return 0;
}

static void sp_dealloc(Speakers *S)
{
    PyObject_GC_UnTrack(S);
    sp_clear(S);
    if (S->ints != NULL) {
        for (int i = 0; i < S->nints; i++)
            Py_XDECREF(S->ints[i]);
    }
    if (S->held != NULL)
        for (int s = 0; s < S->slots; s++)
            column_free(&S->held[s].prefixes);
    if (S->out != NULL) {
        for (int p = 0; p < S->k; p++) {
            if (S->out[p].path != NULL)
                for (int s = 0; s < S->slots; s++)
                    Py_XDECREF(S->out[p].path[s]);
            PyMem_Free(S->out[p].path);
            PyMem_Free(S->out[p].count);
        }
        PyMem_Free(S->out);
    }
    speakers_fib_free(S);
    void *arrays[] = {S->off, S->peers_at, S->providers_at, S->nbr, S->owner, S->back, S->rel_at, S->nbr_is,
                      S->delay, S->mrai_until, S->rank, S->prepend, S->down, S->held, S->busy, S->flags, S->judged, S->ints};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        PyMem_Free(arrays[k]);
    Py_TYPE(S)->tp_free((PyObject *)S);
}

PyTypeObject SpeakersType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bgpsim._core.Speakers",
    .tp_basicsize = sizeof(Speakers),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The BGP speakers of the timed engine (bgpsim.sim.engine.timed.TimedEngine is its face)",
    .tp_new = sp_new,
    .tp_dealloc = (destructor)sp_dealloc,
    .tp_traverse = (traverseproc)sp_traverse,
    .tp_clear = (inquiry)sp_clear,
    .tp_methods = sp_methods,
    .tp_members = sp_members,
};

int speakers_add_type(PyObject *module)
{
    if (speakers_names() < 0 || speakers_fib_names() < 0)
        return -1;
    if (PyType_Ready(&SpeakersType) < 0)
        return -1;
    Py_INCREF(&SpeakersType);
    if (PyModule_AddObject(module, "Speakers", (PyObject *)&SpeakersType) < 0) {
        Py_DECREF(&SpeakersType);
        return -1;
    }
    PyObject *flags = Py_BuildValue("{s:i,s:i,s:i,s:i}", "SUPPRESS", F_SUPPRESS, "ROVPP", F_ROVPP, "HEARS", F_HEARS,
                                    "ROST", F_ROST);
    if (flags == NULL || PyDict_SetItemString(SpeakersType.tp_dict, "FLAGS", flags) < 0) {
        Py_XDECREF(flags);
        return -1;
    }
    Py_DECREF(flags);
    return 0;
}
