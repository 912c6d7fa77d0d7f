"""Alerts: the monitors a watch list sets running, each a small class (BGPalerter's monitors are the
shape: what it looks at, what it finds, how repeats are squashed), and the Watcher that runs them.

- `hijack`      prefix and sub-prefix hijacks; more-specifics; new origins of prefixes learnt
- `paths`       path rules, path neighbours (new upstreams and downstreams), leaks by relationships
- `origin_as`   a watched AS announcing a prefix the list does not hold
- `rpki_status` a watched prefix's own announcement RPKI-invalid (or not found)
- `visibility`  a watched prefix lost by the collector peers, and visible again
- `squash`      one alert per key, raised once enough peers saw it, repeats gathered over a window

Every alert is a JSON object: kind, prefix, watched, description, expected_origins, observed_origin,
leaker, path, peer, peer_asn, rpki, aspa, first_seen, last_seen (the feed's time), count, group,
peers (those that had seen it when it was raised), detail (what the kind adds)."""

from __future__ import annotations

import ipaddress
from collections import OrderedDict

from bgpsim.validate.paths import flat_path, path_text
from bgpsim.validate.roles import PeerRoles, verify_route

from ..watchlist import WatchList
from .base import Finding, Seen, alert_record
from .hijack import Hijack, NewPrefix
from .origin_as import OwnAS
from .paths import Leak, Neighbours, PathRules
from .rpki_status import RPKIStatus
from .squash import Squasher
from .visibility import Visibility


class Rov:
    """The VRPs as the monitors ask them: a route's RFC 6811 state, remembered (the same route comes
    from peer after peer, and one lookup in the table costs tens of microseconds); the MEMO routes
    asked for last."""

    MEMO = 1 << 14

    def __init__(self, vrps):
        self.vrps = vrps
        self._states: OrderedDict = OrderedDict()

    def validate(self, net, origin: int) -> str:
        key = (net, origin)
        state = self._states.get(key)
        if state is None:
            if len(self._states) >= self.MEMO:
                self._states.popitem(last=False)
            state = self._states[key] = self.vrps.validate(net, origin)
        else:
            self._states.move_to_end(key)
        return state

    def covering(self, net):
        return self.vrps.covering(net)


class Watcher:
    """Runs the monitors on each route; `check`, `withdraw` and `peer_down` give the alerts raised."""

    def __init__(self, watch: WatchList, vrps=None, aspa=None, judge=None, roles=None):
        self.watch = watch
        self.watched = [w for w in watch.prefixes]
        vrps = Rov(vrps) if vrps is not None else None
        self.vrps, self.aspa = vrps, aspa
        self.roles = roles if roles is not None else PeerRoles()
        s = watch.settings
        self.checks = [Hijack(vrps, s.alert_valid_origins), NewPrefix(), PathRules(), Neighbours(watch.ases),
                       OwnAS(watch.ases)]
        if vrps is not None:
            self.checks.append(RPKIStatus(vrps, s.alert_not_found))
        if judge is not None:
            self.checks.append(Leak(judge))
        self.visibility = Visibility(s.visibility)
        self.squash = Squasher(s.min_peers, s.window)
        self.alerts = self.squash.open  # key -> the alert being gathered (kind, count, ...)
        self._lens = sorted({w.prefix.prefixlen for w in watch.prefixes}, reverse=True)
        self._by_net = {(w.prefix.version, int(w.prefix.network_address), w.prefix.prefixlen): w
                        for w in watch.prefixes}
        self._ases = {a.asn for a in watch.ases}

    def set_vrps(self, vrps) -> None:
        """New VRPs (the monitor's were read again): the checks take them."""
        vrps = self.vrps = Rov(vrps) if vrps is not None else None
        for c in self.checks:
            if hasattr(c, "vrps"):
                c.vrps = vrps

    def _covering(self, net):
        """The most specific watched prefix covering `net` (itself included)."""
        version, bits, own = net.version, net.max_prefixlen, net.prefixlen
        address = int(net.network_address)
        for plen in self._lens:
            if plen > own:
                continue
            w = self._by_net.get((version, address >> (bits - plen) << (bits - plen), plen))
            if w is not None and (plen == own or not w.ignore_more_specifics):
                return w
        return None

    def _seen(self, route, when: float) -> Seen | None:
        net = _network(route)
        w = self._covering(net)
        attrs = route.attrs
        path = flat_path(attrs.as_path) if attrs is not None else ()
        if w is None and not (self._ases and self._ases.intersection(a for a in path if isinstance(a, int))):
            return None
        origin = attrs.origin_as if attrs is not None else -1
        last = path[-1] if path else None
        origins = (origin,) if origin >= 0 else (tuple(last) if isinstance(last, tuple) else ())
        return Seen(net, str(net), w, w is not None and net.prefixlen == w.prefix.prefixlen, path, origin, origins,
                    route.peer_ip, route.peer_as, when, route)

    def check(self, route, when: float) -> list[dict]:
        """An announced route: the alerts it raises."""
        s = self._seen(route, when)
        if s is None:
            return []
        off = s.watched.monitors_off if s.watched is not None else ()
        found = [f for c in self.checks if c.name not in off for f in c.announce(s)]
        if s.watched is not None and "visibility" not in off:
            found += self.visibility.announce(s)
        return self._raise(found, s)

    def withdraw(self, route, when: float) -> list[dict]:
        net = _network(route)
        w = self._covering(net)
        if w is None or net.prefixlen != w.prefix.prefixlen or "visibility" in w.monitors_off:
            return []
        s = Seen(net, str(net), w, True, (), -1, (), route.peer_ip, route.peer_as, when, route)
        return self._raise(self.visibility.withdraw(s), s)

    def peer_down(self, route, when: float) -> list[dict]:
        """A collector peer's session went down: it sees nothing now."""
        s = Seen(None, "", None, False, (), -1, (), route.peer_ip, route.peer_as, when, route)
        return self._raise(self.visibility.peer_down(route.peer_ip, when), s)

    def _raise(self, found: list[Finding], s: Seen) -> list[dict]:
        out = []
        for f in found:
            if f.closes is not None:
                self.squash.open.pop(f.closes, None)
            rec = self.squash.see(f.key, f.kind, s.peer, s.when, f.at_once)
            if rec is not None:
                out.append(self._alert(f, s, rec))
        return out

    def _alert(self, f: Finding, s: Seen, rec) -> dict:
        fields = f.fields
        net = s.net if s.net is not None and str(s.net) == f.prefix else ipaddress.ip_network(f.prefix)
        announced = s.origin >= 0 and s.path
        rpki = self.vrps.validate(net, s.origin) if self.vrps is not None and announced else None
        aspa = (verify_route(self.aspa, s.path, s.peer_asn, self.roles.mode(s.peer_asn))
                if self.aspa is not None and s.path else None)
        return alert_record(**fields, kind=f.kind, prefix=f.prefix, observed_origin=s.origin if s.origin >= 0 else None,
                            path=path_text(s.path) if s.path else "", peer=s.peer, peer_asn=s.peer_asn, rpki=rpki,
                            aspa=aspa, first_seen=rec.first_seen, last_seen=rec.last_seen, count=rec.count,
                            group=f.group, peers=sorted(rec.peers))


def _network(route):
    """The route's prefix as an ipaddress network, from its numbers (no text to parse)."""
    return (ipaddress.IPv4Network if route.afi == 1 else ipaddress.IPv6Network)((route.network, route.plen))


__all__ = ["Watcher"]
