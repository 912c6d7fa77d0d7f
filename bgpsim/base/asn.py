"""AS numbers as people write them: 64500 or AS64500 (RFC 6793: four octets, 1 to 2^32 - 1), one
or a list of them."""

from __future__ import annotations

from pathlib import Path

from .errors import InputError


def parse_asn(text: str) -> int:
    """The ASN `text` names; ValueError saying what was wanted."""
    t = text.strip().upper().removeprefix("AS")
    if not t.isdigit() or not 0 < int(t) < 2**32:
        raise ValueError(f"want an ASN such as 64500 or AS64500, got {text!r}")
    return int(t)


def parse_asns(text: str, what: str) -> list[tuple[int, str]]:
    """ASNs from "64500,AS64501" or from @FILE (spaces, commas, newlines; '#' comments), each with
    where it was written (for errors)."""
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            lines = path.read_text().splitlines()
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"{what}: cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
        where = lambda n: f"{path}:{n}"
    else:
        lines = [text]
        where = lambda n: what
    out = []
    for n, line in enumerate(lines, start=1):
        for tok in line.split("#", 1)[0].replace(",", " ").split():
            try:
                out.append((parse_asn(tok), where(n)))
            except ValueError as e:
                raise InputError(f"{where(n)}: {e}") from None
    if not out:  # asked for ASes, given none: the policy would be deployed nowhere
        raise InputError(f"{what} {text[1:]}: no ASN in the file" if text.startswith("@") else f"{what}: no ASN given")
    return out


