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

/* A path's flags for `bgpsim validate`: an AS_SET in it; a special-purpose AS (in one of the sorted
 * ranges lo[k]..hi[k]) or an AS twice apart, either of which the judge of paths may find something
 * in; no AS at all (bgpsim.validate.paths). `seq` has room for the path's ASes. */
enum { HAS_SET = 1, SUSPECT = 2, NOTHING = 4 };
int path_flags(const uint32_t *w, Py_ssize_t n, const uint32_t *lo, const uint32_t *hi, Py_ssize_t nr, uint32_t *seq);
int whole(const uint32_t *w, Py_ssize_t n);                  /* whether n words hold whole segments of types 1 to 4 */
int u32_array(PyObject *o, Py_buffer *v, const char *name); /* a buffer of uint32 items, else ValueError */

#endif
