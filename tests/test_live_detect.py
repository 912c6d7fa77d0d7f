"""Detection through the live pipeline: the bundled teaching scenarios, published by `bgpsim run
--publish` through a real mosquitto, are caught by `bgpsim monitor --watch` — a sub-prefix hijack, an
exact-prefix hijack and a route leak — each alert naming the attacker (or the leaker) at the simulated
time the first collector peer saw it (1,700,000,000 + simulated seconds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import undescribed
from mqtt_broker import MOSQUITTO, NO_MOSQUITTO, Broker

pytestmark = pytest.mark.skipif(MOSQUITTO is None, reason=NO_MOSQUITTO)

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
EPOCH = 1_700_000_000
VICTIM, PREFIX = 64510, "198.51.100.0/24"


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    with Broker(tmp_path_factory.mktemp("mosquitto"), tls=False, password=False) as b:
        yield b


def alerts_of(broker: Broker, tmp_path: Path, scenario: str, *monitor_args) -> list[dict]:
    """The run published while the monitor is away and read when it is back: the monitor opens its
    persistent session (--client-id) and stops; `run --publish` sends the whole feed, which the
    broker keeps for that session; the monitor started again takes it and stops 2 s after the last
    message. (test_live_run.py has a monitor reading a published run as it goes.)"""
    (tmp_path / "watch.toml").write_text(f'[[prefix]]\nprefix = "{PREFIX}"\ndescription = "VideoTube"\n'
                                         f"origins = [{VICTIM}]\n")
    (tmp_path / "vrps.csv").write_text(f"ASN,IP Prefix,Max Length,Trust Anchor\nAS{VICTIM},{PREFIX},24,teaching\n")
    topic = scenario

    def monitor(idle: str) -> None:
        mon = subprocess.run([sys.executable, "-m", "bgpsim", "monitor", "--broker", broker.url("plain"), "--vrps",
                              str(tmp_path / "vrps.csv"), "--watch", str(tmp_path / "watch.toml"), "--out",
                              str(tmp_path / "live"), "--topic", topic, "--client-id", topic, "--until-idle", idle,
                              "--quiet", *monitor_args], capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert mon.returncode == 0, mon.stderr

    monitor("0.5")  # the session, subscribed: from here the broker keeps what is published for it
    run = subprocess.run([sys.executable, "-m", "bgpsim", "run", str(SCENARIOS / f"{scenario}.toml"), "--publish",
                          broker.url("plain"), "--pace", "200", "--topic", topic, "--out", str(tmp_path / "run"),
                          "--quiet", "--no-figures"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    monitor("2")
    assert json.loads((tmp_path / "live" / "summary.json").read_text())["runs"] == 2
    assert undescribed(tmp_path / "live") == []  # every file, column and key in the README
    return [json.loads(line) for line in (tmp_path / "live" / "alerts.jsonl").read_text().splitlines()]


def test_subprefix_hijack(broker, tmp_path):
    alerts = alerts_of(broker, tmp_path, "teaching-subprefix")
    hijacks = [a for a in alerts if a["kind"] == "subprefix-hijack"]
    assert hijacks and {a["observed_origin"] for a in hijacks} == {64511}  # Rogue Telecom
    first = min(a["first_seen"] for a in hijacks)
    assert EPOCH + 10.0 <= first < EPOCH + 11.0  # the attack starts at t = 10 s
    assert all(a["expected_origins"] == [VICTIM] and a["rpki"] == "invalid-asn" for a in hijacks)
    # the victim's own more-specifics at t = 150 s (the mitigation) are more-specific alerts, not hijacks
    mine = [a for a in alerts if a["kind"] == "more-specific"]
    assert mine and all(a["observed_origin"] == VICTIM and a["first_seen"] >= EPOCH + 150 for a in mine)


def test_exact_prefix_hijack(broker, tmp_path):
    alerts = alerts_of(broker, tmp_path, "teaching-prefix-rov")
    assert [(a["kind"], a["prefix"], a["observed_origin"]) for a in alerts] == [("prefix-hijack", PREFIX, 64511)]
    assert EPOCH + 10.0 <= alerts[0]["first_seen"] < EPOCH + 11.0 and alerts[0]["rpki"] == "invalid-asn"


def test_route_leak(broker, tmp_path):
    topology = SCENARIOS / "topologies" / "teaching.toml"
    alerts = alerts_of(broker, tmp_path, "teaching-leak", "--relationships", str(topology))
    leaks = [a for a in alerts if a["kind"] == "leak"]
    assert leaks and {a["leaker"] for a in leaks} == {65537}  # Keystone Steel
    assert all(a["observed_origin"] == VICTIM and "65537" in a["path"].split() for a in leaks)
    assert EPOCH + 20.0 <= min(a["first_seen"] for a in leaks) < EPOCH + 21.0  # the leak starts at t = 20 s
