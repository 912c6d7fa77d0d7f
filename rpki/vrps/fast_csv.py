"""The fast CSV reader: the VRPs of Routinator `csv` and rpki-client CSV (output-csv.c) as columns,
without an object per VRP, for `bgpsim validate` (read_vrp_columns), where reading the VRPs is on
the critical path.

Only files written plainly are read here (ASCII, no CR, no '/' in a trust anchor name, no leading
zeros anywhere), with the checks of the strict reader (rpki.vrps.input_csv): the separators of
every line are found in one pass over a chunk of lines, and each column is checked and converted
for all lines at once (rpki.vrps.swar). Anything unusual or wrong gives None, and the strict
reader runs and names the faulty line.
"""

from __future__ import annotations

import re
import socket

from ..rov import Networks
from .input_csv import CSV_HEADERS
from .payloads import MAX_ASN, MAX_TA_LENGTH
from .swar import digits_at, dotted_quads, two_numbers, word_view

_V6_ADDRESSES_RE = re.compile(rb"[0-9A-Fa-f:.]{2,}(?:,[0-9A-Fa-f:.]{2,})*")  # fields._PREFIX_RE's address part, joined

CHUNK = 2**20  # bytes of lines csv_columns reads at once (the size: docs/vrps.md)


def csv_columns(data: bytes, chunk: int = CHUNK):
    """read_vrp_columns for Routinator `csv` and rpki-client CSV written plainly (ASCII, no CR, no
    '/' in a trust anchor name, no leading zeros anywhere), as numpy arrays. The body is read in
    chunks of whole lines, `chunk` bytes or a little more (_csv_lines), so that the
    temporaries stay that small; the columns of each are copied into arrays for the whole file.
    The network column is an rov.Networks (two uint64 arrays), which VRPTable.from_columns takes
    as it is. None when anything is unusual or wrong: then the line-by-line reader runs, and
    names the faulty line."""
    import numpy as np

    end = data.find(b"\n")
    flavour = CSV_HEADERS.get(data[:end].decode("latin-1")) if end >= 0 else None
    if flavour not in ("csv", "rpki-client-csv"):
        return None
    if not data.endswith(b"\n"):
        data += b"\n"
    # a line's separators, from the newline before it
    pattern = np.frombuffer(b"\n,/,,," if flavour == "rpki-client-csv" else b"\n,/,,", dtype=np.uint8)
    scratch = np.empty((2, 0), dtype=bool)
    # room for as many lines as the body can hold: a good line has at least 13 bytes ('AS0,::/0,0,t\n'),
    # and a chunk's columns are kept only when all its lines are good (pages never written cost nothing)
    room = (len(data) - end - 1) // 13
    out = (np.empty(room, dtype=np.int8),) + tuple(np.empty(room, dtype=np.uint64) for _ in range(5))
    done = 0
    a = end + 1
    while a < len(data):
        b = data.find(b"\n", min(a + chunk, len(data)) - 1) + 1  # the end of the line that holds byte a + chunk - 1
        if scratch.shape[1] < b - a + 1:  # made for the first chunk, with room for longer lines
            scratch = np.empty((2, b - a + 1 + 4096), dtype=bool)
        cols = _csv_lines(data, a, b, pattern, scratch)
        if cols is None:
            return None
        for column, values in zip(out, cols):
            column[done:done + len(values)] = values
        done += len(cols[0])
        a = b
    ver, high, low, length, maxlen, asn = (column[:done] for column in out)
    return ver, Networks(high, low), length.view(np.int64), maxlen.view(np.int64), asn.view(np.int64)


def _separators(chunk, scratch):
    """The positions in `chunk` (bytes as a uint8 array) of the separators of a plain CSV line
    (newline, comma, slash) and of the bytes no field may hold (control characters, the double
    quote, the backslash, DEL and non-ASCII bytes), found by passes over it into `scratch` (two
    bool arrays at least as long, which serve chunk after chunk)."""
    import numpy as np

    found, eq = scratch[0, :len(chunk)], scratch[1, :len(chunk)]
    np.subtract(chunk, 32, out=eq.view(np.uint8))  # printable ASCII is 0 to 94 now
    np.greater_equal(eq.view(np.uint8), 95, out=found)
    for c in b'",/\\':
        np.equal(chunk, c, out=eq)
        found |= eq
    return np.flatnonzero(found)


def _csv_lines(data: bytes, a: int, b: int, pattern, scratch):
    """csv_columns' work on the lines data[a:b] (`pattern`: the separators of a line, from
    the newline before it; `scratch`: see _separators) as arrays: IP versions, the network's high
    and low 64 bits, lengths, maxLengths, ASNs; None if a line is unusual or wrong. The bytes from
    the newline before a are searched once for the separators; every line must show the same
    pattern of them ('\n,/,,' then the next line's newline, or '\n,/,,,' with Expires), and each
    column is then checked and converted for all lines at once: the numbers eight digits to a
    word (digits_at) or two to a word (two_numbers), IPv4 addresses by their three dots
    (dotted_quads), IPv6 addresses (the lines that hold no IPv4 address, few in real sets) one
    by one by inet_pton."""
    import numpy as np

    buf, words = np.frombuffer(data, dtype=np.uint8), word_view(data)
    sep = _separators(buf[a - 1:b], scratch)
    width = len(pattern)
    lines = len(sep) // width
    if len(sep) != lines * width + 1:
        return None
    sep += a - 1  # positions in buf
    rows = sep[:-1].reshape(lines, width)  # a line a row (the last newline, b - 1, is the next row's)
    if (buf[rows] != pattern).any():
        return None  # a field too many or too few, a '/' in the wrong place, an empty line, a control character
    before, comma, slash, comma2, comma3 = (rows[:, k] for k in range(5))
    nl = sep[width::width]
    ta_end = rows[:, 5] if width == 6 else nl
    # the header's 37 bytes, and the lines before, precede every field: the word gathers stay inside buf
    asn = digits_at(words, before + 3, comma, 10)
    if asn is None or asn.max() > MAX_ASN:
        return None
    # 'AS' (the word is inside buf: a line with an ASN has eight bytes or more)
    if ((words[before + 1] & np.uint64(0xFFFF)) != np.uint64(0x5341)).any():
        return None
    # the prefix length and maxLength ('24,24') from the word that ends at comma3
    k_len, k_max = comma2 - slash - 1, comma3 - comma2 - 1
    if min(k_len.min(), k_max.min()) < 1 or max(k_len.max(), k_max.max()) > 3:
        return None
    both, bad = two_numbers(words[comma3 - 8], k_len, k_max)
    if bad.any():
        return None
    length, maxlen = both & np.uint64(0xFFFF), both >> np.uint64(32)
    if width == 6:  # rpki-client's Expires: a Unix time, not kept
        expires = digits_at(words, ta_end + 1, nl, 19)
        if expires is None or expires.max() >= 2**63:
            return None
    ta_length = ta_end - comma3 - 1  # the trust anchor's bytes were checked with the separators
    if ta_length.min() < 1 or ta_length.max() > MAX_TA_LENGTH:
        return None
    cols = network_columns(data, words, comma, slash, asn, length, maxlen)
    return None if cols is None else (cols[0], cols[1].high, cols[1].low) + cols[2:]


def network_columns(data: bytes, words, comma, slash, asn, length, maxlen):
    """The prefix columns of both fast readers: (IP versions, rov.Networks, lengths, maxLengths,
    ASNs) from the addresses data[comma[i] + 1:slash[i]] and the numbers already read, with the
    checks of parse_prefix and the strict readers (host bits zero, maxLength from the length to
    the address's width); None if one is wrong or unusual. IPv4 addresses by their dots
    (dotted_quads), IPv6 addresses one by one by inet_pton."""
    import numpy as np

    lines = len(asn)
    addr, v6 = dotted_quads(words, comma + 1, slash)
    v6 = np.flatnonzero(v6)  # the lines without an IPv4 address: IPv6, or wrong
    ver = np.full(lines, 4, dtype=np.int8)
    ver[v6] = 6
    high = np.zeros(lines, dtype=np.uint64)
    low = addr
    v4 = np.flatnonzero(ver == 4) if len(v6) else slice(None)
    n4, m4 = length[v4], maxlen[v4]
    if len(n4):
        if n4.max() > 32 or m4.max() > 32 or (m4 < n4).any():
            return None
        if (low[v4] & ((np.uint64(1) << (np.uint64(32) - n4)) - np.uint64(1))).any():
            return None  # host bits set
    if len(v6):
        starts, stops = (comma[v6] + 1).tolist(), slash[v6].tolist()
        joined = b",".join([data[s:e] for s, e in zip(starts, stops)])
        if (slash[v6] - comma[v6]).max() > 46 or not _V6_ADDRESSES_RE.fullmatch(joined):
            return None  # a character that is neither a hex digit, ':' nor '.', or more than 45 of them
        addrs = joined.decode("ascii").split(",")
        if not all(":" in s for s in addrs):
            return None  # neither IPv4 nor IPv6 (inet_pton's choice is by the ':', as parse_prefix's)
        try:
            packed = b"".join([socket.inet_pton(socket.AF_INET6, s) for s in addrs])
        except (OSError, ValueError):
            return None
        words6 = np.frombuffer(packed, dtype=">u8").astype(np.uint64)
        hi, lo = words6[0::2], words6[1::2]
        k, m = length[v6], maxlen[v6]
        if k.max() > 128 or m.max() > 128 or (m < k).any():
            return None
        # host bits: the last 128 - k bits of (hi, lo), each mask made by two shifts (one by 64 is undefined)
        hi_host = np.clip(64 - k.astype(np.int64), 0, 64).astype(np.uint64)
        lo_host = np.clip(128 - k.astype(np.int64), 0, 64).astype(np.uint64)
        ones = np.uint64(2**64 - 1)
        if ((hi & ~((ones << (hi_host >> np.uint64(1))) << (hi_host - (hi_host >> np.uint64(1))))).any()
                or (lo & ~((ones << (lo_host >> np.uint64(1))) << (lo_host - (lo_host >> np.uint64(1))))).any()):
            return None  # host bits set
        high[v6], low[v6] = hi, lo
    return ver, Networks(high, low), length.view(np.int64), maxlen.view(np.int64), asn.view(np.int64)
