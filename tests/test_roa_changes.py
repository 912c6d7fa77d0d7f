"""The monitor's VRPs kept current, and their changes as alerts: worked by hand; a VRP file written
again while a monitor reads RIS Live (tests/ris_live_server.py), read again on SIGHUP or when it
changes; and an RTR cache (stayrtr, Debian package stayrtr) whose file changes under it. The route
after the change is checked against the new VRPs."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ris_live_server import RisLiveServer, message

from bgpsim.live import roas
from bgpsim.live.watchlist import Watched, WatchedAS, WatchList

ROOT = Path(__file__).resolve().parent.parent
STAYRTR = shutil.which("stayrtr")
N = ipaddress.ip_network
OWN = "198.51.100.0/24"
WATCH = f'[[prefix]]\nprefix = "{OWN}"\ndescription = "ours"\norigins = [64510]\n'


def test_what_changed_between_two_loads():
    watch = WatchList([Watched(N("198.51.100.0/23"), origins={64510})], [WatchedAS(64520)])
    relevant = roas.Relevance(watch)
    before = {(N("198.51.100.0/24"), 24, 64510): ("ripe", None), (N("198.51.101.0/24"), 24, 64510): ("ripe", None),
              (N("203.0.113.0/24"), 24, 64520): ("arin", None), (N("192.0.2.0/24"), 24, 64499): ("arin", None),
              **{(N(f"10.{i}.0.0/16"), 16, 64499): ("apnic", None) for i in range(5)}}
    after = {(N("198.51.100.0/24"), 25, 64510): ("ripe", None),  # maxLength 24 -> 25: edited
             (N("198.51.100.0/25"), 25, 64666): ("ripe", None),  # inside the watched /23: added
             (N("203.0.113.0/24"), 24, 64520): ("arin", None),
             (N("192.0.2.0/24"), 24, 64499): ("arin", None),  # no watched prefix nor AS: not told
             (N("10.0.0.0/16"), 16, 64499): ("apnic", None)}  # APNIC lost 4 of 5: a trust anchor in trouble
    got = [(a["kind"], a["prefix"], a["observed_origin"], a["watched"], a["detail"])
           for a in roas.changes(before, after, relevant, 1000.0)]
    assert got == [
        ("roa-removed", "198.51.101.0/24", 64510, "198.51.100.0/23", {"max_length": 24, "ta": "ripe"}),
        ("roa-added", "198.51.100.0/25", 64666, "198.51.100.0/23", {"max_length": 25, "ta": "ripe"}),
        ("roa-edited", "198.51.100.0/24", 64510, "198.51.100.0/23", {"max_length": 25, "was": 24, "ta": "ripe"}),
        ("ta-drop", None, None, "apnic", {"had": 5, "has": 1})]
    soon = {(N("203.0.113.0/24"), 24, 64520): ("arin", 1000 + 3600), (N("198.51.100.0/24"), 24, 64510): ("ripe", 10**6)}
    assert [(a["kind"], a["watched"], a["detail"]["expires"]) for a in roas.expiring(soon, relevant, 1000.0)] == [
        ("roa-expiring", "AS64520", 4600)]


def test_a_vrp_file_is_read_again_when_it_changes(tmp_path, monkeypatch):
    path = tmp_path / "vrps.csv"
    path.write_text(f"ASN,IP Prefix,Max Length,Trust Anchor\nAS64510,{OWN},24,ripe\n")
    monkeypatch.setattr(roas, "POLL", 0.05)
    seen = []

    async def main():
        f = roas.VrpFile(str(path))
        task = asyncio.ensure_future(f.follow(lambda b, a: seen.append((len(b), len(a))), print, asyncio.Event()))
        await asyncio.sleep(0.2)
        path.write_text(f"ASN,IP Prefix,Max Length,Trust Anchor\nAS64510,{OWN},24,ripe\nAS64511,{OWN},24,ripe\n")
        await asyncio.sleep(0.3)
        path.write_text("banana\n")  # a relying party caught writing: a warning, the VRPs stay
        await asyncio.sleep(0.3)
        task.cancel()
        return f

    f = asyncio.run(main())
    assert seen == [(1, 2)] and len(f.vrps) == 2


def run_monitor(server, tmp_path: Path, *vrps_args, idle: float = 2) -> subprocess.Popen:
    (tmp_path / "watch.toml").write_text(WATCH)
    return subprocess.Popen([sys.executable, "-m", "bgpsim", "monitor", "--ris-live", server.url(), *map(str, vrps_args),
                             "--watch", tmp_path / "watch.toml", "--out", tmp_path / "out", "--until-idle", str(idle),
                             "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)


def route(n: int) -> str:
    return message({"timestamp": 1000 + n, "peer": "192.0.2.1", "peer_asn": "64496", "id": f"r-{n}", "type": "UPDATE",
                    "path": [64496, 64511], "origin": "IGP",
                    "announcements": [{"next_hop": "192.0.2.1", "prefixes": [OWN]}]})


def wait_for(cond, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_sighup_reads_the_vrps_again_and_tells_what_changed(tmp_path):
    vrps = tmp_path / "vrps.csv"
    vrps.write_text(f"ASN,IP Prefix,Max Length,Trust Anchor\nAS64510,{OWN},24,ripe\n")
    with RisLiveServer([route(1), ("sleep", 1.5), route(2)]) as server:
        mon = run_monitor(server, tmp_path, "--vrps", vrps)
        out = tmp_path / "out"
        wait_for(lambda: len(lines(out / "routes.csv")) == 2)
        # the holder registers AS64511 too: the VRP file is written again, and the monitor told
        vrps.write_text(f"ASN,IP Prefix,Max Length,Trust Anchor\nAS64510,{OWN},24,ripe\nAS64511,{OWN},24,ripe\n")
        mon.send_signal(signal.SIGHUP)
        _, err = mon.communicate(timeout=60)
        assert mon.returncode == 0, err
    rows = lines(out / "routes.csv")
    assert [r.split(",")[6] for r in rows[1:]] == ["invalid-asn", "valid"]  # before the change, and after
    alerts = [json.loads(x) for x in lines(out / "alerts.jsonl")]
    assert [(a["kind"], a["prefix"], a["observed_origin"]) for a in alerts] == [
        ("prefix-hijack", OWN, 64511), ("roa-added", OWN, 64511)]
    assert alerts[1]["detail"] == {"max_length": 24, "ta": "ripe"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["alerts"]["by_kind"] == {"prefix-hijack": 1, "roa-added": 1} and summary["vrps"] == 2


@pytest.mark.skipif(STAYRTR is None, reason="needs stayrtr (Debian package stayrtr)")
def test_vrps_from_an_rtr_cache_followed_as_it_changes(tmp_path):
    cache = tmp_path / "vrps.json"

    def write(asns):
        cache.write_text(json.dumps({"metadata": {"buildtime": "2026-12-02T00:00:00Z"}, "roas": [
            {"prefix": OWN, "maxLength": 24, "asn": a, "ta": "ripe"} for a in asns]}))

    write([64510])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rtr = subprocess.Popen([STAYRTR, "-bind", f"127.0.0.1:{port}", "-cache", str(cache), "-checktime=false",
                            "-metrics.addr", "", "-refresh", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: _listening(port))
        with RisLiveServer([route(1), ("sleep", 2.5), route(2)]) as server:
            mon = run_monitor(server, tmp_path, "--rtr", f"127.0.0.1:{port}", idle=3)
            out = tmp_path / "out"
            wait_for(lambda: len(lines(out / "routes.csv")) == 2)
            write([64510, 64511])  # stayrtr reads it again within a second and notifies the monitor
            _, err = mon.communicate(timeout=60)
            assert mon.returncode == 0, err
    finally:
        rtr.terminate()
        rtr.wait(10)
    assert [r.split(",")[6] for r in lines(out / "routes.csv")[1:]] == ["invalid-asn", "valid"]
    alerts = [json.loads(x) for x in lines(out / "alerts.jsonl")]
    assert [(a["kind"], a["observed_origin"]) for a in alerts] == [("prefix-hijack", 64511), ("roa-added", 64511)]


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False
