"""Trust anchor locators (RFC 8630).

Format (section 2.2): optional comment lines starting with "#", then one or more URIs (rsync or
https) one per line, then an empty line, then the base64 DER SubjectPublicKeyInfo of the trust
anchor, possibly wrapped over several lines. CRLF line ends are accepted.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from pathlib import Path


from . import quickder
from .errors import ObjectError

RFC = "RFC 8630 section 2.2"


@dataclass
class Tal:
    uris: list[str]
    public_key_info: bytes  # DER SubjectPublicKeyInfo
    comments: list[str] = field(default_factory=list)
    source: str | None = None

    @classmethod
    def load(cls, path: str | Path) -> Tal:
        try:
            data = Path(path).read_bytes()
        except OSError as e:
            raise ObjectError(f"cannot read: {e.strerror or e}", str(path)) from None
        return cls.parse(data, str(path))

    @classmethod
    def parse(cls, data: bytes | str, source: str | None = None) -> Tal:
        if isinstance(data, bytes):
            try:
                data = data.decode("ascii")
            except UnicodeDecodeError as e:
                raise ObjectError(f"want ASCII text, got byte 0x{data[e.start]:02x}", source,
                                  offset=e.start, rfc=RFC) from None
        lines = data.replace("\r\n", "\n").split("\n")
        i, comments = 0, []
        # section 2.2: comments first
        while i < len(lines) and lines[i].startswith("#"):
            comments.append(lines[i][1:].strip())
            i += 1
        uris = []
        while i < len(lines) and lines[i].strip():
            uri = lines[i].strip()
            if not (uri.startswith("rsync://") or uri.startswith("https://")):
                raise ObjectError(f"line {i + 1}: want an rsync:// or https:// URI, got {uri[:80]!r}", source,
                                  check="URI", rfc=RFC)
            uris.append(uri)
            i += 1
        if not uris:
            raise ObjectError("want at least one URI before the key", source, check="URI", rfc=RFC)
        if i >= len(lines):
            raise ObjectError("want an empty line and then the base64 key after the URIs, got end of file",
                              source, check="subjectPublicKeyInfo", rfc=RFC)
        text = "".join(line.strip() for line in lines[i:])
        if not text:
            raise ObjectError("want the base64 subjectPublicKeyInfo after the empty line, got nothing",
                              source, check="subjectPublicKeyInfo", rfc=RFC)
        try:
            der = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError) as e:
            raise ObjectError(f"want base64 for the subjectPublicKeyInfo, got invalid base64 ({e})", source,
                              check="subjectPublicKeyInfo", rfc=RFC) from None
        quickder.strict(quickder.SubjectPublicKeyInfo, der, source, "SubjectPublicKeyInfo (RFC 5280 section 4.1.2.7)")
        tal = cls(uris, der, comments, source)
        tal.public_key()  # the key must load
        return tal

    def public_key(self):
        from cryptography.hazmat.primitives.serialization import load_der_public_key

        try:
            return load_der_public_key(self.public_key_info)
        except Exception as e:  # noqa: BLE001 - ValueError, UnsupportedAlgorithm
            raise ObjectError(f"want a usable public key, got {type(e).__name__}: {e}", self.source,
                              check="subjectPublicKeyInfo", rfc=RFC) from None

    def matches(self, cert) -> bool:
        """RFC 8630 section 3: the trust anchor certificate carries exactly this key."""
        return cert.public_key_info == self.public_key_info
