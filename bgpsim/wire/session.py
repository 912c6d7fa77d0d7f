"""A BGP session as a speaker holds it (RFC 4271 section 8), over asyncio streams.

OpenSent to Established: each side sends an OPEN (section 4.2) and checks the other's (section 6.2:
version 4, the peer AS configured, a Hold Time of 0 or at least 3 seconds, a BGP Identifier other than
0), then a KEEPALIVE confirms it. The Hold Time is the smaller of the two; KEEPALIVEs go every third of
it (section 10), and a peer silent for the whole Hold Time is sent a NOTIFICATION Hold Timer Expired
(section 6.5). A message whose header is wrong is answered as section 6.1 says (Connection Not
Synchronized, Bad Message Length, Bad Message Type) and ends the session; a NOTIFICATION from the
peer ends it too (section 6). Received UPDATEs go, whole, to `on_update`, which raises UpdateError
for one that RFC 7606 answers with a session reset (an UPDATE Message Error is sent, section 6.3); a
ROUTE-REFRESH (RFC 2918 section 3) goes to `on_refresh`. The encoders are in bgpsim.wire.encode, the
decoders beside them.
"""

from __future__ import annotations

import asyncio
import contextlib
from struct import pack

from . import WireError
from .encode import KEEPALIVE, MARKER, MAX_MESSAGE, message, notification, open_message
from .open import parse_open
from .update import HEADER, NOTIFICATION, OPEN, ROUTE_REFRESH, UPDATE
from .update import KEEPALIVE as KEEPALIVE_TYPE

# NOTIFICATION codes (RFC 4271 section 4.5) and the subcodes used here
HEADER_ERROR, OPEN_ERROR, UPDATE_ERROR, HOLD_EXPIRED, FSM_ERROR, CEASE = 1, 2, 3, 4, 5, 6
NOT_SYNCHRONIZED, BAD_LENGTH, BAD_TYPE = 1, 2, 3  # message header errors, section 6.1
BAD_VERSION, BAD_PEER_AS, BAD_IDENTIFIER, BAD_HOLD = 1, 2, 3, 6  # OPEN errors, section 6.2
MALFORMED_ATTRIBUTE_LIST, OPTIONAL_ATTRIBUTE_ERROR, INVALID_NETWORK_FIELD = 1, 9, 10  # UPDATE errors, section 6.3
ADMINISTRATIVE_SHUTDOWN = 2  # Cease, RFC 4486 section 4
NAMES = {HEADER_ERROR: "Message Header Error", OPEN_ERROR: "OPEN Message Error", UPDATE_ERROR: "UPDATE Message Error",
         HOLD_EXPIRED: "Hold Timer Expired", FSM_ERROR: "Finite State Machine Error", CEASE: "Cease"}


class SessionClosed(Exception):
    """The session ended: `code` and `subcode` of the NOTIFICATION sent or received (None when the
    connection was lost), `by_peer` when the peer sent it."""

    def __init__(self, text: str, code: int | None = None, subcode: int = 0, by_peer: bool = False):
        super().__init__(text)
        self.code, self.subcode, self.by_peer = code, subcode, by_peer


class UpdateError(Exception):
    """An UPDATE that ends the session (RFC 7606 section 2, session reset): `subcode` of the UPDATE
    Message Error to send (RFC 4271 section 6.3)."""

    def __init__(self, text: str, subcode: int = MALFORMED_ATTRIBUTE_LIST):
        super().__init__(text)
        self.subcode = subcode


class Session:
    """One session with `peer_as`, as `local_as` with BGP Identifier `router_id`. `connect` (we open
    the TCP connection) or `accept` (the peer did), then `run` until it ends; `send` an UPDATE once
    Established, `close` to end it with a Cease."""

    def __init__(self, local_as: int, router_id: str, peer_as: int, hold: int = 90, on_update=None,
                 on_refresh=None, bgpsec: bool = False, add_path: bool = False):
        self.local_as, self.router_id, self.peer_as, self.hold = local_as, router_id, peer_as, hold
        self.on_update = on_update  # called with each UPDATE received, header included
        self.on_refresh = on_refresh  # called with (AFI, SAFI) of each ROUTE-REFRESH received
        self.bgpsec = bgpsec  # offer the BGPsec capability (RFC 8205 section 2)
        self.add_path = add_path  # offer to receive ADD-PATH (RFC 7911 section 4)
        self.peer_open = None  # the peer's OPEN (bgpsim.wire.open.Open), once received
        self._reader = self._writer = self._spare = None
        self._rest: bytearray | None = None  # what the peer sent that asyncio dropped, once the connection is lost
        self._lost = ""

    @property
    def peer_id(self) -> str:
        """The peer's BGP Identifier, once its OPEN came ("" before)."""
        return self.peer_open.router_id if self.peer_open is not None else ""

    @property
    def paths_in(self) -> frozenset:
        """(AFI, SAFI) of the families whose UPDATEs from the peer carry path identifiers: we offered to
        receive ADD-PATH and its OPEN offers to send (RFC 7911 section 4)."""
        if not self.add_path or self.peer_open is None:
            return frozenset()
        return frozenset(f for f, bits in self.peer_open.add_path.items() if bits & 2 and f in ((1, 1), (2, 1)))

    @property
    def addresses(self) -> tuple[str, str]:
        """(the peer's address, ours) of the connection."""
        return self._writer.get_extra_info("peername")[0], self._writer.get_extra_info("sockname")[0]

    async def connect(self, host: str, port: int = 179, local: str | None = None, timeout: float = 10.0) -> None:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, local_addr=(local, 0) if local else None), timeout)
        await self.accept(reader, writer, timeout)

    async def accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, timeout: float = 10.0) -> None:
        self._reader, self._writer = reader, writer
        # A second handle on the socket: when a write of ours meets the peer's reset, asyncio drops what
        # the kernel still holds from the peer, often the NOTIFICATION that says why it reset (a
        # max-prefix Cease sent while we were still sending): _exactly reads it there.
        self._spare = writer.get_extra_info("socket").dup()
        self._spare.setblocking(False)
        try:
            await self._open(timeout)
        except BaseException:
            self._release()
            raise

    async def _open(self, timeout: float) -> None:
        """OpenSent, OpenConfirm, Established (RFC 4271 section 8.2.2)."""
        self._writer.write(open_message(self.local_as, self.router_id, self.hold, bgpsec=self.bgpsec,
                                        add_path=self.add_path))
        kind, body = await asyncio.wait_for(self._read(), timeout)
        if kind != OPEN:
            await self._fail(FSM_ERROR, 0, f"want an OPEN first, got a message of type {kind}")
        await self._check_open(body)
        self._writer.write(KEEPALIVE)
        kind, body = await asyncio.wait_for(self._read(), timeout)
        if kind != KEEPALIVE_TYPE:
            await self._fail(FSM_ERROR, 0, f"want a KEEPALIVE after the OPENs, got a message of type {kind}")

    async def _check_open(self, body: bytes) -> None:
        """RFC 4271 section 6.2."""
        if len(body) < 10 or body[0] != 4:
            await self._fail(OPEN_ERROR, BAD_VERSION, f"want BGP version 4, got {body[0] if body else None}",
                             pack(">H", 4))
        try:
            o = parse_open(body, 0, len(body))
        except WireError as e:
            await self._fail(OPEN_ERROR, 0, f"OPEN: {e}")
        if o.my_as != self.peer_as:
            await self._fail(OPEN_ERROR, BAD_PEER_AS, f"want peer AS {self.peer_as}, got AS{o.my_as}")
        if o.hold in (1, 2):
            await self._fail(OPEN_ERROR, BAD_HOLD, f"want a Hold Time of 0 or at least 3 s, got {o.hold}")
        if o.router_id == "0.0.0.0":
            await self._fail(OPEN_ERROR, BAD_IDENTIFIER, "want a BGP Identifier other than 0.0.0.0")
        self.hold, self.peer_open = min(self.hold, o.hold), o

    async def _read(self) -> tuple[int, bytes]:
        """The next message: (type, body), its header checked (RFC 4271 section 6.1)."""
        head = await self._exactly(HEADER)
        if head is None:
            raise SessionClosed(f"the connection was lost ({self._lost})")
        length, kind = int.from_bytes(head[16:18], "big"), head[18]
        if head[:16] != MARKER:
            await self._fail(HEADER_ERROR, NOT_SYNCHRONIZED, "want a marker of all ones")
        if not HEADER <= length <= MAX_MESSAGE:  # RFC 8654's Extended Messages are not offered
            await self._fail(HEADER_ERROR, BAD_LENGTH, f"want a length of {HEADER} to {MAX_MESSAGE}, got {length}",
                             head[16:18])
        if not OPEN <= kind <= ROUTE_REFRESH:
            await self._fail(HEADER_ERROR, BAD_TYPE, f"want a message type of 1 to 5, got {kind}", bytes([kind]))
        body = await self._exactly(length - HEADER)
        if body is None:
            raise SessionClosed("the connection was lost in the middle of a message")
        if kind == NOTIFICATION:
            code, sub = (body[0], body[1]) if len(body) >= 2 else (0, 0)
            self._writer.close()
            self._release()
            raise SessionClosed(f"the peer sent NOTIFICATION {code}/{sub} ({NAMES.get(code, 'unknown')})", code, sub,
                                by_peer=True)
        return kind, body

    async def _exactly(self, n: int) -> bytes | None:
        """The next `n` bytes from the peer; None when the connection ended before them. Once it is lost,
        what the kernel still held from the peer is read through the spare handle and served first."""
        if self._rest is None:
            try:
                return await self._reader.readexactly(n)
            except (asyncio.IncompleteReadError, ConnectionError) as e:
                self._lost = type(e).__name__
                self._rest = bytearray(getattr(e, "partial", b""))
                with contextlib.suppress(OSError, AttributeError):  # BlockingIOError: all of it read
                    while chunk := self._spare.recv(1 << 16):
                        self._rest += chunk
        if len(self._rest) < n:
            self._release()
            return None
        got = bytes(self._rest[:n])
        del self._rest[:n]
        return got

    def _release(self) -> None:
        """Let the spare handle go: the connection closes once asyncio lets go of its own."""
        if self._spare is not None:
            self._spare.close()
            self._spare = None

    async def _fail(self, code: int, subcode: int, text: str, data: bytes = b""):
        """Send a NOTIFICATION and end the session (RFC 4271 section 6)."""
        with contextlib.suppress(ConnectionError):  # a peer already gone hears nothing
            self._writer.write(notification(code, subcode, data))
            await self._writer.drain()
        self._writer.close()
        self._release()
        raise SessionClosed(f"sent NOTIFICATION {code}/{subcode} ({NAMES[code]}): {text}", code, subcode)

    async def send(self, msg: bytes) -> None:
        """A whole message (bgpsim.wire.encode), once Established; ConnectionError once the connection is
        closed or lost (`run` says how the session ended)."""
        if self._writer.is_closing():
            raise ConnectionResetError("the session's connection is closed")
        self._writer.write(msg)
        await self._writer.drain()

    async def run(self) -> None:
        """Read until the session ends (SessionClosed says how): UPDATEs to `on_update`, KEEPALIVEs
        sent every third of the Hold Time, the peer's silence for the Hold Time a NOTIFICATION."""
        keepalive = asyncio.ensure_future(self._keepalives()) if self.hold else None
        try:
            while True:
                try:
                    kind, body = await (asyncio.wait_for(self._read(), self.hold) if self.hold else self._read())
                except TimeoutError:
                    await self._fail(HOLD_EXPIRED, 0, f"nothing from the peer for {self.hold} s")
                if kind == UPDATE and self.on_update is not None:
                    try:
                        self.on_update(message(UPDATE, body))
                    except UpdateError as e:
                        await self._fail(UPDATE_ERROR, e.subcode, str(e))
                elif kind == ROUTE_REFRESH and self.on_refresh is not None and len(body) == 4:
                    self.on_refresh(int.from_bytes(body[:2], "big"), body[3])
                elif kind == OPEN:
                    await self._fail(FSM_ERROR, 0, "an OPEN once Established")
        finally:
            if keepalive is not None:
                keepalive.cancel()
            self._release()

    async def _keepalives(self) -> None:
        while True:
            await asyncio.sleep(self.hold / 3)
            self._writer.write(KEEPALIVE)

    async def close(self) -> None:
        """Cease, Administrative Shutdown (RFC 4486 section 4)."""
        with contextlib.suppress(SessionClosed):  # the end asked for
            await self._fail(CEASE, ADMINISTRATIVE_SHUTDOWN, "closed here")
