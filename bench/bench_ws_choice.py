"""How the RIS Live client's parts were chosen: WebSocket clients and JSON parsers on RIS Live messages.

A raw WebSocket server (its own process, frames encoded once) sends N RIS Live UPDATE messages (one
as the live service writes them, 420 bytes) as fast as the client reads; each client installed here
(aiohttp, which bgpsim uses; websockets and picows when installed) reads them, with and without
parsing each. Then json.loads against orjson.loads on the same message. Figures only.

Usage: python bench/bench_ws_choice.py [--messages 300000]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import importlib.util
import json
import subprocess
import sys
import time
import timeit

MESSAGE = json.dumps({"type": "ris_message", "data": {
    "timestamp": 1700000000.12, "peer": "192.0.2.1", "peer_asn": "64496", "id": "192.0.2.1-018bcfe5680c0001",
    "host": "rrc00.ripe.net", "type": "UPDATE", "path": [64496, 3356, 1299, 64511],
    "community": [[3356, 100], [1299, 2000]], "origin": "IGP",
    "announcements": [{"next_hop": "192.0.2.1", "prefixes": ["198.51.100.0/24", "203.0.113.0/24"]}],
    "withdrawals": []}}).encode()


async def accept(r, w) -> None:
    """A raw server's side of the WebSocket handshake (RFC 6455 section 4.2.2): the client's request read,
    101 Switching Protocols written."""
    head = await r.readuntil(b"\r\n\r\n")
    key = next(ln.split(b":", 1)[1].strip() for ln in head.split(b"\r\n") if ln.lower().startswith(b"sec-websocket-key"))
    answer = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
    w.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Accept: " + answer + b"\r\n\r\n")


async def serve(port: int, n: int) -> None:
    frame = bytes([0x81, 126]) + len(MESSAGE).to_bytes(2, "big") + MESSAGE

    async def handle(r, w):
        await accept(r, w)
        chunk = frame * 100
        for _ in range(n // 100):
            w.write(chunk)
            await w.drain()
        w.write(bytes([0x88, 2, 3, 232]))  # close, 1000
        await w.drain()
        await asyncio.sleep(0.5)
        w.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


async def read_aiohttp(url: str, parse) -> int:
    import aiohttp

    n = 0
    async with aiohttp.ClientSession() as s, s.ws_connect(url, max_msg_size=1 << 20) as ws:
        async for m in ws:
            if m.type != aiohttp.WSMsgType.TEXT:
                break
            n += 1
            if parse:
                parse(m.data)
    return n


async def read_websockets(url: str, parse) -> int:
    import websockets

    n = 0
    async with websockets.connect(url, max_size=1 << 20, compression=None) as ws:
        try:
            async for m in ws:
                n += 1
                if parse:
                    parse(m)
        except websockets.ConnectionClosed:
            pass
    return n


async def read_picows(url: str, parse) -> int:
    import picows

    done = asyncio.get_running_loop().create_future()
    count = [0]

    class Listener(picows.WSListener):
        def on_ws_frame(self, transport, frame):
            if frame.msg_type == picows.WSMsgType.TEXT:
                count[0] += 1
                if parse:
                    parse(frame.get_payload_as_bytes())
            elif frame.msg_type == picows.WSMsgType.CLOSE and not done.done():
                done.set_result(None)

        def on_ws_disconnected(self, transport):
            if not done.done():
                done.set_result(None)

    await picows.ws_connect(Listener, url)
    await done
    return count[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=300_000)
    ap.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve is not None:
        asyncio.run(serve(args.serve, args.messages))
        return
    import orjson

    server = subprocess.Popen([sys.executable, __file__, "--serve", "0", "--messages", str(args.messages)],
                              stdout=subprocess.PIPE, text=True)
    try:
        url = f"ws://127.0.0.1:{server.stdout.readline().strip()}/"
        print(f"{args.messages:,} RIS Live messages of {len(MESSAGE)} bytes from a raw server in another process")
        for lib in ("aiohttp", "websockets", "picows"):
            if importlib.util.find_spec(lib) is None:
                print(f"  {lib:<11} not installed")
                continue
            for name, parse in (("read only", None), ("json.loads", json.loads), ("orjson.loads", orjson.loads)):
                t = time.perf_counter()
                n = asyncio.run(globals()[f"read_{lib}"](url, parse))
                s = time.perf_counter() - t
                print(f"  {lib:<11} {name:<13} {n / s:>11,.0f} messages/s ({1e6 * s / n:.2f} us each)")
    finally:
        server.kill()
    for name, f in (("json.loads", json.loads), ("orjson.loads", orjson.loads)):
        us = min(timeit.repeat(lambda: f(MESSAGE), number=100_000, repeat=5)) * 10
        print(f"{name:<13} {us:.2f} us a message")


if __name__ == "__main__":
    main()
