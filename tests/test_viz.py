"""Figures (PNG) and the self-contained HTML report."""

from __future__ import annotations

import base64
import re
from dataclasses import replace

import matplotlib.image as mpimg
import pytest

from bgpsim.graph.topology import read_toml
from bgpsim.sim.result import (
    MAX_DRAWN_ASES, AsRow, AttackInfo, DefenceInfo, Mark, MitigationInfo, Peak, RunResult, ScenarioInfo, Shares,
    TimingInfo, TopologyInfo, Traffic,
)
from bgpsim.viz import layout as tiers, timeaxis
from bgpsim.viz.outcome import outcome_figure
from bgpsim.viz.report import render_report, select_rows, write_report
from bgpsim.viz.story import summary_text
from bgpsim.viz.timeaxis import bursts
from bgpsim.viz.timeline import timeline_figure, timeline_plot, traffic_figure, traffic_plot
from bgpsim.viz.layout import layout
from bgpsim.viz.topology import row_captions, topology_figure, topology_plot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

TOPO_TOML = """
name = "Tiny test internet"

[[as]]
asn = 10
name = "Tier One A"
role = "tier-1"
peers = [20]

[[as]]
asn = 20
name = "Tier One B"
role = "tier-1"

[[as]]
asn = 100
name = "Transit <script>alert(1)</script>"
role = "transit"
providers = [10]

[[as]]
asn = 200
name = "Transit Two"
role = "transit"
providers = [20]
peers = [100]

[[as]]
asn = 1000
name = "Attacker Net"
role = "stub"
providers = [100]

[[as]]
asn = 2000
name = "Victim Net"
role = "stub"
providers = [200, 10]

[[as]]
asn = 3000
role = "stub"
providers = [200]
"""

TIMELINE = [
    (0.0, 0.0, 1.0, 0.0, 0.0, 0.0),
    (0.4, 0.2, 0.8, 0.0, 0.0, 0.15),
    (12.5, 0.6, 0.3, 0.1, 0.0, 0.55),
    (31.0, 0.71, 0.29, 0.0, 0.0, 0.684),
    (90.0, 0.429, 0.571, 0.0, 0.0, 0.333),
]
MARKS = [Mark(0.0, "attack starts"), Mark(60.0, "victim announces more-specifics")]
# A hijack that spreads within 0.3 s of its start, and a victim's answer that wins it all back within 0.2 s,
# on an axis of about 200 s: both bursts are far too quick to see on the whole axis.
BURST = [
    (0.0, 0.0, 1.0, 0.0, 0.0, 0.0),
    (10.03, 0.1, 0.9, 0.0, 0.0, 0.1),
    (10.08, 0.4, 0.6, 0.0, 0.0, 0.4),
    (10.15, 0.8, 0.2, 0.0, 0.0, 0.8),
    (10.28, 1.0, 0.0, 0.0, 0.0, 1.0),
    (150.02, 0.6, 0.3, 0.1, 0.0, 0.6),
    (150.09, 0.2, 0.8, 0.0, 0.0, 0.2),
    (150.16, 0.0, 1.0, 0.0, 0.0, 0.0),
]
BURST_MARKS = [Mark(10.0, "attack starts"), Mark(150.0, "victim announces more-specifics")]


@pytest.fixture
def topo(tmp_path):
    p = tmp_path / "tiny.toml"
    p.write_text(TOPO_TOML, encoding="utf-8")
    return read_toml(p)


OUTCOMES = {10: "attacker", 20: "victim", 100: "attacker", 200: "victim", 1000: "attacker", 2000: "victim",
            3000: "disconnected"}


def _check_png(path, min_w=300, min_h=200):
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert b"Software" not in data  # no version string: the same input gives the same bytes everywhere
    img = mpimg.imread(str(path))
    h, w = img.shape[:2]
    assert w >= min_w and h >= min_h
    assert w < 5000 and h < 5000
    # not a blank canvas: several distinct colours
    flat = img.reshape(-1, img.shape[2])[::37]
    assert len({tuple(px) for px in flat.tolist()}) > 5
    return data


# ------------------------------------------------------------------------------------------- figures

def test_timeline_figure_writes_png_and_is_reproducible(tmp_path):
    a, b = tmp_path / "a.png", tmp_path / "sub" / "b.png"
    timeline_figure(TIMELINE, MARKS, a)
    timeline_figure(TIMELINE, MARKS, b)
    assert _check_png(a) == _check_png(b)
    # different data must give a different picture
    c = tmp_path / "c.png"
    timeline_figure(TIMELINE[:-1] + [(90.0, 0.9, 0.1, 0.0, 0.0, 0.8)], MARKS, c)
    assert c.read_bytes() != a.read_bytes()
    # no temp files left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.png", "c.png", "sub"]


def test_timeline_loop_line_only_when_nonzero(tmp_path):
    without = [r[:4] for r in TIMELINE]  # no loop column at all
    zeros = [r[:4] + (0.0,) for r in TIMELINE]
    some = [r[:4] + (0.05 if i == 2 else 0.0,) for i, r in enumerate(TIMELINE)]
    paths = [tmp_path / f"{k}.png" for k in ("without", "zeros", "some")]
    for rows, p in zip((without, zeros, some), paths):
        timeline_figure(rows, MARKS, p)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[1].read_bytes() != paths[2].read_bytes()


def test_timeline_columns_are_the_rows_padded_with_nan():
    """Rows of six are read at once, others row by row: both are the rows, cut at six, padded with NaN
    (None is NaN), in time order."""
    import random

    import numpy as np

    rnd = random.Random(7)
    for _ in range(200):
        width = rnd.choice([3, 6, 6, 7, None])
        rows = [tuple(rnd.random() * 100 if j == 0 else rnd.choice([rnd.random(), 0, 1, None, True])
                      for j in range(width or rnd.choice([1, 3, 6, 8]))) for _ in range(rnd.randrange(30))]
        want = np.full((len(rows), 6), np.nan)
        for i, r in enumerate(rows):
            want[i, :min(len(r), 6)] = [np.nan if v is None else float(v) for v in r[:6]]
        want = want[np.argsort(want[:, 0], kind="stable")]
        assert np.array_equal(timeaxis.columns(rows), want, equal_nan=True)
    with pytest.raises(ValueError, match="row 1 is empty"):
        timeaxis.columns([(0.0, 1.0), ()])


def test_timeline_extends_past_last_row_and_marks():
    import numpy as np

    lo, hi = timeaxis.x_range(np.array([0.0, 10.0, 50.0]), [Mark(80.0, "x")])
    assert lo == 0.0 and hi > 80.0
    xs, ys = timeaxis.extended(np.array([0.0, 50.0]), np.array([10.0, 70.0]), hi)
    assert xs[-1] == hi and ys[-1] == 70.0


def test_timeline_title_changes_picture(tmp_path):
    timeline_figure(TIMELINE, MARKS, tmp_path / "a.png")
    timeline_figure(TIMELINE, MARKS, tmp_path / "b.png", title="Another title")
    assert (tmp_path / "a.png").read_bytes() != (tmp_path / "b.png").read_bytes()


def test_traffic_figure(tmp_path):
    a, b = tmp_path / "t1.png", tmp_path / "t2.png"
    traffic_figure(TIMELINE, MARKS, "cone", a)
    traffic_figure(TIMELINE, MARKS, "cone", b)
    assert _check_png(a) == _check_png(b)
    traffic_figure(TIMELINE, MARKS, "uniform", tmp_path / "t3.png")
    assert (tmp_path / "t3.png").read_bytes() != a.read_bytes()


def test_empty_timeline_still_draws(tmp_path):
    timeline_figure([], [], tmp_path / "e.png")
    traffic_figure([], [Mark(3.0, "attack starts")], "uniform", tmp_path / "f.png")
    _check_png(tmp_path / "e.png")
    _check_png(tmp_path / "f.png")


def test_end_extends_the_x_axis():
    fig = timeline_plot(TIMELINE, MARKS, end=500.0)
    assert fig.axes[0].get_xlim()[1] > 500.0
    assert timeline_plot(TIMELINE, MARKS).axes[0].get_xlim()[1] < 100.0
    assert traffic_plot(TIMELINE, MARKS, "uniform", end=300.0).axes[0].get_xlim()[1] > 300.0


def test_end_changes_picture(tmp_path):
    timeline_figure(TIMELINE, MARKS, tmp_path / "a.png")
    timeline_figure(TIMELINE, MARKS, tmp_path / "b.png", end=200.0)
    assert (tmp_path / "a.png").read_bytes() != (tmp_path / "b.png").read_bytes()


def test_bursts_found_after_marks():
    import numpy as np

    data = np.array(BURST)
    found = bursts(data[:, 0], data[:, 1:5], BURST_MARKS, 0.0, 218.0)
    assert len(found) == 2
    a, b = found
    assert a["mark"] == (10.0, "attack starts") and a["start"] == 10.0 and a["stop"] == 10.28
    assert a["changes"] == 4 and a["lo"] < 10.0 and a["hi"] > 10.28
    assert b["mark"][1] == "victim announces more-specifics" and b["stop"] == 150.16
    # the slow test timeline has no burst: every change is alone and well visible
    slow = np.array(TIMELINE)
    assert bursts(slow[:, 0], slow[:, 1:5], MARKS, 0.0, 95.0) == []
    # changes spread over more than 5 % of the axis are not a burst
    spread = np.array([(0, 0.0), (10, 0.2), (12, 0.4), (14, 0.6), (16, 0.8)])
    assert bursts(spread[:, 0], spread[:, 1:], [], 0.0, 100.0) == []


def test_at_most_three_zooms():
    import numpy as np

    rows = [(0.0, 0.0)]
    for k in range(5):  # five bursts, the later ones busier
        for j in range(2 + k):
            rows.append((100.0 * (k + 1) + 0.01 * j, float(len(rows) % 2)))  # every row a change
    data = np.array(rows)
    found = bursts(data[:, 0], data[:, 1:], [], 0.0, 600.0)
    assert len(found) == 3
    assert [b["changes"] for b in found] == [4, 5, 6]  # the busiest three, in time order


def test_timeline_zoom_panels(tmp_path):
    fig = timeline_plot(BURST, BURST_MARKS, title="t", end=209.0)
    assert len(fig.axes) == 3  # the whole run and two zooms
    main, zoom_a, zoom_b = fig.axes
    assert main.get_xlim()[1] > 209.0
    lo, hi = zoom_a.get_xlim()
    assert lo < 10.0 < 10.28 < hi < 10.5
    assert "attack starts" in zoom_a.get_title(loc="left")
    assert "more-specifics" in zoom_b.get_title(loc="left")
    assert len(timeline_plot(TIMELINE, MARKS).axes) == 1  # nothing to zoom into
    # the picture grows to hold the zooms, and stays reproducible
    timeline_figure(BURST, BURST_MARKS, tmp_path / "z1.png", end=209.0)
    timeline_figure(BURST, BURST_MARKS, tmp_path / "z2.png", end=209.0)
    timeline_figure(TIMELINE, MARKS, tmp_path / "plain.png")
    z = _check_png(tmp_path / "z1.png")
    assert z == (tmp_path / "z2.png").read_bytes()
    h_zoom = mpimg.imread(str(tmp_path / "z1.png")).shape[0]
    h_plain = mpimg.imread(str(tmp_path / "plain.png")).shape[0]
    assert h_zoom > h_plain * 1.3


def test_traffic_zoom_panels(tmp_path):
    fig = traffic_plot(BURST, BURST_MARKS, "cone", end=209.0)
    assert len(fig.axes) == 3
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any("peak: 100.0 %" in t for t in texts)
    assert any("0.0 % of traffic diverted at the end" in t for t in texts)
    traffic_figure(BURST, BURST_MARKS, "cone", tmp_path / "a.png", end=209.0)
    _check_png(tmp_path / "a.png")


def test_topology_figure(tmp_path, topo):
    a, b = tmp_path / "g1.png", tmp_path / "g2.png"
    topology_figure(topo, OUTCOMES, 1000, 2000, a)
    topology_figure(topo, OUTCOMES, 1000, 2000, b, title=None)
    assert _check_png(a, 500, 350) == _check_png(b)
    other = {**OUTCOMES, 10: "victim"}
    topology_figure(topo, other, 1000, 2000, tmp_path / "g3.png")
    assert (tmp_path / "g3.png").read_bytes() != a.read_bytes()


def test_topology_figure_with_peak(tmp_path, topo):
    peak_outcomes = {**OUTCOMES, 20: "attacker", 200: "attacker", 3000: "attacker"}
    a, b, c = tmp_path / "end.png", tmp_path / "peak.png", tmp_path / "peak2.png"
    topology_figure(topo, OUTCOMES, 1000, 2000, a, title="At the end (t = 90.0 s)")
    topology_figure(topo, OUTCOMES, 1000, 2000, b, title="At the end (t = 90.0 s)", peak=(10.284, peak_outcomes))
    # JSON-style string keys work the same
    topology_figure(topo, {str(k): v for k, v in OUTCOMES.items()}, 1000, 2000, c, title="At the end (t = 90.0 s)",
                    peak=(10.284, {str(k): v for k, v in peak_outcomes.items()}))
    end_png, peak_png = _check_png(a, 500, 350), _check_png(b, 500, 350)
    assert peak_png != end_png and c.read_bytes() == peak_png
    assert mpimg.imread(str(b)).shape[0] > 1.6 * mpimg.imread(str(a)).shape[0]  # two pictures stacked
    fig = topology_plot(topo, OUTCOMES, 1000, 2000, title="At the end (t = 90.0 s)", peak=(10.284, peak_outcomes))
    titles = [ax.get_title(loc="left") for ax in fig.axes]
    assert titles == ["At the peak of the attack (t = 10.3 s)", "At the end (t = 90.0 s)"]
    counts = [t.get_text() for ax in fig.axes for t in ax.texts if "other ASes" in t.get_text()]
    assert counts[0].startswith("5 of the 5 other ASes send their traffic to the attacker")
    assert counts[1].startswith("2 of the 5 other ASes send their traffic to the attacker")


def test_topology_figure_without_attacker(tmp_path, topo):
    # a run without an attack has no attacker (None): only the victim is tagged and left out of the count
    fig = topology_plot(topo, {**OUTCOMES, 1000: "victim"}, None, 2000)
    counts = [t for ax in fig.axes for t in [ax.get_title(loc="left")] if "other ASes" in t]
    assert counts == ["2 of the 6 other ASes send their traffic to the attacker, 3 to the victim"]
    topology_figure(topo, OUTCOMES, None, 2000, tmp_path / "g.png")
    _check_png(tmp_path / "g.png", 500, 350)


def test_topology_figure_rings_the_adopters(topo):
    from matplotlib.collections import PathCollection

    def rings(fig):  # the centres of the rings
        return sorted(tuple(xy) for ax in fig.axes for c in ax.collections if isinstance(c, PathCollection)
                      and len(c.get_facecolors()) == 0 for xy in c.get_offsets().tolist())

    def centre(fig, asn):  # of the label under AS asn's circle
        return next(t.xy for t in fig.axes[0].texts if t.get_text() == f"AS{asn}")

    plain = topology_plot(topo, OUTCOMES, 1000, 2000)
    ringed = topology_plot(topo, OUTCOMES, 1000, 2000, adopters=[10, 100, 2000])
    assert rings(plain) == [] and rings(ringed) == sorted(tuple(centre(ringed, a)) for a in (10, 100, 2000))
    labels = [t.get_text() for t in ringed.legends[0].get_texts()]
    assert "deploys the defence (ring)" in labels


def test_outcome_figure(tmp_path):
    shares = Shares(attacker=0.4, victim=0.5, disconnected=0.1, loop=0.0)
    a, b, c = tmp_path / "a.png", tmp_path / "b.png", tmp_path / "c.png"
    outcome_figure(shares, Traffic("cone", 0.3), a, title="x: converged state")
    outcome_figure(shares, Traffic("cone", 0.3), b, title="x: converged state")
    outcome_figure(shares, Traffic("cone", 0.6), c, title="x: converged state")
    assert _check_png(a) == b.read_bytes() and c.read_bytes() != a.read_bytes()


def test_figure_words_agree_with_their_counts(topo):
    """'1 trial', '1 change', '1 of the 6 other ASes sends its traffic', never '1 trials'."""
    from bgpsim.viz.sweep import sweep_plot
    from bgpsim.viz.timeaxis import _zoom_title

    one = {"start": 10.0, "stop": 10.2, "changes": 1, "mark": (9.9, "x"), "after": 0.1}
    assert _zoom_title("A", one).startswith("A: 1 change within 0.2 s, 0.1 s after “x”")
    assert _zoom_title("B", {**one, "changes": 3, "mark": None}).startswith("B: 3 changes within 0.2 s")
    cell = {"attack": "subprefix", "policy": "rov", "label": "rov", "adoption": 0.5, "attacker_frac": {"mean": 0.2, "ci90": [0.1, 0.3]}}
    for n, words in ((1, "1 trial per point"), (20, "20 trials per point")):
        fig = sweep_plot({"cells": [cell], "sweep": {"topology": "t", "trials": n, "adopt": "random"}})
        assert words in fig.texts[0].get_text()
    fig = topology_plot(topo, {**{a: "victim" for a in OUTCOMES}, 10: "attacker"}, 1000, 2000)
    assert fig.axes[0].get_title(loc="left").startswith("1 of the 5 other ASes sends its traffic to the attacker")


def test_row_captions_from_roles(topo, tmp_path):
    _, rows, _ = layout(topo)
    assert row_captions(topo, rows) == ["tier-1", "transit", "stubs\n(no customers)"]
    # without roles: by place in the hierarchy
    plain = tmp_path / "plain.toml"
    plain.write_text("\n".join(line for line in TOPO_TOML.splitlines() if not line.startswith("role")),
                     encoding="utf-8")
    t = read_toml(plain)
    assert row_captions(t, layout(t)[1]) == ["top tier\n(no providers)", "transit", "stubs\n(no customers)"]
    # two rows whose ASes share a role are told apart; a row without a majority role keeps its place name
    chain = tmp_path / "chain.toml"
    chain.write_text('name = "c"\n'
                     '[[as]]\nasn = 1\nrole = "transit"\ncustomers = [2]\n'
                     '[[as]]\nasn = 2\nrole = "transit"\ncustomers = [3, 4]\n'
                     '[[as]]\nasn = 3\nrole = "content"\n'
                     '[[as]]\nasn = 4\nrole = "access ISP"\n', encoding="utf-8")
    t = read_toml(chain)
    assert row_captions(t, layout(t)[1]) == ["transit, upper", "transit, lower", "stubs\n(no customers)"]


def test_topology_layout_tiers_and_crossings(topo):
    pos, rows, _ = layout(topo)
    # providers strictly above their customers; the tier-1s in the top row, stubs in the bottom one
    for p, c in topo.p2c.tolist():
        assert pos[p][1] > pos[c][1]
    idx = topo.index
    assert set(rows[0]) == {idx[10], idx[20]}
    assert set(rows[-1]) == {idx[1000], idx[2000], idx[3000]}
    assert all(0.0 < x < 1.0 for x, _ in pos.values())
    assert tiers._crossings(pos, tiers._edges(topo)) == 0


def test_barycentre_ordering_removes_avoidable_crossing(tmp_path):
    # In ASN order the two provider-customer links cross (1 over 20, 2 over 10); the layout must not.
    p = tmp_path / "x.toml"
    p.write_text('name = "x"\n[[as]]\nasn = 1\ncustomers = [20]\n[[as]]\nasn = 2\ncustomers = [10]\n'
                 '[[as]]\nasn = 10\n[[as]]\nasn = 20\n', encoding="utf-8")
    t = read_toml(p)
    naive = tiers._positions(tiers._rows(t))
    assert tiers._crossings(naive, tiers._edges(t)) == 1
    pos, _, _ = layout(t)
    assert tiers._crossings(pos, tiers._edges(t)) == 0


def test_topology_figure_refuses_big_graphs(tmp_path):
    lines = ['name = "big"', "[[as]]", "asn = 1"]
    for a in range(2, MAX_DRAWN_ASES + 3):
        lines += ["[[as]]", f"asn = {a}", "providers = [1]"]
    p = tmp_path / "big.toml"
    p.write_text("\n".join(lines), encoding="utf-8")
    t = read_toml(p)
    assert t.n > MAX_DRAWN_ASES
    with pytest.raises(ValueError, match="at most"):
        topology_figure(t, {}, 2, 3, tmp_path / "big.png")
    assert not (tmp_path / "big.png").exists()


# -------------------------------------------------------------------------------------------- report

def _result(topo, ases=None, **over) -> RunResult:
    """A timed run's RunResult as the engines make it, on the tiny graph; `over` replaces fields."""
    scenario = ScenarioInfo(
        name="Pakistan Telecom vs YouTube (test)",
        description="A sub-prefix hijack on a tiny graph.",
        source="scenarios/test.toml",
        attack=AttackInfo("subprefix", ["208.65.153.0/24"], 0.0, None),
        mitigation=MitigationInfo(60.0, ["208.65.152.0/23", "208.65.154.0/23"]),
        defence=DefenceInfo("ROV", 3),
        timing=TimingInfo(30.0, [0.75, 1.0], False, "uniform(0.01, 0.1)", "exp(0.05)", True),
        victim_prefixes=["208.65.152.0/22"],
        target="208.65.153.1",
    )
    r = RunResult(
        engine="timed", scenario=scenario, seed=4242,
        topology=TopologyInfo(topo.name, "tiny.toml", topo.n, topo.links),
        attacker=1000, victim=2000, events=123456, messages=98765, converged=True, converged_at=183.24,
        outcome=Shares(3 / 7, 4 / 7 - 0.0123, 0.0123, 0.0), traffic=Traffic("cone", 0.3333),
        peak=Peak(0.71, 31.0, 0.684), marks=MARKS, timeline=TIMELINE,
        ases=_ases(topo) if ases is None else ases,
        topo=topo,
    )
    return replace(r, **over)


def _ases(topo, outcomes=OUTCOMES):
    rows = []
    for k, a in enumerate(topo.asns.tolist()):
        rows.append(AsRow(a, topo.names.get(a, ""), topo.roles.get(a, ""), outcomes[a],
                          attacker_at=0.4 + k if outcomes[a] == "attacker" and a != 1000 else "",
                          switched_at="" if a in (1000, 2000) else 1.5 * k,
                          prefix="208.65.153.0/24", path=f"{a} 100 1000", relationship="customer"))
    return rows


def _as_rows(html):
    """The rows of the AS table."""
    body = html.split('<table class="ases">', 1)[1].split("</table>", 1)[0]
    return re.findall(r"<tr[ >].*?</tr>", body.split("<tbody>", 1)[1], flags=re.S)


def _text(html):
    """The page's visible text, tags removed and whitespace folded (for phrases that wrap in the source)."""
    import html as html_mod

    return re.sub(r"\s+", " ", html_mod.unescape(re.sub(r"<[^>]+>", " ", html)))


@pytest.fixture
def report_inputs(tmp_path, topo):
    f1, f2, f3 = tmp_path / "timeline.png", tmp_path / "traffic.png", tmp_path / "topology.png"
    timeline_figure(TIMELINE, MARKS, f1)
    traffic_figure(TIMELINE, MARKS, "cone", f2)
    topology_figure(topo, OUTCOMES, 1000, 2000, f3)
    figs = [("Outcome over time", f1), ("Diverted traffic", f2), ("The graph & its outcomes", f3)]
    return _result(topo), figs


def test_report_contents(tmp_path, report_inputs):
    result, figs = report_inputs
    out = tmp_path / "out" / "report.html"
    write_report(out, result, figs)
    html = out.read_text(encoding="utf-8")
    text = _text(html)
    assert html.startswith("<!DOCTYPE html>")
    assert "Pakistan Telecom vs YouTube (test)" in html
    # key numbers, percentages with one decimal
    for t in ("42.9 %", "55.9 %", "1.2 %", "33.3 %", "183.2 s", "98,765", "123,456", "4242",
              '<span class="value">7</span>', '<span class="value">8</span>', "(7 ASes, 8 links)"):
        assert t in html, t
    # peak next to the end, clearly labelled
    assert "At the peak of the attack t = 31 s" in text
    assert "At the end routing settled, t = 183.2 s" in text
    assert "ASes whose traffic reaches the attacker 71.0 % 42.9 %" in text
    assert "Traffic diverted to the attacker (cone weighting) 68.4 % 33.3 %" in text
    # plain-language summary: the attack prefix compared with the victim's prefix, not with the target address
    assert "208.65.153.0/24, a more specific prefix inside the victim's 208.65.152.0/22 (a sub-prefix hijack)" in text
    assert "less specific" not in text
    assert "Within 31 s of the attack, 71.0 % of ASes sent their traffic to the attacker (peak at t = 31 s)" in text
    assert "At the end, once routing had settled at t = 183.2 s, 42.9 % of ASes" in text
    assert "at the peak 68.4 % of all traffic was diverted to the attacker, and 33.3 % at the end" in text
    # scenario details
    for t in ("subprefix", "208.65.153.0/24", "ROV", "30 s", "uniform(0.01, 0.1)", "208.65.152.0/23"):
        assert t in html, t
    assert "Target address (traffic followed) 208.65.153.1" in text
    assert "Victim's prefixes 208.65.152.0/22" in text
    # every figure embedded as a data URI, byte for byte, with its caption (escaped)
    uris = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(uris) == 3
    for (caption, png), uri in zip(figs, uris):
        assert base64.b64decode(uri) == png.read_bytes()
    assert "The graph &amp; its outcomes" in html
    # self-contained: nothing fetched from elsewhere
    assert "http://" not in html and "https://" not in html
    assert not re.search(r'(src|href)="(?!data:)', html)
    assert "<link" not in html and "@import" not in html and "<script" not in html
    # the hostile AS name is escaped, not executed
    assert "Transit &lt;script&gt;alert(1)&lt;/script&gt;" in html
    # all ASes listed (7 <= 200), attacker and victim tagged
    assert len(_as_rows(html)) == 7
    assert "omitted" not in html
    assert re.search(r"AS1000<span class=\"tag attacker\">", html)
    assert re.search(r"AS2000<span class=\"tag victim\">", html)
    # the AS table: when traffic first went to the attacker, and when the AS last changed
    assert "<th>To attacker at (s)</th>" in html and "<th>Last change at (s)</th>" in html
    assert "Switched at" not in html
    row_10 = next(r for r in _as_rows(html) if ">AS10<" in r)
    assert re.findall(r'<td class="num">([^<]*)</td>', row_10) == ["0.400", "0.000"]


def _summary(topo, kind, prefixes, **over):
    r = _result(topo, **over)
    r.scenario = replace(r.scenario, attack=AttackInfo(kind, prefixes, 10.0, None), mitigation=None, defence=None)
    return summary_text(r, {1000: "Attacker Net", 2000: "Victim Net"})


@pytest.mark.parametrize("kind, prefixes, wanted", [
    ("prefix", ["208.65.152.0/22"], ["announced 208.65.152.0/22, the victim's own prefix (an exact-prefix hijack)"]),
    ("subprefix", ["208.65.153.0/24"], ["a more specific prefix inside the victim's 208.65.152.0/22",
                                        "sub-prefix hijack"]),
    ("forged-origin", ["208.65.152.0/22"], ["the victim's own prefix, with the forged AS path “1000 2000”",
                                            "as if the victim originated it"]),
    ("forged-origin-subprefix", ["208.65.153.0/24"], ["a more specific prefix inside the victim's 208.65.152.0/22",
                                                      "forged AS path “1000 2000”"]),
    ("intercept", ["208.65.152.0/22"], ["forged AS path “1000 2000”", "keeping its own route to the victim"]),
    ("leak", ["208.65.152.0/22"], ["AS1000 (Attacker Net) leaked the victim's route for 208.65.152.0/22",
                                   "(a route leak)", "Within 21 s of the leak"]),
    ("squat", ["208.65.152.0/22"], ["not announced by its holder"]),
])
def test_summary_describes_each_attack_kind(topo, kind, prefixes, wanted):
    text = _summary(topo, kind, prefixes)
    assert text.startswith("At t = 10 s, AS1000 (Attacker Net) ")
    for w in wanted:
        assert w in text, (w, text)
    assert "208.65.153.1" in text  # the address whose traffic is followed
    assert "less specific" not in text


def test_summary_and_details_without_what_a_run_may_lack(tmp_path, topo, report_inputs):
    # the converged-state engine's form: no timing, and here no mitigation, defence or victim's prefixes
    result, figs = report_inputs
    lean = replace(result, engine="steady", interception=None, marks=[],
                   scenario=replace(result.scenario, mitigation=None, defence=None, timing=None, victim_prefixes=[]))
    text = summary_text(lean)
    assert "more specific" not in text and "more-specific" not in text and "filter" not in text
    assert "Once routing has converged, 42.9 % of ASes send their traffic to the attacker" in text
    html = render_report(lean, figs[:1])
    page = _text(html)
    assert "At the peak" not in html and "At the end" not in html and "Once routing has converged" in html
    assert "Victim's prefixes" not in html and "MRAI" not in html and "Warm start" not in html
    assert "Victim's reaction none" in page and "Defence none" in page
    # no attack at all: no attacker either
    quiet = replace(lean, attacker=None, scenario=replace(lean.scenario, attack=None))
    text = summary_text(quiet, {2000: "Victim Net"})
    assert text.startswith("No attack in this scenario; the victim is AS2000 (Victim Net). ")
    assert "(peak at" not in text and "At no time" not in text  # no sentence about the attack's peak
    page = _text(render_report(quiet, figs[:1]))
    assert "Attack — Prefixes announced by the attacker —" in page
    assert "Attack runs" not in page and "Computed the converged state" in page


def test_summary_reports_routes_lost_while_changing(topo):
    tl = [(0.0, 0.0, 1.0, 0.0, 0.0, 0.0), (10.05, 0.5, 0.5, 0.0, 0.0, 0.5), (10.1, 0.0, 0.4, 0.6, 0.0, 0.0),
          (10.2, 0.0, 1.0, 0.0, 0.0, 0.0)]
    text = _summary(topo, "subprefix", ["208.65.153.0/24"], timeline=tl, converged_at=40.0)
    assert "from t = 10.1 s for 100 ms, up to 60.0 % of ASes had no working route" in text
    assert "The BGP updates after t = 10.2 s no longer changed" in text


def test_report_is_reproducible_and_atomic(tmp_path, report_inputs):
    result, figs = report_inputs
    a, b = tmp_path / "r" / "a.html", tmp_path / "r" / "b.html"
    write_report(a, result, figs)
    write_report(b, result, figs)
    assert a.read_bytes() == b.read_bytes()
    write_report(a, replace(result, seed=7), figs)  # replaces the old file
    assert a.read_bytes() != b.read_bytes()
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["a.html", "b.html"]


def test_report_failure_leaves_no_file(tmp_path, report_inputs):
    result, figs = report_inputs
    out = tmp_path / "bad.html"
    with pytest.raises(FileNotFoundError):
        write_report(out, result, figs + [("missing", tmp_path / "nope.png")])
    assert list(tmp_path.glob("*.html")) == [] and list(tmp_path.glob(".bad.html*")) == []


def test_report_limits_table_to_200_earliest_to_attacker(tmp_path, report_inputs):
    result, figs = report_inputs
    ases = []
    for k in range(260):
        # every third AS never reaches the attacker; the others do, later for smaller k
        to_att = "" if k % 3 == 0 else round(10.0 + (260 - k) * 0.001, 6)
        ases.append(AsRow(70000 + k, f"Net {k}", "stub", "victim", to_att, round(300.0 - k, 1), "", "", ""))
    out = tmp_path / "big.html"
    write_report(out, replace(result, ases=ases), figs[:1])
    html = out.read_text(encoding="utf-8")
    rows = _as_rows(html)
    assert len(rows) == 200
    assert "60 are omitted" in html and "ases.csv" in html
    shown = [int(re.search(r">AS(\d+)<", r).group(1)) - 70000 for r in rows]
    reached = sorted((k for k in range(260) if k % 3), reverse=True)  # 173 ASes, earliest first
    assert shown[:173] == reached
    # then those that never reached the attacker, by their last change (latest k changed earliest)
    assert shown[173:] == sorted((k for k in range(260) if k % 3 == 0), reverse=True)[:27]
    times = [re.findall(r'<td class="num">([^<]*)</td>', r)[0] for r in rows[:3]]
    assert times == ["10.001", "10.003", "10.004"]  # k = 258 never reached it


def test_select_rows_order():
    # first to the attacker first; ties (and ASes never at the attacker) by their last change, then by ASN
    def row(asn, attacker_at, switched_at):
        return AsRow(asn, "", "stub", "victim", attacker_at, switched_at, "", "", "")

    ases = [row(k, 5.0 if k in (3, 8) else "", "" if k % 4 == 0 else 100.0 - k) for k in range(10)]
    assert [r.asn for r in select_rows(ases, limit=6)] == [3, 8, 9, 7, 6, 5]
    assert select_rows(ases, limit=10) == ases  # all of them: in the given order
    # the converged-state engine has no times at all: by ASN
    steady = [row(k, "", "") for k in reversed(range(10))]
    assert [r.asn for r in select_rows(steady, limit=3)] == [0, 1, 2]


def test_the_step_view_names_the_journals_outcome_codes():
    from bgpsim.sim.dataplane import OUTCOMES
    from bgpsim.viz.steps import OUTCOMES as NAMED

    assert NAMED == OUTCOMES
