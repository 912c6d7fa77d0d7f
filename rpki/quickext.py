"""Certificate extension values (RFC 5280 section 4.2, RFC 3779 sections 2.2.3 and 3.2.3) and the
Names and GeneralNames they and the certificate hold (RFC 5280 sections 4.1.2.4 and 4.2.1.6), on
`cryptography`'s strict DER decoder: the one reader of each.

`EXTENSION_VALUES` decodes the value of each extension of the RPKI profile (and policyMappings);
`extension_value` runs it and words a refusal: DERError where the value is not DER (the offset of the
first byte that differs from the canonical encoding, rpki.der.locate, or the rule a schema adds:
a named bit list without trailing zero bits, X.690 section 11.2.2), ObjectError where it is DER of
a form not read here. An extension of another type is not read: its value stays octets, and the
profile rejects it by name. Parts whose type a field leaves open (a GeneralName other than a URI, an
IP address or a directoryName, a policy qualifier other than a CPS URI or a userNotice) are held to
DER framing only (rpki.der.framing).

`cryptography.hazmat.asn1` (here, in rpki.quickder, rpki.quickcrl and rpki.quickcms) is an API its
authors call unstable; the project pins its version. Its decoder returns
`cryptography.x509.ObjectIdentifier` for OIDs; it cannot declare an optional field of any type (a
TLV), so SEQUENCEs with such fields are read as their elements (`tagged`).
"""

from __future__ import annotations

from typing import Annotated

from cryptography.hazmat import asn1 as a
from cryptography.hazmat.primitives.asymmetric import ec

from .certoids import (EXT_AIA, EXT_AKI, EXT_AS, EXT_BC, EXT_CP, EXT_CRLDP, EXT_EKU, EXT_IP, EXT_KU, EXT_SIA, EXT_SKI,
                       KEY_USAGE, OID_QT_CPS, OID_QT_UNOTICE)
from .der import NotDER, element, framing, locate, parse_error_kind
from .errors import DERError, ObjectError

# cryptography.x509.ObjectIdentifier, taken from a documented OID constant of a module already
# loaded, so as not to import all of cryptography.x509 for a name (docs/rpki-objects.md)
OID = type(ec.EllipticCurveOID.SECP256R1)
EXT_POLICY_MAPPINGS = "2.5.29.33"  # RFC 5280 section 4.2.1.5: not of the profile, read to be held to DER


class Unread(ValueError):
    """DER of a form not read here; the text says which."""


@a.sequence
class AttributeTypeAndValue:
    type: OID
    value: a.TLV  # a DirectoryString or another type: `attribute_text`


@a.sequence
class Name:  # an RDNSequence, as the field of a SEQUENCE (see `unwrap`)
    rdns: list[a.SetOf[AttributeTypeAndValue]]


@a.sequence
class TLVs:  # a SEQUENCE OF anything, or the elements of a SEQUENCE read by `tagged`
    items: list[a.TLV]


# ---- the values (RFC 5280 section 4.2.1, RFC 3779) ----------------------------------------------------
@a.sequence
class BasicConstraints:
    ca: Annotated[bool, a.Default(False)]
    path_len_constraint: int | None


@a.sequence
class AuthorityKeyIdentifier:
    key_identifier: Annotated[bytes | None, a.Implicit(0)]
    authority_cert_issuer: Annotated[list[a.TLV] | None, a.Implicit(1)]  # GeneralNames
    authority_cert_serial_number: Annotated[int | None, a.Implicit(2)]


@a.sequence
class AccessDescription:
    access_method: OID
    access_location: a.TLV  # a GeneralName


@a.sequence
class NoticeReference:
    organization: a.TLV  # DisplayText
    notice_numbers: list[int]


@a.sequence
class PolicyQualifierInfo:  # RFC 5280 section 4.2.1.4
    policy_qualifier_id: OID
    qualifier: a.TLV  # a CPSuri, a UserNotice, or another type


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


# a SEQUENCE OF can only be decoded as a field: each wraps the one it holds (see `unwrap`)
@a.sequence
class OctetString:
    value: bytes


@a.sequence
class OIDs:
    items: list[OID]


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
def unwrap(cls, der):
    """`der` (one SEQUENCE OF) decoded as the only field of `cls`, its items; ValueError otherwise."""
    return a.decode_der(cls, as_sequence(der)).items


def as_sequence(contents) -> bytes:
    """A SEQUENCE (X.690 section 8.9) of `contents`."""
    return element(0x30, contents)


def elements(contents) -> list:
    """The elements (TLVs) of a constructed element's contents."""
    return unwrap(TLVs, as_sequence(contents))


def retagged(tlv, tag: int):
    """An IMPLICIT tagged element as the element of its own type, `tag` (X.690 section 8.14.3)."""
    return element(tag, tlv.data)


def tagged(contents, tags: bytes) -> dict[int, object]:
    """The elements of a SEQUENCE whose fields are all optional and tagged: each element's tag is one
    of `tags`, in that order, at most once (X.680 section 25); tag -> the element (a TLV)."""
    out: dict[int, object] = {}
    last = -1
    for tlv in elements(contents):
        tag = tlv.tag_bytes
        at = tags.find(tag)
        if len(tag) != 1 or at <= last:
            raise Unread(f"want the fields {tags.hex(' ')} in order, each at most once, got {tag.hex()}")
        out[tag[0]] = tlv
        last = at
    return out


def named_bits(bits: a.BitString, size: int = len(KEY_USAGE)) -> bytes:
    """X.690 section 11.2.2: a named bit list without trailing zero bits; its octets. NotDER for
    trailing zero bits; Unread for a bit beyond the `size` named ones."""
    data, pad = bits.as_bytes(), bits.padding_bits()
    if data and (data[-1] >> pad) & 1 == 0:
        raise NotDER("want a named bit list without trailing zero bits (X.690 section 11.2.2)", 1)
    if len(data) * 8 - pad > size:
        raise Unread(f"want at most the {size} named bits, got {len(data) * 8 - pad}")
    return data


# X.680 section 41: the string types a name attribute may have, by tag, and how their octets read
STRING_TYPES = {0x13: ("PrintableString", "latin-1"), 0x0C: ("UTF8String", "utf-8"), 0x16: ("IA5String", "ascii"),
                0x14: ("TeletexString", "latin-1"), 0x1E: ("BMPString", "utf-16-be"),
                0x1C: ("UniversalString", "utf-32-be")}


def attribute_text(tlv) -> tuple[str, str]:
    """(the string type, the text) of a name attribute's value; another type gives its tag and no
    text (the profile wants PrintableString). NotDER for octets its type does not allow."""
    kind = STRING_TYPES.get(tlv.tag_bytes[0]) if len(tlv.tag_bytes) == 1 else None
    if kind is None:
        framing(tlv)
        return f"a value of tag {tlv.tag_bytes.hex()}", ""
    try:
        return kind[0], bytes(tlv.data).decode(kind[1])
    except UnicodeDecodeError as e:
        raise NotDER(f"want the characters of a {kind[0]}, got {e.reason}") from None


def name_attributes(rdns) -> tuple[tuple[str, str, str], ...]:
    """Each attribute of a decoded Name as (type OID, string type, text) (`attribute_text`): NotDER
    for octets its type does not allow."""
    return tuple((atv.type.dotted_string, *attribute_text(atv.value)) for rdn in rdns for atv in rdn.as_list())


def ia5(tlv) -> str:
    """The text of an IA5String element (X.680 section 41: 7-bit characters)."""
    try:
        return bytes(tlv.data).decode("ascii")
    except UnicodeDecodeError:
        raise NotDER("want IA5String characters (7-bit)") from None


def directory_name(tlv) -> Name:
    """A directoryName's value (EXPLICIT [4]) decoded as a Name, its attributes' texts read."""
    if tlv.tag_bytes != b"\x30":
        raise Unread(f"want a Name in a directoryName, got tag {tlv.tag_bytes.hex()}")
    name = a.decode_der(Name, as_sequence(as_sequence(tlv.data)))
    name_attributes(name.rdns)
    return name


def general_name(tlv) -> tuple[str, object]:
    """A GeneralName (RFC 5280 section 4.2.1.6) as (kind, value): "uri", "email" or "dns" and the
    text, "ip" and the octets, "dir" and the Name; "other" and None for otherName, x400Address,
    ediPartyName and registeredID (their DER framing checked)."""
    tag = tlv.tag_bytes
    if tag == b"\x86":
        return "uri", ia5(tlv)
    if tag == b"\x87":
        return "ip", bytes(tlv.data)
    if tag == b"\xa4":
        return "dir", directory_name(a.decode_der(a.TLV, bytes(tlv.data)))
    if tag in (b"\x81", b"\x82"):
        return ("email" if tag == b"\x81" else "dns"), ia5(tlv)
    if tag in (b"\xa0", b"\xa3", b"\xa5", b"\x88"):
        framing(tlv)
        return "other", None
    raise Unread(f"want a GeneralName, got tag {tag.hex()}")


def general_names(tlvs) -> list[tuple[str, object]]:
    """Decoded GeneralNames (a list of TLVs, or None when absent), each read by `general_name`."""
    return [general_name(t) for t in tlvs or ()]


def _inherit_or(choice, cls):
    """A CHOICE of inherit NULL or a SEQUENCE OF (RFC 3779 sections 2.2.3.4 and 3.2.3.3): "inherit",
    or the items decoded as the field of `cls`."""
    if choice.tag_bytes == b"\x05":
        if len(choice.data):
            raise NotDER("want an empty NULL (X.690 section 8.8.2)", 1)
        return "inherit"
    if choice.tag_bytes != b"\x30":
        raise Unread(f"want inherit or a SEQUENCE OF, got tag {choice.tag_bytes.hex()}")
    return unwrap(cls, as_sequence(choice.data))


def _ip_blocks_value(v: bytes):
    """[(addressFamily octets, "inherit" or [BitString | IPAddressRange])]."""
    return [(f.address_family, _inherit_or(f.ip_address_choice, IPAddressesOrRanges)) for f in unwrap(IPAddrBlocks, v)]


def _as_ids_value(v: bytes):
    """(asnum: "inherit", [int | ASRange] or None when absent; whether an rdi is there)."""
    ids = a.decode_der(a.TLV, v)
    if ids.tag_bytes != b"\x30":
        raise Unread(f"want a SEQUENCE, got tag {ids.tag_bytes.hex()}")
    fields = tagged(ids.data, b"\xa0\xa1")
    asnum = fields.get(0xA0)
    return (None if asnum is None else _inherit_or(a.decode_der(a.TLV, bytes(asnum.data)), ASIdsOrRanges),
            0xA1 in fields)


def dp_name(tlv):
    """A DistributionPointName (RFC 5280 section 4.2.1.13, inside its EXPLICIT [0]): the
    GeneralNames of a fullName, or None for a nameRelativeToCRLIssuer (its Name read)."""
    choice = a.decode_der(a.TLV, bytes(tlv.data))
    if choice.tag_bytes == b"\xa0":
        return general_names(elements(choice.data))
    if choice.tag_bytes == b"\xa1":  # [1] IMPLICIT RelativeDistinguishedName: a SET OF
        directory_name(a.decode_der(a.TLV, as_sequence(element(0x31, choice.data))))
        return None
    raise Unread(f"want a fullName or a nameRelativeToCRLIssuer, got tag {choice.tag_bytes.hex()}")


def distribution_points(v: bytes) -> list:
    """Each DistributionPoint as (the GeneralNames of its fullName or None, reasons present,
    cRLIssuer present)."""
    out = []
    for dp in unwrap(TLVs, v):
        if dp.tag_bytes != b"\x30":
            raise Unread(f"want a DistributionPoint, got tag {dp.tag_bytes.hex()}")
        fields = tagged(dp.data, b"\xa0\x81\xa2")
        name = fields.get(0xA0)
        if 0x81 in fields:
            named_bits(a.decode_der(a.BitString, retagged(fields[0x81], 0x03)), REASON_FLAGS)
        issuer = fields.get(0xA2)
        if issuer is not None:
            general_names(elements(issuer.data))
        out.append((None if name is None else dp_name(name), 0x81 in fields, issuer is not None))
    return out


def _crldp_value(v: bytes):
    """Each DistributionPoint as (the URIs of its fullName, or None for another name or none;
    reasons present; cRLIssuer present)."""
    return [(None if names is None else [text for kind, text in names if kind == "uri"], reasons, crl_issuer)
            for names, reasons, crl_issuer in distribution_points(v)]


def access_descriptions(v: bytes):
    """Each AccessDescription as (the access method's dotted OID, the location as `general_name`)."""
    return [(ad.access_method.dotted_string, general_name(ad.access_location)) for ad in unwrap(AccessDescriptions, v)]


def _qualifier_ok(q: PolicyQualifierInfo) -> None:
    """A CPS URI an IA5String, a userNotice a UserNotice (RFC 5280 section 4.2.1.4); any other
    qualifier held to DER framing."""
    oid = q.policy_qualifier_id.dotted_string
    if oid == OID_QT_CPS:
        if q.qualifier.tag_bytes != b"\x16":
            raise Unread(f"want an IA5String CPS URI, got tag {q.qualifier.tag_bytes.hex()}")
        ia5(q.qualifier)
    elif oid == OID_QT_UNOTICE:
        if q.qualifier.tag_bytes != b"\x30":
            raise Unread(f"want a UserNotice, got tag {q.qualifier.tag_bytes.hex()}")
        for part in elements(q.qualifier.data):
            if part.tag_bytes == b"\x30":
                a.decode_der(NoticeReference, element(0x30, part.data))
            else:
                attribute_text(part)
    else:
        framing(q.qualifier)


def _policies_value(v: bytes):
    pols = unwrap(CertificatePolicies, v)
    for p in pols:
        for q in p.policy_qualifiers or ():
            _qualifier_ok(q)
    return pols


def aki_value(v: bytes):
    """The AKI decoded, its issuer's GeneralNames read."""
    aki = a.decode_der(AuthorityKeyIdentifier, v)
    general_names(aki.authority_cert_issuer)
    return aki


def _key_usage_value(v: bytes):
    data = named_bits(a.decode_der(KeyUsage, as_sequence(v)).value)
    return frozenset(KEY_USAGE[i] for i in range(len(data) * 8) if data[i // 8] >> (7 - i % 8) & 1)


# extension OID -> its value decoded (ValueError: not DER, or a form not read here)
EXTENSION_VALUES = {
    EXT_BC: lambda v: a.decode_der(BasicConstraints, v),
    EXT_SKI: lambda v: a.decode_der(OctetString, as_sequence(v)).value,
    EXT_AKI: aki_value,
    EXT_KU: _key_usage_value,
    EXT_EKU: lambda v: unwrap(OIDs, v),
    EXT_CRLDP: _crldp_value,
    EXT_CP: _policies_value,
    EXT_AIA: access_descriptions,
    EXT_SIA: access_descriptions,
    EXT_IP: _ip_blocks_value,
    EXT_AS: _as_ids_value,
    EXT_POLICY_MAPPINGS: lambda v: unwrap(PolicyMappings, v),
}

# extensions whose values recur from certificate to certificate (the same issuer, CRL, policy):
# decoded once; the decoded values are only read
SHARED = frozenset({EXT_BC, EXT_AKI, EXT_KU, EXT_EKU, EXT_CRLDP, EXT_CP, EXT_AIA, EXT_AS})
_shared: dict[tuple[str, bytes], object] = {}


def extension_value(table: dict, oid: str, raw: bytes, source, check: str, rfc: str, base=None):
    """The value `raw` of the extension `oid` decoded by `table`; None for a type not in it (its
    octets are not read). DERError when the value is not DER (with the offset in the object when
    `base`, a callable giving where the value's octets begin, is given), ObjectError when it is DER
    of a form not read here."""
    decode = table.get(oid)
    if decode is None:
        return None
    try:
        return decode(raw)
    except Unread as e:
        raise ObjectError(f"want the value of extension {oid} of its RFC 5280 type, of the forms read here: {e}",
                          source, check=check, rfc=rfc) from None
    except ValueError as e:  # NotDER, or cryptography's ParseError: not a DER encoding of the type
        at = e.at if isinstance(e, NotDER) else locate(raw)
        why = str(e) if isinstance(e, NotDER) else parse_error_kind(e) or type(e).__name__
        raise DERError(f"want DER (X.690 section 10) for the value of extension {oid}: "
                       + ("" if at is None else f"byte {at} of it differs, ") + why, source, check=check, rfc=rfc,
                       offset=None if base is None or at is None else base() + at) from None


def extension_values(extensions, source, bases=None) -> list:
    """Each extension's value decoded (`extension_value` of `EXTENSION_VALUES`; None for a type
    not read), the values that recur decoded once. `bases`: a callable giving where each value
    begins in the object, for the offset of an error."""
    values = []
    for i, ext in enumerate(extensions):
        oid = ext.extn_id.dotted_string
        value = _shared.get((oid, ext.extn_value)) if oid in SHARED else None
        if value is None:
            value = extension_value(EXTENSION_VALUES, oid, ext.extn_value, source, "extensions",
                                    "RFC 5280 section 4.2", None if bases is None else lambda i=i: bases()[i])
            if oid in SHARED and value is not None:
                if len(_shared) >= 4096:
                    _shared.clear()
                _shared[oid, ext.extn_value] = value
        values.append(value)
    return values
