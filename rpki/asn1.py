"""ASN.1 schemas for RPKI that asn1crypto (1.5.1) lacks, and their registration, for writing objects
(rpki.build, the CA); reading is rpki.quickder's.

asn1crypto ships CMS (RFC 5652), X.509 (RFC 5280), CRLs, CSRs, keys and algorithms. Defined here:
RFC 3779 IPAddrBlocks and ASIdentifiers, the RFC 9582 ROA, the RFC 9286 Manifest, and ASPA in the
current profile (draft-ietf-sidrops-aspa-profile, version 1, providers a SEQUENCE OF ASID) and the
older one (draft 13 and before: providers carry an optional AFI limit).

Importing this module registers the content types (so a CMS eContent of those types decodes), the
certificate extensions (so `.native` of a certificate shows resources) and the RPKI access methods.
"""

from __future__ import annotations

from asn1crypto import cms, core, x509

# ---- object identifiers --------------------------------------------------------------------------
OID_SIGNED_DATA = "1.2.840.113549.1.7.2"
OID_CT_ROA = "1.2.840.113549.1.9.16.1.24"  # RFC 9582 section 3
OID_CT_MANIFEST = "1.2.840.113549.1.9.16.1.26"  # RFC 9286 section 4.1
OID_CT_GBR = "1.2.840.113549.1.9.16.1.35"  # RFC 6493 section 3.1
OID_CT_ASPA = "1.2.840.113549.1.9.16.1.49"  # draft-ietf-sidrops-aspa-profile section 2
OID_IP_ADDR_BLOCKS = "1.3.6.1.5.5.7.1.7"  # RFC 3779 section 2.2.1
OID_AS_IDENTIFIERS = "1.3.6.1.5.5.7.1.8"  # RFC 3779 section 3.2.1
OID_AD_CA_ISSUERS = "1.3.6.1.5.5.7.48.2"
OID_AD_CA_REPOSITORY = "1.3.6.1.5.5.7.48.5"
OID_AD_RPKI_MANIFEST = "1.3.6.1.5.5.7.48.10"  # RFC 6487 section 4.8.8.1
OID_AD_SIGNED_OBJECT = "1.3.6.1.5.5.7.48.11"  # RFC 6487 section 4.8.8.2
OID_AD_RPKI_NOTIFY = "1.3.6.1.5.5.7.48.13"  # RFC 8182 section 3.2
OID_CP_RPKI = "1.3.6.1.5.5.7.14.2"  # RFC 6484 section 1.2
OID_KP_BGPSEC_ROUTER = "1.3.6.1.5.5.7.3.30"  # RFC 8209 section 3.1.3.2
OID_SHA256_WITH_RSA = "1.2.840.113549.1.1.11"  # RFC 7935 section 2
OID_RSA = "1.2.840.113549.1.1.1"  # RFC 7935 section 3
OID_EC_PUBLIC_KEY = "1.2.840.10045.2.1"  # RFC 8608 section 3.1
OID_SECP256R1 = "1.2.840.10045.3.1.7"


# ---- RFC 3779 section 2.2.3: IP address delegation -----------------------------------------------
class IPAddress(core.BitString):
    pass


class IPAddressRange(core.Sequence):
    _fields = [("min", IPAddress), ("max", IPAddress)]


class IPAddressOrRange(core.Choice):
    _alternatives = [("addressPrefix", IPAddress), ("addressRange", IPAddressRange)]


class IPAddressesOrRanges(core.SequenceOf):
    _child_spec = IPAddressOrRange


class IPAddressChoice(core.Choice):
    _alternatives = [("inherit", core.Null), ("addressesOrRanges", IPAddressesOrRanges)]


class IPAddressFamily(core.Sequence):
    _fields = [("addressFamily", core.OctetString), ("ipAddressChoice", IPAddressChoice)]


class IPAddrBlocks(core.SequenceOf):
    _child_spec = IPAddressFamily


# ---- RFC 3779 section 3.2.3: AS identifier delegation --------------------------------------------
class ASRange(core.Sequence):
    _fields = [("min", core.Integer), ("max", core.Integer)]


class ASIdOrRange(core.Choice):
    _alternatives = [("id", core.Integer), ("range", ASRange)]


class ASIdsOrRanges(core.SequenceOf):
    _child_spec = ASIdOrRange


class ASIdentifierChoice(core.Choice):
    _alternatives = [("inherit", core.Null), ("asIdsOrRanges", ASIdsOrRanges)]


class ASIdentifiers(core.Sequence):
    _fields = [
        ("asnum", ASIdentifierChoice, {"explicit": 0, "optional": True}),
        ("rdi", ASIdentifierChoice, {"explicit": 1, "optional": True}),
    ]


# ---- RFC 9582 section 4: Route Origin Authorization eContent -------------------------------------
class ROAIPAddress(core.Sequence):
    _fields = [("address", IPAddress), ("maxLength", core.Integer, {"optional": True})]


class ROAIPAddresses(core.SequenceOf):
    _child_spec = ROAIPAddress


class ROAIPAddressFamily(core.Sequence):
    _fields = [("addressFamily", core.OctetString), ("addresses", ROAIPAddresses)]


class ROAIPAddressFamilies(core.SequenceOf):
    _child_spec = ROAIPAddressFamily


class RouteOriginAttestation(core.Sequence):
    _fields = [
        ("version", core.Integer, {"explicit": 0, "default": 0}),
        ("asID", core.Integer),
        ("ipAddrBlocks", ROAIPAddressFamilies),
    ]


# ---- RFC 9286 section 4.2: Manifest eContent -----------------------------------------------------
class FileAndHash(core.Sequence):
    _fields = [("file", core.IA5String), ("hash", core.BitString)]


class FileList(core.SequenceOf):
    _child_spec = FileAndHash


class Manifest(core.Sequence):
    _fields = [
        ("version", core.Integer, {"explicit": 0, "default": 0}),
        ("manifestNumber", core.Integer),
        ("thisUpdate", core.GeneralizedTime),
        ("nextUpdate", core.GeneralizedTime),
        ("fileHashAlg", core.ObjectIdentifier),
        ("fileList", FileList),
    ]


# ---- ASPA, current profile (draft-ietf-sidrops-aspa-profile section 3) --------------------------
class ASIDs(core.SequenceOf):
    _child_spec = core.Integer


class ASProviderAttestation(core.Sequence):
    _fields = [
        ("version", core.Integer, {"explicit": 0, "default": 0}),  # the profile: MUST be 1
        ("customerASID", core.Integer),
        ("providers", ASIDs),
    ]


# ---- ASPA, older profile (draft 13 and before): providers limited to an AFI ----------------------
class ProviderAS(core.Sequence):
    _fields = [("providerASID", core.Integer), ("afiLimit", core.OctetString, {"optional": True})]


class ProviderASSeq(core.SequenceOf):
    _child_spec = ProviderAS


class ASProviderAttestationV0(core.Sequence):
    _fields = [
        ("version", core.Integer, {"explicit": 0, "default": 0}),
        ("customerASID", core.Integer),
        ("providers", ProviderASSeq),
    ]


# ---- registration ---------------------------------------------------------------------------------
# eContent types: cms.EncapsulatedContentInfo picks the spec of `content` from its content type name.
# The ASPA OID is registered with the current profile; the old profile is decoded explicitly.
ECONTENT_SPECS = {
    OID_CT_ROA: ("route_origin_authz", RouteOriginAttestation),
    OID_CT_MANIFEST: ("rpki_manifest", Manifest),
    OID_CT_ASPA: ("rpki_aspa", ASProviderAttestation),
}
EXTENSION_SPECS = {
    OID_IP_ADDR_BLOCKS: ("sbgp_ip_addr_block", IPAddrBlocks),
    OID_AS_IDENTIFIERS: ("sbgp_autonomous_sys_num", ASIdentifiers),
}
ACCESS_METHODS = {
    OID_AD_RPKI_MANIFEST: "rpki_manifest",
    OID_AD_SIGNED_OBJECT: "signed_object",
    OID_AD_RPKI_NOTIFY: "rpki_notify",
}


def _register() -> None:
    # asn1crypto has no public way to add an OID: its classes' _map and _oid_specs are the extension
    # point its maintainers point users to (wbond/asn1crypto#200, #259); asn1crypto is pinned exactly.
    for oid, (name, spec) in ECONTENT_SPECS.items():
        cms.ContentType._map.setdefault(oid, name)
        cms.ContentType._reverse_map = None
        cms.EncapsulatedContentInfo._oid_specs[name] = spec
    cms.ContentType._map.setdefault(OID_CT_GBR, "rpki_ghostbusters")
    for oid, (name, spec) in EXTENSION_SPECS.items():
        x509.ExtensionId._map.setdefault(oid, name)
        x509.ExtensionId._reverse_map = None
        x509.Extension._oid_specs[name] = spec
    for oid, name in ACCESS_METHODS.items():
        x509.AccessMethod._map.setdefault(oid, name)
    x509.AccessMethod._reverse_map = None


_register()
