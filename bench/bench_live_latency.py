"""Benchmark: alert latency and memory of `bgpsim monitor` at a steady feed rate, through a real mosquitto.

A publisher here sends synthetic RIS Live UPDATEs (labelled synthetic: made-up /32s of 10.0.0.0/8, which
a watch file says belongs to AS64500, more-specifics allowed) at --rate messages per second, one MQTT
message each, stamped with the wall time they were sent. Most cycle over the same 10,000 prefixes from
AS64500 (no alert; every route still checked and written); one in --every announces a new /32 from
AS64999, a sub-prefix hijack: the latency of its alert is when this process receives it on
PREFIX/alerts minus when its UPDATE was sent. The monitor's resident memory is sampled every 5 s. Prints the
latency percentiles and the memory samples. Figures only; nothing is asserted. The broker comes from
tests/mqtt_broker.py (Debian packages mosquitto and mosquitto-clients).
Every alert and every new prefix is state the monitor keeps (bounded: bgpsim.live.alerts.squash.MAX_OPEN, and
the distinct prefixes of the feed), so memory grows a little with --every 100 (12,000 alerts in ten
minutes, far more than a real feed raises) and not at all with --every 2000.
With --ws the same UPDATEs reach the monitor over RIS Live's WebSocket instead (a server in this
process; `bgpsim monitor --ris-live`), and the alerts come back through the broker (`--broker`, which
with another feed takes the alerts only).
Usage: python bench/bench_live_latency.py [--rate 2000] [--seconds 60] [--every 100] [--ws]
       (the 10-minute run: --seconds 600)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
from collections import deque
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the broker the tests run

from mqtt_broker import Broker, wait_online  # noqa: E402

TOPIC = "latency"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def update(n: int, fresh: bool) -> bytes:
    host = 10_000 + n if fresh else n % 10_000
    prefix = f"10.{host >> 16 & 255}.{host >> 8 & 255}.{host & 255}/32"
    return json.dumps({"timestamp": time.time(), "peer": "192.0.2.1", "peer_asn": "64496", "id": f"lat-{n}",
                       "type": "UPDATE", "path": [64496, 64999 if fresh else 64500], "origin": "igp",
                       "announcements": [{"next_hop": "192.0.2.1", "prefixes": [prefix]}]}).encode()


async def paced(send, rate: int, seconds: float, pid: int, sub, memory: list) -> tuple[int, list[float]]:
    """`send(n)` called for each UPDATE as it falls due at `rate` a second for `seconds`; the monitor's
    RSS sampled every 5 s into `memory`; each alert arriving on `sub` (subscribed) timed from its UPDATE.
    (UPDATEs sent, latencies.)"""
    latencies: list[float] = []

    async def listen():
        async for m in sub.messages:
            latencies.append(time.time() - json.loads(m.payload)["first_seen"])

    listener = asyncio.create_task(listen())
    start = time.perf_counter()
    n, next_sample = 0, 0.0
    while (elapsed := time.perf_counter() - start) < seconds:
        due = int(elapsed * rate) + 1
        while n < due:
            await send(n)
            n += 1
        if elapsed >= next_sample:
            memory.append((round(elapsed), rss_mb(pid)))
            next_sample += 5.0
        await asyncio.sleep(0.005)  # send what is due every tick
    await asyncio.sleep(2.0)  # the last alerts
    listener.cancel()
    memory.append((round(time.perf_counter() - start), rss_mb(pid)))
    return n, latencies


async def drive(url: str, rate: int, seconds: float, every: int, pid: int) -> tuple[list[float], list]:
    from bgpsim.live.broker import client, parse_url

    addr = parse_url(url)
    memory: list[tuple[float, float]] = []
    async with client(addr, identifier="bench-alerts") as sub, client(addr, inflight=64) as pub:
        await sub.subscribe(f"{TOPIC}/alerts", qos=1)
        inflight: deque = deque()

        async def send(n: int) -> None:  # not awaited one by one: the sender must not delay the receiver here
            inflight.append(asyncio.ensure_future(pub.publish(f"{TOPIC}/updates", update(n, n % every == 0), qos=1)))
            while inflight and inflight[0].done():
                inflight.popleft().result()

        n, latencies = await paced(send, rate, seconds, pid, sub, memory)
    print(f"sent: {n:,} updates")
    return latencies, memory


async def drive_ws(url: str, rate: int, seconds: float, every: int, mon_args: list):
    """The WebSocket case: a RIS Live server here, the monitor started against it, alerts from the broker."""
    from aiohttp import web

    from bgpsim.live.broker import client, parse_url

    connected = asyncio.Event()
    peer: dict = {}

    async def handle(request):
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        peer["ws"] = ws
        connected.set()
        async for _ in ws:  # its subscription and pings (answered by aiohttp)
            pass
        return ws

    app = web.Application()
    app.router.add_get("/v1/ws/", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    memory: list[tuple[float, float]] = []
    async with client(parse_url(url), identifier="bench-alerts") as sub:
        await sub.subscribe(f"{TOPIC}/alerts", qos=1)
        mon = subprocess.Popen([sys.executable, "-m", "bgpsim", "monitor", "--ris-live",
                                f"ws://127.0.0.1:{port}/v1/ws/", *mon_args], stderr=subprocess.PIPE, text=True, cwd=ROOT)
        await asyncio.wait_for(connected.wait(), 30)
        await asyncio.sleep(1.0)  # subscribed
        ws = peer["ws"]

        async def send(n: int) -> None:
            await ws.send_str('{"type":"ris_message","data":' + update(n, n % every == 0).decode() + "}")

        n, latencies = await paced(send, rate, seconds, mon.pid, sub, memory)
        await asyncio.to_thread(mon.communicate, None, 120)
    await runner.cleanup()
    print(f"sent: {n:,} updates over the WebSocket")
    return latencies, memory


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rate", type=int, default=2000, help="UPDATEs per second")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--every", type=int, default=100, help="one UPDATE in EVERY raises a new alert (default 100)")
    ap.add_argument("--ws", action="store_true", help="the UPDATEs over RIS Live's WebSocket, not MQTT")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bgpsim-bench-latency-") as tmp:
        work = Path(tmp)
        (work / "vrps.csv").write_text("ASN,IP Prefix,Max Length,Trust Anchor\nAS64500,10.0.0.0/8,32,synthetic\n")
        (work / "watch.toml").write_text('[[prefix]]\nprefix = "10.0.0.0/8"\norigins = [64500]\nmore_specifics = true\n')
        with Broker(work / "mosquitto", tls=False, password=False) as broker:
            if a.ws:
                args = ["--broker", broker.url("plain"), "--topic", TOPIC, "--vrps", str(work / "vrps.csv"), "--watch",
                        str(work / "watch.toml"), "--out", str(work / "live"), "--until-idle", "4", "--quiet"]
                latencies, memory = asyncio.run(drive_ws(broker.url("plain"), a.rate, a.seconds, a.every, args))
            else:
                mon = subprocess.Popen([sys.executable, "-m", "bgpsim", "monitor", "--broker", broker.url("plain"),
                                        "--vrps", str(work / "vrps.csv"), "--watch", str(work / "watch.toml"), "--out",
                                        str(work / "live"), "--topic", TOPIC, "--until-idle", "4", "--quiet"],
                                       stderr=subprocess.PIPE, text=True, cwd=ROOT)
                wait_online(broker, TOPIC, mon)
                latencies, memory = asyncio.run(drive(broker.url("plain"), a.rate, a.seconds, a.every, mon.pid))
                mon.communicate(timeout=120)
        feed = json.loads((work / "live" / "summary.json").read_text())["feed"]
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [float("nan")] * 99
    print(f"feed: {feed['updates']:,} updates at {a.rate:,}/s for {a.seconds:g} s, {feed['missing']:,} missing, "
          f"{feed['late']:,} late, {feed['unreadable']:,} unreadable, {feed['dropped']:,} dropped; at most "
          f"{feed['most_waiting']:,} messages waited to be checked at once")
    print(f"alert latency over {len(latencies):,} alerts: p50 {q[49] * 1000:.1f} ms, p90 {q[89] * 1000:.1f} ms, "
          f"p99 {q[98] * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms")
    print("monitor RSS (s: MB): " + ", ".join(f"{t}: {m:.0f}" for t, m in memory))


if __name__ == "__main__":
    main()
