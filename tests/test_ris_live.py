"""`bgpsim monitor --ris-live`: RIS Live over a real WebSocket, from a local server that replays RIS
Live messages (tests/ris_live_server.py; synthetic, written from the manual and the live service's
frames). A real dump's UPDATEs, sent as RIS Live messages among every other message type, in both
spellings, with subscription acknowledgements, an error and disconnections, give routes.csv exactly
as `bgpsim validate` writes it for the dump; bad frames and a silent server are counted, warned about
once, and survived."""

from __future__ import annotations

import ipaddress
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from helpers import SHARED
from ris_live_server import CLOSE, CUT, MUTE, RisLiveServer, message

from bgpsim.base.errors import InputError
from bgpsim.live.rislive import Reader, update_messages
from bgpsim.mrt import read_routes

ROOT = Path(__file__).resolve().parent.parent
UPDATES = SHARED / "mrt" / "ripe_bgpdump_testdata" / "updates.20160811.1600.gz"
VRPS = "ASN,IP Prefix,Max Length,Trust Anchor\nAS64500,192.140.252.0/22,24,synthetic\nAS3356,8.0.0.0/9,24,synthetic\n"

# the other message types, as the live service sent them (bgpkit-parser's captured frames, 2026)
OTHERS = [
    {"timestamp": 1470931205.85, "peer": "102.67.56.1", "peer_asn": "328474", "id": "o-1", "host": "rrc00.ripe.net",
     "type": "OPEN", "direction": "received", "version": 4, "asn": 23456, "hold_time": 90, "router_id": "102.67.56.1",
     "capabilities": {"128": {"name": "Prestandard Route Refresh (deprecated)"}}},
    {"timestamp": 1470931218.68, "peer": "2001:7f8:4::3:2be1:1", "peer_asn": "207841", "id": "k-1",
     "host": "rrc01.ripe.net", "type": "KEEPALIVE", "raw": "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF001304"},
    {"timestamp": 1470931207.2, "peer": "45.165.81.17", "peer_asn": "53427", "id": "n-1", "host": "rrc24.ripe.net",
     "type": "NOTIFICATION", "notification": {"code": 6, "subcode": 5, "data": "\u0006\u0005"}},
    {"timestamp": 1470931201.76, "peer": "195.208.209.55", "peer_asn": "29479", "id": "s-1", "host": "rrc13.ripe.net",
     "type": "STATE", "state": "down"},  # the live service writes RIS_PEER_STATE as STATE
    {"timestamp": 1470931202.31, "peer": "195.208.209.55", "peer_asn": "29479", "id": "s-2", "host": "rrc13.ripe.net",
     "type": "RIS_PEER_STATE", "state": "connected"},  # ... and its manual as RIS_PEER_STATE
]


def shouted(data: dict) -> dict:
    """The same UPDATE with its names and type in another case (as some producers write them)."""
    out = {k.upper() if k in ("peer", "peer_asn", "withdrawals") else k.title(): v for k, v in data.items()}
    out["Type"] = "update"
    if "Announcements" in out:
        out["Announcements"] = [{"Next_Hop": a["next_hop"], "Prefixes": a["prefixes"]} for a in out["Announcements"]]
    if "Origin" in out:
        out["Origin"] = out["Origin"].lower()
    return out


def monitor(server: RisLiveServer, out: Path, vrps: Path, *more) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bgpsim", "monitor", "--ris-live", server.url(), "--vrps", vrps,
                           "--out", out, "--until-idle", "1.5", *map(str, more)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


@pytest.fixture
def vrps(tmp_path) -> Path:
    (tmp_path / "vrps.csv").write_text(VRPS)
    return tmp_path / "vrps.csv"


def test_a_dump_over_ris_live_gives_what_validate_gives_and_replay_the_same_alerts(tmp_path, vrps):
    if not UPDATES.exists():
        pytest.skip(f"shared data not found: {UPDATES}")
    updates = list(update_messages(read_routes(str(UPDATES)), host="rrc00", ids="u"))
    script = [message(d) if i % 500 != 7 else message(shouted(d)) for i, d in enumerate(updates)]
    half = len(script) // 2
    script[half:half] = [*map(message, OTHERS), json.dumps({"type": "ris_error", "data": {"message": "test error"}}),
                         CLOSE]
    script[half + 3000:half + 3000] = [CUT]
    watch = watch_file(tmp_path / "watch.toml")
    with RisLiveServer(script) as server:
        run = monitor(server, tmp_path / "live", vrps, "--ris-prefix", "0.0.0.0/0", "--ris-host", "rrc00",
                      "--watch", watch)
        assert run.returncode == 0, run.stderr
        assert server.sent == len(script) and server.connections == 3
    batch = subprocess.run([sys.executable, "-m", "bgpsim", "validate", UPDATES, "--vrps", vrps, "--out",
                            tmp_path / "batch", "--quiet"], capture_output=True, text=True, cwd=ROOT)
    assert batch.returncode == 0, batch.stderr
    live = (tmp_path / "live" / "routes.csv").read_text()
    assert live == (tmp_path / "batch" / "routes.csv").read_text() and live.count("\n") > 20_000
    feed = json.loads((tmp_path / "live" / "summary.json").read_text())["feed"]
    assert feed["by_type"] == {"UPDATE": len(updates), "OPEN": 1, "KEEPALIVE": 1, "NOTIFICATION": 1,
                               "RIS_PEER_STATE": 2}
    assert feed["server_messages"] == {"ris_subscribe_ok": 3, "ris_error": 1}
    assert feed["unreadable"] == 0 and feed["reconnects"] == 2  # the close, and the frame cut in the middle
    assert server.subscriptions[0] == {"host": "rrc00", "socketOptions": {"acknowledge": True},
                                       "prefix": "0.0.0.0/0", "moreSpecific": True, "lessSpecific": False}
    err = run.stderr
    assert "the server says: test error" in err and "Traceback" not in err
    assert err.count("read 'Type' as 'type'") == 1  # each spelling once, however often it comes
    assert err.count("lost the RIS Live server") == 2, err
    # the archived dump replayed through the same checks raises the same alerts, and writes the same routes
    replay = subprocess.run([sys.executable, "-m", "bgpsim", "monitor", "--replay", UPDATES, "--vrps", vrps,
                             "--watch", watch, "--out", tmp_path / "replay", "--quiet"],
                            capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert replay.returncode == 0 and replay.stderr == "", replay.stderr
    alerts = (tmp_path / "replay" / "alerts.jsonl").read_text()
    kinds = Counter(json.loads(a)["kind"] for a in alerts.splitlines())
    assert kinds["subprefix-hijack"] >= 10 and alerts == (tmp_path / "live" / "alerts.jsonl").read_text()
    assert (tmp_path / "replay" / "routes.csv").read_text() == live
    summary = json.loads((tmp_path / "replay" / "summary.json").read_text())
    assert summary["alerts"]["by_kind"] == dict(kinds) and summary["feed"]["by_type"] == {"UPDATE": len(updates)}


def test_bad_frames_and_a_silent_server_are_survived(tmp_path, vrps):
    good = {"timestamp": 1470931200.25, "peer": "192.0.2.1", "peer_asn": "64496", "host": "rrc00", "type": "UPDATE",
            "path": [64496, 3356, 64500], "origin": "IGP",
            "announcements": [{"next_hop": "192.0.2.1,fe80::1", "prefixes": ["192.140.252.0/22", "eor"]}]}
    script = [message({**good, "id": "g-1"}), "{not json", json.dumps([1, 2]), "x" * (10 << 20),
              message({**good, "id": "g-2"}), MUTE, message({**good, "id": "g-3"})]
    with RisLiveServer(script) as server:
        run = monitor(server, tmp_path / "live", vrps, "--heartbeat", 1, "--until-idle", 4)  # idle outlasts a silence
        assert run.returncode == 0, run.stderr
        assert server.connections == 3 and server.sent == len(script)
    rows = (tmp_path / "live" / "routes.csv").read_text().splitlines()
    assert len(rows) == 4 and all(",192.140.252.0/22,64496 3356 64500,64500,valid," in r for r in rows[1:])
    feed = json.loads((tmp_path / "live" / "summary.json").read_text())["feed"]
    assert feed["unreadable"] == 3 and feed["reconnects"] == 2 and feed["by_type"] == {"UPDATE": 3}
    err = run.stderr
    assert "Traceback" not in err and "want JSON" in err and "want a JSON object" in err
    assert err.count("lost the RIS Live server") == 2 and "1048576" in err


def test_no_server_is_one_line(tmp_path, vrps):
    run = subprocess.run([sys.executable, "-m", "bgpsim", "monitor", "--ris-live", "ws://127.0.0.1:9/v1/ws/", "--vrps",
                          vrps, "--out", tmp_path / "live"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert run.stderr.startswith("bgpsim: error: cannot reach the RIS Live server ws://127.0.0.1:9/v1/ws/")
    assert not (tmp_path / "live").exists()


def test_the_reader_takes_both_spellings_and_every_type():
    told = []
    reader = Reader(told.append)
    kind, dtype, _key, _rows, _hits, extra = reader.read(
        b'{"Type": "ris_message", "Data": {"Type": "state", "peer": "192.0.2.1", "peer_asn": 64496, "timestamp": 1, '
        b'"state": "Down"}}', "m")
    r = reader.peer_state(extra)
    assert (kind, dtype, r.kind, r.peer_ip, r.peer_as, r.old_state, r.new_state) == (
        "ris_message", "RIS_PEER_STATE", "state", "192.0.2.1", 64496, 6, 1)
    assert told == ["m: read 'Type' as 'type' (RIS Live writes names in lower case)",
                    "m: read 'Data' as 'data' (RIS Live writes names in lower case)"]
    assert Counter(reader.read(m, "m")[0] for m in (b'{"type": "pong", "data": null}',
                                                    b'{"type": "ris_rrc_list", "data": ["rrc00"]}',
                                                    b'{"type": "PONG", "data": null}')) == {"pong": 2,
                                                                                            "ris_rrc_list": 1}


GOOD = {"timestamp": 1470931200.25, "peer": "192.0.2.1", "peer_asn": "64496", "type": "UPDATE", "path": [64496, 64511],
        "origin": "IGP", "announcements": [{"next_hop": "192.0.2.1", "prefixes": ["198.51.100.0/24"]}]}


@pytest.mark.parametrize("change, key, said", [
    ({"peer_asn": "AS64496"}, "peer_asn", "want an AS number"),
    ({"peer_asn": 4294967296}, "peer_asn", "want an AS number"),
    ({"peer": "192.0.2.01"}, "peer", "want the peer's address, got '192.0.2.01'"),
    ({"timestamp": -1}, "timestamp", "want a timestamp"),
    ({"timestamp": True}, "timestamp", "want a timestamp"),
    ({"path": [64496, "x"]}, "path[1]", "want an AS number"),
    ({"path": [64496, [64511, [1]]]}, "path[1]", "want an AS number"),
    ({"path": "64496 64511"}, "path", "want a list of AS numbers"),
    ({"origin": "BGP"}, "origin", "want IGP, EGP or INCOMPLETE"),
    ({"community": [["x", 1]]}, "community", "want an AS number"),
    ({"bgpsec": "zz"}, "bgpsec", "want the BGPsec_PATH value in hex"),
    ({"announcements": [{"prefixes": ["198.51.100.0/33"]}]}, "announcements[0].prefixes[0]",
     "want a prefix, got '198.51.100.0/33'"),
    ({"announcements": [{"prefixes": "198.51.100.0/24"}]}, "announcements[0].prefixes", "want a list of prefixes"),
    ({"announcements": [{"next_hop": 1, "prefixes": []}]}, "announcements[0].next_hop", "want a next hop string"),
    ({"announcements": ["198.51.100.0/24"]}, "announcements[0]", "want an object"),
    ({"withdrawals": ["eor"]}, "withdrawals[0]", "want a prefix, got 'eor'"),
    ({"type": 5}, "type", "want a message type"),
])
def test_a_fault_names_its_key_and_leaves_the_batch_as_it_was(change, key, said):
    reader = Reader()
    reader.read(json.dumps(GOOD).encode(), "m")
    with pytest.raises(InputError) as e:
        reader.read(json.dumps({**GOOD, **change, "withdrawals": change.get("withdrawals", ["203.0.113.0/24"])}).encode(),
                    "m")
    assert str(e.value) == f"m:{key}: {said}"
    batch = reader.take()
    assert len(batch) == 1 and batch.route(0).prefix == "198.51.100.0/24"


@pytest.mark.parametrize("payload, said", [
    (b'{"type": "ris_message", "data": ', "m: want JSON (byte 32: want a value)"),
    (b'{"type": "ris_message"} x', "m: want JSON (byte 24: something after the value)"),
    (b"[1]", "m:$: want a JSON object"),
    (b'{"type": "ris_message", "data": 1}', "m:data: want a RIS Live object"),
    (b" " * (1 << 20) + b"{}", "m: want a message of at most 1048576 bytes, got 1048578"),
    (b"[" * 100_000, "m: want JSON (byte 513: nested too deeply)"),
], ids=["cut", "after", "list", "data", "long", "deep"])
def test_bad_json_is_one_line(payload, said):
    with pytest.raises(InputError) as e:
        Reader().read(payload, "m")
    assert str(e.value) == said


def test_what_the_reader_makes_of_the_values():
    reader = Reader()
    reader.watch([ipaddress.ip_network("198.51.100.0/23")], [64499])
    read = reader.read(json.dumps({**GOOD, "Announcements": [{"next_hop": "2001:db8::1,fe80::1", "prefixes": [
        "198.51.100.7/24", "2001:db8::1/32", "eor"]}], "withdrawals": ["203.0.113.0/24", "198.51.101.0/24"]}).encode(), "m")
    assert read[:5] == ("ris_message", "UPDATE", None, 4, 2)  # the last of a name given twice, as a dict keeps it
    when, routes = reader.watched()  # the rows a watched prefix covers
    assert when == 1470931200.25 and [(r.kind, r.prefix, r.usec) for r in routes] == [
        ("announce", "198.51.100.0/24", 250000), ("withdraw", "198.51.101.0/24", 250000)]
    reader.read(json.dumps({**GOOD, "timestamp": 1470931201, "path": [64496, [64499, 64500]]}).encode(), "m")
    when, routes = reader.watched()  # a watched AS, in an AS_SET
    assert when == 1470931201 and [(r.prefix, r.usec, r.as_path, r.origin_as) for r in routes] == [
        ("198.51.100.0/24", None, ((2, (64496,)), (1, (64499, 64500))), -1)]
    batch = reader.take()
    assert [batch.route(i).prefix for i in range(len(batch))] == [
        "198.51.100.0/24", "2001:db8::/32", "203.0.113.0/24", "198.51.101.0/24", "198.51.100.0/24"]
    assert reader.take() is None


def watch_file(path: Path) -> Path:
    """Watched prefixes drawn from the dump (synthetic owners): the /16s over ten of its /24s, owned by
    AS64500, so their routes raise hijack alerts."""
    nets = sorted({r.prefix for r in read_routes(str(UPDATES)) if r.prefix and r.prefix.endswith("/24")
                   and ":" not in r.prefix})[:400:40]
    sixteens = sorted({".".join(n.split(".")[:2]) + ".0.0/16" for n in nets})
    path.write_text("".join(f'[[prefix]]\nprefix = "{n}"\ndescription = "synthetic {i}"\norigins = [64500]\n\n'
                            for i, n in enumerate(sixteens)))
    return path
