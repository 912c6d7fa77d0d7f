/* MRTCore: one MRT file (RFC 6396) read into columns, a buffer of the decompressed stream at a time.
 *
 * Framing (RFC 6396 section 2), as bgpsim/mrt/framing.py frames: each record is a 12-byte header
 * (timestamp, type, subtype, length) and its message. The first record's type must be one of
 * section 4's, or the file is not MRT (ValueError); a length of 0 stops the reading; a record longer
 * than MRT_MAX_RECORD is skipped unread, across calls if need be; a record not wholly in the buffer is
 * left for the next call, or, when the call is the last, the file is truncated there. Each whole
 * record is decoded by its type (mrt_records.c); a fault inside it is a warning, with the text of
 * bgpsim/mrt/decoder.py. See mrt_read's docstring for what a call gives back. */
#include "mrt.h"

const char *const mrt_record_names[R_COUNT] = {
    "BGP4MP", "BGP4MP_ET", "BGP4MP_LOCAL", "BGP4MP_ET_LOCAL", "BGP4MP_AP", "BGP4MP_ET_AP", "BGP4MP_LOCAL_AP",
    "BGP4MP_ET_LOCAL_AP", "TABLE_DUMP", "TABLE_DUMP2", "TABLE_DUMP2_AP", "BGP", "BGP4MP_ENTRY"};

/* framing.KNOWN_TYPES: section 4 (and 5, the historic types) */
static int known_type(unsigned t)
{
    return t <= 13 || t == 16 || t == 17 || t == 32 || t == 33 || t == 48 || t == 49;
}

/* decoder.Decoder.handle: the groups of the whole record at buf[pos:]; 0, -2 no memory, -3 fatal
 * (c->err holds the message) */
static int handle(mrt_ctx *c, const uint8_t *buf, Py_ssize_t pos, int64_t base)
{
    mrt_out *o = c->out;
    c->at = base + pos;
    c->ts = get32(buf + pos);
    c->type = (uint16_t)get16(buf + pos + 4);
    c->sub = (uint16_t)get16(buf + pos + 6);
    c->n = get32(buf + pos + 8);
    c->body = buf + pos + 12;
    c->body_at = pos + 12;
    c->fatal = c->sent_by_local = c->ibgp = 0;
    c->session = NULL;
    unsigned t = c->type;
    if (t != 5 && t != 12 && t != 13 && t != 16 && t != 17) {
        if (!(c->f->warned[t >> 3] & (1 << (t & 7)))) {
            c->f->warned[t >> 3] |= (uint8_t)(1 << (t & 7));
            if (mrt_warn(o, "byte %lld: skipping MRT type %u records (not read by bgpsim)", (long long)c->at, t) < 0)
                return -2;
        }
        return 0;
    }
    Py_ssize_t g0 = o->ngroups, r0 = o->nroutes, w0 = o->warnings.len;
    int r = mrt_record(c);
    if (r == -2)
        return -2;
    if (r == 0)
        return 0;
    if (c->fatal)
        return -3;
    /* a record found damaged gives no routes: an UPDATE whose fields do not parse is an error of the
     * whole message (RFC 7606 section 5.3) */
    mrt_out_rollback(o, g0, r0);
    o->warnings.len = w0; /* its notes too: the skip says all */
    if (mrt_warn(o, "byte %lld: %s; record at byte %lld (type %u, subtype %u) skipped", (long long)(c->at + 12 + c->err.off),
                 c->err.msg, (long long)c->at, c->type, c->sub) < 0)
        return -2;
    return 0;
}

static void ctx_free(mrt_ctx *c)
{
    for (int i = 0; i < 3; i++)
        column_free(&c->scratch[i]);
}

/* what one call found, besides the columns */
typedef struct {
    Py_ssize_t consumed;
    int nomem, fatal;
    char truncated[200]; /* "" at a record boundary; truncated_none: no end message */
    int truncated_none;
    char error[480];
    long long error_at;
} read_result;

/* framing.Framer._walk over one buffer, without the GIL */
static void frame(mrt_ctx *c, const uint8_t *buf, Py_ssize_t n, int64_t base, int final, read_result *res)
{
    mrt_file *f = c->f;
    mrt_out *o = c->out;
    Py_ssize_t pos = 0;
    res->truncated_none = 1;
    if (f->stopped) {
        res->consumed = n;
        return;
    }
    if (f->skip > 0) { /* the rest of a record over MRT_MAX_RECORD */
        Py_ssize_t take = f->skip < n ? (Py_ssize_t)f->skip : n;
        pos = take;
        f->skip -= take;
        if (f->skip == 0) {
            f->records++;
            mrt_warn(o, "byte %lld: record of %u bytes (type %u, subtype %u): want at most %d (bgpsim's bound on a "
                     "record); skipped unread", (long long)f->skip_at, f->skip_len, f->skip_type, f->skip_sub,
                     MRT_MAX_RECORD);
        } else {
            if (final) {
                mrt_warn(o, "byte %lld: MRT record header (RFC 6396 section 2): length %u (type %u, subtype %u) runs "
                         "past the end of the file; reading stops here, as bgpdump's does (read %lld whole records)",
                         (long long)f->skip_at + 8, f->skip_len, f->skip_type, f->skip_sub, (long long)f->records);
                f->stopped = 1;
            }
            res->consumed = n;
            return;
        }
    }
    for (;;) {
        Py_ssize_t have = n - pos;
        if (have < 12)
            break;
        int64_t at = base + pos;
        uint32_t length = get32(buf + pos + 8);
        unsigned rtype = get16(buf + pos + 4), sub = get16(buf + pos + 6);
        if (length == 0) { /* bgpdump stops at a record of length 0 */
            mrt_warn(o, "byte %lld: MRT record header (RFC 6396 section 2): length 0 (type %u, subtype %u); reading "
                     "stops here, as bgpdump's does", (long long)at + 8, rtype, sub);
            f->stopped = 1;
            break;
        }
        if (length > MRT_MAX_RECORD) { /* skipped unread, as bgpdump skips a record it cannot parse */
            int64_t whole = 12 + (int64_t)length;
            if (whole <= have) {
                pos += whole;
                f->records++;
                mrt_warn(o, "byte %lld: record of %u bytes (type %u, subtype %u): want at most %d (bgpsim's bound on "
                         "a record); skipped unread", (long long)at, length, rtype, sub, MRT_MAX_RECORD);
                continue;
            }
            f->skip = whole - have;
            f->skip_at = at;
            f->skip_len = length;
            f->skip_type = (uint16_t)rtype;
            f->skip_sub = (uint16_t)sub;
            pos = n;
            if (final) {
                mrt_warn(o, "byte %lld: MRT record header (RFC 6396 section 2): length %u (type %u, subtype %u) runs "
                         "past the end of the file; reading stops here, as bgpdump's does (read %lld whole records)",
                         (long long)at + 8, length, rtype, sub, (long long)f->records);
                f->stopped = 1;
            }
            break;
        }
        if (12 + (Py_ssize_t)length > have)
            break;
        f->records++;
        int r = handle(c, buf, pos, base);
        pos += 12 + (Py_ssize_t)length;
        if (r == -2) {
            res->nomem = 1;
            break;
        }
        if (r == -3) {
            res->fatal = 1;
            snprintf(res->error, sizeof res->error, "%s", c->err.msg);
            res->error_at = (long long)at;
            f->stopped = 1;
            break;
        }
    }
    if (o->warnings.failed)
        res->nomem = 1;
    if (f->stopped || final) {
        if (!f->stopped) {
            Py_ssize_t have = n - pos;
            res->truncated_none = 0;
            res->truncated[0] = 0;
            if (have >= 12)
                snprintf(res->truncated, sizeof res->truncated, "file ends inside a record at byte %lld: the record "
                         "there wants %lld bytes, %zd remain", (long long)(base + pos),
                         12 + (long long)get32(buf + pos + 8), have);
            else if (have)
                snprintf(res->truncated, sizeof res->truncated, "file ends inside a record at byte %lld: %zd bytes of "
                         "a 12-byte record header", (long long)(base + pos), have);
            f->stopped = 1;
        }
        res->consumed = n;
    } else {
        res->consumed = pos;
    }
}

typedef struct {
    PyObject_HEAD
    mrt_file f;
    int busy;
} MRTCore;

static PyObject *mrt_read(MRTCore *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"buf", "base", "final", NULL};
    Py_buffer view;
    long long base = 0;
    int final = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*|Lp:read", names, &view, &base, &final))
        return NULL;
    if (self->busy) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_RuntimeError, "MRTCore.read: already reading (one call at a time)");
        return NULL;
    }
    const uint8_t *buf = view.buf;
    Py_ssize_t n = view.len;
    mrt_file *f = &self->f;
    if (!f->first_checked && !f->stopped && n >= 12) {
        f->first_checked = 1;
        unsigned t = get16(buf + 4);
        if (!known_type(t)) {
            PyBuffer_Release(&view);
            f->stopped = 1;
            PyObject *value = Py_BuildValue("(Ns)", PyUnicode_FromFormat("not an MRT file: want a record type of "
                                            "RFC 6396 section 4 (such as 13 TABLE_DUMP_V2 or 16 BGP4MP), got %u", t),
                                            "byte 0");
            if (value)
                PyErr_SetObject(PyExc_ValueError, value);
            Py_XDECREF(value);
            return NULL;
        }
    }
    mrt_out out;
    mrt_ctx c;
    read_result res;
    memset(&out, 0, sizeof out);
    memset(&c, 0, sizeof c);
    memset(&res, 0, sizeof res);
    c.f = f;
    c.out = &out;
    c.buf = buf;
    Py_ssize_t peers_before = f->peers.n;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    frame(&c, buf, n, (int64_t)base, final, &res);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    ctx_free(&c);
    PyBuffer_Release(&view);
    if (res.nomem || out.paths.data.failed || out.paths.off.failed) {
        mrt_out_free(&out);
        return PyErr_NoMemory();
    }
    PyObject *groups = mrt_out_columns(&out, 0), *routes = mrt_out_columns(&out, 1), *paths = intern_list(&out.paths);
    PyObject *warnings = mrt_out_warnings(&out), *peers = PyList_New(0);
    mrt_out_free(&out);
    for (Py_ssize_t i = peers_before; peers && i < f->peers.n; i++) {
        mrt_peer p = intern_peer_at(&f->peers, i);
        PyObject *t = Py_BuildValue("(y#k)", (const char *)p.addr, (Py_ssize_t)p.alen, (unsigned long)p.asn);
        if (t == NULL || PyList_Append(peers, t) < 0)
            Py_CLEAR(peers);
        Py_XDECREF(t);
    }
    if (!groups || !routes || !paths || !warnings || !peers) {
        Py_XDECREF(groups), Py_XDECREF(routes), Py_XDECREF(paths), Py_XDECREF(warnings), Py_XDECREF(peers);
        return NULL;
    }
    PyObject *truncated = res.truncated_none ? Py_NewRef(Py_None) : PyUnicode_FromString(res.truncated);
    PyObject *error = res.fatal ? Py_BuildValue("(sN)", res.error, PyUnicode_FromFormat("byte %lld", res.error_at))
                                : Py_NewRef(Py_None);
    return Py_BuildValue("(nONNNNNLNN)", res.consumed, f->stopped ? Py_True : Py_False, groups, routes, peers, paths,
                         warnings, (long long)f->records, truncated, error);
}

static PyObject *mrt_update(MRTCore *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"msg", "asn_size", "addpath", "ibgp", NULL};
    Py_buffer view;
    int asn_size = 4, addpath = 0, ibgp = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*|iip:update", names, &view, &asn_size, &addpath, &ibgp))
        return NULL;
    if (addpath & ~(1 | ADDPATH_FAMILIES | ADDPATH_V4 | ADDPATH_V6)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "MRTCore.update: addpath must be 0, 1, or 4 with 8 (IPv4) and/or 16 (IPv6)");
        return NULL;
    }
    if (asn_size != 2 && asn_size != 4) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "MRTCore.update: asn_size must be 2 or 4");
        return NULL;
    }
    mrt_out out;
    mrt_ctx c;
    mrt_group g;
    memset(&out, 0, sizeof out);
    memset(&c, 0, sizeof c);
    c.f = &self->f;
    c.out = &out;
    c.buf = c.body = view.buf;
    c.n = view.len;
    c.at = -1;
    c.ibgp = ibgp;
    mrt_group_init(&g, &c, addpath == 1 ? R_ET | R_AP : R_ET, K_ANNOUNCE);
    int r = mrt_update_groups(&c, 19, view.len, &g, asn_size, addpath);
    PyBuffer_Release(&view);
    ctx_free(&c);
    if (r == -2 || out.paths.data.failed || out.paths.off.failed) {
        mrt_out_free(&out);
        return PyErr_NoMemory();
    }
    if (r == -1) {
        mrt_out_rollback(&out, 0, 0);
        out.warnings.len = 0;
    }
    PyObject *damage = r == -1 ? PyUnicode_FromFormat("byte %zd: %s", c.err.off, c.err.msg) : Py_NewRef(Py_None);
    PyObject *res = Py_BuildValue("(NNNNN)", mrt_out_columns(&out, 0), mrt_out_columns(&out, 1), intern_list(&out.paths),
                                  damage, mrt_out_warnings(&out));
    mrt_out_free(&out);
    return res;
}

static void mrt_dealloc(MRTCore *self)
{
    mrt_file *f = &self->f;
    intern_free(&f->peers);
    PyMem_RawFree(f->pit);
    PyMem_RawFree(f->pit_peers);
    mrt_sessions_free(f);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *mrt_get_records(MRTCore *self, void *closure)
{
    (void)closure;
    return PyLong_FromLongLong(self->f.records);
}

static PyObject *mrt_bgpdump_method(MRTCore *self, PyObject *args)
{
    if (self->busy) { /* another thread is in read, without the GIL: the peer table may move */
        PyErr_SetString(PyExc_RuntimeError, "MRTCore.bgpdump: a read is running");
        return NULL;
    }
    return mrt_bgpdump(&self->f, args);
}

static PyMethodDef mrt_methods[] = {
    {"read", (PyCFunction)(void (*)(void))mrt_read, METH_VARARGS | METH_KEYWORDS,
     "read(buf, base=0, final=False) -> (consumed, stopped, groups, routes, peers, paths, warnings, records, "
     "truncated, error)\n\n"
     "Frame and decode the whole MRT records of buf, the decompressed stream from offset base. consumed: bytes of "
     "buf used (keep buf[consumed:] for the next call); stopped: reading has ended; groups, routes: dicts of "
     "little-endian columns (GROUP_COLUMNS, ROUTE_COLUMNS); peers: the (address bytes, AS) pairs added to the "
     "file's peer table, which groups['peer'] indexes; paths: this call's distinct AS paths (uint32 words: per "
     "segment type, count, ASNs), which groups['path'] indexes; warnings: texts without the 'path: ' prefix; "
     "records: records framed so far; truncated: None (no end-of-file message), '' (the file ended at a record "
     "boundary) or where the file ended inside a record; error: None, or (message, 'byte N') for a RIB record "
     "before any PEER_INDEX_TABLE. A first record of no RFC 6396 type raises ValueError(message, 'byte 0')."},
    {"update", (PyCFunction)(void (*)(void))mrt_update, METH_VARARGS | METH_KEYWORDS,
     "update(msg, asn_size=4, addpath=0, ibgp=False) -> (groups, routes, paths, damage, notes)\n\nOne whole "
     "UPDATE message (19-byte header included), from a peer of another AS or (ibgp) of ours; addpath: 1 every "
     "prefix carries a path identifier, or 4|8|16: those of IPv4 (8) and IPv6 (16) unicast do; damage: None or "
     "what failed it; notes: what RFC 7606 made of faulty attributes (discarded, or the routes withdrawn)."},
    {"bgpdump", (PyCFunction)mrt_bgpdump_method, METH_VARARGS,
     "bgpdump(buf, groups, routes, paths) -> bytes\n\nThe bgpdump -m lines of one read's groups and routes (buf: the "
     "buffer that read was given)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef mrt_getset[] = {{"records", (getter)mrt_get_records, NULL, "records framed so far", NULL},
                                   {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject MRTCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bgpsim._core.MRTCore",
    .tp_basicsize = sizeof(MRTCore),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "MRTCore(): the state of one MRT file being read (RFC 6396). A damaged record gives no routes; "
              "ADD-PATH (RFC 7911) in plain BGP4MP MESSAGE records is known from the dumped OPENs or the NLRI.",
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)mrt_dealloc,
    .tp_methods = mrt_methods,
    .tp_getset = mrt_getset,
};

/* RECORD_NAMES, GROUP_COLUMNS and ROUTE_COLUMNS ((name, numpy dtype) pairs) as class attributes */
static int add_tables(void)
{
    PyObject *names = PyTuple_New(R_COUNT), *gc = PyTuple_New(G_NCOLS), *rc = PyTuple_New(T_NCOLS);
    int ok = names && gc && rc;
    for (int i = 0; ok && i < R_COUNT; i++)
        ok = (PyTuple_SET_ITEM(names, i, PyUnicode_FromString(mrt_record_names[i])), PyTuple_GET_ITEM(names, i) != NULL);
    for (int i = 0; ok && i < G_NCOLS; i++)
        ok = (PyTuple_SET_ITEM(gc, i, Py_BuildValue("(ss)", mrt_group_cols[i].name, mrt_group_cols[i].dtype)),
              PyTuple_GET_ITEM(gc, i) != NULL);
    for (int i = 0; ok && i < T_NCOLS; i++)
        ok = (PyTuple_SET_ITEM(rc, i, Py_BuildValue("(ss)", mrt_route_cols[i].name, mrt_route_cols[i].dtype)),
              PyTuple_GET_ITEM(rc, i) != NULL);
    PyObject *d = MRTCoreType.tp_dict;
    ok = ok && PyDict_SetItemString(d, "RECORD_NAMES", names) == 0 && PyDict_SetItemString(d, "GROUP_COLUMNS", gc) == 0 &&
         PyDict_SetItemString(d, "ROUTE_COLUMNS", rc) == 0;
    Py_XDECREF(names);
    Py_XDECREF(gc);
    Py_XDECREF(rc);
    return ok ? 0 : -1;
}

int mrt_add_types(PyObject *module)
{
    if (PyType_Ready(&MRTCoreType) < 0 || add_tables() < 0)
        return -1;
    PyType_Modified(&MRTCoreType);
    return PyModule_AddType(module, &MRTCoreType);
}
