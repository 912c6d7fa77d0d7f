"""The RTR cache and client: serials, deltas and answers (bgpsim.rtr.cache), then our server and
client over real sockets, then real peers on loopback: rtrclient (RTRlib 0.8, rtr-tools) reading our
cache, stayrtr 0.5.1 as the other cache that our client reads, and rtrmon comparing the two."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import random
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from helpers import free_port, wait_port

from bgpsim.rpki.rov import VRP
from bgpsim.rpki.vrps.payloads import ASPA, Origin, Payloads, RouterKey
from bgpsim.rtr import pdu
from bgpsim.rtr.cache import Cache, Delta, State, serial_add, serial_newer
from bgpsim.rtr.client import CacheError, Client
from bgpsim.rtr.server import Server

ROOT = Path(__file__).resolve().parent.parent
RTRCLIENT, STAYRTR, RTRMON = shutil.which("rtrclient"), shutil.which("stayrtr"), shutil.which("rtrmon")
need_rtrclient = pytest.mark.skipif(RTRCLIENT is None, reason="needs rtrclient (Debian package rtr-tools)")
need_stayrtr = pytest.mark.skipif(STAYRTR is None, reason="needs stayrtr and rtrmon (Debian package stayrtr)")


def vrps(n: int, seed: int = 1) -> list[Origin]:
    """`n` VRPs (synthetic): /24s of 10.0.0.0/8 and /48s of 2001:db8::/32, each with its own AS."""
    rng = random.Random(seed)
    out = set()
    while len(out) < n:
        if rng.random() < 0.8:
            net = ipaddress.ip_network((0x0A000000 | rng.randrange(1 << 16) << 8, 24))
            out.add(VRP(net, rng.choice((24, 24, 25)), rng.randrange(64496, 64511)))
        else:
            net = ipaddress.ip_network((0x20010DB8 << 96 | rng.randrange(1 << 16) << 80, 48))
            out.add(VRP(net, 48, rng.randrange(64496, 64511)))
    return [Origin(v) for v in sorted(out, key=lambda v: (v.prefix.version, v.prefix, v.max_length, v.asn))]


KEY = RouterKey(64496, bytes(range(20)), b"\x30\x59" + bytes(89))


def payloads(origins, keys=(), aspas=()) -> Payloads:
    return Payloads(list(origins), list(keys), list(aspas))


def csv_text(origins) -> str:
    return "ASN,IP Prefix,Max Length,Trust Anchor\n" + "".join(
        f"AS{o.vrp.asn},{o.vrp.prefix},{o.vrp.max_length},test\n" for o in origins)


# ---- serials and deltas ------------------------------------------------------------------------------

def test_serials_wrap_as_rfc_1982_says():
    assert serial_add(2**32 - 1, 1) == 0 and serial_add(0, -1) == 2**32 - 1
    assert serial_newer(0, 2**32 - 1) and not serial_newer(2**32 - 1, 0)
    assert serial_newer(5, 3) and not serial_newer(3, 5) and not serial_newer(3, 3)


def test_a_serial_query_across_the_wrap_gets_the_net_change():
    c = Cache(7)
    c.serial = 2**32 - 2  # two loads from the wrap
    a, b = vrps(3)[:2], vrps(3)[2:]
    c.load(payloads(a))
    c.load(payloads(a + b))  # serial 2^32 - 1
    c.load(payloads(b))  # serial 0: a withdrawn
    assert c.serial == 0
    answer = c.since(1, 2**32 - 2)
    kinds = [p for p in _pdus(answer) if isinstance(p, pdu.Prefix)]
    assert {(p.announce, p.prefix) for p in kinds} == {(True, b[0].vrp.prefix), (False, a[0].vrp.prefix),
                                                       (False, a[1].vrp.prefix)}


def test_what_comes_and_goes_in_between_is_not_mentioned():
    one, two = vrps(2)
    d = Delta.between(State.of(payloads([])), State.of(payloads([one]))).then(
        Delta.between(State.of(payloads([one])), State.of(payloads([two]))))
    assert len(d.announced) == 1 and len(d.withdrawn) == 0  # one came and went: only two is news
    aspa = Delta(aspas={64496: (None, (64497,))}).then(Delta(aspas={64496: ((64497,), None)}))
    assert not aspa.aspas


def test_a_history_too_short_is_a_cache_reset():
    c = Cache(1, history=2)
    sets = [vrps(10, seed=s) for s in range(5)]
    for s in sets:
        c.load(payloads(s))
    assert c.serial == 4 and c.since(1, 3) is not None and c.since(1, 2) is not None
    assert c.since(1, 1) is None and c.since(1, 9) is None


def test_an_unchanged_load_keeps_the_serial():
    c = Cache(1)
    c.load(payloads(vrps(5)))
    c.load(payloads(vrps(5)))
    assert c.serial == 0


def test_the_order_of_payload_pdus():
    """draft-ietf-sidrops-8210bis-27 section 11.2, a total order: by type (IPv4, IPv6, router keys,
    ASPAs), announcements first; prefix announcements by descending (address, max length, prefix
    length, AS), withdrawals ascending; keys by SKI, SPKI length, SPKI, AS; ASPAs by customer."""
    old, new = vrps(40, seed=1), vrps(40, seed=2)
    key2 = RouterKey(64497, bytes(range(20)), b"\x30\x59" + bytes(88))  # same SKI, shorter SPKI: first
    c = Cache(1)
    c.load(payloads(old, [KEY], [ASPA(64500, (64501,)), ASPA(64510, (64511,))]))
    c.load(payloads(new, [key2], [ASPA(64502, (64503,)), ASPA(64501, (64503,))]))
    got = [p for p in _pdus(c.since(2, 0)) if not isinstance(p, (pdu.CacheResponse, pdu.EndOfData))]
    rank = {pdu.Prefix: 0, pdu.RouterKey: 2, pdu.Aspa: 3}
    kinds = [(rank[type(p)] + (p.prefix.version == 6 if isinstance(p, pdu.Prefix) else 0), not p.announce) for p in got]
    assert kinds == sorted(kinds) and len(set(kinds)) == 8  # every kind, each announced and withdrawn
    for family in (4, 6):
        ann = [(int(p.prefix.network_address), p.max_length, p.prefix.prefixlen, p.asn) for p in got
               if isinstance(p, pdu.Prefix) and p.prefix.version == family and p.announce]
        wd = [(int(p.prefix.network_address), p.max_length, p.prefix.prefixlen, p.asn) for p in got
              if isinstance(p, pdu.Prefix) and p.prefix.version == family and not p.announce]
        assert ann == sorted(ann, reverse=True) and wd == sorted(wd) and ann and wd
    assert [(p.announce, p.asn) for p in got if isinstance(p, pdu.RouterKey)] == [(True, 64497), (False, 64496)]
    assert [(p.announce, p.customer) for p in got if isinstance(p, pdu.Aspa)] == [(True, 64501), (True, 64502),
                                                                                  (False, 64500), (False, 64510)]


def test_versions_carry_what_they_can():
    c = Cache(1)
    c.load(payloads(vrps(3), [KEY], [ASPA(64500, (64501, 64502))]))
    kinds = {v: {type(p).__name__ for p in _pdus(c.full(v))} for v in (0, 1, 2)}
    assert "RouterKey" not in kinds[0] and "Aspa" not in kinds[1] and {"RouterKey", "Aspa"} <= kinds[2]


def _pdus(data: bytes) -> list:
    out, at = [], 0
    while at < len(data):
        p, n = pdu.decode(data, at)
        out.append(p)
        at += n
    return out


# ---- our server and our client ------------------------------------------------------------------------

class Running:
    """Our server on an ephemeral port of 127.0.0.1, in this test's event loop."""

    def __init__(self, cache: Cache, **kw):
        self.lines: list[str] = []
        self.server = Server(cache, self.lines.append, self.lines.append, **kw)

    async def __aenter__(self):
        self.listener = await self.server.serve("127.0.0.1", 0)
        self.port = self.listener.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc):
        self.listener.close()


def test_client_and_server_through_a_full_load_an_update_and_a_notify():
    async def main():
        c = Cache(99)
        first = vrps(2000)
        c.load(payloads(first, [KEY], [ASPA(64500, (64501,))]))
        async with Running(c) as srv:
            client = Client("127.0.0.1", srv.port, 2, timeout=5)
            await client.reset()
            assert client.table.payloads().origins == first and client.serial == 0 and client.session == 99
            assert len(client.table.keys) == 1 and client.table.aspas == {64500: (64501,)}
            # 1 % withdrawn and 1 % new; the ASPA's providers replaced
            rng = random.Random(3)
            kept = rng.sample(first, len(first) - 20)
            second = sorted(kept + vrps(20, seed=77), key=Origin.sort_key)
            changes = []
            task = asyncio.ensure_future(client.follow(lambda before, table: changes.append(len(table.vrps))))
            await asyncio.sleep(0.1)
            c.load(payloads(second, [KEY], [ASPA(64500, (64501, 64502))]))
            srv.server.notify()
            for _ in range(50):
                if changes:
                    break
                await asyncio.sleep(0.05)
            task.cancel()
            assert changes and client.serial == 1
            assert client.table.payloads().origins == sorted(set(second), key=Origin.sort_key)
            assert client.table.aspas == {64500: (64501, 64502)}
            await client.close()

    asyncio.run(main())


def test_version_negotiation_and_errors_touch_only_their_session():
    async def raw(port: int, data: bytes, closes: bool = True) -> list:
        """What the server answers `data` with; `closes`: it then ends the session."""
        r, w = await asyncio.open_connection("127.0.0.1", port)
        w.write(data)
        await w.drain()
        got = await asyncio.wait_for(r.read() if closes else r.read(8), 5)
        w.close()
        return _pdus(got)

    async def main():
        c = Cache(5)
        c.load(payloads(vrps(50)))
        async with Running(c) as srv:
            good = Client("127.0.0.1", srv.port, 1, timeout=5)
            await good.reset()
            # a version 3 query: "Unsupported Protocol Version" in our highest, 2
            [e] = await raw(srv.port, bytes.fromhex("03020000 00000008"))
            assert (type(e), e.version, e.code) == (pdu.ErrorReport, 2, pdu.UNSUPPORTED_VERSION)
            # a version change mid-session: "Unexpected Protocol Version", then closed
            got = await raw(srv.port, pdu.encode(pdu.ResetQuery(1)) + pdu.encode(pdu.ResetQuery(0)))
            assert isinstance(got[-1], pdu.ErrorReport) and got[-1].code == pdu.UNEXPECTED_VERSION
            # a length of gigabytes: Corrupt Data at once, without waiting for them
            [e] = await raw(srv.port, bytes.fromhex("01020000 7fffffff"))
            assert e.code == pdu.CORRUPT_DATA and "length" in e.text
            # a PDU a cache sends, from a router: Invalid Request
            [e] = await raw(srv.port, pdu.encode(pdu.CacheResponse(1, 5)))
            assert e.code == pdu.INVALID_REQUEST
            # a serial query with another session ID: a Cache Reset; an old serial: a Cache Reset
            [r] = await raw(srv.port, pdu.encode(pdu.SerialQuery(1, 6, 0)), closes=False)
            assert isinstance(r, pdu.CacheReset)
            # the first session is untouched: it still gets its deltas
            c.load(payloads(vrps(50, seed=9)))
            await good._send(pdu.SerialQuery(1, good.session, good.serial))
            assert await good._response() and good.serial == 1
            assert good.table.payloads().origins == vrps(50, seed=9)
            await good.close()
            assert sum("closed" in line for line in srv.lines) >= 4

    asyncio.run(main())


def test_a_stopping_cache_tells_version_2_sessions_it_restarts():
    async def main():
        c = Cache(3)
        c.load(payloads(vrps(5)))
        async with Running(c) as srv:
            two, one = Client("127.0.0.1", srv.port, 2, timeout=5), Client("127.0.0.1", srv.port, 1, timeout=5)
            await two.reset()
            await one.reset()
            await srv.server.stop()
            told = await two.next_pdu(5)
            assert (type(told), told.code) == (pdu.ErrorReport, pdu.CACHE_RESTART)  # section 8.5: keep the data
            assert await one.next_pdu(5) is None  # version 1 has no such code: the connection just closes
            assert not srv.server.sessions
            await two.close()
            await one.close()

    asyncio.run(main())


def test_no_data_before_the_first_load_and_the_client_downgrades():
    async def main():
        c = Cache(1)
        async with Running(c) as srv:
            client = Client("127.0.0.1", srv.port, 2, timeout=5)
            with pytest.raises(CacheError, match="No Data Available"):
                await client.reset()
            await client.close()

    asyncio.run(main())


def test_the_client_reports_a_bad_aspa_to_the_cache():
    """A cache sending an ASPA announcement without providers: the client sends it Error Report 9
    ("ASPA Provider List Error", draft-ietf-sidrops-8210bis-27 section 5.12) with the PDU, and stops."""
    async def main():
        told = asyncio.get_running_loop().create_future()

        async def cache(reader, writer):
            await reader.readexactly(8)  # the Reset Query
            bad = bytes.fromhex("020b0100 0000000c 0000fbf0")
            writer.write(pdu.encode(pdu.CacheResponse(2, 1)) + bad)
            await writer.drain()
            told.set_result(pdu.decode(await reader.read(1000))[0])
            writer.close()

        listener = await asyncio.start_server(cache, "127.0.0.1", 0)
        client = Client("127.0.0.1", listener.sockets[0].getsockname()[1], 2, timeout=5)
        with pytest.raises(CacheError, match="ASPA Provider List Error"):
            await client.reset()
        report = await asyncio.wait_for(told, 5)
        assert (report.code, report.pdu) == (pdu.ASPA_PROVIDER_LIST_ERROR, bytes.fromhex("020b0100 0000000c 0000fbf0"))
        await client.close()
        listener.close()

    asyncio.run(main())


def test_refusals_past_the_limits(monkeypatch):
    async def main():
        c = Cache(1)
        c.load(payloads(vrps(5)))
        async with Running(c, max_sessions=1, allow=[ipaddress.ip_network("127.0.0.0/8")]) as srv:
            one = Client("127.0.0.1", srv.port, 1, timeout=5)
            await one.reset()
            two = Client("127.0.0.1", srv.port, 1, timeout=2)
            with pytest.raises(CacheError, match="closed the connection"):
                await two.reset()
            assert any("refused: 1 sessions already" in line for line in srv.lines)
            await one.close()
        async with Running(c, allow=[ipaddress.ip_network("192.0.2.0/24")]) as srv:
            three = Client("127.0.0.1", srv.port, 1, timeout=2)
            with pytest.raises(CacheError, match="closed the connection"):
                await three.reset()
            assert any("refused: not in --allow" in line for line in srv.lines)

    asyncio.run(main())


def test_a_router_that_reads_nothing_holds_up_only_itself():
    async def main():
        c = Cache(1)
        c.load(payloads(vrps(20000)))  # about half a megabyte an answer
        async with Running(c) as srv:
            stuck = []
            for _ in range(5):  # ask, never read
                r, w = await asyncio.open_connection("127.0.0.1", srv.port)
                w.write(pdu.encode(pdu.ResetQuery(1)))
                stuck.append(w)
            await asyncio.sleep(0.3)
            reader = Client("127.0.0.1", srv.port, 1, timeout=5)
            await reader.reset()
            assert len(reader.table.vrps) == 20000
            await reader.close()
            for w in stuck:
                buffered = w.transport.get_write_buffer_size()
                assert buffered == 0
                w.close()

    asyncio.run(main())


# ---- real peers -----------------------------------------------------------------------------------

class Serve:
    """`bgpsim rtr serve` as a process, on a free port."""

    def __init__(self, tmp: Path, *files: Path, port: int | None = None, options: tuple = ()):
        self.port = port or free_port()
        self.proc = subprocess.Popen([sys.executable, "-m", "bgpsim", "rtr", "serve", "--listen",
                                      f"127.0.0.1:{self.port}", *[a for f in files for a in ("--vrps", str(f))], *options],
                                     stderr=subprocess.PIPE, text=True, cwd=tmp)

    def __enter__(self):
        wait_port(self.port, self.proc)
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(10)


def rtrclient_table(port: int) -> set:
    out = subprocess.run([RTRCLIENT, "-e", "-t", "csv", "tcp", "127.0.0.1", str(port)], capture_output=True,
                         text=True, timeout=30)
    rows = [line.split(",") for line in out.stdout.splitlines() if line and line[0].isdigit() or ":" in line[:5]]
    return {(ipaddress.ip_network(f"{a.strip()}/{p.strip()}"), int(m), int(asn)) for a, p, m, asn in rows}


@need_rtrclient
def test_rtrclient_holds_our_vrps(tmp_path):
    origins = vrps(3000)
    (tmp_path / "vrps.csv").write_text(csv_text(origins))
    with Serve(tmp_path, tmp_path / "vrps.csv") as s:
        assert rtrclient_table(s.port) == {(o.vrp.prefix, o.vrp.max_length, o.vrp.asn) for o in origins}


@need_rtrclient
def test_rtrclient_follows_an_update_through_a_serial_notify(tmp_path):
    origins = vrps(1000)
    (tmp_path / "vrps.csv").write_text(csv_text(origins))
    with Serve(tmp_path, tmp_path / "vrps.csv") as s:
        follower = subprocess.Popen([RTRCLIENT, "tcp", "127.0.0.1", str(s.port)], stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
        try:
            time.sleep(1.0)
            rng = random.Random(5)
            second = rng.sample(origins, 990) + vrps(10, seed=42)  # 1 % withdrawn, 1 % new
            (tmp_path / "new.csv").write_text(csv_text(second))
            (tmp_path / "new.csv").rename(tmp_path / "vrps.csv")
            time.sleep(2.5)
        finally:
            follower.terminate()
            log = follower.communicate(timeout=10)[0]
        assert "Serial Notify received (1)" in log and "sending serial query, SN: 0" in log, log[-2000:]
        assert "received 20 Prefix PDUs" in log and "SN: 1" in log, log[-2000:]
        assert rtrclient_table(s.port) == {(o.vrp.prefix, o.vrp.max_length, o.vrp.asn) for o in second}


def test_diff_names_what_only_one_cache_holds(tmp_path):
    """`rtr client A --diff B` between two of our caches: each VRP and ASPA only one holds, one line
    each (- only in A, + only in B), a replaced ASPA as both records; exit status 1, and 0 for a cache
    against itself."""
    from bgpsim.rpki.vrps import write_json

    origins = vrps(300)
    new = vrps(1, seed=77)
    (tmp_path / "a.json").write_text(write_json(payloads(origins, [KEY], [ASPA(64500, (64501,)), ASPA(64502, (64503,))])))
    (tmp_path / "b.json").write_text(write_json(payloads(origins[2:] + new, [KEY], [ASPA(64500, (64501, 64504))])))
    with Serve(tmp_path, tmp_path / "a.json") as a, Serve(tmp_path, tmp_path / "b.json") as b:
        def diff(x, y):
            return subprocess.run([sys.executable, "-m", "bgpsim", "rtr", "client", f"127.0.0.1:{x.port}", "--diff",
                                   f"127.0.0.1:{y.port}", "--quiet"], capture_output=True, text=True, timeout=60)

        same = diff(a, a)
        assert (same.returncode, same.stdout) == (0, ""), same.stderr
        got = diff(a, b)
    assert got.returncode == 1, got.stderr
    v = lambda o, sign: f"{sign} {o.vrp.prefix} max {o.vrp.max_length} AS{o.vrp.asn}"  # noqa: E731
    assert got.stdout.splitlines() == [v(new[0], "+"), *sorted(v(o, "-") for o in origins[:2]),
                                       "- ASPA AS64500: AS64501", "+ ASPA AS64500: AS64501 AS64504",
                                       "- ASPA AS64502: AS64503"]
    assert f"4 only in 127.0.0.1:{a.port}, 2 only in 127.0.0.1:{b.port}" in got.stderr


@need_stayrtr
def test_our_client_reads_stayrtr_and_rtrmon_sees_no_difference(tmp_path):
    from bgpsim.rpki.vrps import write_json

    origins = vrps(3000)
    doc = payloads(origins, [KEY])
    (tmp_path / "vrps.json").write_text(write_json(doc))
    port = free_port()
    stay = subprocess.Popen([STAYRTR, "-bind", f"127.0.0.1:{port}", "-cache", str(tmp_path / "vrps.json"),
                             "-checktime=false", "-metrics.addr", ""], stderr=subprocess.PIPE, text=True)
    try:
        wait_port(port, stay)
        with Serve(tmp_path, tmp_path / "vrps.json") as ours:
            got = subprocess.run([sys.executable, "-m", "bgpsim", "rtr", "client", f"127.0.0.1:{port}", "--rtr-version",
                                  "1", "--format", "json", "--quiet"], capture_output=True, text=True, timeout=60)
            assert got.returncode == 0, got.stderr
            theirs = json.loads(got.stdout)
            mine = json.loads(subprocess.run([sys.executable, "-m", "bgpsim", "rtr", "client", f"127.0.0.1:{ours.port}",
                                              "--rtr-version", "1", "--quiet"], capture_output=True, text=True,
                                             timeout=60).stdout)
            assert theirs["roas"] == mine["roas"] and len(mine["roas"]) == 3000
            assert theirs["bgpsec_keys"] == mine["bgpsec_keys"] and len(mine["bgpsec_keys"]) == 1
            same = subprocess.run([sys.executable, "-m", "bgpsim", "rtr", "client", f"127.0.0.1:{ours.port}", "--diff",
                                   f"127.0.0.1:{port}", "--rtr-version", "1"], capture_output=True, text=True, timeout=60)
            assert (same.returncode, same.stdout) == (0, ""), same.stderr
            assert f"0 only in 127.0.0.1:{ours.port}, 0 only in 127.0.0.1:{port}" in same.stderr
            # rtrmon, stayrtr's monitor, holds both caches side by side and serves what differs
            web = free_port()
            mon = subprocess.Popen([RTRMON, "-primary.host", f"tcp://127.0.0.1:{port}", "-secondary.host",
                                    f"tcp://127.0.0.1:{ours.port}", "-addr", f"127.0.0.1:{web}", "-primary.refresh", "2s",
                                    "-secondary.refresh", "2s"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            try:
                diff = None
                for _ in range(100):
                    time.sleep(0.2)
                    try:
                        with urllib.request.urlopen(f"http://127.0.0.1:{web}/diff.json", timeout=2) as r:
                            diff = json.loads(r.read())
                    except OSError:
                        continue
                    if all((diff.get(f"metadata-{k}") or {}).get("count") for k in ("primary", "secondary")):
                        break  # before its first fetch from a cache, rtrmon gives null for its metadata
            finally:
                mon.terminate()
                mon.wait(10)
            assert diff["metadata-primary"]["count"] == diff["metadata-secondary"]["count"] == 3001, diff
            assert diff["only-primary"] == [] and diff["only-secondary"] == [], diff
    finally:
        stay.terminate()
        stay.wait(10)


def _self_signed(tmp: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key (synthetic, made here)."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "rtr.test")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    (tmp / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                    serialization.NoEncryption()))
    return tmp / "cert.pem", tmp / "key.pem"


def test_tls_and_metrics(tmp_path):
    """RTR over TLS (RFC 8210 section 9) between our client and server, and the Prometheus metrics."""
    cert, key = _self_signed(tmp_path)
    origins = vrps(100)
    (tmp_path / "vrps.csv").write_text(csv_text(origins))
    web = free_port()
    with Serve(tmp_path, tmp_path / "vrps.csv", options=("--tls-cert", str(cert), "--tls-key", str(key), "--metrics",
                                                          f"127.0.0.1:{web}")) as s:
        client = [sys.executable, "-m", "bgpsim", "rtr", "client", f"127.0.0.1:{s.port}", "--format", "csv", "--quiet"]
        got = subprocess.run([*client, "--tls", "--cafile", str(cert)], capture_output=True, text=True, timeout=60)
        assert got.returncode == 0, got.stderr
        assert got.stdout.count("\n") == 101
        plain = subprocess.run([*client, "--timeout", "3"], capture_output=True, text=True, timeout=60)
        assert plain.returncode == 2 and plain.stderr.count("\n") == 1  # TLS only: no answer to plain TCP
        untrusted = subprocess.run([*client, "--tls"], capture_output=True, text=True, timeout=60)
        assert untrusted.returncode == 2 and "certificate" in untrusted.stderr, untrusted.stderr
        with urllib.request.urlopen(f"http://127.0.0.1:{web}/metrics", timeout=5) as r:
            text = r.read().decode()
        assert 'bgpsim_rtr_vrps{family="ipv4"} ' in text and "bgpsim_rtr_serial 0" in text
        v4 = sum(1 for o in origins if o.vrp.prefix.version == 4)
        assert f'bgpsim_rtr_vrps{{family="ipv4"}} {v4}' in text and f'bgpsim_rtr_vrps{{family="ipv6"}} {100 - v4}' in text
        assert 'bgpsim_rtr_answers_total{kind="full"} 1' in text and 'bgpsim_rtr_reloads_total{result="ok"} 1' in text
        with pytest.raises(urllib.error.HTTPError, match="404"):
            urllib.request.urlopen(f"http://127.0.0.1:{web}/", timeout=5)


def test_serving_what_our_relying_party_validates(tmp_path):
    """--tal and --repo: the cache validates the repository (`rpki validate` in a process of its
    own) once it listens and serves what the relying party gives."""
    spec = subprocess.run([sys.executable, "-m", "bgpsim", "rpki", "ca", "example"], capture_output=True, text=True)
    (tmp_path / "spec.toml").write_text(spec.stdout)
    built = subprocess.run([sys.executable, "-m", "bgpsim", "rpki", "ca", "build", str(tmp_path / "spec.toml"), "--out",
                            str(tmp_path / "repo"), "--quiet"], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    rp = subprocess.run([sys.executable, "-m", "bgpsim", "rpki", "validate", "--tal", str(tmp_path / "repo" / "ta.tal"),
                         "--repo", str(tmp_path / "repo")], capture_output=True, text=True, timeout=300)
    want = json.loads(rp.stdout)
    port = free_port()
    serve = subprocess.Popen([sys.executable, "-m", "bgpsim", "rtr", "serve", "--listen", f"127.0.0.1:{port}", "--tal",
                              str(tmp_path / "repo" / "ta.tal"), "--repo", str(tmp_path / "repo")],
                             stderr=subprocess.PIPE, text=True)
    try:
        wait_port(port, serve)
        for _ in range(100):  # "No Data Available" until the first validation is done
            got = subprocess.run([sys.executable, "-m", "bgpsim", "rtr", "client", f"127.0.0.1:{port}", "--quiet"],
                                 capture_output=True, text=True, timeout=60)
            if got.returncode == 0:
                break
            assert "No Data Available" in got.stderr, got.stderr
            time.sleep(0.2)
        mine = json.loads(got.stdout)
        strip = lambda roas: sorted((r["asn"], r["prefix"], r["maxLength"]) for r in roas)  # noqa: E731
        assert strip(mine["roas"]) == strip(want["roas"]) and mine["roas"]
        assert [k["ski"] for k in mine["bgpsec_keys"]] == [k["ski"] for k in want["bgpsec_keys"]]
        aspas = lambda doc: {f: [(a["customer_asid"], a["providers"]) for a in doc["provider_authorizations"][f]]  # noqa: E731
                             for f in ("ipv4", "ipv6")}  # RTR carries no expiry times
        assert aspas(mine) == aspas(want) and aspas(mine)["ipv4"]
    finally:
        serve.terminate()
        err = serve.communicate(timeout=30)[1]
    assert "first validation:" in err, err
