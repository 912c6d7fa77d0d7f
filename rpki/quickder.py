"""RPKI objects on `cryptography`'s strict DER decoder (X.690 section 10, RFC 6487 section 4, RFC
6488 section 3), their one reader: the certificate here (RFC 5280 section 4.1), its extension values
and names in rpki.quickext, CRLs in rpki.quickcrl, the CMS wrapper and the eContents in
rpki.quickcms.

The decoder is strict DER itself: definite minimal lengths, minimal INTEGERs, BOOLEAN 0x00/0xFF, no
encoded DEFAULT, sorted SET OF, zero padding bits, no trailing or undeclared elements. `strict`
decodes or raises DERError, with the offset of the first byte that differs from the canonical
encoding (rpki.der.not_der). A certificate is taken with any version, unique identifiers, any key
and signature algorithm (their parameters NULL, an OID, an INTEGER, an OCTET STRING or a SEQUENCE
held to DER framing; an RSA key's RSAPublicKey decoded too), and the names and extension values
rpki.quickext reads. `children` finds where each element lies in the bytes (what a signature
covers, a name's DER).

`cryptography.hazmat.asn1`, which its authors call unstable (the project pins its version), is used
in these four modules only.
"""

from __future__ import annotations

from typing import Annotated

from cryptography.hazmat import asn1 as a

from . import asn1
from .der import framing, input_bytes, not_der
from .errors import DERError
from .quickext import (
    OID,
    TLVs,
    AttributeTypeAndValue,
    name_attributes,
    extension_values,
)

Time = a.UTCTime | a.GeneralizedTime
UTCTime = a.UTCTime  # for the readers of decoded times (rpki.cert)


# ---- X.509 (RFC 5280 section 4.1) -----------------------------------------------------------------
Parameters = a.Null | OID | int | bytes | TLVs  # of an AlgorithmIdentifier: `parameters_ok`


@a.sequence
class AlgorithmIdentifier:
    algorithm: OID
    parameters: Parameters | None


@a.sequence
class Validity:
    not_before: Time
    not_after: Time


@a.sequence
class SubjectPublicKeyInfo:  # RFC 5280 section 4.1.2.7; RFC 5480 section 2.1.1 for EC parameters
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
    issuer_unique_id: Annotated[a.BitString | None, a.Implicit(1)]
    subject_unique_id: Annotated[a.BitString | None, a.Implicit(2)]
    extensions: Annotated[list[Extension] | None, a.Explicit(3)]


@a.sequence
class Certificate:
    tbs_certificate: TBSCertificate
    signature_algorithm: AlgorithmIdentifier
    signature_value: a.BitString




def parameters_ok(params) -> None:
    """An AlgorithmIdentifier's parameters of an open type: a SEQUENCE held to DER framing."""
    if isinstance(params, TLVs):
        for item in params.items:
            framing(item)


def certificate_value(data: bytes, source) -> tuple[Certificate, list, tuple]:
    """A Certificate (RFC 5280 section 4.1), decoded, with its extension values decoded
    (rpki.quickext.extension_values) and its issuer's and subject's attributes (`name_attributes`);
    DERError when it is not DER, ObjectError when a part is DER of a form not read here."""
    what = "Certificate (RFC 5280 section 4.1)"
    cert = strict(Certificate, data, source, what)
    tbs = cert.tbs_certificate
    spki = tbs.subject_public_key_info
    try:
        names = (name_attributes(tbs.issuer), name_attributes(tbs.subject))
        for alg in (tbs.signature, cert.signature_algorithm, spki.algorithm):
            parameters_ok(alg.parameters)
        if spki.algorithm.algorithm.dotted_string == asn1.OID_RSA:
            a.decode_der(RSAPublicKey, spki.subject_public_key.as_bytes())
    except ValueError as e:
        raise DERError(f"want DER (X.690 section 10) for {what}: {e}", source) from None
    return cert, extension_values(tbs.extensions or (), source, lambda: extension_offsets(data)), names


def extension_offsets(der: bytes) -> list[int]:
    """Where each extension's value octets begin in a decoded certificate's bytes."""
    (top,) = children(der, 0, len(der))
    fields = inside(der, inside(der, top)[0])
    (exts,) = inside(der, fields[-1])  # [3] EXPLICIT Extensions
    return [inside(der, ext)[-1][1] for ext in inside(der, exts)]


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
