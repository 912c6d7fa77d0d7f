"""Certificate revocation lists: the RFC 6487 section 5 profile of RFC 5280 section 5.

`Crl.parse(der, source)` runs the DER gate and reads the fields a CA sets: `read_quick` from
rpki.quickder's decode when the bytes are certainly DER and of a shape it takes (any version
asn1crypto names, the CRL and entry extensions rpki.quickder takes), else the asn1crypto reader
(`_read`), which alone words the DER rejections; both give the same Crl. `check_profile(at)`
raises `ObjectError` naming the check and RFC section (a `at` time adds the staleness check of
RFC 6487 section 5 / RFC 5280 section 5.1.2.5); `check_issued_by(issuer_cert)` checks the issuer
name, the AKI and the signature.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from asn1crypto import core, crl

from . import asn1, quickder
from .cert import (UTC_LIMIT_YEAR, Name, ResourceCertificate, _quick_name, _time_type, check_issuer, name_problems,
                   read_name, verify_rsa_sha256)
from .der import read
from .errors import raise_first

EXT_AKI, EXT_CRL_NUMBER = "2.5.29.35", "2.5.29.20"


def read_quick(der: bytes, source) -> Crl | None:
    """`Crl.parse` when rpki.quickder certainly accepts the bytes; None otherwise (the asn1crypto
    path then decides, with its own texts)."""
    try:
        value = quickder.certificate_list_value(der)
        return None if value is None else Crl._read_quick(value, der, source)
    except Exception:  # noqa: BLE001 - anything unforeseen: the asn1crypto path decides
        return None


@dataclass
class Crl:
    """An RPKI CRL (RFC 6487 section 5)."""

    issuer: Name
    this_update: datetime
    next_update: datetime | None
    number: int | None
    aki: bytes | None
    revoked: dict[int, datetime] = field(default_factory=dict)  # serial -> revocation date
    # what was received (filled by parse; a builder fills them when it signs)
    source: str | None = None
    der: bytes = b""
    tbs_der: bytes = b""
    signature: bytes = b""
    version: int = 2
    signature_algorithm: str = asn1.OID_SHA256_WITH_RSA
    tbs_signature_algorithm: str = asn1.OID_SHA256_WITH_RSA
    extensions: list[tuple[str, bool]] = field(default_factory=list)
    time_types: tuple[str, ...] = ()
    entry_problems: list[str] = field(default_factory=list)
    revoked_serials: list[int] = field(default_factory=list)

    @classmethod
    def parse(cls, der: bytes, source: str | None = None) -> Crl:
        if isinstance(der, (bytes, bytearray, memoryview)):
            quick = read_quick(bytes(der), source)
            if quick is not None:
                return quick
        return read(crl.CertificateList, der, source, "CertificateList (RFC 5280 section 5.1)", "CRL", cls._read)

    @classmethod
    def _read(cls, value: crl.CertificateList, der: bytes, source) -> Crl:
        tbs = value["tbs_cert_list"]
        ver = tbs["version"]
        nu = tbs["next_update"]
        self = cls(
            issuer=read_name(tbs["issuer"]),
            this_update=tbs["this_update"].native,
            next_update=None if isinstance(nu, core.Void) else nu.native,
            number=None,
            aki=None,
            source=source,
            der=der,
            tbs_der=tbs.dump(),
            signature=value["signature"].native,
            version=1 if isinstance(ver, core.Void) else int(ver) + 1,
            signature_algorithm=value["signature_algorithm"]["algorithm"].dotted,
            tbs_signature_algorithm=tbs["signature"]["algorithm"].dotted,
        )
        types = [tbs["this_update"].name] + ([] if isinstance(nu, core.Void) else [nu.name])
        exts = tbs["crl_extensions"]
        for ext in [] if isinstance(exts, core.Void) else exts:
            oid = ext["extn_id"].dotted
            self.extensions.append((oid, bool(ext["critical"].native)))
            if oid == EXT_AKI:
                self.aki = ext["extn_value"].parsed["key_identifier"].native
            elif oid == EXT_CRL_NUMBER:
                self.number = ext["extn_value"].parsed.native
        rc = tbs["revoked_certificates"]
        for entry in [] if isinstance(rc, core.Void) else rc:
            serial = entry["user_certificate"].native
            self.revoked_serials.append(serial)
            self.revoked[serial] = entry["revocation_date"].native
            types.append(entry["revocation_date"].name)
            if not isinstance(entry["crl_entry_extensions"], core.Void):
                self.entry_problems.append(f"serial {serial}: want no crlEntryExtensions")
        self.time_types = tuple(types)
        return self

    @classmethod
    def _read_quick(cls, value: quickder.CertificateList, der: bytes, source) -> Crl:
        """`_read` from rpki.quickder's decode of `der` (certainly DER): the same Crl."""
        tbs = value.tbs_cert_list
        # CertificateList > tbsCertList > [version], signature, issuer, ...
        (top,) = quickder.children(der, 0, len(der))
        tbs_at = quickder.inside(der, top)[0]
        fields = quickder.inside(der, tbs_at)
        issuer_at = fields[1 if tbs.version is None else 2]
        nu = tbs.next_update
        self = cls(
            issuer=_quick_name(tbs.issuer, der[issuer_at[0]:issuer_at[2]]),
            this_update=tbs.this_update.as_datetime(),
            next_update=None if nu is None else nu.as_datetime(),
            number=None,
            aki=None,
            source=source,
            der=der,
            tbs_der=der[tbs_at[0]:tbs_at[2]],
            signature=value.signature_value.as_bytes(),
            version=1 if tbs.version is None else tbs.version + 1,
            signature_algorithm=value.signature_algorithm.algorithm.dotted_string,
            tbs_signature_algorithm=tbs.signature.algorithm.dotted_string,
        )
        types = [_time_type(tbs.this_update)] + ([] if nu is None else [_time_type(nu)])
        for ext in tbs.crl_extensions or ():
            oid = ext.extn_id.dotted_string
            self.extensions.append((oid, ext.critical))
            if oid == EXT_AKI:
                self.aki = quickder.aki_value(ext.extn_value).key_identifier
            elif oid == EXT_CRL_NUMBER:
                self.number = quickder.decodes(int, ext.extn_value)
        for entry in tbs.revoked_certificates or ():
            serial = entry.user_certificate
            self.revoked_serials.append(serial)
            self.revoked[serial] = entry.revocation_date.as_datetime()
            types.append(_time_type(entry.revocation_date))
            if entry.crl_entry_extensions is not None:
                self.entry_problems.append(f"serial {serial}: want no crlEntryExtensions")
        self.time_types = tuple(types)
        return self

    def is_revoked(self, serial: int) -> bool:
        return serial in self.revoked

    def problems(self, at: datetime | None = None) -> list[tuple[str, str, str]]:
        p: list[tuple[str, str, str]] = []
        add = lambda check, rfc, msg: p.append((check, rfc, msg))  # noqa: E731
        if self.version != 2:
            add("version", "RFC 6487 section 5", f"want version 2 (v2), got {self.version}")
        for check, alg in (("signatureAlgorithm", self.signature_algorithm), ("signature", self.tbs_signature_algorithm)):
            if alg != asn1.OID_SHA256_WITH_RSA:
                add(check, "RFC 6487 section 5, RFC 7935 section 2", f"want sha256WithRSAEncryption, got {alg}")
        p += name_problems(self.issuer, "issuer", "RFC 6487 section 5, section 4.4")
        times = [self.this_update] + ([self.next_update] if self.next_update else []) + list(self.revoked.values())
        for typ, when in zip(self.time_types, times):
            want = "utc_time" if when.year < UTC_LIMIT_YEAR else "general_time"
            if typ != want:
                add("time", "RFC 5280 section 5.1.2.4", f"want {'UTCTime' if want == 'utc_time' else 'GeneralizedTime'}"
                    f" for {when:%Y-%m-%d}, got the other")
        if self.next_update is None:
            add("nextUpdate", "RFC 6487 section 5", "want a nextUpdate")
        elif self.next_update <= self.this_update:
            add("nextUpdate", "RFC 5280 section 5.1.2.5", "want nextUpdate after thisUpdate")
        elif at is not None and at > self.next_update:
            add("nextUpdate", "RFC 6487 section 5", f"want a current CRL, it is stale since {self.next_update:%Y-%m-%d}")
        oids = [o for o, _ in self.extensions]
        for oid in set(oids):
            if oids.count(oid) > 1:
                add("crlExtensions", "RFC 5280 section 5.2", f"want each extension once, got {oid} {oids.count(oid)} times")
        extra = sorted(set(oids) - {EXT_AKI, EXT_CRL_NUMBER})
        if extra:
            add("crlExtensions", "RFC 6487 section 5", f"want only AKI and CRL number, got {', '.join(extra)}")
        for oid, critical in self.extensions:
            if critical and oid in (EXT_AKI, EXT_CRL_NUMBER):
                add("crlExtensions", "RFC 6487 section 5", f"want {oid} non-critical")
        if EXT_AKI not in oids or self.aki is None:
            add("authorityKeyIdentifier", "RFC 6487 section 5", "want an authorityKeyIdentifier with a keyIdentifier")
        if EXT_CRL_NUMBER not in oids:
            add("cRLNumber", "RFC 6487 section 5", "want a CRL number")
        elif self.number is not None and (self.number < 0 or self.number.bit_length() > 159):
            add("cRLNumber", "RFC 5280 section 5.2.3", f"want a CRL number 0 .. 2^159-1 (20 octets), got {self.number}")
        for serial in self.revoked_serials:
            if serial <= 0 or serial.bit_length() > 159:
                add("revokedCertificates", "RFC 5280 section 5.1.2.6, RFC 6487 section 4.2",
                    f"want positive serial numbers of at most 20 octets, got {serial}")
        for msg in self.entry_problems:
            add("revokedCertificates", "RFC 6487 section 5", msg)
        return p

    def check_profile(self, at: datetime | None = None) -> Crl:
        raise_first(self.problems(at), self.source)
        return self

    def verify_signature(self, issuer_key) -> None:
        verify_rsa_sha256(issuer_key, self.signature, self.tbs_der, self.source, "signatureValue")

    def check_issued_by(self, issuer: ResourceCertificate) -> None:
        """RFC 6487 section 5: issued by the CA that issued the certificates it lists."""
        check_issuer(self, issuer, "RFC 6487 section 5", "RFC 6487 section 5")
