"""Figures that read (issue 27): every figure `bgpsim run` writes for every bundled scenario (on the timed
engine, and on the converged-state one where the scenario allows it) and for every incident moved onto
the teaching graph, drawn and checked with matplotlib's own text extents (bgpsim.viz.canvas.crowding):
no label over another label or over the data, no empty panel, every zoom panel filled by its burst.
The sweep's figure shows every defence even where their curves coincide. bench/bench_figures.py runs
the same check on the full incidents on the real graph."""

from __future__ import annotations

import json
import re
import tomllib

import numpy as np
import pytest
from helpers import ROOT
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from bgpsim.base.errors import InputError
from bgpsim.cli import main
from bgpsim.graph.topology import load_topology
from bgpsim.sim import incident as inc
from bgpsim.sim.converged import converged
from bgpsim.sim.result import MAX_DRAWN_ASES, Mark
from bgpsim.sim.plan import resolve
from bgpsim.sim.run import simulate
from bgpsim.sim.scenario import load_scenario
from bgpsim.viz.canvas import crowding
from bgpsim.viz.outcome import outcome_plot
from bgpsim.viz.sweep import sweep_plot
from bgpsim.viz.timeaxis import idle_zooms
from bgpsim.viz.timeline import timeline_plot, traffic_plot
from bgpsim.viz.topology import topology_plot

TEACHING = ROOT / "scenarios" / "topologies" / "teaching.toml"
SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml"))


def figures(run, topology: bool = True) -> dict[str, Figure]:
    """The figures bgpsim/sim/output.py saves for `run`, with the same arguments, before saving."""
    name, end = run.scenario.name, run.converged_at
    out = {}
    if run.engine == "steady":
        d = run.scenario.defence
        under = f"{d.policy} deployed by {d.adopters:,} ASes" if d else "no defence"
        out["outcome"] = outcome_plot(run.outcome, run.traffic, title=f"{name}: converged state, {under}")
    else:
        out["timeline"] = timeline_plot(run.timeline, run.marks, title=f"{name}: where traffic goes", end=end)
        if run.traffic.weighting != "uniform":
            out["traffic"] = traffic_plot(run.timeline, run.marks, run.traffic.weighting, end=end)
    if topology and run.topo.n <= MAX_DRAWN_ASES:
        peak = (run.peak.at, run.peak_outcomes) if run.peak_outcomes is not None and run.peak.attacker > 0 else None
        out["topology"] = topology_plot(run.topo, run.outcomes, run.attacker, run.victim,
                                        "Converged" if run.engine == "steady" else f"At the end (t = {end:.1f} s)",
                                        peak=peak, adopters=run.adopters)
    return out


def problems(run, topology: bool = True) -> list[str]:
    out = []
    for kind, fig in figures(run, topology).items():
        found = crowding(fig) + (idle_zooms(fig) if kind in ("timeline", "traffic") else [])
        out += [f"{run.scenario.name} ({run.engine}) {kind}.png: {p}" for p in found]
    return out


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_bundled_scenarios_figures_read(path):
    scn = load_scenario(path)
    topo = load_topology(scn.topology)
    runs = [simulate(resolve(scn, topo))]
    try:
        runs.append(converged(resolve(load_scenario(path), topo)))
    except InputError as e:  # mitigation, events, sessions, real signatures: the timed engine's alone
        assert "needs the timed engine" in str(e)
    assert [p for run in runs for p in problems(run)] == []


def on_teaching(name: str, tmp_path):
    """The incident's file with the teaching graph for the real one: its victim is VideoTube (AS64510),
    its attacker Rogue Telecom (AS64511) or, for a leak, Keystone Steel (AS65537) leaking what it
    learns from AS64500; times, prefixes, events and ROAs as the file has them."""
    text = inc.find(name).read_text()
    doc = tomllib.loads(text)
    swap = {doc["victim"]["asn"]: 64510}
    attack = doc.get("attack", {})
    if attack:
        swap[attack["attacker"]] = 65537 if attack["kind"] == "leak" else 64511
        if "via" in attack:
            swap[attack["via"]] = 64500
    text = re.sub(r"^topology = .*$", f'topology = "{TEACHING}"', text, count=1, flags=re.M)
    for old, new in swap.items():
        text = re.sub(rf"\b((?:asn|attacker|via) = ){old}\b", rf"\g<1>{new}", text)
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return inc.load_incident(path)


@pytest.mark.parametrize("name", inc.names())
def test_every_incidents_figures_read_on_the_teaching_graph(name, tmp_path):
    """Its timeline and traffic figures: the incident's marks over hours, with bursts of a fraction of
    a second (the topology figure is the scenarios' own, checked above)."""
    run = simulate(resolve(on_teaching(name, tmp_path).scenario))
    assert run.victim == 64510 and run.traffic.weighting != "uniform"
    assert problems(run, topology=False) == []


def _pixels(fig: Figure, ax, colour) -> int:
    """How many pixels of `ax` are drawn in `colour` itself (lines and markers; not the pale bands)."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    img = np.asarray(canvas.buffer_rgba())[:, :, :3].astype(int)
    box = ax.get_window_extent()
    h = img.shape[0]
    part = img[int(h - box.y1):int(h - box.y0), int(box.x0):int(box.x1)]
    want = np.round(np.asarray(colour[:3]) * 255).astype(int)
    return int(np.sum(np.all(np.abs(part - want) <= 12, axis=2)))


def test_a_sweeps_coinciding_curves_all_show(tmp_path):
    """ROV, ASPA, BGPsec and path-end give the same curve against a sub-prefix hijack, none and ROV
    against a forged origin: each defence still shows its colour in each panel (striped lines, nested
    markers), and the panel's title names those that coincide."""
    out = tmp_path / "sweep"
    policies = ["none", "rov", "aspa", "bgpsec", "path-end"]
    assert main(["sweep", "--attack", "subprefix,forged-origin", "--policy", ",".join(policies),
                 "--adoption", "0,0.2,0.4,0.6,0.8,1", "--trials", "4", "--out", str(out), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    fig = sweep_plot(summary)
    assert crowding(fig) == []
    colours = {t.get_text(): h.get_color() for t, h in zip(fig.legends[0].get_texts(), fig.legends[0].legend_handles)}
    assert list(colours) == ["none", "rov", "rov+aspa", "rov+bgpsec", "rov+path-end"]  # named by what each deploys
    sub, forged = fig.axes
    assert "rov, rov+aspa, rov+bgpsec and rov+path-end coincide" in sub.get_title()
    assert "none and rov coincide" in forged.get_title()
    from matplotlib.colors import to_rgb

    for ax in (sub, forged):
        shown = {p: _pixels(fig, ax, to_rgb(c)) for p, c in colours.items()}
        assert min(shown.values()) > 100, (ax.get_title(), shown)  # a curve drawn over: none of its own


# ------------------------------------------------------------------------------------- the check itself

def _plain():
    fig = Figure(figsize=(6, 4), layout="constrained")
    ax = fig.add_subplot()
    ax.plot([0, 10], [0, 10], label="rising")
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    ax.set_title("a panel")
    return fig, ax


def test_the_check_sees_what_hides_what():
    fig, ax = _plain()
    assert crowding(fig) == []
    ax.text(5, 5, "on the line", ha="center", va="center")  # the line runs through its middle
    ax.text(1, 8, "one label")
    ax.text(1.2, 8, "another label")
    found = crowding(fig)
    assert "“on the line” hides line “rising”" in found
    assert "“one label” overlaps “another label”" in found
    fig, ax = _plain()
    ax.fill_between([0, 10], [0, 0], [10, 10], color="red", alpha=0.2, label="band")
    ax.text(7, 2, "in the band")
    ax.legend(loc="upper left")  # over the band
    found = crowding(fig)
    assert "“in the band” hides area “band”" in found and any(f.startswith("legend hides") for f in found)
    fig, ax = _plain()
    ax.set_xlim(20, 30)  # the line is elsewhere
    assert crowding(fig) == ["panel “a panel” is empty"]


def test_changes_too_small_to_see_get_no_zoom():
    """MainOne's leak on today's graph moves a few ASes of 78,643: a panel of it would show flat lines."""
    rows = [(0.0, 0.0, 1.0, 0.0, 0.0, 0.0), (0.012, 0.00001, 0.99999, 0.0, 0.0, 0.0),
            (0.054, 0.00003, 0.99997, 0.0, 0.0, 0.0), (4980.0, 0.0, 1.0, 0.0, 0.0, 0.0)]
    fig = timeline_plot(rows, [Mark(0.0, "leak starts"), Mark(4980.0, "leak stops")], end=4980.1)
    assert len(fig.axes) == 1 and crowding(fig) == []
    steep = [rows[0], (0.012, 0.3, 0.7, 0.0, 0.0, 0.0), (0.054, 0.6, 0.4, 0.0, 0.0, 0.0), rows[-1]]
    fig = timeline_plot(steep, [Mark(0.0, "leak starts"), Mark(4980.0, "leak stops")], end=4980.1)
    assert len(fig.axes) == 2 and idle_zooms(fig) == []
    for line in fig.axes[1].lines:  # the same panel over changes a thousand times smaller
        line.set_ydata(np.asarray(line.get_ydata(), dtype=float) / 1000)
    assert idle_zooms(fig) == ["zoom panel “A”: its changes move no share by a percentage point"]


def test_the_zoom_check_sees_a_lull():
    """A burst 28 s after its mark drawn in a panel from the mark would be a lull with the changes at
    its end; the panel starts with the changes instead and says how long after the mark they came."""
    rows = [(0.0, 0.0, 1.0, 0.0, 0.0, 0.0), (10.02, 0.5, 0.5, 0.0, 0.0, 0.5), (10.2, 1.0, 0.0, 0.0, 0.0, 1.0),
            (5488.0, 0.5, 0.5, 0.0, 0.0, 0.5), (5488.3, 0.2, 0.8, 0.0, 0.0, 0.2), (5488.6, 0.0, 1.0, 0.0, 0.0, 0.0)]
    marks = [Mark(10.0, "attack starts"), Mark(5460.0, "victim announces more-specifics")]
    for fig in (timeline_plot(rows, marks, end=5500.0), traffic_plot(rows, marks, "cone", end=5500.0)):
        assert crowding(fig) == [] and idle_zooms(fig) == []
        a, b = fig.axes[1:]
        assert a.get_title(loc="left").startswith("A: the 0.2 s after “attack starts”")
        assert " ".join(b.get_title(loc="left").split()).startswith("B: 3 changes within 0.6 s, 28 s after “victim")
        assert b.get_xlim()[0] > 5480
    fig = timeline_plot(rows, marks, end=5500.0)
    fig.axes[2].set_xlim(5460.0, 5489.0)  # what the panel was before: from the mark
    assert len(idle_zooms(fig)) == 1
