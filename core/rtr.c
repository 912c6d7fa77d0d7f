/* RTR PDUs framed without being read, for the load-test client of `bgpsim rtr serve`
 * (bench/bench_rtr.py): a client of a thousand sessions taking 410,000 PDUs each has to walk
 * headers faster than Python can. bgpsim.rtr.pdu reads PDUs; this only finds where they end.
 *
 * Every PDU starts with version, type, 16 bits and a 32-bit length of the whole PDU (RFC 8210
 * section 5.1), at least 8 and at most 65,535 octets (draft-ietf-sidrops-8210bis-27 section 5.1). */
#include "core.h"

#define RTR_SERIAL_NOTIFY 0
#define RTR_END_OF_DATA 7
#define RTR_MAX_PDU 65535

/* rtr_frames(data, at) -> (end, count, end_of_data, notify): the offset after the last whole PDU
 * from `at` on, how many PDUs that is, and the offset of the first End of Data and of the first
 * Serial Notify among them (-1: none). A length out of bounds is a ValueError naming its offset. */
static PyObject *rtr_frames(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer b;
    Py_ssize_t at;
    if (!PyArg_ParseTuple(args, "y*n", &b, &at))
        return NULL;
    const unsigned char *p = b.buf;
    Py_ssize_t n = b.len, count = 0, eod = -1, notify = -1;
    if (at < 0 || at > n) {
        PyBuffer_Release(&b);
        PyErr_Format(PyExc_ValueError, "offset %zd outside a buffer of %zd octets", at, n);
        return NULL;
    }
    while (n - at >= 8) {
        uint32_t len = (uint32_t)p[at + 4] << 24 | (uint32_t)p[at + 5] << 16 | (uint32_t)p[at + 6] << 8 | p[at + 7];
        if (len < 8 || len > RTR_MAX_PDU) {
            PyBuffer_Release(&b);
            PyErr_Format(PyExc_ValueError, "a PDU length of %u octets at offset %zd (want 8 to %d)", len, at,
                         RTR_MAX_PDU);
            return NULL;
        }
        if (n - at < (Py_ssize_t)len)
            break;
        if (p[at + 1] == RTR_END_OF_DATA && eod < 0)
            eod = at;
        else if (p[at + 1] == RTR_SERIAL_NOTIFY && notify < 0)
            notify = at;
        count++;
        at += len;
    }
    PyBuffer_Release(&b);
    return Py_BuildValue("nnnn", at, count, eod, notify);
}

PyMethodDef rtr_methods[] = {
    {"rtr_frames", rtr_frames, METH_VARARGS,
     "rtr_frames(data, at) -> (end, count, end_of_data, notify): the RTR PDUs whole in data from at on, "
     "framed by their lengths and not read: where they end, how many, where the first End of Data and "
     "the first Serial Notify are (-1: none)"},
    {NULL, NULL, 0, NULL},
};
