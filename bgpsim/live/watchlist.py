"""The watch list's model: the prefixes and ASes a monitor watches, and its settings. Two readers
fill it: bgpsim.live.watch (our TOML) and bgpsim.live.watch_yml (BGPalerter's prefixes.yml)."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

MAX_WATCHED = 100_000
DEFAULT_GROUP = "default"
MONITORS = ("hijack", "new-prefix", "path", "neighbours", "own-as", "rpki", "leak", "visibility")  # Check.name


@dataclass
class PathRule:
    """BGPalerter's path matching: `match` and `not_match` are regular expressions on the path written
    ASN,ASN,... (the peer first, the origin last; an AS_SET as [ASN,ASN]); all its conditions hold."""

    description: str
    match: re.Pattern | None = None
    not_match: re.Pattern | None = None
    min_length: int | None = None
    max_length: int | None = None

    def holds(self, text: str, length: int) -> bool:
        return ((self.match is None or self.match.search(text) is not None)
                and (self.not_match is None or self.not_match.search(text) is None)
                and (self.min_length is None or length >= self.min_length)
                and (self.max_length is None or length <= self.max_length))


@dataclass
class Watched:
    prefix: ipaddress.IPv4Network | ipaddress.IPv6Network
    description: str = ""
    origins: set[int] = field(default_factory=set)
    more_specifics: bool = False
    learn: bool = False
    ignore: bool = False
    group: str = DEFAULT_GROUP
    paths: list[PathRule] = field(default_factory=list)
    ignore_more_specifics: bool = False  # it stands for itself only: its more-specifics fall to a shorter entry
    monitors_off: frozenset = frozenset()  # the monitors (alerts.base.Check.name) that leave it alone


@dataclass
class WatchedAS:
    asn: int
    description: str = ""
    group: str = DEFAULT_GROUP
    upstreams: set[int] | None = None  # None: not checked
    downstreams: set[int] | None = None


@dataclass
class Settings:
    min_peers: int = 1
    window: float = 3600.0
    visibility: float = 0.5
    alert_valid_origins: bool = False
    alert_not_found: bool = False


@dataclass
class WatchList:
    prefixes: list[Watched]
    ases: list[WatchedAS] = field(default_factory=list)
    settings: Settings = field(default_factory=Settings)


def parse_watched_prefix(text, error, warn):
    """A watched prefix; host bits set are cleared with a warning (BGPalerter takes such a prefix too)."""
    if not isinstance(text, str):
        raise error(f"want a prefix such as 192.0.2.0/24, got {text!r}")
    try:
        return ipaddress.ip_network(text)
    except ValueError:
        pass
    try:
        net = ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise error(f"want a prefix such as 192.0.2.0/24, got {text!r}") from None
    if warn is not None:
        warn(f"{text} has host bits set: read as {net}")
    return net
