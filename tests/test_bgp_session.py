"""Our BGP speaker's session (bgpsim.wire.session) with a real BIRD 2 on loopback, started here with a
generated configuration: the session comes up, the route we announce is in BIRD's table as we sent it,
the route BIRD announces comes to us and reads as BIRD's table has it, a withdrawal takes ours away,
and a NOTIFICATION ends the session both ways as RFC 4271 section 6 says. And between two of our own
speakers: a wrong peer AS is refused with OPEN Message Error, Bad Peer AS."""

from __future__ import annotations

import asyncio
import ipaddress
import subprocess
import time
from pathlib import Path

import pytest
from test_rtr import free_port
from test_rtr_routers import BIRD, BIRDC, need_bird

from bgpsim.wire.attributes import parse_attributes
from bgpsim.wire.encode import unsigned_update, withdrawal
from bgpsim.wire.nlri import parse_prefixes
from bgpsim.wire.session import BAD_PEER_AS, CEASE, OPEN_ERROR, Session, SessionClosed
from bgpsim.wire.update import HEADER, split_update

OURS, THEIRS = "198.51.100.0/24", "203.0.113.0/24"


class Bird:
    """BIRD 2, passive on 127.0.0.1:PORT as AS65000 for a peer at 127.0.0.2 (AS65001), announcing THEIRS."""

    def __init__(self, tmp: Path, port: int):
        d = tmp / "bird"
        d.mkdir()
        (d / "bird.conf").write_text(
            "router id 127.0.0.1;\nprotocol device {}\n"
            f"protocol static theirs {{ ipv4; route {THEIRS} blackhole; }}\n"
            # multihop: a neighbour on loopback is not on a directly connected network to BIRD
            f"protocol bgp dut {{ local 127.0.0.1 port {port} as 65000; neighbor 127.0.0.2 as 65001; passive on;\n"
            "  multihop; hold time 9; ipv4 { import all; export where source = RTS_STATIC; next hop address 127.0.0.1; };"
            " }\n")
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


def _announced(msg: bytes) -> tuple[list[str], tuple]:
    u = split_update(msg, HEADER, len(msg))
    attrs = parse_attributes(msg[u.attributes[0]:u.attributes[1]])
    return [p for p, _ in parse_prefixes(msg, *u.nlri, 1)], attrs.as_path


async def _wait(cond, seconds: float = 10.0):
    for _ in range(int(seconds / 0.05)):
        if cond():
            return True
        await asyncio.sleep(0.05)
    return False


@need_bird
def test_a_session_with_bird(tmp_path):
    port = free_port()
    bird = Bird(tmp_path, port)
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
