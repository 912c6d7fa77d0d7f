"""A RIS Live server on 127.0.0.1 for the tests (synthetic: written from RIS Live's manual and from
frames the live service sent, not RIPE NCC's code). It speaks the protocol the manual describes over
a real WebSocket (aiohttp): it answers each `ris_subscribe` with `ris_subscribe_ok` when asked to
acknowledge, each `{"type": "ping"}` with a pong, and sends its script: text messages in order, and
these steps among them:

    CLOSE       close the connection there (the client connects again; the script goes on)
    CUT         drop the TCP connection in the middle of a frame
    MUTE        stop reading (so WebSocket pings go unanswered) and sending, until the client leaves
    ("sleep", s)  wait s seconds

Each script step is sent once, across connections. `subscriptions` holds what clients subscribed to."""

from __future__ import annotations

import asyncio
import json
import threading

from aiohttp import WSMsgType, web

CLOSE, CUT, MUTE = "CLOSE", "CUT", "MUTE"


class RisLiveServer:
    def __init__(self, script: list, wait_subscribed: int = 1):
        self.script = list(script)
        self.sent = 0
        self.connections = 0
        self.subscriptions: list[dict] = []
        self.pings = 0
        self.wait_subscribed = wait_subscribed  # subscriptions to wait for before sending
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/v1/ws/?client=bgpsim-test"

    def __enter__(self) -> "RisLiveServer":
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_get("/v1/ws/", self._ws)
        runner = web.AppRunner(app)
        self._loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.port = runner.addresses[0][1]
        self._ready.set()
        self._loop.run_forever()

    async def _ws(self, request):
        self.connections += 1
        ws = web.WebSocketResponse(autoping=True, max_msg_size=1 << 20)
        await ws.prepare(request)
        subscribed = asyncio.Event()
        muted = {"on": False}

        async def listen():
            async for m in ws:
                if m.type != WSMsgType.TEXT:
                    continue
                doc = json.loads(m.data)
                if doc.get("type") == "ris_subscribe":
                    self.subscriptions.append(doc["data"])
                    if doc["data"].get("socketOptions", {}).get("acknowledge"):
                        await ws.send_str(json.dumps({"type": "ris_subscribe_ok", "data": {
                            "subscription": {k: v for k, v in doc["data"].items() if k != "socketOptions"},
                            "socketOptions": doc["data"].get("socketOptions")}}))
                    if len(self.subscriptions) >= self.wait_subscribed * self.connections:
                        subscribed.set()
                elif doc.get("type") == "ping" and not muted["on"]:
                    self.pings += 1
                    await ws.send_str('{"type":"pong","data":null}')

        listener = asyncio.create_task(listen())
        try:
            await asyncio.wait_for(subscribed.wait(), 10)
            while self.sent < len(self.script):
                step = self.script[self.sent]
                self.sent += 1
                if step == CLOSE:
                    await ws.close()
                    return ws
                if step == CUT:
                    head = bytes([0x81, 126, 0x10, 0x00]) + b'{"type":"ris_message","data":{"time'
                    request.transport.write(head)
                    request.transport.abort()
                    return ws
                if step == MUTE:  # read nothing more: the client's pings go unanswered
                    muted["on"] = True
                    listener.cancel()
                    for _ in range(600):
                        if request.transport is None or request.transport.is_closing():
                            break
                        await asyncio.sleep(0.1)
                    return ws
                if isinstance(step, tuple):
                    await asyncio.sleep(step[1])
                    continue
                try:
                    await ws.send_str(step)
                except ConnectionError:  # the client left (a frame too long for it): the script goes on
                    return ws
            await listener  # the script is done: stay until the client leaves
        finally:
            listener.cancel()
        return ws


def message(data: dict) -> str:
    """`data` in RIS Live's envelope, as the server sends it."""
    return json.dumps({"type": "ris_message", "data": data})
