"""Decimal numbers and dotted-quad IPv4 addresses read from text, thousands at once: SWAR (SIMD
within a register) on numpy uint64 words, the method of simdjson and fast_float.

A text's bytes are viewed as the 8-byte little-endian word at each offset (`word_view`); a field
that ends at offset b is in the word that starts at b - 8. Its bytes are checked to be digits and
converted to a number by a few masks and multiplications, for every field at once. The fast
column readers (fast_csv, fast_json) read their columns so; what these functions decline, the
strict readers read.
"""

from __future__ import annotations

_ZEROS = 0x3030303030303030  # eight '0' characters in a word
_HIGH_NIBBLES = 0xF0F0F0F0F0F0F0F0


def word_view(data: bytes):
    """The 8-byte little-endian word at each byte offset of `data` (an unaligned, overlapping view)."""
    import numpy as np

    return np.ndarray((max(len(data) - 7, 0),), dtype="<u8", buffer=data, strides=(1,))


_BEFORE = [(2**64 - 1) >> (8 * k) if k < 8 else 0 for k in range(9)]  # the bytes before a word's last k
_LEAST = [0, 0] + [10 ** (k - 1) for k in range(2, 21)]  # the least k-digit number without a leading zero


def digits_at(words, a, b, width: int):
    """The unsigned decimal numbers text[a[i]:b[i]] (1 to `width` digits each, at most 19, no leading
    zero) as a uint64 array, or None if one is empty, too long, has a leading zero or a non-digit.
    `words`: the text's words (see word_view); the caller makes sure `width` bytes precede every b[i].
    The last eight digits of all fields at once (_eight_digits), then those before them of the
    fields that have more (few: AS numbers above 99,999,999)."""
    import numpy as np

    n = b - a
    if not len(n):
        return np.zeros(0, dtype=np.uint64)
    if n.min() < 1 or n.max() > width:
        return None
    value, bad = _eight_digits(words[b - 8], np.minimum(n, 8))
    if bad.any():
        return None
    if width > 8:
        rows = np.flatnonzero(n > 8)
        if len(rows):
            more = digits_at(words, a[rows], b[rows] - 8, width - 8)
            if more is None:
                return None
            value[rows] += more * np.uint64(10**8)
    if (value < np.take(np.array(_LEAST, dtype=np.uint64), n)).any():
        return None  # a leading zero
    return value


def _eight_digits(x, k):
    """The numbers written by the last k[i] (1 to 8) bytes of the words x[i] (a word holds eight
    bytes of text, the last one highest), and where a byte was no digit (a bool array): the bytes
    before the digits are set to '0', the bytes checked, and pairs, quads and octets of digits
    converted by multiplications (the SWAR method of simdjson and fast_float). Overwrites x."""
    import numpy as np

    u = np.uint64
    x, bad = _digit_halves(x, np.take(np.array(_BEFORE, dtype=u), k))
    x *= u(42949672960001)
    x >>= u(32)
    return x, bad


def _digit_halves(x, before):
    """_eight_digits' first steps: the words x[i] with the bytes marked in before[i] set to '0',
    then the number of each 4-byte half (the first byte highest, as in the text) in its low 16
    bits, and where a byte was no digit (a bool array). Overwrites x and before."""
    import numpy as np

    u = np.uint64
    before &= x ^ u(_ZEROS)
    x ^= before  # the bytes before the digits are '0' now
    check = x + u(0x0606060606060606)  # (ASCII: no carry from byte to byte)
    check &= x
    check &= u(_HIGH_NIBBLES)
    bad = check != u(_ZEROS)  # not '3' above, before and after adding 6: a byte outside '0'..'9'
    x &= u(0x0F0F0F0F0F0F0F0F)
    x *= u(2561)
    x >>= u(8)
    x &= u(0x00FF00FF00FF00FF)
    x *= u(6553601)
    x >>= u(16)
    x &= u(0x0000FFFF0000FFFF)
    return x, bad


_DOTS: list = []  # dotted_quads' table, made on first use


def _dot_table():
    """For each 16-bit mask of the dots among the 16 bytes before a '/': where the three dots of
    an IPv4 address are (p0 | p1 << 4 | p2 << 8), if there are three with one to three bytes
    between them and after the last; else -1."""
    import numpy as np

    if not _DOTS:
        from itertools import combinations

        table = np.full(2**16, -1, dtype=np.int16)
        for p0, p1, p2 in combinations(range(16), 3):
            if 1 <= p1 - p0 - 1 <= 3 and 1 <= p2 - p1 - 1 <= 3 and 1 <= 15 - p2 <= 3:
                table[1 << p0 | 1 << p1 | 1 << p2] = p0 | p1 << 4 | p2 << 8
        _DOTS.append(table)
    return _DOTS[0]


# For two numbers of one to three digits, one at the end of each 4-byte half of a word (k0 and k1
# digits, index k0 + 4 * k1): the bytes before them in each half, and their first bytes where they
# have two or three (the high bit: a leading zero there is no number)
_HALVES_BEFORE = [(2**(32 - 8 * k0) - 1) | (2**(32 - 8 * k1) - 1) << 32 for k1 in range(4) for k0 in range(4)]
_HALVES_LEAD = [(0x80 << (32 - 8 * k0) if k0 > 1 else 0) | (0x80 << (64 - 8 * k1) if k1 > 1 else 0)
                for k1 in range(4) for k0 in range(4)]


def two_numbers(x, k0, k1):
    """The numbers A and B of the words x[i] that end in 'A,B' or 'A.B' (k0[i] and k1[i] digits,
    one to three each: a prefix length and maxLength, two octets of an IPv4 address) as A | B << 32
    (a uint64 array), and where a byte was no digit or a number had a leading zero (a bool array).
    B stays at the end of the high half, A is moved to the end of the low half, and each half is
    read as a number (_digit_halves)."""
    import numpy as np

    u = np.uint64
    x = ((x << ((k1 + 1) * 8).astype(u)) >> u(32)) | (x & u(0xFFFFFFFF00000000))
    k = k0 + 4 * k1
    digit = x ^ u(_ZEROS)  # '0' is 0 now, every byte below 0x80 (ASCII)
    digit += u(0x7F7F7F7F7F7F7F7F)  # the high bit of each byte set but where it was '0' (no carries)
    leading_zero = (np.take(np.array(_HALVES_LEAD, dtype=u), k, mode="clip") & ~digit) != 0
    x, bad = _digit_halves(x, np.take(np.array(_HALVES_BEFORE, dtype=u), k, mode="clip"))
    bad |= leading_zero
    return x, bad


def dotted_quads(words, a, b):
    """The IPv4 addresses text[a[i]:b[i]] (dotted quads as inet_pton reads them: four decimal octets
    up to 255, no leading zeros) as a uint64 array, and a bool array saying where the text is no
    such address. The dots are found in the two words before each b[i] (SWAR: a byte compare,
    then the eight flags of a word gathered into a byte by one multiplication) and looked up in
    a table of the masks with three dots; the octets are read two to a word (two_numbers), from
    the word that ends at the second dot and the one that ends at b."""
    import numpy as np

    u = np.uint64
    n = b - a
    mask = np.zeros(len(a), dtype=u)
    hi = words[b - 8]
    for shift, x in ((0, words[b - 16]), (8, hi.copy())):
        x ^= u(0x2E2E2E2E2E2E2E2E)  # '.' bytes are 0 now, all others below 0x80 (ASCII)
        x += u(0x7F7F7F7F7F7F7F7F)  # the high bit of each byte set but where it was 0 (no carries)
        x = ~x
        x &= u(0x8080808080808080)
        x >>= u(7)
        x *= u(0x0102040810204080)  # byte j's flag to bit 56 + j
        x >>= u(56)
        x <<= u(shift)
        mask |= x
    n = np.clip(n, 0, 16)
    mask &= np.take(np.array([(0xFFFF << (16 - k)) & 0xFFFF for k in range(17)], dtype=u), n)  # the address only
    code = np.take(_dot_table(), mask.astype(np.intp)).astype(np.int64)
    p0, p1, p2 = code & 15, (code >> 4) & 15, code >> 8  # the dots among the 16 bytes before b
    first = p0 + n - 16  # the first octet's length (the table checked the others)
    bad = (code < 0) | (n < 7) | (n > 15) | (first < 1) | (first > 3)
    ab, wrong = two_numbers(words[b - 24 + p1], first, p1 - p0 - 1)  # the word that ends at the second dot
    bad |= wrong
    cd, wrong = two_numbers(hi, p2 - p1 - 1, 15 - p2)
    bad |= wrong
    bad |= ((ab | cd) & u(0x0000FF000000FF00)) != 0  # an octet above 255
    addr = ((ab << u(24)) | (ab >> u(16))) & u(0xFFFF0000)
    addr |= ((cd << u(8)) | (cd >> u(32))) & u(0xFFFF)
    return addr, bad
