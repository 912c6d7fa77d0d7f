"""A fast path to the strict DER gate (X.690 section 10, RFC 6487 section 4, RFC 6488 section 3).

`rpki.der.decode` proves DER by a full asn1crypto decode and re-encode (about 2 ms for a signed
object). The schemas here decode the usual shape of an RPKI object with `cryptography`'s Rust
decoder, which is strict DER itself: definite minimal lengths, minimal INTEGERs, BOOLEAN 0x00/0xFF,
no encoded DEFAULT, sorted SET OF, zero padding bits, no trailing or undeclared elements.

Each check answers only "certainly DER": True when every byte that the asn1crypto gate would
re-encode (extension values of the types asn1crypto knows, the RSA key in its BIT STRING, the
signed attributes) decoded here too and is in a form asn1crypto re-encodes unchanged. The schemas
are narrower than the profiles (RSA keys, PrintableString names, URI general names, no CRLs in a
signed object, ...): anything else gives False and the full gate decides, with its own error text.
So a True never accepts what the gate would reject, and a False changes nothing but the time.

The `*_value` forms return what they decoded (None where the check says False), and `children`
finds where each element lies in the bytes: rpki.cert, rpki.cms, rpki.roa and rpki.manifest fill
their objects from these directly (`read_quick`, `_read_quick`) and use the asn1crypto readers only
for what the fast path declines; tests/test_rpki_quickread.py holds the two to the same result.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Annotated

from asn1crypto import _iri, x509 as ax509
from cryptography.hazmat import asn1 as a

try:  # the class cryptography.x509 exports, without importing all of cryptography.x509 (50 ms)
    from cryptography.hazmat._oid import ObjectIdentifier as OID
except ImportError:  # pragma: no cover - another layout of cryptography
    from cryptography.x509 import ObjectIdentifier as OID

from . import asn1

Time = a.UTCTime | a.GeneralizedTime
URI = Annotated[a.IA5String, a.Implicit(6)]  # GeneralName uniformResourceIdentifier (RFC 5280 section 4.2.1.6)


# ---- X.509 (RFC 5280 section 4.1) -----------------------------------------------------------------
@a.sequence
class AlgorithmIdentifier:
    algorithm: OID
    parameters: a.Null | None


@a.sequence
class AttributeTypeAndValue:
    type: OID
    value: a.PrintableString


@a.sequence
class Validity:
    not_before: Time
    not_after: Time


@a.sequence
class SubjectPublicKeyInfo:
    algorithm: AlgorithmIdentifier
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
    extensions: Annotated[list[Extension] | None, a.Explicit(3)]


@a.sequence
class Certificate:
    tbs_certificate: TBSCertificate
    signature_algorithm: AlgorithmIdentifier
    signature_value: a.BitString


# ---- extension values (RFC 5280 section 4.2, RFC 3779), each decoded from its own octets ------------
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


# a SEQUENCE OF can only be decoded as a field: each wraps the one it holds (see `_wrapped`)
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


# ---- CMS (RFC 5652 section 5, profiled by RFC 6488 section 2) ----------------------------------------
@a.sequence
class Attribute:
    type: OID
    values: a.SetOf[OID | bytes | a.UTCTime | a.GeneralizedTime]


@a.sequence
class SignerInfo:
    version: int
    sid: Annotated[bytes, a.Implicit(0)]
    digest_algorithm: AlgorithmIdentifier
    signed_attrs: Annotated[a.SetOf[Attribute], a.Implicit(0)]
    signature_algorithm: AlgorithmIdentifier
    signature: bytes


@a.sequence
class EncapsulatedContentInfo:
    e_content_type: OID
    e_content: Annotated[bytes, a.Explicit(0)]


@a.sequence
class SignedData:
    version: int
    digest_algorithms: a.SetOf[AlgorithmIdentifier]
    encap_content_info: EncapsulatedContentInfo
    certificates: Annotated[a.SetOf[Certificate], a.Implicit(0)]
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


# ---- the checks -------------------------------------------------------------------------------------
OID_CN, OID_SERIAL_NUMBER = "2.5.4.3", "2.5.4.5"  # DirectoryString in asn1crypto: PrintableString is one
OID_QT_CPS = "1.3.6.1.5.5.7.2.1"  # its qualifier an IA5String in asn1crypto
OID_ATTR_CONTENT_TYPE = "1.2.840.113549.1.9.3"
OID_ATTR_MESSAGE_DIGEST = "1.2.840.113549.1.9.4"
OID_ATTR_SIGNING_TIME = "1.2.840.113549.1.9.5"
OID_SHA256 = "2.16.840.1.101.3.4.2.1"
_KEY_USAGE_BITS = 9  # asn1crypto's KeyUsage names bits 0..8


def _decodes(cls, data) -> object | None:
    try:
        return a.decode_der(cls, bytes(data))
    except ValueError:
        return None


def _seq(contents) -> bytes:
    """A SEQUENCE header (X.690 section 8.1.3, definite minimal length) before `contents`."""
    n = len(contents)
    size = (n.bit_length() + 7) // 8
    length = bytes([n]) if n < 128 else bytes([0x80 | size]) + n.to_bytes(size, "big")
    return b"\x30" + length + bytes(contents)


def _wrapped(cls, der) -> object | None:
    """Decode `der` (one SEQUENCE OF) as the only field of `cls`."""
    return _decodes(cls, _seq(der))


# A URI whose path has only unreserved characters: asn1crypto leaves that path as it is, so only the
# scheme and authority need the round trip below, and few distinct ones occur.
_PLAIN_PATH = re.compile(r"([a-z][a-z0-9+.-]*://[^/?#%]*)(?:/[A-Za-z0-9._~-]+)+/?")


def _uri_ok(uri: a.IA5String) -> bool:
    """asn1crypto reads a URI as an IRI and writes it back as a URI: the two must give these bytes."""
    text = uri.as_str()
    m = _PLAIN_PATH.fullmatch(text)
    return _round_trips(m.group(1) + "/" if m else text)


@lru_cache(maxsize=1024)
def _round_trips(text: str) -> bool:
    raw = text.encode("ascii")
    try:
        return _iri.iri_to_uri(_iri.uri_to_iri(raw)) == raw
    except Exception:  # noqa: BLE001 - odd URIs: the full gate decides
        return False


def _named_bits_ok(bits: a.BitString) -> bool:
    """X.690 section 11.2.2: a named bit list without trailing zero bits (asn1crypto drops them)."""
    data, pad = bits.as_bytes(), bits.padding_bits()
    return (not data and pad == 0) or (bool(data) and (data[-1] >> pad) & 1 == 1
                                       and len(data) * 8 - pad <= _KEY_USAGE_BITS)


def _ip_choice(choice: a.TLV):
    """An IPAddressChoice: "inherit" for NULL, the list of prefixes and ranges, or None."""
    if choice.tag_bytes == b"\x05":
        return "inherit" if len(choice.data) == 0 else None
    if choice.tag_bytes != b"\x30":
        return None
    items = _wrapped(IPAddressesOrRanges, _seq(choice.data))
    return None if items is None else items.items


def _ip_blocks_value(v: bytes):
    """[(addressFamily octets, "inherit" or [BitString | IPAddressRange])] or None."""
    blocks = _wrapped(IPAddrBlocks, v)
    if blocks is None:
        return None
    out = []
    for f in blocks.items:
        choice = _ip_choice(f.ip_address_choice)
        if choice is None:
            return None
        out.append((f.address_family, choice))
    return out


def _as_ids_value(v: bytes):
    """"inherit", the list of [int | ASRange], or None."""
    ids = _decodes(ASIdentifiers, v)
    if ids is None:
        return None
    t = ids.asnum
    if t.tag_bytes == b"\x05":
        return "inherit" if len(t.data) == 0 else None
    if t.tag_bytes != b"\x30":
        return None
    items = _wrapped(ASIdsOrRanges, _seq(t.data))
    return None if items is None else items.items


def _crldp_value(v: bytes):
    """The URIs of each DistributionPoint's fullName, or None."""
    dps = _wrapped(DistributionPoints, v)
    if dps is None:
        return None
    out = []
    for dp in dps.items:
        name = dp.distribution_point
        if name.tag_bytes != b"\xa0":  # fullName [0] IMPLICIT GeneralNames
            return None
        uris = _wrapped(URIs, _seq(name.data))
        if uris is None or not all(_uri_ok(u) for u in uris.items):
            return None
        out.append(uris.items)
    return out


def _access_value(v: bytes):
    ads = _wrapped(AccessDescriptions, v)
    return ads.items if ads is not None and all(_uri_ok(ad.access_location) for ad in ads.items) else None


def _policies_value(v: bytes):
    pols = _wrapped(CertificatePolicies, v)
    ok = pols is not None and all(q.policy_qualifier_id.dotted_string == OID_QT_CPS
                                  for p in pols.items for q in p.policy_qualifiers or ())
    return pols.items if ok else None


def _key_usage_value(v: bytes):
    ku = _wrapped(KeyUsage, v)
    return ku.value if ku is not None and _named_bits_ok(ku.value) else None


def _unwrap(cls, v: bytes):
    value = _wrapped(cls, v)
    return None if value is None else value.items


# extension OID -> its value decoded (None: not certainly DER, the full gate decides)
EXTENSION_VALUES = {
    "2.5.29.19": lambda v: _decodes(BasicConstraints, v),
    "2.5.29.14": lambda v: None if (ski := _wrapped(OctetString, v)) is None else ski.value,
    "2.5.29.35": lambda v: _decodes(AuthorityKeyIdentifier, v),
    "2.5.29.15": _key_usage_value,
    "2.5.29.37": lambda v: _unwrap(OIDs, v),
    "2.5.29.31": _crldp_value,
    "2.5.29.32": _policies_value,
    "1.3.6.1.5.5.7.1.1": _access_value,
    "1.3.6.1.5.5.7.1.11": _access_value,
    asn1.OID_IP_ADDR_BLOCKS: _ip_blocks_value,
    asn1.OID_AS_IDENTIFIERS: _as_ids_value,
}


def _asn1crypto_parses(oid: str) -> bool:
    """asn1crypto has a schema for this extension, so the full gate decodes its value."""
    return ax509.ExtensionId._map.get(oid, oid) in ax509.Extension._oid_specs


def _names_ok(name) -> bool:
    return all(atv.type.dotted_string in (OID_CN, OID_SERIAL_NUMBER) for rdn in name for atv in rdn.as_list())


def _cert_extensions(cert: Certificate) -> list | None:
    """Each extension's value decoded (None for one asn1crypto does not parse either), or None when
    the certificate is not certainly DER."""
    tbs = cert.tbs_certificate
    spki = tbs.subject_public_key_info
    if not (tbs.version in (0, 1, 2) and _names_ok(tbs.issuer) and _names_ok(tbs.subject)
            and tbs.signature.algorithm.dotted_string == asn1.OID_SHA256_WITH_RSA
            and cert.signature_algorithm.algorithm.dotted_string == asn1.OID_SHA256_WITH_RSA
            and spki.algorithm.algorithm.dotted_string == asn1.OID_RSA
            and spki.subject_public_key.padding_bits() == 0 and cert.signature_value.padding_bits() == 0
            and _decodes(RSAPublicKey, spki.subject_public_key.as_bytes()) is not None):
        return None
    values = []
    for ext in tbs.extensions or ():
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


# extensions whose values recur from certificate to certificate (the same issuer, CRL, policy):
# decoded once; the decoded values are only read
SHARED = frozenset({"2.5.29.19", "2.5.29.35", "2.5.29.15", "2.5.29.37", "2.5.29.31", "2.5.29.32",
                    "1.3.6.1.5.5.7.1.1", asn1.OID_AS_IDENTIFIERS})
_shared: dict[tuple[str, bytes], object] = {}


def certificate_value(data: bytes) -> tuple[Certificate, list] | None:
    """A Certificate of RPKI shape that is certainly DER, decoded, with its extension values
    decoded (`_cert_extensions`); None otherwise."""
    cert = _decodes(Certificate, data)
    if cert is None:
        return None
    exts = _cert_extensions(cert)
    return None if exts is None else (cert, exts)


def certificate(data: bytes) -> bool:
    """A Certificate (RFC 5280 section 4.1) of RPKI shape is certainly DER."""
    return certificate_value(data) is not None


_ATTR_TYPES = {
    OID_ATTR_CONTENT_TYPE: OID,
    OID_ATTR_MESSAGE_DIGEST: bytes,
    OID_ATTR_SIGNING_TIME: (a.UTCTime, a.GeneralizedTime),
}


def content_info_value(data: bytes) -> tuple[ContentInfo, list[list]] | None:
    """A ContentInfo holding an RFC 6488 signed object of the usual shape that is certainly DER,
    decoded, with the decoded extension values of each certificate; None otherwise."""
    info = _decodes(ContentInfo, data)
    if info is None or info.content_type.dotted_string != asn1.OID_SIGNED_DATA:
        return None
    sd = info.content
    if sd.version != 3 or not all(alg.algorithm.dotted_string == OID_SHA256 for alg in sd.digest_algorithms.as_list()):
        return None
    for si in sd.signer_infos.as_list():
        if si.version != 3 or si.digest_algorithm.algorithm.dotted_string != OID_SHA256 \
                or si.signature_algorithm.algorithm.dotted_string not in (asn1.OID_RSA, asn1.OID_SHA256_WITH_RSA):
            return None
        for attr in si.signed_attrs.as_list():
            want = _ATTR_TYPES.get(attr.type.dotted_string)
            if want is None or not all(isinstance(v, want) for v in attr.values.as_list()):
                return None
    exts = []
    for c in sd.certificates.as_list():
        values = _cert_extensions(c)
        if values is None:
            return None
        exts.append(values)
    return info, exts


def content_info(data: bytes) -> bool:
    """A ContentInfo holding an RFC 6488 signed object of the usual shape is certainly DER."""
    return content_info_value(data) is not None


def roa_value(data: bytes) -> RouteOriginAttestation | None:
    """A RouteOriginAttestation eContent that is certainly DER, decoded; None otherwise."""
    return _decodes(RouteOriginAttestation, data)


def roa(data: bytes) -> bool:
    """A RouteOriginAttestation eContent (RFC 9582 section 4) is certainly DER."""
    return roa_value(data) is not None


def manifest_value(data: bytes) -> Manifest | None:
    """A Manifest eContent that is certainly DER, decoded; None otherwise."""
    return _decodes(Manifest, data)


def manifest(data: bytes) -> bool:
    """A Manifest eContent (RFC 9286 section 4.2) is certainly DER."""
    return manifest_value(data) is not None


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
