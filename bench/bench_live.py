"""Benchmark: route updates validated per second end to end, through a real mosquitto on 127.0.0.1 and
through RIS Live's WebSocket.

MQTT: `bgpsim monitor` listens (a subprocess); `bgpsim stream publish --flat-out` sends a real dump
(updates.20160811.1600.gz, 16,795 UPDATEs) as one MQTT message per UPDATE, then again with --batch N
(N RIS Live objects per message). Printed per case: the publisher's rate, and the monitor's rate from
its first to its last message (summary.json's feed object), with whether its routes.csv equals
`bgpsim validate`'s on the same dump. The broker is started from tests/mqtt_broker.py (Debian
packages mosquitto and mosquitto-clients).

WebSocket (--ws K): the dump's UPDATEs K times over (each with its own id), as RIS Live messages,
from a raw WebSocket server in its own process that sends frames encoded beforehand as fast as the
reader takes them: first to a client that only counts them (what the server alone sends per second),
then to `bgpsim monitor --ris-live --watch` (updates per second, first to last message; the alerts
raised on ten watched /16s with synthetic owners; routes.csv equal to validate's, K times over).
Figures only; nothing is asserted.
Usage: python bench/bench_live.py [--batch 100] [--repeat 1] [--ws K] [--no-mqtt]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the broker the tests run

from mqtt_broker import Broker  # noqa: E402

DUMP = ROOT.parent / "shared" / "data" / "mrt" / "ripe_bgpdump_testdata" / "updates.20160811.1600.gz"
VRPS = "ASN,IP Prefix,Max Length,Trust Anchor\nAS64500,192.140.252.0/22,24,synthetic\n"


def bgpsim(*args) -> list[str]:
    return [sys.executable, "-m", "bgpsim", *map(str, args)]


def case(broker: Broker, work: Path, name: str, batch: int, vrps: Path, reference: Path) -> str:
    out = work / name
    mon = subprocess.Popen(bgpsim("monitor", "--broker", broker.url("plain"), "--vrps", vrps, "--out", out,
                                  "--topic", name, "--client-id", name, "--until-idle", 3, "--quiet"),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.0)  # subscribed by then (the retained status says so; a fixed wait keeps this short)
    t = time.perf_counter()
    pub = subprocess.run(bgpsim("stream", "publish", DUMP, "--broker", broker.url("plain"), "--topic", name,
                                "--flat-out", "--batch", batch), capture_output=True, text=True, check=True)
    publish_s = time.perf_counter() - t
    mon.communicate(timeout=600)
    feed = json.loads((out / "summary.json").read_text())["feed"]
    same = (out / "routes.csv").read_bytes() == reference.read_bytes()
    rate = re_rate(pub.stderr)
    return (f"{name}: {feed['updates']:,} updates in {feed['messages']:,} messages; publisher {rate}; "
            f"monitor {feed['updates_per_second']:,} updates/s ({feed['seconds']:.2f} s first to last message, "
            f"{publish_s:.2f} s publishing); routes.csv equal to validate's: {same}")


def re_rate(text: str) -> str:
    import re

    m = re.search(r"\(([\d,]+ updates/s)\)", text)
    return m.group(1) if m else "?"


async def _serve_frames(frames_path: str) -> None:
    """A raw RIS Live server: the frames in `frames_path` to each client, as fast as it reads, then a close."""
    import asyncio

    from bench_ws_choice import accept

    data = Path(frames_path).read_bytes()
    served = [0]  # the counting client, then the monitor: each takes the stream once; later connections none

    async def handle(r, w):
        await accept(r, w)
        await asyncio.sleep(0.3)  # the client's subscription, read past
        served[0] += 1
        if served[0] <= 2:
            for i in range(0, len(data), 1 << 20):
                w.write(data[i:i + (1 << 20)])
                await w.drain()
        if served[0] == 1:
            w.write(bytes([0x88, 2, 3, 232]))  # the counting client stops at the close
            await w.drain()
        try:
            await asyncio.wait_for(r.read(), 600)  # until the client leaves
        except asyncio.TimeoutError:
            pass
        w.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


def _frame(text: bytes) -> bytes:
    n = len(text)
    head = bytes([0x81, n]) if n < 126 else (bytes([0x81, 126]) + n.to_bytes(2, "big") if n < 1 << 16
                                             else bytes([0x81, 127]) + n.to_bytes(8, "big"))
    return head + text


async def _count(url: str) -> tuple[int, float]:
    import aiohttp

    n, first = 0, None
    async with aiohttp.ClientSession() as s, s.ws_connect(url, max_msg_size=1 << 20) as ws:
        async for m in ws:
            if m.type != aiohttp.WSMsgType.TEXT:
                break
            first = first or time.perf_counter()
            n += 1
    return n, time.perf_counter() - first


def ws_case(work: Path, k: int, vrps: Path, reference: Path) -> str:
    import asyncio

    sys.path.insert(0, str(ROOT))
    from bgpsim.live.rislive import update_messages
    from bgpsim.mrt import read_routes

    routes = list(read_routes(str(DUMP)))
    updates = list(update_messages(routes, host="rrc00", ids="u"))
    # a watch list, so alerts are raised as well (synthetic owners): the /16s over ten of the dump's /24s
    nets = sorted({r.prefix for r in routes if r.prefix and r.prefix.endswith("/24") and ":" not in r.prefix})[:400:40]
    (work / "watch.toml").write_text("".join(f'[[prefix]]\nprefix = "{".".join(n.split(".")[:2])}.0.0/16"\n'
                                             f'origins = [64500]\n\n' for n in nets))
    with open(work / "frames.bin", "wb") as f:
        for r in range(k):
            for i, d in enumerate(updates):
                f.write(_frame(json.dumps({"type": "ris_message", "data": {**d, "id": f"b{r}-{i}"}}).encode()))
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(work / "frames.bin")], stdout=subprocess.PIPE,
                              text=True)
    try:
        url = f"ws://127.0.0.1:{server.stdout.readline().strip()}/v1/ws/"
        n, s = asyncio.run(_count(url))
        alone = f"the server alone: {n:,} messages in {s:.2f} s, {n / s:,.0f}/s"
        out = work / f"ws{k}"
        subprocess.run(bgpsim("monitor", "--ris-live", url, "--vrps", vrps, "--watch", work / "watch.toml", "--out", out,
                              "--until-idle", 2, "--quiet"), check=True)
    finally:
        server.kill()
    summary = json.loads((out / "summary.json").read_text())
    feed, alerts = summary["feed"], summary["alerts"]
    ref = reference.read_text().split("\n", 1)
    same = (out / "routes.csv").read_text() == ref[0] + "\n" + ref[1] * k
    return (f"websocket x{k}: {alone}; monitor {feed['updates']:,} updates, {feed['updates_per_second']:,} updates/s "
            f"({feed['seconds']:.2f} s first to last message), {sum(alerts['by_kind'].values()):,} alerts raised on "
            f"{alerts['watched']} watched prefixes; routes.csv equal to validate's x{k}: {same}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--ws", type=int, default=4, metavar="K", help="the dump K times over RIS Live's WebSocket (0: not)")
    ap.add_argument("--no-mqtt", action="store_true", help="the WebSocket case only")
    ap.add_argument("--serve", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.serve:
        import asyncio

        asyncio.run(_serve_frames(a.serve))
        return
    with tempfile.TemporaryDirectory(prefix="bgpsim-bench-live-") as tmp:
        work = Path(tmp)
        vrps = work / "vrps.csv"
        vrps.write_text(VRPS)
        subprocess.run(bgpsim("validate", DUMP, "--vrps", vrps, "--out", work / "reference", "--quiet"), check=True)
        if a.ws:
            print(ws_case(work, a.ws, vrps, work / "reference" / "routes.csv"), flush=True)
        if a.no_mqtt:
            return
        with Broker(work / "mosquitto", tls=False, password=False) as broker:
            for r in range(a.repeat):
                print(case(broker, work, f"single-{r}", 1, vrps, work / "reference" / "routes.csv"), flush=True)
                print(case(broker, work, f"batch{a.batch}-{r}", a.batch, vrps, work / "reference" / "routes.csv"),
                      flush=True)


if __name__ == "__main__":
    main()
