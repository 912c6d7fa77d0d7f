"""Bundled things by name: `bgpsim rpki ca example` prints a spec that builds a repository our relying
party validates, every key of it explained in a comment."""

from __future__ import annotations

import json

from bgpsim.cli import main
from bgpsim.rpki.ca_spec import KEYS


def test_the_example_spec_builds_and_validates(tmp_path, capsys):
    assert main(["rpki", "ca", "example"]) == 0
    text = capsys.readouterr().out
    spec = tmp_path / "spec.toml"
    spec.write_text(text)
    for table, keys in KEYS.items():  # every key the spec may hold is in the example, explained
        for key in keys:
            assert f"`{key}`" in text or f"[{key}]" in text or f"[[{key}]]" in text, (table, key)
    assert main(["rpki", "ca", "build", str(spec), "--out", str(tmp_path / "repo")]) == 0
    assert main(["rpki", "validate", "--tal", str(tmp_path / "repo" / "ta.tal"), "--repo", str(tmp_path / "repo"),
                 "--out", str(tmp_path / "vrps.json")]) == 0
    doc = json.loads((tmp_path / "vrps.json").read_text())
    assert sorted((r["asn"], r["prefix"]) for r in doc["roas"]) == [
        (0, "198.51.100.128/25"), (64496, "192.0.2.0/24"), (64496, "2001:db8::/32"), (64497, "198.51.100.0/24")]
    assert sorted(k["asn"] for k in doc["bgpsec_keys"]) == [64496, 64497]
    assert [a["customer_asid"] for a in doc["provider_authorizations"]["ipv4"]] == [64496]


def test_bundled_scenarios_run_by_name_and_list(tmp_path, capsys, monkeypatch):
    from bgpsim.sim.scenario import bundled_scenarios

    monkeypatch.chdir(tmp_path)  # a name, not a path: it is found among the installed scenarios
    assert main(["run", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(bundled_scenarios()) and "teaching-leak" in bundled_scenarios()
    assert all(len(line.split(None, 1)) == 2 for line in lines)  # each with what it shows
    assert main(["run", "--list", "--format", "json"]) == 0
    assert [json.loads(line)["name"] for line in capsys.readouterr().out.splitlines()] == list(bundled_scenarios())
    assert main(["run", "teaching-leak", "--engine", "steady", "--quiet", "--out", "leak"]) == 0
    assert json.loads((tmp_path / "leak" / "result.json").read_text())["scenario"]["name"] == "teaching-leak"
    (tmp_path / "teaching-leak").write_text("name = 'mine'\n")  # a file of that name wins over the bundled one
    assert main(["run", "teaching-leak", "--quiet", "--out", "mine"]) == 2
    assert main(["run", "no-such-scenario"]) == 2
    err = capsys.readouterr().err
    assert "no bundled scenario 'no-such-scenario'; want one of teaching-bgpsec" in err.splitlines()[-1]
