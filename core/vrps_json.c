/* The JSON relying parties write (rpki.vrps.input_json): rpki-client's (output-json.c) and
 * Routinator's json and jsonext. The whole text is checked as JSON (json.c); the ROAs are read into
 * columns here; every other top-level value is handed back as a span of the text, for the caller
 * to read (metadata, router keys, ASPAs: a few entries, not a million). Which tool wrote the file
 * is told by the metadata, which may come after the ROAs: the keys only one tool writes are noted
 * (json_doc) for the caller to judge. */
#include "json.h"

static const char *const ROA_KEYS[] = {"asn", "prefix", "maxLength", "ta", "expires", "source"};
enum { ASN, PREFIX, MAXLENGTH, TA, EXPIRES, SOURCE, NKEYS };

/* a ROA's key by its length, each compared at a fixed length (no call per key of a million ROAs) */
static int roa_key(const unsigned char *k, Py_ssize_t n)
{
    switch (n) {
    case 2: return memcmp(k, "ta", 2) == 0 ? TA : -1;
    case 3: return memcmp(k, "asn", 3) == 0 ? ASN : -1;
    case 6: return memcmp(k, "prefix", 6) == 0 ? PREFIX : memcmp(k, "source", 6) == 0 ? SOURCE : -1;
    case 7: return memcmp(k, "expires", 7) == 0 ? EXPIRES : -1;
    case 9: return memcmp(k, "maxLength", 9) == 0 ? MAXLENGTH : -1;
    default: return -1;
    }
}
/* the keys each tool allows in a ROA, for the message that names an unknown one */
static const char *const WANT[] = {
    "asn, expires, maxLength, prefix, ta (rpki-client) or asn, maxLength, prefix, ta or source (Routinator)",
    "asn, expires, maxLength, prefix, ta", "asn, maxLength, prefix, source or ta"};

typedef struct {
    const unsigned char *p;   /* the value's text */
    Py_ssize_t n;
    int kind;                 /* '"' string, '0' integer, 'x' anything else */
} raw;

typedef struct {
    raw v[NKEYS];
    unsigned have;
    const unsigned char *text[3];       /* asn, prefix, ta decoded: in the document or in buf */
    unsigned char buf[3][MAX_FIELD];
    Py_ssize_t len[3];
    Py_ssize_t index;
    int source_ta;            /* jsonext: the trust anchor of the first source with one, -1 none */
    vrp_columns *o;
    json_doc *d;
} roa;

static int at(json *j, Py_ssize_t index, const char *key)
{
    fault *f = j->f;
    f->where = WHERE_PATH;
    if (key)
        snprintf(f->path, sizeof f->path, "roas[%zd].%s", index, key);
    else
        snprintf(f->path, sizeof f->path, "roas[%zd]", index);
    return -1;
}

/* a value kept as text, and decoded (json.c string: buf, text, len) when it is a string */
static int keep(json *j, raw *r, unsigned char *buf, const unsigned char **text, Py_ssize_t *len)
{
    const unsigned char *start = j->p;
    int integer = 0;
    if (j->p < j->end && *j->p == '"') {
        if (string(j, buf, text, len) < 0)
            return -1;
        r->kind = '"';
    } else if (j->p < j->end && (*j->p == '-' || (unsigned)*j->p - '0' < 10)) {
        if (number(j, &integer) < 0)
            return -1;
        r->kind = integer ? '0' : 'x';
    } else {
        if (value(j) < 0)
            return -1;
        r->kind = 'x';
    }
    r->p = start, r->n = j->p - start;
    return 0;
}

/* ---- jsonext's "source": a list of objects, the first "tal" naming the trust anchor ------------- */

static const char *const SOURCE_KEYS[] = {"type", "uri", "tal", "validity", "chainValidity", "stale", "path",
                                          "comment"};
typedef struct {
    roa *r;
    Py_ssize_t index;
    unsigned have;
    unsigned char type_buf[MAX_FIELD], tal_buf[MAX_FIELD];
    const unsigned char *type, *tal;
    Py_ssize_t type_len, tal_len;
    raw type_raw, tal_raw;
} source;

static int source_member(json *j, const unsigned char *k, Py_ssize_t n, void *arg)
{
    source *s = arg;
    int key = -1;
    for (int i = 0; i < 8; i++)
        if ((size_t)n == strlen(SOURCE_KEYS[i]) && memcmp(k, SOURCE_KEYS[i], (size_t)n) == 0)
            key = i;
    char where[64];
    snprintf(where, sizeof where, "source[%zd].%.*s", s->index, (int)(n < 24 ? n : 24), (const char *)k);
    if (key < 0 || s->have & 1u << key) {
        fault_set(j->f, key < 0 ? "unknown key {!r}; want chainValidity, stale, tal, type, uri, validity (or "
                                  "comment, path, type for an exception)" : "key {!r} appears twice");
        fault_text(j->f, k, n);
        return at(j, s->r->index, where);
    }
    s->have |= 1u << key;
    if (key == 0)
        return keep(j, &s->type_raw, s->type_buf, &s->type, &s->type_len);
    if (key == 2)
        return keep(j, &s->tal_raw, s->tal_buf, &s->tal, &s->tal_len);
    return value(j);
}

static int source_element(json *j, Py_ssize_t i, void *arg)
{
    roa *r = arg;
    source s = {.r = r, .index = i};
    char where[48];
    snprintf(where, sizeof where, "source[%zd]", i);
    if (j->p < j->end && *j->p == '{') {
        j->p++;
        if (object(j, source_member, &s) < 0)
            return -1;
    } else if (value(j) < 0) {
        return -1;
    }
    int exception = s.type_len == 9 && memcmp(s.type, "exception", 9) == 0;
    int signed_ = (s.type_len == 3 && (memcmp(s.type, "roa", 3) == 0 || memcmp(s.type, "cer", 3) == 0))
                  || (s.type_len == 4 && memcmp(s.type, "aspa", 4) == 0);
    if (!(s.have & 1) || s.type_raw.kind != '"' || !(exception || signed_)) {
        fault_set(j->f, "want a source of type roa, cer, aspa, exception, got {!r}");
        if (s.have & 1)
            fault_json(j->f, s.type_raw.p, s.type_raw.n);
        else
            fault_json(j->f, (const unsigned char *)"null", 4);
        return at(j, r->index, where);
    }
    unsigned allowed = exception ? 1u | 1u << 6 | 1u << 7 : 0x3Fu;
    for (int k = 0; k < 8; k++)
        if (s.have & ~allowed & 1u << k) {
            char w[64];
            snprintf(w, sizeof w, "source[%zd].%s", i, SOURCE_KEYS[k]);
            fault_set(j->f, exception ? "unknown key {!r}; want comment, path, type"
                                      : "unknown key {!r}; want chainValidity, stale, tal, type, uri, validity");
            fault_text(j->f, (const unsigned char *)SOURCE_KEYS[k], (Py_ssize_t)strlen(SOURCE_KEYS[k]));
            return at(j, r->index, w);
        }
    if (s.have & 1u << 2) {
        uint16_t ta;
        snprintf(where, sizeof where, "source[%zd].tal", i);
        if (s.tal_raw.kind != '"' || s.tal_len < 0) {
            fault_set(j->f, "want a trust anchor name (printable, no comma, quote or backslash, at most 256 "
                            "characters), got {!r}");
            fault_json(j->f, s.tal_raw.p, s.tal_raw.n);
            return at(j, r->index, where);
        }
        if (add_ta(r->o, s.tal, s.tal_len, r->index, j->f, &ta) < 0)
            return at(j, r->index, where);
        if (r->source_ta < 0)
            r->source_ta = ta;
    }
    return 0;
}

/* ---- a ROA ------------------------------------------------------------------------------------ */

static int roa_member(json *j, const unsigned char *k, Py_ssize_t n, void *arg)
{
    roa *r = arg;
    int key = roa_key(k, n);
    int tool = r->d->tool;
    if ((key == SOURCE && tool == TOOL_RPKI_CLIENT) || (key == EXPIRES && tool == TOOL_ROUTINATOR))
        key = -1;  /* a key the other tool writes */
    if (key < 0 || r->have & 1u << key) {
        fault_set(j->f, key < 0 ? "unknown key {!r}; want {}" : "key {!r} appears twice");
        fault_text(j->f, k, n);
        if (key < 0)
            fault_text(j->f, (const unsigned char *)WANT[tool], (Py_ssize_t)strlen(WANT[tool]));
        char name[40];
        snprintf(name, sizeof name, "%.*s", (int)(n < 32 ? n : 32), (const char *)k);
        return at(j, r->index, name);
    }
    r->have |= 1u << key;
    if (key == SOURCE) {
        const unsigned char *start = j->p;
        if (j->p < j->end && *j->p == '[') {
            j->p++;
            if (list(j, source_element, r) < 0)
                return -1;
        } else if (value(j) < 0) {
            return -1;
        }
        r->v[SOURCE] = (raw){start, j->p - start, *start == '[' ? '[' : 'x'};
        return 0;
    }
    int t = key == ASN ? 0 : key == PREFIX ? 1 : key == TA ? 2 : -1;
    return keep(j, &r->v[key], t >= 0 ? r->buf[t] : NULL, t >= 0 ? &r->text[t] : NULL, t >= 0 ? &r->len[t] : NULL);
}

/* an integer's value, if it is one from 0 to `max` */
static int integer(const raw *v, uint64_t max, uint64_t *out)
{
    return v->kind == '0' && v->p[0] != '-' && parse_decimal(v->p, v->p + v->n, 20, out) == 0 && *out <= max
           && v->n <= 19 ? 0 : -1;
}

static int roa_element(json *j, Py_ssize_t i, void *arg)
{
    roa *r = arg;
    json_doc *d = r->d;
    fault *f = j->f;
    r->have = 0, r->index = i, r->source_ta = -1;
    if (j->p == j->end || *j->p != '{') {
        const unsigned char *start = j->p;
        if (value(j) < 0)
            return -1;
        fault_set(f, "want an object, got {}");
        fault_json(f, start, j->p - start);
        f->values[0].kind = VALUE_KIND;
        return at(j, i, NULL);
    }
    j->p++;
    if (object(j, roa_member, r) < 0)
        return -1;
    for (int k = 0; k < 3; k++)
        if (!(r->have & 1u << k)) {
            fault_set(f, "missing key {!r}");
            fault_text(f, (const unsigned char *)ROA_KEYS[k], (Py_ssize_t)strlen(ROA_KEYS[k]));
            return at(j, i, ROA_KEYS[k]);
        }
    int ta = r->have >> TA & 1, src = r->have >> SOURCE & 1;
    if (src && d->with_source < 0)
        d->with_source = i;
    if (r->have >> EXPIRES & 1 && d->with_expires < 0)
        d->with_expires = i;
    if (ta && src && d->with_ta_and_source < 0)
        d->with_ta_and_source = i;
    if (!ta && !src && d->without_ta_or_source < 0)
        d->without_ta_or_source = i;
    if (src && r->v[SOURCE].kind != '[') {
        fault_set(f, "want a list, got {}");
        fault_json(f, r->v[SOURCE].p, r->v[SOURCE].n);
        f->values[0].kind = VALUE_KIND;
        return at(j, i, "source");
    }
    /* rpki.vrps.input_json's order: prefix, maxLength, asn, ta, expires */
    int version;
    uint64_t hi, lo, maxlen, asn, expires = 0;
    unsigned plen;
    const raw *v = &r->v[PREFIX];
    if (v->kind != '"' || r->len[1] < 0) {
        fault_set(f, "want a prefix like 192.0.2.0/24 or 2001:db8::/32, got {!r}");
        fault_json(f, v->p, v->n);
        return at(j, i, "prefix");
    }
    if (parse_prefix_text(r->text[1], r->text[1] + r->len[1], f, &version, &hi, &lo, &plen) < 0)
        return at(j, i, "prefix");
    v = &r->v[MAXLENGTH];
    if (integer(v, 128, &maxlen) < 0)
        maxlen = 255;  /* out of range, whatever it is */
    if (check_max_length(maxlen, version, plen, r->text[1], r->len[1], v->p, v->n, f) < 0)
        return at(j, i, "maxLength");
    v = &r->v[ASN];
    if (v->kind == '"') {
        if (r->len[0] < 3 || r->text[0][0] != 'A' || r->text[0][1] != 'S'
            || parse_decimal(r->text[0] + 2, r->text[0] + r->len[0], 10, &asn) < 0 || asn > MAX_ASN) {
            fault_set(f, "want an AS number such as 64496 or \"AS64496\", got {!r}");
            fault_json(f, v->p, v->n);
            return at(j, i, "asn");
        }
    } else if (integer(v, MAX_ASN, &asn) < 0) {
        fault_set(f, "want an AS number from 0 to 4294967295, got {!r}");
        fault_json(f, v->p, v->n);
        return at(j, i, "asn");
    }
    uint16_t index;
    if (ta) {
        v = &r->v[TA];
        if (v->kind != '"' || r->len[2] < 0) {
            fault_set(f, "want a trust anchor name (printable, no comma, quote or backslash, at most 256 "
                         "characters), got {!r}");
            fault_json(f, v->p, v->n);
            return at(j, i, "ta");
        }
        if (add_ta(r->o, r->text[2], r->len[2], i, f, &index) < 0)
            return at(j, i, "ta");
    } else if (r->source_ta >= 0) {
        index = (uint16_t)r->source_ta;
    } else if (add_ta(r->o, (const unsigned char *)"N/A", 3, i, f, &index) < 0) {
        return at(j, i, NULL);
    }
    if (r->have >> EXPIRES & 1 && integer(&r->v[EXPIRES], INT64_MAX, &expires) < 0) {
        fault_set(f, "want 'expires' as a Unix time (a non-negative integer), got {!r}");
        fault_json(f, r->v[EXPIRES].p, r->v[EXPIRES].n);
        return at(j, i, "expires");
    }
    if (put_vrp(r->o, (uint32_t)asn, version, hi, lo, plen, (unsigned)maxlen, index,
                r->have >> EXPIRES & 1 ? (int64_t)expires : -1) < 0) {
        fault_set(f, "out of memory");
        return at(j, i, NULL);
    }
    return 0;
}

/* ---- the top level ---------------------------------------------------------------------------- */

typedef struct {
    vrp_columns *o;
    json_doc *d;
} top;

/* ---- the list of ROAs, a big one read by two threads ------------------------------------------ */

#define SPLIT_SEARCH (1 << 16)   /* bytes past the middle searched for an element's start */

/* The second half of a big list of ROAs (vrps.h, SPLIT_MIN), from an element's start near the
 * middle (`start`), its elements numbered from 0. `start` is a guess that may be inside a string:
 * the half is taken only if the first thread's reading stops exactly there. */
typedef struct {
    split s;
    roa r;
    json j;
    json_doc d;
    const unsigned char *start;
    Py_ssize_t count;
} half;

static int is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* where an element seems to start a little past the middle of p..end: a '{' after "}," and
 * whitespace; NULL if none within SPLIT_SEARCH bytes */
static const unsigned char *middle(const unsigned char *p, const unsigned char *end)
{
    const unsigned char *q = p + (end - p) / 2, *last = end - q > SPLIT_SEARCH ? q + SPLIT_SEARCH : end;
    while ((q = memchr(q, '}', (size_t)(last - q))) != NULL) {
        const unsigned char *k = ++q;
        while (k < end && is_ws(*k))
            k++;
        if (k == end || *k++ != ',')
            continue;
        while (k < end && is_ws(*k))
            k++;
        if (k < end && *k == '{')
            return k;
    }
    return NULL;
}

static int half_element(json *j, Py_ssize_t i, void *arg)
{
    half *h = arg;
    return split_unwanted(&h->s) ? -1 : roa_element(j, i, &h->r);
}

static int read_half(split *s)
{
    half *h = (half *)s;
    return list_part(&h->j, half_element, h, &h->count, NULL);
}

/* the second half started on its thread (j: the first element's start), or NULL: a list too short,
 * no element's start found, no thread to be had */
static half *start_half(json *j, top *t)
{
    const unsigned char *start = j->end - j->p >= SPLIT_MIN ? middle(j->p, j->end) : NULL;
    half *h = start ? (half *)split_new(sizeof *h, j->end - start) : NULL;
    if (h == NULL)
        return NULL;
    h->start = start;
    h->j = (json){j->s, start, j->end, &h->s.f, j->depth};
    h->d = *t->d;  /* the tool, told by the metadata before the ROAs */
    h->d.with_source = h->d.with_expires = h->d.with_ta_and_source = h->d.without_ta_or_source = -1;
    h->r = (roa){.o = &h->s.o, .d = &h->d};
    return split_run(&h->s, read_half) == 0 ? h : NULL;
}

static void first_of(Py_ssize_t *mine, Py_ssize_t theirs, Py_ssize_t from)
{
    if (*mine < 0 && theirs >= 0)
        *mine = from + theirs;
}

/* the second half's VRPs after the first's (`from`: the number of its first element) */
static int join_half(top *t, half *h, Py_ssize_t from, fault *f)
{
    if (vrp_columns_join(t->o, &h->s.o, from, f) < 0)
        return -1;
    json_doc *d = t->d;
    first_of(&d->with_source, h->d.with_source, from);
    first_of(&d->with_expires, h->d.with_expires, from);
    first_of(&d->with_ta_and_source, h->d.with_ta_and_source, from);
    first_of(&d->without_ta_or_source, h->d.without_ta_or_source, from);
    return 0;
}

/* the ROAs, from after the list's '[' */
static int roas(json *j, top *t)
{
    roa r = {.o = t->o, .d = t->d};
    Py_ssize_t i = 0;
    int rc = open_items(j, ']');
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    half *h = start_half(j, t);
    rc = list_part(j, roa_element, &r, &i, h ? h->start : NULL);
    if (h == NULL)
        return rc;
    int theirs = split_wait(&h->s, rc == 1);
    if (rc == 1 && theirs == 0 && join_half(t, h, i, j->f) == 0) {
        j->p = h->j.p, j->depth = h->j.depth;
        rc = 0;
    } else if (rc == 1) {
        rc = list_part(j, roa_element, &r, &i, NULL);
    }
    split_free(&h->s);
    return rc;
}

static int metadata_key(json *j, const unsigned char *k, Py_ssize_t n, void *arg)
{
    int *tool = arg;
    if (n == 9 && memcmp(k, "buildtime", 9) == 0)
        *tool = TOOL_RPKI_CLIENT;
    else if (n == 9 && memcmp(k, "generated", 9) == 0 && *tool == TOOL_UNKNOWN)
        *tool = TOOL_ROUTINATOR;
    return value(j);
}

static int top_member(json *j, const unsigned char *k, Py_ssize_t n, void *arg)
{
    top *t = arg;
    json_doc *d = t->d;
    json_span *s = &d->spans[d->nspans];
    if (d->nspans == MAX_SPANS || n < 0 || n >= (Py_ssize_t)sizeof s->key) {
        fault_set(j->f, "unknown key {!r}");
        fault_text(j->f, k, n < 0 ? 0 : n < 64 ? n : 64);
        j->f->where = WHERE_NONE;
        return -1;
    }
    int duplicate = 0;
    for (int i = 0; i < d->nspans; i++)
        duplicate |= (Py_ssize_t)strlen(d->spans[i].key) == n && memcmp(d->spans[i].key, k, (size_t)n) == 0;
    memcpy(s->key, k, (size_t)n);
    s->key[n] = 0;
    s->start = j->p - j->s;
    s->duplicate = duplicate;
    s->read = 0;
    if (n == 4 && memcmp(k, "roas", 4) == 0 && !duplicate && j->p < j->end && *j->p == '[') {
        j->p++;
        if (roas(j, t) < 0)
            return -1;
        s->read = 1;
    } else if (n == 8 && memcmp(k, "metadata", 8) == 0 && j->p < j->end && *j->p == '{') {
        j->p++;
        if (object(j, metadata_key, &d->tool) < 0)
            return -1;
    } else if (value(j) < 0) {
        return -1;
    }
    s->end = j->p - j->s;
    d->nspans++;
    return 0;
}

int read_vrp_json(const unsigned char *p, Py_ssize_t n, vrp_columns *o, json_doc *d, fault *f)
{
    json j = {p, p, p + n, f, 0};
    top t = {o, d};
    d->nspans = 0;
    d->tool = TOOL_UNKNOWN;
    d->with_source = d->with_expires = d->with_ta_and_source = d->without_ta_or_source = -1;
    ws(&j);
    d->top_start = j.p - p;
    if (j.p < j.end && *j.p == '{') {
        j.p++;
        if (object(&j, top_member, &t) < 0)
            return -1;
    } else if (value(&j) < 0) {
        return -1;
    }
    d->top_end = j.p - p;
    ws(&j);
    if (j.p != j.end)
        return syntax(&j, "bad JSON: want nothing after the value");
    return 0;
}
