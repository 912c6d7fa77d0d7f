/* A RIS Live message read (rislive.h): the envelope, the data's type, an UPDATE's rows and group, a
 * peer state; a fault raised as the Python side wants it. */
#include "rislive.h"

PyObject *S_UPDATE, *S_PEER_STATE, *S_RIS_MESSAGE;

/* a list of prefixes: an announcement's (kind 0) or the withdrawals (kind 1) */
typedef struct { msg *m; Py_ssize_t ann; int as_hit; uint8_t kind; } prefixes;

static int prefix(json *j, Py_ssize_t index, void *arg)
{
    prefixes *a = arg;
    const unsigned char *start = j->p;
    int afi, r;
    uint64_t hi, lo;
    unsigned plen;
    if (value(j) < 0)
        return -1;
    span v = {start, j->p};
    if (a->kind == 0 && v.e - v.p == 5 && memcmp(v.p, "\"eor\"", 5) == 0)  /* End-of-RIB (RFC 4724 section 2) */
        return 0;
    if (a->kind == 0)
        r = ris_prefix(a->m, v, "announcements[%zd].prefixes[%zd]", a->ann, index, &afi, &hi, &lo, &plen);
    else
        r = ris_prefix(a->m, v, "withdrawals[%zd]", index, 0, &afi, &hi, &lo, &plen);
    if (r < 0)
        return -1;
    ris_row(a->m, a->kind, afi, hi, lo, plen, a->as_hit);
    return 0;
}

static int announcement(json *j, Py_ssize_t index, void *arg)
{
    prefixes *a = arg;
    msg *m = a->m;
    span v[NKEYS];
    if (*j->p != '{')
        return value(j) < 0 ? -1 : ris_fail(m, "want an object", NONE, "announcements[%zd]", index);
    if (ris_object(m, j, v, NULL) < 0)
        return -1;
    if (v[KEY_NEXT_HOP].p != NULL && !is_null(v[KEY_NEXT_HOP]) && !is_string(v[KEY_NEXT_HOP]))
        return ris_fail(m, "want a next hop string", NONE, "announcements[%zd].next_hop", index);
    if (!is_list(v[KEY_PREFIXES]))
        return ris_fail(m, "want a list of prefixes", NONE, "announcements[%zd].prefixes", index);
    json p = at(m, v[KEY_PREFIXES]);
    p.p++;
    a->ann = index;
    return list(&p, prefix, a);
}

/* an UPDATE: its rows, then its group (time, peer, path, origin, first row) */
static int update(msg *m)
{
    RisReader *r = m->r;
    span anns = m->v[KEY_ANNOUNCEMENTS], wd = m->v[KEY_WITHDRAWALS];
    if (ris_header(m) < 0)
        return -1;
    r->words.len = 0;
    if (anns.p != NULL && !is_list(anns))
        return ris_fail(m, "want a list", NONE, "announcements");
    prefixes a = {m, 0, 0, 0}, w = {m, 0, 0, 1};
    if (anns.p != NULL) {
        json j = at(m, anns), first;
        j.p++;
        first = j;
        ws(&first);
        if (*first.p != ']') {  /* announcements: their attributes first */
            if (ris_path(m) < 0 || ris_attributes(m) < 0)
                return -1;
            a.as_hit = ris_watched_as(r);
            if (list(&j, announcement, &a) < 0)
                return -1;
        }
    }
    if (wd.p != NULL && !is_list(wd))
        return ris_fail(m, "want a list", NONE, "withdrawals");
    if (wd.p != NULL) {
        json j = at(m, wd);
        j.p++;
        if (list(&j, prefix, &w) < 0)
            return -1;
    }
    if (r->rows == r->last_rows)
        return 0;
    int32_t slot = intern_key(&r->paths, r->words.data, r->words.len);
    if (slot < 0)
        return PyErr_NoMemory(), -1;
    if (ris_number_peer(r) < 0)
        return -1;
    r->origin = path_origin((const uint32_t *)r->words.data, r->words.len / 4);
    COLUMN_PUT(&r->gtime, int64_t, r->time);
    COLUMN_PUT(&r->gusec, int64_t, r->usec);
    COLUMN_PUT(&r->gpeer, int32_t, (int32_t)r->peer);
    COLUMN_PUT(&r->gpath, int64_t, (int64_t)slot);
    COLUMN_PUT(&r->gfirst, int64_t, (int64_t)r->last_rows);
    COLUMN_PUT(&r->gorigin, int64_t, r->origin);
    r->groups++;
    return 0;
}

/* the fault of a message as ValueError((format, key or None, value text or None)) */
static PyObject *raise(msg *m)
{
    PyObject *args;
    if (m->want != NULL) {
        PyObject *value = Py_None;
        Py_INCREF(value);
        if (m->value.p != NULL) {
            unsigned char buf[MAX_FIELD];
            const unsigned char *t;
            Py_ssize_t n;
            ris_text(m, m->value, buf, &t, &n);
            Py_DECREF(value);
            value = n < 0 ? PyUnicode_FromString("(a long string)") : PyUnicode_DecodeUTF8((const char *)t, n, "replace");
        }
        args = value == NULL ? NULL : Py_BuildValue("(ssN)", m->want, m->key[0] ? m->key : NULL, value);
    } else {
        const char *what = m->f.format ? m->f.format : "bad JSON";
        if (strncmp(what, "bad JSON: ", 10) == 0)
            what += 10;
        args = PyUnicode_FromFormat("want JSON (byte %zd: %s)", m->f.line, what);
        if (args != NULL)
            args = Py_BuildValue("(NOO)", args, Py_None, Py_None);
    }
    if (args != NULL) {
        PyErr_SetObject(PyExc_ValueError, args);
        Py_DECREF(args);
    }
    return NULL;
}

static PyObject *text_object(msg *m, span v)
{
    unsigned char buf[MAX_FIELD];
    const unsigned char *t;
    Py_ssize_t n;
    ris_text(m, v, buf, &t, &n);
    return n < 0 ? PyUnicode_FromString("") : PyUnicode_DecodeUTF8((const char *)t, n, "replace");
}

/* the message's text -> (kind, data type, id, rows, hits, extra, names); see the method's doc */
static PyObject *message(RisReader *r, msg *m, const unsigned char *s, Py_ssize_t n)
{
    span top[NKEYS];
    PyObject *kind = NULL, *dtype = Py_None, *id = Py_None, *extra = Py_None;
    Py_INCREF(Py_None), Py_INCREF(Py_None), Py_INCREF(Py_None);
    if (n > MAX_MESSAGE) {
        static char text[80];
        snprintf(text, sizeof text, "want a message of at most %d bytes, got %zd", MAX_MESSAGE, n);
        ris_fail(m, text, NONE, NULL);
        goto failed;
    }
    json j = {s, s, s + n, &m->f, 0};
    ws(&j);
    int is_object = j.p < j.end && *j.p == '{';
    if ((is_object ? ris_object(m, &j, top, m->v) : value(&j)) < 0)
        goto failed;
    ws(&j);
    if (j.p != j.end) {
        syntax(&j, "bad JSON: something after the value");
        goto failed;
    }
    if (!is_object) {
        ris_fail(m, "want a JSON object", NONE, "$");
        goto failed;
    }
    if (top[KEY_DATA].p != NULL && is_string(top[KEY_TYPE])) {  /* the server's envelope */
        unsigned char buf[MAX_FIELD];
        const unsigned char *t;
        Py_ssize_t len;
        ris_text(m, top[KEY_TYPE], buf, &t, &len);
        if (same_word(t, len, "ris_message")) {
            if (*top[KEY_DATA].p != '{') {  /* its members are in m->v (ris_object) */
                ris_fail(m, "want a RIS Live object", NONE, "data");
                goto failed;
            }
        } else {
            PyObject *k = text_object(m, top[KEY_TYPE]);
            if (k == NULL)
                goto failed;
            kind = PyObject_CallMethod(k, "lower", NULL);
            Py_DECREF(k);
            Py_SETREF(extra, PyBytes_FromStringAndSize((const char *)top[KEY_DATA].p, top[KEY_DATA].e - top[KEY_DATA].p));
            if (kind == NULL || extra == NULL)
                goto failed;
            goto done;
        }
    } else {
        memcpy(m->v, top, sizeof top);  /* a bare data object (bgpsim's MQTT feed) */
    }
    kind = S_RIS_MESSAGE;
    Py_INCREF(kind);
    span type = m->v[KEY_TYPE];
    if (type.p != NULL && !is_string(type)) {
        ris_fail(m, "want a message type", NONE, "type");
        goto failed;
    }
    if (type.p == NULL) {
        dtype = S_UPDATE;
        Py_INCREF(dtype);
    } else {
        unsigned char buf[MAX_FIELD];
        const unsigned char *t;
        Py_ssize_t len;
        ris_text(m, type, buf, &t, &len);
        PyObject *up;
        if (same_word(t, len, "UPDATE"))
            up = Py_NewRef(S_UPDATE);
        else if (same_word(t, len, "RIS_PEER_STATE") || same_word(t, len, "STATE"))  /* the live service's name */
            up = Py_NewRef(S_PEER_STATE);
        else if ((up = text_object(m, type)) != NULL)  /* counted by its name, in upper case */
            Py_SETREF(up, PyObject_CallMethod(up, "upper", NULL));
        if (up == NULL)
            goto failed;
        Py_SETREF(dtype, up);
    }
    if (is_string(m->v[KEY_ID])) {
        Py_SETREF(id, text_object(m, m->v[KEY_ID]));
        if (id == NULL)
            goto failed;
    }
    if (dtype == S_UPDATE) {
        if (update(m) < 0)
            goto failed;
        span b = m->v[KEY_BGPSEC];
        if (b.p != NULL && is_string(b) && r->rows > r->last_rows) {
            uint64_t target;
            span t = m->v[KEY_BGPSEC_TARGET];
            PyObject *hex = text_object(m, b);
            PyObject *tg = ris_integer(t, UINT64_MAX >> 1, &target) == 0 ? PyLong_FromUnsignedLongLong(target)
                                                                       : Py_NewRef(Py_None);
            Py_SETREF(extra, hex == NULL || tg == NULL ? NULL : Py_BuildValue("(nNN)", r->groups - 1, hex, tg));
            if (extra == NULL)
                goto failed;
        }
    } else if (dtype == S_PEER_STATE) {
        static const struct { const char *name; int state; } STATES[] = {{"connected", 6}, {"up", 6}, {"down", 1}};
        int state = -1;
        if (ris_header(m) < 0)
            goto failed;
        if (is_string(m->v[KEY_STATE])) {
            unsigned char buf[MAX_FIELD];
            const unsigned char *t;
            Py_ssize_t len;
            ris_text(m, m->v[KEY_STATE], buf, &t, &len);
            for (int k = 0; k < 3; k++)
                if (same_word(t, len, STATES[k].name))
                    state = STATES[k].state;
        }
        if (state < 0) {
            ris_fail(m, "want state connected, up or down", NONE, "state");
            goto failed;
        }
        if (ris_number_peer(r) < 0)
            goto failed;
        Py_SETREF(extra, r->usec < 0 ? Py_BuildValue("(LOni)", (long long)r->time, Py_None, r->peer, state)
                                     : Py_BuildValue("(LLni)", (long long)r->time, (long long)r->usec, r->peer, state));
        if (extra == NULL)
            goto failed;
    }
done:;
    column *c[] = {&r->kind, &r->afi, &r->hi, &r->lo, &r->plen, &r->group, &r->gtime, &r->gusec, &r->gpeer,
                   &r->gpath, &r->gfirst, &r->gorigin, &r->hits, &r->words};
    for (size_t k = 0; k < sizeof c / sizeof *c; k++)
        if (c[k]->failed) {
            PyErr_NoMemory();
            goto failed;
        }
    PyObject *names = m->names ? PyList_AsTuple(m->names) : Py_NewRef(Py_None);
    if (names == NULL)
        goto failed;
    return Py_BuildValue("(NNNnnNN)", kind, dtype, id, r->rows - r->last_rows, r->hits.len / 8, extra, names);
failed:
    Py_XDECREF(kind), Py_XDECREF(dtype), Py_XDECREF(id), Py_XDECREF(extra);
    ris_truncate(r);
    return PyErr_Occurred() ? NULL : raise(m);
}

PyObject *ris_read(RisReader *r, PyObject *payload)
{
    Py_buffer b;
    if (PyObject_GetBuffer(payload, &b, PyBUF_SIMPLE) < 0)
        return NULL;
    msg *m = r->m;  /* kept (a fault's store is 4 KiB), its state set afresh */
    m->r = r, m->s = b.buf;
    m->f.format = NULL, m->want = NULL, m->names = NULL;
    r->last_rows = r->rows, r->last_groups = r->groups, r->hits.len = 0;
    PyObject *out = message(r, m, m->s, b.len);
    Py_CLEAR(m->names);
    PyBuffer_Release(&b);
    return out;
}
