"""The `bgpsim` command end to end: outputs, determinism, and bad input."""

import csv
import json
import os
import subprocess
import sys

import pytest
from helpers import ROOT, SHARED

from bgpsim.cli import main
from bgpsim.graph.generate import internet_like, write_caida

CAIDA_2025 = SHARED / "caida" / "20250901.as-rel2.txt.bz2"


def run_cli(args, capsys):
    code = main(["run", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("default") / "out"
    assert main(["run", "--out", str(out), "--quiet"]) == 0
    return out


def test_default_scenario_writes_every_output(default_run):
    names = sorted(p.name for p in default_run.iterdir())
    # (no traffic.png: with every AS weighing the same, it would repeat timeline.png's red line)
    assert names == [".bgpsim-output.json", "ases.csv", "report.html", "result.json", "timeline.csv", "timeline.png", "topology.png"]
    r = json.loads((default_run / "result.json").read_text())
    for key in ("scenario", "seed", "topology", "attacker", "victim", "events", "messages", "converged_at", "outcome", "traffic", "timeline"):
        assert key in r, key
    assert r["topology"] == {"name": r["topology"]["name"], "source": r["topology"]["source"], "ases": 30, "links": 50}
    assert (r["attacker"], r["victim"]) == (64511, 64510)
    assert abs(sum(r["outcome"].values()) - 1) < 1e-5
    # The sub-prefix takes every source AS before the mitigation at 150 s, and the /26s win it all back.
    before = [row for row in r["timeline"] if row[0] < 150]
    assert before[-1][1:] == [1.0, 0.0]
    assert r["outcome"]["victim"] == 1.0 and r["converged_at"] > 150
    assert r["peak"]["attacker"] == 1.0 and 10 < r["peak"]["at"] < 11 and r["peak"]["diverted"] == 1.0
    rows = list(csv.DictReader(open(default_run / "ases.csv")))
    assert len(rows) == 30 and {"asn", "outcome", "path"} <= set(rows[0])
    assert {row["outcome"] for row in rows} <= {"attacker", "victim", "disconnected", "loop"}
    by_asn = {row["asn"]: row for row in rows}
    # At the end even the attacker's longest match is VideoTube's /26, learned from its provider.
    assert by_asn["64511"]["outcome"] == "attacker"
    assert (by_asn["64511"]["prefix"], by_asn["64511"]["relationship"]) == ("198.51.100.0/26", "provider")
    assert by_asn["64511"]["path"].split()[-1] == "64510"
    assert (by_asn["64510"]["relationship"], by_asn["64510"]["path"]) == ("origin", "64510")
    # Each source AS went to the attacker within a second of the attack, and came back after 150 s.
    for asn, row in by_asn.items():
        if asn not in ("64510", "64511"):
            assert 10 < float(row["attacker_at"]) < 11 and float(row["switched_at"]) > 150, row
    with open(default_run / "timeline.csv") as f:
        header = next(csv.reader(f))
    assert header == ["time", "attacker", "victim", "disconnected", "loop", "diverted"]


def test_no_figures_the_same_data_and_a_report_that_says_so(default_run, tmp_path):
    assert main(["run", "--out", str(tmp_path / "plain"), "--quiet", "--no-figures"]) == 0
    names = sorted(p.name for p in (tmp_path / "plain").iterdir())
    assert names == [".bgpsim-output.json", "ases.csv", "report.html", "result.json", "timeline.csv"]
    for name in ("ases.csv", "result.json", "timeline.csv"):
        assert (tmp_path / "plain" / name).read_bytes() == (default_run / name).read_bytes(), name
    html = (tmp_path / "plain" / "report.html").read_text()
    assert "<img" not in html and "No figures: the command was run with <code>--no-figures</code>." in html
    assert "<img" in (default_run / "report.html").read_text() and "No figures" not in (default_run / "report.html").read_text()
    assert "Step through the run" in html


def test_summary_and_json(tmp_path, capsys):
    code, out, err = run_cli(["--out", tmp_path / "a"], capsys)
    assert code == 0 and "teaching-subprefix" in out and "report:" in out and "diverted traffic" in out
    code, out, err = run_cli(["--out", tmp_path / "b", "--format", "json"], capsys)
    assert code == 0
    assert json.loads(out) == json.loads((tmp_path / "b" / "result.json").read_text())


def test_same_seed_same_bytes(tmp_path, capsys):
    graph = write_caida(internet_like(400, 7), tmp_path / "g.txt")
    outs = []
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        code, out, err = run_cli(["--topology", graph, "--attack", "prefix", "--seed", seed, "--out", tmp_path / name], capsys)
        assert code == 0, err
        outs.append((tmp_path / name / "result.json").read_bytes())
    assert outs[0] == outs[1]
    assert outs[0] != outs[2]  # another seed draws another attacker and victim
    r = json.loads(outs[0])
    assert r["attacker"] != r["victim"] and r["scenario"]["attack"]["kind"] == "prefix"


@pytest.mark.parametrize("path", sorted((ROOT / "scenarios").glob("*.toml")), ids=lambda p: p.stem)
def test_every_bundled_scenario_runs(path, tmp_path, capsys):
    code, out, err = run_cli([path, "--out", tmp_path / path.stem, "--quiet", "--no-figures"], capsys)
    assert code == 0, f"{path.name}: {err}"


# ---- bad input: one line naming the place, exit status 2, no output directory ----------------


def bad(args, capsys, tmp_path, *expect):
    out_dir = tmp_path / "never"
    code, out, err = run_cli([*args, "--out", out_dir], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for e in expect:
        assert str(e) in lines[0], lines[0]
    assert not out_dir.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".never")]
    return lines[0]


def test_malformed_caida_line(tmp_path, capsys):
    f = tmp_path / "bad.txt"
    f.write_text("1|2|-1\n2|3|-1\n3|x|0\n")
    bad(["--topology", f, "--attack", "prefix"], capsys, tmp_path, f"{f}:3:")


def test_provider_cycle(tmp_path, capsys):
    f = tmp_path / "cycle.txt"
    f.write_text("# a cycle\n1|2|-1\n2|3|-1\n3|1|-1\n3|4|-1\n")
    line = bad(["--topology", f, "--attack", "prefix"], capsys, tmp_path, f, "cycle")
    assert "lines" in line and "AS1" in line


def test_asn_not_in_graph(tmp_path, capsys):
    bad(["--attacker", 99999], capsys, tmp_path, "99999", "not in the topology")


def test_attacker_equals_victim(tmp_path, capsys):
    bad(["--attacker", 64510], capsys, tmp_path, "same AS")


def test_prefix_that_does_not_parse(tmp_path, capsys):
    graph = write_caida(internet_like(50, 1), tmp_path / "g.txt")
    bad(["--topology", graph, "--attack", "subprefix", "--prefix", "10.0.0.0/33"], capsys, tmp_path, "--prefix", "10.0.0.0/33")


def test_missing_file(tmp_path, capsys):
    bad(["--topology", tmp_path / "nope.txt", "--attack", "prefix"], capsys, tmp_path, "nope.txt", "no such file")
    bad([tmp_path / "nope.toml"], capsys, tmp_path, "nope.toml", "no such file")


def test_bad_scenario_key_and_value(tmp_path, capsys):
    s = tmp_path / "s.toml"
    s.write_text(f'name = "x"\ntopology = "{ROOT}/scenarios/topologies/teaching.toml"\n\n[attack]\nkind = "subprefix"\nattaker = 64511\n')
    bad([s], capsys, tmp_path, f"{s}:6:", "attack.attaker", "unknown key")
    s.write_text(f'name = "x"\ntopology = "{ROOT}/scenarios/topologies/teaching.toml"\n[attack]\nkind = "hijack"\n')
    bad([s], capsys, tmp_path, f"{s}:4:", "attack.kind", "subprefix")
    s.write_text(f'name = "x"\ntopology = "{ROOT}/scenarios/topologies/teaching.toml"\n[victim]\nasn = 64510\nprefixes = ["198.51.100.7/24"]\n')
    bad([s], capsys, tmp_path, f"{s}:5:", "victim.prefixes", "host bits")
    s.write_text('name = "x"\ntopology = "t.toml"\n[timing]\nmrai = -3\n')
    bad([s], capsys, tmp_path, f"{s}:4:", "timing.mrai")


def test_bad_policies_and_filter_limits(tmp_path, capsys):
    topo = ["--topology", f"{ROOT}/scenarios/topologies/teaching.toml", "--attack", "subprefix"]
    bad([*topo, "--policy", "rov+magic", "--adoption", "1"], capsys, tmp_path, "--policy: unknown policy 'magic'",
        "want one of rov, rov-deprefer", "maxlen, bogon", "joined by '+'")
    bad([*topo, "--policy", "maxlen", "--adoption", "1", "--longest", "24"], capsys, tmp_path,
        "--longest: want the longest IPv4 and IPv6 prefix lengths accepted, such as 24,48", "'24'")
    bad([*topo, "--policy", "rov", "--adoption", "1", "--longest", "24,48"], capsys, tmp_path, "--longest needs --policy maxlen")
    for limit in ("0", "-5", "1.5", "many"):
        bad([*topo, "--policy", "rov+max-prefix", "--adoption", "1", "--max-prefix", limit], capsys, tmp_path,
            f"--max-prefix: want a positive whole number, got '{limit}'")
    bad([*topo, "--policy", "rov", "--adoption", "1", "--max-prefix", "10"], capsys, tmp_path, "--max-prefix needs --policy max-prefix")
    s = tmp_path / "s.toml"
    s.write_text(f'name = "x"\ntopology = "{ROOT}/scenarios/topologies/teaching.toml"\n[defence]\npolicy = "rov+maxlen"\n'
                 'adoption = 1.0\nlongest = [24, 200]\n')
    bad([s], capsys, tmp_path, f"{s}:6:", "defence.longest", "IPv6 16 to 128")
    s.write_text(f'name = "x"\ntopology = "{ROOT}/scenarios/topologies/teaching.toml"\n[defence]\npolicy = "max-prefix"\n'
                 'adoption = 1.0\nmax_prefix = 0\n')
    bad([s], capsys, tmp_path, f"{s}:6:", "defence.max_prefix", "want a positive whole number, got 0")
    s.write_text(f'name = "x"\ntopology = "{ROOT}/scenarios/topologies/teaching.toml"\n[[session]]\nasn = 64500\n'
                 'neighbour = 64502\nlocal_pref = -1\n')
    bad([s], capsys, tmp_path, f"{s}:6:", "session[0].local_pref", "want a LOCAL_PREF from 0 to 4294967295, got -1")
    head = f'name = "x"\ntopology = "{ROOT}/scenarios/topologies/teaching.toml"\n'
    s.write_text(head + '[[session]]\nasn = 64500\nneighbour = 64502\nprepend = 33\n')
    bad([s], capsys, tmp_path, f"{s}:6:", "session[0].prepend", "want a count from 0 to 32, got 33")
    s.write_text(head + '[[session]]\nasn = 64500\nneighbour = 64502\n')
    bad([s], capsys, tmp_path, f"{s}:3:", "session[0]", "want asn, local_pref or prepend, and neighbour")
    s.write_text(head + '[mitigation]\nstart = 5.0\ncommunity = "no-exprot"\n')
    bad([s], capsys, tmp_path, f"{s}:5:", "mitigation.community", "want one of no-export, no-advertise, blackhole, got 'no-exprot'")
    s.write_text(head + '[attack]\nkind = "prefix"\nvia = 64500\n')
    bad([s], capsys, tmp_path, f"{s}:5:", "attack.via", "via (the neighbour whose routes are leaked) is for kind = \"leak\"")
    s.write_text(head + '[victim]\nasn = 64510\n[attack]\nkind = "leak"\nattacker = 65537\nvia = 64496\n')
    bad([s], capsys, tmp_path, "AS64496 (via) is not a neighbour of the leaker AS65537")
    s.write_text(head + '[[event]]\nat = 5.0\ntype = "originate"\nasn = 64500\nprefix = "1.2.0.0/16"\nsummary_only = true\n')
    bad([s], capsys, tmp_path, f"{s}:8:", "event[0].summary_only", "want true or false, on an aggregate")
    s.write_text(f'name = "x"\ntopology = "{ROOT}/scenarios/topologies/teaching.toml"\n[defence]\npolicy = "rov+rov"\n')
    bad([s], capsys, tmp_path, f"{s}:4:", "defence.policy", "names a policy twice")


def test_bad_flag_is_one_line(tmp_path):
    p = subprocess.run([sys.executable, "-m", "bgpsim", "run", "--mrai", "soon"], capture_output=True, text=True,
                       cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "--mrai" in p.stderr


def test_run_as_a_command_ends_once_its_output_is_written(tmp_path):
    """As the `bgpsim` command, `run` ends the process itself once its outputs are written
    (bgpsim.base.console.end_now): every file in place, the JSON on stdout whole and flushed (stdout
    buffered, as a user's is)."""
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "bgpsim", "run", "--out", str(tmp_path / "out"), "--format", "json"],
                       capture_output=True, text=True, cwd=tmp_path, env=env)
    assert p.returncode == 0 and p.stderr == ""
    assert json.loads(p.stdout) == json.loads((tmp_path / "out" / "result.json").read_text())
    assert sorted(f.name for f in (tmp_path / "out").iterdir()) == [
        ".bgpsim-output.json", "ases.csv", "report.html", "result.json", "timeline.csv", "timeline.png", "topology.png"]
    p = subprocess.run([sys.executable, "-m", "bgpsim", "run", "--out", str(tmp_path / "again"), "--no-figures"],
                       capture_output=True, text=True, cwd=tmp_path, env=env)
    assert p.returncode == 0 and str(tmp_path / "again") in p.stdout and p.stdout.endswith("\n")


@pytest.mark.skipif(not CAIDA_2025.exists(), reason="needs ../shared/data/caida (the shared data directory)")
def test_caida_graph_rejects_unknown_victim(tmp_path, capsys):
    bad(["--topology", CAIDA_2025, "--attack", "subprefix", "--attacker", 17557, "--victim", 4200000000],
        capsys, tmp_path, "4200000000", "not in the topology")


def test_progress_line_after_two_seconds(monkeypatch):
    import io

    from bgpsim.base import console

    buf = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    p = console.Progress(enabled=True)
    p(20_000, 1.5)
    assert buf.getvalue() == ""  # a short run shows nothing
    p.started -= 5
    p(40_000, 3.25)
    p.close()
    assert "simulating: 40,000 events, t = 3.2 s simulated" in buf.getvalue()
    quiet = console.Progress(enabled=False)
    quiet.started -= 5
    quiet(1, 1.0)
    assert quiet.bar is None
