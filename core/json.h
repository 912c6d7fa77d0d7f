/* JSON walked strictly (json.c): a reader walks a document with these, taking the values it
 * reads (object and list call back for each member or element) and passing over the rest. */
#ifndef BGPSIM_JSON_H
#define BGPSIM_JSON_H

#include "vrps.h"

#define MAX_FIELD 1024   /* bytes of a decoded string: far above any good value of a field */

typedef struct {
    const unsigned char *s, *p, *end;   /* the text, where the walk is, its end */
    fault *f;
    int depth;
} json;

typedef int (*json_member)(json *, const unsigned char *key, Py_ssize_t key_len, void *arg);
typedef int (*json_element)(json *, Py_ssize_t index, void *arg);

int syntax(json *j, const char *message);   /* a fault at j->p: -1 */
void ws(json *j);
int string(json *j, unsigned char *buf, const unsigned char **text, Py_ssize_t *n);  /* buf: MAX_FIELD bytes, or NULL */
int number(json *j, int *integer);
int object(json *j, json_member member, void *arg);      /* after '{'; NULL: pass over */
int list(json *j, json_element element, void *arg);      /* after '['; NULL: pass over */
int open_items(json *j, char close);   /* after '[' or '{': 1 closed at once, 0 an item follows, -1 */
int list_part(json *j, json_element element, void *arg, Py_ssize_t *i, const unsigned char *stop);
int value(json *j);                                      /* any value, passed over */

#endif
