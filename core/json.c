/* JSON (RFC 8259) walked strictly: no NaN or Infinity, no trailing commas, no raw control
 * characters in strings, nothing after the value, nesting bounded. The readers of JSON formats
 * (vrps_json.c) walk a document with it, taking the values they read and passing over the rest. */
#include "json.h"

#define MAX_DEPTH 512

int syntax(json *j, const char *message)
{
    fault_set(j->f, message);
    j->f->where = WHERE_POSITION;
    j->f->line = j->p - j->s;  /* an offset, made line:column by the caller */
    return -1;
}

void ws(json *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static int hex4(const unsigned char *p, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = p[i], d = c - '0' < 10 ? c - '0' : (c | 0x20) - 'a' < 6 ? (c | 0x20) - 'a' + 10 : 16;
        if (d > 15)
            return -1;
        *v = *v << 4 | d;
    }
    return 0;
}

/* How many of the 8 bytes at q are plain characters of a string before one that is not: a quote, a
 * backslash or a control character (8: all are). A word at a time: the lowest flag of each test
 * below is exact (a borrow only flags bytes above a true one). */
static inline int plain_run(const unsigned char *q)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    uint64_t w, quote, slash;
    memcpy(&w, q, 8);
    quote = w ^ ones * '"', slash = w ^ ones * '\\';
    uint64_t stop = ((quote - ones) & ~quote) | ((slash - ones) & ~slash) | ((w - ones * 0x20) & ~w);
    stop &= high;
    return stop ? __builtin_ctzll(stop) >> 3 : 8;
#else
    int k = 0;
    while (k < 8 && q[k] != '"' && q[k] != '\\' && q[k] >= 0x20)
        k++;
    return k;
#endif
}

/* bytes appended to a decoded string (buf: MAX_FIELD bytes; *k -1 once it would overflow) */
static void append(unsigned char *buf, Py_ssize_t *k, const unsigned char *p, Py_ssize_t n)
{
    if (buf == NULL)
        return;
    if (*k >= 0 && *k + n <= MAX_FIELD)
        memcpy(buf + *k, p, (size_t)n), *k += n;
    else
        *k = -1;
}

/* A string at j->p (its quote). With buf (MAX_FIELD bytes), *text is its decoded text and *n its
 * length (-1 if longer than MAX_FIELD): the text in the document itself when the string has no
 * escape (nearly all do: nothing copied), else decoded into buf. */
int string(json *j, unsigned char *buf, const unsigned char **text, Py_ssize_t *n)
{
    const unsigned char *start = ++j->p;
    Py_ssize_t k = 0;
    int escaped = 0;
    for (;;) {
        const unsigned char *q = j->p;
        int k8 = 8;
        while (k8 == 8 && j->end - q >= 8)
            q += k8 = plain_run(q);
        while (q < j->end && *q != '"' && *q != '\\' && *q >= 0x20)
            q++;
        if (q == j->end)
            return j->p = q, syntax(j, "bad JSON: a string without its closing quote");
        if (escaped || *q == '\\')  /* decoded into buf from the first escape on */
            append(buf, &k, j->p, q - j->p);
        j->p = q;
        if (*q == '"')
            break;
        if (*q < 0x20)
            return syntax(j, "bad JSON: a control character in a string (RFC 8259 section 7: want it escaped)");
        unsigned char one[4];
        int len = 1;
        escaped = 1;
        if (j->end - q < 2)
            return syntax(j, "bad JSON: a string without its closing quote");
        switch (q[1]) {
        case '"': case '\\': case '/': one[0] = q[1]; break;
        case 'b': one[0] = '\b'; break;
        case 'f': one[0] = '\f'; break;
        case 'n': one[0] = '\n'; break;
        case 'r': one[0] = '\r'; break;
        case 't': one[0] = '\t'; break;
        case 'u': {
            unsigned u, lo;
            if (j->end - q < 6 || hex4(q + 2, &u) < 0)
                return syntax(j, "bad JSON: want four hex digits after \\u");
            if (u >= 0xD800 && u < 0xDC00 && j->end - q >= 12 && q[6] == '\\' && q[7] == 'u'
                && hex4(q + 8, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                j->p += 6;
            } else if (u >= 0xD800 && u < 0xE000) {
                u = 0xFFFD;  /* a lone surrogate: no character; no good field holds one */
            }
            if (u < 0x80) one[0] = (unsigned char)u;
            else if (u < 0x800) one[0] = (unsigned char)(0xC0 | u >> 6), one[1] = (unsigned char)(0x80 | (u & 63)), len = 2;
            else if (u < 0x10000) one[0] = (unsigned char)(0xE0 | u >> 12), one[1] = (unsigned char)(0x80 | (u >> 6 & 63)),
                one[2] = (unsigned char)(0x80 | (u & 63)), len = 3;
            else one[0] = (unsigned char)(0xF0 | u >> 18), one[1] = (unsigned char)(0x80 | (u >> 12 & 63)),
                one[2] = (unsigned char)(0x80 | (u >> 6 & 63)), one[3] = (unsigned char)(0x80 | (u & 63)), len = 4;
            j->p += 4;
            break;
        }
        default:
            return syntax(j, "bad JSON: an unknown escape in a string");
        }
        j->p += 2;
        append(buf, &k, one, len);
    }
    if (buf != NULL) {
        Py_ssize_t plain = j->p - start;
        *text = escaped ? buf : start;
        *n = escaped ? k : plain <= MAX_FIELD ? plain : -1;
    }
    j->p++;
    return 0;
}

/* A number (RFC 8259 section 6); *integer is set when it has no fraction and no exponent. */
int number(json *j, int *integer)
{
    const unsigned char *q = j->p;
    if (q < j->end && *q == '-')
        q++;
    if (q < j->end && *q == '0')
        q++;
    else if (q < j->end && *q >= '1' && *q <= '9')
        while (q < j->end && (unsigned)*q - '0' < 10)
            q++;
    else
        return syntax(j, "bad JSON: want a value");
    *integer = 1;
    if (q < j->end && *q == '.') {
        *integer = 0;
        if (++q == j->end || (unsigned)*q - '0' > 9)
            return j->p = q, syntax(j, "bad JSON: want digits after the decimal point");
        while (q < j->end && (unsigned)*q - '0' < 10)
            q++;
    }
    if (q < j->end && (*q | 0x20) == 'e') {
        *integer = 0;
        if (++q < j->end && (*q == '+' || *q == '-'))
            q++;
        if (q == j->end || (unsigned)*q - '0' > 9)
            return j->p = q, syntax(j, "bad JSON: want digits in the exponent");
        while (q < j->end && (unsigned)*q - '0' < 10)
            q++;
    }
    j->p = q;
    return 0;
}

/* into an object or list (after its opening bracket): 1 when it closes at once, 0 when an item
 * follows, -1 too deep */
int open_items(json *j, char close)
{
    if (++j->depth > MAX_DEPTH)
        return syntax(j, "bad JSON: nested too deeply");
    ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++, j->depth--;
        return 1;
    }
    return 0;
}

/* after an item: 1 when another follows (its comma passed), 0 when the bracket closes, -1 neither */
static int next_item(json *j, char close, const char *want)
{
    ws(j);
    if (j->p < j->end && *j->p == ',') {
        j->p++;
        ws(j);
        return 1;
    }
    if (j->p < j->end && *j->p == close) {
        j->p++, j->depth--;
        return 0;
    }
    return syntax(j, want);
}

/* the members of an object, from after its '{'; each key decoded into `key` for `member` */
int object(json *j, int (*member)(json *, const unsigned char *, Py_ssize_t, void *), void *arg)
{
    unsigned char buf[MAX_FIELD];
    const unsigned char *key;
    Py_ssize_t n;
    int more = open_items(j, '}');
    if (more != 0)
        return more < 0 ? -1 : 0;
    do {
        if (j->p == j->end || *j->p != '"')
            return syntax(j, "bad JSON: want a key in double quotes");
        if (string(j, buf, &key, &n) < 0)
            return -1;
        ws(j);
        if (j->p == j->end || *j->p != ':')
            return syntax(j, "bad JSON: want ':' after a key");
        j->p++;
        ws(j);
        if ((member ? member(j, key, n, arg) : value(j)) < 0)
            return -1;
    } while ((more = next_item(j, '}', "bad JSON: want ',' or '}' after a member of an object")) > 0);
    return more;
}

/* the elements of a list, from after its '['; `element` gets each (its index) */
int list(json *j, int (*element)(json *, Py_ssize_t, void *), void *arg)
{
    Py_ssize_t i = 0;
    int more = open_items(j, ']');
    if (more != 0)
        return more < 0 ? -1 : 0;
    return list_part(j, element, arg, &i, NULL);
}

/* the elements of a list from the one at j->p on (its first, or one after a comma), numbered from
 * *i: 0 once the list closes, -1 on a fault, 1 when the next element would start at `stop` */
int list_part(json *j, json_element element, void *arg, Py_ssize_t *i, const unsigned char *stop)
{
    int more;
    do {
        if (j->p == stop)
            return 1;
        if ((element ? element(j, (*i)++, arg) : value(j)) < 0)
            return -1;
    } while ((more = next_item(j, ']', "bad JSON: want ',' or ']' after an element of a list")) > 0);
    return more;
}

static int literal(json *j, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
        return -1;
    j->p += n;
    return 0;
}

/* any value, checked and passed over */
int value(json *j)
{
    int integer;
    if (j->p == j->end)
        return syntax(j, "bad JSON: want a value");
    switch (*j->p) {
    case '{': j->p++; return object(j, NULL, NULL);
    case '[': j->p++; return list(j, NULL, NULL);
    case '"': return string(j, NULL, NULL, NULL);
    case 't': if (literal(j, "true") == 0) return 0; break;
    case 'f': if (literal(j, "false") == 0) return 0; break;
    case 'n': if (literal(j, "null") == 0) return 0; break;
    case 'N': if (literal(j, "NaN") == 0) return j->p -= 3, syntax(j, "bad JSON: NaN is not JSON"); break;
    case 'I': if (literal(j, "Infinity") == 0) return j->p -= 8, syntax(j, "bad JSON: Infinity is not JSON"); break;
    case '-':
        if (literal(j, "-Infinity") == 0)
            return j->p -= 9, syntax(j, "bad JSON: -Infinity is not JSON");
        return number(j, &integer);
    default:
        if ((unsigned)*j->p - '0' < 10)
            return number(j, &integer);
    }
    return syntax(j, "bad JSON: want a value");
}

