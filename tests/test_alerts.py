"""The monitors, worked by hand: each kind of alert from routes written here (synthetic RIS Live
UPDATEs, documentation prefixes and ASNs), through the Watcher a monitor runs, with the watch list's
settings (squashing by peers and window, visibility share, valid origins); and a real dump replayed,
its alerts held against what `bgpsim validate` finds in it."""

from __future__ import annotations

import ipaddress
import json
import re

import pytest

from bgpsim.base.errors import InputError
from bgpsim.live.alerts import Watcher
from bgpsim.live.rislive import Reader
from bgpsim.live.watch import load_watch
from bgpsim.rpki.rov import VRP, VRPTable

READER = Reader()
READER.watch([ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")], [])  # every route
OWN = "198.51.100.0/24"


def routes(prefix: str, path: list, peer: str = "192.0.2.1", when: float = 1000.0, withdraw: bool = False):
    data = {"timestamp": when, "peer": peer, "peer_asn": str(path[0] if path else 64496), "type": "UPDATE"}
    if withdraw:
        data["withdrawals"] = [prefix]
    else:
        data.update(path=path, origin="IGP", announcements=[{"next_hop": peer, "prefixes": [prefix]}])
    READER.read(json.dumps(data).encode(), "test")
    routes = READER.watched()[1]
    READER.undo()
    return routes


def peer_down(peer: str, when: int):
    return READER.peer_state(READER.read(json.dumps({"timestamp": when, "peer": peer, "peer_asn": "64496",
                                                      "type": "RIS_PEER_STATE", "state": "down"}).encode(), "t")[5])


def watcher(tmp_path, text: str, vrps=None, warn=None, **kw) -> Watcher:
    (tmp_path / "watch.toml").write_text(text)
    return Watcher(load_watch(str(tmp_path / "watch.toml"), warn), vrps, **kw)


def feed(w: Watcher, prefix, path, peer="192.0.2.1", when=1000.0, withdraw=False) -> list[dict]:
    out = []
    for r in routes(prefix, path, peer, when, withdraw):
        out += w.withdraw(r, when) if withdraw else w.check(r, when)
    return out


def kinds(alerts) -> list[tuple]:
    return [(a["kind"], a["prefix"], a["observed_origin"]) for a in alerts]


OWNED = f'[[prefix]]\nprefix = "{OWN}"\ndescription = "ours"\norigins = [64510]\n'


def test_hijacks_and_as_sets(tmp_path):
    w = watcher(tmp_path, OWNED)
    assert feed(w, OWN, [64496, 64510]) == []  # the owner
    assert kinds(feed(w, OWN, [64496, 64511])) == [("prefix-hijack", OWN, 64511)]
    assert kinds(feed(w, "198.51.100.128/25", [64496, 64511])) == [("subprefix-hijack", "198.51.100.128/25", 64511)]
    a = feed(w, OWN, [64496, [64510, 64512, 64513]])  # an AS_SET at the end: no origin, its strangers named
    assert kinds(a) == [("prefix-hijack", OWN, None)] and a[0]["detail"] == {"as_set": [64512, 64513]}
    assert a[0]["path"] == "64496 {64510,64512,64513}"
    b = feed(w, OWN, [64496, [64510, 64514]])  # another foreign AS_SET: an alert of its own
    assert b[0]["detail"] == {"as_set": [64514]}
    assert feed(w, OWN, [64496, [64510]]) == []  # a set of the owner alone


def test_a_valid_new_origin_is_no_hijack_unless_asked(tmp_path):
    vrps = VRPTable([VRP(ipaddress.ip_network(OWN), 24, 64510), VRP(ipaddress.ip_network(OWN), 24, 64520)])
    w = watcher(tmp_path, OWNED, vrps)
    assert feed(w, OWN, [64496, 64520]) == []  # the holder registered AS64520: a new origin, not a hijack
    assert kinds(feed(w, OWN, [64496, 64521])) == [("prefix-hijack", OWN, 64521)]
    w = watcher(tmp_path, "[settings]\nalert_valid_origins = true\n" + OWNED, vrps)
    a = feed(w, OWN, [64496, 64520])
    assert kinds(a) == [("prefix-hijack", OWN, 64520)] and a[0]["rpki"] == "valid"
    assert a[0]["detail"] == {"vrps": ["198.51.100.0/24 max 24 AS64520"]}


def test_more_specifics_and_learnt_origins(tmp_path):
    w = watcher(tmp_path, OWNED + '\n[[prefix]]\nprefix = "203.0.113.0/24"\n')
    assert kinds(feed(w, "198.51.100.0/25", [64496, 64510])) == [("more-specific", "198.51.100.0/25", 64510)]
    assert feed(w, "203.0.113.0/24", [64496, 64501]) == []  # learnt
    assert kinds(feed(w, "203.0.113.0/24", [64496, 64502])) == [("new-origin", "203.0.113.0/24", 64502)]


def test_path_rules(tmp_path):
    w = watcher(tmp_path, OWNED + '[[prefix.path]]\nmatch = "^64496,"\nnot_match = "64666"\ndescription = "via A"\n'
                '[[prefix.path]]\nmax_length = 2\ndescription = "short"\n')
    a = feed(w, OWN, [64496, 64499, 64510])
    assert [(x["kind"], x["detail"]) for x in a] == [("path-match", {"rule": "via A"})]
    assert feed(w, OWN, [64496, 64666, 64510]) == []  # not_match holds
    assert [x["detail"] for x in feed(w, OWN, [64497, 64510])] == [{"rule": "short"}]


def test_path_neighbours(tmp_path):
    w = watcher(tmp_path, '[[asn]]\nasn = 64510\nupstreams = [64496]\ndownstreams = []\n\n'
                          '[[asn]]\nasn = 64520\n')  # no lists: its neighbours are not checked
    assert [a for a in feed(w, "203.0.113.0/24", [64496, 64510, 64510]) if a["kind"].startswith("new-")] == []
    a = feed(w, "203.0.113.0/24", [64497, 64510, 64530])  # an upstream not listed; any downstream is new
    assert [(x["kind"], x["detail"]["neighbour"]) for x in a if x["kind"].startswith("new-")] == [
        ("new-upstream", 64497), ("new-downstream", 64530)]
    assert a[0]["watched"] == "AS64510"
    assert feed(w, "192.0.2.0/24", [64497, 64520, 64531]) == []


def test_a_watched_as_announcing_what_the_list_does_not_hold(tmp_path):
    w = watcher(tmp_path, OWNED + "\n[[asn]]\nasn = 64510\n")
    assert feed(w, OWN, [64496, 64510]) == []
    assert kinds(feed(w, "10.10.0.0/16", [64496, 64510])) == [("unlisted-prefix", "10.10.0.0/16", 64510)]


def test_the_rpki_status_of_our_own_routes(tmp_path):
    vrps = VRPTable([VRP(ipaddress.ip_network(OWN), 24, 64510)])
    w = watcher(tmp_path, '[[prefix]]\nprefix = "198.51.100.0/23"\norigins = [64510]\nmore_specifics = true\n', vrps)
    a = feed(w, "198.51.101.0/24", [64496, 64510])  # no VRP covers it: quiet by default
    assert a == []
    w = watcher(tmp_path, '[settings]\nalert_not_found = true\n[[prefix]]\nprefix = "198.51.100.0/22"\n'
                'origins = [64510]\nmore_specifics = true\n', vrps)
    assert [(x["kind"], x["detail"]) for x in feed(w, "198.51.101.0/24", [64496, 64510])] == [
        ("rpki-not-found", {"state": "not-found"})]
    vrps = VRPTable([VRP(ipaddress.ip_network("198.51.100.0/22"), 22, 64510)])
    w = watcher(tmp_path, '[[prefix]]\nprefix = "198.51.100.0/22"\norigins = [64510]\nmore_specifics = true\n', vrps)
    assert [(x["kind"], x["detail"]) for x in feed(w, OWN, [64496, 64510])] == [
        ("rpki-invalid", {"state": "invalid-length"})]


def test_visibility_lost_and_back(tmp_path):
    w = watcher(tmp_path, "[settings]\nvisibility = 0.5\n" + OWNED)
    peers = [f"192.0.2.{i}" for i in range(1, 5)]
    for p in peers:
        assert feed(w, OWN, [64496, 64510], peer=p) == []
    assert feed(w, OWN, [], peer=peers[0], withdraw=True) == []  # 3 of 4 still see it
    assert feed(w, OWN, [], peer=peers[1], withdraw=True) == []  # 2 of 4: half
    a = feed(w, OWN, [], peer=peers[2], when=1010.0, withdraw=True)  # 1 of 4: lost
    assert [(x["kind"], x["detail"]) for x in a] == [("visibility-loss", {"visible_from": 1, "announced_by": 4})]
    a = feed(w, OWN, [64496, 64510], peer=peers[0], when=1020.0)  # 2 of 4: half again, visible again
    assert [(x["kind"], x["first_seen"], x["detail"]) for x in a] == [
        ("visible-again", 1020.0, {"visible_from": 2, "announced_by": 4})]
    assert feed(w, OWN, [64496, 64510], peer=peers[1], when=1030.0) == []  # 3 of 4
    # a collector peer's session going down takes its routes with it
    down = peer_down(peers[0], 1040)
    assert w.peer_down(down, 1040) == []  # 2 of 4
    down = peer_down(peers[1], 1050)
    assert [x["kind"] for x in w.peer_down(down, 1050)] == ["visibility-loss"]


def test_alerts_wait_for_peers_and_gather_repeats_over_the_window(tmp_path):
    w = watcher(tmp_path, "[settings]\nmin_peers = 2\nwindow = 100\n" + OWNED)
    assert feed(w, OWN, [64496, 64511], peer="192.0.2.1", when=1000) == []  # one peer: not yet
    assert feed(w, OWN, [64496, 64511], peer="192.0.2.1", when=1010) == []  # the same peer again
    a = feed(w, OWN, [64497, 64511], peer="192.0.2.2", when=1020)
    assert [(x["kind"], x["first_seen"], x["last_seen"], x["count"], x["peers"]) for x in a] == [
        ("prefix-hijack", 1000, 1020, 3, ["192.0.2.1", "192.0.2.2"])]
    assert feed(w, OWN, [64498, 64511], peer="192.0.2.3", when=1090) == []  # within the window: gathered
    rec = next(iter(w.alerts.values()))
    assert (rec.count, rec.last_seen, len(rec.peers)) == (4, 1090, 3)
    assert feed(w, OWN, [64496, 64511], peer="192.0.2.1", when=1200) == []  # a new window, one peer so far
    assert len(feed(w, OWN, [64497, 64511], peer="192.0.2.2", when=1201)) == 1


def test_the_watch_file(tmp_path):
    said = []
    w = watcher(tmp_path, '[[prefix]]\nprefix = "198.51.100.7/24"\norigins = [64510]\n', warn=said.append)
    assert str(w.watched[0].prefix) == OWN and said == [f"{tmp_path / 'watch.toml'}: prefix[0].prefix: "
                                                        "198.51.100.7/24 has host bits set: read as 198.51.100.0/24"]
    for text, where in (('[[prefix]]\nprefix = "198.51.100.0/24"\n[[prefix.path]]\nmatch = "("\n', "prefix[0].path[0].match"),
                        ('[[prefix]]\nprefix = "198.51.100.0/24"\ngroup = "a b"\n', "prefix[0].group"),
                        ('[[asn]]\nasn = 64510\nupstreams = "x"\n', "asn[0].upstreams"),
                        ('[settings]\nvisibility = 2\n[[asn]]\nasn = 1\n', "settings.visibility"),
                        ('[[prefix]]\nprefix = "198.51.100.0/24"\n[[prefix]]\nprefix = "198.51.100.0/24"\n',
                         "prefix[1].prefix")):
        with pytest.raises(InputError, match=f"watch.toml:.*{re.escape(where)}: want"):
            watcher(tmp_path, text)


def test_a_real_dump_replayed_alerts_where_validate_finds_invalid_routes(tmp_path):
    """updates.20160811.1600.gz with synthetic VRPs for twenty of its prefixes (ten held by their real
    origins, ten by AS64500, so that the real routes are invalid), a watch file made from the VRPs by
    `bgpsim rpki watch-file`, and the dump replayed through the monitor: the hijack alerts are the
    routes `bgpsim validate` finds invalid-asn, and the rpki-invalid alerts those it finds
    invalid-length, (prefix, origin) for (prefix, origin)."""
    import csv
    import subprocess
    import sys

    from helpers import SHARED
    from bgpsim.mrt import read_routes

    dump = SHARED / "mrt" / "ripe_bgpdump_testdata" / "updates.20160811.1600.gz"
    if not dump.exists():
        pytest.skip(f"shared data not found: {dump}")
    seen: dict = {}
    for r in read_routes(str(dump)):
        if r.kind == "announce" and ":" not in r.prefix and 16 <= int(r.prefix.split("/")[1]) <= 24 and r.attrs.origin_as > 0:
            seen.setdefault(r.prefix, r.attrs.origin_as)
    nets = sorted((ipaddress.ip_network(p) for p in seen), key=lambda n: (int(n.network_address), n.prefixlen))
    chosen: list = []
    for n in nets[::37]:
        if not any(n.overlaps(c) for c in chosen):
            chosen.append(n)
    chosen = chosen[:20]
    lines = ["ASN,IP Prefix,Max Length,Trust Anchor"]
    owners = set()
    for i, n in enumerate(chosen):
        owner = seen[str(n)] if i % 2 else 64500
        owners.add(owner)
        lines.append(f"AS{owner},{n},{n.prefixlen},synthetic")
    (tmp_path / "vrps.csv").write_text("\n".join(lines) + "\n")
    run = lambda *a: subprocess.run([sys.executable, "-m", "bgpsim", *map(str, a)], capture_output=True, text=True,
                                    timeout=300)
    asns = [x for o in sorted(owners) for x in ("--asn", o)]
    made = run("rpki", "watch-file", *asns, "--vrps", tmp_path / "vrps.csv", "--out", tmp_path / "watch.toml")
    assert made.returncode == 0, made.stderr
    mon = run("monitor", "--replay", dump, "--vrps", tmp_path / "vrps.csv", "--watch", tmp_path / "watch.toml",
              "--out", tmp_path / "mon", "--quiet")
    assert mon.returncode == 0, mon.stderr
    val = run("validate", dump, "--vrps", tmp_path / "vrps.csv", "--out", tmp_path / "val", "--quiet")
    assert val.returncode == 0, val.stderr
    with open(tmp_path / "val" / "routes.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    alerts = [json.loads(x) for x in (tmp_path / "mon" / "alerts.jsonl").read_text().splitlines()]
    hijacked = {(a["prefix"], a["observed_origin"]) for a in alerts if a["kind"].endswith("hijack")}
    assert len(hijacked) >= 10
    assert hijacked == {(r["prefix"], int(r["origin_as"])) for r in rows if r["rpki"] == "invalid-asn"}
    assert {(a["prefix"], a["observed_origin"]) for a in alerts if a["kind"] == "rpki-invalid"} == {
        (r["prefix"], int(r["origin_as"])) for r in rows if r["rpki"] == "invalid-length"}


def test_a_real_dump_replayed_every_monitor_against_validate(tmp_path):
    """updates.20160811.1600.gz replayed through a watch list chosen from it: five prefixes with
    more-specifics in the dump and the six withdrawn most often, each with its real origin and a path
    rule (the busiest peer AS first); the AS originating most prefixes; a transit AS with empty
    neighbour lists; `alert_not_found`; CAIDA's 2016 relationships. Each kind of alert is what
    `bgpsim validate`'s routes.csv on the same dump, same VRPs and relationships gives: more-specifics,
    hijacks, path matches, new upstreams and downstreams, unlisted prefixes, RPKI not found, leaks
    (its findings column); and the visibility losses and returns are those the dump's announcements,
    withdrawals and peer state changes give, counted here."""
    import bisect
    import csv
    import subprocess
    import sys
    from collections import Counter

    from helpers import shared
    from bgpsim.mrt import read_routes
    from bgpsim.live.rislive import ESTABLISHED

    dump = shared("mrt", "ripe_bgpdump_testdata", "updates.20160811.1600.gz")
    caida = shared("caida", "20161101.as-rel.txt.bz2")
    (tmp_path / "vrps.csv").write_text("ASN,IP Prefix,Max Length,Trust Anchor\nAS64500,192.0.2.0/24,24,synthetic\n")
    run = lambda *a: subprocess.run([sys.executable, "-m", "bgpsim", *map(str, a)], capture_output=True, text=True,
                                    timeout=300)
    val = run("validate", dump, "--vrps", tmp_path / "vrps.csv", "--relationships", caida, "--out", tmp_path / "val",
              "--quiet")
    assert val.returncode == 0, val.stderr
    with open(tmp_path / "val" / "routes.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    net = {r["prefix"]: ipaddress.ip_network(r["prefix"]) for r in rows}
    origin_of = {}
    for r in rows:
        origin_of.setdefault(r["prefix"], Counter())[r["origin_as"]] += 1
    v4 = sorted((n for n in net.values() if n.version == 4), key=lambda n: (int(n.network_address), n.prefixlen))
    starts = [int(n.network_address) for n in v4]  # in this order a prefix's more-specifics follow it
    covering = [n for k, n in enumerate(v4) if n.prefixlen <= 20
                and bisect.bisect_right(starts, int(n.broadcast_address)) - k - 1 >= 2][:5]
    events = list(read_routes(str(dump)))
    withdrawn = Counter(r.prefix for r in events if r.kind == "withdraw" and r.prefix in net)
    lost = [p for p, _ in withdrawn.most_common(6)]
    watched = {str(n): int(origin_of[str(n)].most_common(1)[0][0]) for n in covering}
    watched.update({p: int(origin_of[p].most_common(1)[0][0]) for p in lost})
    nets = sorted((ipaddress.ip_network(p) for p in watched), key=lambda n: -n.prefixlen)

    def cover(p):  # the most specific watched prefix covering p
        return next((str(w) for w in nets if w.version == net[p].version and net[p].subnet_of(w)), None)

    mine = [r for r in rows if cover(r["prefix"])]
    first = Counter(r["as_path"].split()[0] for r in mine).most_common(1)[0][0]
    unwatched = [r for r in rows if not cover(r["prefix"])]
    own = int(Counter(r["origin_as"] for r in unwatched).most_common(1)[0][0])
    transit = int(Counter(a for r in rows for a in r["as_path"].split()[1:-1]).most_common(40)[-1][0])
    (tmp_path / "watch.toml").write_text(
        "[settings]\nalert_not_found = true\n\n"
        + "".join(f'[[prefix]]\nprefix = "{p}"\norigins = [{o}]\n[[prefix.path]]\nmatch = "^{first},"\n'
                  'description = "busiest"\n\n' for p, o in watched.items())
        + f"[[asn]]\nasn = {own}\n\n[[asn]]\nasn = {transit}\nupstreams = []\ndownstreams = []\n")
    mon = run("monitor", "--replay", dump, "--vrps", tmp_path / "vrps.csv", "--relationships", caida,
              "--watch", tmp_path / "watch.toml", "--out", tmp_path / "mon", "--quiet")
    assert mon.returncode == 0, mon.stderr
    alerts = [json.loads(x) for x in (tmp_path / "mon" / "alerts.jsonl").read_text().splitlines()]
    got = lambda *kinds: {(a["kind"], a["prefix"], a["observed_origin"]) for a in alerts if a["kind"] in kinds}  # noqa: E731

    expect = {"more-specific": set(), "subprefix-hijack": set(), "prefix-hijack": set(), "path-match": set(),
              "rpki-not-found": set(), "leak": set()}
    for r in mine:
        p, o, w = r["prefix"], int(r["origin_as"]), cover(r["prefix"])
        if o != watched[w]:
            expect["prefix-hijack" if p == w else "subprefix-hijack"].add((p, o))
        else:  # its own route, more-specific or not: no VRP covers it
            assert r["rpki"] == "not-found"
            expect["rpki-not-found"].add((p, o))
            if p != w:
                expect["more-specific"].add((p, o))
        if r["as_path"].split()[0] == first:
            expect["path-match"].add((p, o))
        if "leak" in r["findings"].split(";"):
            expect["leak"].add((p, o))
    for kind, want in expect.items():
        assert {(p, o) for _, p, o in got(kind)} == want, kind
    assert expect["more-specific"] and expect["path-match"] and expect["rpki-not-found"] and expect["leak"]
    assert {(p, o) for _, p, o in got("unlisted-prefix")} == {(r["prefix"], own) for r in unwatched
                                                             if int(r["origin_as"]) == own} != set()
    sides = set()
    for r in rows:
        seq = [int(a) for k, a in enumerate(r["as_path"].split()) if k == 0 or a != r["as_path"].split()[k - 1]]
        if transit in seq:
            k = seq.index(transit)
            sides |= {("new-upstream", seq[k - 1])} if k > 0 else set()
            sides |= {("new-downstream", seq[k + 1])} if k + 1 < len(seq) else set()
    assert {(a["kind"], a["detail"]["neighbour"]) for a in alerts if a["kind"].startswith("new-")} == sides != set()

    now: dict = {p: set() for p in lost}
    ever: dict = {p: set() for p in lost}
    down, changes = set(), []
    for r in events:  # the visibility monitor's count, done again: share 0.5 of the peers that announced it
        if r.kind == "state":
            gone = [p for p in lost if r.peer_ip in now[p]] if r.new_state != ESTABLISHED else []
            for p in gone:
                now[p].discard(r.peer_ip)
        elif r.prefix in now:
            (now[r.prefix].add if r.kind == "announce" else now[r.prefix].discard)(r.peer_ip)
            if r.kind == "announce":
                ever[r.prefix].add(r.peer_ip)
            gone = [r.prefix]
        else:
            continue
        for p in gone if r.kind != "announce" else [r.prefix]:
            low = len(now[p]) < 0.5 * len(ever[p])
            if low != (p in down):
                (down.add if low else down.discard)(p)
                changes.append(("visibility-loss" if low else "visible-again", p))
    assert [(a["kind"], a["prefix"]) for a in alerts if a["kind"].startswith("visib")] == changes
    assert {k for k, _ in changes} == {"visibility-loss", "visible-again"}


# BGPalerter's prefixes.yml as its documentation writes it (docs/prefixes.md, docs/path-neighbors.md)
PREFIXES_YML = """\
165.254.255.0/24:
  description: Rome peering
  asn: 2914
  ignoreMorespecifics: false
  ignore: false
  group: aUserGroup
  excludeMonitors:
    - withdrawal-detection
  path:
    match: ".*2194,1234$"
    notMatch: ".*5054.*"
    matchDescription: detected scrubbing center
    maxLength: 128
    minLength: 2
98.5.4.3/22:
  description: host bits set, as BGPalerter's own tests write them
  asn: [1234, 5678]
  ignoreMorespecifics: true
  path:
    - match: "^174,"
      matchDescription: through 174
    - maxLength: 2
      matchDescription: short
options:
  monitorASns:
    2914:
      group: default
      upstreams: [174]
      downstreams: []
"""


def test_bgpalerter_prefixes_yml_is_read_as_bgpalerter_reads_it(tmp_path):
    said = []
    (tmp_path / "prefixes.yml").write_text(PREFIXES_YML)
    w = Watcher(load_watch(str(tmp_path / "prefixes.yml"), said.append))
    assert said == [f"{tmp_path / 'prefixes.yml'}: 98.5.4.3/22: 98.5.4.3/22 has host bits set: read as 98.5.4.0/22"]
    rome = "165.254.255.0/24"
    a = feed(w, rome, [174, 2914])
    assert a == []  # the owner, through its listed upstream
    assert kinds(feed(w, "165.254.255.0/25", [174, 2914])) == [("more-specific", "165.254.255.0/25", 2914)]
    assert kinds(feed(w, rome, [64496, 666])) == [("prefix-hijack", rome, 666)]
    assert [(x["kind"], x["group"], x["detail"]) for x in feed(w, rome, [64496, 2194, 1234])
            if x["kind"] == "path-match"] == [("path-match", "aUserGroup", {"rule": "detected scrubbing center"})]
    # ignoreMorespecifics: the /22 stands for itself; its more-specifics are nobody's business here
    assert feed(w, "98.5.4.0/24", [64496, 666]) == []
    assert kinds(feed(w, "98.5.4.0/22", [64496, 666])) == [("prefix-hijack", "98.5.4.0/22", 666),
                                                            ("path-match", "98.5.4.0/22", 666)]  # "short"
    assert [x["detail"]["rule"] for x in feed(w, "98.5.4.0/22", [174, 5678]) if x["kind"] == "path-match"] == [
        "through 174"]  # "short" holds too, and was raised above: gathered on that alert
    assert next(r for k, r in w.alerts.items() if k == ("path-match", "98.5.4.0/22", 1)).count == 2
    # monitorASns: a neighbour of AS2914 its lists do not name (any downstream is new)
    assert [(x["kind"], x["detail"]["neighbour"]) for x in feed(w, "10.0.0.0/8", [3356, 2914, 64499])
            if x["kind"].startswith("new-")] == [("new-upstream", 3356), ("new-downstream", 64499)]
    # excludeMonitors: withdrawal-detection is off for Rome
    assert feed(w, rome, [], peer="192.0.2.1", withdraw=True) == []


def test_bgpalerter_prefixes_yml_faults_name_the_key(tmp_path):
    said = []
    for text, want in (("192.0.2.0/24:\n  description: x\n  asn: 1\n", "192.0.2.0/24: want ignoreMorespecifics"),
                       ("192.0.2.0/24:\n  description: x\n  asn: banana\n  ignoreMorespecifics: false\n",
                        "192.0.2.0/24.asn: want an AS number"),
                       ("192.0.2.0/24:\n  description: x\n  asn: 1\n  ignoreMorespecifics: maybe\n",
                        "192.0.2.0/24.ignoreMorespecifics: want true or false"),
                       ("192.0.2.0/24:\n  description: x\n  asn: 1\n  ignoreMorespecifics: false\n  path:\n"
                        "    match: x\n", "192.0.2.0/24.path.0: want matchDescription"),
                       ("banana:\n  description: x\n  asn: 1\n  ignoreMorespecifics: false\n", "banana: want a prefix"),
                       ("a: [b\n", "prefixes.yml:2: want YAML")):
        (tmp_path / "prefixes.yml").write_text(text)
        with pytest.raises(InputError, match=re.escape(want)):
            load_watch(str(tmp_path / "prefixes.yml"), said.append)
    (tmp_path / "prefixes.yml").write_text("192.0.2.0/24:\n  description: x\n  asn: 1\n  ignoreMorespecifics: false\n"
                                           "  colour: red\n")
    assert len(load_watch(str(tmp_path / "prefixes.yml"), said.append).prefixes) == 1
    assert said[-1].endswith("192.0.2.0/24.colour: not a key BGPalerter defines; read past")
