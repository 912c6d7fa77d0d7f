"""An RTR cache on TCP (RFC 8210 sections 6-10; draft-ietf-sidrops-8210bis): sessions with routers,
each on its own task.

- Version: the router's first PDU picks it (0, 1 or 2); a higher one gets "Unsupported Protocol
  Version" in our highest, and the router may try again lower (RFC 8210 section 7). A PDU of another
  version later in the session gets "Unexpected Protocol Version".
- Reset Query: the whole set; Serial Query: what changed since its serial, or a Cache Reset when the
  history is too short, or when a router's first query names another session (a router back after
  this cache restarted); before the first load, "No Data Available". Another session ID once the
  session is open is "Corrupt Data" (RFC 8210 section 5.1).
- A new serial sends every session that has had data a Serial Notify, at most one a minute
  (draft-ietf-sidrops-8210bis-27 section 8.2: a later change waits for the minute to pass); a session
  busy sending gets it once that is done, and a router that reads nothing holds up only itself.
- Every error the router causes gets the Error Report its RFC asks for, one log line, and the session
  closed; nothing of it touches another session. A router's Error Report closes its session.
- Safe by default: sessions are refused past `max_sessions` and from addresses outside `allow`, each
  with one log line; a connection that sends no query within FIRST_QUERY seconds is closed; writes go
  out CHUNK octets at a time, each waiting for the one before, so a router that does not read costs
  at most one chunk of memory.
"""

from __future__ import annotations

import asyncio
import ipaddress

from . import pdu
from .cache import Cache
from .metrics import Counters

FIRST_QUERY = 60.0  # seconds a new connection has to send its first query
NOTIFY_GAP = 60.0  # seconds between Serial Notifies
CHUNK = 64 * 1024  # octets written at a time
HIGHEST = max(pdu.VERSIONS)


class Server:
    def __init__(self, cache: Cache, log, warn, allow=None, max_sessions: int = 1000, notify_gap: float = NOTIFY_GAP):
        """`allow`: networks (ipaddress) whose clients are served, None for every one; `log(line)` for
        sessions coming and going, `warn(line)` for refusals and errors."""
        self.cache, self.log, self.warn, self.allow, self.max_sessions = cache, log, warn, allow, max_sessions
        self.sessions: set[Session] = set()
        self.counters = Counters()
        self.notify_gap = notify_gap
        self._last_notify = -notify_gap
        self._notify_later = None

    async def serve(self, host: str, port: int, ssl=None) -> asyncio.base_events.Server:
        return await asyncio.start_server(self.connected, host, port, ssl=ssl, limit=CHUNK)

    async def connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername") or ("?", 0)
        where = f"{peer[0]}:{peer[1]}" if ":" not in peer[0] else f"[{peer[0]}]:{peer[1]}"
        why = None
        if self.allow is not None and not any(ipaddress.ip_address(peer[0].split("%")[0]) in n for n in self.allow):
            why = "not in --allow"
        elif len(self.sessions) >= self.max_sessions:
            why = f"{self.max_sessions} sessions already (--max-sessions)"
        if why:
            self.counters.refused += 1
            self.warn(f"{where}: refused: {why}")
            writer.close()
            return
        s = Session(self, reader, writer, where)
        self.sessions.add(s)
        try:
            await s.run()
        except asyncio.CancelledError:  # the server stopped before the session ended
            pass
        finally:
            self.sessions.discard(s)
            writer.close()

    async def stop(self) -> None:
        """Going down: version 2 sessions are told "Cache Restart" (draft-ietf-sidrops-8210bis-27
        section 8.5: back within the Expire Interval, so routers keep their data), then every session
        is closed."""
        for s in list(self.sessions):
            if s.version == 2 and not s.sending.locked():
                s.writer.write(pdu.error_report(2, pdu.PduError(pdu.CACHE_RESTART, "the cache is restarting")))
            s.writer.close()
        for _ in range(40):  # each session's task ends once its connection is closed
            if not self.sessions:
                break
            await asyncio.sleep(0.05)

    def notify(self) -> None:
        """A new serial: a Serial Notify to every session that has had data, now or, within a minute
        of the last, when the minute is over (one for all the changes of that minute)."""
        loop = asyncio.get_running_loop()
        wait = self._last_notify + self.notify_gap - loop.time()
        if wait > 0:
            if self._notify_later is None:
                self._notify_later = loop.call_later(wait, self._notify_now)
            return
        self._notify_now()

    def _notify_now(self) -> None:
        self._notify_later = None
        self._last_notify = asyncio.get_running_loop().time()
        for s in list(self.sessions):
            s.notify()


class Session:
    def __init__(self, server: Server, reader, writer, where: str):
        self.server, self.reader, self.writer, self.where = server, reader, writer, where
        self.version: int | None = None
        self.served = False  # has had a full set or a delta: Serial Notifies are for it
        self.sending = asyncio.Lock()
        self.notify_due = False
        writer.transport.set_write_buffer_limits(high=CHUNK)

    async def run(self) -> None:
        buf = bytearray()
        first = True
        try:
            while True:
                try:
                    data = await (asyncio.wait_for(self.reader.read(CHUNK), FIRST_QUERY) if first
                                  else self.reader.read(CHUNK))
                except asyncio.TimeoutError:
                    self.server.warn(f"{self.where}: no query in {FIRST_QUERY:g} s, closed")
                    return
                if not data:
                    if buf:
                        self.server.warn(f"{self.where}: closed in the middle of a PDU")
                    else:
                        self.server.log(f"{self.where}: closed by the router")
                    return
                first = False
                buf += data
                while True:  # header() bounds a PDU to MAX_PDU octets, so buf never holds more than one and a read
                    got = pdu.decode(buf)
                    if got is None:
                        break
                    p, n = got
                    del buf[:n]
                    if not await self.handle(p):
                        return
        except pdu.PduError as e:
            if e.reportable:
                await self.fail(e)
            else:
                self.server.warn(f"{self.where}: a malformed Error Report from the router ({e.text}); closed")
        except (ConnectionError, OSError) as e:
            self.server.warn(f"{self.where}: {e.__class__.__name__}: {e}")

    async def handle(self, p) -> bool:
        """Answer one PDU from the router; False ends the session."""
        log = self.server.log
        if self.version is None:  # the first query sets it (pdu.decode refuses a version above ours)
            self.version = p.version
            log(f"{self.where}: connected, protocol version {p.version}")
        elif p.version != self.version:
            raise pdu.PduError(pdu.UNEXPECTED_VERSION, f"a PDU of version {p.version} in a version {self.version} "
                                                       "session", pdu.encode(p))
        cache = self.server.cache
        if isinstance(p, pdu.ErrorReport):
            self.server.warn(f"{self.where}: the router reports {p}; closed")
            return False
        if not isinstance(p, (pdu.ResetQuery, pdu.SerialQuery)):
            raise pdu.PduError(pdu.INVALID_REQUEST, f"a {pdu.name(p)} PDU, which a cache sends, from a router",
                               pdu.encode(p))
        counts = self.server.counters.answers
        if cache.state is None:  # not fatal (RFC 8210 section 12): the router asks again later
            counts["no_data"] += 1
            await self.send(pdu.error_report(self.version, pdu.PduError(pdu.NO_DATA, "no data loaded yet",
                                                                         pdu.encode(p))))
            return True
        if isinstance(p, pdu.ResetQuery):
            answer = cache.full(self.version)
        elif p.session != cache.session:
            if self.served:
                raise pdu.PduError(pdu.CORRUPT_DATA, f"session ID {p.session}, where this session's is {cache.session}",
                                   pdu.encode(p))
            answer = pdu.encode(pdu.CacheReset(self.version))
        else:
            answer = cache.since(self.version, p.serial) or pdu.encode(pdu.CacheReset(self.version))
        counts["full" if isinstance(p, pdu.ResetQuery) else "delta" if answer[1] == pdu.CACHE_RESPONSE
               else "cache_reset"] += 1
        await self.send(answer)
        self.served = self.served or answer[1] == pdu.CACHE_RESPONSE
        return True

    async def send(self, data: bytes) -> None:
        async with self.sending:
            view = memoryview(data)
            for at in range(0, len(view), CHUNK):
                self.writer.write(view[at:at + CHUNK])
                await self.writer.drain()
            while self.notify_due:
                self.notify_due = False
                c = self.server.cache
                self.writer.write(pdu.encode(pdu.SerialNotify(self.version, c.session, c.serial)))
                await self.writer.drain()

    def notify(self) -> None:
        if not self.served:
            return
        self.notify_due = True  # sent once the answer under way, if any, is out
        if not self.sending.locked():
            task = asyncio.get_running_loop().create_task(self.send(b""))
            task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

    async def fail(self, e: pdu.PduError) -> None:
        """The Error Report for a fault of the router's, one log line, and the end of the session."""
        self.server.warn(f"{self.where}: {e}; closed")
        errors = self.server.counters.errors
        errors[e.code] = errors.get(e.code, 0) + 1
        try:
            async with self.sending:
                self.writer.write(pdu.error_report(self.version if self.version is not None else
                                                   min(HIGHEST, e.pdu[0] if e.pdu else HIGHEST), e))
                await asyncio.wait_for(self.writer.drain(), 5.0)
        except (ConnectionError, OSError, asyncio.TimeoutError):
            pass  # the router is gone or reads nothing: the session ends all the same
