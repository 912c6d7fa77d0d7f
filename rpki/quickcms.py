"""The CMS wrapper of a signed object (RFC 5652 section 5, profiled by RFC 6488 section 2) and the
ROA (RFC 9582 section 4), manifest (RFC 9286 section 4.2) and ASPA eContents, on `cryptography`'s
strict DER decoder: their one reader.

`content_info_value` decodes a ContentInfo holding a SignedData with any CMSVersion, any number of
certificates (each read by rpki.cert), CRLs (held to DER framing: RFC 6488 section 2.1.5 rejects them
by name) and SignerInfos, any digest and signature algorithm, a sid of either form, and signed or
unsigned attributes: the values of those the profile names decoded (`attribute_values`), any other's
held to DER framing. The eContent schemas are read by `rpki.quickder.strict`.
"""

from __future__ import annotations

from typing import Annotated

from cryptography.hazmat import asn1 as a

from .der import framing
from .errors import DERError, ObjectError
from .quickder import AlgorithmIdentifier, parameters_ok, strict
from .quickext import OID, AttributeTypeAndValue, Unread, name_attributes


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
    certificates: Annotated[a.SetOf[a.TLV] | None, a.Implicit(0)]  # CertificateChoices: rpki.cert reads each
    crls: Annotated[a.SetOf[a.TLV] | None, a.Implicit(1)]  # RevocationInfoChoices
    signer_infos: a.SetOf[SignerInfo]


@a.sequence
class ContentInfo:
    content_type: OID
    content: Annotated[SignedData, a.Explicit(0)]


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
OID_ATTR_BINARY_SIGNING_TIME = "1.2.840.113549.1.9.16.2.46"  # RFC 6019: BinaryTime, an INTEGER
OID_SHA256 = "2.16.840.1.101.3.4.2.1"  # id-sha256 (RFC 5754 section 2.2)


def _time_value(tlv):
    kind = {b"\x17": a.UTCTime, b"\x18": a.GeneralizedTime}.get(tlv.tag_bytes)
    if kind is None:
        raise Unread(f"want a UTCTime or a GeneralizedTime signing-time, got tag {tlv.tag_bytes.hex()}")
    return tlv.parse(kind)


# RFC 6488 section 2.1.6.4: the values of the signed attributes the profile names, decoded
_ATTRIBUTE_VALUES = {
    OID_ATTR_CONTENT_TYPE: lambda tlv: tlv.parse(OID),
    OID_ATTR_MESSAGE_DIGEST: lambda tlv: tlv.parse(bytes),
    OID_ATTR_SIGNING_TIME: _time_value,
    OID_ATTR_BINARY_SIGNING_TIME: lambda tlv: tlv.parse(int),
}


def attribute_values(attr: Attribute) -> list:
    """The values of a signed or unsigned attribute: decoded (an OID, bytes, a time, an int) for the
    types the profile names, None each for any other (held to DER framing)."""
    decode = _ATTRIBUTE_VALUES.get(attr.type.dotted_string)
    values = attr.values.as_list()
    if decode is None:
        for tlv in values:
            framing(tlv)
        return [None] * len(values)
    return [decode(tlv) for tlv in values]


def _signer_info_values(si: SignerInfo) -> list[list]:
    """The values of each signed attribute of a SignerInfo (`attribute_values`); its unsigned
    attributes, its sid's Name and its algorithms' parameters read too."""
    if isinstance(si.sid, IssuerAndSerialNumber):
        name_attributes(si.sid.issuer)
    for alg in (si.digest_algorithm, si.signature_algorithm):
        parameters_ok(alg.parameters)
    for attr in (() if si.unsigned_attrs is None else si.unsigned_attrs.as_list()):
        attribute_values(attr)
    return [attribute_values(attr) for attr in (() if si.signed_attrs is None else si.signed_attrs.as_list())]


def content_info_value(data: bytes, source, what: str) -> tuple[ContentInfo, list[list[list]]]:
    """A ContentInfo (RFC 5652 section 3) holding a SignedData, decoded, with the decoded values of
    each SignerInfo's signed attributes; DERError when it is not DER, ObjectError (rpki.quickext's
    Unread) when a part is DER of a form not read here."""
    info = strict(ContentInfo, data, source, what)
    sd = info.content
    try:
        for alg in sd.digest_algorithms.as_list():
            parameters_ok(alg.parameters)
        for crl in (() if sd.crls is None else sd.crls.as_list()):
            framing(crl)
        return info, [_signer_info_values(si) for si in sd.signer_infos.as_list()]
    except Unread as e:
        raise ObjectError(f"want a {what} of the forms read here: {e}", source) from None
    except ValueError as e:  # NotDER, or cryptography's ParseError
        raise DERError(f"want DER (X.690 section 10) for {what}: {e}", source) from None
