/* read_bgpdump_text: `bgpdump -m` text (bgpsim/mrt/bgpdump.py) into columns, a buffer of the
 * decompressed stream at a time, with the lines, checks and messages of bgpsim/mrt/text.py.
 *
 * Lines end in "\n" (anything else, "\r" too, is part of the line). A line longer than BT_MAX_LINE is
 * a fault of that line; the unfinished last line of a buffer is left for the next call unless the call
 * is the last, or unless it is already longer than BT_MAX_LINE: then it is a fault now and the rest of
 * it, up to its newline, is skipped (`skip`, across calls), as TextReader._lines does. Strict: the
 * first fault raises ValueError(message, line, offset of the line in buf). Lenient: each fault is a
 * warning and reading goes on. See the docstring at the end for what a call gives back. */
#include "bgptext.h"

static const struct { const char *name; int size; } GROUP_COLS[BG_NCOLS] = {
    {"record", 1}, {"time", 8}, {"usec", 4}, {"kind", 1}, {"peer", 4}, {"first", 8}, {"count", 4}, {"path", 4},
    {"origin", 8}, {"old_state", 2}, {"new_state", 2}, {"attr_start", 8}, {"attr_end", 8}, {"line", 8}};
static const char *const ROUTE_COLS[BR_NCOLS] = {"hi", "lo", "plen", "path_id", "afi"};

/* one line: read, or a warning (lenient), or the stop (strict); 0 go on, -1 stop */
static int one_line(bt_ctx *c, Py_ssize_t start, Py_ssize_t n, int64_t number)
{
    int r = bt_line(c, start, n, number);
    if (r == -2 || c->msg.failed) {
        c->nomem = 1;
        return -1;
    }
    if (r == 0)
        return 0;
    if (c->strict) {
        c->err_line = number;
        c->err_off = start;
        return -1;
    }
    bt_flush_group(c); /* a group is a run of consecutive lines: warnings fall between groups */
    char head[48];
    int k = snprintf(head, sizeof head, "line %lld: bgpdump -m line: ", (long long)number);
    column_put(&c->warn, head, k);
    column_put(&c->warn, c->msg.data, c->msg.len);
    column_put(&c->warn, "; skipped", 9);
    COLUMN_PUT(&c->warn_end, int64_t, c->warn.len);
    COLUMN_PUT(&c->warn_line, int64_t, number);
    return 0;
}

/* the lines of buf; returns the bytes consumed, sets *lines and *skip */
static Py_ssize_t parse(bt_ctx *c, int64_t first_line, int final, int *skip, int64_t *lines)
{
    const uint8_t *b = c->buf;
    Py_ssize_t n = c->len, pos = 0;
    int64_t number = first_line;
    if (*skip) { /* the rest of a line already refused for its length */
        const uint8_t *nl = n ? memchr(b, '\n', (size_t)n) : NULL;
        if (nl == NULL) {
            *lines = 0;
            return n;
        }
        pos = nl - b + 1;
        *skip = 0;
    }
    while (pos < n) {
        const uint8_t *nl = memchr(b + pos, '\n', (size_t)(n - pos));
        if (nl == NULL)
            break;
        if (one_line(c, pos, nl - b - pos, number++) < 0)
            goto stop;
        pos = nl - b + 1;
    }
    if (pos < n && (final || n - pos > BT_MAX_LINE)) {
        if (!final)
            *skip = 1;
        if (one_line(c, pos, n - pos, number++) < 0)
            goto stop;
        pos = n;
    }
stop:
    bt_flush_group(c);
    *lines = number - first_line;
    return pos;
}

static void ctx_free(bt_ctx *c)
{
    for (int i = 0; i < BG_NCOLS; i++)
        column_free(&c->g[i]);
    for (int i = 0; i < BR_NCOLS; i++)
        column_free(&c->r[i]);
    intern_free(&c->peers);
    intern_free(&c->paths);
    column_free(&c->odd), column_free(&c->warn), column_free(&c->warn_end), column_free(&c->warn_line);
    column_free(&c->msg);
    column_free(&c->asns), column_free(&c->segs), column_free(&c->canon);
}

static int failed(const bt_ctx *c)
{
    int f = c->nomem || c->odd.failed || c->warn.failed || c->warn_end.failed || c->warn_line.failed ||
            c->peers.data.failed || c->peers.off.failed || c->paths.data.failed || c->paths.off.failed;
    for (int i = 0; i < BG_NCOLS; i++)
        f |= c->g[i].failed;
    for (int i = 0; i < BR_NCOLS; i++)
        f |= c->r[i].failed;
    return f;
}

static int set(PyObject *d, const char *key, PyObject *v)
{
    int r = v == NULL ? -1 : PyDict_SetItemString(d, key, v);
    Py_XDECREF(v);
    return r;
}

static PyObject *columns(column *cols, int n, int groups)
{
    PyObject *d = PyDict_New();
    for (int i = 0; d && i < n; i++)
        if (set(d, groups ? GROUP_COLS[i].name : ROUTE_COLS[i], column_take(&cols[i])) < 0)
            Py_CLEAR(d);
    return d;
}

/* the interned keys as a list: peers as (address, AS), paths as bytes */
static PyObject *keys(const intern_table *t, int peers)
{
    PyObject *l = PyList_New(t->n);
    for (Py_ssize_t i = 0; l && i < t->n; i++) {
        Py_ssize_t len;
        const char *k = intern_at(t, i, &len);
        PyObject *v;
        if (peers) {
            uint32_t asn;
            memcpy(&asn, k, 4);
            v = Py_BuildValue("(s#k)", k + 4, len - 4, (unsigned long)asn);
        } else {
            v = PyBytes_FromStringAndSize(k, len);
        }
        if (v == NULL)
            Py_CLEAR(l);
        else
            PyList_SET_ITEM(l, i, v);
    }
    return l;
}

static PyObject *result(bt_ctx *c, Py_ssize_t consumed, int64_t lines, int skip)
{
    PyObject *d = PyDict_New(), *names = PyList_New(BT_NAMES), *odd = PyDict_New(), *warn = PyList_New(0);
    if (!d || !names || !odd || !warn)
        goto fail;
    for (int i = 0; i < BT_NAMES; i++) {
        PyObject *s = PyUnicode_FromString(bt_record_names[i]);
        if (s == NULL)
            goto fail;
        PyList_SET_ITEM(names, i, s);
    }
    const int64_t *o = (const int64_t *)c->odd.data;
    for (Py_ssize_t i = 0; i < c->odd.len / 24; i++) {
        PyObject *k = PyLong_FromLongLong(o[3 * i]);
        PyObject *v = PyUnicode_DecodeASCII((const char *)c->buf + o[3 * i + 1], (Py_ssize_t)o[3 * i + 2], NULL);
        int r = k && v ? PyDict_SetItem(odd, k, v) : -1;
        Py_XDECREF(k), Py_XDECREF(v);
        if (r < 0)
            goto fail;
    }
    const int64_t *we = (const int64_t *)c->warn_end.data;
    for (Py_ssize_t i = 0; i < c->warn_end.len / 8; i++) {
        Py_ssize_t s = i ? (Py_ssize_t)we[i - 1] : 0;
        PyObject *w = PyUnicode_DecodeASCII(c->warn.data + s, (Py_ssize_t)we[i] - s, NULL);
        int r = w ? PyList_Append(warn, w) : -1;
        Py_XDECREF(w);
        if (r < 0)
            goto fail;
    }
    if (set(d, "consumed", PyLong_FromSsize_t(consumed)) < 0 || set(d, "lines", PyLong_FromLongLong(lines)) < 0 ||
        set(d, "skip", PyBool_FromLong(skip)) < 0 || set(d, "groups", columns(c->g, BG_NCOLS, 1)) < 0 ||
        set(d, "routes", columns(c->r, BR_NCOLS, 0)) < 0 || set(d, "peers", keys(&c->peers, 1)) < 0 ||
        set(d, "paths", keys(&c->paths, 0)) < 0 || set(d, "warning_lines", column_take(&c->warn_line)) < 0)
        goto fail;
    int r = set(d, "names", names);
    names = NULL;
    if (r < 0 || (r = set(d, "prefix_texts", odd), odd = NULL, r) < 0 ||
        (r = set(d, "warnings", warn), warn = NULL, r) < 0)
        goto fail;
    return d;
fail:
    Py_XDECREF(d), Py_XDECREF(names), Py_XDECREF(odd), Py_XDECREF(warn);
    return NULL;
}

static PyObject *read_bgpdump_text(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"buf", "first_line", "strict", "final", "skip", NULL};
    Py_buffer view;
    long long first_line = 1;
    int strict = 1, final = 0, skip = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*|Lppp:read_bgpdump_text", kwlist, &view, &first_line, &strict,
                                     &final, &skip))
        return NULL;
    bt_ctx c;
    memset(&c, 0, sizeof c);
    c.buf = view.buf;
    c.len = view.len;
    c.strict = strict;
    c.last_start = c.last_end = c.err_off = -1;
    c.last_peer = -1;
    Py_ssize_t consumed;
    int64_t lines;
    Py_BEGIN_ALLOW_THREADS
    consumed = parse(&c, first_line, final, &skip, &lines);
    Py_END_ALLOW_THREADS
    PyObject *res = NULL;
    if (failed(&c)) {
        PyErr_NoMemory();
    } else if (c.err_off >= 0) {
        PyObject *m = PyUnicode_DecodeASCII(c.msg.data ? c.msg.data : "", c.msg.len, NULL);
        if (m != NULL) {
            PyObject *e = Py_BuildValue("(OLn)", m, (long long)c.err_line, c.err_off);
            if (e != NULL)
                PyErr_SetObject(PyExc_ValueError, e);
            Py_XDECREF(e);
            Py_DECREF(m);
        }
    } else {
        res = result(&c, consumed, lines, skip);
    }
    ctx_free(&c);
    PyBuffer_Release(&view);
    return res;
}

PyMethodDef bgptext_methods[] = {
    {"read_bgpdump_text", (PyCFunction)(void (*)(void))read_bgpdump_text, METH_VARARGS | METH_KEYWORDS,
     "read_bgpdump_text(buf, first_line=1, strict=True, final=False, skip=False) -> dict\n\n"
     "The whole lines of `bgpdump -m` text in buf (a bytes-like object), the first of them line number "
     "first_line, checked as bgpsim.mrt.text checks them. The unfinished last line is left unread unless final "
     "(or unless it is already longer than MAX_LINE: a fault now, and `skip` comes back True: pass it to the "
     "next call, which drops the bytes up to the next newline). Strict: the first bad line raises "
     "ValueError(message, line, offset of the line in buf). Result:\n"
     "  consumed, lines (lines counted), skip; names (record name of each code);\n"
     "  groups: dict of little-endian columns, one row per group of consecutive lines sharing record, time, "
     "usec, kind, peer and attribute text (a STATE line is a group of its own, of no routes): record u1, "
     "time i8, usec i4 (-1 none), kind u1 (0 announce, 1 withdraw, 2 RIB, 3 state), peer i4 (index in "
     "peers), first i8, count i4 (its routes), path i4 (index in paths; -1 no AS path), origin i8 (RFC 6811 origin AS; -1 NONE; -2 the speaker's own), "
     "old_state u2, new_state u2, attr_start i8 and attr_end i8 (the text from the AS path field to the end "
     "of the line in buf; -1 none), line i8 (of the first route);\n"
     "  routes: hi u8, lo u8 (IPv4 in lo; host bits cleared), plen u1, path_id i8 (-1 none), afi u1;\n"
     "  peers: (address text, AS) of each peer of this call; paths: the distinct AS paths of this call, "
     "each as native uint32 words, per segment type (1 AS_SET, 2 AS_SEQUENCE, 3 AS_CONFED_SEQUENCE, 4 "
     "AS_CONFED_SET), count, the ASNs (the MRT reader's form); prefix_texts: {route: text} where the prefix text is not the one the numbers "
     "print as; warnings: 'line N: bgpdump -m line: ...; skipped' (lenient), warning_lines: their line numbers "
     "(int64 column). A group never spans a bad line, so warnings and groups interleave by line."},
    {NULL, NULL, 0, NULL}};
