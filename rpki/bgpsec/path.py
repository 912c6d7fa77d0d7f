"""The BGPsec_PATH attribute (RFC 8205 section 3), encoded and strictly decoded.

    BGPsec_PATH value = Secure_Path, then one or two Signature_Blocks (section 3)
    Secure_Path       = Secure_Path Length (2 octets, counting itself: 2 + 6 N), N segments (3.1)
    Secure_Path Segment = pCount (1), Flags (1; 0x80 Confed_Segment), AS Number (4)
    Signature_Block   = Signature_Block Length (2 octets, counting itself), Algorithm Suite ID (1),
                        N Signature Segments (3.2)
    Signature Segment = SKI (20), Signature Length (2), Signature

Both lists run from the most recent AS (first) to the origin (last); the k-th Signature Segment of a
block is made by the AS of the k-th Secure_Path Segment. A decoding fault raises `BgpsecError` with
the offset inside the value and the section it breaks; RFC 8205 section 5.2 then treats the UPDATE as
a withdrawal (RFC 7606), which is the caller's business.
"""

from __future__ import annotations

from dataclasses import dataclass
from struct import pack, unpack_from

from ..errors import ObjectError

ATTR_TYPE = 33  # IANA; the RFC 8208 examples still carry 30, the pre-IANA value
ATTR_FLAGS = 0x90  # optional, non-transitive, Extended Length (section 3)
CONFED_SEGMENT = 0x80  # Secure_Path Segment flag (section 3.1)
SKI_LEN = 20
SEGMENT_LEN = 6
MAX_BLOCKS = 2  # one per algorithm suite, for algorithm transitions (section 3)


class BgpsecError(ObjectError):
    """A BGPsec object breaks RFC 8205 (or RFC 8608): what was wanted and where."""


def _fail(message: str, offset: int, section: str, source: str | None = None):
    raise BgpsecError(message, source, offset=offset, rfc=f"RFC 8205 section {section}")


@dataclass(frozen=True, slots=True)
class Segment:
    """A Secure_Path Segment: the AS, how many times it appears in the path, and its flags."""

    asn: int
    pcount: int = 1
    flags: int = 0

    @property
    def confed(self) -> bool:
        return bool(self.flags & CONFED_SEGMENT)

    def encode(self) -> bytes:
        return pack(">BBI", self.pcount, self.flags, self.asn)


@dataclass(frozen=True, slots=True)
class Signature:
    """A Signature Segment: the signer's Subject Key Identifier and its signature (DER, RFC 8608)."""

    ski: bytes
    signature: bytes

    def encode(self) -> bytes:
        return self.ski + pack(">H", len(self.signature)) + self.signature


@dataclass(frozen=True, slots=True)
class SignatureBlock:
    """One algorithm suite's signatures, most recent first."""

    suite: int
    signatures: tuple[Signature, ...]

    def encode(self) -> bytes:
        body = b"".join(s.encode() for s in self.signatures)
        return pack(">HB", 3 + len(body), self.suite) + body


@dataclass(frozen=True, slots=True)
class BgpsecPath:
    """A BGPsec_PATH value: the Secure_Path (most recent AS first) and one or two Signature_Blocks."""

    segments: tuple[Segment, ...]
    blocks: tuple[SignatureBlock, ...]

    def encode(self) -> bytes:
        """The attribute's value (without the attribute header)."""
        sp = b"".join(s.encode() for s in self.segments)
        return pack(">H", 2 + len(sp)) + sp + b"".join(b.encode() for b in self.blocks)

    def attribute(self, type_code: int = ATTR_TYPE) -> bytes:
        """The whole path attribute: flags, type, 2-octet length, value."""
        value = self.encode()
        return pack(">BBH", ATTR_FLAGS, type_code, len(value)) + value

    def as_path(self) -> tuple[int, ...]:
        """The AS path this Secure_Path stands for, most recent AS first, each AS repeated pCount
        times (section 4.4, as a BGPsec speaker writes AS_PATH for a peer that does not speak BGPsec)."""
        return tuple(a for s in self.segments for a in (s.asn,) * s.pcount)

    def block(self, suite: int) -> SignatureBlock | None:
        for b in self.blocks:
            if b.suite == suite:
                return b
        return None


def decode(value: bytes, source: str | None = None) -> BgpsecPath:
    """Decode a BGPsec_PATH value (the attribute's bytes after its header). Every length is checked
    against what the RFC fixes; each Signature_Block must hold exactly one Signature Segment per
    Secure_Path Segment (section 5.2); at most two blocks, of different suites (section 3)."""
    end = len(value)
    if end < 2:
        _fail(f"Secure_Path Length: want 2 bytes, got {end}", 0, "3.1", source)
    sp_len = unpack_from(">H", value)[0]
    if sp_len < 2 + SEGMENT_LEN or (sp_len - 2) % SEGMENT_LEN:
        _fail(f"Secure_Path Length: want 2 + 6 N with N >= 1, got {sp_len}", 0, "3.1", source)
    if sp_len > end:
        _fail(f"Secure_Path: want {sp_len} bytes, got {end}", 0, "3.1", source)
    segments = []
    for pos in range(2, sp_len, SEGMENT_LEN):
        pcount, flags, asn = unpack_from(">BBI", value, pos)
        segments.append(Segment(asn, pcount, flags))
    n = len(segments)
    blocks: list[SignatureBlock] = []
    pos = sp_len
    if pos == end:
        _fail("want at least one Signature_Block after the Secure_Path", pos, "3", source)
    while pos < end:
        if len(blocks) == MAX_BLOCKS:
            _fail(f"want at most {MAX_BLOCKS} Signature_Blocks, got more", pos, "3", source)
        if pos + 3 > end:
            _fail(f"Signature_Block header: want 3 bytes, got {end - pos}", pos, "3.2", source)
        sb_len, suite = unpack_from(">HB", value, pos)
        stop = pos + sb_len
        if sb_len < 3 or stop > end:
            _fail(f"Signature_Block Length: want 3 to {end - pos}, got {sb_len}", pos, "3.2", source)
        sigs = []
        p = pos + 3
        while p < stop:
            if p + SKI_LEN + 2 > stop:
                _fail(f"Signature Segment: want a {SKI_LEN + 2}-byte header, got {stop - p} bytes", p, "3.2", source)
            sig_len = unpack_from(">H", value, p + SKI_LEN)[0]
            q = p + SKI_LEN + 2 + sig_len
            if sig_len == 0 or q > stop:
                _fail(f"Signature Length: want 1 to {stop - p - SKI_LEN - 2}, got {sig_len}", p + SKI_LEN, "3.2", source)
            sigs.append(Signature(value[p:p + SKI_LEN], value[p + SKI_LEN + 2:q]))
            p = q
        if len(sigs) != n:
            _fail(f"Signature_Block (suite {suite}): want one Signature Segment per Secure_Path Segment ({n}), "
                  f"got {len(sigs)}", pos, "5.2", source)
        if any(b.suite == suite for b in blocks):
            _fail(f"two Signature_Blocks with algorithm suite {suite}: want different suites", pos, "3", source)
        blocks.append(SignatureBlock(suite, tuple(sigs)))
        pos = stop
    return BgpsecPath(tuple(segments), tuple(blocks))
