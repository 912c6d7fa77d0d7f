"""Our CA and relying party against the reference relying parties, rpki-client 8.2 and FORT 1.5.4,
run offline on the same repositories (tests/rpki_oracles.py, ../shared/docs/ORACLES.md).

1. Synthetic specs (rpki.synthetic) with 1, 10 and 101 ROAs -- IPv4 and IPv6, maxLength, an AS0
   ROA, CAs three levels deep, ASPAs, router keys: both references accept everything, and their VRP
   sets equal ours and the spec's; rpki-client's router keys and ASPAs equal ours. The ASPAs use the
   older profile here, the one rpki-client 8.2 reads (it rejects the current one: test_ca.py).
   bench/bench_rpki.py holds the three to the same agreement at 50,000 ROAs (a ROA's EE key costs
   about 30 ms to make, so the tests stay at a hundred).
2. Broken repositories: each is rejected by us, with a reason naming the check, and by the
   reference (FORT where rpki-client 8.2 crashes: CRL faults), which names it in its own words.

The references validate at the real time, so repositories are built a few minutes in the past."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

import pytest
from helpers import built_once
from rpki_oracles import FORT, NO_FORT, NO_RPKI_CLIENT, RPKI_CLIENT, fort, rpki_client
from rpki_tamper import add_roa, ca_cert, ca_key, pub, repository, resign_manifest
from test_ca import spec_vrps

from bgpsim.rpki import asn1, build
from bgpsim.rpki.ca import build_repository
from bgpsim.rpki.resources import AsResources, IpResources
from bgpsim.rpki.rp import validate
from bgpsim.rpki.synthetic import synthetic_spec

need_rpki_client = pytest.mark.skipif(RPKI_CLIENT is None, reason=NO_RPKI_CLIENT)
need_fort = pytest.mark.skipif(FORT is None, reason=NO_FORT)


def now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0) - timedelta(minutes=5)


def make(tmp: Path, text: str, when: datetime | None = None) -> Path:
    (tmp / "spec.toml").write_text(text)
    out = tmp / "out"
    build_repository(tmp / "spec.toml", out, when or now())
    return out


def ours(out: Path):
    return validate(out / "ta.tal", out)


# ---- 1. good repositories: all three agree -----------------------------------------------------------
SIZES = {"1-roa": (1, 2), "10-roas": (10, 5), "101-roas": (101, 10)}


@pytest.fixture(scope="module", params=list(SIZES))
def synthetic(request, tmp_path_factory):
    roas, cas = SIZES[request.param]
    text = synthetic_spec(roas, cas, aspas=min(cas - 1, 4), router_keys=min(cas - 1, 3), aspa_profile="draft-13")
    with built_once(tmp_path_factory, f"synthetic-{request.param}") as (folder, fill):
        out = make(folder, text) if fill else folder / "out"
    told = []  # what `rpki validate`'s progress bar is told
    r = validate(out / "ta.tal", out, progress=lambda n, total: told.append((n, total)))
    assert told == [(n, None) for n in range(256, r.objects + 1, 256)]  # every 256 objects looked at
    return text, out, r


def test_synthetic_specs_have_what_they_promise(synthetic):
    text, _, _ = synthetic
    spec = tomllib.loads(text)
    vrps = spec_vrps(text)
    assert any(v.asn == 0 for v in vrps) and {v.prefix.version for v in vrps} == {4, 6} or len(spec["roa"]) == 1
    if len(spec["ca"]) >= 5:  # three levels below the trust anchor
        parents = {c["name"]: c.get("parent") for c in spec["ca"]}
        assert max(_depth(parents, n) for n in parents) == 3
        assert any(v.max_length > v.prefix.prefixlen for v in vrps)
    assert spec["aspa"] and spec["router_key"]


def _depth(parents: dict, n: str) -> int:
    return 0 if parents[n] is None else 1 + _depth(parents, parents[n])


def test_ours_gives_the_spec(synthetic):
    text, _, r = synthetic
    assert r.rejected == []
    assert {o.vrp for o in r.payloads.origins} == spec_vrps(text)
    spec = tomllib.loads(text)
    assert {a.customer: list(a.providers) for a in r.payloads.aspas} == {
        a["customer"]: sorted(a["providers"]) for a in spec["aspa"]}
    assert sorted(k.asn for k in r.payloads.router_keys) == sorted(k["asn"] for k in spec["router_key"])


@need_rpki_client
def test_rpki_client_agrees(synthetic):
    text, out, r = synthetic
    theirs = rpki_client(out, out / "ta.tal")
    assert theirs.vrps == {o.vrp for o in r.payloads.origins} == spec_vrps(text), theirs.log
    assert theirs.router_keys == sorted(k.asn for k in r.payloads.router_keys)
    assert theirs.aspas == {a.customer: list(a.providers) for a in r.payloads.aspas}, theirs.log
    assert theirs.log.strip() == ""  # it complained about nothing


@need_fort
def test_fort_agrees(synthetic):
    text, out, r = synthetic
    theirs = fort(out, out / "ta.tal")
    assert theirs.vrps == {o.vrp for o in r.payloads.origins} == spec_vrps(text)
    assert " ERR" not in theirs.log, theirs.log


# ---- 2. broken repositories -----------------------------------------------------------------------------
SPEC = """\
[repository]
base_uri = "rsync://rpki.example.net/repo/"
[[ca]]
name = "ta"
ip = ["192.0.2.0/24", "198.51.100.0/24", "2001:db8::/32"]
asn = ["64496-64511"]
[[ca]]
name = "isp1"
parent = "ta"
ip = ["192.0.2.0/24", "2001:db8::/32"]
asn = ["64496"]
[[ca]]
name = "isp2"
parent = "ta"
ip = ["198.51.100.0/24"]
asn = ["64497"]
[[roa]]
ca = "isp1"
asn = 64496
prefixes = ["192.0.2.0/24-24", "2001:db8::/32-48"]
[[roa]]
ca = "isp2"
asn = 64497
prefixes = ["198.51.100.0/24"]
"""
HOST = "rpki.example.net"
ISP2 = spec_vrps(SPEC) - {v for v in spec_vrps(SPEC) if v.asn == 64496}  # what survives a broken isp1


@dataclass
class Broken:
    """One way to break the repository: `breaker(out, t)` returns the name of the file to blame."""

    breaker: Callable[[Path, datetime], str]
    ours: str  # in our reason
    reference: str  # "rpki-client" or "fort"
    theirs: str  # in the reference's log
    vrps: set  # what is left valid


def _altered(out, t):
    roa = next(pub(out, "isp1").glob("*.roa"))
    data = bytearray(roa.read_bytes())
    data[-1] ^= 1
    roa.write_bytes(bytes(data))
    return roa.name


def _outside_ee(out, t):
    # the ROA says 192.0.2.0/24, its EE certificate holds only the lower half
    return add_roa(out, "isp1", 64511, ["192.0.2.0/24"], "192.0.2.0/25", t)


def _expired(out, t):
    return add_roa(out, "isp1", 64511, ["192.0.2.0/25"], "192.0.2.0/25", t,
                   not_before=t - timedelta(days=10), not_after=t - timedelta(days=1))


def _not_yet_valid(out, t):
    return add_roa(out, "isp1", 64511, ["192.0.2.0/25"], "192.0.2.0/25", t,
                   not_before=t + timedelta(days=1), not_after=t + timedelta(days=10))


def _stale_manifest(out, t):
    # the manifest's EE certificate is still valid: only the manifest's nextUpdate has passed
    resign_manifest(out, "isp1", t, this_update=t - timedelta(days=3), next_update=t - timedelta(days=1),
                    ee_not_after=t + timedelta(days=30))
    return next(pub(out, "isp1").glob("*.mft")).name


def _revoked(out, t):
    state_path = out / ".keys" / "state.json"
    state = json.loads(state_path.read_text())
    rec = next(v for v in state["objects"]["isp1"].values() if v["file"].endswith(".roa"))
    state["revoked"].setdefault("isp1", {})[str(rec["serial"])] = t.isoformat()
    state_path.write_text(json.dumps(state))
    build_repository(out.parent / "spec.toml", out, t + timedelta(seconds=1))
    return rec["file"]


def _missing_crl(out, t):
    crl = next(pub(out, "isp1").glob("*.crl"))
    crl.unlink()
    return crl.name


def _wrong_signature(out, t):
    return add_roa(out, "isp1", 64511, ["192.0.2.0/25"], "192.0.2.0/25", t, signer=build.new_rsa_key())


def _over_claiming(out, t):
    isp1, isp1_uri = ca_cert(out, "isp1")
    repo = isp1.sia[asn1.OID_AD_CA_REPOSITORY][0]
    key = build.new_rsa_key()
    spki = build.spki_der(key)
    name = build.ski_of(spki).hex() + ".cer"
    der = build.certificate(build.CertSpec(
        serial=9999, subject=build.name("greedy"), issuer=build.name("isp1"), spki=spki, not_before=t,
        not_after=t + timedelta(days=30), kind="ca", issuer_ski=isp1.ski,
        ip=IpResources.parse("192.0.2.0/24, 10.0.0.0/8"), asn=AsResources.parse("64496"),
        crldp=repo + next(pub(out, "isp1").glob("*.crl")).name,
        aia=isp1_uri,
        sia=[(asn1.OID_AD_CA_REPOSITORY, repo + "greedy/"), (asn1.OID_AD_RPKI_MANIFEST, repo + "greedy/g.mft")]),
        ca_key(out, "isp1"))
    (pub(out, "isp1") / name).write_bytes(der)
    resign_manifest(out, "isp1", t)
    return name


ALL = spec_vrps(SPEC)
BROKEN = {
    "altered-object": Broken(_altered, "want {f!r} to hash to", "rpki-client", "bad message digest for {f}", ISP2),
    "roa-outside-ee": Broken(_outside_ee, "ipAddrBlocks: want every prefix within the EE certificate's resources, "
                             "uncovered IP: 192.0.2.0/24", "rpki-client", "{f}: RFC 6482: uncovered IP: 192.0.2.0/24", ALL),
    "expired": Broken(_expired, "EE validity: want", "rpki-client", "{f}: certificate has expired", ALL),
    "not-yet-valid": Broken(_not_yet_valid, "EE validity: want", "rpki-client", "{f}: certificate is not yet valid", ALL),
    # rpki-client 8.2 crashes on a stale manifest too (signal 11, nothing written): FORT
    "stale-manifest": Broken(_stale_manifest, "nextUpdate: want a current manifest, it is stale", "fort",
                             "{f}: Manifest is stale", ISP2),
    "revoked-ee": Broken(_revoked, "revocation: want a certificate not revoked", "rpki-client",
                         "{f}: certificate revoked", ISP2),
    "missing-crl": Broken(_missing_crl, "CRL: publication point dropped", "fort", "{f}' listed at manifest", ISP2),
    "wrong-signature": Broken(_wrong_signature, "signatureValue: want a valid sha256WithRSAEncryption signature",
                              "rpki-client", "{f}: certificate signature failure", ALL),
    "over-claiming-child": Broken(_over_claiming, "uncovered IP: 10.0.0.0/8", "rpki-client", "{f}: RFC 3779 resource not subset of parent's resources", ALL),
}


@pytest.fixture(scope="module")
def built_at() -> datetime:
    """One time for every case, so that each breaks a copy of one build of SPEC (its ten keys take a second)."""
    return now()


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_repository(tmp_path, built_at, case):
    b = BROKEN[case]
    if b.reference == "rpki-client" and RPKI_CLIENT is None:
        pytest.skip(NO_RPKI_CLIENT)
    if b.reference == "fort" and FORT is None:
        pytest.skip(NO_FORT)
    t = built_at
    out = repository(tmp_path, SPEC, t)
    f = b.breaker(out, t)
    r = ours(out)
    assert r.rejected, case
    assert any(f in x.uri or f in x.reason for x in r.rejected), [x.reason for x in r.rejected]
    assert b.ours.format(f=f) in "\n".join(x.reason for x in r.rejected)
    assert {o.vrp for o in r.payloads.origins} == b.vrps
    theirs = rpki_client(out, out / "ta.tal") if b.reference == "rpki-client" else fort(out, out / "ta.tal")
    assert b.theirs.format(f=f).lower() in theirs.log.lower(), theirs.log
    assert theirs.vrps == b.vrps, theirs.log
