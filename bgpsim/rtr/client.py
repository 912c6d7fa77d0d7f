"""The router's side of RTR (RFC 8210 sections 6-8; draft-ietf-sidrops-8210bis): read any cache's
payloads, and with `follow` keep them current.

The client asks in the highest version it is told to; a cache that answers "Unsupported Protocol
Version" names its own in that Error Report, and the client asks again in it (RFC 8210 section 7).
Announcements and withdrawals are applied as a router applies them: an announcement of what the
table holds is "Duplicate Announcement Received", a withdrawal of what it does not hold
"Withdrawal of Unknown Record" (both reported to the cache, as the RFC asks); an ASPA announcement
replaces the customer's record.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress

from bgpsim.base.errors import InputError
from bgpsim.base.hostport import host_port

from . import pdu

READ = 256 * 1024


class CacheError(Exception):
    """The cache said no (an Error Report) or broke the protocol; `downgrade`: the version a cache
    that does not speak ours names in its "Unsupported Protocol Version"."""

    def __init__(self, text: str, downgrade: int | None = None):
        super().__init__(text)
        self.downgrade = downgrade


class Table:
    """What a router holds: VRPs (prefix, max length, AS), router keys (SKI, AS, SPKI), ASPAs."""

    def __init__(self):
        self.vrps: set = set()
        self.keys: set = set()
        self.aspas: dict[int, tuple[int, ...]] = {}

    def apply(self, p) -> None:
        if isinstance(p, pdu.Prefix):
            self._apply(self.vrps, (p.prefix, p.max_length, p.asn), p.announce, p)
        elif isinstance(p, pdu.RouterKey):
            self._apply(self.keys, (p.ski, p.asn, p.spki), p.announce, p)
        elif isinstance(p, pdu.Aspa):
            if p.announce:
                self.aspas[p.customer] = p.providers
            elif self.aspas.pop(p.customer, None) is None:
                raise pdu.PduError(pdu.UNKNOWN_WITHDRAWAL, f"a withdrawal of AS{p.customer}'s ASPA, which is not held",
                                   pdu.encode(p))

    @staticmethod
    def _apply(held: set, record, announce: bool, p) -> None:
        if announce:
            if record in held:
                raise pdu.PduError(pdu.DUPLICATE_ANNOUNCEMENT, f"{record[0]} announced twice", pdu.encode(p))
            held.add(record)
        elif record in held:
            held.discard(record)
        else:
            raise pdu.PduError(pdu.UNKNOWN_WITHDRAWAL, f"a withdrawal of {record[0]}, which is not held", pdu.encode(p))

    def copy(self) -> "Table":
        t = Table()
        t.vrps, t.keys, t.aspas = set(self.vrps), set(self.keys), dict(self.aspas)
        return t

    def diff(self, other: "Table") -> list[str]:
        """What `other` holds that this table does not ("+ ...") and the reverse ("- ..."), one line per
        record: VRPs, then router keys, then ASPAs (a customer whose providers differ: both records)."""
        lines = [f"+ {describe(r)}" for r in sorted(other.vrps - self.vrps, key=str)]
        lines += [f"- {describe(r)}" for r in sorted(self.vrps - other.vrps, key=str)]
        lines += [f"+ {describe(r)}" for r in sorted(other.keys - self.keys)]
        lines += [f"- {describe(r)}" for r in sorted(self.keys - other.keys)]
        for c in sorted(set(self.aspas) | set(other.aspas)):
            was, now = self.aspas.get(c), other.aspas.get(c)
            if was != now:  # a replaced record: the one, then the other
                lines += [f"{sign} ASPA AS{c}: {' '.join(f'AS{x}' for x in providers)}"
                          for sign, providers in (("-", was), ("+", now)) if providers is not None]
        return lines

    def payloads(self):
        """As the relying parties' payloads, for the VRP writers."""
        from bgpsim.rpki.rov import VRP
        from bgpsim.rpki.vrps.payloads import ASPA, Origin, Payloads, RouterKey

        return Payloads([Origin(VRP(prefix, maxlen, asn)) for prefix, maxlen, asn in self.vrps],
                        [RouterKey(asn, ski, spki) for ski, asn, spki in self.keys],
                        [ASPA(c, providers) for c, providers in self.aspas.items()]).sorted()


class Client:
    def __init__(self, host: str, port: int, version: int = 2, timeout: float = 30.0, ssl=None):
        """`ssl`: a client SSLContext for RTR over TLS (bgpsim.rtr.tls), None for TCP."""
        self.host, self.port, self.version, self.timeout, self.ssl = host, port, version, timeout, ssl
        self.table = Table()
        self.session: int | None = None
        self.serial: int | None = None
        self.timers: tuple[int, int, int] | None = None
        self.reader = self.writer = None
        self._buf = bytearray()

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}" if ":" not in self.host else f"[{self.host}]:{self.port}"

    async def _connect(self) -> None:
        try:
            self.reader, self.writer = await asyncio.wait_for(
                asyncio.open_connection(self.host, self.port, ssl=self.ssl, limit=READ), self.timeout)
        except (OSError, asyncio.TimeoutError) as e:
            raise InputError(f"cannot connect to the cache at {self.where}: {getattr(e, 'strerror', None) or e or 'timed out'}") from None
        self._buf.clear()

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):  # a connection the cache already dropped
                await self.writer.wait_closed()
            self.writer = None

    async def next_pdu(self, timeout: float | None):
        """The next PDU from the cache; None when it closed the connection."""
        while True:
            got = pdu.decode(self._buf)
            if got is not None:
                p, n = got
                del self._buf[:n]
                return p
            data = await asyncio.wait_for(self.reader.read(READ), timeout)
            if not data:
                return None
            self._buf += data

    async def _send(self, p) -> None:
        self.writer.write(pdu.encode(p))
        await self.writer.drain()

    async def reset(self) -> None:
        """Connect and take the whole set (a Reset Query), in the highest version both speak."""
        while True:
            await self._connect()
            await self._send(pdu.ResetQuery(self.version))
            try:
                self.table = Table()
                await self._response()
                return
            except CacheError as e:
                await self.close()
                if e.downgrade is None or e.downgrade >= self.version:
                    raise
                self.version = e.downgrade

    async def _response(self) -> bool:
        """Read a Cache Response through its End of Data, applying it; False for a Cache Reset."""
        p = await self._expect()
        if isinstance(p, pdu.CacheReset):
            return False
        if not isinstance(p, pdu.CacheResponse):
            raise CacheError(f"{self.where}: a {pdu.name(p)} PDU where a Cache Response was due")
        if self.session is not None and p.session != self.session:
            self.table = Table()  # RFC 8210 section 5.5: a new session, a new set
        self.session = p.session
        while True:
            p = await self._expect()
            if isinstance(p, pdu.EndOfData):
                self.serial = p.serial
                self.timers = (p.refresh, p.retry, p.expire) if p.version else None
                return True
            if not isinstance(p, (pdu.Prefix, pdu.RouterKey, pdu.Aspa)):
                raise CacheError(f"{self.where}: a {pdu.name(p)} PDU inside a Cache Response")
            try:
                self.table.apply(p)
            except pdu.PduError as e:
                await self._report(e)

    async def _report(self, e: pdu.PduError):
        """A fault of the cache's: reported to it, as a router must, and the end of the session."""
        if e.reportable:
            self.writer.write(pdu.error_report(self.version, e))
            await self.writer.drain()
        raise CacheError(f"{self.where}: {e}") from None

    async def _expect(self):
        try:
            p = await self.next_pdu(self.timeout)
        except asyncio.TimeoutError:
            raise CacheError(f"{self.where}: nothing from the cache in {self.timeout:g} s") from None
        except pdu.PduError as e:
            await self._report(e)
        if p is None:
            raise CacheError(f"{self.where}: the cache closed the connection")
        if isinstance(p, pdu.ErrorReport):
            raise CacheError(f"{self.where}: the cache reports {p}", p.version if p.code == pdu.UNSUPPORTED_VERSION else None)
        if p.version != self.version:
            raise CacheError(f"{self.where}: a version {p.version} PDU in a version {self.version} session")
        return p

    async def follow(self, changed, warn=None, retry: float = 5.0) -> None:
        """Stay on: at each Serial Notify (or the refresh interval), a Serial Query; `changed(before,
        table)` after each change (`before`: a copy of the table as it was). A Cache Reset starts again from a Reset Query; a cache that goes
        away (closed, "Cache Restart") is dialled again every `retry` seconds, `warn(text)` told."""
        while True:
            before = self.table.copy()
            try:
                await self._poll()
            except CacheError as e:
                if warn is not None:
                    warn(f"{e}; reconnecting every {retry:g} s")
                await self.close()
                while True:
                    await asyncio.sleep(retry)
                    try:
                        await self.reset()
                        break
                    except (CacheError, InputError):
                        continue
            changed(before, self.table)

    async def _poll(self) -> None:
        """Wait for a Serial Notify or the refresh interval, then take what changed."""
        refresh = self.timers[0] if self.timers else pdu.REFRESH
        try:
            p = await self.next_pdu(refresh)
        except asyncio.TimeoutError:
            p = None
        except pdu.PduError as e:
            raise CacheError(f"{self.where}: {e}") from None
        else:
            if p is None:
                raise CacheError(f"{self.where}: the cache closed the connection")
            if isinstance(p, pdu.ErrorReport):
                raise CacheError(f"{self.where}: the cache reports {p}")
            if not isinstance(p, pdu.SerialNotify):
                raise CacheError(f"{self.where}: a {pdu.name(p)} PDU between answers")
        await self._send(pdu.SerialQuery(self.version, self.session, self.serial))
        if not await self._response():
            await self.close()
            await self.reset()


def parse_cache(text: str) -> tuple[str, int]:
    """HOST:PORT (a name, an IPv4 address or a bracketed IPv6 one)."""
    return host_port(text, "want the cache as HOST:PORT (127.0.0.1:8323, [::1]:8323)")


def describe(record) -> str:
    if isinstance(record[0], (ipaddress.IPv4Network, ipaddress.IPv6Network)):
        prefix, maxlen, asn = record
        return f"{prefix} max {maxlen} AS{asn}"
    ski, asn, _ = record
    return f"router key AS{asn} {ski.hex().upper()}"
