"""Watched prefixes and the alerts their routes raise, in the spirit of BGPalerter's prefixes.yml.

The watch file (TOML):

    [[prefix]]
    prefix = "198.51.100.0/24"
    description = "VideoTube's service"
    origins = [64510]            # who may announce it; empty or absent: learn the first origin seen
    more_specifics = false       # may those origins announce more-specifics? (default false)

Alerts, for each announced route that touches a watched prefix (the most specific one covering it):
    prefix-hijack     the watched prefix itself from an origin not expected
    subprefix-hijack  a more-specific of it from an origin not expected
    more-specific     a more-specific from an expected origin, where more_specifics is false
    new-origin        a watched prefix learning its origins: an origin other than the first one seen
    leak              with relationships: the path is not valley-free (the leaker named), the origin right
An alert is raised once per (kind, prefix, origin, leaker); later routes update its last_seen and
count, kept as an `Open` record. The newest MAX_ALERTS are kept (a long-running monitor's memory
stays bounded: a few hundred bytes each); one older than that is raised again if it comes back. Each carries the route's RFC 6811 status and ASPA verdict, the path and the peer that saw it,
and first and last seen in the feed's time (a replayed or simulated feed keeps its own clock).
"""

from __future__ import annotations

import ipaddress
from collections import OrderedDict
from dataclasses import dataclass, field

from bgpsim.base.tomlfile import TomlFile
from bgpsim.validate.paths import flat_path
from bgpsim.validate.roles import PeerRoles, verify_route

MAX_WATCHED = 100_000
MAX_ALERTS = 100_000


@dataclass(slots=True)
class Open:
    """An alert raised: what later routes update (the alert itself went out when it was raised)."""
    kind: str
    first_seen: float
    last_seen: float
    count: int = 1


@dataclass
class Watched:
    prefix: ipaddress.IPv4Network | ipaddress.IPv6Network
    description: str = ""
    origins: set[int] = field(default_factory=set)
    more_specifics: bool = False
    learn: bool = False


def load_watch(path: str) -> list[Watched]:
    doc = TomlFile(path)
    entries = doc.data.get("prefix", [])
    doc.check_keys(doc.data, {"prefix"})
    if not isinstance(entries, list) or not entries:
        raise doc.error("want [[prefix]] tables, at least one", "prefix")
    if len(entries) > MAX_WATCHED:
        raise doc.error(f"want at most {MAX_WATCHED} watched prefixes", "prefix")
    out = []
    for i, e in enumerate(entries):
        doc.check_keys(e, {"prefix", "description", "origins", "more_specifics"}, "prefix", i)
        try:
            net = ipaddress.ip_network(e.get("prefix"))
        except (TypeError, ValueError):
            raise doc.error(f"want a prefix such as 192.0.2.0/24, got {e.get('prefix')!r}", "prefix", i, "prefix") from None
        origins = e.get("origins", [])
        if not isinstance(origins, list) or not all(isinstance(a, int) and 0 < a < 1 << 32 for a in origins):
            raise doc.error("want a list of AS numbers", "prefix", i, "origins")
        ms = e.get("more_specifics", False)
        if not isinstance(ms, bool):
            raise doc.error("want true or false", "prefix", i, "more_specifics")
        out.append(Watched(net, str(e.get("description", "")), set(origins), ms, learn=not origins))
    return out


class Watcher:
    """Checks announced routes against the watched prefixes; `check` gives the alerts first raised."""

    def __init__(self, watched: list[Watched], vrps=None, aspa=None, judge=None, roles=None):
        self.watched = sorted(watched, key=lambda w: (w.prefix.version, w.prefix.prefixlen))
        self.vrps = vrps
        self.aspa = aspa
        self.roles = roles if roles is not None else PeerRoles()
        self.judge = judge  # bgpsim.validate.paths.PathJudge with relationships, for leaks
        self.alerts: OrderedDict[tuple, Open] = OrderedDict()  # (kind, prefix, origin, leaker) -> record
        self._lens = sorted({w.prefix.prefixlen for w in watched}, reverse=True)
        self._by_net = {(w.prefix.version, w.prefix.network_address.packed, w.prefix.prefixlen): w for w in watched}

    def _covering(self, net) -> Watched | None:
        """The most specific watched prefix covering `net` (itself included)."""
        for plen in self._lens:
            if plen > net.prefixlen:
                continue
            sup = net if plen == net.prefixlen else net.supernet(new_prefix=plen)
            w = self._by_net.get((net.version, sup.network_address.packed, plen))
            if w is not None:
                return w
        return None

    def check(self, route, when: float) -> list[dict]:
        if not self._by_net:
            return []
        net = ipaddress.ip_network(route.prefix)
        w = self._covering(net)
        if w is None:
            return []
        path = flat_path(route.attrs.as_path) if route.attrs is not None else ()
        origin = route.attrs.origin_as if route.attrs is not None else -1
        exact = net.prefixlen == w.prefix.prefixlen
        found = []
        if w.learn and origin >= 0:
            if not w.origins:
                w.origins.add(origin)
            elif origin not in w.origins:
                found.append(("new-origin", None))
        elif origin not in w.origins:
            found.append(("prefix-hijack" if exact else "subprefix-hijack", None))
        elif not exact and not w.more_specifics:
            found.append(("more-specific", None))
        if self.judge is not None and not found and path:
            for kind, detail in self.judge.judge(path):
                if kind == "leak":
                    found.append(("leak", detail["leaker"]))
        new = []
        for kind, leaker in found:
            key = (kind, str(net), origin, leaker)
            held = self.alerts.get(key)
            if held is not None:
                held.last_seen = when
                held.count += 1
                continue
            self.alerts[key] = Open(kind, when, when)
            if len(self.alerts) > MAX_ALERTS:
                self.alerts.popitem(last=False)
            new.append(self._alert(kind, net, w, origin, leaker, path, route, when))
        return new

    def _alert(self, kind, net, w: Watched, origin: int, leaker, path, route, when: float) -> dict:
        rpki = self.vrps.validate(net, origin) if self.vrps is not None and origin >= 0 else None
        aspa = (verify_route(self.aspa, path, route.peer_as, self.roles.mode(route.peer_as))
                if self.aspa is not None else None)
        return {"kind": kind, "prefix": str(net), "watched": str(w.prefix), "description": w.description,
                "expected_origins": sorted(w.origins - ({origin} if kind == "new-origin" else set())),
                "observed_origin": origin if origin >= 0 else None, "leaker": leaker,
                "path": " ".join(str(a) for a in path), "peer": route.peer_ip, "peer_asn": route.peer_as,
                "rpki": rpki, "aspa": aspa, "first_seen": when, "last_seen": when, "count": 1}


