"""Load test of an RTR cache: `bgpsim rtr serve`, and stayrtr fed the same file in the same run.

The VRP set is synthetic, labelled so: every prefix of RouteViews' prefix-to-AS table of 2014-05-13
(../shared/data/pfx2as/ipasn_20140513.dat.gz) with its origin (each of a MOAS or AS-set origin), as
a VRP whose maxLength is its length, written as rpki-client JSON.

For each number of sessions: that many connections at once, each a Reset Query in --version; the clock
runs from the first connection to the last session's End of Data. Then 1 % of the VRPs withdrawn and
1 % added, the new file renamed into place: timed from the rename to the last session's End of Data
of the Serial Query its Serial Notify prompted (our cache only: stayrtr's refresh is by its own timer).
The server's CPU seconds and peak memory (VmHWM) are read from /proc. The client walks PDU headers in
compiled code (bgpsim._core.rtr_frames), receiving into one buffer per session, so it is not what is
measured.

Usage: python bench/bench_rtr.py [--sessions 10,100,1000] [--stayrtr-sessions 10,100] [--version 1]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import ipaddress
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
from helpers import free_port, wait_port  # noqa: E402

from bgpsim import _core  # noqa: E402
from bgpsim.rtr import pdu  # noqa: E402

PFX2AS = ROOT.parent / "shared" / "data" / "pfx2as" / "ipasn_20140513.dat.gz"
BUFFER = 256 << 10  # per session: room for a whole PDU (64 KiB) and more


def vrp_set() -> list[tuple[str, int, int]]:
    """(prefix, maxLength, ASN) of every prefix and origin of the table."""
    out = set()
    with gzip.open(PFX2AS, "rt") as f:
        for line in f:
            if not line.strip() or line.startswith(";"):
                continue
            prefix, origins = line.split()[:2]
            net = ipaddress.ip_network(prefix, strict=False)
            for asn in origins.replace(",", "_").split("_"):
                if asn.isdigit() and 0 < int(asn) < 2**32:
                    out.add((str(net), net.prefixlen, int(asn)))
    return sorted(out)


def write_json(path: Path, vrps) -> None:
    """The VRPs as rpki-client JSON (rpki.vrps.write_json), renamed into place whole."""
    from datetime import datetime, timezone

    from bgpsim.rpki.rov import VRP
    from bgpsim.rpki.vrps import Origin, Payloads, write_json as rpki_client_json

    origins = [Origin(VRP(ipaddress.ip_network(p), m, a), "synthetic", 1900000000) for p, m, a in vrps]
    tmp = path.with_suffix(".tmp")
    tmp.write_text(rpki_client_json(Payloads(origins), datetime(2026, 11, 28, tzinfo=timezone.utc)))
    tmp.rename(path)


class Session(asyncio.BufferedProtocol):
    """One router: a Reset Query, then the PDUs framed as they come; a Serial Notify answered."""

    def __init__(self, version: int, done: asyncio.Future):
        self.version, self.done = version, done
        self.buf = bytearray(BUFFER)
        self.filled = 0
        self.pdus = 0
        self.session = self.serial = None
        self.updated: asyncio.Future | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport
        transport.write(pdu.encode(pdu.ResetQuery(self.version)))

    def get_buffer(self, sizehint: int):
        return memoryview(self.buf)[self.filled:]

    def buffer_updated(self, n: int) -> None:
        self.filled += n
        end, count, eod, notify = _core.rtr_frames(memoryview(self.buf)[:self.filled], 0)
        self.pdus += count
        if eod >= 0:
            self.session = int.from_bytes(self.buf[eod + 2:eod + 4], "big")
            self.serial = int.from_bytes(self.buf[eod + 8:eod + 12], "big")
            if not self.done.done():
                self.done.set_result(time.perf_counter())
            elif self.updated is not None and not self.updated.done():
                self.updated.set_result(time.perf_counter())
        if notify >= 0 and self.session is not None:
            self.transport.write(pdu.encode(pdu.SerialQuery(self.version, self.session, self.serial)))
        if end:  # the unfinished PDU, at most 64 KiB, to the front
            self.buf[:self.filled - end] = self.buf[end:self.filled]
            self.filled -= end

    def connection_lost(self, exc) -> None:
        if not self.done.done():
            self.done.set_exception(ConnectionError(f"closed after {self.pdus} PDUs: {exc}"))


async def load(port: int, n: int, version: int) -> tuple[float, list[Session]]:
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    sessions = []
    for _ in range(n):
        done = loop.create_future()
        _, s = await loop.create_connection(lambda d=done: Session(version, d), "127.0.0.1", port)
        sessions.append(s)
    last = max(await asyncio.gather(*(s.done for s in sessions)))
    return last - started, sessions


def proc_stats(pid: int) -> tuple[float, float]:
    """(CPU seconds, peak resident MB) of a process."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{pid}/status") as f:
        hwm = next(int(line.split()[1]) for line in f if line.startswith("VmHWM"))
    return cpu, hwm / 1024


def run(name: str, argv: list[str], port: int, sessions: list[int], version: int, work: Path, vrps, update: bool):
    for n in sessions:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_port(port, proc, timeout=120)
            cpu0, _ = proc_stats(proc.pid)

            async def main():
                took, ss = await load(port, n, version)
                cpu, peak = proc_stats(proc.pid)
                pdus = ss[0].pdus
                print(f"{name}: {n:>5,} sessions, {pdus:,} PDUs each: last End of Data after {took:7.2f} s "
                      f"({took / n:.3f} s a session); server CPU {cpu - cpu0:.1f} s, peak {peak:,.0f} MB", flush=True)
                if not update:
                    return
                loop = asyncio.get_running_loop()
                for s in ss:
                    s.updated = loop.create_future()
                rng = random.Random(1)
                k = len(vrps) // 100
                kept = rng.sample(vrps, len(vrps) - k)
                fresh = [(f"100.{64 + i // 65536 % 64}.{i // 256 % 256}.{i % 256}/32", 32, 64512 + i % 1000)
                         for i in range(k)]
                t0 = time.perf_counter()
                write_json(work / "vrps.json", sorted(kept + fresh))
                renamed = time.perf_counter()
                last = max(await asyncio.gather(*(s.updated for s in ss)))
                print(f"{name}: {n:>5,} sessions: an update of 1 % ({k:,} withdrawn, {k:,} added): last End of "
                      f"Data {last - renamed:.2f} s after the rename (the file took {renamed - t0:.1f} s to write)",
                      flush=True)
                for s in ss:
                    s.transport.close()

            asyncio.run(main())
        finally:
            proc.terminate()
            proc.wait(30)
        if update:
            write_json(work / "vrps.json", vrps)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", default="10,100,1000")
    ap.add_argument("--stayrtr-sessions", default="10,100")
    ap.add_argument("--version", type=int, default=1, choices=(0, 1, 2))
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-rtr-"))
    vrps = vrp_set()
    write_json(work / "vrps.json", vrps)
    print(f"{len(vrps):,} VRPs (synthetic, from {PFX2AS.name}), {(work / 'vrps.json').stat().st_size / 1e6:.0f} MB of "
          f"rpki-client JSON; RTR version {args.version}; {os.cpu_count()} CPUs", flush=True)
    port = free_port()
    ours = [sys.executable, "-m", "bgpsim", "rtr", "serve", "--listen", f"127.0.0.1:{port}", "--vrps",
            str(work / "vrps.json"), "--max-sessions", "5000", "--quiet"]
    run("bgpsim", ours, port, [int(x) for x in args.sessions.split(",") if x], args.version, work, vrps, True)
    stayrtr = shutil.which("stayrtr")
    if stayrtr is None:
        print("stayrtr: not installed (Debian package stayrtr)")
    elif args.stayrtr_sessions:
        port = free_port()
        theirs = [stayrtr, "-bind", f"127.0.0.1:{port}", "-cache", str(work / "vrps.json"), "-checktime=false",
                  "-metrics.addr", "", "-refresh", "3600"]
        run("stayrtr", theirs, port, [int(x) for x in args.stayrtr_sessions.split(",") if x], args.version, work,
            vrps, False)
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
