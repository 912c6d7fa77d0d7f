"""Live: route dumps published over MQTT (`bgpsim stream publish`) and validated as they arrive
(`bgpsim monitor`), through a real mosquitto on 127.0.0.1 (tests/mqtt_broker.py). The round trip gives
routes.csv exactly as `bgpsim validate` writes it on the same dump with the same VRPs; RIS Live
messages from mosquitto_pub are read; bad messages are counted and passed over; a broker that is not
there or refuses us is one line and exit status 2."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from helpers import SHARED
from mqtt_broker import MOSQUITTO, NO_MOSQUITTO, PASSWORD, USER, Broker, free_port, wait_online

from bgpsim.cli import main

pytestmark = pytest.mark.skipif(MOSQUITTO is None or shutil.which("mosquitto_pub") is None, reason=NO_MOSQUITTO)

UPDATES = SHARED / "mrt" / "ripe_bgpdump_testdata" / "updates.20160811.1600.gz"
SMALL = SHARED / "mrt" / "ripe_bgpdump_testdata" / "updates.20100722.2015.gz"  # 5,654 routes to its 41,234, also 5 minutes
CAPTURE = SHARED / "pcap" / "eveng_bgp.pcapng"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    with Broker(tmp_path_factory.mktemp("mosquitto")) as b:
        yield b


@pytest.fixture(scope="module")
def vrps(tmp_path_factory) -> Path:
    text = (Path(__file__).parent / "test_validate.py").read_text()
    path = tmp_path_factory.mktemp("vrps") / "vrps.csv"
    path.write_text(re.search(r'VRPS = """(.*?)"""', text, re.S).group(1))
    return path


def bgpsim(*args, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bgpsim", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def stop_when(mon: subprocess.Popen, done, timeout: float = 90) -> str:
    """SIGTERM to a monitor (which checks what it holds and ends with status 0) once `done()` holds, half
    a second later for anything repeated to arrive; waiting no longer than `timeout`. Its stderr."""
    deadline = time.monotonic() + timeout
    while mon.poll() is None and time.monotonic() < deadline and not done():
        time.sleep(0.1)
    time.sleep(0.5)
    mon.terminate()
    _, err = mon.communicate(timeout=60)
    assert mon.returncode == 0, err
    return err


def holds(path: Path, want: str):
    return lambda: path.exists() and path.read_text() == want


def has_rows(path: Path, n: int):
    return lambda: path.exists() and path.read_text().count("\n") >= n


def start_monitor(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bgpsim", "monitor", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)



@pytest.mark.parametrize("dump", [UPDATES, CAPTURE], ids=["mrt", "pcap"])
def test_round_trip_gives_what_validate_gives(broker, vrps, dump, tmp_path):
    if not dump.exists():
        pytest.skip(f"shared data not found: {dump}")
    topic = f"rt-{dump.stem.replace('.', '-')}"
    # ASPA verdicts too, one peer verified upstream (a customer of the collector), the rest downstream
    (tmp_path / "aspa.json").write_text(json.dumps({"metadata": {"buildtime": "2016-08-11T16:00:00Z"}, "roas": [], "aspas": [
        {"customer_asid": 28573, "providers": [4230]}, {"customer_asid": 4230, "providers": [3356]},
        {"customer_asid": 59689, "providers": [6939]}]}))
    aspa = ("--aspa", tmp_path / "aspa.json", "--peer-role", "customer:59689")
    mon = start_monitor("--broker", broker.url("plain"), "--vrps", vrps, *aspa, "--out", tmp_path / "live", "--topic",
                        topic, "--client-id", topic, "--until-idle", 5)
    wait_online(broker, topic, mon)
    pub = bgpsim("stream", "publish", dump, "--broker", broker.url("plain"), "--topic", topic, "--flat-out")
    assert pub.returncode == 0, pub.stderr
    out, err = mon.communicate(timeout=120)
    assert mon.returncode == 0, err
    assert bgpsim("validate", dump, "--vrps", vrps, *aspa, "--out", tmp_path / "batch", "--quiet").returncode == 0
    live = (tmp_path / "live" / "routes.csv").read_text()
    assert live == (tmp_path / "batch" / "routes.csv").read_text()
    doc = json.loads((tmp_path / "live" / "summary.json").read_text())
    batch = json.loads((tmp_path / "batch" / "summary.json").read_text())
    assert doc["rpki"] == batch["rpki"] and doc["routes"] == batch["routes"] == live.count("\n") - 1
    assert doc["aspa"] == batch["aspa"] and doc["aspa_unplaced"] == batch["aspa_unplaced"]
    assert doc["feed"]["unreadable"] == 0 and doc["feed"]["repeats"] == 0


def test_ris_live_from_mosquitto_pub_and_bad_messages(broker, vrps, tmp_path):
    topic = "interop"
    mon = start_monitor("--broker", broker.url("plain"), "--vrps", vrps, "--out", tmp_path / "live", "--topic", topic,
                        "--client-id", topic, "--until-idle", 2)
    wait_online(broker, topic, mon)
    ris = {"type": "ris_message", "data": {
        "timestamp": 1470931200.25, "peer": "192.0.2.1", "peer_asn": "64496", "id": "x-1", "host": "rrc00",
        "type": "UPDATE", "path": [64496, 3356, 135310], "origin": "igp", "community": [[64496, 1]],
        "announcements": [{"next_hop": "192.0.2.1", "prefixes": ["192.140.252.0/22", "2001:db8::/32"]}],
        "withdrawals": ["198.51.100.0/24"]}}
    bad = [b"{not json", json.dumps({"peer": "192.0.2.1"}).encode(), b"x" * (10 << 20),
           json.dumps({**ris["data"], "id": "x-2", "announcements": [{"prefixes": ["300.1.2.0/24"]}]}).encode()]
    for payload in [json.dumps(ris).encode(), *bad, json.dumps(ris).encode()]:  # the last: a repeat of x-1
        subprocess.run(["mosquitto_pub", "-p", str(broker.plain), "-t", f"{topic}/updates", "-q", "1", "-s"],
                       input=payload, check=True, timeout=10)
    out, err = mon.communicate(timeout=60)
    assert mon.returncode == 0, err
    rows = (tmp_path / "live" / "routes.csv").read_text().splitlines()
    assert len(rows) == 3 and rows[1].startswith("1470931200.250000,192.0.2.1,64496,192.140.252.0/22,")
    assert ",invalid-asn," in rows[1]  # the test VRPs cover 192.140.252.0/22 for AS64500 only
    feed = json.loads((tmp_path / "live" / "summary.json").read_text())["feed"]
    assert (feed["updates"], feed["unreadable"], feed["repeats"]) == (1, 4, 1), err
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 4 and all("message" in w for w in warnings), err
    assert "want JSON" in err and "timestamp: want a timestamp" in err and "at most 1048576 bytes, got 10485760" in err
    assert "prefixes[0]: want a prefix, got '300.1.2.0/24'" in err


def test_tls_and_credentials(broker, vrps, tmp_path):
    mon = start_monitor("--broker", broker.url("tls"), "--cafile", broker.cafile, "--vrps", vrps, "--out",
                        tmp_path / "live", "--topic", "tls", "--client-id", "tls", "--until-idle", 5)
    wait_online(broker, "tls", mon)
    pub = bgpsim("stream", "publish", CAPTURE, "--broker", broker.url("tls"), "--cafile", broker.cafile, "--topic",
                 "tls", "--flat-out")
    assert pub.returncode == 0, pub.stderr
    out, err = mon.communicate(timeout=60)
    assert mon.returncode == 0, err
    assert (tmp_path / "live" / "routes.csv").read_text().count("\n") > 1
    auth = bgpsim("stream", "publish", CAPTURE, "--broker", broker.url("auth"), "--flat-out", "--quiet")
    assert auth.returncode == 0, auth.stderr
    wrong = broker.url("auth").replace(f"{USER}:{PASSWORD}@", f"{USER}:wrong@")
    t = time.monotonic()
    p = bgpsim("stream", "publish", CAPTURE, "--broker", wrong, "--flat-out")
    assert p.returncode == 2 and "refused the credentials" in p.stderr and p.stderr.count("\n") == 1, p.stderr
    assert time.monotonic() - t < 10


def test_a_live_line_on_a_terminal(broker, vrps, tmp_path):
    """On a terminal (a pseudo-terminal here) the monitor shows updates, their rate and the routes by
    status as they come, with the alerts above the line; piped, it shows none (the other tests)."""
    import fcntl
    import os
    import pty
    import struct
    import termios

    main_fd, term = pty.openpty()
    fcntl.ioctl(term, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 160, 0, 0))  # 160 columns, as a terminal has
    (tmp_path / "watch.toml").write_text('[[prefix]]\nprefix = "192.140.252.0/22"\norigins = [64500]\n')
    mon = subprocess.Popen([sys.executable, "-m", "bgpsim", "monitor", "--broker", broker.url("plain"), "--vrps", vrps,
                            "--watch", tmp_path / "watch.toml", "--out", tmp_path / "live", "--topic", "tty",
                            "--client-id", "tty", "--until-idle", "3"], stdout=subprocess.DEVNULL, stderr=term, cwd=ROOT)
    os.close(term)
    wait_online(broker, "tty", mon)
    for n in range(1, 41):
        subprocess.run(["mosquitto_pub", "-p", str(broker.plain), "-t", "tty/updates", "-q", "1", "-m",
                        _ris(n, "192.140.252.0/22", [64496, 135310], 1.0).decode()], check=True, timeout=10)
    seen = b""
    while True:
        try:
            chunk = os.read(main_fd, 65536)
        except OSError:  # the monitor ended: the terminal is gone
            break
        if not chunk:
            break
        seen += chunk
    os.close(main_fd)
    assert mon.wait(timeout=30) == 0, seen
    text = seen.decode()
    assert "ALERT prefix-hijack: 192.140.252.0/22 from AS135310" in text
    assert re.search(r"40 updates \[[0-9:]+, [0-9.]+update/s, 40 routes: invalid-asn 40; 1 alerts\]", text), repr(text)


def test_no_broker_is_one_line_within_ten_seconds(vrps, tmp_path):
    port = free_port()
    for args in (["stream", "publish", CAPTURE, "--broker", f"mqtt://127.0.0.1:{port}"],
                 ["monitor", "--broker", f"mqtt://127.0.0.1:{port}", "--vrps", vrps, "--out", tmp_path / "m"]):
        t = time.monotonic()
        p = bgpsim(*args, timeout=30)
        assert p.returncode == 2 and p.stderr.count("\n") == 1 and "cannot connect to the broker" in p.stderr, p.stderr
        assert time.monotonic() - t < 10


@pytest.mark.parametrize("url, expect", [
    ("http://127.0.0.1", "want mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"),
    ("mqtt://127.0.0.1:99999", "Port out of range"),
    ("mqtt://127.0.0.1/topic", "want no path"),
])
def test_bad_broker_urls(url, expect, capsys):
    assert main(["stream", "publish", str(CAPTURE), "--broker", url]) == 2
    err = capsys.readouterr().err
    assert expect in err and err.count("\n") == 1, err


def test_broker_restarted_mid_stream(tmp_path, vrps):
    """mosquitto is stopped and started again (persistence on) while a dump is being published: both
    clients reconnect by themselves, and routes.csv is still exactly validate's."""
    assert bgpsim("validate", SMALL, "--vrps", vrps, "--out", tmp_path / "batch", "--quiet").returncode == 0
    want = (tmp_path / "batch" / "routes.csv").read_text()
    with Broker(tmp_path / "mosquitto", tls=False, password=False) as b:
        mon = start_monitor("--broker", b.url("plain"), "--vrps", vrps, "--out", tmp_path / "live", "--topic", "fault",
                            "--client-id", "fault")
        wait_online(b, "fault", mon)
        pub = subprocess.Popen([sys.executable, "-m", "bgpsim", "stream", "publish", str(SMALL), "--broker",
                                b.url("plain"), "--topic", "fault", "--pace", "30"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=ROOT)
        time.sleep(3)
        assert pub.poll() is None, "the publisher finished before the broker went away"
        b.restart()
        _, perr = pub.communicate(timeout=120)
        assert pub.returncode == 0, perr
        merr = stop_when(mon, holds(tmp_path / "live" / "routes.csv", want))
    assert "reconnecting" in perr and "reconnecting" in merr
    assert (tmp_path / "live" / "routes.csv").read_text() == want
    feed = json.loads((tmp_path / "live" / "summary.json").read_text())["feed"]
    assert feed["reconnects"] >= 1 and feed["unreadable"] == 0


def _ris(n: int, prefix: str, path: list[int], ts: float) -> bytes:
    return json.dumps({"timestamp": ts, "peer": "192.0.2.1", "peer_asn": str(path[0]), "id": f"w-{n}",
                       "type": "UPDATE", "path": path, "origin": "igp",
                       "announcements": [{"next_hop": "192.0.2.1", "prefixes": [prefix]}]}).encode()


def test_watched_prefixes_raise_alerts(broker, vrps, tmp_path):
    topic = "watch"
    (tmp_path / "watch.toml").write_text(
        '[[prefix]]\nprefix = "192.140.252.0/22"\ndescription = "a customer"\norigins = [64500]\n\n'
        '[[prefix]]\nprefix = "203.0.113.0/24"\ndescription = "learning"\n')
    mon = start_monitor("--broker", broker.url("plain"), "--vrps", vrps, "--watch", tmp_path / "watch.toml",
                        "--out", tmp_path / "live", "--topic", topic, "--client-id", topic, "--until-idle", 2)
    wait_online(broker, topic, mon)
    sub = subprocess.Popen(["mosquitto_sub", "-p", str(broker.plain), "-t", f"{topic}/alerts", "-C", "5", "-W", "20"],
                           stdout=subprocess.PIPE, text=True)
    time.sleep(0.5)
    feed = [_ris(1, "192.140.252.0/22", [64496, 3356, 135310], 100.0),  # prefix hijack
            _ris(2, "192.140.253.0/24", [64496, 64500], 101.0),  # more-specific by the owner, beyond its maxLength
            _ris(3, "192.140.254.0/24", [64496, 135310], 102.0),  # sub-prefix hijack
            _ris(4, "192.140.252.0/22", [64497, 135310], 103.0),  # the hijack again: no new alert
            _ris(5, "203.0.113.0/24", [64496, 64501], 104.0),  # learnt
            _ris(6, "203.0.113.0/24", [64496, 64502], 105.0)]  # a new origin
    for payload in feed:
        subprocess.run(["mosquitto_pub", "-p", str(broker.plain), "-t", f"{topic}/updates", "-q", "1", "-s"],
                       input=payload, check=True, timeout=10)
    out, err = mon.communicate(timeout=60)
    assert mon.returncode == 0, err
    alerts = [json.loads(x) for x in (tmp_path / "live" / "alerts.jsonl").read_text().splitlines()]
    assert [(a["kind"], a["prefix"], a["observed_origin"], a["first_seen"]) for a in alerts] == [
        ("prefix-hijack", "192.140.252.0/22", 135310, 100.0), ("more-specific", "192.140.253.0/24", 64500, 101.0),
        ("rpki-invalid", "192.140.253.0/24", 64500, 101.0), ("subprefix-hijack", "192.140.254.0/24", 135310, 102.0),
        ("new-origin", "203.0.113.0/24", 64502, 105.0)]
    assert alerts[0]["rpki"] == "invalid-asn" and alerts[0]["expected_origins"] == [64500]
    assert alerts[2]["detail"] == {"state": "invalid-length"} and alerts[0]["peers"] == ["192.0.2.1"]
    assert alerts[4]["expected_origins"] == [64501] and alerts[4]["description"] == "learning"
    published, _ = sub.communicate(timeout=30)
    assert [json.loads(x)["kind"] for x in published.splitlines()] == [a["kind"] for a in alerts]
    summary = json.loads((tmp_path / "live" / "summary.json").read_text())["alerts"]
    assert summary["by_kind"] == {"prefix-hijack": 1, "more-specific": 1, "rpki-invalid": 1, "subprefix-hijack": 1,
                                  "new-origin": 1}
    assert summary["routes"] == 6  # the repeated hijack counted on its alert, the owner's route on two
    assert "ALERT prefix-hijack: 192.140.252.0/22 from AS135310" in err


def test_gaps_in_numbered_ids_are_counted_as_missing():
    from bgpsim.live.monitor import Monitor
    from bgpsim.live.topics import Topics
    from bgpsim.rpki.rov import VRPTable
    from bgpsim.validate.check import Checker

    warnings = []
    m = Monitor(Checker(VRPTable(), lambda lines, unit: None), Topics(), warnings.append)
    for n in (1, 2, 5, 5, 6, 9):
        m.feed("bgpsim/updates", _ris(n, "192.0.2.0/24", [64496], 1.0))
    assert (m.counts.updates, m.counts.repeats, m.counts.missing) == (5, 1, 4)
    assert len(warnings) == 2 and "2 messages missing before w-5" in warnings[0]


def test_the_inbox_is_bounded_and_says_when_it_drops(monkeypatch):
    """Messages received beyond MAX_QUEUED (or MAX_QUEUED_BYTES) waiting to be checked are dropped,
    counted and warned about; what was queued comes out in order and frees its bytes."""
    import aiomqtt

    from bgpsim.live import monitor as mon
    from bgpsim.live.topics import Topics

    monkeypatch.setattr(mon, "MAX_QUEUED", 3)
    monkeypatch.setattr(mon, "MAX_QUEUED_BYTES", 100)
    warnings = []
    m = mon.Monitor(None, Topics(), warnings.append)
    inbox = mon.Inbox(m)
    msgs = [aiomqtt.Message("bgpsim/updates", bytes([i]) * 10, 1, False, i, None) for i in range(5)]
    for msg in msgs:
        inbox.put(msg, behind=2)
    assert m.counts.dropped == 2 and m.counts.most_waiting == 6 and len(warnings) == 2
    assert "dropped a message on bgpsim/updates: 3 messages (30 bytes) wait" in warnings[0]
    assert [inbox.get_nowait() for _ in range(3)] == msgs[:3] and inbox.empty() and inbox.bytes == 0
    inbox.put(aiomqtt.Message("bgpsim/updates", b"x" * 101, 1, False, 9, None))  # over the bytes bound alone
    assert m.counts.dropped == 3 and inbox.empty()


def test_bgpsec_updates_keep_their_verdicts(broker, tmp_path):
    """Signed UPDATEs (RFC 8208 keys from NIST BGP-SRx) in a capture, published and monitored with
    --router-keys: routes.csv, bgpsec columns included, is what `bgpsim validate --router-keys` writes."""
    keys = SHARED / "bgpsec" / "nist-bgp-srx_rfc8208_keys"
    pcap = tmp_path / "signed.pcap"
    assert bgpsim("bgpsec", "sign", "--prefix", "192.0.2.0/24", "--prefix", "2001:db8::/32", "--path", "65536,64496",
                  "--target-as", "65537", "--signing-keys", keys, "--out", pcap).returncode == 0
    (tmp_path / "vrps.csv").write_text("ASN,IP Prefix,Max Length,Trust Anchor\nAS64496,192.0.2.0/24,24,test\n")
    topic = "bgpsec"
    mon = start_monitor("--broker", broker.url("plain"), "--vrps", tmp_path / "vrps.csv", "--router-keys", keys,
                        "--out", tmp_path / "live", "--topic", topic, "--client-id", topic, "--until-idle", 5)
    wait_online(broker, topic, mon)
    assert bgpsim("stream", "publish", pcap, "--broker", broker.url("plain"), "--topic", topic, "--flat-out").returncode == 0
    _, err = mon.communicate(timeout=60)
    assert mon.returncode == 0, err
    assert bgpsim("validate", pcap, "--vrps", tmp_path / "vrps.csv", "--router-keys", keys, "--out",
                  tmp_path / "batch", "--quiet").returncode == 0
    live = (tmp_path / "live" / "routes.csv").read_text()
    assert live == (tmp_path / "batch" / "routes.csv").read_text()
    rows = live.splitlines()
    assert rows[0].endswith(",bgpsec,bgpsec_reason") and len(rows) == 3
    assert all(r.endswith(',valid,"every signature verifies with a router key bound to its AS"') for r in rows[1:])


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGKILL"])
def test_monitor_stopped_and_restarted_loses_nothing(tmp_path, vrps, stop):
    """A monitor stopped (SIGTERM, or killed once it has checked what came) and started again with the same
    session: what was published while it was away reaches the second one, nothing twice; each routes.csv is
    validate's on what it got, and every alert an uninterrupted monitor raises is among theirs."""
    for dump, name in ((CAPTURE, "a"), (SMALL, "b")):
        assert bgpsim("validate", dump, "--vrps", vrps, "--out", tmp_path / f"batch-{name}", "--quiet").returncode == 0
    reference = (tmp_path / "batch-b" / "routes.csv").read_text().splitlines()
    captured = (tmp_path / "batch-a" / "routes.csv").read_text().splitlines()
    busiest = [p for p, _ in Counter(line.split(",")[3] for line in reference[1:]).most_common(5)]
    (tmp_path / "watch.toml").write_text("".join(f'[[prefix]]\nprefix = "{p}"\norigins = [1]\n\n' for p in busiest))
    with Broker(tmp_path / "mosquitto", tls=False, password=False) as b:
        def monitor(client_id, out, *idle):
            return start_monitor("--broker", b.url("plain"), "--vrps", vrps, "--watch", tmp_path / "watch.toml",
                                 "--out", tmp_path / out, "--topic", "stop", "--client-id", client_id,
                                 *idle, "--quiet")

        def publish(dump):
            assert bgpsim("stream", "publish", dump, "--broker", b.url("plain"), "--topic", "stop", "--flat-out",
                          "--quiet").returncode == 0

        whole, first = monitor("whole", "whole"), monitor("halves", "first", "--until-idle", 60)
        wait_online(b, "stop", first)
        wait_online(b, "stop", whole)
        publish(CAPTURE)
        if stop == "SIGTERM":
            time.sleep(1)
            first.terminate()  # it checks what it holds and disconnects; its session stays
            _, err = first.communicate(timeout=30)
            assert first.returncode == 0, err
        else:  # killed once routes.csv is complete (it is flushed as it grows); the broker keeps the session
            want, deadline = (tmp_path / "batch-a" / "routes.csv").read_text(), time.monotonic() + 30
            while (tmp_path / "first" / "routes.csv").read_text() != want and time.monotonic() < deadline:
                time.sleep(0.1)
            first.kill()
            first.communicate(timeout=30)
        publish(SMALL)  # while it is away
        second = monitor("halves", "second")
        stop_when(second, holds(tmp_path / "second" / "routes.csv", "\n".join(reference) + "\n"))
        stop_when(whole, has_rows(tmp_path / "whole" / "routes.csv", len(reference) + len(captured) - 1))
    assert (tmp_path / "first" / "routes.csv").read_text() == (tmp_path / "batch-a" / "routes.csv").read_text()
    assert (tmp_path / "second" / "routes.csv").read_text().splitlines() == reference
    if stop == "SIGTERM":
        stopped = json.loads((tmp_path / "first" / "summary.json").read_text())["feed"]
        assert stopped["lost_at_stop"] == 0
    keys = lambda d: {(a["kind"], a["prefix"], a["observed_origin"])  # noqa: E731
                      for a in map(json.loads, (tmp_path / d / "alerts.jsonl").read_text().splitlines())}
    assert keys("whole") and keys("whole") <= keys("first") | keys("second")
