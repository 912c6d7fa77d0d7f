/* bzip2 blocks, found and cut out so that several threads can decompress one stream
 * (bgpsim.mrt.bzip2).
 *
 * A bzip2 stream is "BZh" and a level digit, then blocks, each opening with the 48-bit magic
 * 0x314159265359 and its 32-bit CRC, then the end-of-stream magic 0x177245385090 and the combined
 * CRC, then padding to a byte. Nothing inside a block refers to another, but blocks are not byte
 * aligned. bz2_marks finds where the magics are, to the bit; bz2_block copies one block's bits
 * into a stream of its own (header, the block, end-of-stream magic, a combined CRC which for one
 * block is the block's CRC), which any bzip2 decoder takes. A magic's 48 bits can occur inside
 * compressed data by chance; the block cut there then fails to decode, which the caller handles. */
#include "core.h"

#define BLOCK_MAGIC 0x314159265359ULL
#define END_MAGIC 0x177245385090ULL
#define MASK48 0xFFFFFFFFFFFFULL

/* bz2_marks(data, first_bit) -> list of (bit offset, 0 for a block or 1 for the end of a stream) */
static PyObject *bz2_marks(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer b;
    Py_ssize_t first;
    if (!PyArg_ParseTuple(args, "y*n", &b, &first))
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL || first < 0 || first > b.len * 8) {
        PyBuffer_Release(&b);
        if (out != NULL)
            PyErr_SetString(PyExc_ValueError, "first_bit: want a bit offset inside the data");
        Py_XDECREF(out);
        return NULL;
    }
    const unsigned char *p = b.buf;
    uint64_t w = 0;  /* the last eight bytes read, the newest lowest */
    /* a magic ending at bit 8 * (i + 1) - s of the data starts 48 + s bits before it */
    for (Py_ssize_t i = 0; i < b.len; i++) {
        w = w << 8 | p[i];
        if (i < 5)
            continue;
        for (int s = 7; s >= 0; s--) {
            uint64_t v = (w >> s) & MASK48;
            if (v != BLOCK_MAGIC && v != END_MAGIC)
                continue;
            Py_ssize_t at = 8 * (i + 1) - s - 48;
            if (at < first)  /* nor before the data: first is not negative */
                continue;
            PyObject *t = Py_BuildValue("(ni)", at, v == END_MAGIC);
            if (t == NULL || PyList_Append(out, t) < 0) {
                Py_XDECREF(t);
                Py_CLEAR(out);
                goto done;
            }
            Py_DECREF(t);
        }
    }
done:
    PyBuffer_Release(&b);
    return out;
}

typedef struct {
    unsigned char *p;
    uint64_t acc;
    int n;  /* bits in acc */
} bitwriter;

static void put_bits(bitwriter *o, uint64_t v, int n)  /* n <= 32 */
{
    o->acc = o->acc << n | (v & ((1ULL << n) - 1));
    o->n += n;
    while (o->n >= 8) {
        *o->p++ = (unsigned char)(o->acc >> (o->n - 8));
        o->n -= 8;
    }
}

static uint32_t get_bits(const unsigned char *p, Py_ssize_t at, int n)  /* n <= 32; the bits are there */
{
    uint64_t v = 0;
    Py_ssize_t byte = at / 8;
    int need = (int)(at % 8) + n;
    for (int k = 0; k < (need + 7) / 8; k++)
        v = v << 8 | p[byte + k];
    return (uint32_t)(v >> ((need + 7) / 8 * 8 - need) & ((1ULL << n) - 1));
}

/* bz2_block(data, start_bit, end_bit, level) -> bytes: the block at start_bit (its magic) ending
 * at end_bit, as a stream of its own */
static PyObject *bz2_block(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer b;
    Py_ssize_t start, end;
    int level;
    if (!PyArg_ParseTuple(args, "y*nni", &b, &start, &end, &level))
        return NULL;
    if (start < 0 || end > b.len * 8 || end - start < 80 || level < 1 || level > 9) {
        PyBuffer_Release(&b);
        return PyErr_Format(PyExc_ValueError, "want a block of at least 80 bits inside the data, and a level "
                                              "from 1 to 9");
    }
    Py_ssize_t bits = end - start;
    PyObject *out = PyBytes_FromStringAndSize(NULL, 4 + (bits + 80 + 7) / 8);
    if (out != NULL) {
        const unsigned char *p = b.buf;
        unsigned char *q = (unsigned char *)PyBytes_AS_STRING(out);
        memcpy(q, "BZh", 3);
        q[3] = (unsigned char)('0' + level);
        bitwriter o = {q + 4, 0, 0};
        uint32_t crc = get_bits(p, start + 48, 32);
        Py_ssize_t at = start;
        int lead = (int)((8 - at % 8) % 8);  /* bits up to a byte boundary of the input */
        if (lead > bits)
            lead = (int)bits;
        if (lead) {
            put_bits(&o, get_bits(p, at, lead), lead);
            at += lead;
        }
        /* whole bytes: shifted in by the writer's offset */
        int shift = o.n;
        Py_ssize_t whole = (end - at) / 8;
        const unsigned char *src = p + at / 8;
        if (shift == 0) {
            memcpy(o.p, src, (size_t)whole);
            o.p += whole;
        } else {
            unsigned carry = (unsigned)o.acc & ((1u << shift) - 1);
            for (Py_ssize_t k = 0; k < whole; k++) {
                *o.p++ = (unsigned char)(carry << (8 - shift) | src[k] >> shift);
                carry = src[k] & ((1u << shift) - 1);
            }
            o.acc = carry;
        }
        at += whole * 8;
        if (end > at)
            put_bits(&o, get_bits(p, at, (int)(end - at)), (int)(end - at));
        put_bits(&o, END_MAGIC >> 24, 24);
        put_bits(&o, END_MAGIC & 0xFFFFFF, 24);
        put_bits(&o, crc, 32);
        if (o.n)
            put_bits(&o, 0, 8 - o.n);
    }
    PyBuffer_Release(&b);
    return out;
}

PyMethodDef bzip2_methods[] = {
    {"bz2_marks", bz2_marks, METH_VARARGS,
     "bz2_marks(data, first_bit) -> [(bit, kind)]: where the bzip2 block magics (kind 0) and end-of-stream "
     "magics (kind 1) are in data, from first_bit on"},
    {"bz2_block", bz2_block, METH_VARARGS,
     "bz2_block(data, start_bit, end_bit, level) -> bytes: the block whose magic is at start_bit, up to "
     "end_bit, as a bzip2 stream of its own"},
    {NULL, NULL, 0, NULL},
};
