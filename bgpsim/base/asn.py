"""AS numbers as people write them: 64500 or AS64500 (RFC 6793: four octets, 1 to 2^32 - 1)."""

from __future__ import annotations


def parse_asn(text: str) -> int:
    """The ASN `text` names; ValueError saying what was wanted."""
    t = text.strip().upper().removeprefix("AS")
    if not t.isdigit() or not 0 < int(t) < 2**32:
        raise ValueError(f"want an ASN such as 64500 or AS64500, got {text!r}")
    return int(t)
