"""The README's set-up commands and scenario examples are true."""

import re

from helpers import ROOT

from bgpsim.sim.plan import resolve
from bgpsim.sim.run import simulate
from bgpsim.sim.scenario import load_scenario

README = (ROOT / "README.md").read_text()


def test_readme_starts_with_the_two_setup_commands():
    first_block = re.search(r"```sh\n(.*?)```", README, re.S).group(1).strip().splitlines()
    assert first_block == ["python3 -m pip install . && bgpsim run",
                           "python3 -m pip install -e '.[test]' && python3 -m pytest -q -n auto"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert first_block[1] in ci


def test_readme_scenario_examples_run(tmp_path):
    blocks = re.findall(r"```toml\n(.*?)```", README, re.S)
    assert blocks
    (tmp_path / "topologies").mkdir()
    (tmp_path / "topologies" / "teaching.toml").symlink_to(ROOT / "scenarios" / "topologies" / "teaching.toml")
    for k, text in enumerate(blocks):
        path = tmp_path / f"example{k}.toml"
        path.write_text(text)
        scn = load_scenario(path)
        run = simulate(resolve(scn))
        assert abs(sum(run.outcome.__dict__.values()) - 1) < 1e-5
        if scn.events:  # the full example: its link failure shows up as a mark
            assert any("fails" in m.label for m in run.marks)
