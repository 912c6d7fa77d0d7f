"""Ghostbusters Records (RFC 6493): a contact vCard in the RFC 6488 wrapper (rpki.cms).

- Section 3.1: eContentType id-ct-rpkiGhostbusters; the eContent is the vCard's octets.
- Section 5, the vCard profile: UTF-8 text of CRLF-terminated lines (long lines folded by a CRLF and
  one space or tab, RFC 6350 section 3.2); BEGIN:VCARD first, VERSION:4.0, FN, END:VCARD last; at
  least one of ADR, TEL and EMAIL; ORG may be there; no other property. Property names are
  case-insensitive and may carry parameters (`TEL;TYPE=WORK:...`).
- Section 6 (validation): the EE certificate's IP and AS resources are both 'inherit'.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from . import asn1
from .cms import SignedObject, SignedPayload
from .errors import ObjectError

SEC = "RFC 6493 section"
REQUIRED = ("BEGIN", "VERSION", "FN", "END")
CONTACT = ("ADR", "TEL", "EMAIL")
ALLOWED = frozenset(REQUIRED + CONTACT + ("ORG",))


@dataclass
class Gbr(SignedPayload):
    """A Ghostbusters contact: each property's values, in order (e.g. props["TEL"])."""

    props: dict[str, list[str]]
    signed: SignedObject | None = None
    source: str | None = None
    _problems: list[tuple[str, str, str]] = field(default_factory=list, repr=False)

    @classmethod
    def read(cls, data: bytes, source: str | None = None, *, ber_ok: bool = False) -> Gbr:
        signed = SignedObject.read(data, source, ber_ok=ber_ok)
        signed.expect(asn1.OID_CT_GBR, "id-ct-rpkiGhostbusters", f"{SEC} 3.1")
        gbr = cls.from_vcard(signed.econtent, source)
        gbr.signed = signed
        return gbr

    @classmethod
    def from_vcard(cls, octets: bytes, source: str | None = None) -> Gbr:
        try:
            text = octets.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ObjectError(f"want a vCard in UTF-8, got a byte 0x{octets[e.start]:02x} that is not", source,
                              check="vCard", rfc=f"{SEC} 5", offset=e.start) from None
        if not text.endswith("\r\n"):
            raise ObjectError("want vCard lines each ending in CRLF", source, check="vCard", rfc=f"{SEC} 5")
        lines: list[str] = []
        for line in text[:-2].split("\r\n"):
            if line[:1] in (" ", "\t") and lines:
                lines[-1] += line[1:]  # unfold (RFC 6350 section 3.2)
            else:
                lines.append(line)
        p: list[tuple[str, str, str]] = []
        props: dict[str, list[str]] = {}
        for line in lines:
            head, colon, value = line.partition(":")
            name = head.split(";", 1)[0].upper()
            if not colon or not name or not all(c.isalnum() or c == "-" for c in name):
                raise ObjectError(f"want vCard lines 'NAME[;PARAM]:VALUE', got {line[:60]!r}", source,
                                  check="vCard", rfc=f"{SEC} 5")
            props.setdefault(name, []).append(value)
        if lines[0].upper() != "BEGIN:VCARD" or lines[-1].upper() != "END:VCARD":
            p.append(("vCard", f"{SEC} 5", "want BEGIN:VCARD first and END:VCARD last"))
        if props.get("VERSION") != ["4.0"]:
            p.append(("VERSION", f"{SEC} 5", f"want one VERSION:4.0, got {props.get('VERSION')}"))
        if "FN" not in props:
            p.append(("FN", f"{SEC} 5", "want an FN (formatted name) property"))
        if not any(k in props for k in CONTACT):
            p.append(("vCard", f"{SEC} 5", "want at least one of ADR, TEL and EMAIL"))
        extra = sorted(set(props) - ALLOWED)
        if extra:
            p.append(("vCard", f"{SEC} 5", f"want only BEGIN, VERSION, FN, ORG, ADR, TEL, EMAIL and END, "
                      f"got {', '.join(extra)}"))
        return cls(props=props, source=source, _problems=p)

    def problems(self, at: datetime | None = None) -> list[tuple[str, str, str]]:
        p = list(self._problems)
        if self.signed is not None:
            p += self.signed.problems(at)
            ee = self.signed.ee
            ip, asr = ee.ip_resources, ee.as_resources
            if ip is None or not all(f is None or f.inherit for f in (ip.v4, ip.v6)) or ip.is_empty():
                p.append(("EE ipAddrBlocks", f"{SEC} 6", f"want 'inherit' IP resources, got {ip}"))
            if asr is None or not asr.inherit:
                p.append(("EE autonomousSysIds", f"{SEC} 6", f"want 'inherit' AS resources, got {asr}"))
        return p
