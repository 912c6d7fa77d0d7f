"""RPKI signed objects: the CMS wrapper of RFC 6488 (profile of RFC 5652 SignedData).

`SignedObject.parse(data, source)` reads a ContentInfo holding a SignedData, checks the profile of
RFC 6488 section 2.1 (each check names its section), the message digest over the eContent, the
signature over the DER of the signed attributes (re-tagged as SET OF, RFC 5652 section 5.4) with the
EE certificate's key, and the EE certificate's own profile (rpki.cert, RFC 6487). The eContent is
returned as bytes with its type; rpki.roa, rpki.manifest and rpki.aspa read it. Chains (the EE
certificate's issuer, its CRL) are validation, not here: `check_issued_by` does one step.

DER and BER (RFC 6488 section 3 item 1 wants DER). By default the whole object must be DER. Three RIPE NCC production objects of 2019 (in rpki-rs's test data) are BER:
indefinite lengths on ContentInfo/SignedData/encapContentInfo and a chunked eContent OCTET STRING.
rpki-client and rpki-rs accept such objects. `ber_ok=True` reproduces that, for the *outer wrapper
only*: the EE certificate, the signed attributes (what the signature covers) and the eContent
payload must still be DER each, so nothing signed or interpreted is ever lenient. The object then
records `ber=True`. Off by default: a relying party here rejects BER unless told otherwise.

A CA fills the same dataclass (content type, eContent, EE certificate, signing time) and signs it.

One reader, rpki.quickcms's strict DER decode, reads the wrapper and the eContents of ROAs,
manifests and ASPAs (`quickder.strict`); with `ber_ok`, a wrapper that is not DER is read in its
canonical form (rpki.der.canonical), and its EE certificate and signed attributes must be found
unchanged in the received bytes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

from . import asn1, quickcms, quickder
from .cert import Kind, ResourceCertificate, verify_rsa_sha256
from .der import canonical, input_bytes
from .errors import DERError, ObjectError, raise_first
from .quickcms import (OID_ATTR_BINARY_SIGNING_TIME, OID_ATTR_CONTENT_TYPE, OID_ATTR_MESSAGE_DIGEST,
                       OID_ATTR_SIGNING_TIME, OID_SHA256)

ALLOWED_ATTRS = {OID_ATTR_CONTENT_TYPE, OID_ATTR_MESSAGE_DIGEST, OID_ATTR_SIGNING_TIME, OID_ATTR_BINARY_SIGNING_TIME}
SIG_ALGS = {asn1.OID_RSA, asn1.OID_SHA256_WITH_RSA}  # RFC 7935 section 2, RFC 6488 section 2.1.6.5
SEC = "RFC 6488 section 2.1"


@dataclass
class SignedObject:
    """An RFC 6488 signed object: what is signed (eContent of a type) and by which EE certificate."""

    content_type: str  # dotted OID of eContentType
    econtent: bytes  # the eContent octets (the DER of the payload)
    ee: ResourceCertificate
    signing_time: datetime | None = None
    binary_signing_time: int | None = None
    # what was received (parse fills them; a builder fills them when it signs)
    source: str | None = None
    der: bytes = b""
    ber: bool = False  # the outer wrapper was BER (only possible with ber_ok=True)
    signed_attrs_der: bytes = b""  # DER of the signed attributes as SET OF (what the signature covers)
    signature: bytes = b""
    message_digest: bytes = b""
    signature_algorithm: str = asn1.OID_SHA256_WITH_RSA
    problems_found: list[tuple[str, str, str]] = field(default_factory=list)

    # ---- parsing ----------------------------------------------------------------------------------
    @classmethod
    def parse(cls, data: bytes, source: str | None = None, *, ber_ok: bool = False,
              at: datetime | None = None) -> SignedObject:
        """Read and check a signed object; raise ObjectError naming the first failure."""
        obj = cls.read(data, source, ber_ok=ber_ok)
        obj.check(at)
        return obj

    @classmethod
    def read(cls, data: bytes, source: str | None = None, *, ber_ok: bool = False) -> SignedObject:
        """Decode (strict DER, or a BER outer wrapper with `ber_ok`) and collect profile problems
        without raising for them; `check()` raises."""
        what = "ContentInfo (RFC 6488 section 2)"
        data = input_bytes(data, what, source)
        try:
            return cls._read(*quickcms.content_info_value(data, source, what), data, data, source)
        except DERError as e:
            if not ber_ok or e.offset is None:
                raise
            error = e
        try:  # BER: the wrapper read in its canonical form; the signed parts must be DER as received
            der = canonical(data)
            decoded = quickcms.content_info_value(der, source, what)
        except (ObjectError, ValueError):
            raise error from None
        return cls._read(*decoded, der, data, source)

    @classmethod
    def _read(cls, info: quickcms.ContentInfo, attr_values: list[list[list]], der: bytes, received: bytes,
              source) -> SignedObject:
        """The fields and the profile's problems (RFC 6488 section 2.1, in its order) from
        rpki.quickcms's decode of `der`: the received bytes, or their canonical form when those
        are BER (then the EE certificate and the signed attributes must lie in them unchanged)."""
        ber = der is not received
        p: list[tuple[str, str, str]] = []
        add = lambda check, rfc, msg: p.append((check, rfc, msg))  # noqa: E731
        if info.content_type.dotted_string != asn1.OID_SIGNED_DATA:
            raise ObjectError(f"want id-signedData, got {info.content_type.dotted_string}", source,
                              check="contentType", rfc=SEC)
        sd = info.content
        # 2.1.1 version
        if sd.version != 3:
            add("SignedData.version", SEC + ".1", f"want version 3, got v{sd.version}")
        # 2.1.2 digestAlgorithms
        algs = [a.algorithm.dotted_string for a in sd.digest_algorithms.as_list()]
        if algs != [OID_SHA256]:
            add("digestAlgorithms", SEC + ".2, RFC 7935 section 2", f"want exactly one algorithm sha256, got {algs}")
        # 2.1.3 encapContentInfo
        ctype = sd.encap_content_info.e_content_type.dotted_string
        econtent = sd.encap_content_info.e_content
        if econtent is None:
            raise ObjectError("want an eContent, got none", source, check="eContent", rfc=SEC + ".3.2")
        # 2.1.4 certificates: exactly one EE certificate
        certs = [] if sd.certificates is None else sd.certificates.as_list()
        if len(certs) != 1:
            raise ObjectError(f"want exactly one EE certificate, got {len(certs)}", source,
                              check="certificates", rfc=SEC + ".4")
        if certs[0].tag_bytes != b"\x30":
            raise ObjectError(f"want an X.509 certificate, got the CertificateChoices of tag {certs[0].tag_bytes.hex()}",
                              source, check="certificates", rfc=SEC + ".4")
        # where the EE certificate and the signed attributes lie: ContentInfo > [0] > SignedData >
        # version, digestAlgorithms, encapContentInfo, [0] certificates, signerInfos
        (ci,) = quickder.children(der, 0, len(der))
        sd_at = quickder.inside(der, quickder.inside(der, ci)[1])[0]
        parts = quickder.inside(der, sd_at)
        ee_at = quickder.inside(der, parts[3])[0]
        _signed_part(der, ee_at, received, "the EE certificate", source)
        try:
            ee = ResourceCertificate.parse(der[ee_at[0]:ee_at[2]], source)
        except DERError as e:  # its offset in the object (in a BER one, the canonical form's: none)
            if e.offset is None:
                raise
            raise DERError(e.reason, source, check=e.check, rfc=e.rfc,
                           offset=None if ber else ee_at[0] + e.offset) from None
        # 2.1.5 crls
        if sd.crls is not None:
            add("crls", SEC + ".5", "want no CRLs in a signed object")
        # 2.1.6 signerInfos
        infos = sd.signer_infos.as_list()
        if len(infos) != 1:
            raise ObjectError(f"want exactly one SignerInfo, got {len(infos)}", source,
                              check="signerInfos", rfc=SEC + ".6")
        si = infos[0]
        if si.version != 3:
            add("SignerInfo.version", SEC + ".6.1", f"want version 3, got v{si.version}")
        if isinstance(si.sid, quickcms.IssuerAndSerialNumber):
            add("SignerInfo.sid", SEC + ".6.2", "want a subjectKeyIdentifier, got issuer_and_serial_number")
        elif si.sid != ee.ski:
            add("SignerInfo.sid", SEC + ".6.2", "want the EE certificate's subjectKeyIdentifier, got another")
        dalg = si.digest_algorithm.algorithm.dotted_string
        if dalg != OID_SHA256:
            add("SignerInfo.digestAlgorithm", SEC + ".6.3", f"want sha256, got {dalg}")
        salg = si.signature_algorithm.algorithm.dotted_string
        if salg not in SIG_ALGS:
            add("SignerInfo.signatureAlgorithm", SEC + ".6.5, RFC 7935 section 2",
                f"want rsaEncryption or sha256WithRSAEncryption, got {salg}")
        if si.unsigned_attrs is not None:
            add("SignerInfo.unsignedAttrs", SEC + ".6.7", "want no unsigned attributes")
        # 2.1.6.4 signed attributes
        attrs = [] if si.signed_attrs is None else si.signed_attrs.as_list()
        if not attrs:
            raise ObjectError("want signed attributes, got none", source, check="signedAttrs", rfc=SEC + ".6.4")
        attrs_at = quickder.inside(der, quickder.inside(der, parts[-1])[0])[3]
        _signed_part(der, attrs_at, received, "signedAttrs (RFC 6488 section 2.1.6.4)", source)
        self = cls(content_type=ctype, econtent=econtent, ee=ee, source=source, der=received, ber=ber,
                   signed_attrs_der=b"\x31" + der[attrs_at[0] + 1:attrs_at[2]], signature=si.signature,
                   signature_algorithm=salg)
        seen: dict[str, int] = {}
        for attr, values in zip(attrs, attr_values[0]):
            oid = attr.type.dotted_string
            seen[oid] = seen.get(oid, 0) + 1
            if oid not in ALLOWED_ATTRS:
                add("signedAttrs", SEC + ".6.4", f"want only content-type, message-digest, signing-time and "
                    f"binary-signing-time, got {oid}")
                continue
            if len(values) != 1:
                add("signedAttrs", SEC + ".6.4", f"want exactly one value in attribute {oid}, got {len(values)}")
                continue
            v = values[0]
            if oid == OID_ATTR_CONTENT_TYPE:
                got = v.dotted_string
                if got != ctype:
                    add("signedAttrs.content-type", SEC + ".6.4.1", f"want the eContentType {ctype}, got {got}")
            elif oid == OID_ATTR_MESSAGE_DIGEST:
                self.message_digest = v
            elif oid == OID_ATTR_SIGNING_TIME:
                self.signing_time = v.as_datetime()
            else:  # RFC 6019: BinaryTime ::= INTEGER (0..MAX), seconds since 1970
                if v < 0:
                    add("signedAttrs.binary-signing-time", "RFC 6019 section 2", "want a non-negative INTEGER")
                self.binary_signing_time = v
        _attribute_counts(seen, add)
        self.problems_found = p
        return self

    # ---- checks -----------------------------------------------------------------------------------
    def problems(self, at: datetime | None = None) -> list[tuple[str, str, str]]:
        """Every failure: the wrapper profile, the EE profile, the digest and the signature."""
        p = list(self.problems_found)
        if self.ee.kind is not Kind.EE:
            p.append(("certificates", "RFC 6488 section 2.1.4", f"want an EE certificate, got a {self.ee.kind.value}"))
        p += [(f"EE {c}", r, m) for c, r, m in self.ee.problems(at)]
        if self.ee.eku:
            p.append(("EE extendedKeyUsage", "RFC 6487 section 4.8.5",
                      "want no extendedKeyUsage in an EE certificate that verifies signed objects"))
        want = hashlib.sha256(self.econtent).digest()
        if self.message_digest and self.message_digest != want:
            p.append(("signedAttrs.message-digest", "RFC 6488 section 3 item 2, RFC 5652 section 11.2",
                      f"want the SHA-256 of the eContent {want.hex()}, got {self.message_digest.hex()}"))
        try:
            verify_rsa_sha256(self.ee.public_key(), self.signature, self.signed_attrs_der, self.source, "signature")
        except ObjectError as e:
            p.append(("SignerInfo.signature", "RFC 6488 section 3 item 2, RFC 5652 section 5.6",
                      e.reason.replace("by the issuer's key", "by the EE certificate's key")))
        return p

    def check(self, at: datetime | None = None) -> SignedObject:
        """RFC 6488 section 3: raise ObjectError for the first failure (the message counts the others)."""
        raise_first(self.problems(at), self.source)
        return self

    def check_issued_by(self, issuer: ResourceCertificate) -> None:
        """One step up: the EE certificate was issued (and signed) by `issuer`."""
        self.ee.check_issued_by(issuer)

    def expect(self, content_type: str, name: str, rfc: str) -> None:
        """RFC 6488 section 3 item 2: the eContentType this kind of object must have."""
        if self.content_type != content_type:
            raise ObjectError(f"want eContentType {name} {content_type}, got {self.content_type}", self.source,
                              check="eContentType", rfc=rfc)


class SignedPayload:
    """What every RPKI signed object type (ROA, manifest, ASPA, GBR) shares: `parse` is `read` (the
    RFC 6488 wrapper and the payload) then `check`, which raises the first of `problems(at, **rules)`
    naming how many more there are. Subclasses define `read` and `problems`."""

    @classmethod
    def parse(cls, data: bytes, source: str | None = None, *, at: datetime | None = None, ber_ok: bool = False,
              **rules):
        return cls.read(data, source, ber_ok=ber_ok).check(at, **rules)

    def check(self, at: datetime | None = None, **rules):
        raise_first(self.problems(at, **rules), self.source)
        return self


def _signed_part(der: bytes, at: tuple[int, int, int], received: bytes, what: str, source) -> None:
    """A part of a BER wrapper read in its canonical form that is signed or read on its own: it
    must lie in the received bytes as it is (DER there too)."""
    if der is not received and der[at[0]:at[2]] not in received:
        raise DERError(f"want DER (X.690 section 10) for {what} inside a BER signed object", source)


def _attribute_counts(seen: dict, add) -> None:
    """RFC 6488 section 2.1.6.4: each signed attribute once, content-type and message-digest there."""
    for oid, n in seen.items():
        if n > 1:
            add("signedAttrs", SEC + ".6.4", f"want each attribute once, got {oid} {n} times")
    for oid, name in ((OID_ATTR_CONTENT_TYPE, "content-type"), (OID_ATTR_MESSAGE_DIGEST, "message-digest")):
        if oid not in seen:
            add("signedAttrs", SEC + ".6.4", f"want a {name} attribute, got none")
