"""Identifiers of the resource certificate profile (RFC 5280 section 4, RFC 6487 section 4), named once
for the certificate readers (rpki.cert, rpki.certext, rpki.certaccess) and the fast DER path
(rpki.quickext), and the one rule every extension of the profile shares: its criticality."""

from __future__ import annotations

from . import asn1

# RFC 6487 sections 4.4 and 4.5: the attribute types a name may hold
OID_CN = "2.5.4.3"
OID_SERIAL_NUMBER = "2.5.4.5"

# RFC 6487 section 4.8: the extensions of the profile
EXT_BC, EXT_SKI, EXT_AKI, EXT_KU = "2.5.29.19", "2.5.29.14", "2.5.29.35", "2.5.29.15"
EXT_EKU, EXT_CRLDP, EXT_CP = "2.5.29.37", "2.5.29.31", "2.5.29.32"
EXT_AIA, EXT_SIA = "1.3.6.1.5.5.7.1.1", "1.3.6.1.5.5.7.1.11"
EXT_IP, EXT_AS = asn1.OID_IP_ADDR_BLOCKS, asn1.OID_AS_IDENTIFIERS
KNOWN_EXTENSIONS = {EXT_BC, EXT_SKI, EXT_AKI, EXT_KU, EXT_EKU, EXT_CRLDP, EXT_CP, EXT_AIA, EXT_SIA, EXT_IP, EXT_AS}

OID_QT_CPS = "1.3.6.1.5.5.7.2.1"  # RFC 7318 section 2: the one policy qualifier allowed
OID_QT_UNOTICE = "1.3.6.1.5.5.7.2.2"  # RFC 5280 section 4.2.1.4: userNotice (not allowed, but read)

# RFC 5280 section 4.2.1.3: the KeyUsage bits, by number, by the names the profile's messages give them
# (those asn1crypto gives them)
KEY_USAGE = ("digital_signature", "non_repudiation", "key_encipherment", "data_encipherment", "key_agreement",
             "key_cert_sign", "crl_sign", "encipher_only", "decipher_only")


def criticality(seen: dict, oid: str, want: bool, check: str, rfc: str) -> list[tuple[str, str, str]]:
    """RFC 5280 section 4.2: the extension `oid`, when present (in `seen`, OID -> rpki.cert.Extension),
    is critical exactly when the profile (`rfc`) says so."""
    if oid in seen and seen[oid].critical != want:
        marks = ("non-critical", "critical")
        return [(check, rfc, f"want {marks[want]}, got {marks[not want]}")]
    return []
