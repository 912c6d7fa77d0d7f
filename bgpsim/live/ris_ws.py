"""RIS Live over WebSocket (https://ris-live.ripe.net/manual/): the feed `bgpsim monitor --ris-live URL`
reads, straight from RIPE NCC's service or any server that speaks its protocol.

On every connection the client sends its subscription (`ris_subscribe`, with `acknowledge` on, so the
server's `ris_subscribe_ok` confirms it), then reads messages and hands each to the Monitor. The
connection is watched two ways: WebSocket pings (`heartbeat`: a server that answers none within the
interval is taken as gone) and RIS Live's own `{"type": "ping"}`, whose `pong` is counted. A message
longer than MAX_MESSAGE, a binary frame, a close or a silent server end the connection: counted, one
warning, and the client connects again (0.5 s doubling to 10 s) and subscribes again. Only the first
connection must succeed: its failure is one line and exit status 2.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from bgpsim.base.errors import InputError

from .broker import BACKOFF
from .monitor import FLUSH_EVERY
from .rislive import MAX_MESSAGE

HEARTBEAT = 30.0  # seconds between WebSocket pings; a pong must come within half of it


@dataclass
class Subscription:
    """The filters of a `ris_subscribe` (RIS Live manual): None or empty leaves one out."""

    host: str | None = None  # a collector: rrc00 ...
    prefixes: list[str] = field(default_factory=list)  # each its own subscription
    more_specific: bool = True  # with `prefixes`: their more-specifics too (RIS Live's default)
    less_specific: bool = False  # ... and the prefixes that cover them
    path: str | None = None  # "64496,64511$": RIS Live's path pattern (not a regular expression)
    peer: str | None = None  # a collector peer's address
    type: str | None = None  # UPDATE, OPEN, ... (default: every type)

    def messages(self) -> list[dict]:
        """The `ris_subscribe` messages to send: one per prefix, or one."""
        base: dict = {k: v for k, v in (("host", self.host), ("path", self.path), ("peer", self.peer),
                                         ("type", self.type)) if v}
        base["socketOptions"] = {"acknowledge": True}
        if not self.prefixes:
            return [{"type": "ris_subscribe", "data": base}]
        return [{"type": "ris_subscribe", "data": {**base, "prefix": p, "moreSpecific": self.more_specific,
                                                    "lessSpecific": self.less_specific}} for p in self.prefixes]


def check_url(url: str) -> str:
    """`url` if it is a ws:// or wss:// URL with a host; else the error `--ris-live` gets."""
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise InputError(f"--ris-live: want ws://HOST[:PORT]/PATH or wss://..., got {url!r} "
                         "(RIPE NCC's service: wss://ris-live.ripe.net/v1/ws/?client=NAME)")
    try:
        parts.port
    except ValueError:
        raise InputError(f"--ris-live: want a port number, got {url!r}") from None
    return url


class RisLive:
    """The RIS Live feed at `url`, read into a Monitor (bgpsim.live.monitor)."""

    def __init__(self, url: str, subscription: Subscription, heartbeat: float = HEARTBEAT, cafile: str | None = None):
        self.url = check_url(url)
        self.subscription = subscription
        self.heartbeat = heartbeat
        self.cafile = cafile

    def __str__(self) -> str:
        return self.url

    async def run(self, monitor, until_idle: float | None, on_flush=None, stop: asyncio.Event | None = None,
                  on_connected=None) -> None:
        """Feed `monitor` until nothing has come for `until_idle` seconds (None: until `stop` is set).
        `on_connected` is called once, when the first connection is up and subscribed (outputs are
        touched only then)."""
        import aiohttp

        ssl = None
        if self.cafile:
            import ssl as _ssl

            ssl = _ssl.create_default_context(cafile=self.cafile)
        first, delay = True, BACKOFF[0]
        state = {"last": time.monotonic()}
        c = monitor.counts
        timeout = aiohttp.ClientWSTimeout(ws_close=5.0)
        async with aiohttp.ClientSession() as session:
            while True:
                try:
                    # text frames as bytes: the core reads them (decoding them to str and back costs a copy)
                    async with session.ws_connect(self.url, heartbeat=self.heartbeat, max_msg_size=MAX_MESSAGE,
                                                  ssl=ssl, timeout=timeout, autoping=True, decode_text=False) as ws:
                        for m in self.subscription.messages():
                            await ws.send_str(json.dumps(m))
                        if first and on_connected is not None:
                            on_connected()
                        first, delay = False, BACKOFF[0]
                        ticker = asyncio.create_task(self._tick(ws, monitor, until_idle, on_flush, stop, state))
                        try:
                            why = await self._read(ws, monitor, state)
                        finally:
                            ticker.cancel()
                        monitor.flush()
                        if on_flush is not None:
                            on_flush()
                        if state.get("done"):
                            return
                except (aiohttp.ClientError, OSError, asyncio.TimeoutError) as e:
                    if first:
                        raise InputError(f"cannot reach the RIS Live server {self.url}: {_reason(e)}") from None
                    why = _reason(e)
                if stop is not None and stop.is_set():
                    return
                c.reconnects += 1
                monitor.warn(f"lost the RIS Live server {self.url} ({why}); connecting again in {delay:g} s")
                await asyncio.sleep(delay)
                delay = min(delay * 2, BACKOFF[1])
                if until_idle is not None and time.monotonic() - state["last"] >= until_idle + 60:
                    raise InputError(f"the RIS Live server {self.url} has been gone for over a minute past --until-idle")

    async def _read(self, ws, monitor, state: dict) -> str:
        """Read until the connection ends; why it ended."""
        import aiohttp

        TEXT, BINARY = aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY
        n = 0
        async for m in ws:
            n += 1
            if m.type is TEXT or m.type is BINARY:
                kind = monitor.feed_message(bytes(m.data), f"{self.url} message {n}")
                if kind != "pong":  # the answer to our own ping says nothing of the feed: not a sign of life
                    state["last"] = time.monotonic()
            else:  # ERROR: a frame too long or broken (a message lost), or no pong in time
                exc = m.data if isinstance(m.data, BaseException) else ws.exception()
                if isinstance(exc, aiohttp.WebSocketError):
                    monitor.counts.unreadable += 1
                return f"{exc}"
        if state.get("done"):
            return "done"
        code = ws.close_code
        return f"closed by the server, code {code}" if code is not None else "connection lost"

    async def _tick(self, ws, monitor, until_idle, on_flush, stop, state: dict) -> None:
        """Every FLUSH_EVERY: check what was fed; every heartbeat, RIS Live's own ping; close the
        connection when idle for `until_idle` or when `stop` is set."""
        pinged = time.monotonic()
        while True:
            await asyncio.sleep(FLUSH_EVERY)
            monitor.flush()
            if on_flush is not None:
                on_flush()
            now = time.monotonic()
            if (stop is not None and stop.is_set()) or (until_idle is not None and now - state["last"] >= until_idle):
                state["done"] = True
                await ws.close()
                return
            if now - pinged >= self.heartbeat and not ws.closed:
                pinged = now
                try:
                    await ws.send_str('{"type": "ping", "data": null}')
                except (ConnectionError, RuntimeError):  # closing under us: the reader says why
                    pass


def _reason(e: BaseException) -> str:
    text = str(e) or type(e).__name__
    return text.splitlines()[0][:200]
