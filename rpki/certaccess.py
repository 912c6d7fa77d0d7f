"""Where a resource certificate points: its issuer's CRL (cRLDistributionPoints, RFC 6487 section
4.8.6), its issuer's certificate (authorityInfoAccess, section 4.8.7) and its own publication point,
manifest or signed object (subjectInfoAccess, section 4.8.8).

`read` fills a certificate's `crldp`, `aia` and `sia` from one extension as rpki.quickext decoded
it; a URI is the text of its IA5String. What
the profile forbids inside the extension (reasons, cRLIssuer, other access methods) is noted in
`crldp_problems` and `aia_problems` when read and reported by `problems` with the other failures.
"""

from __future__ import annotations

from . import asn1
from .certoids import EXT_AIA, EXT_CRLDP, EXT_SIA, criticality

OIDS = frozenset({EXT_CRLDP, EXT_AIA, EXT_SIA})


def read(cert, oid: str, parsed) -> None:
    """Fill `cert` from the extension `oid` as rpki.quickext decoded its value: each
    DistributionPoint as (its fullName's URIs or None, reasons, cRLIssuer), each AccessDescription as
    (method, (kind, value))."""
    if oid == EXT_CRLDP:
        for uris, reasons, crl_issuer in parsed:
            if reasons:
                cert.crldp_problems.append("want no reasons in a DistributionPoint")
            if crl_issuer:
                cert.crldp_problems.append("want no cRLIssuer in a DistributionPoint")
            if uris is None:
                cert.crldp_problems.append("want a distributionPoint with a fullName")
            else:
                cert.crldp += uris
    elif oid == EXT_AIA:
        for method, (kind, value) in parsed:
            if method != asn1.OID_AD_CA_ISSUERS:
                cert.aia_problems.append(f"want only id-ad-caIssuers, got {method}")
            elif kind == "uri":
                cert.aia.append(value)
    elif oid == EXT_SIA:
        for method, (kind, value) in parsed:
            uris = cert.sia.setdefault(method, [])
            if kind == "uri":
                uris.append(value)


def problems(cert, seen: dict, *, ta: bool, ca: bool, router: bool, what: str) -> list[tuple[str, str, str]]:
    """The failures of RFC 6487 sections 4.8.6 to 4.8.8, as (check, RFC section, what was wanted).
    `seen`: the extensions present by OID; `ta`, `ca`, `router`: the certificate is a trust anchor,
    a CA (trust anchor or not), a BGPsec router certificate; `what` names its kind."""
    out: list[tuple[str, str, str]] = []
    # 4.8.6 and 4.8.7: where the issuer's CRL and certificate are; a self-signed certificate has neither
    for ext, check, rfc, short, found, uris, want in (
            (EXT_CRLDP, "cRLDistributionPoints", "RFC 6487 section 4.8.6", "CRLDP", cert.crldp_problems,
             cert.crldp, "an rsync URI"),
            (EXT_AIA, "authorityInfoAccess", "RFC 6487 section 4.8.7", "AIA", cert.aia_problems, cert.aia,
             "a caIssuers rsync URI")):
        if ta:
            if ext in seen:
                out.append((check, rfc, f"want no {short} in a self-signed certificate"))
        elif ext not in seen:
            out.append((check, rfc, f"want the {check} extension"))
        else:
            out += criticality(seen, ext, False, check, rfc)
            out += [(check, rfc, msg) for msg in found]
            if not _has_rsync(uris):
                out.append((check, rfc, f"want {want}, got {uris}"))
    return out + _sia_problems(cert, seen, ca, router, what)


def _sia_problems(cert, seen: dict, ca: bool, router: bool, what: str) -> list[tuple[str, str, str]]:
    """RFC 6487 section 4.8.8: a CA's repository and manifest (4.8.8.1), an EE certificate's signed
    object (4.8.8.2), rsync URIs each, and no other access method but RRDP's notification (RFC 8182
    section 3.2); a BGPsec router certificate need not have one (RFC 8209 section 3.1.3)."""
    rfc = "RFC 6487 section 4.8.8"
    if EXT_SIA not in seen:
        return [] if router else [("subjectInfoAccess", rfc, "want a subjectInfoAccess extension")]
    out = criticality(seen, EXT_SIA, False, "subjectInfoAccess", rfc)
    if ca:
        allowed = {asn1.OID_AD_CA_REPOSITORY, asn1.OID_AD_RPKI_MANIFEST, asn1.OID_AD_RPKI_NOTIFY}
        for method, label in ((asn1.OID_AD_CA_REPOSITORY, "id-ad-caRepository"),
                              (asn1.OID_AD_RPKI_MANIFEST, "id-ad-rpkiManifest")):
            uris = cert.sia.get(method, [])
            if not _has_rsync(uris):
                out.append(("subjectInfoAccess", rfc + ".1", f"want an rsync URI for {label}, got {uris}"))
    else:
        allowed = {asn1.OID_AD_SIGNED_OBJECT, asn1.OID_AD_RPKI_NOTIFY}
        uris = cert.sia.get(asn1.OID_AD_SIGNED_OBJECT, [])
        if not _has_rsync(uris):
            out.append(("subjectInfoAccess", rfc + ".2", f"want an rsync URI for id-ad-signedObject, got {uris}"))
    for method in cert.sia:
        if method not in allowed:
            out.append(("subjectInfoAccess", rfc, f"want only RPKI access methods for a {what}, got {method}"))
    return out


def _has_rsync(uris: list[str]) -> bool:
    return any(u.startswith("rsync://") for u in uris)
