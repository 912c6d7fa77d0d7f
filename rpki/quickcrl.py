"""CRLs (RFC 5280 section 5, profiled by RFC 6487 section 5) on `cryptography`'s strict DER decoder.

Two uses: `certificate_list_value` and `crl_ok` say whether a CRL inside a SignedData (which RFC
6488 section 2.1.5 rejects by name) is certainly DER, as rpki.quickder's checks do for a
certificate; `CRL_EXTENSION_VALUES` and `CRL_ENTRY_EXTENSION_VALUES` decode every extension value of
a .crl in full for rpki.crl, whose one reader this is (`rpki.quickder.strict`).
"""

from __future__ import annotations

from typing import Annotated

from asn1crypto import crl as acrl
from asn1crypto import parser
from cryptography.hazmat import asn1 as a

from .certoids import EXT_AIA, EXT_AKI, EXT_CRLDP
from .quickder import (
    SIGNATURE_ALGORITHMS,
    AlgorithmIdentifier,
    Extension,
    Time,
    time_ok,
)
from .quickext import (
    EXTENSION_VALUES,
    OID,
    REASON_FLAGS,
    AccessDescriptions,
    AttributeTypeAndValue,
    DistributionPoints,
    GeneralNames,
    Name,
    aki_value,
    as_sequence,
    decodes,
    directory_name,
    general_names_ok,
    named_bits_ok,
    names_ok,
    wrapped,
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


# RFC 5280 section 5.2: the CRL extensions taken here, with their values decoded as asn1crypto
# decodes them (crl.TBSCertListExtension): cRLNumber and deltaCRLIndicator INTEGERs, the AKI,
# issuerAltName GeneralNames (of the kinds rpki.quickext takes), freshestCRL and AIA as in a
# certificate. issuingDistributionPoint, and GeneralNames of other kinds, are declined.
OID_CRL_NUMBER, OID_DELTA_CRL, OID_ISSUER_ALT_NAME = "2.5.29.20", "2.5.29.27", "2.5.29.18"
OID_IDP, OID_FRESHEST_CRL = "2.5.29.28", "2.5.29.46"
OID_REASON_CODE, OID_HOLD_CODE, OID_INVALIDITY_DATE, OID_CERT_ISSUER = "2.5.29.21", "2.5.29.23", "2.5.29.24", "2.5.29.29"


def _integer(v: bytes):
    return decodes(int, v)


def _general_names(v: bytes, ok=general_names_ok):
    """GeneralNames decoded, passing `ok`; None otherwise."""
    names = wrapped(GeneralNames, v)
    return names.items if names is not None and ok(names.items) else None


_CRL_EXTENSION_VALUES = {
    OID_CRL_NUMBER: _integer,
    OID_DELTA_CRL: _integer,
    EXT_AKI: aki_value,
    OID_ISSUER_ALT_NAME: _general_names,
    OID_FRESHEST_CRL: EXTENSION_VALUES[EXT_CRLDP],  # CRLDistributionPoints
    EXT_AIA: EXTENSION_VALUES[EXT_AIA],
}
# RFC 5280 section 5.3: the CRL entry extensions taken here (crl.CRLEntryExtension): reasonCode, an
# ENUMERATED of a value asn1crypto names (one content octet, so minimal); holdInstructionCode, an
# OID; invalidityDate, a GeneralizedTime; certificateIssuer, GeneralNames
CRL_REASONS = frozenset({0, 1, 2, 3, 4, 5, 6, 8, 9, 10})
_CRL_ENTRY_EXTENSION_VALUES = {
    OID_REASON_CODE: lambda v: v[2] if len(v) == 3 and v[:2] == b"\x0a\x01" and v[2] in CRL_REASONS else None,
    OID_HOLD_CODE: lambda v: decodes(OID, v),
    OID_INVALIDITY_DATE: lambda v: t if time_ok(t := decodes(a.GeneralizedTime, v)) else None,
    OID_CERT_ISSUER: _general_names,
}


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


def crl_ok(crl: CertificateList) -> bool:
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
    """A CertificateList (RFC 5280 section 5.1) that is certainly DER (`crl_ok`), decoded; None
    otherwise."""
    crl = decodes(CertificateList, data)
    return crl if crl is not None and crl_ok(crl) else None


def certificate_list(data: bytes) -> bool:
    """A CertificateList of a shape taken here is certainly DER."""
    return certificate_list_value(data) is not None


# ---- the CRL reader's extension values (RFC 5280 sections 5.2 and 5.3), each decoded in full ----------
@a.sequence
class IssuingDistributionPoint:  # RFC 5280 section 5.2.5, with a distributionPoint
    distribution_point: Annotated[a.TLV, a.Explicit(0)]  # DistributionPointName, a CHOICE
    only_contains_user_certs: Annotated[bool, a.Implicit(1), a.Default(False)]
    only_contains_ca_certs: Annotated[bool, a.Implicit(2), a.Default(False)]
    only_some_reasons: Annotated[a.BitString | None, a.Implicit(3)]
    indirect_crl: Annotated[bool, a.Implicit(4), a.Default(False)]
    only_contains_attribute_certs: Annotated[bool, a.Implicit(5), a.Default(False)]


@a.sequence
class IssuingDistributionPointNoName:  # the same without (an optional TLV cannot be declared)
    only_contains_user_certs: Annotated[bool, a.Implicit(1), a.Default(False)]
    only_contains_ca_certs: Annotated[bool, a.Implicit(2), a.Default(False)]
    only_some_reasons: Annotated[a.BitString | None, a.Implicit(3)]
    indirect_crl: Annotated[bool, a.Implicit(4), a.Default(False)]
    only_contains_attribute_certs: Annotated[bool, a.Implicit(5), a.Default(False)]


def _names_der(names) -> bool:
    """Decoded GeneralNames (or None) whose directoryNames decode as Names too."""
    return all(gn.tag != "dir" or directory_name(gn.value) is not None for gn in names or ())


def _dp_name_der(tlv) -> bool:
    """A DistributionPointName (RFC 5280 section 4.2.1.13): fullName [0] GeneralNames or
    nameRelativeToCRLIssuer [1] RelativeDistinguishedName, decoded."""
    if tlv.tag_bytes == b"\xa0":
        names = wrapped(GeneralNames, as_sequence(tlv.data))
        return names is not None and _names_der(names.items)
    # nameRelativeToCRLIssuer [1] IMPLICIT: the contents of a SET OF AttributeTypeAndValue
    return tlv.tag_bytes == b"\xa1" and wrapped(Name, as_sequence(parser.emit(0, 1, 17, bytes(tlv.data)))) is not None


def _idp_value(v: bytes):
    idp = decodes(IssuingDistributionPoint, v) or decodes(IssuingDistributionPointNoName, v)
    ok = idp is not None and (not hasattr(idp, "distribution_point") or _dp_name_der(idp.distribution_point)) \
        and (idp.only_some_reasons is None or named_bits_ok(idp.only_some_reasons, REASON_FLAGS))
    return idp if ok else None


def _crldp_der(v: bytes):
    dps = wrapped(DistributionPoints, v)
    ok = dps is not None and all(_dp_name_der(dp.distribution_point) and _names_der(dp.crl_issuer)
                                 and (dp.reasons is None or named_bits_ok(dp.reasons, REASON_FLAGS)) for dp in dps.items)
    return dps if ok else None


def _aki_der(v: bytes):
    return aki_value(v, _names_der)


def _general_names_der(v: bytes):
    return _general_names(v, _names_der)


def _aia_der(v: bytes):
    ads = wrapped(AccessDescriptions, v)
    return ads if ads is not None and _names_der([ad.access_location for ad in ads.items]) else None


def _enumerated(v: bytes):
    """An ENUMERATED (X.690 section 8.4): its value, or None when it is not DER."""
    if len(v) < 3 or v[0] != 0x0A or v[1] != len(v) - 2 or v[1] > 0x7F \
            or (len(v) > 3 and (v[2], v[3] >> 7) in ((0, 0), (0xFF, 1))):
        return None
    return int.from_bytes(v[2:], "big", signed=True)


# the values of the CRL and CRL entry extensions asn1crypto has a schema for (crl.TBSCertListExtension,
# crl.CRLEntryExtension), decoded here in full; any other extension stays opaque octets
CRL_EXTENSION_VALUES = {
    OID_CRL_NUMBER: _integer,
    OID_DELTA_CRL: _integer,
    EXT_AKI: _aki_der,
    OID_ISSUER_ALT_NAME: _general_names_der,
    OID_IDP: _idp_value,
    OID_FRESHEST_CRL: _crldp_der,
    EXT_AIA: _aia_der,
}
CRL_ENTRY_EXTENSION_VALUES = {
    OID_REASON_CODE: _enumerated,
    OID_HOLD_CODE: lambda v: decodes(OID, v),
    OID_INVALIDITY_DATE: lambda v: decodes(a.GeneralizedTime, v),
    OID_CERT_ISSUER: _general_names_der,
}
