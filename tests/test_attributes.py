"""What operators set on routes, in the timed engine, on small graphs whose right answers are worked out
here by hand: AS path prepending and LOCAL_PREF per session (also changed mid-run), the BLACKHOLE
community (RFC 7999), aggregation (RFC 4271 section 9.2.2.2, RFC 9774), and how they go on the wire."""

import json
import shutil
import subprocess

import pytest

from bgpsim.cli import main

needs_tshark = pytest.mark.skipif(shutil.which("tshark") is None,
                                  reason="tshark is not installed (Debian package tshark)")


def _topology(tmp_path, name: str, ases: dict[int, list[int]], peers: dict[int, list[int]] | None = None) -> None:
    (tmp_path / f"{name}-topo.toml").write_text(f'name = "{name}"\n' + "".join(
        f"[[as]]\nasn = {a}\ncustomers = {cs}\n" + (f"peers = {peers[a]}\n" if peers and a in peers else "")
        for a, cs in ases.items()))


def _run(tmp_path, name: str, text: str, *flags: str) -> dict[str, tuple[str, str, str]]:
    """Run the scenario `text`; per AS: (outcome, prefix used, path)."""
    (tmp_path / f"{name}.toml").write_text(text)
    assert main(["run", str(tmp_path / f"{name}.toml"), "--out", str(tmp_path / name), "--quiet", "--no-figures", *flags]) == 0
    rows = [r.split(",") for r in (tmp_path / name / "ases.csv").read_text().splitlines()[1:]]
    return {r[0]: (r[3], r[6], r[7]) for r in rows}


def _marks(tmp_path, name: str) -> list[tuple[float, str]]:
    return [(m["time"], m["label"]) for m in json.loads((tmp_path / name / "result.json").read_text())["marks"]]


def _tshark(path, *fields) -> list[list[str]]:
    out = subprocess.run(["tshark", "-r", str(path), "-Y", "bgp.type == 2", "-T", "fields",
                          *[x for f in fields for x in ("-e", f)]], capture_output=True, text=True, check=True).stdout
    return [row.split("\t") for row in out.splitlines()]


# 1 is the provider of 2 and 3; 2 of 666 and 4; 3 of 777. 666 and 777 announce the same prefix.
YOUTUBE = {1: [2, 3], 2: [4, 666], 3: [777], 4: [], 666: [], 777: []}
EXACT = ('name = "{name}"\ntopology = "yt-topo.toml"\n[victim]\nasn = 777\nprefixes = ["192.0.2.0/24"]\n'
         '[attack]\nkind = "prefix"\nattacker = 666\nstart = 10.0\n')


def test_prepending_lengthens_the_path_and_turns_the_tie(tmp_path):
    """YouTube's answer in 2008, in small. 1 hears [2 666] and [3 777] from its customers: equal length,
    so the lower next hop, 2, wins and 1 follows the attacker. When 666 prepends once toward 2 (t = 100),
    1 hears [2 666 666], one AS longer, and takes [3 777]. 2 and 4 keep 666's route: it is still the
    only customer route 2 has."""
    _topology(tmp_path, "yt", YOUTUBE)
    before = _run(tmp_path, "before", EXACT.format(name="before"))
    assert before["1"] == ("attacker", "192.0.2.0/24", "1 2 666")
    text = EXACT.format(name="after") + '[[session]]\nasn = 666\nneighbour = 2\nprepend = 1\nat = 100.0\n'
    after = _run(tmp_path, "after", text)
    assert after["1"] == ("victim", "192.0.2.0/24", "1 3 777")
    assert after["2"] == ("attacker", "192.0.2.0/24", "2 666 666")
    assert after["4"] == ("attacker", "192.0.2.0/24", "4 2 666 666")
    assert (100.0, "AS666 prepends its AS 1 more time toward AS2") in _marks(tmp_path, "after")
    # prepending from the start: the same end, and the steady engine says it cannot
    text = EXACT.format(name="static") + '[[session]]\nasn = 666\nneighbour = 2\nprepend = 1\n'
    assert _run(tmp_path, "static", text)["1"][2] == "1 3 777"


def test_defences_see_a_prepended_as_once(tmp_path):
    """ASPA (everyone adopting, so every AS has a record) checks the AS hops of a path: [3 777 777 777]
    is 777's route through its provider 3, a valid upstream path once the repeats are one hop. Read
    as it stands, 777 -> 777 would be no link of the graph and the route would be dropped."""
    _topology(tmp_path, "yt", YOUTUBE)
    text = ('name = "aspa"\ntopology = "yt-topo.toml"\n[victim]\nasn = 777\nprefixes = ["192.0.2.0/24"]\n'
            '[defence]\npolicy = "aspa"\nadoption = 1.0\n'
            '[[session]]\nasn = 777\nneighbour = 3\nprepend = 2\n')
    got = _run(tmp_path, "aspa", text)
    assert got["1"] == ("victim", "192.0.2.0/24", "1 3 777 777 777")
    assert got["4"] == ("victim", "192.0.2.0/24", "4 2 1 3 777 777 777")


def test_local_pref_changed_mid_run(tmp_path):
    """3 is a customer of 1 and 2 and the provider of 777; 1 and 2 are also 777's providers. 3 takes
    [777] from its customer; at t = 50 it sets LOCAL_PREF 50 on that session (below a provider's 100),
    re-ranks what it holds, and takes [1 777] (1 beats 2 on the lower next hop)."""
    _topology(tmp_path, "lp", {1: [3, 777], 2: [3, 777], 3: [777], 777: []})
    text = ('name = "lp"\ntopology = "lp-topo.toml"\n[victim]\nasn = 777\nprefixes = ["192.0.2.0/24"]\n'
            '[[session]]\nasn = 3\nneighbour = 777\nlocal_pref = 50\nat = 50.0\n')
    got = _run(tmp_path, "lp", text)
    assert got["3"][2] == "3 1 777"
    assert (50.0, "AS3 sets LOCAL_PREF 50 on the routes from AS777") in _marks(tmp_path, "lp")


# 1 > 2 > 4 > {5, 777}, 1 > 3 > 666; 4 and 8 are peers, and 8 peers with 777 too.
BLACKHOLE = {1: [2, 3], 2: [4], 3: [666], 4: [5, 777], 5: [], 8: [], 666: [], 777: []}
SUBPREFIX = ('name = "{name}"\ntopology = "bh-topo.toml"\n[victim]\nasn = 777\nprefixes = ["192.0.2.0/24"]\n'
             '[attack]\nkind = "subprefix"\nattacker = 666\nstart = 10.0\nprefix = "192.0.2.0/25"\n'
             '[mitigation]\nstart = 100.0\ncommunity = "blackhole"\n')


def test_blackhole_drops_the_traffic_at_the_victims_provider(tmp_path):
    """666 hijacks 192.0.2.0/25; at t = 100, 777 announces the two /26s tagged BLACKHOLE to its provider
    4 only (not to its peer 8). 4 drops what it would have sent to 666 (its customer 5's too): both
    are disconnected. 1, 2 and 3 never hear the /26s (RFC 7999 section 3.2: the receiver keeps them)
    and still reach 666; 8 never had the /25 (4 gives provider routes to customers only) and reaches
    777 over the /24."""
    _topology(tmp_path, "bh", BLACKHOLE, peers={4: [8], 8: [777]})
    got = _run(tmp_path, "bh", SUBPREFIX.format(name="bh"), "--pcap", str(tmp_path / "bh.pcap"), "--pcap-ases", "777")
    assert got["4"] == ("disconnected", "192.0.2.0/26", "4 777")
    assert got["5"][0] == "disconnected"
    assert {got[a][0] for a in ("1", "2", "3")} == {"attacker"}
    assert got["8"] == ("victim", "192.0.2.0/24", "8 777")
    assert (100.0, "victim asks its providers to blackhole the more-specifics (BLACKHOLE, RFC 7999)") in _marks(tmp_path, "bh")
    if shutil.which("tshark"):  # tshark reads the communities off the wire
        tagged = {(row[1], row[0]) for row in _tshark(tmp_path / "bh.pcap", "bgp.update.path_attribute.community_wellknown",
                                                      "bgp.nlri_prefix") if row[0]}
        assert tagged == {("192.0.2.0", "0xffff029a,0xffffff01"), ("192.0.2.64", "0xffff029a,0xffffff01")}


# 1 > {2, 3}, 2 > {7, 8}: 7 announces 10.0.0.0/25 and 8 10.0.0.128/25; 2 aggregates 10.0.0.0/24.
AGGREGATE = ('name = "{name}"\ntopology = "agg-topo.toml"\ntarget = "10.0.0.1"\n'
             '[victim]\nasn = 7\nprefixes = ["10.0.0.0/25"]\n'
             '[[event]]\nat = 0.0\ntype = "originate"\nasn = 8\nprefix = "10.0.0.128/25"\n'
             '[[event]]\nat = 10.0\ntype = "aggregate"\nasn = 2\nprefix = "10.0.0.0/24"\nsummary_only = {summary}\n')


def test_an_aggregate_and_the_longest_match(tmp_path, capsys):
    """With summary_only, 2 withdraws the two /25s and announces the /24 as its own: 1 and 3 route
    10.0.0.1 by the /24 to 2, and 2 forwards it by the longest match, the /25, to 7. 8 gets the /24
    from 2 too (its own /25 does not cover 10.0.0.1). Without summary_only the /25s stay, and 3 uses
    7's /25; withdrawn, the aggregate takes the summary with it. On the wire the /24 carries ATOMIC_AGGREGATE and AGGREGATOR 2 (`bgpsim dump` prints AG,
    as bgpdump does), and no AS_SET."""
    _topology(tmp_path, "agg", {1: [2, 3], 2: [7, 8], 3: [], 7: [], 8: []})
    got = _run(tmp_path, "summary", AGGREGATE.format(name="summary", summary="true"),
               "--pcap", str(tmp_path / "agg.pcap"), "--pcap-ases", "1")
    assert got["3"] == ("victim", "10.0.0.0/24", "3 1 2")
    assert got["2"] == ("victim", "10.0.0.0/25", "2 7")
    assert got["8"] == ("victim", "10.0.0.0/24", "8 2")
    assert (10.0, "AS2 announces the aggregate 10.0.0.0/24 (ATOMIC_AGGREGATE, AGGREGATOR AS2) and stops "
                  "advertising its more-specifics") in _marks(tmp_path, "summary")
    both = _run(tmp_path, "both", AGGREGATE.format(name="both", summary="false"))
    assert both["3"] == ("victim", "10.0.0.0/25", "3 1 2 7")
    # withdrawn at t = 100: the summarised /25s go out again
    ended = _run(tmp_path, "ended", AGGREGATE.format(name="ended", summary="true")
                 + '[[event]]\nat = 100.0\ntype = "withdraw"\nasn = 2\nprefix = "10.0.0.0/24"\n')
    assert ended["3"] == ("victim", "10.0.0.0/25", "3 1 2 7") and ended["8"] == ("victim", "10.0.0.0/25", "8 2 7")

    capsys.readouterr()
    assert main(["dump", str(tmp_path / "agg.pcap")]) == 0
    lines = [x.split("|") for x in capsys.readouterr().out.splitlines() if "|A|" in x]
    aggregate = [x for x in lines if x[5] == "10.0.0.0/24"]
    assert aggregate and all(x[6] in ("2", "1 2") and x[11:14] == ["", "AG", "2 100.64.0.2"] for x in aggregate)
    assert all(x[12] == "NAG" for x in lines if x[5] != "10.0.0.0/24")
    if shutil.which("tshark"):
        rows = _tshark(tmp_path / "agg.pcap", "bgp.update.path_attribute.aggregator_as", "bgp.nlri_prefix")
        assert {(r[0], r[1]) for r in rows if r[0]} == {("2", "10.0.0.0")}


def test_an_aggregate_needs_its_own_roa(tmp_path):
    """RFC 6811 and RFC 9774: without an AS_SET the aggregate's origin is the aggregator, 2. With a
    ROA saying 10.0.0.0/24 (up to /25) is 7's, the aggregate is invalid: 3, deploying ROV, drops it
    and, with the /25s summarised away, has no route to 10.0.0.1; 1, without ROV, keeps it."""
    _topology(tmp_path, "agg", {1: [2, 3], 2: [7, 8], 3: [], 7: [], 8: []})
    text = (AGGREGATE.format(name="rov", summary="true") + '[defence]\npolicy = "rov"\nadopters = [3]\n'
            '[[roa]]\nprefix = "10.0.0.0/24"\nmax_length = 25\nasn = 7\n'
            '[[roa]]\nprefix = "10.0.0.128/25"\nasn = 8\n')
    got = _run(tmp_path, "rov", text)
    assert got["3"][0] == "disconnected"
    assert got["1"] == ("victim", "10.0.0.0/24", "1 2")


@needs_tshark
def test_prepending_under_bgpsec_is_pcount(tmp_path):
    """RFC 8205 section 3.1: a BGPsec speaker prepends by its segment's pCount, not by repeating it. All
    adopt with real signatures; 777 prepends twice toward 3. 1 verifies [3 777 777 777] as valid, and
    the capture of 3's sessions shows 777's segment with pCount 3."""
    _topology(tmp_path, "yt", YOUTUBE)
    text = ('name = "sec"\ntopology = "yt-topo.toml"\n[victim]\nasn = 777\nprefixes = ["192.0.2.0/24"]\n'
            '[defence]\npolicy = "bgpsec"\nadoption = 1.0\ncrypto = true\n'
            '[[session]]\nasn = 777\nneighbour = 3\nprepend = 2\n')
    got = _run(tmp_path, "sec", text, "--pcap", str(tmp_path / "sec.pcap"), "--pcap-ases", "3")
    assert got["1"] == ("victim", "192.0.2.0/24", "1 3 777 777 777")
    signed = {r.split(",")[0]: r.split(",") for r in (tmp_path / "sec" / "bgpsec.csv").read_text().splitlines()[1:]}
    assert signed["1"][2:6] == ["valid", "", "", "3 777"] and signed["4"][2] == "valid"
    prefix = "bgp.update.path_attribute.bgpsec.sps."
    rows = {(r[0], r[1]) for r in _tshark(tmp_path / "sec.pcap", prefix + "as", prefix + "pcount") if r[0]}
    assert ("777", "3") in rows and ("3,777", "1,3") in rows


def test_the_bundled_youtube_scenario(tmp_path):
    """teaching-youtube-2008: of the 28 source ASes, all follow the hijacked /48 at first; 13 still do
    once the victim announces the /48 too (they prefer the attacker's by relationship or path length);
    12 once it announces the /49s (the filters of three ASes keep them from the rest); 10 once the
    attacker prepends; none once its session is cut. Its provider keeps the attacker's customer route
    until then, however long."""
    from pathlib import Path

    scenario = Path(__file__).resolve().parent.parent / "scenarios" / "teaching-youtube-2008.toml"
    got = _run(tmp_path, "yt", scenario.read_text().replace('"topologies/', f'"{scenario.parent}/topologies/'))
    result = json.loads((tmp_path / "yt" / "result.json").read_text())
    rows = result["timeline"]

    def attacker_at(t):
        return round([r for r in rows if r[0] <= t][-1][1] * 28)

    assert [attacker_at(t) for t in (4800, 5500, 7400, 8000, 9000)] == [28, 13, 12, 10, 0]
    assert got["64508"][0] == "victim" and "AS64511 prepends its AS 1 more time toward AS64508" in result["scenario"]["attributes"][0]
