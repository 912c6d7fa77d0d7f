"""Real routers reading `bgpsim rtr serve` on loopback hold exactly our VRPs: after the full load,
after an update that withdraws 1 % of the VRPs and adds 1 % (delivered by a Serial Notify and a
Serial Query), and after the cache restarts with a new session ID. BIRD 2 (its `rpki` protocol,
version 1; the ROA tables read with birdc), GoBGP 3.10 (version 0; `gobgp rpki table`) and FRR 8.4
(bgpd with its rtrlib module, version 1; `show rpki prefix-table`)."""

from __future__ import annotations

import contextlib
import ipaddress
import random
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
from test_rtr import Serve, csv_text, free_port, vrps

BIRD, BIRDC = (shutil.which(n) or (f"/usr/sbin/{n}" if Path(f"/usr/sbin/{n}").exists() else None) for n in ("bird", "birdc"))
need_bird = pytest.mark.skipif(BIRD is None or BIRDC is None, reason="needs BIRD 2 (Debian package bird2)")
GOBGPD, GOBGP = shutil.which("gobgpd"), shutil.which("gobgp")
need_gobgp = pytest.mark.skipif(GOBGPD is None or GOBGP is None, reason="needs GoBGP (Debian package gobgpd)")
FRR_BGPD, VTYSH = Path("/usr/lib/frr/bgpd"), shutil.which("vtysh")
need_frr = pytest.mark.skipif(not FRR_BGPD.exists() or VTYSH is None or not any(Path("/usr/lib").glob("*/frr/modules/bgpd_rpki.so")),
                              reason="needs FRR with its RPKI module (Debian packages frr and frr-rpki-rtrlib)")


def table(origins) -> set:
    return {(o.vrp.prefix, o.vrp.max_length, o.vrp.asn) for o in origins}


class Router:
    """A router process reading our cache; `roas()` its ROA table as (prefix, max length, AS)."""

    proc: subprocess.Popen

    def roas(self) -> set:  # each router's own CLI, below
        raise NotImplementedError

    def wait_for(self, want: set, timeout: float = 20.0) -> set:
        end = time.monotonic() + timeout
        got = set()
        while time.monotonic() < end:
            try:
                got = self.roas()
            except (OSError, subprocess.SubprocessError):
                got = set()
            if got == want:
                return got
            time.sleep(0.5)  # each look is a CLI process reading the whole table
        return got

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def _run(*argv: str) -> str:
    return subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout


class Bird(Router):
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

    def roas(self) -> set:
        out = set()
        for name in ("r4", "r6"):
            for line in _run(BIRDC, "-s", str(self.sock), "show", "route", "table", name).splitlines():
                parts = line.split()
                if parts and "/" in parts[0] and "-" in parts[0] and parts[1].startswith("AS"):
                    net, maxlen = parts[0].rsplit("-", 1)
                    out.add((ipaddress.ip_network(net), int(maxlen), int(parts[1][2:])))
        return out

    def session(self) -> str:
        return next((line.split(":", 1)[1].strip() for line in
                     _run(BIRDC, "-s", str(self.sock), "show", "protocols", "all", "cache").splitlines()
                     if "Session ID" in line), "")


class GoBGP(Router):
    """gobgpd with an `rpki-servers` entry for 127.0.0.1:PORT; its gRPC API on a free port."""

    def __init__(self, tmp: Path, port: int):
        d = tmp / "gobgp"
        d.mkdir()
        (d / "gobgpd.toml").write_text(f'[global.config]\n  as = 64512\n  router-id = "192.0.2.1"\n  port = -1\n'
                                       f'[[rpki-servers]]\n  [rpki-servers.config]\n    address = "127.0.0.1"\n'
                                       f"    port = {port}\n")
        self.api = free_port()
        self.proc = subprocess.Popen([GOBGPD, "-f", str(d / "gobgpd.toml"), "--api-hosts", f"127.0.0.1:{self.api}",
                                      "--pprof-disable"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def roas(self) -> set:
        out = set()
        for family in ("ipv4", "ipv6"):
            for line in _run(GOBGP, "-u", "127.0.0.1", "-p", str(self.api), "rpki", "table", "-a", family).splitlines():
                parts = line.split()
                if len(parts) >= 3 and "/" in parts[0] and parts[1].isdigit():
                    out.add((ipaddress.ip_network(parts[0]), int(parts[1]), int(parts[2])))
        return out


class Frr(Router):
    """FRR's bgpd alone (no zebra), its rpki module dialling 127.0.0.1:PORT; vtysh on its socket."""

    def __init__(self, tmp: Path, port: int):
        self.dir = tmp / "frr"
        self.dir.mkdir()
        (self.dir / "bgpd.conf").write_text(f"rpki\n rpki polling_period 3600\n rpki retry_interval 1\n"
                                            f" rpki cache 127.0.0.1 {port} preference 1\nexit\n"
                                            "router bgp 64512\n bgp router-id 192.0.2.2\nexit\n")
        self.proc = subprocess.Popen([str(FRR_BGPD), "-M", "rpki", "-f", str(self.dir / "bgpd.conf"), "-Z", "-S", "-p",
                                      "0", "-l", "127.0.0.1", "--vty_socket", str(self.dir), "-i",
                                      str(self.dir / "bgpd.pid")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def roas(self) -> set:
        out = set()
        text = _run(VTYSH, "--vty_socket", str(self.dir), "-d", "bgpd", "-c", "show rpki prefix-table")
        for line in text.splitlines():
            parts = line.split()  # 198.51.100.0   22 -  24   64498
            if len(parts) == 5 and parts[2] == "-" and parts[1].isdigit():
                out.add((ipaddress.ip_network(f"{parts[0]}/{parts[1]}"), int(parts[3]), int(parts[4])))
        return out


class Relay:
    """A TCP relay on 127.0.0.1 in front of the cache, as a load balancer stands in front of caches: a
    restarted cache comes up on another port before the old one goes, and the router's next dial
    reaches it. GoBGP dials a cache that refused it again only after a fixed 30 s."""

    def __init__(self, target: int):
        self.target = target
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                down, _ = self.sock.accept()
            except OSError:  # closed
                return
            up = socket.create_connection(("127.0.0.1", self.target))
            for a, b in ((down, up), (up, down)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a: socket.socket, b: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := a.recv(65536):
                b.sendall(data)
        for s in (a, b):  # one side gone: the other is closed too
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.sock.close()


def _through_update_and_restart(tmp_path: Path, make, relay: bool = False) -> None:
    """The full load, a 1 % update, a cache restart (a new session ID): each time the router holds
    exactly the file's VRPs."""
    first = vrps(1000, seed=11)
    (tmp_path / "vrps.csv").write_text(csv_text(first))
    fast = ("--retry-interval", "1")  # rtrlib (FRR) waits the cache's Retry Interval before dialling it again
    serve = Serve(tmp_path, tmp_path / "vrps.csv", options=fast).__enter__()
    front = Relay(serve.port) if relay else None
    router = make(tmp_path, front.port if front else serve.port)
    try:
        assert router.wait_for(table(first), 40) == table(first)
        rng = random.Random(2)
        second = rng.sample(first, 990) + vrps(10, seed=99)  # 1 % withdrawn, 1 % new
        (tmp_path / "next.csv").write_text(csv_text(second))
        (tmp_path / "next.csv").rename(tmp_path / "vrps.csv")
        assert router.wait_for(table(second)) == table(second)
        third = second[:-10]  # the cache restarts, with a new session ID
        (tmp_path / "third.csv").write_text(csv_text(third))
        if front:
            new = Serve(tmp_path, tmp_path / "third.csv", options=fast).__enter__()
            front.target = new.port
            serve.__exit__(None, None, None)
            serve = new
        else:
            serve.__exit__(None, None, None)
            serve = Serve(tmp_path, tmp_path / "third.csv", port=serve.port, options=fast).__enter__()
        assert router.wait_for(table(third)) == table(third)
    finally:
        router.stop()
        serve.__exit__(None, None, None)
        if front:
            front.close()


@need_bird
def test_bird(tmp_path):
    _through_update_and_restart(tmp_path, Bird)


@need_gobgp
def test_gobgp(tmp_path):
    _through_update_and_restart(tmp_path, GoBGP, relay=True)


@need_frr
def test_frr(tmp_path):
    _through_update_and_restart(tmp_path, Frr)
