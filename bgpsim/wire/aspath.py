"""AS_PATH and AS4_PATH.

RFC 4271 section 4.3 (AS_PATH, type 2): a sequence of segments, each a type (1 AS_SET, 2 AS_SEQUENCE),
a count of ASes (1 octet) and the ASes, 2 octets each between 2-byte speakers.
RFC 6793 section 4 (4-octet ASNs): 4 octets each in AS_PATH when both ends speak 4-byte ASNs (MRT:
BGP4MP *_AS4 subtypes and TABLE_DUMP_V2); otherwise the 4-byte path travels in AS4_PATH (type 17) and
section 4.2.3 says how to merge the two.
RFC 5065 section 3: AS_CONFED_SEQUENCE (3) and AS_CONFED_SET (4).

A path is a tuple of segments (type, (asn, ...)). Its text is bgpdump's: sequences as "a b c",
sets as "{a,b}", confederation sequences as "(a b)", confederation sets as "[a,b]".
"""

from __future__ import annotations

from array import array
from struct import unpack_from

from . import WireError

AS_SET, AS_SEQUENCE, AS_CONFED_SEQUENCE, AS_CONFED_SET = 1, 2, 3, 4
AS_TRANS = 23456

Path = tuple[tuple[int, tuple[int, ...]], ...]


_WORDS: dict[bytes, Path] = {}


def path_of_words(raw: bytes) -> Path:
    """A path in the form the compiled core's readers give it (native uint32 words: a segment's type,
    its count, then its ASes; segment after segment), remembered by its bytes."""
    p = _WORDS.get(raw)
    if p is None:
        p = segments_of_words(raw)
        if len(_WORDS) >= 1 << 16:
            _WORDS.clear()
        _WORDS[raw] = p
    return p


def segments_of_words(raw: bytes) -> Path:
    """path_of_words, not remembered (for a path met once)."""
    w = memoryview(raw).cast("I").tolist()
    if len(w) > 2 and w[0] == AS_SEQUENCE and w[1] == len(w) - 2:  # one AS_SEQUENCE: most paths
        return ((AS_SEQUENCE, tuple(w[2:])),)
    segs, i = [], 0
    while i < len(w):
        segs.append((w[i], tuple(w[i + 2:i + 2 + w[i + 1]])))
        i += 2 + w[i + 1]
    return tuple(segs)


def path_words(path: Path) -> bytes:
    """The core's form of a path (path_of_words' inverse)."""
    return array("I", [x for stype, asns in path for x in (stype, len(asns), *asns)]).tobytes()


def parse_as_path(buf: bytes, pos: int, end: int, asn_size: int) -> Path:
    """Segments of an AS_PATH / AS4_PATH value in buf[pos:end]; asn_size is 2 or 4."""
    segs = []
    fmt = ">%dH" if asn_size == 2 else ">%dI"
    while pos < end:
        if pos + 2 > end:
            raise WireError(f"AS_PATH (RFC 4271 section 4.3): want a 2-byte segment header, got {end - pos} byte", pos)
        stype = buf[pos]
        count = buf[pos + 1]
        if not 1 <= stype <= 4:
            raise WireError(f"AS_PATH (RFC 4271 section 4.3, RFC 5065 section 3): want segment type 1 to 4, got {stype}", pos)
        pos += 2
        need = count * asn_size
        if pos + need > end:
            raise WireError(f"AS_PATH (RFC 4271 section 4.3): segment of {count} {asn_size}-byte ASNs wants {need} bytes, "
                            f"got {end - pos}", pos)
        segs.append((stype, unpack_from(fmt % count, buf, pos)))
        pos += need
    return tuple(segs)


def path_length(path: Path) -> int:
    """RFC 4271 section 9.1.2.2 a) / RFC 6793 section 4.2.3: an AS_SET counts 1, confed segments 0."""
    n = 0
    for stype, asns in path:
        if stype == AS_SEQUENCE:
            n += len(asns)
        elif stype == AS_SET:
            n += 1
    return n


def merge_as4_path(path: Path, as4: Path) -> Path:
    """RFC 6793 section 4.2.3: if AS4_PATH is longer than AS_PATH, ignore it; otherwise keep the
    leading ASes of AS_PATH that AS4_PATH lacks and append AS4_PATH. Counting as bgpdump does
    (every AS of a sequence one, a set one)."""
    n_old = sum(len(a) if t != AS_SET else 1 for t, a in path)
    n_new = sum(len(a) if t != AS_SET else 1 for t, a in as4)
    if n_new > n_old:
        return path
    keep = n_old - n_new
    out = []
    for stype, asns in path:
        if keep <= 0:
            break
        if stype == AS_SET:
            out.append((stype, asns))
            keep -= 1
        elif len(asns) <= keep:
            out.append((stype, asns))
            keep -= len(asns)
        else:
            out.append((stype, asns[:keep]))
            keep = 0
    return tuple(out) + as4


def path_text(path: Path) -> str:
    """bgpdump's text of a path."""
    parts = []
    for stype, asns in path:
        if stype == AS_SEQUENCE:
            parts.append(" ".join(map(str, asns)))
        elif stype == AS_SET:
            parts.append("{" + ",".join(map(str, asns)) + "}")
        elif stype == AS_CONFED_SEQUENCE:
            parts.append("(" + " ".join(map(str, asns)) + ")")
        else:
            parts.append("[" + ",".join(map(str, asns)) + "]")
    return " ".join(parts)
