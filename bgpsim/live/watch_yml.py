"""BGPalerter's prefixes.yml, read into the watch list (bgpsim.live.watch) as BGPalerter reads it
(its docs/prefixes.md and docs/path-neighbors.md):

    165.254.255.0/24:
      description: Rome peering
      asn: 2914                    # or a list
      ignoreMorespecifics: false   # true: the entry stands for itself only
      ignore: false
      group: noc                   # or a list (the first is used: one group an alert)
      excludeMonitors: [withdrawal-detection]    # or includeMonitors
      path:                        # a rule, or a list of rules (any may hold)
        match: ".*2194,1234$"
        notMatch: ".*5054.*"
        matchDescription: detected scrubbing center
        maxLength: 128
        minLength: 2
    options:
      monitorASns:
        2914: {group: noc, upstreams: [174], downstreams: []}

`description`, `asn` and `ignoreMorespecifics` are required, as BGPalerter requires them. Keys it
does not define are read past with one warning each; a prefix with host bits set is read with a
warning (BGPalerter takes it as written). Every fault names the file and the key.
"""

from __future__ import annotations

import re

from bgpsim.base.errors import InputError
from bgpsim.rpki.vrps.files import read_bytes

from .watchlist import DEFAULT_GROUP, MAX_WATCHED, PathRule, Watched, WatchedAS, WatchList, parse_watched_prefix

# BGPalerter's monitor names (its config.yml) -> ours (alerts.base.Check.name)
MONITOR_NAMES = {"basic-hijack-detection": ("hijack",), "prefix-detection": ("new-prefix",),
                 "path-matching": ("path",), "withdrawal-detection": ("visibility",), "asn-monitor": ("own-as",),
                 "rpki-monitor": ("rpki",), "path-neighbors": ("neighbours",)}
ALL = frozenset(m for ms in MONITOR_NAMES.values() for m in ms) | {"leak"}
PREFIX_KEYS = {"description", "asn", "ignoreMorespecifics", "ignore", "group", "path", "excludeMonitors",
               "includeMonitors"}
RULE_KEYS = {"match", "notMatch", "matchDescription", "maxLength", "minLength"}
MAX_BYTES = 64 << 20


def load_prefixes_yml(path: str, warn=None) -> WatchList:
    import yaml

    raw = read_bytes(path, MAX_BYTES, "--watch")
    try:
        doc = yaml.safe_load(raw)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise InputError(f"{path}{where}: want YAML: {getattr(e, 'problem', None) or e}") from None
    r = _Reader(path, warn)
    if not isinstance(doc, dict):
        raise r.error("want a mapping of prefixes to their entries (BGPalerter's prefixes.yml)")
    options = doc.get("options", {})
    prefixes = [r.prefix(k, v) for k, v in doc.items() if k != "options"]
    ases = r.options(options)
    if not prefixes and not ases:
        raise r.error("want prefixes to monitor, or options.monitorASns")
    if len(prefixes) + len(ases) > MAX_WATCHED:
        raise r.error(f"want at most {MAX_WATCHED} watched prefixes and ASes")
    seen: dict = {}
    for w in prefixes:
        if w.prefix in seen:
            raise r.error(f"want each prefix once: {seen[w.prefix]} and another entry are both {w.prefix}")
        seen[w.prefix] = w.prefix
    return WatchList(prefixes, ases)


class _Reader:
    def __init__(self, path: str, warn):
        self.path, self.warn = path, warn
        self.told: set = set()

    def error(self, what: str, *keys) -> InputError:
        return InputError(f"{self.path}: {'.'.join(map(str, keys)) + ': ' if keys else ''}{what}")

    def unknown(self, keys, *where) -> None:
        for k in keys:
            if (k, where[-1:]) not in self.told and self.warn is not None:
                self.told.add((k, where[-1:]))
                self.warn(f"{self.path}: {'.'.join(map(str, (*where, k)))}: not a key BGPalerter defines; read past")

    def prefix(self, key, e) -> Watched:
        text = str(key)
        net = parse_watched_prefix(text, lambda m: self.error(m, text),
                                   None if self.warn is None else lambda m: self.warn(f"{self.path}: {text}: {m}"))
        if not isinstance(e, dict):
            raise self.error("want description, asn and ignoreMorespecifics", text)
        self.unknown(sorted(set(e) - PREFIX_KEYS), text)
        for need in ("description", "asn", "ignoreMorespecifics"):
            if need not in e:
                raise self.error(f"want {need} (BGPalerter requires description, asn and ignoreMorespecifics)", text)
        desc = e["description"]
        if not isinstance(desc, (str, int, float)) or isinstance(desc, bool):
            raise self.error("want a description (text)", text, "description")
        asns = e["asn"] if isinstance(e["asn"], list) else [e["asn"]]
        if not asns or not all(_asn(a) is not None for a in asns):
            raise self.error(f"want an AS number or a list of them, got {e['asn']!r}", text, "asn")
        flags = {}
        for k in ("ignoreMorespecifics", "ignore"):
            flags[k] = e.get(k, False)
            if not isinstance(flags[k], bool):
                raise self.error("want true or false", text, k)
        if "includeMonitors" in e and "excludeMonitors" in e:
            raise self.error("want includeMonitors or excludeMonitors, not both", text)
        off = frozenset()
        for k in ("includeMonitors", "excludeMonitors"):
            if k in e:
                names = e[k]
                if not isinstance(names, list) or not all(n in MONITOR_NAMES for n in names):
                    raise self.error(f"want a list of monitors: {', '.join(MONITOR_NAMES)}", text, k)
                named = frozenset(m for n in names for m in MONITOR_NAMES[n])
                off = (ALL - named) if k == "includeMonitors" else named
        rules = e.get("path", [])
        rules = [rules] if isinstance(rules, dict) else rules
        if not isinstance(rules, list):
            raise self.error("want a path rule or a list of them", text, "path")
        return Watched(net, str(desc), {_asn(a) for a in asns}, more_specifics=flags["ignoreMorespecifics"],
                       ignore=flags["ignore"], group=self.group(e.get("group"), text),
                       paths=[self.rule(r, text, "path", k) for k, r in enumerate(rules)],
                       ignore_more_specifics=flags["ignoreMorespecifics"], monitors_off=off)

    def rule(self, r, *where) -> PathRule:
        if not isinstance(r, dict):
            raise self.error("want a rule: match, notMatch, matchDescription, maxLength, minLength", *where)
        self.unknown(sorted(set(r) - RULE_KEYS), *where)
        if not isinstance(r.get("matchDescription"), str):
            raise self.error("want matchDescription (BGPalerter requires it)", *where)
        rule = PathRule(r["matchDescription"])
        for k, attr in (("match", "match"), ("notMatch", "not_match")):
            if k in r:
                try:
                    setattr(rule, attr, re.compile(str(r[k])))
                except re.error as e:
                    raise self.error(f"want a regular expression: {e}", *where, k) from None
        for k, attr in (("minLength", "min_length"), ("maxLength", "max_length")):
            if k in r:
                if not isinstance(r[k], int) or isinstance(r[k], bool) or r[k] < 1:
                    raise self.error("want a path length (1 or more)", *where, k)
                setattr(rule, attr, r[k])
        return rule

    def group(self, g, *where) -> str:
        if g is None:
            return DEFAULT_GROUP
        groups = g if isinstance(g, list) else [g]
        if not groups or not all(isinstance(x, str) and re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", x) for x in groups):
            raise self.error("want a group name (letters, digits, _ . -), or a list of them", *where, "group")
        if len(groups) > 1 and self.warn is not None:
            self.warn(f"{self.path}: {'.'.join(map(str, where))}.group: {len(groups)} groups; alerts go to the "
                      f"first, {groups[0]}")
        return groups[0]

    def options(self, options) -> list[WatchedAS]:
        if not isinstance(options, dict):
            raise self.error("want a mapping", "options")
        self.unknown(sorted(set(options) - {"monitorASns", "generate"}), "options")
        mon = options.get("monitorASns") or {}
        if not isinstance(mon, dict):
            raise self.error("want a mapping of AS numbers to {group, upstreams, downstreams}", "options", "monitorASns")
        out = []
        for key, e in mon.items():
            asn = _asn(key)
            if asn is None:
                raise self.error(f"want an AS number, got {key!r}", "options", "monitorASns", key)
            e = e or {}
            if not isinstance(e, dict):
                raise self.error("want {group, upstreams, downstreams}", "options", "monitorASns", key)
            self.unknown(sorted(set(e) - {"group", "upstreams", "downstreams"}), "options", "monitorASns", key)
            sides = {}
            for k in ("upstreams", "downstreams"):
                v = e.get(k)
                if v is not None and (not isinstance(v, list) or any(_asn(a) is None for a in v)):
                    raise self.error(f"want a list of AS numbers (one of the {k} of AS{asn} is not)",
                                     "options", "monitorASns", key, k)
                sides[k] = None if v is None else {_asn(a) for a in v}
            out.append(WatchedAS(asn, "", self.group(e.get("group"), "options", "monitorASns", key), **sides))
        return out


def _asn(v) -> int | None:
    """An AS number as YAML gives it: 2914, "2914" or "AS2914"."""
    if isinstance(v, str):
        v = v[2:] if v[:2].upper() == "AS" else v
        v = int(v) if v.isdigit() else None
    if isinstance(v, int) and not isinstance(v, bool) and 0 < v < 1 << 32:
        return v
    return None
