"""The CMS wrapper of a signed object (RFC 5652 section 5, profiled by RFC 6488 section 2) and the
ROA (RFC 9582 section 4), manifest (RFC 9286 section 4.2) and ASPA eContents, on `cryptography`'s
strict DER decoder.

`content_info_value` decodes a ContentInfo when it is certainly DER (rpki.quickder says what that
means), with any CMSVersion asn1crypto names, any number of certificates, CRLs (rpki.quickcrl) and
SignerInfos, any digest algorithm, a sid of either form, the signature algorithms of
`SIGNER_SIGNATURE_ALGORITHMS`, and signed or unsigned attributes of the types `attribute_values`
decodes; anything else gives None and rpki.cms's asn1crypto reader decides. The eContent schemas
are read by `rpki.quickder.strict`, their one reader.
"""

from __future__ import annotations

from typing import Annotated

from cryptography.hazmat import asn1 as a

from . import asn1
from .quickcrl import CertificateList, crl_ok
from .quickder import (
    SIGNATURE_ALGORITHMS,
    AlgorithmIdentifier,
    Certificate,
    cert_extensions,
    time_ok,
)
from .quickext import (
    OID,
    AttributeTypeAndValue,
    as_sequence,
    decodes,
    names_ok,
    wrapped,
)


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
OID_SHA256 = "2.16.840.1.101.3.4.2.1"  # id-sha256 (RFC 5754 section 2.2)
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


def _signer_info_values(si: SignerInfo) -> list[list] | None:
    """The values of each signed attribute of a SignerInfo that asn1crypto writes back unchanged (a
    sid of a Name it takes, any digest algorithm (see `content_info_value`), the signature algorithms
    of `SIGNER_SIGNATURE_ALGORITHMS`, attributes `attribute_values` takes); None for any other."""
    sid = si.sid
    if (si.version not in CMS_VERSIONS or (isinstance(sid, IssuerAndSerialNumber) and not names_ok(sid.issuer))
            or si.signature_algorithm.algorithm.dotted_string not in SIGNER_SIGNATURE_ALGORITHMS):
        return None
    signed, unsigned = ([attribute_values(attr) for attr in (attrs.as_list() if attrs is not None else ())]
                        for attrs in (si.signed_attrs, si.unsigned_attrs))
    return None if any(v is None for v in signed + unsigned) else signed


# RFC 6488 section 2.1.6.5: the SignerInfo signature algorithms taken here (the profile wants
# rsaEncryption or sha256WithRSAEncryption; the others are read to be rejected by name)
SIGNER_SIGNATURE_ALGORITHMS = SIGNATURE_ALGORITHMS | {asn1.OID_RSA}


def content_info_value(data: bytes) -> tuple[ContentInfo, list[list], list[list[list]]] | None:
    """A ContentInfo holding a SignedData (RFC 5652 section 5, any number of certificates, CRLs
    of `crl_ok` and SignerInfos) that is certainly DER, decoded, with the decoded extension values of
    each certificate and the decoded values of each SignerInfo's signed attributes; None otherwise."""
    info = decodes(ContentInfo, data)
    if info is None or info.content_type.dotted_string != asn1.OID_SIGNED_DATA:
        return None
    sd = info.content
    # a digest algorithm of any OID, NULL or no parameters: asn1crypto's DigestAlgorithmId names the
    # OIDs it knows one to one (tests/test_quickder.py holds it), so it writes each back unchanged
    if sd.version not in CMS_VERSIONS or not all(crl_ok(crl) for crl in (() if sd.crls is None else sd.crls.as_list())):
        return None
    attrs = [_signer_info_values(si) for si in sd.signer_infos.as_list()]
    if any(v is None for v in attrs):
        return None
    exts = []
    for c in () if sd.certificates is None else sd.certificates.as_list():
        values = cert_extensions(c)
        if values is None:
            return None
        exts.append(values)
    return info, exts, attrs


def content_info(data: bytes) -> bool:
    """A ContentInfo holding an RFC 6488 signed object of a shape taken here is certainly DER."""
    return content_info_value(data) is not None
