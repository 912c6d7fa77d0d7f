"""Keys from our CA: a router certificate issued by `rpki ca build` and validated by `rpki validate`
(and by rpki-client, which lists it among its BGPsec keys) carries the key that signs a path which
`bgpsim bgpsec verify` accepts with the keys of either relying party's JSON output. Bad key input is
one line and exit status 2."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from rpki_oracles import NO_RPKI_CLIENT, RPKI_CLIENT, rpki_client

from bgpsim.cli import main
from bgpsim.rpki.ca import build_repository

SPEC = """\
[repository]
base_uri = "rsync://rpki.example.net/repo/"
[[ca]]
name = "ta"
ip = ["0.0.0.0/0", "::/0"]
asn = ["0-4294967295"]
[[ca]]
name = "isp"
parent = "ta"
ip = ["192.0.2.0/24", "2001:db8::/32"]
asn = ["64496-64497"]
[[roa]]
ca = "isp"
asn = 64496
prefixes = ["192.0.2.0/24-24"]
[[router_key]]
ca = "isp"
asn = 64496
[[router_key]]
ca = "isp"
asn = 64497
"""
NOW = datetime.now(timezone.utc) - timedelta(minutes=5)  # rpki-client validates at the real time


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    d = tmp_path_factory.mktemp("ca")
    (d / "spec.toml").write_text(SPEC)
    build_repository(d / "spec.toml", d / "repo", NOW)
    assert main(["rpki", "validate", "--tal", str(d / "repo" / "ta.tal"), "--repo", str(d / "repo"),
                 "--out", str(d / "vrps.json")]) == 0
    return d


def _sign(repo: Path, out: Path, *extra) -> Path:
    assert main(["bgpsec", "sign", "--prefix", "192.0.2.0/24", "--prefix", "2001:db8::/48", "--path", "64497,64496",
                 "--target-as", "64500", "--signing-keys", str(repo / "repo" / ".keys"), "--out", str(out), *extra]) == 0
    return out


def _verify(capsys, *args) -> tuple[int, list[dict]]:
    capsys.readouterr()
    status = main(["bgpsec", "verify", "--format", "json", *args])
    return status, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_our_relying_party_gives_the_keys_that_verify(repo, tmp_path, capsys):
    keys = json.loads((repo / "vrps.json").read_text())["bgpsec_keys"]
    assert sorted(k["asn"] for k in keys) == [64496, 64497]
    pcap = _sign(repo, tmp_path / "signed.pcap")
    status, rows = _verify(capsys, str(pcap), "--router-keys", str(repo / "vrps.json"))
    assert status == 0
    assert [(r["prefix"], r["state"], r["as_path"], r["peer_as"], r["target_as"]) for r in rows] == [
        ("192.0.2.0/24", "valid", "64497 64496", 64497, 64500), ("2001:db8::/48", "valid", "64497 64496", 64497, 64500)]


def test_a_key_from_another_repository_does_not_verify(repo, tmp_path, capsys):
    other = tmp_path / "other"
    (tmp_path / "spec.toml").write_text(SPEC)
    build_repository(tmp_path / "spec.toml", other, NOW)  # the same spec: new keys
    assert main(["rpki", "validate", "--tal", str(other / "ta.tal"), "--repo", str(other),
                 "--out", str(tmp_path / "other.json")]) == 0
    pcap = _sign(repo, tmp_path / "signed.pcap")
    status, rows = _verify(capsys, str(pcap), "--router-keys", str(tmp_path / "other.json"))
    assert status == 1
    assert {(r["state"], r["reason"], r["hop"]) for r in rows} == {("not-valid", "no-key", 2)}


def test_hex_output_verifies_with_target_and_peer(repo, tmp_path, capsys):
    capsys.readouterr()
    assert main(["bgpsec", "sign", "--prefix", "192.0.2.0/24", "--path", "64497,64497,64496", "--target-as", "64500",
                 "--signing-keys", str(repo / "repo" / ".keys")]) == 0
    hexfile = tmp_path / "updates.hex"
    hexfile.write_text("# one UPDATE per line\n" + capsys.readouterr().out)
    status, rows = _verify(capsys, str(hexfile), "--router-keys", str(repo / "vrps.json"), "--target-as", "64500",
                           "--peer-as", "64497")
    assert status == 0 and [(r["state"], r["as_path"]) for r in rows] == [("valid", "64497 64497 64496")]
    status, rows = _verify(capsys, str(hexfile), "--router-keys", str(repo / "vrps.json"), "--target-as", "64501")
    assert status == 1 and [(r["reason"], r["hop"]) for r in rows] == [("bad-signature", 2)]
    status, rows = _verify(capsys, str(hexfile), "--router-keys", str(repo / "vrps.json"))
    assert status == 0 and [r["state"] for r in rows] == ["unknown"]
    # a damaged BGPsec_PATH (its Secure_Path Length one too many): withdrawn, and the next line is read
    line = hexfile.read_text().splitlines()[1]
    at = line.index("9021") + 8  # flags 0x90, type 33, two length bytes: then the Secure_Path Length
    bad = line[:at] + f"{int(line[at:at + 4], 16) + 1:04X}" + line[at + 4:]
    hexfile.write_text(bad + "\n" + line + "\n")
    status, rows = _verify(capsys, str(hexfile), "--router-keys", str(repo / "vrps.json"), "--target-as", "64500")
    assert status == 1 and [(r["state"], r["reason"]) for r in rows] == [("withdraw", "malformed"), ("valid", None)]
    assert "Secure_Path Length: want 2 + 6 N" in rows[0]["detail"]


@pytest.mark.skipif(RPKI_CLIENT is None, reason=NO_RPKI_CLIENT)
def test_rpki_client_lists_the_keys_and_they_verify(repo, tmp_path, capsys):
    theirs = rpki_client(repo / "repo", repo / "repo" / "ta.tal")
    assert theirs.router_keys == [64496, 64497], theirs.log
    (tmp_path / "rpki-client.json").write_text(json.dumps(theirs.json))
    pcap = _sign(repo, tmp_path / "signed.pcap")
    status, rows = _verify(capsys, str(pcap), "--router-keys", str(tmp_path / "rpki-client.json"))
    assert status == 0 and [r["state"] for r in rows] == ["valid", "valid"]


@pytest.mark.parametrize("make, expect", [
    (lambda d: d / "absent.pem", "absent.pem: no such file or directory"),
    (lambda d: _write(d / "AS1.pem", b"not a key"), "AS1.pem: want a private key (PEM or DER)"),
    (lambda d: _p384(d / "AS64496.pem"), "AS64496.pem: want an ECDSA P-256 key (RFC 8608 section 3), got curve secp384r1"),
])
def test_bad_signing_keys_are_one_line_and_exit_2(tmp_path, capsys, make, expect):
    path = make(tmp_path)
    status = main(["bgpsec", "sign", "--prefix", "192.0.2.0/24", "--path", "64496", "--target-as", "64500",
                   "--signing-keys", str(path)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and expect in err, err


def test_a_missing_key_for_an_as_of_the_path_is_named(repo, capsys):
    status = main(["bgpsec", "sign", "--prefix", "192.0.2.0/24", "--path", "64499,64496", "--target-as", "64500",
                   "--signing-keys", str(repo / "repo" / ".keys")])
    err = capsys.readouterr().err
    assert status == 2 and "no private router key for AS64499" in err and err.count("\n") == 1


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _p384(path: Path) -> Path:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP384R1())
    return _write(path, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))


def test_a_crypto_run_signs_with_the_cas_router_keys(repo, tmp_path, capsys):
    from importlib.resources import files

    teaching = files("bgpsim.scenarios") / "topologies" / "teaching.toml"
    assert main(["run", "--topology", str(teaching), "--attack", "forged-origin", "--attacker", "64511",
                 "--victim", "64496", "--policy", "bgpsec", "--adopters", "64496,64497", "--crypto",
                 "--signing-keys", str(repo / "repo" / ".keys"), "--quiet", "--out", str(tmp_path / "run")]) == 0
    ours = json.loads((tmp_path / "run" / "router-keys.json").read_text())["bgpsec_keys"]
    validated = json.loads((repo / "vrps.json").read_text())["bgpsec_keys"]
    assert sorted((k["asn"], k["ski"], k["pubkey"]) for k in ours) == sorted(
        (k["asn"], k["ski"], k["pubkey"]) for k in validated)
    err = capsys.readouterr().err
    assert "state.json" not in err  # the CA's state file is no key, and no warning either


def test_a_crypto_run_needs_a_key_for_every_adopter(repo, tmp_path, capsys):
    from importlib.resources import files

    teaching = files("bgpsim.scenarios") / "topologies" / "teaching.toml"
    status = main(["run", "--topology", str(teaching), "--attack", "forged-origin", "--attacker", "64511",
                   "--victim", "64496", "--policy", "bgpsec", "--adopters", "64496,64497,64498", "--crypto",
                   "--signing-keys", str(repo / "repo" / ".keys"), "--quiet", "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert status == 2 and "no private router key for the adopters AS64498" in err and err.count("\n") == 1
