"""Real routers reading `bgpsim rtr serve` on loopback hold exactly our VRPs: after the full load,
after an update that withdraws 1 % of the VRPs and adds 1 % (delivered by a Serial Notify and a
Serial Query), and after the cache restarts with a new session ID. BIRD 2 (its `rpki` protocol,
version 1; the ROA tables read with birdc)."""

from __future__ import annotations

import ipaddress
import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from test_rtr import Serve, csv_text, vrps

BIRD, BIRDC = (shutil.which(n) or (f"/usr/sbin/{n}" if Path(f"/usr/sbin/{n}").exists() else None) for n in ("bird", "birdc"))
need_bird = pytest.mark.skipif(BIRD is None or BIRDC is None, reason="needs BIRD 2 (Debian package bird2)")


def table(origins) -> set:
    return {(o.vrp.prefix, o.vrp.max_length, o.vrp.asn) for o in origins}


class Bird:
    """BIRD 2 with an `rpki` protocol to 127.0.0.1:PORT, in its own directory."""

    def __init__(self, tmp: Path, port: int):
        self.dir = tmp / "bird"
        self.dir.mkdir()
        (self.dir / "bird.conf").write_text(
            "router id 192.0.2.254;\nroa4 table r4;\nroa6 table r6;\nprotocol device {}\n"
            f"protocol rpki cache {{ roa4 {{ table r4; }}; roa6 {{ table r6; }}; remote 127.0.0.1 port {port}; "
            "retry keep 1; refresh keep 3600; expire 7200; }\n")
        self.sock = self.dir / "bird.ctl"
        self.proc = subprocess.Popen([BIRD, "-f", "-c", str(self.dir / "bird.conf"), "-s", str(self.sock), "-P",
                                      str(self.dir / "bird.pid")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True)

    def birdc(self, *command: str) -> str:
        return subprocess.run([BIRDC, "-s", str(self.sock), *command], capture_output=True, text=True, timeout=30).stdout

    def roas(self) -> set:
        out = set()
        for name in ("r4", "r6"):
            for line in self.birdc("show", "route", "table", name).splitlines():
                parts = line.split()
                if parts and "/" in parts[0] and "-" in parts[0] and parts[1].startswith("AS"):
                    net, maxlen = parts[0].rsplit("-", 1)
                    out.add((ipaddress.ip_network(net), int(maxlen), int(parts[1][2:])))
        return out

    def session(self) -> str:
        return next((line.split(":", 1)[1].strip() for line in self.birdc("show", "protocols", "all", "cache").splitlines()
                     if "Session ID" in line), "")

    def wait_for(self, want: set, timeout: float = 20.0) -> set:
        end = time.monotonic() + timeout
        got = set()
        while time.monotonic() < end:
            if self.sock.exists():
                got = self.roas()
                if got == want:
                    return got
            time.sleep(0.25)
        return got

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


@need_bird
def test_bird_holds_our_vrps_through_an_update_and_a_restart(tmp_path):
    first = vrps(2000, seed=11)
    (tmp_path / "vrps.csv").write_text(csv_text(first))
    serve = Serve(tmp_path, tmp_path / "vrps.csv").__enter__()
    bird = Bird(tmp_path, serve.port)
    try:
        assert bird.wait_for(table(first)) == table(first)
        session = bird.session()
        rng = random.Random(2)
        second = rng.sample(first, 1980) + vrps(20, seed=99)  # 1 % withdrawn, 1 % new
        (tmp_path / "next.csv").write_text(csv_text(second))
        (tmp_path / "next.csv").rename(tmp_path / "vrps.csv")
        assert bird.wait_for(table(second)) == table(second)
        assert bird.session() == session  # by a delta, not a new session
        serve.__exit__(None, None, None)  # the cache restarts on the same port: a new session ID
        serve = Serve(tmp_path, tmp_path / "vrps.csv", port=serve.port).__enter__()
        end = time.monotonic() + 20
        while bird.session() in ("", session) and time.monotonic() < end:
            time.sleep(0.25)
        assert bird.session() not in ("", session)
        assert bird.wait_for(table(second)) == table(second)
    finally:
        bird.stop()
        serve.__exit__(None, None, None)
