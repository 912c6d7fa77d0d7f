"""Scenarios: who announces what and when, the attack, the mitigation, the defence.

A scenario is written in TOML (see the README for every key) or built from command-line flags. The
loader is strict: an unknown key or a bad value is an InputError naming the key and its line.
ASNs stay ASNs here; `bgpsim.run` resolves them against the topology.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from bgpsim.rpki.rov import VRP

from .attacks import KINDS, Attack, attack
from .defences import SETTINGS, policy_name
from .engine.timing import Delay, Timing
from .rpki_delays import CHANGES, RoaChange, RpkiTiming
from bgpsim.base import datafiles
from bgpsim.base.errors import InputError
from bgpsim.base.prefix import Address, Prefix, parse_address, parse_prefix
from bgpsim.base.tomlfile import TomlFile

ATTACK_HELP = {kind: c.help for kind, c in KINDS.items()}
ATTACKS = tuple(KINDS)
EVENT_TYPES = ("originate", "withdraw", "aggregate", "link-down", "link-up", *CHANGES)
COMMUNITIES = ("no-export", "no-advertise", "blackhole")  # what a mitigation may tag its routes with
WEIGHTINGS = ("uniform", "cone", "space")
MAX_PREPEND = 32  # more than any operator uses; routers cap it lower still
DEFAULT_PREFIX = "1.2.0.0/16"  # BGPy's victim prefix, so results compare


@dataclass
class Mitigation:
    start: float
    prefixes: list[Prefix] = field(default_factory=list)  # empty: halves of the attacked prefix
    # None, or a community of COMMUNITIES the more-specifics carry: "no-export" and "no-advertise" (RFC
    # 1997) keep them in the victim's neighbours; "blackhole" (RFC 7999) goes to its providers only,
    # which drop the traffic to them
    community: str | None = None


@dataclass
class Defence:
    policy: str
    adopters: list[int] | None = None
    adoption: float | None = None  # share of ASes drawn at random (seeded); the victim adopts, the attacker not
    crypto: bool = False  # bgpsec with real signatures (bgpsim.sim.crypto): the timed engine only
    router_keys: str | None = None  # under crypto: a folder of private router keys (a CA's .keys); None: seeded
    settings: dict = field(default_factory=dict)  # of defences.SETTINGS, those given (the others: defaults)


@dataclass
class Event:
    at: float
    type: str
    asn: int | None = None
    prefix: Prefix | None = None
    link: tuple[int, int] | None = None
    summary_only: bool = False  # an aggregate: the AS stops advertising the more-specifics it covers


@dataclass
class Session:
    """What AS `asn` sets on its session with `neighbour` (None: with every neighbour) from time `at`:
    the LOCAL_PREF of the routes it learns there (RFC 4271 sections 5.1.5 and 9.1.1), in place of the
    one its relationship gives; how many more times it puts its own AS on the paths it sends there
    (prepending). None: unchanged."""

    asn: int
    neighbour: int | None
    local_pref: int | None = None
    prepend: int | None = None
    at: float = 0.0

    def __str__(self) -> str:
        what = []
        them = "every neighbour" if self.neighbour is None else f"AS{self.neighbour}"
        if self.local_pref is not None:
            what.append(f"AS{self.asn} sets LOCAL_PREF {self.local_pref} on the routes from {them}")
        if self.prepend is not None:
            what.append(f"AS{self.asn} prepends its AS {self.prepend} more time{'s' * (self.prepend != 1)}"
                        f" toward {them}")
        return "; ".join(what)


@dataclass
class Scenario:
    name: str
    topology: str
    description: str = ""
    source: str = "command line"
    seed: int = 1
    timing: Timing = field(default_factory=Timing)
    warm_start: bool = True
    until: float = math.inf
    victim: int | None = None
    prefixes: list[Prefix] = field(default_factory=list)  # the victim's, announced at t = 0
    attack: Attack | None = None
    mitigation: Mitigation | None = None
    defence: Defence | None = None
    roas: list[VRP] = field(default_factory=list)  # known to every relying party from the start
    events: list[Event] = field(default_factory=list)
    roa_changes: list[RoaChange] = field(default_factory=list)  # ROAs published or revoked during the run
    rpki: RpkiTiming | None = None  # how long a change takes to reach the routers (with roa_changes)
    sessions: list[Session] = field(default_factory=list)  # LOCAL_PREF and prepending (the timed engine)
    weighting: str = "uniform"  # uniform | cone | space | a CSV file of asn,weight
    pfx2as: str | None = None  # prefix-to-AS table for weighting "space"
    target: Address | None = None

    def attributes(self) -> list[str]:
        """What operators set on routes in this scenario, in words, in time order: the sessions'
        LOCAL_PREF and prepending, and the aggregates."""
        said = [(x.at, str(x) + (f" from t = {x.at:g} s" if x.at else "")) for x in self.sessions]
        said += [(e.at, f"AS{e.asn} announces the aggregate {e.prefix} at t = {e.at:g} s (ATOMIC_AGGREGATE, "
                        f"AGGREGATOR AS{e.asn}, no AS_SET)" + (", summary-only" if e.summary_only else ""))
                 for e in self.events if e.type == "aggregate"]
        return [text for _, text in sorted(said, key=lambda x: x[0])]

    def target_address(self) -> Address:
        """The address whose traffic a run follows, the same on both engines: `target`, or a host
        address inside what the attacker announces (the victim's first prefix without an attack)."""
        if self.target is not None:
            return self.target
        focus = self.attack.announced(self.prefixes) if self.attack else self.prefixes[0]
        return host_address(focus)


def host_address(prefix: Prefix) -> Address:
    """The first host of `prefix`: never its network address, which names the prefix and no host
    (a /32 or /128 has only the one)."""
    return prefix.network_address + (1 if prefix.num_addresses > 1 else 0)


# ---- TOML -------------------------------------------------------------------------------------

TOP_KEYS = {"name", "description", "topology", "seed", "timing", "victim", "attack", "mitigation", "defence",
            "roa", "event", "session", "weighting", "target", "rpki",
            "incident"}  # an incident file's facts: bgpsim.sim.incident reads them


def _num(doc: TomlFile, value, *key, minimum: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < minimum:
        raise doc.error(f"want a number >= {minimum:g}, got {value!r}", *key)
    return float(value)


def _asn(doc: TomlFile, value, *key) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**32:
        raise doc.error(f"want an ASN (1..4294967295), got {value!r}", *key)
    return value


def _prefix(doc: TomlFile, value, *key) -> Prefix:
    try:
        return parse_prefix(value)
    except InputError as e:
        raise doc.error(e.message, *key) from None


def _table(doc: TomlFile, data: dict, key: str, allowed: set[str]) -> dict | None:
    t = data.get(key)
    if t is None:
        return None
    if not isinstance(t, dict):
        raise doc.error("want a table", key)
    doc.check_keys(t, allowed, key)
    return t


def _delay(doc: TomlFile, value, *key) -> Delay:
    """`{ distribution = "uniform", low = 0.01, high = 0.05 }`, `{ distribution = "constant", value = 0.02 }`
    or `{ distribution = "exponential", mean = 0.03 }`, in seconds."""
    if not isinstance(value, dict):
        raise doc.error("want a table like { distribution = \"uniform\", low = 0.01, high = 0.05 }", *key)
    kind = value.get("distribution")
    params = {"uniform": ("low", "high"), "constant": ("value",), "exponential": ("mean",)}
    if kind not in params:
        raise doc.error(f"distribution: want one of {', '.join(params)}, got {kind!r}", *key)
    doc.check_keys(value, {"distribution", *params[kind]}, *key)
    for p in params[kind]:
        if p not in value:
            raise doc.error(f"missing {p!r}", *key)
    vals = [_num(doc, value[p], *key, p) for p in params[kind]]
    if kind == "uniform" and vals[1] < vals[0]:
        raise doc.error("high must not be below low", *key)
    return Delay(kind, vals[0], vals[1] if len(vals) > 1 else 0.0)


def _roa(doc: TomlFile, r: dict, *key) -> VRP:
    """A ROA's prefix, asn and max_length (default: the prefix's length) from a [[roa]] table or a
    roa-publish or roa-revoke event."""
    if "prefix" not in r or "asn" not in r:
        raise doc.error("want prefix and asn", *key)
    pfx = _prefix(doc, r["prefix"], *key, "prefix")
    asn = r["asn"]
    if isinstance(asn, bool) or not isinstance(asn, int) or not 0 <= asn < 2**32:
        raise doc.error("want an ASN (0 for an AS0 ROA)", *key, "asn")
    ml = r.get("max_length", pfx.prefixlen)
    if isinstance(ml, bool) or not isinstance(ml, int) or not pfx.prefixlen <= ml <= pfx.max_prefixlen:
        raise doc.error(f"want {pfx.prefixlen}..{pfx.max_prefixlen}", *key, "max_length")
    return VRP(pfx, ml, asn)


def _rpki(doc: TomlFile, d: dict, scn: Scenario, where: list[int]) -> None:
    """The ROA changes (roa-publish and roa-revoke events, already in scn.roa_changes; `where`: their
    places in [[event]]) checked against the ROAs of their time, and the [rpki] table of how long they
    take to reach routers."""
    held = set(scn.roas)
    for k, c in sorted(zip(where, scn.roa_changes), key=lambda x: x[1].at):
        if c.type == "roa-publish" and c.vrp in held:
            raise doc.error(f"this ROA is already published at t = {c.at:g} s", "event", k)
        if c.type == "roa-revoke" and c.vrp not in held:
            raise doc.error(f"no such ROA is published at t = {c.at:g} s ([[roa]] or an earlier roa-publish)",
                            "event", k)
        held = held | {c.vrp} if c.type == "roa-publish" else held - {c.vrp}
    scn.roa_changes.sort(key=lambda c: c.at)
    t = _table(doc, d, "rpki", {"fetch_interval", "refresh_interval", "notify"})
    if t is None:
        scn.rpki = RpkiTiming() if scn.roa_changes else None
        return
    if not scn.roa_changes:
        raise doc.error("the delays apply to ROAs published or revoked during the run: add a roa-publish or "
                        "roa-revoke [[event]]", "rpki")
    kw = {key: _delay(doc, t[key], "rpki", key) for key in ("fetch_interval", "refresh_interval") if key in t}
    if "notify" in t:
        kw["notify"] = _num(doc, t["notify"], "rpki", "notify")
        if kw["notify"] > 1:
            raise doc.error("want the share of adopters whose routers hear Serial Notify, 0..1", "rpki", "notify")
    scn.rpki = RpkiTiming(**kw)


def bundled_scenarios() -> dict[str, Path]:
    """The scenarios that ship with bgpsim (bgpsim.scenarios), by name."""
    from importlib.resources import files

    return {p.stem: Path(str(p)) for p in sorted(files("bgpsim.scenarios").iterdir(), key=lambda p: p.name)
            if p.name.endswith(".toml")}


def find_scenario(name: str) -> Path:
    """A scenario file's path, or a bundled scenario's name (`teaching-leak`): the file wins where both are."""
    if Path(name).is_file():
        return Path(name)
    bundled = bundled_scenarios()
    if name.removesuffix(".toml") in bundled:
        return bundled[name.removesuffix(".toml")]
    if name.endswith(".toml") or "/" in name:
        raise InputError("no such file; want a scenario file, or a bundled scenario's name (bgpsim run --list)", name)
    raise InputError(f"no bundled scenario {name!r}; want one of {', '.join(bundled)} (bgpsim run --list), or a "
                     "scenario file")


def load_scenario(path: str | Path, text: str | None = None) -> Scenario:
    doc = TomlFile(path, text)
    d = doc.data
    doc.check_keys(d, TOP_KEYS)
    base = Path(path).parent

    name = d.get("name", Path(path).stem)
    if not isinstance(name, str) or not name.strip() or "/" in name:
        raise doc.error("want a non-empty name without '/'", "name")
    description = d.get("description", "")
    if not isinstance(description, str):
        raise doc.error("want a string", "description")
    topo = d.get("topology")
    if not isinstance(topo, str):
        raise doc.error("want the path of a topology file (TOML or CAIDA), relative to the scenario", "topology")
    topo_path = datafiles.find(topo, base)  # beside the scenario, else in $BGPSIM_DATA
    seed = d.get("seed", 1)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise doc.error("want a non-negative integer", "seed")

    scn = Scenario(name=name, description=description, topology=topo_path, source=doc.path, seed=seed)

    if (t := _table(doc, d, "timing", {"mrai", "mrai_jitter", "mrai_withdrawals", "link_delay",
                                        "processing_delay", "warm_start", "until"})) is not None:
        kw = {}
        if "mrai" in t:
            kw["mrai"] = _num(doc, t["mrai"], "timing", "mrai")
        if "mrai_jitter" in t:
            j = t["mrai_jitter"]
            if not (isinstance(j, list) and len(j) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in j)
                    and 0 < j[0] <= j[1] <= 1):
                raise doc.error("want [low, high] with 0 < low <= high <= 1", "timing", "mrai_jitter")
            kw["jitter"] = (float(j[0]), float(j[1]))
        if "mrai_withdrawals" in t:
            if not isinstance(t["mrai_withdrawals"], bool):
                raise doc.error("want true or false", "timing", "mrai_withdrawals")
            kw["mrai_withdrawals"] = t["mrai_withdrawals"]
        for key in ("link_delay", "processing_delay"):
            if key in t:
                kw[key] = _delay(doc, t[key], "timing", key)
        scn.timing = Timing(**kw)
        if "warm_start" in t:
            if not isinstance(t["warm_start"], bool):
                raise doc.error("want true or false", "timing", "warm_start")
            scn.warm_start = t["warm_start"]
        if "until" in t:
            scn.until = _num(doc, t["until"], "timing", "until")

    if (v := _table(doc, d, "victim", {"asn", "prefixes"})) is not None:
        if "asn" in v:
            scn.victim = _asn(doc, v["asn"], "victim", "asn")
        prefixes = v.get("prefixes", [DEFAULT_PREFIX])
        if not isinstance(prefixes, list) or not prefixes:
            raise doc.error("want a list of prefixes", "victim", "prefixes")
        scn.prefixes = [_prefix(doc, p, "victim", "prefixes") for p in prefixes]
    else:
        scn.prefixes = [parse_prefix(DEFAULT_PREFIX)]

    if (a := _table(doc, d, "attack", {"kind", "attacker", "start", "stop", "prefix", "via"})) is not None:
        kind = a.get("kind")
        if kind not in ATTACKS:
            raise doc.error(f"want one of {', '.join(ATTACKS)}, got {kind!r}", "attack", "kind")
        scn.attack = attack(kind)
        if "attacker" in a:
            scn.attack.attacker = _asn(doc, a["attacker"], "attack", "attacker")
        scn.attack.start = _num(doc, a.get("start", 0.0), "attack", "start")
        if "stop" in a:
            scn.attack.stop = _num(doc, a["stop"], "attack", "stop")
            if scn.attack.stop <= scn.attack.start:
                raise doc.error("the attack must stop after it starts", "attack", "stop")
        if "prefix" in a:
            scn.attack.prefix = _prefix(doc, a["prefix"], "attack", "prefix")
        if "via" in a:
            if kind != "leak":
                raise doc.error("via (the neighbour whose routes are leaked) is for kind = \"leak\"", "attack", "via")
            scn.attack.via = _asn(doc, a["via"], "attack", "via")

    if (m := _table(doc, d, "mitigation", {"start", "prefixes", "community"})) is not None:
        if "start" not in m:
            raise doc.error("missing 'start' (seconds)", "mitigation")
        scn.mitigation = Mitigation(start=_num(doc, m["start"], "mitigation", "start"))
        prefixes = m.get("prefixes", [])
        if not isinstance(prefixes, list):
            raise doc.error("want a list of prefixes", "mitigation", "prefixes")
        scn.mitigation.prefixes = [_prefix(doc, p, "mitigation", "prefixes") for p in prefixes]
        if "community" in m:
            if m["community"] not in COMMUNITIES:
                raise doc.error(f"want one of {', '.join(COMMUNITIES)}, got {m['community']!r}", "mitigation", "community")
            scn.mitigation.community = m["community"]

    if (f := _table(doc, d, "defence", {"policy", "adopters", "adoption", "crypto", "router_keys", *SETTINGS})) is not None:
        pol = f.get("policy")
        try:
            policy_name(pol, "policy")
        except InputError as e:
            raise doc.error(str(e).removeprefix("policy: "), "defence", "policy") from None
        scn.defence = Defence(policy=pol)
        for key, setting in SETTINGS.items():
            if key not in f:
                continue
            if not setting.applies(pol):
                raise doc.error(f"{key} is for policy {setting.policy.name}", "defence", key)
            try:
                scn.defence.settings[key] = setting.read(f[key])
            except ValueError as e:
                raise doc.error(str(e), "defence", key) from None
        if "adopters" in f and "adoption" in f:
            raise doc.error("give adopters or adoption, not both", "defence", "adoption")
        if "adopters" in f:
            if not isinstance(f["adopters"], list):
                raise doc.error("want a list of ASNs", "defence", "adopters")
            scn.defence.adopters = [_asn(doc, x, "defence", "adopters") for x in f["adopters"]]
        elif "adoption" in f:
            share = _num(doc, f["adoption"], "defence", "adoption")
            if share > 1:
                raise doc.error("want a share between 0 and 1", "defence", "adoption")
            scn.defence.adoption = share
        else:
            raise doc.error("give adopters (a list of ASNs) or adoption (a share 0..1)", "defence")
        if "crypto" in f:
            if not isinstance(f["crypto"], bool):
                raise doc.error("want true or false", "defence", "crypto")
            if f["crypto"] and pol != "bgpsec":
                raise doc.error("crypto (real signatures) is for policy = \"bgpsec\"", "defence", "crypto")
            scn.defence.crypto = f["crypto"]
        if "router_keys" in f:
            if not isinstance(f["router_keys"], str) or not scn.defence.crypto:
                raise doc.error("want a folder of router keys (a string), with crypto = true", "defence", "router_keys")
            scn.defence.router_keys = str(base / f["router_keys"])

    roas = d.get("roa", [])
    if not isinstance(roas, list):
        raise doc.error("want [[roa]] tables", "roa")
    for i, r in enumerate(roas):
        doc.check_keys(r, {"prefix", "asn", "max_length"}, "roa", i)
        scn.roas.append(_roa(doc, r, "roa", i))

    sessions = d.get("session", [])
    if not isinstance(sessions, list):
        raise doc.error("want [[session]] tables", "session")
    for i, x in enumerate(sessions):
        doc.check_keys(x, {"asn", "neighbour", "local_pref", "prepend", "at"}, "session", i)
        if "asn" not in x or not {"local_pref", "prepend"} & x.keys():
            raise doc.error("want asn, local_pref or prepend, and neighbour (default: every neighbour)", "session", i)
        lp, prepend = x.get("local_pref"), x.get("prepend")
        if lp is not None and (isinstance(lp, bool) or not isinstance(lp, int) or not 0 <= lp < 2**32):
            raise doc.error(f"want a LOCAL_PREF from 0 to 4294967295, got {lp!r}", "session", i, "local_pref")
        if prepend is not None and (isinstance(prepend, bool) or not isinstance(prepend, int)
                                    or not 0 <= prepend <= MAX_PREPEND):
            raise doc.error(f"want a count from 0 to {MAX_PREPEND}, got {prepend!r}", "session", i, "prepend")
        scn.sessions.append(Session(_asn(doc, x["asn"], "session", i, "asn"),
                                    _asn(doc, x["neighbour"], "session", i, "neighbour") if "neighbour" in x else None,
                                    lp, prepend,
                                    _num(doc, x.get("at", 0.0), "session", i, "at")))

    events = d.get("event", [])
    if not isinstance(events, list):
        raise doc.error("want [[event]] tables", "event")
    changes_at = []  # where the ROA changes are among the events
    for i, e in enumerate(events):
        typ = e.get("type")
        doc.check_keys(e, {"at", "type", "asn", "prefix", "max_length"} if typ in CHANGES else
                       {"at", "type", "asn", "prefix", "link", "summary_only"}, "event", i)
        if typ not in EVENT_TYPES:
            raise doc.error(f"want one of {', '.join(EVENT_TYPES)}, got {typ!r}", "event", i, "type")
        if "at" not in e:
            raise doc.error("missing 'at' (seconds)", "event", i)
        if typ in CHANGES:
            changes_at.append(i)
            scn.roa_changes.append(RoaChange(_num(doc, e["at"], "event", i, "at"), typ, _roa(doc, e, "event", i)))
            continue
        ev = Event(at=_num(doc, e["at"], "event", i, "at"), type=typ)
        if "summary_only" in e and (typ != "aggregate" or not isinstance(e["summary_only"], bool)):
            raise doc.error("want true or false, on an aggregate", "event", i, "summary_only")
        ev.summary_only = e.get("summary_only", False)
        if typ in ("originate", "withdraw", "aggregate"):
            if "asn" not in e or "prefix" not in e:
                raise doc.error(f"{typ} needs asn and prefix", "event", i)
            ev.asn = _asn(doc, e["asn"], "event", i, "asn")
            ev.prefix = _prefix(doc, e["prefix"], "event", i, "prefix")
        else:
            link = e.get("link")
            if not (isinstance(link, list) and len(link) == 2):
                raise doc.error("want link = [ASN, ASN]", "event", i, "link")
            ev.link = (_asn(doc, link[0], "event", i, "link"), _asn(doc, link[1], "event", i, "link"))
        scn.events.append(ev)
    _rpki(doc, d, scn, changes_at)

    if "weighting" in d:
        w = d["weighting"]
        if isinstance(w, str):
            scn.weighting = w if w in WEIGHTINGS else str(base / w)
        elif isinstance(w, dict):
            doc.check_keys(w, {"kind", "file", "pfx2as"}, "weighting")
            kind = w.get("kind")
            if kind not in (*WEIGHTINGS, "file"):
                raise doc.error(f"want one of {', '.join(WEIGHTINGS)}, file; got {kind!r}", "weighting", "kind")
            if kind == "file":
                if not isinstance(w.get("file"), str):
                    raise doc.error("want the path of a CSV of asn,weight", "weighting", "file")
                scn.weighting = str(base / w["file"])
            else:
                scn.weighting = kind
            if "pfx2as" in w:
                if not isinstance(w["pfx2as"], str):
                    raise doc.error("want a path", "weighting", "pfx2as")
                scn.pfx2as = str(base / w["pfx2as"])
        else:
            raise doc.error("want uniform, cone, space, a CSV file name, or a table", "weighting")
    if scn.weighting == "space" and scn.pfx2as is None:
        raise doc.error("weighting 'space' needs pfx2as = a prefix-to-AS table", "weighting")

    if "target" in d:
        try:
            scn.target = parse_address(d["target"])
        except InputError as e:
            raise doc.error(e.message, "target") from None
    return scn
