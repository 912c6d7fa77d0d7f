"""The watch list: the prefixes and ASes a monitor watches, and how it alerts (in the spirit of
BGPalerter's prefixes.yml, which bgpsim.live.watch_yml reads into the same model).

The watch file (TOML); every key but `prefix` optional:

    [settings]
    min_peers = 1              # collector peers that must see something before it is an alert
    window = 3600              # seconds (the feed's time) over which an alert gathers its repeats
    visibility = 0.5           # a watched prefix is lost below this share of the peers that announced it,
                               # and visible again once back at or above it
    alert_valid_origins = false  # alert on a new origin the RPKI says is valid (with the VRP named)
    alert_not_found = false    # alert on a watched prefix's own route that no VRP covers

    [[prefix]]
    prefix = "198.51.100.0/24"
    description = "VideoTube's service"
    origins = [64510]          # who may originate it; empty or absent: learn the first origin seen
    more_specifics = false     # may those origins announce more-specifics?
    ignore_more_specifics = false  # true: it stands for itself only (BGPalerter's ignoreMorespecifics)
    ignore = false             # watched, never alerted on (space delegated to others)
    monitors_off = []          # monitors that leave it alone: hijack, new-prefix, path, neighbours,
                               # own-as, rpki, leak, visibility
    group = "noc"              # its alerts' group: a file of its own (default "default")
    [[prefix.path]]            # path rules: an alert when every condition of a rule holds
    match = "64496,.*64510$"   # a regular expression on the path written ASN,ASN,... (peer first)
    not_match = "64666"
    min_length = 2
    max_length = 10
    description = "through the scrubbing centre"

    [[asn]]
    asn = 64510                # its announcements of prefixes not watched above are alerts
    group = "noc"
    upstreams = [64496]        # path neighbours: an alert for any other (absent: not checked)
    downstreams = []

A prefix written with host bits set is read with a warning, its host bits cleared.
"""

from __future__ import annotations

import re

from bgpsim.base.tomlfile import TomlFile

from .watch_yml import load_prefixes_yml
from .watchlist import (DEFAULT_GROUP, MAX_WATCHED, MONITORS, PathRule, Settings, Watched, WatchedAS, WatchList,
                        parse_watched_prefix)


def load_watch(path: str, warn=None) -> WatchList:
    """The watch list in file `path`: BGPalerter's prefixes.yml when it is named .yml or .yaml
    (bgpsim.live.watch_yml), else TOML (see the module's text); `warn(text)` hears host bits."""
    if str(path).endswith((".yml", ".yaml")):
        return load_prefixes_yml(path, warn)
    doc = TomlFile(path)
    doc.check_keys(doc.data, {"prefix", "asn", "settings"})
    entries = doc.data.get("prefix", [])
    ases = doc.data.get("asn", [])
    if not isinstance(entries, list) or not isinstance(ases, list) or not (entries or ases):
        raise doc.error("want [[prefix]] or [[asn]] tables, at least one", "prefix")
    if len(entries) + len(ases) > MAX_WATCHED:
        raise doc.error(f"want at most {MAX_WATCHED} watched prefixes and ASes", "prefix")
    out = [_prefix(doc, e, i, warn) for i, e in enumerate(entries)]
    seen: set = set()
    for i, w in enumerate(out):
        if w.prefix in seen:
            raise doc.error(f"want each prefix once: {w.prefix} is watched twice", "prefix", i, "prefix")
        seen.add(w.prefix)
    return WatchList(out, [_asn_entry(doc, e, i) for i, e in enumerate(ases)], _settings(doc))


def _prefix(doc: TomlFile, e, i: int, warn) -> Watched:
    if not isinstance(e, dict):
        raise doc.error("want a table", "prefix", i)
    doc.check_keys(e, {"prefix", "description", "origins", "more_specifics", "ignore_more_specifics", "ignore", "group",
                       "path", "monitors_off"}, "prefix", i)
    net = parse_watched_prefix(e.get("prefix"), lambda m: doc.error(m, "prefix", i, "prefix"),
                               None if warn is None else lambda m: warn(f"{doc.path}: prefix[{i}].prefix: {m}"))
    origins = e.get("origins", [])
    if not isinstance(origins, list) or not all(_is_asn(a) for a in origins):
        raise doc.error("want a list of AS numbers", "prefix", i, "origins")
    flags = {}
    for key in ("more_specifics", "ignore", "ignore_more_specifics"):
        flags[key] = e.get(key, False)
        if not isinstance(flags[key], bool):
            raise doc.error("want true or false", "prefix", i, key)
    rules = e.get("path", [])
    if isinstance(rules, dict):
        rules = [rules]
    if not isinstance(rules, list):
        raise doc.error("want [[prefix.path]] tables", "prefix", i, "path")
    off = e.get("monitors_off", [])
    if not isinstance(off, list) or not all(m in MONITORS for m in off):
        raise doc.error(f"want a list of monitors: {', '.join(MONITORS)}", "prefix", i, "monitors_off")
    return Watched(net, _text(doc, e, "description", ("prefix", i)), set(origins), flags["more_specifics"],
                   learn=not origins, ignore=flags["ignore"], group=_group(doc, e, ("prefix", i)),
                   paths=[_rule(doc, r, ("prefix", i, "path", k)) for k, r in enumerate(rules)],
                   ignore_more_specifics=flags["ignore_more_specifics"], monitors_off=frozenset(off))


def _rule(doc: TomlFile, r, where: tuple) -> PathRule:
    if not isinstance(r, dict):
        raise doc.error("want a table", *where)
    doc.check_keys(r, {"match", "not_match", "min_length", "max_length", "description"}, *where)
    rule = PathRule(_text(doc, r, "description", where))
    for key in ("match", "not_match"):
        if key in r:
            if not isinstance(r[key], str):
                raise doc.error("want a regular expression", *where, key)
            try:
                setattr(rule, key, re.compile(r[key]))
            except re.error as e:
                raise doc.error(f"want a regular expression: {e}", *where, key) from None
    for key in ("min_length", "max_length"):
        if key in r:
            if not isinstance(r[key], int) or isinstance(r[key], bool) or r[key] < 1:
                raise doc.error("want a path length (1 or more)", *where, key)
            setattr(rule, key, r[key])
    if not (rule.match or rule.not_match or rule.min_length or rule.max_length):
        raise doc.error("want at least one of match, not_match, min_length, max_length", *where)
    return rule


def _asn_entry(doc: TomlFile, e, i: int) -> WatchedAS:
    if not isinstance(e, dict):
        raise doc.error("want a table", "asn", i)
    doc.check_keys(e, {"asn", "description", "group", "upstreams", "downstreams"}, "asn", i)
    if not _is_asn(e.get("asn")):
        raise doc.error(f"want an AS number, got {e.get('asn')!r}", "asn", i, "asn")
    sides = {}
    for key in ("upstreams", "downstreams"):
        v = e.get(key)
        if v is not None and (not isinstance(v, list) or not all(_is_asn(a) for a in v)):
            raise doc.error("want a list of AS numbers (empty: every neighbour is new)", "asn", i, key)
        sides[key] = None if v is None else set(v)
    return WatchedAS(e["asn"], _text(doc, e, "description", ("asn", i)), _group(doc, e, ("asn", i)), **sides)


def _settings(doc: TomlFile) -> Settings:
    t = doc.data.get("settings", {})
    if not isinstance(t, dict):
        raise doc.error("want a table", "settings")
    doc.check_keys(t, {"min_peers", "window", "visibility", "alert_valid_origins", "alert_not_found"}, "settings")
    s = Settings()
    if "min_peers" in t:
        if not isinstance(t["min_peers"], int) or isinstance(t["min_peers"], bool) or t["min_peers"] < 1:
            raise doc.error("want a number of peers (1 or more)", "settings", "min_peers")
        s.min_peers = t["min_peers"]
    if "window" in t:
        if not isinstance(t["window"], (int, float)) or isinstance(t["window"], bool) or not 0 < t["window"] < 1e9:
            raise doc.error("want seconds (more than 0)", "settings", "window")
        s.window = float(t["window"])
    if "visibility" in t:
        if not isinstance(t["visibility"], (int, float)) or isinstance(t["visibility"], bool) or not 0 < t["visibility"] <= 1:
            raise doc.error("want a share of peers (more than 0, at most 1)", "settings", "visibility")
        s.visibility = float(t["visibility"])
    for key in ("alert_valid_origins", "alert_not_found"):
        if key in t:
            if not isinstance(t[key], bool):
                raise doc.error("want true or false", "settings", key)
            setattr(s, key, t[key])
    return s


def _is_asn(a) -> bool:
    return isinstance(a, int) and not isinstance(a, bool) and 0 < a < 1 << 32


def _text(doc: TomlFile, t: dict, key: str, where: tuple) -> str:
    v = t.get(key, "")
    if not isinstance(v, str):
        raise doc.error("want a string", *where, key)
    return v


def _group(doc: TomlFile, t: dict, where: tuple) -> str:
    g = t.get("group", DEFAULT_GROUP)
    if not isinstance(g, str) or not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", g):
        raise doc.error("want a group name: letters, digits, _ . - (at most 64)", *where, "group")
    return g


WATCH_HEAD = "# bgpsim watch file"  # how a watch file this project wrote starts (it may replace one)


def watch_text(vrps, asns: list[int], source: str) -> str:
    """A watch file (TOML, as load_watch reads it) for the ASes `asns` from VRPs (rpki.rov.VRP): each
    prefix one of them holds a VRP for, with every AS any VRP allows to originate exactly it, its
    more-specifics allowed where a VRP's maxLength is longer than the prefix; and the ASes themselves,
    so their announcements of other prefixes are alerts. Like BGPalerter's `generate`, from the RPKI
    rather than from what is announced."""
    want = set(asns)
    mine = sorted({v.prefix for v in vrps if v.asn in want}, key=lambda p: (p.version, int(p.network_address), p.prefixlen))
    held = set(mine)
    origins: dict = {}
    longest: dict = {}
    for v in vrps:
        if v.prefix in held:
            origins.setdefault(v.prefix, set()).add(v.asn)
            longest[v.prefix] = max(longest.get(v.prefix, 0), v.max_length)
    lines = [f"{WATCH_HEAD}: the prefixes of AS{', AS'.join(map(str, sorted(want)))} in {source}, "
             "from their VRPs (bgpsim rpki watch-file)", ""]
    for asn in sorted(want):
        lines += ["[[asn]]", f"asn = {asn}", ""]
    for p in mine:
        got = sorted(a for a in origins[p] if a != 0)  # AS0: no one may originate it (RFC 6483 section 4)
        lines += ["[[prefix]]", f'prefix = "{p}"', f'description = "VRPs up to /{longest[p]}"',
                  f"origins = [{', '.join(map(str, got))}]", f"more_specifics = {str(longest[p] > p.prefixlen).lower()}", ""]
    return "\n".join(lines)
