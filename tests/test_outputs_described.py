"""Every output file, column and key that the commands write is named in the README's "Every output,
file by file" (helpers.undescribed): each command run here on the teaching graph at a small scale;
the monitor's outputs are held to it in test_live_detect.py, where a real broker feeds one."""

from __future__ import annotations


from helpers import ROOT, shared, undescribed
from test_figures_read import on_teaching

from bgpsim.cli import main
from bgpsim.sim.incident import Replay

TEACHING = str(ROOT / "scenarios" / "topologies" / "teaching.toml")


def test_run_outputs(tmp_path):
    adhoc = ["--topology", TEACHING, "--quiet", "--no-figures"]  # every figure's name: the timed and steady runs
    assert main(["run", "--out", str(tmp_path / "timed"), "--quiet"]) == 0
    assert main(["run", "--attack", "forged-origin", "--policy", "bgpsec", "--adoption", "1", "--crypto", "--pcap",
                 str(tmp_path / "run.pcap"), "--out", str(tmp_path / "crypto"), *adhoc]) == 0
    assert main(["run", "--attack", "intercept", "--out", str(tmp_path / "intercept"), *adhoc]) == 0
    assert main(["run", "--engine", "steady", "--attack", "subprefix", "--topology", TEACHING, "--out",
                 str(tmp_path / "steady"), "--quiet"]) == 0
    assert main(["run", "teaching-roa-delay", "--out", str(tmp_path / "rpki"), "--quiet", "--no-figures"]) == 0
    assert (tmp_path / "crypto" / "bgpsec.csv").exists() and (tmp_path / "crypto" / "router-keys.json").exists()
    assert [p.name for p in tmp_path.iterdir() if p.is_file()] == ["run.pcap"]  # the user's name, not ours
    (tmp_path / "run.pcap").unlink()
    assert undescribed(tmp_path) == []


def test_incident_outputs(tmp_path):
    Replay(on_teaching("youtube-2008", tmp_path), tmp_path / "out", talk=False).run()
    assert (tmp_path / "out" / "counterfactuals.csv").exists()
    assert undescribed(tmp_path / "out") == []


def test_sweep_and_routes_outputs(tmp_path):
    assert main(["sweep", "--trials", "2", "--adoption", "0,50%", "--out", str(tmp_path / "sweep"), "--quiet"]) == 0
    assert main(["routes", "--out", str(tmp_path / "routes"), "--quiet"]) == 0
    assert undescribed(tmp_path) == []


def test_validate_outputs(tmp_path):
    dump = shared("mrt", "ripe_bgpdump_testdata", "updates.20160811.1600.gz")
    caida = shared("caida", "20250901.as-rel2.txt.bz2")
    (tmp_path / "vrps.csv").write_text("ASN,IP Prefix,Max Length,Trust Anchor\nAS3356,4.0.0.0/8,8,ripe\n")
    assert main(["run", "--attack", "forged-origin", "--policy", "bgpsec", "--adoption", "1", "--crypto", "--topology",
                 TEACHING, "--out", str(tmp_path / "keys"), "--quiet"]) == 0
    out = tmp_path / "validate"
    assert main(["validate", str(dump), "--vrps", str(tmp_path / "vrps.csv"), "--relationships", str(caida),
                 "--router-keys", str(tmp_path / "keys" / "router-keys.json"), "--out", str(out), "--quiet"]) == 0
    assert (out / "scenarios").is_dir()
    assert undescribed(out) == []


def test_an_undescribed_column_is_caught(tmp_path):
    (tmp_path / "results.csv").write_text("policy,attack,brand_new_column\n")
    (tmp_path / "summary.json").write_text('{"routes": 1, "by_peer": [{"peer_as": 1, "mystery": 2}]}')
    assert undescribed(tmp_path) == ["results.csv: brand_new_column", "summary.json: mystery"]
