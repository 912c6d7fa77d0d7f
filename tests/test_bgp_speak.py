"""`bgpsim bgp speak` with real routers on loopback (BIRD 2, GoBGP, FRR, started here with generated
configurations): the routes of a file arrive in the router's table as an AS exports them (ours
prepended, the communities kept), only in the families both OPENs name; what the router sends is
recorded as MRT that `bgpsim dump` and bgpdump read alike; and a peer that sends malformed UPDATEs
(our own session, sending them) gets what RFC 7606 and RFC 4271 say, one line each."""

from __future__ import annotations

import asyncio
import random
import struct
import subprocess
import sys
import time

import pytest
from test_bgp_session import THEIRS, THEIRS6, Frr, GoBGP, bird_v4
from test_rtr import free_port
from test_rtr_routers import need_bird, need_frr, need_gobgp

from helpers import ROOT

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
    theirs = subprocess.run(["bgpdump", "-m", str(path)], capture_output=True, text=True) \
        if subprocess.run(["which", "bgpdump"], capture_output=True).returncode == 0 else None
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


@pytest.mark.parametrize("router, show", [pytest.param(GoBGP, "received", marks=need_gobgp, id="gobgp"),
                                          pytest.param(Frr, "table", marks=need_frr, id="frr")])
def test_speak_ipv4_and_ipv6(tmp_path, router, show):
    port = free_port()
    r = router(tmp_path, port)
    try:
        _both_families(tmp_path, port, getattr(r, show))
    finally:
        r.stop()


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


async def _bad_peer(port: int, sent: list[bytes], ended: list) -> None:
    """A speaker of AS65000 on 127.0.0.1:PORT that, once Established, sends `sent` and waits for the end."""
    done = asyncio.Event()

    async def serve(reader, writer):
        s = Session(65000, "127.0.0.1", 65001, hold=9)
        try:
            await s.accept(reader, writer)
            for m in sent:
                await s.send(m)
            await s.run()
        except SessionClosed as e:
            ended.append(e)
        finally:
            done.set()

    server = await asyncio.start_server(serve, "127.0.0.1", port)
    async with server:
        await asyncio.wait_for(done.wait(), 30)


def test_malformed_updates_get_what_rfc_7606_says(tmp_path):
    """A bad AGGREGATOR is discarded (the route kept), a 3-byte MED withdraws its route, a /33 prefix
    resets the session with UPDATE Message Error, Invalid Network Field: one line each, no traceback,
    and the recording holds all three UPDATEs."""
    port = free_port()
    sent = [_update(GOOD_ATTRS + attribute(0xC0, 7, b"\x00" * 5), b"\x08\x0a"),
            _update(GOOD_ATTRS + attribute(0x80, 4, b"\x00\x00\x01"), b"\x10\x0b\x01"),
            _update(GOOD_ATTRS, b"\x21\x0c\x00\x00\x00\x00")]
    ended: list = []

    async def both():
        peer = asyncio.ensure_future(_bad_peer(port, sent, ended))
        await asyncio.sleep(0.2)
        p = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bgpsim", "bgp", "speak", "--neighbor", f"127.0.0.1:{port}", "--as", "65001", "--peer-as",
            "65000", "--out", str(tmp_path / "heard.mrt"), cwd=ROOT, stderr=asyncio.subprocess.PIPE)
        _, err = await asyncio.wait_for(p.communicate(), 30)
        await peer
        return p.returncode, err.decode()

    code, err = asyncio.run(both())
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
