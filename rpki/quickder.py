"""A fast path to the strict DER gate (X.690 section 10, RFC 6487 section 4, RFC 6488 section 3).

`rpki.der.decode` proves DER by a full asn1crypto decode and re-encode, which costs more than
reading the object (docs/rpki-objects.md). The schemas here decode the usual shape of an RPKI
object with `cryptography`'s Rust decoder, which is strict DER itself: definite minimal lengths,
minimal INTEGERs, BOOLEAN 0x00/0xFF, no encoded DEFAULT, sorted SET OF, zero padding bits, no
trailing or undeclared elements.

Each check answers only "certainly DER": True when every byte that the asn1crypto gate would
re-encode (extension values of the types asn1crypto knows, the RSA key in its BIT STRING, the
signed attributes) decoded here too and is in a form asn1crypto re-encodes unchanged. A certificate
is taken with any version, unique identifiers, an RSA or EC key, the signature algorithms of
`SIGNATURE_ALGORITHMS`, and the names and extension values rpki.quickext takes. A CRL, alone or
in a SignedData, is taken with any version asn1crypto names and the CRL and entry extensions of
`_crl_ok`. A GeneralizedTime is taken where asn1crypto writes it back unchanged (`time_ok`). A
SignedData is taken with any CMSVersion asn1crypto names, any number of certificates, CRLs (`_crl_ok`) and
SignerInfos, any digest algorithm, a sid of either form, the signature algorithms of
`SIGNER_SIGNATURE_ALGORITHMS`, and signed or unsigned attributes of the types `attribute_values`
decodes, so that the profile's rejections of these can be worded from here. Anything else gives
False and the full gate decides, with its own error text. So a True never accepts what the gate
would reject, and a False changes nothing but the time. Here: the certificate (RFC 5280 section
4.1), the CRL (RFC 5280 section 5.1), the CMS wrapper (RFC 5652 section 5 as RFC 6488 section 2
profiles it) and the ROA, manifest and ASPA (either profile) eContents; rpki.quickext decodes the
certificate extension values and names.

The `*_value` forms return what they decoded (None where the check says False), and `children`
finds where each element lies in the bytes: rpki.cert, rpki.crl, rpki.cms, rpki.roa, rpki.manifest
and rpki.aspa fill their objects from these directly (`read_quick`, `_read_quick`) and use the asn1crypto readers only
for what the fast path declines; tests/test_rpki_quickread.py holds the two to the same result.

`cryptography.hazmat.asn1`, which its authors call unstable, is used here and in rpki.quickext only.
"""

from __future__ import annotations

from typing import Annotated

from asn1crypto import crl as acrl
from cryptography.hazmat import asn1 as a

from . import asn1
from .certoids import EXT_AIA, EXT_CRLDP
from .quickext import (
    EXTENSION_VALUES,
    OID,
    AttributeTypeAndValue,
    GeneralNames,
    aki_value,
    as_sequence,
    decodes,
    extension_values,
    general_names_ok,
    names_ok,
    wrapped,
)

Time = a.UTCTime | a.GeneralizedTime
UTCTime = a.UTCTime  # for the readers of decoded times (rpki.cert)


# ---- X.509 (RFC 5280 section 4.1) -----------------------------------------------------------------
@a.sequence
class AlgorithmIdentifier:
    algorithm: OID
    parameters: a.Null | None


@a.sequence
class Validity:
    not_before: Time
    not_after: Time


@a.sequence
class KeyAlgorithmIdentifier:  # RFC 5280 section 4.1.2.7; RFC 5480 section 2.1.1 for EC parameters
    algorithm: OID
    parameters: OID | a.Null | None


@a.sequence
class SubjectPublicKeyInfo:
    algorithm: KeyAlgorithmIdentifier
    subject_public_key: a.BitString


@a.sequence
class RSAPublicKey:  # RFC 8017 appendix A.1.1
    modulus: int
    public_exponent: int


@a.sequence
class Extension:
    extn_id: OID
    critical: Annotated[bool, a.Default(False)]
    extn_value: bytes


@a.sequence
class TBSCertificate:
    version: Annotated[int, a.Explicit(0), a.Default(0)]
    serial_number: int
    signature: AlgorithmIdentifier
    issuer: list[a.SetOf[AttributeTypeAndValue]]
    validity: Validity
    subject: list[a.SetOf[AttributeTypeAndValue]]
    subject_public_key_info: SubjectPublicKeyInfo
    issuer_unique_id: Annotated[a.BitString | None, a.Implicit(1)]
    subject_unique_id: Annotated[a.BitString | None, a.Implicit(2)]
    extensions: Annotated[list[Extension] | None, a.Explicit(3)]


@a.sequence
class Certificate:
    tbs_certificate: TBSCertificate
    signature_algorithm: AlgorithmIdentifier
    signature_value: a.BitString


# ---- CMS (RFC 5652 section 5, profiled by RFC 6488 section 2) ----------------------------------------
@a.sequence
class Attribute:  # RFC 5652 section 5.3; each value decoded by `attribute_values`
    type: OID
    values: a.SetOf[a.TLV]


@a.sequence
class IssuerAndSerialNumber:  # RFC 5652 section 10.2.4
    issuer: list[a.SetOf[AttributeTypeAndValue]]
    serial_number: int


@a.sequence
class SignerInfo:
    version: int
    sid: IssuerAndSerialNumber | Annotated[bytes, a.Implicit(0)]  # the bytes: a subjectKeyIdentifier
    digest_algorithm: AlgorithmIdentifier
    signed_attrs: Annotated[a.SetOf[Attribute] | None, a.Implicit(0)]
    signature_algorithm: AlgorithmIdentifier
    signature: bytes
    unsigned_attrs: Annotated[a.SetOf[Attribute] | None, a.Implicit(1)]


@a.sequence
class RevokedCertificate:  # RFC 5280 section 5.1
    user_certificate: int
    revocation_date: Time
    crl_entry_extensions: list[Extension] | None


@a.sequence
class TBSCertList:
    version: int | None
    signature: AlgorithmIdentifier
    issuer: list[a.SetOf[AttributeTypeAndValue]]
    this_update: Time
    next_update: a.UTCTime | a.GeneralizedTime | None
    revoked_certificates: list[RevokedCertificate] | None
    crl_extensions: Annotated[list[Extension] | None, a.Explicit(0)]


@a.sequence
class CertificateList:  # a .crl; in a SignedData only to be rejected (RFC 6488 section 2.1.5)
    tbs_cert_list: TBSCertList
    signature_algorithm: AlgorithmIdentifier
    signature_value: a.BitString


@a.sequence
class EncapsulatedContentInfo:
    e_content_type: OID
    e_content: Annotated[bytes | None, a.Explicit(0)]


@a.sequence
class SignedData:
    version: int
    digest_algorithms: a.SetOf[AlgorithmIdentifier]
    encap_content_info: EncapsulatedContentInfo
    certificates: Annotated[a.SetOf[Certificate] | None, a.Implicit(0)]
    crls: Annotated[a.SetOf[CertificateList] | None, a.Implicit(1)]
    signer_infos: a.SetOf[SignerInfo]


@a.sequence
class ContentInfo:
    content_type: OID
    content: Annotated[SignedData, a.Explicit(0)]


@a.sequence
class SMIMECapability:  # RFC 8551 section 2.5.2
    capability_id: OID
    parameters: a.Null | int | None  # of the parameters, these are taken here


@a.sequence
class SMIMECapabilities:
    items: list[SMIMECapability]


# ---- eContent: RFC 9582 section 4 (ROA), RFC 9286 section 4.2 (manifest) ---------------------------
@a.sequence
class ROAIPAddress:
    address: a.BitString
    max_length: int | None


@a.sequence
class ROAIPAddressFamily:
    address_family: bytes
    addresses: list[ROAIPAddress]


@a.sequence
class RouteOriginAttestation:
    version: Annotated[int, a.Explicit(0), a.Default(0)]
    as_id: int
    ip_addr_blocks: list[ROAIPAddressFamily]


@a.sequence
class FileAndHash:
    file: a.IA5String
    hash: a.BitString


@a.sequence
class Manifest:
    version: Annotated[int, a.Explicit(0), a.Default(0)]
    manifest_number: int
    this_update: a.GeneralizedTime
    next_update: a.GeneralizedTime
    file_hash_alg: OID
    file_list: list[FileAndHash]


@a.sequence
class ASProviderAttestation:  # draft-ietf-sidrops-aspa-profile section 3 (the current profile)
    version: Annotated[int, a.Explicit(0), a.Default(0)]
    customer_asid: int
    providers: list[int]


@a.sequence
class ProviderAS:  # draft-ietf-sidrops-aspa-profile-13 section 3
    provider_asid: int
    afi_limit: bytes | None


@a.sequence
class ASProviderAttestationV0:
    version: Annotated[int, a.Explicit(0), a.Default(0)]
    customer_asid: int
    providers: list[ProviderAS]


# ---- the checks -------------------------------------------------------------------------------------
OID_ATTR_CONTENT_TYPE = "1.2.840.113549.1.9.3"
OID_ATTR_MESSAGE_DIGEST = "1.2.840.113549.1.9.4"
OID_ATTR_SIGNING_TIME = "1.2.840.113549.1.9.5"
OID_SHA256 = "2.16.840.1.101.3.4.2.1"


# RFC 5280 section 4.1.1.2: the signature algorithms taken here (NULL or no parameters), those whose
# OID asn1crypto writes back unchanged: it names each OID it knows and writes a name back as one OID,
# so an OID sharing its name with another (1.3.14.3.2.29 and sha1WithRSAEncryption) may change
SIGNATURE_ALGORITHMS = frozenset({
    "1.2.840.113549.1.1.5", "1.2.840.113549.1.1.14", asn1.OID_SHA256_WITH_RSA, "1.2.840.113549.1.1.12",
    "1.2.840.113549.1.1.13",  # sha1, sha224, sha256, sha384, sha512 WithRSAEncryption (RFC 4055 section 5)
    "1.2.840.10045.4.3.2", "1.2.840.10045.4.3.3", "1.2.840.10045.4.3.4",  # ecdsa-with-SHA256/384/512 (RFC 5758)
})


def time_ok(t) -> bool:
    """A decoded time that asn1crypto writes back unchanged: it re-encodes a GeneralizedTime from
    its datetime with strftime, whose year has fewer than four digits before 1000."""
    return t is None or isinstance(t, a.UTCTime) or t.as_datetime().year >= 1000


def _key_ok(spki: SubjectPublicKeyInfo) -> bool:
    """An RSA key (NULL or no parameters; the RSAPublicKey in the BIT STRING decoded, as asn1crypto
    decodes and re-encodes it) or an EC key (a named curve, implicitCA NULL or no parameters; the
    point left as octets, as asn1crypto leaves it)."""
    alg, params, bits = spki.algorithm.algorithm.dotted_string, spki.algorithm.parameters, spki.subject_public_key
    if bits.padding_bits() != 0:
        return False
    if alg == asn1.OID_RSA:
        return not isinstance(params, OID) and decodes(RSAPublicKey, bits.as_bytes()) is not None
    return alg == asn1.OID_EC_PUBLIC_KEY


def _unique_id_ok(uid) -> bool:
    """issuerUniqueID, subjectUniqueID: asn1crypto reads them as octets, so whole octets only."""
    return uid is None or uid.padding_bits() == 0


def _cert_extensions(cert: Certificate) -> list | None:
    """Each extension's value decoded (None for one asn1crypto does not parse either), or None when
    the certificate is not certainly DER."""
    tbs = cert.tbs_certificate
    if not (names_ok(tbs.issuer) and names_ok(tbs.subject)
            and tbs.signature.algorithm.dotted_string in SIGNATURE_ALGORITHMS
            and cert.signature_algorithm.algorithm.dotted_string in SIGNATURE_ALGORITHMS
            and cert.signature_value.padding_bits() == 0 and _key_ok(tbs.subject_public_key_info)
            and _unique_id_ok(tbs.issuer_unique_id) and _unique_id_ok(tbs.subject_unique_id)
            and time_ok(tbs.validity.not_before) and time_ok(tbs.validity.not_after)):
        return None
    return extension_values(tbs.extensions or ())


def certificate_value(data: bytes) -> tuple[Certificate, list] | None:
    """A Certificate of RPKI shape that is certainly DER, decoded, with its extension values
    decoded (`_cert_extensions`); None otherwise."""
    cert = decodes(Certificate, data)
    if cert is None:
        return None
    exts = _cert_extensions(cert)
    return None if exts is None else (cert, exts)


def certificate(data: bytes) -> bool:
    """A Certificate (RFC 5280 section 4.1) of RPKI shape is certainly DER."""
    return certificate_value(data) is not None


# RFC 6488 section 2.1.6.4: the signed attributes taken here, each value read as asn1crypto reads it
# (cms.CMSAttribute): binary-signing-time (RFC 6019), which asn1crypto does not know, as an INTEGER
# (asn1crypto parses the value as one and writes it back minimal); smimeCapabilities (not allowed,
# but read) with no parameters, NULL or an INTEGER. Any other attribute, or value, is declined.
OID_ATTR_BINARY_SIGNING_TIME = "1.2.840.113549.1.9.16.2.46"
OID_ATTR_SMIME_CAPABILITIES = "1.2.840.113549.1.9.15"


def _time_value(tlv):
    t = tlv.parse({b"\x17": a.UTCTime, b"\x18": a.GeneralizedTime}[tlv.tag_bytes])
    return t if time_ok(t) else None


def _smime_value(tlv):
    if tlv.tag_bytes != b"\x30":
        raise ValueError("want a SEQUENCE OF SMIMECapability")
    return wrapped(SMIMECapabilities, as_sequence(tlv.data))


_ATTRIBUTE_VALUES = {
    OID_ATTR_CONTENT_TYPE: lambda tlv: tlv.parse(OID),
    OID_ATTR_MESSAGE_DIGEST: lambda tlv: tlv.parse(bytes),
    OID_ATTR_SIGNING_TIME: _time_value,
    OID_ATTR_BINARY_SIGNING_TIME: lambda tlv: tlv.parse(int),
    OID_ATTR_SMIME_CAPABILITIES: _smime_value,
}


def attribute_values(attr: Attribute) -> list | None:
    """The values of a signed or unsigned attribute decoded (an OID, bytes, a time, an int, an
    SMIMECapabilities), or None when it is not one taken here or not certainly DER."""
    decode = _ATTRIBUTE_VALUES.get(attr.type.dotted_string)
    if decode is None:
        return None
    try:
        values = [decode(tlv) for tlv in attr.values.as_list()]
    except (ValueError, KeyError):
        return None
    return None if any(v is None for v in values) else values


# RFC 5652 section 5.1 and 5.3: CMSVersion, as asn1crypto names its values (v0..v5)
CMS_VERSIONS = range(6)


def _signer_info_ok(si: SignerInfo) -> bool:
    """A SignerInfo that asn1crypto writes back unchanged: a sid of a Name it takes, any digest
    algorithm (see `content_info_value`), the signature algorithms of `SIGNER_SIGNATURE_ALGORITHMS`,
    attributes `attribute_values` takes."""
    sid = si.sid
    return (si.version in CMS_VERSIONS and (not isinstance(sid, IssuerAndSerialNumber) or names_ok(sid.issuer))
            and si.signature_algorithm.algorithm.dotted_string in SIGNER_SIGNATURE_ALGORITHMS
            and all(attribute_values(attr) is not None
                    for attrs in (si.signed_attrs, si.unsigned_attrs) if attrs is not None for attr in attrs.as_list()))


# RFC 5280 section 5.2: the CRL extensions taken here, with their values decoded as asn1crypto
# decodes them (crl.TBSCertListExtension): cRLNumber and deltaCRLIndicator INTEGERs, the AKI,
# issuerAltName GeneralNames (of the kinds rpki.quickext takes), freshestCRL and AIA as in a
# certificate. issuingDistributionPoint, and GeneralNames of other kinds, are declined.
OID_CRL_NUMBER = "2.5.29.20"
_CRL_EXTENSION_VALUES = {
    OID_CRL_NUMBER: lambda v: decodes(int, v),
    "2.5.29.27": lambda v: decodes(int, v),  # deltaCRLIndicator
    "2.5.29.35": aki_value,
    "2.5.29.18": lambda v: _general_names_value(v),  # issuerAltName
    "2.5.29.46": EXTENSION_VALUES[EXT_CRLDP],  # freshestCRL: CRLDistributionPoints
    "1.3.6.1.5.5.7.1.1": EXTENSION_VALUES[EXT_AIA],
}
# RFC 5280 section 5.3: the CRL entry extensions taken here (crl.CRLEntryExtension): reasonCode, an
# ENUMERATED of a value asn1crypto names (one content octet, so minimal); holdInstructionCode, an
# OID; invalidityDate, a GeneralizedTime; certificateIssuer, GeneralNames
CRL_REASONS = frozenset({0, 1, 2, 3, 4, 5, 6, 8, 9, 10})
_CRL_ENTRY_EXTENSION_VALUES = {
    "2.5.29.21": lambda v: v[2] if len(v) == 3 and v[:2] == b"\x0a\x01" and v[2] in CRL_REASONS else None,
    "2.5.29.23": lambda v: decodes(OID, v),
    "2.5.29.24": lambda v: t if time_ok(t := decodes(a.GeneralizedTime, v)) else None,
    "2.5.29.29": lambda v: _general_names_value(v),
}


def _general_names_value(v: bytes):
    names = wrapped(GeneralNames, v)
    return names.items if names is not None and general_names_ok(names.items) else None


def _extensions_ok(extensions, values: dict, names) -> bool:
    """Each extension is of a type in `values` whose value decodes there, or of a type asn1crypto
    does not name in `names` (an ObjectIdentifier class: it leaves the value as octets)."""
    for ext in extensions or ():
        oid = ext.extn_id.dotted_string
        decode = values.get(oid)
        if decode is None:
            if names(oid).native != oid:
                return False
        elif decode(ext.extn_value) is None:
            return False
    return True


# RFC 5280 section 5.1.2.1: Version, as asn1crypto names its values (v1..v3); absent is v1
CRL_VERSIONS = (None, 0, 1, 2)


def _crl_ok(crl: CertificateList) -> bool:
    """A CRL that asn1crypto writes back unchanged: a version it names, a signature algorithm of
    `SIGNATURE_ALGORITHMS`, a Name it takes, the CRL and entry extensions taken above or unknown to
    asn1crypto."""
    tbs = crl.tbs_cert_list
    return (tbs.version in CRL_VERSIONS and names_ok(tbs.issuer)
            and tbs.signature.algorithm.dotted_string in SIGNATURE_ALGORITHMS
            and crl.signature_algorithm.algorithm.dotted_string in SIGNATURE_ALGORITHMS
            and crl.signature_value.padding_bits() == 0
            and time_ok(tbs.this_update) and time_ok(tbs.next_update)
            and all(time_ok(r.revocation_date) for r in tbs.revoked_certificates or ())
            and all(_extensions_ok(r.crl_entry_extensions, _CRL_ENTRY_EXTENSION_VALUES, acrl.CRLEntryExtensionId)
                    for r in tbs.revoked_certificates or ())
            and _extensions_ok(tbs.crl_extensions, _CRL_EXTENSION_VALUES, acrl.TBSCertListExtensionId))


def certificate_list_value(data: bytes) -> CertificateList | None:
    """A CertificateList (RFC 5280 section 5.1) that is certainly DER (`_crl_ok`), decoded; None
    otherwise."""
    crl = decodes(CertificateList, data)
    return crl if crl is not None and _crl_ok(crl) else None


def certificate_list(data: bytes) -> bool:
    """A CertificateList of a shape taken here is certainly DER."""
    return certificate_list_value(data) is not None


# RFC 6488 section 2.1.6.5: the SignerInfo signature algorithms taken here (the profile wants
# rsaEncryption or sha256WithRSAEncryption; the others are read to be rejected by name)
SIGNER_SIGNATURE_ALGORITHMS = SIGNATURE_ALGORITHMS | {asn1.OID_RSA}


def content_info_value(data: bytes) -> tuple[ContentInfo, list[list]] | None:
    """A ContentInfo holding a SignedData (RFC 5652 section 5, any number of certificates, CRLs
    of `_crl_ok` and SignerInfos) that is certainly DER, decoded, with the decoded extension values of each
    certificate; None otherwise."""
    info = decodes(ContentInfo, data)
    if info is None or info.content_type.dotted_string != asn1.OID_SIGNED_DATA:
        return None
    sd = info.content
    # a digest algorithm of any OID, NULL or no parameters: asn1crypto's DigestAlgorithmId names the
    # OIDs it knows one to one (tests/test_quickder.py holds it), so it writes each back unchanged
    if sd.version not in CMS_VERSIONS or not all(_signer_info_ok(si) for si in sd.signer_infos.as_list()) \
            or not all(_crl_ok(crl) for crl in (() if sd.crls is None else sd.crls.as_list())):
        return None
    exts = []
    for c in () if sd.certificates is None else sd.certificates.as_list():
        values = _cert_extensions(c)
        if values is None:
            return None
        exts.append(values)
    return info, exts


def content_info(data: bytes) -> bool:
    """A ContentInfo holding an RFC 6488 signed object of a shape taken here is certainly DER."""
    return content_info_value(data) is not None


def roa_value(data: bytes) -> RouteOriginAttestation | None:
    """A RouteOriginAttestation eContent that is certainly DER, decoded; None otherwise."""
    return decodes(RouteOriginAttestation, data)


def roa(data: bytes) -> bool:
    """A RouteOriginAttestation eContent (RFC 9582 section 4) is certainly DER."""
    return roa_value(data) is not None


def manifest_value(data: bytes) -> Manifest | None:
    """A Manifest eContent that is certainly DER, decoded; None otherwise."""
    value = decodes(Manifest, data)
    return value if value is not None and time_ok(value.this_update) and time_ok(value.next_update) else None


def manifest(data: bytes) -> bool:
    """A Manifest eContent (RFC 9286 section 4.2) is certainly DER."""
    return manifest_value(data) is not None


def aspa_value(data: bytes) -> ASProviderAttestation | ASProviderAttestationV0 | None:
    """An ASProviderAttestation eContent of the current profile, else of the draft-13 profile, that
    is certainly DER, decoded; None otherwise. The two cannot both decode but for an empty providers,
    which the current profile takes first, as rpki.aspa does."""
    value = decodes(ASProviderAttestation, data)
    return decodes(ASProviderAttestationV0, data) if value is None else value


def aspa(data: bytes) -> bool:
    """An ASProviderAttestation eContent (either profile) is certainly DER."""
    return aspa_value(data) is not None


# ---- where each element lies: the received bytes of a part (what a signature covers, a name's DER) --
def children(buf: bytes, start: int, end: int) -> list[tuple[int, int, int]]:
    """(offset of the tag, offset of the contents, end) of each element in buf[start:end], for
    bytes that decoded above (DER, so one-octet tags here and definite lengths)."""
    out = []
    pos = start
    while pos < end:
        tag_at = pos
        n = buf[pos + 1]
        pos += 2
        if n & 0x80:
            k = n & 0x7F
            n = int.from_bytes(buf[pos:pos + k], "big")
            pos += k
        out.append((tag_at, pos, pos + n))
        pos += n
    return out


def inside(buf: bytes, element: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    """The elements inside a constructed `element` of `children`."""
    return children(buf, element[1], element[2])
