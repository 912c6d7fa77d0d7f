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
    assert [k["asn"] for k in doc["bgpsec_keys"]] == [64496]
    assert [a["customer_asid"] for a in doc["provider_authorizations"]["ipv4"]] == [64496]
