"""What the monitors share: a route as they see it, and what they find in it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Seen:
    """A route (or a withdrawal) as the monitors see it."""

    net: object  # ipaddress network
    prefix: str
    watched: object  # the most specific watch.Watched covering it, or None
    exact: bool  # the watched prefix itself
    path: tuple  # flat: peer first, origin last; an AS_SET a tuple
    origin: int  # -1: none (an AS_SET last, or no path)
    origins: tuple  # the origin, or the members of the AS_SET at the end
    peer: str
    peer_asn: int
    when: float
    route: object  # bgpsim.mrt.Route


@dataclass
class Finding:
    """One alert's worth of what a monitor found: `key` is what its repeats share."""

    kind: str
    key: tuple
    prefix: str
    fields: dict = field(default_factory=dict)  # watched, description, expected_origins, observed_origin, ...
    group: str = "default"
    at_once: bool = False  # raised without waiting for more peers (the finding counts peers itself)
    closes: tuple | None = None  # the key of an alert this one ends (visible again ends a loss)


class Check:
    """A monitor: what it finds in an announcement, a withdrawal, a peer going down. `name` is what a
    watched prefix's `monitors_off` names to turn it off there."""

    name = ""

    def announce(self, s: Seen) -> list[Finding]:
        return []

    def withdraw(self, s: Seen) -> list[Finding]:
        return []

    def peer_down(self, peer: str, when: float) -> list[Finding]:
        return []


def watched_fields(w) -> dict:
    return {"watched": str(w.prefix), "description": w.description, "expected_origins": sorted(w.origins)}


FIELDS = ("kind", "prefix", "watched", "description", "expected_origins", "observed_origin", "leaker", "path", "peer",
          "peer_asn", "rpki", "aspa", "first_seen", "last_seen", "count", "group", "peers", "detail")
_EMPTY = {"description": "", "expected_origins": [], "path": "", "count": 1, "group": "default", "peers": []}


def alert_record(**given) -> dict:
    """An alert as alerts.jsonl and every sink carry it: all FIELDS, in that order; what a kind does
    not give is empty (or None)."""
    return {k: given[k] if k in given else _EMPTY.get(k) for k in FIELDS}
