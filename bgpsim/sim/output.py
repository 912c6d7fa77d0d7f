"""The output directory: result.json, ases.csv, timeline.csv, PNG figures, report.html; and the
summary `bgpsim run` prints (`summary_text`).

Everything is written into a temporary directory beside the target and renamed into place at the end,
so a failed run leaves no half-written output behind.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from bgpsim.base.outdir import staged

from .result import MAX_DRAWN_ASES, AsRow, RunResult, SignedRoute

TIMELINE_COLUMNS = ["time", "attacker", "victim", "disconnected", "loop", "diverted"]


def result_json(run: RunResult) -> str:
    """result.json's text: `json.dumps(doc, indent=1)`, byte for byte, but the timeline's rows
    encoded by json's C encoder (an indent makes json encode in Python) and laid out as the indented
    encoder would: on an incident's 80,000 rows, 0.1 s rather than 0.26."""
    doc = run.to_json()
    parts = [f" {json.dumps(k)}: " + (_number_rows(v) if k == "timeline" else json.dumps(v, indent=1).replace("\n", "\n "))
             for k, v in doc.items()]
    return "{\n" + ",\n".join(parts) + "\n}\n"


def _number_rows(rows: list[list[float]]) -> str:
    """A list of lists of numbers, one level into a document, as `json.dumps(indent=1)` lays it out.
    Numbers only: the C encoder's ", " and "], [" are then the layout's and nothing else."""
    if not rows or not all(rows):  # "[]" inside: the indented encoder's own layout
        return json.dumps(rows, indent=1).replace("\n", "\n ")
    inner = json.dumps(rows)[2:-2].replace("], [", "\n  ],\n  [\n   ").replace(", ", ",\n   ")
    return "[\n  [\n   " + inner + "\n  ]\n ]"


def write(run: RunResult, out: Path, incident: str = "", files: dict[str, str] | None = None,
          command: str = "run", figures: bool = True) -> Path:
    """The run's files in `out`, an output of `command`; `incident`: the report's incident section
    (HTML); `files`: more files to write there (name -> text); `figures`: False for no PNG (the
    report says so): on a small graph they are most of a run's time. Where the platform forks and there
    are CPUs to spare, the figures are drawn in forked processes, one each, while this one writes the
    data files and works out the report's steps: on the whole graph the figures and the steps each
    take about a second."""
    from bgpsim.base.collector import frozen
    from bgpsim.base.pool import can_fork, cpus, run_chunks
    from bgpsim.viz.report import write_report
    from bgpsim.viz.steps import steps_html

    out = Path(out)
    with frozen():  # the run's objects: the outputs only read them
        doc = result_json(run)
        with staged(out, command) as tmp:
            pictures, drawings = _figures(run, tmp) if figures else ([], [])

            def data_files() -> str:  # and the report's steps
                (tmp / "result.json").write_text(doc, encoding="utf-8")
                _data_files(run, tmp, files or {})
                return steps_html(run)

            workers = min(len(drawings), cpus()) if can_fork() and cpus() > 1 else 0  # 0: all here, in turn
            if workers > 1:  # matplotlib imported here once, not in each worker
                import bgpsim.viz.canvas  # noqa: F401
            steps = run_chunks(_draw, drawings, list(range(len(drawings))), lambda done: None, workers,
                               meanwhile=data_files, alongside=True)
            write_report(tmp / "report.html", run, pictures, incident, steps=steps, drawn=figures)
    return out


def _data_files(run: RunResult, tmp: Path, files: dict[str, str]) -> None:
    """ases.csv, timeline.csv, the crypto run's router keys and signed routes, and `files`."""
    with open(tmp / "ases.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(AsRow.COLUMNS)
        w.writerows(a.row() for a in run.ases)
    if run.router_keys is not None:  # under crypto: the keys the adopters verified with, to check captures
        from datetime import datetime, timezone

        from bgpsim.rpki.vrps import Payloads, write_json

        keys = write_json(Payloads(router_keys=run.router_keys), generated=datetime(2023, 11, 14, tzinfo=timezone.utc))
        (tmp / "router-keys.json").write_text(keys, encoding="utf-8")
    if run.signed_routes is not None:
        with open(tmp / "bgpsec.csv", "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(SignedRoute.COLUMNS)
            w.writerows(r.row() for r in run.signed_routes)
    with open(tmp / "timeline.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(TIMELINE_COLUMNS)
        w.writerows(run.rounded_timeline)
    for name, text in files.items():
        (tmp / name).write_text(text, encoding="utf-8")


def _figures(run: RunResult, tmp: Path) -> tuple[list[tuple[str, Path]], list[tuple]]:
    """The report's figures, (caption, PNG path), and how to draw each: (module, function, args,
    keywords), named so that a worker started by spawn finds them too."""
    from bgpsim.viz.style import plural

    figures, drawings = [], []

    def figure(caption: str, path: Path, module: str, function: str, *args, **kw) -> None:
        figures.append((caption, path))
        drawings.append((f"bgpsim.viz.{module}", function, (*args, path), kw))

    end = run.converged_at
    name = run.scenario.name
    weighting = run.traffic.weighting
    steady = run.engine == "steady"
    if steady:
        d = run.scenario.defence
        under = f"{d.policy} deployed by {plural(d.adopters, 'AS', 'ASes')}" if d else "no defence"
        figure("Where the traffic of every other AS goes once routing has converged.", tmp / "outcome.png",
               "outcome", "outcome_figure", run.outcome, run.traffic, title=f"{name}: converged state, {under}")
    else:
        figure("Share of ASes whose traffic to the target reaches the attacker or the victim, over simulated time.",
               tmp / "timeline.png", "timeline", "timeline_figure", run.timeline, run.marks,
               title=f"{name}: where traffic goes", end=end)
        if weighting != "uniform":  # uniform, it would be the red line of the figure above again
            figure(f"Share of traffic diverted to the attacker, each AS weighted by {weighting}.", tmp / "traffic.png",
                   "timeline", "traffic_figure", run.timeline, run.marks, weighting, end=end)
    if run.topo.n <= MAX_DRAWN_ASES:
        peak = None
        if run.peak_outcomes is not None and run.peak.attacker > 0:
            peak = (run.peak.at, run.peak_outcomes)
        figure("The topology, tier-1 at the top, each AS coloured by where its traffic goes"
               + (" at the peak of the attack and" if peak else "")
               + (" once routing has converged." if steady else " at the end."), tmp / "topology.png",
               "topology", "topology_figure", run.topo, run.outcomes, run.attacker, run.victim,
               title="Converged" if steady else f"At the end (t = {end:.1f} s)", peak=peak, adopters=run.adopters)
    return figures, drawings


def _draw(drawings: list[tuple], chunk: list[int]) -> list:
    """Draw the figures `chunk` indexes (a job of `run_chunks`)."""
    from importlib import import_module

    for k in chunk:
        module, function, args, kw = drawings[k]
        getattr(import_module(module), function)(*args, **kw)
    return []


def _n(k: int, one: str, many: str = "") -> str:
    """A count and its noun: "1 event", "2 events", "1 AS", "3 ASes"."""
    return f"{k:,} {one if k == 1 else many or one + 's'}"


def summary_text(run: RunResult, out: Path, wall: float) -> str:
    """What `bgpsim run` prints: the scenario, what the engine computed and where traffic goes. The
    converged-state engine computes routes only, so its summary names no time, message or event."""
    t, o, target = run.topo, run.outcome, run.scenario.target
    pct = lambda x: f"{100 * x:.1f} %"
    shares = (f"attacker {pct(o.attacker)}, victim {pct(o.victim)}, disconnected {pct(o.disconnected)}, "
              f"loop {pct(o.loop)} of source ASes")
    steady = run.engine == "steady"
    lines = [f"bgpsim: {run.scenario.name} on {t.name} ({_n(t.n, 'AS', 'ASes')}, {_n(t.links, 'link')}), seed {run.seed}"]
    att = run.scenario.attack
    if att:
        lines.append(f"  {att.kind} by {t.label(run.attacker)} against {t.label(run.victim)}: "
                     f"{', '.join(att.prefixes)}" + ("" if steady else f" at t = {att.start:g} s"))
    if steady:
        lines.append(f"  converged state: the route each AS settles on, computed directly "
                     f"({wall:.2f} s wall, loading the graph included)")
        lines.append(f"  once converged, traffic to {target}: {shares}")
    else:
        state = (f"settled at t = {run.converged_at:.1f} s" if run.converged
                 else f"stopped at t = {run.converged_at:.1f} s before settling")
        lines.append(f"  routing {state}: {_n(run.events, 'event')}, {_n(run.messages, 'message')} ({wall:.1f} s wall)")
        if att and run.peak.attacker > o.attacker:
            lines.append(f"  at the peak (t = {run.peak.at:.1f} s) {pct(run.peak.attacker)} of source ASes "
                         f"sent their traffic to the attacker")
        lines.append(f"  at the end, traffic to {target}: {shares}")
    lines.append(f"  diverted traffic ({run.traffic.weighting}): {pct(run.traffic.diverted)}")
    if run.crypto is not None:
        c = run.crypto
        refused = sum(1 for r in run.signed_routes or () if r.state not in ("valid", "unsigned", "origin", ""))
        lines.append(f"  BGPsec: {_n(c.signatures, 'signature')} made, {c.verified:,} verified, "
                     f"{_n(c.reused, 'check')} reused; {_n(refused, 'adopter holds', 'adopters hold')} a route whose "
                     f"signatures do not verify (bgpsec.csv)")
    lines.append(f"  report: {out / 'report.html'}")
    return "\n".join(lines)
