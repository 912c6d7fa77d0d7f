/* Addresses and prefixes as text, as bgpdump prints them (bgpsim.wire.nlri.address_text): IPv4 as
 * inet_ntoa; IPv6 as bgpdump's fmt_ipv6 (RFC 4291 section 2.2): lower-case hex, the first longest
 * run of zero groups as "::" even when it is one group, and IPv4-compatible and IPv4-mapped
 * addresses (section 2.5.5) with the last 32 bits dotted. And IPv6 as RFC 5952 section 4 has it
 * (as Python's ipaddress writes it): no "::" for one zero group, no dotted quad. */
#include <string.h>

#include "text.h"

/* "00" to "99": two digits a division (a writer of numbers spends its time dividing) */
static const char PAIRS[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                            "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                            "8081828384858687888990919293949596979899";

int decimal_text(uint64_t v, int width, char *out)
{
    char d[24];
    int n = 24;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        n -= 2;
        memcpy(d + n, PAIRS + 2 * r, 2);
    }
    if (v >= 10) {
        n -= 2;
        memcpy(d + n, PAIRS + 2 * v, 2);
    } else {
        d[--n] = (char)('0' + v);
    }
    while (24 - n < width && n > 0)
        d[--n] = '0';
    memcpy(out, d + n, (size_t)(24 - n));
    return 24 - n;
}

/* an address's byte, 0 to 255 */
static int octet_text(unsigned v, char *out)
{
    if (v < 10) {
        out[0] = (char)('0' + v);
        return 1;
    }
    if (v < 100) {
        memcpy(out, PAIRS + 2 * v, 2);
        return 2;
    }
    out[0] = (char)('0' + v / 100);
    memcpy(out + 1, PAIRS + 2 * (v % 100), 2);
    return 3;
}

int ipv4_text(uint32_t a, char *out)
{
    int k = 0;
    for (int i = 3; i >= 0; i--) {
        k += octet_text(a >> (8 * i) & 255, out + k);
        if (i)
            out[k++] = '.';
    }
    return k;
}

static int hex(unsigned v, char *out)
{
    static const char DIGITS[] = "0123456789abcdef";
    int k = 0, started = 0;
    for (int s = 12; s >= 0; s -= 4) {
        unsigned d = v >> s & 15;
        if (d || started || s == 0)
            out[k++] = DIGITS[d], started = 1;
    }
    return k;
}

static void groups(uint64_t hi, uint64_t lo, unsigned w[8])
{
    for (int i = 0; i < 4; i++)
        w[i] = (unsigned)(hi >> (48 - 16 * i) & 0xFFFF), w[4 + i] = (unsigned)(lo >> (48 - 16 * i) & 0xFFFF);
}

/* the groups in hex, the first longest run of zero groups (of at least `shortest`) as "::" */
static int hex_groups(const unsigned w[8], int shortest, char *out)
{
    int best = -1, len = shortest - 1, k = 0;
    for (int i = 0; i < 8;) {
        if (w[i] == 0) {
            int j = i;
            while (j < 8 && w[j] == 0)
                j++;
            if (j - i > len)
                best = i, len = j - i;
            i = j;
        } else {
            i++;
        }
    }
    for (int i = 0; i < 8; i++) {
        if (i == best) {
            out[k++] = ':', out[k++] = ':';
            i += len - 1;
            continue;
        }
        if (i && i != best + len)
            out[k++] = ':';
        k += hex(w[i], out + k);
    }
    return k;
}

int ipv6_text(uint64_t hi, uint64_t lo, char *out)
{
    unsigned w[8];
    groups(hi, lo, w);
    if (!(w[0] | w[1] | w[2] | w[3] | w[4]) && (w[5] == 0xFFFF || (w[5] == 0 && (w[6] || w[7] > 1)))) {
        int k = w[5] ? 7 : 2;
        memcpy(out, w[5] ? "::ffff:" : "::", (size_t)k);
        return k + ipv4_text((uint32_t)lo, out + k);
    }
    return hex_groups(w, 1, out);
}

int ipv6_text_rfc5952(uint64_t hi, uint64_t lo, char *out)
{
    unsigned w[8];
    groups(hi, lo, w);
    return hex_groups(w, 2, out);
}

int prefix_text(int afi, uint64_t hi, uint64_t lo, unsigned plen, char *out)
{
    int k = afi == 1 ? ipv4_text((uint32_t)lo, out) : ipv6_text(hi, lo, out);
    out[k++] = '/';
    return k + decimal_text(plen, 1, out + k);
}

static int digits(unsigned v)
{
    return v >= 100 ? 3 : v >= 10 ? 2 : 1;
}

int prefix_text_length(int afi, uint64_t hi, uint64_t lo, unsigned plen)
{
    if (afi != 1) {  /* IPv6 routes are few: written to be counted */
        char t[PREFIX_TEXT_MAX];
        return prefix_text(afi, hi, lo, plen, t);
    }
    uint32_t a = (uint32_t)lo;
    return digits(a >> 24) + digits(a >> 16 & 255) + digits(a >> 8 & 255) + digits(a & 255) + 4 + digits(plen);
}
