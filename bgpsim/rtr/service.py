"""`bgpsim rtr serve` from its options: the listening address, the source (VRP files with SLURM, or a
repository our relying party validates), the End of Data timers and the limits, all checked before
the socket is opened; then the cache served until SIGTERM or Ctrl-C.

VRP files are read before the socket is opened (a bad one is an error, exit status 2, as for any
command), then again whenever one of them changes (its size, time or inode: a new file renamed into
place is seen) or on SIGHUP. A repository is validated once the cache listens, then every
--revalidate seconds and on SIGHUP. A load that fails (a half-written or damaged file, a failed
validation) keeps the last good data and says so once. Each new serial is a Serial Notify to every
router served.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import signal
import sys
import tempfile
import time

from bgpsim.base.datafiles import check_input
from bgpsim.base.errors import InputError
from bgpsim.base.hostport import parse_listen, parse_networks

from . import pdu
from .cache import Cache, State
from .server import Server
from .tls import server_context

POLL = 0.1  # seconds between looks at the files (a stat each: nothing to speak of)
REVALIDATE = 600.0  # --revalidate: seconds between runs of the relying party, as rpki-client's usual hour or less


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

    def __init__(self, vrps: list[str], slurms: list[str], checked: bool = True):
        """`checked`: the files must be there now (the relying party's output comes later)."""
        for path in [*(vrps if checked else ()), *slurms]:
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
        from bgpsim.rpki.vrps import (
            Payloads,
            mapped_bytes,
            read_payload_columns,
            read_payloads,
            read_text,
        )

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


class Repository:
    """--tal and --repo: our relying party (`bgpsim rpki validate`) run in a process of its own every
    `every` seconds (and on SIGHUP), its JSON read as a --vrps file is. The cache listens before the
    first run ends; until then every query gets "No Data Available"."""

    def __init__(self, tal: str, repo: str, every: float, slurms: list[str]):
        check_input(tal, "--tal")
        if not os.path.isdir(repo):
            raise InputError(f"--repo {repo}: want the directory of an RPKI repository")
        self.tal, self.repo, self.every = tal, repo, every
        self.dir = tempfile.mkdtemp(prefix="bgpsim-rtr-")  # ours: the relying party's output, removed at the end
        self.files = VrpFiles([os.path.join(self.dir, "vrps.json")], slurms, checked=False)

    async def load(self) -> State:
        out = self.files.vrps[0]
        if os.path.exists(out):
            os.unlink(out)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bgpsim", "rpki", "validate", "--tal", self.tal, "--repo", self.repo, "--out", out,
            "--quiet", stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        _, err = await proc.communicate()
        if proc.returncode != 0:
            said = err.decode("utf-8", "replace").strip().splitlines()
            raise InputError(f"--tal {self.tal} --repo {self.repo}: the relying party failed: "
                             f"{said[-1] if said else f'exit status {proc.returncode}'}")
        return self.files.load()

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


class Service:
    def __init__(self, opts, log, warn):
        """`log(line)`: what happens (nothing with --quiet); `warn(line)`: what goes wrong."""
        self.host, self.port = parse_listen(opts.listen)
        self.metrics = parse_listen(opts.metrics, "--metrics") if opts.metrics else None
        self.tls = server_context(opts.tls_cert, opts.tls_key)
        self.allow = parse_networks(opts.allow) if opts.allow else None
        self.repo = self.files = None
        if opts.tal or opts.repo:
            if opts.vrps:
                raise InputError(f"{'--tal' if opts.tal else '--repo'}: give --vrps FILE or --tal and --repo, not both")
            if not (opts.tal and opts.repo):
                raise InputError("--tal and --repo go together: the trust anchor locator and the repository it roots")
            self.repo = Repository(opts.tal, opts.repo, opts.revalidate or REVALIDATE, opts.slurm or [])
        elif opts.revalidate is not None:
            raise InputError("--revalidate needs --tal and --repo (--vrps files are read again when they change)")
        elif not opts.vrps:
            raise InputError("give --vrps FILE (validated payloads) or --tal and --repo (validated here)")
        else:
            self.files = VrpFiles(opts.vrps, opts.slurm or [])
        self.cache = Cache(secrets.randbits(16), timers(opts))
        self.server = Server(self.cache, log, warn, self.allow, opts.max_sessions or 1000)
        self.log, self.warn = log, warn
        self.failing = False

    def take(self, state: State) -> None:
        """A load that succeeded: its change served, and every router told."""
        self.failing = False
        self.server.counters.reloads["ok"] += 1
        delta = self.cache.load(state)  # None for the first load
        if delta is None or len(delta):
            self.server.counters.last_reload = time.time()
        if delta is None and self.repo is not None:
            self.log(f"first validation: {len(state.vrps):,} VRPs, {len(state.keys):,} router keys, "
                     f"{len(state.aspas):,} ASPAs; serial {self.cache.serial}")
        if delta is not None and len(delta):
            self.log(f"serial {self.cache.serial}: {len(delta.announced):,} VRPs announced, {len(delta.withdrawn):,} "
                     f"withdrawn, {len(delta.keys_announced) + len(delta.keys_withdrawn):,} router keys and "
                     f"{len(delta.aspas):,} ASPAs changed; notifying {len(self.server.sessions):,} sessions")
            self.server.notify()

    def failed(self, e: InputError) -> None:
        """A load that failed: the last good data stays, said once until a load succeeds again."""
        self.server.counters.reloads["failed"] += 1
        if not self.failing:
            kept = f"still serving serial {self.cache.serial}" if self.cache.state is not None else "no data yet"
            self.warn(f"{e} ({kept})")
        self.failing = True

    async def run(self) -> None:
        if self.files is not None:
            self.take(self.files.load())  # before listening: a bad file is bad input
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
                 + (f"): {len(s.vrps):,} VRPs, {len(s.keys):,} router keys, {len(s.aspas):,} ASPAs; session "
                    f"{self.cache.session}, serial {self.cache.serial}" if s is not None else
                    f"): validating {self.repo.repo} from {self.repo.tal} (No Data Available until done)"))
        loop = asyncio.get_running_loop()
        stop, hup = asyncio.Event(), asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        loop.add_signal_handler(signal.SIGHUP, hup.set)
        validating, due = None, loop.time()
        try:
            async with listener:
                while not stop.is_set():
                    if self.repo is not None and validating is None and (loop.time() >= due or hup.is_set()):
                        hup.clear()
                        validating = asyncio.ensure_future(self.repo.load())
                    waits = [asyncio.ensure_future(e.wait()) for e in (stop, hup)] + ([validating] if validating else [])
                    await asyncio.wait(waits, timeout=POLL, return_when=asyncio.FIRST_COMPLETED)
                    for w in waits[:2]:
                        w.cancel()
                    if stop.is_set():
                        break
                    if validating is not None and validating.done():
                        try:
                            self.take(validating.result())
                        except InputError as e:
                            self.failed(e)
                        validating, due = None, loop.time() + self.repo.every
                    elif self.files is not None and (hup.is_set() or self.files.changed()):
                        hup.clear()
                        try:
                            self.take(self.files.load())
                        except InputError as e:
                            self.failed(e)
        finally:
            if validating is not None:
                validating.cancel()
            if self.repo is not None:
                self.repo.close()
        closed = len(self.server.sessions)
        await self.server.stop()
        if self.metrics:
            web.close()
        self.log(f"stopped; {closed:,} sessions closed")
