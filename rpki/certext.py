"""The extensions of a resource certificate (RFC 6487 section 4.8; RFC 8209 section 3.1.3 for BGPsec
router certificates): read into the certificate's fields, and checked against the profile.

`read` fills a certificate's fields from one extension as rpki.quickext decoded it; the RFC 3779
resources go through rpki.resources, which enforces their canonical form, and the URI-bearing
extensions through rpki.certaccess. `problems` lists every failure of section
4.8, in the order of its subsections, naming the check, the RFC section and what was wanted.
"""

from __future__ import annotations

import hashlib

from . import asn1, certaccess
from .certoids import (EXT_AKI, EXT_AS, EXT_BC, EXT_CP, EXT_EKU, EXT_IP, EXT_KU, EXT_SKI, KNOWN_EXTENSIONS,
                       OID_QT_CPS, criticality)
from .resources import as_resources_from_quick, ip_resources_from_quick


def read(cert, oid: str, parsed) -> None:
    """Fill `cert` from the extension `oid` as rpki.quickext decoded its value; the RFC 3779 checks
    raise ObjectError."""
    if oid == EXT_IP:
        cert.ip_resources = ip_resources_from_quick(parsed, cert.source)
    elif oid == EXT_AS:
        cert.as_resources = as_resources_from_quick(parsed, cert.source)
    elif oid == EXT_SKI:
        cert.ski = parsed
    elif oid == EXT_AKI:
        cert.aki = parsed.key_identifier
        cert.aki_has_issuer_serial = (parsed.authority_cert_issuer is not None
                                      or parsed.authority_cert_serial_number is not None)
    elif oid == EXT_BC:
        cert.bc_present = True
        cert.is_ca = parsed.ca
        cert.bc_path_len = parsed.path_len_constraint
    elif oid == EXT_KU:
        cert.key_usage = parsed
    elif oid == EXT_EKU:
        cert.eku = [k.dotted_string for k in parsed]
    elif oid == EXT_CP:
        for pol in parsed:
            cert.policies.append(pol.policy_identifier.dotted_string)
            for q in pol.policy_qualifiers or ():
                cert.policy_qualifiers.append(q.policy_qualifier_id.dotted_string)
    elif oid in certaccess.OIDS:
        certaccess.read(cert, oid, parsed)


def problems(cert, *, ta: bool, ca: bool, router: bool, what: str) -> list[tuple[str, str, str]]:
    """Every failure of RFC 6487 section 4.8 (and RFC 8209 section 3.1.3) as (check, RFC section,
    what was wanted). `ta`, `ca`, `router`: the certificate is a trust anchor, a CA (trust anchor
    or not), a BGPsec router certificate; `what` names its kind."""
    out: list[tuple[str, str, str]] = []
    add = lambda check, rfc, msg: out.append((check, rfc, msg))  # noqa: E731
    seen: dict = {}
    for ext in cert.extensions:
        if ext.oid in seen:
            add("extensions", "RFC 5280 section 4.2", f"want each extension once, got {ext.oid} twice")
        seen[ext.oid] = ext
        if ext.oid not in KNOWN_EXTENSIONS:
            if ext.critical:
                add("extensions", "RFC 5280 section 4.2", f"want no unknown critical extension, got {ext.oid}")
            else:
                add("extensions", "RFC 6487 section 4.8", f"want only the profiled extensions, got {ext.oid}")
    # 4.8.1 basic constraints
    if ca:
        if not cert.bc_present:
            add("basicConstraints", "RFC 6487 section 4.8.1", "want basicConstraints in a CA certificate")
        out += criticality(seen, EXT_BC, True, "basicConstraints", "RFC 6487 section 4.8.1")
        if cert.bc_path_len is not None:
            add("basicConstraints", "RFC 6487 section 4.8.1", "want no pathLenConstraint")
    elif cert.bc_present:
        add("basicConstraints", "RFC 6487 section 4.8.1", "want no basicConstraints in an EE certificate"
            if cert.is_ca is False else "want cA TRUE")
    # 4.8.2 subject key identifier
    if cert.ski is None:
        add("subjectKeyIdentifier", "RFC 6487 section 4.8.2", "want a subjectKeyIdentifier")
    else:
        out += criticality(seen, EXT_SKI, False, "subjectKeyIdentifier", "RFC 6487 section 4.8.2")
        want = hashlib.sha1(cert.key_bits).digest()
        if len(cert.ski) != 20:
            add("subjectKeyIdentifier", "RFC 6487 section 4.8.2", f"want 20 octets, got {len(cert.ski)}")
        elif cert.ski != want:
            add("subjectKeyIdentifier", "RFC 6487 section 4.8.2",
                f"want the SHA-1 of the subject public key {want.hex()}, got {cert.ski.hex()}")
    # 4.8.3 authority key identifier
    if EXT_AKI in seen:
        out += criticality(seen, EXT_AKI, False, "authorityKeyIdentifier", "RFC 6487 section 4.8.3")
        if cert.aki is None:
            add("authorityKeyIdentifier", "RFC 6487 section 4.8.3", "want a keyIdentifier")
        elif len(cert.aki) != 20:
            add("authorityKeyIdentifier", "RFC 6487 section 4.8.3", f"want 20 octets, got {len(cert.aki)}")
        if cert.aki_has_issuer_serial:
            add("authorityKeyIdentifier", "RFC 6487 section 4.8.3",
                "want no authorityCertIssuer or authorityCertSerialNumber")
        if cert.issuer.der == cert.subject.der and cert.aki is not None and cert.aki != cert.ski:
            add("authorityKeyIdentifier", "RFC 6487 section 4.8.3", "want a self-signed certificate's AKI equal to its SKI")
    elif not ta:
        add("authorityKeyIdentifier", "RFC 6487 section 4.8.3", "want an authorityKeyIdentifier (not self-signed)")
    # 4.8.4 key usage
    if EXT_KU not in seen:
        add("keyUsage", "RFC 6487 section 4.8.4", "want a keyUsage extension")
    else:
        out += criticality(seen, EXT_KU, True, "keyUsage", "RFC 6487 section 4.8.4")
        want_ku = {"key_cert_sign", "crl_sign"} if ca else {"digital_signature"}
        if set(cert.key_usage) != want_ku:
            add("keyUsage", "RFC 6487 section 4.8.4", f"want exactly {sorted(want_ku)}, got {sorted(cert.key_usage)}")
    # 4.8.5 extended key usage; RFC 8209 section 3.1.3.2
    if EXT_EKU in seen:
        if ca:
            add("extendedKeyUsage", "RFC 6487 section 4.8.5", "want no extendedKeyUsage in a CA certificate")
        out += criticality(seen, EXT_EKU, False, "extendedKeyUsage", "RFC 8209 section 3.1.3.2")
    # 4.8.6 to 4.8.8: CRLDP, AIA, SIA
    out += certaccess.problems(cert, seen, ta=ta, ca=ca, router=router, what=what)
    # 4.8.9 certificate policies
    if EXT_CP not in seen:
        add("certificatePolicies", "RFC 6487 section 4.8.9", "want a certificatePolicies extension")
    else:
        out += criticality(seen, EXT_CP, True, "certificatePolicies", "RFC 6487 section 4.8.9")
        if cert.policies != [asn1.OID_CP_RPKI]:
            add("certificatePolicies", "RFC 6487 section 4.8.9",
                f"want exactly one policy {asn1.OID_CP_RPKI}, got {cert.policies}")
        if any(q != OID_QT_CPS for q in cert.policy_qualifiers):
            add("certificatePolicies", "RFC 7318 section 2", "want only the CPS policy qualifier")
    # 4.8.10, 4.8.11 resources; RFC 8209 sections 3.1.3.4, 3.1.3.5
    for oid, name, sec in ((EXT_IP, "ipAddrBlocks", "4.8.10"), (EXT_AS, "autonomousSysIds", "4.8.11")):
        out += criticality(seen, oid, True, name, f"RFC 6487 section {sec}")
    if router:
        if cert.ip_resources is not None:
            add("ipAddrBlocks", "RFC 8209 section 3.1.3.4", "want no IP resources in a BGPsec router certificate")
        if cert.as_resources is None or cert.as_resources.inherit:
            add("autonomousSysIds", "RFC 8209 section 3.1.3.5", "want explicit AS resources in a router certificate")
    elif cert.ip_resources is None and cert.as_resources is None:
        add("resources", "RFC 6487 section 4.8.10", "want an IP or AS resource extension, got neither")
    if ta and ((cert.ip_resources and cert.ip_resources.inherit) or (cert.as_resources and cert.as_resources.inherit)):
        add("resources", "RFC 8630 section 2.3", "want no 'inherit' in a trust anchor certificate")
    return out
