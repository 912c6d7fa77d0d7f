"""The VRPs a monitor checks against, kept current, and what changes in them (BGPalerter's
monitorROAS): a VRP file read again when it changes (checked every POLL seconds) or on SIGHUP, or an
RTR cache followed (`--rtr`, bgpsim.rtr.client). After each change the checks take the new VRPs, and
the change is told as alerts, for the VRPs that touch the watch list (a prefix that overlaps a
watched one, or an AS it watches):

    roa-added, roa-removed   a VRP (prefix, maxLength, AS) that one load has and the other has not
    roa-edited               the same prefix and AS with another maxLength
    roa-expiring             a VRP whose validation chain expires within EXPIRING seconds (the
                             relying party's `expires`, rpki-client's JSON and CSV give it)
    ta-drop                  a trust anchor whose VRPs fell by more than TA_DROP of what it had

A load that fails (the relying party writing the file as it is read) is a warning, and the VRPs in
use stay as they were.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter

from bgpsim.base.errors import InputError

from .alerts.base import alert_record

POLL = 5.0  # seconds between looks at the VRP file
EXPIRING = 2 * 3600  # seconds: a VRP expiring this soon is an alert (BGPalerter's roaExpirationAlertHours, 2)
TA_DROP = 0.2  # a trust anchor losing more than this share of its VRPs is an alert (BGPalerter's tolerance, 20 %)


def snapshot(origins) -> dict:
    """{(prefix, maxLength, AS): (trust anchor, expires)} of relying-party Origins."""
    return {(o.vrp.prefix, o.vrp.max_length, o.vrp.asn): (o.ta, o.expires) for o in origins}


class Relevance:
    """Which VRPs touch the watch list."""

    def __init__(self, watch):
        self.nets = [w.prefix for w in watch.prefixes]
        self.asns = {a.asn for a in watch.ases} | {o for w in watch.prefixes for o in w.origins}

    def __call__(self, prefix, asn: int):
        """The watched prefix or AS the VRP touches, else None."""
        for n in self.nets:
            if n.version == prefix.version and n.overlaps(prefix):
                return str(n)
        return f"AS{asn}" if asn in self.asns else None


def changes(before: dict, after: dict, relevant, now: float) -> list[dict]:
    """The alerts for going from VRPs `before` to `after` (snapshots)."""
    out = []
    gone = {k: v for k, v in before.items() if k not in after}
    new = {k: v for k, v in after.items() if k not in before}
    added: dict = {}  # a prefix and AS back with another maxLength: edited
    for (p, m, a) in new:
        added.setdefault((p, a), []).append((p, m, a))
    edited = {}
    for (p, m, a) in list(gone):
        twins = added.get((p, a))
        if twins:
            twin = twins.pop(0)
            edited[(p, m, a)] = twin
            del gone[(p, m, a)], new[twin]
    for kind, items in (("roa-removed", gone), ("roa-added", new)):
        for (p, m, a), (ta, _) in sorted(items.items(), key=_order):
            w = relevant(p, a)
            if w is not None:
                out.append(_alert(kind, p, a, w, now, {"max_length": m, "ta": ta}))
    for (p, m, a), (p2, m2, a2) in sorted(edited.items(), key=_order):
        w = relevant(p, a)
        if w is not None:
            out.append(_alert("roa-edited", p, a, w, now, {"max_length": m2, "was": m, "ta": after[(p2, m2, a2)][0]}))
    had, has = Counter(ta for ta, _ in before.values()), Counter(ta for ta, _ in after.values())
    for ta in sorted(had):
        if has[ta] < (1 - TA_DROP) * had[ta]:
            out.append(_alert("ta-drop", None, None, ta, now, {"had": had[ta], "has": has[ta]}))
    return out


def expiring(vrps: dict, relevant, now: float) -> list[dict]:
    return [_alert("roa-expiring", p, a, w, now, {"max_length": m, "ta": ta, "expires": exp})
            for (p, m, a), (ta, exp) in sorted(vrps.items(), key=_order)
            if exp is not None and now <= exp < now + EXPIRING and (w := relevant(p, a)) is not None]


def _order(item):
    (p, m, a), _ = item
    return (p.version, int(p.network_address), p.prefixlen, m, a)


def _alert(kind: str, prefix, asn, watched: str, now: float, detail: dict) -> dict:
    return alert_record(kind=kind, prefix=str(prefix) if prefix is not None else None, watched=watched,
                        observed_origin=asn, first_seen=now, last_seen=now, detail=detail)


class VrpFile:
    """A VRP file (rpki-client or Routinator JSON or CSV), read again when it changes or on `hup`."""

    def __init__(self, path: str, slurm=None):
        self.path, self.slurm = path, slurm
        self.stamp = self._stamp()
        self.vrps = self._read()

    def __str__(self) -> str:
        return self.path

    def _stamp(self):
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def _read(self) -> dict:
        from bgpsim.rpki.slurm import apply_slurm, load_slurm
        from bgpsim.rpki.vrps import read_payloads, read_text

        payloads = read_payloads(read_text(self.path, what="--vrps"), self.path)
        if self.slurm:
            payloads = apply_slurm(payloads, [load_slurm(p) for p in self.slurm])
        return snapshot(payloads.origins)

    async def follow(self, changed, warn, hup: asyncio.Event) -> None:
        """`changed(before, after)` after each new load; a failed load is a warning."""
        while True:
            try:
                await asyncio.wait_for(hup.wait(), POLL)
            except asyncio.TimeoutError:
                pass
            asked = hup.is_set()
            hup.clear()
            stamp = self._stamp()
            if not asked and stamp == self.stamp:
                continue
            self.stamp = stamp
            try:
                after = await asyncio.to_thread(self._read)
            except InputError as e:
                warn(f"the VRPs were not read again ({e}); those in use stay")
                continue
            before, self.vrps = self.vrps, after
            changed(before, after)


class VrpCache:
    """An RTR cache (RFC 8210) the monitor follows (bgpsim.rtr.client)."""

    def __init__(self, where: str, timeout: float = 30.0):
        from bgpsim.rtr.client import Client, parse_cache

        host, port = parse_cache(where)
        self.client = Client(host, port, timeout=timeout)
        self.where = where
        self.vrps: dict = {}

    def __str__(self) -> str:
        return f"rtr://{self.client.where}"

    async def start(self) -> None:
        """The whole set, before any work (a cache that is not there is an error now)."""
        from bgpsim.rtr.client import CacheError

        try:
            await self.client.reset()
        except CacheError as e:
            raise InputError(f"--rtr {self.where}: {e}") from None
        self.vrps = self._snapshot(self.client.table)

    @staticmethod
    def _snapshot(table) -> dict:
        return {(p, m, a): ("rtr", None) for p, m, a in table.vrps}

    async def follow(self, changed, warn, hup: asyncio.Event) -> None:
        def moved(before_table, table):
            before, self.vrps = self.vrps, self._snapshot(table)
            if before != self.vrps:
                changed(before, self.vrps)

        await self.client.follow(moved, warn)


class Roas:
    """Keeps the monitor's VRPs current from `source` (a VrpFile or a VrpCache): `apply(table)` with each
    new VRPTable, `alert(dict)` with each change that touches the watch list (None: no alerts), and
    once a minute the VRPs coming to expire."""

    def __init__(self, source, watch, apply, alert):
        self.source, self.apply, self.alert = source, apply, alert
        self.relevant = Relevance(watch) if watch is not None else None
        self.told: set = set()  # (VRP, expires) already told as expiring
        self.kinds: Counter = Counter()

    async def run(self, warn, hup: asyncio.Event) -> None:
        self._expiring()
        ticker = asyncio.ensure_future(self._tick())
        try:
            await self.source.follow(self._changed, warn, hup)
        finally:
            ticker.cancel()

    def _changed(self, before: dict, after: dict) -> None:
        self.apply(table_of(after))
        if self.relevant is not None:
            for a in changes(before, after, self.relevant, time.time()):
                self._tell(a)
            self._expiring()

    def _expiring(self) -> None:
        if self.relevant is None:
            return
        for a in expiring(self.source.vrps, self.relevant, time.time()):
            key = (a["prefix"], a["detail"]["max_length"], a["observed_origin"], a["detail"]["expires"])
            if key not in self.told:
                self.told.add(key)
                self._tell(a)

    def _tell(self, a: dict) -> None:
        self.kinds[a["kind"]] += 1
        self.alert(a)

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(60)
            self._expiring()


def table_of(vrps: dict):
    """The VRPTable the checks use, from a snapshot."""
    from bgpsim.rpki.rov import VRP, VRPTable

    return VRPTable(VRP(p, m, a) for (p, m, a) in vrps)
