/* A big VRP file's second half, read on a thread of its own (vrps.h, SPLIT_MIN): the thread, the
 * half's columns and fault, and the flag that tells it it is no longer wanted. The readers say where
 * their half starts and how to read it (vrps_csv.c, vrps_json.c). */
#include "vrps.h"

static void *run(void *arg)
{
    split *s = arg;
    s->rc = s->read(s);
    return NULL;
}

split *split_new(size_t size, Py_ssize_t bytes)
{
    split *s = PyMem_RawCalloc(1, size);
    if (s == NULL)
        return NULL;
    atomic_init(&s->quit, 0);
    vrp_columns_reserve(&s->o, bytes);
    return s;
}

int split_run(split *s, int (*read)(split *))
{
    s->read = read;
    if (pthread_create(&s->thread, NULL, run, s) != 0) {
        split_free(s);
        return -1;
    }
    return 0;
}

int split_wait(split *s, int wanted)
{
    if (!wanted)
        atomic_store(&s->quit, 1);
    pthread_join(s->thread, NULL);
    return s->rc;
}

int split_unwanted(split *s)
{
    return atomic_load_explicit(&s->quit, memory_order_relaxed);
}

void split_free(split *s)
{
    vrp_columns_release(&s->o);
    PyMem_RawFree(s);
}
