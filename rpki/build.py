"""DER encoding and signing of RPKI objects: the issuing side of rpki.cert, rpki.crl, rpki.cms,
rpki.roa, rpki.manifest, rpki.aspa and rpki.tal.

Profile (the choices rpki-client 8.2 accepts, ../shared/docs/ORACLES.md): RSA-2048 keys and
sha256WithRSAEncryption (RFC 7935); certificate policy 1.3.6.1.5.5.7.14.2 critical; RFC 3779
extensions critical; a trust anchor without AIA, CRLDP and AKI; CMS version 3 with the signer named
by SKI and signed attributes content-type, message-digest and signing-time (RFC 6488). Signatures are
RSA PKCS #1 v1.5, deterministic given the key, so the same inputs give the same bytes.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timezone

from asn1crypto import cms, core, crl, keys, x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

from . import asn1
from .quickcms import OID_SHA256
from .resources import AsResources, IpResources, _ip_address, encode_as_extension, encode_ip_extension

SIG_ALG = {"algorithm": "sha256_rsa", "parameters": core.Null()}


# A SignedData written with the eContent as given octets: the payload was encoded on its own, so an
# ASPA in either profile or an unknown type writes the same way.
class _EncapOpaque(cms.EncapsulatedContentInfo):
    _oid_specs: dict = {}


class _SignedData(cms.SignedData):
    _spec_callbacks = {"encap_content_info": lambda self: _EncapOpaque}


# ---- keys -----------------------------------------------------------------------------------------
def new_rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def new_router_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def key_pem(key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def load_key_pem(data: bytes):
    return serialization.load_pem_private_key(data, password=None)


def spki_der(key) -> bytes:
    """The DER SubjectPublicKeyInfo of a private (or public) key."""
    pub = key.public_key() if hasattr(key, "public_key") else key
    return pub.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def ski_of(spki: bytes) -> bytes:
    """RFC 6487 section 4.8.2: the SHA-1 of the subjectPublicKey BIT STRING contents."""
    return ski_of_key(serialization.load_der_public_key(spki))


def ski_of_key(key) -> bytes:
    """`ski_of` from a key (private or public): the BIT STRING holds an RSA key's RSAPublicKey DER and
    an EC key's uncompressed point (RFC 5480 section 2.2), so no SubjectPublicKeyInfo is parsed."""
    pub = key.public_key() if hasattr(key, "public_key") else key
    if isinstance(pub, ec.EllipticCurvePublicKey):
        bits = pub.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    else:
        bits = pub.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.PKCS1)
    return hashlib.sha1(bits).digest()


def sign(key: rsa.RSAPrivateKey, data: bytes) -> bytes:
    return key.sign(data, padding.PKCS1v15(), hashes.SHA256())


# ---- times and names ------------------------------------------------------------------------------
def utc(dt: datetime) -> datetime:
    return dt.astimezone(timezone.utc).replace(microsecond=0)


def x509_time(dt: datetime) -> x509.Time:
    """RFC 5280 section 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050."""
    dt = utc(dt)
    return x509.Time(name="utc_time" if dt.year < 2050 else "general_time", value=dt)


def name(common_name: str, serial_number: str | None = None) -> x509.Name:
    """RFC 6487 section 4.4: CommonName (and serialNumber), PrintableString."""
    d = {"common_name": common_name}
    if serial_number:
        d["serial_number"] = serial_number
    return x509.Name.build(d, use_printable=True)


# ---- certificates ---------------------------------------------------------------------------------
@dataclass
class CertSpec:
    """What a CA sets in a certificate it issues (RFC 6487 section 4, RFC 8209 for routers)."""

    serial: int
    subject: x509.Name
    issuer: x509.Name
    spki: bytes
    not_before: datetime
    not_after: datetime
    kind: str  # "ta", "ca", "ee", "router"
    issuer_ski: bytes | None = None
    ip: IpResources | None = None
    asn: AsResources | None = None
    crldp: str | None = None  # the issuer's CRL
    aia: str | None = None  # the issuer's certificate
    sia: list[tuple[str, str]] = field(default_factory=list)  # (access method OID, rsync URI)


def _ext(oid: str, value, critical: bool = False) -> x509.Extension:
    d = {"extn_id": oid, "extn_value": value}
    if critical:
        d["critical"] = True
    return x509.Extension(d)


def _gn(uri: str) -> x509.GeneralName:
    return x509.GeneralName(name="uniform_resource_identifier", value=uri)


def certificate(spec: CertSpec, issuer_key: rsa.RSAPrivateKey) -> bytes:
    """Encode and sign a resource certificate; return its DER."""
    ca = spec.kind in ("ta", "ca")
    exts = []
    if ca:
        exts.append(_ext("basic_constraints", x509.BasicConstraints({"ca": True}), True))
    exts.append(_ext("key_identifier", core.OctetString(ski_of(spec.spki))))
    if spec.kind != "ta":
        exts.append(_ext("authority_key_identifier", x509.AuthorityKeyIdentifier({"key_identifier": spec.issuer_ski})))
    exts.append(_ext("key_usage", x509.KeyUsage({"key_cert_sign", "crl_sign"} if ca else {"digital_signature"}),
                     True))
    if spec.kind == "router":
        exts.append(_ext("extended_key_usage", x509.ExtKeyUsageSyntax([asn1.OID_KP_BGPSEC_ROUTER])))
    if spec.kind != "ta":
        exts.append(_ext("crl_distribution_points", x509.CRLDistributionPoints([
            {"distribution_point": x509.DistributionPointName(name="full_name", value=[_gn(spec.crldp)])}])))
        exts.append(_ext("authority_information_access", x509.AuthorityInfoAccessSyntax([
            {"access_method": "ca_issuers", "access_location": _gn(spec.aia)}])))
    if spec.sia:
        exts.append(_ext("subject_information_access", x509.SubjectInfoAccessSyntax([
            {"access_method": m, "access_location": _gn(u)} for m, u in spec.sia])))
    exts.append(_ext("certificate_policies", x509.CertificatePolicies([{"policy_identifier": asn1.OID_CP_RPKI}]),
                     True))
    if spec.ip is not None:
        exts.append(_ext(asn1.OID_IP_ADDR_BLOCKS, asn1.IPAddrBlocks.load(encode_ip_extension(spec.ip)), True))
    if spec.asn is not None:
        exts.append(_ext(asn1.OID_AS_IDENTIFIERS, asn1.ASIdentifiers.load(encode_as_extension(spec.asn)), True))
    tbs = x509.TbsCertificate({
        "version": "v3",
        "serial_number": spec.serial,
        "signature": SIG_ALG,
        "issuer": spec.issuer,
        "validity": {"not_before": x509_time(spec.not_before), "not_after": x509_time(spec.not_after)},
        "subject": spec.subject,
        "subject_public_key_info": keys.PublicKeyInfo.load(spec.spki),
        "extensions": exts,
    })
    tbs_der = tbs.dump(force=True)
    cert = x509.Certificate({"tbs_certificate": x509.TbsCertificate.load(tbs_der), "signature_algorithm": SIG_ALG,
                             "signature_value": sign(issuer_key, tbs_der)})
    return cert.dump(force=True)


# ---- CRL --------------------------------------------------------------------------------------------
def crl_der(issuer: x509.Name, issuer_ski: bytes, number: int, this_update: datetime, next_update: datetime,
            revoked: dict[int, datetime], key: rsa.RSAPrivateKey) -> bytes:
    """RFC 6487 section 5: v2, AKI and CRLNumber only, no entry extensions."""
    tbs = {
        "version": "v2",
        "signature": SIG_ALG,
        "issuer": issuer,
        "this_update": x509_time(this_update),
        "next_update": x509_time(next_update),
        "crl_extensions": [
            {"extn_id": "authority_key_identifier", "extn_value": {"key_identifier": issuer_ski}},
            {"extn_id": "crl_number", "extn_value": number},
        ],
    }
    if revoked:
        tbs["revoked_certificates"] = [{"user_certificate": s, "revocation_date": x509_time(t)}
                                       for s, t in sorted(revoked.items())]
    tbs_der = crl.TbsCertList(tbs).dump(force=True)
    value = crl.CertificateList({"tbs_cert_list": crl.TbsCertList.load(tbs_der), "signature_algorithm": SIG_ALG,
                                 "signature": sign(key, tbs_der)})
    return value.dump(force=True)


# ---- signed objects (RFC 6488) ----------------------------------------------------------------------
def signed_object(content_type: str, econtent: bytes, ee_der: bytes, ee_key: rsa.RSAPrivateKey,
                  signing_time: datetime) -> bytes:
    attrs = [
        cms.CMSAttribute({"type": "content_type", "values": [content_type]}),
        cms.CMSAttribute({"type": "message_digest", "values": [hashlib.sha256(econtent).digest()]}),
        cms.CMSAttribute({"type": "signing_time", "values": [cms.Time(
            name="utc_time" if utc(signing_time).year < 2050 else "generalized_time", value=utc(signing_time))]}),
    ]
    attrs.sort(key=lambda a: a.dump(force=True))  # DER: SET OF sorted by encoding
    signed = cms.CMSAttributes(attrs)
    set_der = signed.dump(force=True)  # tag 0x31: what the signature covers (RFC 5652 section 5.4)
    ee = x509.Certificate.load(ee_der)
    ski = ee["tbs_certificate"]["extensions"]
    ski = next(e["extn_value"].parsed.native for e in ski if e["extn_id"].native == "key_identifier")
    sd = {
        "version": "v3",
        "digest_algorithms": [{"algorithm": OID_SHA256}],
        "encap_content_info": {"content_type": content_type, "content": core.ParsableOctetString(econtent)},
        "certificates": [ee],
        "signer_infos": [{
            "version": "v3",
            "sid": cms.SignerIdentifier(name="subject_key_identifier", value=ski),
            "digest_algorithm": {"algorithm": OID_SHA256},
            "signed_attrs": cms.CMSAttributes.load(set_der),
            "signature_algorithm": {"algorithm": asn1.OID_RSA},
            "signature": sign(ee_key, set_der),
        }],
    }
    info = cms.ContentInfo({"content_type": "signed_data", "content": _SignedData(sd)})
    return info.dump(force=True)


def roa_econtent(asn: int, prefixes) -> bytes:
    """RFC 9582 section 4 in the canonical form of 4.3.3: IPv4 first, sorted, no duplicates.
    `prefixes`: (ipaddress network, maxLength or None)."""
    fams = []
    for ver, afi in ((4, b"\x00\x01"), (6, b"\x00\x02")):
        items = sorted({(int(n.network_address), n.prefixlen, ml) for n, ml in prefixes if n.version == ver},
                       key=lambda t: (t[0], t[1], -1 if t[2] is None else t[2]))
        if not items:
            continue
        width = 32 if ver == 4 else 128
        addrs = []
        for value, plen, ml in items:
            d = {"address": _ip_address(value, plen, width)}
            if ml is not None:
                d["maxLength"] = ml
            addrs.append(asn1.ROAIPAddress(d))
        fams.append(asn1.ROAIPAddressFamily({"addressFamily": afi, "addresses": addrs}))
    return asn1.RouteOriginAttestation({"asID": asn, "ipAddrBlocks": fams}).dump(force=True)


def aspa_econtent(customer: int, providers, profile: str = "current") -> bytes:
    """draft-ietf-sidrops-aspa-profile section 3 (version 1, providers as ASIDs); or, for `draft-13`,
    the older profile rpki-client 8.2 reads (version 0, the DEFAULT, so absent; providers as ProviderAS
    without afiLimit)."""
    provs = sorted(set(providers))
    if profile == "draft-13":
        return asn1.ASProviderAttestationV0({"customerASID": customer,
                                             "providers": [{"providerASID": p} for p in provs]}).dump(force=True)
    return asn1.ASProviderAttestation({"version": 1, "customerASID": customer, "providers": provs}).dump(force=True)


def manifest_econtent(number: int, this_update: datetime, next_update: datetime, hashes: dict[str, bytes]) -> bytes:
    """RFC 9286 section 4.2; `hashes`: file name -> its SHA-256."""
    file_list = [asn1.FileAndHash({"file": n, "hash": core.BitString.load(b"\x03\x21\x00" + h)})
                 for n, h in sorted(hashes.items())]
    return asn1.Manifest({
        "manifestNumber": number,
        "thisUpdate": core.GeneralizedTime(utc(this_update)),
        "nextUpdate": core.GeneralizedTime(utc(next_update)),
        "fileHashAlg": OID_SHA256,
        "fileList": file_list,
    }).dump(force=True)


def tal_text(uri: str, spki: bytes) -> str:
    b64 = base64.b64encode(spki).decode()
    return uri + "\n\n" + "\n".join(b64[i:i + 64] for i in range(0, len(b64), 64)) + "\n"
