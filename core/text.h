/* Addresses and prefixes as text, as bgpdump prints them (text.c). */
#ifndef BGPSIM_TEXT_H
#define BGPSIM_TEXT_H

#include <stdint.h>

#define PREFIX_TEXT_MAX 48   /* "ffff:...:ffff/128" is 43 characters */

int decimal_text(uint64_t v, int width, char *out);               /* at least `width` digits, zeros first */
int ipv4_text(uint32_t address, char *out);                      /* characters written */
int ipv6_text(uint64_t hi, uint64_t lo, char *out);
int ipv6_text_rfc5952(uint64_t hi, uint64_t lo, char *out);
int prefix_text(int afi, uint64_t hi, uint64_t lo, unsigned plen, char *out);   /* afi 1 IPv4 (in lo), 2 IPv6 */
int prefix_text_length(int afi, uint64_t hi, uint64_t lo, unsigned plen);        /* what prefix_text writes */

#endif
