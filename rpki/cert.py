"""Resource certificates: RFC 6487 section 4 (CA, EE, trust anchor) and RFC 8209 (BGPsec router).

`ResourceCertificate.parse(der, source)` decodes the certificate and each extension value (strict
DER) and reads the fields a CA sets into plain Python values; a later builder fills the
same dataclass and signs it. `check_profile()` enforces the profile and raises `ObjectError` naming
the check and the RFC section; `problems()` lists every failure. `check_issued_by(issuer)` checks
the one step from an issuer: name, AKI and the signature (RFC 6487 sections 4.4, 4.8.3, RFC 5280
section 4.1.1.3). Chains, resource containment along a path and revocation are validation, not here.

Here: the certificate's own fields (RFC 6487 sections 4.1 to 4.7: version, serial, algorithms,
names, validity, key) and which profile applies (`Kind`). Its extensions (section 4.8) are read and
checked by rpki.certext, and those that point at other objects (CRLDP, AIA, SIA) by rpki.certaccess.

One reader fills the dataclass: rpki.quickder's strict DER decode (`quickder.certificate_value`),
which raises DERError for bytes that are not DER and ObjectError for a part of a form it does not
read; the RFC 3779 rejections are worded by rpki.rfc3779.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.serialization import load_der_public_key

from . import asn1, certext, quickder
from .certoids import OID_CN, OID_SERIAL_NUMBER
from .der import check_printable
from .errors import ObjectError, raise_first
from .quickext import name_attributes
from .resources import AsResources, IpResources

UTC_LIMIT_YEAR = 2050  # RFC 5280 section 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050


class Kind(Enum):
    """Which profile a certificate follows: RFC 6487 section 4 (trust anchor, CA, EE) or RFC 8209
    (BGPsec router); `ResourceCertificate.kind` tells."""

    TA = "trust anchor"
    CA = "CA"
    EE = "EE"
    ROUTER = "BGPsec router"


@dataclass(frozen=True)
class Name:
    """An RFC 6487 section 4.4 name: CommonName and optional serialNumber, plus the raw DER."""

    common_name: str | None
    serial_number: str | None
    der: bytes = b""
    attributes: tuple[tuple[str, str, str], ...] = ()  # (oid, asn1 string type, value), in order
    rdn_count: int = 0

    def __str__(self) -> str:
        return f"CN={self.common_name}" + (f", serialNumber={self.serial_number}" if self.serial_number else "")


def quick_name(rdns, der: bytes, attributes=None) -> Name:
    """A Name from rpki.quickder's decode (`der`, its bytes), with its `attributes` when they were
    read already (rpki.quickext.name_attributes)."""
    return _name(name_attributes(rdns) if attributes is None else attributes, der, len(rdns))


def _name(attrs: tuple[tuple[str, str, str], ...], der: bytes, rdn_count: int) -> Name:
    cn = next((v for o, _, v in attrs if o == OID_CN), None)
    sn = next((v for o, _, v in attrs if o == OID_SERIAL_NUMBER), None)
    return Name(cn, sn, der, attrs, rdn_count)


def time_type(t) -> str:
    return "utc_time" if isinstance(t, quickder.UTCTime) else "general_time"


def name_problems(n: Name, what: str, rfc: str) -> list[tuple[str, str, str]]:
    """RFC 6487 section 4.4/4.5: one CommonName, at most one serialNumber, nothing else, PrintableString."""
    out = []
    oids = [o for o, _, _ in n.attributes]
    if oids.count(OID_CN) != 1:
        out.append((what, rfc, f"want exactly one CommonName, got {oids.count(OID_CN)}"))
    if oids.count(OID_SERIAL_NUMBER) > 1:
        out.append((what, rfc, f"want at most one serialNumber, got {oids.count(OID_SERIAL_NUMBER)}"))
    others = sorted({o for o in oids if o not in (OID_CN, OID_SERIAL_NUMBER)})
    if others:
        out.append((what, rfc, f"want only CommonName and serialNumber, got attribute(s) {', '.join(others)}"))
    for oid, typ, value in n.attributes:
        if oid in (OID_CN, OID_SERIAL_NUMBER):
            if typ != "PrintableString":
                out.append((what, rfc, f"want PrintableString for {'CommonName' if oid == OID_CN else 'serialNumber'}, got {typ}"))
            else:
                try:
                    check_printable(value, None, what, rfc)
                except ObjectError as e:
                    out.append((what, rfc, e.reason))
    return out


@dataclass(frozen=True)
class Extension:
    oid: str
    critical: bool
    value: bytes  # extnValue octets


@dataclass
class ResourceCertificate:
    """The fields of an RPKI resource certificate (RFC 6487 section 4) that a CA sets."""

    serial: int
    issuer: Name
    subject: Name
    not_before: datetime
    not_after: datetime
    public_key_info: bytes  # DER SubjectPublicKeyInfo
    ski: bytes | None = None
    aki: bytes | None = None
    is_ca: bool = False
    ip_resources: IpResources | None = None
    as_resources: AsResources | None = None
    crldp: list[str] = field(default_factory=list)
    aia: list[str] = field(default_factory=list)  # caIssuers URIs
    sia: dict[str, list[str]] = field(default_factory=dict)  # access method OID -> URIs
    policies: list[str] = field(default_factory=list)
    eku: list[str] = field(default_factory=list)
    # what was received (filled by parse; a builder fills them when it signs)
    source: str | None = None
    der: bytes = b""
    tbs_der: bytes = b""
    signature: bytes = b""
    version: int = 3
    signature_algorithm: str = asn1.OID_SHA256_WITH_RSA
    tbs_signature_algorithm: str = asn1.OID_SHA256_WITH_RSA
    key_algorithm: str = asn1.OID_RSA
    key_parameters: str | None = None
    key_bits: bytes = b""  # the subjectPublicKey BIT STRING contents (without the unused-bits octet)
    extensions: list[Extension] = field(default_factory=list)
    key_usage: frozenset[str] = frozenset()
    bc_present: bool = False
    bc_path_len: int | None = None
    aki_has_issuer_serial: bool = False
    crldp_problems: list[str] = field(default_factory=list)
    aia_problems: list[str] = field(default_factory=list)
    policy_qualifiers: list[str] = field(default_factory=list)
    unique_ids: bool = False
    validity_types: tuple[str, str] = ("utc_time", "utc_time")

    # ---- parsing ----------------------------------------------------------------------------------
    @classmethod
    def parse(cls, der: bytes, source: str | None = None) -> ResourceCertificate:
        """Decode (strict DER) and read the fields; DERError or ObjectError otherwise."""
        cert, values, names = quickder.certificate_value(der, source)
        der = bytes(der)
        tbs = cert.tbs_certificate
        (at,) = quickder.children(der, 0, len(der))
        parts = quickder.inside(der, at)
        fields = quickder.inside(der, parts[0])
        if der[fields[0][0]] == 0xA0:  # [0] version
            fields = fields[1:]
        span = lambda e: der[e[0]:e[2]]  # noqa: E731
        spki = tbs.subject_public_key_info
        validity = tbs.validity
        self = cls(
            serial=tbs.serial_number,
            issuer=quick_name(tbs.issuer, span(fields[2]), names[0]),
            subject=quick_name(tbs.subject, span(fields[4]), names[1]),
            not_before=validity.not_before.as_datetime(),
            not_after=validity.not_after.as_datetime(),
            public_key_info=span(fields[5]),
            source=source,
            der=der,
            tbs_der=span(parts[0]),
            signature=cert.signature_value.as_bytes(),
            version=tbs.version + 1,
            signature_algorithm=cert.signature_algorithm.algorithm.dotted_string,
            tbs_signature_algorithm=tbs.signature.algorithm.dotted_string,
            key_algorithm=spki.algorithm.algorithm.dotted_string,
            key_parameters=(spki.algorithm.parameters.dotted_string  # an EC key's named curve
                            if isinstance(spki.algorithm.parameters, quickder.OID) else None),
            key_bits=spki.subject_public_key.as_bytes(),
            unique_ids=tbs.issuer_unique_id is not None or tbs.subject_unique_id is not None,
            validity_types=(time_type(validity.not_before), time_type(validity.not_after)),
        )
        for ext, parsed in zip(tbs.extensions or (), values):
            oid = ext.extn_id.dotted_string
            self.extensions.append(Extension(oid, ext.critical, ext.extn_value))
            certext.read(self, oid, parsed)
        return self

    # ---- derived facts ----------------------------------------------------------------------------
    @property
    def self_signed(self) -> bool:
        return self.issuer.der == self.subject.der and (self.aki is None or self.aki == self.ski)

    @property
    def kind(self) -> Kind:
        if asn1.OID_KP_BGPSEC_ROUTER in self.eku:
            return Kind.ROUTER
        if self.is_ca:
            return Kind.TA if self.self_signed else Kind.CA
        return Kind.EE

    def public_key(self):
        """The subject's key as a `cryptography` public key, loaded once for the bytes it is of (a CA's
        key checks each of its ROAs' EE certificates)."""
        info = self.public_key_info
        held = self.__dict__.get("_key")
        if held is not None and held[0] is info:
            return held[1]
        try:
            key = load_der_public_key(info)
        except Exception as e:  # noqa: BLE001 - cryptography raises ValueError / UnsupportedAlgorithm
            raise ObjectError(f"want a loadable public key, got {type(e).__name__}: {e}", self.source,
                              check="subjectPublicKeyInfo", rfc="RFC 6487 section 4.7") from None
        self.__dict__["_key"] = (info, key)
        return key

    def __getstate__(self) -> dict:
        """Pickled (to a worker process) without the loaded key, which is not picklable."""
        state = dict(self.__dict__)
        state.pop("_key", None)
        return state

    # ---- the profile ------------------------------------------------------------------------------
    def problems(self, at: datetime | None = None) -> list[tuple[str, str, str]]:
        """Every profile failure as (check, RFC section, what was wanted). `at`: also check validity."""
        p: list[tuple[str, str, str]] = []
        kind = self.kind
        add = lambda check, rfc, msg: p.append((check, rfc, msg))  # noqa: E731
        if self.version != 3:
            add("version", "RFC 6487 section 4.1", f"want version 3, got {self.version}")
        if self.serial <= 0:
            add("serialNumber", "RFC 6487 section 4.2", f"want a positive serial number, got {self.serial}")
        elif self.serial.bit_length() > 159:
            add("serialNumber", "RFC 5280 section 4.1.2.2", "want a serial number of at most 20 octets")
        for check, alg in (("signatureAlgorithm", self.signature_algorithm), ("signature", self.tbs_signature_algorithm)):
            if alg != asn1.OID_SHA256_WITH_RSA:
                add(check, "RFC 6487 section 4.3, RFC 7935 section 2", f"want sha256WithRSAEncryption, got {alg}")
        if self.signature_algorithm != self.tbs_signature_algorithm:
            add("signature", "RFC 5280 section 4.1.1.2", "want the same algorithm inside and outside the TBSCertificate")
        p += name_problems(self.issuer, "issuer", "RFC 6487 section 4.4")
        p += name_problems(self.subject, "subject", "RFC 6487 section 4.5")
        if self.unique_ids:
            add("uniqueIdentifier", "RFC 6487 section 4", "want no issuerUniqueID or subjectUniqueID")
        for which, typ, when in zip(("notBefore", "notAfter"), self.validity_types, (self.not_before, self.not_after)):
            want = "utc_time" if when.year < UTC_LIMIT_YEAR else "general_time"
            if typ != want:
                add(f"validity.{which}", "RFC 5280 section 4.1.2.5",
                    f"want {'UTCTime' if want == 'utc_time' else 'GeneralizedTime'} for {when.year}, got the other")
        if self.not_before >= self.not_after:
            add("validity", "RFC 6487 section 4.6", "want notBefore before notAfter")
        if at is not None and not (self.not_before <= at <= self.not_after):
            add("validity", "RFC 6487 section 4.6.1",
                f"want {at:%Y-%m-%d %H:%M:%S} within {self.not_before:%Y-%m-%d} .. {self.not_after:%Y-%m-%d}")
        p += self._key_problems(kind)
        p += certext.problems(self, ta=kind is Kind.TA, ca=kind in (Kind.TA, Kind.CA), router=kind is Kind.ROUTER,
                              what=kind.value)
        return p

    def _key_problems(self, kind: Kind) -> list[tuple[str, str, str]]:
        """RFC 6487 section 4.7: an RSA-2048 key with exponent 65537 (RFC 7935 section 3); a BGPsec
        router's an ECDSA P-256 key (RFC 8208 section 3.1)."""
        out = []
        if kind is Kind.ROUTER:
            if self.key_algorithm != asn1.OID_EC_PUBLIC_KEY or self.key_parameters != asn1.OID_SECP256R1:
                out.append(("subjectPublicKeyInfo", "RFC 8208 section 3.1, RFC 8209 section 3.1",
                            "want an ECDSA P-256 key for a BGPsec router"))
            return out
        if self.key_algorithm != asn1.OID_RSA:
            return [("subjectPublicKeyInfo", "RFC 7935 section 3", f"want rsaEncryption, got {self.key_algorithm}")]
        try:
            key = self.public_key()
        except ObjectError as e:
            return [("subjectPublicKeyInfo", "RFC 7935 section 3", e.reason)]
        if not isinstance(key, rsa.RSAPublicKey):
            return [("subjectPublicKeyInfo", "RFC 7935 section 3", "want an RSA key")]
        nums = key.public_numbers()
        if key.key_size != 2048:
            out.append(("subjectPublicKeyInfo", "RFC 7935 section 3", f"want a 2048-bit modulus, got {key.key_size}"))
        if nums.e != 65537:
            out.append(("subjectPublicKeyInfo", "RFC 7935 section 3", f"want exponent 65537, got {nums.e}"))
        return out

    def check_profile(self, at: datetime | None = None) -> ResourceCertificate:
        """Raise ObjectError for the first profile failure (the message counts the others)."""
        raise_first(self.problems(at), self.source)
        return self

    # ---- one step up ------------------------------------------------------------------------------
    def verify_signature(self, issuer_key) -> None:
        """RFC 5280 section 4.1.1.3: the issuer's key signed the received TBSCertificate."""
        verify_rsa_sha256(issuer_key, self.signature, self.tbs_der, self.source, "signatureValue")

    def check_issued_by(self, issuer: ResourceCertificate) -> None:
        check_issuer(self, issuer, "RFC 6487 section 4.4", "RFC 6487 section 4.8.3", self is not issuer)


def check_issuer(obj, issuer: ResourceCertificate, name_rfc: str, aki_rfc: str, check_aki: bool = True) -> None:
    """`obj` (a certificate or CRL) names `issuer` as its issuer, points at its key and carries its
    signature."""
    if obj.issuer.der != issuer.subject.der:
        raise ObjectError(f"want issuer {issuer.subject}, got {obj.issuer}", obj.source, check="issuer", rfc=name_rfc)
    if check_aki and obj.aki is not None and obj.aki != issuer.ski:
        raise ObjectError(f"want the issuer's SKI {issuer.ski.hex() if issuer.ski else None}, got {obj.aki.hex()}",
                          obj.source, check="authorityKeyIdentifier", rfc=aki_rfc)
    obj.verify_signature(issuer.public_key())


_PKCS1V15, _SHA256 = padding.PKCS1v15(), hashes.SHA256()  # made once: two checks a ROA


def verify_rsa_sha256(key, signature: bytes, data: bytes, source, check: str) -> None:
    """An RSA PKCS #1 v1.5 SHA-256 signature (RFC 7935 section 2) over `data`."""
    if not isinstance(key, rsa.RSAPublicKey):
        raise ObjectError("want an RSA issuer key", source, check=check, rfc="RFC 7935 section 2")
    try:
        key.verify(signature, data, _PKCS1V15, _SHA256)
    except InvalidSignature:
        raise ObjectError("want a valid sha256WithRSAEncryption signature by the issuer's key, it does not verify",
                          source, check=check, rfc="RFC 5280 section 4.1.1.3") from None


def now() -> datetime:
    return datetime.now(timezone.utc)
