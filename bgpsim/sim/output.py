"""The output directory: result.json, ases.csv, timeline.csv, PNG figures, report.html.

Everything is written into a temporary directory beside the target and renamed into place at the end,
so a failed run leaves no half-written output behind.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from bgpsim.base.outdir import staged
from .result import Run

ASES_COLUMNS = ["asn", "name", "role", "outcome", "attacker_at", "switched_at", "prefix", "path", "relationship"]
TIMELINE_COLUMNS = ["time", "attacker", "victim", "disconnected", "loop", "diverted"]


def result_json(run: Run) -> str:
    return json.dumps(run.result, indent=1, sort_keys=False) + "\n"


def write(run: Run, out: Path) -> Path:
    from bgpsim.viz.figures import MAX_DRAWN_ASES, outcome_figure, timeline_figure, topology_figure, traffic_figure
    from bgpsim.viz.report import write_report

    out = Path(out)
    with staged(out, "run") as tmp:
        (tmp / "result.json").write_text(result_json(run), encoding="utf-8")
        with open(tmp / "ases.csv", "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=ASES_COLUMNS, lineterminator="\n")
            w.writeheader()
            w.writerows(run.ases)
        with open(tmp / "timeline.csv", "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(TIMELINE_COLUMNS)
            w.writerows([round(x, 6) for x in row] for row in run.timeline)
        r = run.result
        figures = []
        end = r["converged_at"]
        steady = r.get("engine") == "steady"
        if steady:
            outcome_figure(r["outcome"], r["traffic"]["diverted"], r["traffic"]["weighting"], tmp / "outcome.png",
                           title=f"{r['scenario']['name']}: converged state")
            figures.append(("Where the traffic of every other AS goes once routing has converged.", tmp / "outcome.png"))
        else:
            timeline_figure(run.timeline, r["marks"], tmp / "timeline.png", title=f"{r['scenario']['name']}: where traffic goes", end=end)
            figures.append(("Share of ASes whose traffic to the target reaches the attacker or the victim, over simulated time.", tmp / "timeline.png"))
            traffic_figure(run.timeline, r["marks"], r["traffic"]["weighting"], tmp / "traffic.png", end=end)
            w = r["traffic"]["weighting"]
            figures.append(("Share of traffic diverted to the attacker. Every source AS counts the same here, so this is the "
                            "red line of the figure above; --weighting cone or space weighs ASes by size."
                            if w == "uniform" else f"Share of traffic diverted to the attacker, each AS weighted by {w}.", tmp / "traffic.png"))
        if run.topo.n <= MAX_DRAWN_ASES:
            peak = None
            if run.peak_outcomes is not None and r["peak"]["attacker"] > 0:
                peak = {"time": r["peak"]["at"], "outcomes": run.peak_outcomes}
            topology_figure(run.topo, run.outcomes, r["attacker"], r["victim"], tmp / "topology.png",
                            title="Converged" if steady else f"At the end (t = {end:.1f} s)", peak=peak)
            figures.append(("The topology, tier-1 at the top, each AS coloured by where its traffic goes"
                            + (" at the peak of the attack and" if peak else "") + " at the end.", tmp / "topology.png"))
        write_report(tmp / "report.html", r, run.ases, figures)
    return out
