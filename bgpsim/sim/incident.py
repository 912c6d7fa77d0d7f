"""Real incidents: a scenario file with an `[incident]` table, and what each defence would have done.

An incident file is a scenario (bgpsim.sim.scenario) whose `[incident]` table says when it happened,
what to call it, where the facts come from, and what the model leaves out:

    [incident]
    date = "2008-02-24"
    title = "Pakistan Telecom hijacks YouTube"
    sources = ["RIPE NCC, YouTube Hijacking: A RIPE NCC RIS case study, 2008, https://..."]
    model = "what is modelled, and how"            # optional
    victims = [{ asn = 13335, prefix = "104.16.0.0/20" }, ...]   # optional: a mass incident's sample

The timed engine replays the scenario as written. The counterfactuals are the same attack on the
converged-state engine: no defence, then each of COUNTERFACTUALS deployed by a seeded random half of
the ASes and by all of them; a mass incident runs every victim of its sample (the scenario's own first)
and averages. The graph is the one the file names (today's, not the incident's): `topology` is a
file name looked for beside the file, then in the folders of $BGPSIM_DATA (bgpsim.base.datafiles).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

import numpy as np

from bgpsim.base.datafiles import DATA_ENV
from bgpsim.base.errors import InputError
from bgpsim.base.prefix import Prefix, parse_prefix
from bgpsim.base.tomlfile import TomlFile
from bgpsim.rpki.rov import VRPTable

from .attacks import victim_roa
from .scenario import Scenario, load_scenario

# Policy names that say what they are: ASPA, BGPsec and path-end as BGPy deploys them, with ROV
# (`rov+aspa` is the policy `aspa`), each beside the mechanism alone, so a row shows what it adds to ROV;
# then the rest of BGPy's defences, named as `label` names them. The withdrawal policies (bgp-full,
# rost...) are left out: at rest, where these rows are computed, nothing is being withdrawn and they
# route as no defence does.
COUNTERFACTUALS = ("rov", "rov+aspa", "aspa-alone", "rov+bgpsec", "bgpsec-alone", "rov+path-end", "path-end-alone",
                   "otc", "peerlock-lite", "maxlen", "prefix-list", "max-prefix",
                   "rovpp-v1", "rovpp-v2", "rovpp-v2i", "rov+asra", "rov+aspa-wn", "rov+provider-cone-id",
                   "rov+bgp-isec-transitive", "rov+bgp-isec-otc", "rov+bgp-isec-pcid", "rov+bgp-isec",
                   "edge-filter", "rov-edge-filter")
PARTIAL = 0.5  # the share of ASes deploying a defence in the "partial" column
EXACT = {"subprefix": "prefix", "forged-origin-subprefix": "forged-origin"}  # a sub-prefix attack on a /24
CAIDA_URL = "https://publicdata.caida.org/datasets/as-relationships/serial-2/"


@dataclass
class Incident:
    name: str
    date: str
    title: str
    sources: list[str]
    scenario: Scenario
    model: str = ""
    victims: list[tuple[int, Prefix]] = field(default_factory=list)  # (ASN, prefix); the scenario's first

    def line(self) -> str:
        """What `bgpsim incident --list` prints: the name, the date and the title."""
        return f"{self.name:<22} {self.date}  {self.title}"


def bundled() -> Path:
    return Path(str(files("bgpsim.scenarios").joinpath("incidents")))


def names() -> list[str]:
    return sorted(p.stem for p in bundled().glob("*.toml"))


def find(name: str) -> Path:
    """A bundled incident by name, or an incident file's path."""
    path = bundled() / f"{name}.toml"
    if path.is_file():
        return path
    if name.endswith(".toml") and Path(name).is_file():
        return Path(name)
    raise InputError(f"no incident {name!r}; want one of {', '.join(names())} (bgpsim incident --list), "
                     "or an incident file")


def load_incident(path: str | Path, topology: str | None = None, graph: bool = True) -> Incident:
    """The incident in file `path`; `topology`: a graph file to use instead of the one it names;
    `graph` False: do not look for the graph (to list incidents)."""
    scn = load_scenario(path)  # first: it reads the file and says what is wrong with the scenario
    doc = TomlFile(path)
    t = doc.data.get("incident")
    if not isinstance(t, dict):
        raise doc.error("want an [incident] table (date, title, sources)", "incident")
    doc.check_keys(t, {"date", "title", "sources", "model", "victims"}, "incident")
    for key in ("date", "title"):
        if not isinstance(t.get(key), str) or not t[key].strip():
            raise doc.error("want a non-empty string", "incident", key)
    sources = t.get("sources")
    if not isinstance(sources, list) or not sources or not all(isinstance(s, str) and s.strip() for s in sources):
        raise doc.error("want a list of the sources the facts come from", "incident", "sources")
    if not isinstance(t.get("model", ""), str):
        raise doc.error("want a string", "incident", "model")
    if scn.victim is None:
        raise doc.error("an incident names its victim", "victim", "asn")
    if scn.attack is not None and scn.attack.attacker is None:
        raise doc.error("an incident names its attacker", "attack", "attacker")
    if graph:
        scn.topology = _graph(scn.topology, topology, doc.path)
    victims = [(scn.victim, scn.prefixes[0])]
    given = t.get("victims", [])
    if not isinstance(given, list):
        raise doc.error("want a list of { asn, prefix } tables", "incident", "victims")
    for i, v in enumerate(given):
        if not isinstance(v, dict) or set(v) != {"asn", "prefix"}:
            raise doc.error("want { asn = ASN, prefix = PREFIX }", "incident", "victims", i)
        asn = v["asn"]
        if isinstance(asn, bool) or not isinstance(asn, int) or not 0 < asn < 2**32:
            raise doc.error(f"want an ASN (1..4294967295), got {asn!r}", "incident", "victims", i, "asn")
        try:
            victims.append((asn, parse_prefix(v["prefix"])))
        except InputError as e:
            raise doc.error(e.message, "incident", "victims", i, "prefix") from None
    return Incident(Path(path).stem, t["date"], t["title"], sources, scn, t.get("model", ""), victims)


def _graph(found: str, given: str | None, source: str) -> str:
    """The graph file: `given`, else the one the scenario loader found (beside the incident or in
    $BGPSIM_DATA, bgpsim.base.datafiles), which must exist."""
    if given:
        return given
    if Path(found).is_file():
        return found
    raise InputError(f"{source}: the graph {Path(found).name} was not found beside the incident or in ${DATA_ENV}; "
                     f"give --topology FILE, or download it from {CAIDA_URL} into a folder named by ${DATA_ENV}")


@dataclass(frozen=True)
class Counterfactual:
    """One row of the table: a defence (None: none) deployed by a share of the ASes, and where the
    other ASes' traffic went, averaged over the incident's victims."""

    defence: str | None
    deployment: float  # share of ASes deploying it (0 without a defence)
    trials: int
    attacker: float  # share of ASes whose traffic reaches the attacker
    disconnected: float  # ... that have no route (or a loop)
    diverted: float  # share of traffic (weighted as the scenario says) that reaches the attacker

    COLUMNS = ("defence", "deployment", "trials", "attacker", "disconnected", "diverted")

    def row(self) -> list:
        return [self.defence or "none", self.deployment, self.trials, round(self.attacker, 6),
                round(self.disconnected, 6), round(self.diverted, 6)]


class Trials:
    """The counterfactual trials of an incident, each (victim k, configuration c) on its own: what
    they share (the graph's plan, each victim's adopters, ROAs and traffic weights) is made once, here,
    and read by every job, in this process, in forked workers or on a Dask cluster."""

    def __init__(self, incident: Incident, topo):
        from .engine.steady import plan_for
        from .weighting import weights

        scn = incident.scenario
        self.topo, self.plan = topo, plan_for(topo)
        self.kind, self.attacker = scn.attack.kind, topo.idx(scn.attack.attacker, "attacker AS")
        self.configs = [(None, 0.0)] + [(d, share) for d in COUNTERFACTUALS for share in (PARTIAL, 1.0)]
        self.victims = []
        a = self.attacker
        for k, (asn, prefix) in enumerate(incident.victims):
            v = topo.idx(asn, "victim AS")
            w, _ = weights(scn.weighting, topo, prefix.version, scn.pfx2as)
            # the victim adopts, the attacker never (as `bgpsim run --adoption` draws them)
            others = np.setdiff1d(np.arange(topo.n), [a, v])
            drawn = np.random.default_rng([scn.seed, k]).choice(others, round(PARTIAL * len(others)), replace=False)
            adopting = {PARTIAL: np.sort(np.append(drawn, v)), 1.0: np.append(others, v)}
            # the attack's own prefix for the scenario's victim; a sample victim's: its first /24 (/48), or
            # its own prefix when that is a /24 (/48) already (nothing longer is announced, as in the reports)
            attack_prefix, via = (scn.attack.prefix, scn.attack.via) if k == 0 else (None, None)
            kind = EXACT.get(self.kind, self.kind) if k and prefix.prefixlen >= (24 if prefix.version == 4 else 48) else self.kind
            self.victims.append((v, prefix, w, adopting, _roas(scn, asn, prefix), attack_prefix, via, kind))

    def jobs(self) -> list[tuple[int, int]]:
        return [(k, c) for k in range(len(self.victims)) for c in range(len(self.configs))]

    def run(self, jobs: list[tuple[int, int]]) -> list[tuple[int, int, tuple[float, float, float]]]:
        """Each job's shares: of ASes reaching the attacker, of ASes cut off (or in a loop), of traffic diverted."""
        from . import trial

        out = []
        for k, c in jobs:
            v, prefix, w, adopting, vrps, attack_prefix, via, kind = self.victims[k]
            policy, share = self.configs[c]
            res = trial.run(self.topo, kind, self.attacker, v, policy, () if policy is None else adopting[share],
                            plan=self.plan, prefix=prefix, vrps=vrps, attack_prefix=attack_prefix, via=via)
            fr = res.fractions()
            out.append((k, c, (fr["attacker"], fr["disconnected"] + fr["loop"], res.diverted(w))))
        return out


def counterfactuals(incident: Incident, topo, tick=None, workers: int = 1, client=None, meanwhile=None):
    """The incident's attack on the converged-state engine: without a defence, then under each of
    COUNTERFACTUALS at PARTIAL and at full deployment, averaged over its victims. The trials run in
    `workers` processes, or on the Dask cluster of `client` (bgpsim.base.pool.run_chunks);
    `meanwhile()` is run in this process while they do (the timed replay). `tick(done, total)` reports
    progress. Returns the rows, and what `meanwhile` returned."""
    from bgpsim.base.pool import run_chunks

    if incident.scenario.attack is None:
        return [], meanwhile() if meanwhile else None
    trials = Trials(incident, topo)
    jobs = trials.jobs()
    results = {}

    def take(got):
        for k, c, shares in got:
            results[(k, c)] = shares
        if tick is not None:
            tick(len(results), len(jobs))

    other = run_chunks(Trials.run, trials, jobs, take, workers, client, meanwhile)
    n = len(trials.victims)
    rows = []
    for c, (policy, share) in enumerate(trials.configs):
        sums = np.zeros(3)
        for k in range(n):  # in the victims' order, so the sums are the same bytes however the jobs ran
            sums += results[(k, c)]
        rows.append(Counterfactual(policy, share, n, *(sums / n)))
    return rows, other


def _roas(scn: Scenario, asn: int, prefix: Prefix) -> VRPTable:
    """What ROV checks against: the scenario's ROAs for its own victim; a sample victim's prefix, as
    its holder would register it (maxLength its length)."""
    if asn == scn.victim and scn.roas:
        return VRPTable(scn.roas)
    return VRPTable([victim_roa(prefix, asn)])


__all__ = ["COUNTERFACTUALS", "PARTIAL", "Counterfactual", "Incident", "Trials", "counterfactuals", "find", "load_incident",
           "names"]


class Replay:
    """`bgpsim incident NAME`: the incident replayed on the timed engine as written, and its
    counterfactuals on the converged state meanwhile (in `workers` processes, or on the Dask cluster
    of `client`), written to `out` (an output of `bgpsim incident`, checked when the replay is made,
    before any work), with its figures unless `figures` is False."""

    def __init__(self, incident: Incident, out: Path, talk: bool, workers: int = 1, client=None, figures: bool = True):
        from bgpsim.base import outdir

        outdir.check(out, "incident")
        self.incident, self.out, self.talk = incident, out, talk
        self.workers, self.client, self.figures = workers, client, figures
        self.wall = 0.0

    def run(self):
        """The timed run and the counterfactual rows, once written."""
        import csv
        import io
        import sys
        import time

        from bgpsim.base.console import Bar, Progress
        from bgpsim.graph.topology import load_topology
        from bgpsim.viz.incident import incident_html

        from .output import write
        from .plan import resolve
        from .run import simulate

        started = time.perf_counter()
        shown = self.talk and sys.stderr.isatty()
        topo = load_topology(self.incident.scenario.topology)
        bar = None

        def replay():
            nonlocal bar
            progress = Progress(enabled=shown)
            try:
                return simulate(resolve(self.incident.scenario, topo), progress)
            finally:
                progress.close()
                bar = Bar(shown, "trial")  # the trials' bar from here on: one bar at a time

        def tick(done, total):
            if bar is not None:
                bar(done, total)

        try:
            rows, run = counterfactuals(self.incident, topo, tick, self.workers, self.client, meanwhile=replay)
        finally:
            if bar is not None:
                bar.close()
        table = io.StringIO()
        w = csv.writer(table, lineterminator="\n")
        w.writerow(Counterfactual.COLUMNS)
        w.writerows(r.row() for r in rows)
        section = incident_html(self.incident, rows, topo.name, run.traffic.weighting)
        write(run, self.out, section, {"counterfactuals.csv": table.getvalue()}, "incident", self.figures)
        self.wall = time.perf_counter() - started
        return run, rows

    def summary(self, run, rows: list[Counterfactual]) -> str:
        pct = lambda x: f"{100 * x:5.1f} %"
        i = self.incident
        lines = [f"bgpsim: {i.name}: {i.title} ({i.date}), on {run.topo.name} ({run.topo.n:,} ASes); {self.wall:.1f} s",
                 f"  replayed: at the end {pct(run.outcome.attacker).strip()} of source ASes reach the attacker "
                 f"(peak {pct(run.peak.attacker).strip()} at t = {run.peak.at:.0f} s)"]
        if rows:
            n = rows[0].trials
            lines.append(f"  converged state, ASes reaching the attacker (traffic diverted), {n} victim{'s' if n != 1 else ''}:")
            names = list(dict.fromkeys(r.defence for r in rows[1:]))
            width = max(map(len, names), default=4)
            lines.append(f"    {'none':<{width}} {pct(rows[0].attacker)} ({pct(rows[0].diverted).strip()})")
            for name in names:
                half, full = (r for r in rows[1:] if r.defence == name)
                lines.append(f"    {name:<{width}} half deploy {pct(half.attacker)} ({pct(half.diverted).strip()}), "
                             f"all deploy {pct(full.attacker)} ({pct(full.diverted).strip()})")
        lines.append(f"  written to {self.out}/ (report.html, counterfactuals.csv, result.json, ...)")
        return "\n".join(lines)
