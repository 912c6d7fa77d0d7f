"""Resource certificates: RFC 6487 section 4 (CA, EE, trust anchor) and RFC 8209 (BGPsec router).

`ResourceCertificate.parse(der, source)` runs the DER gate (on the certificate and on each RFC 3779
extension value) and reads the fields a CA sets into plain Python values; a later builder fills the
same dataclass and signs it. `check_profile()` enforces the profile and raises `ObjectError` naming
the check and the RFC section; `problems()` lists every failure. `check_issued_by(issuer)` checks
the one step from an issuer: name, AKI and the signature (RFC 6487 sections 4.4, 4.8.3, RFC 5280
section 4.1.1.3). Chains, resource containment along a path and revocation are validation, not here.

Two readers fill the dataclass: `read_quick` from rpki.quickder's decode, when the bytes are
certainly DER and of the usual RPKI shape (most certificates), and `_read` through asn1crypto and
the DER gate for everything else. Only the second words rejections: anything the first does not
foresee, or any error it meets, sends the certificate to the second.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from functools import lru_cache

from asn1crypto import _iri, core, x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.serialization import load_der_public_key

from . import asn1, quickder
from .der import check_printable, read
from .errors import ObjectError, raise_first
from .resources import (AsResources, IpResources, as_resources_from_quick, decode_as_extension, decode_ip_extension,
                        ip_resources_from_quick)

OID_CN = "2.5.4.3"
OID_SERIAL_NUMBER = "2.5.4.5"
EXT_BC, EXT_SKI, EXT_AKI, EXT_KU = "2.5.29.19", "2.5.29.14", "2.5.29.35", "2.5.29.15"
EXT_EKU, EXT_CRLDP, EXT_CP = "2.5.29.37", "2.5.29.31", "2.5.29.32"
EXT_AIA, EXT_SIA = "1.3.6.1.5.5.7.1.1", "1.3.6.1.5.5.7.1.11"
EXT_IP, EXT_AS = asn1.OID_IP_ADDR_BLOCKS, asn1.OID_AS_IDENTIFIERS
KNOWN_EXTENSIONS = {EXT_BC, EXT_SKI, EXT_AKI, EXT_KU, EXT_EKU, EXT_CRLDP, EXT_CP, EXT_AIA, EXT_SIA, EXT_IP, EXT_AS}
OID_QT_CPS = "1.3.6.1.5.5.7.2.1"
UTC_LIMIT_YEAR = 2050  # RFC 5280 section 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050


class Kind(Enum):
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


def read_name(name: x509.Name) -> Name:
    attrs = []
    for rdn in name.chosen:
        for atv in rdn:
            value = atv["value"]
            inner = value.chosen if isinstance(value, core.Choice) else value
            attrs.append((atv["type"].dotted, type(inner).__name__, str(inner.native)))
    cn = next((v for o, _, v in attrs if o == OID_CN), None)
    sn = next((v for o, _, v in attrs if o == OID_SERIAL_NUMBER), None)
    return Name(cn, sn, name.dump(), tuple(attrs), len(name.chosen))


def _quick_name(rdns, der: bytes) -> Name:
    """`read_name` from rpki.quickder's decode (PrintableString CommonName and serialNumber only)."""
    attrs = tuple((atv.type.dotted_string, "PrintableString", atv.value.as_str())
                  for rdn in rdns for atv in rdn.as_list())
    cn = next((v for o, _, v in attrs if o == OID_CN), None)
    sn = next((v for o, _, v in attrs if o == OID_SERIAL_NUMBER), None)
    return Name(cn, sn, der, attrs, len(rdns))


def _time_type(t) -> str:
    return "utc_time" if isinstance(t, quickder.a.UTCTime) else "general_time"


_KEY_USAGE = dict(x509.KeyUsage._map)  # bit number -> asn1crypto's name


def _key_usage_names(bits) -> frozenset[str]:
    data = bits.as_bytes()
    return frozenset(_KEY_USAGE[i] for i in range(len(data) * 8) if data[i // 8] >> (7 - i % 8) & 1)


def _uri_text(uri: str) -> str:
    """The URI as asn1crypto gives it (an IRI). A path of unreserved characters only stays as it
    is (rpki.quickder._PLAIN_PATH), so only the scheme and authority are converted, once each."""
    m = quickder._PLAIN_PATH.fullmatch(uri)
    if m:
        head = _iri_text(m.group(1) + "/")
        if head.endswith("/"):
            return head[:-1] + uri[m.end(1):]
    return _iri_text(uri)


@lru_cache(maxsize=4096)
def _iri_text(uri: str) -> str:
    return _iri.uri_to_iri(uri.encode("ascii"))


def read_quick(der: bytes, source) -> ResourceCertificate | None:
    """`ResourceCertificate.parse` when rpki.quickder certainly accepts the bytes and reads them
    without surprise; None otherwise (the asn1crypto path then decides, with its own texts)."""
    try:
        decoded = quickder.certificate_value(der)
        return None if decoded is None else ResourceCertificate._read_quick(
            *decoded, der, quickder.children(der, 0, len(der))[0], source)
    except Exception:  # noqa: BLE001 - anything unforeseen: the asn1crypto path decides
        return None


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
    signature_parameters: bytes | None = None
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
    def parse(cls, der: bytes, source: str | None = None, *, checked: bool = False) -> ResourceCertificate:
        """`checked`: the bytes were DER-checked as part of a whole (the EE certificate of a signed
        object): that check reached every extension value, so none is checked again."""
        if isinstance(der, (bytes, bytearray, memoryview)):
            quick = read_quick(bytes(der), source)
            if quick is not None:
                return quick
        return read(x509.Certificate, der, source, "Certificate (RFC 5280 section 4.1)", "certificate",
                    lambda value, data, src: cls._read(value, data, src, checked), checked=checked,
                    fast=quickder.certificate)

    @classmethod
    def _read(cls, cert: x509.Certificate, der: bytes, source, checked: bool = False) -> ResourceCertificate:
        tbs = cert["tbs_certificate"]
        spki = tbs["subject_public_key_info"]
        alg = spki["algorithm"]
        key_params = alg["parameters"]
        sig_params = cert["signature_algorithm"]["parameters"]
        validity = tbs["validity"]
        self = cls(
            serial=tbs["serial_number"].native,
            issuer=read_name(tbs["issuer"]),
            subject=read_name(tbs["subject"]),
            not_before=validity["not_before"].native,
            not_after=validity["not_after"].native,
            public_key_info=spki.dump(),
            source=source,
            der=der,
            tbs_der=tbs.dump(),
            signature=cert["signature_value"].native,
            version=int(tbs["version"]) + 1,  # v3 is encoded as 2
            signature_algorithm=cert["signature_algorithm"]["algorithm"].dotted,
            tbs_signature_algorithm=tbs["signature"]["algorithm"].dotted,
            signature_parameters=None if isinstance(sig_params, core.Void) else sig_params.dump(),
            key_algorithm=alg["algorithm"].dotted,
            key_parameters=(key_params.chosen.dotted if alg["algorithm"].dotted == asn1.OID_EC_PUBLIC_KEY
                            and key_params.name == "named" else None),
            key_bits=bytes(spki["public_key"].contents[1:]),
            unique_ids=not isinstance(tbs["issuer_unique_id"], core.Void)
            or not isinstance(tbs["subject_unique_id"], core.Void),
            validity_types=(validity["not_before"].name, validity["not_after"].name),
        )
        exts = tbs["extensions"]
        for ext in [] if isinstance(exts, core.Void) else exts:
            oid = ext["extn_id"].dotted
            value = bytes(ext["extn_value"].contents)
            self.extensions.append(Extension(oid, bool(ext["critical"].native), value))
            parsed = ext["extn_value"].parsed if oid in KNOWN_EXTENSIONS - {EXT_IP, EXT_AS} else None
            if oid == EXT_IP:
                self.ip_resources = decode_ip_extension(value, source, checked=checked)
            elif oid == EXT_AS:
                self.as_resources = decode_as_extension(value, source, checked=checked)
            elif oid == EXT_SKI:
                self.ski = parsed.native
            elif oid == EXT_AKI:
                self.aki = parsed["key_identifier"].native
                self.aki_has_issuer_serial = (parsed["authority_cert_issuer"].native is not None
                                              or parsed["authority_cert_serial_number"].native is not None)
            elif oid == EXT_BC:
                self.bc_present = True
                self.is_ca = bool(parsed["ca"].native)
                self.bc_path_len = parsed["path_len_constraint"].native
            elif oid == EXT_KU:
                self.key_usage = frozenset(parsed.native)
            elif oid == EXT_EKU:
                self.eku = [k.dotted for k in parsed]
            elif oid == EXT_CP:
                for pol in parsed:
                    self.policies.append(pol["policy_identifier"].dotted)
                    quals = pol["policy_qualifiers"]
                    for q in [] if isinstance(quals, core.Void) else quals:
                        self.policy_qualifiers.append(q["policy_qualifier_id"].dotted)
            elif oid == EXT_CRLDP:
                for dp in parsed:
                    if dp["reasons"].native is not None:
                        self.crldp_problems.append("want no reasons in a DistributionPoint")
                    if dp["crl_issuer"].native is not None:
                        self.crldp_problems.append("want no cRLIssuer in a DistributionPoint")
                    dpn = dp["distribution_point"]
                    if isinstance(dpn, core.Void) or dpn.name != "full_name":
                        self.crldp_problems.append("want a distributionPoint with a fullName")
                        continue
                    self.crldp += [g.chosen.native for g in dpn.chosen if g.name == "uniform_resource_identifier"]
            elif oid == EXT_AIA:
                for ad in parsed:
                    if ad["access_method"].dotted != asn1.OID_AD_CA_ISSUERS:
                        self.aia_problems.append(f"want only id-ad-caIssuers, got {ad['access_method'].dotted}")
                    elif ad["access_location"].name == "uniform_resource_identifier":
                        self.aia.append(ad["access_location"].chosen.native)
            elif oid == EXT_SIA:
                for ad in parsed:
                    uris = self.sia.setdefault(ad["access_method"].dotted, [])
                    if ad["access_location"].name == "uniform_resource_identifier":
                        uris.append(ad["access_location"].chosen.native)
        return self

    @classmethod
    def _read_quick(cls, cert: quickder.Certificate, values: list, der: bytes, at: tuple[int, int, int], source
                    ) -> ResourceCertificate:
        """The fields `_read` reads, from rpki.quickder's decode: `cert`, certainly DER, is the
        element `at` (rpki.quickder.children) of `der`; `values` are its extension values decoded."""
        tbs = cert.tbs_certificate
        parts = quickder.inside(der, at)
        fields = quickder.inside(der, parts[0])
        if der[fields[0][0]] == 0xA0:  # [0] version
            fields = fields[1:]
        span = lambda e: der[e[0]:e[2]]  # noqa: E731
        spki = tbs.subject_public_key_info
        validity = tbs.validity
        self = cls(
            serial=tbs.serial_number,
            issuer=_quick_name(tbs.issuer, span(fields[2])),
            subject=_quick_name(tbs.subject, span(fields[4])),
            not_before=validity.not_before.as_datetime(),
            not_after=validity.not_after.as_datetime(),
            public_key_info=span(fields[5]),
            source=source,
            der=span(at),
            tbs_der=span(parts[0]),
            signature=cert.signature_value.as_bytes(),
            version=tbs.version + 1,
            signature_algorithm=cert.signature_algorithm.algorithm.dotted_string,
            tbs_signature_algorithm=tbs.signature.algorithm.dotted_string,
            signature_parameters=None if cert.signature_algorithm.parameters is None else b"\x05\x00",
            key_algorithm=spki.algorithm.algorithm.dotted_string,
            key_parameters=None,  # quickder takes RSA keys only
            key_bits=spki.subject_public_key.as_bytes(),
            validity_types=(_time_type(validity.not_before), _time_type(validity.not_after)),
        )
        for ext, parsed in zip(tbs.extensions or (), values):
            oid = ext.extn_id.dotted_string
            self.extensions.append(Extension(oid, ext.critical, ext.extn_value))
            if oid == EXT_IP:
                self.ip_resources = ip_resources_from_quick(parsed, source)
            elif oid == EXT_AS:
                self.as_resources = as_resources_from_quick(parsed, source)
            elif oid == EXT_SKI:
                self.ski = parsed
            elif oid == EXT_AKI:  # quickder takes no authorityCertIssuer or authorityCertSerialNumber
                self.aki = parsed.key_identifier
            elif oid == EXT_BC:
                self.bc_present = True
                self.is_ca = parsed.ca
                self.bc_path_len = parsed.path_len_constraint
            elif oid == EXT_KU:
                self.key_usage = _key_usage_names(parsed)
            elif oid == EXT_EKU:
                self.eku = [k.dotted_string for k in parsed]
            elif oid == EXT_CP:
                for pol in parsed:
                    self.policies.append(pol.policy_identifier.dotted_string)
                    for q in pol.policy_qualifiers or ():
                        self.policy_qualifiers.append(q.policy_qualifier_id.dotted_string)
            elif oid == EXT_CRLDP:  # quickder takes fullName URIs only, no reasons, no cRLIssuer
                for uris in parsed:
                    self.crldp += [_uri_text(u.as_str()) for u in uris]
            elif oid == EXT_AIA:
                for ad in parsed:
                    method = ad.access_method.dotted_string
                    if method != asn1.OID_AD_CA_ISSUERS:
                        self.aia_problems.append(f"want only id-ad-caIssuers, got {method}")
                    else:
                        self.aia.append(_uri_text(ad.access_location.as_str()))
            elif oid == EXT_SIA:
                for ad in parsed:
                    self.sia.setdefault(ad.access_method.dotted_string, []).append(
                        _uri_text(ad.access_location.as_str()))
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
        """The subject's key as a `cryptography` public key."""
        try:
            return load_der_public_key(self.public_key_info)
        except Exception as e:  # noqa: BLE001 - cryptography raises ValueError / UnsupportedAlgorithm
            raise ObjectError(f"want a loadable public key, got {type(e).__name__}: {e}", self.source,
                              check="subjectPublicKeyInfo", rfc="RFC 6487 section 4.7") from None

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
        p += self._extension_problems(kind)
        return p

    def _key_problems(self, kind: Kind) -> list[tuple[str, str, str]]:
        out = []
        if kind is Kind.ROUTER:
            if self.key_algorithm != asn1.OID_EC_PUBLIC_KEY or self.key_parameters != asn1.OID_SECP256R1:
                out.append(("subjectPublicKeyInfo", "RFC 8208 section 3.1, RFC 8209 section 3.1",
                            "want an ECDSA P-256 key for a BGPsec router"))
            return out
        if self.key_algorithm != asn1.OID_RSA:
            return [("subjectPublicKeyInfo", "RFC 7935 section 3", f"want rsaEncryption, got {self.key_algorithm}")]
        from cryptography.hazmat.primitives.asymmetric import rsa

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

    def _extension_problems(self, kind: Kind) -> list[tuple[str, str, str]]:
        out: list[tuple[str, str, str]] = []
        add = lambda check, rfc, msg: out.append((check, rfc, msg))  # noqa: E731
        seen: dict[str, Extension] = {}
        for ext in self.extensions:
            if ext.oid in seen:
                add("extensions", "RFC 5280 section 4.2", f"want each extension once, got {ext.oid} twice")
            seen[ext.oid] = ext
            if ext.oid not in KNOWN_EXTENSIONS:
                if ext.critical:
                    add("extensions", "RFC 5280 section 4.2", f"want no unknown critical extension, got {ext.oid}")
                else:
                    add("extensions", "RFC 6487 section 4.8", f"want only the profiled extensions, got {ext.oid}")
        ca = kind in (Kind.TA, Kind.CA)

        def crit(oid: str, want: bool, check: str, rfc: str) -> None:
            if oid in seen and seen[oid].critical != want:
                add(check, rfc, f"want {'critical' if want else 'non-critical'}, got {'critical' if not want else 'non-critical'}")

        # 4.8.1 basic constraints
        if ca:
            if not self.bc_present:
                add("basicConstraints", "RFC 6487 section 4.8.1", "want basicConstraints in a CA certificate")
            crit(EXT_BC, True, "basicConstraints", "RFC 6487 section 4.8.1")
            if self.bc_path_len is not None:
                add("basicConstraints", "RFC 6487 section 4.8.1", "want no pathLenConstraint")
        elif self.bc_present:
            add("basicConstraints", "RFC 6487 section 4.8.1", "want no basicConstraints in an EE certificate"
                if self.is_ca is False else "want cA TRUE")
        # 4.8.2 subject key identifier
        if self.ski is None:
            add("subjectKeyIdentifier", "RFC 6487 section 4.8.2", "want a subjectKeyIdentifier")
        else:
            crit(EXT_SKI, False, "subjectKeyIdentifier", "RFC 6487 section 4.8.2")
            want = hashlib.sha1(self.key_bits).digest()
            if len(self.ski) != 20:
                add("subjectKeyIdentifier", "RFC 6487 section 4.8.2", f"want 20 octets, got {len(self.ski)}")
            elif self.ski != want:
                add("subjectKeyIdentifier", "RFC 6487 section 4.8.2",
                    f"want the SHA-1 of the subject public key {want.hex()}, got {self.ski.hex()}")
        # 4.8.3 authority key identifier
        if EXT_AKI in seen:
            crit(EXT_AKI, False, "authorityKeyIdentifier", "RFC 6487 section 4.8.3")
            if self.aki is None:
                add("authorityKeyIdentifier", "RFC 6487 section 4.8.3", "want a keyIdentifier")
            elif len(self.aki) != 20:
                add("authorityKeyIdentifier", "RFC 6487 section 4.8.3", f"want 20 octets, got {len(self.aki)}")
            if self.aki_has_issuer_serial:
                add("authorityKeyIdentifier", "RFC 6487 section 4.8.3",
                    "want no authorityCertIssuer or authorityCertSerialNumber")
            if self.issuer.der == self.subject.der and self.aki is not None and self.aki != self.ski:
                add("authorityKeyIdentifier", "RFC 6487 section 4.8.3", "want a self-signed certificate's AKI equal to its SKI")
        elif kind is not Kind.TA:
            add("authorityKeyIdentifier", "RFC 6487 section 4.8.3", "want an authorityKeyIdentifier (not self-signed)")
        # 4.8.4 key usage
        if EXT_KU not in seen:
            add("keyUsage", "RFC 6487 section 4.8.4", "want a keyUsage extension")
        else:
            crit(EXT_KU, True, "keyUsage", "RFC 6487 section 4.8.4")
            want_ku = {"key_cert_sign", "crl_sign"} if ca else {"digital_signature"}
            if set(self.key_usage) != want_ku:
                add("keyUsage", "RFC 6487 section 4.8.4",
                    f"want exactly {sorted(want_ku)}, got {sorted(self.key_usage)}")
        # 4.8.5 extended key usage; RFC 8209 section 3.1.3.2
        if EXT_EKU in seen:
            if ca:
                add("extendedKeyUsage", "RFC 6487 section 4.8.5", "want no extendedKeyUsage in a CA certificate")
            crit(EXT_EKU, False, "extendedKeyUsage", "RFC 8209 section 3.1.3.2")
        # 4.8.6 CRL distribution points and 4.8.7 authority information access: where the issuer's
        # CRL and certificate are; a self-signed certificate has neither.
        for ext, check, rfc, short, problems, uris, what in (
                (EXT_CRLDP, "cRLDistributionPoints", "RFC 6487 section 4.8.6", "CRLDP", self.crldp_problems,
                 self.crldp, "an rsync URI"),
                (EXT_AIA, "authorityInfoAccess", "RFC 6487 section 4.8.7", "AIA", self.aia_problems, self.aia,
                 "a caIssuers rsync URI")):
            if kind is Kind.TA:
                if ext in seen:
                    add(check, rfc, f"want no {short} in a self-signed certificate")
            elif ext not in seen:
                add(check, rfc, f"want the {check} extension")
            else:
                crit(ext, False, check, rfc)
                for msg in problems:
                    add(check, rfc, msg)
                if not any(u.startswith("rsync://") for u in uris):
                    add(check, rfc, f"want {what}, got {uris}")
        # 4.8.8 subject information access
        out += self._sia_problems(kind, seen)
        # 4.8.9 certificate policies
        if EXT_CP not in seen:
            add("certificatePolicies", "RFC 6487 section 4.8.9", "want a certificatePolicies extension")
        else:
            crit(EXT_CP, True, "certificatePolicies", "RFC 6487 section 4.8.9")
            if self.policies != [asn1.OID_CP_RPKI]:
                add("certificatePolicies", "RFC 6487 section 4.8.9",
                    f"want exactly one policy {asn1.OID_CP_RPKI}, got {self.policies}")
            if any(q != OID_QT_CPS for q in self.policy_qualifiers):
                add("certificatePolicies", "RFC 7318 section 2", "want only the CPS policy qualifier")
        # 4.8.10, 4.8.11 resources; RFC 8209 section 3.1.3.4, 3.1.3.5
        for oid, name, sec in ((EXT_IP, "ipAddrBlocks", "4.8.10"), (EXT_AS, "autonomousSysIds", "4.8.11")):
            crit(oid, True, name, f"RFC 6487 section {sec}")
        if kind is Kind.ROUTER:
            if self.ip_resources is not None:
                add("ipAddrBlocks", "RFC 8209 section 3.1.3.4", "want no IP resources in a BGPsec router certificate")
            if self.as_resources is None or self.as_resources.inherit:
                add("autonomousSysIds", "RFC 8209 section 3.1.3.5", "want explicit AS resources in a router certificate")
        elif self.ip_resources is None and self.as_resources is None:
            add("resources", "RFC 6487 section 4.8.10", "want an IP or AS resource extension, got neither")
        if kind is Kind.TA and ((self.ip_resources and self.ip_resources.inherit)
                                or (self.as_resources and self.as_resources.inherit)):
            add("resources", "RFC 8630 section 2.3", "want no 'inherit' in a trust anchor certificate")
        return out

    def _sia_problems(self, kind: Kind, seen) -> list[tuple[str, str, str]]:
        out = []
        rfc = "RFC 6487 section 4.8.8"
        if EXT_SIA not in seen:
            if kind is not Kind.ROUTER:
                out.append(("subjectInfoAccess", rfc, "want a subjectInfoAccess extension"))
            return out
        if seen[EXT_SIA].critical:
            out.append(("subjectInfoAccess", rfc, "want non-critical, got critical"))
        if kind in (Kind.TA, Kind.CA):
            allowed = {asn1.OID_AD_CA_REPOSITORY, asn1.OID_AD_RPKI_MANIFEST, asn1.OID_AD_RPKI_NOTIFY}
            for method, label in ((asn1.OID_AD_CA_REPOSITORY, "id-ad-caRepository"),
                                  (asn1.OID_AD_RPKI_MANIFEST, "id-ad-rpkiManifest")):
                uris = self.sia.get(method, [])
                if not any(u.startswith("rsync://") for u in uris):
                    out.append(("subjectInfoAccess", rfc + ".1", f"want an rsync URI for {label}, got {uris}"))
        else:
            allowed = {asn1.OID_AD_SIGNED_OBJECT, asn1.OID_AD_RPKI_NOTIFY}
            uris = self.sia.get(asn1.OID_AD_SIGNED_OBJECT, [])
            if not any(u.startswith("rsync://") for u in uris):
                out.append(("subjectInfoAccess", rfc + ".2", f"want an rsync URI for id-ad-signedObject, got {uris}"))
        for method in self.sia:
            if method not in allowed:
                out.append(("subjectInfoAccess", rfc, f"want only RPKI access methods for a {kind.value}, got {method}"))
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


def verify_rsa_sha256(key, signature: bytes, data: bytes, source, check: str) -> None:
    """An RSA PKCS #1 v1.5 SHA-256 signature (RFC 7935 section 2) over `data`."""
    if not isinstance(key, rsa.RSAPublicKey):
        raise ObjectError("want an RSA issuer key", source, check=check, rfc="RFC 7935 section 2")
    try:
        key.verify(signature, data, padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        raise ObjectError("want a valid sha256WithRSAEncryption signature by the issuer's key, it does not verify",
                          source, check=check, rfc="RFC 5280 section 4.1.1.3") from None


def now() -> datetime:
    return datetime.now(timezone.utc)
