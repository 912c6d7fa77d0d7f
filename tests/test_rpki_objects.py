"""RPKI certificates, CRLs, TALs and RFC 3779 resources: parse, DER gate and profile checks.

(a) the rpki-rs certificates and CRLs parse, pass the RFC 6487 / RFC 8209 profile and verify against
    their issuers; (b) the BBN conformance suite (certificates and CRLs): every good* is accepted and
    every bad* rejected with a reason; (c) the shared TALs parse, a broken key is a clear error;
    (d) truncated, garbage and mutated DER raise only the project's ObjectError.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgpsim.rpki.cert import Kind, ResourceCertificate
from bgpsim.rpki.crl import Crl
from bgpsim.rpki.errors import DERError, ObjectError
from bgpsim.rpki.resources import (
    AsResources,
    IpResources,
    decode_as_extension,
    decode_ip_extension,
    encode_as_extension,
    encode_ip_extension,
)
from bgpsim.rpki.tal import Tal
from helpers import expect_verdict, mutate
from rpki_data import CONF, CONFORMANCE_TIME, DATA, RPKI_RS, need

TALS = DATA / "rpki" / "tal"


def load_cert(path: Path) -> ResourceCertificate:
    return ResourceCertificate.parse(path.read_bytes(), str(path))


# ---- (a) rpki-rs -------------------------------------------------------------------------------------
def test_rpki_rs_chain():
    """ta.cer (self-signed) -> ca1.cer, and the CRLs of both, at times inside their validity."""
    ta = load_cert(need(RPKI_RS / "ta.cer"))
    ca1 = load_cert(RPKI_RS / "ca1.cer")
    assert ta.kind is Kind.TA and ca1.kind is Kind.CA
    ta.check_profile(at=ta.not_before)
    ca1.check_profile(at=ca1.not_before)
    ta.check_issued_by(ta)
    ca1.check_issued_by(ta)
    assert str(ta.ip_resources) == "0.0.0.0/0, ::/0" and str(ta.as_resources) == "0-4294967295"
    for name, issuer, count in (("ta.crl", ta, 6), ("ca1.crl", ca1, 163)):
        crl = Crl.parse((RPKI_RS / name).read_bytes(), name)
        crl.check_profile(at=crl.this_update)
        crl.check_issued_by(issuer)
        assert len(crl.revoked) == count


def test_a_certificate_key_is_loaded_once_and_not_pickled():
    """The key is kept for the bytes it was loaded from: another key's bytes give another key; a
    certificate pickled to a worker leaves the (unpicklable) key behind and loads it there."""
    import pickle

    ta, ca1 = load_cert(need(RPKI_RS / "ta.cer")), load_cert(RPKI_RS / "ca1.cer")
    key = ta.public_key()
    assert ta.public_key() is key
    copy = pickle.loads(pickle.dumps(ta))
    assert copy == ta and copy.public_key() is not key
    assert copy.public_key().public_numbers() == key.public_numbers()
    ca1.check_issued_by(copy)
    ta.public_key_info = ca1.public_key_info
    assert ta.public_key().public_numbers() == ca1.public_key().public_numbers()


def test_rpki_rs_router_certificate():
    """RFC 8209: EKU id-kp-bgpsec-router, AS resources only, ECDSA P-256 key.

    Its issuer is not in the data, so no signature check. The file legitimately fails one RFC 6487
    check: its subject CommonName is a UTF8String ("ROUTER-..."), where RFC 6487 section 4.5 (which
    RFC 8209 section 3.1.1 keeps) wants PrintableString. rpki-rs made it by hand for its own tests.
    """
    router = load_cert(need(RPKI_RS / "router.cer"))
    assert router.kind is Kind.ROUTER
    assert router.ip_resources is None
    assert str(router.as_resources) == "3000-9001, 199664"
    problems = router.problems(at=router.not_before)
    assert [(c, r) for c, r, _ in problems] == [("subject", "RFC 6487 section 4.5")]
    assert "UTF8String" in problems[0][2]


def test_rpki_rs_all_certificates_and_crls_are_covered():
    """Every .cer/.crl in rpki-rs is exercised by one of the two tests above."""
    files = {p.name for p in need(RPKI_RS).iterdir() if p.suffix in (".cer", ".crl")}
    assert files == {"ta.cer", "ca1.cer", "router.cer", "ta.crl", "ca1.crl"}


# ---- (b) the conformance suite ---------------------------------------------------------------------
def conformance_files() -> list[Path]:
    if not CONF.exists():
        return []
    files = [p for p in CONF.rglob("*") if p.suffix in (".cer", ".crl") and p.name.startswith(("good", "bad"))]
    return sorted(files, key=lambda p: str(p.relative_to(CONF)))


# Files whose label we do not follow in this step, and why. None today: every good*/bad* certificate
# and CRL gets the verdict its name says. Two labels are arguable and noted here:
# - goodCertCRLDP2DistPt.cer: two DistributionPoints (rsync and http). We accept it as labelled (one
#   must carry an rsync URI); rpki-client 8.2 wants exactly one.
# - badCRLNextUpdatePast.crl: the README says "STALE CRL, maybe OK". A stale CRL is rejected here
#   because check_profile() is given an evaluation time; without one it passes.
XFAIL: dict[str, str] = {}
# EE certificates of the conformance suite exist only inside CMS objects (ROA/MFT/GBR): they come with
# the CMS wrapper in the next step.


def issuer_of(path: Path) -> Path:
    """root.cer issues root/*.cer; root/<Test>.cer issues root/<Test>/*.crl and the NAM goodCertMatch."""
    if path.name.startswith(("goodRoot", "badRoot")):
        return path
    if path.parent == CONF / "root":
        return CONF / "root.cer"
    return path.parent.parent / f"{path.parent.name}.cer"


def judge(path: Path) -> None:
    issuer = ResourceCertificate.parse(issuer_of(path).read_bytes(), str(issuer_of(path)))
    if path.suffix == ".cer":
        obj = ResourceCertificate.parse(path.read_bytes(), path.name)
        obj.check_profile(at=CONFORMANCE_TIME)
        obj.check_issued_by(obj if path.name.startswith(("goodRoot", "badRoot")) else issuer)
    else:
        obj = Crl.parse(path.read_bytes(), path.name)
        obj.check_profile(at=CONFORMANCE_TIME)
        obj.check_issued_by(issuer)


@pytest.mark.parametrize("path", conformance_files(), ids=lambda p: str(p.relative_to(CONF)))
def test_conformance(path: Path):
    expect_verdict(path, judge, ObjectError, XFAIL, CONF)


def test_conformance_present():
    need(CONF)
    files = conformance_files()
    assert sum(p.name.startswith("good") for p in files) == 29
    assert sum(p.name.startswith("bad") for p in files) == 137


def test_conformance_root_is_a_trust_anchor():
    root = load_cert(need(CONF / "root.cer"))
    assert root.kind is Kind.TA
    root.check_profile(at=CONFORMANCE_TIME)
    root.check_issued_by(root)


def test_conformance_rejections_cite_rfc():
    need(CONF)
    with pytest.raises(ObjectError) as err:
        judge(CONF / "root" / "badCertKUsageNoCRLSign.cer")
    assert err.value.check == "keyUsage" and err.value.rfc == "RFC 6487 section 4.8.4"
    with pytest.raises(DERError) as err:
        judge(CONF / "root" / "CRLIssuerSet2SerNums" / "badCRLIssuerSet2SerNums.crl")
    assert err.value.offset == 30  # the RDN SET OF is out of DER order there


# ---- (c) TALs ---------------------------------------------------------------------------------------
def tal_files() -> list[Path]:
    files = sorted(TALS.rglob("*.tal")) if TALS.exists() else []
    return files + ([RPKI_RS / "ripe.tal"] if (RPKI_RS / "ripe.tal").exists() else [])


@pytest.mark.parametrize("path", tal_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_tal_parses(path: Path):
    tal = Tal.load(path)
    assert tal.uris and all(u.startswith(("rsync://", "https://")) for u in tal.uris)
    tal.public_key()


def test_tals_present():
    assert len(tal_files()) >= 14 or pytest.skip(f"{TALS} is absent or incomplete")


def test_ripe_tal_matches_rpki_rs_trust_anchor():
    tal = Tal.load(need(TALS / "routinator" / "ripe.tal"))
    assert tal.matches(load_cert(need(RPKI_RS / "ta.cer")))


def test_tal_broken_key():
    text = need(TALS / "fort" / "ripe-ncc.tal").read_text()
    head, _, key = text.partition("\n\n")
    der = base64.b64decode("".join(key.split()))
    truncated = head + "\n\n" + base64.b64encode(der[:-20]).decode() + "\n"
    with pytest.raises(DERError, match="SubjectPublicKeyInfo"):
        Tal.parse(truncated, "broken.tal")
    with pytest.raises(ObjectError, match="invalid base64"):
        Tal.parse(head + "\n\nMIIB!!!notbase64\n", "broken.tal")
    with pytest.raises(ObjectError, match="want the base64 subjectPublicKeyInfo"):
        Tal.parse(head + "\n", "nokey.tal")
    with pytest.raises(ObjectError, match="rsync:// or https:// URI"):
        Tal.parse("ftp://example.net/ta.cer\n\n" + key, "ftp.tal")
    # a structurally valid SPKI whose RSA key is garbage: DER-valid, but no usable key
    bad_rsa = bytes.fromhex("300d06092a864886f70d0101010500") + b"\x03\x03\x00\x30\x00"
    bad_rsa = b"\x30" + bytes([len(bad_rsa) - 0]) + bad_rsa
    with pytest.raises(ObjectError, match="(?i)subjectPublicKeyInfo"):
        Tal.parse("rsync://x/ta.cer\n\n" + base64.b64encode(bad_rsa).decode(), "badrsa.tal")


# ---- resources (RFC 3779) ---------------------------------------------------------------------------
def test_resource_text_and_canonical_form():
    ip = IpResources.parse("10.0.1.0/24, 10.0.0.0-10.0.0.255, 192.0.2.0/24, 2001:db8::/32")
    assert str(ip) == "10.0.0.0/23, 192.0.2.0/24, 2001:db8::/32"
    assert ip.contains(IpResources.parse("10.0.0.128/25"))
    assert not ip.contains(IpResources.parse("10.0.0.0/8"))
    assert str(ip.uncovered(IpResources.parse("10.0.0.0/22"))) == "10.0.2.0/23"
    assert ip.overlaps(IpResources.parse("10.0.0.0/8")) and not ip.overlaps(IpResources.parse("11.0.0.0/8"))
    asn = AsResources.parse("64496, AS64497, 0-10")
    assert str(asn) == "0-10, 64496-64497"
    assert AsResources.parse("0-4294967295").contains(asn)
    with pytest.raises(ObjectError, match="no host bits"):
        IpResources.parse("192.0.2.1/24")
    with pytest.raises(ObjectError, match="AS number"):
        AsResources.parse("4294967296")
    with pytest.raises(ObjectError, match="inherit"):
        AsResources(inherit=True).contains(asn)


def test_resource_extension_round_trip():
    ip = IpResources.parse("10.0.0.0-10.0.2.7, 192.0.2.0/24, ::1-::5, 2001:db8::/32")
    assert decode_ip_extension(encode_ip_extension(ip)) == ip
    asn = AsResources.parse("0-4294967295")
    assert decode_as_extension(encode_as_extension(asn)) == asn
    assert decode_as_extension(encode_as_extension(AsResources(inherit=True))).inherit


def _blocks(*items: str) -> bytes:
    """IPv4 IPAddrBlocks with the given DER items (hex of IPAddressOrRange), in the given order."""
    body = bytes.fromhex("".join(items))
    seq = b"\x30" + bytes([len(body)]) + body
    fam = b"\x04\x02\x00\x01" + seq
    fam = b"\x30" + bytes([len(fam)]) + fam
    return b"\x30" + bytes([len(fam)]) + fam


@pytest.mark.parametrize(
    "items, rule",
    [
        (("0303000a01", "0303000a00"), "sorted ascending"),  # 10.1/16 then 10.0/16
        (("0303000a00", "0302000a"), "overlap"),  # 10.0/16 then 10/8
        (("0303000a00", "0303000a01"), "adjacent"),  # 10.0/16, 10.1/16: must be 10.0/15
        (("30090302010a0303010a00",), "prefix"),  # range 10.0.0.0-10.1.255.255 = 10.0/15
        (("3008030201140302000a",), "trailing zero"),  # range min 20 with a trailing zero bit kept
        (("0303010a01",), "DER"),  # prefix with a non-zero unused bit
    ],
)
def test_resource_extension_canonical_rules(items, rule):
    with pytest.raises(ObjectError, match=rule):
        decode_ip_extension(_blocks(*items), "x.cer")


# ---- (d) garbage and mutations ----------------------------------------------------------------------
def _parse_any(data: bytes) -> None:
    """Every parser of outside DER in this step, each run to the end of its checks."""
    for parse in (ResourceCertificate.parse, Crl.parse):
        try:
            obj = parse(data, "mutant")
        except ObjectError:
            continue
        obj.problems(at=CONFORMANCE_TIME)
    for fn in (decode_ip_extension, decode_as_extension):
        try:
            fn(data, "mutant")
        except ObjectError:
            pass
    try:
        Tal.parse(b"rsync://x/ta.cer\n\n" + base64.b64encode(data), "mutant")
    except ObjectError:
        pass


@pytest.mark.parametrize("data", [b"", b"\x30", b"\x30\x80", b"\x30\x84\xff\xff\xff\xff", b"\x00" * 40,
                                  b"\xff" * 40, b"hello world", b"\x30\x03\x02\x01"])
def test_garbage_is_project_error(data):
    for parse in (ResourceCertificate.parse, Crl.parse):
        with pytest.raises(ObjectError):
            parse(data, "garbage")
    with pytest.raises(ObjectError):
        decode_ip_extension(data, "garbage")


def test_truncations_are_project_errors():
    der = need(RPKI_RS / "ta.cer").read_bytes()
    for cut in range(0, len(der), 7):
        with pytest.raises(ObjectError):
            ResourceCertificate.parse(der[:cut], "truncated")
    with pytest.raises(DERError):
        ResourceCertificate.parse(der + b"\x00", "trailing")


def _seeds() -> list[bytes]:
    paths = [RPKI_RS / "ta.cer", RPKI_RS / "ta.crl", RPKI_RS / "router.cer"]
    return [p.read_bytes() for p in paths if p.exists()]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutations_raise_only_project_errors(data):
    seeds = _seeds()
    if not seeds:
        pytest.skip(f"{RPKI_RS} is absent")
    _parse_any(mutate(data, seeds))
