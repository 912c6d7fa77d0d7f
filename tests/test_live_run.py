"""`bgpsim run --publish`: the bundled sub-prefix hijack told over MQTT as a route collector hears it,
caught by `bgpsim monitor` through a real mosquitto on 127.0.0.1 (tests/mqtt_broker.py). The monitor's
routes.csv shows Rogue Telecom's /25 from the collector peers, timestamped the epoch + the attack's
start; the timeline and the retained status arrive; publishing is paced; a steady run or a broker that
is not there is one line and exit status 2. Without a broker: the recorder sees what it should and
changes nothing of the run."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mqtt_broker import MOSQUITTO, NO_MOSQUITTO, Broker, free_port, wait_online

from bgpsim.cli import main
from bgpsim.live.simfeed import EPOCH, CollectorPeers
from bgpsim.sim import output
from bgpsim.sim.plan import resolve
from bgpsim.sim.run import simulate
from bgpsim.sim.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "teaching-subprefix.toml"
VICTIM, ATTACKER, ATTACK_START = 64510, 64511, 10.0  # as the scenario says
HIJACK = "198.51.100.0/25"
needs_broker = pytest.mark.skipif(MOSQUITTO is None or shutil.which("mosquitto_sub") is None, reason=NO_MOSQUITTO)


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    if MOSQUITTO is None:
        pytest.skip(NO_MOSQUITTO)
    with Broker(tmp_path_factory.mktemp("mosquitto"), password=False) as b:
        yield b


@pytest.fixture(scope="module")
def vrps(tmp_path_factory) -> Path:
    """VideoTube's ROA: 198.51.100.0/24, maxLength 24, AS64510."""
    path = tmp_path_factory.mktemp("vrps") / "vrps.csv"
    path.write_text(f"ASN,IP Prefix,Max Length,Trust Anchor\nAS{VICTIM},198.51.100.0/24,24,hand\n")
    return path


def bgpsim(*args, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bgpsim", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def sub(broker: Broker, *args) -> subprocess.Popen:
    return subprocess.Popen(["mosquitto_sub", "-p", str(broker.plain), "-v", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)



def retained(broker: Broker, topic: str, *more) -> dict:
    p = subprocess.run(["mosquitto_sub", "-p", str(broker.plain), "-t", topic, "-C", "1", "-W", "3", *more],
                       capture_output=True, text=True, timeout=10)
    return json.loads(p.stdout)


def until_done(watch: subprocess.Popen, topic: str) -> list[tuple[str, dict]]:
    """The (topic, message) lines of a mosquitto_sub -v up to the status "done"."""
    got = []
    for line in watch.stdout:
        t, _, payload = line.partition(" ")
        got.append((t, json.loads(payload)))
        if t == f"{topic}/sim/status" and got[-1][1]["state"] == "done":
            break
    watch.terminate()
    watch.wait(timeout=10)
    return got


@needs_broker
def test_the_monitor_catches_the_hijack(broker, vrps, tmp_path):
    topic, pace = "class1", 200
    watch = sub(broker, "-t", f"{topic}/sim/#", "-W", "90")
    # --until-idle above the run's wall time before it publishes (as `bgpsim run --help` asks): it
    # simulates and writes its files first (no figures: 0.4 s alone, a few seconds on a loaded machine)
    mon = subprocess.Popen([sys.executable, "-m", "bgpsim", "monitor", "--broker", broker.url(), "--vrps", str(vrps),
                            "--out", str(tmp_path / "live"), "--topic", topic, "--client-id", topic, "--until-idle", "12"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    wait_online(broker, topic, mon)
    run = bgpsim("run", SCENARIO, "--publish", broker.url(), "--pace", pace, "--topic", topic, "--out",
                 tmp_path / "run", "--no-figures")
    assert run.returncode == 0, run.stderr
    assert "bgpsim: publishing" in run.stderr and run.stdout.startswith("bgpsim: teaching-subprefix")
    assert (tmp_path / "run" / "result.json").exists() and (tmp_path / "run" / "report.html").exists()
    out, err = mon.communicate(timeout=120)
    assert mon.returncode == 0, err

    got = until_done(watch, topic)
    states = [m["state"] for t, m in got if t.endswith("/sim/status")]
    assert states == ["simulating", "publishing", "done"]
    started = next(m for t, m in got if t.endswith("/sim/status") and m["state"] == "publishing")
    done = got[-1][1]
    peers = {p["asn"]: p["peer"] for p in started["peers"]}
    assert len(peers) == 5 and not {VICTIM, ATTACKER} & set(peers)  # the largest customer cones
    assert {64496, 64497, 64498} <= set(peers)  # the tier-1 clique among them
    # publishing is paced: simulated seconds / pace, at least
    assert done["time"] - started["time"] >= 0.9 * started["seconds"] / pace

    # the timeline: what result.json has, one message per row, in time order
    timeline = [m for t, m in got if t.endswith("/sim/timeline")]
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    assert len(timeline) == len(result["timeline"]) == done["timeline"]
    assert [[m["time"], m["attacker"], m["victim"]] for m in timeline] == result["timeline"]
    assert timeline[0]["attacker"] == 0 and max(m["attacker"] for m in timeline) > 0.5
    assert all(m["timestamp"] == pytest.approx(EPOCH + m["time"]) for m in timeline)
    assert done["outcome"] == result["outcome"]

    # the monitor: every published announcement checked, the hijack invalid, from the collector peers
    summary = json.loads((tmp_path / "live" / "summary.json").read_text())
    assert summary["feed"]["updates"] == started["updates"] == done["updates"]
    assert summary["feed"]["unreadable"] == summary["feed"]["repeats"] == 0
    rows = list(csv.reader((tmp_path / "live" / "routes.csv").read_text().splitlines()))
    head, rows = rows[0], rows[1:]
    col = {k: i for i, k in enumerate(head)}
    hijack = [r for r in rows if r[col["prefix"]] == HIJACK]
    assert hijack and all(r[col["as_path"]].split()[-1] == str(ATTACKER) for r in hijack)
    assert all(r[col["rpki"]].startswith("invalid") for r in hijack)
    assert {int(r[col["peer_as"]]) for r in hijack} == set(peers)  # every peer took the more specific
    assert all(peers[int(r[col["peer_as"]])] == r[col["peer_ip"]] for r in rows)
    assert all(r[col["as_path"]].split()[0] == r[col["peer_as"]] for r in rows)
    first = min(float(r[col["time"]]) for r in hijack)
    assert EPOCH + ATTACK_START <= first < EPOCH + ATTACK_START + 1.0
    # before it, the warm start's table: VideoTube's /24 from every peer at the epoch, valid
    table = [r for r in rows if float(r[col["time"]]) == EPOCH]
    assert {int(r[col["peer_as"]]) for r in table} == set(peers)
    assert all(r[col["prefix"]] == "198.51.100.0/24" and r[col["rpki"]] == "valid" for r in table)

    # the status stays for whoever subscribes later
    assert retained(broker, f"{topic}/sim/status")["state"] == "done"


@needs_broker
def test_chosen_peers_over_tls(broker, tmp_path):
    topic = "class2"
    watch = sub(broker, "-t", f"{topic}/#", "-W", "60")
    time.sleep(0.3)
    run = bgpsim("run", "--publish", broker.url("tls"), "--cafile", broker.cafile, "--topic", topic, "--pace", 1000,
                 "--publish-ases", f"{ATTACKER},AS64499", "--out", tmp_path / "run", "--quiet")
    assert run.returncode == 0 and run.stderr == "", run.stderr
    got = until_done(watch, topic)
    updates = [m for t, m in got if t == f"{topic}/updates"]
    assert {m["peer_asn"] for m in updates} == {str(ATTACKER), "64499"}
    # the attacker's own Loc-RIB: its /25 with the path [itself], at the attack's start exactly
    own = [m for m in updates if m["peer_asn"] == str(ATTACKER) and m.get("path") == [ATTACKER]]
    assert own and own[0]["timestamp"] == EPOCH + ATTACK_START
    assert own[0]["announcements"] == [{"next_hop": own[0]["peer"], "prefixes": [HIJACK]}]
    assert len({m["id"] for m in updates}) == len(updates)


def test_steady_engine_and_options_without_publish(capsys, tmp_path):
    for args, expect in ((["--engine", "steady", "--publish", "mqtt://127.0.0.1"], "--publish needs the timed engine"),
                         (["--pace", "10"], "--pace needs --publish URL"),
                         (["--publish-ases", "64496"], "--publish-ases needs --publish URL"),
                         (["--publish", "mqtt://127.0.0.1", "--publish-ases", "1"], "AS1 is not in the topology"),
                         (["--publish", "http://127.0.0.1"], "--publish: want mqtt://")):
        assert main(["run", str(SCENARIO), "--out", str(tmp_path / "out"), *args]) == 2
        err = capsys.readouterr().err
        assert expect in err and err.count("\n") == 1, err
    with pytest.raises(SystemExit):
        main(["run", "--publish", "mqtt://127.0.0.1", "--pace", "0"])
    assert "want a factor > 0" in capsys.readouterr().err


def test_no_broker_is_one_line_within_ten_seconds(tmp_path):
    t = time.monotonic()
    p = bgpsim("run", SCENARIO, "--publish", f"mqtt://127.0.0.1:{free_port()}", "--out", tmp_path / "run", timeout=30)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "cannot connect to the broker" in p.stderr, p.stderr
    assert time.monotonic() - t < 10
    assert not (tmp_path / "run" / "result.json").exists()  # no simulation without the broker


def test_the_recorder_sees_the_peers_and_changes_nothing():
    scn = load_scenario(SCENARIO)
    plain = simulate(resolve(scn))
    plan = resolve(load_scenario(SCENARIO), publish=True)
    topo = plan.topo
    rec = CollectorPeers(plan.peers)
    watched = simulate(plan, observer=rec)
    assert output.result_json(watched) == output.result_json(plain)
    asns = topo.asns.tolist()
    assert sorted(asns[i] for i in rec.peers) == [64496, 64497, 64498, 64499, 64505]
    times = [t for t, *_ in rec.changes]
    assert times == sorted(times) and times.count(0.0) == 5  # the warm start's table, one route per peer
    hijack = [(t, asns[i], path) for t, i, p, path in rec.changes if str(rec.engine.prefixes[p]) == HIJACK]
    assert hijack and all(t >= ATTACK_START and asns[path[-1]] == ATTACKER for t, _, path in hijack)
    assert all(path is None or path[0] == i for _, i, _, path in rec.changes)  # the peer's own path, itself first
