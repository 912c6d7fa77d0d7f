/* PathTable (pathtable.c): the distinct AS paths `bgpsim validate` has met, with their routes.csv
 * fields, which csv_rows (rows.c) reads from it. */
#ifndef BGPSIM_PATHTABLE_H
#define BGPSIM_PATHTABLE_H

#include "aspath.h"

extern PyTypeObject PathTableType;
int path_table_post(PyObject *table, int64_t slot, const char **p, Py_ssize_t *n); /* -1: no such slot */
int path_table_add_type(PyObject *module);

#endif
