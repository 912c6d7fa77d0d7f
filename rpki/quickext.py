"""The fast DER path (rpki.quickder) for certificate extension values: RFC 5280 section 4.2 and RFC 3779
sections 2.2.3 and 3.2.3, each value decoded from its own octets.

The full gate (rpki.der) decodes and re-encodes every extension value asn1crypto has a schema for.
`extension_values` decodes those of the RPKI profile with `cryptography`'s strict DER decoder and
answers for a value only when it is certainly DER and asn1crypto would re-encode it unchanged: a
KeyUsage without trailing zero bits (X.690 section 11.2.2), URIs that asn1crypto gives back byte for
byte (rpki.iri). An extension of another type that asn1crypto would decode is declined; one it does
not know stays opaque octets to both paths. The schemas are narrower than the profile (URI general
names only, DistributionPoints with a fullName, no AKI issuer and serial, only the CPS qualifier):
anything else is declined too, and the full gate decides.

`cryptography.hazmat.asn1` (here and in rpki.quickder) is an API its authors call unstable; the
project pins its version. Its decoder returns `cryptography.x509.ObjectIdentifier` for OIDs.
"""

from __future__ import annotations

from typing import Annotated

from asn1crypto import parser
from asn1crypto import x509 as ax509
from cryptography.hazmat import asn1 as a
from cryptography.hazmat.primitives.asymmetric import ec

from . import iri
from .certoids import (EXT_AIA, EXT_AKI, EXT_AS, EXT_BC, EXT_CP, EXT_CRLDP, EXT_EKU, EXT_IP, EXT_KU, EXT_SIA, EXT_SKI,
                       KEY_USAGE, OID_QT_CPS)

# cryptography.x509.ObjectIdentifier, taken from a documented OID constant of a module already
# loaded, so as not to import all of cryptography.x509 for a name (docs/rpki-objects.md)
OID = type(ec.EllipticCurveOID.SECP256R1)
URI = Annotated[a.IA5String, a.Implicit(6)]  # GeneralName uniformResourceIdentifier (RFC 5280 section 4.2.1.6)


# ---- the values (RFC 5280 section 4.2.1, RFC 3779) ----------------------------------------------------
@a.sequence
class BasicConstraints:
    ca: Annotated[bool, a.Default(False)]
    path_len_constraint: int | None


@a.sequence
class AuthorityKeyIdentifier:
    key_identifier: Annotated[bytes | None, a.Implicit(0)]


@a.sequence
class AccessDescription:
    access_method: OID
    access_location: URI


@a.sequence
class DistributionPoint:
    distribution_point: Annotated[a.TLV, a.Explicit(0)]  # DistributionPointName, a CHOICE


@a.sequence
class PolicyQualifierInfo:
    policy_qualifier_id: OID
    qualifier: a.IA5String


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
class URIs:
    items: list[URI]


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


# ---- decoding ---------------------------------------------------------------------------------------
def decodes(cls, data) -> object | None:
    """`data` decoded as `cls` when it is DER of that shape; None otherwise."""
    try:
        return a.decode_der(cls, bytes(data))
    except ValueError:
        return None


def wrapped(cls, der) -> object | None:
    """Decode `der` (one SEQUENCE OF) as the only field of `cls`."""
    return decodes(cls, _sequence(der))


def _sequence(contents) -> bytes:
    """A SEQUENCE (X.690 section 8.9) of `contents`."""
    return parser.emit(0, 1, 16, bytes(contents))


def _uri_ok(uri: a.IA5String) -> bool:
    return iri.round_trips(uri.as_str())


def _named_bits_ok(bits: a.BitString) -> bool:
    """X.690 section 11.2.2: a named bit list without trailing zero bits (asn1crypto drops them)."""
    data, pad = bits.as_bytes(), bits.padding_bits()
    return (not data and pad == 0) or (bool(data) and (data[-1] >> pad) & 1 == 1
                                       and len(data) * 8 - pad <= len(KEY_USAGE))


def _inherit_or(choice: a.TLV, cls):
    """A CHOICE of inherit NULL or a SEQUENCE OF (RFC 3779 sections 2.2.3.4 and 3.2.3.3): "inherit",
    the items decoded as the field of `cls`, or None."""
    if choice.tag_bytes == b"\x05":
        return "inherit" if len(choice.data) == 0 else None
    if choice.tag_bytes != b"\x30":
        return None
    items = wrapped(cls, _sequence(choice.data))
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
    """The URIs of each DistributionPoint's fullName, or None."""
    dps = wrapped(DistributionPoints, v)
    if dps is None:
        return None
    out = []
    for dp in dps.items:
        name = dp.distribution_point
        if name.tag_bytes != b"\xa0":  # fullName [0] IMPLICIT GeneralNames
            return None
        uris = wrapped(URIs, _sequence(name.data))
        if uris is None or not all(_uri_ok(u) for u in uris.items):
            return None
        out.append(uris.items)
    return out


def _access_value(v: bytes):
    ads = wrapped(AccessDescriptions, v)
    return ads.items if ads is not None and all(_uri_ok(ad.access_location) for ad in ads.items) else None


def _policies_value(v: bytes):
    pols = wrapped(CertificatePolicies, v)
    ok = pols is not None and all(q.policy_qualifier_id.dotted_string == OID_QT_CPS
                                  for p in pols.items for q in p.policy_qualifiers or ())
    return pols.items if ok else None


def _key_usage_value(v: bytes):
    ku = wrapped(KeyUsage, v)
    return ku.value if ku is not None and _named_bits_ok(ku.value) else None


def _unwrap(cls, v: bytes):
    value = wrapped(cls, v)
    return None if value is None else value.items


# extension OID -> its value decoded (None: not certainly DER, the full gate decides)
EXTENSION_VALUES = {
    EXT_BC: lambda v: decodes(BasicConstraints, v),
    EXT_SKI: lambda v: None if (ski := wrapped(OctetString, v)) is None else ski.value,
    EXT_AKI: lambda v: decodes(AuthorityKeyIdentifier, v),
    EXT_KU: _key_usage_value,
    EXT_EKU: lambda v: _unwrap(OIDs, v),
    EXT_CRLDP: _crldp_value,
    EXT_CP: _policies_value,
    EXT_AIA: _access_value,
    EXT_SIA: _access_value,
    EXT_IP: _ip_blocks_value,
    EXT_AS: _as_ids_value,
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
