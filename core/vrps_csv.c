/* The CSV flavours relying parties write (rpki.vrps.input_csv): Routinator's csv, csvcompat and
 * csvext, and rpki-client's CSV (output-csv.c, with Expires), each told by its header line. Fields
 * never hold commas, so a line is split on them; one CR before the newline is allowed; a blank line
 * is a fault, like any line without the header's number of fields. */
#include "vrps.h"

enum { CSV, RPKI_CLIENT_CSV, CSVCOMPAT, CSVEXT };
static const struct {
    const char *header, *name;
    int fields;
} FLAVOURS[] = {
    {"ASN,IP Prefix,Max Length,Trust Anchor", "csv", 4},
    {"ASN,IP Prefix,Max Length,Trust Anchor,Expires", "rpki-client-csv", 5},
    {"\"ASN\",\"IP Prefix\",\"Max Length\",\"Trust Anchor\"", "csvcompat", 4},
    {"URI,ASN,IP Prefix,Max Length,Not Before,Not After", "csvext", 6},
};
#define MAX_FIELDS 6

/* a line's text for a message: its first 80 characters */
static void fault_line(fault *f, const unsigned char *s, const unsigned char *e)
{
    const unsigned char *p = s;
    for (int chars = 0; p < e; p++)
        if ((*p & 0xC0) != 0x80 && ++chars > 80)
            break;
    fault_text(f, s, p - s);
}

static int digits(const unsigned char *s, int n)
{
    for (int i = 0; i < n; i++)
        if ((unsigned)s[i] - '0' > 9)
            return -1;
    return 0;
}

static int number(const unsigned char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

/* "N/A" or a time as "2017-08-25 13:12:19" (Routinator's csvext) */
static int csv_time(const unsigned char *s, const unsigned char *e, fault *f)
{
    static const int DAYS[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (e - s == 3 && memcmp(s, "N/A", 3) == 0)
        return 0;
    if (e - s == 19 && s[4] == '-' && s[7] == '-' && s[10] == ' ' && s[13] == ':' && s[16] == ':'
        && digits(s, 4) == 0 && digits(s + 5, 2) == 0 && digits(s + 8, 2) == 0 && digits(s + 11, 2) == 0
        && digits(s + 14, 2) == 0 && digits(s + 17, 2) == 0) {
        int y = number(s, 4), m = number(s + 5, 2), d = number(s + 8, 2);
        int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        if (y >= 1 && m >= 1 && m <= 12 && d >= 1 && d <= DAYS[m - 1] - (m == 2 && !leap)
            && number(s + 11, 2) < 24 && number(s + 14, 2) < 60 && number(s + 17, 2) < 62)
            return 0;
    }
    fault_set(f, "want a time like 2017-08-25 13:12:19 or N/A, got {!r}");
    fault_text(f, s, e - s);
    return -1;
}

/* fields.parse_asn_text: "AS64496"; csvcompat also "64496" */
static int csv_asn(const unsigned char *s, const unsigned char *e, int bare_ok, fault *f, uint32_t *asn)
{
    uint64_t v;
    const unsigned char *d = e - s >= 2 && s[0] == 'A' && s[1] == 'S' ? s + 2 : bare_ok ? s : NULL;
    if (d != NULL && parse_decimal(d, e, 10, &v) == 0 && v <= MAX_ASN) {
        *asn = (uint32_t)v;
        return 0;
    }
    fault_set(f, "want an AS number like AS64496, got {!r}");
    fault_text(f, s, e - s);
    return -1;
}

/* one data line [s, e), its CR gone */
static int csv_line(int flavour, const unsigned char *s, const unsigned char *e, Py_ssize_t line, vrp_columns *o,
                    fault *f)
{
    const unsigned char *fs[MAX_FIELDS + 1], *fe[MAX_FIELDS + 1];
    int want = FLAVOURS[flavour].fields, n = 0;
    fs[0] = s;
    for (const unsigned char *p = s; p < e; p++)
        if (*p == ',') {
            if (n < MAX_FIELDS)
                fe[n] = p, fs[n + 1] = p + 1;
            n++;
        }
    if (n < MAX_FIELDS + 1)
        fe[n] = e;
    if (++n != want) {
        fault_set(f, "want {} comma-separated fields, got {}: {!r}");
        fault_int(f, want), fault_int(f, n), fault_line(f, s, e);
        return -1;
    }
    if (flavour == CSVCOMPAT) {
        for (int i = 0; i < n; i++) {
            if (fe[i] - fs[i] < 2 || fs[i][0] != '"' || fe[i][-1] != '"'
                || memchr(fs[i] + 1, '"', (size_t)(fe[i] - fs[i] - 2)) != NULL) {
                fault_set(f, "want every field in double quotes: {!r}");
                fault_line(f, s, e);
                return -1;
            }
            fs[i]++, fe[i]--;
        }
    }
    int a = 0;  /* the ASN's field; the prefix, maxLength (and trust anchor) follow */
    uint16_t ta;
    int64_t expires = -1;
    if (flavour == CSVEXT) {
        a = 1;
        int printable = fe[0] > fs[0];
        for (const unsigned char *p = fs[0]; p < fe[0]; p++)
            printable &= *p >= 0x20 && *p != 0x7f;
        if (!printable) {
            fault_set(f, "want a URI or N/A, got {!r}");
            fault_text(f, fs[0], fe[0] - fs[0]);
            return -1;
        }
        if (csv_time(fs[4], fe[4], f) < 0 || csv_time(fs[5], fe[5], f) < 0
            || add_ta(o, (const unsigned char *)"N/A", 3, line, f, &ta) < 0)
            return -1;
    } else {
        if (add_ta(o, fs[3], fe[3] - fs[3], line, f, &ta) < 0)
            return -1;
        if (flavour == RPKI_CLIENT_CSV) {
            uint64_t t;
            if (parse_decimal(fs[4], fe[4], 19, &t) < 0 || t >= (1ULL << 63)) {
                fault_set(f, "want Expires as a Unix time, got {!r}");
                fault_text(f, fs[4], fe[4] - fs[4]);
                return -1;
            }
            expires = (int64_t)t;
        }
    }
    int version;
    uint64_t hi, lo, maxlen;
    unsigned plen;
    uint32_t asn;
    if (parse_prefix_text(fs[a + 1], fe[a + 1], f, &version, &hi, &lo, &plen) < 0)
        return -1;
    if (parse_decimal(fs[a + 2], fe[a + 2], 10, &maxlen) < 0) {
        fault_set(f, "want a Max Length from {} to {}, got {!r}");
        fault_int(f, plen), fault_int(f, version == 6 ? 128 : 32), fault_text(f, fs[a + 2], fe[a + 2] - fs[a + 2]);
        return -1;
    }
    if (check_max_length(maxlen, version, plen, fs[a + 1], fe[a + 1] - fs[a + 1], fs[a + 2], fe[a + 2] - fs[a + 2],
                         f) < 0
        || csv_asn(fs[a], fe[a], flavour == CSVCOMPAT, f, &asn) < 0)
        return -1;
    if (put_vrp(o, asn, version, hi, lo, plen, (unsigned)maxlen, ta, expires) < 0) {
        fault_set(f, "out of memory");
        return -1;
    }
    return 0;
}

/* the data lines from s to end, numbered after *line; a second half (`half`, else NULL) stops once
 * it is not wanted (-1) */
static int csv_lines(int which, const unsigned char *s, const unsigned char *end, Py_ssize_t *line, vrp_columns *o,
                     fault *f, split *half)
{
    while (s < end) {  /* a last line without a newline is a line; nothing after the last newline is none */
        const unsigned char *e = memchr(s, '\n', (size_t)(end - s));
        const unsigned char *next = e ? e + 1 : end;
        if (e == NULL)
            e = end;
        ++*line;
        if (e > s && e[-1] == '\r')
            e--;
        if (csv_line(which, s, e, *line, o, f) < 0) {
            f->line = *line;
            return -1;
        }
        if (half != NULL && split_unwanted(half))
            return -1;
        s = next;
    }
    return 0;
}

/* The second half of a big file (vrps.h, SPLIT_MIN): its lines from the one after the first newline
 * past the middle, numbered from 1. */
typedef struct {
    split s;
    int which;
    const unsigned char *start, *end;
    Py_ssize_t line;
} half;

static int read_half(split *s)
{
    half *h = (half *)s;
    s->f.where = WHERE_LINE;
    return csv_lines(h->which, h->start, h->end, &h->line, &s->o, &s->f, s);
}

/* the second half started on its thread (s: the first data line), or NULL: a file too short, no
 * thread to be had */
static half *start_half(int which, const unsigned char *s, const unsigned char *end)
{
    const unsigned char *nl = end - s >= SPLIT_MIN ? memchr(s + (end - s) / 2, '\n', (size_t)(end - s) / 2) : NULL;
    half *h = nl != NULL && nl + 1 < end ? (half *)split_new(sizeof *h, end - nl - 1) : NULL;
    if (h == NULL)
        return NULL;
    h->which = which, h->start = nl + 1, h->end = end;
    return split_run(&h->s, read_half) == 0 ? h : NULL;
}

int read_vrp_csv(const unsigned char *p, Py_ssize_t n, vrp_columns *o, fault *f, const char **flavour)
{
    const unsigned char *end = p + n, *nl = memchr(p, '\n', (size_t)n);
    const unsigned char *he = nl ? nl : end;
    int which = -1;
    f->where = WHERE_LINE;
    f->line = 1;
    if (he > p && he[-1] == '\r')
        he--;
    for (int k = 0; k < 4; k++)
        if ((size_t)(he - p) == strlen(FLAVOURS[k].header) && memcmp(p, FLAVOURS[k].header, (size_t)(he - p)) == 0)
            which = k;
    if (which < 0) {
        fault_set(f, "want a CSV header such as 'ASN,IP Prefix,Max Length,Trust Anchor'");
        return -1;
    }
    *flavour = FLAVOURS[which].name;
    Py_ssize_t line = 1;
    const unsigned char *s = nl ? nl + 1 : end;
    half *h = start_half(which, s, end);
    if (h == NULL)
        return csv_lines(which, s, end, &line, o, f, NULL);
    int rc = csv_lines(which, s, h->start, &line, o, f, NULL);
    int theirs = split_wait(&h->s, rc == 0);
    if (rc == 0 && (theirs < 0 || vrp_columns_join(o, &h->s.o, line, f) < 0))
        rc = csv_lines(which, h->start, end, &line, o, f, NULL);
    split_free(&h->s);
    return rc;
}
