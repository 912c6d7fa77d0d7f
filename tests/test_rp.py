"""The relying party (`bgpsim rpki validate`): repositories built with rpki.ca validate to exactly the
spec's payloads; broken ones are rejected with a reason naming the file and the check; rpki-client
agrees on the VRPs of the same repositories."""

from __future__ import annotations

import base64
import ipaddress
import json
import tomllib
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from rpki_oracles import NO_RPKI_CLIENT, RPKI_CLIENT, rpki_client
from rpki_tamper import add_roa, ca_cert, ca_key, pub, repository, resign_manifest
from test_ca import AT, DEEP, EXAMPLE, NOW, spec_aspas, spec_vrps

from bgpsim.cli import main
from bgpsim.rpki import asn1, build
from bgpsim.rpki.ca import build_repository
from bgpsim.rpki.cert import ResourceCertificate
from bgpsim.rpki.resources import AsResources, IpResources
from bgpsim.rpki.rov import VRP
from bgpsim.rpki import rp
from bgpsim.rpki.errors import ObjectError
from bgpsim.rpki.rp import Validator, validate

HOST = "rpki.example.net"


def make(tmp_path: Path, text: str = EXAMPLE, now: datetime = NOW, name: str = "out") -> Path:
    return repository(tmp_path, text, now, f"{name}.toml", name)


def one(directory: Path, ext: str) -> Path:
    (p,) = sorted(directory.glob(f"*{ext}"))
    return p


def vrps_of(result) -> set[VRP]:
    return {o.vrp for o in result.payloads.origins}


def reasons(result) -> str:
    return "\n".join(r.reason for r in result.rejected)


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
    fname = add_roa(out, "isp1", 64999, ["192.0.2.0/24"], "192.0.2.0/24", NOW, signer=build.new_rsa_key())
    r = validate(out / "ta.tal", out, AT)
    assert len(r.rejected) == 1 and r.rejected[0].uri.endswith(fname)
    assert "signatureValue: want a valid sha256WithRSAEncryption signature" in reasons(r)
    assert vrps_of(r) == spec_vrps(EXAMPLE)  # the forged ROA's VRP is not there, the real ones are


def test_child_claiming_more_than_its_parent(tmp_path):
    out = make(tmp_path)
    ca, ca_uri = ca_cert(out, "isp1")
    repo = ca.sia[asn1.OID_AD_CA_REPOSITORY][0]
    child_key = build.new_rsa_key()
    spki = build.spki_der(child_key)
    name = build.ski_of(spki).hex()
    der = build.certificate(build.CertSpec(
        serial=9999, subject=build.name("greedy"), issuer=build.name("isp1"), spki=spki, not_before=NOW,
        not_after=NOW + timedelta(days=30), kind="ca", issuer_ski=ca.ski,
        ip=IpResources.parse("192.0.2.0/24, 10.0.0.0/8"), asn=AsResources.parse("64496"),
        crldp=repo + one(pub(out, "isp1"), ".crl").name, aia=ca_uri,
        sia=[(asn1.OID_AD_CA_REPOSITORY, repo + "greedy/"), (asn1.OID_AD_RPKI_MANIFEST, repo + "greedy/g.mft")]),
        ca_key(out, "isp1"))
    (pub(out, "isp1") / f"{name}.cer").write_bytes(der)
    resign_manifest(out, "isp1", NOW)
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


def test_a_file_is_read_whole_within_the_size_limit(tmp_path, monkeypatch):
    out = make(tmp_path)
    roa = next((out / HOST).rglob("*.roa"))
    uri = f"rsync://{roa.relative_to(out).as_posix()}"
    data = roa.read_bytes()
    v = Validator(out / "ta.tal", out, AT)
    assert v.read(uri) == data
    monkeypatch.setattr(rp, "MAX_FILE_BYTES", len(data))
    assert v.read(uri) == data
    monkeypatch.setattr(rp, "MAX_FILE_BYTES", len(data) - 1)
    with pytest.raises(ObjectError, match=f"size: want at most {len(data) - 1} bytes, got {len(data)}"):
        v.read(uri)
    monkeypatch.undo()
    with pytest.raises(ObjectError, match="want the file in the repository at .*, Is a directory"):
        v.read(uri.rpartition("/")[0] + "/")
    with pytest.raises(ObjectError, match="want the file in the repository at .*, No such file"):
        v.read(uri + ".gone")


# ---- the command line ----------------------------------------------------------------------------------
def test_cli_validate(tmp_path, capsys):
    out = make(tmp_path)
    dest = tmp_path / "vrps.json"
    args = ["rpki", "validate", "--tal", str(out / "ta.tal"), "--repo", str(out), "--now", AT.isoformat()]
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

    assert main(args + ["--format", "csv"]) == 0  # without --verbose: one warning that counts them
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bgpsim: warning: 1 objects rejected, the first: ")
    assert "CRL: publication point dropped" in err and "--verbose" in err


@pytest.mark.parametrize("where", ["wrong-repo", "expired"])
def test_cli_validate_fails_when_the_trust_anchor_does(tmp_path, capsys, where):
    """A --repo without the TA certificate, or a --time after it expired: one line saying why, exit
    2, and the --out file keeps its VRPs (an empty set in their place would drop every ROA)."""
    out = make(tmp_path)
    dest = tmp_path / "vrps.json"
    good = "ASN,IP Prefix,Max Length,Trust Anchor\nAS64496,192.0.2.0/24,24,synthetic\n"  # an earlier output
    dest.write_text(good)
    repo, at = (tmp_path / "elsewhere", AT) if where == "wrong-repo" else (out, NOW + timedelta(days=3650))
    repo.mkdir(exist_ok=True)
    assert main(["rpki", "validate", "--tal", str(out / "ta.tal"), "--repo", str(repo), "--now", at.isoformat(),
                 "--out", str(dest)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bgpsim: error: the trust anchor is not valid, nothing written: ")
    assert "ta.cer" in err and ("No such file" in err if where == "wrong-repo" else "validity: want" in err), err
    assert dest.read_text() == good


@pytest.mark.parametrize("bad,expect", [
    (["--tal", "/nonexistent/x.tal", "--repo", "."], "x.tal: cannot read"),
    (["--tal", "TAL", "--repo", "/nonexistent"], "--repo: want a directory"),
    (["--tal", "TAL", "--repo", ".", "--now", "yesterday"], "--now: want an ISO 8601 time"),
    (["--tal", "BROKEN", "--repo", "."], "broken.tal"),  # a TAL whose key is cut short
])
def test_cli_bad_input(tmp_path, capsys, bad, expect):
    out = make(tmp_path)
    head, _, key = (out / "ta.tal").read_text().partition("\n\n")
    (tmp_path / "broken.tal").write_text(head + "\n\n" + key.replace("\n", "")[:200] + "\n")
    bad = [str(out / "ta.tal") if a == "TAL" else str(tmp_path / "broken.tal") if a == "BROKEN" else a
           for a in bad]
    assert main(["rpki", "validate", *bad]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expect in err


# ---- rpki-client 8.2 on the same repositories ----------------------------------------------------------
@pytest.mark.skipif(RPKI_CLIENT is None, reason=NO_RPKI_CLIENT)
@pytest.mark.parametrize("text,ta", [(EXAMPLE, "ta"), (DEEP, "root")], ids=["example", "deep"])
def test_rpki_client_agrees(tmp_path, text, ta):
    now = datetime.now(timezone.utc) - timedelta(minutes=5)  # rpki-client validates at the real time
    out = make(tmp_path, text, now)
    ours = validate(out / f"{ta}.tal", out)
    theirs = rpki_client(out, out / f"{ta}.tal")
    assert vrps_of(ours) == theirs.vrps == spec_vrps(text), theirs.log
    assert ours.rejected == []


@pytest.mark.skipif(RPKI_CLIENT is None, reason=NO_RPKI_CLIENT)
def test_rpki_client_rejects_the_altered_roa_too(tmp_path):
    now = datetime.now(timezone.utc) - timedelta(minutes=5)
    out = make(tmp_path, DEEP, now)
    lir = pub(out, "lir")
    roas = sorted(lir.glob("*.roa"))
    victim = roas[0]
    data = bytearray(victim.read_bytes())
    data[-1] ^= 1
    victim.write_bytes(bytes(data))
    ours = validate(out / "root.tal", out)
    theirs = rpki_client(out, out / "root.tal")
    assert len(ours.rejected) == 1 and victim.name in ours.rejected[0].reason
    assert f"bad message digest for {victim.name}" in theirs.log  # rpki-client names it too
    # both drop lir's whole publication point (both its ROAs), and keep the rest
    assert vrps_of(ours) == theirs.vrps == {v for v in spec_vrps(DEEP) if v.asn not in (0, 64510)}, theirs.log
