"""Manifests, RFC 9286, in the RFC 6488 wrapper (rpki.cms).

`Manifest.parse(data, source, at=...)` reads and checks; `Manifest.read` reads only and
`problems(at)` lists every failure. `check_file(name, data)` compares a file's bytes with its listed
hash (RFC 9286 section 6.4); `stale(at)` says whether nextUpdate has passed (section 6.3).

Rules (section numbers of RFC 9286):
- 4.2: version 0 (the DEFAULT, absent in DER); manifestNumber 0..2^159-1 (at most 20 octets, 4.2.1);
  thisUpdate before nextUpdate, both GeneralizedTime (the schema); fileHashAlg id-sha256 (RFC 7935
  section 2) and so each hash 32 octets.
- 4.2.2: each file name [a-zA-Z0-9_-]+ '.' three-letter extension, each name once. The extension is
  not checked against the IANA registry (the BBN suite labels an unknown one "good").
- 4.3 / 5.1: the EE certificate's resources are "inherit" (IP and AS), and its validity covers
  thisUpdate..nextUpdate (thisUpdate not before notBefore, nextUpdate not after notAfter).
- 6.3: with an evaluation time, thisUpdate must not be in the future and nextUpdate not in the past.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime

from . import asn1, quickcms, quickder
from .cms import OID_SHA256, SignedObject, SignedPayload
from .errors import ObjectError

SEC = "RFC 9286 section"
NAME = re.compile(r"[a-zA-Z0-9_-]+\.[a-zA-Z]{3}")
NUMBER_MAX = 2**159 - 1  # 20 octets, positive


@dataclass
class Manifest(SignedPayload):
    """An RFC 9286 manifest: a numbered, dated list of (file name, SHA-256)."""

    number: int
    this_update: datetime
    next_update: datetime
    files: dict[str, bytes]  # name -> SHA-256
    hash_alg: str = OID_SHA256
    signed: SignedObject | None = None
    version: int = 0
    source: str | None = None
    _problems: list[tuple[str, str, str]] = field(default_factory=list, repr=False)

    @classmethod
    def read(cls, data: bytes, source: str | None = None, *, ber_ok: bool = False) -> Manifest:
        signed = SignedObject.read(data, source, ber_ok=ber_ok)
        signed.expect(asn1.OID_CT_MANIFEST, "id-ct-rpkiManifest", f"{SEC} 4.1")
        return cls.from_signed(signed)

    @classmethod
    def from_signed(cls, signed: SignedObject):
        """Read the eContent of `signed` with the one reader (rpki.quickder.strict)."""
        source = signed.source
        value = quickder.strict(quickcms.Manifest, signed.econtent, source, "Manifest (RFC 9286 section 4.2)")
        files = [(f.file.as_str().encode("ascii"), bytes((f.hash.padding_bits(),)) + f.hash.as_bytes())
                 for f in value.file_list]
        return cls._build(value.version, value.manifest_number, value.this_update.as_datetime(),
                          value.next_update.as_datetime(), value.file_hash_alg.dotted_string, files, signed, source)

    @classmethod
    def _build(cls, version: int, number: int, this_update: datetime, next_update: datetime, alg: str,
               entries: list[tuple[bytes, bytes]], signed: SignedObject, source) -> Manifest:
        """The checks of the eContent: `entries` holds (file name octets, hash BIT STRING contents
        with the unused-bits octet first) per FileAndHash."""
        p: list[tuple[str, str, str]] = []
        add = lambda check, rfc, msg: p.append((check, rfc, msg))  # noqa: E731
        if version != 0:
            add("version", f"{SEC} 4.2.1", f"want version 0, got {version}")
        if number < 0:
            add("manifestNumber", f"{SEC} 4.2.1", f"want a non-negative manifestNumber, got {number}")
        elif number > NUMBER_MAX:
            add("manifestNumber", f"{SEC} 4.2.1", f"want a manifestNumber of at most 20 octets, got {number.bit_length()} bits")
        if not this_update < next_update:
            add("nextUpdate", f"{SEC} 4.2.1", f"want nextUpdate after thisUpdate, got {next_update} <= {this_update}")
        if alg != OID_SHA256:
            add("fileHashAlg", f"{SEC} 4.2.1, RFC 7935 section 2", f"want id-sha256, got {alg}")
        files: dict[str, bytes] = {}
        for raw, octets in entries:
            name = raw.decode("ascii", "replace")
            if not NAME.fullmatch(name):
                add("fileList", f"{SEC} 4.2.2", f"want a file name [a-zA-Z0-9_-]+.xyz, got {name!r}")
            if name in files:
                add("fileList", f"{SEC} 4.2.2", f"want each file name once, got {name!r} twice")
            if octets[:1] != b"\x00":
                add("fileList", f"{SEC} 4.2.1", f"want a hash of whole octets for {name!r}")
            digest = octets[1:]
            if alg == OID_SHA256 and len(digest) != 32:
                add("fileList", f"{SEC} 4.2.1", f"want a 32-octet SHA-256 hash for {name!r}, got {len(digest)} octets")
            files[name] = digest
        return cls(number=number, this_update=this_update, next_update=next_update, files=files, hash_alg=alg,
                   signed=signed, version=version, source=source, _problems=p)

    # ---- checks -----------------------------------------------------------------------------------
    def problems(self, at: datetime | None = None) -> list[tuple[str, str, str]]:
        p = list(self._problems)
        if self.signed is not None:
            p += self.signed.problems(at)
            ee = self.signed.ee
            ip, asr = ee.ip_resources, ee.as_resources
            if ip is None or not all(f is None or f.inherit for f in (ip.v4, ip.v6)) or ip.is_empty():
                p.append(("EE ipAddrBlocks", f"{SEC} 5.1, RFC 6487 section 4.8.10", "want 'inherit' IP resources in a manifest's EE certificate"))
            if asr is None or not asr.inherit:
                p.append(("EE autonomousSysIds", f"{SEC} 5.1, RFC 6487 section 4.8.11", "want 'inherit' AS resources in a manifest's EE certificate"))
            if self.this_update < ee.not_before:
                p.append(("thisUpdate", f"{SEC} 5.1", f"want thisUpdate not before the EE notBefore {ee.not_before}, got {self.this_update}"))
            if self.next_update > ee.not_after:
                p.append(("nextUpdate", f"{SEC} 5.1", f"want nextUpdate not after the EE notAfter {ee.not_after}, got {self.next_update}"))
        if at is not None:
            if self.this_update > at:
                p.append(("thisUpdate", f"{SEC} 6.3", f"want thisUpdate not in the future at {at}, got {self.this_update}"))
            if self.stale(at):
                p.append(("nextUpdate", f"{SEC} 6.3", f"want nextUpdate not in the past at {at} (stale), got {self.next_update}"))
        return p

    def stale(self, at: datetime) -> bool:
        return self.next_update < at

    def check_file(self, name: str, data: bytes) -> None:
        """RFC 9286 section 6.4: the file is listed and its SHA-256 matches."""
        if name not in self.files:
            raise ObjectError(f"want {name!r} listed on the manifest, it is not", self.source,
                              check="fileList", rfc=f"{SEC} 6.4")
        got = hashlib.sha256(data).digest()
        if got != self.files[name]:
            raise ObjectError(f"want {name!r} to hash to {self.files[name].hex()}, got {got.hex()}", self.source,
                              check="fileList", rfc=f"{SEC} 6.4")
