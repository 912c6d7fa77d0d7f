"""UPDATEs per second that `bgpsim bgp speak` sends to and receives from GoBGP and BIRD, beside ExaBGP
doing the same in the same run, on one full table (RIPE's updates.et-header.2015.gz: 577,737
announcements from AS3856).

For each router (started here on 127.0.0.1 with a generated configuration, as the tests start them):
- send: a speaker at 127.0.0.2 (AS65001) replays the dump flat out; the time is from the speaker's
  start to the last change of the router's count of prefixes from it (polled every 0.1 s, until
  it has not changed for 5 s; both routers drop the few dozen routes whose path holds their own AS);
- receive: the router, holding those routes, gets a second neighbour at 127.0.0.3 (AS65002), to which it
  exports them all; the time is from that session's start to the last UPDATE's arrival, as the
  receiver records them (our MRT recording's timestamps; ExaBGP's own JSON `time` fields).
Each figure is routes (or prefixes) over seconds; ExaBGP's are made the same way: it sends what an API
process prints (`announce route ...`, one line a route, written before the timer starts) and
receives with its JSON encoder. Start-up (Python's, the dump's reading) counts for both speakers.

    python bench/bench_speak.py [--routers gobgp,bird] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DUMP = ROOT.parent / "shared" / "data" / "mrt" / "ripe_bgpdump_testdata" / "updates.et-header.2015.gz"
sys.path.insert(0, str(ROOT / "tests"))

from test_rtr import free_port
from test_rtr_routers import BIRD, BIRDC, GOBGP, GOBGPD

from bgpsim.mrt.reader import MRTReader

EXABGP = shutil.which("exabgp") or "/usr/sbin/exabgp"


def final_routes(dump: Path, limit: int | None, work: Path) -> tuple[Path, int, dict[str, str]]:
    """The dump cut to its first `limit` routes (bgpdump -m text, which speak reads too, in `work`), how
    many, and its last state: prefix -> AS path."""
    last: dict[str, str] = {}
    lines = []
    out = subprocess.run([sys.executable, "-m", "bgpsim", "dump", str(dump)], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.splitlines()
    for line in out:
        f = line.split("|")
        if f[2] not in ("A", "W"):
            continue
        if limit is not None and len(lines) >= limit:
            break
        lines.append(line)
        if f[2] == "A":
            last[f[5]] = f[6]
        else:
            last.pop(f[5], None)
    cut = work / "routes.txt"
    cut.write_text("\n".join(lines) + "\n")
    return cut, len(lines), last


class Router:
    """A router started for the run: `count` the prefixes it holds from the sender, `accepted` those it
    would pass on (the receiver's count), `stop`."""

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


class GoBGPRouter(Router):
    def __init__(self, d: Path, port: int):
        d.mkdir(parents=True)
        self.api = free_port()
        nbr = "".join(f'[[neighbors]]\n  [neighbors.config]\n    neighbor-address = "{a}"\n    peer-as = {asn}\n'
                      f'  [neighbors.transport.config]\n    passive-mode = true\n    local-address = "127.0.0.1"\n'
                      for a, asn in (("127.0.0.2", 65001), ("127.0.0.3", 65002)))
        (d / "gobgpd.toml").write_text(f'[global.config]\n  as = 65000\n  router-id = "127.0.0.1"\n  port = {port}\n'
                                       '  local-address-list = ["127.0.0.1"]\n' + nbr)
        self.proc = subprocess.Popen([GOBGPD, "-f", str(d / "gobgpd.toml"), "--api-hosts", f"127.0.0.1:{self.api}",
                                      "--pprof-disable"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)

    def count(self) -> int:
        """Prefixes received from 127.0.0.2 (accepted or not: GoBGP refuses a few dozen of the table)."""
        out = subprocess.run([GOBGP, "-u", "127.0.0.1", "-p", str(self.api), "neighbor"], capture_output=True, text=True,
                             check=False).stdout
        for line in out.splitlines():
            if line.startswith("127.0.0.2 "):
                try:
                    return int(line.split("|")[1].split()[0])
                except (IndexError, ValueError):
                    return 0
        return 0

    def accepted(self) -> int:
        out = subprocess.run([GOBGP, "-u", "127.0.0.1", "-p", str(self.api), "global", "rib", "summary", "-a", "ipv4"],
                             capture_output=True, text=True, check=False).stdout
        return int(out.split("Destination:")[1].split(",")[0])


class BirdRouter(Router):
    def __init__(self, d: Path, port: int):
        d.mkdir(parents=True)
        self.sock = d / "bird.ctl"
        peers = "".join(f"protocol bgp n{asn} {{ local 127.0.0.1 port {port} as 65000; neighbor {a} as {asn}; "
                        "passive on; multihop;\n  ipv4 { import all; export all; next hop self; gateway recursive; "
                        "igp table master4; }; }\n" for a, asn in (("127.0.0.2", 65001), ("127.0.0.3", 65002)))
        (d / "bird.conf").write_text("router id 127.0.0.1;\nprotocol device {}\n"
                                     "protocol direct { ipv4; interface \"lo\"; }\n" + peers)
        self.proc = subprocess.Popen([BIRD, "-f", "-c", str(d / "bird.conf"), "-s", str(self.sock), "-P",
                                      str(d / "bird.pid")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)

    def count(self) -> int:
        """Prefixes from 127.0.0.2: imported or filtered (`show protocols all`'s Routes line)."""
        out = subprocess.run([BIRDC, "-s", str(self.sock), "show", "protocols", "all", "n65001"],
                             capture_output=True, text=True, check=False).stdout
        for line in out.splitlines():
            if line.strip().startswith("Routes:"):
                f = line.split()
                return int(f[1]) + int(f[3])
        return 0

    def accepted(self) -> int:
        out = subprocess.run([BIRDC, "-s", str(self.sock), "show", "route", "count", "protocol", "n65001"],
                             capture_output=True, text=True, check=False).stdout
        return next((int(ln.split()[0]) for ln in out.splitlines() if "routes for" in ln), 0)


def wait_count(router: Router, want: int, start: float, timeout: float = 900, idle: float = 5.0) -> tuple[int, float]:
    """(prefixes the router holds, seconds from `start` to the last change of that count) once it has not
    changed for `idle` seconds and holds 99 % of `want` (a router drops a few: its own AS in the path)."""
    count, changed = 0, start
    while time.perf_counter() - start < timeout:
        n = router.count()
        now = time.perf_counter()
        if n != count:
            count, changed = n, now
        elif count >= 0.99 * want and now - changed >= idle:
            return count, changed - start
        time.sleep(0.1)
    raise SystemExit(f"the router never held {want:,} routes (last count {count:,})")


def exa_env(port: int) -> dict:
    return {**os.environ, "exabgp.tcp.port": str(port), "exabgp.tcp.bind": "", "exabgp.daemon.user":
            pwd.getpwuid(os.getuid()).pw_name, "exabgp.log.destination": "stdout", "exabgp.log.level": "ERR",
            "exabgp.api.ack": "false"}


def exa_send(d: Path, port: int, routes: Path, next_hop: str) -> subprocess.Popen:
    """ExaBGP at 127.0.0.2 (AS65001) connecting to the router and announcing `routes` by its API."""
    d.mkdir(parents=True)
    cmds = d / "announce.txt"
    with open(cmds, "w") as f:
        for line in routes.read_text().splitlines():
            p = line.split("|")
            if p[2] == "A":  # an AS_SET as ExaBGP writes it: ( a b )
                path = p[6].replace("{", "( ").replace("}", " )").replace(",", " ")
                f.write(f"announce route {p[5]} next-hop {next_hop} as-path [ 65001 {path} ]\n")
            else:
                f.write(f"withdraw route {p[5]} next-hop {next_hop}\n")
    (d / "feed.py").write_text(f"import sys, time\nsys.stdout.write(open({str(cmds)!r}).read())\nsys.stdout.flush()\n"
                               "time.sleep(86400)\n")
    (d / "exabgp.conf").write_text(
        f"process feed {{\n  run {sys.executable} {d / 'feed.py'};\n  encoder text;\n}}\n"
        f"neighbor 127.0.0.1 {{\n  router-id 127.0.0.2;\n  local-address 127.0.0.2;\n  local-as 65001;\n  peer-as 65000;\n"
        "  family { ipv4 unicast; }\n  api { processes [ feed ]; }\n}\n")
    return subprocess.Popen([EXABGP, str(d / "exabgp.conf")], env=exa_env(port), cwd=d, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def exa_receive(d: Path, port: int, want: int, timeout: float = 600, idle: float = 15.0) -> tuple[int, float]:
    """ExaBGP at 127.0.0.3 (AS65002) connected to the router: (routes received, seconds from the session's
    start to the last of them, by ExaBGP's own `time` fields), once nothing has come for `idle` seconds."""
    d.mkdir(parents=True)
    got = d / "received.jsonl"
    (d / "dump.py").write_text("import sys\nwith open(sys.argv[1], 'a') as f:\n    for line in sys.stdin:\n"
                               "        f.write(line)\n        f.flush()\n")
    (d / "exabgp.conf").write_text(
        f"process dump {{\n  run {sys.executable} {d / 'dump.py'} {got};\n  encoder json;\n}}\n"
        f"neighbor 127.0.0.1 {{\n  router-id 127.0.0.3;\n  local-address 127.0.0.3;\n  local-as 65002;\n  peer-as 65000;\n"
        "  family { ipv4 unicast; }\n  api { processes [ dump ]; neighbor-changes; receive { parsed; update; } }\n}\n")
    proc = subprocess.Popen([EXABGP, str(d / "exabgp.conf")], env=exa_env(port), cwd=d, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    start = quiet = time.perf_counter()
    up = last = None
    n = 0
    seen = 0
    try:
        while time.perf_counter() - start < timeout and (n == 0 or time.perf_counter() - quiet < idle):
            time.sleep(0.2)
            if not got.exists():
                continue
            with open(got) as f:
                f.seek(seen)
                chunk = f.read()
            cut = chunk.rfind("\n") + 1
            seen += cut
            if cut:
                quiet = time.perf_counter()
            for line in chunk[:cut].splitlines():
                m = json.loads(line)
                if m.get("type") == "state" and m["neighbor"].get("state") == "up":
                    up = m["time"]
                ann = m.get("neighbor", {}).get("message", {}).get("update", {}).get("announce", {})
                for hops in ann.get("ipv4 unicast", {}).values():
                    n += len(hops)
                    last = m["time"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    if n < 0.99 * want or up is None:
        raise SystemExit(f"ExaBGP received {n:,} of {want:,} routes")
    return n, last - up


def ours_receive(d: Path, port: int, want: int) -> tuple[int, float]:
    """Our speaker at 127.0.0.3: (routes received, seconds from Established to the last UPDATE), by its
    MRT recording. The router passes on a few less than it holds (NO_EXPORT, the receiver's AS in
    the path): 99 % of `want` is asked."""
    d.mkdir(parents=True)
    out = d / "heard.mrt"
    p = subprocess.run([sys.executable, "-m", "bgpsim", "bgp", "speak", "--neighbor", f"127.0.0.1:{port}", "--local",
                        "127.0.0.3", "--as", "65002", "--peer-as", "65000", "--out", str(out), "--until-idle", "15",
                        "--quiet"], cwd=ROOT, capture_output=True, text=True, check=False)
    if p.returncode:
        raise SystemExit(p.stderr)
    stamps, n = [], 0
    for r in MRTReader(str(out)).routes():
        if r.kind == "announce":
            n += 1
        stamps.append(r.timestamp)
    if n < 0.99 * want:
        raise SystemExit(f"we received {n:,} of {want:,} routes")
    established = stamps[0]
    last_update = stamps[-2]  # the last is the state change at the end
    return n, last_update - established


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--routers", default="gobgp,bird")
    ap.add_argument("--limit", type=int, help="only the dump's first N routes")
    a = ap.parse_args()
    if not DUMP.exists():
        raise SystemExit(f"{DUMP} not found")
    work = Path(tempfile.mkdtemp(prefix="bench-speak-"))
    try:
        run(a, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)  # ours: the routes, the routers' and speakers' files
    return 0


def run(a, work: Path) -> None:
    routes, sent, last = final_routes(DUMP, a.limit, work)
    want = len(last)
    print(f"{DUMP.name}: {sent:,} routes sent, {want:,} prefixes in the last state")
    for name in a.routers.split(","):
        for speaker in ("bgpsim", "exabgp"):
            tmp = work / f"{name}-{speaker}"
            port = free_port()
            router = (GoBGPRouter if name == "gobgp" else BirdRouter)(tmp / name, port)
            nh = "192.0.2.2" if name == "gobgp" else "127.0.0.2"  # GoBGP takes a loopback next hop as a withdrawal
            try:
                start = time.perf_counter()
                if speaker == "bgpsim":
                    sender = subprocess.Popen([sys.executable, "-m", "bgpsim", "bgp", "speak", "--neighbor",
                                               f"127.0.0.1:{port}", "--local", "127.0.0.2", "--as", "65001", "--peer-as",
                                               "65000", "--replay", str(routes), "--flat-out", "--next-hop", nh,
                                               "--quiet"], cwd=ROOT, stderr=subprocess.DEVNULL)
                else:
                    sender = exa_send(tmp / "exa-send", port, routes, nh)
                held, took = wait_count(router, want, start)
                print(f"{name:5} {speaker:7} send    {sent:>9,} routes in {took:6.1f} s: {sent / took:>9,.0f} routes/s "
                      f"(the router holds {held:,} prefixes)", flush=True)
                held = router.accepted()
                got, took = (ours_receive(tmp / "recv", port, held) if speaker == "bgpsim"
                             else exa_receive(tmp / "exa-recv", port, held))
                print(f"{name:5} {speaker:7} receive {got:>9,} routes in {took:6.1f} s: {got / took:>9,.0f} routes/s",
                      flush=True)
                sender.terminate()
                sender.wait(timeout=30)
            finally:
                router.stop()


if __name__ == "__main__":
    sys.exit(main())
