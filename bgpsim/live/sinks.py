"""Where alerts go besides alerts.jsonl: MQTT (when the feed is not), syslog, a webhook.

- `Syslog`: RFC 5424 messages over UDP (one datagram each, RFC 5426) or TCP (octet-counted frames, RFC
  6587 section 3.4.1). Facility local0; severity critical for hijacks and leaks, notice for a prefix
  visible again, warning for the rest. MSGID is the alert's kind; the structured data element
  `alert@32473` (RFC 5612's documentation number) carries prefix, origin, peer and group; MSG is the
  line the terminal shows.
- `Webhook`: an HTTP POST of JSON to a URL, one per alert, Slack-compatible: `{"text": LINE, "alert":
  {...}}`. Posted in the background, in order; a failed POST is tried twice more (1 s, then 2 s later),
  then dropped, counted and warned about, and the monitor goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
from datetime import datetime, timezone
from urllib.parse import urlsplit

from bgpsim.base.errors import InputError
from bgpsim.base.hostport import host_port

LOCAL0 = 16
SEVERITY = {"prefix-hijack": 2, "subprefix-hijack": 2, "leak": 2, "visible-again": 5}  # else 4, warning
WARNING = 4
ENTERPRISE = 32473  # RFC 5612: the private enterprise number for documentation
MAX_QUEUED = 10_000  # alerts waiting to be sent by a sink; one more is dropped and counted


def alert_line(a: dict) -> str:
    """An alert in one line, as the terminal shows it."""
    origin = f" from AS{a['observed_origin']}" if a.get("observed_origin") is not None else ""
    detail = f" {a['detail']}" if a.get("detail") else ""
    path = f" path {a['path']}" if a.get("path") else ""
    return (f"ALERT {a['kind']}: {a['prefix']}{origin} (watched {a['watched']}, expected "
            f"{a['expected_origins']}){detail}{path}")


def _sd_value(v) -> str:
    return str(v).replace("\\", "\\\\").replace('"', '\\"').replace("]", "\\]")


class Syslog:
    """`target`: HOST:PORT (UDP), udp://HOST:PORT or tcp://HOST:PORT."""

    def __init__(self, target: str):
        scheme, sep, rest = target.partition("://")
        if not sep:
            scheme, rest = "udp", target
        if scheme not in ("udp", "tcp"):
            raise InputError(f"--syslog: want HOST:PORT, udp://HOST:PORT or tcp://HOST:PORT, got {target!r}")
        self.host, self.port = host_port(rest, "--syslog: want HOST:PORT, udp://HOST:PORT or tcp://HOST:PORT")
        self.tcp = scheme == "tcp"
        self.target = target
        self.hostname = socket.gethostname() or "-"
        self.sock: socket.socket | None = None
        self.sent = self.failed = 0

    def open(self) -> None:
        """Connected (TCP) or addressed (UDP) before any work: a target that is not there is an error now."""
        try:
            infos = socket.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM if self.tcp else socket.SOCK_DGRAM)
            family, kind, proto, _, addr = infos[0]
            self.sock = socket.socket(family, kind, proto)
            self.sock.settimeout(5)
            self.sock.connect(addr)  # UDP: fixes the peer, so an ICMP refusal comes back as an error
        except OSError as e:
            raise InputError(f"--syslog {self.target}: cannot reach it: {e.strerror or e}") from None

    def frame(self, alert: dict) -> bytes:
        pri = LOCAL0 * 8 + SEVERITY.get(alert["kind"], WARNING)
        now = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        sd = (f"[alert@{ENTERPRISE} prefix=\"{_sd_value(alert['prefix'])}\" origin=\"{_sd_value(alert.get('observed_origin'))}\" "
              f"peer=\"{_sd_value(alert.get('peer'))}\" group=\"{_sd_value(alert.get('group'))}\"]")
        msg = f"<{pri}>1 {now} {self.hostname} bgpsim {os.getpid()} {alert['kind'][:32]} {sd} {alert_line(alert)}"
        data = msg.encode("utf-8", "replace")
        return (b"%d " % len(data) + data) if self.tcp else data

    def send(self, alert: dict, warn) -> None:
        try:
            self.sock.send(self.frame(alert))
            self.sent += 1
        except OSError as e:
            self.failed += 1
            if self.failed <= 10 or self.failed % 1000 == 0:
                warn(f"--syslog {self.target}: an alert was not sent ({e.strerror or e}; {self.failed:,} so far)")

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()


class _Queued:
    """A sink that sends from the background, in order: `send` queues (at most MAX_QUEUED waiting; one
    more is dropped, counted and warned about), the task `start` makes sends, `finish` lets it end."""

    flag = ""  # the option, as warnings name it

    def __init__(self):
        self.queue: asyncio.Queue = asyncio.Queue()
        self.sent = self.dropped = 0
        self._task = None

    def send(self, alert: dict, warn) -> None:
        if self.queue.qsize() >= MAX_QUEUED:
            self.dropped += 1
            if self.dropped <= 10 or self.dropped % 1000 == 0:
                warn(f"{self.flag}: {MAX_QUEUED:,} alerts wait to be sent; one dropped ({self.dropped:,} so far)")
            return
        self.queue.put_nowait(self._body(alert))

    def _body(self, alert: dict) -> str:
        return json.dumps(alert)

    async def finish(self, timeout: float = 10.0) -> None:
        """Send what waits (at most `timeout` seconds more), then stop."""
        if self._task is None:
            return
        self.queue.put_nowait(None)
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        except asyncio.TimeoutError:
            self._task.cancel()
        await self._close()

    async def _close(self) -> None:
        pass  # nothing held beyond the task


class Mqtt(_Queued):
    """Alerts published at QoS 1 on PREFIX/alerts of a broker that is not the feed's (with --ris-live or
    --replay), in order, from the background; the first connection is made before any work, a lost
    one is made again (0.5 s doubling to 10 s) and what the broker had not confirmed sent again."""

    def __init__(self, addr, topics):
        super().__init__()
        self.addr, self.topics = addr, topics
        self.flag = f"--broker {addr}"

    async def start(self, warn) -> None:
        import aiomqtt

        from .broker import client, connect_error

        self._client = client(self.addr)
        try:
            await self._client.__aenter__()
        except (aiomqtt.MqttError, OSError) as e:
            raise connect_error(e, self.addr) from None
        self._task = asyncio.ensure_future(self._publish_all(warn))

    async def _publish_all(self, warn) -> None:
        import aiomqtt

        from .broker import BACKOFF, client

        delay = BACKOFF[0]
        body = None
        while True:
            if body is None:
                body = await self.queue.get()
                if body is None:
                    return
            try:
                await self._client.publish(self.topics.alerts, body, qos=1)
                self.sent += 1
                body, delay = None, BACKOFF[0]
            except aiomqtt.MqttError as e:
                warn(f"lost the broker {self.addr} ({e}); publishing alerts again in {delay:g} s")
                await asyncio.sleep(delay)
                delay = min(delay * 2, BACKOFF[1])
                self._client = client(self.addr)
                with contextlib.suppress(aiomqtt.MqttError, OSError):  # still away: tried again with the next alert
                    await self._client.__aenter__()

    async def _close(self) -> None:
        with contextlib.suppress(Exception):  # already gone: nothing to close
            await self._client.__aexit__(None, None, None)


class Webhook(_Queued):
    def __init__(self, url: str):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InputError(f"--webhook: want http://HOST[:PORT]/PATH or https://..., got {url!r}")
        super().__init__()
        self.url = url
        self.flag = f"--webhook {url}"
        self.failed = 0

    def check(self) -> None:
        """Before any work: a receiver that does not take a TCP connection is an error now."""
        parts = urlsplit(self.url)
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
            socket.create_connection((parts.hostname, port), timeout=5).close()
        except (OSError, ValueError) as e:
            raise InputError(f"--webhook {self.url}: cannot reach it: {getattr(e, 'strerror', None) or e}") from None

    def start(self, warn) -> None:
        """In the event loop: the task that posts what `send` queues."""
        self._task = asyncio.ensure_future(self._post_all(warn))

    def _body(self, alert: dict) -> str:
        return json.dumps({"text": alert_line(alert), "alert": alert})

    async def _post_all(self, warn) -> None:
        import aiohttp

        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
            while True:
                body = await self.queue.get()
                if body is None:
                    return
                why = ""
                for wait in (1.0, 2.0, None):
                    try:
                        async with session.post(self.url, data=body, headers={"Content-Type": "application/json"}) as r:
                            if r.status < 300:
                                self.sent += 1
                                break
                            why = f"HTTP {r.status}"
                    except (aiohttp.ClientError, OSError, asyncio.TimeoutError) as e:
                        why = str(e) or type(e).__name__
                    if wait is None:
                        self.failed += 1
                        if self.failed <= 10 or self.failed % 1000 == 0:
                            warn(f"--webhook {self.url}: an alert was not posted ({why}; {self.failed:,} so far)")
                    else:
                        await asyncio.sleep(wait)
