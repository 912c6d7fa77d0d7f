"""A monitor's output is its own: a monitor started again on it (after a stop) appends to routes.csv
and alerts.jsonl and adds its counts to summary.json's, so the two runs lose nothing and repeat
nothing; a monitor that cannot reach its broker leaves an earlier output byte for byte as it was; a
last line torn by a killed monitor is cut before the next one appends. Through a real mosquitto on
127.0.0.1; the RIS Live messages are synthetic, written from RIS Live's manual."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mqtt_broker import MOSQUITTO, NO_MOSQUITTO, Broker, free_port, wait_online

from bgpsim.base.outdir import MARKER
from bgpsim.live.output import MonitorOutput, merged
from bgpsim.validate.check import COLUMNS

ROOT = Path(__file__).resolve().parent.parent
VRPS = "ASN,IP Prefix,Max Length,Trust Anchor\nAS64500,192.140.252.0/22,24,synthetic\n"
needs_broker = pytest.mark.skipif(MOSQUITTO is None, reason=NO_MOSQUITTO)


def ris(n: int) -> bytes:
    """The n-th synthetic RIS Live UPDATE: one announced route, 10.0.n.0/24 from AS64500 (a distinct id each)."""
    return json.dumps({"type": "ris_message", "data": {
        "timestamp": 1470931200 + n, "peer": "192.0.2.1", "peer_asn": "64496", "id": f"resume-{n}", "host": "rrc00",
        "type": "UPDATE", "path": [64496, 3356, 64500], "origin": "igp",
        "announcements": [{"next_hop": "192.0.2.1", "prefixes": [f"10.0.{n}.0/24"]}]}}).encode()


def publish(broker: Broker, topic: str, numbers) -> None:
    for n in numbers:
        subprocess.run(["mosquitto_pub", "-p", str(broker.plain), "-t", f"{topic}/updates", "-q", "1", "-s"],
                       input=ris(n), check=True, timeout=10)


def monitor(broker_url: str, out: Path, vrps: Path, *more) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bgpsim", "monitor", "--broker", broker_url, "--vrps", str(vrps),
                             "--out", str(out), "--topic", "resume", "--client-id", "resume", *map(str, more)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)


def snapshot(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


@needs_broker
def test_a_monitor_started_again_on_its_output_loses_and_repeats_nothing(tmp_path):
    vrps = tmp_path / "vrps.csv"
    vrps.write_text(VRPS)
    out = tmp_path / "live"
    with Broker(tmp_path / "mosquitto", tls=False, password=False) as broker:
        url = f"mqtt://127.0.0.1:{broker.plain}"
        first = monitor(url, out, vrps, "--until-idle", 2)
        wait_online(broker, "resume", first)
        publish(broker, "resume", range(0, 3))
        _, err = first.communicate(timeout=60)
        assert first.returncode == 0, err
        publish(broker, "resume", range(3, 5))  # while no monitor runs: kept for the persistent session
        before = (out / "routes.csv").read_bytes()

        # a monitor that cannot connect changes nothing, and says so in one line
        refused = monitor(f"mqtt://127.0.0.1:{free_port()}", out, vrps, "--until-idle", 2)
        _, err = refused.communicate(timeout=30)
        assert refused.returncode == 2 and err.count("\n") == 1 and "cannot connect" in err, err
        assert (out / "routes.csv").read_bytes() == before

        second = monitor(url, out, vrps, "--until-idle", 2)
        wait_online(broker, "resume", second)
        publish(broker, "resume", range(5, 7))
        _, err = second.communicate(timeout=60)
        assert second.returncode == 0, err
    rows = (out / "routes.csv").read_text().splitlines()
    assert rows[0].startswith("time,peer_ip,") and rows.count(rows[0]) == 1
    assert (out / "routes.csv").read_bytes().startswith(before)  # appended, not rewritten
    assert sorted(r.split(",")[3] for r in rows[1:]) == sorted(f"10.0.{n}.0/24" for n in range(7))  # once each
    summary = json.loads((out / "summary.json").read_text())
    assert summary["runs"] == 2 and summary["routes"] == 7 and summary["feed"]["updates"] == 7
    assert summary["rpki"]["not-found"] == 7 and summary["vrps"] == 1
    marker = json.loads((out / MARKER).read_text())
    assert marker["command"] == "monitor" and marker["files"] == ["alerts.jsonl", "routes.csv", "summary.json"]


@needs_broker
def test_a_monitor_that_cannot_connect_leaves_an_earlier_output_byte_identical(tmp_path):
    vrps = tmp_path / "vrps.csv"
    vrps.write_text(VRPS)
    out = tmp_path / "live"
    sink = MonitorOutput(out, ",".join(COLUMNS) + "\n", print)
    sink.open()
    sink.routes(b"1470931200.000000,192.0.2.1,64496,10.0.0.0/24,64496 64500,64500,not-found,,,\n" * 1000)
    sink.close({"routes": 1000})
    before = snapshot(out)
    p = monitor(f"mqtt://127.0.0.1:{free_port()}", out, vrps, "--until-idle", 1)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 2 and err.count("\n") == 1 and "cannot connect to the broker" in err, err
    assert snapshot(out) == before


def test_a_torn_last_line_is_cut_before_appending(tmp_path):
    out = tmp_path / "live"
    sink = MonitorOutput(out, "a,b\n", print)
    sink.open()
    sink.routes(b"1,2\n3,")  # as a monitor killed in the middle of a write leaves it
    sink.close(None)
    warned = []
    again = MonitorOutput(out, "a,b\n", warned.append)
    again.open()
    again.routes(b"5,6\n")
    again.close(None)
    assert (out / "routes.csv").read_text() == "a,b\n1,2\n5,6\n"
    assert len(warned) == 1 and "routes.csv" in warned[0] and "2 bytes" in warned[0]


def test_other_columns_are_refused_before_anything_is_written(tmp_path):
    from bgpsim.base.errors import InputError

    out = tmp_path / "live"
    sink = MonitorOutput(out, "a,b\n", print)
    sink.open()
    sink.close({"routes": 0})
    before = snapshot(out)
    with pytest.raises(InputError, match="columns a,b, not a,b,bgpsec"):
        MonitorOutput(out, "a,b,bgpsec\n", print)
    assert snapshot(out) == before


def test_summaries_add_up():
    one = {"vrps": 5, "routes": 3, "rpki": {"valid": 1, "invalid": 2}, "feed": {"updates": 3, "seconds": 1.5,
           "most_waiting": 4, "updates_per_second": 2},
           "by_peer": [{"peer_ip": "192.0.2.1", "peer_as": 64496, "routes": 3}],
           "top_invalid_origins": [{"origin_as": 64500, "invalid": 2, "routes": 2}]}
    two = {"vrps": 6, "routes": 4, "rpki": {"valid": 4, "invalid": 0}, "feed": {"updates": 5, "seconds": 0.5,
           "most_waiting": 2, "updates_per_second": 10},
           "by_peer": [{"peer_ip": "192.0.2.9", "peer_as": 64497, "routes": 1},
                       {"peer_ip": "192.0.2.1", "peer_as": 64496, "routes": 3}],
           "top_invalid_origins": []}
    m = merged(one, two)
    assert m["vrps"] == 6 and m["routes"] == 7 and m["rpki"] == {"valid": 5, "invalid": 2} and m["runs"] == 2
    assert m["feed"] == {"updates": 8, "seconds": 2.0, "most_waiting": 4, "updates_per_second": 4}
    assert m["by_peer"] == [{"peer_ip": "192.0.2.1", "peer_as": 64496, "routes": 6},
                            {"peer_ip": "192.0.2.9", "peer_as": 64497, "routes": 1}]
    assert m["top_invalid_origins"] == [{"origin_as": 64500, "invalid": 2, "routes": 2}]
    assert merged(m, two)["runs"] == 3
