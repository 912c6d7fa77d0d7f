"""RPKI objects on `cryptography`'s strict DER decoder (X.690 section 10, RFC 6487 section 4, RFC
6488 section 3): the certificate here (RFC 5280 section 4.1), its extension values and names in
rpki.quickext, CRLs in rpki.quickcrl, the CMS wrapper and the eContents in rpki.quickcms.

The decoder is strict DER itself: definite minimal lengths, minimal INTEGERs, BOOLEAN 0x00/0xFF, no
encoded DEFAULT, sorted SET OF, zero padding bits, no trailing or undeclared elements. `strict` is
the one reader of CRLs and of the ROA, manifest and ASPA eContents: it decodes or raises DERError.

For certificates and signed objects, asn1crypto's reader (rpki.der: a full decode and re-encode)
still stands behind this one, and each check here answers only "certainly DER": True when every
byte that gate would re-encode decoded here too and is in a form asn1crypto re-encodes unchanged.
A certificate is taken with any version, unique identifiers, an RSA or EC key, the signature
algorithms of `SIGNATURE_ALGORITHMS`, and the names and extension values rpki.quickext takes; a
GeneralizedTime where asn1crypto writes it back unchanged (`time_ok`). Anything else gives False
and the gate decides, with its own error text: a True never accepts what the gate would reject.
`certificate_value` returns what it decoded, and `children` finds where each element lies in the
bytes (what a signature covers, a name's DER); tests/test_rpki_quickread.py holds the two readers to
the same result.

`cryptography.hazmat.asn1`, which its authors call unstable (the project pins its version), is used
in these four modules only.
"""

from __future__ import annotations

from typing import Annotated

from cryptography.hazmat import asn1 as a

from . import asn1
from .der import input_bytes, not_der
from .quickext import (
    OID,
    AttributeTypeAndValue,
    decodes,
    extension_values,
    names_ok,
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


def cert_extensions(cert: Certificate) -> list | None:
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
    decoded (`cert_extensions`); None otherwise."""
    cert = decodes(Certificate, data)
    if cert is None:
        return None
    exts = cert_extensions(cert)
    return None if exts is None else (cert, exts)


def certificate(data: bytes) -> bool:
    """A Certificate (RFC 5280 section 4.1) of RPKI shape is certainly DER."""
    return certificate_value(data) is not None


def strict(cls, data, source: str | None, what: str):
    """`data` decoded as `cls` by cryptography's strict DER decoder: the one reader of CRLs and of the
    ROA, manifest and ASPA eContents. Raises DERError (rpki.der.not_der) for anything else."""
    data = input_bytes(data, what, source)
    try:
        return a.decode_der(cls, data)
    except ValueError as e:
        raise not_der(what, e, data, source) from None


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
