"""`rtr serve --metrics ADDRESS:PORT`: the cache's state for Prometheus, in its text exposition format
(version 0.0.4), as Routinator and stayrtr offer theirs: GET /metrics."""

from __future__ import annotations

import asyncio
import time

MAX_REQUEST = 8192  # octets of a request's head; a longer one is refused


class Counters:
    """What happened since the start, for the metrics."""

    def __init__(self):
        self.started = time.time()
        self.refused = 0  # connections refused (--allow, --max-sessions)
        self.reloads = {"ok": 0, "failed": 0}
        self.last_reload = 0.0
        self.answers = {"full": 0, "delta": 0, "cache_reset": 0, "no_data": 0}
        self.errors: dict[int, int] = {}


def exposition(server, counters: Counters) -> str:
    c, s = server.cache, server.cache.state
    v4, v6 = s.families() if s is not None else (0, 0)
    lines = []

    def metric(name: str, kind: str, text: str, samples) -> None:
        lines.extend([f"# HELP bgpsim_rtr_{name} {text}", f"# TYPE bgpsim_rtr_{name} {kind}"])
        lines.extend(f"bgpsim_rtr_{name}{labels} {value}" for labels, value in samples)

    metric("sessions", "gauge", "RTR sessions open now.", [("", len(server.sessions))])
    metric("sessions_refused_total", "counter", "Connections refused (--allow, --max-sessions).", [("", counters.refused)])
    metric("session_id", "gauge", "The cache's session ID.", [("", c.session)])
    metric("serial", "gauge", "The serial number served.", [("", c.serial if s is not None else -1)])
    metric("vrps", "gauge", "VRPs served.", [('{family="ipv4"}', v4), ('{family="ipv6"}', v6)])
    metric("router_keys", "gauge", "BGPsec router keys served.", [("", len(s.keys) if s else 0)])
    metric("aspas", "gauge", "ASPA records served (one per customer).", [("", len(s.aspas) if s else 0)])
    metric("reloads_total", "counter", "Loads of the sources, by result.",
           [(f'{{result="{k}"}}', v) for k, v in counters.reloads.items()])
    metric("last_reload_timestamp_seconds", "gauge", "When the data last changed (Unix time).", [("", counters.last_reload)])
    metric("answers_total", "counter", "Answers to queries, by kind.",
           [(f'{{kind="{k}"}}', v) for k, v in counters.answers.items()])
    metric("errors_total", "counter", "Error Reports sent, by code.",
           [(f'{{code="{k}"}}', v) for k, v in sorted(counters.errors.items())])
    metric("start_time_seconds", "gauge", "When the cache started (Unix time).", [("", counters.started)])
    return "\n".join(lines) + "\n"


async def serve_metrics(server, counters: Counters, host: str, port: int):
    """An HTTP server for GET /metrics (anything else: 404); one request a connection."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            method, path, *_ = head.split(b"\r\n", 1)[0].decode("latin-1").split()
            if method == "GET" and path.split("?")[0] == "/metrics":
                body, status = exposition(server, counters).encode(), "200 OK"
            else:
                body, status = b"not found: GET /metrics\n", "404 Not Found"
            writer.write(f"HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
                         f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
            await writer.drain()
        except (asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError,
                ConnectionError):
            pass  # no request we can read, or a client gone: nothing to answer
        finally:
            writer.close()

    return await asyncio.start_server(handle, host, port, limit=MAX_REQUEST)
