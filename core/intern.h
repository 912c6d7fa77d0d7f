/* Byte strings interned in the order first seen (intern.c): the distinct AS paths and peers a reader
 * (mrt*.c, rislive*.c) hands to Python once each, with a number the columns use. */
#ifndef BGPSIM_INTERN_H
#define BGPSIM_INTERN_H

#include "core.h"

/* keys end to end in `data`, int64 ends in `off` */
typedef struct {
    column data, off;
    int32_t *slots; /* open addressing: index + 1, 0 free */
    Py_ssize_t nslots, n;
} intern_table;

int32_t intern_key(intern_table *t, const void *key, Py_ssize_t n); /* its index; -1: no memory */
const char *intern_at(const intern_table *t, Py_ssize_t i, Py_ssize_t *len);
PyObject *intern_list(const intern_table *t); /* the keys as a list of bytes, in order */
void intern_free(intern_table *t);

/* a peer: address (4 or 16 bytes) and AS, interned whole (padding zeroed) */
typedef struct {
    uint8_t addr[16];
    uint8_t alen;
    uint32_t asn;
} peer_key;

int32_t intern_peer(intern_table *t, const uint8_t *addr, int alen, uint32_t asn); /* its index; -1: no memory */
peer_key intern_peer_at(const intern_table *t, Py_ssize_t i);

#endif
