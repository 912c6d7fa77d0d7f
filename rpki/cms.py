"""RPKI signed objects: the CMS wrapper of RFC 6488 (profile of RFC 5652 SignedData).

`SignedObject.parse(data, source)` reads a ContentInfo holding a SignedData, checks the profile of
RFC 6488 section 2.1 (each check names its section), the message digest over the eContent, the
signature over the DER of the signed attributes (re-tagged as SET OF, RFC 5652 section 5.4) with the
EE certificate's key, and the EE certificate's own profile (rpki.cert, RFC 6487). The eContent is
returned as bytes with its type; rpki.roa, rpki.manifest and rpki.aspa read it. Chains (the EE
certificate's issuer, its CRL) are validation, not here: `check_issued_by` does one step.

DER and BER (RFC 6488 section 3 item 1 wants DER). By default the whole object must be DER (the
`rpki.der` gate). Three RIPE NCC production objects of 2019 (in rpki-rs's test data) are BER:
indefinite lengths on ContentInfo/SignedData/encapContentInfo and a chunked eContent OCTET STRING.
rpki-client and rpki-rs accept such objects. `ber_ok=True` reproduces that, for the *outer wrapper
only*: the EE certificate, the signed attributes (what the signature covers) and the eContent
payload must still be DER each, so nothing signed or interpreted is ever lenient. The object then
records `ber=True`. Off by default: a relying party here rejects BER unless told otherwise.

A CA fills the same dataclass (content type, eContent, EE certificate, signing time) and signs it.

As for certificates (rpki.cert), `read_quick` fills the dataclass from rpki.quickder's decode when
the object is certainly DER and of a shape it takes (`_read_quick`: the checks of `_read`, in its
order, with its problems and its rejections); anything else goes through asn1crypto (`_read`).
The eContents of ROAs, manifests and ASPAs are read by rpki.quickder alone (`quickder.strict`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

from asn1crypto import cms, core

from . import asn1, quickcms, quickder
from .cert import Kind, ResourceCertificate, verify_rsa_sha256
from .der import decode
from .errors import DERError, ObjectError, raise_first
from .quickcms import (OID_ATTR_BINARY_SIGNING_TIME, OID_ATTR_CONTENT_TYPE, OID_ATTR_MESSAGE_DIGEST,
                       OID_ATTR_SIGNING_TIME, OID_SHA256)

ALLOWED_ATTRS = {OID_ATTR_CONTENT_TYPE, OID_ATTR_MESSAGE_DIGEST, OID_ATTR_SIGNING_TIME, OID_ATTR_BINARY_SIGNING_TIME}
SIG_ALGS = {asn1.OID_RSA, asn1.OID_SHA256_WITH_RSA}  # RFC 7935 section 2, RFC 6488 section 2.1.6.5
SEC = "RFC 6488 section 2.1"


# The wrapper is decoded with the eContent left as octets: its payload is decoded on its own (by the
# object module, through the DER gate), so an ASPA in either profile or an unknown type still reads.
class _EncapOpaque(cms.EncapsulatedContentInfo):
    _oid_specs: dict = {}


class _SignedData(cms.SignedData):
    _spec_callbacks = {"encap_content_info": lambda self: _EncapOpaque}


class _ContentInfo(cms.ContentInfo):
    _oid_specs = {**cms.ContentInfo._oid_specs, "signed_data": _SignedData}


def read_quick(data: bytes, source) -> SignedObject | None:
    """`SignedObject.read` when rpki.quickder certainly accepts the bytes and reads them without
    surprise; None otherwise (the asn1crypto path then decides, with its own texts)."""
    try:
        decoded = quickcms.content_info_value(data)
        return None if decoded is None else SignedObject._read_quick(*decoded, data, source)
    except ObjectError:  # the profile's rejections, worded as `SignedObject._read` words them
        raise
    except Exception:  # noqa: BLE001 - anything unforeseen: the asn1crypto path decides
        return None


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
        """Decode (DER gate, or BER outer wrapper with `ber_ok`) and collect profile problems
        without raising for them; `check()` raises."""
        if isinstance(data, (bytes, bytearray, memoryview)):
            quick = read_quick(bytes(data), source)
            if quick is not None:
                return quick
        what = "ContentInfo (RFC 6488 section 2)"
        ber = False
        try:
            info = decode(_ContentInfo, data, source, what, fast=quickcms.content_info)
        except DERError as e:
            if not ber_ok or e.offset is None:
                raise
            try:  # BER: lenient decode of the wrapper; the inner parts pass the DER gate below
                info = _ContentInfo.load(bytes(data), strict=True)
                info.native
            except Exception as e2:  # noqa: BLE001 - asn1crypto raises many types
                raise DERError(f"want a BER {what}: {type(e2).__name__}", source) from None
            ber = True
        try:
            return cls._read(info, bytes(data), source, ber)
        except ObjectError:
            raise
        except Exception as e:  # noqa: BLE001 - asn1crypto raises many types on odd content
            raise ObjectError(f"want a readable signed object, got {type(e).__name__}: {e}", source) from None

    @classmethod
    def _read(cls, info: cms.ContentInfo, der: bytes, source, ber: bool) -> SignedObject:
        p: list[tuple[str, str, str]] = []
        add = lambda check, rfc, msg: p.append((check, rfc, msg))  # noqa: E731
        if info["content_type"].dotted != asn1.OID_SIGNED_DATA:
            raise ObjectError(f"want id-signedData, got {info['content_type'].dotted}", source,
                              check="contentType", rfc=SEC)
        sd = info["content"]
        # 2.1.1 version
        if sd["version"].native != "v3":
            add("SignedData.version", SEC + ".1", f"want version 3, got {sd['version'].native}")
        # 2.1.2 digestAlgorithms
        algs = [a["algorithm"].dotted for a in sd["digest_algorithms"]]
        if algs != [OID_SHA256]:
            add("digestAlgorithms", SEC + ".2, RFC 7935 section 2", f"want exactly one algorithm sha256, got {algs}")
        # 2.1.3 encapContentInfo
        encap = sd["encap_content_info"]
        ctype = encap["content_type"].dotted
        content = encap["content"]
        if isinstance(content, core.Void):
            raise ObjectError("want an eContent, got none", source, check="eContent", rfc=SEC + ".3.2")
        econtent = bytes(content)
        # 2.1.4 certificates: exactly one EE certificate
        certs = sd["certificates"]
        certs = [] if isinstance(certs, core.Void) else list(certs)
        if len(certs) != 1:
            raise ObjectError(f"want exactly one EE certificate, got {len(certs)}", source,
                              check="certificates", rfc=SEC + ".4")
        if certs[0].name != "certificate":
            raise ObjectError(f"want an X.509 certificate, got {certs[0].name}", source,
                              check="certificates", rfc=SEC + ".4")
        # a DER wrapper was checked whole (EE certificate, its extensions); a BER one was not
        ee = ResourceCertificate.parse(certs[0].chosen.dump(), source, checked=not ber)
        # 2.1.5 crls
        if not isinstance(sd["crls"], core.Void):
            add("crls", SEC + ".5", "want no CRLs in a signed object")
        # 2.1.6 signerInfos
        infos = list(sd["signer_infos"])
        if len(infos) != 1:
            raise ObjectError(f"want exactly one SignerInfo, got {len(infos)}", source,
                              check="signerInfos", rfc=SEC + ".6")
        si = infos[0]
        if si["version"].native != "v3":
            add("SignerInfo.version", SEC + ".6.1", f"want version 3, got {si['version'].native}")
        sid = si["sid"]
        if sid.name != "subject_key_identifier":
            add("SignerInfo.sid", SEC + ".6.2", f"want a subjectKeyIdentifier, got {sid.name}")
        elif sid.chosen.native != ee.ski:
            add("SignerInfo.sid", SEC + ".6.2", "want the EE certificate's subjectKeyIdentifier, got another")
        dalg = si["digest_algorithm"]["algorithm"].dotted
        if dalg != OID_SHA256:
            add("SignerInfo.digestAlgorithm", SEC + ".6.3", f"want sha256, got {dalg}")
        salg = si["signature_algorithm"]["algorithm"].dotted
        if salg not in SIG_ALGS:
            add("SignerInfo.signatureAlgorithm", SEC + ".6.5, RFC 7935 section 2",
                f"want rsaEncryption or sha256WithRSAEncryption, got {salg}")
        if not isinstance(si["unsigned_attrs"], core.Void):
            add("SignerInfo.unsignedAttrs", SEC + ".6.7", "want no unsigned attributes")
        # 2.1.6.4 signed attributes
        attrs = si["signed_attrs"]
        if isinstance(attrs, core.Void) or len(attrs) == 0:
            raise ObjectError("want signed attributes, got none", source, check="signedAttrs", rfc=SEC + ".6.4")
        signed_der = b"\x31" + attrs.dump()[1:]  # RFC 5652 section 5.4: the DER of the SET OF
        if ber:  # otherwise checked with the whole object
            decode(cms.CMSAttributes, signed_der, source, "signedAttrs (RFC 6488 section 2.1.6.4)")
        self = cls(content_type=ctype, econtent=econtent, ee=ee, source=source, der=der, ber=ber,
                   signed_attrs_der=signed_der, signature=si["signature"].native, signature_algorithm=salg)
        seen: dict[str, int] = {}
        for attr in attrs:
            oid = attr["type"].dotted
            seen[oid] = seen.get(oid, 0) + 1
            values = list(attr["values"])
            if oid not in ALLOWED_ATTRS:
                add("signedAttrs", SEC + ".6.4", f"want only content-type, message-digest, signing-time and "
                    f"binary-signing-time, got {oid}")
                continue
            if len(values) != 1:
                add("signedAttrs", SEC + ".6.4", f"want exactly one value in attribute {oid}, got {len(values)}")
                continue
            v = values[0]
            if oid == OID_ATTR_CONTENT_TYPE:
                got = v.dotted if isinstance(v, core.ObjectIdentifier) else None
                if got != ctype:
                    add("signedAttrs.content-type", SEC + ".6.4.1",
                        f"want the eContentType {ctype}, got {got}")
            elif oid == OID_ATTR_MESSAGE_DIGEST:
                self.message_digest = bytes(v.native) if isinstance(v.native, bytes) else b""
            elif oid == OID_ATTR_SIGNING_TIME:
                self.signing_time = v.native if isinstance(v.native, datetime) else None
            else:  # RFC 6019: BinaryTime ::= INTEGER (0..MAX), seconds since 1970
                try:
                    val = core.Integer.load(v.dump(), strict=True).native
                except ValueError:
                    val = None
                if not isinstance(val, int) or val < 0:
                    add("signedAttrs.binary-signing-time", "RFC 6019 section 2", "want a non-negative INTEGER")
                self.binary_signing_time = val
        _attribute_counts(seen, add)
        self.problems_found = p
        return self

    @classmethod
    def _read_quick(cls, info: quickcms.ContentInfo, cert_values: list[list], attr_values: list[list[list]], der: bytes,
                    source) -> SignedObject:
        """`_read` from rpki.quickder's decode of `der` (certainly DER): the same checks in the same
        order, the same problems and the same rejections."""
        p: list[tuple[str, str, str]] = []
        add = lambda check, rfc, msg: p.append((check, rfc, msg))  # noqa: E731
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
        # where the EE certificate and the signed attributes lie: ContentInfo > [0] > SignedData >
        # version, digestAlgorithms, encapContentInfo, [0] certificates, signerInfos
        (ci,) = quickder.children(der, 0, len(der))
        sd_at = quickder.inside(der, quickder.inside(der, ci)[1])[0]
        parts = quickder.inside(der, sd_at)
        ee = ResourceCertificate._read_quick(certs[0], cert_values[0], der, quickder.inside(der, parts[3])[0], source)
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
        self = cls(content_type=ctype, econtent=econtent, ee=ee, source=source, der=der,
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


def _attribute_counts(seen: dict, add) -> None:
    """RFC 6488 section 2.1.6.4: each signed attribute once, content-type and message-digest there."""
    for oid, n in seen.items():
        if n > 1:
            add("signedAttrs", SEC + ".6.4", f"want each attribute once, got {oid} {n} times")
    for oid, name in ((OID_ATTR_CONTENT_TYPE, "content-type"), (OID_ATTR_MESSAGE_DIGEST, "message-digest")):
        if oid not in seen:
            add("signedAttrs", SEC + ".6.4", f"want a {name} attribute, got none")
