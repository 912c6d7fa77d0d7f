"""CRLs (RFC 5280 section 5, profiled by RFC 6487 section 5) on `cryptography`'s strict DER decoder,
their one reader (`rpki.quickder.strict`, then rpki.crl): the CertificateList, and
`CRL_EXTENSION_VALUES` and `CRL_ENTRY_EXTENSION_VALUES`, which decode the value of every CRL and
CRL entry extension of RFC 5280 sections 5.2 and 5.3 (rpki.quickext.extension_value words a refusal).
"""

from __future__ import annotations

from typing import Annotated

from cryptography.hazmat import asn1 as a

from .certoids import EXT_AIA, EXT_AKI
from .der import NotDER
from .quickder import AlgorithmIdentifier, Extension, Time
from .quickext import (
    OID,
    REASON_FLAGS,
    TLVs,
    AttributeTypeAndValue,
    Unread,
    access_descriptions,
    aki_value,
    distribution_points,
    dp_name,
    general_names,
    named_bits,
    retagged,
    tagged,
    unwrap,
)


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


OID_CRL_NUMBER, OID_DELTA_CRL, OID_ISSUER_ALT_NAME = "2.5.29.20", "2.5.29.27", "2.5.29.18"
OID_IDP, OID_FRESHEST_CRL = "2.5.29.28", "2.5.29.46"
OID_REASON_CODE, OID_HOLD_CODE, OID_INVALIDITY_DATE, OID_CERT_ISSUER = "2.5.29.21", "2.5.29.23", "2.5.29.24", "2.5.29.29"


def _idp_value(v: bytes):
    """An issuingDistributionPoint (RFC 5280 section 5.2.5): its fields read (a BOOLEAN field
    DEFAULT FALSE is present only as TRUE, X.690 section 11.5)."""
    idp = a.decode_der(a.TLV, v)
    if idp.tag_bytes != b"\x30":
        raise Unread(f"want a SEQUENCE, got tag {idp.tag_bytes.hex()}")
    fields = tagged(idp.data, b"\xa0\x81\x82\x83\x84\x85")
    for tag in (0x81, 0x82, 0x84, 0x85):
        if tag in fields and bytes(fields[tag].data) != b"\xff":
            raise NotDER("want a BOOLEAN of DEFAULT FALSE present only as TRUE, FF (X.690 sections 11.1, 11.5)")
    if 0x83 in fields:
        named_bits(a.decode_der(a.BitString, retagged(fields[0x83], 0x03)), REASON_FLAGS)
    if 0xA0 in fields:
        dp_name(fields[0xA0])
    return fields


def _enumerated(v: bytes) -> int:
    """An ENUMERATED (X.690 section 8.4), minimal."""
    if len(v) < 3 or v[0] != 0x0A or v[1] != len(v) - 2 or v[1] > 0x7F \
            or (len(v) > 3 and (v[2], v[3] >> 7) in ((0, 0), (0xFF, 1))):
        raise NotDER("want a minimal ENUMERATED (X.690 section 8.4)")
    return int.from_bytes(v[2:], "big", signed=True)


# RFC 5280 section 5.2 and 5.3: the value of each CRL and CRL entry extension, decoded in full; any
# other extension stays opaque octets
CRL_EXTENSION_VALUES = {
    OID_CRL_NUMBER: lambda v: a.decode_der(int, v),
    OID_DELTA_CRL: lambda v: a.decode_der(int, v),
    EXT_AKI: aki_value,
    OID_ISSUER_ALT_NAME: lambda v: general_names(unwrap(TLVs, v)),
    OID_IDP: _idp_value,
    OID_FRESHEST_CRL: distribution_points,
    EXT_AIA: access_descriptions,
}
CRL_ENTRY_EXTENSION_VALUES = {
    OID_REASON_CODE: _enumerated,
    OID_HOLD_CODE: lambda v: a.decode_der(OID, v),
    OID_INVALIDITY_DATE: lambda v: a.decode_der(a.GeneralizedTime, v),
    OID_CERT_ISSUER: lambda v: general_names(unwrap(TLVs, v)),
}
