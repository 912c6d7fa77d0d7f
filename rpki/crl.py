"""Certificate revocation lists: the RFC 6487 section 5 profile of RFC 5280 section 5.

`Crl.parse(der, source)` reads the fields a CA sets with one reader: rpki.quickder's strict DER
decode (`quickder.strict`), with every CRL and entry extension value of RFC 5280 sections 5.2 and
5.3 decoded in full (`quickcrl.CRL_EXTENSION_VALUES`); bytes that are not DER raise DERError (rpki.der.not_der, with the offset of the
first byte that differs from the canonical encoding where rpki.der.locate finds it), a value of a
form not read here ObjectError naming the extension. `check_profile(at)`
raises `ObjectError` naming the check and RFC section (a `at` time adds the staleness check of
RFC 6487 section 5 / RFC 5280 section 5.1.2.5); `check_issued_by(issuer_cert)` checks the issuer
name, the AKI and the signature.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from . import asn1, quickcrl, quickder, quickext
from .cert import (
    UTC_LIMIT_YEAR,
    Name,
    ResourceCertificate,
    check_issuer,
    name_problems,
    quick_name,
    time_type,
    verify_rsa_sha256,
)
from .certoids import EXT_AKI
from .errors import DERError, ObjectError, raise_first
from .quickcrl import OID_CRL_NUMBER

WHAT = "CertificateList (RFC 5280 section 5.1)"


def _value(table: dict, ext, source, check: str, rfc: str):
    return quickext.extension_value(table, ext.extn_id.dotted_string, ext.extn_value, source, check, rfc)


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
        """Decode (strict DER, rpki.quickder) and read the fields; DERError or ObjectError otherwise."""
        value = quickder.strict(quickcrl.CertificateList, der, source, WHAT)
        der = bytes(der)
        tbs = value.tbs_cert_list
        if value.signature_value.padding_bits():
            raise ObjectError("want a signature of whole octets", source, check="signatureValue",
                              rfc="RFC 5280 section 5.1.1.3")
        # CertificateList > tbsCertList > [version], signature, issuer, ...
        (top,) = quickder.children(der, 0, len(der))
        tbs_at = quickder.inside(der, top)[0]
        fields = quickder.inside(der, tbs_at)
        issuer_at = fields[1 if tbs.version is None else 2]
        nu = tbs.next_update
        try:
            issuer = quick_name(tbs.issuer, der[issuer_at[0]:issuer_at[2]])
        except ValueError as e:  # rpki.quickext.attribute_text: octets the string type does not allow
            raise DERError(f"want DER (X.690 section 10) for {WHAT}: {e}", source) from None
        self = cls(
            issuer=issuer,
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
        types = [time_type(tbs.this_update)] + ([] if nu is None else [time_type(nu)])
        for ext in tbs.crl_extensions or ():
            oid = ext.extn_id.dotted_string
            self.extensions.append((oid, ext.critical))
            decoded = _value(quickcrl.CRL_EXTENSION_VALUES, ext, source, "crlExtensions", "RFC 5280 section 5.2")
            if oid == EXT_AKI:
                self.aki = decoded.key_identifier
            elif oid == OID_CRL_NUMBER:
                self.number = decoded
        for entry in tbs.revoked_certificates or ():
            serial = entry.user_certificate
            self.revoked_serials.append(serial)
            self.revoked[serial] = entry.revocation_date.as_datetime()
            types.append(time_type(entry.revocation_date))
            if entry.crl_entry_extensions is not None:
                for ext in entry.crl_entry_extensions:
                    _value(quickcrl.CRL_ENTRY_EXTENSION_VALUES, ext, source, "crlEntryExtensions", "RFC 5280 section 5.3")
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
        extra = sorted(set(oids) - {EXT_AKI, OID_CRL_NUMBER})
        if extra:
            add("crlExtensions", "RFC 6487 section 5", f"want only AKI and CRL number, got {', '.join(extra)}")
        for oid, critical in self.extensions:
            if critical and oid in (EXT_AKI, OID_CRL_NUMBER):
                add("crlExtensions", "RFC 6487 section 5", f"want {oid} non-critical")
        if EXT_AKI not in oids or self.aki is None:
            add("authorityKeyIdentifier", "RFC 6487 section 5", "want an authorityKeyIdentifier with a keyIdentifier")
        if OID_CRL_NUMBER not in oids:
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
