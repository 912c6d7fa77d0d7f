"""BMP (RFC 7854) from real routers to `bgpsim monitor --bmp-listen`: GoBGP and FRR, started here with
generated configurations, learn routes from our speaker (`bgpsim bgp speak`) and report them by BMP;
the monitor checks each, its routes.csv is what `bgpsim validate` writes from the same UPDATEs
recorded as MRT (bmp.mrt), and the routes are those the speaker announced, as the router heard them.
And the station's own rules: a router outside --allow is refused, one that sends what is not BMP is
told in one line and closed, the others untouched."""

from __future__ import annotations

import socket
import struct
import subprocess
import sys
import time

import pytest
from helpers import ROOT
from mqtt_broker import MOSQUITTO, NO_MOSQUITTO, Broker, wait_online
from test_bgp_session import Frr, GoBGP
from test_bgp_speak import speak, wait_for
from test_rtr import free_port
from test_rtr_routers import need_frr, need_gobgp

VRPS = "ASN,IP Prefix,Max Length,Trust Anchor\nAS64511,198.51.100.0/24,24,synthetic\n"


def monitor(tmp_path, bmp_port: int, *more) -> subprocess.Popen:
    (tmp_path / "vrps.csv").write_text(VRPS)
    return subprocess.Popen([sys.executable, "-m", "bgpsim", "monitor", "--bmp-listen", f"127.0.0.1:{bmp_port}", "--vrps",
                             str(tmp_path / "vrps.csv"), "--out", str(tmp_path / "live"), *map(str, more)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _through(tmp_path, start_router, prepended: str = "") -> None:
    """The router (started by `start_router(bgp_port, bmp_port)`) reports our speaker's routes by BMP,
    their AS paths with `prepended` in front."""
    bgp_port, bmp_port = free_port(), free_port()
    mon = monitor(tmp_path, bmp_port)
    time.sleep(0.5)
    router = start_router(bgp_port, bmp_port)
    try:
        sp = speak(tmp_path, bgp_port, "--until-idle", 2)
        _, err = sp.communicate(timeout=60)
        assert sp.returncode == 0, err
        routes = tmp_path / "live" / "routes.csv"
        wait_for(lambda: routes.read_text() if routes.exists() else "", "2001:db8:1::/48", 30)  # then stop it
        time.sleep(0.3)
        mon.terminate()
        _, err = mon.communicate(timeout=60)
        assert mon.returncode == 0, err
    finally:
        router.stop()
    assert "Traceback" not in err and "BMP session from 127.0.0.1" in err
    live = (tmp_path / "live" / "routes.csv").read_text()
    assert subprocess.run([sys.executable, "-m", "bgpsim", "validate", str(tmp_path / "live" / "bmp.mrt"), "--vrps",
                           str(tmp_path / "vrps.csv"), "--out", str(tmp_path / "batch"), "--quiet"], cwd=ROOT).returncode == 0
    assert live == (tmp_path / "batch" / "routes.csv").read_text()
    ours = {(r.split(",")[3], r.split(",")[4], r.split(",")[6]) for r in live.splitlines()[1:]
            if r.split(",")[1] == "127.0.0.2"}
    assert ("198.51.100.0/24", prepended + "65001 64496 64511", "valid") in ours, live
    assert ("2001:db8:1::/48", prepended + "65001 64496 64512", "not-found") in ours, live


def gobgp_reporting(tmp_path, bgp_port: int, bmp_port: int) -> GoBGP:
    """GoBGP (test_bgp_session's) sending its pre-policy routes by BMP to 127.0.0.1:BMP_PORT."""
    return GoBGP(tmp_path, bgp_port, '[[bmp-servers]]\n  [bmp-servers.config]\n    address = "127.0.0.1"\n'
                                     f'    port = {bmp_port}\n    route-monitoring-policy = "pre-policy"\n')


@need_gobgp
def test_gobgp_reports_by_bmp(tmp_path):
    _through(tmp_path, lambda bgp_port, bmp_port: gobgp_reporting(tmp_path, bgp_port, bmp_port))


@need_frr
def test_frr_reports_by_bmp(tmp_path):
    """FRR (Debian's 8.4) reports pre-policy routes only of a peer with soft-reconfiguration inbound (FRR
    issue 10240) and puts its own AS in front of their AS_PATH (FRR pull request 21815): both as it is."""
    def start(bgp_port, bmp_port):
        soft = "  neighbor 127.0.0.2 soft-reconfiguration inbound\n"
        return Frr(tmp_path, bgp_port, f" address-family ipv4 unicast\n{soft} exit-address-family\n"
                                       f" address-family ipv6 unicast\n{soft} exit-address-family\n"
                                       " bmp targets station\n  bmp monitor ipv4 unicast pre-policy\n"
                                       "  bmp monitor ipv6 unicast pre-policy\n"
                                       f"  bmp connect 127.0.0.1 port {bmp_port} min-retry 100 max-retry 1000\n"
                                       " exit\n", modules=("bmp",))
    _through(tmp_path, start, prepended="65000 ")


@need_gobgp
@pytest.mark.skipif(MOSQUITTO is None, reason=NO_MOSQUITTO)
def test_stream_publish_relays_bmp_to_a_monitor(tmp_path):
    """GoBGP's BMP, republished on MQTT by `stream publish --bmp-listen`, checked by a monitor there."""
    bgp_port, bmp_port = free_port(), free_port()
    with Broker(tmp_path / "mosquitto") as broker:
        (tmp_path / "vrps.csv").write_text(VRPS)
        mon = subprocess.Popen([sys.executable, "-m", "bgpsim", "monitor", "--broker", broker.url("plain"), "--vrps",
                                str(tmp_path / "vrps.csv"), "--out", str(tmp_path / "live"), "--topic", "bmp",
                                "--client-id", "bmp"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
        wait_online(broker, "bmp", mon)
        # GoBGP's BMP Initiation comes as it starts, its routes once the BGP session is up: seconds later on a
        # busy machine, so the publisher waits 5 s of quiet before it ends
        pub = subprocess.Popen([sys.executable, "-m", "bgpsim", "stream", "publish", "--bmp-listen",
                                f"127.0.0.1:{bmp_port}", "--broker", broker.url("plain"), "--topic", "bmp",
                                "--until-idle", "5"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        router = gobgp_reporting(tmp_path, bgp_port, bmp_port)
        try:
            sp = speak(tmp_path, bgp_port, "--until-idle", 1)
            assert sp.wait(timeout=60) == 0
            _, err = pub.communicate(timeout=60)
            assert pub.returncode == 0 and "Traceback" not in err, err
            assert "2 updates in 2 messages" in err, err
            routes = tmp_path / "live" / "routes.csv"
            wait_for(lambda: routes.read_text() if routes.exists() else "", "2001:db8:1::/48", 30)  # then stop it
            time.sleep(0.3)
            mon.terminate()
            _, err = mon.communicate(timeout=60)
            assert mon.returncode == 0, err
        finally:
            router.stop()
    rows = [r.split(",") for r in (tmp_path / "live" / "routes.csv").read_text().splitlines()[1:]]
    assert sorted((r[1], r[3], r[4]) for r in rows) == [("127.0.0.2", "198.51.100.0/24", "65001 64496 64511"),
                                                        ("127.0.0.2", "2001:db8:1::/48", "65001 64496 64512")]


def connect_when_listening(port: int, seconds: float = 30.0) -> socket.socket:
    """A connection from 127.0.0.1 once the monitor listens (a refused attempt leaves nothing behind)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.1", 0))
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_the_station_refuses_what_it_should(tmp_path):
    """Outside --allow: refused. Not BMP (version 9): one line, that session closed. A good session
    beside them goes on (its Initiation read)."""
    port = free_port()
    mon = monitor(tmp_path, port, "--until-idle", 2, "--allow", "127.0.0.0/30")
    good = connect_when_listening(port)
    init = b"\x00\x02\x00\x04test"  # sysName "test"
    good.sendall(struct.pack(">BIB", 3, 6 + len(init), 4) + init)
    bad = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
    bad.sendall(struct.pack(">BIB", 9, 6, 4))
    outside = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.9", 0))
    time.sleep(0.5)
    good.close()
    bad.close()
    outside.close()
    _, err = mon.communicate(timeout=30)
    assert mon.returncode == 0 and "Traceback" not in err, err
    assert "BMP from 127.0.0.9 refused: not in --allow" in err
    assert "BMP from 127.0.0.2, message 1: byte 0: BMP Common Header (RFC 7854 section 4.1): want version 3, got 9; " \
           "session closed" in err
    assert "BMP from 127.0.0.1: router test" in err


if __name__ == "__main__":
    pytest.main([__file__])
