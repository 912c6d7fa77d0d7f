"""Each engine in its own words, and the same defaults for the same ad-hoc attack on both.

The converged-state engine computes routes only: its summary and report say so and name no time,
message, event, peak or step view. The timed engine's keep all of these."""

import html as html_mod
import json
import re
from dataclasses import replace

import pytest
from helpers import ROOT

from bgpsim.base.prefix import parse_prefix
from bgpsim.cli import main
from bgpsim.graph.generate import internet_like, write_caida
from bgpsim.sim.attacks import attack
from bgpsim.sim.output import summary_text
from bgpsim.sim.plan import resolve
from bgpsim.sim.run import simulate
from bgpsim.sim.scenario import Scenario

TEACHING = ROOT / "scenarios" / "topologies" / "teaching.toml"

# what a converged state cannot have: simulated time, messages, events, a peak, a step view
TIMED_WORDS = ("t = ", " ms", "message", "event", "settled", "peak", "Within", "simulated", "step", "Attack runs")


def _run(capsys, out, *args):
    code = main(["run", "--topology", str(TEACHING), "--seed", "3", "--out", str(out), *map(str, args)])
    printed, err = capsys.readouterr()
    assert code == 0, err
    return printed, json.loads((out / "result.json").read_text())


def _text(html: str) -> str:
    html = re.sub(r"<script.*?</script>", " ", html, flags=re.S)
    html = re.sub(r"<style.*?</style>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", html_mod.unescape(re.sub(r"<[^>]+>", " ", html)))


def _told(page: str) -> str:
    """The report's own words about the run: everything above the AS table (whose header and note
    are the page template's)."""
    return page.split("Autonomous systems")[0]


@pytest.fixture(scope="module")
def steady(tmp_path_factory):
    out = tmp_path_factory.mktemp("steady") / "out"
    code = main(["run", "--topology", str(TEACHING), "--attack", "subprefix", "--engine", "steady", "--seed", "3",
                 "--weighting", "cone", "--out", str(out), "--quiet"])
    assert code == 0
    return out


def test_steady_summary_says_what_was_computed(tmp_path, capsys):
    printed, result = _run(capsys, tmp_path / "s", "--attack", "subprefix", "--engine", "steady")
    assert result["engine"] == "steady"
    assert "converged state: the route each AS settles on" in printed
    assert f"once converged, traffic to {result['scenario']['target']}: attacker 100.0 %" in printed
    for word in TIMED_WORDS:
        assert word not in printed, (word, printed)


def test_timed_summary_keeps_time_messages_and_events(tmp_path, capsys):
    printed, result = _run(capsys, tmp_path / "t", "--attack", "subprefix")
    assert f"routing settled at t = {result['converged_at']:.1f} s: {result['events']:,} events, " \
           f"{result['messages']:,} messages" in printed
    assert "1.2.0.0/24 at t = 0 s" in printed and "at the end, traffic to 1.2.0.1" in printed


def test_summary_counts_in_the_singular_and_plural(tmp_path):
    run = simulate(resolve(Scenario(name="x", topology=str(TEACHING), prefixes=[parse_prefix("1.2.0.0/16")],
                                    attack=attack("prefix"))))
    one = summary_text(replace(run, events=1, messages=1), tmp_path, 0.0)
    assert "1 event, 1 message (" in one
    two = summary_text(replace(run, events=2, messages=1234), tmp_path, 0.0)
    assert "2 events, 1,234 messages (" in two


def test_steady_report_says_what_was_computed(steady):
    page = _text((steady / "report.html").read_text(encoding="utf-8"))
    told = _told(page)
    assert "This run computed the converged state: the route each AS settles on" in told
    assert "Once routing has converged, 100.0 % of ASes send their traffic to the attacker" in told
    assert "Weighting the traffic (each source AS weighted by its customer-cone size), 100.0 % of all traffic " \
           "goes to the attacker" in told
    assert "Once routing has converged the route each AS settles on" in told  # the key numbers' one column
    assert "30 ASes with a route to the target once converged" in told
    assert "Computed the converged state" in told
    for word in TIMED_WORDS:
        assert word not in told, (word, told)
    assert "Step through" not in page


def test_timed_report_keeps_its_words(tmp_path, capsys):
    _run(capsys, tmp_path / "t", "--attack", "subprefix", "--quiet")
    told = _told(_text((tmp_path / "t" / "report.html").read_text(encoding="utf-8")))
    for phrase in ("At t = 0 s, AS", "of the attack", "At the end, once routing had settled at t = ",
                   "At the peak of the attack", "BGP update messages sent", "simulation events processed",
                   "Attack runs from t = 0 s"):
        assert phrase in told, phrase
    assert "converged state" not in told


def test_no_step_view_named_where_there_is_none(tmp_path, capsys):
    # a graph too large to draw: the timed report points to its step view, the converged one has none
    graph = write_caida(internet_like(80, 2), tmp_path / "g.txt")
    pages = {}
    for engine in ("timed", "steady"):
        code = main(["run", "--topology", str(graph), "--attack", "prefix", "--engine", engine,
                     "--out", str(tmp_path / engine), "--quiet"])
        assert code == 0, capsys.readouterr().err
        pages[engine] = _text((tmp_path / engine / "report.html").read_text(encoding="utf-8"))
    assert "No picture of the topology" in pages["timed"] and "The step view above" in pages["timed"]
    assert "No picture of the topology" in pages["steady"] and "step view" not in pages["steady"]
    assert "The table below and ases.csv list every AS." in pages["steady"]


def test_a_large_converged_report_lists_the_attackers_ases_first(tmp_path, capsys):
    # more ASes than the table shows, and no times to order them by: those at the attacker come first
    graph = write_caida(internet_like(260, 4), tmp_path / "g.txt")
    code = main(["run", "--topology", str(graph), "--attack", "prefix", "--engine", "steady", "--seed", "1",
                 "--out", str(tmp_path / "s"), "--quiet"])
    assert code == 0, capsys.readouterr().err
    html = (tmp_path / "s" / "report.html").read_text(encoding="utf-8")
    assert "Showing 200 of 260 ASes: first those whose traffic reaches the attacker, then the others, by ASN" \
        in _text(html)
    shown = re.findall(r'<td class="outcome" title="[^"]*"><span class="swatch (\w+)">', html)
    k = shown.count("attacker")  # about a quarter of the ASes, the attacker's own row among them
    assert len(shown) == 200 and 0 < k < 200 and set(shown[:k]) == {"attacker"}


@pytest.mark.parametrize("kind, announced", [("subprefix", ["1.2.0.0/24"]), ("prefix", ["1.2.0.0/16"])])
def test_both_engines_take_the_same_defaults(tmp_path, capsys, kind, announced):
    got = {}
    for engine in ("timed", "steady"):
        _, result = _run(capsys, tmp_path / engine, "--attack", kind, "--engine", engine, "--quiet")
        sc = result["scenario"]
        got[engine] = (sc["victim_prefixes"], sc["attack"]["prefixes"], sc["target"])
    assert got["steady"] == got["timed"] == (["1.2.0.0/16"], announced, "1.2.0.1")  # a host, not a network address


def test_steady_follows_the_scenarios_target_inside_the_attack(tmp_path, capsys):
    scn = tmp_path / "s.toml"
    base = (f'name = "s"\ntopology = "{TEACHING}"\ntarget = "{{}}"\n'
            '[victim]\nasn = 64510\n[attack]\nkind = "subprefix"\nattacker = 64511\n')
    scn.write_text(base.format("1.2.0.77"))
    code = main(["run", str(scn), "--engine", "steady", "--out", str(tmp_path / "in"), "--quiet"])
    assert code == 0, capsys.readouterr().err
    assert json.loads((tmp_path / "in" / "result.json").read_text())["scenario"]["target"] == "1.2.0.77"
    # outside the /24 the attacker announces, the traced routes are not that address's: refused
    scn.write_text(base.format("1.2.9.1"))
    code = main(["run", str(scn), "--engine", "steady", "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "target 1.2.9.1" in err and "1.2.0.0/24" in err
    assert not (tmp_path / "out").exists()


def test_an_exact_prefix_attack_on_another_prefix_is_refused_on_both_engines(tmp_path, capsys):
    errors = []
    for engine in ("timed", "steady"):
        code = main(["run", "--topology", str(TEACHING), "--attack", "prefix", "--attack-prefix", "9.9.9.0/24",
                     "--engine", engine, "--out", str(tmp_path / engine)])
        errors.append(capsys.readouterr().err.strip())
        assert code == 2 and not (tmp_path / engine).exists()
    assert errors[0] == errors[1] and "9.9.9.0/24 is not" in errors[0]
