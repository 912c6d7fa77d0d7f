"""result.json's text is `json.dumps(doc, indent=1)` byte for byte, though its timeline is encoded by
json's C encoder and laid out by bgpsim.sim.output (for speed): on real runs and on documents made to
trip the layout (tiny numbers, NaN, strings holding "], [", empty rows)."""

from __future__ import annotations

import json
import math
import random
from types import SimpleNamespace

import pytest

from bgpsim.cli import main
from bgpsim.sim import output


def indented(doc: dict) -> str:
    return json.dumps(doc, indent=1) + "\n"


def test_a_real_run(tmp_path, monkeypatch):
    runs = []
    write = output.write
    monkeypatch.setattr(output, "write", lambda run, out, **kw: runs.append(run) or write(run, out, **kw))
    assert main(["run", "--out", str(tmp_path / "timed"), "--quiet", "--no-figures"]) == 0
    assert main(["run", "teaching-roa-delay", "--out", str(tmp_path / "rpki"), "--quiet", "--no-figures"]) == 0
    assert len(runs) == 2 and all(len(r.timeline) > 2 for r in runs)
    for run, name in zip(runs, ("timed", "rpki")):
        text = (tmp_path / name / "result.json").read_text()
        assert text == indented(run.to_json()) == output.result_json(run)


NUMBERS = [0, 1, -3, 0.0, -0.0, 1.0, 0.5, 1.3e-05, 1e-05, 0.000123, 12345.678901, 1e16, 2.5e-300, math.inf, -math.inf,
           math.nan, 78643, 0.1 + 0.2]


@pytest.mark.parametrize("seed", range(30))
def test_made_documents(seed):
    rnd = random.Random(seed)
    number = lambda: rnd.choice(NUMBERS) if rnd.random() < 0.5 else round(rnd.uniform(-1e5, 1e5), rnd.randrange(8))
    rows = [[number() for _ in range(rnd.choice((1, 3, 3, 6)))] for _ in range(rnd.randrange(0, 40))]
    if seed % 5 == 1:
        rows.insert(rnd.randrange(len(rows) + 1), [])
    doc = {"scenario": {"name": "a], [b, c", "description": "line\none, ], [ \u00e9\u2019", "list": [1, [], {}, "x, y"]},
           "seed": seed, "marks": [{"time": 1.5, "label": "[[]]"}], "timeline": rows, "after": {"k": [None, True]}}
    if seed % 7 == 0:
        doc = {"timeline": rows}
    got = output.result_json(SimpleNamespace(to_json=lambda: doc))
    assert got == indented(doc)
