/* AS paths in the core's form (aspath.c): native uint32 words, per segment its type (RFC 4271 section
 * 4.3: 1 AS_SET, 2 AS_SEQUENCE; RFC 5065 section 3: 3 AS_CONFED_SEQUENCE, 4 AS_CONFED_SET), its count
 * of ASes, then the ASes. Every reader of the core hands paths to Python in this form. */
#ifndef BGPSIM_ASPATH_H
#define BGPSIM_ASPATH_H

#include "core.h"

enum { AS_SET = 1, AS_SEQUENCE = 2, AS_CONFED_SEQUENCE = 3, AS_CONFED_SET = 4 };

#define ORIGIN_NONE (-1) /* RFC 6811 section 2: the path ends in an AS_SET (or an empty AS_SEQUENCE) */
#define NO_PATH (-2)     /* the origin is the speaker's own AS: an empty path, or a final confederation segment */

int64_t path_origin(const uint32_t *w, Py_ssize_t n);     /* of n words that hold whole segments */
void path_text(column *o, const uint32_t *w, Py_ssize_t n); /* bgpdump's text: "a b {c,d} (e f) [g,h]" */

extern PyMethodDef aspath_methods[];

#endif
