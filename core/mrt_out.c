/* The columns and tables one MRTCore.read fills (mrt.h's mrt_out and mrt_file): groups and routes
 * appended as records are decoded (and rolled back when a record's groups are dropped), the file's
 * peer table, the warnings, and their conversion to Python objects once the GIL is held again. */
#include "mrt.h"

const mrt_column mrt_group_cols[G_NCOLS] = {
    {"offset", "<i8", 8}, {"record", "u1", 1}, {"time", "<u4", 4}, {"usec", "<i8", 8}, {"kind", "u1", 1},
    {"afi", "u1", 1}, {"peer", "<i4", 4}, {"local_as", "<i8", 8}, {"first", "<i8", 8}, {"count", "<u4", 4},
    {"attr_start", "<i8", 8}, {"attr_end", "<i8", 8}, {"asn_size", "u1", 1}, {"rib_afi", "u1", 1},
    {"nh_kind", "u1", 1}, {"nh_start", "<i8", 8}, {"nh_len", "u1", 1}, {"path", "<i4", 4}, {"origin", "<i8", 8},
    {"bgpsec", "u1", 1}, {"old_state", "<u2", 2}, {"new_state", "<u2", 2}};
const mrt_column mrt_route_cols[T_NCOLS] = {
    {"hi", "<u8", 8}, {"lo", "<u8", 8}, {"plen", "u1", 1}, {"path_id", "<i8", 8}};

int mrt_fail(mrt_err *e, Py_ssize_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->off = off;
    return -1;
}

int mrt_warn(mrt_out *o, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    if (n >= (int)sizeof text)
        n = (int)sizeof text - 1;
    return column_put(&o->warnings, text, n + 1);
}

void mrt_group_init(mrt_group *g, const mrt_ctx *c, int record, int kind)
{
    memset(g, 0, sizeof *g);
    g->offset = c->at;
    g->time = c->ts;
    g->usec = g->local_as = g->attr_start = g->attr_end = g->nh_start = -1;
    g->peer = g->path = -1;
    g->origin = -2;
    g->record = (uint8_t)record;
    g->kind = (uint8_t)kind;
}

int mrt_emit_group(mrt_out *o, const mrt_group *g, Py_ssize_t first_route)
{
    column *c = o->g;
    COLUMN_PUT(&c[G_OFFSET], int64_t, g->offset);
    COLUMN_PUT(&c[G_RECORD], uint8_t, g->record);
    COLUMN_PUT(&c[G_TIME], uint32_t, g->time);
    COLUMN_PUT(&c[G_USEC], int64_t, g->usec);
    COLUMN_PUT(&c[G_KIND], uint8_t, g->kind);
    COLUMN_PUT(&c[G_AFI], uint8_t, g->afi);
    COLUMN_PUT(&c[G_PEER], int32_t, g->peer);
    COLUMN_PUT(&c[G_LOCAL_AS], int64_t, g->local_as);
    COLUMN_PUT(&c[G_FIRST], int64_t, first_route);
    COLUMN_PUT(&c[G_COUNT], uint32_t, (uint32_t)(o->nroutes - first_route));
    COLUMN_PUT(&c[G_ATTR_START], int64_t, g->attr_start);
    COLUMN_PUT(&c[G_ATTR_END], int64_t, g->attr_end);
    COLUMN_PUT(&c[G_ASN_SIZE], uint8_t, g->asn_size);
    COLUMN_PUT(&c[G_RIB_AFI], uint8_t, g->rib_afi);
    COLUMN_PUT(&c[G_NH_KIND], uint8_t, g->nh_kind);
    COLUMN_PUT(&c[G_NH_START], int64_t, g->nh_kind == NH_ADDR ? g->nh_start : -1);
    COLUMN_PUT(&c[G_NH_LEN], uint8_t, g->nh_kind == NH_ADDR ? g->nh_len : 0);
    COLUMN_PUT(&c[G_PATH], int32_t, g->path);
    COLUMN_PUT(&c[G_ORIGIN], int64_t, g->origin);
    COLUMN_PUT(&c[G_BGPSEC], uint8_t, g->bgpsec);
    COLUMN_PUT(&c[G_OLD_STATE], uint16_t, g->old_state);
    COLUMN_PUT(&c[G_NEW_STATE], uint16_t, g->new_state);
    o->ngroups++;
    return c[G_NEW_STATE].failed ? -1 : 0;
}

/* a prefix: `nbytes` address bytes of a `width`-byte family, bits past `plen` cleared (nlri.py) */
int mrt_emit_route(mrt_out *o, const uint8_t *addr, int nbytes, int width, int plen, int64_t path_id)
{
    uint8_t a[16] = {0};
    memcpy(a, addr, (size_t)(nbytes < width ? nbytes : width));
    for (int i = 0; i < 16; i++) {
        int bits = plen - 8 * i;
        a[i] = bits >= 8 ? a[i] : bits <= 0 ? 0 : (uint8_t)(a[i] & (0xFF << (8 - bits)));
    }
    uint64_t hi = 0, lo = 0;
    if (width == 4) {
        lo = get32(a);
    } else {
        for (int i = 0; i < 8; i++) {
            hi = hi << 8 | a[i];
            lo = lo << 8 | a[8 + i];
        }
    }
    COLUMN_PUT(&o->t[T_HI], uint64_t, hi);
    COLUMN_PUT(&o->t[T_LO], uint64_t, lo);
    COLUMN_PUT(&o->t[T_PLEN], uint8_t, (uint8_t)plen);
    COLUMN_PUT(&o->t[T_PATH_ID], int64_t, path_id);
    o->nroutes++;
    return o->t[T_PATH_ID].failed ? -1 : 0;
}

void mrt_out_free(mrt_out *o)
{
    for (int i = 0; i < G_NCOLS; i++)
        column_free(&o->g[i]);
    for (int i = 0; i < T_NCOLS; i++)
        column_free(&o->t[i]);
    column_free(&o->warnings);
    intern_free(&o->paths);
    memset(o, 0, sizeof *o);
}

/* groups and routes back to where they were (a record whose groups are dropped) */
void mrt_out_rollback(mrt_out *o, Py_ssize_t ngroups, Py_ssize_t nroutes)
{
    for (int i = 0; i < G_NCOLS; i++)
        o->g[i].len = ngroups * mrt_group_cols[i].size;
    for (int i = 0; i < T_NCOLS; i++)
        o->t[i].len = nroutes * mrt_route_cols[i].size;
    o->ngroups = ngroups;
    o->nroutes = nroutes;
}

/* the columns as dicts of bytes, the peers added, the paths, the warnings */
PyObject *mrt_out_columns(mrt_out *o, int routes)
{
    PyObject *d = PyDict_New();
    int n = routes ? T_NCOLS : G_NCOLS;
    for (int i = 0; d && i < n; i++) {
        PyObject *b = column_take(routes ? &o->t[i] : &o->g[i]);
        if (b == NULL || PyDict_SetItemString(d, routes ? mrt_route_cols[i].name : mrt_group_cols[i].name, b) < 0)
            Py_CLEAR(d);
        Py_XDECREF(b);
    }
    return d;
}

PyObject *mrt_out_warnings(mrt_out *o)
{
    PyObject *l = PyList_New(0);
    for (Py_ssize_t p = 0; l && p < o->warnings.len;) {
        const char *s = o->warnings.data + p;
        Py_ssize_t len = (Py_ssize_t)strlen(s);
        PyObject *t = PyUnicode_DecodeLatin1(s, len, NULL);
        if (t == NULL || PyList_Append(l, t) < 0)
            Py_CLEAR(l);
        Py_XDECREF(t);
        p += len + 1;
    }
    return l;
}

