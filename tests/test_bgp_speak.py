"""`bgpsim bgp speak` with real routers on loopback (BIRD 2, GoBGP, FRR, started here with generated
configurations): the routes of a file arrive in the router's table as an AS exports them (ours
prepended, the communities kept), only in the families both OPENs name; what the router sends is
recorded as MRT that `bgpsim dump` and bgpdump read alike; and a peer that sends malformed UPDATEs
(our own session, sending them) gets what RFC 7606 and RFC 4271 say, one line each."""

from __future__ import annotations

import asyncio
import json
import os
import pwd
import random
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, wait_port
from test_bgp_session import ROUTERS, THEIRS, THEIRS6, Bird, bird_v4
from test_rtr import free_port
from test_rtr_routers import need_bird

from bgpsim.wire.encode import attribute, message, path_attributes
from bgpsim.wire.session import Session, SessionClosed
from bgpsim.wire.update import UPDATE

ROUTES = ("TABLE_DUMP2|1700000000|B|192.0.2.1|64496|198.51.100.0/24|64496 64511|IGP|192.0.2.1|0|0|64496:1|NAG||\n"
          "TABLE_DUMP2|1700000000|B|192.0.2.1|64496|2001:db8:1::/48|64496 64512|IGP|2001:db8::1|0|0||NAG||\n")


def speak(tmp_path, port: int, *more) -> subprocess.Popen:
    (tmp_path / "routes.txt").write_text(ROUTES)
    # not loopback next hops: GoBGP takes an UPDATE with one as a withdrawal (RFC 7606 section 7.3)
    return subprocess.Popen([sys.executable, "-m", "bgpsim", "bgp", "speak", "--neighbor", f"127.0.0.1:{port}", "--local",
                             "127.0.0.2", "--as", "65001", "--peer-as", "65000", "--announce", str(tmp_path / "routes.txt"),
                             "--next-hop", "192.0.2.2", "--next-hop", "2001:db8::2", "--out", str(tmp_path / "heard.mrt"),
                             *map(str, more)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(show, text: str, seconds: float = 15.0) -> str:
    """What `show()` prints once it holds `text`."""
    for _ in range(int(seconds / 0.1)):
        out = show()
        if text in out:
            return out
        time.sleep(0.1)
    raise AssertionError(f"never came: {text}; last seen: {out}")


def recorded(path, warnings: int = 0) -> list[str]:
    """bgpsim's lines of the recording, with that many warnings; bgpdump's, which must be the same,
    where there are none (bgpdump reads faulty UPDATEs otherwise: README)."""
    ours = subprocess.run([sys.executable, "-m", "bgpsim", "dump", str(path)], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    assert ours.stderr.count("warning") == warnings, ours.stderr
    if warnings:
        return ours.stdout.splitlines()
    theirs = subprocess.run(["bgpdump", "-m", str(path)], capture_output=True, text=True, check=False) \
        if subprocess.run(["which", "bgpdump"], capture_output=True, check=False).returncode == 0 else None
    if theirs is not None:
        assert theirs.stdout == ours.stdout
    return ours.stdout.splitlines()


def _finish(p: subprocess.Popen) -> str:
    _, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert "Traceback" not in err
    return err


@need_bird
def test_speak_to_bird_announces_and_records(tmp_path):
    """BIRD's OPEN names IPv4 alone: our IPv6 route stays here, with a warning."""
    port = free_port()
    bird = bird_v4(tmp_path, port)
    try:
        p = speak(tmp_path, port, "--until-idle", 2)
        table = wait_for(bird.routes, "198.51.100.0/24")
        assert "BGP.as_path: 65001 64496 64511" in table and "(64496,1)" in table
        assert "BGP.next_hop: 192.0.2.2" in table
        err = _finish(p)
    finally:
        bird.stop()
    assert "sent 1 routes in 1 UPDATEs" in err and "1 routes not sent: their family was not negotiated" in err
    lines = recorded(tmp_path / "heard.mrt")
    assert lines[0].startswith("BGP4MP_ET|") and lines[0].endswith("|STATE|127.0.0.1|65000|1|6")
    assert lines[-1].endswith("|STATE|127.0.0.1|65000|6|1")
    (a,) = [ln for ln in lines if "|A|" in ln]
    assert a.split("|")[5:9] == [THEIRS, "65000", "IGP", "127.0.0.1"]


@need_bird
def test_add_path_every_path_of_a_prefix_recorded(tmp_path):
    """BIRD holds two routes to THEIRS (MED 10, MED 20) and sends every path to a peer that receives
    ADD-PATH (RFC 7911): with --add-path both arrive, each with its path identifier, recorded as
    BGP4MP_MESSAGE_AS4_ADDPATH (RFC 8050) that bgpdump reads as we do; without, its best alone."""
    port = free_port()
    statics = "".join(f"protocol static s{m} {{ ipv4; route {THEIRS} blackhole {{ bgp_med = {m}; }}; }}\n"
                      for m in (10, 20))
    bird = Bird(tmp_path, statics + f"protocol bgp dut {{ local 127.0.0.1 port {port} as 65000; neighbor 127.0.0.2 as "
                "65001; passive on; multihop;\n  hold time 9; ipv4 { import none; export all; add paths tx; "
                "next hop address 127.0.0.1; }; }\n")
    try:
        wait_for(lambda: bird.birdc("show", "route", "count"), "2 of 2 routes")
        got, said = {}, {}
        for flag in ("--add-path", None):
            said[flag] = _finish(speak(tmp_path, port, "--until-idle", 3, *([flag] if flag else [])))
            got[flag] = [ln.split("|") for ln in recorded(tmp_path / "heard.mrt") if "|A|" in ln]
    finally:
        bird.stop()
    assert "hold time 9 s; ADD-PATH for IPv4)" in said["--add-path"] and "ADD-PATH" not in said[None]
    ap = got["--add-path"]
    assert [(f[0], f[5], f[11]) for f in ap] == [("BGP4MP_ET_AP", THEIRS, "10"), ("BGP4MP_ET_AP", THEIRS, "20")]
    assert len({f[6] for f in ap}) == 2  # two path identifiers
    assert [(f[0], f[5], f[10]) for f in got[None]] == [("BGP4MP_ET", THEIRS, "10")]


def _both_families(tmp_path, port: int, table) -> None:
    p = speak(tmp_path, port, "--until-idle", 3)
    v4 = wait_for(lambda: table("ipv4"), "198.51.100.0/24")
    v6 = wait_for(lambda: table("ipv6"), "2001:db8:1::/48")
    assert "65001 64496 64511" in v4 and "65001 64496 64512" in v6
    err = _finish(p)
    assert "sent 2 routes in 2 UPDATEs" in err and "not sent" not in err
    lines = recorded(tmp_path / "heard.mrt")
    announced = {ln.split("|")[5]: ln.split("|")[6] for ln in lines if "|A|" in ln}
    assert announced[THEIRS] == announced[THEIRS6] == "65000"
    # GoBGP sends our own routes back (its AS before ours: the loop is for the receiver to see, RFC 4271
    # section 9.1.2); FRR does not
    assert all(path.startswith("65000 65001 ") for prefix, path in announced.items() if prefix not in (THEIRS, THEIRS6))


@pytest.mark.parametrize("router", ROUTERS)
def test_speak_ipv4_and_ipv6(tmp_path, router):
    port = free_port()
    r = router(tmp_path, port)
    try:
        _both_families(tmp_path, port, r.table)
    finally:
        r.stop()


EXABGP = shutil.which("exabgp") or "/usr/sbin/exabgp"
need_exabgp = pytest.mark.skipif(not Path(EXABGP).exists(),
                                 reason="ExaBGP not installed (Debian package `exabgp`: apt-get install -y exabgp)")


class ExaBGP:
    """ExaBGP on 127.0.0.1:PORT as AS65000, passive, for a peer at 127.0.0.2 (AS65001), announcing
    THEIRS and THEIRS6; what it receives written by its API, as JSON, one UPDATE a line; `teardown`
    has it end the session with a Cease (its API's command)."""

    def __init__(self, tmp: Path, port: int):
        self.dir = tmp / "exabgp"
        self.dir.mkdir()
        self.received = self.dir / "received.jsonl"
        (self.dir / "dump.py").write_text("import sys\nwith open(sys.argv[1], 'a') as f:\n    for line in sys.stdin:\n"
                                          "        f.write(line)\n        f.flush()\n")
        self.trigger = self.dir / "teardown"
        (self.dir / "control.py").write_text(
            "import os, sys, time\nwhile not os.path.exists(sys.argv[1]):\n    time.sleep(0.05)\n"
            "print('neighbor 127.0.0.2 teardown 2', flush=True)\nsys.stdin.read()\n")
        (self.dir / "exabgp.conf").write_text(
            f"process dump {{\n  run {sys.executable} {self.dir / 'dump.py'} {self.received};\n  encoder json;\n}}\n"
            f"process control {{\n  run {sys.executable} {self.dir / 'control.py'} {self.trigger};\n  encoder json;\n}}\n"
            "neighbor 127.0.0.2 {\n  router-id 127.0.0.1;\n  local-address 127.0.0.1;\n  local-as 65000;\n"
            "  peer-as 65001;\n  passive true;\n  hold-time 9;\n  family { ipv4 unicast; ipv6 unicast; }\n"
            "  api { processes [ dump ]; receive { parsed; update; } }\n"
            f"  static {{ route {THEIRS} next-hop 192.0.2.1; route {THEIRS6} next-hop 2001:db8::1; }}\n}}\n")
        env = {**os.environ, "exabgp.tcp.port": str(port), "exabgp.tcp.bind": "127.0.0.1",
               "exabgp.daemon.user": pwd.getpwuid(os.getuid()).pw_name, "exabgp.log.destination": "stdout"}
        self.proc = subprocess.Popen([EXABGP, str(self.dir / "exabgp.conf")], env=env, cwd=self.dir,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # listening before we connect: `bgp speak` gives up on a refused connection, and ExaBGP takes
        # seconds to start on a loaded machine (a probe from 127.0.0.1, not its peer, it just closes)
        wait_port(port, self.proc, timeout=30)

    def table(self, family: str) -> str:
        """What it was announced in `family` ("ipv4" or "ipv6"): a line per prefix, with its AS path."""
        out = []
        for line in self.received.read_text().splitlines() if self.received.exists() else ():
            update = json.loads(line).get("neighbor", {}).get("message", {}).get("update", {})
            path = " ".join(map(str, update.get("attribute", {}).get("as-path", [])))
            for hops in update.get("announce", {}).get(f"{family} unicast", {}).values():
                out += [f"{h['nlri']} {path}" for h in hops]
        return "\n".join(out)

    def teardown(self) -> None:
        self.trigger.touch()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


@need_exabgp
def test_speak_to_exabgp_and_its_cease(tmp_path):
    """Both families both ways with ExaBGP; then ExaBGP tears the session down: its Cease ends ours, exit 0."""
    port = free_port()
    exa = ExaBGP(tmp_path, port)
    try:
        p = speak(tmp_path, port)
        v4 = wait_for(lambda: exa.table("ipv4"), "198.51.100.0/24")
        v6 = wait_for(lambda: exa.table("ipv6"), "2001:db8:1::/48")
        assert "198.51.100.0/24 65001 64496 64511" in v4 and "2001:db8:1::/48 65001 64496 64512" in v6
        time.sleep(0.5)  # its routes to us
        exa.teardown()
        err = _finish(p)
    finally:
        exa.stop()
    assert "session ended by the peer: the peer sent NOTIFICATION 6/" in err
    lines = recorded(tmp_path / "heard.mrt")
    announced = {ln.split("|")[5]: ln.split("|")[6] for ln in lines if "|A|" in ln}
    assert announced == {THEIRS: "65000", THEIRS6: "65000"}


def test_a_router_that_cannot_be_reached_is_one_line(tmp_path):
    p = subprocess.run([sys.executable, "-m", "bgpsim", "bgp", "speak", "--neighbor", f"127.0.0.1:{free_port()}", "--as",
                        "65001", "--peer-as", "65000", "--out", str(tmp_path / "heard.mrt")], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "cannot connect" in p.stderr
    assert not (tmp_path / "heard.mrt").exists() and list(tmp_path.iterdir()) == []


def test_out_that_is_not_a_recording_is_refused_before_connecting(tmp_path):
    (tmp_path / "mine.mrt").write_text("not a recording\n")
    p = subprocess.run([sys.executable, "-m", "bgpsim", "bgp", "speak", "--neighbor", f"127.0.0.1:{free_port()}", "--as",
                        "65001", "--peer-as", "65000", "--out", str(tmp_path / "mine.mrt")], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode == 2 and "exists and is not an MRT recording" in p.stderr
    assert (tmp_path / "mine.mrt").read_text() == "not a recording\n"


if __name__ == "__main__":
    pytest.main([__file__])


# --- a peer that sends malformed UPDATEs ---------------------------------------------------------------

def _update(attrs: bytes, nlri: bytes) -> bytes:
    return message(UPDATE, struct.pack(">HH", 0, len(attrs)) + attrs + nlri)


GOOD_ATTRS = path_attributes(0, [(2, [65000, 64500])], "192.0.2.1")


async def _bad_peer(port: int, sent: list[bytes], ended: list, reset: bool = False) -> None:
    """A speaker of AS65000 on 127.0.0.1:PORT that, once Established, sends `sent` and waits for the end
    (or, with `reset`, drops the connection: a TCP reset, no NOTIFICATION)."""
    done = asyncio.Event()

    async def serve(reader, writer):
        s = Session(65000, "127.0.0.1", 65001, hold=9)
        try:
            await s.accept(reader, writer)
            for m in sent:
                await s.send(m)
            if reset:
                writer.transport.abort()
                return
            await s.run()
        except SessionClosed as e:
            ended.append(e)
        finally:
            done.set()

    server = await asyncio.start_server(serve, "127.0.0.1", port)
    async with server:
        await asyncio.wait_for(done.wait(), 30)


def _speak_to(port: int, tmp_path, peer) -> tuple[int, str]:
    """`bgp speak` to the in-process peer `peer` (a coroutine serving on PORT): exit status and stderr."""

    async def both():
        serving = asyncio.ensure_future(peer)
        await asyncio.sleep(0.2)
        p = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bgpsim", "bgp", "speak", "--neighbor", f"127.0.0.1:{port}", "--as", "65001", "--peer-as",
            "65000", "--out", str(tmp_path / "heard.mrt"), cwd=ROOT, stderr=asyncio.subprocess.PIPE)
        _, err = await asyncio.wait_for(p.communicate(), 30)
        await serving
        return p.returncode, err.decode()

    return asyncio.run(both())


def test_a_peer_that_resets_is_one_line_and_the_recording_kept(tmp_path):
    port = free_port()
    code, err = _speak_to(port, tmp_path, _bad_peer(port, [_update(GOOD_ATTRS, b"\x08\x0a")], [], reset=True))
    assert code == 1 and "Traceback" not in err, err
    assert [ln for ln in err.splitlines() if "warning" in ln] == \
        ["bgpsim: warning: session ended: the connection was lost (IncompleteReadError)"] or "ConnectionResetError" in err
    lines = recorded(tmp_path / "heard.mrt")
    assert [ln.split("|")[2] for ln in lines] == ["STATE", "A", "STATE"]


def test_malformed_updates_get_what_rfc_7606_says(tmp_path):
    """A bad AGGREGATOR is discarded (the route kept), a 3-byte MED withdraws its route, a /33 prefix
    resets the session with UPDATE Message Error, Invalid Network Field: one line each, no traceback,
    and the recording holds all three UPDATEs."""
    port = free_port()
    sent = [_update(GOOD_ATTRS + attribute(0xC0, 7, b"\x00" * 5), b"\x08\x0a"),
            _update(GOOD_ATTRS + attribute(0x80, 4, b"\x00\x00\x01"), b"\x10\x0b\x01"),
            _update(GOOD_ATTRS, b"\x21\x0c\x00\x00\x00\x00")]
    ended: list = []
    code, err = _speak_to(port, tmp_path, _bad_peer(port, sent, ended))
    assert code == 1 and "Traceback" not in err, err
    (e,) = ended
    assert (e.code, e.subcode, e.by_peer) == (3, 10, True)
    warnings = [ln for ln in err.splitlines() if "warning:" in ln]
    assert len(warnings) == 3, err
    assert "UPDATE 1 from 127.0.0.1: byte " in warnings[0] and "AGGREGATOR (RFC 7606 section 7.7)" in warnings[0] \
        and warnings[0].endswith("attribute discarded (RFC 7606 section 2)")
    assert "MULTI_EXIT_DISC (RFC 7606 section 7.4): want 4 bytes, got 3" in warnings[1]
    assert "session ended: sent NOTIFICATION 3/10 (UPDATE Message Error): UPDATE 3: byte" in warnings[2]
    assert "want a prefix length <= 32, got 33" in warnings[2]
    lines = recorded(tmp_path / "heard.mrt", warnings=3)
    assert [ln.split("|")[2:6:3] for ln in lines[1:-1]] == [["A", "10.0.0.0/8"], ["W", "11.1.0.0/16"]]


def test_ten_thousand_fuzzed_updates_are_read_or_reset_never_a_crash():
    """10,000 UPDATEs mutated from good ones (bytes changed, cut, repeated; lengths fixed up so that
    the header is right): each gives routes, with at most one line per fault, or an UpdateError with
    a subcode of RFC 4271 section 6.3; nothing else is raised."""
    from bgpsim.speaker.speaker import UpdateReader
    from bgpsim.wire.session import UpdateError

    rng = random.Random(7606)
    mp = attribute(0x80, 14, struct.pack(">HBB", 2, 1, 16) + bytes(16) + b"\x00" + b"\x20\x20\x01\x0d\xb8")
    seeds = [_update(GOOD_ATTRS + attribute(0xC0, 8, b"\x00\x01\x00\x02") + attribute(0xC0, 7, bytes(8)), b"\x08\x0a"),
             _update(mp + path_attributes(0, [(2, [65000]), (1, [1, 2])]), b""),
             message(UPDATE, struct.pack(">H", 4) + b"\x18\x0a\x00\x01" + struct.pack(">H", 0))]
    warnings: list[str] = []
    reader = UpdateReader("127.0.0.1", 65000, 65001, warnings.append)
    resets = read = 0
    for _ in range(10_000):
        body = bytearray(rng.choice(seeds)[19:])
        for _ in range(rng.randint(1, 4)):
            k = rng.randrange(len(body))
            action = rng.random()
            if action < 0.6:
                body[k] = rng.randrange(256)
            elif action < 0.8:
                del body[k:k + rng.randint(1, 6)]
            else:
                body[k:k] = body[k:k + rng.randint(1, 8)]
            if len(body) < 4:
                body = bytearray(4)
        before = len(warnings)
        try:
            reader.read(message(UPDATE, bytes(body)), 0.0)
            read += 1
        except UpdateError as e:
            resets += 1
            assert e.subcode in (1, 9, 10)
        assert all("\n" not in w for w in warnings[before:])
    assert read and resets and read + resets == 10_000


# --- BGPsec between two of our speakers ----------------------------------------------------------------

KEYS = ROOT.parent / "shared" / "data" / "bgpsec" / "nist-bgp-srx_rfc8208_keys"


@pytest.mark.skipif(not KEYS.is_dir(), reason=f"shared data not found: {KEYS}")
def test_signed_updates_from_our_speaker_to_our_speaker(tmp_path):
    """AS65536 (RFC 8208's keys) announces two routes of AS64496 to AS65537, which offers BGPsec
    (--listen --bgpsec): both go signed, one prefix an UPDATE; `bgpsec verify` finds both valid in the
    recording, and tshark reads each BGPsec_PATH as we do, field for field."""
    from test_bgpsec_tshark import _normalise, ours, tshark_fields

    from bgpsim.capture.session import Session as Captured
    from bgpsim.capture.session import capture_bytes
    from bgpsim.wire.attributes import scan_attributes
    from bgpsim.wire.update import HEADER, split_update

    port = free_port()
    (tmp_path / "routes.txt").write_text(
        "TABLE_DUMP2|1700000000|B|192.0.2.1|64496|192.0.2.0/24|64496|IGP|192.0.2.1|0|0||NAG||\n"
        "TABLE_DUMP2|1700000000|B|192.0.2.1|64496|2001:db8::/32|64496|IGP|2001:db8::1|0|0||NAG||\n")
    cli = [sys.executable, "-m", "bgpsim", "bgp", "speak"]
    receiver = subprocess.Popen([*cli, "--listen", f"127.0.0.1:{port}", "--neighbor", "127.0.0.2", "--as", "65537",
                                 "--peer-as", "65536", "--bgpsec", "--out", str(tmp_path / "heard.mrt"), "--until-idle",
                                 "2"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(0.5)
        sender = subprocess.run([*cli, "--neighbor", f"127.0.0.1:{port}", "--local", "127.0.0.2", "--as", "65536",
                                 "--peer-as", "65537", "--signing-keys", str(KEYS), "--announce",
                                 str(tmp_path / "routes.txt"), "--next-hop", "192.0.2.2", "--next-hop", "2001:db8::2",
                                 "--until-idle", "2"], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert sender.returncode == 0, sender.stderr
        assert "sent 2 routes in 2 UPDATEs (2 BGPsec)" in sender.stderr
        _, err = receiver.communicate(timeout=60)
    finally:
        if receiver.poll() is None:  # a sender that failed leaves it waiting for the connection
            receiver.kill()
            receiver.wait()
    assert receiver.returncode == 0, err
    verify = subprocess.run([*cli[:3], "bgpsec", "verify", str(tmp_path / "heard.mrt"), "--router-keys", str(KEYS),
                             "--format", "json"], cwd=ROOT, capture_output=True, text=True, check=True)
    rows = [json.loads(ln) for ln in verify.stdout.splitlines()]
    assert [(r["prefix"], r["as_path"], r["state"]) for r in rows] == [("192.0.2.0/24", "65536 64496", "valid"),
                                                                      ("2001:db8::/32", "65536 64496", "valid")]
    # the recorded UPDATEs in a capture: tshark's BGPsec_PATH fields are ours
    msgs = []
    data = (tmp_path / "heard.mrt").read_bytes()
    at = 0
    while at < len(data):
        length = int.from_bytes(data[at + 8:at + 12], "big")
        if int.from_bytes(data[at + 6:at + 8], "big") == 4:  # MESSAGE_AS4: after usec, ASes, ifindex, AFI, 2 addresses
            msgs.append(data[at + 12 + 4 + 12 + 8:at + 12 + length])
        at += 12 + length
    assert len(msgs) == 2
    paths = []
    for m in msgs:
        u = split_update(m, HEADER, len(m))
        a = scan_attributes(m[u.attributes[0]:u.attributes[1]])
        assert a.bgpsec is not None and a.as_path == ((2, (65536, 64496)),)
        paths.append(a.bgpsec)
    pcap = tmp_path / "signed.pcap"
    pcap.write_bytes(capture_bytes([Captured(65536, 65537, "192.0.2.1", "192.0.2.2",
                                             [(k * 0.001, True, m) for k, m in enumerate(msgs)])]))
    if shutil.which("tshark") is None:
        pytest.skip("tshark not installed (Debian package `tshark`)")
    assert [_normalise(r) for r in tshark_fields(pcap)] == [_normalise(ours(p)) for p in paths]
