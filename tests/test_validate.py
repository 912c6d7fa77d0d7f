"""`bgpsim validate` on a real RIS update dump (updates.20160811.1600.gz, 39,256 announcements): every
announced route gets a row whose RPKI status equals the RFC 6811 definition (a linear scan of the
VRPs), counts agree with bgpdump's own output for the file, hand-made VRPs and ASPAs give the verdicts
worked out by hand, findings match what the dump's text shows, and bad input is one line, exit 2,
with no output directory left behind."""

from __future__ import annotations

import csv
import gzip
import ipaddress
import json
from collections import defaultdict

import pytest
from helpers import SHARED

from bgpsim.cli import main
from bgpsim.rpki.rov import VRP, _validate_slow

MRT = SHARED / "mrt" / "ripe_bgpdump_testdata"
DUMP = MRT / "updates.20160811.1600.gz"
EXPECTED = MRT / "expected_bgpdump_output" / "updates.20160811.1600.gz.bgp.gz"
# three routes of the dump (bgpdump -m lines 1-3) and what hand-made VRPs make of them:
#   2804:14d::/40 from AS28573; 192.140.252.0/22 and 103.213.236.0/22 from AS135310
VRPS = """ASN,IP Prefix,Max Length,Trust Anchor
AS28573,2804:14d::/32,40,hand
AS64500,192.140.252.0/22,22,hand
AS135310,103.213.0.0/16,20,hand
AS0,10.0.0.0/8,8,hand
"""


def need_data():
    if not DUMP.exists():
        pytest.skip(f"shared data not found: {DUMP}")


def lines():
    with gzip.open(EXPECTED, "rt") as f:
        return [line.rstrip("\n").split("|") for line in f]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    need_data()
    tmp = tmp_path_factory.mktemp("validate")
    (tmp / "vrps.csv").write_text(VRPS)
    out = tmp / "out"
    assert main(["validate", str(DUMP), "--vrps", str(tmp / "vrps.csv"), "--out", str(out), "--quiet"]) == 0
    with open(out / "routes.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return out, rows, json.loads((out / "summary.json").read_text())


def test_every_announcement_has_a_row(run):
    out, rows, doc = run
    announced = [p for p in lines() if p[2] == "A"]
    assert doc["routes"] == len(rows) == len(announced) == 39_256
    assert doc["withdrawals"] == sum(p[2] == "W" for p in lines())
    assert [(r["peer_ip"], r["prefix"], r["as_path"]) for r in rows] == [(p[3], p[5], p[6]) for p in announced]
    assert sum(doc["rpki"].values()) == doc["routes"]
    assert sum(p["routes"] for p in doc["by_peer"]) == doc["routes"]
    for name in ("findings.json", "report.html"):
        assert (out / name).stat().st_size > 0
    page = (out / "report.html").read_text()
    assert page.count("<svg ") == 3 and "data:image/png" not in page  # the figures inline SVG


def test_hand_made_vrps(run):
    _, rows, doc = run
    first = {r["prefix"]: r for r in rows[:3]}
    assert first["2804:14d::/40"]["rpki"] == "valid"
    assert first["192.140.252.0/22"]["rpki"] == "invalid-asn"
    assert "AS64500" in first["192.140.252.0/22"]["rpki_reason"] and "none for AS135310" in first["192.140.252.0/22"]["rpki_reason"]
    assert first["103.213.236.0/22"]["rpki"] == "invalid-length"
    assert "longer than maxLength 20" in first["103.213.236.0/22"]["rpki_reason"]
    assert doc["rpki"]["valid"] >= 1 and doc["top_invalid_origins"][0]["invalid"] >= 1


def test_status_equals_the_definition(run):
    """Every row against RFC 6811 computed by a linear scan of the VRPs."""
    _, rows, _ = run
    vrps = [VRP(ipaddress.ip_network(p), int(m), int(a[2:])) for a, p, m, _ in
            (line.split(",") for line in VRPS.splitlines()[1:])]
    for r in rows:
        prefix = ipaddress.ip_network(r["prefix"])
        covering = [v for v in vrps if v.prefix.version == prefix.version and prefix.subnet_of(v.prefix)]
        origin = int(r["origin_as"]) if r["origin_as"] else -1
        assert r["rpki"] == _validate_slow(covering, prefix, origin), r


def test_findings_match_the_text(run):
    out, rows, doc = run
    findings = json.loads((out / "findings.json").read_text())
    origins = defaultdict(set)
    for p in lines():
        if p[2] == "A" and not p[6].endswith("}"):
            origins[p[5]].add(int(p[6].split()[-1]))
    assert {f["prefix"] for f in findings if f["kind"] == "moas"} == {k for k, v in origins.items() if len(v) > 1}
    for f in findings:
        if f["kind"] == "loop":
            seq = [a for i, a in enumerate(f["path"].split()) if i == 0 or a != f["path"].split()[i - 1]]
            assert len(set(seq)) < len(seq)
        if f["kind"] == "private-asn":
            assert all(64512 <= a <= 65534 or a >= 4200000000 for a in f["asns"])
    assert doc["findings"]["moas"] == sum(f["kind"] == "moas" for f in findings) > 0
    loops = [f for f in findings if f["kind"] == "loop"]
    flagged = [r for r in rows if "loop" in r["findings"].split()]
    assert {r["as_path"] for r in flagged} == {f["path"] for f in loops}
    assert sum(f["routes"] for f in loops) == len(flagged) > 0


def test_aspa_file(tmp_path):
    """ASPAs from an rpki-client JSON: route 1's path 59689 6939 3356 4230 28573, seen downstream."""
    need_data()
    (tmp_path / "vrps.csv").write_text(VRPS)
    aspas = {"metadata": {"buildtime": "2016-08-11T16:00:00Z"}, "roas": [], "aspas": [
        {"customer_asid": 28573, "providers": [4230]}, {"customer_asid": 4230, "providers": [3356]},
        {"customer_asid": 59689, "providers": [6939]}]}
    (tmp_path / "aspa.json").write_text(json.dumps(aspas))
    out = tmp_path / "o"
    assert main(["validate", str(DUMP), "--vrps", str(tmp_path / "vrps.csv"), "--aspa", str(tmp_path / "aspa.json"),
                 "--out", str(out), "--quiet"]) == 0
    with open(out / "routes.csv", newline="") as f:
        first = next(csv.DictReader(f))
    # up 28573 -> 4230 -> 3356 attested; 3356 -> 6939 the apex (3356 published nothing); down 6939 -> 59689
    # attested by 59689: every AS on a ramp, so valid
    assert first["as_path"] == "59689 6939 3356 4230 28573" and first["aspa"] == "valid"
    doc = json.loads((out / "summary.json").read_text())
    assert doc["aspas"] == 3 and sum(doc["aspa"].values()) == doc["routes"]


@pytest.mark.parametrize("bad,expect", [
    (["--vrps", "VRPS", "NOFILE"], "missing.mrt: no such file"),
    (["--vrps", "/nonexistent.csv", "DUMP"], "nonexistent.csv"),
    (["--vrps", "VRPS", "NOTMRT"], "not an MRT file"),
])
def test_bad_input(tmp_path, capsys, bad, expect):
    need_data()
    (tmp_path / "vrps.csv").write_text(VRPS)
    (tmp_path / "notmrt").write_text("hello, this is not a route dump\n" * 10)
    subst = {"VRPS": str(tmp_path / "vrps.csv"), "NOFILE": str(tmp_path / "missing.mrt"), "DUMP": str(DUMP),
             "NOTMRT": str(tmp_path / "notmrt")}
    out = tmp_path / "out"
    assert main(["validate", *[subst.get(a, a) for a in bad], "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expect in err, err
    assert not out.exists()  # nothing half-written


def test_a_capture_and_bgpdump_text(tmp_path):
    """The other inputs: a pcapng of a BGP session, and bgpdump -m text (bgpdump's own output for
    the dump above gives the same rows as the dump itself)."""
    need_data()
    (tmp_path / "vrps.csv").write_text(VRPS)
    cap = SHARED / "pcap" / "eveng_bgp.pcapng"
    assert main(["validate", str(cap), "--vrps", str(tmp_path / "vrps.csv"), "--out", str(tmp_path / "c"),
                 "--quiet"]) == 0
    doc = json.loads((tmp_path / "c" / "summary.json").read_text())
    # 10.20.71.24/30 falls under the AS0 VRP 10.0.0.0/8; the rest no VRP covers
    assert doc["routes"] == 5 and doc["rpki"]["not-found"] == 4 and doc["rpki"]["invalid-asn"] == 1
    assert main(["validate", str(EXPECTED), "--vrps", str(tmp_path / "vrps.csv"), "--out", str(tmp_path / "t"),
                 "--quiet"]) == 0
    doc = json.loads((tmp_path / "t" / "summary.json").read_text())
    assert doc["routes"] == 39_256 and doc["rpki"]["invalid-length"] >= 1


def test_findings_replay_as_scenarios(tmp_path, capsys):
    """With relationships, MOAS and sub-prefix conflicts become scenarios that `bgpsim run` replays
    on the same graph."""
    need_data()
    caida = SHARED / "caida" / "20250901.as-rel2.txt.bz2"
    (tmp_path / "vrps.csv").write_text(VRPS)
    bogon = tmp_path / "bogon.txt"  # a special-purpose prefix (synthetic line, bgpdump -m)
    bogon.write_text("BGP4MP|1470931200|A|37.49.236.123|198290|10.0.0.0/8|198290 6661 2914|IGP|37.49.236.123|0|0||NAG||\n")
    out = tmp_path / "o"
    assert main(["validate", str(DUMP), str(bogon), "--vrps", str(tmp_path / "vrps.csv"), "--relationships", str(caida),
                 "--out", str(out), "--quiet"]) == 0
    findings = json.loads((out / "findings.json").read_text())
    replayed = [f for f in findings if "scenario" in f]
    assert replayed and all(f["kind"] in ("moas", "subprefix") for f in replayed)
    assert sorted(p.name for p in (out / "scenarios").iterdir()) == sorted(f["scenario"][10:] for f in replayed)
    doc = json.loads((out / "summary.json").read_text())
    assert doc["aspa"] is not None and doc["findings"]["leak"] > 0  # relationships stand in for ASPA
    with open(out / "routes.csv", newline="") as fh:  # every path judged: a bogon's finding after the path's, if any
        kinds = [row["findings"] for row in csv.DictReader(fh) if "bogon-prefix" in row["findings"]]
    assert kinds == ["bogon-prefix"]
    f = next(f for f in replayed if f["kind"] == "subprefix")
    from bgpsim.sim.scenario import load_scenario

    scn = load_scenario(out / f["scenario"])
    assert scn.attack.kind == "subprefix" and scn.attack.attacker == f["origin"]
    assert str(scn.attack.prefix) == f["prefix"] and scn.victim == f["covering_origins"][0]
    capsys.readouterr()
    assert main(["run", str(out / f["scenario"]), "--engine", "steady", "--out", str(tmp_path / "run")]) == 0


def test_what_goes_to_standard_output(run, tmp_path, capsys):
    """--format csv prints routes.csv, --format json summary.json, the default a table naming the
    counts (and --quiet nothing); each still writes every file."""
    out, _, doc = run
    vrps = tmp_path / "vrps.csv"
    vrps.write_text(VRPS)
    printed = {}
    for fmt in ("csv", "json", "table"):
        assert main(["validate", str(DUMP), "--vrps", str(vrps), "--out", str(tmp_path / fmt), "--format", fmt]) == 0
        printed[fmt] = capsys.readouterr().out
        for name in ("summary.json", "routes.csv", "findings.json", "report.html"):
            assert (tmp_path / fmt / name).read_bytes() == (out / name).read_bytes(), (fmt, name)
    assert printed["csv"] == (out / "routes.csv").read_text()
    assert json.loads(printed["json"]) == doc
    table = printed["table"].splitlines()
    assert table[0].startswith(f"{doc['routes']:,} announced routes ({doc['withdrawals']:,} withdrawals)")
    assert any(line.split()[:2] == ["valid", f"{doc['rpki']['valid']:,}"] for line in table)


def test_the_command_ends_at_once_with_its_output_whole(run, tmp_path):
    """As the `bgpsim` command (bgpsim.cli.run, which ends the process without the interpreter's
    teardown): standard output flushed, the output directory whole, the exit status kept."""
    import subprocess
    import sys

    out, rows, doc = run
    (tmp_path / "vrps.csv").write_text(VRPS)
    cmd = [sys.executable, "-m", "bgpsim.cli", "validate", str(DUMP), "--vrps", str(tmp_path / "vrps.csv"),
           "--out", str(tmp_path / "out")]
    done = subprocess.run(cmd + ["--format", "json"], capture_output=True, text=True)
    assert done.returncode == 0 and json.loads(done.stdout) == doc
    assert (tmp_path / "out" / "routes.csv").read_bytes() == (out / "routes.csv").read_bytes()
    bad = subprocess.run(cmd[:-4] + ["--vrps", str(tmp_path / "none.csv"), "--out", str(tmp_path / "x")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "none.csv" in bad.stderr


@pytest.mark.parametrize("name", ["updates.20070211.0141.gz", "updates.et-header.2015.gz"])
def test_as_set_findings_are_bgpdumps_as_set_paths(tmp_path, name):
    """RFC 9774: a path holding an AS_SET is an `as-set` finding. A path ending in one has the origin
    NONE (RFC 6811), so a covering VRP makes its route invalid. bgpdump's own output for the dump says which paths hold
    one (written {a,b}) and how many announcements carry them."""
    dump, expected = MRT / name, MRT / "expected_bgpdump_output" / f"{name}.bgp.gz"
    if not dump.exists():
        pytest.skip(f"shared data not found: {dump}")
    with gzip.open(expected, "rt") as f:
        theirs = [p[6] for p in (line.rstrip("\n").split("|") for line in f) if p[2] == "A" and "{" in p[6]]
    (tmp_path / "vrps.csv").write_text("ASN,IP Prefix,Max Length,Trust Anchor\nAS64500,0.0.0.0/0,32,hand\nAS64500,::/0,128,hand\n")
    out = tmp_path / "out"
    assert main(["validate", str(dump), "--vrps", str(tmp_path / "vrps.csv"), "--out", str(out), "--quiet"]) == 0
    found = [f for f in json.loads((out / "findings.json").read_text()) if f["kind"] == "as-set"]
    assert {f["path"] for f in found} == set(theirs) and sum(f["routes"] for f in found) == len(theirs) > 0
    with open(out / "routes.csv", newline="") as f:
        marked = [r for r in csv.DictReader(f) if "as-set" in r["findings"].split()]
    assert len(marked) == len(theirs) and {r["rpki"] for r in marked} == {"invalid-asn"}
    # the origin is NONE when the path ends in the AS_SET (RFC 6811 section 2), else the last AS
    assert all((r["origin_as"] == "") == r["as_path"].endswith("}") for r in marked)


def test_the_origin_after_a_confederation_segment_is_the_speakers(tmp_path):
    """RFC 6811 section 2: a path ending in AS_CONFED_SEQUENCE or AS_CONFED_SET (like an empty one)
    has the speaker's own AS as its origin: in a dump, the peer's. One ending in an AS_SET has NONE."""
    text = tmp_path / "confed.txt"
    head = "BGP4MP|1445565695|A|192.0.2.1|64500|"
    text.write_text("".join(f"{head}{prefix}|{path}|IGP|192.0.2.1|0|0||NAG||\n" for prefix, path in [
        ("10.1.0.0/16", "(65001 65002)"), ("10.2.0.0/16", "64501 [65001,65002]"), ("10.3.0.0/16", "(65001) 64501"),
        ("10.4.0.0/16", "64501 {64502,64503}")]))
    (tmp_path / "vrps.csv").write_text("ASN,IP Prefix,Max Length,Trust Anchor\nAS64500,10.0.0.0/8,16,hand\n")
    out = tmp_path / "out"
    assert main(["validate", str(text), "--vrps", str(tmp_path / "vrps.csv"), "--out", str(out), "--quiet"]) == 0
    with open(out / "routes.csv", newline="") as f:
        got = [(r["prefix"], r["origin_as"], r["rpki"]) for r in csv.DictReader(f)]
    assert got == [("10.1.0.0/16", "64500", "valid"), ("10.2.0.0/16", "64500", "valid"),
                   ("10.3.0.0/16", "64501", "invalid-asn"), ("10.4.0.0/16", "", "invalid-asn")]


# ASPA's direction per peer (draft-ietf-sidrops-aspa-verification-28 sections 5.5, 5.6), by hand.
# ASPAs: 64500's provider is 64510, 64510's is 64520 (64520 published none). Each row: the peer that
# sent it, its path, and the verdicts with that peer as a customer (upstream), a provider
# (downstream), a route server (upstream, no neighbour check) and of unknown role (downstream).
ROLE_ROWS = [
    # an attested climb: valid every way
    ("10.0.1.0/24", 64510, "64510 64500", {"customer": "valid", "provider": "valid", "route-server": "valid", None: "valid"}),
    # 64520 is not 64500's provider: a leak upstream; downstream two ASes always pass (each ramp 1)
    ("10.0.2.0/24", 64520, "64520 64500", {"customer": "invalid", "provider": "valid", "route-server": "invalid",
                                           None: "valid"}),
    # 64550 published no ASPA: unknown upstream; downstream two ASes pass
    ("10.0.3.0/24", 64520, "64520 64550", {"customer": "unknown", "provider": "valid", "route-server": "unknown",
                                                 None: "valid"}),
    # the first AS is not the peer's: invalid but from a route server, which adds no AS
    ("10.0.4.0/24", 64520, "64510 64500", {"customer": "invalid", "provider": "invalid", "route-server": "valid",
                                           None: "invalid"}),
    # prepends compressed first
    ("10.0.5.0/24", 64510, "64510 64510 64500 64500", {"customer": "valid", "provider": "valid",
                                                        "route-server": "valid", None: "valid"}),
    # an AS_SET: invalid every way
    ("10.0.6.0/24", 64510, "64510 {64500,64501}", {"customer": "invalid", "provider": "invalid",
                                                   "route-server": "invalid", None: "invalid"}),
    # an empty path from an eBGP peer: invalid
    ("10.0.7.0/24", 64510, "", {"customer": "invalid", "provider": "invalid", "route-server": "invalid", None: "invalid"}),
]


@pytest.mark.parametrize("role", ["customer", "provider", "route-server", None])
def test_aspa_direction_follows_the_peers_role(tmp_path, role):
    (tmp_path / "d.txt").write_text("".join(f"BGP4MP|1445565695|A|192.0.2.{peer % 256}|{peer}|{prefix}|{path}|IGP|192.0.2.1|0|0||NAG||\n"
                                            for prefix, peer, path, _ in ROLE_ROWS))
    (tmp_path / "vrps.csv").write_text("ASN,IP Prefix,Max Length,Trust Anchor\n")
    (tmp_path / "aspa.json").write_text(json.dumps({"metadata": {"buildtime": "2015-10-23T02:00:00Z"}, "roas": [], "aspas": [
        {"customer_asid": 64500, "providers": [64510]}, {"customer_asid": 64510, "providers": [64520]}]}))
    out = tmp_path / "out"
    roles = ["--peer-role", f"{role}:64510,64520"] if role else []
    assert main(["validate", str(tmp_path / "d.txt"), "--vrps", str(tmp_path / "vrps.csv"), "--aspa",
                 str(tmp_path / "aspa.json"), *roles, "--out", str(out), "--quiet"]) == 0
    with open(out / "routes.csv", newline="") as f:
        got = {r["prefix"]: r["aspa"] for r in csv.DictReader(f)}
    assert got == {prefix: want[role] for prefix, _, _, want in ROLE_ROWS}
    doc = json.loads((out / "summary.json").read_text())
    assert doc["aspa_unplaced"] == (len(ROLE_ROWS) if role is None else 0)


def test_peer_roles_from_the_relationships(tmp_path):
    """--collector-as with --relationships: 64510 is the collector's customer there (upstream), 64520
    its provider (downstream), and a peer the file does not link to it is unplaced."""
    (tmp_path / "rel.txt").write_text("64520|64530|-1\n64530|64510|-1\n64510|64500|-1\n64540|64500|-1\n")
    (tmp_path / "d.txt").write_text(
        "BGP4MP|1445565695|A|192.0.2.1|64520|10.0.2.0/24|64520 64500|IGP|192.0.2.1|0|0||NAG||\n"
        "BGP4MP|1445565695|A|192.0.2.2|64510|10.0.1.0/24|64510 64540 64500|IGP|192.0.2.1|0|0||NAG||\n"
        "BGP4MP|1445565695|A|192.0.2.3|64540|10.0.3.0/24|64540 64510 64500|IGP|192.0.2.1|0|0||NAG||\n")
    (tmp_path / "vrps.csv").write_text("ASN,IP Prefix,Max Length,Trust Anchor\n")
    out = tmp_path / "out"
    assert main(["validate", str(tmp_path / "d.txt"), "--vrps", str(tmp_path / "vrps.csv"), "--relationships",
                 str(tmp_path / "rel.txt"), "--collector-as", "64530", "--out", str(out), "--quiet"]) == 0
    with open(out / "routes.csv", newline="") as f:
        got = {r["prefix"]: r["aspa"] for r in csv.DictReader(f)}
    # the relationships stand in for ASPAs: 64500's providers are 64510 and 64540; 64510's 64530
    assert got == {"10.0.2.0/24": "valid",  # from a provider: two ASes pass downstream
                   "10.0.1.0/24": "invalid",  # from a customer: 64540 is not 64510's provider
                   "10.0.3.0/24": "valid"}  # unplaced (64540 is not linked to 64530): downstream, the apex 64510
    assert json.loads((out / "summary.json").read_text())["aspa_unplaced"] == 1


@pytest.mark.parametrize("args, expect", [
    (["--peer-role", "cousin:64510"], "--peer-role 'cousin:64510': want ROLE:ASN"),
    (["--peer-role", "customer:AS64510,x"], "'x' is not an AS number"),
    (["--peer-role", "customer:64510", "--peer-role", "provider:64510"], "AS64510 is given two roles"),
    (["--collector-as", "64530"], "--collector-as: the peers' roles come from --relationships"),
])
def test_bad_peer_roles_are_one_line(tmp_path, capsys, args, expect):
    (tmp_path / "d.txt").write_text("BGP4MP|1445565695|A|192.0.2.1|64520|10.0.2.0/24|64520 64500|IGP|192.0.2.1|0|0||NAG||\n")
    (tmp_path / "vrps.csv").write_text("ASN,IP Prefix,Max Length,Trust Anchor\n")
    assert main(["validate", str(tmp_path / "d.txt"), "--vrps", str(tmp_path / "vrps.csv"), *args,
                 "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and expect in err[0] and not (tmp_path / "o").exists()


def test_one_routes_verdict_is_the_batchs():
    """The monitor's watch alerts judge route by route (roles.verify_route): the same verdicts as the
    table above, which routes.csv gives batch by batch."""
    from bgpsim.rpki.aspa_path import AspaTable
    from bgpsim.validate.roles import ROLES, UNPLACED, verify_route

    aspa = AspaTable({64500: [64510], 64510: [64520]})
    for _, peer, text, want in ROLE_ROWS:
        path = tuple(tuple(int(x) for x in t.strip("{}").split(",")) if t.startswith("{") else int(t) for t in text.split())
        assert {role: verify_route(aspa, path, peer, UNPLACED if role is None else ROLES[role]) for role in want} == want


def test_standard_input_is_a_dump(run, tmp_path, monkeypatch, capsys):
    """`bgpsim validate -` (FILE '-', as the README's table of arguments has it): the dump on standard
    input gives the routes.csv and counts of the same dump named as a file; its summary names it
    <stdin>; '-' given twice is one line and exit status 2."""
    import io
    import sys

    out, _, doc = run
    (tmp_path / "vrps.csv").write_text(VRPS)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(DUMP.read_bytes())))
    assert main(["validate", "-", "--vrps", str(tmp_path / "vrps.csv"), "--out", str(tmp_path / "in"), "--quiet"]) == 0
    assert (tmp_path / "in" / "routes.csv").read_bytes() == (out / "routes.csv").read_bytes()
    got = json.loads((tmp_path / "in" / "summary.json").read_text())
    assert got["files"] == ["<stdin>"] and doc["files"] == [str(DUMP)]
    assert {k: v for k, v in got.items() if k != "files"} == {k: v for k, v in doc.items() if k != "files"}
    capsys.readouterr()
    assert main(["validate", "-", "-", "--vrps", str(tmp_path / "vrps.csv"), "--out", str(tmp_path / "twice")]) == 2
    err = capsys.readouterr().err
    assert "standard input" in err and len(err.splitlines()) == 1 and not (tmp_path / "twice").exists()
