"""The fast DER path (rpki.quickder) for certificate extension values: RFC 5280 section 4.2 and RFC 3779
sections 2.2.3 and 3.2.3, each value decoded from its own octets; and the Names and GeneralNames
they and the certificate hold (RFC 5280 sections 4.1.2.4 and 4.2.1.6).

The full gate (rpki.der) decodes and re-encodes every extension value asn1crypto has a schema for.
`extension_values` decodes those of the RPKI profile, and policyMappings, with `cryptography`'s
strict DER decoder and answers for a value only when it is certainly DER and asn1crypto would
re-encode it unchanged: named bit lists (KeyUsage, ReasonFlags) without trailing zero bits (X.690
section 11.2.2), URIs that asn1crypto gives back byte for byte (rpki.iri). An extension of another
type that asn1crypto would decode is declined; one it does not know stays opaque octets to both
paths. Taken: AKIs with or without issuer and serial; DistributionPoints with a fullName, with or
without reasons and cRLIssuer; CPS and userNotice qualifiers (IA5String or UTF8String texts);
GeneralNames that are URIs, IP addresses (4 or 16 octets) or directory names; name attributes that
asn1crypto reads as a DirectoryString, in a PrintableString or a UTF8String. Anything else is
declined, and the full gate decides.

`cryptography.hazmat.asn1` (here, in rpki.quickder, rpki.quickcrl and rpki.quickcms) is an API its
authors call unstable; the project pins its version. Its decoder returns
`cryptography.x509.ObjectIdentifier` for OIDs.
"""

from __future__ import annotations

from typing import Annotated, Literal

from asn1crypto import parser
from asn1crypto import x509 as ax509
from cryptography.hazmat import asn1 as a
from cryptography.hazmat.asn1 import Variant
from cryptography.hazmat.primitives.asymmetric import ec

from . import iri
from .certoids import (EXT_AIA, EXT_AKI, EXT_AS, EXT_BC, EXT_CP, EXT_CRLDP, EXT_EKU, EXT_IP, EXT_KU, EXT_SIA, EXT_SKI,
                       KEY_USAGE, OID_QT_CPS, OID_QT_UNOTICE)

# cryptography.x509.ObjectIdentifier, taken from a documented OID constant of a module already
# loaded, so as not to import all of cryptography.x509 for a name (docs/rpki-objects.md)
OID = type(ec.EllipticCurveOID.SECP256R1)
EXT_POLICY_MAPPINGS = "2.5.29.33"  # RFC 5280 section 4.2.1.5: not of the profile, but asn1crypto parses it

# RFC 5280 section 4.1.2.4: the attribute types whose value asn1crypto reads as a DirectoryString
# (tests/test_quickder.py holds the list to asn1crypto's); of its alternatives, PrintableString and
# UTF8String are taken here
DIRECTORY_STRING_TYPES = frozenset(f"2.5.4.{n}" for n in (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 17, 41, 42, 43, 44, 46,
                                                          65, 97))


@a.sequence
class AttributeTypeAndValue:
    type: OID
    value: a.PrintableString | str  # str: UTF8String


@a.sequence
class Name:  # an RDNSequence, as the field of a SEQUENCE (see `wrapped`)
    rdns: list[a.SetOf[AttributeTypeAndValue]]


# GeneralName (RFC 5280 section 4.2.1.6): the alternatives taken here
GeneralName = (Annotated[Variant[a.IA5String, Literal["email"]], a.Implicit(1)]  # rfc822Name
               | Annotated[Variant[a.IA5String, Literal["uri"]], a.Implicit(6)]
               | Annotated[Variant[bytes, Literal["ip"]], a.Implicit(7)]
               | Annotated[Variant[a.TLV, Literal["dir"]], a.Explicit(4)])  # directoryName: a Name


# ---- the values (RFC 5280 section 4.2.1, RFC 3779) ----------------------------------------------------
@a.sequence
class BasicConstraints:
    ca: Annotated[bool, a.Default(False)]
    path_len_constraint: int | None


@a.sequence
class AuthorityKeyIdentifier:
    key_identifier: Annotated[bytes | None, a.Implicit(0)]
    authority_cert_issuer: Annotated[list[GeneralName] | None, a.Implicit(1)]
    authority_cert_serial_number: Annotated[int | None, a.Implicit(2)]


@a.sequence
class AccessDescription:
    access_method: OID
    access_location: GeneralName


@a.sequence
class DistributionPoint:
    distribution_point: Annotated[a.TLV, a.Explicit(0)]  # DistributionPointName, a CHOICE
    reasons: Annotated[a.BitString | None, a.Implicit(1)]
    crl_issuer: Annotated[list[GeneralName] | None, a.Implicit(2)]


DisplayText = a.IA5String | str  # of its alternatives, IA5String and UTF8String


@a.sequence
class NoticeReference:
    organization: DisplayText
    notice_numbers: list[int]


@a.sequence
class UserNotice:
    notice_ref: NoticeReference | None
    explicit_text: DisplayText | None


@a.sequence
class PolicyQualifierInfo:  # RFC 5280 section 4.2.1.4: a CPSuri or a UserNotice
    policy_qualifier_id: OID
    qualifier: a.IA5String | UserNotice


@a.sequence
class PolicyInformation:
    policy_identifier: OID
    policy_qualifiers: list[PolicyQualifierInfo] | None


@a.sequence
class IPAddressRange:
    min: a.BitString
    max: a.BitString


@a.sequence
class IPAddressFamily:
    address_family: bytes
    ip_address_choice: a.TLV  # inherit NULL or addressesOrRanges


@a.sequence
class ASRange:
    min: int
    max: int


@a.sequence
class ASIdentifiers:
    asnum: Annotated[a.TLV, a.Explicit(0)]  # inherit NULL or asIdsOrRanges


# a SEQUENCE OF can only be decoded as a field: each wraps the one it holds (see `wrapped`)
@a.sequence
class OctetString:
    value: bytes


@a.sequence
class OIDs:
    items: list[OID]


@a.sequence
class GeneralNames:
    items: list[GeneralName]


@a.sequence
class PolicyMapping:
    issuer_domain_policy: OID
    subject_domain_policy: OID


@a.sequence
class PolicyMappings:
    items: list[PolicyMapping]


@a.sequence
class AccessDescriptions:
    items: list[AccessDescription]


@a.sequence
class DistributionPoints:
    items: list[DistributionPoint]


@a.sequence
class CertificatePolicies:
    items: list[PolicyInformation]


@a.sequence
class IPAddrBlocks:
    items: list[IPAddressFamily]


@a.sequence
class IPAddressesOrRanges:
    items: list[a.BitString | IPAddressRange]


@a.sequence
class ASIdsOrRanges:
    items: list[int | ASRange]


@a.sequence
class KeyUsage:
    value: a.BitString


REASON_FLAGS = 9  # RFC 5280 section 4.2.1.13: the named bits of ReasonFlags


# ---- decoding ---------------------------------------------------------------------------------------
def decodes(cls, data) -> object | None:
    """`data` decoded as `cls` when it is DER of that shape; None otherwise."""
    try:
        return a.decode_der(cls, bytes(data))
    except ValueError:
        return None


def wrapped(cls, der) -> object | None:
    """Decode `der` (one SEQUENCE OF) as the only field of `cls`."""
    return decodes(cls, as_sequence(der))


def as_sequence(contents) -> bytes:
    """A SEQUENCE (X.690 section 8.9) of `contents`."""
    return parser.emit(0, 1, 16, bytes(contents))


def _uri_ok(uri: a.IA5String) -> bool:
    return iri.round_trips(uri.as_str())


def named_bits_ok(bits: a.BitString, size: int = len(KEY_USAGE)) -> bool:
    """X.690 section 11.2.2: a named bit list of at most `size` bits without trailing zero bits
    (asn1crypto drops them)."""
    data, pad = bits.as_bytes(), bits.padding_bits()
    return (not data and pad == 0) or (bool(data) and (data[-1] >> pad) & 1 == 1 and len(data) * 8 - pad <= size)


def names_ok(rdns) -> bool:
    """Every attribute of a decoded Name is of a type asn1crypto reads as a DirectoryString (so it
    takes a PrintableString or a UTF8String there and writes it back unchanged)."""
    return all(atv.type.dotted_string in DIRECTORY_STRING_TYPES for rdn in rdns for atv in rdn.as_list())


def _general_name_ok(gn) -> bool:
    """A decoded GeneralName that asn1crypto writes back unchanged: a URI that round-trips (rpki.iri),
    an iPAddress of 4 or 16 octets (asn1crypto rewrites it from its text), a directoryName."""
    if gn.tag == "uri":
        return _uri_ok(gn.value)
    if gn.tag == "ip":
        return len(gn.value) in (4, 16)
    if gn.tag == "email":  # asn1crypto rewrites its domain with IDNA: declined (read by rpki.crl only)
        return False
    name = directory_name(gn.value)
    return name is not None and names_ok(name.rdns)


def directory_name(tlv) -> Name | None:
    """A directoryName's value (EXPLICIT [4]) decoded as a Name, or None."""
    return wrapped(Name, as_sequence(tlv.data)) if tlv.tag_bytes == b"\x30" else None


def general_names_ok(names) -> bool:
    """Decoded GeneralNames (or None, absent) that asn1crypto writes back unchanged (`_general_name_ok`)."""
    return names is None or all(_general_name_ok(gn) for gn in names)


def _inherit_or(choice: a.TLV, cls):
    """A CHOICE of inherit NULL or a SEQUENCE OF (RFC 3779 sections 2.2.3.4 and 3.2.3.3): "inherit",
    the items decoded as the field of `cls`, or None."""
    if choice.tag_bytes == b"\x05":
        return "inherit" if len(choice.data) == 0 else None
    if choice.tag_bytes != b"\x30":
        return None
    items = wrapped(cls, as_sequence(choice.data))
    return None if items is None else items.items


def _ip_blocks_value(v: bytes):
    """[(addressFamily octets, "inherit" or [BitString | IPAddressRange])] or None."""
    blocks = wrapped(IPAddrBlocks, v)
    if blocks is None:
        return None
    out = []
    for f in blocks.items:
        choice = _inherit_or(f.ip_address_choice, IPAddressesOrRanges)
        if choice is None:
            return None
        out.append((f.address_family, choice))
    return out


def _as_ids_value(v: bytes):
    """"inherit", the list of [int | ASRange], or None."""
    ids = decodes(ASIdentifiers, v)
    return None if ids is None else _inherit_or(ids.asnum, ASIdsOrRanges)


def _crldp_value(v: bytes):
    """Each DistributionPoint as (the URIs of its fullName, reasons present, cRLIssuer present), or None."""
    dps = wrapped(DistributionPoints, v)
    if dps is None:
        return None
    out = []
    for dp in dps.items:
        name = dp.distribution_point
        if name.tag_bytes != b"\xa0":  # fullName [0] IMPLICIT GeneralNames
            return None
        names = wrapped(GeneralNames, as_sequence(name.data))
        if names is None or not general_names_ok(names.items) or not general_names_ok(dp.crl_issuer) \
                or (dp.reasons is not None and not named_bits_ok(dp.reasons, REASON_FLAGS)):
            return None
        out.append(([gn.value for gn in names.items if gn.tag == "uri"], dp.reasons is not None,
                     dp.crl_issuer is not None))
    return out


def _access_value(v: bytes):
    ads = wrapped(AccessDescriptions, v)
    return ads.items if ads is not None and all(_general_name_ok(ad.access_location) for ad in ads.items) else None


_QUALIFIERS = {OID_QT_CPS: a.IA5String, OID_QT_UNOTICE: UserNotice}  # as asn1crypto reads them


def _policies_value(v: bytes):
    pols = wrapped(CertificatePolicies, v)
    ok = pols is not None and all(isinstance(q.qualifier, _QUALIFIERS.get(q.policy_qualifier_id.dotted_string, ()))
                                  for p in pols.items for q in p.policy_qualifiers or ())
    return pols.items if ok else None


def aki_value(v: bytes, names_ok=None):
    """The AKI decoded, its issuer's GeneralNames passing `names_ok` (default `general_names_ok`)."""
    aki = decodes(AuthorityKeyIdentifier, v)
    return aki if aki is not None and (names_ok or general_names_ok)(aki.authority_cert_issuer) else None


def _key_usage_value(v: bytes):
    ku = wrapped(KeyUsage, v)
    return ku.value if ku is not None and named_bits_ok(ku.value) else None


def _unwrap(cls, v: bytes):
    value = wrapped(cls, v)
    return None if value is None else value.items


# extension OID -> its value decoded (None: not certainly DER, the full gate decides)
EXTENSION_VALUES = {
    EXT_BC: lambda v: decodes(BasicConstraints, v),
    EXT_SKI: lambda v: None if (ski := wrapped(OctetString, v)) is None else ski.value,
    EXT_AKI: aki_value,
    EXT_KU: _key_usage_value,
    EXT_EKU: lambda v: _unwrap(OIDs, v),
    EXT_CRLDP: _crldp_value,
    EXT_CP: _policies_value,
    EXT_AIA: _access_value,
    EXT_SIA: _access_value,
    EXT_IP: _ip_blocks_value,
    EXT_AS: _as_ids_value,
    EXT_POLICY_MAPPINGS: lambda v: _unwrap(PolicyMappings, v),  # decoded for the DER check only
}

# extensions whose values recur from certificate to certificate (the same issuer, CRL, policy):
# decoded once; the decoded values are only read
SHARED = frozenset({EXT_BC, EXT_AKI, EXT_KU, EXT_EKU, EXT_CRLDP, EXT_CP, EXT_AIA, EXT_AS})
_shared: dict[tuple[str, bytes], object] = {}


def _asn1crypto_parses(oid: str) -> bool:
    """asn1crypto decodes the value of this extension in the full gate: it names the extension
    (asn1crypto 1.5.1 has a schema for every extension it names, the RFC 3779 ones registered by
    rpki.asn1 included)."""
    return ax509.ExtensionId(oid).native != oid


def extension_values(extensions) -> list | None:
    """Each extension's value decoded (None for one asn1crypto does not parse either), or None when
    one is not certainly DER."""
    values = []
    for ext in extensions:
        oid = ext.extn_id.dotted_string
        decode = EXTENSION_VALUES.get(oid)
        if decode is None:
            if _asn1crypto_parses(oid):
                return None
            values.append(None)
            continue
        value = _shared.get((oid, ext.extn_value)) if oid in SHARED else None
        if value is None:
            value = decode(ext.extn_value)
            if value is None:
                return None
            if oid in SHARED:
                if len(_shared) >= 4096:
                    _shared.clear()
                _shared[oid, ext.extn_value] = value
        values.append(value)
    return values
