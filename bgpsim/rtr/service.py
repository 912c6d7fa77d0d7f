"""`bgpsim rtr serve` from its options: the listening address, the VRP files (with SLURM), the End of
Data timers and the limits, all checked before the socket is opened; then the cache served until
SIGTERM or Ctrl-C.

The files are read before the socket is opened (a bad one is an error, exit status 2, as for any
command), then again whenever one of them changes (its size, time or inode: a new file renamed into
place is seen) or on SIGHUP. A reload that fails (a half-written or damaged file) keeps the last good
data and says so once. Each new serial is a Serial Notify to every router served.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import secrets
import signal
import time

from bgpsim.base.datafiles import check_input
from bgpsim.base.errors import InputError

from . import pdu
from .cache import Cache, State
from .server import Server
from .tls import server_context

POLL = 0.1  # seconds between looks at the files (a stat each: nothing to speak of)


def parse_listen(text: str, flag: str = "--listen") -> tuple[str, int]:
    """HOST:PORT or [IPv6]:PORT, the host an address (no name: where we listen must be exact)."""
    host, sep, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        ipaddress.ip_address(host)
        number = int(port)
        if not sep or not 0 < number < 65536:
            raise ValueError
    except ValueError:
        raise InputError(f"{flag}: want ADDRESS:PORT (127.0.0.1:8323, [::1]:8323), got {text!r}") from None
    return host, number


def parse_networks(text: str, flag: str = "--allow") -> list:
    nets = []
    for part in text.split(","):
        try:
            nets.append(ipaddress.ip_network(part.strip(), strict=False))
        except ValueError:
            raise InputError(f"{flag}: want networks such as 192.0.2.0/24,2001:db8::/32, got {part.strip()!r}") from None
    return nets


def timers(opts) -> tuple[int, int, int]:
    """End of Data's refresh, retry and expire intervals, each in the range RFC 8210 section 6 gives."""
    out = []
    for name, default in (("refresh", pdu.REFRESH), ("retry", pdu.RETRY), ("expire", pdu.EXPIRE)):
        value = getattr(opts, f"{name}_interval")
        value = default if value is None else value
        lo, hi = pdu.TIMER_RANGES[name]
        if value != int(value) or not lo <= value <= hi:
            raise InputError(f"--{name}-interval: want whole seconds from {lo} to {hi} (RFC 8210 section 6), got {value:g}")
        out.append(int(value))
    refresh, retry, expire = out
    if expire <= max(refresh, retry):
        raise InputError(f"--expire-interval: want more than the refresh and retry intervals, got {expire}")
    return refresh, retry, expire


class VrpFiles:
    """The VRP files (any format we read) with SLURM applied: their payloads, and whether they changed."""

    def __init__(self, vrps: list[str], slurms: list[str]):
        for path in [*vrps, *slurms]:
            check_input(path, "--vrps" if path in vrps else "--slurm")
        self.vrps, self.slurms = vrps, slurms
        self.seen = None

    def signature(self):
        out = []
        for path in [*self.vrps, *self.slurms]:
            try:
                st = os.stat(path)
                out.append((st.st_ino, st.st_size, st.st_mtime_ns))
            except OSError:
                out.append(None)
        return tuple(out)

    def changed(self) -> bool:
        return self.signature() != self.seen

    def load(self) -> State:
        """The payload set, read afresh. Without SLURM the VRPs stay columns (rpki.vrps
        read_payload_columns) from the file to the cache's arrays: half a million in a tenth of a second."""
        from bgpsim.rpki.vrps import Payloads, mapped_bytes, read_payload_columns, read_payloads, read_text

        self.seen = self.signature()
        if self.slurms:  # SLURM works on payloads (rpki.slurm): the slower way, for what is filtered
            from bgpsim.rpki.slurm import apply_slurm, load_slurm

            out = Payloads()
            for path in self.vrps:
                p = read_payloads(read_text(path, what="--vrps"), path)
                out.origins, out.router_keys, out.aspas = out.origins + p.origins, out.router_keys + p.router_keys, \
                    out.aspas + p.aspas
            return State.of(apply_slurm(out, [load_slurm(s) for s in self.slurms]))
        rest, columns = Payloads(), []
        for path in self.vrps:
            with mapped_bytes(path, what="--vrps") as data:
                cols, p = read_payload_columns(data, path)
            columns.append(cols)
            rest.router_keys += p.router_keys
            rest.aspas += p.aspas
        return State.of(rest, columns)


class Service:
    def __init__(self, opts, log, warn):
        """`log(line)`: what happens (nothing with --quiet); `warn(line)`: what goes wrong."""
        self.host, self.port = parse_listen(opts.listen)
        self.metrics = parse_listen(opts.metrics, "--metrics") if opts.metrics else None
        self.tls = server_context(opts.tls_cert, opts.tls_key)
        self.allow = parse_networks(opts.allow) if opts.allow else None
        self.files = VrpFiles(opts.vrps, opts.slurm or [])
        self.cache = Cache(secrets.randbits(16), timers(opts))
        self.server = Server(self.cache, log, warn, self.allow, opts.max_sessions or 1000)
        self.log, self.warn = log, warn
        self.failing = False

    def reload(self) -> None:
        try:
            payloads = self.files.load()
        except InputError as e:
            if self.cache.state is None:  # the first load: bad input, before any work
                raise
            self.server.counters.reloads["failed"] += 1
            if not self.failing:  # said once, until a load succeeds again
                kept = f"still serving serial {self.cache.serial}" if self.cache.state is not None else "no data yet"
                self.warn(f"{e} ({kept})")
            self.failing = True
            return
        self.failing = False
        self.server.counters.reloads["ok"] += 1
        delta = self.cache.load(payloads)  # None for the first load
        if delta is None or len(delta):
            self.server.counters.last_reload = time.time()
        if delta is not None and len(delta):
            self.log(f"serial {self.cache.serial}: {len(delta.announced):,} VRPs announced, {len(delta.withdrawn):,} "
                     f"withdrawn, {len(delta.keys_announced) + len(delta.keys_withdrawn):,} router keys and "
                     f"{len(delta.aspas):,} ASPAs changed; notifying {len(self.server.sessions):,} sessions")
            self.server.notify()

    async def run(self) -> None:
        self.reload()
        try:
            listener = await self.server.serve(self.host, self.port, self.tls)
        except OSError as e:
            raise InputError(f"--listen {self.host}:{self.port}: cannot listen: {e.strerror or e}") from None
        if self.metrics:
            from .metrics import serve_metrics

            try:
                web = await serve_metrics(self.server, self.server.counters, *self.metrics)
            except OSError as e:
                raise InputError(f"--metrics {self.metrics[0]}:{self.metrics[1]}: cannot listen: {e.strerror or e}") from None
        s = self.cache.state
        self.log(f"listening on {self.host}:{self.port} ({'TLS' if self.tls else 'TCP'}; RTR versions 0, 1 and 2"
                 + (f"; metrics on http://{self.metrics[0]}:{self.metrics[1]}/metrics" if self.metrics else "")
                 + f"): {len(s.vrps):,} VRPs, "
                 f"{len(s.keys):,} router keys, {len(s.aspas):,} ASPAs; session {self.cache.session}, serial "
                 f"{self.cache.serial}")
        loop = asyncio.get_running_loop()
        stop, hup = asyncio.Event(), asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        loop.add_signal_handler(signal.SIGHUP, hup.set)
        async with listener:
            while not stop.is_set():
                waits = [asyncio.ensure_future(e.wait()) for e in (stop, hup)]
                await asyncio.wait(waits, timeout=POLL, return_when=asyncio.FIRST_COMPLETED)
                for w in waits:
                    w.cancel()
                if stop.is_set():
                    break
                if hup.is_set() or self.files.changed():
                    hup.clear()
                    self.reload()
        closed = len(self.server.sessions)
        await self.server.stop()
        if self.metrics:
            web.close()
        self.log(f"stopped; {closed:,} sessions closed")
