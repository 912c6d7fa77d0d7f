"""Our BGP speaker's session (bgpsim.wire.session) with a real BIRD 2, GoBGP and FRR on loopback (and
BIRD over ::1), each started here with a generated configuration: the session comes up, the routes we
announce are in the router's table as we sent them (IPv4, and IPv6 over MP-BGP with GoBGP and FRR),
the routes the router announces come to us and read as its table has them, a withdrawal takes ours
away, and a NOTIFICATION ends the session as RFC 4271 section 6 says. And between two of our own
speakers: a wrong peer AS is refused with OPEN Message Error, Bad Peer AS."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path

import pytest
from test_rtr import free_port
from test_rtr_routers import (
    BIRD,
    BIRDC,
    FRR_BGPD,
    GOBGP,
    GOBGPD,
    VTYSH,
    need_bird,
    need_frr,
    need_gobgp,
)

from bgpsim.wire.attributes import parse_attributes
from bgpsim.wire.encode import KEEPALIVE, notification, open_message, unsigned_update, withdrawal
from bgpsim.wire.nlri import parse_prefixes
from bgpsim.wire.session import (
    BAD_PEER_AS,
    CEASE,
    HOLD_EXPIRED,
    OPEN_ERROR,
    Session,
    SessionClosed,
)
from bgpsim.wire.update import HEADER, split_update

OURS, THEIRS = "198.51.100.0/24", "203.0.113.0/24"
OURS6, THEIRS6 = "2001:db8:1::/48", "2001:db8:ff::/48"


class Bird:
    """BIRD 2 in its own directory, with the configuration `conf` (a BGP protocol named dut); started
    and waited for until dut listens."""

    def __init__(self, tmp: Path, conf: str):
        d = tmp / "bird"
        d.mkdir()
        (d / "bird.conf").write_text("router id 127.0.0.1;\nprotocol device {}\n" + conf)
        self.sock = d / "bird.ctl"
        self.proc = subprocess.Popen([BIRD, "-f", "-c", str(d / "bird.conf"), "-s", str(self.sock), "-P",
                                      str(d / "bird.pid")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for _ in range(200):  # until it listens
            if self.sock.exists() and "Passive" in self.birdc("show", "protocols", "dut"):
                break
            time.sleep(0.05)

    def birdc(self, *args) -> str:
        return subprocess.run([BIRDC, "-s", str(self.sock), *args], capture_output=True, text=True, timeout=10,
                              check=False).stdout

    def routes(self) -> str:
        return self.birdc("show", "route", "protocol", "dut", "all")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def bird_v4(tmp: Path, port: int) -> Bird:
    """Passive on 127.0.0.1:PORT as AS65000 for a peer at 127.0.0.2 (AS65001), announcing THEIRS.
    multihop: a neighbour on loopback is not on a directly connected network to BIRD."""
    return Bird(tmp, f"protocol static theirs {{ ipv4; route {THEIRS} blackhole; }}\n"
                     f"protocol bgp dut {{ local 127.0.0.1 port {port} as 65000; neighbor 127.0.0.2 as 65001; passive on;"
                     " multihop;\n  hold time 9; ipv4 { import all; export where source = RTS_STATIC;"
                     " next hop address 127.0.0.1; }; }\n")


def _announced(msg: bytes) -> tuple[list[str], tuple]:
    """(prefixes, AS_PATH) of an UPDATE: IPv4 NLRI, then MP_REACH_NLRI's."""
    u = split_update(msg, HEADER, len(msg))
    block = msg[u.attributes[0]:u.attributes[1]]
    attrs = parse_attributes(block)
    prefixes = [p for p, _ in parse_prefixes(msg, *u.nlri, 1)]
    if attrs.mp_reach is not None:
        afi, _safi, _nhlen, _nh, start, end = attrs.mp_reach
        prefixes += [p for p, _ in parse_prefixes(block, start, end, afi)]
    return prefixes, attrs.as_path


def _heard(updates: list[bytes]) -> dict:
    """prefix -> AS_PATH of the UPDATEs received."""
    return {p: path for m in updates for prefixes, path in [_announced(m)] for p in prefixes}


async def _wait(cond, seconds: float = 10.0):
    for _ in range(int(seconds / 0.05)):
        if cond():
            return True
        await asyncio.sleep(0.05)
    return False


@need_bird
def test_a_session_with_bird(tmp_path):
    port = free_port()
    bird = bird_v4(tmp_path, port)
    heard: list[bytes] = []

    async def main():
        s = Session(65001, "127.0.0.2", 65000, hold=9, on_update=heard.append)
        await s.connect("127.0.0.1", port, local="127.0.0.2")
        assert s.peer_id == "127.0.0.1" and s.hold == 9
        running = asyncio.ensure_future(s.run())
        await s.send(unsigned_update(ipaddress.ip_network(OURS), [65001, 64496], "127.0.0.2"))
        assert await _wait(lambda: OURS in bird.routes()), bird.routes()
        table = bird.routes()
        assert "BGP.as_path: 65001 64496" in table and "BGP.next_hop: 127.0.0.2" in table
        assert await _wait(lambda: any(_announced(m)[0] == [THEIRS] for m in heard))
        prefixes, path = next(_announced(m) for m in heard if _announced(m)[0])
        assert prefixes == [THEIRS] and path == ((2, (65000,)),)  # BIRD's own AS, as eBGP says
        await s.send(withdrawal(ipaddress.ip_network(OURS)))
        assert await _wait(lambda: OURS not in bird.routes()), bird.routes()
        await asyncio.sleep(4)  # past a third of the hold time: our KEEPALIVEs hold the session up
        assert "Established" in bird.birdc("show", "protocols", "dut")
        bird.birdc("disable", "dut")  # BIRD sends a Cease
        with pytest.raises(SessionClosed) as e:
            await asyncio.wait_for(running, 10)
        assert e.value.by_peer and e.value.code == CEASE

    try:
        asyncio.run(main())
    finally:
        bird.stop()


class GoBGP:
    """gobgpd listening on 127.0.0.1:PORT as AS65000, passive, for a peer at 127.0.0.2 (AS65001),
    announcing THEIRS and THEIRS6; its gRPC API on another port."""

    def __init__(self, tmp: Path, port: int, extra: str = ""):
        d = tmp / "gobgp"
        d.mkdir()
        families = "".join(f'  [[neighbors.afi-safis]]\n    [neighbors.afi-safis.config]\n      afi-safi-name = "{f}"\n'
                           for f in ("ipv4-unicast", "ipv6-unicast"))
        (d / "gobgpd.toml").write_text(
            f'[global.config]\n  as = 65000\n  router-id = "127.0.0.1"\n  port = {port}\n'
            '  local-address-list = ["127.0.0.1"]\n'
            '[[neighbors]]\n  [neighbors.config]\n    neighbor-address = "127.0.0.2"\n    peer-as = 65001\n'
            '  [neighbors.transport.config]\n    passive-mode = true\n    local-address = "127.0.0.1"\n'
            '  [neighbors.timers.config]\n    hold-time = 9\n    keepalive-interval = 3\n' + families + extra)
        self.api = free_port()
        self.proc = subprocess.Popen([GOBGPD, "-f", str(d / "gobgpd.toml"), "--api-hosts", f"127.0.0.1:{self.api}",
                                      "--pprof-disable"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):  # until its API answers
            if "127.0.0.2" in self.cli("neighbor"):
                break
            time.sleep(0.05)
        self.cli("global", "rib", "add", THEIRS, "-a", "ipv4")  # as FRR and BIRD, it announces THEIRS and THEIRS6
        self.cli("global", "rib", "add", THEIRS6, "-a", "ipv6")

    def cli(self, *args) -> str:
        return subprocess.run([GOBGP, "-u", "127.0.0.1", "-p", str(self.api), *args], capture_output=True, text=True,
                              timeout=10, check=False).stdout

    def table(self, family: str) -> str:
        """What it has from 127.0.0.2 in `family` ("ipv4" or "ipv6")."""
        return self.cli("neighbor", "127.0.0.2", "adj-in", "-a", family)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


async def _both_ways(port: int, table) -> None:
    """From 127.0.0.2 to the router at 127.0.0.1:PORT: OURS and OURS6 announced, each in `table(family)`
    with its path; THEIRS and THEIRS6 heard from the router with its AS; OURS6 withdrawn and gone; a
    Cease from us, and OURS gone with the session."""
    heard: list[bytes] = []
    s = Session(65001, "127.0.0.2", 65000, hold=9, on_update=heard.append)
    for _ in range(100):  # the router listens a moment after it starts
        try:
            await s.connect("127.0.0.1", port, local="127.0.0.2")
            break
        except OSError:
            await asyncio.sleep(0.1)
    running = asyncio.ensure_future(s.run())
    # not a loopback next hop: GoBGP treats an UPDATE with one as a withdrawal (RFC 7606 section 7.3)
    await s.send(unsigned_update(ipaddress.ip_network(OURS), [65001, 64496], "192.0.2.2"))
    await s.send(unsigned_update(ipaddress.ip_network(OURS6), [65001, 64497], "2001:db8::2"))
    assert await _wait(lambda: OURS in table("ipv4")), table("ipv4")
    assert await _wait(lambda: OURS6 in table("ipv6")), table("ipv6")
    assert "65001 64496" in table("ipv4") and "65001 64497" in table("ipv6")
    assert await _wait(lambda: {THEIRS, THEIRS6} <= set(_heard(heard))), _heard(heard)
    assert _heard(heard)[THEIRS] == _heard(heard)[THEIRS6] == ((2, (65000,)),)
    await s.send(withdrawal(ipaddress.ip_network(OURS6)))
    assert await _wait(lambda: OURS6 not in table("ipv6")), table("ipv6")
    await s.close()
    assert await _wait(lambda: OURS not in table("ipv4")), table("ipv4")
    running.cancel()


class Frr:
    """FRR's bgpd alone (no zebra) on 127.0.0.1:PORT as AS65000, passive, for a peer at 127.0.0.2
    (AS65001), announcing THEIRS and THEIRS6; vtysh on its socket."""

    def __init__(self, tmp: Path, port: int, extra: str = "", modules: tuple[str, ...] = ()):
        self.dir = tmp / "frr"
        self.dir.mkdir()
        (self.dir / "bgpd.conf").write_text(
            "router bgp 65000\n bgp router-id 127.0.0.1\n no bgp ebgp-requires-policy\n no bgp network import-check\n"
            " neighbor 127.0.0.2 remote-as 65001\n neighbor 127.0.0.2 passive\n neighbor 127.0.0.2 timers 3 9\n"
            f" address-family ipv4 unicast\n  network {THEIRS}\n exit-address-family\n"
            f" address-family ipv6 unicast\n  neighbor 127.0.0.2 activate\n  network {THEIRS6}\n exit-address-family\n"
            + extra + "exit\n")
        self.proc = subprocess.Popen([str(FRR_BGPD), *(x for m in modules for x in ("-M", m)), "-f",
                                      str(self.dir / "bgpd.conf"), "-Z", "-S", "-p", str(port), "-l",
                                      "127.0.0.1", "--vty_socket", str(self.dir), "-i", str(self.dir / "bgpd.pid")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def table(self, family: str) -> str:
        return subprocess.run([VTYSH, "--vty_socket", str(self.dir), "-d", "bgpd", "-c", f"show bgp {family} unicast"],
                              capture_output=True, text=True, timeout=10, check=False).stdout

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


ROUTERS = [pytest.param(GoBGP, marks=need_gobgp, id="gobgp"), pytest.param(Frr, marks=need_frr, id="frr")]


@pytest.mark.parametrize("router", ROUTERS)
def test_a_session_ipv4_and_ipv6(tmp_path, router):
    port = free_port()
    r = router(tmp_path, port)
    try:
        asyncio.run(_both_ways(port, r.table))
    finally:
        r.stop()


@need_bird
def test_a_session_over_ipv6_loopback(tmp_path):
    """The session itself over ::1: BIRD on [::1]:PORT, our IPv6 route in its table."""
    port = free_port()
    bird = Bird(tmp_path, f"protocol bgp dut {{ local ::1 port {port} as 65000; neighbor ::1 as 65001; passive on;"
                          " multihop;\n  ipv6 { import all; export none; }; }\n")

    async def main():
        s = Session(65001, "127.0.0.2", 65000)
        await s.connect("::1", port, local="::1")
        running = asyncio.ensure_future(s.run())
        await s.send(unsigned_update(ipaddress.ip_network(OURS6), [65001, 64497], "2001:db8::2"))
        assert await _wait(lambda: OURS6 in bird.routes()), bird.routes()
        assert "BGP.as_path: 65001 64497" in bird.routes()
        await s.close()
        running.cancel()

    try:
        asyncio.run(main())
    finally:
        bird.stop()


def test_a_wrong_peer_as_is_refused():
    """Two of our speakers; the passive one expects another AS: OPEN Message Error, Bad Peer AS, on
    both sides (RFC 4271 section 6.2)."""

    async def main():
        said = asyncio.get_running_loop().create_future()

        async def accepted(reader, writer):
            try:
                await Session(65000, "192.0.2.1", 64999).accept(reader, writer)
            except SessionClosed as e:
                said.set_result(e)

        server = await asyncio.start_server(accepted, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        with pytest.raises(SessionClosed) as e:
            await Session(65001, "192.0.2.2", 65000).connect("127.0.0.1", port)
        ours = await asyncio.wait_for(said, 10)
        server.close()
        return e.value, ours

    theirs, ours = asyncio.run(main())
    assert (ours.code, ours.subcode, ours.by_peer) == (OPEN_ERROR, BAD_PEER_AS, False)
    assert "want peer AS 64999, got AS65001" in str(ours)
    assert (theirs.code, theirs.subcode, theirs.by_peer) == (OPEN_ERROR, BAD_PEER_AS, True)


def test_a_peer_that_stops_answering():
    """A peer that opens the session (Hold Time 3 s) and then says nothing: after 3 s we send it a
    NOTIFICATION Hold Timer Expired and the session ends (RFC 4271 section 6.5)."""

    async def main():
        told = asyncio.get_running_loop().create_future()

        async def silent(reader, writer):
            writer.write(open_message(65000, "192.0.2.1", 3, bgpsec=False) + KEEPALIVE)
            told.set_result(await reader.read(-1))  # all we send it, to the end

        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        s = Session(65001, "192.0.2.2", 65000, hold=90)
        await s.connect("127.0.0.1", server.sockets[0].getsockname()[1])
        assert s.hold == 3
        started = time.monotonic()
        with pytest.raises(SessionClosed) as e:
            await s.run()
        waited = time.monotonic() - started
        data = await asyncio.wait_for(told, 10)
        server.close()
        return e.value, waited, data

    closed, waited, data = asyncio.run(main())
    assert (closed.code, closed.by_peer) == (HOLD_EXPIRED, False) and waited >= 2.9
    assert data.endswith(bytes([0xFF] * 16) + bytes([0, 21, 3, HOLD_EXPIRED, 0]))  # the NOTIFICATION, last


def test_a_cease_sent_just_before_a_reset_is_read():
    """A peer (a thread here, with plain sockets) sends Cease, Maximum Number of Prefixes Reached (RFC 4486
    section 4) and resets the connection while we are still sending, as FRR does when its limit is
    crossed. Our next write meets the reset before our reader ran: the session still ends with the
    peer's NOTIFICATION, not with "the connection was lost"."""
    listener = socket.create_server(("127.0.0.1", 0))
    go = threading.Event()

    def peer():
        conn, _ = listener.accept()
        conn.sendall(open_message(65000, "192.0.2.1", 90, bgpsec=False) + KEEPALIVE)
        go.wait(10)
        conn.sendall(notification(CEASE, 1))
        time.sleep(0.05)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with a reset
        conn.close()

    async def main():
        s = Session(65001, "192.0.2.2", 65000)
        await s.connect("127.0.0.1", listener.getsockname()[1])
        go.set()
        time.sleep(0.3)  # the loop does not run: the NOTIFICATION and the reset wait in the kernel
        with pytest.raises(ConnectionError):
            for _ in range(3):
                await s.send(unsigned_update(ipaddress.ip_network(OURS), [65001], "192.0.2.2"))
        with pytest.raises(SessionClosed) as e:
            await s.run()
        return e.value

    t = threading.Thread(target=peer)
    t.start()
    try:
        closed = asyncio.run(main())
    finally:
        t.join(10)
        listener.close()
    assert (closed.code, closed.subcode, closed.by_peer) == (CEASE, 1, True), str(closed)
