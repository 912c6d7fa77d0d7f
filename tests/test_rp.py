"""The relying party (`bgpsim rpki validate`): repositories built with rpki.ca validate to exactly the
spec's payloads; broken ones are rejected with a reason naming the file and the check; rpki-client
agrees on the VRPs of the same repositories."""

from __future__ import annotations

import base64
import ipaddress
import json
import tempfile
import tomllib
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from test_ca import AT, DEEP, EXAMPLE, NOW, RPKI_CLIENT, run_rpki_client, spec_aspas, spec_vrps

from bgpsim.cli import main
from rpki import asn1, build
from rpki.ca import build_repository
from rpki.cert import ResourceCertificate
from rpki.resources import AsResources, IpResources
from rpki.rov import VRP
from rpki.rp import validate
from rpki.tal import Tal

HOST = "rpki.example.net"


def make(tmp_path: Path, text: str = EXAMPLE, now: datetime = NOW, name: str = "out") -> Path:
    spec = tmp_path / f"{name}.toml"
    spec.write_text(text)
    out = tmp_path / name
    build_repository(spec, out, now)
    return out


def pub(out: Path, ca: str, host: str = HOST, module: str = "repo") -> Path:
    return out / host / module / ca


def one(directory: Path, ext: str) -> Path:
    (p,) = sorted(directory.glob(f"*{ext}"))
    return p


def vrps_of(result) -> set[VRP]:
    return {o.vrp for o in result.payloads.origins}


def reasons(result) -> str:
    return "\n".join(r.reason for r in result.rejected)


def ca_cert(out: Path, name: str) -> ResourceCertificate:
    for p in out.rglob("*.cer"):
        if ".keys" in p.parts:
            continue
        c = ResourceCertificate.parse(p.read_bytes(), str(p))
        if c.is_ca and c.subject.common_name == name:
            return c
    raise AssertionError(name)


def ca_key(out: Path, name: str):
    return build.load_key_pem((out / ".keys" / f"ca-{name}.pem").read_bytes())


def ee_der(ca: ResourceCertificate, ca_name: str, signer, key, uri: str, ip=None, asn=None, serial=10_000) -> bytes:
    """An EE certificate for a signed object at `uri`, issued in the name of `ca`, signed by `signer`."""
    spki = build.spki_der(key)
    repo = ca.sia[asn1.OID_AD_CA_REPOSITORY][0]
    return build.certificate(build.CertSpec(
        serial=serial, subject=build.name(build.ski_of(spki).hex().upper()), issuer=build.name(ca_name), spki=spki,
        not_before=NOW, not_after=NOW + timedelta(days=1), kind="ee", issuer_ski=ca.ski, ip=ip, asn=asn,
        crldp=repo + "x.crl", aia=repo + "x.cer", sia=[(asn1.OID_AD_SIGNED_OBJECT, uri)]), signer)


def resign_manifest(out: Path, name: str, number: int = 1000) -> None:
    """Re-sign CA `name`'s manifest over whatever files its directory now holds, with the CA's key."""
    ca = ca_cert(out, name)
    mft_uri = ca.sia[asn1.OID_AD_RPKI_MANIFEST][0]
    d = out / mft_uri[len("rsync://"):].rsplit("/", 1)[0]
    mft_name = mft_uri.rsplit("/", 1)[1]
    files = {p.name: p.read_bytes() for p in d.iterdir() if p.is_file() and p.name != mft_name}
    key = build.new_rsa_key()
    ee = ee_der(ca, name, ca_key(out, name), key, mft_uri,
                ip=IpResources.parse("inherit4, inherit6"), asn=AsResources(inherit=True))
    econtent = build.manifest_econtent(number, NOW, NOW + timedelta(days=1), files)
    (d / mft_name).write_bytes(build.signed_object(asn1.OID_CT_MANIFEST, econtent, ee, key, NOW))


def spec_routers(text: str) -> list[int]:
    return sorted(k["asn"] for k in tomllib.loads(text).get("router_key", []))


# ---- good repositories ------------------------------------------------------------------------------
@pytest.mark.parametrize("text,ta", [(EXAMPLE, "ta"), (DEEP, "root")], ids=["example", "deep"])
def test_valid_repository_gives_the_spec(tmp_path, text, ta):
    out = make(tmp_path, text)
    r = validate(out / f"{ta}.tal", out, AT)
    assert r.rejected == []
    assert vrps_of(r) == spec_vrps(text)
    assert {a.customer: list(a.providers) for a in r.payloads.aspas} == spec_aspas(text)
    assert sorted(k.asn for k in r.payloads.router_keys) == spec_routers(text)
    assert r.cas == len(tomllib.loads(text)["ca"])
    assert {o.ta for o in r.payloads.origins} | {k.ta for k in r.payloads.router_keys} == {ta}
    for k in r.payloads.router_keys:  # SKI and SPKI: those of the published router certificate
        cert = ResourceCertificate.parse(next(out.rglob(f"{k.ski.hex()}.cer")).read_bytes())
        assert cert.public_key_info == k.spki == base64.b64decode(k.spki_b64)
        assert k.ski == cert.ski and len(k.ski_hex) == 40
    # expires: the earliest end along the chain (here the manifests' and CRLs' nextUpdate)
    assert {o.expires for o in r.payloads.origins} == {int((NOW + timedelta(days=1)).timestamp())}


# ---- broken repositories ----------------------------------------------------------------------------
def test_object_altered_after_signing(tmp_path):
    out = make(tmp_path)
    roa = one(pub(out, "isp1"), ".roa")
    data = bytearray(roa.read_bytes())
    data[-1] ^= 1
    roa.write_bytes(bytes(data))
    r = validate(out / "ta.tal", out, AT)
    assert len(r.rejected) == 1 and r.rejected[0].uri.endswith(".mft")
    assert f"publication point dropped, {roa.name}: want {roa.name!r} to hash to" in reasons(r)
    assert "fileList" in reasons(r) and "RFC 9286 section 6.4" in reasons(r)
    assert len(r.payloads) == 0 and r.cas == 1  # isp1's whole publication point goes, as in rpki-client


@pytest.mark.parametrize("at,word", [(NOW + timedelta(days=400), "expired"), (NOW - timedelta(days=1), "not yet")])
def test_expired_and_not_yet_valid(tmp_path, at, word):
    out = make(tmp_path)
    r = validate(out / "ta.tal", out, at)
    assert len(r.rejected) == 1, word
    assert r.rejected[0].uri.endswith("/repo/ta.cer")
    assert "validity: want" in reasons(r) and f"{at:%Y-%m-%d}" in reasons(r)
    assert len(r.payloads) == 0


def test_stale_manifest(tmp_path):
    out = make(tmp_path)
    r = validate(out / "ta.tal", out, NOW + timedelta(days=2))
    assert len(r.rejected) == 1 and r.rejected[0].uri.endswith(".mft")
    assert "nextUpdate: want a current manifest, it is stale" in reasons(r)
    assert len(r.payloads) == 0 and r.cas == 0


def test_revoked_ee(tmp_path):
    """Revoke the ROA's EE in the CA's state, rebuild (same spec: the ROA is kept, the new CRL lists it)."""
    out = make(tmp_path)
    state_path = out / ".keys" / "state.json"
    state = json.loads(state_path.read_text())
    rec = next(v for v in state["objects"]["isp1"].values() if v["file"].endswith(".roa"))
    state["revoked"].setdefault("isp1", {})[str(rec["serial"])] = NOW.isoformat()
    state_path.write_text(json.dumps(state))
    later = NOW + timedelta(minutes=10)
    build_repository(tmp_path / "out.toml", out, later)
    r = validate(out / "ta.tal", out, later + timedelta(minutes=1))
    assert len(r.rejected) == 1 and r.rejected[0].uri.endswith(rec["file"])
    assert f"revocation: want a certificate not revoked, serial {rec['serial']}" in reasons(r)
    assert vrps_of(r) == set() and r.payloads.aspas


def test_missing_crl_drops_the_subtree(tmp_path):
    out = make(tmp_path)
    one(pub(out, "isp1"), ".crl").unlink()
    r = validate(out / "ta.tal", out, AT)
    assert len(r.rejected) == 1 and r.rejected[0].uri.endswith(".mft")
    assert "CRL: publication point dropped" in reasons(r) and "want the file in the repository" in reasons(r)
    assert len(r.payloads) == 0 and r.cas == 1  # the TA stands, isp1's whole publication point is gone


def test_wrong_signature_on_the_trust_anchor(tmp_path):
    out = make(tmp_path)
    ta = out / HOST / "repo" / "ta.cer"
    data = bytearray(ta.read_bytes())
    data[-1] ^= 1  # the last octet of the signature
    ta.write_bytes(bytes(data))
    r = validate(out / "ta.tal", out, AT)
    assert "signatureValue: want a valid sha256WithRSAEncryption signature" in reasons(r)
    assert len(r.payloads) == 0


def test_wrong_signature_on_an_ee_certificate(tmp_path):
    """A ROA whose EE certificate names isp1 as issuer but was signed with another key; the
    manifest is re-signed with isp1's key so that only the signature is wrong."""
    out = make(tmp_path)
    d = pub(out, "isp1")
    ca = ca_cert(out, "isp1")
    key = build.new_rsa_key()
    fname = build.ski_of(build.spki_der(key)).hex() + ".roa"
    ip = IpResources.parse("192.0.2.0/24")
    ee = ee_der(ca, "isp1", build.new_rsa_key(), key, ca.sia[asn1.OID_AD_CA_REPOSITORY][0] + fname, ip=ip)
    (d / fname).write_bytes(build.signed_object(asn1.OID_CT_ROA, build.roa_econtent(64999, [
        (ipaddress.ip_network("192.0.2.0/24"), None)]), ee, key, NOW))
    resign_manifest(out, "isp1")
    r = validate(out / "ta.tal", out, AT)
    assert len(r.rejected) == 1 and r.rejected[0].uri.endswith(fname)
    assert "signatureValue: want a valid sha256WithRSAEncryption signature" in reasons(r)
    assert vrps_of(r) == spec_vrps(EXAMPLE)  # the forged ROA's VRP is not there, the real ones are


def test_child_claiming_more_than_its_parent(tmp_path):
    out = make(tmp_path)
    ca = ca_cert(out, "isp1")
    repo = ca.sia[asn1.OID_AD_CA_REPOSITORY][0]
    child_key = build.new_rsa_key()
    spki = build.spki_der(child_key)
    name = build.ski_of(spki).hex()
    der = build.certificate(build.CertSpec(
        serial=9999, subject=build.name("greedy"), issuer=build.name("isp1"), spki=spki, not_before=NOW,
        not_after=NOW + timedelta(days=30), kind="ca", issuer_ski=ca.ski,
        ip=IpResources.parse("192.0.2.0/24, 10.0.0.0/8"), asn=AsResources.parse("64496"),
        crldp=repo + one(pub(out, "isp1"), ".crl").name, aia=repo.rstrip("/") + ".cer",
        sia=[(asn1.OID_AD_CA_REPOSITORY, repo + "greedy/"), (asn1.OID_AD_RPKI_MANIFEST, repo + "greedy/g.mft")]),
        ca_key(out, "isp1"))
    (pub(out, "isp1") / f"{name}.cer").write_bytes(der)
    resign_manifest(out, "isp1")
    r = validate(out / "ta.tal", out, AT)
    assert len(r.rejected) == 1 and r.rejected[0].uri.endswith(f"{name}.cer")
    assert "ipAddrBlocks: want resources within the issuer's, uncovered IP: 10.0.0.0/8" in reasons(r)
    assert vrps_of(r) == spec_vrps(EXAMPLE) and r.cas == 2


def test_walk_limits(tmp_path):
    out = make(tmp_path, DEEP)
    r = validate(out / "root.tal", out, AT, max_depth=1)
    assert any("depth limit" in x.reason and x.uri.endswith(".cer") for x in r.rejected)
    assert r.cas == 3  # root, rir, other; lir (two below) is not walked
    assert VRP(ipaddress.ip_network("10.1.2.0/24"), 24, 64510) not in vrps_of(r)
    r = validate(out / "root.tal", out, AT, max_objects=3)  # root's manifest, then 2 of its 3 files
    assert r.objects == 4 and len(r.rejected) == 1 and "object limit: want at most 3 objects" in reasons(r)


# ---- the command line ----------------------------------------------------------------------------------
def test_cli_validate(tmp_path, capsys):
    out = make(tmp_path)
    dest = tmp_path / "vrps.json"
    args = ["rpki", "validate", "--tal", str(out / "ta.tal"), "--repo", str(out), "--time", AT.isoformat()]
    assert main(args + ["--out", str(dest)]) == 0
    doc = json.loads(dest.read_text())
    assert doc["metadata"]["rejected"] == 0 and doc["metadata"]["vrps"] == 2
    assert {(r["prefix"], r["maxLength"], r["asn"], r["ta"]) for r in doc["roas"]} == {
        ("192.0.2.0/24", 24, 64496, "ta"), ("2001:db8::/32", 48, 64496, "ta")}
    assert [k["asn"] for k in doc["bgpsec_keys"]] == [64496]
    assert main(args + ["--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == ["AS64496,192.0.2.0/24,24,ta", "AS64496,2001:db8::/32,48,ta"]
    one(pub(out, "isp1"), ".crl").unlink()
    assert main(args + ["--format", "bird2", "--verbose"]) == 0
    cap = capsys.readouterr()
    assert cap.out == ""
    assert "rejected: " in cap.err and "CRL: publication point dropped" in cap.err and "1 rejected" in cap.err


@pytest.mark.parametrize("bad,expect", [
    (["--tal", "/nonexistent/x.tal", "--repo", "."], "x.tal: cannot read"),
    (["--tal", "TAL", "--repo", "/nonexistent"], "--repo: want a directory"),
    (["--tal", "TAL", "--repo", ".", "--time", "yesterday"], "--time: want an ISO 8601 time"),
])
def test_cli_bad_input(tmp_path, capsys, bad, expect):
    out = make(tmp_path)
    bad = [str(out / "ta.tal") if a == "TAL" else a for a in bad]
    assert main(["rpki", "validate", *bad]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expect in err


# ---- rpki-client 8.2 on the same repositories ----------------------------------------------------------
def _rpki_client_vrps(out: Path, ta: str) -> tuple[set[VRP], str]:
    tal = out / f"{ta}.tal"
    with tempfile.TemporaryDirectory(prefix="bgpsim-rp-") as work:
        data, _, stderr = run_rpki_client(out, tal, Tal.load(tal).uris[0], Path(work))
    return {VRP(ipaddress.ip_network(r["prefix"]), r["maxLength"], int(str(r["asn"]).removeprefix("AS")))
            for r in data["roas"]}, stderr


@pytest.mark.skipif(RPKI_CLIENT is None, reason="rpki-client is not installed (Debian package rpki-client)")
@pytest.mark.parametrize("text,ta", [(EXAMPLE, "ta"), (DEEP, "root")], ids=["example", "deep"])
def test_rpki_client_agrees(tmp_path, text, ta):
    now = datetime.now(timezone.utc) - timedelta(minutes=5)  # rpki-client validates at the real time
    out = make(tmp_path, text, now)
    ours = validate(out / f"{ta}.tal", out)
    theirs, stderr = _rpki_client_vrps(out, ta)
    assert vrps_of(ours) == theirs == spec_vrps(text), stderr
    assert ours.rejected == []


@pytest.mark.skipif(RPKI_CLIENT is None, reason="rpki-client is not installed (Debian package rpki-client)")
def test_rpki_client_rejects_the_altered_roa_too(tmp_path):
    now = datetime.now(timezone.utc) - timedelta(minutes=5)
    out = make(tmp_path, DEEP, now)
    lir = pub(out, "lir", host="rpki.test", module="module/deep")
    roas = sorted(lir.glob("*.roa"))
    victim = roas[0]
    data = bytearray(victim.read_bytes())
    data[-1] ^= 1
    victim.write_bytes(bytes(data))
    ours = validate(out / "root.tal", out)
    theirs, stderr = _rpki_client_vrps(out, "root")
    assert len(ours.rejected) == 1 and victim.name in ours.rejected[0].reason
    assert f"bad message digest for {victim.name}" in stderr  # rpki-client names it too
    # both drop lir's whole publication point (both its ROAs), and keep the rest
    assert vrps_of(ours) == theirs == {v for v in spec_vrps(DEEP) if v.asn not in (0, 64510)}, stderr
