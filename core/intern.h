/* Byte strings interned in the order first seen (intern.c): the distinct AS paths and peers a reader
 * hands to Python once each, with a number the columns use. */
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
void intern_free(intern_table *t);

#endif
