"""`bgpsim bgp speak`: one BGP session with a router, what we announce read from a file, what the router
sends recorded as MRT and read as RFC 7606 says.

The session (bgpsim.wire.session) is opened to --neighbor, or (--listen) taken from it; once Established, the routes of --announce
(their last state per prefix) are sent at once, or those of --replay in their order, at their recorded
pace (--pace) or --flat-out. Every UPDATE the peer sends is read by the MRT reader's core: an attribute
fault that RFC 7606 answers by discarding the attribute or withdrawing the routes is one warning
line; one that it answers by a session reset (an MP_REACH_NLRI that cannot be read, a prefix that
runs past its field) ends the session with an UPDATE Message Error (RFC 4271 section 6.3). The
UPDATEs are recorded whole in BGP4MP_ET records (bgpsim.mrt.write), with the session's state changes,
in a temporary file renamed to --out when the session ends, whatever ends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import itertools
import signal
import time
from pathlib import Path

from bgpsim.base import outdir
from bgpsim.base.errors import InputError
from bgpsim.base.hostport import host_port, parse_listen
from bgpsim.mrt.reader import MRTReader
from bgpsim.mrt.record import ANNOUNCE, STATE, WITHDRAW
from bgpsim.mrt.write import ESTABLISHED, IDLE, message_record, now, state_record
from bgpsim.routedata import reader_for
from bgpsim.wire.session import (
    CEASE,
    INVALID_NETWORK_FIELD,
    MALFORMED_ATTRIBUTE_LIST,
    OPTIONAL_ATTRIBUTE_ERROR,
    Session,
    SessionClosed,
    UpdateError,
)

from .outbound import AdjRibOut

CONNECT_TIMEOUT = 10.0


def neighbor_address(text: str) -> tuple[str, int]:
    """ADDRESS or ADDRESS:PORT ([ADDRESS]:PORT for IPv6); the port defaults to BGP's 179 (and is not
    used with --listen)."""
    with contextlib.suppress(ValueError):
        return str(ipaddress.ip_address(text)), 179
    return host_port(text, "--neighbor: want ADDRESS or ADDRESS:PORT ([2001:db8::1]:1179 for IPv6)")


def reset_subcode(damage: str) -> int:
    """The UPDATE Message Error subcode for what failed an UPDATE (RFC 4271 section 6.3, RFC 7606 section 3 g)."""
    what = damage.split(": ", 1)[-1]
    if "section 3 g" in what:
        return MALFORMED_ATTRIBUTE_LIST
    if what.startswith(("MP_REACH_NLRI", "MP_UNREACH_NLRI")):
        return OPTIONAL_ATTRIBUTE_ERROR
    if what.startswith(("NLRI", "ADD-PATH NLRI")):
        return INVALID_NETWORK_FIELD
    return MALFORMED_ATTRIBUTE_LIST


class UpdateReader:
    """The UPDATEs of one peer, read by the MRT reader's core as RFC 7606 says: `read` gives the routes,
    each discarded attribute or withdrawn UPDATE one `warn` line, and raises UpdateError for one that
    resets the session."""

    def __init__(self, peer_ip: str, peer_as: int, local_as: int, warn):
        self.peer_ip, self.peer_as, self.local_as, self.warn = peer_ip, peer_as, local_as, warn
        self.count = 0
        self._mrt = MRTReader("<session>", warn)

    def read(self, msg: bytes, when: int, as4: bool = True, path_ids: frozenset = frozenset()) -> list:
        """The routes of UPDATE `msg`, received at `when` (Unix seconds); `path_ids`: the families (AFI,
        SAFI) whose prefixes carry ADD-PATH's path identifiers."""
        self.count += 1
        routes, damage, notes = self._mrt.update_routes(msg, "BGP4MP_ET", when, 0, self.peer_ip, self.peer_as,
                                                        4 if as4 else 2, path_ids, local_as=self.local_as)
        for note in notes:
            self.warn(f"UPDATE {self.count} from {self.peer_ip}: {note}")
        if damage is not None:
            raise UpdateError(f"UPDATE {self.count}: {damage}", reset_subcode(damage))
        return routes


class Speaker:
    """One `bgp speak` run: `opts` as the command parsed them; `say` and `warn` take one line each."""

    def __init__(self, opts, say, warn):
        self.opts, self.say, self.warn = opts, say, warn
        self.host, self.port = neighbor_address(opts.neighbor)
        self.source = opts.announce or opts.replay
        self.sent_updates = 0
        self.heard = {ANNOUNCE: 0, WITHDRAW: 0}  # routes in the peer's UPDATEs
        self._last_heard = time.monotonic()
        self._record = self._tmp = None
        self._updates: UpdateReader | None = None
        self._routes = ()
        self._keys: dict = {}
        self._rib: AdjRibOut | None = None
        self._session: Session | None = None

    def check(self) -> None:
        """Options, inputs and the output place, before any connection (each fault one line): the routes
        of --announce are read whole, the first of --replay's."""
        o = self.opts
        if o.hold in (1, 2):
            raise InputError(f"--hold: want 0 or at least 3 seconds (RFC 4271 section 4.2), got {o.hold}")
        if o.router_id is not None and ipaddress.ip_address(o.router_id).version != 4:
            raise InputError(f"--router-id: want an IPv4 address (a BGP Identifier, RFC 4271 section 4.2), got {o.router_id}")
        if o.out is not None:
            outdir.check_file(o.out, "mrt")
        if o.signing_keys:
            from bgpsim.rpki.bgpsec.keys import signing_keys

            self._keys = signing_keys(o.signing_keys, self.warn)
            if o.local_as not in self._keys:
                raise InputError(f"--signing-keys: no private router key for our AS{o.local_as} (found keys for "
                                 f"{', '.join(f'AS{a}' for a in sorted(self._keys)) or 'no AS'})")
        if self.source is not None:
            flag, src = "--announce" if o.announce else "--replay", Path(self.source)
            if not src.exists():
                raise InputError(f"{flag} {src}: no such file")
            if src.is_dir():
                raise InputError(f"{flag} {src}: is a directory; want a file")
            routes = iter(reader_for(str(src))(str(src), self.warn))
            if o.announce:
                self._routes = [r for r in routes if r.kind != STATE]
            else:
                first = next(routes, None)
                self._routes = itertools.chain(() if first is None else (first,), routes)

    async def run(self) -> int:
        """The session from start to end: 0 when we ended it (--until-idle, SIGTERM, Ctrl-C) or the peer
        did with a Cease, 1 when it ended otherwise (another NOTIFICATION, the connection lost)."""
        self.check()
        o = self.opts
        s = self._session = Session(o.local_as, o.router_id or _router_id(o.local), o.peer_as, hold=o.hold,
                                    on_update=self._heard, on_refresh=self._refresh,
                                    bgpsec=bool(o.bgpsec or self._keys), add_path=o.add_path)
        try:
            if o.listen:
                await self._accept(s)
            else:
                await s.connect(self.host, self.port, local=o.local, timeout=CONNECT_TIMEOUT)
        except SessionClosed as e:
            raise InputError(f"--neighbor {o.neighbor}: {e}") from None
        except (OSError, TimeoutError) as e:
            if o.listen:
                raise InputError(f"--listen {o.listen}: cannot listen: {getattr(e, 'strerror', None) or e}") from None
            raise InputError(f"--neighbor {o.neighbor}: cannot connect: {getattr(e, 'strerror', None) or e or 'timed out'}") from None
        peer_ip, local_ip = s.addresses
        self._addrs = (peer_ip, local_ip)
        self._updates = UpdateReader(peer_ip, o.peer_as, o.local_as, self.warn)
        self._open_record()
        self._write(state_record(now(), o.peer_as, o.local_as, peer_ip, local_ip, IDLE, ESTABLISHED))
        self.say(f"session with AS{o.peer_as} at {peer_ip} established (its BGP Identifier {s.peer_id}, hold "
                 f"time {s.hold} s" + "".join(f"; ADD-PATH for {'IPv4' if afi == 1 else 'IPv6'}"
                                               for afi, _ in sorted(s.paths_in)) + ")")
        if o.add_path and not s.paths_in:
            self.warn("the peer does not send ADD-PATH (its OPEN offers to send it for no family we receive it "
                      "for): one path per prefix")
        nh4, nh6 = _next_hops(o.next_hop, local_ip)
        # RFC 4760 section 8: a family only where both OPENs name it (none named: IPv4 alone, RFC 4271)
        families = s.peer_open.families or {(1, 1)}
        # RFC 8205 section 2.2: BGPsec UPDATEs to a peer that can receive them, for both families
        keys = self._keys if self._keys and {(0, 1), (0, 2)} <= s.peer_open.bgpsec and s.peer_open.as4 else None
        if self._keys and keys is None:
            self.warn("the peer does not take BGPsec UPDATEs (its OPEN has no BGPsec receive capability for IPv4 and "
                      "IPv6): routes go unsigned")
        self._rib = AdjRibOut(o.local_as, o.local_as != o.peer_as, nh4 if (1, 1) in families else None,
                              nh6 if (2, 1) in families else None, keys, o.peer_as)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        reading = asyncio.ensure_future(s.run())
        code = 0
        try:
            sending = asyncio.ensure_future(self._send_all())
            ended = asyncio.ensure_future(self._until_done(sending, stop))
            done, _ = await asyncio.wait({reading, ended}, return_when=asyncio.FIRST_COMPLETED)
            if reading in done:
                sending.cancel()
                ended.cancel()
                exc = reading.exception()
                if isinstance(exc, SessionClosed) and exc.by_peer and exc.code == CEASE:
                    self.say(f"session ended by the peer: {exc}")
                else:
                    self.warn(f"session ended: {exc}")
                    code = 1
            else:
                ended.result()
                await s.close()
                self.say("session closed here (Cease, Administrative Shutdown)")
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)
            reading.cancel()
            self._write(state_record(now(), o.peer_as, o.local_as, peer_ip, local_ip, ESTABLISHED, IDLE))
            self._close_record()
        if self._rib.no_next_hop:
            self.warn(f"{self._rib.no_next_hop:,} routes not sent: their family was not negotiated, or has no next "
                      "hop here (--next-hop)")
        signed = f" ({self._rib.signed:,} BGPsec)" if self._rib.signed else ""
        self.say(f"sent {self._rib.sent:,} routes in {self.sent_updates:,} UPDATEs{signed}; heard {self._updates.count:,} "
                 f"UPDATEs ({self.heard[ANNOUNCE]:,} routes announced, {self.heard[WITHDRAW]:,} withdrawn)"
                 + (f"; recorded in {o.out}" if o.out else ""))
        return code

    async def _accept(self, session: Session) -> None:
        """--listen: the first connection from --neighbor's address becomes the session; any other is
        closed at once, with a line."""
        host, port = parse_listen(self.opts.listen)
        came: asyncio.Future = asyncio.get_running_loop().create_future()

        def connected(reader, writer):
            addr = writer.get_extra_info("peername")[0]
            if came.done() or ipaddress.ip_address(addr) != ipaddress.ip_address(self.host):
                self.say(f"refused a connection from {addr}: not --neighbor {self.host}")
                writer.close()
                return
            came.set_result((reader, writer))

        server = await asyncio.start_server(connected, host, port)
        self.say(f"listening on {self.opts.listen} for {self.host}")
        try:
            reader, writer = await came
        finally:
            server.close()
        await session.accept(reader, writer, timeout=CONNECT_TIMEOUT)

    async def _until_done(self, sending, stop: asyncio.Event) -> None:
        """Until stopped, or (with --until-idle) everything is sent and nothing has come for that long."""
        while not stop.is_set():
            idle = self.opts.until_idle
            if idle is not None and sending.done() and time.monotonic() - self._last_heard >= idle:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.05 if idle is None else min(0.05, idle))
        if sending.done():
            sending.result()  # its fault, if any
        else:
            sending.cancel()

    async def _send_all(self) -> None:
        """--announce: every prefix's last state at once; --replay: the routes in order, each record's
        at its time (scaled by --pace) or as fast as the peer takes them."""
        if self.source is None:
            return
        routes = self._routes
        if self.opts.announce:
            await self._send(self._rib.updates(routes))
            self._last_heard = time.monotonic()
            return
        start = first = None
        batch, stamp = [], None
        for r in routes:
            if r.kind == STATE:
                continue
            t = r.timestamp
            if stamp is not None and t != stamp:
                await self._send(self._rib.updates(batch))
                batch = []
            if not self.opts.flat_out:
                if first is None:
                    start, first = time.monotonic(), t
                wait = start + (t - first) / self.opts.pace - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
            batch.append(r)
            stamp = t
        await self._send(self._rib.updates(batch))
        self._last_heard = time.monotonic()

    async def _send(self, msgs: list[bytes]) -> None:
        for m in msgs:
            await self._session.send(m)
            self.sent_updates += 1

    def _refresh(self, afi: int, safi: int) -> None:
        if self._rib is not None and safi == 1 and afi in (1, 2):
            self.say(f"ROUTE-REFRESH for AFI {afi}: sending our {'IPv4' if afi == 1 else 'IPv6'} routes again")
            asyncio.ensure_future(self._send(self._rib.refresh(afi)))

    def _heard(self, msg: bytes) -> None:
        """One UPDATE from the peer: read (RFC 7606), and recorded whatever the reading found."""
        o = self.opts
        when = now()
        self._last_heard = time.monotonic()
        s = self._session
        as4 = s.peer_open is None or s.peer_open.as4
        routes = None
        try:
            routes = self._updates.read(msg, when[0], as4, s.paths_in)
        finally:
            self._write(message_record(when, o.peer_as, o.local_as, *self._addrs, msg, as4, self._path_ids(routes)))
        for r in routes:
            if r.kind in self.heard:
                self.heard[r.kind] += 1

    def _path_ids(self, routes) -> bool:
        """Whether the recording marks an UPDATE's prefixes as carrying path identifiers (RFC 8050 marks a
        whole message): where ADD-PATH is in use for their family (unread or empty: for any)."""
        paths = self._session.paths_in
        families = {(r.afi, 1) for r in routes or ()}
        if not paths or not families:
            return bool(paths)
        if families & paths and not families <= paths:
            self.warn(f"UPDATE {self._updates.count}: prefixes with path identifiers and without in one message; "
                      "recorded as without (RFC 8050 marks a whole message)")
        return families <= paths

    def _open_record(self) -> None:
        if self.opts.out is not None:
            self._record, self._tmp = outdir.temp_beside(Path(self.opts.out), buffering=0)

    def _write(self, record: bytes) -> None:
        if self._record is not None:
            self._record.write(record)  # one whole record per write

    def _close_record(self) -> None:
        if self._record is None:
            return
        self._record.close()
        self._record = None
        outdir.check_file(self.opts.out, "mrt")  # still ours to replace
        outdir.put_in_place(self._tmp, Path(self.opts.out))


def _router_id(local: str | None) -> str:
    """Our BGP Identifier: the local IPv4 address, else 127.0.0.1 (only its uniqueness matters)."""
    with contextlib.suppress(ValueError):
        if local and ipaddress.ip_address(local).version == 4:
            return local
    return "127.0.0.1"


def _next_hops(given: list[str] | None, local_ip: str) -> tuple[str | None, str | None]:
    """(IPv4, IPv6) next hops: --next-hop's, else the session's local address for its family."""
    v4 = v6 = None
    for a in given or ():
        ip = ipaddress.ip_address(a)
        if ip.version == 4:
            v4 = str(ip)
        else:
            v6 = str(ip)
    local = ipaddress.ip_address(local_ip)
    if local.version == 4 and v4 is None:
        v4 = str(local)
    if local.version == 6 and v6 is None:
        v6 = str(local)
    return v4, v6
