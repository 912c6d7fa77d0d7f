"""DER (X.690 section 10, demanded by RFC 6487 section 4 and RFC 6488 section 3) without a schema:
what the readers on `cryptography`'s strict decoder (rpki.quickder and its siblings) need around it.

`locate` and `not_der` word a rejection: the DERError of bytes the decoder refused, with the offset
of the first byte that differs from the canonical encoding where a generic walk of the TLVs finds
one (`_canonical`: definite minimal lengths, minimal INTEGERs, BOOLEAN TRUE as FF, sorted SET OF, a
constructed OCTET STRING joined). `framing` holds a value of an open type (ANY) to those rules;
`canonical` rewrites a BER signed object's wrapper for rpki.cms's `ber_ok`. `check_printable` is the
PrintableString alphabet, which a decode alone does not see.
"""

from __future__ import annotations

import re

from .errors import DERError

# X.680 section 41.4: the PrintableString alphabet. The re-encode check cannot see a wrong character.
_PRINTABLE_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 '()+,-./:=?"
PRINTABLE = frozenset(_PRINTABLE_CHARS.encode())
_PRINTABLE_TEXT = re.compile(f"[{re.escape(_PRINTABLE_CHARS)}]*")


def _first_difference(a: bytes, b: bytes) -> int:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def input_bytes(data, what: str, source: str | None) -> bytes:
    """`data` as bytes to decode as `what`: DERError when it is not bytes, or is empty."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DERError(f"want bytes for {what}, got {type(data).__name__}", source)
    data = bytes(data)
    if not data:
        raise DERError(f"want a DER {what}, got 0 bytes", source, offset=0)
    return data


def _describe(e: Exception) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    text = text[:200]
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _length(n: int) -> bytes:
    return bytes([n]) if n < 0x80 else bytes([0x80 | (n.bit_length() + 7) // 8]) + n.to_bytes((n.bit_length() + 7) // 8, "big")


def _canonical(buf: bytes, pos: int, depth: int) -> tuple[bytes, int]:
    """(the canonical encoding of the element at `pos`, where it ends in `buf`), by the rules that
    need no schema: definite minimal lengths (X.690 sections 10.1, 8.1.3.5), a constructed OCTET
    STRING joined (10.2), minimal INTEGERs (8.3.2), BOOLEAN TRUE as FF (11.1), SET OF sorted (11.6).
    Raises ValueError (or IndexError) on bytes that are not even BER."""
    if depth > 64 or buf[pos] & 0x1F == 0x1F:
        raise ValueError("too deep, or a high tag number")
    tag, first, pos = buf[pos], buf[pos + 1], pos + 2
    if first == 0x80:
        n = None
    elif first < 0x80:
        n = first
    else:
        k = first & 0x7F
        if pos + k > len(buf):
            raise ValueError("short")
        n, pos = int.from_bytes(buf[pos:pos + k], "big"), pos + k
    if not tag & 0x20:
        end = pos + (n if n is not None else -1)
        if n is None or end > len(buf):
            raise ValueError("short, or indefinite and primitive")
        body = buf[pos:end]
        if tag == 0x02:
            while len(body) > 1 and (body[0], body[1] >> 7) in ((0, 0), (0xFF, 1)):
                body = body[1:]
        elif tag == 0x01 and body not in (b"", b"\x00"):
            body = b"\xff"
        return bytes([tag]) + _length(len(body)) + body, end
    kids = []
    end = len(buf) if n is None else pos + n
    if end > len(buf):
        raise ValueError("short")
    while (buf[pos:pos + 2] != b"\0\0") if n is None else pos < end:
        kid, pos = _canonical(buf, pos, depth + 1)
        kids.append(kid)
    if n is None:
        pos += 2
    elif pos != end:
        raise ValueError("overrun")
    if tag == 0x24:  # a constructed OCTET STRING: its primitive chunks joined
        body = b"".join(_contents(k) for k in kids)
        return b"\x04" + _length(len(body)) + body, pos
    if tag == 0x31:
        kids.sort()
    body = b"".join(kids)
    return bytes([tag]) + _length(len(body)) + body, pos


def _contents(element: bytes) -> bytes:
    first = element[1]
    return element[2 + (first & 0x7F if first & 0x80 else 0):]


class NotDER(ValueError):
    """Bytes that decode but break a rule of DER a schema adds; `at`: the offset in them, if known."""

    def __init__(self, reason: str, at: int | None = None):
        super().__init__(reason)
        self.at = at


def element(tag: int, contents) -> bytes:
    """The DER of one element: a one-octet `tag`, the definite minimal length, `contents`."""
    contents = bytes(contents)
    return bytes([tag]) + _length(len(contents)) + contents


def framing(tlv) -> None:
    """An element of a type left open (a cryptography TLV): inside a constructed one, every element
    in its canonical encoding by the rules that need no schema (`_canonical`); NotDER otherwise."""
    if not tlv.tag_bytes[0] & 0x20:
        return
    data, pos = bytes(tlv.data), 0
    try:
        while pos < len(data):
            der, end = _canonical(data, pos, 1)
            if der != data[pos:end]:
                break
            pos = end
        else:
            return
    except (ValueError, IndexError):  # not even BER
        pass
    raise NotDER("want the elements of a value of an open type in DER")


def locate(data: bytes) -> int | None:
    """The offset of the first byte of `data` that differs from its canonical encoding (`_canonical`),
    or of trailing bytes; None when the generic walk finds nothing (the fault is of the schema) or
    cannot walk the bytes. Total: never raises."""
    try:
        data = bytes(data)
        der, end = _canonical(data, 0, 0)
    except Exception:  # noqa: BLE001 - garbage: no offset to give
        return None
    at = _first_difference(der, data[:end])
    if at < min(len(der), end) or len(der) != end:
        return at
    return end if end < len(data) else None


def canonical(data: bytes) -> bytes:
    """One BER element (X.690 section 8) rewritten in its canonical encoding by the rules that need
    no schema (`_canonical`); ValueError when the bytes are not one BER element."""
    try:
        der, end = _canonical(bytes(data), 0, 0)
    except IndexError:
        raise ValueError("want one BER element, the bytes end inside it") from None
    if end != len(data):
        raise ValueError(f"want one BER element, got {len(data) - end} bytes after it")
    return der


def not_der(what: str, error: Exception, data: bytes, source: str | None) -> DERError:
    """The DERError of bytes that rpki.quickder's strict decode refused as `what`: the kind of
    ParseError cryptography names, and the offset `locate` finds."""
    return DERError(f"want DER (X.690 section 10) for {what}: {parse_error_kind(error) or _describe(error)}", source,
                    offset=locate(data))


def parse_error_kind(error: Exception) -> str | None:
    """The kind cryptography's decoder names in its ParseError ("ParseError { kind: ShortData ...")."""
    kind = re.search(r"kind: (\w+)", str(error))
    return kind.group(1) if kind else None


def check_printable(value: str, source: str | None, field: str, rfc: str) -> None:
    """PrintableString alphabet (X.680 section 41.4), the one rule the re-encode check misses."""
    if _PRINTABLE_TEXT.fullmatch(value):
        return
    bad = sorted({c for c in value if ord(c) > 127 or ord(c) not in PRINTABLE})
    if bad:
        raise DERError(f"want PrintableString characters only, got {''.join(bad)!r} in {value!r}",
                       source, check=field, rfc=rfc)
